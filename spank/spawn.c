/*
 * spawn.c - start a job step that must outlive the srun that starts it
 * (the master's): posix_spawn, so nothing runs between fork and exec in
 * srun's threaded process; a session of its own, so srun's signals and exit
 * do not reach it; default signal handling and an empty mask; stdin
 * /dev/null, stdout and stderr appended to a log; no other descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>

#include "plugin.h"

int mcp_spawn_detached(char *const *argv, char *const *env, const char *log,
		       pid_t *pid, struct mcr_error *err)
{
	posix_spawnattr_t attr;
	posix_spawn_file_actions_t fa;
	sigset_t none, all;
	int rc;

	sigemptyset(&none);
	sigfillset(&all);
	if (posix_spawnattr_init(&attr) != 0)
		return mcri_error_nomem(err);
	if (posix_spawn_file_actions_init(&fa) != 0) {
		posix_spawnattr_destroy(&attr);
		return mcri_error_nomem(err);
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
	if (rc != 0)
		return mcri_error_set(err, MCR_ESTATE,
				      "cannot run %s to start the master step: %s; set srun= in plugstack.conf",
				      argv[0], strerror(rc));
	return 0;
}
