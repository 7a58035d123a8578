/*
 * files.c - files written so that no reader ever sees half of one
 * (temporary file in the same directory, fsync, rename), a set of files
 * replaced all together or not at all, and mkdir -p. Every step works
 * relative to a descriptor of the directory (openat, linkat, renameat):
 * a directory renamed or replaced by a link while the set is written
 * changes nothing, and no name is followed through a link.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/sys.h"

/* One file of a set being written: its name, its temporary file, and a
 * hard link to the file it replaces (to put it back if the set fails). */
struct pending {
	const char *name, *text;
	size_t len;
	bool durable; /* fsync before the rename */
	char *tmp, *backup;
	bool replaced; /* renamed into place */
};

struct target {
	int fd;           /* the directory */
	const char *path; /* its name, for messages */
	unsigned mode;    /* of new files */
};

/* ".<name>.<what>.<12 random characters>" in the directory, created with
 * O_EXCL (or, for a backup, linked to `from`): nobody can plant a file or
 * a link at a name we are about to write through. The descriptor (0 for
 * a link), or -1 with errno set. */
static int unique_name(const struct target *t, const char *name, const char *what, const char *from, char **out)
{
	static const char ALNUM[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char r[12];
		char suffix[13];
		int fd = -1;

		if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			for (size_t i = 0; i < sizeof(r); i++)
				r[i] = (unsigned char)((unsigned long long)ts.tv_nsec >> (i % 8 * 4) ^
						       (unsigned)getpid() ^ (unsigned)attempt * 131u ^ i);
		}
		for (size_t i = 0; i < sizeof(r); i++)
			suffix[i] = ALNUM[r[i] % (sizeof(ALNUM) - 1)];
		suffix[sizeof(r)] = '\0';
		if (!(*out = mcri_asprintf(".%s.%s.%s", name, what, suffix))) {
			errno = ENOMEM;
			return -1;
		}
		if (from ? linkat(t->fd, from, t->fd, *out, 0) == 0
			 : (fd = openat(t->fd, *out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
					(mode_t)t->mode)) >= 0)
			return from ? 0 : fd;
		free(*out);
		*out = NULL;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

/* the text into a new temporary file next to its path, on disk */
static int write_tmp(const struct target *t, struct pending *f, struct mcr_error *err)
{
	int fd = unique_name(t, f->name, "tmp", NULL, &f->tmp);
	size_t off = 0;

	if (fd < 0)
		return errno == ENOMEM ? mcri_error_nomem(err)
				       : mcri_error_set(err, MCR_EIO, "cannot write %s/%s: %s", t->path, f->name,
							strerror(errno));
	while (off < f->len) {
		ssize_t n = write(fd, f->text + off, f->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			mcri_error_set(err, MCR_EIO, "cannot write %s/%s: %s", t->path, f->tmp,
				       n < 0 ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	if (f->durable && fsync(fd) != 0) {
		mcri_error_set(err, MCR_EIO, "cannot write %s/%s: %s", t->path, f->tmp, strerror(errno));
		close(fd);
		return -1;
	}
	if (close(fd) != 0)
		return mcri_error_set(err, MCR_EIO, "cannot write %s/%s: %s", t->path, f->tmp, strerror(errno));
	return 0;
}

/* What can be checked before anything is replaced: the name is a regular
 * file or nothing, and a file there is kept as a backup (a hard link). A
 * file that is renamed away meanwhile (another writer's replace) is
 * nothing to keep. */
static int prepare_replace(const struct target *t, struct pending *f, struct mcr_error *err)
{
	struct stat st;

	if (fstatat(t->fd, f->name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT)
			return 0;
		return mcri_error_set(err, MCR_EIO, "cannot write %s/%s: %s", t->path, f->name, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return mcri_error_set(err, MCR_EIO,
				      "cannot write %s/%s: it exists and is not a regular file (%s); remove it",
				      t->path, f->name, S_ISDIR(st.st_mode) ? "a directory" : "a special file or link");
	if (unique_name(t, f->name, "old", f->name, &f->backup) == 0)
		return 0;
	if (errno == ENOENT) /* replaced by another writer between the two looks */
		return 0;
	return errno == ENOMEM ? mcri_error_nomem(err)
			       : mcri_error_set(err, MCR_EIO, "cannot keep the previous %s/%s while it is replaced: %s",
						t->path, f->name, strerror(errno));
}

/* The files of a set all replaced, or none: every text is written to a
 * temporary file first; the old files are linked to backups; then each is
 * renamed into place, and a failed rename puts the earlier ones back. */
static int write_set(const struct target *t, struct pending *f, size_t n, struct mcr_error *err)
{
	size_t i;
	int rc = -1;

	for (i = 0; i < n; i++)
		if (write_tmp(t, &f[i], err) || prepare_replace(t, &f[i], err))
			goto out;
	for (i = 0; i < n; i++) {
		if (renameat(t->fd, f[i].tmp, t->fd, f[i].name) != 0) {
			mcri_error_set(err, MCR_EIO, "cannot rename %s/%s to %s/%s: %s; no file of the set was changed",
				       t->path, f[i].tmp, t->path, f[i].name, strerror(errno));
			goto out;
		}
		f[i].replaced = true;
	}
	rc = 0;
out:
	for (i = 0; i < n; i++) {
		if (rc && f[i].replaced &&
		    !(f[i].backup ? renameat(t->fd, f[i].backup, t->fd, f[i].name) == 0
				  : unlinkat(t->fd, f[i].name, 0) == 0))
			mcri_error_set(
				err, MCR_EIO,
				"cannot put %s/%s back after a failed write: %s; the directory holds a mix of old and new files: write them again",
				t->path, f[i].name, strerror(errno));
		if (f[i].tmp && !f[i].replaced)
			unlinkat(t->fd, f[i].tmp, 0);
		if (f[i].backup && !(rc && f[i].replaced))
			unlinkat(t->fd, f[i].backup, 0);
		free(f[i].tmp);
		free(f[i].backup);
	}
	return rc;
}

/* a file name, not a path: no '/', not "", "." or ".." */
static int plain_name(const char *dir, const char *name, struct mcr_error *err)
{
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return mcri_error_set(err, MCR_EINVAL, "cannot write '%s' in %s: not a file name", name, dir);
	return 0;
}

int mcri_write_file_at(int dirfd, const char *dir, const char *name, const char *text, size_t len, bool durable,
		       unsigned mode, struct mcr_error *err)
{
	struct pending f = { name, text, len, durable, NULL, NULL, false };
	const struct target t = { dirfd, dir, mode };

	return plain_name(dir, name, err) ? -1 : write_set(&t, &f, 1, err);
}

/* the directory `dir`, for writing into it */
static int open_dir(const char *dir, struct mcr_error *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		mcri_error_set(err, MCR_EIO, "cannot write into %s: %s", dir, strerror(errno));
	return fd;
}

int mcri_write_file(const char *dir, const char *name, const char *text, size_t len, bool durable,
		    struct mcr_error *err)
{
	int fd = open_dir(dir, err), rc;

	if (fd < 0)
		return -1;
	rc = mcri_write_file_at(fd, dir, name, text, len, durable, 0644, err);
	close(fd);
	return rc;
}

int mcr_write_file_atomic(const char *dir, const char *name, const char *text, size_t len, struct mcr_error *err)
{
	return mcri_write_file(dir, name, text, len, true, err);
}

int mcri_write_files_at(int dirfd, const char *dir, const struct mcr_file_list *list, unsigned mode,
			struct mcr_error *err)
{
	const struct target t = { dirfd, dir, mode };
	struct pending *f;
	int rc;

	if (list->count == 0)
		return 0;
	for (size_t i = 0; i < list->count; i++)
		if (plain_name(dir, list->files[i].name, err))
			return -1;
	if (!(f = calloc(list->count, sizeof(*f))))
		return mcri_error_nomem(err);
	for (size_t i = 0; i < list->count; i++) {
		f[i].name = list->files[i].name;
		f[i].text = list->files[i].text;
		f[i].len = strlen(list->files[i].text);
		f[i].durable = true;
	}
	rc = write_set(&t, f, list->count, err);
	free(f);
	return rc;
}

int mcr_write_files(const char *dir, const struct mcr_file_list *list, struct mcr_error *err)
{
	int fd, rc;

	if (list->count == 0)
		return 0;
	if ((fd = open_dir(dir, err)) < 0)
		return -1;
	rc = mcri_write_files_at(fd, dir, list, 0644, err);
	close(fd);
	return rc;
}

int mcri_mkdir_p(const char *path, unsigned mode, struct mcr_error *err)
{
	char *p;
	int rc = 0;

	if (!*path)
		return mcri_error_set(err, MCR_EINVAL,
				      "the directory to create is an empty path; name a directory (e.g. ./out)");
	if (!(p = strdup(path)))
		return mcri_error_nomem(err);
	for (char *s = p + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, (mode_t)mode) != 0 && errno != EEXIST) {
				rc = mcri_error_set(err, MCR_EIO, "cannot create the directory %s: %s", p,
						    strerror(errno));
				break;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	if (rc == 0) {
		struct stat st;

		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			rc = mcri_error_set(err, MCR_EIO,
					    "%s is not a directory; remove it or choose another job directory", path);
	}
	free(p);
	return rc;
}
