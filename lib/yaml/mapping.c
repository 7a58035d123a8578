/*
 * mapping.c - a YAML mapping as PyYAML's SafeConstructor builds it:
 * flatten_mapping (merge keys `<<`), then construct_mapping (a Python dict:
 * a repeated key keeps its first position and takes the later value, and 1,
 * 1.0 and True are the same key). A mapping of more than SMALL_MAP keys
 * finds them by hash (node->index), so building one is linear.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaml/loader.h"

/* up to this many keys a scan is cheaper than an index */
#define SMALL_MAP 8

/* The decimal digits of a key that is an integral number (an int, a bool,
 * a float without fraction), as Python compares numbers: exactly; NULL for
 * other keys. */
static const char *integral(const struct mcri_node *k, char *buf, size_t size)
{
	switch (k->type) {
	case MCRI_T_BOOL:
		return k->b ? "1" : "0";
	case MCRI_T_INT:
		if (k->s)
			return k->s;
		snprintf(buf, size, "%lld", k->i);
		return buf;
	case MCRI_T_FLOAT:
		if (!isfinite(k->f) || k->f != trunc(k->f))
			return NULL;
		if (k->f == 0)
			return "0";
		snprintf(buf, size, "%.0f", k->f); /* exact: at most 309 digits */
		return buf;
	default:
		return NULL;
	}
}

#define DIGITS 400

/* Python dict key equality for scalar keys: 1 == 1.0 == True, a big int
 * equals only its own value, and PyYAML's .nan is a single object. */
static bool key_equal(const struct mcri_node *a, const struct mcri_node *b)
{
	char ba[DIGITS], bb[DIGITS];
	const char *ia, *ib;

	if (a->type == MCRI_T_STR || b->type == MCRI_T_STR)
		return a->type == b->type && strcmp(a->s, b->s) == 0;
	if (a->type == MCRI_T_NULL || b->type == MCRI_T_NULL)
		return a->type == b->type;
	ia = integral(a, ba, sizeof(ba));
	ib = integral(b, bb, sizeof(bb));
	if (ia || ib)
		return ia && ib && strcmp(ia, ib) == 0;
	/* two floats, neither integral */
	return a->f == b->f || (isnan(a->f) && isnan(b->f));
}

/* a hash equal for keys key_equal finds equal */
static uint64_t key_hash(const struct mcri_hashkey *hk, const struct mcri_node *k)
{
	char buf[DIGITS];
	const char *digits;

	if (k->type == MCRI_T_STR)
		return mcri_hash(hk, k->s, strlen(k->s));
	if (k->type == MCRI_T_NULL)
		return 0x4e6f6e65;
	if ((digits = integral(k, buf, sizeof(buf))))
		return mcri_hash(hk, digits, strlen(digits)) + 1;
	if (isnan(k->f))
		return 0x4e614e;
	return mcri_hash(hk, &k->f, sizeof(k->f));
}

struct probe {
	const struct mcri_node *map, *key;
};

static bool probe_eq(const void *ctx, size_t pos)
{
	const struct probe *p = ctx;

	return key_equal(p->map->keys[pos], p->key);
}

/* index every key of a map that outgrew SMALL_MAP */
static int build_index(struct mcri_node *map, const struct mcri_doc *doc)
{
	map->index = calloc(1, sizeof(*map->index));
	if (!map->index)
		return -1;
	map->index->key = &doc->hashkey;
	for (size_t i = 0; i < map->n; i++)
		if (mcri_index_add(map->index, key_hash(&doc->hashkey, map->keys[i]), i))
			return -1;
	return 0;
}

static int map_put(struct mcri_node *map, struct mcri_node *key, struct mcri_node *val, const struct mcri_doc *doc,
		   struct mcr_error *err)
{
	size_t i = MCRI_NOT_FOUND;
	uint64_t h = 0;

	if (map->index) {
		struct probe p = { map, key };

		h = key_hash(&doc->hashkey, key);
		i = mcri_index_find(map->index, h, probe_eq, &p);
	} else {
		for (size_t j = 0; j < map->n && i == MCRI_NOT_FOUND; j++)
			if (key_equal(map->keys[j], key))
				i = j;
	}
	if (i != MCRI_NOT_FOUND) {
		map->items[i] = val; /* later wins, first position kept */
		return 0;
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
	if (map->index ? mcri_index_add(map->index, h, map->n - 1) : map->n > SMALL_MAP ? build_index(map, doc) : 0)
		return mcri_error_nomem(err);
	return 0;
}

int mcri_pairs_add(struct mcri_pairs *p, struct mcri_node *key, struct mcri_node *value, struct mcr_error *err)
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

/* How many pairs a `<<: value` merges (a mapping, or a list of them). */
static int merge_size(const struct mcri_node *v, size_t *count, const struct mcri_doc *doc, struct mcr_error *err)
{
	if (v->type == MCRI_T_MAP) {
		*count = mcri_weight_add(*count, v->n);
		return 0;
	}
	if (v->type != MCRI_T_SEQ)
		return mcri_err_at(err, MCR_EINVAL, doc, v,
				   "expected a mapping or list of mappings for merging (<<); merge only mappings");
	for (size_t s = 0; s < v->n; s++) {
		if (v->items[s]->type != MCRI_T_MAP)
			return mcri_err_at(
				err, MCR_EINVAL, doc, v->items[s],
				"expected a mapping for merging (<<), but found another value; merge only mappings");
		*count = mcri_weight_add(*count, v->items[s]->n);
	}
	return 0;
}

/* put the pairs a `<<: value` merges, PyYAML's order: for a list, the last
 * mapping first, so that the first one wins */
static int merge_into(struct mcri_node *map, const struct mcri_node *v, const struct mcri_doc *doc,
		      struct mcr_error *err)
{
	size_t subs = v->type == MCRI_T_MAP ? 1 : v->n;

	for (size_t s = subs; s-- > 0;) {
		const struct mcri_node *sub = v->type == MCRI_T_MAP ? v : v->items[s];

		for (size_t j = 0; j < sub->n; j++)
			if (map_put(map, sub->keys[j], sub->items[j], doc, err))
				return -1;
	}
	return 0;
}

int mcri_mapping_finish(struct mcri_node *map, const struct mcri_pairs *pairs, struct mcri_budget *budget,
			const struct mcri_doc *doc, struct mcr_error *err)
{
	size_t copies = 0;
	const struct mcri_node *first_merge = NULL;

	/* a `<<` key (PyYAML's tag:yaml.org,2002:merge): what it copies is
	 * counted before anything is copied */
	for (size_t i = 0; i < pairs->n; i++) {
		if (!pairs->v[i].key->merge_key)
			continue;
		if (merge_size(pairs->v[i].value, &copies, doc, err))
			return -1;
		if (!first_merge)
			first_merge = pairs->v[i].key;
	}
	if (copies > MCRI_MAX_VALUES - (budget->values < MCRI_MAX_VALUES ? budget->values : MCRI_MAX_VALUES))
		return mcri_err_at(
			err, MCR_EINVAL, doc, first_merge,
			"the merge keys (<<) of the recipe copy more than %u values in all; merge fewer or smaller mappings, or write the values out",
			MCRI_MAX_VALUES);
	budget->values += copies;
	for (size_t i = 0; i < pairs->n; i++)
		if (pairs->v[i].key->merge_key && merge_into(map, pairs->v[i].value, doc, err))
			return -1;
	for (size_t i = 0; i < pairs->n; i++) {
		struct mcri_node *k = pairs->v[i].key;

		if (k->merge_key)
			continue;
		if (k->type == MCRI_T_SEQ || k->type == MCRI_T_MAP)
			return mcri_err_at(err, MCR_EINVAL, doc, k,
					   "found unhashable key (a list or mapping used as a key); use a plain key");
		if (map_put(map, k, pairs->v[i].value, doc, err))
			return -1;
	}
	/* the final pairs' weight and size (load.c counted the raw pairs) */
	map->weight = map->bytes = 1;
	for (size_t i = 0; i < map->n; i++) {
		map->weight =
			mcri_weight_add(map->weight, mcri_weight_add(map->keys[i]->weight, map->items[i]->weight));
		map->bytes = mcri_weight_add(map->bytes, mcri_weight_add(map->keys[i]->bytes, map->items[i]->bytes));
	}
	return 0;
}
