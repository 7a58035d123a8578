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
 *                  step launched through spawn.c on a port of its own
 *                  (ports.c), its readiness waited for and recorded; the
 *                  role's tasks told what to wait for (MCP_LENDERS_VAR)
 *   lender_keep.c  slurmstepd: the lender step's task stays as its keeper
 *                  (master_keep.c): it proves the lender ready (a store's
 *                  port its own and its segment mounted at the job's
 *                  master; a donor's ready file), restarts it (restart=),
 *                  and records its end
 *   lender_task.c  slurmstepd: a role's task waits for its node's lenders,
 *                  at most their readiness bound, and fails with the
 *                  lender's own cause and log (critical: true, the
 *                  default) or says it goes on without it (critical: false)
 */
#ifndef MCP_LENDER_H_
#define MCP_LENDER_H_

#include "model/model.h" /* the recipe's lenders */
#include "plugin/plugin.h"

/* What srun hands its role's tasks: the lenders they wait for
 * (lender_task.c); and a lender step: what its keeper proves */
#define MCP_LENDERS_VAR "SLURM_MOONCAKE_LENDERS"
#define MCP_LENDER_VAR "SLURM_MOONCAKE_LENDER"

/* ---- lender.c (srun) ----------------------------------------------- */

/* the job as the lenders' elections see it */
struct mcp_lender_job {
	const char *job_id;
	int run;                        /* SLURM_RESTART_COUNT, -1 unknown */
	bool het;                       /* mcp_step_place.het */
	const struct mcri_jobdir *dir;  /* the job's directory, open */
	const char *recipe;             /* its real path */
	uint32_t job_num;               /* the job (of the pool: a heterogeneous job's leader) */
	const char *cluster;            /* which job of its id (mcp_job's) */
	long long start;
	uint32_t step_job, step;        /* this srun's step (its nodes: slurmctld) */
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
int mcp_srun_lenders(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe,
		     enum mcr_role role, const struct mcp_lender_job *job, struct mcr_error *err);
/* How long a lender may take to be ready (seconds): its
 * readiness.timeout_seconds, else ready_timeout= */
int mcp_lender_timeout(const struct mcri_plugstack *ps, const struct mcri_lender *l);

/* ---- lender_keep.c (slurmstepd, a lender step's task) --------------- */

/* MCP_LENDER_VAR's value (heap): the keeper's guard for lender `what` on
 * `subject`'s records, attempt, bound, restart=, hang_timeout=, its port
 * (0: none), the job's directory, and what proves it ready: a store's
 * segment at the master's metrics "host:port", a donor's ready file. */
char *mcp_lender_guard_value(int kind, int attempt, int bound, int restart, int hang, int port,
			     const char *dir, const char *subject, const char *what, const char *segment,
			     const char *master, const char *ready);
/* ... back into g (for step `step`, the keeper being this process);
 * MCR_EINVAL when it is not srun's */
int mcp_lender_guard_parse(const char *value, unsigned long step, struct mcp_guard *g,
			   struct mcr_error *err);
/* One look (mcp_guard_prove): NONE while not ready; OWN once its port (a
 * store's) listens in the keeper's tree and its segment is mounted at the
 * master, or a donor's ready file is there; FOREIGN when another process
 * holds the port. */
enum mcri_proof_verdict mcp_lender_look(struct mcp_guard *g);
/* The keeper's probe of a running lender (hang_timeout=): a store's
 * segment is still mounted at the master; a donor: always. */
bool mcp_lender_answers(struct mcp_guard *g, char *why, size_t size);
/* Before each start: a donor's ready file of an earlier start removed. */
void mcp_lender_before_start(struct mcp_guard *g);
/* slurmstepd, task_init of a lender step: the guard, the keeper
 * (master_keep.c's mcp_master_keep; `rejoin` as its g->rejoin: a lender a
 * later plugin puts in a container is started again in it); returns 0 in
 * the child that becomes the lender, never in the keeper. */
int mcp_lender_task(spank_t sp, const char *value, const struct mcri_plugstack *ps, uint32_t step,
		    bool rejoin, struct mcr_error *err);
/* task_init_privileged of a lender step: its port claimed in root's
 * registry of the node (ports.c) */
int mcp_lender_task_privileged(spank_t sp, const char *value, const struct mcri_plugstack *ps,
			       struct mcr_error *err);
/* task_exit (a child that is the job's user): the keeper has ended, its
 * proof says so */
int mcp_lender_record_end(const char *value, uint32_t step);

/* ---- lender_task.c (slurmstepd, a role's task) ---------------------- */

/* MCP_LENDERS_VAR's value for this task on `node`: wait until each
 * lender it names is ready on its node. -1 with the lender's cause and
 * its log's last lines for a critical one that failed, ended or did not
 * become ready in time; a lender with critical: false is said on stderr
 * and not waited for further. */
int mcp_task_wait_lenders(const char *value, const char *node, struct mcr_error *err);

#endif /* MCP_LENDER_H_ */
