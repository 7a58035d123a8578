/*
 * workers.c - each task of a step with a master records itself in the
 * job's directory, <dir>/workers/<node>.<job>.<step>.<task>.json: node,
 * role, the address its Mooncake client announces (MOONCAKE_LOCAL_HOSTNAME),
 * step and task. The master names each segment after that address, so
 * mooncake-recipe status and the pool's report join segments to nodes and
 * roles through these records. Written atomically, as the user
 * (task_init); a record that cannot be written is a warning, never an
 * error of the task.
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
	rc = mcri_mkdir_p(wdir, 0755, err) ||
	     mcr_write_file_atomic(wdir, name, text, strlen(text), err) ? -1 : 0;
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

	if (!address || !dir || !role)
		return; /* no pool of the job's own here */
	if (record(sp, dir, role, address, &err) == 0)
		return;
	err.kind = MCR_WARNING;
	mcr_error_format(&err, msg, sizeof(msg));
	slurm_info("%s (mooncake-recipe status shows this task's segment without its node and role)",
		   msg);
}
