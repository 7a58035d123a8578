/*
 * model.h - the recipe model: what the library needs to know of a recipe
 * (its engine, its roles, the pool and its master), read from the node tree
 * (stage 2, see lib/README.md), and the layering of each client config
 * (reference §7). Private: struct mcr_recipe is opaque to mooncake_recipe.h.
 */
#ifndef MCRI_MODEL_H_
#define MCRI_MODEL_H_

#include "yaml/yaml.h"

/* At most this many warnings are kept per recipe (reference §11). */
#define MCRI_MAX_WARNINGS 16

/* ---- memory lenders (lender.c) --------------------------------------
 * srtctl's services that lend their node's memory to the job's pool: a
 * standalone Mooncake Store (`mooncake-store`, the wheel's
 * mooncake_store_service) and TRT-LLM's donor (`mooncake-donor`,
 * `trtllm-serve mooncake_donor`). */
enum mcri_lender_kind {
	MCRI_LENDER_STORE,
	MCRI_LENDER_DONOR,
};
/* where a lender runs (placement.node) */
enum mcri_lender_place {
	MCRI_PLACE_INFRA, /* head, infra (the default): one, on the job's first node */
	MCRI_PLACE_ROLES, /* prefill, decode, agg, workers: each node of those roles' steps */
	MCRI_PLACE_ALL,   /* all: each node of the job */
	MCRI_PLACE_OTHER, /* dedicated, compute, a pool: refused (rules/lenders.c) */
};
/* The longest lender name: it names the lender's step, records and log. */
#define MCRI_LENDER_NAME_MAX 64
/* An enabled lender of the recipe. */
struct mcri_lender {
	const struct mcri_node *entry; /* its services entry */
	const char *name;              /* its name (the entry's) */
	enum mcri_lender_kind kind;
	enum mcri_lender_place place;
	unsigned roles; /* MCRI_ROLE_BIT of the roles whose nodes it runs
					* on (PLACE_ROLES); for the others every role */
	bool critical;  /* a failed lender fails its roles' tasks */
};

struct mcr_recipe {
	struct mcri_doc *doc;
	const struct mcri_node *root;
	enum mcr_engine engine;
	const char *engine_type;             /* "trtllm", ... ("" when malformed) */
	const struct mcri_node *engine_node; /* the engine mapping, or NULL */
	const struct mcri_node *roles;       /* roles mapping, or NULL */
	const struct mcri_node *role_node[MCR_ROLE_COUNT];

	/* The pool: a mooncake-master service, or engine.mooncake_kv_store
	 * (reference §6). */
	bool has_master;
	const struct mcri_node *service;        /* the enabled mooncake-master entry, or NULL */
	const struct mcri_node *kv_block;       /* engine.mooncake_kv_store, or NULL */
	const struct mcri_node *store_config;   /* options.store_config / block store_config */
	char *store_config_where;               /* its key path, for messages (heap) */
	const struct mcri_node *kv_env;         /* engine.mooncake_kv_store.env */
	const struct mcri_node *master_args;    /* service args / master_extra_args */
	const struct mcri_node *master_command; /* service command, or NULL */
	const struct mcri_node *device_names_by_gpu;
	const char *external; /* external host:port, or NULL */

	struct mcri_lender *lenders; /* the enabled lenders, in recipe order (heap) */
	size_t nlenders;

	unsigned connector_modes;          /* MCRI_ROLE_BIT per connector role (TRT-LLM) */
	char *served_model_name;           /* model_key default (heap), or NULL */
	const char *log_dir;               /* output.log_dir, or NULL */
	char *warnings[MCRI_MAX_WARNINGS]; /* formatted lines, mcr_recipe_warning() */
	size_t nwarnings;
};

/* ---- the model (build.c) ------------------------------------------- */

/* A services entry of type mooncake-master; enabled unless `enabled` is
 * false (null and absent count as true). */
bool mcri_entry_is_master(const struct mcri_node *entry);
bool mcri_entry_enabled(const struct mcri_node *entry);

/* The kind of a services entry that lends memory (its `type`): 0 and *kind,
 * or -1 for any other entry. */
int mcri_entry_lender_kind(const struct mcri_node *entry, enum mcri_lender_kind *kind);
/* "mooncake-store", "mooncake-donor" */
const char *mcri_lender_kind_name(enum mcri_lender_kind kind);
/* A lender's placement as it reads (PLACE_OTHER for one the plugin does
 * not run), its roles (MCRI_ROLE_BIT) for PLACE_ROLES. */
enum mcri_lender_place mcri_lender_placement(const struct mcr_recipe *r, const struct mcri_node *entry,
					     unsigned *roles);
/* The image a lender runs in, as srtctl picks it: the service's
 * `container`, else the kind's fallback (engine.mooncake_kv_store.container),
 * else the job's (model.container); NULL for none. `where` as
 * mcr_recipe_master_container's. */
const char *mcri_lender_container(const struct mcr_recipe *r, const struct mcri_lender *l, struct mcr_position *where);
/* The lender named `name`, or NULL. */
const struct mcri_lender *mcri_lender_find(const struct mcr_recipe *r, const char *name);
/* Does a task of `role` wait for lender l on its node? (PLACE_ROLES: one of
 * its roles; the others: every role) */
bool mcri_lender_serves(const struct mcri_lender *l, enum mcr_role role);

/* Read the model of `doc` into r (r borrows the document's nodes; r->doc is
 * set). Refuses only an empty document or one that is not a mapping; every
 * other rule is the validation's (lib/rules/). */
int mcri_recipe_build(struct mcri_doc *doc, struct mcr_recipe *r, struct mcr_error *err);

/* ---- client-config payloads (layer.c) ------------------------------ */

/* Where a value of a client config or of the worker environment comes
 * from (mooncake-recipe explain): the layers of reference §7 and §8. */
enum mcri_layer {
	MCRI_LAYER_ROLE_DEFAULT,    /* role: both or capacity */
	MCRI_LAYER_MODEL_DEFAULT,   /* model_key: the served model */
	MCRI_LAYER_STORE_CONFIG,    /* the master's store_config */
	MCRI_LAYER_ROLE_CONFIG,     /* roles.<role>.mooncake_store_config */
	MCRI_LAYER_MASTER,          /* the job's master (the plugin) */
	MCRI_LAYER_ROLE_ENV,        /* roles.<role>.env */
	MCRI_LAYER_ENVIRONMENT,     /* environment */
	MCRI_LAYER_NODE,            /* the node's address (the plugin) */
	MCRI_LAYER_ENGINE_ENV,      /* engine.mooncake_kv_store.env */
	MCRI_LAYER_JOB_DIR,         /* the job's directory (the plugin) */
	MCRI_LAYER_VLLM_DEFAULT,    /* metadata_server: the plugin's, where vLLM has none */
	MCRI_LAYER_LENDER_KIND,     /* a lender: what its kind gives it (srtctl's defaults) */
	MCRI_LAYER_LENDER_ENV,      /* a lender: services[<name>].env */
	MCRI_LAYER_LENDER_METADATA, /* a store: the workers' metadata server (their client config) */
	MCRI_LAYER_COUNT,
};

/* An ordered JSON object whose values are YAML nodes (or synthetic
 * strings): a client config while it is being layered. */
struct mcri_payload_entry {
	char *key;
	const struct mcri_node *val; /* the value, or NULL: the string `text` */
	char *text;
	char *src;             /* key path of the map the value came from, or NULL (a default) */
	enum mcri_layer layer; /* the layer that set it last */
	/* the value it replaced, if any (explain): its layer, node and map */
	bool replaced;
	enum mcri_layer over_layer;
	const struct mcri_node *over; /* or NULL: the string over_text */
	char *over_text;
	char *over_src;
};
struct mcri_payload {
	struct mcri_payload_entry *e;
	size_t n, cap;
	enum mcri_layer layer; /* the layer mcri_payload_set records */
	struct mcri_index ix;  /* keys by hash (ix.key: the recipe's; NULL: a fixed key) */
};
/* Set key: an existing key keeps its position (Python dict semantics);
 * constant time. */
int mcri_payload_set(struct mcri_payload *p, const char *key, const struct mcri_node *val, const char *text,
		     struct mcr_error *err);
/* Set every key of a YAML map in order (non-string keys as json.dumps
 * converts them); `src` is the map's key path, for messages. */
int mcri_payload_merge_map(struct mcri_payload *p, const struct mcri_node *map, const char *src, struct mcr_error *err);
const struct mcri_payload_entry *mcri_payload_get(const struct mcri_payload *p, const char *key);
void mcri_payload_free(struct mcri_payload *p);

/* The client config of one TRT-LLM connector role (reference §7.1):
 * role, model_key, the master's store_config, the role's
 * mooncake_store_config, master_server_address. C11 checks the same
 * payload. `out` is initialised here; free it even on failure. */
int mcri_trtllm_payload(const struct mcr_recipe *r, enum mcr_role mode, const char *master_address,
			struct mcri_payload *out, struct mcr_error *err);
/* The shared vLLM client config (reference §7.2). */
int mcri_vllm_payload(const struct mcr_recipe *r, const char *master_address, struct mcri_payload *out,
		      struct mcr_error *err);

/* ---- srtctl's container aliases (srtslurm.c) ----------------------- */

/* mcr_srtslurm_container of the file open at `fd` (read from it, not
 * closed; fd -1: it could not be opened, errno says why), named `name` in
 * messages: the plugin reads a srtslurm.yaml it found by itself through
 * the descriptor it checked (runtime/jobdir: mcri_trusted_open). */
int mcri_srtslurm_container_fd(int fd, const char *name, const char *alias, char **value, struct mcr_position *where,
			       struct mcr_error *err);

#endif /* MCRI_MODEL_H_ */
