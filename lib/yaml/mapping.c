/*
 * mapping.c - a YAML mapping as PyYAML's SafeConstructor builds it:
 * flatten_mapping (merge keys `<<`), then construct_mapping (a Python dict:
 * a repeated key keeps its first position and takes the later value, and 1,
 * 1.0 and True are the same key).
 */
#include <stdlib.h>
#include <string.h>

#include "yaml/loader.h"

static bool is_numeric(const struct mcri_node *n)
{
	return n->type == MCRI_T_INT || n->type == MCRI_T_FLOAT ||
	       n->type == MCRI_T_BOOL;
}

static double numeric(const struct mcri_node *n)
{
	if (n->type == MCRI_T_INT)
		return (double)n->i;
	if (n->type == MCRI_T_FLOAT)
		return n->f;
	return n->b ? 1.0 : 0.0;
}

/* Python dict key equality for scalar keys (1 == 1.0 == True). */
static bool key_equal(const struct mcri_node *a, const struct mcri_node *b)
{
	if (a->type == MCRI_T_STR || b->type == MCRI_T_STR)
		return a->type == b->type && strcmp(a->s, b->s) == 0;
	if (a->type == MCRI_T_NULL || b->type == MCRI_T_NULL)
		return a->type == b->type;
	if (a->type == MCRI_T_INT && b->type == MCRI_T_INT)
		return a->s || b->s ? a->s && b->s && strcmp(a->s, b->s) == 0 :
				      a->i == b->i;
	if (is_numeric(a) && is_numeric(b))
		return numeric(a) == numeric(b);
	return false;
}

static int map_put(struct mcri_node *map, struct mcri_node *key,
		   struct mcri_node *val, struct mcr_error *err)
{
	for (size_t i = 0; i < map->n; i++) {
		if (key_equal(map->keys[i], key)) {
			map->items[i] = val; /* later wins, first position kept */
			return 0;
		}
	}
	if (map->n == map->cap) {
		size_t cap = map->cap ? map->cap * 2 : 8;
		struct mcri_node **k = realloc(map->keys, cap * sizeof(*k));

		if (!k)
			return mcri_error_nomem(err);
		map->keys = k;
		k = realloc(map->items, cap * sizeof(*k));
		if (!k)
			return mcri_error_nomem(err);
		map->items = k;
		map->cap = cap;
	}
	map->keys[map->n] = key;
	map->items[map->n] = val;
	map->n++;
	return 0;
}

int mcri_pairs_add(struct mcri_pairs *p, struct mcri_node *key,
		   struct mcri_node *value, struct mcr_error *err)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct mcri_pair *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return mcri_error_nomem(err);
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n].key = key;
	p->v[p->n].value = value;
	p->n++;
	return 0;
}

void mcri_pairs_free(struct mcri_pairs *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/* the pairs a `<<: value` merges, PyYAML's order: for a list, the last
 * mapping first, so that the first one wins */
static int merged_pairs(const struct mcri_node *v, struct mcri_pairs *merge,
			const struct mcri_doc *doc, struct mcr_error *err)
{
	if (v->type == MCRI_T_MAP) {
		for (size_t j = 0; j < v->n; j++)
			if (mcri_pairs_add(merge, v->keys[j], v->items[j], err))
				return -1;
		return 0;
	}
	if (v->type != MCRI_T_SEQ)
		return mcri_err_at(err, MCR_EINVAL, doc, v,
				   "expected a mapping or list of mappings for merging (<<); merge only mappings");
	for (size_t s = v->n; s-- > 0;) {
		const struct mcri_node *sub = v->items[s];

		if (sub->type != MCRI_T_MAP)
			return mcri_err_at(err, MCR_EINVAL, doc, sub,
					   "expected a mapping for merging (<<), but found another value; merge only mappings");
		for (size_t j = 0; j < sub->n; j++)
			if (mcri_pairs_add(merge, sub->keys[j], sub->items[j], err))
				return -1;
	}
	return 0;
}

int mcri_mapping_finish(struct mcri_node *map, const struct mcri_pairs *pairs,
			const struct mcri_doc *doc, struct mcr_error *err)
{
	struct mcri_pairs merge = { 0 };
	int rc = -1;

	/* a plain `<<` key: PyYAML resolves it to tag:yaml.org,2002:merge */
	for (size_t i = 0; i < pairs->n; i++)
		if (pairs->v[i].key->merge_key &&
		    merged_pairs(pairs->v[i].value, &merge, doc, err))
			goto out;
	for (size_t i = 0; i < merge.n; i++)
		if (map_put(map, merge.v[i].key, merge.v[i].value, err))
			goto out;
	for (size_t i = 0; i < pairs->n; i++) {
		struct mcri_node *k = pairs->v[i].key;

		if (k->merge_key)
			continue;
		if (k->type == MCRI_T_SEQ || k->type == MCRI_T_MAP) {
			mcri_err_at(err, MCR_EINVAL, doc, k,
				    "found unhashable key (a list or mapping used as a key); use a plain key");
			goto out;
		}
		if (map_put(map, k, pairs->v[i].value, err))
			goto out;
	}
	for (size_t i = 0; i < map->n; i++)
		map->weight = mcri_weight_add(map->weight,
					      mcri_weight_add(map->keys[i]->weight,
							      map->items[i]->weight));
	rc = 0;
out:
	mcri_pairs_free(&merge);
	return rc;
}
