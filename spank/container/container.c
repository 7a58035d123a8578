/*
 * container.c - where the steps the plugin starts run (srun): the recipe's
 * container, through the container system the cluster has, or the host;
 * and, in slurmstepd, a role task's checks: whether it can read its client
 * config where it runs, and what pyxis must mount and keep.
 *
 * The recipe names the master's container as srtctl reads it (the
 * service's `container`, else engine.mooncake_kv_store.container, else
 * model.container: mcr_recipe_master_container). plugstack container=
 * says which container system runs it:
 *   pyxis  srun --container-image=IMAGE --container-mounts=DIR:DIR
 *          --container-workdir=DIR (DIR the job's directory)
 *   oci    srun --container=BUNDLE (Slurm's OCI support, oci.conf); the
 *          master's name goes through /usr/bin/env, so that it is looked
 *          up on the PATH inside the bundle (slurmstepd resolves a bare
 *          name on the host before the runtime starts)
 *   none   the host's mooncake_master, as without a container
 *   auto   oci when the cluster has oci.conf and the value is a bundle
 *          directory, else pyxis when srun has --container-image, else oci
 *          when it has oci.conf, else the host, with one line saying the
 *          recipe's container is not used.
 * srun decides in init_post_opt, before any step exists: a value the
 * chosen system cannot use refuses the srun with what to write instead.
 * The step gets the options of that choice and no other (step.c); in
 * pyxis, --container-env names the variables srun sets for it.
 *
 * A role step whose tasks pyxis runs in a container of the user's (srun's
 * --container-image): pyxis sets the image's environment over each
 * task's, except the names of --container-env, so srun names the
 * plugin's variables in PYXIS_CONTAINER_ENV, pyxis's default for it, and
 * hands the tasks what they need to check the rest (below, task_init).
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "container/alias.h"
#include "container/container.h"
#include "model/model.h"
#include "plugin/child.h"
#include "plugin/handover.h"

/* where slurm.conf (and oci.conf next to it) lives without SLURM_CONF */
#ifndef MCP_SLURM_CONFDIR
#define MCP_SLURM_CONFDIR "/etc/slurm"
#endif
#define HELP_TIMEOUT_MS 10000
#define HELP_MAX (1 << 20)

extern char **environ;

/* ---- the cluster's container support -------------------------------- */

/* does `srun --help` list `option`? (pyxis registers --container-image in
 * every srun through plugstack.conf) */
static bool srun_lists(const char *srun, const char *option)
{
	char *argv[] = { (char *)srun, "--help", NULL }, *buf = malloc(HELP_MAX + 1);
	struct timespec t0, now;
	size_t len = 0;
	int fds[2] = { -1, -1 }, rc, status;
	pid_t pid = -1;
	bool found = false;

	if (!buf || pipe2(fds, O_CLOEXEC) != 0) {
		free(buf);
		return false;
	}
	rc = mcp_spawn(argv, environ, &(struct mcp_spawn_io){ .log_fd = -1, .out_fd = fds[1] }, &pid);
	close(fds[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (rc == 0 && len < HELP_MAX) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		long waited;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		waited = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (waited >= HELP_TIMEOUT_MS || poll(&p, 1, (int)(HELP_TIMEOUT_MS - waited)) <= 0)
			break;
		n = read(fds[0], buf + len, HELP_MAX - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fds[0]);
	if (pid > 0) {
		kill(pid, SIGKILL); /* gone already, as a rule */
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	buf[len] = '\0';
	found = memmem(buf, len, option, strlen(option)) != NULL;
	free(buf);
	return found;
}

void mcp_container_probe(const struct mcri_plugstack *ps, struct mcp_container_site *site)
{
	const char *conf = getenv("SLURM_CONF");
	const char *slash = conf ? strrchr(conf, '/') : NULL;

	memset(site, 0, sizeof(*site));
	if (slash && slash > conf)
		snprintf(site->oci_conf, sizeof(site->oci_conf), "%.*s/oci.conf", (int)(slash - conf), conf);
	else
		snprintf(site->oci_conf, sizeof(site->oci_conf), "%s/oci.conf", MCP_SLURM_CONFDIR);
	site->oci = access(site->oci_conf, F_OK) == 0;
	site->pyxis = srun_lists(ps->srun, "--container-image");
}

/* ---- the recipe's value ----------------------------------------------- */

/* the recipe's value, as the chosen container system gets it */
struct value {
	const char *v;             /* what it names, after srtctl's aliases */
	struct mcr_position where; /* the recipe's position and key path
				    * (where.path is "model.container") */
	char how[PATH_MAX + 512];  /* how an alias resolved; "" for none */
	char looked[2048];         /* no alias resolved: the srtslurm.yaml read */
	char skipped[1024];        /* the srtslurm.yaml the lookup did not trust */
	const char *why;           /* the container system, and who chose it */
	/* what runs in it: "the master step", "mooncake_master", "the infra
	 * node" (a lender's: lender.c) */
	const char *step, *program, *node;
};

/* "<key path> (<how an alias resolved>): <text>" at the recipe's value:
 * an error of `kind` in err (returns -1), or with err NULL c->note, a
 * line for srun (-v when c->note_verbose) */
static int say_at_value(struct mcr_error *err, enum mcr_error_kind kind, struct mcp_container *c,
			const struct value *val, const char *fmt, va_list ap)
{
	char *text = NULL, *s = NULL;

	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	if (!text || asprintf(&s, "%s%s%s%s: %s", val->where.path, val->how[0] ? " (" : "", val->how,
			      val->how[0] ? ")" : "", text) < 0)
		s = NULL;
	free(text);
	if (err && s)
		mcri_error_at(err, kind, &val->where, "%s", s);
	else if (err)
		mcri_error_nomem(err);
	else
		mcri_note_at(c->note, sizeof(c->note), &val->where, "%s", s ? s : "out of memory");
	free(s);
	return -1;
}

/* err at the recipe's value; returns -1 */
static int at_value(struct mcr_error *err, enum mcr_error_kind kind, const struct value *val, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int at_value(struct mcr_error *err, enum mcr_error_kind kind, const struct value *val, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_at_value(err, kind, NULL, val, fmt, ap);
	va_end(ap);
	return -1;
}

/* c->note: a line about the recipe's value for srun (-v when `verbose`) */
static void note_value(struct mcp_container *c, bool verbose, const struct value *val, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void note_value(struct mcp_container *c, bool verbose, const struct value *val, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_at_value(NULL, MCR_OK, c, val, fmt, ap);
	va_end(ap);
	c->note_verbose = verbose;
}

/* an srtctl alias (srtslurm.yaml's containers:) or a bare image name */
static bool bare_word(const char *v)
{
	return v[0] && strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == strlen(v) &&
	       v[0] != '.';
}

static bool looks_like_path(const char *v)
{
	return v[0] == '/' || strncmp(v, "./", 2) == 0 || strncmp(v, "../", 3) == 0;
}

/* a directory with config.json: its real path into `out` */
static bool is_bundle(const char *v, char *out, size_t size)
{
	char real[PATH_MAX], cfg[PATH_MAX + 16];
	struct stat sb;

	if (!looks_like_path(v) || !realpath(v, real) || stat(real, &sb) || !S_ISDIR(sb.st_mode))
		return false;
	snprintf(cfg, sizeof(cfg), "%s/config.json", real);
	if (access(cfg, R_OK) != 0)
		return false;
	snprintf(out, size, "%s", real);
	return true;
}

static int oci_value(const struct value *val, struct mcp_container *c, struct mcr_error *err)
{
	const char *v = val->v;
	char real[PATH_MAX];
	struct stat sb;

	if (is_bundle(v, c->value, sizeof(c->value))) {
		c->mode = MCRI_CONTAINER_OCI;
		return 0;
	}
	if (!looks_like_path(v) && bare_word(v))
		return at_value(
			err, MCR_EINVAL, val,
			"'%s' is not an OCI bundle directory. With %s, %s runs as srun --container=BUNDLE, and a bundle is a directory that holds config.json and its root file system; '%s' looks like an srtctl alias (srtslurm.yaml's containers:) or an image name, and no srtslurm.yaml maps it (%s). Write the bundle's absolute path (the same on every node), e.g. %s: /shared/bundles/%s, or map the alias to it in containers: of srtslurm.yaml",
			v, val->why, val->step, v, val->looked, val->where.path, v);
	if (!looks_like_path(v))
		return at_value(
			err, MCR_EINVAL, val,
			"'%s' is not an OCI bundle directory. With %s, %s runs as srun --container=BUNDLE, and a bundle is a directory that holds config.json and its root file system; '%s' looks like an image name. Write the bundle's absolute path (the same on every node), e.g. %s: /shared/bundles/trtllm",
			v, val->why, val->step, v, val->where.path);
	if (!realpath(v, real) || stat(real, &sb) != 0)
		return at_value(
			err, MCR_EINVAL, val,
			"the OCI bundle %s does not exist here (%s); with %s, %s runs as srun --container=BUNDLE: write the path of a bundle directory (config.json and its root file system) that exists on this host and the compute nodes",
			v, strerror(errno), val->why, val->step);
	if (!S_ISDIR(sb.st_mode))
		return at_value(
			err, MCR_EINVAL, val,
			"%s is a file, not an OCI bundle directory (a squashfs image is for pyxis/enroot); with %s, %s runs as srun --container=BUNDLE: write the path of a directory that holds config.json and its root file system",
			v, val->why, val->step);
	return at_value(
		err, MCR_EINVAL, val,
		"%s has no config.json, so it is not an OCI bundle; with %s, %s runs as srun --container=BUNDLE: make the bundle's config.json there (`crun spec` or `runc spec` next to its rootfs/), or name the bundle directory that has one",
		v, val->why, val->step);
}

/* a name that says "squashfs file" (enroot's and srtctl's spellings) */
static bool squashfs_name(const char *v)
{
	static const char *const ends[] = { ".sqsh", ".squashfs", ".sqfs", NULL };
	size_t len = strlen(v);

	for (const char *const *e = ends; *e; e++)
		if (len > strlen(*e) && strcmp(v + len - strlen(*e), *e) == 0)
			return true;
	return false;
}

/* pyxis runs a squashfs file only when its name starts with '/' or '.';
 * anything else it pulls from a registry (NVIDIA/pyxis issue 127), and a
 * relative name is relative to where its task runs. So a file named
 * relative to this directory gets its absolute path, and a file name that
 * is no file here is refused, before any step starts. */
static int pyxis_value(const struct value *val, struct mcp_container *c, struct mcr_error *err)
{
	const char *v = val->v;
	char real[PATH_MAX], cwd[PATH_MAX] = "?";
	struct stat sb;
	bool exists = stat(v, &sb) == 0, file_name = v[0] == '/' || v[0] == '.';
	int missing = exists ? 0 : errno;

	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "?");
	if (!exists && bare_word(v) && !squashfs_name(v))
		return at_value(
			err, MCR_EINVAL, val,
			"'%s' looks like an srtctl alias (srtslurm.yaml's containers:), and no srtslurm.yaml maps it (%s); with %s, %s runs as srun --container-image=IMAGE: map it in containers: of srtslurm.yaml, or write the image itself, a registry image (e.g. %s: nvcr.io#nvidia/tensorrt-llm/release:1.0.0, or docker.io#library/%s:latest for Docker Hub's) or the absolute path of a squashfs file (e.g. /shared/images/%s.sqsh)",
			v, val->looked, val->why, val->step, val->where.path, v, v);
	if (exists && S_ISDIR(sb.st_mode))
		return at_value(
			err, MCR_EINVAL, val,
			"%s is a directory; with %s, %s runs as srun --container-image=IMAGE, and pyxis runs an image (a registry image or a squashfs file), not a directory or an OCI bundle: write the image, or run it with Slurm's --container (container=oci in plugstack.conf)",
			v, val->why, val->step);
	if (exists && v[0] != '/') {
		if (!realpath(v, real))
			return at_value(err, MCR_EIO, val, "cannot resolve %s (relative to %s): %s", v, cwd,
					strerror(errno));
		snprintf(c->value, sizeof(c->value), "%s", real);
	} else if (!exists && v[0] != '/' && (file_name || squashfs_name(v))) {
		return at_value(
			err, MCR_EINVAL, val,
			"the squashfs file %s does not exist here (relative to %s: %s); with %s, %s runs as srun --container-image=IMAGE, and pyxis takes a squashfs file only by its absolute path or one starting with ./ (anything else is pulled from a registry), relative to where its task runs: write the file's absolute path, the same on every node (e.g. %s: /shared/images/%s)",
			v, cwd, strerror(missing), val->why, val->step, val->where.path,
			strrchr(v, '/') ? strrchr(v, '/') + 1 : v);
	} else {
		/* a registry image, or an absolute path (perhaps the nodes' own) */
		snprintf(c->value, sizeof(c->value), "%s", v);
	}
	c->mode = MCRI_CONTAINER_PYXIS;
	return 0;
}

/* the value for the chosen system, srtctl's aliases resolved first */
static int in_container(const struct mcri_plugstack *ps, const struct mcp_container_site *site, struct value *val,
			struct mcp_container *c, struct mcr_error *err)
{
	char *resolved = NULL, how[PATH_MAX + 512], oci_why[PATH_MAX + 128];
	int rc;

	if (mcp_container_alias(ps, val->v, &resolved, how, sizeof(how), val->looked, sizeof(val->looked), val->skipped,
				sizeof(val->skipped), err))
		return -1;
	if (resolved) {
		val->v = resolved;
		snprintf(val->how, sizeof(val->how), "%s", how);
	}
	if (ps->container == MCRI_CONTAINER_PYXIS) {
		val->why = "container=pyxis in plugstack.conf";
		rc = pyxis_value(val, c, err);
	} else if (ps->container == MCRI_CONTAINER_OCI) {
		val->why = "container=oci in plugstack.conf";
		rc = oci_value(val, c, err);
	} else if (site->oci && is_bundle(val->v, c->value, sizeof(c->value))) {
		c->mode = MCRI_CONTAINER_OCI;
		rc = 0;
	} else if (site->pyxis) {
		val->why = "pyxis on this cluster (srun has --container-image)";
		rc = pyxis_value(val, c, err);
	} else {
		snprintf(oci_why, sizeof(oci_why), "Slurm's OCI containers on this cluster (%s)", site->oci_conf);
		val->why = oci_why;
		rc = oci_value(val, c, err);
	}
	/* the srun that starts the master says which image, from which file,
	 * and which srtslurm.yaml it did not trust (step.c) */
	if (rc == 0)
		note_value(
			c, false, val, "%s runs in %s (%s)%s%s%s", val->step, c->value,
			c->mode == MCRI_CONTAINER_OCI ? "Slurm's --container" : "pyxis", val->skipped[0] ? "; " : "",
			val->skipped,
			val->skipped[0]
				? ": a srtslurm.yaml found in the working directory or above is read only when it is yours or root's and no one else can change it (SRTSLURM_CONFIG names one to read as it is)"
				: "");
	free(resolved);
	return rc;
}

int mcp_container_decide(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe,
			 const struct mcp_container_site *given, struct mcp_container *c, struct mcr_error *err)
{
	struct mcr_position where;
	const char *v = mcr_recipe_master_container(recipe, &where);

	return mcp_container_decide_value(ps, v, &where, NULL, given, c, err);
}

int mcp_container_decide_value(const struct mcri_plugstack *ps, const char *value, const struct mcr_position *where,
			       const char *const *what, const struct mcp_container_site *given, struct mcp_container *c,
			       struct mcr_error *err)
{
	struct mcp_container_site probed;
	const struct mcp_container_site *site = given;
	struct value val = { 0 };

	memset(c, 0, sizeof(*c));
	c->mode = MCRI_CONTAINER_NONE;
	if (!(val.v = value))
		return 0;
	val.where = *where;
	val.step = what ? what[0] : "the master step";
	val.program = what ? what[1] : "mooncake_master";
	val.node = what ? what[2] : "the infra node";
	if (ps->container == MCRI_CONTAINER_NONE) { /* a line for srun -v (srun.c) */
		note_value(c, true, &val, "'%s' is not used (container=none in plugstack.conf): %s runs on the host",
			   val.v, what ? val.program : "the master");
		return 0;
	}
	if (ps->container == MCRI_CONTAINER_AUTO && !site) {
		mcp_container_probe(ps, &probed);
		site = &probed;
	}
	if (ps->container != MCRI_CONTAINER_AUTO || site->pyxis || site->oci)
		return in_container(ps, site, &val, c, err);
	/* no container support: the host's master, said once by the srun
	 * that starts it */
	note_value(
		c, false, &val,
		"'%s' is not used: this cluster has no container support for %s (srun has no --container-image, there is no %s), so %s runs from the PATH of %s, as without a container; container=none in plugstack.conf says so for good",
		val.v, val.step, site->oci_conf, val.program, val.node);
	return 0;
}

/* ---- a step's command line in the container -------------------------- */

static int add(char **v, size_t *n, char *s, struct mcr_error *err)
{
	if (!s)
		return mcri_error_nomem(err);
	v[(*n)++] = s;
	return 0;
}

/* The names of the variables srun sets for the step (`env`), comma-joined
 * for pyxis's --container-env, and FLAGS_rpc_address, which the master
 * step's task sets for an HA pool's master (stepd.c) (heap) */
static char *step_env_names(const struct mcr_env *env)
{
	struct mcri_buf b = { 0 };

	for (size_t i = 0; env && i < env->count; i++) {
		mcri_buf_puts(&b, i ? "," : "");
		mcri_buf_puts(&b, env->vars[i].name);
	}
	if (env && mcr_env_get(env, MCP_HA_VAR))
		mcri_buf_puts(&b, env->count ? ",FLAGS_rpc_address" : "FLAGS_rpc_address");
	return mcri_buf_take(&b);
}

int mcp_container_options(const struct mcp_container *c, const char *dir, const struct mcr_env *env, char ***options,
			  char ***cmd, struct mcr_error *err)
{
	char **opts, **wrapped, *names;
	size_t n = 0, len;

	*options = NULL;
	if (!c || c->mode == MCRI_CONTAINER_NONE)
		return 0;
	if (!(opts = calloc(5, sizeof(*opts))))
		return mcri_error_nomem(err);
	*options = opts;
	if (c->mode == MCRI_CONTAINER_OCI) {
		/* slurmstepd resolves a bare name on the host, before crun
		 * starts the bundle: env(1) looks it up inside */
		if (add(opts, &n, mcri_asprintf("--container=%s", c->value), err))
			return -1;
		if ((*cmd)[0][0] == '/')
			return 0;
		len = mcr_strv_len(*cmd);
		if (!(wrapped = calloc(len + 2, sizeof(*wrapped))))
			return mcri_error_nomem(err);
		wrapped[0] = strdup("/usr/bin/env");
		if (!wrapped[0]) {
			free(wrapped);
			return mcri_error_nomem(err);
		}
		memcpy(wrapped + 1, *cmd, len * sizeof(*wrapped));
		free(*cmd);
		*cmd = wrapped;
		return 0;
	}
	/* pyxis: the job's directory at its own path, the step working there */
	if (strpbrk(dir, ":,"))
		return mcri_error_set(
			err, MCR_EINVAL,
			"the job's directory %s has a ':' or ',' in its name, which pyxis's --container-mounts cannot mount: give the job a directory without them (output.log_dir, or job_dir= in plugstack.conf)",
			dir);
	if (add(opts, &n, mcri_asprintf("--container-image=%s", c->value), err) ||
	    add(opts, &n, mcri_asprintf("--container-mounts=%s:%s", dir, dir), err) ||
	    add(opts, &n, mcri_asprintf("--container-workdir=%s", dir), err))
		return -1;
	/* pyxis sets the image's environment over the task's, whichever
	 * plugin comes first, except the names of --container-env: the
	 * step's own variables keep srun's values */
	if (!(names = step_env_names(env)))
		return mcri_error_nomem(err);
	if (names[0] && add(opts, &n, mcri_asprintf("--container-env=%s", names), err)) {
		free(names);
		return -1;
	}
	free(names);
	return 0;
}

/* ---- a role step in pyxis's container (srun) ------------------------- */

/* srun's value of pyxis's option `name` ("container-image"): Slurm keeps
 * every option of every plugin in srun's environment before init_post_opt
 * (_SLURM_SPANK_OPTION_pyxis_container_image, from srun's command line or
 * sbatch's), and slurmstepd takes it from there; else, for slurmstepd,
 * pyxis's default PYXIS_CONTAINER_<NAME> (only when *given is false). */
static const char *pyxis_option(const char *name, bool *given)
{
	char var[128];
	const char *v;
	size_t n;

	snprintf(var, sizeof(var), "_SLURM_SPANK_OPTION_pyxis_%s", name);
	for (char *p = var + strlen("_SLURM_SPANK_OPTION_pyxis_"); *p; p++)
		*p = *p == '-' ? '_' : *p;
	if ((v = getenv(var)) && v[0]) {
		*given = true;
		return v;
	}
	*given = false;
	n = (size_t)snprintf(var, sizeof(var), "PYXIS_%s", name);
	for (size_t i = 0; i < n; i++)
		var[i] = var[i] == '-' ? '_' : (char)toupper((unsigned char)var[i]);
	v = getenv(var);
	return v && v[0] ? v : NULL;
}

/* is `name` one of the comma-separated `list`? */
static bool listed(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 1 : 0))
		if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

/* `list` with each of `names` it lacks appended (heap; NULL out of
 * memory) */
static char *with_names(const char *list, const char *const *names, size_t count)
{
	struct mcri_buf b = { 0 };

	mcri_buf_puts(&b, list ? list : "");
	for (size_t i = 0; i < count; i++)
		if (!listed(b.oom ? NULL : b.p, names[i])) {
			mcri_buf_puts(&b, b.len ? "," : "");
			mcri_buf_puts(&b, names[i]);
		}
	return mcri_buf_take(&b);
}

/* *out: those of `names` that `list` lacks, comma-joined (heap; NULL
 * none); -1 out of memory */
static int lacking(const char *list, const char *const *names, size_t count, char **out)
{
	struct mcri_buf b = { 0 };

	for (size_t i = 0; i < count; i++)
		if (!listed(list, names[i])) {
			mcri_buf_puts(&b, b.len ? "," : "");
			mcri_buf_puts(&b, names[i]);
		}
	if (!(*out = mcri_buf_take(&b)))
		return -1;
	if (!(*out)[0]) {
		free(*out);
		*out = NULL;
	}
	return 0;
}

int mcp_pyxis_hand_over(struct mcp_handover *h, struct mcr_error *err)
{
	struct mcp_pyxis_step *p = &h->pyxis;
	const char *image, *mounts, *env, *was = getenv("PYXIS_CONTAINER_ENV");
	const char **names = calloc(h->env.count + 2, sizeof(*names));
	bool given;
	size_t n = 0;
	char *joined = NULL;
	int rc = -1;

	if (!names)
		return mcri_error_nomem(err);
	if (!(image = pyxis_option("container-image", &given)) && !(image = pyxis_option("container-name", &given))) {
		free(names);
		return 0; /* no pyxis container */
	}
	mounts = pyxis_option("container-mounts", &given);
	/* every variable the plugin sets in the step's tasks, and its
	 * handover (read by task_init after pyxis's when pyxis comes first) */
	for (size_t i = 0; i < h->env.count; i++)
		names[n++] = h->env.vars[i].name;
	names[n] = MCP_TASK_VAR;
	if (!(p->image = strdup(image)) || (mounts && !(p->mounts = strdup(mounts))))
		goto nomem;
	env = pyxis_option("container-env", &given);
	if (given) {
		/* the user's --container-env: pyxis takes no default then, and
		 * only a task that pyxis enters after this plugin's task_init
		 * needs it to name the plugin's variables (stepd.c) */
		if (!(p->env = strdup(env)) || lacking(env, names, n, &p->missing))
			goto nomem;
	} else {
		/* pyxis's default for --container-env, which slurmstepd reads
		 * (whichever plugin comes first); each task restores the
		 * user's value */
		p->had = was != NULL;
		if ((was && !(p->was = strdup(was))) || !(joined = with_names(was, names, n + 1)) ||
		    setenv("PYXIS_CONTAINER_ENV", joined, 1) != 0)
			goto nomem;
	}
	rc = 0;
	goto out;
nomem:
	mcri_error_nomem(err);
out:
	free(joined);
	free(names);
	return rc;
}

/* ---- slurmstepd's side of containers (task_init of a role
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
	json_array_foreach(json_object_get(m, "options"), i,
			   opt) if (json_is_string(opt) && (strcmp(json_string_value(opt), "bind") == 0 ||
							    strcmp(json_string_value(opt), "rbind") == 0)) return true;
	return false;
}

/* Where `path` inside the OCI bundle is on the host: under the last of
 * the longest mounts whose destination holds it (*mounted; "" for a mount
 * that is not a bind, a tmpfs hiding it), else in the bundle's root file
 * system. -1 when config.json cannot be read (nothing to check). */
static int bundle_path(const char *bundle, const char *path, char *host, size_t size, bool *mounted)
{
	char cfg[PATH_MAX + 16];
	json_t *o, *m;
	const char *root;
	size_t i, best = 0;

	snprintf(cfg, sizeof(cfg), "%s/config.json", bundle);
	if (!(o = json_load_file(cfg, 0, NULL)))
		return -1;
	*mounted = false;
	json_array_foreach(json_object_get(o, "mounts"), i, m)
	{
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
	snprintf(dir, sizeof(dir), "%.*s", slash && slash > path ? (int)(slash - path) : 1, slash ? path : "/");
	/* Slurm's OCI --container: task_init runs before the runtime starts
	 * the bundle, in the host's view; look where the bundle puts the file */
	if (spank_getenv(sp, "SLURM_CONTAINER", bundle, sizeof(bundle)) == ESPANK_SUCCESS && bundle[0] &&
	    bundle_path(bundle, path, host, sizeof(host), &mounted) == 0) {
		if (!mounted && readable(host, why, sizeof(why)))
			return 0;
		if (!mounted || !host[0])
			return mcri_error_set(
				err, MCR_ESTATE,
				"this task on %s runs in the OCI bundle %s (srun --container), which %s %s, so the task cannot read its client config %s (MOONCAKE_CONFIG_PATH) there. Mount the job's directory at the same path: add {\"destination\": \"%s\", \"type\": \"bind\", \"source\": \"%s\", \"options\": [\"rbind\"]} (or one for a directory above it) to the mounts of %s/config.json",
				node, bundle,
				mounted ? "mounts something other than a bind mount at" : "does not mount", dir, path,
				dir, dir, bundle);
		if (readable(host, why, sizeof(why)))
			return 0;
		return mcri_error_set(
			err, MCR_ESTATE,
			"this task on %s runs in the OCI bundle %s (srun --container), which mounts its client config %s (MOONCAKE_CONFIG_PATH) from %s, and that cannot be read: %s. Mount the job's directory %s itself at the same path (a bind mount in %s/config.json), on a file system %s shares with srun's host",
			node, bundle, path, host, why, dir, bundle, node);
	}
	/* the host's view, or a container's that a plugin before this one
	 * entered (pyxis joins the container's namespaces in task_init) */
	if (readable(path, why, sizeof(why)))
		return 0;
	return mcri_error_set(
		err, MCR_ESTATE,
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

int mcp_task_container_check(spank_t sp, const struct mcp_handover *h, const char *dir, const char *config_dir,
			     bool entered, struct mcr_error *err)
{
	const struct mcp_pyxis_step *p = &h->pyxis;
	char node[256] = "", container[PATH_MAX + 64] = "a container", probe[8];
	struct stat sb;

	gethostname(node, sizeof(node) - 1);
	/* the user's PYXIS_CONTAINER_ENV, as before srun named the plugin's
	 * variables there (pyxis has read it, in its init_post_opt) */
	if (p->image && !p->env) {
		spank_err_t rc = p->had ? spank_setenv(sp, "PYXIS_CONTAINER_ENV", p->was, 1)
					: spank_unsetenv(sp, "PYXIS_CONTAINER_ENV");

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
		return mcri_error_set(
			err, MCR_ESTATE,
			"this task on %s runs in %s, which does not mount the job's directory %s (it does not exist there: %s), where the task's client config and the pool's record of its workers are. Mount it at its own path: add --container-mounts=%s:%s to this srun (or mount a directory above it, such as the shared file system, at its own path)",
			node, container, dir, strerror(errno), dir, dir);
	}
	if (!p->image)
		return 0;
	/* pyxis, after this plugin in plugstack.conf, puts the task in its
	 * container after this task_init: only what it was given tells */
	dir = config_dir;
	if (dir && !mounts_cover(p->mounts, dir))
		return mcri_error_set(
			err, MCR_ESTATE,
			"this task on %s runs in %s, which pyxis enters after this plugin's task_init (pyxis's line comes after spank_mooncake.so's in plugstack.conf), and %s%s%s the job's directory %s at its own path, so the task could not read its client config there. Add --container-mounts=%s:%s to this srun (or a mount of a directory above it at its own path); if the image or enroot's own configuration mounts it already, load pyxis before spank_mooncake.so in plugstack.conf (spank_mooncake(8), CONTAINERS): the plugin then looks inside the container",
			node, container,
			p->mounts ? "none of its --container-mounts (" : "it is given no --container-mounts",
			p->mounts ? p->mounts : "", p->mounts ? ") mounts" : ", so nothing mounts", dir, dir, dir);
	if (p->missing)
		return mcri_error_set(
			err, MCR_ESTATE,
			"this task on %s runs in %s, which pyxis enters after this plugin's task_init (pyxis's line comes after spank_mooncake.so's in plugstack.conf); pyxis then sets each variable of the image's environment over the task's, except those --container-env names, and this srun's --container-env=%s lacks %s, which the plugin sets. Add them (--container-env=%s,%s), or leave --container-env out (the plugin then names them in PYXIS_CONTAINER_ENV), or load pyxis before spank_mooncake.so in plugstack.conf (spank_mooncake(8), CONTAINERS): the plugin's values are then set last",
			node, container, p->env, p->missing, p->env, p->missing);
	return 0;
}
