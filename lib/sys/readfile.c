/*
 * readfile.c - the whole of a small text file (a recipe, srtctl's
 * srtslurm.yaml), read to its end rather than to st_size (a file of /proc
 * or of some FUSE file systems says 0 and has text), at most `max` bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/sys.h"

int mcri_read_fd(int fd, size_t max, char **text, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	*text = NULL;
	*len = 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return EISDIR;
	if ((unsigned long long)st.st_size > max)
		return EFBIG;
	for (;;) {
		ssize_t got;

		if (n == cap) {
			char *t;

			if (cap > max) {
				rc = EFBIG;
				break;
			}
			cap = cap ? cap * 2 : (size_t)st.st_size + 4096;
			if (cap > max + 1)
				cap = max + 1;
			if (!(t = realloc(buf, cap + 1))) {
				rc = ENOMEM;
				break;
			}
			buf = t;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = errno;
			break;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (rc == 0 && n > max)
		rc = EFBIG;
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

int mcri_read_file(const char *path, size_t max, char **text, size_t *len)
{
	int fd, rc;

	*text = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO does not hang the open (it is refused below) */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno;
	rc = mcri_read_fd(fd, max, text, len);
	close(fd);
	return rc;
}
