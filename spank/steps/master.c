/*
 * master.c - one mooncake_master per job, as a job step of its own: the
 * driver of the election (election.c decides; this file acts,
 * master_look.c looks, master_advice.c words a failure).
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
 * the master ended is not the master either. While the starter works it
 * holds its lock (an open file description lock, which the file system
 * drops when the starter dies) and touches it every second (a heartbeat):
 * a lock left by a starter that died, on any host, is taken over within
 * seconds (runtime/jobdir: mcri_lock_seen_gone).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "steps/run.h"
#include "steps/ports.h"

#define POLL_STATE_MS 50    /* the state file, where its directory cannot be watched */
#define WATCH_STATE_MS 250  /* ... where it can (a local file system): a bound all the same */
#define POLL_BLIP_MS 250    /* a master that does not answer */
#define FIRST_PROGRESS_S 3  /* a master is usually ready in ~1.5 s: no line */
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
		slurm_info(MCP_NAME ": waiting for the job's HA pool (its masters on %s and %d more), %.0f s of at most %d s: %s (%s)",
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
	if (mcp_job_facts((uint32_t)m->job_num, &f, &ignored) == 0) {
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
	static const char *const KEPT[] = { MCRI_MASTER_LOG, MCRI_POOL_LOG, MCRI_SAMPLES_FILE,
					    MCRI_REPORT_FILE, MCRI_PICTURE_FILE };
	char suffix[64];

	snprintf(suffix, sizeof(suffix), "job%s-%lld", m->st.job_id, m->st.job_start);
	for (size_t i = 0; i < sizeof(KEPT) / sizeof(KEPT[0]); i++)
		mcri_jobdir_keep(m->job->dir, KEPT[i], suffix);
	slurm_info(MCP_NAME ": %s held the pool of another job %s (%s%s%s, started at %lld), which has ended: this job's pool starts afresh there; that job's logs are kept as %s.%s",
		   m->job->dir->path, m->st.job_id, m->st.cluster[0] ? "cluster " : "",
		   m->st.cluster, m->st.cluster[0] ? "" : "its cluster unknown", m->st.job_start, MCRI_MASTER_LOG,
		   suffix);
	m->stale = false;
}

static enum mcp_spawn spawn(struct master *m, const struct mcp_election *el)
{
	struct mcri_state *st = &m->st;
	struct mcp_step_place at = { .job_id = m->job->job_id, .dir = m->job->dir->path,
				     .node = st->infra_node, .het = m->job->het };
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
		/* the infra node, and with ha=etcd the HA pool's nodes */
		if (m->job->find_nodes(m->job->find_nodes_arg, nodes, m->ps->ha == MCRI_HA_ETCD ? MCRI_HA_MAX : 1,
				       &got, &m->err) ||
		    mcp_ha_plan(m->ps, m->recipe, nodes, got, st, &m->container, &m->err))
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
		mcri_error_set(&m->err, MCR_EINVAL,
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
	/* its guard proves the ports its own, for this attempt (guard.c) */
	if (!(guard = mcp_guard_value(st->attempt, m->timeout, m->ps->restart, &st->ports,
				      m->job->dir->path))) {
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
	rc = mcp_spawn_master(m->ps, m->recipe, &m->container, &at, st, m->claim_ports,
			      guard, ha, m->log, &m->child, &m->err);
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
		slurm_info(MCP_NAME ": starting the job's HA pool: mooncake_master on %s (ports %d, %d, %d), one leading, and etcd on %s (ports %d, %d), as step mooncake-master of job %s; log: %s",
			   nodelist, st->ports.rpc, st->ports.metadata, st->ports.metrics,
			   st->ha.etcd_members > 1 ? nodelist : st->infra_node, st->ha.etcd_client,
			   st->ha.etcd_peer, m->job->job_id, m->log);
	else
		slurm_info(MCP_NAME ": starting mooncake_master on %s (%s, ports %d, %d, %d) as step mooncake-master of job %s; log: %s",
			   st->infra_node, st->infra_addr, st->ports.rpc, st->ports.metadata,
			   st->ports.metrics, m->job->job_id, m->log);
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
static void announce(struct master *m, enum mcp_el_state before,
		     const struct mcp_election *el, const struct mcp_seen *s)
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
		progress(m, m->restarting && m->st.ha.masters ? "its masters are choosing a leader" :
			    m->restarting ? "its master step is starting it again" :
					    "it does not answer from this node, asking again",
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
		what = m->st.ha.masters ? "the job's HA pool to have a serving leader" :
					  "the job's mooncake_master to answer";
		break;
	default:
		what = "the job's mooncake_master that another srun of this job is starting";
	}
	mcri_error_set(err, MCR_ESTATE,
		       "srun was told to stop (%s) while it waited %.0f s for %s (%.300s); nothing was started for this step",
		       strsignal(sig), mcp_now() - m->t0, what, m->why[0] ? m->why : "not ready yet");
	return true;
}

static int verdict(struct master *m, const struct mcp_election *el,
		   struct mcri_state *st, struct mcr_error *err)
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
			return mcri_error_set(err, MCR_ESTATE,
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
				slurm_info(MCP_NAME ": the job's HA pool is ready after %.1f s: %s",
					   mcp_now() - m->t0, master);
			else
				slurm_info(MCP_NAME ": mooncake_master ready on %s (%s:%d) after %.1f s",
					   m->st.infra_node, m->st.infra_addr, m->st.ports.rpc,
					   mcp_now() - m->t0);
			/* the pool's sampler, next to it; a warning at worst */
			mcp_start_sampler(m->ps, &(struct mcp_step_place){ .job_id = m->job->job_id,
									   .dir = m->job->dir->path,
									   .node = m->st.infra_node,
									   .het = m->job->het },
					  &m->err);
		} else if (m->next_line > m->t0 && m->st.ha.masters) {
			slurm_info(MCP_NAME ": the job's HA pool has a serving leader again after %.1f s",
				   mcp_now() - m->t0);
		} else if (m->next_line > m->t0) {
			slurm_info(MCP_NAME ": mooncake_master on %s (%s) answers again after %.1f s",
				   m->st.infra_node, m->st.infra_addr, mcp_now() - m->t0);
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
	return mcri_error_set(err, MCR_ESTATE,
			      "the master address of the job's pool (%s, ports %d-%d) does not fit in %zu bytes: give the infra nodes shorter names or addresses (NodeAddr)",
			      st->ha.masters ? "an HA pool's etcd members" : st->infra_addr,
			      st->ports.rpc, st->ports.metrics, size);
}

int mcp_ready_timeout(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe)
{
	int timeout = mcr_recipe_ready_timeout(recipe);

	return timeout > 0 ? timeout : ps->ready_timeout;
}

int mcp_ensure_master(const struct mcri_plugstack *ps,
		      const struct mcr_recipe *recipe, const struct mcp_job *job,
		      struct mcri_state *st, struct mcr_error *err)
{
	struct master m = { .ps = ps, .recipe = recipe, .job = job, .watch = MCRI_WATCH_NONE,
			    .lock_fd = -1 };
	int timeout = mcp_ready_timeout(ps, recipe), candidates = 1;
	struct mcp_election el;
	struct mcp_seen seen = { 0 };
	enum mcp_el_state before;
	char **a = NULL, **b = NULL;
	const struct mcr_ports probe = { 1, 2, 3 };
	int rc;

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
