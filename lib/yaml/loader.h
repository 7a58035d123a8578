/*
 * loader.h - what the files of the YAML loader share (load.c drives
 * libyaml's events; scalar.c types scalars; mapping.c builds mappings).
 * Used only inside lib/yaml/.
 */
#ifndef MCRI_YAML_LOADER_H_
#define MCRI_YAML_LOADER_H_

#include <regex.h>
#include <stdint.h>

#include "yaml/yaml.h"

/* saturating sum of node weights (alias expansion guard) */
static inline size_t mcri_weight_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* ---- scalars (scalar.c) -------------------------------------------- */

/* PyYAML's implicit resolvers (resolver.py, YAML 1.1), compiled once per
 * document. */
struct mcri_resolver {
	regex_t re_int, re_float, re_bool, re_null;
	bool ok;
};
int mcri_resolver_init(struct mcri_resolver *res, struct mcr_error *err);
void mcri_resolver_free(struct mcri_resolver *res);

/* "tag:yaml.org,2002:int" -> "int"; "!" (non-specific) and NULL -> NULL;
 * any other tag is returned as is with *unsupported set. */
const char *mcri_short_tag(const char *tag, bool *unsupported);

/* Type scalar node n from its text as PyYAML's SafeConstructor does:
 * `tag` is the short standard tag or NULL, `plain` whether the scalar was
 * unquoted, `raw_tag` the tag as written (for messages). MCR_EINVAL for a
 * tag the recipe cannot use or a value that does not fit its tag. */
int mcri_scalar_resolve(const struct mcri_resolver *res,
			const struct mcri_doc *doc, struct mcri_node *n,
			const char *text, const char *tag, bool plain,
			const char *raw_tag, struct mcr_error *err);

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
int mcri_pairs_add(struct mcri_pairs *p, struct mcri_node *key,
		   struct mcri_node *value, struct mcr_error *err);
void mcri_pairs_free(struct mcri_pairs *p);

/* Fill `map` from its pairs in document order as PyYAML's flatten_mapping
 * and construct_mapping do: `<<` merges first, later keys win but keep the
 * first position, Python's key equality (1 == 1.0 == True); adds the pairs'
 * weights to the map's. */
int mcri_mapping_finish(struct mcri_node *map, const struct mcri_pairs *pairs,
			const struct mcri_doc *doc, struct mcr_error *err);

#endif /* MCRI_YAML_LOADER_H_ */
