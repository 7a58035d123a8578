/*
 * lender.c - srun starts or joins the job's memory lenders on the nodes
 * of its step (lender.h says when and why there).
 *
 * Each lender on each node has an election of its own, the master's
 * (election.c, a pure state machine), run on the lender's records
 * (lender_<name>.<node>.json, its locks and its step's proof; the driver's
 * looks of master.c that serve any subject): concurrent sruns elect
 * one starter per attempt with an O_EXCL lock held while it works; the
 * starter launches the lender step on the node (step.c) on a port of its
 * own (a store's --port: 8080, else one of port_range=, ports.c), waits
 * until the step's keeper proves it ready (keep.c: its port the
 * store's and its segment mounted at the job's master, a donor's ready
 * file) and records it ready; an srun that comes while it starts joins
 * it (its tasks wait), one that comes later checks the keeper's word.
 * A starter that died is taken over as the master's is. The elections of
 * one srun's lenders and nodes run side by side: a step of many nodes
 * waits for the slowest lender, not for their sum.
 *
 * What an srun cannot start or join is said on its terminal and handed to
 * its tasks (MCP_LENDERS_VAR), which fail with it (critical: true) or go
 * on (critical: false) in task_init (stepd.c); srun itself goes on,
 * so that its step is never left allocated (srun.c: a local_user_init
 * that fails leaves it so on Slurm 22.05).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "container/container.h"
#include "plugin/common.h"
#include "plugin/handover.h"
#include "plugin/slurm.h"
#include "render/render.h"
#include "steps/election.h"
#include "steps/keep.h"
#include "steps/lender.h"
#include "steps/master.h"
#include "steps/ports.h"
#include "steps/step.h"

#define FIRST_PROGRESS_S 3
#define PROGRESS_EVERY_S 5

/* one lender on one node: its election, as one srun runs it */
struct run {
	const struct mcri_lender *l;
	char node[256];
	char subject[MCRI_SUBJECT_MAX + 1];
	char log_name[NAME_MAX + 1];
	char what[MCRI_LENDER_NAME_MAX + 320]; /* "the store service store on n3" */
	struct mcp_job mj;                     /* what the driver's looks read */
	struct master m;
	struct mcp_election el;
	struct mcp_seen seen;
	bool done, failed;
	struct mcr_error err; /* failed: why */
};

/* this srun's lenders, from its local_user_init to its end */
struct lenders {
	const struct mcri_plugstack *ps;
	const struct mcr_recipe *r;
	const struct mcp_lender_job *job;
	struct run *run;
	size_t n;
};

int mcp_lender_timeout(const struct mcri_plugstack *ps, const struct mcri_lender *l)
{
	const struct mcri_node *t = mcri_map_get(mcri_map_get(l->entry, "readiness"), "timeout_seconds");
	double v = t && t->type == MCRI_T_INT ? (double)t->i : t && t->type == MCRI_T_FLOAT ? t->f : 0;

	if (v <= 0)
		return ps->ready_timeout;
	return v > 86400 ? 86400 : (int)(v + 0.999999);
}

static const char *kind_words(const struct mcri_lender *l)
{
	return l->kind == MCRI_LENDER_STORE ? "the store service" : "the donor";
}

/* the job's master as its records have it: its address for the lender
 * ("host:port", or an HA pool's), its metadata server, its metrics */
static int master_of(const struct lenders *ls, struct mcri_state *st, char *addr, size_t size, struct mcr_error *err)
{
	if (mcri_state_read(ls->job->dir, st, err) != 0 ||
	    (st->phase != MCRI_PHASE_READY && st->phase != MCRI_PHASE_STARTING))
		return mcri_error_set(
			err, MCR_ESTATE,
			"the job's mooncake_master is not running (its state in %s is %s): a lender lends to the job's pool, which needs it",
			ls->job->dir->path, st->phase ? mcri_phase_name(st->phase) : "missing");
	if (st->ha.masters)
		return mcri_error_set(
			err, MCR_ESTATE,
			"the job's pool is an HA pool (ha=etcd in plugstack.conf), and this plugin does not run memory lenders with one: its keeper proves a store ready by its segment at a single master; run the job with ha=none, or let the workers lend their memory");
	return mcp_master_address(st, addr, size, err);
}

/* ---- the election's actions on a lender's records -------------------- */

static enum mcp_spawn spawn(struct lenders *ls, struct run *x)
{
	struct master *m = &x->m;
	struct mcri_state *st = &m->st, ms;
	const struct mcri_lender *l = x->l;
	char master[MCP_MASTER_ADDRESS_MAX], metrics[300], log[PATH_MAX + NAME_MAX + 2];
	char *guard = NULL, *segment = NULL, *ready = NULL, **argv = NULL;
	struct mcr_position where;
	struct mcr_env env = { 0 };
	struct mcri_lender_at at;
	enum mcp_spawn rc = MCP_SPAWN_ERROR;
	int port;

	if (x->el.candidate == 0) {
		memset(st, 0, sizeof(*st));
		st->attempt = x->el.attempt;
		st->run = ls->job->run > 0 ? ls->job->run : 0;
		snprintf(st->job_id, sizeof(st->job_id), "%s", ls->job->job_id);
		mcp_master_identify(m, st);
		snprintf(st->infra_node, sizeof(st->infra_node), "%s", x->node);
		m->touched = mcp_now();
		if (mcp_node_address(x->node, st->infra_addr, sizeof(st->infra_addr), &m->err))
			return MCP_SPAWN_ERROR;
		mcp_master_heartbeat(m);
		/* the recipe's container, or the kind's fallback image, as srtctl picks it */
		{
			char step[MCRI_LENDER_NAME_MAX + 32];
			const char *what[3] = { step,
						l->kind == MCRI_LENDER_STORE ? "the store service"
									     : "trtllm-serve mooncake_donor",
						x->node };

			snprintf(step, sizeof(step), "the lender step %s", l->name);
			if (mcp_container_decide_value(ls->ps, mcri_lender_container(ls->r, l, &where), &where, what,
						       NULL, &m->container, &m->err))
				return MCP_SPAWN_ERROR;
		}
		mcp_master_heartbeat(m);
		snprintf(st->recipe, sizeof(st->recipe), "%s", ls->job->recipe);
		snprintf(st->starter_host, sizeof(st->starter_host), "%s", m->host);
		st->starter_pid = (long)getpid();
		st->starter_start = mcri_pid_start(getpid());
		st->started_at = (long long)time(NULL);
	}
	port = l->kind == MCRI_LENDER_STORE ? mcp_lender_port_candidate(ls->ps, m->job_num, l->name, x->el.candidate)
					    : 0;
	st->ports = (struct mcr_ports){ .rpc = port };
	st->phase = MCRI_PHASE_STARTING;
	st->srun_pid = 0;
	st->srun_start = 0;
	if (mcp_master_superseded(m))
		return MCP_SPAWN_SUPERSEDED;
	if (mcri_state_write_of(m->job->dir, m->subject, st, &m->err))
		return MCP_SPAWN_ERROR;
	mcp_master_heartbeat(m);
	/* a listener on its port before it exists is someone else's */
	if (port && (m->busy_port = mcp_busy_port(st->infra_addr, &st->ports)))
		return MCP_SPAWN_BUSY;
	mcp_master_heartbeat(m);
	if (master_of(ls, &ms, master, sizeof(master), &m->err))
		return MCP_SPAWN_ERROR;
	snprintf(metrics, sizeof(metrics), "%s:%d", ms.infra_addr, ms.ports.metrics);
	at = (struct mcri_lender_at){ .node = x->node,
				      .addr = st->infra_addr,
				      .port = port,
				      .master = master,
				      .metadata_host = ms.infra_addr,
				      .metadata_port = ms.ports.metadata,
				      .dir = m->job->dir->path,
				      .timeout = m->timeout };
	if (l->kind == MCRI_LENDER_STORE ? !(segment = mcri_lender_segment(ls->r, l, &at, &m->err))
					 : !(ready = mcri_donor_ready_file(x->node)))
		goto nomem_or_err;
	if (!(guard = mcp_lender_guard_value(l->kind, st->attempt, m->timeout, ls->ps->restart, ls->ps->hang_timeout,
					     port, m->job->dir->path, x->subject, x->what, segment ? segment : "",
					     metrics, ready ? ready : "")) ||
	    mcri_lender_argv(ls->r, l, &at, &argv, &m->err) ||
	    mcri_lender_env_origins(ls->r, l, &at, &env, NULL, &m->err))
		goto nomem_or_err;
	{
		struct mcr_env_var *v = realloc(env.vars, (env.count + 1) * sizeof(*v));

		if (!v)
			goto nomem;
		env.vars = v;
		v[env.count].name = strdup(MCP_LENDER_VAR);
		v[env.count].value = strdup(guard);
		env.count++;
		if (!v[env.count - 1].name || !v[env.count - 1].value)
			goto nomem;
	}
	if (m->container.note[0] && !m->container.note_verbose)
		slurm_info("%s", m->container.note);
	snprintf(log, sizeof(log), "%s/%s", m->job->dir->path, x->log_name);
	if (mcp_step_start(ls->ps,
			   &(struct mcp_step_place){ .job_id = m->job->job_id,
						     .dir = m->job->dir->path,
						     .node = x->node,
						     .het = ls->job->het },
			   &(struct mcp_step){ .name = l->name,
					       .log = log,
					       .cmd = argv,
					       .env = &env,
					       .container = &m->container },
			   &m->child, &m->err))
		goto out;
	st->srun_pid = (long)m->child;
	st->srun_start = mcri_pid_start(m->child);
	mcp_master_heartbeat(m);
	if (mcp_master_superseded(m)) {
		mcp_master_stop(m, true);
		rc = MCP_SPAWN_SUPERSEDED;
		goto out;
	}
	if (mcri_state_write_of(m->job->dir, m->subject, st, &m->err)) {
		mcp_master_stop(m, true);
		goto out;
	}
	if (port)
		slurm_info(MCP_NAME ": starting %s %s on %s (%s, port %d) as step %s of job %s; log: %s", kind_words(l),
			   l->name, x->node, st->infra_addr, port, l->name, m->job->job_id, log);
	else
		slurm_info(MCP_NAME ": starting %s %s on %s (%s) as step %s of job %s; log: %s", kind_words(l), l->name,
			   x->node, st->infra_addr, l->name, m->job->job_id, log);
	m->t0 = mcp_now();
	m->next_line = m->t0 + FIRST_PROGRESS_S;
	rc = MCP_SPAWNED;
	goto out;
nomem_or_err:
	if (m->err.kind != MCR_OK)
		goto out;
nomem:
	mcri_error_nomem(&m->err);
out:
	mcr_env_free(&env);
	mcr_strv_free(argv);
	free(guard);
	free(segment);
	free(ready);
	return rc;
}

/* the step this srun launched (STARTING) or adopted: ended, or proved? */
static void watch(struct run *x, enum mcp_el_state state, struct mcp_seen *s)
{
	struct master *m = &x->m;
	char tail[3000];
	bool ended = mcp_master_step_ended(m, state, s);

	if (s->superseded)
		return;
	if (ended) {
		s->child = MCP_CHILD_ENDED;
		s->lost_ports = m->st.ports.rpc && mcp_master_lost_ports(m, tail, sizeof(tail));
		if (s->lost_ports)
			slurm_info(MCP_NAME ": port %d is taken on %s; %s tries another", m->st.ports.rpc, x->node,
				   x->what);
		return;
	}
	s->child = MCP_CHILD_RUNNING;
	if (mcri_proof_of_subject(m->job->dir, m->subject, m->st.attempt, &m->proof) == 0 &&
	    m->proof.verdict != MCRI_PROOF_NONE) {
		s->probe = MCP_PROBE_READY;
		return;
	}
	s->probe = MCP_PROBE_NO_ANSWER;
	if (x->l->kind == MCRI_LENDER_STORE)
		snprintf(
			m->why, sizeof(m->why),
			"its step has not proved yet that it listens on port %d and its segment is mounted at the job's master",
			m->st.ports.rpc);
	else
		snprintf(m->why, sizeof(m->why), "its ready file is not there yet");
}

/* proved: its step's keeper says what listens on its port is its own */
static bool claim(struct run *x, bool *gone)
{
	struct master *m = &x->m;

	if (mcp_master_superseded(m)) {
		*gone = true;
		return false;
	}
	if (mcri_proof_of_subject(m->job->dir, m->subject, m->st.attempt, &m->proof) != 0)
		return false;
	if (m->proof.verdict == MCRI_PROOF_FOREIGN) {
		snprintf(m->why, sizeof(m->why),
			 "port %d on %.255s listens for another process (uid %u), not for this lender",
			 m->proof.foreign_port, x->node, m->proof.foreign_uid);
		return false;
	}
	if (m->proof.verdict != MCRI_PROOF_OWN)
		return false;
	m->st.master_step = (long)m->proof.step;
	return true;
}

/* a lender recorded ready: its keeper's word */
static enum mcp_probe join_probe(struct run *x)
{
	struct master *m = &x->m;
	const struct mcri_proof *p = &m->proof;

	if (mcri_proof_of_subject(m->job->dir, m->subject, m->st.attempt, &m->proof) != 0) {
		snprintf(m->why, sizeof(m->why), "its step has recorded nothing of it");
		return MCP_PROBE_NO_ANSWER;
	}
	if (p->ended) {
		if (p->ended_why[0])
			snprintf(m->why, sizeof(m->why), "its step has ended it: %.400s", p->ended_why);
		else
			snprintf(m->why, sizeof(m->why), "its step has ended (its log %.300s tells why)", x->log_name);
		return MCP_PROBE_REFUSED;
	}
	if (p->restarting) {
		snprintf(m->why, sizeof(m->why),
			 "it ended (%s) and its step is starting it again: restart %d of at most %d",
			 p->restart[mcri_proof_kept(p) - 1].cause, p->restarts, p->restart_limit);
		m->restarting = true;
		return MCP_PROBE_RESTARTING;
	}
	return p->verdict == MCRI_PROOF_OWN ? MCP_PROBE_READY : MCP_PROBE_NO_ANSWER;
}

/* the message of a failed election */
static void failure(struct run *x, struct mcr_error *err)
{
	struct master *m = &x->m;
	char tail[3000] = "";

	mcp_log_tail(m->log, tail, sizeof(tail));
	switch (x->el.verdict) {
	case MCP_V_LOCK_ERROR:
	case MCP_V_SPAWN_ERROR:
		mcri_error_set(err, MCR_ESTATE, "%s could not be started: %s", x->what, m->err.text);
		break;
	case MCP_V_PORTS_BUSY:
		mcri_error_set(
			err, MCR_ESTATE,
			"%s could not be started: port %d on %s is taken by another process (ports=fixed in plugstack.conf); find it with ss -ltnp there",
			x->what, m->busy_port ? m->busy_port : m->st.ports.rpc, x->node);
		break;
	case MCP_V_NO_FREE_PORTS:
		mcri_error_set(
			err, MCR_ESTATE,
			"%s could not be started: every port tried on %s was taken (8080 and %d of port_range=%d-%d); free some, or widen port_range=",
			x->what, x->node, x->el.max_candidates - 1, x->m.ps->port_lo, x->m.ps->port_hi);
		break;
	case MCP_V_EXITED:
		mcri_error_set(err, MCR_ESTATE, "%s ended before it was ready (%s); its log %s/%s ends:%s", x->what,
			       m->ended, m->job->dir->path, x->log_name, tail[0] ? tail : " (empty)");
		break;
	case MCP_V_TIMEOUT:
		mcri_error_set(
			err, MCR_ESTATE,
			"%s was not ready within %d s (%s); it was stopped. If it is just slow, raise readiness.timeout_seconds of services[%s]; its log %s/%s ends:%s",
			x->what, m->timeout, m->why[0] ? m->why : "not ready yet", x->l->name, m->job->dir->path,
			x->log_name, tail[0] ? tail : " (empty)");
		break;
	case MCP_V_OTHER_FAILED:
		mcri_error_set(err, MCR_ESTATE, "%s could not be started (another srun of this job tried): %.1024s",
			       x->what, m->st.message);
		break;
	case MCP_V_WAIT_TIMEOUT:
		mcri_error_set(err, MCR_ESTATE,
			       "the srun of this job that is starting %s has said nothing for %d s; see %s/%s", x->what,
			       m->timeout + MCP_STARTER_GRACE, m->job->dir->path, x->log_name);
		break;
	case MCP_V_STOPPED:
	case MCP_V_UNREACHABLE:
	case MCP_V_RESTART_TIMEOUT:
		mcri_error_set(err, MCR_ESTATE, "%s is not lending: %s; its log %s/%s ends:%s", x->what,
			       m->why[0] ? m->why : "it does not answer", m->job->dir->path, x->log_name,
			       tail[0] ? tail : " (empty)");
		break;
	case MCP_V_OTHER_RECIPE:
		mcri_error_set(
			err, MCR_ESTATE,
			"%s of job %s comes from another recipe (%s), in the same directory %s: run this recipe in a job of its own, or give it its own output.log_dir",
			x->what, m->job->job_id, m->st.recipe, m->job->dir->path);
		break;
	case MCP_V_OTHER_JOB:
		mcri_error_set(
			err, MCR_ESTATE,
			"%s in %s is job %s's, which still runs: give this job a directory of its own (output.log_dir with {job_id})",
			x->what, m->job->dir->path, m->st.job_id);
		break;
	default:
		mcri_error_set(err, MCR_ESTATE, "%s could not be started: out of election attempts (%d)", x->what,
			       MCP_MAX_ATTEMPTS);
	}
}

static void verdict(struct run *x)
{
	struct master *m = &x->m;
	bool ours = x->el.watching == MCP_EL_STARTING || x->el.watching == MCP_EL_ADOPT;

	x->done = true;
	if (x->el.verdict == MCP_V_STARTING)
		return;
	if (x->el.verdict == MCP_V_READY) {
		if (!ours)
			return;
		if (mcp_master_superseded(m)) {
			mcp_master_stop(m, x->el.watching == MCP_EL_STARTING);
			x->failed = true;
			mcri_error_set(&x->err, MCR_ESTATE,
				       "another srun of job %s took over starting %s while this one was finishing",
				       m->job->job_id, x->what);
			return;
		}
		m->st.phase = MCRI_PHASE_READY;
		m->st.ready_at = (long long)time(NULL);
		if (mcri_state_write_of(m->job->dir, m->subject, &m->st, &x->err)) {
			x->failed = true;
			return;
		}
		slurm_info(MCP_NAME ": %s is ready after %.1f s%s", x->what, mcp_now() - m->t0,
			   x->l->kind == MCRI_LENDER_STORE ? ": its segment is mounted at the job's master" : "");
		return;
	}
	x->failed = true;
	failure(x, &x->err);
	switch (x->el.verdict) {
	case MCP_V_SPAWN_ERROR:
	case MCP_V_PORTS_BUSY:
	case MCP_V_NO_FREE_PORTS:
	case MCP_V_EXITED:
	case MCP_V_TIMEOUT:
		if (x->el.verdict != MCP_V_SPAWN_ERROR || m->st.attempt == x->el.attempt)
			mcp_master_record_failure(m, &x->err);
		break;
	default:
		break;
	}
}

/* Run x's election until it sleeps or ends. */
static void step(struct lenders *ls, struct run *x)
{
	while (!x->done) {
		struct mcp_seen seen = { 0 };
		enum mcp_el_action act = mcp_election_next(&x->el, &x->seen);

		switch (act) {
		case MCP_DO_TAKE_LOCK:
			seen.lock = mcp_master_take_lock(&x->m, x->el.attempt);
			break;
		case MCP_DO_SPAWN:
			seen.spawn = spawn(ls, x);
			break;
		case MCP_DO_WATCH:
			watch(x, x->el.state, &seen);
			break;
		case MCP_DO_CLAIM:
			seen.claimed = claim(x, &seen.superseded);
			break;
		case MCP_DO_READ:
			mcp_master_read_state(&x->m, x->el.attempt, &seen);
			break;
		case MCP_DO_ADOPT:
			seen.adopt_won = mcp_master_adopt(&x->m, x->el.attempt);
			break;
		case MCP_DO_PROBE:
			seen.probe = join_probe(x);
			break;
		case MCP_DO_STOP:
			mcp_master_stop(&x->m, x->el.state == MCP_EL_STARTING);
			break;
		case MCP_DO_FINISH:
			verdict(x);
			mcp_master_release_lock(&x->m);
			return;
		case MCP_DO_SLEEP:
			x->seen = seen;
			x->seen.now = mcp_now();
			return;
		}
		x->seen = seen;
		x->seen.now = mcp_now();
	}
}

/* a line on srun's terminal while a lender takes long */
static void progress(struct run *x)
{
	struct master *m = &x->m;
	double t = mcp_now();

	if (x->done || m->t0 <= 0 || t < m->next_line)
		return;
	m->next_line = t + PROGRESS_EVERY_S;
	slurm_info(MCP_NAME ": waiting for %s, %.0f s of at most %d s: %s", x->what, t - m->t0, m->timeout,
		   m->why[0] ? m->why : "not ready yet");
}

/* srun was told to stop: the steps this srun was starting are stopped */
/* what srun waited for ends: each lender not done is stopped and fails,
 * with `why` (the job has ended), or else signal `sig` as the cause */
static void interrupted(struct lenders *ls, int sig, const struct mcr_error *why)
{
	for (size_t i = 0; i < ls->n; i++) {
		struct run *x = &ls->run[i];

		if (x->done)
			continue;
		if (x->el.state == MCP_EL_STARTING || x->el.state == MCP_EL_ADOPT)
			mcp_master_stop(&x->m, x->el.state == MCP_EL_STARTING);
		mcp_master_release_lock(&x->m);
		x->done = x->failed = true;
		if (why)
			x->err = *why;
		else
			mcri_error_set(&x->err, MCR_ESTATE, "srun was told to stop (%s) while it waited for %s",
				       strsignal(sig), x->what);
	}
}

/* The lender was recorded ready, for this job and run from this recipe,
 * and its step's keeper says it lends: joined, with no election (a first
 * wave's sruns mostly come once it is) */
static bool lending(struct lenders *ls, struct run *x)
{
	struct mcri_state st;
	struct mcri_proof p;
	struct mcr_error ignored;

	return mcri_state_read_of(ls->job->dir, x->subject, &st, &ignored) == 0 && st.phase == MCRI_PHASE_READY &&
	       !strcmp(st.job_id, ls->job->job_id) && (ls->job->run < 0 || st.run == ls->job->run) &&
	       !strcmp(st.recipe, ls->job->recipe) &&
	       (!st.job_start || !ls->job->start || st.job_start == ls->job->start) &&
	       mcri_proof_of_subject(ls->job->dir, x->subject, st.attempt, &p) == 0 && !p.ended && !p.restarting &&
	       p.verdict == MCRI_PROOF_OWN && (long)p.step == st.master_step;
}

static void elections(struct lenders *ls)
{
	double t0 = mcp_now();

	for (size_t i = 0; i < ls->n; i++) {
		struct run *x = &ls->run[i];
		int timeout = mcp_lender_timeout(ls->ps, x->l);

		if ((x->done = lending(ls, x)))
			continue;

		x->mj = (struct mcp_job){ .job_num = ls->job->job_num,
					  .job_id = ls->job->job_id,
					  .run = ls->job->run,
					  .het = ls->job->het,
					  .dir = ls->job->dir,
					  .recipe = ls->job->recipe,
					  .join_starting = true,
					  .cluster = ls->job->cluster,
					  .start = ls->job->start };
		x->m = (struct master){ .subject = x->subject,
					.what = x->what,
					.ps = ls->ps,
					.recipe = ls->r,
					.job = &x->mj,
					.watch = MCRI_WATCH_NONE,
					.lock_fd = -1,
					.timeout = timeout };
		x->m.job_num = ls->job->job_num;
		x->m.t0 = t0;
		x->m.next_line = t0 + FIRST_PROGRESS_S;
		gethostname(x->m.host, sizeof(x->m.host) - 1);
		snprintf(x->m.log, sizeof(x->m.log), "%s/%s", ls->job->dir->path, x->log_name);
		mcp_election_init(&x->el, timeout, MCP_MAX_ATTEMPTS,
				  x->l->kind == MCRI_LENDER_STORE ? mcp_lender_port_candidates(ls->ps) : 1, t0);
	}
	mcp_interrupt_watch(true);
	for (;;) {
		struct mcr_error ended;
		bool all = true;
		int sig;

		for (size_t i = 0; i < ls->n; i++) {
			step(ls, &ls->run[i]);
			progress(&ls->run[i]);
			all &= ls->run[i].done;
		}
		if (all)
			break;
		mcp_sleep_ms(mcp_ready_poll_ms(mcp_now() - t0));
		if ((sig = mcp_interrupted())) {
			interrupted(ls, sig, NULL);
			break;
		}
		for (size_t i = 0; i < ls->n; i++)
			if (!ls->run[i].done && mcp_master_job_ended(&ls->run[i].m, &ended)) {
				interrupted(ls, 0, &ended);
				break;
			}
	}
	mcp_interrupt_watch(false);
}

/* ---- which lenders and nodes, and what the tasks are told ------------- */

char *mcp_srun_named_nodes(const char *args, size_t n, int cmd_argc)
{
	const char *words[4096], *last = NULL;
	size_t count = 0;

	for (const char *a = args; a < args + n && count < MCRI_ARRAY_LEN(words);
	     a += strnlen(a, (size_t)(args + n - a)) + 1)
		words[count++] = a;
	if (cmd_argc < 0 || (size_t)cmd_argc >= count)
		return NULL;
	/* words[0] is srun, the last cmd_argc the step's command */
	for (size_t i = 1; i < count - (size_t)cmd_argc; i++) {
		const char *w = words[i];

		if (!strncmp(w, "--nodelist=", 11))
			last = w + 11;
		else if ((!strcmp(w, "--nodelist") || !strcmp(w, "-w")) && i + 1 < count - (size_t)cmd_argc)
			last = words[++i];
		else if (!strncmp(w, "-w", 2) && w[2])
			last = w + 2;
	}
	return last && *last ? strdup(last) : NULL;
}

/* `list` names exactly `want` nodes: the step's, then (srun's own word) */
static bool names_the_step(const char *list, uint32_t want)
{
	char **hosts = NULL;
	struct mcr_error ignored;
	size_t n = 0;

	if (!list || !want || mcri_hostlist_expand(list, MCRI_HOSTLIST_MAX, &hosts, &ignored))
		return false;
	n = mcr_strv_len(hosts);
	mcr_strv_free(hosts);
	return n == want;
}

/* one more lender on one node */
static int add_run(struct lenders *ls, const struct mcri_lender *l, const char *node, struct mcr_error *err)
{
	struct run *grown, *x;

	for (size_t i = 0; i < ls->n; i++)
		if (ls->run[i].l == l && !strcmp(ls->run[i].node, node))
			return 0;
	if (!(grown = realloc(ls->run, (ls->n + 1) * sizeof(*grown))))
		return mcri_error_nomem(err);
	ls->run = grown;
	x = &ls->run[ls->n];
	memset(x, 0, sizeof(*x));
	x->l = l;
	snprintf(x->node, sizeof(x->node), "%s", node);
	snprintf(x->what, sizeof(x->what), "%s %s on %s", kind_words(l), l->name, node);
	if (mcri_lender_subject(l->name, node, x->subject, x->log_name, sizeof(x->log_name)))
		return mcri_error_set(
			err, MCR_EINVAL,
			"lender %s on node %s: the node's name would not make a file name of the job's directory (at most %d bytes with the lender's name, no '/')",
			l->name, node, MCRI_SUBJECT_MAX);
	ls->n++;
	return 0;
}

/* the nodes of a host list, each a run of l */
static int add_nodes(struct lenders *ls, const struct mcri_lender *l, const char *list, struct mcr_error *err)
{
	char **hosts = NULL;
	int rc = mcri_hostlist_expand(list, MCRI_HOSTLIST_MAX, &hosts, err);

	for (size_t i = 0; rc == 0 && hosts[i]; i++)
		rc = add_run(ls, l, hosts[i], err);
	mcr_strv_free(hosts);
	return rc;
}

/* `text` on one line without tabs (a line of MCP_LENDERS_VAR) */
static void one_line(char *text)
{
	for (char *c = text; *c; c++)
		if (*c == '\n' || *c == '\t' || *c == '\r')
			*c = ' ';
}

/* MCP_LENDERS_VAR: "1\n<dir>\n" then, for each lender the tasks wait for,
 * "L\t<name>\t<critical>\t<bound s>\t<node, or * for the task's own>\n",
 * and for each that failed here "F\t<name>\t<node>\t<why>\n" */
static int hand_over(struct lenders *ls, enum mcr_role role, struct mcr_error *err)
{
	struct mcri_buf b = { 0 };
	char *text;
	int rc;

	mcri_buf_printf(&b, "1\n%s\n", ls->job->dir->path);
	for (size_t i = 0; i < ls->r->nlenders; i++) {
		const struct mcri_lender *l = &ls->r->lenders[i];
		const char *node = "*";

		if (!mcri_lender_serves(l, role))
			continue;
		for (size_t k = 0; l->place == MCRI_PLACE_INFRA && k < ls->n; k++)
			if (ls->run[k].l == l)
				node = ls->run[k].node;
		mcri_buf_printf(&b, "L\t%s\t%d\t%d\t%s\n", l->name, l->critical ? 1 : 0,
				mcp_lender_timeout(ls->ps, l) + MCP_STARTER_GRACE, node);
	}
	/* within what a task reads (MCP_VAR_MAX): each cause cut at 1 KiB, and
	 * the failures past 48 KiB left out (a task reads those from the
	 * lender's own records, as it does a failure after this srun) */
	for (size_t i = 0; i < ls->n && b.len < 48 * 1024; i++) {
		if (!ls->run[i].failed)
			continue;
		one_line(ls->run[i].err.text);
		mcri_buf_printf(&b, "F\t%s\t%s\t%.1024s\n", ls->run[i].l->name, ls->run[i].node, ls->run[i].err.text);
	}
	if (!(text = mcri_buf_take(&b)))
		return mcri_error_nomem(err);
	if (strlen(text) >= MCP_VAR_MAX)
		rc = mcri_error_set(
			err, MCR_EINVAL,
			"the lenders role %s waits for take %zu bytes to tell its tasks (the recipe has %zu), more than the %d a task reads; run fewer lenders for it (services, or their roles:)",
			mcr_role_name(role), strlen(text), ls->r->nlenders, MCP_VAR_MAX - 1);
	else
		rc = setenv(MCP_LENDERS_VAR, text, 1) ? mcri_error_nomem(err) : 0;
	free(text);
	return rc;
}

int mcp_srun_lenders(const struct mcri_plugstack *ps, const struct mcr_recipe *r, enum mcr_role role,
		     const struct mcp_lender_job *job, struct mcr_error *err)
{
	struct lenders ls = { .ps = ps, .r = r, .job = job };
	char *step_nodes = NULL, *job_nodes = NULL;
	struct mcri_state master;
	struct mcr_error ignored;
	int rc = -1;

	for (size_t i = 0; i < r->nlenders; i++) {
		const struct mcri_lender *l = &r->lenders[i];

		if (!mcri_lender_serves(l, role))
			continue;
		if (l->place == MCRI_PLACE_INFRA) {
			/* the job's first node, where its master runs */
			if (mcri_state_read(job->dir, &master, &ignored) == 0 && master.infra_node[0]) {
				if (add_run(&ls, l, master.infra_node, err))
					goto out;
			} else if (!job_nodes && mcp_job_nodes(job->job_num, &job_nodes, err)) {
				goto out;
			} else {
				char **hosts = NULL;

				if (mcri_hostlist_expand(job_nodes, MCRI_HOSTLIST_MAX, &hosts, err) ||
				    (hosts[0] && add_run(&ls, l, hosts[0], err))) {
					mcr_strv_free(hosts);
					goto out;
				}
				mcr_strv_free(hosts);
			}
		} else if (l->place == MCRI_PLACE_ALL) {
			/* the job's nodes: srun's environment inside the allocation */
			if (!job_nodes && job->job_nodelist && !(job_nodes = strdup(job->job_nodelist))) {
				mcri_error_nomem(err);
				goto out;
			}
			if ((!job_nodes && mcp_job_nodes(job->job_num, &job_nodes, err)) ||
			    add_nodes(&ls, l, job_nodes, err))
				goto out;
		} else {
			/* the step's nodes: srun's --nodelist or the job's, when
			 * they are as many as the step has; else slurmctld's word
			 * (an RPC of each srun: a first wave's cost) */
			const char *known = names_the_step(job->nodelist, job->nnodes)       ? job->nodelist
					    : names_the_step(job->job_nodelist, job->nnodes) ? job->job_nodelist
											     : NULL;

			if (!step_nodes && known && !(step_nodes = strdup(known))) {
				mcri_error_nomem(err);
				goto out;
			}
			if ((!step_nodes && mcp_step_nodes(job->step_job, job->step, &step_nodes, err)) ||
			    add_nodes(&ls, l, step_nodes, err))
				goto out;
		}
	}
	if (!ls.n) {
		rc = 0;
		goto out;
	}
	elections(&ls);
	for (size_t i = 0; i < ls.n; i++) {
		struct run *x = &ls.run[i];

		if (!x->failed)
			continue;
		if (x->l->critical)
			slurm_error(MCP_NAME ": %s; this step's tasks of role %s there fail", x->err.text,
				    mcr_role_name(role));
		else
			slurm_info(MCP_NAME
				   ": %s; services[%s] has critical: false, so this step's tasks go on without it",
				   x->err.text, x->l->name);
	}
	rc = hand_over(&ls, role, err);
out:
	free(step_nodes);
	free(job_nodes);
	free(ls.run);
	return rc;
}
