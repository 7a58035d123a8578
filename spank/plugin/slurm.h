/*
 * slurm.h - what only slurmctld knows, asked from srun (slurm.c): the
 * job's and a step's nodes, a node's address, the job's state. The plugin
 * tests replace slurm.c (tests/plugin/stub.c).
 */
#ifndef MCP_SLURM_H_
#define MCP_SLURM_H_

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mooncake_recipe.h"

int mcp_job_nodes(uint32_t job_id, char **nodelist, struct mcr_error *err);
/* the nodes of step step_id of job job_id, as a Slurm host list (heap) */
int mcp_step_nodes(uint32_t job_id, uint32_t step_id, char **nodelist, struct mcr_error *err);
/* What slurmctld says of a job: whether it has ended (or is ending), its
 * state's name, the leader of its heterogeneous job (0 when it is none). */
struct mcp_job_facts {
	bool ended;
	char state[32];
	uint32_t het_leader;
	int restarts;            /* its restart count (a requeue is a new run) */
	char work_dir[PATH_MAX]; /* where it was submitted ("" unknown) */
	long long start_time;    /* when it started, Unix seconds (0 unknown) */
	char cluster[64];        /* the cluster it runs on ("" unknown) */
};
int mcp_job_facts(uint32_t job_id, struct mcp_job_facts *f, struct mcr_error *err);
/* ... and of one of its steps: whether it has ended (slurmctld no longer
 * lists it, or it is completing). */
struct mcp_step_facts {
	bool ended;
};
int mcp_step_facts(uint32_t job_id, uint32_t step_id, struct mcp_step_facts *f, struct mcr_error *err);
int mcp_node_address(const char *node, char *addr, size_t size, struct mcr_error *err);
/* srun talks to another cluster than this host's: srun -M, or a job of a
 * federation that runs on a sibling (libslurm's working_cluster_rec) */
bool mcp_srun_other_cluster(void);

#endif /* MCP_SLURM_H_ */
