/*
 * common.c - what every context does the same way: the one option table
 * (--mooncake-recipe, --mooncake-role) and where the recipe came from;
 * the recipe loaded and its role decided; the job's directory and the
 * records its tasks write there (workers/); how an error is printed;
 * whether a process is alive; the clock and a sleep.
 */

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plugin/common.h"

void mcp_error(const struct mcr_error *err)
{
	char msg[MCR_ERROR_MESSAGE_LENGTH];

	mcr_error_format(err, msg, sizeof(msg));
	slurm_error("%s", msg);
}

int mcp_load(const char *recipe_arg, const char *role_arg, bool inherited, struct mcr_recipe **recipe,
	     enum mcr_role *role, struct mcr_error *err)
{
	*role = MCR_ROLE_NONE;
	if (mcr_recipe_load_file(recipe_arg, NULL, recipe, err))
		return -1;
	/* advice shows where the user looks: srun's and sbatch's terminal */
	for (size_t i = 0; i < mcr_recipe_warning_count(*recipe); i++)
		slurm_info("%s", mcr_recipe_warning(*recipe, i));
	if (mcr_recipe_resolve_role(*recipe, role_arg, inherited, role, err)) {
		mcr_recipe_free(*recipe);
		*recipe = NULL;
		return -1;
	}
	return 0;
}

int mcp_job_id_parse(const char *name, const char *text, uint32_t *id, struct mcr_error *err)
{
	char shown[64];

	if (mcri_job_id_parse(text, id))
		return 0;
	return mcri_error_set(
		err, MCR_EINVAL,
		"%s is '%s', which is not a Slurm job id (a number from 1 to 4294967293): run the step inside the job's allocation, or unset %s",
		name, mcri_printable(text ? text : "", 40, shown, sizeof(shown)), name);
}

char *mcp_job_dir(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe, const char *job_id, uid_t uid,
		  const char *submit_dir, struct mcr_error *err)
{
	const char *tmpl = mcr_recipe_log_dir(recipe);
	char cwd[PATH_MAX];

	if (!tmpl)
		tmpl = ps->job_dir;
	/* a standalone srun's job, and its tasks, have no SLURM_SUBMIT_DIR
	 * before Slurm sets it: the directory srun runs in */
	if (!submit_dir || !*submit_dir) {
		if (!getcwd(cwd, sizeof(cwd))) {
			mcri_error_set(err, MCR_ESTATE, "cannot get the current directory: %s", strerror(errno));
			return NULL;
		}
		submit_dir = cwd;
	}
	return mcri_job_dir_path(tmpl, job_id, uid, submit_dir, err);
}

bool mcp_pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

void mcp_sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

double mcp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the one option table (--mooncake-recipe, --mooncake-role),
 * its callbacks, and where the recipe came from (the plugstack.conf
 * arguments are runtime/plugstack's, which mooncake-recipe reads too).
 */

/* The option values of this process's plugin stack: Slurm calls the
 * callbacks, which have no other place to put them. Freed in each
 * context's exit. */
static struct {
	char *recipe; /* --mooncake-recipe as given */
	char *role;   /* --mooncake-role as given */
} given;

/* Slurm passes the value again when it is inherited from sbatch/salloc
 * (environment first, command line second; in slurmstepd 22.05 calls every
 * callback twice): the last value wins, as on every Slurm command line. */
static int set_value(char **slot, const char *optarg, const char *option)
{
	char *copy;

	if (!optarg || !*optarg) {
		slurm_error(MCP_NAME ": --%s needs a value", option);
		return -1;
	}
	copy = strdup(optarg);
	if (!copy) {
		slurm_error(MCP_NAME ": out of memory");
		return -1;
	}
	free(*slot);
	*slot = copy;
	return 0;
}

static int recipe_cb(int val, const char *optarg, int remote)
{
	(void)val;
	(void)remote;
	return set_value(&given.recipe, optarg, "mooncake-recipe");
}

static int role_cb(int val, const char *optarg, int remote)
{
	(void)val;
	(void)remote;
	return set_value(&given.role, optarg, "mooncake-role");
}

static struct spank_option options[] = { { "mooncake-recipe", "PATH",
					   "[mooncake] srtctl-style recipe (schema 2) with a mooncake-master "
					   "service: start the job's Mooncake master and give this step's tasks "
					   "their Mooncake client config",
					   1, 0, recipe_cb },
					 { "mooncake-role", "ROLE",
					   "[mooncake] role of this step in the recipe: prefill, decode or agg "
					   "(default: the recipe's only role)",
					   1, 0, role_cb },
					 SPANK_OPTIONS_TABLE_END };

int mcp_options_register(spank_t sp)
{
	for (struct spank_option *o = options; o->name; o++) {
		spank_err_t rc = spank_option_register(sp, o);

		if (rc != ESPANK_SUCCESS) {
			slurm_error(MCP_NAME ": cannot register --%s: %s", o->name, spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

const char *mcp_option_recipe(void)
{
	return given.recipe;
}

const char *mcp_option_role(void)
{
	return given.role;
}

void mcp_options_free(void)
{
	free(given.recipe);
	free(given.role);
	given.recipe = given.role = NULL;
}

/* ---- where the recipe came from ---------------------------------------- */

#define INHERITED_VAR "SLURM_SPANK__SLURM_SPANK_OPTION_" MCP_NAME "_mooncake_recipe"

bool mcp_recipe_inherited(const char *recipe_arg, const char *(*getenv_fn)(void *, const char *, char *, size_t),
			  void *arg)
{
	char buf[PATH_MAX + 1], a[PATH_MAX], b[PATH_MAX];
	const char *v = getenv_fn(arg, INHERITED_VAR, buf, sizeof(buf));

	if (!v || !recipe_arg)
		return false;
	if (strcmp(v, recipe_arg) == 0)
		return true;
	/* "./r.yaml" and "r.yaml" name the same recipe */
	return realpath(v, a) && realpath(recipe_arg, b) && strcmp(a, b) == 0;
}

int mcp_role_without_recipe(void)
{
	if (!given.role)
		return 0;
	slurm_error(MCP_NAME
		    ": --mooncake-role=%s needs a recipe: add --mooncake-recipe=PATH (here or on sbatch/salloc)",
		    given.role);
	return -1;
}

/* ---- the first task of each node of a step with a master records
 * the node in the job's directory, <dir>/workers/<node>.<job>.<step>.<task>.json:
 * node, role, the address its Mooncake clients announce
 * (MOONCAKE_LOCAL_HOSTNAME, the same for every task of the node), step and
 * task. The master names each segment after that address, so
 * mooncake-recipe status and the pool's report join segments to nodes and
 * roles through these records. One file per node and step, not per task (a
 * file created on the job's shared file system costs far more than the
 * rest of task_init); written atomically without fsync (it is advice), as
 * the user; a record that cannot be written is a warning, never an error of
 * the task.
 */

void mcp_record_worker(spank_t sp, const struct mcri_jobdir *dir, const char *role, const char *address)
{
	struct mcri_worker w = { .job = 0 };
	struct mcr_error err = { 0 };
	char msg[MCR_ERROR_MESSAGE_LENGTH];
	uint32_t local = 0, job = 0, step = 0, task = 0;

	if (!address || !dir || !role)
		return; /* no pool of the job's own here */
	if (spank_get_item(sp, S_TASK_ID, &local) != ESPANK_SUCCESS || local != 0)
		return; /* the node's first task speaks for the node */
	gethostname(w.node, sizeof(w.node) - 1);
	/* the record's name is of these: none without them */
	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_GLOBAL_ID, &task) != ESPANK_SUCCESS) {
		slurm_info(
			MCP_NAME
			": warning: slurmstepd did not say this task's job, step or rank: its node and role are not recorded (mooncake-recipe status shows its segment without them)");
		return;
	}
	w.job = job;
	w.step = step;
	w.task = task;
	snprintf(w.role, sizeof(w.role), "%s", role);
	snprintf(w.address, sizeof(w.address), "%s", address);
	if (mcri_worker_write(dir, &w, &err) == 0)
		return;
	err.kind = MCR_WARNING;
	mcr_error_format(&err, msg, sizeof(msg));
	slurm_info("%s (mooncake-recipe status shows this task's segment without its node and role)", msg);
}
