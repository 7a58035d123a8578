/*
 * loader.h - what the files of the YAML loader share (load.c drives
 * libyaml's events; scalar.c types scalars; mapping.c builds mappings).
 * Used only inside lib/yaml/.
 */
#ifndef MCRI_YAML_LOADER_H_
#define MCRI_YAML_LOADER_H_

#include <stdint.h>

#include "yaml/yaml.h"

/* What a document has used of the limits of yaml.h while it loads. */
struct mcri_budget {
	size_t values;    /* values built, and pairs copied by merges */
	size_t aliases;   /* aliases met */
	size_t max_bytes; /* the expansion limit for this document's size */
};

/* ---- scalars (implicit.c, scalar.c) -------------------------------- */

/* The tag PyYAML's implicit resolvers (resolver.py, YAML 1.1) give a plain
 * scalar (or a `!`-tagged one): */
enum mcri_implicit {
	MCRI_IMPLICIT_STR,   /* no resolver matches */
	MCRI_IMPLICIT_NULL,  /* ~, null, Null, NULL, empty */
	MCRI_IMPLICIT_BOOL,  /* yes, No, on, TRUE, ... */
	MCRI_IMPLICIT_INT,   /* 16, 0x10, 010, 0b1, 1_000, 1:30 */
	MCRI_IMPLICIT_FLOAT, /* 1.5, .5, 1.0e+9, 1:30.5, .inf, .nan */
	MCRI_IMPLICIT_MERGE, /* << */
	MCRI_IMPLICIT_VALUE, /* = (PyYAML's safe_load has no constructor for it) */
};
/* The type of `len` bytes of text (no state: safe from any thread).
 * *newline is set when the text matched only without its final "\n"
 * (Python's `$` matches before one). */
enum mcri_implicit mcri_implicit_type(const char *text, size_t len, bool *newline);

/* "tag:yaml.org,2002:int" -> "int"; "!" (non-specific) and NULL -> NULL;
 * any other tag is returned as is with *unsupported set. */
const char *mcri_short_tag(const char *tag, bool *unsupported);

/* Type scalar node n from its `len` bytes of text as PyYAML's
 * SafeConstructor does: `tag` is the short standard tag or NULL,
 * `implicit` whether the implicit resolvers apply (a plain scalar, or one
 * tagged `!`), `raw_tag` the tag as written (for messages). A plain `<<`
 * is a merge key (n->merge_key). MCR_EINVAL for a tag the recipe cannot
 * use or a value that does not fit its tag; MCR_EIO out of memory. */
int mcri_scalar_resolve(const struct mcri_doc *doc, struct mcri_node *n, const char *text, size_t len, const char *tag,
			bool implicit, const char *raw_tag, struct mcr_error *err);

/* ---- mappings (mapping.c) ------------------------------------------ */

/* a key and its value as the document wrote them */
struct mcri_pair {
	struct mcri_node *key, *value;
};
/* a growable list of them */
struct mcri_pairs {
	struct mcri_pair *v;
	size_t n, cap;
};
int mcri_pairs_add(struct mcri_pairs *p, struct mcri_node *key, struct mcri_node *value, struct mcr_error *err);
void mcri_pairs_free(struct mcri_pairs *p);

/* Fill `map` from its pairs in document order as PyYAML's flatten_mapping
 * and construct_mapping do: `<<` merges first, later keys win but keep the
 * first position, Python's key equality (1 == 1.0 == True, and .nan is one
 * key); sets the map's weight and size from its final pairs. The pairs
 * merges copy are counted in `budget` and refused beyond MCRI_MAX_VALUES
 * before they are copied. Each key is found by hash (map->index): linear
 * in the pairs. */
int mcri_mapping_finish(struct mcri_node *map, const struct mcri_pairs *pairs, struct mcri_budget *budget,
			const struct mcri_doc *doc, struct mcr_error *err);

#endif /* MCRI_YAML_LOADER_H_ */
