/*
 * slurmstepd.c - the remote context, one slurmstepd per step and node.
 *
 * init      (root) parse plugstack.conf and register the options; a problem
 *           is kept and raised in task_init, because a failing init in the
 *           batch step drains the node
 * task_init (the user, per task, just before exec) read the recipe, decide
 *           the role, and spank_setenv the role's Mooncake variables
 *           (doc/recipe-reference.md §8).
 *           Nothing for the batch, extern and interactive steps, nothing
 *           for a step without a role. Errors go to the task's stderr and
 *           return -1 (never a positive ESPANK code: 22.05 tests `< 0`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "plugin.h"

int mcp_stepd_init(spank_t sp, int ac, char **av)
{
	memset(&mcp_ctx, 0, sizeof(mcp_ctx));
	mcp_ctx.role = MCR_ROLE_NONE;
	if (mcp_parse_config(&mcp_ctx.config, ac, av, &mcp_ctx.config_error) == 0)
		mcp_ctx.config_ok = true;
	if (mcp_register_options(sp) && mcp_ctx.config_ok) {
		mcp_ctx.config_ok = false;
		mcri_error_set(&mcp_ctx.config_error, MCR_ESTATE,
			       "cannot register the plugin's options in slurmstepd");
	}
	return 0;
}

static const char *stepd_getenv(void *arg, const char *name, char *buf, size_t size)
{
	return spank_getenv((spank_t)arg, name, buf, (int)size) == ESPANK_SUCCESS ?
		       buf : NULL;
}

static int parse_ids(const char *list, int *ids, size_t max, size_t *count,
		     const char *var, struct mcr_error *err)
{
	char buf[1024], *save = NULL, *tok;

	*count = 0;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);

		if (end == tok || *end || v < 0 || v > 4096 || *count == max)
			return mcri_error_set(err, MCR_ESTATE,
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
static int task_gpus(spank_t sp, int *ids, size_t max, size_t *count,
		     struct mcr_error *err)
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
			return mcri_error_set(err, MCR_ESTATE,
					      "CUDA_VISIBLE_DEVICES='%s' does not match SLURM_STEP_GPUS='%s'; cannot tell the task's physical GPUs for device_names_by_gpu",
					      cvd, step);
		ids[i] = step_ids[ids[i]];
	}
	return 0;
}

static int set_env(spank_t sp, const struct mcr_env *env)
{
	for (size_t i = 0; i < env->count; i++) {
		spank_err_t rc = spank_setenv(sp, env->vars[i].name, env->vars[i].value, 1);

		if (rc != ESPANK_SUCCESS) {
			slurm_error(MCP_NAME ": cannot set %s: %s", env->vars[i].name,
				    spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

int mcp_stepd_task_init(spank_t sp)
{
	struct mcr_error err = { 0 };
	struct mcr_recipe *recipe = NULL;
	struct mcr_env env = { 0 };
	struct mcr_file gpu_file = { 0 };
	struct mcp_master_state st = { 0 };
	char job_id_s[32], buf[PATH_MAX], master_addr[128] = "", local[64] = "";
	char path[PATH_MAX];
	const char *recipe_path;
	bool inherited;
	char peer[64] = "";
	char *dir = NULL;
	enum mcr_role role;
	uint32_t job_id, step_id;
	uid_t uid;
	int rv = -1;

	if (!mcp_ctx.recipe_arg)
		return 0;
	if (spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS ||
	    step_id == SLURM_BATCH_SCRIPT || step_id == SLURM_EXTERN_CONT ||
	    step_id == SLURM_INTERACTIVE_STEP)
		return 0;
	if (!mcp_ctx.config_ok) {
		mcp_error(&mcp_ctx.config_error);
		return -1;
	}
	inherited = mcp_recipe_inherited(mcp_ctx.recipe_arg, stepd_getenv, sp);
	if (inherited && !mcp_ctx.role_arg)
		return 0; /* a step without a role under the job's recipe */
	/* the recipe srun checked, wherever this task runs */
	recipe_path = stepd_getenv(sp, MCP_RECIPE_PATH_VAR, path, sizeof(path));
	if (recipe_path)
		spank_unsetenv(sp, MCP_RECIPE_PATH_VAR);
	if (!recipe_path || !*recipe_path)
		recipe_path = mcp_ctx.recipe_arg;
	if (mcp_load(recipe_path, mcp_ctx.role_arg, inherited, &recipe, &role, &err))
		goto fail;
	if (role == MCR_ROLE_NONE) {
		rv = 0;
		goto out;
	}
	if (stepd_getenv(sp, "SLURM_HET_JOB_ID", buf, sizeof(buf)) && *buf) {
		job_id = (uint32_t)strtoul(buf, NULL, 10);
	} else if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS) {
		mcri_error_set(&err, MCR_ESTATE, "cannot get the job id");
		goto fail;
	}
	snprintf(job_id_s, sizeof(job_id_s), "%u", job_id);
	if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS) {
		mcri_error_set(&err, MCR_ESTATE, "cannot get the job's user");
		goto fail;
	}
	dir = mcp_job_dir(&mcp_ctx.config, recipe, job_id_s, uid,
			  stepd_getenv(sp, "SLURM_SUBMIT_DIR", buf, sizeof(buf)), &err);
	if (!dir)
		goto fail;

	if (mcr_recipe_has_master(recipe)) {
		const char *ext = mcr_recipe_external_master(recipe);

		if (ext) {
			char *host = NULL;
			int bad = mcri_host_port_parse(ext, &host, NULL, &err) ||
				  mcp_resolve_ipv4(host, peer, sizeof(peer), &err);

			free(host);
			if (bad)
				goto fail;
			snprintf(master_addr, sizeof(master_addr), "%s", ext);
		} else {
			if (mcp_state_read(dir, &st, &err)) {
				char why[sizeof(err.text)];

				snprintf(why, sizeof(why), "%s", err.text);
				mcri_error_set(&err, MCR_ESTATE,
					       "%s; srun writes it when it starts the job's master: is spank_mooncake.so in the plugstack.conf of the node srun ran on, and is %s shared with this node?",
					       why, dir);
				goto fail;
			}
			if (strcmp(st.state, "ready") != 0) {
				mcri_error_set(&err, MCR_ESTATE,
					       "the job's mooncake_master is not ready (%s/%s says '%s'%s%s); the srun of this step should have waited for it",
					       dir, MCP_STATE_FILE, st.state, st.message[0] ? ": " : "",
					       st.message);
				goto fail;
			}
			snprintf(peer, sizeof(peer), "%s", st.infra_addr);
			snprintf(master_addr, sizeof(master_addr), "%s:%d", st.infra_addr,
				 MCR_MASTER_PORT);
		}
		if (mcp_local_address(mcp_ctx.config.interface, peer, local, sizeof(local), &err))
			goto fail;
		if (mcr_recipe_per_gpu_configs(recipe) &&
		    mcr_recipe_role_reads_config(recipe, role)) {
			int ids[256];
			size_t n;

			if (task_gpus(sp, ids, 256, &n, &err) ||
			    mcr_vllm_gpu_config(recipe, master_addr, ids, n, &gpu_file, &err) ||
			    mcr_write_file_atomic(dir, gpu_file.name, gpu_file.text,
						  strlen(gpu_file.text), &err))
				goto fail;
		}
	}
	{
		struct mcr_env_input in = { master_addr[0] ? master_addr : NULL, peer, dir,
					    gpu_file.name, local[0] ? local : NULL };

		if (mcr_worker_env(recipe, role, &in, &env, &err))
			goto fail;
	}
	if (set_env(sp, &env))
		goto out;
	mcp_record_worker(sp, recipe, dir, role, &env); /* workers.c: for status and the report */
	rv = 0;
	goto out;
fail:
	mcp_error(&err);
out:
	mcr_env_free(&env);
	mcr_file_free(&gpu_file);
	mcr_recipe_free(recipe);
	free(dir);
	return rv;
}
