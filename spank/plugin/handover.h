/*
 * handover.h - what srun hands the tasks of its steps through their
 * environment (handover.c): a role step's handover, computed once by srun
 * and read by each task; and the names of the variables that hand the
 * steps the plugin starts what they need.
 */
#ifndef MCP_HANDOVER_H_
#define MCP_HANDOVER_H_

#include <stdbool.h>
#include <stddef.h>

#include "mooncake_recipe.h"

/* What srun hands its tasks (handover.c): SLURM_ so that it survives
 * --export=NONE; each task removes it from its environment. */
#define MCP_TASK_VAR "SLURM_MOONCAKE_TASK"
/* What srun hands the master step: its ports, to claim on the infra node
 * (ports.c), "rpc,metadata,metrics"; and what its guard needs (keep.c). */
#define MCP_PORTS_VAR "SLURM_MOONCAKE_MASTER_PORTS"
#define MCP_GUARD_VAR "SLURM_MOONCAKE_MASTER_GUARD"
/* ... and, for an HA pool (ha=etcd), its masters and etcd (ha.c) */
#define MCP_HA_VAR "SLURM_MOONCAKE_HA"

/* What srun hands its role's tasks: the lenders they wait for
 * (stepd.c); and a lender step: what its keeper proves */
#define MCP_LENDERS_VAR "SLURM_MOONCAKE_LENDERS"
#define MCP_LENDER_VAR "SLURM_MOONCAKE_LENDER"

/* The most a task reads of each of these variables, in bytes, its NUL
 * included: srun refuses to hand over more, a task fails on more. */
#define MCP_VAR_MAX 65536
/* The longest a task is told to wait, in seconds: a readiness bound (at
 * most 86400) and the grace srun adds to it. */
#define MCP_WAIT_MAX (86400 + 60)

/* The handover's format: a task refuses one of another (a plugin of
 * another version on srun's host). A handover with `starting` is of
 * MCP_HANDOVER_STARTING: a node whose plugin cannot wait for the master
 * refuses it (its task would start before the master is ready), and
 * reads the others as before. */
#define MCP_HANDOVER_VERSION 2
#define MCP_HANDOVER_STARTING 3

struct mcp_handover {
	struct mcr_env env; /* the role's variables (srun's, in order); a value
				 * equal to `mark` is the node's address */
	/* what srun renders in place of the node's address, which each task
	 * fills in: random per srun, so no recipe value can be taken for it */
	char mark[48];
	char peer[64]; /* the master's host: the route toward it */
	/* a step of the job's own pool: its role and directory (common.c) */
	char *role, *dir;
	/* vLLM device_names_by_gpu: the per-GPU file, for the task's GPUs */
	char *gpu_dir;      /* where to write it (NULL: not per GPU) */
	char *gpu_template; /* the file's text, DEVICE_NAME for its device */
	char **gpu_names;   /* each GPU's HCA name, JSON-escaped */
	size_t gpu_count;
	/* TRT-LLM: the role's client config for one node (its name and text
	 * with `mark` for the address), which a task writes into
	 * `node_dir` and reads where its connector's own guess of the address
	 * is no use (interface=, mcri_own_name_is_loopback); NULL: never */
	char *node_dir, *node_name, *node_template;
	/* a step that joined the job's master while it started: the master
	 * address srun handed over (mcri_state_master) and its metadata
	 * server's ("host:port"), which each task waits for, in `dir`'s
	 * state, up to `starting_within` seconds from its start; NULL: the
	 * master was ready */
	char *starting, *starting_metadata;
	int starting_within;
	/* the bytes each task lends to the pool, and where the recipe sets
	 * them (mcri_role_lends); 0/NULL: nothing */
	long long lend;
	char *lend_set;
	/* the step's tasks run in pyxis's container (mcp_pyxis_hand_over) */
	struct mcp_pyxis_step {
		char *image;   /* its --container-image (or -name); NULL: no pyxis */
		char *mounts;  /* its --container-mounts; NULL: none */
		char *env;     /* the user's --container-env; NULL: not given */
		char *missing; /* the plugin's variables that env lacks; NULL: none */
		char *was;     /* the user's PYXIS_CONTAINER_ENV, when `had` */
		bool had;
	} pyxis;
};
#define MCP_DEVICE_PLACEHOLDER                                                                                         \
	"\x01"                                                                                                         \
	"device"                                                                                                       \
	"\x01"
/* A new random mark for the node's address (h->mark). */
int mcp_handover_mark(struct mcp_handover *h, struct mcr_error *err);
/* `text` with every h->mark replaced by `addr` (heap; NULL out of memory). */
char *mcp_handover_fill(const struct mcp_handover *h, const char *text, const char *addr);
/* The handover as one environment value (heap), and back. */
char *mcp_handover_encode(const struct mcp_handover *h, struct mcr_error *err);
int mcp_handover_decode(const char *text, struct mcp_handover *h, struct mcr_error *err);
void mcp_handover_free(struct mcp_handover *h);
/* A joined master became ready at `master`, its metadata server at
 * `metadata` ("host:port"), not where it was starting (h->starting, a
 * port was taken meanwhile): every value and template of h that names
 * the old addresses names these (whole addresses only), and h->starting
 * is `master`. 0, or -1 out of memory. */
int mcp_handover_follow(struct mcp_handover *h, const char *master, const char *metadata, struct mcr_error *err);
/* The per-GPU client config of the GPUs `ids` (physical indexes, `count`):
 * its file name and text (heap). */
int mcp_handover_gpu_file(const struct mcp_handover *h, const int *ids, size_t count, struct mcr_file *out,
			  struct mcr_error *err);

#endif /* MCP_HANDOVER_H_ */
