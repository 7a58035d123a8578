/*
 * query.c - what mooncake_recipe.h tells of a loaded recipe: its engine,
 * roles, master, and the role of an srun step.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

size_t mcr_recipe_warning_count(const struct mcr_recipe *r)
{
	return r->nwarnings;
}

const char *mcr_recipe_warning(const struct mcr_recipe *r, size_t i)
{
	return i < r->nwarnings ? r->warnings[i] : NULL;
}

enum mcr_engine mcr_recipe_engine(const struct mcr_recipe *r)
{
	return r->engine;
}

bool mcr_recipe_has_master(const struct mcr_recipe *r)
{
	return r->has_master;
}

const char *mcr_recipe_external_master(const struct mcr_recipe *r)
{
	return r->has_master ? r->external : NULL;
}

bool mcr_recipe_has_role(const struct mcr_recipe *r, enum mcr_role role)
{
	return role >= 0 && role < MCR_ROLE_COUNT && r->role_node[role] != NULL;
}

bool mcr_recipe_role_reads_config(const struct mcr_recipe *r, enum mcr_role role)
{
	if (!r->has_master || !mcr_recipe_has_role(r, role))
		return false;
	if (r->engine == MCR_ENGINE_TRTLLM)
		return (r->connector_modes & MCRI_ROLE_BIT(role)) != 0;
	return r->engine == MCR_ENGINE_VLLM;
}

size_t mcr_recipe_per_gpu_configs(const struct mcr_recipe *r)
{
	if (r->has_master && r->engine == MCR_ENGINE_VLLM && mcri_is_seq(r->device_names_by_gpu))
		return r->device_names_by_gpu->n;
	return 0;
}

int mcr_recipe_ready_timeout(const struct mcr_recipe *r)
{
	const struct mcri_node *t = mcri_map_get(mcri_map_get(r->service, "readiness"), "timeout_seconds");

	if (t && t->type == MCRI_T_INT && t->i > 0)
		return t->i > 86400 ? 86400 : (int)t->i;
	if (t && t->type == MCRI_T_FLOAT && t->f > 0)
		return t->f > 86400 ? 86400 : (int)ceil(t->f);
	return 0;
}

const char *mcr_recipe_log_dir(const struct mcr_recipe *r)
{
	return r->log_dir;
}

char *mcr_recipe_role_list(const struct mcr_recipe *r)
{
	struct mcri_buf b = { 0 };

	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		if (!r->role_node[role])
			continue;
		if (b.len)
			mcri_buf_puts(&b, ", ");
		mcri_buf_puts(&b, mcr_role_name((enum mcr_role)role));
	}
	if (!b.len)
		mcri_buf_puts(&b, "(none)");
	return mcri_buf_take(&b);
}

int mcr_recipe_resolve_role(const struct mcr_recipe *r, const char *requested, bool inherited, enum mcr_role *role,
			    struct mcr_error *err)
{
	char *list = mcr_recipe_role_list(r);
	int count = 0, rc = -1;
	enum mcr_role only = MCR_ROLE_NONE;

	*role = MCR_ROLE_NONE;
	if (!list)
		return mcri_error_nomem(err);
	for (int i = 0; i < MCR_ROLE_COUNT; i++)
		if (r->role_node[i]) {
			count++;
			only = (enum mcr_role)i;
		}
	if (requested) {
		enum mcr_role want = mcr_role_from_name(requested);

		if (want == MCR_ROLE_NONE) {
			mcri_err_at(err, MCR_EINVAL, r->doc, NULL,
				    "--mooncake-role=%s is not a role; use one of the recipe's roles: %s", requested,
				    list);
			goto out;
		}
		if (!r->role_node[want]) {
			mcri_err_at(err, MCR_EINVAL, r->doc, r->roles,
				    "--mooncake-role=%s: the recipe has no roles.%s; its roles are %s", requested,
				    requested, list);
			goto out;
		}
		*role = want;
		rc = 0;
		goto out;
	}
	if (inherited) {
		rc = 0; /* a helper step of the job script: it gets nothing */
		goto out;
	}
	if (count == 1) {
		*role = only;
		rc = 0;
		goto out;
	}
	if (count)
		mcri_err_at(err, MCR_EINVAL, r->doc, r->roles,
			    "the recipe has several roles (%s): say which one this srun runs with --mooncake-role=ROLE",
			    list);
	else
		mcri_err_at(err, MCR_EINVAL, r->doc, r->roles,
			    "the recipe declares no roles: add roles.prefill, roles.decode or roles.agg");
out:
	free(list);
	return rc;
}

/* srtctl's choice of the master's container: the service's, else the
 * engine block's, else the job's (model.container); empty strings do not
 * count (srtctl copies the service's only when truthy) */
const char *mcr_recipe_master_container(const struct mcr_recipe *r, struct mcr_position *where)
{
	const struct mcri_node *n = NULL, *name;
	char path[320];

	if (where)
		memset(where, 0, sizeof(*where));
	if (!r->has_master || r->external)
		return NULL;
	if (r->service && mcri_is_str(n = mcri_map_get(r->service, "container")) && n->s[0]) {
		name = mcri_map_get(r->service, "name");
		snprintf(path, sizeof(path), "services[%.200s].container",
			 mcri_is_str(name) ? name->s : "mooncake-master");
	} else if (mcri_is_map(r->kv_block) && mcri_is_str(n = mcri_map_get(r->kv_block, "container")) && n->s[0]) {
		snprintf(path, sizeof(path), "engine.mooncake_kv_store.container");
	} else if (mcri_is_str(n = mcri_map_get(mcri_map_get(r->root, "model"), "container")) && n->s[0]) {
		snprintf(path, sizeof(path), "model.container");
	} else {
		return NULL;
	}
	if (where)
		mcri_position_of(where, r->doc, n, path);
	return n->s;
}
