/*
 * files.c - files written so that no reader ever sees half of one
 * (temporary file in the same directory, fsync, rename), a set of files
 * replaced all together or not at all, and mkdir -p.
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

/* One file of a set being written: its path, its temporary file, and a
 * hard link to the file it replaces (to put it back if the set fails). */
struct pending {
	const char *name, *text;
	size_t len;
	bool durable;  /* fsync before the rename */
	char *path, *tmp, *backup;
	bool replaced; /* renamed into place */
};

/* "<dir>/.<name>.<what>.<12 random characters>", created with O_EXCL (or,
 * for a backup, linked to `from`): nobody can plant a file or a link at a
 * name we are about to write through. -1 with errno set. */
static int unique_name(const char *dir, const char *name, const char *what,
		       const char *from, char **out)
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
		if (!(*out = mcri_asprintf("%s/.%s.%s.%s", dir, name, what, suffix))) {
			errno = ENOMEM;
			return -1;
		}
		if (from ? link(from, *out) == 0 :
		    (fd = open(*out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644)) >= 0)
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
static int write_tmp(const char *dir, struct pending *f, struct mcr_error *err)
{
	int fd = unique_name(dir, f->name, "tmp", NULL, &f->tmp);
	size_t off = 0;

	if (fd < 0)
		return errno == ENOMEM ? mcri_error_nomem(err) :
		       mcri_error_set(err, MCR_EIO, "cannot write %s: %s", f->path, strerror(errno));
	while (off < f->len) {
		ssize_t n = write(fd, f->text + off, f->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			mcri_error_set(err, MCR_EIO, "cannot write %s: %s", f->tmp,
				       n < 0 ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	if (f->durable && fsync(fd) != 0) {
		mcri_error_set(err, MCR_EIO, "cannot write %s: %s", f->tmp, strerror(errno));
		close(fd);
		return -1;
	}
	if (close(fd) != 0)
		return mcri_error_set(err, MCR_EIO, "cannot write %s: %s", f->tmp, strerror(errno));
	return 0;
}

/* What can be checked before anything is replaced: the path is a regular
 * file or nothing, and a file there is kept as a backup (a hard link). */
static int prepare_replace(const char *dir, struct pending *f, struct mcr_error *err)
{
	struct stat st;

	if (lstat(f->path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		return mcri_error_set(err, MCR_EIO, "cannot write %s: %s", f->path, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return mcri_error_set(err, MCR_EIO,
				      "cannot write %s: it exists and is not a regular file (%s); remove it",
				      f->path, S_ISDIR(st.st_mode) ? "a directory" : "a special file or link");
	if (unique_name(dir, f->name, "old", f->path, &f->backup) != 0)
		return errno == ENOMEM ? mcri_error_nomem(err) : mcri_error_set(err, MCR_EIO, "cannot keep the previous %s while it is replaced: %s",
				      f->path, strerror(errno));
	return 0;
}

/* The files of a set all replaced, or none: every text is written to a
 * temporary file first; the old files are linked to backups; then each is
 * renamed into place, and a failed rename puts the earlier ones back. */
static int write_set(const char *dir, struct pending *f, size_t n, struct mcr_error *err)
{
	size_t i;
	int rc = -1;

	for (i = 0; i < n; i++)
		if (!(f[i].path = mcri_asprintf("%s/%s", dir, f[i].name))) {
			mcri_error_nomem(err);
			goto out;
		}
	for (i = 0; i < n; i++)
		if (write_tmp(dir, &f[i], err) || prepare_replace(dir, &f[i], err))
			goto out;
	for (i = 0; i < n; i++) {
		if (rename(f[i].tmp, f[i].path) != 0) {
			mcri_error_set(err, MCR_EIO, "cannot rename %s to %s: %s; no file of the set was changed",
				       f[i].tmp, f[i].path, strerror(errno));
			goto out;
		}
		f[i].replaced = true;
	}
	rc = 0;
out:
	for (i = 0; i < n; i++) {
		if (rc && f[i].replaced && !(f[i].backup ? rename(f[i].backup, f[i].path) == 0 :
							 unlink(f[i].path) == 0))
			mcri_error_set(err, MCR_EIO,
				       "cannot put %s back after a failed write: %s; the directory holds a mix of old and new files: write them again",
				       f[i].path, strerror(errno));
		if (f[i].tmp && !f[i].replaced)
			unlink(f[i].tmp);
		if (f[i].backup && !(rc && f[i].replaced))
			unlink(f[i].backup);
		free(f[i].path);
		free(f[i].tmp);
		free(f[i].backup);
	}
	return rc;
}

int mcri_write_file(const char *dir, const char *name, const char *text, size_t len,
		    bool durable, struct mcr_error *err)
{
	struct pending f = { name, text, len, durable, NULL, NULL, NULL, false };

	return write_set(dir, &f, 1, err);
}

int mcr_write_file_atomic(const char *dir, const char *name, const char *text,
			  size_t len, struct mcr_error *err)
{
	return mcri_write_file(dir, name, text, len, true, err);
}

int mcr_write_files(const char *dir, const struct mcr_file_list *list,
		    struct mcr_error *err)
{
	struct pending *f;
	int rc;

	if (list->count == 0)
		return 0;
	if (!(f = calloc(list->count, sizeof(*f))))
		return mcri_error_nomem(err);
	for (size_t i = 0; i < list->count; i++) {
		f[i].name = list->files[i].name;
		f[i].text = list->files[i].text;
		f[i].len = strlen(list->files[i].text);
		f[i].durable = true;
	}
	rc = write_set(dir, f, list->count, err);
	free(f);
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
				rc = mcri_error_set(err, MCR_EIO,
						    "cannot create the directory %s: %s",
						    p, strerror(errno));
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
					    "%s is not a directory; remove it or choose another job directory",
					    path);
	}
	free(p);
	return rc;
}
