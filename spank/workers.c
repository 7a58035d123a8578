/*
 * workers.c - the first task of each node of a step with a master records
 * the node in the job's directory, <dir>/workers/<node>.<job>.<step>.<task>.json:
 * node, role, the address its Mooncake clients announce
 * (MOONCAKE_LOCAL_HOSTNAME, the same for every task of the node), step and
 * task. The master names each segment after that address, so
 * mooncake-recipe status and the pool's report join segments to nodes and
 * roles through these records. One file per node and step, not per task (a
 * file created on the job's shared file system costs far more than the
 * rest of task_init); written atomically without fsync (it is advice), as
 * the user; a record that cannot be written is a warning, never an error of
 * the task.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "plugin.h"

static int record(spank_t sp, const char *dir, const char *role, const char *address,
		  struct mcr_error *err)
{
	uint32_t job = 0, step = 0, task = 0;
	char node[256] = "", *wdir = NULL, *name = NULL, *text = NULL;
	json_t *o;
	int rc = -1;

	gethostname(node, sizeof(node) - 1);
	spank_get_item(sp, S_JOB_ID, &job);
	spank_get_item(sp, S_JOB_STEPID, &step);
	spank_get_item(sp, S_TASK_GLOBAL_ID, &task);
	o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I}", "node", node, "role", role,
		      "address", address, "job", (json_int_t)job, "step", (json_int_t)step,
		      "task", (json_int_t)task);
	if (o)
		text = json_dumps(o, JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!text || !(wdir = mcri_asprintf("%s/workers", dir)) ||
	    !(name = mcri_asprintf("%s.%u.%u.%u.json", node, job, step, task))) {
		mcri_error_nomem(err);
		goto out;
	}
	/* advice for status and the report: no fsync on every task's start */
	rc = mcri_mkdir_p(wdir, 0755, err) ||
	     mcri_write_file(wdir, name, text, strlen(text), false, err) ? -1 : 0;
out:
	free(text);
	free(wdir);
	free(name);
	return rc;
}

void mcp_record_worker(spank_t sp, const char *dir, const char *role,
		       const char *address)
{
	struct mcr_error err = { 0 };
	char msg[MCR_ERROR_MESSAGE_LENGTH];

	uint32_t local = 0;

	if (!address || !dir || !role)
		return; /* no pool of the job's own here */
	if (spank_get_item(sp, S_TASK_ID, &local) != ESPANK_SUCCESS || local != 0)
		return; /* the node's first task speaks for the node */
	if (record(sp, dir, role, address, &err) == 0)
		return;
	err.kind = MCR_WARNING;
	mcr_error_format(&err, msg, sizeof(msg));
	slurm_info("%s (mooncake-recipe status shows this task's segment without its node and role)",
		   msg);
}
