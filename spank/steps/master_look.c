/*
 * master_look.c - what one srun of the master election sees: the master
 * step it launched or adopted, the job's state file and the attempt's
 * lock, the guard's proof of the ports, slurmctld's word on the job and
 * on the master step. Each look fills the election's struct mcp_seen (or
 * answers one question); master.c acts on what election.c decides.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "steps/run.h"

/* `pid` runs, and is the process that started at `start` (0: unknown) */
bool mcp_master_alive(long pid, unsigned long long start)
{
	return mcp_pid_alive(pid) && (!start || mcri_pid_start(pid) == start);
}

/* While we hold an attempt, everything that may take a while is followed
 * by a heartbeat: the other sruns tell a live starter from a dead one by
 * the lock's mtime changing, whatever their clocks say. */
void mcp_master_heartbeat(struct master *m)
{
	if (mcp_now() - m->touched >= 1) {
		mcri_lock_touch_of(m->job->dir, m->subject, m->st.attempt);
		m->touched = mcp_now();
	}
}

/* Another srun has taken a newer attempt (it judged us gone): ours is
 * over, whatever we have done for it. Its lock comes first, its state
 * later: either tells. */
bool mcp_master_superseded(struct master *m)
{
	struct mcri_state now;
	struct mcri_lock next;
	struct mcr_error ignored;

	if (mcri_state_read_of(m->job->dir, m->subject, &now, &ignored) == 0 && now.attempt > m->st.attempt)
		return true;
	mcri_lock_read_of(m->job->dir, m->subject, m->st.attempt + 1, &next);
	return next.mtime >= 0;
}

void mcp_master_watch(struct master *m, enum mcp_el_state state, struct mcp_seen *s)
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
		ended = !mcp_master_alive(m->st.srun_pid, m->st.srun_start);
		snprintf(m->ended, sizeof(m->ended), "its srun, pid %ld, is gone", m->st.srun_pid);
	}
	/* the heartbeat of the lock we hold (or took over), and once a
	 * second a look whether another srun has judged us gone */
	if (mcp_now() - m->touched >= 1) {
		mcp_master_heartbeat(m);
		if (mcp_master_superseded(m)) {
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
		s->lost_ports |= m->claim_ports && (m->busy_port || mcp_master_foreign(m));
		if (s->lost_ports) {
			/* the claim's own words, which name the job and user that
			 * reserved a port (the next start empties the log) */
			char claim[400] = "";
			const char *taken = strstr(tail, " is taken: "), *from = taken;

			while (from && from > tail && from[-1] != '\n')
				from--;
			/* from "port N (what) on NODE is taken: ..." on */
			if (from && (from = strstr(from, "port ")) && from > taken)
				from = NULL;
			if (from)
				snprintf(claim, sizeof(claim), ": %.*s", (int)strcspn(from, ";\n"), from);
			slurm_info(MCP_NAME ": ports %d, %d, %d are taken on %s%s%s; trying others",
				   m->st.ports.rpc, m->st.ports.metadata, m->st.ports.metrics,
				   m->st.infra_node, m->why_foreign, claim);
		}
		return;
	}
	s->child = MCP_CHILD_RUNNING;
	/* an HA pool: a leader serves, and every master answers */
	s->probe = m->st.ha.masters ? mcp_probe_ha(&m->st, true, m->why, sizeof(m->why)) :
				      mcp_probe_master(m->st.infra_addr, &m->st.ports, NULL, NULL, true, m->why,
						       sizeof(m->why));
}

/* The master step's guard found another process's socket on one of
 * the ports of this attempt: said in m->why_foreign. */
bool mcp_master_foreign(struct master *m)
{
	/* each master of an HA pool has a proof of its own */
	for (int k = 0; k < (m->st.ha.masters ? m->st.ha.masters : 1); k++) {
		if (mcri_proof_of_member(m->job->dir, m->st.attempt, k, &m->proof) != 0 ||
		    m->proof.verdict != MCRI_PROOF_FOREIGN || m->proof.ports.rpc != m->st.ports.rpc)
			continue;
		snprintf(m->why_foreign, sizeof(m->why_foreign),
			 " (port %d listens for another process %s%s, of uid %u, not for this job's mooncake_master)",
			 m->proof.foreign_port, m->st.ha.masters ? "on " : "there",
			 m->st.ha.masters ? m->st.ha.member[k].node : "", m->proof.foreign_uid);
		return true;
	}
	return false;
}

/* every master's step has proved its ports its master's (0), one found
 * another process's socket (-1), or not all have proved them yet (1) */
static int proved(struct master *m)
{
	for (int k = 0; k < (m->st.ha.masters ? m->st.ha.masters : 1); k++) {
		if (mcri_proof_of_member(m->job->dir, m->st.attempt, k, &m->proof) != 0 ||
		    m->proof.ports.rpc != m->st.ports.rpc)
			return 1;
		if (m->proof.verdict != MCRI_PROOF_OWN)
			return -1;
	}
	return 0;
}

/* The master answers: it is ours when the master step's guard proved, on
 * the infra node, that the sockets on its ports are its master's; then
 * tell which pool it serves (a second pool's srun names it) */
bool mcp_master_claim(struct master *m, bool *gone)
{
	struct mcr_error reason;
	char body[64], *pool;
	int status;

	if (mcp_master_superseded(m)) {
		*gone = true;
		return false;
	}
	switch (proved(m)) {
	case 1:
		snprintf(m->why, sizeof(m->why), "its master step has not yet proved the ports its own");
		return false;
	case -1:
		mcp_master_foreign(m);
		snprintf(m->why, sizeof(m->why), "another process answers there%s", m->why_foreign);
		return false;
	default:
		break;
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

#define STEP_ASK_S 5 /* an HA pool's failover asks slurmctld about the master step this often */

/* The master step runs (or slurmctld was not asked): what its keeper
 * (restart=, master_keep.c) says, in its proof m->proof (read when
 * `has_proof`), of the probe `p`. RESTARTING when it is
 * starting the master again: its proof says so; or, when the master
 * refuses, it may still in the moment before it says so; or, when
 * something answers, the restarted master is not proved the ports' owner
 * yet (another process may have taken one while it was down). REFUSED
 * when the keeper has ended the pool. Else p. why says which. */
static enum mcp_probe restarting(struct master *m, bool has_proof, enum mcp_probe p)
{
	const struct mcri_proof *pr = &m->proof;

	if (!has_proof)
		return p;
	if (pr->ended) {
		/* whatever answers there now, the keeper has ended the pool */
		if (pr->ended_why[0])
			snprintf(m->why, sizeof(m->why), "its master step has ended the pool: %.300s%s", pr->ended_why,
				 p == MCP_PROBE_READY ? "; and another process answers on its port now" : "");
		else
			snprintf(m->why, sizeof(m->why), "its master step has ended the pool (%s tells why)%s",
				 MCRI_MASTER_LOG, p == MCP_PROBE_READY ? ", and another process answers on its port now" : "");
		return MCP_PROBE_REFUSED;
	}
	if (pr->restarting)
		snprintf(m->why, sizeof(m->why),
			 "it ended (%s), and its master step is starting it again on the same ports: restart %d of at most %d",
			 pr->restart[mcri_proof_kept(pr) - 1].cause, pr->restarts, pr->restart_limit);
	else if (p == MCP_PROBE_REFUSED && pr->restarts < pr->restart_limit)
		snprintf(m->why, sizeof(m->why),
			 "it does not accept on port %d, and its master step starts it again when it has ended (restart=%d)",
			 m->st.ports.rpc, pr->restart_limit);
	else if (p == MCP_PROBE_READY && pr->verdict != MCRI_PROOF_OWN)
		snprintf(m->why, sizeof(m->why),
			 "a process answers on port %d, but the master step has not proved it its restarted mooncake_master",
			 m->st.ports.rpc);
	else
		return p;
	return MCP_PROBE_RESTARTING;
}

/* The keeper of the master step (master_keep.c) says, in its proof
 * m->proof (read when `has_proof`), that it runs, its master owns the
 * ports and is not being started again: the record proves the master step
 * runs (its end is always recorded: by the keeper as it leaves, by
 * slurmstepd when the keeper is killed) */
static bool keeper_runs(const struct master *m, bool has_proof)
{
	const struct mcri_proof *pr = &m->proof;

	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	/* and said so lately: a keeper that can no longer say it (its node
	 * lost, slurmstepd killed before it recorded the end) proves nothing */
	return has_proof && !pr->ended && !pr->restarting && pr->verdict == MCRI_PROOF_OWN &&
	       (long)pr->step == m->st.master_step && pr->alive_at > 0 &&
	       fabs((double)ts.tv_sec - pr->alive_at) < MCRI_PROOF_STALE_S;
}

/* The HA pool m->st is about has ended for good: every master's keeper
 * says its master has, or one ended the whole pool (its etcd was
 * steered); m->why says why (the first keeper's word) */
static bool ha_pool_ended(struct master *m)
{
	struct mcri_pool_end end;

	mcri_pool_end(m->job->dir, m->st.attempt, m->st.ha.masters, -1, &end);
	if (!end.steered && end.ended < m->st.ha.masters)
		return false;
	snprintf(m->why, sizeof(m->why), "its master steps have ended the pool: %.300s",
		 end.why[0] ? end.why : "see " MCRI_MASTER_LOG);
	return true;
}

/* A joining srun: the recorded master accepts on its RPC port, and its
 * step still runs (slurmctld; a process that took the port after the
 * master ended answers too, but the step is gone) */
enum mcp_probe mcp_master_join_probe(struct master *m)
{
	struct mcp_step_facts f;
	struct mcr_error ignored;
	bool has_proof;
	enum mcp_probe p = m->st.ha.masters ? mcp_probe_ha(&m->st, false, m->why, sizeof(m->why)) :
					      mcp_probe_master(m->st.infra_addr, &m->st.ports, NULL, NULL, false,
							       m->why, sizeof(m->why));

	m->restarting = false;
	if (p == MCP_PROBE_NO_ANSWER)
		return p;
	/* an HA pool whose masters answer, and none leads yet: they are
	 * choosing a leader (a failover), unless every master's keeper has
	 * ended the pool, or slurmctld says the step ended (asked again every
	 * few seconds, not at each probe) */
	if (m->st.ha.masters && p == MCP_PROBE_REFUSED && ha_pool_ended(m))
		return p;
	if (m->st.ha.masters && p == MCP_PROBE_REFUSED && m->st.master_step >= 0) {
		if (mcp_now() - m->step_asked >= STEP_ASK_S) {
			m->step_asked = mcp_now();
			m->step_gone = mcp_step_facts(m->job_num, (uint32_t)m->st.master_step, &f, &ignored) == 0 &&
				       f.ended;
		}
		if (!m->step_gone) {
			m->restarting = true;
			return MCP_PROBE_RESTARTING;
		}
	}
	if (m->st.ha.masters && p == MCP_PROBE_READY)
		return p;
	/* the keeper's word, read once for both questions below */
	has_proof = mcri_proof_of_attempt(m->job->dir, m->st.attempt, &m->proof) == 0;
	/* slurmctld is asked about the master step whenever the record
	 * cannot prove it runs: when the master refuses (ended, or being
	 * started again?), and when it answers but the master step's keeper
	 * does not say it runs and owns the ports (the keeper is that step:
	 * its end is recorded whatever ends it). A role srun's common case,
	 * and a first wave of sruns, cost slurmctld no RPC. */
	if (m->st.master_step < 0 || (p == MCP_PROBE_READY && keeper_runs(m, has_proof)) ||
	    mcp_step_facts(m->job_num, (uint32_t)m->st.master_step, &f, &ignored) != 0 || !f.ended) {
		p = restarting(m, has_proof, p);
		m->restarting = p == MCP_PROBE_RESTARTING;
		/* a pool that has ended may be another job's of this id, which
		 * srun could not tell without asking (Slurm before 23.02) */
		if (p == MCP_PROBE_REFUSED)
			m->stale = mcp_master_other_job_of_this_id(m, true);
		return p;
	}
	m->stale = mcp_master_other_job_of_this_id(m, true);
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
bool mcp_master_own_pool(struct master *m, char *recipe, size_t rsize, char *dir, size_t dsize)
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

/* st's cluster and start differ from `cluster` and `start`, where both
 * sides know them */
static bool differs(const struct mcri_state *st, const char *cluster, long long start)
{
	return (st->cluster[0] && cluster && *cluster && strcmp(st->cluster, cluster) != 0) ||
	       (st->job_start && start && st->job_start != start);
}

bool mcp_master_other_job_of_this_id(struct master *m, bool ask)
{
	const struct mcri_state *st = &m->st;
	struct mcp_job_facts f;
	struct mcr_error ignored;
	bool env_differs = differs(st, m->job->cluster, m->job->start);

	if (strcmp(st->job_id, m->job->job_id) != 0 || (m->job->run >= 0 && st->run != m->job->run))
		return false; /* another id, or a requeued run: as such */
	/* srun's environment says this job started when the pool's did: its
	 * own pool, nothing asked. It says otherwise: slurmctld confirms (the
	 * starter recorded slurmctld's word; an environment may be inherited
	 * from another job's step, e.g. salloc run inside one). It does not
	 * say (Slurm before 23.02): slurmctld is asked only when it matters */
	if (!env_differs && m->job->start && st->job_start)
		return false;
	if (!env_differs && !ask)
		return false;
	if (!st->job_start && !st->cluster[0])
		return false; /* a state that says nothing of which job */
	return mcp_job_facts((uint32_t)m->job_num, &f, &ignored) == 0 && differs(st, f.cluster, f.start_time);
}

void mcp_master_read_state(struct master *m, int attempt, struct mcp_seen *s)
{
	struct mcr_error ignored;
	struct mcri_lock lock;

	mcri_lock_read_of(m->job->dir, m->subject, attempt, &lock);
	if (mcri_state_read_of(m->job->dir, m->subject, &m->st, &ignored) != 0)
		memset(&m->st, 0, sizeof(m->st));
	s->phase = m->st.phase;
	s->state_attempt = m->st.attempt;
	s->launched = m->st.srun_pid > 0;
	s->joinable = m->job->join_starting && !m->st.ha.masters;
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
		/* this job's state: of an earlier run after a requeue, or of
		 * another job that got this job's id (slurmctld asked only
		 * when the pool is another recipe's, which would refuse this
		 * srun) */
		m->stale = mcp_master_other_job_of_this_id(m, s->other_recipe);
		s->other_run = (m->job->run >= 0 && m->st.run != m->job->run) || m->stale;
	}
	if (m->st.attempt == attempt && m->st.starter_host[0]) {
		s->starter_on_this_host = strcmp(m->st.starter_host, m->host) == 0;
		s->starter_alive = mcp_master_alive(m->st.starter_pid, m->st.starter_start);
	} else {
		s->starter_on_this_host = lock.pid && strcmp(lock.host, m->host) == 0;
		s->starter_alive = mcp_master_alive(lock.pid, lock.start);
	}
	s->step_alive = m->st.attempt == attempt && mcp_master_alive(m->st.srun_pid, m->st.srun_start);
	/* the holder keeps its lock held and touches it every second while it
	 * works, on whatever host: one that no process holds (the file
	 * system's word) and that went untouched for a few seconds of this
	 * srun's clock has died; where the file system cannot tell, one
	 * untouched for MCRI_LOCK_STALE_S (runtime/jobdir) */
	mcri_lock_seen_update(&m->lock_seen, m->job->dir, attempt, &lock, mcp_now());
	s->lock_stale = mcri_lock_seen_gone(&m->lock_seen, &lock, mcp_now(), 0);
	/* its holder is known to work on: it holds the lock, or touched it */
	s->lock_touched = lock.held == 1 || m->lock_seen.touched;
}

/* A wait that lasts asks slurmctld every JOB_CHECK_S seconds whether the
 * job still runs: a job that ended (scancel, time limit, a node lost)
 * ends the wait at once, with the job's state, instead of at its bound. */
#define JOB_CHECK_S 5
bool mcp_master_job_ended(struct master *m, struct mcr_error *err)
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
		       "job %s has ended (%s) while this srun waited for %s; nothing was started for this step",
		       m->job->job_id, f.state[0] ? f.state : "no longer known to Slurm",
		       m->what ? m->what : "its mooncake_master");
	return true;
}
