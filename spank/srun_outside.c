/*
 * srun_outside.c - an srun from outside the allocation (srun --jobid=J
 * from another terminal): what the job's own sruns learn from their
 * environment, it learns from slurmctld (mcp_job_facts).
 *
 * The question is asked as soon as the job is known from srun's command
 * line (init_post_opt), in a thread of its own, while srun itself looks up
 * the allocation and creates the step; local_user_init takes the answer.
 * The thread blocks every signal (they stay srun's main thread's) and calls
 * only mcp_job_facts; it is joined in local_user_init, or in
 * slurm_spank_exit (an srun that fails before its step exists may exit
 * with it under way: the process ends, and the thread with it).
 *
 * A federation: srun -M, or a job that runs on a sibling cluster, makes
 * srun talk to another cluster (libslurm's working_cluster_rec). With -M
 * nothing is asked in the background; when srun switches while the thread
 * asks, its answer (from this host's cluster, maybe a revoked copy) is not
 * taken, nor a failed one: local_user_init asks again, of the job's cluster.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin.h"

/* the question under way, from init_post_opt to its join */
static struct {
	bool started;          /* a thread runs (or ran) and is not joined */
	pthread_t thread;
	uint32_t job_id;       /* the job asked about */
	int rc;                /* mcp_job_facts's return, */
	struct mcp_job_facts f; /* ... its answer */
	struct mcr_error err;
} q;

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
		if (v && *v >= '0' && *v <= '9' && (id = strtoul(v, &end, 10)) && !*end &&
		    id < UINT32_MAX)
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

static void *ask(void *arg)
{
	(void)arg;
	q.rc = mcp_job_facts(q.job_id, &q.f, &q.err);
	return NULL;
}

bool mcp_outside_begin(void)
{
	sigset_t all, old;
	uint32_t job_id;

	if (!named_job(&job_id))
		return false;
	if (!job_id || q.started || mcp_srun_other_cluster())
		return true;
	q.job_id = job_id;
	sigfillset(&all);
	if (pthread_sigmask(SIG_SETMASK, &all, &old) != 0)
		return true;
	q.started = pthread_create(&q.thread, NULL, ask, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return true;
}

/* the thread's end: true when its answer is there to take */
static bool joined(void)
{
	if (!q.started)
		return false;
	q.started = false;
	return pthread_join(q.thread, NULL) == 0;
}

int mcp_outside_facts(uint32_t job_id, struct mcp_job_facts *f, struct mcr_error *err)
{
	if (joined() && q.job_id == job_id && q.rc == 0 && !mcp_srun_other_cluster()) {
		*f = q.f;
		return 0;
	}
	return mcp_job_facts(job_id, f, err);
}

void mcp_outside_end(void)
{
	joined();
	memset(&q, 0, sizeof(q));
}
