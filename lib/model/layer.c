/*
 * layer.c - a client config while it is layered (reference §7): an ordered
 * map whose values are the recipe's own nodes, and the layers of the TRT-LLM
 * and vLLM files. render/json.c writes it; rules/payload.c (C11) checks it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

struct lookup {
	const struct mcri_payload *p;
	const char *key;
};

static bool key_eq(const void *ctx, size_t pos)
{
	const struct lookup *l = ctx;

	return strcmp(l->p->e[pos].key, l->key) == 0;
}

static size_t find(const struct mcri_payload *p, const char *key, uint64_t h)
{
	struct lookup l = { p, key };

	return mcri_index_find(&p->ix, h, key_eq, &l);
}

int mcri_payload_set(struct mcri_payload *p, const char *key, const struct mcri_node *val, const char *text,
		     struct mcr_error *err)
{
	struct mcri_payload_entry *e = NULL;
	uint64_t h = mcri_hash(p->ix.key, key, strlen(key));
	size_t i = find(p, key, h);
	char *t = NULL;

	if (text && !(t = strdup(text)))
		return mcri_error_nomem(err);
	if (i != MCRI_NOT_FOUND)
		e = &p->e[i];
	if (!e) {
		if (p->n == p->cap) {
			size_t cap = p->cap ? p->cap * 2 : 16;
			struct mcri_payload_entry *ne = realloc(p->e, cap * sizeof(*ne));

			if (!ne) {
				free(t);
				return mcri_error_nomem(err);
			}
			p->e = ne;
			p->cap = cap;
		}
		e = &p->e[p->n];
		memset(e, 0, sizeof(*e));
		if (!(e->key = strdup(key)) || mcri_index_add(&p->ix, h, p->n)) {
			free(e->key);
			free(t);
			return mcri_error_nomem(err);
		}
		p->n++;
	} else {
		/* a later layer replaces the value in place */
		e->replaced = true;
		e->over_layer = e->layer;
		e->over = e->val;
		free(e->over_src);
		free(e->over_text);
		e->over_src = e->src;
		e->over_text = e->text;
		e->src = NULL;
		e->text = NULL;
	}
	free(e->text);
	free(e->src);
	e->src = NULL;
	e->text = t;
	e->val = val;
	e->layer = p->layer;
	return 0;
}

int mcri_payload_merge_map(struct mcri_payload *p, const struct mcri_node *map, const char *src, struct mcr_error *err)
{
	if (!mcri_is_map(map))
		return 0;
	for (size_t i = 0; i < map->n; i++) {
		/* (keys are scalars: the loader refuses unhashable ones) */
		char *key = mcri_json_key(map->keys[i]);
		int rc = key ? mcri_payload_set(p, key, map->items[i], NULL, err) : mcri_error_nomem(err);

		if (rc == 0 && src) {
			struct mcri_payload_entry *e = (struct mcri_payload_entry *)mcri_payload_get(p, key);

			if (!(e->src = strdup(src)))
				rc = mcri_error_nomem(err);
		}
		free(key);
		if (rc)
			return -1;
	}
	return 0;
}

const struct mcri_payload_entry *mcri_payload_get(const struct mcri_payload *p, const char *key)
{
	size_t i = find(p, key, mcri_hash(p->ix.key, key, strlen(key)));

	return i == MCRI_NOT_FOUND ? NULL : &p->e[i];
}

void mcri_payload_free(struct mcri_payload *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->e[i].key);
		free(p->e[i].text);
		free(p->e[i].src);
		free(p->e[i].over_src);
		free(p->e[i].over_text);
	}
	free(p->e);
	mcri_index_free(&p->ix);
	memset(p, 0, sizeof(*p));
}

int mcri_trtllm_payload(const struct mcr_recipe *r, enum mcr_role mode, const char *master_address,
			struct mcri_payload *out, struct mcr_error *err)
{
	const struct mcri_node *msc = mcri_map_get(r->role_node[mode], "mooncake_store_config");
	char src[64];

	memset(out, 0, sizeof(*out));
	out->ix.key = &r->doc->hashkey;
	snprintf(src, sizeof(src), "roles.%s.mooncake_store_config", mcr_role_name(mode));
	/* 1. role, 2. model_key, 3. the master's store_config, 4. the role's
	 * mooncake_store_config, 5. master_server_address (reference §7.1) */
	out->layer = MCRI_LAYER_ROLE_DEFAULT;
	if (mcri_payload_set(out, "role", NULL, mode == MCR_ROLE_DECODE ? "capacity" : "both", err))
		return -1;
	out->layer = MCRI_LAYER_MODEL_DEFAULT;
	if (r->served_model_name && mcri_payload_set(out, "model_key", NULL, r->served_model_name, err))
		return -1;
	out->layer = MCRI_LAYER_STORE_CONFIG;
	if (mcri_payload_merge_map(out, r->store_config, r->store_config_where, err))
		return -1;
	out->layer = MCRI_LAYER_ROLE_CONFIG;
	if (mcri_payload_merge_map(out, msc, src, err))
		return -1;
	out->layer = MCRI_LAYER_MASTER;
	return mcri_payload_set(out, "master_server_address", NULL, master_address, err);
}

int mcri_vllm_payload(const struct mcr_recipe *r, const char *master_address, struct mcri_payload *out,
		      struct mcr_error *err)
{
	memset(out, 0, sizeof(*out));
	out->ix.key = &r->doc->hashkey;
	/* the master's store_config, then master_server_address (reference §7.2) */
	out->layer = MCRI_LAYER_STORE_CONFIG;
	if (mcri_payload_merge_map(out, r->store_config, r->store_config_where, err))
		return -1;
	out->layer = MCRI_LAYER_MASTER;
	if (mcri_payload_set(out, "master_server_address", NULL, master_address, err))
		return -1;
	/* vLLM's reader defaults metadata_server to "", with which Mooncake's
	 * setup() fails: the plugin's default is P2PHANDSHAKE (reference
	 * §7.2), the metadata TRT-LLM's connector defaults to */
	out->layer = MCRI_LAYER_VLLM_DEFAULT;
	if (!mcri_payload_get(out, "metadata_server") &&
	    mcri_payload_set(out, "metadata_server", NULL, "P2PHANDSHAKE", err))
		return -1;
	return 0;
}
