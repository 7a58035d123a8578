/*
 * files.c - files written so that no reader ever sees half of one
 * (temporary file in the same directory, fsync, rename), and mkdir -p.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/sys.h"

int mcr_write_file_atomic(const char *dir, const char *name, const char *text,
			  size_t len, struct mcr_error *err)
{
	return mcri_write_file(dir, name, text, len, true, err);
}

int mcri_write_file(const char *dir, const char *name, const char *text, size_t len,
		    bool durable, struct mcr_error *err)
{
	char *path = mcri_asprintf("%s/%s", dir, name);
	char *tmp = mcri_asprintf("%s/.%s.tmp.%ld", dir, name, (long)getpid());
	int fd = -1, rc = -1;
	size_t off = 0;

	if (!path || !tmp) {
		mcri_error_nomem(err);
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		mcri_error_set(err, MCR_EIO, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			mcri_error_set(err, MCR_EIO, "cannot write %s: %s", tmp,
				       n < 0 ? strerror(errno) : "short write");
			goto out;
		}
		off += (size_t)n;
	}
	if (durable && fsync(fd) != 0) {
		mcri_error_set(err, MCR_EIO, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		mcri_error_set(err, MCR_EIO, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		mcri_error_set(err, MCR_EIO, "cannot rename %s to %s: %s", tmp, path,
			       strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc && tmp)
		unlink(tmp);
	free(path);
	free(tmp);
	return rc;
}

int mcr_write_files(const char *dir, const struct mcr_file_list *list,
		    struct mcr_error *err)
{
	for (size_t i = 0; i < list->count; i++)
		if (mcr_write_file_atomic(dir, list->files[i].name,
					  list->files[i].text,
					  strlen(list->files[i].text), err))
			return -1;
	return 0;
}

int mcri_mkdir_p(const char *path, unsigned mode, struct mcr_error *err)
{
	char *p = strdup(path);
	int rc = 0;

	if (!p)
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
