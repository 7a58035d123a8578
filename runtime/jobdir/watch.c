/*
 * watch.c - a change in the job's directory (inotify), for the sruns that
 * wait for another srun's word: they sleep until the state file changes
 * instead of reading it many times a second (a first wave of 256 sruns).
 * Only a local file system tells of every write: on a network one (NFS,
 * Lustre, GPFS, ...) inotify sees this host's writes alone, and the
 * waiters poll as before.
 */
#include <errno.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "jobdir.h"
#include "net/net.h" /* mcri_now_ms */

#define EVENTS (IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)
#define ZFS_SUPER_MAGIC 0x2FC12FC1 /* not in linux/magic.h */

/* a file system whose every write is this host's */
static bool local(int dirfd)
{
	static const unsigned long LOCAL[] = { EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC,
					       TMPFS_MAGIC, OVERLAYFS_SUPER_MAGIC, F2FS_SUPER_MAGIC,
					       RAMFS_MAGIC, ZFS_SUPER_MAGIC };
	struct statfs fs;

	if (fstatfs(dirfd, &fs) != 0)
		return false;
	for (size_t i = 0; i < sizeof(LOCAL) / sizeof(LOCAL[0]); i++)
		if ((unsigned long)fs.f_type == LOCAL[i])
			return true;
	return false;
}

int mcri_jobdir_watch(const struct mcri_jobdir *d)
{
	char self[64];
	int fd;

	if (d->fd < 0 || !local(d->fd) || (fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0)
		return -1;
	/* the directory we hold open, whatever its path names meanwhile */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", d->fd);
	if (inotify_add_watch(fd, self, EVENTS | IN_ONLYDIR) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* An event a waiter acts on: the state file or a lock file in place or
 * gone, the directory itself moved or removed, or events lost. The pool's
 * other files (client configs, the master's proof and log, their
 * temporary names) wake no one: in a first wave of 256 sruns each of
 * their writes woke every waiter to read the state again. */
static bool wakes(const struct inotify_event *e)
{
	int attempt, used = 0;

	if (e->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) || !e->len)
		return true;
	return !strcmp(e->name, MCRI_STATE_FILE) ||
	       (sscanf(e->name, MCRI_LOCK_FILE "%n", &attempt, &used) == 1 && used && !e->name[used]);
}

void mcri_jobdir_wait(int watch, int timeout_ms)
{
	struct pollfd p = { .fd = watch, .events = POLLIN };
	char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	long long end = mcri_now_ms() + timeout_ms, left;
	bool woken = false;
	ssize_t n;

	if (watch < 0)
		return;
	while (!woken && (left = end - mcri_now_ms()) > 0) {
		if (poll(&p, 1, (int)left) <= 0)
			return; /* the bound, or a signal */
		/* what came: read all of it, so that the next wait waits again */
		while ((n = read(watch, events, sizeof(events))) > 0 || (n < 0 && errno == EINTR))
			for (ssize_t i = 0; i < n;) {
				const struct inotify_event *e = (const struct inotify_event *)(events + i);

				woken |= wakes(e);
				i += (ssize_t)(sizeof(*e) + e->len);
			}
	}
}

void mcri_jobdir_unwatch(int watch)
{
	if (watch >= 0)
		close(watch);
}
