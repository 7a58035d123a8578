/*
 * child.c - the plugin's one posix_spawn (mcp_spawn): the sruns of the
 * steps it starts (spawn.c) and its look at the cluster (container.c's
 * srun --help) are children of srun made here, with stdin /dev/null, no
 * descriptor but the ones asked for, and, detached, a session and default
 * signals of their own.
 */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>

#include "plugin.h"

int mcp_spawn(char *const argv[], char *const env[], const struct mcp_spawn_io *io,
	      pid_t *pid)
{
	posix_spawnattr_t attr;
	posix_spawn_file_actions_t fa;
	sigset_t none, all;
	int rc;

	sigemptyset(&none);
	sigfillset(&all);
	if (posix_spawnattr_init(&attr) != 0)
		return ENOMEM;
	if (posix_spawn_file_actions_init(&fa) != 0) {
		posix_spawnattr_destroy(&attr);
		return ENOMEM;
	}
	/* detached: its own session (srun's signals and exit do not reach
	 * it), default signals and an empty mask */
	rc = 0;
	if (io->detached) {
		rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
							     POSIX_SPAWN_SETSIGDEF);
		rc = rc ? rc : posix_spawnattr_setsigmask(&attr, &none);
		rc = rc ? rc : posix_spawnattr_setsigdefault(&attr, &all);
	}
	/* stdin /dev/null; stdout and stderr to the log, or stdout to out_fd
	 * and stderr to /dev/null; nothing else inherited */
	rc = rc ? rc : posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (io->log_fd >= 0) {
		rc = rc ? rc : posix_spawn_file_actions_adddup2(&fa, io->log_fd, 1);
		rc = rc ? rc : posix_spawn_file_actions_adddup2(&fa, io->log_fd, 2);
	} else {
		rc = rc ? rc : posix_spawn_file_actions_adddup2(&fa, io->out_fd, 1);
		rc = rc ? rc : posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	}
	rc = rc ? rc : posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	rc = rc ? rc : posix_spawnp(pid, argv[0], &fa, &attr, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return rc;
}
