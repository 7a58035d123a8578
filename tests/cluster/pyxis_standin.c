/*
 * pyxis_standin.c - a STAND-IN for pyxis 0.24 (NVIDIA's container plugin,
 * with enroot 4) on the test cluster. It is not pyxis and not enroot: it
 * models what pyxis and enroot document and do, as their sources show, where
 * the plugin's steps meet them. Real pyxis is not a Debian package and cannot
 * be built in CI.
 *
 * Options, as pyxis takes them:
 *   - pyxis's options under pyxis's SPANK name, so that srun lists
 *     --container-image (what container=auto looks for) and Slurm hands them
 *     around as it hands pyxis's: from srun's command line, from
 *     SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_* in srun's environment (an option
 *     of sbatch or of an outer srun), and to slurmstepd as
 *     _SLURM_SPANK_OPTION_pyxis_* in the step's environment;
 *   - an option given twice with two values is an error ("specified multiple
 *     times"), the same value twice is not; mounts and --container-env names
 *     add up;
 *   - after the options (init_post_opt, in srun and in slurmstepd), each
 *     option not given takes its PYXIS_CONTAINER_<OPTION> variable (srun's
 *     environment, the step's in slurmstepd) as its default.
 *
 * The container, as pyxis runs it for a step:
 *   - one container per step: user_init maps shared memory with a robust
 *     process-shared mutex; the step's first task (in its task_init, as the
 *     user) starts the container, every task joins it, the last one to start
 *     lets its process go; a task that finds no started container fails with
 *     pyxis's message ("container was not started successfully by another
 *     task"), as a second start in the step does;
 *   - the image: a registry name, which pyxis would import, is a directory
 *     under images=DIR, its '/', '#' and ':' written '+'
 *     (standin.test#mooncake/good:1 is DIR/standin.test+mooncake+good+1), the
 *     image's root file system as enroot unpacks it; an image the stand-in
 *     does not hold runs no container at all (the option checks of
 *     test_container.sh);
 *   - the container process: a user namespace for a user other than root
 *     (as enroot runs unprivileged), a mount namespace with the image's top
 *     entries on a fresh root (a tmpfs on the image's empty .root), enroot's
 *     system mounts (/proc, /sys, /dev; a tmpfs on /tmp), the image's
 *     /etc/fstab (bind mounts and tmpfs, its targets inside the image), the
 *     --container-mounts (SRC[:DST], bind; no flags), then pivot_root;
 *   - its environment, as pyxis and enroot make it: the job's (the task's
 *     environment at task_init, without PATH, LD_LIBRARY_PATH, LD_PRELOAD,
 *     SLURM_PROCID, SLURM_LOCALID, SLURM_TASK_PID, PMIX_RANK, PMI_FD and
 *     ENROOT_*; slurmstepd's PATH), then the image's /etc/environment (where
 *     enroot puts a Docker image's ENV; ${VAR} from that environment,
 *     comments and quotes dropped), then the --container-env names with the
 *     job's values; then the image's login shell ("-sh": /etc/profile) execs
 *     `sh -c 'kill -STOP $$ ; exit 0'`, which stops;
 *   - each task: pyxis's task_init unsets LANG, LANGUAGE and LC_ALL unless
 *     --container-env names them, sets each variable of the stopped
 *     process's environment (/proc/PID/environ) over the task's, but keeps
 *     the task's value of a name --container-env lists, joins the process's
 *     user namespace (when it is not the task's) and mount namespace, and
 *     goes to --container-workdir (else "/").
 *
 * And each step's task 0 records what the step got, one line in
 * RECORD/<job>.<step>.<node> (empty after `=` when not given; a flag is 1
 * or 0):
 *
 *   name=<the step's name> container-image=<...> container-mounts=<...>
 *   container-workdir=<...> container-name=<...> container-save=<...>
 *   container-env=<...> container-mount-home=<.> container-remap-root=<.>
 *   container-entrypoint=<.> container-writable=<.>
 *
 * plugstack.conf: `required .../pyxis_standin.so record=DIR images=DIR`,
 * its line before or after spank_mooncake.so's as the cluster says
 * (MCK_PLUGSTACK_ORDER, cluster.sh). tests/cluster/test_container.sh and
 * test_pyxis.sh use it; it proves nothing about pyxis itself. Not done:
 * squashfs files, --container-name reuse, --container-save, remap-root,
 * the entrypoint, pyxis's seccomp filter, enroot's hooks.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slurm/spank.h>

SPANK_PLUGIN(pyxis, 1);

#define SAY "pyxis stand-in: "

/* the options with a value, then the flags (each with its negation) */
enum { IMAGE, MOUNTS, WORKDIR, NAME, SAVE, ENV, N_VALUES };
enum { MOUNT_HOME, REMAP_ROOT, ENTRYPOINT, WRITABLE, N_FLAGS };
static const char *const value_names[N_VALUES] = {
	"container-image", "container-mounts", "container-workdir", "container-name", "container-save", "container-env",
};
static const char *const flag_names[N_FLAGS] = {
	"container-mount-home",
	"container-remap-root",
	"container-entrypoint",
	"container-writable",
};

/* what this process (srun, or one step's slurmstepd) was given */
static char *value[N_VALUES];
static int flag[N_FLAGS] = { -1, -1, -1, -1 };
static char record[4096], images[4096];

/* one container per step (pyxis's struct shared_memory) */
struct shared {
	pthread_mutex_t mutex;
	unsigned init_tasks, started_tasks;
	pid_t pid; /* the container's stopped process; -1 none */
};
static struct shared *shm;

static int set_value(int val, const char *optarg, int remote)
{
	char *joined;

	(void)remote;
	if (val < 0 || val >= N_VALUES || !optarg || !*optarg) {
		slurm_error(SAY "--%s: argument required", val >= 0 && val < N_VALUES ? value_names[val] : "?");
		return -1;
	}
	if (!value[val]) {
		value[val] = strdup(optarg);
		return value[val] ? 0 : -1;
	}
	if (val == MOUNTS || val == ENV) { /* these add up, each once */
		if (strstr(value[val], optarg))
			return 0;
		if (asprintf(&joined, "%s,%s", value[val], optarg) < 0)
			return -1;
		free(value[val]);
		value[val] = joined;
		return 0;
	}
	if (strcmp(value[val], optarg) == 0) /* Slurm may call twice */
		return 0;
	slurm_error(SAY "--%s specified multiple times (%s, then %s)", value_names[val], value[val], optarg);
	return -1;
}

/* val: the flag's index times 2, plus 1 for it and 0 for its negation */
static int set_flag(int val, const char *optarg, int remote)
{
	int f = val / 2, on = val % 2;

	(void)optarg;
	(void)remote;
	if (f < 0 || f >= N_FLAGS)
		return -1;
	if (flag[f] != -1 && flag[f] != on) {
		slurm_error(SAY "--%s given both ways", flag_names[f]);
		return -1;
	}
	flag[f] = on;
	return 0;
}

#define STANDIN "[pyxis stand-in of the tests]"
static struct spank_option options[] = { { "container-image", "IMAGE", STANDIN, 1, IMAGE, set_value },
					 { "container-mounts", "SRC:DST[,...]", STANDIN, 1, MOUNTS, set_value },
					 { "container-workdir", "PATH", STANDIN, 1, WORKDIR, set_value },
					 { "container-name", "NAME", STANDIN, 1, NAME, set_value },
					 { "container-save", "PATH", STANDIN, 1, SAVE, set_value },
					 { "container-env", "NAME[,...]", STANDIN, 1, ENV, set_value },
					 { "container-mount-home", NULL, STANDIN, 0, 2 * MOUNT_HOME + 1, set_flag },
					 { "no-container-mount-home", NULL, STANDIN, 0, 2 * MOUNT_HOME, set_flag },
					 { "container-remap-root", NULL, STANDIN, 0, 2 * REMAP_ROOT + 1, set_flag },
					 { "no-container-remap-root", NULL, STANDIN, 0, 2 * REMAP_ROOT, set_flag },
					 { "container-entrypoint", NULL, STANDIN, 0, 2 * ENTRYPOINT + 1, set_flag },
					 { "no-container-entrypoint", NULL, STANDIN, 0, 2 * ENTRYPOINT, set_flag },
					 { "container-writable", NULL, STANDIN, 0, 2 * WRITABLE + 1, set_flag },
					 { "container-readonly", NULL, STANDIN, 0, 2 * WRITABLE, set_flag },
					 SPANK_OPTIONS_TABLE_END };

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	for (int i = 0; i < ac; i++) {
		if (strncmp(av[i], "record=", 7) == 0)
			snprintf(record, sizeof(record), "%s", av[i] + 7);
		if (strncmp(av[i], "images=", 7) == 0)
			snprintf(images, sizeof(images), "%s", av[i] + 7);
	}
	for (struct spank_option *o = options; o->name; o++)
		if (spank_option_register(sp, o) != ESPANK_SUCCESS)
			return -1;
	return 0;
}

/* PYXIS_CONTAINER_<OPTION>, from srun's environment or the step's */
static const char *env_default(spank_t sp, const char *option, char *buf, size_t size)
{
	char name[64];
	size_t n = (size_t)snprintf(name, sizeof(name), "PYXIS_%s", option);

	for (size_t i = 0; i < n; i++)
		name[i] = name[i] == '-' ? '_' : (char)toupper((unsigned char)name[i]);
	if (spank_context() == S_CTX_REMOTE)
		return spank_getenv(sp, name, buf, (int)size) == ESPANK_SUCCESS ? buf : NULL;
	return getenv(name);
}

static int boolean(const char *v)
{
	if (!strcasecmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "y"))
		return 1;
	if (!strcasecmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "n"))
		return 0;
	return -1;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	char buf[4096];
	const char *v;
	int b;

	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_LOCAL && spank_context() != S_CTX_REMOTE)
		return 0;
	for (int i = 0; i < N_VALUES; i++)
		if (!value[i] && (v = env_default(sp, value_names[i], buf, sizeof(buf))) && set_value(i, v, 0))
			return -1;
	for (int i = 0; i < N_FLAGS; i++)
		if (flag[i] == -1 && (v = env_default(sp, flag_names[i], buf, sizeof(buf))) && (b = boolean(v)) >= 0)
			flag[i] = b;
	/* pyxis's PYXIS_CONTAINER_READONLY is the negation of _WRITABLE */
	if (flag[WRITABLE] == -1 && (v = env_default(sp, "container-readonly", buf, sizeof(buf))) &&
	    (b = boolean(v)) >= 0)
		flag[WRITABLE] = !b;
	return 0;
}

/* ---- the image ---------------------------------------------------------- */

/* the image's directory under images= (into path); false: not held */
static bool image_dir(char *path, size_t size)
{
	struct stat sb;
	size_t n;

	if (!value[IMAGE] || !images[0])
		return false;
	n = (size_t)snprintf(path, size, "%s/", images);
	if (n + strlen(value[IMAGE]) >= size)
		return false;
	for (const char *p = value[IMAGE]; *p; p++)
		path[n++] = strchr("/#:", *p) ? '+' : *p;
	path[n] = '\0';
	return value[IMAGE][0] != '.' && value[IMAGE][0] != '/' && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	char path[PATH_MAX];
	pthread_mutexattr_t attr;

	(void)sp;
	(void)ac;
	(void)av;
	if (!image_dir(path, sizeof(path)))
		return 0;
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		shm = NULL;
		slurm_error(SAY "mmap: %m");
		return 0; /* as pyxis: the error is the task's */
	}
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&shm->mutex, &attr);
	pthread_mutexattr_destroy(&attr);
	shm->pid = -1;
	return 0;
}

/* a growable environment (NAME=VALUE strings) */
struct env {
	char **v;
	size_t n;
};

static const char *env_get(const struct env *e, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < e->n; i++)
		if (strncmp(e->v[i], name, len) == 0 && e->v[i][len] == '=')
			return e->v[i] + len + 1;
	return NULL;
}

static int env_put(struct env *e, const char *name, size_t nlen, const char *val)
{
	char *s, **v;

	if (asprintf(&s, "%.*s=%s", (int)nlen, name, val) < 0)
		return -1;
	for (size_t i = 0; i < e->n; i++)
		if (strncmp(e->v[i], name, nlen) == 0 && e->v[i][nlen] == '=') {
			free(e->v[i]);
			e->v[i] = s;
			return 0;
		}
	if (!(v = realloc(e->v, (e->n + 2) * sizeof(*v)))) {
		free(s);
		return -1;
	}
	e->v = v;
	e->v[e->n++] = s;
	e->v[e->n] = NULL;
	return 0;
}

static void env_free(struct env *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

/* is `name` one of the --container-env names? */
static bool exempt(const char *name, size_t len)
{
	const char *p = value[ENV];

	while (p && *p) {
		size_t l = strcspn(p, ",");

		if (l == len && strncmp(p, name, len) == 0)
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

/* What the container process starts with: the job's environment without
 * what pyxis keeps from enroot, slurmstepd's PATH, the image's
 * /etc/environment over it (enroot's environment file), then the
 * --container-env names with the job's values. */
static int container_env(spank_t sp, const char *image, struct env *e)
{
	static const char *const deny[] = {
		"PATH=",           "LD_LIBRARY_PATH=", "LD_PRELOAD=", "SLURM_PROCID=", "SLURM_LOCALID=",
		"SLURM_TASK_PID=", "PMIX_RANK=",       "PMI_FD=",     "ENROOT_",       NULL
	};
	char **job = NULL, path[PATH_MAX + 32], line[8192];
	struct env base = { 0 };
	FILE *f;
	int rc = -1;

	if (spank_get_item(sp, S_JOB_ENV, &job) != ESPANK_SUCCESS || !job)
		return -1;
	if (getenv("PATH") && env_put(&base, "PATH", 4, getenv("PATH")))
		goto out;
	for (char **j = job; *j; j++) {
		bool denied = false;

		for (const char *const *d = deny; *d; d++)
			denied |= strncmp(*j, *d, strlen(*d)) == 0;
		if (!denied && strchr(*j, '=') && env_put(&base, *j, strcspn(*j, "="), strchr(*j, '=') + 1))
			goto out;
	}
	for (size_t i = 0; i < base.n; i++)
		if (env_put(e, base.v[i], strcspn(base.v[i], "="), strchr(base.v[i], '=') + 1))
			goto out;
	/* enroot's environment file: the image's /etc/environment, ${VAR}
	 * of the environment above, comments, malformed lines, ENROOT_* and
	 * surrounding quotes dropped */
	snprintf(path, sizeof(path), "%s/etc/environment", image);
	if ((f = fopen(path, "re"))) {
		while (fgets(line, sizeof(line), f)) {
			char *l = line + strspn(line, " \t"), out[8192];
			size_t nlen = 0, o = 0, vlen;

			l[strcspn(l, "\n")] = '\0';
			while (isalnum((unsigned char)l[nlen]) || l[nlen] == '_')
				nlen++;
			if (!nlen || isdigit((unsigned char)l[0]) || l[nlen] != '=' || strncmp(l, "ENROOT_", 7) == 0)
				continue;
			for (const char *p = l + nlen + 1; *p && o < sizeof(out) - 1;) {
				const char *end = p[0] == '$' && p[1] == '{' ? strchr(p, '}') : NULL;

				if (end) {
					char var[256];
					const char *v;

					snprintf(var, sizeof(var), "%.*s", (int)(end - p - 2), p + 2);
					for (v = env_get(&base, var); v && *v && o < sizeof(out) - 1;)
						out[o++] = *v++;
					p = end + 1;
				} else {
					out[o++] = *p++;
				}
			}
			out[o] = '\0';
			vlen = strlen(out);
			if (vlen >= 2 && (out[0] == '"' || out[0] == '\'') && out[vlen - 1] == out[0]) {
				out[vlen - 1] = '\0';
				memmove(out, out + 1, vlen - 1);
			}
			if (env_put(e, l, nlen, out)) {
				fclose(f);
				goto out;
			}
		}
		fclose(f);
	}
	/* pyxis's environ() of enroot's start configuration */
	for (const char *p = value[ENV]; p && *p;) {
		size_t l = strcspn(p, ",");
		char name[256];
		const char *v;

		snprintf(name, sizeof(name), "%.*s", (int)l, p);
		if ((v = env_get(&base, name)) && v[0] && env_put(e, name, strlen(name), v))
			goto out;
		p += l + (p[l] == ',');
	}
	rc = 0;
out:
	env_free(&base);
	return rc;
}

/* the child: `what` failed; its exit status says so to the task */
static void die(const char *what, const char *where)
{
	fprintf(stderr, SAY "container start: %s %s: %s\n", what, where ? where : "", strerror(errno));
	_exit(1);
}

/* mkdir -p of `path` (absolute, inside the new root `root`) */
static void make_dirs(const char *root, const char *path, bool file)
{
	char full[2 * PATH_MAX];
	size_t r = strlen(root);

	snprintf(full, sizeof(full), "%s%s", root, path);
	for (char *p = full + r + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(full, 0755) != 0 && errno != EEXIST)
				die("mkdir", full);
			*p = '/';
		}
	if (file) {
		int fd = open(full, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd < 0)
			die("create", full);
		close(fd);
	} else if (mkdir(full, 0755) != 0 && errno != EEXIST) {
		die("mkdir", full);
	}
}

/* mount `src` (a bind, recursive) or a tmpfs at `dst` inside the root */
static void mount_at(const char *root, const char *src, const char *dst)
{
	char target[2 * PATH_MAX];
	struct stat sb;
	bool tmpfs = strcmp(src, "tmpfs") == 0;

	if (!tmpfs && stat(src, &sb) != 0)
		die("mount source", src);
	make_dirs(root, dst, !tmpfs && !S_ISDIR(sb.st_mode));
	snprintf(target, sizeof(target), "%s%s", root, dst);
	if (tmpfs ? mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
		  : mount(src, target, NULL, MS_BIND | MS_REC, NULL))
		die("mount", target);
}

/* The container's process (the forked child, as the user): its
 * namespaces, its root, its environment, its login shell, which stops. */
static void container_child(const char *image, char **envp, uid_t uid, gid_t gid)
{
	char root[PATH_MAX + 16], src[2 * PATH_MAX], line[8192];
	int img, fd;
	DIR *d;
	struct dirent *de;
	FILE *f;

	/* the task became the user from root: no /proc/self/uid_map of its
	 * own until it is dumpable again (as enroot's exec makes it) */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		die("prctl", "PR_SET_DUMPABLE");
	/* enroot's namespaces: a user namespace unless root, a mount one */
	if (unshare(uid ? CLONE_NEWUSER | CLONE_NEWNS : CLONE_NEWNS) != 0)
		die("unshare", NULL);
	if (uid) {
		const char *files[] = { "/proc/self/setgroups", "/proc/self/uid_map", "/proc/self/gid_map" };
		char maps[3][64];

		snprintf(maps[0], sizeof(maps[0]), "deny");
		snprintf(maps[1], sizeof(maps[1]), "%u %u 1", uid, uid);
		snprintf(maps[2], sizeof(maps[2]), "%u %u 1", gid, gid);
		for (int i = 0; i < 3; i++)
			if ((fd = open(files[i], O_WRONLY | O_CLOEXEC)) < 0 ||
			    write(fd, maps[i], strlen(maps[i])) != (ssize_t)strlen(maps[i]) || close(fd))
				die("write", files[i]);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die("make private", "/");
	/* a fresh root on the image's .root: each of the image's top
	 * entries, enroot's system mounts, the image's fstab, the
	 * --container-mounts */
	if ((img = open(image, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		die("open", image);
	snprintf(root, sizeof(root), "%s/.root", image);
	if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"))
		die("mount the container's root on (the image's empty .root)", root);
	if (!(d = fdopendir(dup(img))))
		die("read", image);
	while ((de = readdir(d))) {
		char to[2 * PATH_MAX + 16], target[PATH_MAX];
		struct stat sb;
		ssize_t n;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, ".root"))
			continue;
		if (fstatat(img, de->d_name, &sb, AT_SYMLINK_NOFOLLOW))
			die("stat", de->d_name);
		if (S_ISLNK(sb.st_mode)) {
			snprintf(to, sizeof(to), "%s/%s", root, de->d_name);
			if ((n = readlinkat(img, de->d_name, target, sizeof(target) - 1)) < 0)
				die("readlink", de->d_name);
			target[n] = '\0';
			if (symlink(target, to))
				die("symlink", to);
			continue;
		}
		snprintf(src, sizeof(src), "%s/%s", image, de->d_name);
		snprintf(to, sizeof(to), "/%s", de->d_name);
		mount_at(root, src, to);
	}
	closedir(d);
	mount_at(root, "/proc", "/proc");
	mount_at(root, "/sys", "/sys");
	mount_at(root, "/dev", "/dev");
	mount_at(root, "tmpfs", "/tmp");
	/* the image's /etc/fstab: SRC DST TYPE OPTIONS, DST in the image */
	if ((fd = openat(img, "etc/fstab", O_RDONLY | O_CLOEXEC)) >= 0 && (f = fdopen(fd, "r"))) {
		while (fgets(line, sizeof(line), f)) {
			char s[PATH_MAX], t[PATH_MAX], type[64];

			if (line[strspn(line, " \t")] == '#' || sscanf(line, "%4095s %4095s %63s", s, t, type) != 3)
				continue;
			mount_at(root, strcmp(type, "tmpfs") ? s : "tmpfs", t);
		}
		fclose(f);
	}
	close(img);
	/* --container-mounts: SRC[:DST[:FLAGS]], DST in the container */
	for (const char *p = value[MOUNTS]; p && *p;) {
		size_t l = strcspn(p, ",");
		char m[2 * PATH_MAX], *colon, *dst;

		snprintf(m, sizeof(m), "%.*s", (int)l, p);
		p += l + (p[l] == ',');
		dst = m;
		if ((colon = strchr(m, ':'))) {
			*colon = '\0';
			dst = colon + 1;
			dst[strcspn(dst, ":")] = '\0';
		}
		mount_at(root, m, dst);
	}
	/* enroot pivots into its root: a task that joins the mount
	 * namespace lands there */
	if (chdir(root) || syscall(SYS_pivot_root, ".", ".") || umount2(".", MNT_DETACH) || chdir("/"))
		die("pivot_root into", root);
	/* enroot-switchroot --login: the image's login shell runs the
	 * command pyxis gives, which stops itself */
	execve("/bin/sh", (char *[]){ "-sh", "-c", "exec \"$@\"", "sh", "sh", "-c", "kill -STOP $$ ; exit 0", NULL },
	       envp);
	die("exec", "/bin/sh");
}

/* The first task of the step: start the container, its process stopped
 * (pyxis's enroot_container_start); its pid, or -1 with why said. */
static pid_t start_container(spank_t sp, const char *image)
{
	struct env e = { 0 };
	pid_t pid;
	int status;

	if (container_env(sp, image, &e)) {
		slurm_error(SAY "cannot make the container's environment");
		env_free(&e);
		return -1;
	}
	pid = fork();
	if (pid == 0)
		container_child(image, e.v, getuid(), getgid());
	env_free(&e);
	if (pid < 0) {
		slurm_error(SAY "fork: %m");
		return -1;
	}
	while (waitpid(pid, &status, WUNTRACED) < 0)
		if (errno != EINTR) {
			slurm_error(SAY "container start error: %m");
			return -1;
		}
	if (!WIFSTOPPED(status)) {
		slurm_error(SAY "container start failed (status 0x%x)", status);
		return -1;
	}
	return pid;
}

/* Every task: the container's environment over the task's, but for the
 * --container-env names (pyxis's spank_import_container_env). */
static int import_env(spank_t sp, pid_t pid)
{
	static const char *const deny[] = { "LANG", "LANGUAGE", "LC_ALL", NULL };
	char path[64], *buf = NULL;
	size_t len = 0;
	ssize_t got;
	int fd;

	for (const char *const *d = deny; *d; d++)
		if (!exempt(*d, strlen(*d)))
			spank_unsetenv(sp, *d);
	snprintf(path, sizeof(path), "/proc/%ld/environ", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	for (;;) {
		char *more = realloc(buf, len + 65536 + 1);

		if (!more) {
			free(buf);
			close(fd);
			return -1;
		}
		buf = more;
		if ((got = read(fd, buf + len, 65536)) <= 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	if (got < 0) {
		free(buf);
		return -1;
	}
	buf[len] = '\0';
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
		char *kv = buf + i, *eq = strchr(kv, '=');
		spank_err_t rc;

		if (!eq)
			continue;
		*eq = '\0';
		rc = spank_setenv(sp, kv, eq + 1, exempt(kv, strlen(kv)) ? 0 : 1);
		*eq = '=';
		if (rc != ESPANK_SUCCESS && rc != ESPANK_ENV_EXISTS) {
			slurm_error(SAY "failed to set %.*s: %s", (int)(eq - kv), kv, spank_strerror(rc));
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 0;
}

/* the container's namespace `name` (user, mnt) joined, when it is not
 * this task's already */
static int join(pid_t pid, const char *name, int type)
{
	char path[64], own[64];
	struct stat a, b;
	int fd, rc = 0;

	snprintf(path, sizeof(path), "/proc/%ld/ns/%s", (long)pid, name);
	snprintf(own, sizeof(own), "/proc/self/ns/%s", name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &a) || stat(own, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		rc = setns(fd, type);
	close(fd);
	return rc;
}

static void record_step(spank_t sp)
{
	char path[8192], host[256] = "", job_name[256] = "";
	uint32_t job = 0, step = 0, task = 1;
	FILE *f;

	if (!record[0] || spank_get_item(sp, S_TASK_GLOBAL_ID, &task) != ESPANK_SUCCESS || task != 0)
		return;
	spank_get_item(sp, S_JOB_ID, &job);
	spank_get_item(sp, S_JOB_STEPID, &step);
	spank_getenv(sp, "SLURM_JOB_NAME", job_name, sizeof(job_name));
	gethostname(host, sizeof(host) - 1);
	snprintf(path, sizeof(path), "%s/%u.%u.%s", record, job, step, host);
	if (!(f = fopen(path, "w")))
		return; /* a record never fails a task */
	fprintf(f, "name=%s", job_name);
	for (int i = 0; i < N_VALUES; i++)
		fprintf(f, " %s=%s", value_names[i], value[i] ? value[i] : "");
	for (int i = 0; i < N_FLAGS; i++)
		fprintf(f, " %s=%s", flag_names[i], flag[i] < 0 ? "" : flag[i] ? "1" : "0");
	fputc('\n', f);
	fclose(f);
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	char image[PATH_MAX];
	uint32_t tasks = 0;
	pid_t pid;
	int rc;

	(void)ac;
	(void)av;
	record_step(sp);
	if (!image_dir(image, sizeof(image)))
		return 0;
	if (!shm || spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &tasks) != ESPANK_SUCCESS)
		return -1;
	/* pyxis's enroot_start_once: the first task starts it, for the step */
	rc = pthread_mutex_lock(&shm->mutex);
	if (rc == EOWNERDEAD) {
		pthread_mutex_consistent(&shm->mutex);
		slurm_error(SAY "a previous task terminated unexpectedly during container setup");
		shm->pid = -1;
		pthread_mutex_unlock(&shm->mutex);
		return -1;
	}
	if (rc != 0)
		return -1;
	if (++shm->init_tasks == 1)
		shm->pid = start_container(sp, image);
	pid = shm->pid;
	pthread_mutex_unlock(&shm->mutex);
	if (pid < 0) {
		slurm_error(SAY "container was not started successfully by another task");
		return -1;
	}
	if (import_env(sp, pid)) {
		slurm_error(SAY "couldn't read container environment");
		return -1;
	}
	if (join(pid, "user", CLONE_NEWUSER) || join(pid, "mnt", CLONE_NEWNS)) {
		slurm_error(SAY "couldn't join the container's namespaces: %m");
		return -1;
	}
	if (chdir(value[WORKDIR] ? value[WORKDIR] : "/")) {
		slurm_error(SAY "couldn't chdir to %s: %m", value[WORKDIR] ? value[WORKDIR] : "/");
		return -1;
	}
	/* pyxis's enroot_stop_once: the last task to start lets it go */
	if (__atomic_add_fetch(&shm->started_tasks, 1, __ATOMIC_SEQ_CST) == tasks) {
		kill(pid, SIGCONT);
		shm->pid = -1;
	}
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	for (int i = 0; i < N_VALUES; i++) {
		free(value[i]);
		value[i] = NULL;
	}
	for (int i = 0; i < N_FLAGS; i++)
		flag[i] = -1;
	if (shm) {
		munmap(shm, sizeof(*shm));
		shm = NULL;
	}
	return 0;
}
