/*
 * spawn.c - the one launcher of the job steps the plugin starts on the
 * infra node (the master, master_step.c; the pool sampler, sampler.c; any
 * later one):
 *
 *   srun --jobid=J --overlap -N1 -n1 ... --job-name=NAME -w <infra>
 *        (an HA pool's masters: -N<k> -n<k> --no-kill -w <its nodes>)
 *        --output=LOG --chdir=<dir> [the container's options] CMD...
 *
 * spawned detached from the srun that starts it (own session, default
 * signals, stdin /dev/null, output to LOG, no other descriptor). The rule
 * for every such step: it runs exactly where the plugin decides (the host,
 * or the recipe's container through the system container.c chose) and
 * inherits no container option of the srun that started it. srun keeps
 * the SPANK options of every plugin in its environment
 * (_SLURM_SPANK_OPTION_<plugin>_<option>, and SLURM_SPANK_ before that
 * for the sruns of a job script), and a child srun takes them as its own;
 * pyxis also reads PYXIS_CONTAINER_* in srun and in slurmstepd, srun
 * reads SRUN_CONTAINER*, slurmstepd sets SLURM_CONTAINER*, and enroot
 * reads ENROOT_*. None of them reaches the step.
 *
 * Each is spawned by the plugin's one posix_spawn (child.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/plugin.h"

extern char **environ;

/* what no step the plugin starts inherits (prefixes of NAME=VALUE) */
static const char *const not_inherited[] = {
	/* the child srun must not start another master */
	"_SLURM_SPANK_OPTION_" MCP_NAME "_",
	"SLURM_SPANK__SLURM_SPANK_OPTION_" MCP_NAME "_",
	/* what srun hands its own tasks, and the master its ports and guard */
	MCP_TASK_VAR "=", MCP_PORTS_VAR "=", MCP_GUARD_VAR "=", MCP_HA_VAR "=",
	"SLURM_MOONCAKE_LENDERS=", "SLURM_MOONCAKE_LENDER=",
	/* the Mooncake settings of the srun's own environment: a step gets
	 * those the plugin gives it (a store service reads MOONCAKE_*, and a
	 * MOONCAKE_CONFIG_PATH would replace them all) */
	"MOONCAKE_",
	/* the MPI of the srun's step: each step the plugin starts runs
	 * --mpi=none, its one task no rank of another's */
	"PMI_", "PMIX_", "OMPI_", "SLURM_MPI_TYPE=",
	/* a step time limit would end the pool before the job */
	"SLURM_TIMELIMIT=",
	/* the job's GPU requests are the workers'; with --gres=none they
	 * make the step an invalid TRES request */
	"SLURM_GPUS=", "SLURM_GPUS_PER_NODE=", "SLURM_GPUS_PER_TASK=",
	"SLURM_GPUS_PER_SOCKET=", "SLURM_CPUS_PER_GPU=", "SLURM_MEM_PER_GPU=",
	"SLURM_GPU_BIND=", "SLURM_GPU_FREQ=", "SLURM_NTASKS_PER_GPU=",
	"SLURM_TRES_PER_TASK=",
	/* the master's RPC transport is its own business: MC_RPC_PROTOCOL
	 * set for the workers must not change it */
	"MC_RPC_PROTOCOL=",
	/* the containers of the srun that starts the step (a worker's): pyxis's
	 * options as srun and slurmstepd pass them, its defaults from the
	 * environment; Slurm's --container as srun reads it and as slurmstepd
	 * sets it; enroot's settings */
	"_SLURM_SPANK_OPTION_pyxis_", "SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_",
	"PYXIS_CONTAINER_", "SRUN_CONTAINER", "SLURM_CONTAINER", "ENROOT_",
	NULL,
};

bool mcp_step_inherits(const char *var)
{
	for (const char *const *p = not_inherited; *p; p++)
		if (strncmp(var, *p, strlen(*p)) == 0)
			return false;
	return true;
}

char **mcp_step_env(const struct mcr_env *extra, struct mcr_error *err)
{
	size_t n = 0, k = 0, count = extra ? extra->count : 0;
	char **env;

	for (char **e = environ; e && *e; e++)
		n++;
	env = calloc(n + count + 1, sizeof(*env));
	if (!env)
		goto nomem;
	for (char **e = environ; e && *e; e++) {
		size_t len = strcspn(*e, "=");
		bool replaced = false;

		for (size_t i = 0; i < count; i++)
			replaced |= strlen(extra->vars[i].name) == len &&
				    strncmp(extra->vars[i].name, *e, len) == 0;
		if (replaced || !mcp_step_inherits(*e))
			continue;
		if (!(env[k++] = strdup(*e)))
			goto nomem;
	}
	for (size_t i = 0; i < count; i++)
		if (asprintf(&env[k++], "%s=%s", extra->vars[i].name,
			     extra->vars[i].value) < 0) {
			env[k - 1] = NULL;
			goto nomem;
		}
	return env;
nomem:
	mcr_strv_free(env);
	mcri_error_set(err, MCR_EIO, "out of memory");
	return NULL;
}

/* `n` strings of `from` into `to` at *k (heap copies) */
static int append(char **to, size_t *k, char *const *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(to[(*k)++] = strdup(from[i])))
			return -1;
	return 0;
}

char **mcp_step_argv(const struct mcri_plugstack *ps, const struct mcp_step_place *at,
		     const char *name, const char *log, char *const *options,
		     char *const *cmd, struct mcr_error *err)
{
	char jobid[64], output[PATH_MAX + 16], chdir_opt[PATH_MAX + 16], node[900];
	char job_name[96], nodes[32], tasks[32];
	char *fixed[] = {
		(char *)ps->srun, "--quiet", jobid, "--overlap", nodes, tasks,
		"--ntasks-per-node=1", "--cpus-per-task=1", "--gres=none",
		"--mpi=none", "--cpu-bind=none", "--input=none", "--open-mode=append",
		"--kill-on-bad-exit=0", job_name, node, output, chdir_opt, NULL,
		NULL, NULL, /* room for --het-group=0, --no-kill */
	};
	size_t nf = mcr_strv_len(fixed), k = 0, len = mcr_strv_len(cmd);
	size_t no = options ? mcr_strv_len(options) : 0;
	char **argv;

	/* a heterogeneous job from outside: srun needs its component */
	if (at->het)
		fixed[nf++] = (char *)"--het-group=0";
	/* a step of several nodes (an HA pool's masters): a node lost ends
	 * its task, not the step */
	if (at->nodes > 1)
		fixed[nf++] = (char *)"--no-kill";
	snprintf(nodes, sizeof(nodes), "--nodes=%d", at->nodes > 1 ? at->nodes : 1);
	snprintf(tasks, sizeof(tasks), "--ntasks=%d", at->nodes > 1 ? at->nodes : 1);
	snprintf(jobid, sizeof(jobid), "--jobid=%s", at->job_id);
	snprintf(job_name, sizeof(job_name), "--job-name=%s", name);
	snprintf(output, sizeof(output), "--output=%s", log);
	snprintf(chdir_opt, sizeof(chdir_opt), "--chdir=%s", at->dir);
	snprintf(node, sizeof(node), "--nodelist=%s", at->node);
	argv = calloc(nf + no + len + 1, sizeof(*argv));
	if (!argv || append(argv, &k, fixed, nf) || append(argv, &k, options, no) ||
	    append(argv, &k, cmd, len)) {
		mcr_strv_free(argv);
		mcri_error_set(err, MCR_EIO, "out of memory");
		return NULL;
	}
	return argv;
}

int mcp_step_start(const struct mcri_plugstack *ps, const struct mcp_step_place *at,
		   const struct mcp_step *step, pid_t *pid, struct mcr_error *err)
{
	char **cmd = calloc(mcr_strv_len(step->cmd) + 1, sizeof(*cmd));
	char **options = NULL, **env = NULL, **argv = NULL;
	struct mcri_jobdir jd = { .fd = -1 };
	const char *name = strrchr(step->log, '/');
	size_t k = 0;
	int fd = -1, rc = -1;

	if (!cmd || append(cmd, &k, step->cmd, mcr_strv_len(step->cmd))) {
		mcri_error_nomem(err);
		goto out;
	}
	/* a fresh log for this step, in the job's directory and through it
	 * (a regular file, no link followed, 0600); its srun writes there too */
	if (!name || (size_t)(name - step->log) != strlen(at->dir) ||
	    strncmp(step->log, at->dir, (size_t)(name - step->log)) != 0) {
		mcri_error_set(err, MCR_EINVAL, "the log %s of the %s step is not in the job's directory %s",
			       step->log, step->name, at->dir);
		goto out;
	}
	if (mcri_jobdir_open(&jd, at->dir, getuid(), false, err) ||
	    (fd = mcri_jobdir_append(&jd, name + 1, true, err)) < 0)
		goto out;
	/* where it runs: the container's srun options and command (none on
	 * the host), an environment with no container of this srun's */
	if (mcp_container_options(step->container, at->dir, step->env, &options, &cmd, err) ||
	    !(env = mcp_step_env(step->env, err)) ||
	    !(argv = mcp_step_argv(ps, at, step->name, step->log, options, cmd, err)))
		goto out;
	rc = mcp_spawn(argv, env, &(struct mcp_spawn_io){ .log_fd = fd, .detached = true }, pid);
	if (rc != 0)
		rc = mcri_error_set(err, MCR_ESTATE,
				    "cannot run %s to start the %s step: %s; set srun= in plugstack.conf to the path of srun",
				    argv[0], step->name, strerror(rc));
out:
	if (fd >= 0)
		close(fd);
	mcri_jobdir_close(&jd);
	mcr_strv_free(cmd);
	mcr_strv_free(options);
	mcr_strv_free(env);
	mcr_strv_free(argv);
	return rc;
}
