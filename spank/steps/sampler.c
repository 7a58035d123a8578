/*
 * sampler.c - the pool's sampler: once the job's master is ready, the srun
 * that saw it ready starts a step of its own next to it,
 *   srun --jobid=J --overlap -N1 -n1 -w <infra> --job-name=mooncake-pool
 *        --output=<dir>/mooncake_pool.log <sampler> sample --dir <dir> --interval S
 * detached like the master step, by the same launcher (spawn.c), and on
 * the infra node's host: never in the recipe's container or a worker's
 * (the host's mooncake-recipe, sampler=). It asks the master's /metrics
 * every S seconds and, when Slurm ends the job's steps, writes the pool's
 * report and picture into the job's directory (mooncake-recipe(1),
 * sample). The master's start, failure and stop do not depend on it: a
 * sampler that cannot start is a warning on srun's terminal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/plugin.h"

#define POOL_LOG "mooncake_pool.log"

static int start(const struct mcri_plugstack *config, const struct mcp_step_place *job,
		 struct mcr_error *err)
{
	char log[PATH_MAX + 32], interval[32];
	char *const cmd[] = { (char *)config->sampler, "sample", "--dir", (char *)job->dir,
			      "--interval", interval, NULL };
	pid_t pid;

	if (access(config->sampler, X_OK) != 0)
		return mcri_error_set(err, MCR_ESTATE,
				      "the pool sampler %s cannot run here (%s), so this job gets no pool report; install mooncake-recipe there, set sampler=/path/to/mooncake-recipe in plugstack.conf, or pool_interval=0 to switch the sampler off",
				      config->sampler, strerror(errno));
	snprintf(interval, sizeof(interval), "%d", config->pool_interval);
	snprintf(log, sizeof(log), "%s/%s", job->dir, POOL_LOG);
	/* on the host (no container: NULL), whatever containers the workers,
	 * the srun that starts it or the master run in */
	return mcp_step_start(config, job, &(struct mcp_step){ "mooncake-pool", log, cmd, NULL, NULL },
			      &pid, err);
}

int mcp_start_sampler(const struct mcri_plugstack *config, const struct mcp_step_place *job,
		      struct mcr_error *err)
{
	char msg[MCR_ERROR_MESSAGE_LENGTH];

	if (config->pool_interval <= 0)
		return 0;
	if (start(config, job, err) == 0)
		return 0;
	err->kind = MCR_WARNING;
	mcr_error_format(err, msg, sizeof(msg));
	slurm_info("%s", msg);
	return -1;
}
