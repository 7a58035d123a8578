/*
 * stepd.c - the remote context, one slurmstepd per step and node.
 *
 * init      (root) parse plugstack.conf and register the options; a problem
 *           is kept and raised in task_init, because a failing init in the
 *           batch step drains the node
 * task_init (the user, per task, just before exec)
 *           - a role step: set the variables srun computed and handed over
 *             (handover.c; no recipe is read here), this node's
 *             MOONCAKE_LOCAL_HOSTNAME, and for vLLM's device_names_by_gpu
 *             the per-GPU client config of the task's GPUs; check that the
 *             task can read its client config where it runs, and that
 *             pyxis's container mounts the job's directory and keeps the
 *             plugin's values (container.c);
 *           - a role step: wait for a master that another srun is starting,
 *             and for the memory lenders of its node; check that the
 *             memory each task lends fits the node;
 *           - the master step: claim its ports on this node (ports.c),
 *             prove them its master's and keep the master running
 *             (keep.c: this task stays as its keeper); a lender's step the
 *             same with its lender.
 * task_exit (root, as slurmstepd reaps a task) the master step's keeper
 *           has ended, by itself or killed: its proof says the pool has
 *           ended (written by a child that is the job's user).
 *           Nothing for the batch, extern and interactive steps, nothing
 *           for a step without a role. Errors go to the task's stderr and
 *           return -1 (never a positive ESPANK code: 22.05 tests `< 0`).
 */

#include <grp.h>
#include <signal.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "container/container.h"
#include "model/model.h"
#include "plugin/child.h"
#include "plugin/common.h"
#include "plugin/handover.h"
#include "plugin/slurm.h"
#include "stepd/stepd.h"
#include "steps/ha.h"
#include "steps/keep.h"
#include "steps/master.h"
#include "steps/ports.h"
#include "steps/step.h"

/* this slurmstepd's state, from init to exit */
static struct {
	struct mcri_plugstack ps;
	bool ps_ok;
	struct mcr_error ps_err; /* deferred to task_init */
	/* the task's mount namespace before any plugin's task_init (in
	 * task_init_privileged: a job container, job_container/tmpfs, is
	 * joined already, pyxis's not yet); st_ino 0: unknown */
	struct stat mnt;
} ctx;

int mcp_stepd_init(spank_t sp, int ac, char **av)
{
	memset(&ctx, 0, sizeof(ctx));
	/* slurmstepd's, until task_init_privileged looks again in the task */
	if (stat("/proc/self/ns/mnt", &ctx.mnt) != 0)
		ctx.mnt.st_ino = 0;
	ctx.ps_ok = mcri_plugstack_parse(&ctx.ps, ac, av, &ctx.ps_err) == 0;
	if (mcp_options_register(sp) && ctx.ps_ok) {
		ctx.ps_ok = false;
		mcri_error_set(&ctx.ps_err, MCR_ESTATE, "cannot register the plugin's options in slurmstepd");
	}
	return 0;
}

void mcp_stepd_exit(void)
{
	mcp_options_free();
	memset(&ctx, 0, sizeof(ctx));
}

/* A plugin before this one in plugstack.conf has put the task in a
 * container (pyxis joins its mount namespace in its own task_init): the
 * task's mount namespace is not the one it had in task_init_privileged. */
static bool entered_container(void)
{
	struct stat now;

	return ctx.mnt.st_ino && stat("/proc/self/ns/mnt", &now) == 0 &&
	       (now.st_ino != ctx.mnt.st_ino || now.st_dev != ctx.mnt.st_dev);
}

static const char *stepd_getenv(void *arg, const char *name, char *buf, size_t size)
{
	return spank_getenv((spank_t)arg, name, buf, (int)size) == ESPANK_SUCCESS ? buf : NULL;
}

static int parse_ids(const char *list, int *ids, size_t max, size_t *count, const char *var, struct mcr_error *err)
{
	char buf[1024], *save = NULL, *tok;

	*count = 0;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);

		if (end == tok || *end || v < 0 || v > 4096 || *count == max)
			return mcri_error_set(
				err, MCR_ESTATE,
				"%s='%s' does not list GPU indexes; device_names_by_gpu needs the task's physical GPU numbers",
				var, list);
		ids[(*count)++] = (int)v;
	}
	return 0;
}

/*
 * The physical GPUs of this task. CUDA_VISIBLE_DEVICES is what the task
 * uses; without device constraints Slurm sets it to physical indexes (all of
 * them among SLURM_STEP_GPUS), with ConstrainDevices it is renumbered from 0
 * and entry i stands for the i-th GPU of SLURM_STEP_GPUS.
 */
static int task_gpus(spank_t sp, int *ids, size_t max, size_t *count, struct mcr_error *err)
{
	char cvd[1024], step[1024];
	int step_ids[256];
	size_t nstep = 0;
	bool all_physical = true;

	*count = 0;
	if (!stepd_getenv(sp, "CUDA_VISIBLE_DEVICES", cvd, sizeof(cvd)) || !cvd[0])
		return 0;
	if (parse_ids(cvd, ids, max, count, "CUDA_VISIBLE_DEVICES", err))
		return -1;
	if (!stepd_getenv(sp, "SLURM_STEP_GPUS", step, sizeof(step)) || !step[0])
		return 0;
	if (parse_ids(step, step_ids, 256, &nstep, "SLURM_STEP_GPUS", err))
		return -1;
	for (size_t i = 0; i < *count; i++) {
		bool found = false;

		for (size_t j = 0; j < nstep; j++)
			found |= ids[i] == step_ids[j];
		all_physical &= found;
	}
	if (all_physical)
		return 0;
	for (size_t i = 0; i < *count; i++) {
		if ((size_t)ids[i] >= nstep)
			return mcri_error_set(
				err, MCR_ESTATE,
				"CUDA_VISIBLE_DEVICES='%s' does not match SLURM_STEP_GPUS='%s'; cannot tell the task's physical GPUs for device_names_by_gpu",
				cvd, step);
		ids[i] = step_ids[ids[i]];
	}
	return 0;
}

static int set_var(spank_t sp, const char *name, const char *value)
{
	spank_err_t rc = spank_setenv(sp, name, value, 1);

	if (rc != ESPANK_SUCCESS) {
		slurm_error(MCP_NAME ": cannot set %s: %s", name, spank_strerror(rc));
		return -1;
	}
	return 0;
}

/* the per-GPU client config of this task's GPUs, written as the user */
static int gpu_config(spank_t sp, const struct mcp_handover *h, const struct mcri_jobdir *dir, char **path,
		      struct mcr_error *err)
{
	struct mcr_file f = { 0 };
	int ids[256], rc = -1;
	size_t n;

	if (task_gpus(sp, ids, 256, &n, err) || mcp_handover_gpu_file(h, ids, n, &f, err) ||
	    mcri_jobdir_write(dir, f.name, f.text, strlen(f.text), true, err))
		goto out;
	if (!(*path = mcri_asprintf("%s/%s", dir->path, f.name))) {
		mcri_error_nomem(err);
		goto out;
	}
	rc = 0;
out:
	mcr_file_free(&f);
	return rc;
}

/* TRT-LLM's client config for this node, written as the user */
static int node_config(const struct mcp_handover *h, const struct mcri_jobdir *dir, const char *addr, char **path,
		       struct mcr_error *err)
{
	char *name = mcp_handover_fill(h, h->node_name, addr), *text = mcp_handover_fill(h, h->node_template, addr);
	int rc = -1;

	if (!name || !text) {
		mcri_error_nomem(err);
		goto out;
	}
	/* the node's other tasks write the same file: written once */
	if (!mcri_jobdir_same(dir, name, text) && mcri_jobdir_write(dir, name, text, strlen(text), true, err))
		goto out;
	if (!(*path = mcri_asprintf("%s/%s", dir->path, name))) {
		mcri_error_nomem(err);
		goto out;
	}
	rc = 0;
out:
	free(name);
	free(text);
	return rc;
}

#define WATCH_READY_MS 250 /* the state, its directory watched: a bound all the same */
#define POLL_READY_MS 100  /* ... unwatched: a network file system, the usual case */
#define LOOK_LOCK_S 1      /* the starter's lock (touched every second) */
#define GONE_AFTER_S 2     /* after a waiting srun would take over */

bool mcp_starter_gone(const struct mcri_jobdir *jd, const char *subject, const struct mcri_state *st,
		      struct mcri_lock_seen *seen, double *looked, double now)
{
	struct mcri_lock lock;

	if (now - *looked < LOOK_LOCK_S && seen->attempt == st->attempt)
		return false;
	*looked = now;
	mcri_lock_read_of(jd, subject, st->attempt, &lock);
	mcri_lock_seen_update(seen, jd, st->attempt, &lock, now);
	if (!mcri_lock_seen_gone(seen, &lock, now, GONE_AFTER_S))
		return false;
	mcri_lock_read_of(jd, subject, st->attempt + 1, &lock);
	if (lock.mtime >= 0) { /* an srun takes over: its attempt comes */
		seen->changed = now;
		return false;
	}
	return true;
}

/* A step whose srun joined the job's master while it started (srun.c):
 * this task waits until the job's state says ready, at most
 * h->starting_within seconds from now. A master that became ready on
 * other ports than srun handed over (a port was taken meanwhile, and the
 * starter tried the next ones) is followed: h's variables and templates
 * name where it is ready (the starter rewrote the client configs there
 * before it recorded ready). A master that failed, whose starter is gone
 * with no srun taking over, or not ready in time fails the task, saying
 * why; its command never runs. */
static int wait_for_master(const struct mcri_jobdir *jd, struct mcp_handover *h, struct mcr_error *err)
{
	struct mcri_watch w = MCRI_WATCH_NONE;
	struct mcri_lock_seen seen = { 0 };
	struct mcri_state st;
	struct mcr_error ignored;
	char master[MCP_MASTER_ADDRESS_MAX] = "", metadata[300];
	double now = mcp_now(), end = now + h->starting_within, looked = 0;
	bool watched = mcri_jobdir_watch(jd, &w) == 0; /* before the first look */
	int rc = 1;

	while (rc > 0) {
		if (mcri_state_read(jd, &st, &ignored) != 0)
			st.phase = MCRI_PHASE_NONE;
		now = mcp_now();
		if (st.phase == MCRI_PHASE_READY && mcri_state_master(&st, master, sizeof(master)) &&
		    strcmp(master, h->starting) == 0) {
			rc = 0;
		} else if (st.phase == MCRI_PHASE_READY && !st.ha.masters) {
			snprintf(metadata, sizeof(metadata), "%s:%d", st.infra_addr, st.ports.metadata);
			slurm_verbose(
				MCP_NAME
				": the job's mooncake_master became ready at %s, not at %s where it was starting when srun launched this step (a port was taken meanwhile): this task follows it",
				master, h->starting);
			rc = mcp_handover_follow(h, master, metadata, err);
		} else if (st.phase == MCRI_PHASE_READY) {
			rc = mcri_error_set(
				err, MCR_ESTATE,
				"the job's pool became ready as an HA pool (%.256s), not at %.256s where its master was starting when srun launched this step: run this step again",
				master, h->starting);
		} else if (st.phase == MCRI_PHASE_FAILED) {
			/* worded as a waiting srun words it (master.c) */
			rc = mcri_error_set(
				err, MCR_ESTATE,
				"the job's mooncake_master could not be started (another srun of this job tried): %.1024s",
				st.message);
		} else if (st.phase == MCRI_PHASE_STARTING && mcp_starter_gone(jd, NULL, &st, &seen, &looked, now)) {
			rc = mcri_error_set(
				err, MCR_ESTATE,
				"the srun that was starting the job's mooncake_master (%.256s) is gone: no process holds its lock %s/" MCRI_LOCK_FILE
				", it has not changed for %.0f s, and no srun has taken over; run this step again (it takes over)",
				h->starting, jd->path, st.attempt, now - seen.changed);
		} else if (now >= end) {
			rc = mcri_error_set(
				err, MCR_ESTATE,
				"timed out after %d s waiting for the job's mooncake_master (%.256s) that another srun of this job is starting (%s%s); see %s/%s, and if the infra node is just slow raise readiness.timeout_seconds of the mooncake-master service (or ready_timeout= in plugstack.conf)",
				h->starting_within, h->starting, st.phase ? "state: " : "",
				st.phase ? mcri_phase_name(st.phase) : "no readable state file", jd->path,
				MCRI_MASTER_LOG);
		} else if (watched) {
			mcri_jobdir_wait(&w, WATCH_READY_MS);
		} else {
			mcp_sleep_ms(POLL_READY_MS);
		}
	}
	mcri_jobdir_unwatch(&w);
	return rc;
}

/* a role step: what srun handed over, completed for this node and task */
static int role_task(spank_t sp, const char *text, struct mcr_error *err)
{
	struct mcp_handover h;
	struct mcri_jobdir jd = { .fd = -1 };
	char local[64] = "", *path = NULL, *config_dir = NULL;
	const char *config, *dir, *slash;
	bool placeholder = false, node_file;
	int rc = -1;

	if (mcp_handover_decode(text, &h, err))
		return -1;
	/* a segment no node of this size can lend fails here, not in the engine */
	if (mcp_task_lend_check(sp, &h, err))
		goto out;
	dir = h.dir ? h.dir : h.gpu_dir ? h.gpu_dir : h.node_dir;
	/* a container (pyxis's) that does not mount the job's directory, or
	 * that would set the image's values over the plugin's: the mount or
	 * names to add (container.c) */
	config = mcr_env_get(&h.env, "MOONCAKE_CONFIG_PATH");
	slash = config ? strrchr(config, '/') : NULL;
	if (slash && !(config_dir = strndup(config, slash > config ? (size_t)(slash - config) : 1))) {
		mcri_error_nomem(err);
		goto out;
	}
	if (mcp_task_container_check(sp, &h, dir, config_dir, entered_container(), err))
		goto out;
	/* the job's directory, checked as srun checked it (runtime/jobdir) */
	if (dir && mcri_jobdir_open(&jd, dir, getuid(), false, err))
		goto out;
	if (h.starting && wait_for_master(&jd, &h, err))
		goto out;
	for (size_t i = 0; i < h.env.count; i++)
		placeholder |= strcmp(h.env.vars[i].value, h.mark) == 0;
	/* TRT-LLM announces gethostbyname(gethostname()) unless its file says
	 * otherwise: this node gets a file of its own when that is not the
	 * address of interface= or is of no use to the other nodes */
	node_file = h.node_template && (ctx.ps.interface[0] || mcri_own_name_is_loopback());
	if ((placeholder || node_file) && mcri_local_address(ctx.ps.interface, h.peer, local, sizeof(local), err))
		goto out;
	if (h.gpu_dir && gpu_config(sp, &h, &jd, &path, err))
		goto out;
	if (node_file && node_config(&h, &jd, local, &path, err))
		goto out;
	for (size_t i = 0; i < h.env.count; i++) {
		const char *v = h.env.vars[i].value;

		if (!strcmp(v, h.mark))
			v = local;
		else if (path && !strcmp(h.env.vars[i].name, "MOONCAKE_CONFIG_PATH"))
			v = path;
		if (set_var(sp, h.env.vars[i].name, v))
			goto out;
	}
	/* the task must be able to read its client config where it runs
	 * (container.c): a job directory it cannot see fails it here, with
	 * the mount to add, rather than deep inside the engine */
	config = path ? path : mcr_env_get(&h.env, "MOONCAKE_CONFIG_PATH");
	if (config && mcp_task_config_check(sp, config, err))
		goto out;
	mcp_record_worker(sp, h.dir ? &jd : NULL, h.role,
			  local[0] ? local : mcr_env_get(&h.env, "MOONCAKE_LOCAL_HOSTNAME"));
	rc = 0;
out:
	mcri_jobdir_close(&jd);
	free(path);
	free(config_dir);
	mcp_handover_free(&h);
	return rc;
}

/* the master step: claim the ports srun chose, on this node; the registry
 * of reservations is the one of this port space (network namespace). Only
 * for a step as the plugin launches its master step: its guard names the
 * same ports, and it runs one task on this node (the variables are the
 * user's to set: any other step that sets them fails, and makes root
 * reserve nothing) */
static int master_task(spank_t sp, const char *text, struct mcr_error *err)
{
	struct mcr_ports ports;
	struct mcp_guard *g = NULL;
	char guard[PATH_MAX + 64];
	int etcd[2], rc = -1;
	char ns[64] = "", registry[128];
	ssize_t n = readlink("/proc/self/ns/net", ns, sizeof(ns) - 1);
	uint32_t job_id, tasks = 0;
	uid_t uid;

	if (!ctx.ps_ok) {
		*err = ctx.ps_err;
		return -1;
	}
	if (!(g = calloc(1, sizeof(*g))))
		return mcri_error_nomem(err);
	if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &tasks) != ESPANK_SUCCESS) {
		mcri_error_set(err, MCR_ESTATE, "the master step cannot get its job id, user and tasks");
		goto out;
	}
	if (mcp_ports_parse(text, &ports, etcd, err))
		goto out;
	if (!stepd_getenv(sp, MCP_GUARD_VAR, guard, sizeof(guard)) || mcp_guard_parse(guard, 0, g, err) ||
	    g->proof.ports.rpc != ports.rpc || g->proof.ports.metadata != ports.metadata ||
	    g->proof.ports.metrics != ports.metrics || tasks != 1) {
		mcri_error_set(
			err, MCR_EINVAL,
			"%s='%s' is set on a step the plugin did not launch as a job's master step (its own variables name no such step, or it runs %u tasks on this node): the variable is the plugin's alone; unset it",
			MCP_PORTS_VAR, text, tasks);
		goto out;
	}
	ns[n > 0 ? n : 0] = '\0';
	mcp_port_registry(strtoul(ns + strcspn(ns, "0123456789"), NULL, 10), registry, sizeof(registry));
	rc = mcp_ports_claim(&ports, etcd, &ctx.ps, job_id, uid, registry, err);
out:
	free(g);
	return rc;
}

/* An HA pool's master on this node (ha.c): which member it is,
 * its master's RPC address (mooncake_master --tryfromenv=rpc_address),
 * and its etcd binary: etcd= of plugstack.conf, a bare name looked up on
 * the job's PATH */
static int ha_part(spank_t sp, const char *value, struct mcp_guard *g, struct mcr_error *err)
{
	char node[256] = "", path[PATH_MAX] = "";
	const char *name = ctx.ps.etcd;

	if (!ctx.ps_ok) {
		*err = ctx.ps_err;
		return -1;
	}
	if (!stepd_getenv(sp, "SLURMD_NODENAME", node, sizeof(node)))
		gethostname(node, sizeof(node) - 1);
	if (mcp_ha_parse(value, node, &g->ha, err))
		return -1;
	g->ha.quota = ctx.ps.etcd_quota;
	g->proof.member = g->ha.self;
	g->proof.ha = true;
	if (set_var(sp, "FLAGS_rpc_address", g->ha.ha.member[g->ha.self].addr))
		return mcri_error_set(err, MCR_ESTATE, "the master step cannot give its master its address");
	if (!strchr(name, '/') && stepd_getenv(sp, "PATH", path, sizeof(path))) {
		char *save = NULL;

		for (char *d = strtok_r(path, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			char candidate[PATH_MAX];

			if (snprintf(candidate, sizeof(candidate), "%s/%s", d, name) < (int)sizeof(candidate) &&
			    access(candidate, X_OK) == 0) {
				snprintf(g->ha.etcd, sizeof(g->ha.etcd), "%s", candidate);
				return 0;
			}
		}
	}
	snprintf(g->ha.etcd, sizeof(g->ha.etcd), "%s", name);
	return 0;
}

/* this node is one of an HA pool's etcd members (its keeper runs it) */
static bool runs_etcd(const struct mcp_guard *g)
{
	return g->ha.ha.masters && g->ha.self < g->ha.ha.etcd_members;
}

/* this node's etcd member of the HA pool, its data under the job's TMPDIR */
static int etcd_member(spank_t sp, struct mcp_guard *g, struct mcr_error *err)
{
	char tmp[PATH_MAX] = "";

	if (!stepd_getenv(sp, "TMPDIR", tmp, sizeof(tmp)))
		tmp[0] = '\0';
	return mcp_ha_etcd_start(&g->ha, g->dir, tmp, g->bound, err);
}

/* The master step's task, still root: it claims its ports in root's
 * registry of the node (ports.c), where no user can plant a reservation. */
/* The task is of a step the job's user started with srun (its id into
 * *step_id): not the batch, extern or interactive step */
static bool job_step(spank_t sp, uint32_t *step_id)
{
	return spank_get_item(sp, S_JOB_STEPID, step_id) == ESPANK_SUCCESS && *step_id != SLURM_BATCH_SCRIPT &&
	       *step_id != SLURM_EXTERN_CONT && *step_id != SLURM_INTERACTIVE_STEP;
}

int mcp_stepd_task_init_privileged(spank_t sp)
{
	struct mcr_error err_buf = { 0 }, *err = &err_buf;
	char value[64], *lender = NULL;
	uint32_t step_id;
	int rc = 0;

	/* where the task is before any plugin's task_init (entered_container) */
	if (stat("/proc/self/ns/mnt", &ctx.mnt) != 0)
		ctx.mnt.st_ino = 0;
	if (!job_step(sp, &step_id))
		return 0;
	/* a lender step: its port, claimed as the master's are (keep.c) */
	if (!(lender = malloc(MCP_VAR_MAX))) {
		rc = mcri_error_nomem(err);
	} else if (stepd_getenv(sp, MCP_LENDER_VAR, lender, MCP_VAR_MAX)) {
		if (!ctx.ps_ok) {
			*err = ctx.ps_err;
			rc = -1;
		} else {
			rc = mcp_lender_task_privileged(sp, lender, &ctx.ps, err);
		}
	} else if (stepd_getenv(sp, MCP_PORTS_VAR, value, sizeof(value))) {
		spank_unsetenv(sp, MCP_PORTS_VAR);
		rc = master_task(sp, value, err);
	}
	if (rc)
		mcp_error(err);
	free(lender);
	return rc;
}

/* In a child of slurmstepd that has become the job's user: the proof of
 * the master step's master on this node says its pool has ended. */
static int record_end(const char *guard, const char *ha, const char *node, uint32_t step_id)
{
	struct mcr_error err;
	struct mcp_guard g;
	struct mcri_proof p;
	struct mcri_jobdir jd = { .fd = -1 };
	int rc = -1;

	if (mcp_guard_parse(guard, step_id, &g, &err) || (ha && mcp_ha_parse(ha, node, &g.ha, &err)))
		return -1;
	g.proof.member = g.ha.self;
	if (mcri_jobdir_open(&jd, g.dir, getuid(), false, &err) == 0) {
		/* what the keeper last said, or, when it said nothing yet, the
		 * attempt's bare proof; never over another attempt's or another
		 * step's (a master step that ends late, after a newer one) */
		if (mcri_proof_read_member(&jd, g.proof.member, &p, &err) != 0)
			p = g.proof;
		if (p.attempt == g.proof.attempt && p.step == step_id) {
			p.restarting = false;
			p.ended = true;
			rc = mcri_proof_write(&jd, &p, &err);
		} else {
			rc = 0;
		}
	}
	mcri_jobdir_close(&jd);
	return rc;
}

#define RECORD_END_S 10 /* the longest the record of a master step's end may take */

int mcp_stepd_task_exit(spank_t sp)
{
	char *guard = NULL, *ha = NULL, node[256] = "", probe[1];
	uint32_t step_id;
	uid_t uid;
	gid_t gid, *groups = NULL; /* slurmstepd's */
	pid_t pid;
	int status = 0, ngroups = 0;
	bool lender, reaped = false;

	/* every task of every step ends here: only the master step's and a
	 * lender step's (their keepers) do more */
	lender = spank_getenv(sp, MCP_LENDER_VAR, probe, sizeof(probe)) != ESPANK_ENV_NOEXIST;
	if ((!lender && spank_getenv(sp, MCP_GUARD_VAR, probe, sizeof(probe)) == ESPANK_ENV_NOEXIST) ||
	    !job_step(sp, &step_id) || spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS || !(guard = malloc(MCP_VAR_MAX)) ||
	    !(ha = malloc(MCP_VAR_MAX)) ||
	    !stepd_getenv(sp, lender ? MCP_LENDER_VAR : MCP_GUARD_VAR, guard, MCP_VAR_MAX))
		goto out;
	if (lender || !stepd_getenv(sp, MCP_HA_VAR, ha, MCP_VAR_MAX)) {
		free(ha);
		ha = NULL;
	}
	if (!stepd_getenv(sp, "SLURMD_NODENAME", node, sizeof(node)))
		gethostname(node, sizeof(node) - 1);
	/* the user's groups too: a job directory may be reachable through one */
	if (spank_get_item(sp, S_JOB_SUPPLEMENTARY_GIDS, &groups, &ngroups) != ESPANK_SUCCESS || ngroups < 0) {
		groups = NULL;
		ngroups = 0;
	}
	/* never as root on the user's files: a child that is the user, with
	 * none of slurmstepd's descriptors */
	if ((pid = fork()) < 0)
		goto out;
	if (pid == 0) {
		mcp_close_from(3);
		if (setgroups((size_t)ngroups, groups) != 0 || setgid(gid) != 0 || setuid(uid) != 0 ||
		    getuid() != uid || geteuid() != uid)
			_exit(3);
		_exit((lender ? mcp_lender_record_end(guard, step_id) : record_end(guard, ha, node, step_id)) ? 1 : 0);
	}
	/* bounded (a child stuck on a file server is killed, and left behind
	 * when even that does not end it, rather than stall slurmstepd) */
	for (int i = 0; i < (RECORD_END_S + 1) * 10 && !reaped; i++) {
		if (i == RECORD_END_S * 10)
			kill(pid, SIGKILL);
		if (!(reaped = waitpid(pid, &status, WNOHANG) == pid))
			mcp_sleep_ms(100);
	}
	if (!reaped || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		slurm_error(
			MCP_NAME
			": %s: the end of the job's %s step %u could not be recorded in its directory as uid %u (%s); its sruns see the end by the step alone: make the job's directory reachable by its user from this node",
			node, lender ? "lender" : "master", step_id, (unsigned)uid,
			!reaped || !WIFEXITED(status) ? "it took longer than 10 s"
			: WEXITSTATUS(status) == 3    ? "the child could not become the user"
						      : "the directory or its proof cannot be written");
out:
	free(guard);
	free(ha);
	return 0;
}

/* What srun hands over is read whole: a variable longer than a task reads
 * (MCP_VAR_MAX) would look unset. `buf` holds MCP_VAR_MAX bytes. */
static int handed_over_fit(spank_t sp, char *buf, struct mcr_error *err)
{
	static const char *const vars[] = { MCP_TASK_VAR, MCP_PORTS_VAR,   MCP_GUARD_VAR,
					    MCP_HA_VAR,   MCP_LENDERS_VAR, MCP_LENDER_VAR };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (spank_getenv(sp, vars[i], buf, MCP_VAR_MAX) == ESPANK_NOSPACE)
			return mcri_error_set(
				err, MCR_EINVAL,
				"%s is longer than the %d bytes a task reads: srun's plugin hands over less, so it was set by hand or by a plugin of another version; unset it, or install this node's version on srun's host",
				vars[i], MCP_VAR_MAX - 1);
	return 0;
}

int mcp_stepd_task_init(spank_t sp)
{
	struct mcr_error err_buf = { 0 }, *err = &err_buf;
	char *value = malloc(MCP_VAR_MAX);
	const char *recipe = mcp_option_recipe(), *role = mcp_option_role();
	struct mcp_guard *g = NULL;
	uint32_t step_id;
	int rc = 0;

	if (!value) {
		mcri_error_nomem(err);
		mcp_error(err);
		return -1;
	}
	if (!job_step(sp, &step_id))
		goto out;
	if ((rc = handed_over_fit(sp, value, err)) != 0)
		goto out;
	/* a lender step: its keeper (keep.c) */
	if (stepd_getenv(sp, MCP_LENDER_VAR, value, MCP_VAR_MAX)) {
		if (!ctx.ps_ok) {
			*err = ctx.ps_err;
			rc = -1;
		} else {
			char in[PATH_MAX];

			rc = mcp_lender_task(sp, value, &ctx.ps, step_id,
					     !entered_container() &&
						     !stepd_getenv(sp, "SLURM_CONTAINER", in, sizeof(in)),
					     err);
		}
		/* the master step: its guard, (when task_init_privileged did not
	 * run) its ports, an HA pool's part of this node, then its keeper
	 * (keep.c), which a node's etcd member needs too */
	} else if (stepd_getenv(sp, MCP_GUARD_VAR, value, MCP_VAR_MAX)) {
		if (!(g = calloc(1, sizeof(*g)))) {
			rc = mcri_error_nomem(err);
			goto out;
		}
		rc = mcp_guard_parse(value, step_id, g, err);
		if (!rc && !ctx.ps_ok) {
			*err = ctx.ps_err;
			rc = -1;
		}
		g->hang = ctx.ps.hang_timeout;
		/* pyxis after this plugin enters its container in the master's
		 * task, not in its keeper (keep.c); Slurm's --container
		 * starts one for each master, after this task_init */
		g->rejoin = !entered_container() && !stepd_getenv(sp, "SLURM_CONTAINER", value, MCP_VAR_MAX);
		if (!rc && stepd_getenv(sp, MCP_HA_VAR, value, MCP_VAR_MAX)) {
			spank_unsetenv(sp, MCP_HA_VAR);
			rc = ha_part(sp, value, g, err);
		}
		if (!rc && stepd_getenv(sp, MCP_PORTS_VAR, value, MCP_VAR_MAX)) {
			spank_unsetenv(sp, MCP_PORTS_VAR);
			rc = master_task(sp, value, err);
		}
		/* the guard's variable is the master step's task's alone */
		spank_unsetenv(sp, MCP_GUARD_VAR);
		if (!rc && runs_etcd(g))
			rc = etcd_member(sp, g, err);
		if (!rc)
			rc = mcp_master_keep(g, err);
	} else if (stepd_getenv(sp, MCP_PORTS_VAR, value, MCP_VAR_MAX)) {
		spank_unsetenv(sp, MCP_PORTS_VAR);
		rc = master_task(sp, value, err);
	} else if (stepd_getenv(sp, MCP_TASK_VAR, value, MCP_VAR_MAX)) {
		spank_unsetenv(sp, MCP_TASK_VAR);
		if (!ctx.ps_ok) {
			*err = ctx.ps_err;
			rc = -1;
		} else {
			rc = role_task(sp, value, err);
		}
		/* then the lenders of its node (stepd.c) */
		if (!rc && stepd_getenv(sp, MCP_LENDERS_VAR, value, MCP_VAR_MAX)) {
			char node[256] = "";

			spank_unsetenv(sp, MCP_LENDERS_VAR);
			if (!stepd_getenv(sp, "SLURMD_NODENAME", node, sizeof(node)))
				gethostname(node, sizeof(node) - 1);
			rc = mcp_task_wait_lenders(value, node, err);
		}
	} else if (recipe && (role || !mcp_recipe_inherited(recipe, stepd_getenv, sp))) {
		/* a step with a role, but srun handed nothing over */
		rc = mcri_error_set(
			err, MCR_ESTATE,
			"srun handed this task no Mooncake environment (%s is not set): is spank_mooncake.so in the plugstack.conf of the host srun ran on, and of the same version?",
			MCP_TASK_VAR);
	}
	/* else a step without a role: nothing */
out:
	if (rc)
		mcp_error(err);
	free(g);
	free(value);
	return rc;
}

/* ---- a role's task waits for the lenders of its node
 * (lender.h), in task_init, before its command runs: srun handed it, in
 * MCP_LENDERS_VAR, which lenders its role needs (on its own node, or an
 * infra lender on the job's first node) and which of them srun already
 * saw fail. The task reads each lender's records in the job's directory
 * (checked as srun checked it) until its state says ready, at most the
 * lender's readiness bound (and the time a starter takes to stop one that
 * was not ready): ready, and its step's keeper has not ended it, is
 * lending. A lender that failed, ended, whose starter is gone with no srun
 * taking over, or that is not ready in time fails the task with the
 * lender's own cause and its log's last lines; with critical: false the
 * task says so on its stderr and runs all the same.
 */

#define WATCH_MS 250 /* the records, the directory watched: a bound all the same */
#define POLL_MS 100  /* ... unwatched */

/* one lender this task waits for */
struct wanted {
	char name[MCRI_LENDER_NAME_MAX + 1];
	char node[256];
	char subject[MCRI_SUBJECT_MAX + 1];
	char log[NAME_MAX + 1];
	bool critical;
	int bound;          /* seconds */
	const char *failed; /* srun's word that it failed (into the value), or NULL */
	bool done;
};

/* the field after *p up to a tab or the line's end (NUL-terminated in
 * place); NULL at the line's end */
static char *field(char **p)
{
	char *start = *p;
	size_t len;

	if (!start)
		return NULL;
	len = strcspn(start, "\t\n");
	if (start[len] == '\t') {
		start[len] = '\0';
		*p = start + len + 1;
	} else {
		start[len] = '\0';
		*p = NULL;
	}
	return start;
}

/* Why lender w is not lending (0: it is; 1: not yet) */
static int look(const struct mcri_jobdir *jd, struct wanted *w, struct mcri_lock_seen *seen, double *looked, double now,
		double end, struct mcr_error *err)
{
	struct mcri_state st;
	struct mcri_proof p;
	struct mcr_error ignored;
	char tail[2000] = "", log[PATH_MAX + NAME_MAX + 2];

	snprintf(log, sizeof(log), "%s/%s", jd->path, w->log);
	if (mcri_state_read_of(jd, w->subject, &st, &ignored) != 0)
		st.phase = MCRI_PHASE_NONE;
	if (st.phase == MCRI_PHASE_READY) {
		if (mcri_proof_of_subject(jd, w->subject, st.attempt, &p) == 0 && p.ended) {
			mcp_log_tail(log, tail, sizeof(tail));
			return mcri_error_set(err, MCR_ESTATE,
					      "the lender %s on %s has ended (%.400s); its log %s ends:%s", w->name,
					      w->node, p.ended_why[0] ? p.ended_why : "its step has ended", log,
					      tail[0] ? tail : " (empty)");
		}
		return 0;
	}
	if (st.phase == MCRI_PHASE_FAILED)
		return mcri_error_set(err, MCR_ESTATE, "the lender %s on %s could not be started: %.1024s", w->name,
				      w->node, st.message);
	if (st.phase == MCRI_PHASE_STARTING && mcp_starter_gone(jd, w->subject, &st, seen, looked, now))
		return mcri_error_set(
			err, MCR_ESTATE,
			"the srun that was starting the lender %s on %s is gone, and no srun has taken over; run this step again (it takes over)",
			w->name, w->node);
	if (now >= end) {
		mcp_log_tail(log, tail, sizeof(tail));
		return mcri_error_set(
			err, MCR_ESTATE,
			"timed out after %d s waiting for the lender %s on %s (%s); if it is just slow raise readiness.timeout_seconds of services[%s]; its log %s ends:%s",
			w->bound, w->name, w->node, st.phase ? mcri_phase_name(st.phase) : "nothing started it",
			w->name, log, tail[0] ? tail : " (empty)");
	}
	return 1;
}

int mcp_task_wait_lenders(const char *value, const char *node, struct mcr_error *err)
{
	char *text = strdup(value), *lines, *dir, *save = NULL, *l;
	struct wanted *w = NULL;
	struct mcri_jobdir jd = { .fd = -1 };
	struct mcri_watch watch = MCRI_WATCH_NONE;
	struct mcri_lock_seen *seen = NULL;
	double *looked = NULL, t0 = mcp_now();
	size_t n = 0, left;
	bool watched = false, tried = false;
	int rc = -1;

	if (!text) {
		mcri_error_nomem(err);
		goto out;
	}
	if (strncmp(text, "1\n", 2) != 0 || !(dir = text + 2) || !(lines = strchr(dir, '\n'))) {
		mcri_error_set(err, MCR_EINVAL,
			       "%s is not what srun hands a task: is the plugin on srun's host of the same version?",
			       MCP_LENDERS_VAR);
		goto out;
	}
	*lines++ = '\0';
	/* the lenders, then srun's word on those that failed */
	for (l = strtok_r(lines, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *p = l, *kind = field(&p);

		if (kind && !strcmp(kind, "L")) {
			char *name = field(&p), *critical = field(&p), *bound = field(&p), *on = field(&p);
			struct wanted *grown;
			long secs;

			if (!on)
				continue;
			if (!(grown = realloc(w, (n + 1) * sizeof(*w)))) {
				mcri_error_nomem(err);
				goto out;
			}
			w = grown;
			memset(&w[n], 0, sizeof(w[n]));
			snprintf(w[n].name, sizeof(w[n].name), "%s", name);
			snprintf(w[n].node, sizeof(w[n].node), "%s", strcmp(on, "*") ? on : node);
			w[n].critical = critical && strcmp(critical, "0") != 0;
			/* seconds, within what srun hands over */
			secs = bound ? strtol(bound, NULL, 10) : 1;
			w[n].bound = secs < 1 ? 1 : secs > MCP_WAIT_MAX ? MCP_WAIT_MAX : (int)secs;
			if (mcri_lender_subject(w[n].name, w[n].node, w[n].subject, w[n].log, sizeof(w[n].log)))
				continue;
			n++;
		} else if (kind && !strcmp(kind, "F")) {
			char *name = field(&p), *on = field(&p), *why = field(&p);

			for (size_t i = 0; name && on && why && i < n; i++)
				if (!strcmp(w[i].name, name) && !strcmp(w[i].node, on))
					w[i].failed = why;
		}
	}
	rc = 0;
	if (!n)
		goto out;
	rc = -1;
	if (!(seen = calloc(n, sizeof(*seen))) || !(looked = calloc(n, sizeof(*looked)))) {
		mcri_error_nomem(err);
		goto out;
	}
	if (mcri_jobdir_open(&jd, dir, getuid(), false, err))
		goto out;
	/* a watch only once a look found one not ready (a first wave's tasks
	 * mostly find theirs ready: no inotify instance each) */
	for (left = n;;) {
		double now = mcp_now();

		for (size_t i = 0; i < n; i++) {
			struct mcr_error why;
			int r;

			if (w[i].done)
				continue;
			r = w[i].failed ? mcri_error_set(&why, MCR_ESTATE, "%s", w[i].failed)
					: look(&jd, &w[i], &seen[i], &looked[i], now, t0 + w[i].bound, &why);
			if (r > 0)
				continue;
			w[i].done = true;
			left--;
			if (r == 0)
				continue;
			if (w[i].critical) {
				mcri_error_set(err, MCR_ESTATE,
					       "this task on %s needs the lender %s on %s (critical: true): %s", node,
					       w[i].name, w[i].node, why.text);
				goto out;
			}
			fprintf(stderr,
				"mooncake: %s; services[%s] has critical: false, so this task runs without it\n",
				why.text, w[i].name);
		}
		if (!left)
			break;
		if (!tried) {
			/* begun before the next look: no change is missed */
			tried = true;
			watched = mcri_jobdir_watch(&jd, &watch) == 0;
			continue;
		}
		if (watched)
			mcri_jobdir_wait(&watch, WATCH_MS);
		else
			mcp_sleep_ms(POLL_MS);
	}
	rc = 0;
out:
	mcri_jobdir_unwatch(&watch);
	mcri_jobdir_close(&jd);
	free(looked);
	free(seen);
	free(w);
	free(text);
	return rc;
}

/* ---- task_init of a role step: the memory its tasks lend to the pool
 * fits in the node. Each task's engine mounts a segment of the size srun
 * handed over (mcri_role_lends: the recipe's global segment as the engine
 * reads it); the step's tasks on this node together cannot lend more than
 * the node's memory. check cannot know the node (a 4096 TiB segment is a
 * size TRT-LLM reads); here it is known, and the task fails with the
 * numbers before its engine starts, instead of the engine failing later
 * (TRT-LLM: "this node cannot afford"; the others when the segment is
 * allocated, or the OOM killer).
 */

#define GIB 1073741824.0

int mcp_task_lend_check(spank_t sp, const struct mcp_handover *h, struct mcr_error *err)
{
	struct sysinfo si;
	uint32_t tasks = 1;
	unsigned long long mem;
	char node[256] = "";

	if (h->lend <= 0 || sysinfo(&si) != 0)
		return 0; /* nothing lent, or the node's memory unknown: no check */
	mem = (unsigned long long)si.totalram * (si.mem_unit ? si.mem_unit : 1);
	if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &tasks) != ESPANK_SUCCESS || tasks == 0)
		tasks = 1;
	if ((unsigned long long)h->lend <= mem / tasks)
		return 0;
	gethostname(node, sizeof(node) - 1);
	return mcri_error_set(
		err, MCR_EINVAL,
		"each task of this step lends a segment of %lld bytes (%.1f GiB, %s) to the job's pool, and its %u task%s on %s would lend %.1f GiB in all, more than the node's memory, %llu bytes (%.1f GiB): no node lends more than it has; give each task a share of its node's memory there (the node's memory divided by the tasks on it, less what the engine itself needs)",
		h->lend, (double)h->lend / GIB, h->lend_set ? h->lend_set : "global_segment_size", tasks,
		tasks == 1 ? "" : "s", node, (double)h->lend / GIB * tasks, mem, (double)mem / GIB);
}
