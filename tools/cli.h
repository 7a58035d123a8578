/*
 * cli.h - the commands of mooncake-recipe that live in files of their own.
 * Each returns the exit status: 0 success, 1 the recipe or the pool is
 * not as it should be (the message says why), 2 usage or I/O error.
 */
#ifndef CLI_H_
#define CLI_H_

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* status [--job JOBID | --dir DIR] [--json] (status.c) */
int cli_status(int argc, char **argv);
/* sample --dir DIR [--interval S] [--report] (sample.c) */
int cli_sample(int argc, char **argv);
/* What slurmctld knows of a job (slurm_job.c, libslurm's job record) */
struct cli_job {
	bool known;               /* slurmctld knows it (a job that ended more
				   * than MinJobAge ago is gone) */
	bool ended;               /* it has ended, or is completing */
	uid_t uid;                /* its user */
	char state[32];           /* as squeue names it: RUNNING, COMPLETING, ... */
	char work_dir[PATH_MAX];  /* its submit directory (WorkDir) */
	char plugstack[PATH_MAX]; /* slurmctld's PlugStackConfig, when asked ("" unknown) */
};
/* Ask Slurm about job `job_id`, and with `plugstack` for PlugStackConfig
 * (in a child process: see slurm_job.c). 0 with *job; -1 when Slurm
 * cannot be asked, its reason in `why`. */
int cli_slurm_job(uint32_t job_id, bool plugstack, struct cli_job *job, char *why, size_t size);
/* The job's directory: the job's WorkDir and user from Slurm, and the
 * job_dir= of the plugin's line in plugstack.conf (job.c); the job's
 * user in *uid; whether the job has ended, and its state
 * ("JobState=COMPLETED"), from the same answer. On failure the message is
 * printed and the exit status returned. */
int cli_job_dir(const char *job_id, char **dir, uid_t *uid, bool *ended, char *state, size_t size);
/* Has the job ended (its state, or no longer known to Slurm)? Its state
 * in `state` ("JobState=COMPLETED"). False when it runs, is pending, or
 * Slurm cannot be asked. */
bool cli_job_ended(const char *job_id, char *state, size_t size);

#endif /* MCR_CLI_H_ */
