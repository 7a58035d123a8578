/*
 * container_alias.c - srtctl's container aliases (srun): a recipe written
 * for srtctl says `container: trtllm`, and srtctl replaces it with
 * containers.trtllm of its cluster config, srtslurm.yaml. The plugin reads
 * the same file, found as srtctl finds it (its core/config.py): the file
 * $SRTSLURM_CONFIG names when that is set (and then only it: srtctl uses
 * no config when it does not exist), else the first srtslurm.yaml of the
 * working directory, its parent and its grandparent; then the cluster's
 * own file, srtslurm= in plugstack.conf. The first file that maps the
 * value wins; a value no file maps is left as it is (srtctl's rule), and
 * container.c refuses it when it is no image.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin.h"

#define SRTSLURM "srtslurm.yaml"

/* `fmt` at the end of `buf` (cut to fit) */
__attribute__((format(printf, 3, 4))) static void append(char *buf, size_t size,
							   const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* srtctl's own file into `path` ("" when it finds none); what was looked
 * at goes to `looked` */
static void srtctl_file(char *path, size_t size, char *looked, size_t looked_size)
{
	const char *env = getenv("SRTSLURM_CONFIG");
	char dir[PATH_MAX], candidate[PATH_MAX + 32], *slash;

	path[0] = '\0';
	if (env && *env) {
		if (access(env, F_OK) == 0)
			snprintf(path, size, "%s", env);
		else
			append(looked, looked_size, "SRTSLURM_CONFIG=%s, which does not exist (%s)",
			       env, strerror(errno));
		return;
	}
	if (!getcwd(dir, sizeof(dir))) {
		append(looked, looked_size, "no srtslurm.yaml: the working directory is unknown (%s)",
		       strerror(errno));
		return;
	}
	append(looked, looked_size, "no srtslurm.yaml in %s", dir);
	for (int up = 0; up < 3; up++) {
		snprintf(candidate, sizeof(candidate), "%s%s" SRTSLURM, dir,
			 strcmp(dir, "/") ? "/" : "");
		if (access(candidate, F_OK) == 0) {
			snprintf(path, size, "%.*s", (int)size - 1, candidate);
			looked[0] = '\0';
			return;
		}
		/* Path.parent: the directory above, "/" above "/" */
		slash = strrchr(dir, '/');
		if (slash == dir)
			dir[1] = '\0';
		else if (slash)
			*slash = '\0';
		if (up < 2)
			append(looked, looked_size, ", %s", dir);
	}
	append(looked, looked_size, " (and SRTSLURM_CONFIG is not set)");
}

int mcp_container_alias(const struct mcri_plugstack *ps, const char *value, char **resolved,
			char *how, size_t how_size, char *looked, size_t looked_size,
			struct mcr_error *err)
{
	char mine[PATH_MAX], missed[PATH_MAX + 256] = "";
	const char *files[2] = { mine, ps->srtslurm };
	struct mcr_position where;
	int rc;

	*resolved = NULL;
	how[0] = looked[0] = '\0';
	srtctl_file(mine, sizeof(mine), missed, sizeof(missed));
	for (int i = 0; i < 2; i++) {
		if (!files[i][0])
			continue;
		rc = mcr_srtslurm_container(files[i], NULL, value, resolved, &where, err);
		if (rc < 0)
			return -1;
		if (rc == 1) {
			snprintf(how, how_size, "'%.256s' is %s of %s:%d:%d", value, where.path,
				 where.source, where.line, where.column);
			return 0;
		}
		append(looked, looked_size, "%s%s%s", looked[0] ? ", " : "", files[i],
		       i ? " (srtslurm= in plugstack.conf)" : "");
	}
	if (missed[0])
		append(looked, looked_size, "%s%s", looked[0] ? "; " : "", missed);
	if (!ps->srtslurm[0])
		append(looked, looked_size, "; plugstack.conf names no cluster-wide file (srtslurm=)");
	return 0;
}
