/*
 * child.c - the plugin's one posix_spawn (mcp_spawn): the sruns of the
 * steps it starts (step.c) and its look at the cluster (container.c's
 * srun --help) are children of srun made here, with stdin /dev/null, no
 * descriptor but the ones asked for, and, detached, a session and default
 * signals of their own.
 *
 * glibc 2.34 has posix_spawn_file_actions_addclosefrom_np; with an older
 * glibc (2.28 of RHEL 8, 2.31 of Debian 11) the same child is made by
 * fork and exec (spawn_forked), chosen when the plugin is built.
 * mcp_close_from closes a child's descriptors after fork (there, and in
 * ha.c's etcd member) on every glibc and kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin/child.h"

/* -DMCP_SPAWN_CLOSEFROM=0 builds the fork and exec on any glibc */
#ifndef MCP_SPAWN_CLOSEFROM
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#define MCP_SPAWN_CLOSEFROM 1
#else
#define MCP_SPAWN_CLOSEFROM 0
#endif
#endif

/* an entry of getdents64 (glibc has its wrapper and struct from 2.30) */
struct fd_dirent {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* close every descriptor of /proc/self/fd from lowfd up; false when
 * /proc/self/fd cannot be read. Async-signal-safe: the entries are read
 * with getdents64 into the stack, no opendir (which allocates). */
static bool close_listed(int lowfd)
{
	char buf[4096] __attribute__((aligned(8)));
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool closed = true;

	if (dir < 0)
		return false;
	/* a pass that closed one may have moved past another: until a
	 * whole pass closes none (Linux lists by number: the second pass
	 * finds none) */
	for (int pass = 0; closed && pass < 4; pass++) {
		long n;

		closed = false;
		if (lseek(dir, 0, SEEK_SET) != 0)
			break;
		while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
			for (long at = 0; at < n;) {
				const struct fd_dirent *d = (const struct fd_dirent *)(buf + at);
				long fd = 0;
				const char *c = d->name;

				at += d->reclen;
				for (; *c >= '0' && *c <= '9' && fd <= INT_MAX; c++)
					fd = fd * 10 + (*c - '0');
				if (*c || c == d->name || fd > INT_MAX || fd < lowfd || fd == dir)
					continue; /* ".", "..", below lowfd, the listing itself */
				close((int)fd);
				closed = true;
			}
		}
		if (n < 0) {
			close(dir);
			return false;
		}
	}
	close(dir);
	return true;
}

void mcp_close_from(int lowfd)
{
	struct rlimit lim;

#ifdef SYS_close_range
	/* Linux 5.9; ENOSYS before (RHEL 8's 4.18), or refused by a seccomp
	 * filter */
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0U) == 0)
		return;
#endif
	if (close_listed(lowfd))
		return;
	/* no /proc: every number below the descriptor limit */
	if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur > INT_MAX)
		lim.rlim_cur = 1 << 20;
	for (rlim_t fd = (rlim_t)lowfd; fd < lim.rlim_cur; fd++)
		close((int)fd);
}

#if MCP_SPAWN_CLOSEFROM
int mcp_spawn(char *const argv[], char *const env[], const struct mcp_spawn_io *io, pid_t *pid)
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
		rc = posix_spawnattr_setflags(&attr,
					      POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
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
#else
/* the child of mcp_spawn after fork (every signal blocked; `mask` the
 * caller's): what posix_spawnp's attributes and file actions do, in their
 * order, then exec; on failure the error number goes to `report`
 * (close-on-exec) */
static void __attribute__((noreturn))
spawn_child(char *const argv[], char *const env[], const struct mcp_spawn_io *io, int report, const sigset_t *mask)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, was;
	sigset_t none;
	int err, null = -1;
	bool ok;

	/* the report channel ends at 3: first out of 0-2 */
	if ((report = fcntl(report, F_DUPFD_CLOEXEC, 3)) < 0)
		_exit(127);
	/* no handler of the caller's runs here; detached: every signal at
	 * its default (EINVAL for glibc's own two, as posix_spawn skips them) */
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &was) == 0 &&
		    (io->detached || (was.sa_handler != SIG_DFL && was.sa_handler != SIG_IGN)))
			sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	ok = !io->detached || setsid() >= 0;
	ok = ok && sigprocmask(SIG_SETMASK, io->detached ? &none : mask, NULL) == 0;
	ok = ok && (null = open("/dev/null", O_RDONLY)) >= 0;
	if (ok && null != 0)
		ok = dup2(null, 0) == 0 && close(null) == 0;
	if (ok && io->log_fd >= 0) {
		ok = dup2(io->log_fd, 1) == 1 && dup2(io->log_fd, 2) == 2;
	} else if (ok) {
		ok = dup2(io->out_fd, 1) == 1 && (null = open("/dev/null", O_WRONLY)) >= 0;
		if (ok && null != 2)
			ok = dup2(null, 2) == 2 && close(null) == 0;
	}
	if (ok && report != 3)
		ok = dup3(report, 3, O_CLOEXEC) == 3;
	if (ok) {
		report = 3;
		mcp_close_from(4);
		execvpe(argv[0], argv, env);
	}
	err = errno;
	while (write(report, &err, sizeof(err)) < 0 && errno == EINTR)
		;
	_exit(127);
}

int mcp_spawn(char *const argv[], char *const env[], const struct mcp_spawn_io *io, pid_t *pid)
{
	sigset_t all, mask;
	int report[2], err = 0;
	ssize_t n = 0;
	pid_t child;

	if (pipe2(report, O_CLOEXEC) != 0)
		return errno;
	/* no signal reaches the child before it has its own handlers */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &mask);
	child = fork();
	if (child == 0)
		spawn_child(argv, env, io, report[1], &mask);
	err = child < 0 ? errno : 0;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	close(report[1]);
	/* nothing to read: the exec happened (the channel closed with it) */
	while (child > 0 && (n = read(report[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(report[0]);
	if (child > 0 && n == (ssize_t)sizeof(err)) {
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
		return err ? err : ECHILD;
	}
	if (child > 0)
		*pid = child;
	return child > 0 ? 0 : err;
}
#endif
