/*
 * stepd.h - the remote context: slurmstepd, one per step and node
 * (stepd.c), one function per callback (dispatch.c); a task's waits for
 * what another srun starts.
 */
#ifndef MCP_STEPD_H_
#define MCP_STEPD_H_

#include <stdbool.h>

#include <slurm/spank.h>

#include "jobdir/jobdir.h"
#include "mooncake_recipe.h"
#include "plugin/handover.h"

int mcp_stepd_init(spank_t sp, int ac, char **av);
int mcp_stepd_task_init_privileged(spank_t sp);
int mcp_stepd_task_init(spank_t sp);
int mcp_stepd_task_exit(spank_t sp);
void mcp_stepd_exit(void);

/* A task that waits for what another srun starts (the
 * master, a lender: `subject` of the records, NULL the master): the
 * starter of the attempt `st` is about is gone, its lock held by no one
 * and untouched for a few seconds longer than a waiting srun would take
 * to take over (mcri_lock_seen_gone), and no srun has taken a newer
 * attempt's lock. `seen` and `looked` keep what this task saw (the lock
 * is read at most once a second). */
bool mcp_starter_gone(const struct mcri_jobdir *jd, const char *subject, const struct mcri_state *st,
		      struct mcri_lock_seen *seen, double *looked, double now);

/* MCP_LENDERS_VAR's value for this task on `node`: wait until each
 * lender it names is ready on its node. -1 with the lender's cause and
 * its log's last lines for a critical one that failed, ended or did not
 * become ready in time; a lender with critical: false is said on stderr
 * and not waited for further. */
int mcp_task_wait_lenders(const char *value, const char *node, struct mcr_error *err);

/* task_init of a role step (lend.c): the segment each of the step's tasks
 * on this node lends (h->lend) fits in the node's memory; -1 with the
 * numbers and the setting to lower. */
int mcp_task_lend_check(spank_t sp, const struct mcp_handover *h, struct mcr_error *err);

#endif /* MCP_STEPD_H_ */
