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
 * Preparing the job: find the infra node, write the client configs into
 * the job's directory, make sure the job's master runs (master.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin.h"

static int prepare_job(uint32_t job_id, uid_t uid);

static const char *srun_getenv(void *arg, const char *name, char *buf, size_t size)
{
	(void)arg;
	(void)buf;
	(void)size;
	return getenv(name);
}

int mcp_srun_post_opt(spank_t sp)
{
	struct mcr_error err = { 0 };
	bool inherited;

	(void)sp;
	if (!mcp_ctx.recipe_arg)
		return mcp_role_without_recipe();
	inherited = mcp_recipe_inherited(mcp_ctx.recipe_arg, srun_getenv, NULL);
	if (inherited && !mcp_ctx.role_arg) {
		/* a helper step of the job script (hostname, a benchmark): it
		 * gets nothing, and the recipe is not even read (it may run in
		 * another directory, where the relative path means nothing) */
		slurm_verbose(MCP_NAME ": %s comes from the job (sbatch/salloc) and this step names no --mooncake-role: it gets nothing",
			      mcp_ctx.recipe_arg);
		return 0;
	}
	if (mcp_load(mcp_ctx.recipe_arg, mcp_ctx.role_arg, inherited,
		     &mcp_ctx.recipe, &mcp_ctx.role, &err)) {
		mcp_error(&err);
		return -1;
	}
	mcp_ctx.active = true;
	{
		char abs[PATH_MAX];

		if (realpath(mcp_ctx.recipe_arg, abs) && setenv(MCP_RECIPE_PATH_VAR, abs, 1) != 0) {
			slurm_error(MCP_NAME ": cannot set %s: out of memory", MCP_RECIPE_PATH_VAR);
			return -1;
		}
	}
	slurm_verbose(MCP_NAME ": %s: role %s", mcp_ctx.recipe_arg,
		      mcr_role_name(mcp_ctx.role));
	/* inside an allocation: the job is known, prepare it before the step
	 * exists (the job id of a heterogeneous job is its leader's) */
	{
		const char *id = getenv("SLURM_HET_JOB_ID");

		if (!id || !*id)
			id = getenv("SLURM_JOB_ID");
		if (id && *id) {
			mcp_ctx.prepared = true;
			mcp_ctx.prepared_job = (uint32_t)strtoul(id, NULL, 10);
			return prepare_job(mcp_ctx.prepared_job, getuid());
		}
	}
	return 0;
}

int mcp_srun_user_init(spank_t sp)
{
	uint32_t job_id;
	uid_t uid;
	spank_err_t rc;

	if (!mcp_ctx.active)
		return 0;
	if ((rc = spank_get_item(sp, S_JOB_ID, &job_id)) != ESPANK_SUCCESS) {
		slurm_error(MCP_NAME ": cannot get the job id: %s", spank_strerror(rc));
		return -1;
	}
	if (mcp_ctx.prepared) {
		const char *het = getenv("SLURM_HET_JOB_ID");

		/* srun --jobid=OTHER inside an allocation: the environment named
		 * another job than the one this step runs in */
		if ((!het || !*het) && job_id != mcp_ctx.prepared_job) {
			slurm_error(MCP_NAME ": this step runs in job %u, but srun's environment is job %u's (SLURM_JOB_ID): run srun --jobid=%u outside that allocation, or unset SLURM_JOB_ID",
				    job_id, mcp_ctx.prepared_job, job_id);
			return -1;
		}
		return 0;
	}
	if ((rc = spank_get_item(sp, S_JOB_UID, &uid)) != ESPANK_SUCCESS) {
		slurm_error(MCP_NAME ": cannot get the job's user: %s", spank_strerror(rc));
		return -1;
	}
	mcp_ctx.prepared = true;
	return prepare_job(job_id, uid);
}

static int prepare_job(uint32_t job_id, uid_t uid)
{
	struct mcr_error err = { 0 };
	struct mcr_file_list files = { 0 };
	char job_id_s[32], infra_addr[64] = "";
	char *dir = NULL, *nodelist = NULL, **hosts = NULL, *master_addr = NULL;
	bool starts_master = mcr_recipe_has_master(mcp_ctx.recipe) &&
			     !mcr_recipe_external_master(mcp_ctx.recipe);
	int rv = -1;

	snprintf(job_id_s, sizeof(job_id_s), "%u", job_id);
	dir = mcp_job_dir(&mcp_ctx.config, mcp_ctx.recipe, job_id_s, uid,
			  getenv("SLURM_SUBMIT_DIR"), &err);
	if (!dir || mcri_mkdir_p(dir, 0755, &err))
		goto fail;

	if (starts_master) {
		if (mcp_job_nodes(job_id, &nodelist, &err) ||
		    mcri_hostlist_expand(nodelist, 65536, &hosts, &err) ||
		    mcp_node_address(hosts[0], infra_addr, sizeof(infra_addr), &err))
			goto fail;
		if (asprintf(&master_addr, "%s:%d", infra_addr, MCR_MASTER_PORT) < 0) {
			master_addr = NULL;
			mcri_error_set(&err, MCR_EIO, "out of memory");
			goto fail;
		}
	}
	/* files first: the master and the workers find them ready (reference §7); an
	 * external master's address comes from the recipe */
	if (mcr_client_configs(mcp_ctx.recipe, master_addr, &files, &err) ||
	    mcr_write_files(dir, &files, &err))
		goto fail;
	if (starts_master) {
		struct mcp_job job = { job_id_s, dir, hosts[0], infra_addr };

		if (mcp_ensure_master(&mcp_ctx.config, mcp_ctx.recipe, &job, &err))
			goto fail;
	}
	for (size_t i = 0; i < files.count; i++)
		slurm_verbose(MCP_NAME ": wrote %s/%s", dir, files.files[i].name);
	rv = 0;
	goto out;
fail:
	mcp_error(&err);
out:
	mcr_file_list_free(&files);
	mcr_strv_free(hosts);
	free(nodelist);
	free(master_addr);
	free(dir);
	return rv;
}
