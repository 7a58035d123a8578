/*
 * container_task.c - slurmstepd's side of containers (task_init of a role
 * step): can the task read its client config where it runs? Inside
 * Slurm's OCI --container, task_init runs before the runtime starts the
 * bundle, so the check looks where the bundle's config.json mounts the
 * file; anywhere else (the host, or a container a plugin before this one
 * entered, as pyxis does in its own task_init) it opens the path itself.
 * pyxis: in its container already (pyxis before this plugin in
 * plugstack.conf), the job's directory must be there; pyxis after this
 * plugin enters after this task_init, so its --container-mounts must
 * mount the directory, and its --container-env must name the plugin's
 * variables (pyxis sets the image's environment over the task's then).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "plugin/plugin.h"

static bool readable(const char *path, char *why, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, size, "%s", strerror(errno));
		return false;
	}
	close(fd);
	return true;
}

static bool bind_mount(json_t *m)
{
	const char *type = json_string_value(json_object_get(m, "type"));
	json_t *opt;
	size_t i;

	if (type && strcmp(type, "bind") == 0)
		return true;
	json_array_foreach(json_object_get(m, "options"), i, opt)
		if (json_is_string(opt) && (strcmp(json_string_value(opt), "bind") == 0 ||
					    strcmp(json_string_value(opt), "rbind") == 0))
			return true;
	return false;
}

/* Where `path` inside the OCI bundle is on the host: under the last of
 * the longest mounts whose destination holds it (*mounted; "" for a mount
 * that is not a bind, a tmpfs hiding it), else in the bundle's root file
 * system. -1 when config.json cannot be read (nothing to check). */
static int bundle_path(const char *bundle, const char *path, char *host, size_t size,
		       bool *mounted)
{
	char cfg[PATH_MAX + 16];
	json_t *o, *m;
	const char *root;
	size_t i, best = 0;

	snprintf(cfg, sizeof(cfg), "%s/config.json", bundle);
	if (!(o = json_load_file(cfg, 0, NULL)))
		return -1;
	*mounted = false;
	json_array_foreach(json_object_get(o, "mounts"), i, m) {
		const char *d = json_string_value(json_object_get(m, "destination"));
		const char *src = json_string_value(json_object_get(m, "source"));
		size_t dl = d ? strlen(d) : 0;

		while (dl > 1 && d[dl - 1] == '/')
			dl--;
		if (!dl || d[0] != '/' || dl < best)
			continue;
		if (dl > 1 && (strncmp(path, d, dl) != 0 || (path[dl] != '/' && path[dl] != '\0')))
			continue;
		best = dl;
		*mounted = true;
		if (bind_mount(m) && src)
			snprintf(host, size, "%s%s", src, dl > 1 ? path + dl : path);
		else
			host[0] = '\0';
	}
	if (!*mounted) {
		root = json_string_value(json_object_get(json_object_get(o, "root"), "path"));
		if (!root)
			root = "rootfs";
		if (root[0] == '/')
			snprintf(host, size, "%s%s", root, path);
		else
			snprintf(host, size, "%s/%s%s", bundle, root, path);
	}
	json_decref(o);
	return 0;
}

int mcp_task_config_check(spank_t sp, const char *path, struct mcr_error *err)
{
	char bundle[PATH_MAX], host[2 * PATH_MAX], node[256] = "", why[256], dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	bool mounted;

	gethostname(node, sizeof(node) - 1);
	snprintf(dir, sizeof(dir), "%.*s", slash && slash > path ? (int)(slash - path) : 1,
		 slash ? path : "/");
	/* Slurm's OCI --container: task_init runs before the runtime starts
	 * the bundle, in the host's view; look where the bundle puts the file */
	if (spank_getenv(sp, "SLURM_CONTAINER", bundle, sizeof(bundle)) == ESPANK_SUCCESS &&
	    bundle[0] && bundle_path(bundle, path, host, sizeof(host), &mounted) == 0) {
		if (!mounted && readable(host, why, sizeof(why)))
			return 0;
		if (!mounted || !host[0])
			return mcri_error_set(err, MCR_ESTATE,
					      "this task on %s runs in the OCI bundle %s (srun --container), which %s %s, so the task cannot read its client config %s (MOONCAKE_CONFIG_PATH) there. Mount the job's directory at the same path: add {\"destination\": \"%s\", \"type\": \"bind\", \"source\": \"%s\", \"options\": [\"rbind\"]} (or one for a directory above it) to the mounts of %s/config.json",
					      node, bundle, mounted ? "mounts something other than a bind mount at" : "does not mount",
					      dir, path, dir, dir, bundle);
		if (readable(host, why, sizeof(why)))
			return 0;
		return mcri_error_set(err, MCR_ESTATE,
				      "this task on %s runs in the OCI bundle %s (srun --container), which mounts its client config %s (MOONCAKE_CONFIG_PATH) from %s, and that cannot be read: %s. Mount the job's directory %s itself at the same path (a bind mount in %s/config.json), on a file system %s shares with srun's host",
				      node, bundle, path, host, why, dir, bundle, node);
	}
	/* the host's view, or a container's that a plugin before this one
	 * entered (pyxis joins the container's namespaces in task_init) */
	if (readable(path, why, sizeof(why)))
		return 0;
	return mcri_error_set(err, MCR_ESTATE,
			      "this task on %s cannot read its client config %s (MOONCAKE_CONFIG_PATH): %s. The job's directory %s must be readable where the task runs: on a file system that srun's host shares with %s, and in a container mounted at the same path (pyxis: --container-mounts=%s:%s; Slurm's --container: a bind mount of %s in the bundle's config.json)",
			      node, path, why, dir, node, dir, dir, dir);
}

/* ---- pyxis (slurmstepd) ---------------------------------------------- */

/* Does one of pyxis's --container-mounts ("SRC[:DST[:FLAGS]]", comma-
 * separated) put `dir` at its own path: a DST that is `dir` or above it,
 * whose SRC holds `dir` there (the same directory on this node)? */
static bool mounts_cover(const char *mounts, const char *dir)
{
	char *copy = mounts ? strdup(mounts) : NULL, *save = NULL;
	bool covered = false;
	struct stat want;

	if (!copy || stat(dir, &want) != 0) {
		free(copy);
		return false;
	}
	for (char *m = strtok_r(copy, ",", &save); m && !covered; m = strtok_r(NULL, ",", &save)) {
		char *src = m, *dst = strchr(m, ':'), path[2 * PATH_MAX];
		size_t len;
		struct stat got;

		if (dst) {
			*dst++ = '\0';
			dst[strcspn(dst, ":")] = '\0';
		} else {
			dst = src;
		}
		len = strlen(dst);
		while (len > 1 && dst[len - 1] == '/')
			len--;
		if (strncmp(dir, dst, len) != 0 || (len > 1 && dir[len] != '/' && dir[len] != '\0'))
			continue;
		snprintf(path, sizeof(path), "%s%s", src, len > 1 ? dir + len : dir);
		covered = stat(path, &got) == 0 && got.st_dev == want.st_dev && got.st_ino == want.st_ino;
	}
	free(copy);
	return covered;
}

int mcp_task_container_check(spank_t sp, const struct mcp_handover *h, const char *dir,
			     const char *config_dir, bool entered, struct mcr_error *err)
{
	const struct mcp_pyxis_step *p = &h->pyxis;
	char node[256] = "", container[PATH_MAX + 64] = "a container", probe[8];
	struct stat sb;

	gethostname(node, sizeof(node) - 1);
	/* the user's PYXIS_CONTAINER_ENV, as before srun named the plugin's
	 * variables there (pyxis has read it, in its init_post_opt) */
	if (p->image && !p->env) {
		spank_err_t rc = p->had ? spank_setenv(sp, "PYXIS_CONTAINER_ENV", p->was, 1) :
					  spank_unsetenv(sp, "PYXIS_CONTAINER_ENV");

		if (rc != ESPANK_SUCCESS)
			return mcri_error_set(err, MCR_ESTATE, "cannot set PYXIS_CONTAINER_ENV back: %s",
					      spank_strerror(rc));
	}
	if (p->image)
		snprintf(container, sizeof(container), "pyxis's container of %s", p->image);
	/* Slurm's OCI --container starts after task_init: the client
	 * config's check looks into the bundle (mcp_task_config_check) */
	if (spank_getenv(sp, "SLURM_CONTAINER", probe, sizeof(probe)) != ESPANK_ENV_NOEXIST)
		return 0;
	if (entered) {
		/* pyxis, before this plugin in plugstack.conf, has put the task
		 * in its container: the job's directory is there or not */
		if (!dir || stat(dir, &sb) == 0 || (errno != ENOENT && errno != ENOTDIR))
			return 0;
		return mcri_error_set(err, MCR_ESTATE,
				      "this task on %s runs in %s, which does not mount the job's directory %s (it does not exist there: %s), where the task's client config and the pool's record of its workers are. Mount it at its own path: add --container-mounts=%s:%s to this srun (or mount a directory above it, such as the shared file system, at its own path)",
				      node, container, dir, strerror(errno), dir, dir);
	}
	if (!p->image)
		return 0;
	/* pyxis, after this plugin in plugstack.conf, puts the task in its
	 * container after this task_init: only what it was given tells */
	dir = config_dir;
	if (dir && !mounts_cover(p->mounts, dir))
		return mcri_error_set(err, MCR_ESTATE,
				      "this task on %s runs in %s, which pyxis enters after this plugin's task_init (pyxis's line comes after spank_mooncake.so's in plugstack.conf), and %s%s%s the job's directory %s at its own path, so the task could not read its client config there. Add --container-mounts=%s:%s to this srun (or a mount of a directory above it at its own path); if the image or enroot's own configuration mounts it already, load pyxis before spank_mooncake.so in plugstack.conf (spank_mooncake(8), CONTAINERS): the plugin then looks inside the container",
				      node, container,
				      p->mounts ? "none of its --container-mounts (" : "it is given no --container-mounts",
				      p->mounts ? p->mounts : "", p->mounts ? ") mounts" : ", so nothing mounts",
				      dir, dir, dir);
	if (p->missing)
		return mcri_error_set(err, MCR_ESTATE,
				      "this task on %s runs in %s, which pyxis enters after this plugin's task_init (pyxis's line comes after spank_mooncake.so's in plugstack.conf); pyxis then sets each variable of the image's environment over the task's, except those --container-env names, and this srun's --container-env=%s lacks %s, which the plugin sets. Add them (--container-env=%s,%s), or leave --container-env out (the plugin then names them in PYXIS_CONTAINER_ENV), or load pyxis before spank_mooncake.so in plugstack.conf (spank_mooncake(8), CONTAINERS): the plugin's values are then set last",
				      node, container, p->env, p->missing, p->env, p->missing);
	return 0;
}
