/*
 * master.h - one mooncake_master per job, as a job step of its own
 * (master.c): srun looks, runs the election (election.c) and starts or
 * joins the master; its waits end when srun is told to stop.
 */
#ifndef MCP_MASTER_H_
#define MCP_MASTER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "container/container.h"
#include "jobdir/jobdir.h"
#include "mooncake_recipe.h"
#include "plugstack/plugstack.h"
#include "steps/election.h"

/* ---- make sure the job's master runs (srun) -------------------------- */

struct mcp_job {
	uint32_t job_num;              /* the job of the pool (mcp_job_id_parse) */
	const char *job_id;            /* ... in decimal, for records and messages */
	int run;                       /* the job's run (SLURM_RESTART_COUNT), -1 unknown
				 * (an srun from outside the allocation) */
	bool het;                      /* a heterogeneous job's leader, from outside its
				 * allocation (mcp_step_place.het) */
	const struct mcri_jobdir *dir; /* the job's Mooncake directory, open */
	const char *recipe;            /* the recipe's real path */
	/* the job's first `want` nodes (the infra node first) and their
	 * addresses, *got of them (fewer when the job has fewer); found
	 * lazily (a Slurm RPC) only by the srun that starts the master */
	int (*find_nodes)(void *arg, struct mcri_ha_member *nodes, int want, int *got, struct mcr_error *err);
	void *find_nodes_arg;
	/* where the master runs, decided by srun before anything was written;
	 * NULL when the pool ran already (the starter decides then) */
	const struct mcp_container *container;
	/* the starter, just before it launches the master step and again
	 * just before it records the pool ready: the job's client configs for
	 * the master at `master` ("host:port"), so that no srun that joins
	 * finds them missing or of an earlier run or attempt; -1 with err */
	int (*configs)(void *arg, const char *master, struct mcr_error *err);
	void *configs_arg;
	/* the caller may join a master whose step was launched but is not
	 * ready yet (*st then says starting): its tasks wait for ready
	 * (mcp_handover.starting). Never an HA pool. */
	bool join_starting;
	/* which job of its id this is, where srun knows it without asking
	 * slurmctld (SLURM_CLUSTER_NAME; SLURM_JOB_START_TIME, Slurm 23.02
	 * on; an srun from outside the allocation asked): "" and 0 unknown */
	const char *cluster;
	long long start;
};
/* The longest master address a pool's clients get (an HA pool's etcd://
 * address of three members; mcri_state_master) */
#define MCP_MASTER_ADDRESS_MAX 1024
/* Start or join the job's master. On success *st is the ready state
 * (infra node and address, ports), or with job->join_starting the state
 * of a master that is starting (phase MCRI_PHASE_STARTING): its step was
 * launched and its client configs written, ready is still to come. */
int mcp_ensure_master(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe, const struct mcp_job *job,
		      struct mcri_state *st, struct mcr_error *err);
/* How long a master may take to be ready (seconds): the recipe's bound,
 * else plugstack.conf's ready_timeout=. */
int mcp_ready_timeout(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe);
/* The address the pool's clients get (mcri_state_master: "host:port", an
 * HA pool's etcd://) into buf (size bytes): 0, or -1 with err set. */
int mcp_master_address(const struct mcri_state *st, char *buf, size_t size, struct mcr_error *err);

/* The fix for a master step that could not run
 * mooncake_master, from its log's `tail` (slurmstepd's "execve(): NAME:
 * No such file or directory", env(1)'s, a container runtime's): inside
 * the container `c` (NULL or mode NONE: the host), the image to fix or
 * master=; on the host, the PATH or master=/path/to/NAME. "" when the tail
 * shows no such failure. `master` is master=. */
void mcp_master_advice(const struct mcp_container *c, const char *tail, const char *master, const char *node, char *out,
		       size_t size);

/* srun's waits end on SIGTERM, SIGINT and SIGHUP. Watch
 * (on) from the start of a wait to its end (off): the signal srun was
 * told to stop with (still pending, or caught and passed to srun's own
 * handler), or 0. */
void mcp_interrupt_watch(bool on);
int mcp_interrupted(void);

/* ---- one srun's run of the election (master.c; lender.c runs it on a
 * lender's records) --------------------------------------------------- */
struct master {
	/* whose election: the master's (NULL), or a lender's on one node
	 * (lender.c): its records' subject (runtime/jobdir), and what
	 * messages call it ("the job's mooncake_master") */
	const char *subject;
	const char *what;
	const struct mcri_plugstack *ps;
	const struct mcr_recipe *recipe;
	const struct mcp_job *job;
	uint32_t job_num;
	char host[256];
	char log[PATH_MAX + 300]; /* the step's log: the job's directory and a name of up to 255 bytes */
	char pool_path[128];
	struct mcri_state st;           /* ours while we hold the lock, else read */
	pid_t child;                    /* the master step's srun we launched */
	char ended[64];                 /* how the master step ended */
	bool claim_ports;               /* ports=auto with srtctl's argv */
	struct mcp_container container; /* where the master runs (the starter's choice) */
	int timeout;                    /* the readiness bound, seconds */
	double t0, next_line;           /* of the current wait, for progress */
	double job_checked;             /* when slurmctld was last asked if the job runs */
	char why[512];                  /* what the last probe saw */
	bool restarting;                /* ... its master step is starting it again */
	int busy_port;                  /* a port found in use before we started */
	struct mcr_error err;           /* a failure of an action */
	struct mcri_proof proof;        /* the master step's word on its ports */
	/* " (port P listens for another process on NODE, of uid U, ...)" or "":
	 * room for the longest node name (255 bytes) and the words around it */
	char why_foreign[400];
	double touched; /* the lock's heartbeat */
	int lock_fd;    /* the lock of the attempt this srun holds (-1 none) */
	/* a waiter's view of the holder's lock (its heartbeat, its holder) */
	struct mcri_lock_seen lock_seen;
	/* a waiter's watch on the job's directory (mcri_jobdir_watch) */
	bool watch_tried;
	struct mcri_watch watch;
	/* an HA pool's failover: when slurmctld was last asked whether the
	 * master step has ended, and its answer */
	double step_asked;
	bool step_gone;
	/* the state read last is of another job of this id (its cluster or
	 * its start differ from this job's): an earlier job's pool, which
	 * this job starts afresh over, its logs kept */
	bool stale;
	/* the state file names another job: whether it still runs (asked once) */
	char other_job[32];
	bool other_job_runs;
};

/* `pid` runs, and is the process that started at `start` (0: unknown) */
bool mcp_master_alive(long pid, unsigned long long start);
/* The driver's actions that serve any subject's election: take the lock of
 * `attempt`, let go of it, record a failure of ours for the others, finish
 * the work of a starter that died, stop the step (ours: the one this srun
 * launched, else the adopted one) */
enum mcp_lock mcp_master_take_lock(struct master *m, int attempt);
void mcp_master_release_lock(struct master *m);
void mcp_master_record_failure(struct master *m, const struct mcr_error *err);
bool mcp_master_adopt(struct master *m, int attempt);
void mcp_master_stop(struct master *m, bool ours);
/* which job of its id a new attempt's state is (st's cluster, job_start) */
void mcp_master_identify(struct master *m, struct mcri_state *st);
/* touch the lock of the attempt we hold, at most once a second */
void mcp_master_heartbeat(struct master *m);
/* a newer attempt than ours exists (its lock or its state) */
bool mcp_master_superseded(struct master *m);
/* The step this srun launched (STARTING) or adopted: has it ended (m->ended
 * says how)? Meanwhile the lock's heartbeat; s->superseded when a newer
 * attempt has taken over (the caller looks no further then). */
bool mcp_master_step_ended(struct master *m, enum mcp_el_state state, struct mcp_seen *s);
/* The step has ended: were its ports why? Its claim's refusal in its log
 * (whose last `size` bytes land in `tail`), or a port of m->st.ports on
 * its node in use by another program (set in m->busy_port, 0 if none). */
bool mcp_master_lost_ports(struct master *m, char *tail, size_t size);
/* MCP_DO_WATCH: the master step we launched or adopted, into s */
void mcp_master_watch(struct master *m, enum mcp_el_state state, struct mcp_seen *s);
/* the guard found another process's socket on our ports (m->why_foreign) */
bool mcp_master_foreign(struct master *m);
/* MCP_DO_CLAIM: the answering master is ours (the guard's proof);
 * *gone when a newer attempt took over */
bool mcp_master_claim(struct master *m, bool *gone);
/* MCP_DO_PROBE: a joining srun's look at the recorded master */
enum mcp_probe mcp_master_join_probe(struct master *m);
/* the busy port is this job's own master of another pool: its recipe and
 * directory, each cut to its buffer */
bool mcp_master_own_pool(struct master *m, char *recipe, size_t rsize, char *dir, size_t dsize);
/* m->st is of another job that got this job's id (its cluster or its
 * start, where both are known, differ); with `ask`, slurmctld is asked
 * for this job's start when srun does not know it */
bool mcp_master_other_job_of_this_id(struct master *m, bool ask);
/* MCP_DO_READ: the state file and the lock of `attempt`, into s */
void mcp_master_read_state(struct master *m, int attempt, struct mcp_seen *s);
/* the job has ended while this srun waits (slurmctld, every few seconds):
 * true, with the job's state in err */
bool mcp_master_job_ended(struct master *m, struct mcr_error *err);
/* the message of a failed election (its verdict), into err */
void mcp_master_failure(struct master *m, const struct mcp_election *el, struct mcr_error *err);

#endif /* MCP_MASTER_H_ */
