/*
 * cli.h - the commands of mooncake-recipe that live in files of their own.
 * Each returns the exit status: 0 success, 1 the recipe or the pool is
 * not as it should be (the message says why), 2 usage or I/O error.
 */
#ifndef CLI_H_
#define CLI_H_

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* status [--job JOBID | --dir DIR] [--json] (status.c) */
int cli_status(int argc, char **argv);
/* sample --dir DIR [--interval S] [--report] (sample.c) */
int cli_sample(int argc, char **argv);
/* The job's directory from Slurm: scontrol show job (WorkDir, UserId) and
 * the job_dir= of the plugin's line in plugstack.conf (jobdir.c); the
 * job's user in *uid; whether the job has ended, and its state
 * ("JobState=COMPLETED"), from the same answer. On failure the message is
 * printed and the exit status returned. */
int cli_job_dir(const char *job_id, char **dir, uid_t *uid, bool *ended, char *state, size_t size);
/* Has the job ended (scontrol show job: its JobState, or no longer known)?
 * Its state in `state` ("JobState=COMPLETED"). False when it runs, is
 * pending, or cannot be asked. */
bool cli_job_ended(const char *job_id, char *state, size_t size);

#endif /* MCR_CLI_H_ */
