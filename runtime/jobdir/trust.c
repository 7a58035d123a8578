/*
 * trust.c - who may change a path: the one rule the job's directory
 * (jobdir.c) and the files the plugin finds by itself (srtctl's
 * srtslurm.yaml of the working directory and above, mcri_trusted_open)
 * share, and the walk from / that applies it to each directory above a
 * path, through descriptors, no link followed (jobdir.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobdir/jobdir.h"

void mcri_who(uid_t uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	if (pw && pw->pw_name)
		snprintf(buf, size, "uid %u (%s)", (unsigned)uid, pw->pw_name);
	else
		snprintf(buf, size, "uid %u", (unsigned)uid);
}

/* gid is the user's own private group (a user private group, as Debian's
 * adduser makes with umask 002): the user's primary group, of the user's
 * name, without other members. Its write bit lets nobody else in. */
static bool private_group(gid_t gid, uid_t uid)
{
	struct passwd *pw = getpwuid(uid);
	struct group *gr;
	char name[256];

	if (!pw || !pw->pw_name || pw->pw_gid != gid ||
	    snprintf(name, sizeof(name), "%s", pw->pw_name) >= (int)sizeof(name) || !(gr = getgrgid(gid)) ||
	    !gr->gr_name || strcmp(gr->gr_name, name) != 0)
		return false;
	for (char **m = gr->gr_mem; m && *m; m++)
		if (strcmp(*m, name) != 0)
			return false;
	return true;
}

bool mcri_others_write(const struct stat *st, uid_t uid)
{
	return (st->st_mode & S_IWOTH) ||
	       ((st->st_mode & S_IWGRP) && !(st->st_uid == uid && private_group(st->st_gid, uid)));
}

bool mcri_unmapped_owner(uid_t owner)
{
	char buf[128] = "";
	unsigned long inside, outside, count;
	unsigned overflow = 65534;
	FILE *f;
	bool all = false;

	if (!(f = fopen("/proc/self/uid_map", "re")))
		return false;
	/* the initial user namespace maps every user: 0 0 4294967295 */
	if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%lu %lu %lu", &inside, &outside, &count) == 3)
		all = inside == 0 && outside == 0 && count == 4294967295UL;
	fclose(f);
	if (all || !buf[0])
		return false;
	if ((f = fopen("/proc/sys/kernel/overflowuid", "re"))) {
		if (fscanf(f, "%u", &overflow) != 1)
			overflow = 65534;
		fclose(f);
	}
	return owner == overflow;
}

bool mcri_parent_trusted(const struct stat *st, uid_t uid)
{
	return (st->st_uid == 0 || st->st_uid == uid || mcri_unmapped_owner(st->st_uid)) &&
	       (!mcri_others_write(st, uid) || (st->st_mode & S_ISVTX));
}

int mcri_walk(const char *real, int (*check)(int fd, const char *dir, void *arg), void *arg, char *at, size_t at_size,
	      const char **leaf)
{
	char prefix[PATH_MAX] = "/";
	const char *p = real + 1, *slash;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), next;

	snprintf(at, at_size, "/");
	if (fd < 0)
		return -1;
	while ((slash = strchr(p, '/'))) {
		char name[NAME_MAX + 1];
		size_t n = (size_t)(slash - p);

		if (check(fd, prefix, arg)) {
			close(fd);
			return -2;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(n < NAME_MAX ? n : NAME_MAX), p);
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(slash - real), real);
		next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0) {
			snprintf(at, at_size, "%s", prefix);
			return -1;
		}
		fd = next;
		p = slash + 1;
	}
	if (check(fd, prefix, arg)) {
		close(fd);
		return -2;
	}
	*leaf = p;
	return fd;
}

/* ---- a file found by the plugin itself -------------------------------- */

struct found {
	uid_t uid;
	char why[PATH_MAX + 160]; /* the first directory above that fails the rule */
};

static int note_parent(int fd, const char *dir, void *arg)
{
	struct found *f = arg;
	char owner[128];
	struct stat st;

	if (f->why[0] || fstat(fd, &st) != 0 || mcri_parent_trusted(&st, f->uid))
		return 0;
	if (st.st_uid != 0 && st.st_uid != f->uid) {
		mcri_who(st.st_uid, owner, sizeof(owner));
		snprintf(f->why, sizeof(f->why), "it is in %s, which belongs to %s", dir, owner);
	} else {
		snprintf(f->why, sizeof(f->why), "it is in %s, which %s may write (mode %04o, without the sticky bit)",
			 dir, (st.st_mode & S_IWOTH) ? "every user" : "its group", (unsigned)(st.st_mode & 07777));
	}
	return 0;
}

/* -2 with err MCR_ESTATE: `why` the file is not to be trusted */
static int untrusted(struct mcr_error *err, const char *why, int fd, int dir)
{
	if (fd >= 0)
		close(fd);
	close(dir);
	mcri_error_set(err, MCR_ESTATE, "%s", why);
	return -2;
}

int mcri_trusted_open(const char *path, uid_t uid, struct mcr_error *err)
{
	struct found f = { .uid = uid };
	char at[PATH_MAX], owner[128], why[PATH_MAX + 160];
	const char *leaf = NULL;
	struct stat st;
	int dir, fd, e;

	if (path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	dir = mcri_walk(path, note_parent, &f, at, sizeof(at), &leaf);
	if (dir < 0) {
		errno = ENOENT; /* a directory above it is missing or closed to us */
		return -1;
	}
	fd = openat(dir, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	e = errno;
	/* whose it is, as opened, or (not opened) as it stands */
	if ((fd >= 0 ? fstat(fd, &st) : fstatat(dir, leaf, &st, AT_SYMLINK_NOFOLLOW)) != 0) {
		if (fd >= 0) {
			e = errno;
			close(fd);
		}
		close(dir);
		errno = e;
		return -1;
	}
	mcri_who(st.st_uid, owner, sizeof(owner));
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, sizeof(why), "it is a link (of %s), which this lookup does not follow", owner);
		return untrusted(err, why, fd, dir);
	}
	if (st.st_uid != 0 && st.st_uid != uid) {
		snprintf(why, sizeof(why), "it belongs to %s", owner);
		return untrusted(err, why, fd, dir);
	}
	if (mcri_others_write(&st, uid)) {
		snprintf(why, sizeof(why), "%s may write it (mode %04o)",
			 (st.st_mode & S_IWOTH) ? "every user" : "its group", (unsigned)(st.st_mode & 07777));
		return untrusted(err, why, fd, dir);
	}
	if (f.why[0])
		return untrusted(err, f.why, fd, dir);
	close(dir);
	errno = e;
	return fd;
}
