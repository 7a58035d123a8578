/*
 * container_task.c - slurmstepd's side of containers (task_init of a role
 * step): can the task read its client config where it runs? Inside
 * Slurm's OCI --container, task_init runs before the runtime starts the
 * bundle, so the check looks where the bundle's config.json mounts the
 * file; anywhere else (the host, or a container a plugin before this one
 * entered, as pyxis does in its own task_init) it opens the path itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "plugin.h"

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
