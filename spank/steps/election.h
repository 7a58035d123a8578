/*
 * election.h - the election of the one srun that starts a job's master, as
 * a pure state machine: mcp_election_next() maps the election's state and
 * what the driver saw (struct mcp_seen) to the next action. It reads no
 * clock, file or socket: master.c performs each action with the real ones
 * and fills in what it saw; the plugin tests drive it with made-up ones.
 *
 * Concurrent sruns of a job elect one starter per attempt with an O_EXCL
 * lock file, mooncake_master.<attempt>.lock, in the job's directory; the
 * others watch the state file (mooncake_master.json) until it says ready
 * or failed for that attempt. A new attempt (after a failure this srun did
 * not witness, or when the starter is gone) takes the next number: no lock
 * is ever removed, so two sruns never both own one attempt.
 *
 *   LOCK ---mine---> SPAWN --spawned--> STARTING --answers--> CLAIM --> DONE
 *    |  \                ^  busy ports      |  ended, lost its ports |
 *    |   theirs          +------------------+  (ports=auto)          |
 *    v                                      |  ended, timeout        v
 *   WAIT --ready--> JOIN --answers--> DONE  +----------------> FAILED
 *    | \--starter died after launching: ADOPT (like STARTING) ----^
 *    +--its master step launched, the starter alive, joinable: DONE
 *       (STARTING: the tasks wait for ready, stepd.c)
 *    +--failed before we looked, starter gone, newer attempt, an earlier
 *       run's pool (the job was requeued): LOCK n+1
 *
 * A starter (SPAWN, STARTING, ADOPT, CLAIM) that finds a newer attempt in
 * the state file (another srun judged it gone) stops what it launched and
 * follows that attempt: LOCK n+1; it never records its own.
 */
#ifndef MCP_ELECTION_H_
#define MCP_ELECTION_H_

#include <stdbool.h>

#include "jobdir/jobdir.h" /* enum mcri_phase */

enum mcp_el_state {
	MCP_EL_LOCK,     /* take the lock of the current attempt */
	MCP_EL_SPAWN,    /* this srun holds it: launch the master step */
	MCP_EL_STARTING, /* the master step we launched: until it answers */
	MCP_EL_ADOPT,    /* the one a starter that died launched: the same */
	MCP_EL_CLAIM,    /* it answers: store the job's token, record ready */
	MCP_EL_WAIT,     /* another srun holds the lock: watch the state */
	MCP_EL_JOIN,     /* the state says ready: the master must answer */
	MCP_EL_DONE,
	MCP_EL_FAILED,
};

enum mcp_el_action {
	MCP_DO_TAKE_LOCK, /* O_EXCL on this attempt's lock: seen.lock */
	MCP_DO_SPAWN,     /* record "starting", launch on candidate ports: seen.spawn */
	MCP_DO_WATCH,     /* our (or the adopted) master step: seen.child, seen.probe */
	MCP_DO_CLAIM,     /* store the token, check it: seen.claimed */
	MCP_DO_READ,      /* the state file and its starter: seen.state ... */
	MCP_DO_ADOPT,     /* O_EXCL on this attempt's adoption: seen.adopt_won */
	MCP_DO_PROBE,     /* the recorded master, with the token: seen.probe */
	MCP_DO_SLEEP,     /* wait a poll interval, then the action before */
	MCP_DO_STOP,      /* stop the master step (then FAILED) */
	MCP_DO_FINISH,    /* el.state is DONE or FAILED: el.verdict says why */
};

/* Why the election ended (the driver words the message). */
enum mcp_el_verdict {
	MCP_V_NONE,
	MCP_V_READY,           /* started, adopted or joined */
	MCP_V_STARTING,        /* joined while its master step starts it */
	MCP_V_LOCK_ERROR,      /* the lock could not be created (seen.error) */
	MCP_V_SPAWN_ERROR,     /* the master step could not be launched */
	MCP_V_PORTS_BUSY,      /* ports=fixed: a port is in use before we start */
	MCP_V_NO_FREE_PORTS,   /* ports=auto: every candidate was taken */
	MCP_V_EXITED,          /* the master step ended during start-up */
	MCP_V_TIMEOUT,         /* not ready within the readiness bound */
	MCP_V_OTHER_FAILED,    /* the attempt we waited for failed */
	MCP_V_WAIT_TIMEOUT,    /* the other srun never gave a verdict */
	MCP_V_STOPPED,         /* recorded ready, refuses now */
	MCP_V_UNREACHABLE,     /* recorded ready, no answer within the bound */
	MCP_V_RESTART_TIMEOUT, /* recorded ready, being restarted, not back within the bound */
	MCP_V_TOO_MANY,        /* out of attempts */
	MCP_V_OTHER_RECIPE,    /* the job's pool comes from another recipe */
	MCP_V_OTHER_JOB,       /* the directory holds the pool of another job that runs */
};

enum mcp_lock { MCP_LOCK_MINE, MCP_LOCK_THEIRS, MCP_LOCK_ERROR };
/* SUPERSEDED: another srun took a newer attempt (it judged this one's
 * starter gone): this srun follows it */
enum mcp_spawn { MCP_SPAWNED, MCP_SPAWN_BUSY, MCP_SPAWN_ERROR, MCP_SPAWN_SUPERSEDED };
enum mcp_child { MCP_CHILD_RUNNING, MCP_CHILD_ENDED };
/* RESTARTING: refused, but its master step is starting it again (restart=) */
enum mcp_probe { MCP_PROBE_READY, MCP_PROBE_REFUSED, MCP_PROBE_NO_ANSWER, MCP_PROBE_RESTARTING };

/* What the driver saw when it performed the last action. */
struct mcp_seen {
	double now;           /* seconds, monotonic */
	enum mcp_lock lock;   /* TAKE_LOCK */
	enum mcp_spawn spawn; /* SPAWN */
	enum mcp_child child; /* WATCH */
	bool lost_ports;      /* WATCH, ended: another process has one of its ports */
	enum mcp_probe probe; /* WATCH, PROBE */
	bool claimed;         /* CLAIM */
	bool superseded;      /* WATCH, CLAIM: a newer attempt owns the state */
	/* READ */
	enum mcri_phase phase; /* of the state file (NONE: no file) */
	int state_attempt;     /* the attempt it is about */
	bool launched;         /* it records the master step's srun */
	bool starter_alive;    /* the starting srun runs (or may: another host) */
	bool step_alive;       /* the master step's srun runs (or may) */
	bool starter_on_this_host;
	bool lock_stale;   /* its holder is gone (mcri_lock_seen_gone) */
	bool lock_touched; /* its holder is known to work on: it holds
				     * the lock, or this srun saw it touch it */
	bool other_recipe; /* it is about another recipe's pool */
	bool other_job;    /* ... the pool of another job, which still runs */
	bool other_run;    /* it is about an earlier run of the job (a requeue),
				     * or another job that got its id (READ, PROBE) */
	bool joinable;     /* a master that is starting may be joined (the
				     * caller's tasks wait for it; never an HA pool) */
	bool adopt_won;    /* ADOPT */
};

struct mcp_election {
	enum mcp_el_state state;
	enum mcp_el_verdict verdict;
	int attempt; /* 1.. */
	int max_attempts;
	int candidate;              /* the ports tried in this attempt: 0.. */
	int max_candidates;         /* 1 for ports=fixed */
	double timeout;             /* seconds: the readiness bound */
	double deadline;            /* of the current wait */
	bool first_look;            /* WAIT: the state was not read yet */
	enum mcp_el_state watching; /* CLAIM: STARTING or ADOPT, to go back to */
	enum mcp_el_action last;    /* the action returned last */
	enum mcp_el_action resume;  /* the action a SLEEP repeats */
	bool superseded;            /* STOP: a newer attempt took over, follow it */
};

/* A new election at attempt 1, at time `now`. */
void mcp_election_init(struct mcp_election *el, double timeout, int max_attempts, int max_candidates, double now);

/* The next action, and el's new state, after `seen` (what the previous
 * action showed; ignored for the first call). */
enum mcp_el_action mcp_election_next(struct mcp_election *el, const struct mcp_seen *seen);

/* How long another srun may take to give a verdict on its attempt: the
 * readiness bound, plus the time it takes to stop a master that was not
 * ready (seconds). */
#define MCP_STARTER_GRACE 25

#endif /* MCP_ELECTION_H_ */
