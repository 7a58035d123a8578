/*
 * internal.h - what the library's files share and the public header does
 * not show: the YAML node tree, the recipe model, error helpers.
 */
#ifndef MCR_INTERNAL_H_
#define MCR_INTERNAL_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mooncake_recipe.h"

/* ---- YAML documents (yaml_doc.c) ---------------------------------- */

/* Python types after PyYAML safe_load. */
enum mcr_type {
	MCR_T_NULL,
	MCR_T_BOOL,
	MCR_T_INT,
	MCR_T_FLOAT,
	MCR_T_STR,
	MCR_T_SEQ,
	MCR_T_MAP,
};

struct mcr_node {
	enum mcr_type type;
	int line, col;      /* 1-based position in the file */
	bool b;             /* MCR_T_BOOL */
	long long i;        /* MCR_T_INT (clamped when beyond 64 bits; then s holds the digits) */
	double f;           /* MCR_T_FLOAT */
	char *s;            /* MCR_T_STR: the value (no NUL inside); big MCR_T_INT: digits */
	size_t n;           /* MCR_T_SEQ: items; MCR_T_MAP: pairs */
	struct mcr_node **items; /* MCR_T_SEQ items; MCR_T_MAP values */
	struct mcr_node **keys;  /* MCR_T_MAP keys (any scalar type) */
	size_t cap;
	size_t weight;      /* nodes reachable through aliases (saturating) */
	bool complete;      /* construction finished (alias cycle guard) */
	bool merge_key;     /* a plain `<<` key (YAML merge) */
	struct mcr_node *next_alloc; /* arena list */
};

struct mcr_doc {
	char *name;              /* what messages call the file */
	struct mcr_node *root;   /* NULL for an empty document */
	struct mcr_node *arena;  /* every node, for freeing (aliases share nodes) */
};

int mcr_doc_parse(const char *text, size_t len, const char *name,
		  struct mcr_doc **out, struct mcr_error *err);
void mcr_doc_free(struct mcr_doc *doc);

/* Value of the string key `key` in a map (NULL if absent or not a map). */
struct mcr_node *mcr_map_get(const struct mcr_node *map, const char *key);
/* Index of `key` in a map or (size_t)-1. */
size_t mcr_map_index(const struct mcr_node *map, const char *key);
bool mcr_is_map(const struct mcr_node *n);
bool mcr_is_seq(const struct mcr_node *n);
bool mcr_is_str(const struct mcr_node *n);
/* Python truthiness: None/False/0/0.0/""/[]/{} are false. */
bool mcr_truthy(const struct mcr_node *n);
/* A non-empty map (an empty {} counts as "not set", §1.4). */
bool mcr_nonempty_map(const struct mcr_node *n);
/* Python repr() of the node: 'text', 16, True, None, 1.5, [..], {..}. */
char *mcr_repr(const struct mcr_node *n);
/* Python str() of a scalar: text, "16", "True", "None", "1.5"; repr for
 * collections. */
char *mcr_pystr(const struct mcr_node *n);
/* Key of a map entry as a display string (str() of the key). */
char *mcr_key_str(const struct mcr_node *key);
/* Python float repr into buf ("64.0", "1e+16", "inf"). */
void mcr_float_repr(double v, char *buf, size_t size);

/* ---- errors (error.c) -------------------------------------------- */

/*
 * "mooncake: <doc name>:<line>:<col>: <message>" (position of `at`; without
 * `at` just "<doc name>: "). Returns -1.
 */
int mcr_err_at(struct mcr_error *err, enum mcr_error_kind kind,
	       const struct mcr_doc *doc, const struct mcr_node *at,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int mcr_verr_at(struct mcr_error *err, enum mcr_error_kind kind,
		const struct mcr_doc *doc, const struct mcr_node *at,
		const char *fmt, va_list ap);
int mcr_err_nomem(struct mcr_error *err);

/* ---- small string helpers (util.c) -------------------------------- */

char *mcr_strdup(const char *s);
char *mcr_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Growable string. */
struct mcr_buf {
	char *p;
	size_t len, cap;
	bool oom;
};
void mcr_buf_add(struct mcr_buf *b, const char *s, size_t n);
void mcr_buf_puts(struct mcr_buf *b, const char *s);
void mcr_buf_printf(struct mcr_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Returns the string (caller frees) or NULL after an allocation failure. */
char *mcr_buf_take(struct mcr_buf *b);

/* ---- JSON (json_py.c) --------------------------------------------- */

/* An ordered JSON object whose values are YAML nodes (or synthetic strings):
 * the client-config payload while it is being layered (§2). */
struct mcr_payload_entry {
	char *key;
	const struct mcr_node *val; /* the value, or NULL: the string `text` */
	char *text;
	char *src; /* key path of the map the value came from, or NULL (a default) */
};
struct mcr_payload {
	struct mcr_payload_entry *e;
	size_t n, cap;
};
/* Set key: an existing key keeps its position (Python dict semantics). */
int mcr_payload_set(struct mcr_payload *p, const char *key,
		    const struct mcr_node *val, const char *text);
/* Set every key of a YAML map in order (non-string keys as json.dumps
 * converts them); `src` is the map's key path, for messages. */
int mcr_payload_merge_map(struct mcr_payload *p, const struct mcr_node *map,
			  const char *src);
const struct mcr_payload_entry *mcr_payload_get(const struct mcr_payload *p,
						const char *key);
void mcr_payload_free(struct mcr_payload *p);
/* Text exactly as Python's json.dumps(payload, indent=2) writes it. */
char *mcr_payload_dumps(const struct mcr_payload *p);

/* ---- sizes and Python conversions (size.c) ------------------------ */

/* TRT-LLM parse_size(strict_units=True) on a node (§6). On failure, returns
 * -1 with `msg` (size msg_size) holding the reason (no prefix). */
int mcr_size_of_node(const char *key, const struct mcr_node *n,
		     long long *bytes, char *msg, size_t msg_size);
/* Python int(value) for transfer_batch_size (§3.1 rule 5); false when the
 * conversion fails. */
bool mcr_py_int(const struct mcr_node *n, long long *out);

/* ---- the recipe model (recipe.c) ---------------------------------- */

struct mcr_recipe {
	struct mcr_doc *doc;
	const struct mcr_node *root;
	enum mcr_engine engine;
	const char *engine_type;            /* "trtllm", ... */
	const struct mcr_node *engine_node; /* the engine mapping, or NULL */
	const struct mcr_node *roles;       /* roles mapping, or NULL */
	const struct mcr_node *role_node[MCR_ROLE_COUNT];

	/* The pool (engine.mooncake_kv_store after §1.6 normalization). */
	bool has_master;
	const struct mcr_node *service;     /* the enabled mooncake-master entry, or NULL */
	const struct mcr_node *kv_block;    /* engine.mooncake_kv_store, or NULL */
	const struct mcr_node *store_config; /* options.store_config / block store_config */
	char store_config_where[320];       /* its key path, for messages */
	const struct mcr_node *kv_env;      /* engine.mooncake_kv_store.env */
	const struct mcr_node *master_args; /* service args / master_extra_args */
	const struct mcr_node *master_command; /* service command, or NULL */
	const struct mcr_node *device_names_by_gpu;
	const char *external;               /* external host:port, or NULL */

	unsigned connector_modes;           /* bit per role (TRT-LLM) */
	char *served_model_name;            /* model_key default */
	const char *log_dir;                /* output.log_dir */
	char *warnings[16];                 /* mcr_recipe_warning() */
	size_t nwarnings;
};

/* A services entry of type mooncake-master; enabled unless `enabled` is
 * false (null and absent count as true). */
bool mcr_entry_is_master(const struct mcr_node *entry);
bool mcr_entry_enabled(const struct mcr_node *entry);

int mcr_recipe_build(struct mcr_doc *doc, struct mcr_recipe *r,
		     struct mcr_error *err);
int mcr_recipe_validate(struct mcr_recipe *r, struct mcr_error *err);

/* The client-config payload of one TRT-LLM connector mode (§2.1); the
 * validation of §3.1 checks the same payload. */
int mcr_trtllm_payload(const struct mcr_recipe *r, enum mcr_role mode,
		       const char *master_address, struct mcr_payload *out);
/* The vLLM shared payload (§2.2). */
int mcr_vllm_payload(const struct mcr_recipe *r, const char *master_address,
		     struct mcr_payload *out);

#define MCR_ROLE_BIT(role) (1u << (role))

#endif /* MCR_INTERNAL_H_ */
