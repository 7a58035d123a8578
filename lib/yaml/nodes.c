/*
 * nodes.c - reading the node tree: map lookups, type tests, Python
 * truthiness, and errors that point at a node's line and column.
 */
#include <string.h>

#include "yaml/yaml.h"

struct lookup {
	const struct mcri_node *map;
	const char *key;
};

static bool str_key_eq(const void *ctx, size_t pos)
{
	const struct lookup *l = ctx;
	const struct mcri_node *k = l->map->keys[pos];

	return k->type == MCRI_T_STR && !k->merge_key && strcmp(k->s, l->key) == 0;
}

size_t mcri_map_index(const struct mcri_node *map, const char *key)
{
	struct lookup l = { map, key };
	size_t i;

	if (!map || map->type != MCRI_T_MAP)
		return MCRI_NO_INDEX;
	if (map->index) { /* the hash of a string key (mapping.c) */
		i = mcri_index_find(map->index, mcri_hash(map->index->key, key, strlen(key)), str_key_eq, &l);
		return i == MCRI_NOT_FOUND ? MCRI_NO_INDEX : i;
	}
	for (i = 0; i < map->n; i++)
		if (str_key_eq(&l, i))
			return i;
	return MCRI_NO_INDEX;
}

struct mcri_node *mcri_map_get(const struct mcri_node *map, const char *key)
{
	size_t i = mcri_map_index(map, key);

	return i == MCRI_NO_INDEX ? NULL : map->items[i];
}

bool mcri_is_map(const struct mcri_node *n)
{
	return n && n->type == MCRI_T_MAP;
}

bool mcri_is_seq(const struct mcri_node *n)
{
	return n && n->type == MCRI_T_SEQ;
}

bool mcri_is_str(const struct mcri_node *n)
{
	return n && n->type == MCRI_T_STR;
}

bool mcri_nonempty_map(const struct mcri_node *n)
{
	return n && n->type == MCRI_T_MAP && n->n > 0;
}

bool mcri_truthy(const struct mcri_node *n)
{
	if (!n)
		return false;
	switch (n->type) {
	case MCRI_T_NULL:
		return false;
	case MCRI_T_BOOL:
		return n->b;
	case MCRI_T_INT:
		return n->i != 0;
	case MCRI_T_FLOAT:
		return n->f != 0.0;
	case MCRI_T_STR:
		return n->s[0] != '\0';
	default:
		return n->n > 0;
	}
}

bool mcri_str_eq(const struct mcri_node *n, const char *s)
{
	return mcri_is_str(n) && strcmp(n->s, s) == 0;
}

int mcri_verr_at(struct mcr_error *err, enum mcr_error_kind kind, const struct mcri_doc *doc,
		 const struct mcri_node *at, const char *fmt, va_list ap)
{
	const char *name = doc && doc->name ? doc->name : "recipe";

	if (at && at->line > 0)
		return mcri_error_vat(err, kind, name, at->line, at->col, fmt, ap);
	return mcri_error_vat(err, kind, name, 0, 0, fmt, ap);
}

void mcri_position_of(struct mcr_position *at, const struct mcri_doc *doc, const struct mcri_node *n, const char *path)
{
	mcri_position_set(at, doc && doc->name ? doc->name : "recipe", n ? n->line : 0, n ? n->col : 0, path);
}

int mcri_err_at(struct mcr_error *err, enum mcr_error_kind kind, const struct mcri_doc *doc, const struct mcri_node *at,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mcri_verr_at(err, kind, doc, at, fmt, ap);
	va_end(ap);
	return -1;
}
