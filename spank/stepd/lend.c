/*
 * lend.c - task_init of a role step: the memory its tasks lend to the pool
 * fits in the node. Each task's engine mounts a segment of the size srun
 * handed over (mcri_role_lends: the recipe's global segment as the engine
 * reads it); the step's tasks on this node together cannot lend more than
 * the node's memory. check cannot know the node (a 4096 TiB segment is a
 * size TRT-LLM reads); here it is known, and the task fails with the
 * numbers before its engine starts, instead of the engine failing later
 * (TRT-LLM: "this node cannot afford"; the others when the segment is
 * allocated, or the OOM killer).
 */
#include <stdio.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "plugin/plugin.h"

#define GIB 1073741824.0

int mcp_task_lend_check(spank_t sp, const struct mcp_handover *h, struct mcr_error *err)
{
	struct sysinfo si;
	uint32_t tasks = 1;
	unsigned long long mem;
	char node[256] = "";

	if (h->lend <= 0 || sysinfo(&si) != 0)
		return 0; /* nothing lent, or the node's memory unknown: no check */
	mem = (unsigned long long)si.totalram * (si.mem_unit ? si.mem_unit : 1);
	if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &tasks) != ESPANK_SUCCESS || tasks == 0)
		tasks = 1;
	if ((unsigned long long)h->lend <= mem / tasks)
		return 0;
	gethostname(node, sizeof(node) - 1);
	return mcri_error_set(err, MCR_EINVAL,
			      "each task of this step lends a segment of %lld bytes (%.1f GiB, %s) to the job's pool, and its %u task%s on %s would lend %.1f GiB in all, more than the node's memory, %llu bytes (%.1f GiB): no node lends more than it has; give each task a share of its node's memory there (the node's memory divided by the tasks on it, less what the engine itself needs)",
			      h->lend, (double)h->lend / GIB, h->lend_set ? h->lend_set : "global_segment_size",
			      tasks, tasks == 1 ? "" : "s", node, (double)h->lend / GIB * tasks, mem,
			      (double)mem / GIB);
}
