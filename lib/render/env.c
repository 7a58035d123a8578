/*
 * env.c - the environment of a role's tasks (reference §8) and the extra
 * environment of the master (the service's env).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "sys/sys.h"

/* name=value, replacing an earlier value in place */
static int env_set(struct mcr_env *env, const char *name, const char *value,
		   struct mcr_error *err)
{
	struct mcr_env_var *v;
	char *val = strdup(value);

	if (!val)
		return mcri_error_nomem(err);
	for (size_t i = 0; i < env->count; i++) {
		if (strcmp(env->vars[i].name, name) == 0) {
			free(env->vars[i].value);
			env->vars[i].value = val;
			return 0;
		}
	}
	v = realloc(env->vars, (env->count + 1) * sizeof(*v));
	if (!v) {
		free(val);
		return mcri_error_nomem(err);
	}
	env->vars = v;
	v = &env->vars[env->count];
	v->value = val;
	if (!(v->name = strdup(name))) {
		free(val);
		return mcri_error_nomem(err);
	}
	env->count++;
	return 0;
}

/* every NAME: value of a map (validated: string keys and values) */
static int env_merge(struct mcr_env *env, const struct mcri_node *map,
		     struct mcr_error *err)
{
	for (size_t i = 0; mcri_is_map(map) && i < map->n; i++) {
		char *k = mcri_key_str(map->keys[i]), *val = mcri_pystr(map->items[i]);
		int rc = k && val ? env_set(env, k, val, err) : mcri_error_nomem(err);

		free(k);
		free(val);
		if (rc)
			return -1;
	}
	return 0;
}

const char *mcr_env_get(const struct mcr_env *env, const char *name)
{
	for (size_t i = 0; i < env->count; i++)
		if (strcmp(env->vars[i].name, name) == 0)
			return env->vars[i].value;
	return NULL;
}

void mcr_env_free(struct mcr_env *env)
{
	for (size_t i = 0; i < env->count; i++) {
		free(env->vars[i].name);
		free(env->vars[i].value);
	}
	free(env->vars);
	env->vars = NULL;
	env->count = 0;
}

int mcr_master_env(const struct mcr_recipe *r, struct mcr_env *out,
		   struct mcr_error *err)
{
	memset(out, 0, sizeof(*out));
	if (r->service && env_merge(out, mcri_map_get(r->service, "env"), err)) {
		mcr_env_free(out);
		return -1;
	}
	return 0;
}

/* MOONCAKE_TE_META_DATA_SERVER: an external master's host (port 8701),
 * else the infra node's at the job's metadata port */
static int metadata_server(const struct mcr_recipe *r, const char *infra_host,
			   int port, char **url, struct mcr_error *err)
{
	char *host = NULL;

	if (r->external || port <= 0)
		port = MCR_METADATA_PORT;

	if (r->external) {
		if (mcri_host_port_parse(r->external, &host, NULL, err))
			return -1;
	} else if (!(host = strdup(infra_host ? infra_host : ""))) {
		return mcri_error_nomem(err);
	}
	*url = mcri_asprintf("http://%s:%d/metadata", host, port);
	free(host);
	return *url ? 0 : mcri_error_nomem(err);
}

/* the layers of reference §8, later entries winning */
static int layer_env(const struct mcr_recipe *r, enum mcr_role role,
		     const struct mcr_env_input *in, struct mcr_env *out,
		     struct mcr_error *err)
{
	const char *master = mcri_effective_master(r, in->master_address);
	char *val = NULL;
	int rc;

	/* 1. roles.<role>.env, 2. environment */
	if (env_merge(out, mcri_map_get(r->role_node[role], "env"), err) ||
	    env_merge(out, mcri_map_get(r->root, "environment"), err))
		return -1;
	if (!r->has_master)
		return 0;
	if (!master)
		return mcri_error_set(err, MCR_EINVAL,
				      "no master address for the worker environment");
	/* 3. MOONCAKE_LOCAL_HOSTNAME unless 1 or 2 set it, 4. the engine
	 * block's env, 5. MOONCAKE_MASTER, 6. MOONCAKE_TE_META_DATA_SERVER */
	if ((!mcr_env_get(out, "MOONCAKE_LOCAL_HOSTNAME") && in->local_hostname &&
	     env_set(out, "MOONCAKE_LOCAL_HOSTNAME", in->local_hostname, err)) ||
	    env_merge(out, r->kv_env, err) ||
	    env_set(out, "MOONCAKE_MASTER", master, err) ||
	    metadata_server(r, in->metadata_host, in->metadata_port, &val, err))
		return -1;
	rc = env_set(out, "MOONCAKE_TE_META_DATA_SERVER", val, err);
	free(val);
	if (rc || !mcr_recipe_role_reads_config(r, role))
		return rc;
	/* 7. MOONCAKE_CONFIG_PATH for the roles that read a file */
	val = mcri_asprintf("%s/%s", in->config_dir ? in->config_dir : ".",
			    in->config_name ? in->config_name :
			    mcr_client_config_name(r, role));
	if (!val)
		return mcri_error_nomem(err);
	rc = env_set(out, "MOONCAKE_CONFIG_PATH", val, err);
	free(val);
	return rc;
}

int mcr_worker_env(const struct mcr_recipe *r, enum mcr_role role,
		   const struct mcr_env_input *in, struct mcr_env *out,
		   struct mcr_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!mcr_recipe_has_role(r, role))
		return mcri_error_set(err, MCR_EINVAL, "the recipe has no roles.%s",
				      mcr_role_name(role) ? mcr_role_name(role) : "?");
	if (layer_env(r, role, in, out, err)) {
		mcr_env_free(out);
		return -1;
	}
	return 0;
}
