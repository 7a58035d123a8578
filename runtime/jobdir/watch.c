/*
 * watch.c - a change in the job's directory (inotify), for the sruns that
 * wait for another srun's word: they sleep until the state file changes
 * instead of reading it many times a second (a first wave of 256 sruns).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "jobdir.h"

#define EVENTS (IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)

int mcri_jobdir_watch(const struct mcri_jobdir *d)
{
	char self[64];
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd < 0)
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
