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
#include <sys/inotify.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "jobdir.h"

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

void mcri_jobdir_wait(int watch, int timeout_ms)
{
	struct pollfd p = { .fd = watch, .events = POLLIN };
	char events[4096];
	ssize_t n;

	if (watch < 0 || poll(&p, 1, timeout_ms) <= 0)
		return;
	/* what came: read, so that the next wait waits again */
	do
		n = read(watch, events, sizeof(events));
	while (n > 0 || (n < 0 && errno == EINTR));
}

void mcri_jobdir_unwatch(int watch)
{
	if (watch >= 0)
		close(watch);
}
