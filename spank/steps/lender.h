/*
 * lender.h - the job's memory lenders: srtctl's `mooncake-store` (the
 * wheel's standalone store service) and `mooncake-donor` (TRT-LLM's
 * `trtllm-serve mooncake_donor`) services, each a job step of its own on
 * each node its placement names, lending that node's memory to the job's
 * pool (lib/: the recipe's lenders, their command line and environment).
 *
 * When a lender starts: the first srun that places a task of a role a
 * lender serves on a node starts that node's lender (an infra lender: on
 * the job's first node; `all`: on every node of the job), in its
 * local_user_init, once its step exists and its nodes are known; every
 * other srun joins it. The step's tasks there wait for it in task_init,
 * so no task of those roles runs before its node's lender lends.
 *
 *   lender.c       srun: one election per lender and node (election.c,
 *                  the master's, run on the lender's records), the lender
 *                  step launched through step.c on a port of its own
 *                  (ports.c), its readiness waited for and recorded; the
 *                  role's tasks told what to wait for (MCP_LENDERS_VAR)
 *   keep.c  slurmstepd: the lender step's task stays as its keeper
 *                  (keep.c): it proves the lender ready (a store's
 *                  port its own and its segment mounted at the job's
 *                  master; a donor's ready file), restarts it (restart=),
 *                  and records its end
 *   stepd.c  slurmstepd: a role's task waits for its node's lenders,
 *                  at most their readiness bound, and fails with the
 *                  lender's own cause and log (critical: true, the
 *                  default) or says it goes on without it (critical: false)
 */
#ifndef MCP_LENDER_H_
#define MCP_LENDER_H_

#include <stdbool.h>
#include <stdint.h>

#include "jobdir/jobdir.h"
#include "model/model.h" /* the recipe's lenders */
#include "mooncake_recipe.h"
#include "plugstack/plugstack.h"

/* ---- srun's side ---------------------------------------------------- */

/* the job as the lenders' elections see it */
struct mcp_lender_job {
	const char *job_id;
	int run;                       /* SLURM_RESTART_COUNT, -1 unknown */
	bool het;                      /* mcp_step_place.het */
	const struct mcri_jobdir *dir; /* the job's directory, open */
	const char *recipe;            /* its real path */
	uint32_t job_num;              /* the job (of the pool: a heterogeneous job's leader) */
	const char *cluster;           /* which job of its id (mcp_job's) */
	long long start;
	uint32_t step_job, step; /* this srun's step (its nodes: slurmctld) */
	/* what srun itself says of its step's nodes, where it does: how
	 * many, its --nodelist (NULL: none), the job's nodes of its
	 * environment (SLURM_JOB_NODELIST inside the allocation, else NULL) */
	uint32_t nnodes;
	const char *nodelist, *job_nodelist;
};
/* srun's own --nodelist (-w) among the `n` bytes of NUL-terminated words
 * of its command line `args` (as /proc/self/cmdline), before its last
 * `cmd_argc` words (the step's command, S_JOB_ARGV): the last one given,
 * heap; NULL when there is none (or no memory). */
char *mcp_srun_named_nodes(const char *args, size_t n, int cmd_argc);
/* srun's local_user_init, once its step exists: start or join the
 * lenders that serve `role` on the nodes of this srun's step (and an
 * infra lender, and `all` lenders on the job's nodes), and set
 * MCP_LENDERS_VAR for its tasks. A lender that fails is said here and
 * handed to the tasks, which fail (critical) or go on; -1 only when srun
 * cannot go on at all (out of memory, no job directory). */
int mcp_srun_lenders(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe, enum mcr_role role,
		     const struct mcp_lender_job *job, struct mcr_error *err);
/* How long a lender may take to be ready (seconds): its
 * readiness.timeout_seconds, else ready_timeout= */
int mcp_lender_timeout(const struct mcri_plugstack *ps, const struct mcri_lender *l);

#endif /* MCP_LENDER_H_ */
