/*
 * env.c - the environment of a role's tasks (reference §8) and the extra
 * environment of the master (the service's env).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "sys/sys.h"

/* The environment while it is layered, with the origin of each value
 * when `orig` is wanted (explain). */
struct envb {
	struct mcr_env *env;
	struct mcri_env_origin **orig; /* NULL: not wanted */
	enum mcri_layer layer;         /* the layer env_set records */
	const char *where;             /* its key path, or NULL */
};

/* name=value, replacing an earlier value in place; `node` is where the
 * recipe sets it (NULL: the plugin's) */
static int env_set(struct envb *b, const char *name, const char *value,
		   const struct mcri_node *node, struct mcr_error *err)
{
	struct mcr_env *env = b->env;
	struct mcr_env_var *v;
	struct mcri_env_origin *o;
	char *val = strdup(value);
	size_t i;

	if (!val)
		return mcri_error_nomem(err);
	for (i = 0; i < env->count; i++)
		if (strcmp(env->vars[i].name, name) == 0)
			break;
	if (b->orig) {
		if (!(o = realloc(*b->orig, (env->count + 1) * sizeof(*o)))) {
			free(val);
			return mcri_error_nomem(err);
		}
		*b->orig = o;
		o = &o[i];
		if (i < env->count) {
			o->replaced = true;
			o->over_layer = o->layer;
			o->over = o->node;
			snprintf(o->over_value, sizeof(o->over_value), "%s", env->vars[i].value);
		} else {
			memset(o, 0, sizeof(*o));
		}
		o->layer = b->layer;
		o->node = node;
		snprintf(o->where, sizeof(o->where), "%s", b->where ? b->where : "");
	}
	if (i < env->count) {
		free(env->vars[i].value);
		env->vars[i].value = val;
		return 0;
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
static int env_merge(struct envb *b, const struct mcri_node *map,
		     struct mcr_error *err)
{
	for (size_t i = 0; mcri_is_map(map) && i < map->n; i++) {
		char *k = mcri_key_str(map->keys[i]), *val = mcri_pystr(map->items[i]);
		int rc = k && val ? env_set(b, k, val, map->items[i], err) :
				    mcri_error_nomem(err);

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
	struct envb b = { out, NULL, MCRI_LAYER_MASTER, NULL };

	memset(out, 0, sizeof(*out));
	if (r->service && env_merge(&b, mcri_map_get(r->service, "env"), err)) {
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
		     const struct mcr_env_input *in, struct envb *b,
		     struct mcr_error *err)
{
	const char *master = mcri_effective_master(r, in->master_address);
	char *val = NULL, where[64];
	int rc;

	/* 1. roles.<role>.env, 2. environment */
	snprintf(where, sizeof(where), "roles.%s.env", mcr_role_name(role));
	b->layer = MCRI_LAYER_ROLE_ENV;
	b->where = where;
	if (env_merge(b, mcri_map_get(r->role_node[role], "env"), err))
		return -1;
	b->layer = MCRI_LAYER_ENVIRONMENT;
	b->where = "environment";
	if (env_merge(b, mcri_map_get(r->root, "environment"), err))
		return -1;
	if (!r->has_master)
		return 0;
	if (!master)
		return mcri_error_set(err, MCR_EINVAL,
				      "no master address for the worker environment");
	/* 3. MOONCAKE_LOCAL_HOSTNAME unless 1 or 2 set it, 4. the engine
	 * block's env, 5. MOONCAKE_MASTER, 6. MOONCAKE_TE_META_DATA_SERVER */
	b->layer = MCRI_LAYER_NODE;
	b->where = NULL;
	if (!mcr_env_get(b->env, "MOONCAKE_LOCAL_HOSTNAME") && in->local_hostname &&
	    env_set(b, "MOONCAKE_LOCAL_HOSTNAME", in->local_hostname, NULL, err))
		return -1;
	b->layer = MCRI_LAYER_ENGINE_ENV;
	b->where = "engine.mooncake_kv_store.env";
	if (env_merge(b, r->kv_env, err))
		return -1;
	b->layer = MCRI_LAYER_MASTER;
	b->where = NULL;
	if (env_set(b, "MOONCAKE_MASTER", master, NULL, err) ||
	    metadata_server(r, in->metadata_host, in->metadata_port, &val, err))
		return -1;
	rc = env_set(b, "MOONCAKE_TE_META_DATA_SERVER", val, NULL, err);
	free(val);
	if (rc || !mcr_recipe_role_reads_config(r, role))
		return rc;
	/* 7. MOONCAKE_CONFIG_PATH for the roles that read a file */
	val = mcri_asprintf("%s/%s", in->config_dir ? in->config_dir : ".",
			    in->config_name ? in->config_name :
			    mcr_client_config_name(r, role));
	if (!val)
		return mcri_error_nomem(err);
	b->layer = MCRI_LAYER_JOB_DIR;
	b->where = NULL;
	rc = env_set(b, "MOONCAKE_CONFIG_PATH", val, NULL, err);
	free(val);
	return rc;
}

int mcri_worker_env_origins(const struct mcr_recipe *r, enum mcr_role role,
			    const struct mcr_env_input *in, struct mcr_env *out,
			    struct mcri_env_origin **origins, struct mcr_error *err)
{
	struct envb b = { out, origins, MCRI_LAYER_ROLE_ENV, NULL };

	memset(out, 0, sizeof(*out));
	if (origins)
		*origins = NULL;
	if (!mcr_recipe_has_role(r, role))
		return mcri_error_set(err, MCR_EINVAL, "the recipe has no roles.%s",
				      mcr_role_name(role) ? mcr_role_name(role) : "?");
	if (layer_env(r, role, in, &b, err)) {
		mcr_env_free(out);
		if (origins) {
			free(*origins);
			*origins = NULL;
		}
		return -1;
	}
	return 0;
}

int mcr_worker_env(const struct mcr_recipe *r, enum mcr_role role,
		   const struct mcr_env_input *in, struct mcr_env *out,
		   struct mcr_error *err)
{
	return mcri_worker_env_origins(r, role, in, out, NULL, err);
}
