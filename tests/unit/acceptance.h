/*
 * acceptance.h - what the files of srtctl's acceptance cases share
 * (test_acceptance.c, test_acceptance_refused.c): the recipes and the
 * helpers (acceptance.c).
 *
 * R is the PR example examples/trtllm/trtllm-serve-disagg-mooncake.yaml and D
 * examples/trtllm/dynamo-disagg-mooncake.yaml, both with model.path
 * hf:Qwen/Qwen3-0.6B and model.container trtllm.sqsh as srtctl's cases set them. The
 * recipes are assembled from the named fragments below, and each case edits
 * them with edit(): a fragment is also the anchor that edit() replaces, so a
 * variant reads as "R with <fragment> replaced by <text>".
 */
#ifndef MCK_ACCEPTANCE_H_
#define MCK_ACCEPTANCE_H_

#include "testutil.h"

#define INFRA_IP "10.1.1.1"
#define MASTER INFRA_IP ":8700"

/* ---- the recipes --------------------------------------------------- */

#define HEAD                                                                                                           \
	"schema: 2\n"                                                                                                  \
	"name: qwen3-0.6b-trtllm-disagg-mooncake\n"                                                                    \
	"slurm:\n"                                                                                                     \
	"  time_limit: \"00:30:00\"\n"                                                                                 \
	"model:\n"                                                                                                     \
	"  path: hf:Qwen/Qwen3-0.6B\n"                                                                                 \
	"  container: trtllm.sqsh\n"                                                                                   \
	"  precision: bf16\n"                                                                                          \
	"resources:\n"                                                                                                 \
	"  gpu_type: h100\n"                                                                                           \
	"  gpus_per_node: 8\n"

#define FRONTEND_SERVE                                                                                                 \
	"frontend:\n"                                                                                                  \
	"  type: trtllm_serve\n"                                                                                       \
	"  enable_multiple_frontends: false\n"

#define FRONTEND_DYNAMO                                                                                                \
	"dynamo:\n"                                                                                                    \
	"  install: false\n"                                                                                           \
	"frontend:\n"                                                                                                  \
	"  type: dynamo\n"                                                                                             \
	"  enable_multiple_frontends: false\n"

#define SERVED_NAME "  served_model_name: Qwen/Qwen3-0.6B\n"
#define ENGINE "engine:\n  type: trtllm\n" SERVED_NAME

/* the roles' env and connectors; the comments make them edit() anchors */
#define P_ENV                                                                                                          \
	"    env:                       # prefill\n"                                                                   \
	"      PYTHONUNBUFFERED: \"1\"\n"                                                                              \
	"      TLLM_LOG_LEVEL: INFO\n"
#define D_ENV                                                                                                          \
	"    env:                       # decode\n"                                                                    \
	"      PYTHONUNBUFFERED: \"1\"\n"                                                                              \
	"      TLLM_LOG_LEVEL: INFO\n"
/* what a role that owns its pool sets instead (cases 11 and 15) */
#define CONFIG_PATH_ENV                                                                                                \
	"    env:\n"                                                                                                   \
	"      MOONCAKE_CONFIG_PATH: /data/mooncake.json\n"

#define P_KCC                                                                                                          \
	"      kv_connector_config:     # prefill\n"                                                                   \
	"        connector: mooncake-store\n"
#define D_KCC                                                                                                          \
	"      kv_connector_config:     # decode\n"                                                                    \
	"        connector: mooncake-store\n"

#define PREFILL                                                                                                        \
	"  prefill:\n"                                                                                                 \
	"    nodes: 1\n"                                                                                               \
	"    workers: 1\n"                                                                                             \
	"    gpus: 1\n" P_ENV "    args:\n"                                                                            \
	"      backend: pytorch\n"                                                                                     \
	"      tensor_parallel_size: 1\n"                                                                              \
	"      max_batch_size: 8\n"                                                                                    \
	"      disable_overlap_scheduler: true\n"                                                                      \
	"      kv_cache_config:\n"                                                                                     \
	"        free_gpu_memory_fraction: 0.5\n" P_KCC

#define DECODE                                                                                                         \
	"  decode:\n"                                                                                                  \
	"    nodes: colocate\n"                                                                                        \
	"    workers: 1\n"                                                                                             \
	"    gpus: 1\n" D_ENV "    args:\n"                                                                            \
	"      backend: pytorch\n"                                                                                     \
	"      tensor_parallel_size: 1\n"                                                                              \
	"      max_batch_size: 64\n"                                                                                   \
	"      kv_cache_config:\n"                                                                                     \
	"        free_gpu_memory_fraction: 0.5\n" D_KCC

/* roles.decode.mooncake_store_config of R */
#define D_MSC                                                                                                          \
	"    mooncake_store_config:\n"                                                                                 \
	"      global_segment_size: 16GiB\n"

/* the last line of options.store_config: store keys are added after it */
#define STORE_LAST "        stage_through_host: true\n"
#define SERVICES                                                                                                       \
	"services:\n"                                                                                                  \
	"  - name: mooncake-master\n"                                                                                  \
	"    type: mooncake-master\n"                                                                                  \
	"    options:\n"                                                                                               \
	"      store_config:\n"                                                                                        \
	"        protocol: rdma\n"                                                                                     \
	"        global_segment_size: 8GiB\n" STORE_LAST

#define BENCHMARK                                                                                                      \
	"benchmark:\n"                                                                                                 \
	"  type: sa-bench\n"                                                                                           \
	"  isl: 128\n"                                                                                                 \
	"  osl: 128\n"                                                                                                 \
	"  concurrencies: \"4x8\"\n"

/* R and D (acceptance.c) */
extern const char R[], D[];

/* ---- helpers ------------------------------------------------------- */
/* `text` (freed) with `old`, which must occur exactly once, replaced */
char *edit_one(char *text, const char *old, const char *rep);

/* `base` with each (old, new) pair applied in turn, NULL-terminated */
char *edit(const char *base, ...);

/* the text of an edited recipe must load / be refused */
struct mcr_recipe *load_ok_free(char *yaml);

/* Files rendered for the master at 10.1.1.1:8700. */
struct mcr_file_list render(const struct mcr_recipe *r);

/* Text of file `name` in the list, or NULL. */
const char *file_text(const struct mcr_file_list *list, const char *name);

/* Environment of a `role` task, files in /logs, node address 10.1.1.2. */
struct mcr_env worker_env(const struct mcr_recipe *r, enum mcr_role role);

/* The string value of "key" in a rendered JSON file (static storage), or
 * NULL when the key is absent or not a string. */
const char *json_str(const char *json, const char *key);

#define BIT(role) MCRI_ROLE_BIT(MCR_ROLE_##role)

#endif
