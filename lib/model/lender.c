/*
 * lender.c - the memory lenders of a recipe (model.h): srtctl's
 * `mooncake-store` and `mooncake-donor` services, where each runs, whose
 * tasks wait for it, and the image it runs in. The refusals are
 * rules/lenders.c's; the command line and environment render/lender.c's.
 */
#include <stdio.h>
#include <string.h>

#include "model/model.h"

static const char *const KINDS[] = { "mooncake-store", "mooncake-donor" };

const char *mcri_lender_kind_name(enum mcri_lender_kind kind)
{
	return (unsigned)kind < MCRI_ARRAY_LEN(KINDS) ? KINDS[kind] : "?";
}

int mcri_entry_lender_kind(const struct mcri_node *entry, enum mcri_lender_kind *kind)
{
	const struct mcri_node *type = mcri_map_get(entry, "type");

	for (size_t k = 0; mcri_is_str(type) && k < MCRI_ARRAY_LEN(KINDS); k++)
		if (strcmp(type->s, KINDS[k]) == 0) {
			*kind = (enum mcri_lender_kind)k;
			return 0;
		}
	return -1;
}

enum mcri_lender_place mcri_lender_placement(const struct mcr_recipe *r, const struct mcri_node *entry, unsigned *roles)
{
	const struct mcri_node *placement = mcri_map_get(entry, "placement");
	const struct mcri_node *node = mcri_map_get(placement, "node");
	enum mcr_role role;

	*roles = 0;
	if (mcri_map_get(placement, "pool"))
		return MCRI_PLACE_OTHER;
	if (!node || node->type == MCRI_T_NULL || mcri_str_eq(node, "infra") || mcri_str_eq(node, "head"))
		return MCRI_PLACE_INFRA;
	if (mcri_str_eq(node, "all"))
		return MCRI_PLACE_ALL;
	if (mcri_str_eq(node, "workers")) {
		for (int k = 0; k < MCR_ROLE_COUNT; k++)
			if (r->role_node[k])
				*roles |= MCRI_ROLE_BIT(k);
		return MCRI_PLACE_ROLES;
	}
	if (mcri_is_str(node) && (role = mcr_role_from_name(node->s)) != MCR_ROLE_NONE) {
		*roles = MCRI_ROLE_BIT(role);
		return MCRI_PLACE_ROLES;
	}
	return MCRI_PLACE_OTHER;
}

const char *mcri_lender_container(const struct mcr_recipe *r, const struct mcri_lender *l, struct mcr_position *where)
{
	const struct mcri_node *n;
	char path[MCRI_LENDER_NAME_MAX + 64];

	if (where)
		memset(where, 0, sizeof(*where));
	if (mcri_is_str(n = mcri_map_get(l->entry, "container")) && n->s[0])
		snprintf(path, sizeof(path), "services[%s].container", l->name);
	else if (mcri_is_map(r->kv_block) && mcri_is_str(n = mcri_map_get(r->kv_block, "container")) && n->s[0])
		snprintf(path, sizeof(path), "engine.mooncake_kv_store.container");
	else if (mcri_is_str(n = mcri_map_get(mcri_map_get(r->root, "model"), "container")) && n->s[0])
		snprintf(path, sizeof(path), "model.container");
	else
		return NULL;
	if (where)
		mcri_position_of(where, r->doc, n, path);
	return n->s;
}

const struct mcri_lender *mcri_lender_find(const struct mcr_recipe *r, const char *name)
{
	for (size_t i = 0; i < r->nlenders; i++)
		if (strcmp(r->lenders[i].name, name) == 0)
			return &r->lenders[i];
	return NULL;
}

bool mcri_lender_serves(const struct mcri_lender *l, enum mcr_role role)
{
	if (role < 0 || role >= MCR_ROLE_COUNT)
		return false;
	return l->place != MCRI_PLACE_ROLES || (l->roles & MCRI_ROLE_BIT(role));
}
