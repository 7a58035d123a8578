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
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plugin/plugin.h"

void mcp_record_worker(spank_t sp, const struct mcri_jobdir *dir, const char *role,
		       const char *address)
{
	struct mcri_worker w = { .job = 0 };
	struct mcr_error err = { 0 };
	char msg[MCR_ERROR_MESSAGE_LENGTH];
	uint32_t local = 0, job = 0, step = 0, task = 0;

	if (!address || !dir || !role)
		return; /* no pool of the job's own here */
	if (spank_get_item(sp, S_TASK_ID, &local) != ESPANK_SUCCESS || local != 0)
		return; /* the node's first task speaks for the node */
	gethostname(w.node, sizeof(w.node) - 1);
	spank_get_item(sp, S_JOB_ID, &job);
	spank_get_item(sp, S_JOB_STEPID, &step);
	spank_get_item(sp, S_TASK_GLOBAL_ID, &task);
	w.job = job;
	w.step = step;
	w.task = task;
	snprintf(w.role, sizeof(w.role), "%s", role);
	snprintf(w.address, sizeof(w.address), "%s", address);
	if (mcri_worker_write(dir, &w, &err) == 0)
		return;
	err.kind = MCR_WARNING;
	mcr_error_format(&err, msg, sizeof(msg));
	slurm_info("%s (mooncake-recipe status shows this task's segment without its node and role)",
		   msg);
}
