/*
 * srun.c - the local context: srun on the submit host, as the user.
 *
 * init_post_opt   load and validate the recipe, decide the step's role:
 *                 errors show before any allocation or step exists. Inside
 *                 an allocation (SLURM_JOB_ID set), also prepare the job
 *                 (below) here, before srun creates the step: Slurm 22.05
 *                 leaves the step of an srun whose local_user_init fails
 *                 allocated for the rest of the job, so the job's later
 *                 sruns on those nodes would wait forever.
 * local_user_init a standalone srun's job exists only now: prepare it here
 *                 (a failure ends srun and with it the job it created).
 *
 * Preparing the job: start or join the job's master (master.c; one whose
 * step another srun launched is joined while it starts, and the tasks wait
 * for it in task_init), write the client configs into the job's directory
 * (unchanged files are left alone), and hand the tasks the role's
 * environment (the handover, plugin/handover.c, built below).
 */

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/container.h"
#include "plugin/common.h"
#include "plugin/handover.h"
#include "plugin/slurm.h"
#include "render/render.h"
#include "srun/outside.h"
#include "srun/srun.h"
#include "steps/election.h"
#include "steps/lender.h"
#include "steps/master.h"

/* this srun's state, from init to exit */
static struct {
	struct mcri_plugstack ps;
	struct mcr_recipe *recipe; /* loaded in init_post_opt */
	enum mcr_role role;
	char recipe_path[PATH_MAX];     /* its real path */
	bool active;                    /* this step has a role and a recipe */
	bool prepared;                  /* the job's files and master are done */
	uint32_t prepared_job;          /* ... for this job (from the environment) */
	char notes[4096];               /* srun -v lines, shown in local_user_init */
	struct mcp_container container; /* where the job's master would run */
	bool container_decided;
	bool het_outside; /* a heterogeneous job's component, from outside */
	/* an srun from outside the allocation: the job as slurmctld has it */
	bool outside;
	int outside_run;            /* its restart count, -1 unknown */
	char outside_dir[PATH_MAX]; /* its submit directory, "" unknown */
	long long outside_start;    /* its start, Unix seconds (0 unknown) */
	char outside_cluster[64];   /* its cluster ("" unknown) */
	/* the prepared job, for its lenders (lender.c) */
	char dir[PATH_MAX]; /* its Mooncake directory */
	uint32_t pool_job;  /* its pool's job (a heterogeneous job's leader) */
	int run;            /* its run, -1 unknown */
	char cluster[64];   /* which job of its id: its cluster ("" unknown), */
	long long start;    /* its start (Unix seconds, 0 unknown) */
} ctx;

/* A line for `srun -v`. srun applies -v only after init_post_opt, so the
 * lines wait for local_user_init, where every srun shows them. */
__attribute__((format(printf, 1, 2))) static void note(const char *fmt, ...)
{
	size_t len = strlen(ctx.notes);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(ctx.notes + len, sizeof(ctx.notes) - len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n + 1 >= sizeof(ctx.notes) - len)
		ctx.notes[len] = '\0'; /* no room: the line is dropped, never cut */
	else
		strcat(ctx.notes, "\n");
}

static void show_notes(void)
{
	char *save = NULL;

	for (char *l = strtok_r(ctx.notes, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		slurm_verbose("%s", l);
	ctx.notes[0] = '\0';
}

static int prepare_job(uint32_t job_id, uid_t uid);
static int decide_container(void);

int mcp_srun_init(spank_t sp, int ac, char **av)
{
	struct mcr_error err_buf = { 0 }, *err = &err_buf;

	memset(&ctx, 0, sizeof(ctx));
	ctx.role = MCR_ROLE_NONE;
	if (mcri_plugstack_parse(&ctx.ps, ac, av, err)) {
		mcp_error(err);
		return -1;
	}
	return mcp_options_register(sp);
}

void mcp_srun_exit(void)
{
	mcr_recipe_free(ctx.recipe);
	mcp_options_free();
	memset(&ctx, 0, sizeof(ctx));
}

static const char *srun_getenv(void *arg, const char *name, char *buf, size_t size)
{
	(void)arg;
	(void)buf;
	(void)size;
	return getenv(name);
}

int mcp_srun_post_opt(spank_t sp)
{
	struct mcr_error err_buf = { 0 }, *err = &err_buf;
	/* the job of the pool, in order: a heterogeneous job's leader (one
	 * pool for its components, the first component's), else the job */
	static const char *const id_vars[] = { "SLURM_HET_JOB_ID", "SLURM_JOB_ID_HET_GROUP_0", "SLURM_JOB_ID" };
	const char *recipe = mcp_option_recipe(), *role = mcp_option_role(), *id = NULL, *id_var = NULL;
	bool inherited;

	(void)sp;
	if (!recipe)
		return mcp_role_without_recipe();
	inherited = mcp_recipe_inherited(recipe, srun_getenv, NULL);
	if (inherited && !role) {
		/* a helper step of the job script (hostname, a benchmark): it
		 * gets nothing, and the recipe is not even read (it may run in
		 * another directory, where the relative path means nothing) */
		note(MCP_NAME
		     ": %s comes from the job (sbatch/salloc) and this step names no --mooncake-role: it gets nothing",
		     recipe);
		return 0;
	}
	if (mcp_load(recipe, role, inherited, &ctx.recipe, &ctx.role, err)) {
		mcp_error(err);
		return -1;
	}
	if (!realpath(recipe, ctx.recipe_path))
		snprintf(ctx.recipe_path, sizeof(ctx.recipe_path), "%s", recipe);
	ctx.active = true;
	note(MCP_NAME ": %s: role %s", recipe, mcr_role_name(ctx.role));
	/* inside an allocation: the job is known, prepare it before the step
	 * exists (a heterogeneous job has one pool, its leader's, the first
	 * component's) */
	for (size_t i = 0; i < sizeof(id_vars) / sizeof(id_vars[0]) && (!id || !*id); i++)
		id = getenv(id_var = id_vars[i]);
	if (!id || !*id) {
		/* srun --jobid from outside the allocation joins a job whose
		 * starter decided (user_init decides only when it starts the
		 * master, and asks slurmctld about the job, outside.c);
		 * a standalone srun's job, and so its pool, are new:
		 * refused before anything is allocated */
		if (mcp_outside_begin())
			return 0;
		return decide_container();
	}
	if (mcp_job_id_parse(id_var, id, &ctx.prepared_job, err)) {
		mcp_error(err);
		return -1;
	}
	ctx.prepared = true;
	return prepare_job(ctx.prepared_job, getuid());
}

/* job_id is one of the components of the heterogeneous job this srun's
 * environment names (SLURM_JOB_ID_HET_GROUP_<k>) */
static bool het_component(uint32_t job_id)
{
	struct mcr_error ignored;
	char name[64];
	uint32_t id;

	for (int k = 0; k < 128; k++) {
		const char *v;

		snprintf(name, sizeof(name), "SLURM_JOB_ID_HET_GROUP_%d", k);
		if (!(v = getenv(name)))
			return false;
		if (mcp_job_id_parse(name, v, &id, &ignored) == 0 && id == job_id)
			return true;
	}
	return false;
}

static int user_init(spank_t sp);

/* MCP_TASK_VAR in srun's environment (so in its tasks'): the handover of
 * `role` with the client configs in `dir`, the master at `master` (NULL:
 * the recipe's external one), the job's own pool's metadata server on
 * `metadata_host` (else NULL) and `metadata_port`; `starting_within` > 0:
 * the master is starting, each task waits for it so many seconds. 0, -1. */
static int hand_over(const struct mcr_recipe *recipe, enum mcr_role role, const char *dir, const char *master,
		     const char *metadata_host, int metadata_port, int starting_within, struct mcr_error *err);

static int lenders(spank_t sp);
#define CMDLINE_MAX 65536 /* srun's command line, read for its --nodelist */

int mcp_srun_user_init(spank_t sp)
{
	int rc = user_init(sp);

	if (rc == 0)
		rc = lenders(sp);
	show_notes();
	return rc;
}

/* the lenders this step's role needs, on its nodes (lender.c): its step
 * exists now, and slurmctld knows its nodes */
static int lenders(spank_t sp)
{
	struct mcr_error err_buf = { 0 }, *err = &err_buf;
	struct mcri_jobdir jd = { .fd = -1 };
	struct mcp_lender_job job;
	char job_id[32], *named = NULL, **argv = NULL;
	uint32_t step_job, step, nnodes = 0;
	bool any = false;
	int rc = -1, argc = -1, fd;

	for (size_t i = 0; ctx.active && ctx.recipe && i < ctx.recipe->nlenders; i++)
		any |= mcri_lender_serves(&ctx.recipe->lenders[i], ctx.role);
	if (!any || !ctx.dir[0])
		return 0;
	if (spank_get_item(sp, S_JOB_ID, &step_job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS) {
		slurm_error(MCP_NAME
			    ": cannot get this step's job and step ids, so its nodes' lenders cannot be started");
		return -1;
	}
	snprintf(job_id, sizeof(job_id), "%u", ctx.pool_job);
	if (mcri_jobdir_open(&jd, ctx.dir, getuid(), false, err))
		goto out;
	/* what srun itself says of its step's nodes: their count, its
	 * --nodelist before the step's command, the job's nodes */
	if (spank_get_item(sp, S_JOB_NNODES, &nnodes) != ESPANK_SUCCESS)
		nnodes = 0;
	if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS)
		argc = -1;
	if (argc >= 0 && (fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) >= 0) {
		char *cmdline = malloc(CMDLINE_MAX);
		ssize_t n = cmdline ? read(fd, cmdline, CMDLINE_MAX - 1) : -1;

		if (n > 0) {
			cmdline[n] = '\0';
			named = mcp_srun_named_nodes(cmdline, (size_t)n, argc);
		}
		free(cmdline);
		close(fd);
	}
	job = (struct mcp_lender_job){ .job_id = job_id,
				       .run = ctx.run,
				       .het = ctx.het_outside,
				       .dir = &jd,
				       .recipe = ctx.recipe_path,
				       .job_num = ctx.pool_job,
				       .cluster = ctx.cluster[0] ? ctx.cluster : NULL,
				       .start = ctx.start,
				       .step_job = step_job,
				       .step = step,
				       .nnodes = nnodes,
				       .nodelist = named,
				       .job_nodelist = ctx.outside ? NULL : getenv("SLURM_JOB_NODELIST") };
	rc = mcp_srun_lenders(&ctx.ps, ctx.recipe, ctx.role, &job, err);
out:
	if (rc)
		mcp_error(err);
	mcri_jobdir_close(&jd);
	free(named);
	return rc;
}

static int user_init(spank_t sp)
{
	uint32_t job_id;
	uid_t uid;
	spank_err_t rc;

	if (!ctx.active)
		return 0;
	if ((rc = spank_get_item(sp, S_JOB_ID, &job_id)) != ESPANK_SUCCESS) {
		slurm_error(MCP_NAME ": cannot get the job id: %s", spank_strerror(rc));
		return -1;
	}
	if (ctx.prepared) {
		/* srun --jobid=OTHER inside an allocation: the environment named
		 * another job than the one this step runs in (a component of a
		 * heterogeneous job is the same job) */
		if (job_id != ctx.prepared_job && !het_component(job_id)) {
			slurm_error(
				MCP_NAME
				": this step runs in job %u, but srun's environment is job %u's (SLURM_JOB_ID): run srun --jobid=%u outside that allocation, or unset SLURM_JOB_ID",
				job_id, ctx.prepared_job, job_id);
			return -1;
		}
		return 0;
	}
	/* srun runs as the job's user; S_JOB_UID is not that in local
	 * context on every release (Slurm 24.11 answers 99, its "nobody",
	 * before the step exists) */
	uid = getuid();
	ctx.prepared = true;
	/* srun --jobid from outside the allocation (or a standalone srun's
	 * new job): what the job's own sruns learn from their environment
	 * comes from slurmctld, never from where this srun runs: the job's
	 * submit directory, its run (a requeue is a new one), and for a
	 * component of a heterogeneous job its leader, whose pool it joins
	 * on the job's first node */
	{
		struct mcp_job_facts f;
		struct mcr_error ignored;

		ctx.outside = true;
		ctx.outside_run = -1;
		if (mcp_job_facts(job_id, &f, &ignored) == 0) {
			ctx.outside_run = f.restarts;
			snprintf(ctx.outside_dir, sizeof(ctx.outside_dir), "%s", f.work_dir);
			ctx.outside_start = f.start_time;
			snprintf(ctx.outside_cluster, sizeof(ctx.outside_cluster), "%s", f.cluster);
			if (f.het_leader && f.het_leader != job_id) {
				note(MCP_NAME ": job %u is a component of heterogeneous job %u: its pool", job_id,
				     f.het_leader);
				job_id = f.het_leader;
				ctx.het_outside = true;
			}
		}
	}
	return prepare_job(job_id, uid);
}

/* the job's first nodes and their addresses (mcp_job.find_nodes) */
static int find_nodes(void *arg, struct mcri_ha_member *nodes, int want, int *got, struct mcr_error *err)
{
	uint32_t job_id = *(const uint32_t *)arg;
	char *nodelist = NULL, **hosts = NULL;
	int rc = -1;

	*got = 0;
	if (mcp_job_nodes(job_id, &nodelist, err) || mcri_hostlist_expand(nodelist, MCRI_HOSTLIST_MAX, &hosts, err))
		goto out;
	for (; *got < want && hosts[*got]; (*got)++) {
		if (mcp_node_address(hosts[*got], nodes[*got].addr, sizeof(nodes[*got].addr), err))
			goto out;
		snprintf(nodes[*got].node, sizeof(nodes[*got].node), "%s", hosts[*got]);
	}
	rc = *got ? 0 : mcri_error_set(err, MCR_ESTATE, "job %u has no nodes", job_id);
out:
	mcr_strv_free(hosts);
	free(nodelist);
	return rc;
}

/* Put the client configs into the job's directory (mcri_jobdir_settle):
 * many sruns of a job do so at once, and only the owner of the pool
 * replaces a file; a running pool's files are never rewritten, so for an
 * srun that joined a pool a file that would change is an error (the
 * recipe was edited since). */
static int write_configs(const struct mcri_jobdir *dir, const struct mcr_file_list *files, bool joined,
			 struct mcr_error *err)
{
	size_t differs = 0, written = 0;
	int rc = mcri_jobdir_settle(dir, files, !joined, &differs, &written, err);

	if (rc == 1) {
		mcri_error_set(
			err, MCR_EINVAL,
			"the client config %s/%s of the job's running pool differs from what %s gives now (was the recipe edited after the pool started?); a running pool's files are never rewritten under its tasks: use the recipe as it was, or run the new one in a job of its own",
			dir->path, files->files[differs].name, ctx.recipe_path);
		return 1;
	}
	if (rc == 0 && written)
		note(MCP_NAME ": wrote %zu client config%s in %s", written, written == 1 ? "" : "s", dir->path);
	return rc;
}

/* mcp_job.configs: the starter's client configs, before it launches the
 * master step and again before it records the pool ready */
static int starter_configs(void *arg, const char *master, struct mcr_error *err)
{
	struct mcr_file_list files = { 0 };
	int rc = mcr_client_configs(ctx.recipe, master, &files, err) || write_configs(arg, &files, false, err) ? -1 : 0;

	mcr_file_list_free(&files);
	return rc;
}

/* Where the job's master would run (container.c): a container the cluster
 * cannot run it in refuses the srun, before anything is written or, for a
 * standalone srun, allocated. */
static int decide_container(void)
{
	struct mcr_error err_buf = { 0 }, *err = &err_buf;

	if (!mcr_recipe_has_master(ctx.recipe) || mcr_recipe_external_master(ctx.recipe))
		return 0;
	if (mcp_container_decide(&ctx.ps, ctx.recipe, NULL, &ctx.container, err)) {
		mcp_error(err);
		return -1;
	}
	if (ctx.container.note_verbose) {
		note("%s", ctx.container.note);
		ctx.container.note[0] = '\0';
	}
	ctx.container_decided = true;
	return 0;
}

/* the job's pool from this recipe is ready in dir, or another srun is
 * starting it: this srun joins it, or waits for it */
static bool pool_started(const struct mcri_jobdir *dir)
{
	struct mcri_state st;
	struct mcr_error ignored;

	return mcri_state_read(dir, &st, &ignored) == 0 &&
	       (st.phase == MCRI_PHASE_READY || st.phase == MCRI_PHASE_STARTING) &&
	       strcmp(st.recipe, ctx.recipe_path) == 0;
}

/* A count or a time Slurm puts in srun's environment (SLURM_RESTART_COUNT,
 * SLURM_JOB_START_TIME): its decimal digits up to `max`; 0 (unknown) when
 * it is missing or holds anything else. */
static long long env_number(const char *text, long long max)
{
	long long v = 0;
	const char *c = text;

	for (; c && *c >= '0' && *c <= '9'; c++) {
		if (v > (max - (*c - '0')) / 10)
			return 0;
		v = v * 10 + (*c - '0');
	}
	return text && c != text && !*c ? v : 0;
}

static int prepare_job(uint32_t job_id, uid_t uid)
{
	struct mcr_error err_buf = { 0 }, *err = &err_buf;
	struct mcr_file_list files = { 0 };
	struct mcri_state st = { 0 };
	struct mcri_jobdir jd = { .fd = -1 };
	char job_id_s[32], *dir = NULL, *master = NULL;
	bool opened, starting = false;
	bool starts = mcr_recipe_has_master(ctx.recipe) && !mcr_recipe_external_master(ctx.recipe);
	const struct mcp_container *container = NULL;
	const char *restarts, *start;
	struct mcp_job job;
	int rv = -1, rc;

	snprintf(job_id_s, sizeof(job_id_s), "%u", job_id);
	dir = mcp_job_dir(&ctx.ps, ctx.recipe, job_id_s, uid,
			  ctx.outside && ctx.outside_dir[0] ? ctx.outside_dir : getenv("SLURM_SUBMIT_DIR"), err);
	if (!dir)
		goto fail;
	/* where the master would run: a container the cluster cannot run it
	 * in refuses the srun before anything is written. An srun that joins
	 * the job's running pool, or waits while another srun starts it (that
	 * srun decided), needs no answer: the look for pyxis, srun --help,
	 * cost each srun of a first wave of 256 a third of its CPU time.
	 * Should it start the master after all (the starter died), it
	 * decides then (master.c). */
	opened = mcri_jobdir_open(&jd, dir, uid, false, err) == 0;
	if (starts && !ctx.container_decided && !(opened && pool_started(&jd)) && decide_container())
		goto out;
	if (ctx.container_decided)
		container = &ctx.container;
	/* the job's directory is the job's: made 0700, its owner and mode
	 * checked, every file in it used through it (runtime/jobdir) */
	if (!opened && mcri_jobdir_open(&jd, dir, uid, true, err))
		goto fail;
	/* the job's run: a requeued job's sruns see its restart count, an
	 * srun from outside the allocation asks slurmctld; which job of its
	 * id it is, where the environment says (Slurm 23.02 on) */
	restarts = getenv("SLURM_RESTART_COUNT");
	snprintf(ctx.dir, sizeof(ctx.dir), "%s", jd.path);
	ctx.pool_job = job_id;
	ctx.run = ctx.outside ? ctx.outside_run : (int)env_number(restarts, INT_MAX);
	start = getenv("SLURM_JOB_START_TIME");
	job = (struct mcp_job){ .job_num = job_id,
				.job_id = job_id_s,
				.run = ctx.run,
				.het = ctx.het_outside,
				.dir = &jd,
				.recipe = ctx.recipe_path,
				.find_nodes = find_nodes,
				.find_nodes_arg = &job_id,
				.container = container,
				.configs = starter_configs,
				.configs_arg = &jd,
				.join_starting = true,
				.cluster = ctx.outside ? ctx.outside_cluster : getenv("SLURM_CLUSTER_NAME"),
				.start = ctx.outside ? ctx.outside_start : env_number(start, LLONG_MAX) };
	snprintf(ctx.cluster, sizeof(ctx.cluster), "%s", job.cluster ? job.cluster : "");
	ctx.start = job.start;
	if (starts && !(master = malloc(MCP_MASTER_ADDRESS_MAX))) {
		mcri_error_nomem(err);
		goto fail;
	}
	for (;;) {
		if (starts && (mcp_ensure_master(&ctx.ps, ctx.recipe, &job, &st, err) ||
			       mcp_master_address(&st, master, MCP_MASTER_ADDRESS_MAX, err)))
			goto fail;
		starting = st.phase == MCRI_PHASE_STARTING;
		/* an external master's address comes from the recipe */
		if (mcr_client_configs(ctx.recipe, master, &files, err))
			goto fail;
		rc = write_configs(&jd, &files, starts && st.starter_pid != (long)getpid(), err);
		if (rc == 1 && starting) {
			/* the master moved to other ports while this srun joined
			 * it (the starter wrote other configs): wait for ready */
			mcr_file_list_free(&files);
			job.join_starting = false;
			continue;
		}
		if (rc)
			goto fail;
		break;
	}
	if (starting)
		note(MCP_NAME
		     ": joined job %s's mooncake_master while it starts on %s (%s); the tasks wait until it is ready",
		     job_id_s, st.infra_node, st.infra_addr);
	if (hand_over(ctx.recipe, ctx.role, jd.path, master, starts ? st.infra_addr : NULL, st.ports.metadata,
		      starting ? mcp_ready_timeout(&ctx.ps, ctx.recipe) + MCP_STARTER_GRACE : 0, err))
		goto fail;
	rv = 0;
	goto out;
fail:
	mcp_error(err);
out:
	mcri_jobdir_close(&jd);
	mcr_file_list_free(&files);
	free(master);
	free(dir);
	return rv;
}

/* ---- what an srun hands every task of its step, computed
 * once (encoded by handover.c, applied by stepd.c): the role's
 * variables with a mark for each node's own address, TRT-LLM's client
 * config for a node that needs one of its own, vLLM's per-GPU file as a
 * template with each GPU's HCA name, for a master that is still
 * starting, the address each task waits for, and pyxis's container of the
 * step (container.c).
 */

/* For vLLM's device_names_by_gpu: the per-GPU file as a template (the
 * file of GPU 0, its device_name a placeholder) and each GPU's HCA name as
 * the file escapes it, taken from the files the library renders. */
static int gpu_handover(const struct mcr_recipe *recipe, const char *master, const char *dir, struct mcp_handover *h,
			struct mcr_error *err)
{
	static const char key[] = "\n  \"device_name\": \"";
	size_t n = mcr_recipe_per_gpu_configs(recipe);

	h->gpu_names = calloc(n + 1, sizeof(*h->gpu_names));
	if (!h->gpu_names || !(h->gpu_dir = strdup(dir)))
		return mcri_error_nomem(err);
	for (int i = 0; i < (int)n; i++) {
		struct mcr_file f;
		const char *v, *e;

		if (mcr_vllm_gpu_config(recipe, master, &i, 1, &f, err))
			return -1;
		v = strstr(f.text, key);
		for (e = v ? v + strlen(key) : NULL; e && *e && *e != '"'; e++)
			if (*e == '\\' && e[1])
				e++;
		if (!v || !e || !*e) {
			mcri_error_set(err, MCR_ESTATE, "no device_name in %s", f.name);
			mcr_file_free(&f);
			return -1;
		}
		v += strlen(key);
		h->gpu_names[i] = strndup(v, (size_t)(e - v));
		if (i == 0)
			h->gpu_template =
				mcri_asprintf("%.*s%s%s", (int)(v - f.text), f.text, MCP_DEVICE_PLACEHOLDER, e);
		mcr_file_free(&f);
		if (!h->gpu_names[i] || !h->gpu_template)
			return mcri_error_nomem(err);
		h->gpu_count++;
	}
	return 0;
}

static int hand_over(const struct mcr_recipe *recipe, enum mcr_role role, const char *dir, const char *master,
		     const char *metadata_host, int metadata_port, int starting_within, struct mcr_error *err)
{
	struct mcp_handover h = { 0 };
	/* the node's address is each task's own: srun renders a mark for it */
	struct mcr_env_input in = { .master_address = master,
				    .metadata_host = metadata_host,
				    .config_dir = dir,
				    .local_hostname = h.mark,
				    .metadata_port = metadata_port };
	const char *ext = mcr_recipe_external_master(recipe);
	struct mcr_file node = { 0 };
	char *text = NULL, *host = NULL;
	int rc = -1;

	if (mcp_handover_mark(&h, err) || mcr_worker_env(recipe, role, &in, &h.env, err))
		goto out;
	/* TRT-LLM reads the node's address only from its file: a file per node
	 * for the nodes whose own guess is no use (stepd.c decides) */
	if (mcr_recipe_engine(recipe) == MCR_ENGINE_TRTLLM && mcr_recipe_role_reads_config(recipe, role)) {
		if (mcr_trtllm_node_config(recipe, role, master, h.mark, &node, err))
			goto out;
		if (node.name && !(h.node_dir = strdup(dir))) {
			mcri_error_nomem(err);
			goto out;
		}
		h.node_name = node.name;
		h.node_template = node.text;
		node.name = node.text = NULL;
	}
	if (ext) { /* each task's own address is the one toward it */
		if (mcri_host_port_parse(ext, &host, NULL, err) || mcri_resolve_ipv4(host, h.peer, sizeof(h.peer), err))
			goto out;
	} else if (metadata_host) {
		/* the job's own pool: its tasks record themselves (common.c) */
		snprintf(h.peer, sizeof(h.peer), "%s", metadata_host);
		h.role = strdup(mcr_role_name(role));
		h.dir = strdup(dir);
		/* a master that is starting: each task waits for it */
		h.starting_within = starting_within;
		if (starting_within) {
			h.starting = strdup(master);
			h.starting_metadata = mcri_asprintf("%s:%d", metadata_host, metadata_port);
		}
		if (!h.role || !h.dir || (starting_within && (!h.starting || !h.starting_metadata))) {
			mcri_error_nomem(err);
			goto out;
		}
	}
	/* what each task lends: its node's memory is checked in task_init */
	{
		char set[320];

		if (mcri_role_lends(recipe, role, &h.lend, set, sizeof(set), err) ||
		    (h.lend > 0 && !(h.lend_set = strdup(set)))) {
			if (h.lend > 0 && !h.lend_set)
				mcri_error_nomem(err);
			goto out;
		}
	}
	if (mcr_recipe_per_gpu_configs(recipe) && mcr_recipe_role_reads_config(recipe, role) &&
	    gpu_handover(recipe, master, dir, &h, err))
		goto out;
	/* the tasks in pyxis's container keep the plugin's variables */
	if (mcp_pyxis_hand_over(&h, err) || !(text = mcp_handover_encode(&h, err)))
		goto out;
	if (setenv(MCP_TASK_VAR, text, 1) != 0) {
		mcri_error_nomem(err);
		goto out;
	}
	rc = 0;
out:
	free(text);
	free(host);
	mcr_file_free(&node);
	mcp_handover_free(&h);
	return rc;
}
