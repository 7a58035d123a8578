/*
 * yaml.h - the recipe as a tree of YAML nodes, typed as PyYAML's safe_load
 * types them (YAML 1.1: `yes` is a bool, `1e9` a string, `0x10` an int), and
 * the Python views of a node that messages and files need (repr, str, JSON
 * keys). Stage 1 of the library (see lib/README.md); private.
 */
#ifndef MCRI_YAML_H_
#define MCRI_YAML_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"

/* Python types after PyYAML safe_load. */
enum mcri_type {
	MCRI_T_NULL,
	MCRI_T_BOOL,
	MCRI_T_INT,
	MCRI_T_FLOAT,
	MCRI_T_STR,
	MCRI_T_SEQ,
	MCRI_T_MAP,
};

struct mcri_node {
	enum mcri_type type;
	int line, col;            /* 1-based position in the file */
	bool b;                   /* MCRI_T_BOOL */
	long long i;              /* MCRI_T_INT (clamped when beyond 64 bits; then s holds the digits) */
	double f;                 /* MCRI_T_FLOAT */
	char *s;                  /* MCRI_T_STR: the value (no NUL inside); big MCRI_T_INT: digits */
	size_t n;                 /* MCRI_T_SEQ: items; MCRI_T_MAP: pairs */
	struct mcri_node **items; /* MCRI_T_SEQ items; MCRI_T_MAP values */
	struct mcri_node **keys;  /* MCRI_T_MAP keys (any scalar type) */
	size_t cap;
	struct mcri_index *index;     /* MCRI_T_MAP of more than a few keys: keys by hash */
	size_t weight;                /* values reachable, aliases expanded (saturating) */
	size_t bytes;                 /* bytes of their text, aliases expanded (saturating) */
	bool complete;                /* construction finished (alias cycle guard) */
	bool merge_key;               /* a `<<` key (YAML merge) */
	bool value_key;               /* a plain `=` (PyYAML reads it as a key only) */
	struct mcri_node *next_alloc; /* arena list */
};

/* The loader's limits (reference §1): a recipe has at most MCRI_MAX_VALUES
 * values (keys, items, scalars; what `<<` merges copy counts too), and as
 * many with its aliases expanded; it nests at most MCRI_MAX_DEPTH levels;
 * its values' text, aliases expanded, is at most MCRI_EXPANSION_FACTOR
 * times the recipe's size plus MCRI_EXPANSION_SLACK bytes. */
#define MCRI_MAX_VALUES 200000u
#define MCRI_MAX_DEPTH 256
#define MCRI_EXPANSION_FACTOR 8u
#define MCRI_EXPANSION_SLACK (64u << 10)

struct mcri_doc {
	char *name;                  /* what messages call the file (mcr_error.source) */
	struct mcri_node *root;      /* NULL for an empty document */
	struct mcri_node *arena;     /* every node, for freeing (aliases share nodes) */
	size_t input_len;            /* bytes of YAML it was read from */
	struct mcri_hashkey hashkey; /* this document's hashes (map keys, render) */
};

/* ---- loading (load.c) ---------------------------------------------- */

/* Parse one YAML document of `len` bytes; `name` is what messages call it
 * (NULL: "recipe"). Time and memory linear in `len`: work beyond the limits
 * above is refused before it is done. MCR_EINVAL for YAML the recipe cannot
 * be (syntax, several documents, unknown tags, what PyYAML's safe_load
 * refuses, the limits), MCR_EIO for memory. *out is the caller's
 * (mcri_doc_free). */
int mcri_doc_parse(const char *text, size_t len, const char *name, struct mcri_doc **out, struct mcr_error *err);
void mcri_doc_free(struct mcri_doc *doc);

/* ---- accessors and positioned errors (nodes.c) --------------------- */

/* Value of the string key `key` in a map (NULL if absent or not a map);
 * constant time. */
struct mcri_node *mcri_map_get(const struct mcri_node *map, const char *key);
/* Index of `key` in a map, or MCRI_NO_INDEX. */
#define MCRI_NO_INDEX ((size_t)-1)
size_t mcri_map_index(const struct mcri_node *map, const char *key);
bool mcri_is_map(const struct mcri_node *n);
bool mcri_is_seq(const struct mcri_node *n);
bool mcri_is_str(const struct mcri_node *n);
/* A string node whose text is `s`. */
bool mcri_str_eq(const struct mcri_node *n, const char *s);
/* Python truthiness: None/False/0/0.0/""/[]/{} are false. */
bool mcri_truthy(const struct mcri_node *n);
/* A non-empty map (an empty {} counts as "not set", reference §2). */
bool mcri_nonempty_map(const struct mcri_node *n);

/* Where node n of doc is (n NULL: no line), with its key path. */
void mcri_position_of(struct mcr_position *at, const struct mcri_doc *doc, const struct mcri_node *n, const char *path);
/* err with the document's name as source and the position of `at` (no
 * position without `at`); returns -1. */
int mcri_err_at(struct mcr_error *err, enum mcr_error_kind kind, const struct mcri_doc *doc, const struct mcri_node *at,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int mcri_verr_at(struct mcr_error *err, enum mcr_error_kind kind, const struct mcri_doc *doc,
		 const struct mcri_node *at, const char *fmt, va_list ap);

/* ---- Python's views of a node (pyrepr.c) --------------------------- */
/* Each returns a new string, NULL only when out of memory. */

/* repr(): 'text', 16, True, None, 1.5, [..], {..}; a list or mapping
 * deeper than 8 levels, or past about 64 KiB, shows "..." for the rest. */
char *mcri_repr(const struct mcri_node *n);
/* repr() of a Python str holding `s`: 'a\nb'. */
char *mcri_repr_text(const char *s);
/* str() of a scalar: text, "16", "True", "None", "1.5"; repr for
 * collections. */
char *mcri_pystr(const struct mcri_node *n);
/* A map key for display: str() of the key. */
char *mcri_key_str(const struct mcri_node *key);
/* The string json.dumps makes of a key (1 -> "1", true -> "true",
 * .inf -> "Infinity"); NULL also for a collection. */
char *mcri_json_key(const struct mcri_node *key);
/* Python's float repr into buf ("64.0", "1e+16", "inf"). */
void mcri_float_repr(double v, char *buf, size_t size);

#endif /* MCRI_YAML_H_ */
