/*
 * pyxis_standin.c - a STAND-IN for pyxis (NVIDIA's container plugin) on the
 * test cluster; it is not pyxis and runs no container. Real pyxis is not a
 * Debian package and is not tested by the project.
 *
 * What it models, as facts of pyxis (its README, `srun --help`, and how its
 * sources take their options), because that is where the plugin's steps
 * could pick up a container they were not given:
 *   - it registers pyxis's options under pyxis's SPANK name, so that srun
 *     lists --container-image (what container=auto looks for) and Slurm
 *     hands them around as it hands pyxis's: from srun's command line, from
 *     SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_* in srun's environment (an
 *     option of sbatch or of an outer srun), and to slurmstepd as
 *     _SLURM_SPANK_OPTION_pyxis_* in the step's environment, whatever srun
 *     put there (a child srun's environment is its parent's);
 *   - an option given twice with two values is an error ("specified
 *     multiple times"); the same value twice is not; mounts add up;
 *   - after the options (init_post_opt, in srun and in slurmstepd), each
 *     option not given takes its PYXIS_CONTAINER_<OPTION> variable (srun's
 *     environment, the step's in slurmstepd) as its default.
 * Each step's task 0 records what the step got, one line in
 * RECORD/<job>.<step>.<node> (empty after `=` when not given; a flag is 1
 * or 0):
 *
 *   name=<the step's name> container-image=<...> container-mounts=<...>
 *   container-workdir=<...> container-name=<...> container-save=<...>
 *   container-env=<...> container-mount-home=<.> container-remap-root=<.>
 *   container-entrypoint=<.> container-writable=<.>
 *
 * plugstack.conf: `optional .../pyxis_standin.so record=DIR`.
 * tests/cluster/test_container.sh uses it to show the container options
 * each step of the plugin gets; it proves nothing about pyxis itself.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <slurm/spank.h>

SPANK_PLUGIN(pyxis, 1);

/* the options with a value, then the flags (each with its negation) */
enum { IMAGE, MOUNTS, WORKDIR, NAME, SAVE, ENV, N_VALUES };
enum { MOUNT_HOME, REMAP_ROOT, ENTRYPOINT, WRITABLE, N_FLAGS };
static const char *const value_names[N_VALUES] = {
	"container-image", "container-mounts", "container-workdir",
	"container-name",  "container-save",   "container-env",
};
static const char *const flag_names[N_FLAGS] = {
	"container-mount-home", "container-remap-root", "container-entrypoint", "container-writable",
};

/* what this process (srun, or one step's slurmstepd) was given */
static char *value[N_VALUES];
static int flag[N_FLAGS] = { -1, -1, -1, -1 };
static char record[4096];

static int set_value(int val, const char *optarg, int remote)
{
	char *joined;

	(void)remote;
	if (val < 0 || val >= N_VALUES || !optarg || !*optarg) {
		slurm_error("pyxis stand-in: --%s: argument required",
			    val >= 0 && val < N_VALUES ? value_names[val] : "?");
		return -1;
	}
	if (!value[val]) {
		value[val] = strdup(optarg);
		return value[val] ? 0 : -1;
	}
	if (val == MOUNTS) { /* mounts add up, each once */
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
	slurm_error("pyxis stand-in: --%s specified multiple times (%s, then %s)", value_names[val],
		    value[val], optarg);
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
		slurm_error("pyxis stand-in: --%s given both ways", flag_names[f]);
		return -1;
	}
	flag[f] = on;
	return 0;
}

#define STANDIN "[pyxis stand-in of the tests] recorded, no container runs"
static struct spank_option options[] = {
	{ "container-image", "IMAGE", STANDIN, 1, IMAGE, set_value },
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
	SPANK_OPTIONS_TABLE_END
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	for (int i = 0; i < ac; i++)
		if (strncmp(av[i], "record=", 7) == 0)
			snprintf(record, sizeof(record), "%s", av[i] + 7);
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
		if (!value[i] && (v = env_default(sp, value_names[i], buf, sizeof(buf))) &&
		    set_value(i, v, 0))
			return -1;
	for (int i = 0; i < N_FLAGS; i++)
		if (flag[i] == -1 && (v = env_default(sp, flag_names[i], buf, sizeof(buf))) &&
		    (b = boolean(v)) >= 0)
			flag[i] = b;
	/* pyxis's PYXIS_CONTAINER_READONLY is the negation of _WRITABLE */
	if (flag[WRITABLE] == -1 && (v = env_default(sp, "container-readonly", buf, sizeof(buf))) &&
	    (b = boolean(v)) >= 0)
		flag[WRITABLE] = !b;
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	char path[8192], host[256] = "", job_name[256] = "";
	uint32_t job = 0, step = 0, task = 1;
	FILE *f;

	(void)ac;
	(void)av;
	if (!record[0] || spank_get_item(sp, S_TASK_GLOBAL_ID, &task) != ESPANK_SUCCESS || task != 0)
		return 0;
	spank_get_item(sp, S_JOB_ID, &job);
	spank_get_item(sp, S_JOB_STEPID, &step);
	spank_getenv(sp, "SLURM_JOB_NAME", job_name, sizeof(job_name));
	gethostname(host, sizeof(host) - 1);
	snprintf(path, sizeof(path), "%s/%u.%u.%s", record, job, step, host);
	if (!(f = fopen(path, "w")))
		return 0; /* a stand-in never fails a task */
	fprintf(f, "name=%s", job_name);
	for (int i = 0; i < N_VALUES; i++)
		fprintf(f, " %s=%s", value_names[i], value[i] ? value[i] : "");
	for (int i = 0; i < N_FLAGS; i++)
		fprintf(f, " %s=%s", flag_names[i], flag[i] < 0 ? "" : flag[i] ? "1" : "0");
	fputc('\n', f);
	fclose(f);
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
	return 0;
}
