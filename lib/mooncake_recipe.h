/*
 * mooncake_recipe.h - the interface of the recipe library (lib/), internal
 * to this repository.
 *
 * The library reads an srtctl-style recipe (YAML, schema 2), validates what
 * Mooncake needs from it, layers the Mooncake Store client config of each
 * role, and computes the master's command line and each role's worker
 * environment. It is the single code path shared by the SPANK plugin
 * (spank_mooncake.so), the command-line tool (mooncake-recipe) and the tests,
 * which link it as the static archive libmooncake_recipe.a of the build.
 *
 * Internal: nothing is installed and no ABI is promised; a declaration here
 * changes whenever the plugin or the tool needs it to, together with its
 * callers. No shared library is built until a program outside this
 * repository needs one (doc/libmooncake_recipe.md says why, and what its
 * interface would be).
 *
 * Section numbers (§) and rule ids (C1-C11, V1, V2, M1, E1, E2) are those of
 * doc/recipe-reference.md, the contract: every rule the library enforces
 * is listed there with its message.
 *
 * Conventions
 *  - Functions return 0 on success and -1 on failure; on failure the
 *    struct mcr_error they were given says what went wrong in fields, as
 *    jansson's json_error_t does: its kind, the recipe (source), line and
 *    column, and the text (the key path, the bad value and what to do).
 *    mcr_error_format() prints it as one line,
 *    "mooncake: <source>:<line>:<column>: <text>". Running out of memory is
 *    an MCR_EIO error like any other.
 *  - Strings returned to the caller are heap-allocated and owned by the
 *    caller unless documented otherwise; free lists with the matching
 *    *_free function.
 *  - No function prints, exits or keeps global state; all are safe to call
 *    from any SPANK context (none of them changes privileges).
 */
#ifndef MOONCAKE_RECIPE_H_
#define MOONCAKE_RECIPE_H_

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The three ports of the master (§5), as srtctl fixes them. */
#define MCR_MASTER_PORT 8700   /* RPC: master_server_address */
#define MCR_METADATA_PORT 8701 /* HTTP metadata server (/metadata, /health) */
#define MCR_METRICS_PORT 8702  /* admin/metrics HTTP (/health, /metrics) */
/* An HA pool's master address starts so (mcr_recipe_ha_check) */
#define MCR_HA_SCHEME "etcd://"

/* The ports a job's master listens on (TCP port numbers, 1-65535); the
 * plugin may give a job other ports than the three above (ports=auto). */
struct mcr_ports {
	int rpc;      /* master_server_address, MOONCAKE_MASTER */
	int metadata; /* the HTTP metadata server, MOONCAKE_TE_META_DATA_SERVER */
	int metrics;  /* admin/metrics HTTP */
};

enum mcr_error_kind {
	MCR_OK = 0,
	MCR_EINVAL = 1,  /* the recipe (or an argument) is wrong: the user must fix it */
	MCR_EIO = 2,     /* a file could not be read or written, out of memory */
	MCR_ESTATE = 3,  /* the job's master or directory is not in a usable state */
	MCR_WARNING = 4, /* not an error: advice on a valid recipe (mcr_recipe_warning) */
};

/*
 * What exactly went wrong, beside the text (as jansson's json_error_code):
 * a program (or a test) acts on the code, a person reads the text. A
 * refusal of a rule of doc/recipe-reference.md has that rule's code
 * (MCR_E_C1 ... MCR_E_M1); the others say what kind of failure it was.
 * Codes are only ever added, at the end.
 */
enum mcr_error_code {
	MCR_E_NONE = 0, /* no error (kind MCR_OK) */
	MCR_E_INVALID,  /* an argument, or input no numbered rule covers, is wrong */
	MCR_E_IO,       /* a file or directory could not be read or written */
	MCR_E_NOMEM,    /* out of memory */
	MCR_E_STATE,    /* the job's master or directory is not in a usable state */
	MCR_E_ADVICE,   /* a warning on a valid recipe (kind MCR_WARNING) */
	MCR_E_YAML,     /* not YAML srtctl loads: syntax, tags, anchors, depth, size */
	MCR_E_FIELD,    /* a key the recipe's schema does not have */
	MCR_E_SCHEMA,   /* §10.2: the schema version and srtctl's v1 keys */
	MCR_E_LOG_DIR,  /* §10.3: output.log_dir */
	MCR_E_SHAPE,    /* §10.4-§10.6: one master, the engine, kv store, services, roles */
	MCR_E_C1,
	MCR_E_C2,
	MCR_E_C3,
	MCR_E_C4,
	MCR_E_C5,
	MCR_E_C6,
	MCR_E_C7,
	MCR_E_C8,
	MCR_E_C9,
	MCR_E_C10,
	MCR_E_C11,
	MCR_E_V1,
	MCR_E_V2,
	MCR_E_V3,
	MCR_E_S1,
	MCR_E_M1,
	MCR_E_E1,
	MCR_E_E2,
	MCR_E_E3,
	MCR_E_H1, /* §10.13: what an HA pool's clients cannot use (0.5) */
	MCR_E_T1, /* §10.11: a value Mooncake's setup() refuses (0.5) */
	MCR_E_E4, /* §8: a blank address variable (0.5) */
};

/* The code's name as doc/recipe-reference.md writes it ("C5", "YAML",
 * "none"): static, never NULL ("?" for a value the enum does not have). */
const char *mcr_error_code_name(enum mcr_error_code code);

/* Sizes of the fields of struct mcr_error, and of a buffer that holds any
 * message mcr_error_format() prints. */
#define MCR_ERROR_SOURCE_LENGTH 256
#define MCR_ERROR_TEXT_LENGTH 1024
#define MCR_ERROR_MESSAGE_LENGTH (MCR_ERROR_SOURCE_LENGTH + MCR_ERROR_TEXT_LENGTH + 64)

/* Where a value is written (about 0.5 KB, fine on any stack). */
struct mcr_position {
	/* the file as messages call it ("recipe.yaml"); a name longer than
	 * the field keeps its end, after "..." */
	char source[MCR_ERROR_SOURCE_LENGTH];
	int line;   /* 1-based */
	int column; /* 1-based */
	/* the key path of the value ("model.container") */
	char path[MCR_ERROR_SOURCE_LENGTH];
};

/* What went wrong (1.3 KB, fine on any stack). */
struct mcr_error {
	enum mcr_error_kind kind;
	enum mcr_error_code code;
	/* where in the recipe: 1-based, 0 when the error has no position */
	int line;
	int column;
	/* what messages call the recipe ("recipe.yaml"); "" when the error is
	 * not about a recipe's text (a file that cannot be read, a directory,
	 * the master). A name longer than the field keeps its end, after "...". */
	char source[MCR_ERROR_SOURCE_LENGTH];
	/* the message without prefix, e.g. "roles.decode.mooncake_store_config.
	 * global_segment_size: ...". A text longer than the field keeps its
	 * start and its end (the reason and the fix), joined by " [...] ". */
	char text[MCR_ERROR_TEXT_LENGTH];
};

/*
 * The one way an error is printed: "mooncake: " (then "warning: " for
 * MCR_WARNING), "<source>:<line>:<column>: " when the error has a source and
 * a position ("<source>: " with a source only), then the text. Writes at most
 * `size` bytes including the NUL into `buf`; a buffer of
 * MCR_ERROR_MESSAGE_LENGTH bytes holds any message, and a smaller one keeps
 * the message's start and end, joined by " [...] ". Returns the length of
 * the complete message (as snprintf does).
 */
size_t mcr_error_format(const struct mcr_error *err, char *buf, size_t size);

/* Roles of a disaggregated serving job (§4), in srtctl's order. */
enum mcr_role {
	MCR_ROLE_PREFILL = 0,
	MCR_ROLE_DECODE = 1,
	MCR_ROLE_AGG = 2,
	MCR_ROLE_COUNT = 3,
	MCR_ROLE_NONE = -1,
};

enum mcr_engine {
	MCR_ENGINE_SGLANG = 0, /* also the default when a recipe has no engine */
	MCR_ENGINE_VLLM,
	MCR_ENGINE_TRTLLM,
	MCR_ENGINE_OTHER, /* mocker, atom, tilert, tokenspeed: no Mooncake support */
};

/* "prefill", "decode", "agg"; NULL for anything else. */
const char *mcr_role_name(enum mcr_role role);
/* Inverse of mcr_role_name; MCR_ROLE_NONE when name is not a role. */
enum mcr_role mcr_role_from_name(const char *name);
/* "sglang", "vllm", "trtllm" or "other". */
const char *mcr_engine_name(enum mcr_engine engine);

/* ------------------------------------------------------------------ */
/* Recipes                                                             */
/* ------------------------------------------------------------------ */

struct mcr_recipe;

/*
 * Load a recipe from a file and validate every rule of §10 (first failure
 * wins). The YAML is typed as PyYAML safe_load types it (YAML 1.1:
 * `yes` is a bool, `1e9` a string, `0x10` an int). `display_name` is what
 * messages call the file (NULL: the path as given).
 * At most 16 MiB, read to its end (a /proc file that says it is empty is
 * read too). Time and memory are linear in the recipe's size: a recipe
 * with more than 200000 values (its aliases and merge keys expanded), more
 * than 256 levels, or whose values' text with aliases expanded exceeds 8
 * times its size plus 64 KiB is refused before that work is done (§1).
 * On success *out is the caller's (mcr_recipe_free); on failure *out is
 * NULL.
 * Errors: MCR_EIO when the file cannot be read (or memory runs out),
 * MCR_EINVAL when the recipe is malformed, exceeds a limit or breaks a
 * rule (source, line and column say where).
 */
int mcr_recipe_load_file(const char *path, const char *display_name, struct mcr_recipe **out, struct mcr_error *err);
/* Same, from a buffer of `len` bytes (display_name NULL: "recipe"). */
int mcr_recipe_load_buffer(const char *text, size_t len, const char *display_name, struct mcr_recipe **out,
			   struct mcr_error *err);
/* NULL is allowed. */
void mcr_recipe_free(struct mcr_recipe *recipe);

/*
 * Advice that does not stop a valid recipe: likely typos, such as a client-
 * config key no Mooncake reader knows but one letter away from one it does
 * (srtctl passes unknown keys through; so does the plugin). Each is one line
 * "mooncake: warning: <file>:<line>:<col>: ..." (as mcr_error_format
 * prints an MCR_WARNING), at most 16 per recipe; a warning that finds no
 * memory is dropped. Borrowed strings, valid until mcr_recipe_free;
 * mcr_recipe_warning returns NULL for i >= the count.
 */
size_t mcr_recipe_warning_count(const struct mcr_recipe *recipe);
const char *mcr_recipe_warning(const struct mcr_recipe *recipe, size_t i);

enum mcr_engine mcr_recipe_engine(const struct mcr_recipe *recipe);
/* True when a mooncake-master is declared or implied (engine.mooncake_kv_store set). */
bool mcr_recipe_has_master(const struct mcr_recipe *recipe);
/* The `external: host:port` of the master (vLLM/SGLang only), or NULL. */
const char *mcr_recipe_external_master(const struct mcr_recipe *recipe);
/* True when roles.<role> exists in the recipe. */
bool mcr_recipe_has_role(const struct mcr_recipe *recipe, enum mcr_role role);
/* True when the role's workers read a client config file (TRT-LLM connector
 * roles, every vLLM role) with a master; false otherwise. */
bool mcr_recipe_role_reads_config(const struct mcr_recipe *recipe, enum mcr_role role);
/* For vLLM with a non-empty device_names_by_gpu, the number of GPUs it
 * names: each task reads the per-GPU file of its own GPUs
 * (mcr_vllm_gpu_config). 0 otherwise (no per-GPU files). */
size_t mcr_recipe_per_gpu_configs(const struct mcr_recipe *recipe);
/* readiness.timeout_seconds of the mooncake-master service, rounded up, or
 * 0 when the recipe does not set it (the plugstack ready_timeout= applies). */
int mcr_recipe_ready_timeout(const struct mcr_recipe *recipe);
/* output.log_dir of the recipe, or NULL (borrowed). */
const char *mcr_recipe_log_dir(const struct mcr_recipe *recipe);
/*
 * The container the master runs in, chosen as srtctl chooses it: the
 * mooncake-master service's `container`, else engine.mooncake_kv_store.
 * container, else the job's model.container; each only when it is a
 * non-empty string. The value as written (an image, a path, or an srtctl
 * alias that srtslurm.yaml resolves: mcr_srtslurm_container). NULL
 * when the recipe names none or starts no master (none declared, or an
 * external one). Borrowed, valid until mcr_recipe_free.
 * `where` may be NULL; otherwise it is cleared, and when a container is
 * named it says where the value is: its source, line, column and key path
 * ("model.container").
 */
const char *mcr_recipe_master_container(const struct mcr_recipe *recipe, struct mcr_position *where);
/*
 * srtctl's container aliases: the value of the key `alias` in the
 * `containers:` mapping of the srtslurm.yaml file `path` (srtctl's cluster
 * config, read as srtctl reads it; only `containers:` is looked at).
 * Messages name the file `display_name` (NULL: `path`).
 * 1 with *value (heap, the caller frees) when the file maps `alias`;
 * 0 when it does not (no such key, no `containers:`, an empty file), with
 * *value NULL; -1 with err when the file cannot be read (MCR_EIO), is not
 * YAML or not a mapping, has a `containers:` that is not a mapping, or maps
 * `alias` to something other than a non-empty string (MCR_EINVAL, at the
 * file's line and column). `where` may be NULL; otherwise it is cleared,
 * and on 1 it says where the value is (its file, line, column and the key
 * path "containers.<alias>").
 */
int mcr_srtslurm_container(const char *path, const char *display_name, const char *alias, char **value,
			   struct mcr_position *where, struct mcr_error *err);
/* Declared roles as "prefill, decode", "(none)" without roles (caller
 * frees; NULL only when out of memory). */
char *mcr_recipe_role_list(const struct mcr_recipe *recipe);

/*
 * Decide the role of an srun step.
 *   requested   the --mooncake-role value, or NULL
 *   inherited   true when the recipe reached this srun from sbatch/salloc
 *               (#SBATCH --mooncake-recipe) rather than from its own command line
 * Result in *role:
 *   the requested role (an error if the recipe does not declare it, or if it
 *   is not prefill/decode/agg); without a request, the single role of a
 *   one-role recipe when the recipe was given on this srun's command line;
 *   MCR_ROLE_NONE for a step without a role under an inherited recipe (the
 *   step gets nothing); otherwise an error that lists the roles.
 */
int mcr_recipe_resolve_role(const struct mcr_recipe *recipe, const char *requested, bool inherited, enum mcr_role *role,
			    struct mcr_error *err);

/* ------------------------------------------------------------------ */
/* Client-config files (§7)                                            */
/* ------------------------------------------------------------------ */

struct mcr_file {
	char *name; /* file name, no directory: "mooncake_store_config_prefill.json" */
	char *text; /* exact bytes (Python json.dumps(indent=2) format, no trailing newline) */
};

struct mcr_file_list {
	struct mcr_file *files;
	size_t count;
};

/*
 * The client-config files of the recipe for a master at `master_address`
 * ("host:port", e.g. "10.1.1.1:8700"):
 *   TRT-LLM  one mooncake_store_config_<role>.json per connector role (§7.1)
 *   vLLM     one shared mooncake_store_config.json (§7.2)
 *   SGLang, or no master: none (count 0).
 * The model_key default is engine.served_model_name, else the last path
 * component of model.path (hf: prefix removed). An external master's
 * address replaces `master_address`. *out is the caller's
 * (mcr_file_list_free), empty on failure. The files together hold at most
 * 16 times the recipe's size plus 1 MiB (§7).
 * Errors: MCR_EINVAL without an address for a master, or for files beyond
 * that bound (refused as soon as the text passes it); MCR_EIO out of
 * memory.
 */
int mcr_client_configs(const struct mcr_recipe *recipe, const char *master_address, struct mcr_file_list *out,
		       struct mcr_error *err);
/* Frees the files and empties the list. */
void mcr_file_list_free(struct mcr_file_list *list);

/* File name of the client config that `role` reads, or NULL when it reads
 * none (borrowed, static storage). For vLLM with device_names_by_gpu use
 * mcr_vllm_gpu_config. */
const char *mcr_client_config_name(const struct mcr_recipe *recipe, enum mcr_role role);

/*
 * vLLM with options.device_names_by_gpu (§7.2): the per-GPU client config for
 * a process that uses the physical GPUs `gpu_ids` (`count` entries, any
 * order). The name is mooncake_store_config_gpu<ids joined by '-'>.json (ids
 * sorted) and the payload is the shared one plus device_name = the HCA names
 * of those GPUs in the task's order (comma-joined, duplicates removed).
 * *out is the caller's (mcr_file_free).
 * Errors (MCR_EINVAL): a recipe without device_names_by_gpu, no GPUs
 * (count 0), a GPU outside the list (the message names the uncovered ones),
 * a file beyond 16 times the recipe's size plus 1 MiB.
 */
int mcr_vllm_gpu_config(const struct mcr_recipe *recipe, const char *master_address, const int *gpu_ids, size_t count,
			struct mcr_file *out, struct mcr_error *err);
/*
 * TRT-LLM (§7.1): the client config of `role` for one node, whose
 * connector announces `local_hostname` (the node's address on the network
 * the pool uses) instead of its own guess, gethostbyname(gethostname())
 * (a loopback address on hosts whose name maps to 127.0.1.1, the wrong NIC
 * on multi-NIC nodes). The name is mooncake_store_config_<role>.<address>.json,
 * the payload the role's file plus "local_hostname" at its end. When the
 * role's own layers already set local_hostname, *out stays empty (name
 * NULL): the role's file serves every node. *out is the caller's
 * (mcr_file_free).
 * Errors (MCR_EINVAL): not a TRT-LLM connector role with a master, an
 * address that would not make a plain file name (empty, '/', a leading
 * '.'), a file beyond the render bound.
 */
int mcr_trtllm_node_config(const struct mcr_recipe *recipe, enum mcr_role role, const char *master_address,
			   const char *local_hostname, struct mcr_file *out, struct mcr_error *err);
/*
 * The per-GPU part of that file, alone: for a process on the physical GPUs
 * `gpu_ids` (`count`, any order), its file name
 * ("mooncake_store_config_gpu<ids sorted, joined by '-'>.json") and its
 * device_name: the entries of `names` (one per GPU of the node, `n_names`)
 * of those GPUs, in the process's order, duplicates removed, comma-joined.
 * Both heap strings, the caller's. MCR_EINVAL without GPUs or for a GPU
 * outside `names` (the message lists them).
 */
int mcr_gpu_selection(const char *const *names, size_t n_names, const int *gpu_ids, size_t count, char **file_name,
		      char **device_name, struct mcr_error *err);
/* Frees name and text (NULL is allowed). */
void mcr_file_free(struct mcr_file *file);

/*
 * Write the files into `dir`, all of them or none: each text goes to a new
 * temporary file in `dir` (created with O_EXCL under a random name, so a
 * file or link planted there is never written through) and is synced;
 * then each replaces its file by rename, and a failed rename puts the
 * files already replaced back (the old ones are kept as hard links until
 * then). A reader never sees a half-written file. `dir` must exist; a name
 * taken by anything but a regular file is refused before anything is
 * replaced. Mode 0644 minus the caller's umask.
 * Errors: MCR_EIO naming the file and the reason; no temporary file is left.
 */
int mcr_write_files(const char *dir, const struct mcr_file_list *list, struct mcr_error *err);
/* One file, same guarantees (`len` bytes of `text`). */
int mcr_write_file_atomic(const char *dir, const char *name, const char *text, size_t len, struct mcr_error *err);

/*
 * An HA pool (the plugin's ha=etcd): the job's masters run in Mooncake's
 * HA mode and its clients find the leader through an etcd of the job's
 * own. Their master address is then "etcd://ADDR:PORT;ADDR:PORT..."
 * (mcr_client_configs and mcr_worker_env take it as any other; with it
 * mcr_worker_env gives MOONCAKE_TE_META_DATA_SERVER=P2PHANDSHAKE), and
 * they must not use what only a single master serves. 0 when the
 * recipe's clients can use such a pool; MCR_EINVAL, code MCR_E_H1, at
 * the value, for (rule H1 of doc/recipe-reference.md):
 *   - an external master: not the job's own to run in HA mode;
 *   - TRT-LLM, vLLM: a metadata_server other than P2PHANDSHAKE in the
 *     store config (each master's HTTP metadata server is its own);
 *   - SGLang: MOONCAKE_CHECK_SERVER true for a role (SGLang's check takes
 *     the host of MOONCAKE_MASTER before its first ':').
 * A recipe without a master passes.
 */
int mcr_recipe_ha_check(const struct mcr_recipe *recipe, struct mcr_error *err);

/* ------------------------------------------------------------------ */
/* The master (§5)                                                     */
/* ------------------------------------------------------------------ */

/*
 * argv of the master (NULL-terminated, caller frees with mcr_strv_free):
 * `binary` --port=8700 --enable_http_metadata_server=true
 * --http_metadata_server_port=8701 --eviction_high_watermark_ratio=0.9
 * --default_kv_lease_ttl=10000 --rpc_thread_num=16
 * --enable_metric_reporting=true --metrics_port=8702, then the service's
 * `args` verbatim; with `ports` (NULL: 8700, 8701, 8702) the three port
 * flags carry those. When the service sets `command`, argv is command + args
 * (`binary` and `ports` unused: the command chooses its ports).
 * Errors: MCR_EINVAL when the recipe starts no master (none, or external) or
 * a port is outside 1-65535, MCR_EIO out of memory.
 */
int mcr_master_argv(const struct mcr_recipe *recipe, const char *binary, const struct mcr_ports *ports, char ***argv,
		    struct mcr_error *err);
/* Frees each string and the vector (NULL is allowed). */
void mcr_strv_free(char **strv);
/* Number of entries before the terminating NULL. */
size_t mcr_strv_len(char *const *strv);

/* ------------------------------------------------------------------ */
/* Worker environment (§8)                                             */
/* (struct mcr_env is also the master's extra environment, below)      */
/* ------------------------------------------------------------------ */

struct mcr_env_var {
	char *name;
	char *value;
};

struct mcr_env {
	struct mcr_env_var *vars; /* in the order they must be applied */
	size_t count;
};

struct mcr_env_input {
	const char *master_address; /* "host:port" of the master (NULL: no master) */
	const char *metadata_host;  /* host of the HTTP metadata server */
	const char *config_dir;     /* directory holding the client configs */
	const char *config_name;    /* file for this task (NULL: the role's default) */
	const char *local_hostname; /* this node's address for MOONCAKE_LOCAL_HOSTNAME */
	int metadata_port;          /* the job's master's metadata port (0: 8701) */
};

/*
 * The environment a task of `role` gets, later entries winning:
 *   roles.<role>.env, top-level `environment`; then, when the recipe has a
 *   master: MOONCAKE_LOCAL_HOSTNAME (unless already set by the recipe),
 *   engine.mooncake_kv_store.env, MOONCAKE_MASTER=<master_address>,
 *   MOONCAKE_TE_META_DATA_SERVER=http://<metadata_host>:<metadata_port>/metadata
 *   (port 8701 for an external master),
 *   MOONCAKE_CONFIG_PATH=<config_dir>/<file> for roles that read a file.
 * Values are strings as YAML gave them (numbers and bools in their YAML
 * spelling converted as Python's str() would: 1 -> "1", true -> "True").
 * An external master's address replaces in->master_address, its host
 * in->metadata_host. Every name follows rule E1 and every value rule E2
 * (§8): the recipe's are checked at load, the ones made from `in` here.
 * *out is the caller's (mcr_env_free), empty on failure.
 * Errors: MCR_EINVAL for a role the recipe lacks, a master without an
 * address, a value made from `in` that breaks E2 (a line break in the
 * directory, say), an environment beyond 16 times the recipe's size plus
 * 1 MiB; MCR_EIO out of memory.
 */
int mcr_worker_env(const struct mcr_recipe *recipe, enum mcr_role role, const struct mcr_env_input *in,
		   struct mcr_env *out, struct mcr_error *err);
/* Frees the variables and empties env. */
void mcr_env_free(struct mcr_env *env);
/*
 * The variables the recipe gives the master process (§6): the
 * mooncake-master service's `env`. (The engine block's env is for workers
 * only.) Empty for a recipe without a master. *out is the caller's
 * (mcr_env_free). Errors: MCR_EIO out of memory.
 */
int mcr_master_env(const struct mcr_recipe *recipe, struct mcr_env *out, struct mcr_error *err);
/* Value of `name` in env, or NULL (borrowed). */
const char *mcr_env_get(const struct mcr_env *env, const char *name);

/* ------------------------------------------------------------------ */
/* Sizes (§9)                                                          */
/* ------------------------------------------------------------------ */

/*
 * Size parsing as TRT-LLM's parse_size(strict_units=True) for a string:
 * "16GiB" -> 17179869184 bytes. Returns 0 and sets *bytes, or -1 with an
 * MCR_EINVAL error naming `key` when the text is not a byte count or a
 * binary-unit size.
 */
int mcr_parse_size_text(const char *key, const char *text, long long *bytes, struct mcr_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MOONCAKE_RECIPE_H_ */
