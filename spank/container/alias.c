/*
 * alias.c - srtctl's container aliases (srun): a recipe written
 * for srtctl says `container: trtllm`, and srtctl replaces it with
 * containers.trtllm of its cluster config, srtslurm.yaml. The plugin reads
 * the same file, found as srtctl finds it (its core/config.py): the file
 * $SRTSLURM_CONFIG names when that is set (and then only it: srtctl uses
 * no config when it does not exist), else the first srtslurm.yaml of the
 * working directory, its parent and its grandparent; then the cluster's
 * own file, srtslurm= in plugstack.conf. The first file that maps the
 * value wins; a value no file maps is left as it is (srtctl's rule), and
 * container.c refuses it when it is no image.
 *
 * A file the user (SRTSLURM_CONFIG) or the admin (srtslurm=) names is
 * theirs to choose. A file the lookup finds by itself may sit where
 * others write (a shared project directory, /tmp): it is read only when
 * it belongs to the user or root and no one else can change it, by the job
 * directory's rule (runtime/jobdir: mcri_trusted_open), opened once and
 * read from that descriptor; any other is skipped, said, and the lookup
 * goes on as if it were not there.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/alias.h"
#include "jobdir/jobdir.h"
#include "model/model.h"

#define SRTSLURM "srtslurm.yaml"

/* `fmt` at the end of `buf` (cut to fit) */
__attribute__((format(printf, 3, 4))) static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* what the lookup found: srtctl's own file, by name or open */
struct found {
	char path[PATH_MAX];
	int fd;                      /* the file the lookup found, checked; -1 */
	int open_errno;              /* it could not be opened (fd -1, path set) */
	char missed[PATH_MAX + 256]; /* where none was */
	char skipped[2 * PATH_MAX];  /* "skipped F (it belongs to ...)", ... */
};

/* srtctl's own file into f (path "" when there is none) */
static void srtctl_file(struct found *f)
{
	const char *env = getenv("SRTSLURM_CONFIG");
	char dir[PATH_MAX], candidate[PATH_MAX + 32], *slash;
	struct mcr_error err = { 0 };

	if (env && *env) {
		if (access(env, F_OK) == 0)
			snprintf(f->path, sizeof(f->path), "%s", env);
		else
			append(f->missed, sizeof(f->missed), "SRTSLURM_CONFIG=%s, which does not exist (%s)", env,
			       strerror(errno));
		return;
	}
	if (!getcwd(dir, sizeof(dir))) {
		append(f->missed, sizeof(f->missed), "no srtslurm.yaml: the working directory is unknown (%s)",
		       strerror(errno));
		return;
	}
	append(f->missed, sizeof(f->missed), "no srtslurm.yaml in %s", dir);
	for (int up = 0; up < 3; up++) {
		int fd;

		snprintf(candidate, sizeof(candidate), "%s%s" SRTSLURM, dir, strcmp(dir, "/") ? "/" : "");
		fd = mcri_trusted_open(candidate, getuid(), &err);
		if (fd == -2) {
			append(f->skipped, sizeof(f->skipped), "%sskipped %s (%s)", f->skipped[0] ? "; " : "",
			       candidate, err.text);
		} else if (fd >= 0 || errno != ENOENT) {
			snprintf(f->path, sizeof(f->path), "%.*s", (int)sizeof(f->path) - 1, candidate);
			f->fd = fd;
			f->open_errno = fd < 0 ? errno : 0;
			f->missed[0] = '\0';
			return;
		}
		/* Path.parent: the directory above, "/" above "/" */
		slash = strrchr(dir, '/');
		if (slash == dir)
			dir[1] = '\0';
		else if (slash)
			*slash = '\0';
		if (up < 2)
			append(f->missed, sizeof(f->missed), ", %s", dir);
	}
	append(f->missed, sizeof(f->missed), " (and SRTSLURM_CONFIG is not set)");
}

int mcp_container_alias(const struct mcri_plugstack *ps, const char *value, char **resolved, char *how, size_t how_size,
			char *looked, size_t looked_size, char *skipped, size_t skipped_size, struct mcr_error *err)
{
	struct found *f = calloc(1, sizeof(*f));
	const char *files[2];
	struct mcr_position where;
	int rc = 0, got;

	*resolved = NULL;
	how[0] = looked[0] = skipped[0] = '\0';
	if (!f)
		return mcri_error_nomem(err);
	f->fd = -1;
	srtctl_file(f);
	files[0] = f->path;
	files[1] = ps->srtslurm;
	snprintf(skipped, skipped_size, "%s", f->skipped);
	for (int i = 0; i < 2; i++) {
		if (!files[i][0])
			continue;
		/* the found file through the descriptor it was checked by */
		if (i == 0 && (f->fd >= 0 || f->open_errno)) {
			errno = f->open_errno;
			got = mcri_srtslurm_container_fd(f->fd, files[i], value, resolved, &where, err);
		} else {
			got = mcr_srtslurm_container(files[i], NULL, value, resolved, &where, err);
		}
		if (got < 0) {
			rc = -1;
			break;
		}
		if (got == 1) {
			snprintf(how, how_size, "'%.256s' is %s of %s:%d:%d", value, where.path, where.source,
				 where.line, where.column);
			break;
		}
		append(looked, looked_size, "%s%s%s", looked[0] ? ", " : "", files[i],
		       i ? " (srtslurm= in plugstack.conf)" : "");
	}
	if (rc == 0 && !*resolved) {
		if (f->skipped[0])
			append(looked, looked_size, "%s%s", looked[0] ? "; " : "", f->skipped);
		if (f->missed[0])
			append(looked, looked_size, "%s%s", looked[0] ? "; " : "", f->missed);
		if (!ps->srtslurm[0])
			append(looked, looked_size, "; plugstack.conf names no cluster-wide file (srtslurm=)");
	}
	if (f->fd >= 0)
		close(f->fd);
	free(f);
	return rc;
}
