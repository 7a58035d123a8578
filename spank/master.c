/*
 * master.c - one mooncake_master per job, as a job step of its own: the
 * driver of the election (election.c decides, this file looks and acts).
 *
 * The srun that wins an attempt's lock launches the master step on the
 * infra node (master_step.c) on a triple of ports (ports.c), waits until
 * it answers, and records "ready" with the ports once the master step
 * itself, on the infra node, has proved that the sockets on those ports
 * are its mooncake_master's (guard.c): another user's listener that took
 * a port first is never taken for the master. Ready means: the master
 * step is alive, its RPC port accepts, GET /health answers 200 on its
 * metadata and metrics ports, and its guard's proof for this attempt says
 * the sockets are the master's. Every other srun of the job waits for
 * that verdict and then checks that the master's port accepts and that
 * its step still runs (slurmctld): a process that took the ports after
 * the master ended is not the master either. While the starter waits it
 * touches its lock (a heartbeat): a lock left by a starter that died, on
 * any host, is taken over after MCP_LOCK_STALE_S seconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "master.h"

#define POLL_STARTING_MS 25 /* a TCP connect; HTTP only once it accepts */
#define POLL_STATE_MS 50    /* the state file */
#define POLL_BLIP_MS 250    /* a master that does not answer */
#define FIRST_PROGRESS_S 3  /* a master is usually ready in ~1.5 s: no line */
#define PROGRESS_EVERY_S 5
#define POOL_KEY "spank_mooncake/pool/" /* the recipe and directory of the pool (advice) */
/* a lock whose holder has not touched it for so long: longer than the
 * longest call between two heartbeats (a slurmctld RPC that retries, up to
 * 2 x MessageTimeout, 10 s by default) */
#define MCP_LOCK_STALE_S 30

struct master {
	const struct mcp_plugstack *ps;
	const struct mcr_recipe *recipe;
	const struct mcp_job *job;
	unsigned long job_num;
	char host[256];
	char log[PATH_MAX + 32];
	char pool_path[128];
	struct mcri_state st;       /* ours while we hold the lock, else read */
	pid_t child;                /* the master step's srun we launched */
	char ended[64];             /* how the master step ended */
	bool claim_ports;           /* ports=auto with srtctl's argv */
	struct mcp_container container; /* where the master runs (the starter's choice) */
	int timeout;                /* the readiness bound, seconds */
	double t0, next_line;       /* of the current wait, for progress */
	double job_checked;         /* when slurmctld was last asked if the job runs */
	char why[512];              /* what the last probe saw */
	int busy_port;              /* a port found in use before we started */
	struct mcr_error err;       /* a failure of an action */
	struct mcri_proof proof;    /* the master step's word on its ports */
	char why_foreign[200];      /* " (port P listens for another process ...)" or "" */
	double touched;             /* the lock's heartbeat */
	/* a waiter's view of the holder's heartbeat: the lock's mtime as the
	 * file server keeps it, and when (this srun's clock) it last changed */
	int lock_attempt;
	double lock_mtime, lock_changed;
	/* the state file names another job: whether it still runs (asked once) */
	char other_job[32];
	bool other_job_runs;
};

/* `pid` runs, and is the process that started at `start` (0: unknown) */
static bool alive(long pid, unsigned long long start)
{
	return mcp_pid_alive(pid) && (!start || mcri_pid_start(pid) == start);
}

/* Stop the master step: the one we launched (`ours`), or the adopted one
 * of a starter that died, only while its srun is still the process that
 * was recorded (never a later process that got its pid) */
static void stop(struct master *m, bool ours)
{
	if (ours)
		mcp_stop_step(m->child, true);
	else if (alive(m->st.srun_pid, m->st.srun_start))
		mcp_stop_step((pid_t)m->st.srun_pid, false);
}

/* While we hold an attempt, everything that may take a while is followed
 * by a heartbeat: the other sruns tell a live starter from a dead one by
 * the lock's mtime changing, whatever their clocks say. */
static void heartbeat(struct master *m)
{
	if (mcp_now() - m->touched >= 1) {
		mcri_lock_touch(m->job->dir, m->st.attempt);
		m->touched = mcp_now();
	}
}

/* Another srun has taken a newer attempt (it judged us gone): ours is
 * over, whatever we have done for it. Its lock comes first, its state
 * later: either tells. */
static bool superseded(struct master *m)
{
	struct mcri_state now;
	struct mcri_lock next;
	struct mcr_error ignored;

	if (mcri_state_read(m->job->dir, &now, &ignored) == 0 && now.attempt > m->st.attempt)
		return true;
	mcri_lock_read(m->job->dir, m->st.attempt + 1, &next);
	return next.mtime >= 0;
}

static void progress(struct master *m, const char *doing, int bound)
{
	double t = mcp_now();

	if (t < m->next_line)
		return;
	m->next_line = t + PROGRESS_EVERY_S;
	if (!m->st.infra_node[0]) /* the starter has not said where yet */
		slurm_info(MCP_NAME ": waiting for the job's mooncake_master, %.0f s of at most %d s: %s (%s)",
			   t - m->t0, bound, doing, m->why);
	else
		slurm_info(MCP_NAME ": waiting for mooncake_master on %s (%s), %.0f s of at most %d s: %s (%s)",
			   m->st.infra_node, m->st.infra_addr, t - m->t0, bound, doing, m->why);
}

static void wait_begins(struct master *m, double first_line)
{
	m->t0 = mcp_now();
	m->next_line = m->t0 + first_line;
}

static enum mcp_lock take_lock(struct master *m, int attempt)
{
	switch (mcri_lock_take(m->job->dir, attempt, m->host, &m->err)) {
	case 1:
		return MCP_LOCK_MINE;
	case 0:
		return MCP_LOCK_THEIRS;
	default:
		return MCP_LOCK_ERROR;
	}
}

/* Record a failure of our attempt for the other sruns of the job, unless
 * a newer attempt owns the state by now. */
static void record_failure(struct master *m, const struct mcr_error *err)
{
	struct mcr_error ignored;

	if (superseded(m))
		return;
	m->st.phase = MCRI_PHASE_FAILED;
	snprintf(m->st.message, sizeof(m->st.message), "%.*s", (int)sizeof(m->st.message) - 1, err->text);
	mcri_state_write(m->job->dir, &m->st, &ignored);
}

static enum mcp_spawn spawn(struct master *m, const struct mcp_election *el)
{
	struct mcri_state *st = &m->st;
	const struct mcp_step_place at = { m->job->job_id, m->job->dir->path, st->infra_node,
					   m->job->het };
	char *guard;
	int rc;

	if (el->candidate == 0) {
		/* a new attempt of ours: where the master runs (the recipe's
		 * container, if the cluster can run it), the infra node */
		memset(st, 0, sizeof(*st));
		st->attempt = el->attempt;
		st->run = m->job->run > 0 ? m->job->run : 0;
		snprintf(st->job_id, sizeof(st->job_id), "%s", m->job->job_id);
		m->touched = mcp_now(); /* the lock was just made */
		if (m->job->container)
			m->container = *m->job->container;
		else if (mcp_container_decide(m->ps, m->recipe, NULL, &m->container, &m->err))
			return MCP_SPAWN_ERROR;
		heartbeat(m);
		if (m->container.note_verbose) {
			slurm_verbose("%s", m->container.note);
			m->container.note[0] = '\0';
		}
		if (m->job->find_infra(m->job->find_infra_arg, st->infra_node, sizeof(st->infra_node),
				       st->infra_addr, sizeof(st->infra_addr), &m->err))
			return MCP_SPAWN_ERROR;
		heartbeat(m);
		snprintf(st->recipe, sizeof(st->recipe), "%s", m->job->recipe);
		snprintf(st->starter_host, sizeof(st->starter_host), "%s", m->host);
		st->starter_pid = (long)getpid();
		st->starter_start = mcri_pid_start(getpid());
		st->started_at = (long long)time(NULL);
	}
	mcp_port_candidate(m->ps, m->job_num, el->candidate, &st->ports);
	st->phase = MCRI_PHASE_STARTING;
	st->srun_pid = 0;
	st->srun_start = 0;
	/* first thing under the lock: the other sruns see this attempt */
	if (superseded(m))
		return MCP_SPAWN_SUPERSEDED;
	if (mcri_state_write(m->job->dir, st, &m->err))
		return MCP_SPAWN_ERROR;
	heartbeat(m);
	/* a listener before our master exists belongs to someone else */
	m->busy_port = mcp_busy_port(st->infra_addr, &st->ports);
	heartbeat(m);
	if (m->busy_port)
		return MCP_SPAWN_BUSY;
	/* its guard proves the ports its own, for this attempt (guard.c) */
	if (!(guard = mcp_guard_value(st->attempt, m->timeout, &st->ports, m->job->dir->path))) {
		mcri_error_nomem(&m->err);
		return MCP_SPAWN_ERROR;
	}
	rc = mcp_spawn_master(m->ps, m->recipe, &m->container, &at, &st->ports, m->claim_ports,
			      guard, m->log, &m->child, &m->err);
	free(guard);
	if (rc)
		return MCP_SPAWN_ERROR;
	st->srun_pid = (long)m->child;
	st->srun_start = mcri_pid_start(m->child);
	heartbeat(m);
	if (superseded(m)) {
		mcp_stop_step(m->child, true);
		return MCP_SPAWN_SUPERSEDED;
	}
	if (mcri_state_write(m->job->dir, st, &m->err)) {
		mcp_stop_step(m->child, true);
		return MCP_SPAWN_ERROR;
	}
	slurm_info(MCP_NAME ": starting mooncake_master on %s (%s, ports %d, %d, %d) as step mooncake-master of job %s; log: %s",
		   st->infra_node, st->infra_addr, st->ports.rpc, st->ports.metadata,
		   st->ports.metrics, m->job->job_id, m->log);
	wait_begins(m, FIRST_PROGRESS_S);
	return MCP_SPAWNED;
}

static bool foreign(struct master *m);

static void watch(struct master *m, enum mcp_el_state state, struct mcp_seen *s)
{
	char tail[3000];
	int status;
	bool ended;

	if (state == MCP_EL_STARTING) {
		pid_t w = waitpid(m->child, &status, WNOHANG);

		ended = w == m->child || (w < 0 && !mcp_pid_alive(m->child));
		if (w == m->child)
			mcp_describe_status(status, m->ended, sizeof(m->ended));
		else /* reaped by someone else (ECHILD) */
			snprintf(m->ended, sizeof(m->ended), "exit status unknown");
	} else {
		ended = !alive(m->st.srun_pid, m->st.srun_start);
		snprintf(m->ended, sizeof(m->ended), "its srun, pid %ld, is gone", m->st.srun_pid);
	}
	/* the heartbeat of the lock we hold (or took over), and once a
	 * second a look whether another srun has judged us gone */
	if (mcp_now() - m->touched >= 1) {
		heartbeat(m);
		if (superseded(m)) {
			s->superseded = true;
			return;
		}
	}
	if (ended) {
		s->child = MCP_CHILD_ENDED;
		/* its ports: refused by its claim on the infra node, or taken
		 * by another program before it could bind them */
		mcp_log_tail(m->log, tail, sizeof(tail));
		m->busy_port = mcp_busy_port(m->st.infra_addr, &m->st.ports);
		s->lost_ports = m->claim_ports && (strstr(tail, ") on ") && strstr(tail, " is taken: "));
		s->lost_ports |= m->claim_ports && (m->busy_port || foreign(m));
		if (s->lost_ports)
			slurm_info(MCP_NAME ": ports %d, %d, %d are taken on %s%s; trying others",
				   m->st.ports.rpc, m->st.ports.metadata, m->st.ports.metrics,
				   m->st.infra_node, m->why_foreign);
		return;
	}
	s->child = MCP_CHILD_RUNNING;
	s->probe = mcp_probe_master(m->st.infra_addr, &m->st.ports, NULL, NULL, true, m->why,
				    sizeof(m->why));
}

/* The master step's guard found another process's socket on one of
 * the ports of this attempt: said in m->why_foreign. */
static bool foreign(struct master *m)
{
	struct mcr_error ignored;

	if (mcri_proof_read(m->job->dir, &m->proof, &ignored) != 0 ||
	    m->proof.attempt != m->st.attempt || m->proof.verdict != MCRI_PROOF_FOREIGN ||
	    m->proof.ports.rpc != m->st.ports.rpc)
		return false;
	snprintf(m->why_foreign, sizeof(m->why_foreign),
		 " (port %d listens for another process there, of uid %u, not for this job's mooncake_master)",
		 m->proof.foreign_port, m->proof.foreign_uid);
	return true;
}

/* The master answers: it is ours when the master step's guard proved, on
 * the infra node, that the sockets on its ports are its master's; then
 * tell which pool it serves (a second pool's srun names it) */
static bool claim(struct master *m, bool *gone)
{
	struct mcr_error reason;
	char body[64], *pool;
	int status;

	if (superseded(m)) {
		*gone = true;
		return false;
	}
	if (mcri_proof_read(m->job->dir, &m->proof, &reason) != 0 ||
	    m->proof.attempt != m->st.attempt || m->proof.ports.rpc != m->st.ports.rpc) {
		snprintf(m->why, sizeof(m->why), "its master step has not yet proved the ports its own");
		return false;
	}
	if (m->proof.verdict != MCRI_PROOF_OWN) {
		foreign(m);
		snprintf(m->why, sizeof(m->why), "another process answers there%s", m->why_foreign);
		return false;
	}
	/* what the joining sruns check: the master step that holds the ports */
	m->st.master_step = (long)m->proof.step;
	if ((pool = mcri_asprintf("%s\n%s", m->job->recipe, m->job->dir->path))) {
		mcri_http(m->st.infra_addr, m->st.ports.metadata, "PUT", m->pool_path, pool,
			  MCP_PROBE_TIMEOUT_MS, &status, body, sizeof(body), &reason);
		free(pool);
	}
	return true;
}

/* A joining srun: the recorded master accepts on its RPC port, and its
 * step still runs (slurmctld; a process that took the port after the
 * master ended answers too, but the step is gone) */
static enum mcp_probe join_probe(struct master *m)
{
	struct mcp_step_facts f;
	struct mcr_error ignored;
	enum mcp_probe p = mcp_probe_master(m->st.infra_addr, &m->st.ports, NULL, NULL, false,
					    m->why, sizeof(m->why));

	if (p == MCP_PROBE_NO_ANSWER || m->st.master_step <= 0 ||
	    mcp_step_facts(m->job_num, (uint32_t)m->st.master_step, &f, &ignored) != 0 || !f.ended)
		return p;
	snprintf(m->why, sizeof(m->why), "its step %s.%ld has ended%s", m->job->job_id,
		 m->st.master_step,
		 p == MCP_PROBE_READY ? ", and another process answers on its port now" : "");
	return MCP_PROBE_REFUSED;
}

/* The pool a listener on the busy port serves, when it is this job's own
 * master: its recipe and directory. The metadata server has no
 * authentication, so what it says only names a directory to look at:
 * believed only when that directory (the job's user's, checked as the
 * job's own is) holds a ready state of this job on these ports. */
static bool own_pool(struct master *m, char *recipe, size_t rsize, char *dir, size_t dsize)
{
	struct mcri_jobdir other = { .fd = -1 };
	struct mcri_state st;
	struct mcr_error reason;
	char said[PATH_MAX * 2 + 2], *nl;
	int status;
	bool ok;

	if (mcri_http(m->st.infra_addr, m->st.ports.metadata, "GET", m->pool_path, NULL,
		      MCP_PROBE_TIMEOUT_MS, &status, said, sizeof(said), &reason) != 0 ||
	    status != 200 || !(nl = strchr(said, '\n')))
		return false;
	*nl = '\0';
	ok = mcri_jobdir_open(&other, nl + 1, getuid(), false, &reason) == 0 &&
	     strcmp(other.path, m->job->dir->path) != 0 && mcri_state_read(&other, &st, &reason) == 0 &&
	     st.phase == MCRI_PHASE_READY && strcmp(st.job_id, m->job->job_id) == 0 &&
	     st.ports.rpc == m->st.ports.rpc && strcmp(st.infra_node, m->st.infra_node) == 0;
	if (ok) {
		snprintf(recipe, rsize, "%s", st.recipe);
		snprintf(dir, dsize, "%s", other.path);
	}
	mcri_jobdir_close(&other);
	return ok;
}

static void read_state(struct master *m, int attempt, struct mcp_seen *s)
{
	struct mcr_error ignored;
	struct mcri_lock lock;

	mcri_lock_read(m->job->dir, attempt, &lock);
	if (mcri_state_read(m->job->dir, &m->st, &ignored) != 0)
		memset(&m->st, 0, sizeof(m->st));
	s->phase = m->st.phase;
	s->state_attempt = m->st.attempt;
	s->launched = m->st.srun_pid > 0;
	s->other_recipe = m->st.recipe[0] && strcmp(m->st.recipe, m->job->recipe) != 0;
	/* a state file of another job (a directory without {job_id}): an
	 * earlier run when that job has ended, else its pool, not ours (a
	 * job slurmctld cannot tell about is taken to run, and asked again) */
	if (m->st.job_id[0] && strcmp(m->st.job_id, m->job->job_id) != 0) {
		if (strcmp(m->other_job, m->st.job_id) != 0) {
			struct mcp_job_facts f;
			bool known = mcp_job_facts((uint32_t)strtoul(m->st.job_id, NULL, 10), &f,
						   &ignored) == 0;

			m->other_job_runs = !known || !f.ended;
			snprintf(m->other_job, sizeof(m->other_job), "%s", known ? m->st.job_id : "");
		}
		s->other_job = m->other_job_runs;
		s->other_run = !m->other_job_runs;
	} else {
		/* this job's state: of an earlier run after a requeue */
		s->other_run = m->job->run >= 0 && m->st.run != m->job->run;
	}
	if (m->st.attempt == attempt && m->st.starter_host[0]) {
		s->starter_on_this_host = strcmp(m->st.starter_host, m->host) == 0;
		s->starter_alive = alive(m->st.starter_pid, m->st.starter_start);
	} else {
		s->starter_on_this_host = lock.pid && strcmp(lock.host, m->host) == 0;
		s->starter_alive = alive(lock.pid, lock.start);
	}
	s->step_alive = m->st.attempt == attempt && alive(m->st.srun_pid, m->st.srun_start);
	/* the holder touches its lock every second while it works: one whose
	 * lock has not changed for MCP_LOCK_STALE_S seconds of this srun's
	 * clock has died (or failed without a word, a full disk), on whatever
	 * host; the file server's clock and ours need not agree
	 * (a lock that cannot be read, or not yet, counts as unchanged) */
	if (attempt != m->lock_attempt || (lock.mtime >= 0 && lock.mtime != m->lock_mtime)) {
		m->lock_attempt = attempt;
		m->lock_mtime = lock.mtime;
		m->lock_changed = mcp_now();
	}
	s->lock_stale = mcp_now() - m->lock_changed > MCP_LOCK_STALE_S;
}

/* the starter died after launching the master step: one srun on this
 * host (O_EXCL again) finishes its work */
static bool adopt(struct master *m, int attempt)
{
	if (!mcri_lock_adopt(m->job->dir, attempt))
		return false;
	slurm_info(MCP_NAME ": the srun that started the master is gone; checking the master it launched");
	wait_begins(m, FIRST_PROGRESS_S);
	return true;
}

/* A wait that lasts asks slurmctld every JOB_CHECK_S seconds whether the
 * job still runs: a job that ended (scancel, time limit, a node lost)
 * ends the wait at once, with the job's state, instead of at its bound. */
#define JOB_CHECK_S 5
static bool job_ended(struct master *m, struct mcr_error *err)
{
	struct mcp_job_facts f;
	struct mcr_error ignored;
	double t = mcp_now();

	if (t - m->t0 < JOB_CHECK_S || t - m->job_checked < JOB_CHECK_S)
		return false;
	m->job_checked = t;
	if (mcp_job_facts((uint32_t)m->job_num, &f, &ignored) != 0 || !f.ended)
		return false;
	mcri_error_set(err, MCR_ESTATE,
		       "job %s has ended (%s) while this srun waited for its mooncake_master; nothing was started for this step",
		       m->job->job_id, f.state[0] ? f.state : "no longer known to Slurm");
	return true;
}

/* lines on srun's terminal when the election moves on */
static void announce(struct master *m, enum mcp_el_state before,
		     const struct mcp_election *el, const struct mcp_seen *s)
{
	if (before == MCP_EL_WAIT && el->state == MCP_EL_LOCK) {
		int left = el->attempt - 1; /* the attempt this srun left */

		if (s->other_run && s->phase != MCRI_PHASE_NONE && m->st.job_id[0] &&
		    strcmp(m->st.job_id, m->job->job_id) != 0)
			slurm_info(MCP_NAME ": the pool in %s was of job %s, which has ended; starting job %s's there",
				   m->job->dir->path, m->st.job_id, m->job->job_id);
		else if (s->other_run && s->phase != MCRI_PHASE_NONE)
			slurm_info(MCP_NAME ": job %s was requeued (run %d): the pool of its earlier run (%d) in %s is not reused; starting a new one there",
				   m->job->job_id, m->job->run, m->st.run, m->job->dir->path);
		else if (s->phase == MCRI_PHASE_FAILED && s->state_attempt == left)
			slurm_info(MCP_NAME ": an earlier attempt to start the master failed; trying again");
		else if (s->state_attempt <= left)
			slurm_info(MCP_NAME ": the srun that was starting the master is gone; taking over");
	} else if (before == MCP_EL_LOCK && el->state == MCP_EL_WAIT) {
		wait_begins(m, FIRST_PROGRESS_S);
		snprintf(m->why, sizeof(m->why), "another srun of this job is starting it");
	} else if (before == MCP_EL_WAIT && el->state == MCP_EL_JOIN) {
		wait_begins(m, 0); /* a master that does not answer shows at once */
	}
}

static void pause_for(struct master *m, const struct mcp_election *el)
{
	switch (el->state) {
	case MCP_EL_WAIT:
		progress(m, "not ready yet", (int)el->timeout + MCP_STARTER_GRACE);
		mcp_sleep_ms(POLL_STATE_MS);
		break;
	case MCP_EL_JOIN:
		progress(m, "it does not answer from this node, asking again", (int)el->timeout);
		mcp_sleep_ms(POLL_BLIP_MS);
		break;
	default:
		progress(m, "not ready yet", (int)el->timeout);
		mcp_sleep_ms(POLL_STARTING_MS);
	}
}

/* the message of a failed election (err), from what the driver saw */
static void failure(struct master *m, const struct mcp_election *el, struct mcr_error *err)
{
	const struct mcri_state *st = &m->st;
	char tail[3000], advice[1024] = "", busy[512] = "";
	char other_recipe[PATH_MAX], other_dir[PATH_MAX];
	int bound = (int)el->timeout;

	switch (el->verdict) {
	case MCP_V_LOCK_ERROR:
	case MCP_V_SPAWN_ERROR:
		*err = m->err;
		break;
	case MCP_V_PORTS_BUSY:
		if (own_pool(m, other_recipe, sizeof(other_recipe), other_dir, sizeof(other_dir))) {
			/* a second pool of this job: another recipe, another directory */
			mcri_error_set(err, MCR_EINVAL,
				       "port %d on the infra node %s (%s) is taken by this job's own mooncake_master, of the pool of %s in %s; this srun's recipe %s has a pool of its own (in %s), and with ports=fixed a node holds one master: use %s for this step too, or ask the admin for ports=auto (each pool then gets ports of its own)",
				       m->busy_port, st->infra_node, st->infra_addr, other_recipe, other_dir,
				       m->job->recipe, m->job->dir->path, other_recipe);
			break;
		}
		mcri_error_set(err, MCR_ESTATE,
			       "port %d on the infra node %s (%s) is already in use by another process (not this job's master, which is not started yet), so mooncake_master could not listen there. Is another job's mooncake_master running on %s? Only one job at a time can use a node as its infra node (the ports are fixed): run the job on other nodes, or with --exclusive",
			       m->busy_port, st->infra_node, st->infra_addr, st->infra_node);
		break;
	case MCP_V_NO_FREE_PORTS:
		mcri_error_set(err, MCR_ESTATE,
			       "no free ports for mooncake_master on the infra node %s (%s): each of the %d triples it tried was taken (8700-8702, then %d of the %d triples of port_range=%d-%d); widen port_range= in plugstack.conf, or run the job on another first node",
			       st->infra_node, st->infra_addr, el->max_candidates, el->max_candidates - 1,
			       (m->ps->port_hi - m->ps->port_lo + 1) / 3, m->ps->port_lo, m->ps->port_hi);
		break;
	case MCP_V_EXITED:
		mcp_log_tail(m->log, tail, sizeof(tail));
		mcp_master_advice(&m->container, tail, m->ps->master, st->infra_node, advice,
				  sizeof(advice));
		if (foreign(m))
			snprintf(busy, sizeof(busy), " It could not take its ports%s.", m->why_foreign);
		else if (m->busy_port && !m->claim_ports)
			snprintf(busy, sizeof(busy),
				 " Port %d on %s is in use by another process: another job's mooncake_master on the same node? Only one job at a time can use a node as its infra node (the ports are fixed): run such jobs on different first nodes, or with --exclusive.",
				 m->busy_port, st->infra_node);
		mcri_error_set(err, MCR_ESTATE,
			       "the master step (mooncake_master on %s) ended during start-up (%s) before it was ready.%s%s Last lines of %s:%s",
			       st->infra_node, m->ended, busy, advice, m->log, tail[0] ? tail : " (empty)");
		break;
	case MCP_V_TIMEOUT:
		mcp_log_tail(m->log, tail, sizeof(tail));
		mcri_error_set(err, MCR_ESTATE,
			       "mooncake_master on %s (%s) was not ready after %d s: %s; it was stopped. If the node is just slow, raise readiness.timeout_seconds of the mooncake-master service (or ready_timeout= in plugstack.conf); last lines of %s:%s",
			       st->infra_node, st->infra_addr, bound, m->why, m->log,
			       tail[0] ? tail : " (empty)");
		break;
	case MCP_V_OTHER_FAILED:
		mcri_error_set(err, MCR_ESTATE,
			       "the job's mooncake_master could not be started (another srun of this job tried): %s",
			       st->message);
		break;
	case MCP_V_WAIT_TIMEOUT:
		mcri_error_set(err, MCR_ESTATE,
			       "timed out after %.0f s waiting for the job's mooncake_master that another srun of this job is starting (state: %s); see %s",
			       mcp_now() - m->t0, st->phase ? mcri_phase_name(st->phase) : "unknown",
			       m->log);
		break;
	case MCP_V_UNREACHABLE:
		mcri_error_set(err, MCR_ESTATE,
			       "the job's mooncake_master on %s (%s) was ready, but this node (%s) cannot reach it: no answer within %d s (%s). It may still be running: check the network between %s and %s (link, routes, firewall), then run srun again",
			       st->infra_node, st->infra_addr, m->host, bound, m->why, m->host,
			       st->infra_node);
		break;
	case MCP_V_STOPPED:
		mcri_error_set(err, MCR_ESTATE,
			       "the job's mooncake_master on %s (%s) was ready, but has stopped: %s. It is not restarted behind running workers (their segments and keys are gone with it); see %s and resubmit the job",
			       st->infra_node, st->infra_addr, m->why, m->log);
		break;
	case MCP_V_OTHER_JOB:
		mcri_error_set(err, MCR_EINVAL,
			       "the directory %s holds the Mooncake pool of job %s, which still runs, and this srun is of job %s: one directory holds one job's pool. Put {job_id} in the recipe's output.log_dir (e.g. log_dir: outputs/{job_id}/logs), or use another directory",
			       m->job->dir->path, st->job_id, m->job->job_id);
		break;
	case MCP_V_OTHER_RECIPE:
		mcri_error_set(err, MCR_EINVAL,
			       "the job's Mooncake pool in %s comes from the recipe %s, and this srun names %s: one directory holds one pool. Use %s for this step too, or give the other recipe an output.log_dir of its own (its pool then gets a master of its own)",
			       m->job->dir->path, st->recipe, m->job->recipe, st->recipe);
		break;
	default:
		mcri_error_set(err, MCR_ESTATE,
			       "the job's mooncake_master could not be started in %d attempts; see %s",
			       el->max_attempts, m->log);
	}
}

static int verdict(struct master *m, const struct mcp_election *el,
		   struct mcri_state *st, struct mcr_error *err)
{
	bool ours = el->watching == MCP_EL_STARTING || el->watching == MCP_EL_ADOPT;

	if (el->verdict == MCP_V_READY) {
		if (ours && m->job->before_ready) {
			char master[96];

			snprintf(master, sizeof(master), "%s:%d", m->st.infra_addr, m->st.ports.rpc);
			if (m->job->before_ready(m->job->before_ready_arg, master, err)) {
				stop(m, el->watching == MCP_EL_STARTING);
				record_failure(m, err);
				return -1;
			}
		}
		if (ours && superseded(m)) {
			/* judged gone just now: the newer attempt's pool is the job's */
			stop(m, el->watching == MCP_EL_STARTING);
			return mcri_error_set(err, MCR_ESTATE,
					      "another srun of job %s took over starting its mooncake_master while this one was finishing; run this step again: it joins that master",
					      m->job->job_id);
		}
		if (ours) {
			m->st.phase = MCRI_PHASE_READY;
			m->st.ready_at = (long long)time(NULL);
			if (mcri_state_write(m->job->dir, &m->st, err))
				return -1;
			slurm_info(MCP_NAME ": mooncake_master ready on %s (%s:%d) after %.1f s",
				   m->st.infra_node, m->st.infra_addr, m->st.ports.rpc,
				   mcp_now() - m->t0);
			/* the pool's sampler, next to it; a warning at worst */
			mcp_start_sampler(m->ps, &(struct mcp_step_place){ m->job->job_id, m->job->dir->path,
									   m->st.infra_node, m->job->het },
					  &m->err);
		} else if (m->next_line > m->t0) {
			slurm_info(MCP_NAME ": mooncake_master on %s (%s) answers again after %.1f s",
				   m->st.infra_node, m->st.infra_addr, mcp_now() - m->t0);
		}
		*st = m->st;
		return 0;
	}
	failure(m, el, err);
	switch (el->verdict) {
	case MCP_V_SPAWN_ERROR:
	case MCP_V_PORTS_BUSY:
	case MCP_V_NO_FREE_PORTS:
	case MCP_V_EXITED:
	case MCP_V_TIMEOUT:
		if (el->verdict != MCP_V_SPAWN_ERROR || m->st.attempt == el->attempt)
			record_failure(m, err);
		break;
	default:
		break;
	}
	return -1;
}

int mcp_ensure_master(const struct mcp_plugstack *ps,
		      const struct mcr_recipe *recipe, const struct mcp_job *job,
		      struct mcri_state *st, struct mcr_error *err)
{
	struct master m = { .ps = ps, .recipe = recipe, .job = job };
	int timeout = mcr_recipe_ready_timeout(recipe), candidates = 1;
	struct mcp_election el;
	struct mcp_seen seen = { 0 };
	enum mcp_el_state before;
	char **a = NULL, **b = NULL;
	const struct mcr_ports probe = { 1, 2, 3 };

	if (timeout <= 0)
		timeout = ps->ready_timeout;
	m.timeout = timeout;
	m.job_num = strtoul(job->job_id, NULL, 10);
	gethostname(m.host, sizeof(m.host) - 1);
	snprintf(m.log, sizeof(m.log), "%s/%s", job->dir->path, MCRI_MASTER_LOG);
	snprintf(m.pool_path, sizeof(m.pool_path), "/metadata?key=" POOL_KEY "%s", job->job_id);
	/* ports=auto moves srtctl's ports; a service's own command keeps its */
	if (!ps->fixed_ports && mcr_master_argv(recipe, ps->master, NULL, &a, err) == 0 &&
	    mcr_master_argv(recipe, ps->master, &probe, &b, err) == 0) {
		for (size_t i = 0; a[i] && b[i]; i++)
			m.claim_ports |= strcmp(a[i], b[i]) != 0;
		candidates = m.claim_ports ? mcp_port_candidates(ps) : 1;
	}
	mcr_strv_free(a);
	mcr_strv_free(b);
	mcp_election_init(&el, timeout, MCP_MAX_ATTEMPTS, candidates, mcp_now());
	for (;;) {
		before = el.state;
		enum mcp_el_action act = mcp_election_next(&el, &seen);

		announce(&m, before, &el, &seen);
		memset(&seen, 0, sizeof(seen));
		switch (act) {
		case MCP_DO_TAKE_LOCK:
			seen.lock = take_lock(&m, el.attempt);
			break;
		case MCP_DO_SPAWN:
			seen.spawn = spawn(&m, &el);
			break;
		case MCP_DO_WATCH:
			watch(&m, el.state, &seen);
			break;
		case MCP_DO_CLAIM:
			seen.claimed = claim(&m, &seen.superseded);
			break;
		case MCP_DO_READ:
			read_state(&m, el.attempt, &seen);
			break;
		case MCP_DO_ADOPT:
			seen.adopt_won = adopt(&m, el.attempt);
			break;
		case MCP_DO_PROBE:
			seen.probe = join_probe(&m);
			break;
		case MCP_DO_SLEEP:
			pause_for(&m, &el);
			if (job_ended(&m, err))
				return -1;
			break;
		case MCP_DO_STOP:
			stop(&m, el.state == MCP_EL_STARTING);
			break;
		case MCP_DO_FINISH:
			return verdict(&m, &el, st, err);
		}
		seen.now = mcp_now();
	}
}
