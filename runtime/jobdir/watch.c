/*
 * watch.c - a change in the job's directory (inotify), for the sruns that
 * wait for another srun's word: they sleep until the state file changes
 * instead of reading it many times a second (a first wave of 256 sruns).
 * Only a local file system tells of every write: on a network one (NFS,
 * Lustre, GPFS, ...) inotify sees this host's writes alone, and the
 * waiters poll as before. A user has few inotify instances (128 by
 * default): past them a waiter looks at the directory's change time, a
 * stat, instead of reading the state file and its lock.
 */
#include <errno.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "jobdir.h"
#include "net/net.h" /* mcri_now_ms */

#define EVENTS (IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)
#define ZFS_SUPER_MAGIC 0x2FC12FC1 /* not in linux/magic.h */

/* a file system whose every write is this host's */
static bool local(int dirfd)
{
	static const unsigned long LOCAL[] = { EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC,       BTRFS_SUPER_MAGIC,
					       TMPFS_MAGIC,      OVERLAYFS_SUPER_MAGIC, F2FS_SUPER_MAGIC,
					       RAMFS_MAGIC,      ZFS_SUPER_MAGIC };
	struct statfs fs;

	if (fstatfs(dirfd, &fs) != 0)
		return false;
	for (size_t i = 0; i < sizeof(LOCAL) / sizeof(LOCAL[0]); i++)
		if ((unsigned long)fs.f_type == LOCAL[i])
			return true;
	return false;
}

#define STAT_MS 50 /* without inotify: a look at the directory so often */
#define TICK_MS 20 /* a file system's clock tick, at most (coarse: 1-10 ms) */

/* the directory's change time: any entry created, renamed or removed in
 * it, or the directory itself renamed; false when it cannot be had */
static bool changed_at(int dir, struct timespec *t)
{
	struct stat st;

	if (fstat(dir, &st) != 0)
		return false;
	*t = st.st_ctim;
	return true;
}

/* t within a clock tick of now: another change in the same tick would
 * leave the change time as it is */
static bool recent(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (now.tv_sec - t->tv_sec) * 1000LL + (now.tv_nsec - t->tv_nsec) / 1000000 < TICK_MS;
}

int mcri_jobdir_watch(const struct mcri_jobdir *d, struct mcri_watch *w)
{
	char self[64];

	*w = MCRI_WATCH_NONE;
	if (d->fd < 0 || !local(d->fd))
		return -1;
	/* the directory we hold open, whatever its path names meanwhile */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", d->fd);
	if ((w->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) >= 0 &&
	    inotify_add_watch(w->inotify, self, EVENTS | IN_ONLYDIR) < 0) {
		close(w->inotify);
		w->inotify = -1;
	}
	/* no inotify (this user's instances are used up): its change time */
	if (w->inotify < 0) {
		if (!changed_at(d->fd, &w->seen))
			return -1;
		w->unsettled = recent(&w->seen);
	}
	w->dir = d->fd;
	return 0;
}

/* a lender's state (lender_<name>.<node>.json, not its proof) or one of
 * its election's locks (....<n>.lock), not a temporary name */
static bool lender_wakes(const char *name)
{
	size_t len = strlen(name);
	const char *dot;

	if (len > 5 && !strcmp(name + len - 5, ".json"))
		return !(len > 11 && !strcmp(name + len - 11, ".proof.json"));
	if (len < 6 || strcmp(name + len - 5, ".lock"))
		return false;
	for (dot = name + len - 6; dot > name && *dot >= '0' && *dot <= '9'; dot--)
		;
	return *dot == '.' && dot < name + len - 6;
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
	if (!strncmp(e->name, MCRI_LENDER_PREFIX, strlen(MCRI_LENDER_PREFIX)))
		return lender_wakes(e->name);
	return !strcmp(e->name, MCRI_STATE_FILE) ||
	       (sscanf(e->name, MCRI_LOCK_FILE "%n", &attempt, &used) == 1 && used && !e->name[used]);
}

/* without inotify: until the directory's change time moves (a look
 * first, then every STAT_MS), at most timeout_ms; one that was within a
 * tick of its look is looked at again after a pause, and wakes */
static void wait_stat(struct mcri_watch *w, int timeout_ms)
{
	long long end = mcri_now_ms() + timeout_ms, left;
	bool look = !w->unsettled;
	struct timespec now, pause = { 0, 0 };

	for (;;) {
		if (look) {
			if (!changed_at(w->dir, &now))
				return; /* the directory unreadable: the caller looks */
			if (w->unsettled || now.tv_sec != w->seen.tv_sec || now.tv_nsec != w->seen.tv_nsec) {
				w->seen = now;
				w->unsettled = recent(&now);
				return;
			}
		}
		look = true;
		if ((left = end - mcri_now_ms()) <= 0)
			return;
		pause.tv_nsec = (left < STAT_MS ? left : STAT_MS) * 1000000L;
		if (nanosleep(&pause, NULL) != 0)
			return; /* a signal */
	}
}

void mcri_jobdir_wait(struct mcri_watch *w, int timeout_ms)
{
	struct pollfd p = { .fd = w->inotify, .events = POLLIN };
	char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	long long end = mcri_now_ms() + timeout_ms, left;
	bool woken = false;
	ssize_t n;

	if (w->dir < 0)
		return;
	if (w->inotify < 0) {
		wait_stat(w, timeout_ms);
		return;
	}
	while (!woken && (left = end - mcri_now_ms()) > 0) {
		if (poll(&p, 1, (int)left) <= 0)
			return; /* the bound, or a signal */
		/* what came: read all of it, so that the next wait waits again */
		while ((n = read(w->inotify, events, sizeof(events))) > 0 || (n < 0 && errno == EINTR))
			for (ssize_t i = 0; i < n;) {
				const struct inotify_event *e = (const struct inotify_event *)(events + i);

				woken |= wakes(e);
				i += (ssize_t)(sizeof(*e) + e->len);
			}
	}
}

void mcri_jobdir_unwatch(struct mcri_watch *w)
{
	if (w->inotify >= 0)
		close(w->inotify);
	*w = MCRI_WATCH_NONE;
}
