/*
 * render.h - what the files of the render stage share (stage 4, see
 * lib/README.md): the mcr_* functions they implement are declared in
 * mooncake_recipe.h.
 */
#ifndef MCRI_RENDER_H_
#define MCRI_RENDER_H_

#include <stdint.h>

#include "model/model.h"

/* What one render call may write for a recipe (reference §7): the client
 * configs of mcr_client_configs together, one per-GPU file, one
 * environment: MCRI_RENDER_FACTOR times the recipe's size in bytes plus
 * MCRI_RENDER_SLACK. Beyond it the call fails (MCR_EINVAL) as soon as the
 * output passes the bound, before writing the rest. */
#define MCRI_RENDER_FACTOR 16u
#define MCRI_RENDER_SLACK (1u << 20)
static inline size_t mcri_render_max(const struct mcr_recipe *r)
{
	size_t len = r->doc ? r->doc->input_len : 0;

	return len > (SIZE_MAX - MCRI_RENDER_SLACK) / MCRI_RENDER_FACTOR ? SIZE_MAX
									 : len * MCRI_RENDER_FACTOR + MCRI_RENDER_SLACK;
}

/* The payload as Python's json.dumps(payload, indent=2) writes it
 * (reference §7) into *out (heap, caller frees), appended to nothing;
 * `*budget` is the bytes left to the render call, decreased by the text's
 * length. MCR_EINVAL (naming `what`, e.g. "mooncake_store_config_prefill.json")
 * when the text would exceed the budget; MCR_EIO out of memory. */
int mcri_payload_dumps(const struct mcr_recipe *r, const struct mcri_payload *p, const char *what, size_t *budget,
		       char **out, struct mcr_error *err);

/* One value as it appears in a client config, on one line ("tcp" with
 * its quotes, 16, true, {"a": 1}); `text` when `n` is NULL. NULL only when
 * out of memory. */
char *mcri_value_json(const struct mcri_node *n, const char *text);

/* The address the files and the workers get: an external master's for
 * vLLM/SGLang, otherwise the one the caller computed for the infra node. */
const char *mcri_effective_master(const struct mcr_recipe *r, const char *master_address);

/* The bytes each task of `role` lends to the job's pool (lend.c): its
 * global segment as the role's engine reads it, the engine's default when
 * the recipe sets none, 0 for a role whose workers run no Mooncake client
 * or lend nothing; `where` (size bytes) names the setting, for messages
 * ("services[mooncake-master].options.store_config.global_segment_size").
 * -1 only when out of memory. The plugin refuses, when a task starts, a
 * segment its node cannot lend (spank/stepd/stepd.c). */
int mcri_role_lends(const struct mcr_recipe *r, enum mcr_role role, long long *bytes, char *where, size_t size,
		    struct mcr_error *err);

/* Where a variable of the worker environment was set (explain). */
struct mcri_env_origin {
	enum mcri_layer layer;
	const struct mcri_node *node; /* the recipe's value, NULL: the plugin's */
	char where[80];               /* the map's key path ("roles.decode.env") */
	bool replaced;                /* it replaced the value of an earlier layer: */
	enum mcri_layer over_layer;
	const struct mcri_node *over;
	char over_value[256]; /* that value (cut) */
};

/* mcr_worker_env, and with `origins` (not NULL) the origin of each
 * variable, in the order of out->vars (heap array, caller frees). */
int mcri_worker_env_origins(const struct mcr_recipe *r, enum mcr_role role, const struct mcr_env_input *in,
			    struct mcr_env *out, struct mcri_env_origin **origins, struct mcr_error *err);

/* ---- a memory lender's command line and environment ------------------- */

/* Where one lender runs (the plugin's side of it). */
struct mcri_lender_at {
	const char *node;          /* its node, as Slurm names it */
	const char *addr;          /* that node's address */
	int port;                  /* a store's port (--port; its segment's name: 0 none) */
	const char *master;        /* the pool's master address ("host:port", etcd://) */
	const char *metadata_host; /* the job's master's metadata server */
	int metadata_port;
	const char *dir; /* the job's directory */
	int timeout;     /* seconds it may take to be ready */
};
/* The lender's argv (mcr_strv_free):
 *   store: python3 -c <the wheel's mooncake.mooncake_store_service, run
 *          as python -m runs it, its REST API bound to 127.0.0.1>
 *          --port=<port> --max-wait-time=<timeout> [args]
 *   donor: trtllm-serve mooncake_donor --master_server_address <master>
 *          --segment_size <options.size> --protocol <options.protocol, rdma>
 *          --ready_file <dir>/mooncake/donor-<node>.ready [args]
 * the service's `command` in place of the program (python3 -c ...,
 * trtllm-serve mooncake_donor). MCR_EINVAL without a port (store) or a
 * master; MCR_EIO out of memory. */
int mcri_lender_argv(const struct mcr_recipe *r, const struct mcri_lender *l, const struct mcri_lender_at *at,
		     char ***argv, struct mcr_error *err);
/* The lender's extra environment, later entries winning, with each
 * variable's origin when `origins` is not NULL (explain; heap array):
 *   store: MOONCAKE_LOCAL_HOSTNAME=<addr> (srtctl's default),
 *          services[<name>].env, MOONCAKE_MASTER (the job's master),
 *          MOONCAKE_TE_META_DATA_SERVER (the workers': the job's, or their
 *          client config's, mcri_lender_metadata);
 *   donor: TRTLLM_MOONCAKE_RUN_DIR=<dir>/mooncake/donor-<node>,
 *          TRTLLM_MOONCAKE_MASTER_TIMEOUT=<timeout>, TLLM_LOG_LEVEL=INFO,
 *          services[<name>].env. */
int mcri_lender_env_origins(const struct mcr_recipe *r, const struct mcri_lender *l, const struct mcri_lender_at *at,
			    struct mcr_env *out, struct mcri_env_origin **origins, struct mcr_error *err);
/* The metadata server the job's workers find segments through, which a
 * store must announce its segment to: NULL for the job's own (SGLang's
 * workers: MOONCAKE_TE_META_DATA_SERVER is the plugin's), else the text of
 * the client configs (vLLM's, TRT-LLM's connector roles': their
 * metadata_server, P2PHANDSHAKE when they name none). `where` (NULL: not
 * wanted) the key path that names it, "" for a default. A TRT-LLM recipe
 * whose connector roles name different ones: the first's (rules/lenders.c
 * refuses a store there). Borrowed. */
const char *mcri_lender_metadata(const struct mcr_recipe *r, const char **where);
/* The name of the segment a store mounts: "<host>:*" for a
 * MOONCAKE_LOCAL_HOSTNAME without a port (Mooncake adds one of its own at
 * each start: the new segment of that host is the store's), else that
 * name (heap). NULL with err for a donor (TRT-LLM names its segment). */
char *mcri_lender_segment(const struct mcr_recipe *r, const struct mcri_lender *l, const struct mcri_lender_at *at,
			  struct mcr_error *err);
/* The donor's ready file, relative to the job's directory:
 * "mooncake/donor-<node>.ready" (heap), and its run directory
 * "mooncake/donor-<node>". */
char *mcri_donor_ready_file(const char *node);
char *mcri_donor_run_dir(const char *node);

#endif /* MCRI_RENDER_H_ */
