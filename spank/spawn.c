/*
 * spawn.c - the job steps the plugin starts on the infra node (the master,
 * master.c; the pool sampler, sampler.c): an `srun --jobid=J --overlap
 * -N1 -n1 -w <infra> --job-name=NAME --output=LOG ... CMD` spawned detached
 * from the srun that starts it (own session, default signals, stdin
 * /dev/null, output to LOG, no other descriptor), with an environment
 * that cannot re-enter the plugin.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

extern char **environ;

static bool skip_env(const char *e)
{
	static const char *const prefixes[] = {
		/* the child srun must not start another master */
		"_SLURM_SPANK_OPTION_" MCP_NAME "_",
		"SLURM_SPANK__SLURM_SPANK_OPTION_" MCP_NAME "_",
		/* what srun hands its own tasks, and the master its ports */
		MCP_TASK_VAR "=", MCP_PORTS_VAR "=",
		/* a step time limit would end the pool before the job */
		"SLURM_TIMELIMIT=",
		/* the job's GPU requests are the workers'; with --gres=none they
		 * make the master step an invalid TRES request */
		"SLURM_GPUS=", "SLURM_GPUS_PER_NODE=", "SLURM_GPUS_PER_TASK=",
		"SLURM_GPUS_PER_SOCKET=", "SLURM_CPUS_PER_GPU=", "SLURM_MEM_PER_GPU=",
		"SLURM_GPU_BIND=", "SLURM_GPU_FREQ=", "SLURM_NTASKS_PER_GPU=",
		"SLURM_TRES_PER_TASK=",
		/* the master's RPC transport is its own business: MC_RPC_PROTOCOL
		 * set for the workers must not change it */
		"MC_RPC_PROTOCOL=",
		NULL,
	};

	for (const char *const *p = prefixes; *p; p++)
		if (strncmp(e, *p, strlen(*p)) == 0)
			return true;
	return false;
}

char **mcp_step_env(const struct mcr_env *extra, struct mcr_error *err)
{
	size_t n = 0, k = 0;
	char **env;

	for (char **e = environ; e && *e; e++)
		n++;
	env = calloc(n + extra->count + 1, sizeof(*env));
	if (!env)
		goto nomem;
	for (char **e = environ; e && *e; e++) {
		size_t len = strcspn(*e, "=");
		bool replaced = false;

		for (size_t i = 0; i < extra->count; i++)
			replaced |= strlen(extra->vars[i].name) == len &&
				    strncmp(extra->vars[i].name, *e, len) == 0;
		if (replaced || skip_env(*e))
			continue;
		if (!(env[k++] = strdup(*e)))
			goto nomem;
	}
	for (size_t i = 0; i < extra->count; i++)
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

char **mcp_step_argv(const struct mcp_plugstack *ps, const struct mcp_step_place *at,
		     const char *name, const char *log, char *const *cmd,
		     struct mcr_error *err)
{
	char jobid[64], output[PATH_MAX + 16], chdir_opt[PATH_MAX + 16], node[300];
	char job_name[96];
	const char *fixed[] = {
		ps->srun, "--quiet", jobid, "--overlap", "--nodes=1", "--ntasks=1",
		"--ntasks-per-node=1", "--cpus-per-task=1", "--gres=none",
		"--mpi=none", "--cpu-bind=none", "--input=none", "--open-mode=append",
		"--kill-on-bad-exit=0", job_name, node, output, chdir_opt, NULL, NULL,
	};
	size_t nf = sizeof(fixed) / sizeof(fixed[0]) - 2, n = 0, len = mcr_strv_len(cmd);
	size_t no = at->options ? mcr_strv_len(at->options) : 0;
	char **argv;

	/* a heterogeneous job from outside: srun needs its component */
	if (at->het)
		fixed[nf++] = "--het-group=0";
	snprintf(jobid, sizeof(jobid), "--jobid=%s", at->job_id);
	snprintf(job_name, sizeof(job_name), "--job-name=%s", name);
	snprintf(output, sizeof(output), "--output=%s", log);
	snprintf(chdir_opt, sizeof(chdir_opt), "--chdir=%s", at->dir);
	snprintf(node, sizeof(node), "--nodelist=%s", at->node);
	argv = calloc(nf + no + len + 1, sizeof(*argv));
	if (!argv)
		goto nomem;
	for (size_t i = 0; i < nf; i++)
		if (!(argv[n++] = strdup(fixed[i])))
			goto nomem;
	for (size_t i = 0; i < no; i++)
		if (!(argv[n++] = strdup(at->options[i])))
			goto nomem;
	for (size_t i = 0; i < len; i++)
		if (!(argv[n++] = strdup(cmd[i])))
			goto nomem;
	return argv;
nomem:
	mcr_strv_free(argv);
	mcri_error_set(err, MCR_EIO, "out of memory");
	return NULL;
}

int mcp_spawn_detached(char *const argv[], char *const env[], const char *log,
		       pid_t *pid)
{
	posix_spawnattr_t attr;
	posix_spawn_file_actions_t fa;
	sigset_t none, all;
	int rc;

	/* own session (srun's signals and exit do not reach it), default
	 * signals, stdin /dev/null, output to the log, nothing else inherited */
	sigemptyset(&none);
	sigfillset(&all);
	if (posix_spawnattr_init(&attr) != 0)
		return ENOMEM;
	if (posix_spawn_file_actions_init(&fa) != 0) {
		posix_spawnattr_destroy(&attr);
		return ENOMEM;
	}
	rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
						     POSIX_SPAWN_SETSIGDEF);
	rc = rc ? rc : posix_spawnattr_setsigmask(&attr, &none);
	rc = rc ? rc : posix_spawnattr_setsigdefault(&attr, &all);
	rc = rc ? rc : posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	rc = rc ? rc : posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_APPEND, 0);
	rc = rc ? rc : posix_spawn_file_actions_adddup2(&fa, 1, 2);
	rc = rc ? rc : posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	rc = rc ? rc : posix_spawnp(pid, argv[0], &fa, &attr, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return rc;
}
