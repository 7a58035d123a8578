/* stub.c - the SPANK and libslurm functions the plugin calls, recorded. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "plugin/slurm.h"
#include "stub.h"

struct stub stub;

/* the plugin tests link with --wrap=gethostname: a node's name that
 * resolves to a loopback address, to another, or to none */
int __real_gethostname(char *name, size_t len);
int __wrap_gethostname(char *name, size_t len);
int __wrap_gethostname(char *name, size_t len)
{
	if (!stub.hostname)
		return __real_gethostname(name, len);
	snprintf(name, len, "%s", stub.hostname);
	return 0;
}

/* ... and its fortified form (_FORTIFY_SOURCE, some -O levels) */
int __wrap___gethostname_chk(char *name, size_t len, size_t size);
int __wrap___gethostname_chk(char *name, size_t len, size_t size)
{
	return __wrap_gethostname(name, len < size ? len : size);
}

void stub_reset(spank_context_t context)
{
	/* what slurmctld says of the job's start stays as the test set it */
	long long start_time = stub.start_time;

	for (int i = 0; stub.env[i]; i++)
		free(stub.env[i]);
	memset(&stub, 0, sizeof(stub));
	stub.start_time = start_time;
	stub.context = context;
	stub.job_id = 4301;
	stub.step_id = 0;
	stub.uid = getuid();
	stub.ngroups = getgroups(64, stub.groups);
	stub.local_tasks = 1;
	stub.nodes = "n[1-3]";
}

static int env_index(const char *name)
{
	size_t len = strlen(name);

	for (int i = 0; stub.env[i]; i++)
		if (strncmp(stub.env[i], name, len) == 0 && stub.env[i][len] == '=')
			return i;
	return -1;
}

void stub_setenv(const char *name, const char *value)
{
	int i = env_index(name), n = 0;
	char *e = NULL;

	if (asprintf(&e, "%s=%s", name, value) < 0)
		abort();
	if (i >= 0) {
		free(stub.env[i]);
		stub.env[i] = e;
		return;
	}
	while (stub.env[n])
		n++;
	stub.env[n] = e;
}

const char *stub_getenv(const char *name)
{
	int i = env_index(name);

	return i < 0 ? NULL : stub.env[i] + strlen(name) + 1;
}

int stub_option(const char *name, const char *value, int remote)
{
	for (int i = 0; i < stub.nopts; i++)
		if (strcmp(stub.opts[i]->name, name) == 0)
			return stub.opts[i]->cb(stub.opts[i]->val, value, remote);
	return -99;
}

spank_context_t spank_context(void)
{
	return stub.context;
}

int spank_remote(spank_t sp)
{
	(void)sp;
	return stub.context == S_CTX_REMOTE;
}

const char *spank_strerror(spank_err_t err)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "spank error %d", (int)err);
	return buf;
}

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	(void)sp;
	if (stub.nopts == 8)
		return ESPANK_ERROR;
	stub.opts[stub.nopts++] = opt;
	return ESPANK_SUCCESS;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	va_list ap;
	spank_err_t rc = ESPANK_SUCCESS;

	(void)sp;
	va_start(ap, item);
	switch (item) {
	case S_JOB_ID:
		*va_arg(ap, uint32_t *) = stub.job_id;
		break;
	case S_JOB_STEPID:
		*va_arg(ap, uint32_t *) = stub.step_id;
		break;
	case S_JOB_UID:
		*va_arg(ap, uid_t *) = stub.uid;
		break;
	case S_JOB_LOCAL_TASK_COUNT:
		*va_arg(ap, uint32_t *) = stub.local_tasks;
		break;
	case S_JOB_GID:
		*va_arg(ap, gid_t *) = getgid();
		break;
	case S_JOB_SUPPLEMENTARY_GIDS:
		*va_arg(ap, gid_t **) = stub.groups;
		*va_arg(ap, int *) = stub.ngroups;
		break;
	case S_TASK_GLOBAL_ID:
	case S_TASK_ID:
		*va_arg(ap, uint32_t *) = stub.task_id;
		break;
	default:
		rc = ESPANK_NOT_AVAIL;
	}
	va_end(ap);
	return rc;
}

spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	const char *v;

	(void)sp;
	if (stub.context != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	v = stub_getenv(var);
	if (!v)
		return ESPANK_ENV_NOEXIST;
	if ((int)strlen(v) >= len)
		return ESPANK_NOSPACE;
	strcpy(buf, v);
	return ESPANK_SUCCESS;
}

spank_err_t spank_setenv(spank_t sp, const char *var, const char *val, int overwrite)
{
	(void)sp;
	if (stub.context != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	if (!overwrite && stub_getenv(var))
		return ESPANK_ENV_EXISTS;
	stub_setenv(var, val);
	return ESPANK_SUCCESS;
}

spank_err_t spank_unsetenv(spank_t sp, const char *var)
{
	int i = env_index(var), n = 0;

	(void)sp;
	if (stub.context != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	if (i < 0)
		return ESPANK_SUCCESS;
	free(stub.env[i]);
	while (stub.env[n])
		n++;
	stub.env[i] = stub.env[n - 1];
	stub.env[n - 1] = NULL;
	return ESPANK_SUCCESS;
}

static void record(const char *level, const char *fmt, va_list ap)
{
	size_t n = strlen(stub.log);

	n += (size_t)snprintf(stub.log + n, sizeof(stub.log) - n, "%s: ", level);
	if (n < sizeof(stub.log))
		n += (size_t)vsnprintf(stub.log + n, sizeof(stub.log) - n, fmt, ap);
	if (n < sizeof(stub.log) - 1)
		strcat(stub.log, "\n");
}

#define LOGGER(fn, level, counter)                                                                                     \
	void fn(const char *fmt, ...)                                                                                  \
	{                                                                                                              \
		va_list ap;                                                                                            \
		counter;                                                                                               \
		va_start(ap, fmt);                                                                                     \
		record(level, fmt, ap);                                                                                \
		va_end(ap);                                                                                            \
	}
LOGGER(slurm_error, "error", stub.errors++)
LOGGER(slurm_info, "info", (void)0)
LOGGER(slurm_verbose, "verbose", (void)0)
LOGGER(slurm_debug, "debug", (void)0)
LOGGER(slurm_spank_log, "log", (void)0)

/* slurm.c stand-ins: slurmctld's answers */
int mcp_job_nodes(uint32_t job_id, char **nodelist, struct mcr_error *err)
{
	if (!stub.nodes)
		return mcri_error_set(err, MCR_ESTATE, "cannot ask Slurm for the nodes of job %u", job_id);
	*nodelist = strdup(stub.nodes);
	return 0;
}

int mcp_step_nodes(uint32_t job_id, uint32_t step_id, char **nodelist, struct mcr_error *err)
{
	(void)step_id;
	if (!stub.step_nodes && !stub.nodes)
		return mcri_error_set(err, MCR_ESTATE, "cannot ask Slurm for the nodes of step %u", job_id);
	*nodelist = strdup(stub.step_nodes ? stub.step_nodes : stub.nodes);
	return 0;
}

int mcp_job_facts(uint32_t job_id, struct mcp_job_facts *f, struct mcr_error *err)
{
	(void)job_id;
	(void)err;
	memset(f, 0, sizeof(*f));
	f->ended = stub.job_ended;
	snprintf(f->state, sizeof(f->state), "%s", stub.job_ended ? "COMPLETED" : "RUNNING");
	f->het_leader = stub.het_leader;
	f->restarts = stub.restarts;
	snprintf(f->work_dir, sizeof(f->work_dir), "%s", stub.work_dir ? stub.work_dir : "");
	f->start_time = stub.start_time;
	snprintf(f->cluster, sizeof(f->cluster), "%s", stub.cluster ? stub.cluster : "");
	stub.facts_asked++;
	return 0;
}

int mcp_step_facts(uint32_t job_id, uint32_t step_id, struct mcp_step_facts *f, struct mcr_error *err)
{
	(void)job_id;
	(void)step_id;
	(void)err;
	stub.step_asked++;
	f->ended = stub.step_ended;
	return 0;
}

bool mcp_srun_other_cluster(void)
{
	return false;
}

int mcp_node_address(const char *node, char *addr, size_t size, struct mcr_error *err)
{
	(void)node;
	(void)err;
	snprintf(addr, size, "127.0.0.1");
	return 0;
}
