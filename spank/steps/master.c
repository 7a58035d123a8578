/*
 * master.c - one mooncake_master per job, as a job step of its own: srun's
 * side. The election (election.c) decides; this file acts (the lock, the
 * launch, the verdict), looks (the master step, the state file, the lock,
 * the proof, slurmctld), words a failure and its fix, and ends its waits
 * when srun is told to stop. lender.c runs the same election on a
 * lender's records.
 *
 * The srun that wins an attempt's lock launches the master step on the
 * infra node (step.c) on a triple of ports (ports.c), waits until
 * it answers, and records "ready" with the ports once the master step
 * itself, on the infra node, has proved that the sockets on those ports
 * are its mooncake_master's (keep.c): another user's listener that took
 * a port first is never taken for the master. Ready means: the master
 * step is alive, its RPC port accepts, GET /health answers 200 on its
 * metadata and metrics ports, and its guard's proof for this attempt says
 * the sockets are the master's. Every other srun of the job waits for
 * that verdict and then checks that the master's port accepts and that
 * its step still runs (slurmctld): a process that took the ports after
 * the master ended is not the master either. While the starter works it
 * holds its lock (an open file description lock, which the file system
 * drops when the starter dies) and touches it every second (a heartbeat):
 * a lock left by a starter that died, on any host, is taken over within
 * seconds (runtime/jobdir: mcri_lock_seen_gone).
 */

#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "container/container.h"
#include "plugin/common.h"
#include "plugin/slurm.h"
#include "steps/election.h"
#include "steps/ha.h"
#include "steps/keep.h"
#include "steps/master.h"
#include "steps/ports.h"
#include "steps/step.h"

#define POLL_STATE_MS 50   /* the state file, where its directory cannot be watched */
#define WATCH_STATE_MS 250 /* ... where it can (a local file system): a bound all the same */
#define POLL_BLIP_MS 250   /* a master that does not answer */
#define FIRST_PROGRESS_S 3 /* a master is usually ready in ~1.5 s: no line */
#define PROGRESS_EVERY_S 5
#define POOL_KEY "spank_mooncake/pool/" /* the recipe and directory of the pool (advice) */

/* Stop the master step: the one we launched (`ours`), or the adopted one
 * of a starter that died, only while its srun is still the process that
 * was recorded (never a later process that got its pid) */
void mcp_master_stop(struct master *m, bool ours)
{
	if (ours)
		mcp_stop_step(m->child, true);
	else if (mcp_master_alive(m->st.srun_pid, m->st.srun_start))
		mcp_stop_step((pid_t)m->st.srun_pid, false);
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
	else if (m->st.ha.masters)
		slurm_info(
			MCP_NAME
			": waiting for the job's HA pool (its masters on %s and %d more), %.0f s of at most %d s: %s (%s)",
			m->st.infra_node, m->st.ha.masters - 1, t - m->t0, bound, doing, m->why);
	else
		slurm_info(MCP_NAME ": waiting for mooncake_master on %s (%s), %.0f s of at most %d s: %s (%s)",
			   m->st.infra_node, m->st.infra_addr, t - m->t0, bound, doing, m->why);
}

static void wait_begins(struct master *m, double first_line)
{
	m->t0 = mcp_now();
	m->next_line = m->t0 + first_line;
}

/* let go of the lock of the attempt this srun held (its verdict is
 * recorded, or a newer attempt is under way) */
void mcp_master_release_lock(struct master *m)
{
	if (m->lock_fd >= 0)
		close(m->lock_fd);
	m->lock_fd = -1;
}

enum mcp_lock mcp_master_take_lock(struct master *m, int attempt)
{
	mcp_master_release_lock(m);
	switch (mcri_lock_take_of(m->job->dir, m->subject, attempt, m->host, &m->lock_fd, &m->err)) {
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
void mcp_master_record_failure(struct master *m, const struct mcr_error *err)
{
	struct mcr_error ignored;

	if (mcp_master_superseded(m))
		return;
	m->st.phase = MCRI_PHASE_FAILED;
	snprintf(m->st.message, sizeof(m->st.message), "%.*s", (int)sizeof(m->st.message) - 1, err->text);
	mcri_state_write_of(m->job->dir, m->subject, &m->st, &ignored);
}

/* Which job of its id this pool is (the state's cluster and job_start),
 * as slurmctld has them (one question per pool start: an srun's
 * environment may be inherited from another job's step), else as srun's
 * environment says */
void mcp_master_identify(struct master *m, struct mcri_state *st)
{
	struct mcp_job_facts f;
	struct mcr_error ignored;

	snprintf(st->cluster, sizeof(st->cluster), "%s", m->job->cluster ? m->job->cluster : "");
	st->job_start = m->job->start;
	if (mcp_job_facts(m->job_num, &f, &ignored) == 0) {
		if (f.start_time)
			st->job_start = f.start_time;
		if (f.cluster[0])
			snprintf(st->cluster, sizeof(st->cluster), "%s", f.cluster);
	}
}

/* The pool in the job's directory was another job's of this id (m->st):
 * its master's log and the pool's record are kept as <name>.job<ID>-<START>
 * before this job's pool writes its own there */
static void keep_earlier(struct master *m)
{
	static const char *const KEPT[] = { MCRI_MASTER_LOG, MCRI_POOL_LOG, MCRI_SAMPLES_FILE, MCRI_REPORT_FILE,
					    MCRI_PICTURE_FILE };
	char suffix[64], lost[200] = "";
	size_t len = 0;

	snprintf(suffix, sizeof(suffix), "job%s-%lld", m->st.job_id, m->st.job_start);
	for (size_t i = 0; i < sizeof(KEPT) / sizeof(KEPT[0]); i++)
		if (mcri_jobdir_keep(m->job->dir, KEPT[i], suffix) != 0 && len < sizeof(lost))
			len += (size_t)snprintf(lost + len, sizeof(lost) - len, " %s", KEPT[i]);
	slurm_info(
		MCP_NAME
		": %s held the pool of another job %s (%s%s%s, started at %lld), which has ended: this job's pool starts afresh there; that job's logs are kept as %s.%s%s%s%s",
		m->job->dir->path, m->st.job_id, m->st.cluster[0] ? "cluster " : "", m->st.cluster,
		m->st.cluster[0] ? "" : "its cluster unknown", m->st.job_start, MCRI_MASTER_LOG, suffix,
		lost[0] ? " (these could not be renamed and are written over:" : "", lost, lost[0] ? ")" : "");
	m->stale = false;
}

static enum mcp_spawn spawn(struct master *m, const struct mcp_election *el)
{
	struct mcri_state *st = &m->st;
	struct mcp_step_place at = { .job_id = m->job->job_id,
				     .dir = m->job->dir->path,
				     .node = st->infra_node,
				     .het = m->job->het };
	struct mcri_ha_member nodes[MCRI_HA_MAX];
	char *guard, *ha = NULL, nodelist[MCRI_HA_MAX * 257];
	int rc, got = 0;

	if (el->candidate == 0) {
		/* over the pool of another job that got this job's id: its
		 * logs are kept, under names of their own */
		if (m->stale)
			keep_earlier(m);
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
		mcp_master_heartbeat(m);
		if (m->container.note_verbose) {
			slurm_verbose("%s", m->container.note);
			m->container.note[0] = '\0';
		}
		/* the infra node (the job's first), and with ha=etcd the HA
		 * pool's nodes */
		if (m->job->find_nodes(m->job->find_nodes_arg, nodes, m->ps->ha == MCRI_HA_ETCD ? MCRI_HA_MAX : 1, &got,
				       &m->err))
			return MCP_SPAWN_ERROR;
		snprintf(st->infra_node, sizeof(st->infra_node), "%s", nodes[0].node);
		snprintf(st->infra_addr, sizeof(st->infra_addr), "%s", nodes[0].addr);
		if (m->ps->ha == MCRI_HA_ETCD && mcp_ha_plan(m->ps, m->recipe, nodes, got, st, &m->container, &m->err))
			return MCP_SPAWN_ERROR;
		mcp_master_heartbeat(m);
		snprintf(st->recipe, sizeof(st->recipe), "%s", m->job->recipe);
		mcp_master_identify(m, st);
		mcp_master_heartbeat(m);
		snprintf(st->starter_host, sizeof(st->starter_host), "%s", m->host);
		st->starter_pid = (long)getpid();
		st->starter_start = mcri_pid_start(getpid());
		st->started_at = (long long)time(NULL);
	}
	mcp_port_candidate(m->ps, m->job_num, el->candidate, &st->ports);
	if (st->ha.masters && mcp_etcd_ports(m->ps, &st->ports, &st->ha.etcd_client, &st->ha.etcd_peer)) {
		mcri_error_set(
			&m->err, MCR_EINVAL,
			"plugstack.conf: port_range=%d-%d leaves no room for the etcd of an HA pool (ha=etcd) next to the master's ports %d-%d: it takes the two after them (or before, at the range's end); widen port_range= to at least 5 ports",
			m->ps->port_lo, m->ps->port_hi, st->ports.rpc, st->ports.metrics);
		return MCP_SPAWN_ERROR;
	}
	st->phase = MCRI_PHASE_STARTING;
	st->srun_pid = 0;
	st->srun_start = 0;
	/* first thing under the lock: the other sruns see this attempt */
	if (mcp_master_superseded(m))
		return MCP_SPAWN_SUPERSEDED;
	if (mcri_state_write(m->job->dir, st, &m->err))
		return MCP_SPAWN_ERROR;
	mcp_master_heartbeat(m);
	/* a listener before our master exists belongs to someone else */
	m->busy_port = st->ha.masters ? mcp_ha_busy_port(st) : mcp_busy_port(st->infra_addr, &st->ports);
	mcp_master_heartbeat(m);
	if (m->busy_port)
		return MCP_SPAWN_BUSY;
	/* the client configs first: an srun that sees the master step
	 * launched may join it while it starts (election.c). Written again
	 * just before ready (verdict): a starter that was judged gone
	 * meanwhile may have written its own over them. */
	if (m->job->configs) {
		char master[MCP_MASTER_ADDRESS_MAX];

		if (mcp_master_superseded(m))
			return MCP_SPAWN_SUPERSEDED;
		if (mcp_master_address(st, master, sizeof(master), &m->err) ||
		    m->job->configs(m->job->configs_arg, master, &m->err))
			return MCP_SPAWN_ERROR;
		mcp_master_heartbeat(m);
	}
	/* its guard proves the ports its own, for this attempt (keep.c) */
	if (!(guard = mcp_guard_value(st->attempt, m->timeout, m->ps->restart, &st->ports, m->job->dir->path))) {
		mcri_error_nomem(&m->err);
		return MCP_SPAWN_ERROR;
	}
	/* an HA pool: a task on each of its nodes */
	if (st->ha.masters) {
		at.nodes = st->ha.masters;
		at.node = nodelist;
		if (mcp_ha_nodelist(&st->ha, nodelist, sizeof(nodelist)) ||
		    !(ha = mcp_ha_value(&st->ha, st->attempt, st->job_id))) {
			free(guard);
			mcri_error_nomem(&m->err);
			return MCP_SPAWN_ERROR;
		}
	}
	rc = mcp_spawn_master(m->ps, m->recipe, &m->container, &at, st, m->claim_ports, guard, ha, m->log, &m->child,
			      &m->err);
	free(guard);
	free(ha);
	if (rc)
		return MCP_SPAWN_ERROR;
	st->srun_pid = (long)m->child;
	st->srun_start = mcri_pid_start(m->child);
	mcp_master_heartbeat(m);
	if (mcp_master_superseded(m)) {
		mcp_stop_step(m->child, true);
		return MCP_SPAWN_SUPERSEDED;
	}
	if (mcri_state_write(m->job->dir, st, &m->err)) {
		mcp_stop_step(m->child, true);
		return MCP_SPAWN_ERROR;
	}
	if (st->ha.masters)
		slurm_info(
			MCP_NAME
			": starting the job's HA pool: mooncake_master on %s (ports %d, %d, %d), one leading, and etcd on %s (ports %d, %d), as step mooncake-master of job %s; log: %s",
			nodelist, st->ports.rpc, st->ports.metadata, st->ports.metrics,
			st->ha.etcd_members > 1 ? nodelist : st->infra_node, st->ha.etcd_client, st->ha.etcd_peer,
			m->job->job_id, m->log);
	else
		slurm_info(
			MCP_NAME
			": starting mooncake_master on %s (%s, ports %d, %d, %d) as step mooncake-master of job %s; log: %s",
			st->infra_node, st->infra_addr, st->ports.rpc, st->ports.metadata, st->ports.metrics,
			m->job->job_id, m->log);
	wait_begins(m, FIRST_PROGRESS_S);
	return MCP_SPAWNED;
}

/* the starter died after launching the master step: one srun on this
 * host (O_EXCL again) finishes its work */
bool mcp_master_adopt(struct master *m, int attempt)
{
	if (!mcri_lock_adopt_of(m->job->dir, m->subject, attempt))
		return false;
	/* the lock is this srun's now: the other hosts see its holder live */
	mcp_master_release_lock(m);
	m->lock_fd = mcri_lock_hold_of(m->job->dir, m->subject, attempt);
	if (m->what)
		slurm_info(MCP_NAME ": the srun that started %s is gone; checking the step it launched", m->what);
	else
		slurm_info(MCP_NAME ": the srun that started the master is gone; checking the master it launched");
	wait_begins(m, FIRST_PROGRESS_S);
	return true;
}

/* lines on srun's terminal when the election moves on */
static void announce(struct master *m, enum mcp_el_state before, const struct mcp_election *el,
		     const struct mcp_seen *s)
{
	if (before == MCP_EL_WAIT && el->state == MCP_EL_LOCK) {
		int left = el->attempt - 1; /* the attempt this srun left */

		if (s->other_run && s->phase != MCRI_PHASE_NONE && m->st.job_id[0] &&
		    strcmp(m->st.job_id, m->job->job_id) != 0)
			slurm_info(MCP_NAME ": the pool in %s was of job %s, which has ended; starting job %s's there",
				   m->job->dir->path, m->st.job_id, m->job->job_id);
		else if (s->other_run && s->phase != MCRI_PHASE_NONE && m->stale)
			; /* another job's of this id: its starter says so (keep_earlier) */
		else if (s->other_run && s->phase != MCRI_PHASE_NONE)
			slurm_info(
				MCP_NAME
				": job %s was requeued (run %d): the pool of its earlier run (%d) in %s is not reused; starting a new one there",
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
		/* the starter's word comes as a change of the directory: the
		 * first pause only begins the watch (the state is read again
		 * with it in place, so that no change is missed) */
		if (!m->watch_tried) {
			m->watch_tried = true;
			if (mcri_jobdir_watch(m->job->dir, &m->watch) == 0)
				break;
		}
		if (m->watch.dir >= 0)
			mcri_jobdir_wait(&m->watch, WATCH_STATE_MS);
		else
			mcp_sleep_ms(POLL_STATE_MS);
		break;
	case MCP_EL_JOIN:
		progress(m,
			 m->restarting && m->st.ha.masters ? "its masters are choosing a leader"
			 : m->restarting                   ? "its master step is starting it again"
							   : "it does not answer from this node, asking again",
			 (int)el->timeout);
		mcp_sleep_ms(POLL_BLIP_MS);
		break;
	default:
		progress(m, "not ready yet", (int)el->timeout);
		mcp_sleep_ms(mcp_ready_poll_ms(mcp_now() - m->t0)); /* a TCP connect; HTTP once it accepts */
	}
}

/* srun was told to stop (SIGTERM, Ctrl-C) during a wait: it ends now,
 * saying what it waited for; a master step this srun was starting is
 * stopped (the job's other sruns take over, their starter gone) */
static bool interrupted(struct master *m, const struct mcp_election *el, struct mcr_error *err)
{
	int sig = mcp_interrupted();
	const char *what;

	if (!sig)
		return false;
	switch (el->state) {
	case MCP_EL_STARTING:
	case MCP_EL_ADOPT:
		mcp_master_stop(m, el->state == MCP_EL_STARTING);
		what = "the job's mooncake_master it was starting, which it stopped";
		break;
	case MCP_EL_JOIN:
		what = m->st.ha.masters ? "the job's HA pool to have a serving leader"
					: "the job's mooncake_master to answer";
		break;
	default:
		what = "the job's mooncake_master that another srun of this job is starting";
	}
	mcri_error_set(
		err, MCR_ESTATE,
		"srun was told to stop (%s) while it waited %.0f s for %s (%.300s); nothing was started for this step",
		strsignal(sig), mcp_now() - m->t0, what, m->why[0] ? m->why : "not ready yet");
	return true;
}

static int verdict(struct master *m, const struct mcp_election *el, struct mcri_state *st, struct mcr_error *err)
{
	bool ours = el->watching == MCP_EL_STARTING || el->watching == MCP_EL_ADOPT;

	char master[MCP_MASTER_ADDRESS_MAX];

	mcri_state_master(&m->st, master, sizeof(master));
	if (el->verdict == MCP_V_STARTING) {
		*st = m->st;
		return 0;
	}
	if (el->verdict == MCP_V_READY) {
		if (ours && mcp_master_superseded(m)) {
			/* judged gone just now: the newer attempt's pool is the job's */
			mcp_master_stop(m, el->watching == MCP_EL_STARTING);
			return mcri_error_set(
				err, MCR_ESTATE,
				"another srun of job %s took over starting its mooncake_master while this one was finishing; run this step again: it joins that master",
				m->job->job_id);
		}
		/* the configs again (never over a newer attempt's: checked
		 * just above), then ready */
		if (ours && m->job->configs && m->job->configs(m->job->configs_arg, master, err)) {
			mcp_master_stop(m, el->watching == MCP_EL_STARTING);
			mcp_master_record_failure(m, err);
			return -1;
		}
		if (ours) {
			m->st.phase = MCRI_PHASE_READY;
			m->st.ready_at = (long long)time(NULL);
			if (mcri_state_write(m->job->dir, &m->st, err))
				return -1;
			if (m->st.ha.masters)
				slurm_info(MCP_NAME ": the job's HA pool is ready after %.1f s: %s", mcp_now() - m->t0,
					   master);
			else
				slurm_info(MCP_NAME ": mooncake_master ready on %s (%s:%d) after %.1f s",
					   m->st.infra_node, m->st.infra_addr, m->st.ports.rpc, mcp_now() - m->t0);
			/* the pool's sampler, next to it; a warning at worst */
			mcp_start_sampler(m->ps,
					  &(struct mcp_step_place){ .job_id = m->job->job_id,
								    .dir = m->job->dir->path,
								    .node = m->st.infra_node,
								    .het = m->job->het },
					  &m->err);
		} else if (m->next_line > m->t0 && m->st.ha.masters) {
			slurm_info(MCP_NAME ": the job's HA pool has a serving leader again after %.1f s",
				   mcp_now() - m->t0);
		} else if (m->next_line > m->t0) {
			slurm_info(MCP_NAME ": mooncake_master on %s (%s) answers again after %.1f s", m->st.infra_node,
				   m->st.infra_addr, mcp_now() - m->t0);
		}
		*st = m->st;
		return 0;
	}
	mcp_master_failure(m, el, err);
	switch (el->verdict) {
	case MCP_V_SPAWN_ERROR:
	case MCP_V_PORTS_BUSY:
	case MCP_V_NO_FREE_PORTS:
	case MCP_V_EXITED:
	case MCP_V_TIMEOUT:
		if (el->verdict != MCP_V_SPAWN_ERROR || m->st.attempt == el->attempt)
			mcp_master_record_failure(m, err);
		break;
	default:
		break;
	}
	return -1;
}

int mcp_master_address(const struct mcri_state *st, char *buf, size_t size, struct mcr_error *err)
{
	if (mcri_state_master(st, buf, size))
		return 0;
	return mcri_error_set(
		err, MCR_ESTATE,
		"the master address of the job's pool (%s, ports %d-%d) does not fit in %zu bytes: give the infra nodes shorter names or addresses (NodeAddr)",
		st->ha.masters ? "an HA pool's etcd members" : st->infra_addr, st->ports.rpc, st->ports.metrics, size);
}

int mcp_ready_timeout(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe)
{
	int timeout = mcr_recipe_ready_timeout(recipe);

	return timeout > 0 ? timeout : ps->ready_timeout;
}

int mcp_ensure_master(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe, const struct mcp_job *job,
		      struct mcri_state *st, struct mcr_error *err)
{
	struct master m = { .ps = ps, .recipe = recipe, .job = job, .watch = MCRI_WATCH_NONE, .lock_fd = -1 };
	int timeout = mcp_ready_timeout(ps, recipe), candidates = 1;
	struct mcp_election el;
	struct mcp_seen seen = { 0 };
	enum mcp_el_state before;
	char **a = NULL, **b = NULL;
	const struct mcr_ports probe = { .rpc = 1, .metadata = 2, .metrics = 3 };
	int rc;

	m.timeout = timeout;
	m.job_num = job->job_num;
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
	mcp_interrupt_watch(true);
	for (;;) {
		before = el.state;
		enum mcp_el_action act = mcp_election_next(&el, &seen);

		announce(&m, before, &el, &seen);
		memset(&seen, 0, sizeof(seen));
		switch (act) {
		case MCP_DO_TAKE_LOCK:
			seen.lock = mcp_master_take_lock(&m, el.attempt);
			break;
		case MCP_DO_SPAWN:
			seen.spawn = spawn(&m, &el);
			break;
		case MCP_DO_WATCH:
			mcp_master_watch(&m, el.state, &seen);
			break;
		case MCP_DO_CLAIM:
			seen.claimed = mcp_master_claim(&m, &seen.superseded);
			break;
		case MCP_DO_READ:
			mcp_master_read_state(&m, el.attempt, &seen);
			break;
		case MCP_DO_ADOPT:
			seen.adopt_won = mcp_master_adopt(&m, el.attempt);
			break;
		case MCP_DO_PROBE:
			seen.probe = mcp_master_join_probe(&m);
			seen.other_run = m.stale;
			break;
		case MCP_DO_SLEEP:
			pause_for(&m, &el);
			if (interrupted(&m, &el, err) || mcp_master_job_ended(&m, err)) {
				rc = -1;
				goto out;
			}
			break;
		case MCP_DO_STOP:
			mcp_master_stop(&m, el.state == MCP_EL_STARTING);
			break;
		case MCP_DO_FINISH:
			rc = verdict(&m, &el, st, err);
			goto out;
		}
		seen.now = mcp_now();
	}
out:
	mcp_interrupt_watch(false);
	/* the verdict is recorded: the lock's work is done */
	mcp_master_release_lock(&m);
	mcri_jobdir_unwatch(&m.watch);
	return rc;
}

/* ---- what one srun of the master election sees: the master
 * step it launched or adopted, the job's state file and the attempt's
 * lock, the guard's proof of the ports, slurmctld's word on the job and
 * on the master step. Each look fills the election's struct mcp_seen (or
 * answers one question); the driver above acts on what election.c decides.
 */

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

bool mcp_master_step_ended(struct master *m, enum mcp_el_state state, struct mcp_seen *s)
{
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
		if (mcp_master_superseded(m))
			s->superseded = true;
	}
	return ended;
}

bool mcp_master_lost_ports(struct master *m, char *tail, size_t size)
{
	/* refused by its claim on the node, or taken by another program
	 * before it could bind them */
	mcp_log_tail(m->log, tail, size);
	m->busy_port = mcp_busy_port(m->st.infra_addr, &m->st.ports);
	return (strstr(tail, ") on ") && strstr(tail, " is taken: ")) || m->busy_port;
}

void mcp_master_watch(struct master *m, enum mcp_el_state state, struct mcp_seen *s)
{
	char tail[3000];
	bool ended = mcp_master_step_ended(m, state, s);

	if (s->superseded)
		return;
	if (ended) {
		s->child = MCP_CHILD_ENDED;
		s->lost_ports = mcp_master_lost_ports(m, tail, sizeof(tail));
		s->lost_ports = m->claim_ports && (s->lost_ports || mcp_master_foreign(m));
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
			slurm_info(MCP_NAME ": ports %d, %d, %d are taken on %s%s%s; trying others", m->st.ports.rpc,
				   m->st.ports.metadata, m->st.ports.metrics, m->st.infra_node, m->why_foreign, claim);
		}
		return;
	}
	s->child = MCP_CHILD_RUNNING;
	/* an HA pool: a leader serves, and every master answers */
	s->probe = m->st.ha.masters
			   ? mcp_probe_ha(&m->st, true, m->why, sizeof(m->why))
			   : mcp_probe_master(m->st.infra_addr, &m->st.ports, NULL, NULL, true, m->why, sizeof(m->why));
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
		mcri_http(m->st.infra_addr, m->st.ports.metadata, "PUT", m->pool_path, pool, MCP_PROBE_TIMEOUT_MS,
			  &status, body, sizeof(body), &reason);
		free(pool);
	}
	return true;
}

#define STEP_ASK_S 5 /* an HA pool's failover asks slurmctld about the master step this often */

/* The master step runs (or slurmctld was not asked): what its keeper
 * (restart=, keep.c) says, in its proof m->proof (read when
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
				 MCRI_MASTER_LOG,
				 p == MCP_PROBE_READY ? ", and another process answers on its port now" : "");
		return MCP_PROBE_REFUSED;
	}
	if (pr->restarting)
		snprintf(
			m->why, sizeof(m->why),
			"it ended (%s), and its master step is starting it again on the same ports: restart %d of at most %d",
			pr->restart[mcri_proof_kept(pr) - 1].cause, pr->restarts, pr->restart_limit);
	else if (p == MCP_PROBE_REFUSED && pr->restarts < pr->restart_limit)
		snprintf(
			m->why, sizeof(m->why),
			"it does not accept on port %d, and its master step starts it again when it has ended (restart=%d)",
			m->st.ports.rpc, pr->restart_limit);
	else if (p == MCP_PROBE_READY && pr->verdict != MCRI_PROOF_OWN)
		snprintf(
			m->why, sizeof(m->why),
			"a process answers on port %d, but the master step has not proved it its restarted mooncake_master",
			m->st.ports.rpc);
	else
		return p;
	return MCP_PROBE_RESTARTING;
}

/* The keeper of the master step (keep.c) says, in its proof
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
	enum mcp_probe p = m->st.ha.masters ? mcp_probe_ha(&m->st, false, m->why, sizeof(m->why))
					    : mcp_probe_master(m->st.infra_addr, &m->st.ports, NULL, NULL, false,
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
			m->step_gone =
				mcp_step_facts(m->job_num, (uint32_t)m->st.master_step, &f, &ignored) == 0 && f.ended;
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
	snprintf(m->why, sizeof(m->why), "its step %s.%ld has ended%s", m->job->job_id, m->st.master_step,
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

	if (mcri_http(m->st.infra_addr, m->st.ports.metadata, "GET", m->pool_path, NULL, MCP_PROBE_TIMEOUT_MS, &status,
		      said, sizeof(said), &reason) != 0 ||
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
	return mcp_job_facts(m->job_num, &f, &ignored) == 0 && differs(st, f.cluster, f.start_time);
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
			uint32_t other;
			bool known = mcp_job_id_parse("the state file's job_id", m->st.job_id, &other, &ignored) == 0 &&
				     mcp_job_facts(other, &f, &ignored) == 0;

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
	if (mcp_job_facts(m->job_num, &f, &ignored) != 0 || !f.ended)
		return false;
	mcri_error_set(err, MCR_ESTATE,
		       "job %s has ended (%s) while this srun waited for %s; nothing was started for this step",
		       m->job->job_id, f.state[0] ? f.state : "no longer known to Slurm",
		       m->what ? m->what : "its mooncake_master");
	return true;
}

/* ---- what to do when the master step could not even run
 * mooncake_master, one explanation per failure. The step's log tells how:
 *   slurmstepd: error: execve(): mooncake_master: No such file or directory
 * on the host (a bare name is looked up on the step's PATH there, which
 * srun cannot see beforehand; with --export=NONE the steps get no PATH
 * from the submitting shell), or, inside the recipe's container, env(1)'s
 * "env: 'mooncake_master': No such file or directory" (Slurm's OCI
 * --container runs /usr/bin/env NAME), slurmstepd's execve() line after
 * pyxis entered the image (its login shell's PATH, pyxis before or after
 * this plugin), or the runtime's "executable file not found".
 * The starter adds the fix to its error message.
 *
 * And the message of every other way an election fails
 * (mcp_master_failure), from what the driver saw.
 */

/* the tail shows that the program could not be run inside a container */
static bool not_run_in_container(const char *tail)
{
	return (strstr(tail, "env: '") && strstr(tail, "': No such file")) || strstr(tail, "not found in $PATH") ||
	       strstr(tail, "command not found") || strstr(tail, "executable file") || strstr(tail, "execve(): ");
}

static void on_the_host(const char *tail, const char *master, const char *node, char *out, size_t size)
{
	const char *line = strstr(tail, "execve(): ");
	const char *end, *why;
	char name[256];
	size_t len;
	bool configured; /* the name is master= (not the recipe's command) */

	if (!line)
		return;
	line += strlen("execve(): ");
	end = strstr(line, ": ");
	if (!end || (len = (size_t)(end - line)) == 0 || len >= sizeof(name) || memchr(line, '\n', len))
		return;
	memcpy(name, line, len);
	name[len] = '\0';
	why = end + 2;
	configured = master && strcmp(master, name) == 0;
	if (strncmp(why, "No such file", 12) == 0 && !strchr(name, '/'))
		snprintf(
			out, size,
			" %s is not on the PATH of the master step on %s (with --export=NONE, the job's steps get no PATH from the submitting shell). Name it with an absolute path (%s%s), or run the job with its directory on PATH and without --export=NONE.",
			name, node,
			configured ? "in plugstack.conf, master=/path/to/"
				   : "in the command of the recipe's mooncake-master service",
			configured ? name : "");
	else if (strncmp(why, "No such file", 12) == 0)
		snprintf(out, size,
			 " %s does not exist on %s: install mooncake_master there (the Mooncake wheel), or correct %s.",
			 name, node,
			 configured ? "master= in plugstack.conf"
				    : "the command of the recipe's mooncake-master service");
	else if (strncmp(why, "Permission denied", 17) == 0)
		snprintf(
			out, size,
			" %s on %s cannot be run by the job's user (Permission denied): check its mode and its directories'.",
			name, node);
}

void mcp_master_advice(const struct mcp_container *c, const char *tail, const char *master, const char *node, char *out,
		       size_t size)
{
	const char *exec, *why;

	if (!size)
		return;
	out[0] = '\0';
	if (!tail)
		return;
	if (!c || c->mode == MCRI_CONTAINER_NONE) {
		on_the_host(tail, master, node, out, size);
		return;
	}
	/* pyxis runs a bare name as slurmstepd finds it on the task's PATH,
	 * which pyxis sets to the container's: the PATH of the image's login
	 * shell */
	if (c->mode == MCRI_CONTAINER_PYXIS && (exec = strstr(tail, "execve(): ")) &&
	    (why = strstr(exec, ": No such file")) && !memchr(exec, '/', (size_t)(why - exec)) &&
	    !memchr(exec, '\n', (size_t)(why - exec)))
		snprintf(
			out, size,
			" %s is not on the PATH in pyxis's container of %s on %s: pyxis gives the step the PATH of the image's login shell, which Debian's and Ubuntu's /etc/profile set anew, dropping what the image's /etc/environment (a Dockerfile's ENV) adds. Install the Mooncake wheel in the image, link its mooncake_master into /usr/local/bin there, or name its path in the image with master= in plugstack.conf; container=none runs the host's mooncake_master.",
			master, c->value, node);
	else if (not_run_in_container(tail))
		snprintf(
			out, size,
			" The master step ran in the container %s (%s) on %s, and %s could not be run there: install the Mooncake wheel in the image (pip install mooncake-transfer-engine, which puts mooncake_master on its PATH), or name the binary's path inside the container with master= in plugstack.conf; container=none runs the host's mooncake_master instead.",
			c->value, c->mode == MCRI_CONTAINER_OCI ? "Slurm's --container" : "pyxis", node, master);
}

/* the message of a failed election (err), from what the driver saw */
void mcp_master_failure(struct master *m, const struct mcp_election *el, struct mcr_error *err)
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
		if (mcp_master_own_pool(m, other_recipe, sizeof(other_recipe), other_dir, sizeof(other_dir))) {
			/* a second pool of this job: another recipe, another directory */
			mcri_error_set(
				err, MCR_EINVAL,
				"port %d on the infra node %s (%s) is taken by this job's own mooncake_master, of the pool of %s in %s; this srun's recipe %s has a pool of its own (in %s), and with ports=fixed a node holds one master: use %s for this step too, or ask the admin for ports=auto (each pool then gets ports of its own)",
				m->busy_port, st->infra_node, st->infra_addr, other_recipe, other_dir, m->job->recipe,
				m->job->dir->path, other_recipe);
			break;
		}
		mcri_error_set(
			err, MCR_ESTATE,
			"port %d on the infra node %s (%s) is already in use by another process (not this job's master, which is not started yet), so mooncake_master could not listen there. Is another job's mooncake_master running on %s? Only one job at a time can use a node as its infra node (the ports are fixed): run the job on other nodes, or with --exclusive",
			m->busy_port, st->infra_node, st->infra_addr, st->infra_node);
		break;
	case MCP_V_NO_FREE_PORTS:
		mcri_error_set(
			err, MCR_ESTATE,
			"no free ports for mooncake_master on the infra node %s (%s): each of the %d triples it tried was taken (8700-8702, then %d of the %d triples of port_range=%d-%d); widen port_range= in plugstack.conf, or run the job on another first node",
			st->infra_node, st->infra_addr, el->max_candidates, el->max_candidates - 1,
			(m->ps->port_hi - m->ps->port_lo + 1) / 3, m->ps->port_lo, m->ps->port_hi);
		break;
	case MCP_V_EXITED:
		mcp_log_tail(m->log, tail, sizeof(tail));
		mcp_master_advice(&m->container, tail, m->ps->master, st->infra_node, advice, sizeof(advice));
		if (mcp_master_foreign(m))
			snprintf(busy, sizeof(busy), " It could not take its ports%s.", m->why_foreign);
		else if (m->busy_port && !m->claim_ports)
			snprintf(
				busy, sizeof(busy),
				" Port %d on %s is in use by another process: another job's mooncake_master on the same node? Only one job at a time can use a node as its infra node (the ports are fixed): run such jobs on different first nodes, or with --exclusive.",
				m->busy_port, st->infra_node);
		mcri_error_set(
			err, MCR_ESTATE,
			"the master step (mooncake_master on %s) ended during start-up (%s) before it was ready.%s%s Last lines of %s:%s",
			st->infra_node, m->ended, busy, advice, m->log, tail[0] ? tail : " (empty)");
		break;
	case MCP_V_TIMEOUT:
		mcp_log_tail(m->log, tail, sizeof(tail));
		mcri_error_set(
			err, MCR_ESTATE,
			"mooncake_master on %s (%s) was not ready after %d s: %s; it was stopped. If the node is just slow, raise readiness.timeout_seconds of the mooncake-master service (or ready_timeout= in plugstack.conf); last lines of %s:%s",
			st->infra_node, st->infra_addr, bound, m->why, m->log, tail[0] ? tail : " (empty)");
		break;
	case MCP_V_OTHER_FAILED:
		mcri_error_set(err, MCR_ESTATE,
			       "the job's mooncake_master could not be started (another srun of this job tried): %s",
			       st->message);
		break;
	case MCP_V_WAIT_TIMEOUT:
		mcri_error_set(
			err, MCR_ESTATE,
			"timed out after %.0f s waiting for the job's mooncake_master that another srun of this job is starting (state: %s); see %s",
			mcp_now() - m->t0, st->phase ? mcri_phase_name(st->phase) : "unknown", m->log);
		break;
	case MCP_V_UNREACHABLE:
		mcri_error_set(
			err, MCR_ESTATE,
			"the job's mooncake_master on %s (%s) was ready, but this node (%s) cannot reach it: no answer within %d s (%s). It may still be running: check the network between %s and %s (link, routes, firewall), then run srun again",
			st->infra_node, st->infra_addr, m->host, bound, m->why, m->host, st->infra_node);
		break;
	case MCP_V_STOPPED:
		mcri_error_set(
			err, MCR_ESTATE,
			"the job's mooncake_master on %s (%s) was ready, but has stopped: %s. No srun starts a new one behind running workers (their segments and keys are gone with it); see %s and resubmit the job",
			st->infra_node, st->infra_addr, m->why, m->log);
		break;
	case MCP_V_RESTART_TIMEOUT:
		mcri_error_set(
			err, MCR_ESTATE,
			"the job's mooncake_master on %s (%s) was ready and ended; its master step is starting it again, but it has not answered within %d s (%s). See %s for why it ended and why it does not come back",
			st->infra_node, st->infra_addr, bound, m->why, m->log);
		break;
	case MCP_V_OTHER_JOB:
		mcri_error_set(
			err, MCR_EINVAL,
			"the directory %s holds the Mooncake pool of job %s, which still runs, and this srun is of job %s: one directory holds one job's pool. Put {job_id} in the recipe's output.log_dir (e.g. log_dir: outputs/{job_id}/logs), or use another directory",
			m->job->dir->path, st->job_id, m->job->job_id);
		break;
	case MCP_V_OTHER_RECIPE:
		mcri_error_set(
			err, MCR_EINVAL,
			"the job's Mooncake pool in %s comes from the recipe %s, and this srun names %s: one directory holds one pool. Use %s for this step too, or give the other recipe an output.log_dir of its own (its pool then gets a master of its own)",
			m->job->dir->path, st->recipe, m->job->recipe, st->recipe);
		break;
	default:
		mcri_error_set(err, MCR_ESTATE, "the job's mooncake_master could not be started in %d attempts; see %s",
			       el->max_attempts, m->log);
	}
}

/* ---- srun's waits end promptly when srun is told to stop
 * (SIGTERM from timeout(1) or scancel, SIGINT from Ctrl-C, SIGHUP): the
 * plugin's waits run inside srun's callbacks, where srun either blocks
 * those signals until its step exists (Slurm 22.05-25.11: they stay
 * pending) or takes them in a handler of its own that only records them
 * (26.05). While a wait is watched, a handler of the plugin's records the
 * signal and then calls srun's own, so srun sees it as it would have; the
 * wait looks at both after each pause.
 */

static const int WATCHED[] = { SIGTERM, SIGINT, SIGHUP };
#define N_WATCHED (sizeof(WATCHED) / sizeof(WATCHED[0]))

/* the watch's state, from mcp_interrupt_watch(true) to (false) */
static struct sigaction saved[N_WATCHED];
static volatile sig_atomic_t caught;
static bool watching;

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	caught = sig;
	for (size_t i = 0; i < N_WATCHED; i++) {
		const struct sigaction *old = &saved[i];

		if (WATCHED[i] != sig)
			continue;
		if (old->sa_flags & SA_SIGINFO) {
			old->sa_sigaction(sig, info, uctx);
		} else if (old->sa_handler == SIG_DFL) {
			/* srun did not take it: it ends srun, as it would have */
			sigaction(sig, old, NULL);
			raise(sig);
		} else if (old->sa_handler != SIG_IGN) {
			old->sa_handler(sig);
		}
	}
}

void mcp_interrupt_watch(bool on)
{
	struct sigaction sa;

	if (on == watching)
		return;
	watching = on;
	if (!on) {
		for (size_t i = 0; i < N_WATCHED; i++)
			sigaction(WATCHED[i], &saved[i], NULL);
		return;
	}
	caught = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < N_WATCHED; i++)
		sigaction(WATCHED[i], &sa, &saved[i]);
}

int mcp_interrupted(void)
{
	sigset_t pending;

	if (caught)
		return caught;
	if (sigpending(&pending) == 0)
		for (size_t i = 0; i < N_WATCHED; i++)
			if (sigismember(&pending, WATCHED[i]))
				return WATCHED[i];
	return 0;
}
