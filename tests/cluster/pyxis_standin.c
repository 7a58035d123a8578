/*
 * pyxis_standin.c - a STAND-IN for pyxis (NVIDIA's container plugin) on the
 * test cluster; it is not pyxis and runs no container. It registers the
 * pyxis options that spank_mooncake.so gives the master step under
 * container=pyxis (--container-image, --container-mounts,
 * --container-workdir) and two it never gives (--container-name,
 * --container-env), under pyxis's SPANK name, so that srun lists
 * --container-image (what container=auto looks for) and the options reach
 * slurmstepd as pyxis's would. Each step's task 0 records what the step
 * received, one line in RECORD/<job>.<step>.<node>:
 *
 *   name=<the step's name> container-image=<...> container-mounts=<...>
 *   container-workdir=<...> container-name=<...> container-env=<...>
 *   env-PYXIS_CONTAINER_IMAGE=<...>
 *
 * (empty after `=` when not given). plugstack.conf: `optional
 * .../pyxis_standin.so record=DIR`. tests/cluster/test_container.sh uses it
 * to show the options the master step is given; it proves nothing about
 * pyxis itself.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/spank.h>

SPANK_PLUGIN(pyxis, 1);

enum { IMAGE, MOUNTS, WORKDIR, NAME, ENV, N_OPTS };
static const char *const names[N_OPTS] = {
	"container-image", "container-mounts", "container-workdir", "container-name", "container-env",
};
static char *given[N_OPTS];
static char record[4096];

static int set(int val, const char *optarg, int remote)
{
	(void)remote;
	if (val < 0 || val >= N_OPTS || !optarg)
		return -1;
	free(given[val]);
	given[val] = strdup(optarg);
	return given[val] ? 0 : -1;
}

static struct spank_option options[] = {
	{ "container-image", "IMAGE", "[pyxis stand-in of the tests] recorded, no container runs", 1, IMAGE, set },
	{ "container-mounts", "SRC:DST[,...]", "[pyxis stand-in of the tests] recorded", 1, MOUNTS, set },
	{ "container-workdir", "PATH", "[pyxis stand-in of the tests] recorded", 1, WORKDIR, set },
	{ "container-name", "NAME", "[pyxis stand-in of the tests] recorded", 1, NAME, set },
	{ "container-env", "NAME[,...]", "[pyxis stand-in of the tests] recorded", 1, ENV, set },
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

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	char path[8192], host[256] = "", job_name[256] = "", env_image[1024] = "";
	uint32_t job = 0, step = 0, task = 1;
	FILE *f;

	(void)ac;
	(void)av;
	if (!record[0] || spank_get_item(sp, S_TASK_GLOBAL_ID, &task) != ESPANK_SUCCESS || task != 0)
		return 0;
	spank_get_item(sp, S_JOB_ID, &job);
	spank_get_item(sp, S_JOB_STEPID, &step);
	spank_getenv(sp, "SLURM_JOB_NAME", job_name, sizeof(job_name));
	spank_getenv(sp, "PYXIS_CONTAINER_IMAGE", env_image, sizeof(env_image));
	gethostname(host, sizeof(host) - 1);
	snprintf(path, sizeof(path), "%s/%u.%u.%s", record, job, step, host);
	if (!(f = fopen(path, "w")))
		return 0; /* a stand-in never fails a task */
	fprintf(f, "name=%s", job_name);
	for (int i = 0; i < N_OPTS; i++)
		fprintf(f, " %s=%s", names[i], given[i] ? given[i] : "");
	fprintf(f, " env-PYXIS_CONTAINER_IMAGE=%s\n", env_image);
	fclose(f);
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	for (int i = 0; i < N_OPTS; i++) {
		free(given[i]);
		given[i] = NULL;
	}
	return 0;
}
