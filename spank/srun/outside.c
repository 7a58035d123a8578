/*
 * outside.c - an srun from outside the allocation (srun --jobid=J
 * from another terminal): what the job's own sruns learn from their
 * environment, it learns from slurmctld (mcp_job_facts), in
 * local_user_init, once the step exists.
 *
 * Not earlier, in a thread of its own while srun looks up the allocation:
 * libslurm reads the environment (getenv) as srun's main thread changes it
 * (init_srun's setenv), and one srun in 40 crashed so (SIGSEGV in getenv,
 * seen on the test cluster). Nothing of the plugin runs beside srun's own
 * threads.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srun/outside.h"

bool mcp_outside_named_job(const char *args, size_t n, uint32_t *job_id)
{
	*job_id = 0;
	for (const char *a = args; a < args + n; a += strnlen(a, (size_t)(args + n - a)) + 1) {
		size_t len = strnlen(a, (size_t)(args + n - a));
		const char *v = NULL;
		char *end;
		unsigned long id;

		if (!strncmp(a, "--jobid=", 8))
			v = a + 8;
		else if (len == 7 && !strncmp(a, "--jobid", 7) && a + len + 1 < args + n)
			v = a + len + 1;
		else if (len != 7 || strncmp(a, "--jobid", 7) != 0)
			continue;
		if (v && *v >= '0' && *v <= '9' && (id = strtoul(v, &end, 10)) && !*end && id < UINT32_MAX)
			*job_id = (uint32_t)id;
		return true;
	}
	return false;
}

/* ... of srun's own command line, /proc/self/cmdline */
static bool named_job(uint32_t *job_id)
{
	char buf[65536];
	ssize_t n;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	*job_id = 0;
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return mcp_outside_named_job(buf, (size_t)n, job_id);
}

bool mcp_outside_begin(void)
{
	uint32_t job_id;

	return named_job(&job_id);
}
