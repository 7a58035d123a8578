/*
 * env.c - the environment of a role's tasks (reference §8) and the extra
 * environment of the master (the service's env).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "sys/sys.h"

/* An environment being built: its variables found by name in constant
 * time, its size bounded (render.h), and the origin of each value when
 * `orig` is wanted (explain). */
struct envb {
	struct mcr_env *env;
	struct mcri_index ix;
	size_t bytes, max;
	const char *name;                          /* the one looked up */
	struct mcri_env_origin **orig;             /* NULL: not wanted */
	enum mcri_layer layer;                     /* the layer env_set records */
	const char *where;                         /* its key path, or NULL */
	char own_where[MCRI_LENDER_NAME_MAX + 32]; /* room for a key path made here */
};

static bool name_eq(const void *ctx, size_t pos)
{
	const struct envb *b = ctx;

	return strcmp(b->env->vars[pos].name, b->name) == 0;
}

static void envb_init(struct envb *b, const struct mcr_recipe *r, struct mcr_env *env, struct mcri_env_origin **orig)
{
	memset(env, 0, sizeof(*env));
	memset(b, 0, sizeof(*b));
	b->env = env;
	b->ix.key = &r->doc->hashkey;
	b->max = mcri_render_max(r);
	b->orig = orig;
}

/* The builder's end: its index freed and, when the build failed (rc),
 * the environment and its origins too. rc. */
static int envb_finish(struct envb *b, int rc)
{
	mcri_index_free(&b->ix);
	if (rc) {
		mcr_env_free(b->env);
		if (b->orig) {
			free(*b->orig);
			*b->orig = NULL;
		}
	}
	return rc;
}

/* where the value at `i` (== count: a new one) came from, and what it replaced */
static int record_origin(struct envb *b, size_t i, const struct mcri_node *node, struct mcr_error *err)
{
	struct mcri_env_origin *o;

	if (!b->orig)
		return 0;
	if (!(o = realloc(*b->orig, (b->env->count + 1) * sizeof(*o))))
		return mcri_error_nomem(err);
	*b->orig = o;
	o = &o[i];
	if (i < b->env->count) {
		o->replaced = true;
		o->over_layer = o->layer;
		o->over = o->node;
		snprintf(o->over_value, sizeof(o->over_value), "%s", b->env->vars[i].value);
	} else {
		memset(o, 0, sizeof(*o));
	}
	o->layer = b->layer;
	o->node = node;
	snprintf(o->where, sizeof(o->where), "%s", b->where ? b->where : "");
	return 0;
}

/* name=value, replacing an earlier value in place; `node` is where the
 * recipe sets it (NULL: the plugin's). The recipe's own variables passed E1
 * and E2 at load; a value made from the caller's input (an address, a
 * directory) is checked here the same way. */
static int env_set(struct envb *b, const char *name, const char *value, const struct mcri_node *node,
		   struct mcr_error *err)
{
	struct mcr_env *env = b->env;
	struct mcr_env_var *v;
	const char *problem = mcri_env_value_problem(name, value);
	uint64_t h = mcri_hash(b->ix.key, name, strlen(name));
	size_t i;
	char *val;

	if (problem) {
		char *shown = mcri_repr_text(value);
		int rc = mcri_error_set(
			err, MCR_EINVAL,
			"the environment variable %s would be %.200s, which contains %s (rule E2); fix what it is made of: the master's address, the node's address or the job directory",
			name, shown ? shown : "?", problem);

		free(shown);
		return rc;
	}
	b->bytes = mcri_weight_add(b->bytes, strlen(name) + strlen(value) + 2);
	if (b->bytes > b->max)
		return mcri_error_set(
			err, MCR_EINVAL,
			"the environment would hold more than %zu bytes (%u times the recipe's size, plus %u KiB) when %s is set; shorten the recipe's env, environment or engine.mooncake_kv_store.env",
			b->max, MCRI_RENDER_FACTOR, MCRI_RENDER_SLACK >> 10, name);
	if (!(val = strdup(value)))
		return mcri_error_nomem(err);
	b->name = name;
	i = mcri_index_find(&b->ix, h, name_eq, b);
	if (record_origin(b, i == MCRI_NOT_FOUND ? env->count : i, node, err)) {
		free(val);
		return -1;
	}
	if (i != MCRI_NOT_FOUND) {
		free(env->vars[i].value);
		env->vars[i].value = val;
		return 0;
	}
	/* the capacity is the next power of two: grow when count is one */
	if (!(env->count & (env->count - 1))) {
		v = realloc(env->vars, (env->count ? env->count * 2 : 1) * sizeof(*v));
		if (!v) {
			free(val);
			return mcri_error_nomem(err);
		}
		env->vars = v;
	}
	v = &env->vars[env->count];
	v->value = val;
	if (!(v->name = strdup(name)) || mcri_index_add(&b->ix, h, env->count)) {
		free(v->name);
		free(val);
		return mcri_error_nomem(err);
	}
	env->count++;
	return 0;
}

/* every NAME: value of a map (validation let only strings through; str()
 * of anything else, as Python would) */
static int env_merge(struct envb *b, const struct mcri_node *map, struct mcr_error *err)
{
	for (size_t i = 0; mcri_is_map(map) && i < map->n; i++) {
		const struct mcri_node *k = map->keys[i], *val = map->items[i];
		char *ks = k->type == MCRI_T_STR ? NULL : mcri_key_str(k);
		char *vs = val->type == MCRI_T_STR ? NULL : mcri_pystr(val);
		int rc = (k->type != MCRI_T_STR && !ks) || (val->type != MCRI_T_STR && !vs)
				 ? mcri_error_nomem(err)
				 : env_set(b, ks ? ks : k->s, vs ? vs : val->s, val, err);

		free(ks);
		free(vs);
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

int mcr_master_env(const struct mcr_recipe *r, struct mcr_env *out, struct mcr_error *err)
{
	struct envb b;
	int rc;

	envb_init(&b, r, out, NULL);
	b.layer = MCRI_LAYER_MASTER;
	rc = r->service ? env_merge(&b, mcri_map_get(r->service, "env"), err) : 0;
	mcri_index_free(&b.ix);
	if (rc)
		mcr_env_free(out);
	return rc;
}

/* MOONCAKE_TE_META_DATA_SERVER: an external master's host (port 8701),
 * else the infra node's at the job's metadata port; P2PHANDSHAKE for an
 * HA pool (an etcd:// master), whose masters' metadata servers are each
 * their own */
static int metadata_server(const struct mcr_recipe *r, const char *master, const char *infra_host, int port, char **url,
			   struct mcr_error *err)
{
	char *host = NULL;

	if (!strncmp(master, MCR_HA_SCHEME, strlen(MCR_HA_SCHEME)))
		return (*url = strdup("P2PHANDSHAKE")) ? 0 : mcri_error_nomem(err);
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
static int layer_env(const struct mcr_recipe *r, enum mcr_role role, const struct mcr_env_input *in, struct envb *b,
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
		return mcri_error_set(err, MCR_EINVAL, "no master address for the worker environment");
	/* 3. the engine block's env; then the plugin's own variables
	 * (base/taskvars.c), after every layer of the recipe: their values
	 * always win. 4. MOONCAKE_LOCAL_HOSTNAME (vLLM: and
	 * MOONCAKE_REQUESTER_LOCAL_HOSTNAME, which its store worker reads
	 * instead), 5. MOONCAKE_MASTER, 6. MOONCAKE_TE_META_DATA_SERVER */
	b->layer = MCRI_LAYER_ENGINE_ENV;
	b->where = "engine.mooncake_kv_store.env";
	if (env_merge(b, r->kv_env, err))
		return -1;
	b->layer = MCRI_LAYER_NODE;
	b->where = NULL;
	if (in->local_hostname && (env_set(b, "MOONCAKE_LOCAL_HOSTNAME", in->local_hostname, NULL, err) ||
				   (r->engine == MCR_ENGINE_VLLM &&
				    env_set(b, "MOONCAKE_REQUESTER_LOCAL_HOSTNAME", in->local_hostname, NULL, err))))
		return -1;
	b->layer = MCRI_LAYER_MASTER;
	b->where = NULL;
	if (env_set(b, "MOONCAKE_MASTER", master, NULL, err) ||
	    metadata_server(r, master, in->metadata_host, in->metadata_port, &val, err))
		return -1;
	rc = env_set(b, "MOONCAKE_TE_META_DATA_SERVER", val, NULL, err);
	free(val);
	if (rc || !mcr_recipe_role_reads_config(r, role))
		return rc;
	/* 7. MOONCAKE_CONFIG_PATH for the roles that read a file */
	val = mcri_asprintf("%s/%s", in->config_dir ? in->config_dir : ".",
			    in->config_name ? in->config_name : mcr_client_config_name(r, role));
	if (!val)
		return mcri_error_nomem(err);
	b->layer = MCRI_LAYER_JOB_DIR;
	b->where = NULL;
	rc = env_set(b, "MOONCAKE_CONFIG_PATH", val, NULL, err);
	free(val);
	return rc;
}

int mcri_worker_env_origins(const struct mcr_recipe *r, enum mcr_role role, const struct mcr_env_input *in,
			    struct mcr_env *out, struct mcri_env_origin **origins, struct mcr_error *err)
{
	struct envb b;

	memset(out, 0, sizeof(*out));
	if (origins)
		*origins = NULL;
	if (!mcr_recipe_has_role(r, role))
		return mcri_error_set(err, MCR_EINVAL, "the recipe has no roles.%s",
				      mcr_role_name(role) ? mcr_role_name(role) : "?");
	envb_init(&b, r, out, origins);
	return envb_finish(&b, layer_env(r, role, in, &b, err));
}

int mcr_worker_env(const struct mcr_recipe *r, enum mcr_role role, const struct mcr_env_input *in, struct mcr_env *out,
		   struct mcr_error *err)
{
	return mcri_worker_env_origins(r, role, in, out, NULL, err);
}

/* ---- a memory lender's environment ------------------------------------- */

const char *mcri_lender_metadata(const struct mcr_recipe *r, const char **where)
{
	const struct mcri_node *md = mcri_map_get(r->store_config, "metadata_server");
	const char *at = r->store_config_where ? r->store_config_where : "";

	if (r->engine == MCR_ENGINE_TRTLLM)
		for (int k = 0; k < MCR_ROLE_COUNT; k++) {
			const struct mcri_node *own =
				mcri_map_get(mcri_map_get(r->role_node[k], "mooncake_store_config"), "metadata_server");

			if ((r->connector_modes & MCRI_ROLE_BIT(k)) && mcri_is_str(own)) {
				md = own;
				at = "roles.<role>.mooncake_store_config";
				break;
			}
		}
	if (r->engine != MCR_ENGINE_VLLM && r->engine != MCR_ENGINE_TRTLLM) {
		if (where)
			*where = "";
		return NULL;
	}
	if (where)
		*where = mcri_is_str(md) ? at : "";
	return mcri_is_str(md) ? md->s : "P2PHANDSHAKE";
}

static int lender_env(const struct mcr_recipe *r, const struct mcri_lender *l, const struct mcri_lender_at *at,
		      struct envb *b, struct mcr_error *err)
{
	char *where = b->own_where, *val = NULL;
	const char *md;
	int rc;

	snprintf(where, sizeof(b->own_where), "services[%s].env", l->name);
	if (l->kind == MCRI_LENDER_DONOR) {
		char timeout[32];

		b->layer = MCRI_LAYER_LENDER_KIND;
		b->where = NULL;
		snprintf(timeout, sizeof(timeout), "%d", at->timeout > 0 ? at->timeout : 120);
		if (!(val = mcri_asprintf("%s/mooncake/donor-%s", at->dir ? at->dir : ".", at->node)))
			return mcri_error_nomem(err);
		rc = env_set(b, "TRTLLM_MOONCAKE_RUN_DIR", val, NULL, err) ||
		     env_set(b, "TRTLLM_MOONCAKE_MASTER_TIMEOUT", timeout, NULL, err) ||
		     env_set(b, "TLLM_LOG_LEVEL", "INFO", NULL, err);
		free(val);
		b->layer = MCRI_LAYER_LENDER_ENV;
		b->where = where;
		return rc ? -1 : env_merge(b, mcri_map_get(l->entry, "env"), err);
	}
	if (at->port <= 0 || !at->master)
		return mcri_error_set(err, MCR_EINVAL, "no port or master address for the store %s", l->name);
	/* the node's address, as srtctl gives it: Mooncake names the segment
	 * "<address>:<a port of its own>", anew at each start (a restarted
	 * store's peers never take it for the one that died) */
	md = mcri_lender_metadata(r, NULL);
	b->layer = MCRI_LAYER_LENDER_KIND;
	b->where = NULL;
	if (env_set(b, "MOONCAKE_LOCAL_HOSTNAME", at->addr ? at->addr : "localhost", NULL, err))
		return -1;
	b->layer = MCRI_LAYER_LENDER_ENV;
	b->where = where;
	if (env_merge(b, mcri_map_get(l->entry, "env"), err))
		return -1;
	b->layer = MCRI_LAYER_MASTER;
	b->where = NULL;
	if (env_set(b, "MOONCAKE_MASTER", at->master, NULL, err))
		return -1;
	/* the metadata server of the workers: the job's, or their files' */
	if (md) {
		b->layer = MCRI_LAYER_LENDER_METADATA;
		return env_set(b, "MOONCAKE_TE_META_DATA_SERVER", md, NULL, err);
	}
	if (metadata_server(r, at->master, at->metadata_host, at->metadata_port, &val, err))
		return -1;
	rc = env_set(b, "MOONCAKE_TE_META_DATA_SERVER", val, NULL, err);
	free(val);
	return rc;
}

int mcri_lender_env_origins(const struct mcr_recipe *r, const struct mcri_lender *l, const struct mcri_lender_at *at,
			    struct mcr_env *out, struct mcri_env_origin **origins, struct mcr_error *err)
{
	struct envb b;

	if (origins)
		*origins = NULL;
	envb_init(&b, r, out, origins);
	return envb_finish(&b, lender_env(r, l, at, &b, err));
}

char *mcri_lender_segment(const struct mcr_recipe *r, const struct mcri_lender *l, const struct mcri_lender_at *at,
			  struct mcr_error *err)
{
	struct mcr_env env;
	char *name;

	if (l->kind != MCRI_LENDER_STORE) {
		mcri_error_set(err, MCR_EINVAL, "TRT-LLM's donor %s names its segment itself", l->name);
		return NULL;
	}
	if (mcri_lender_env_origins(r, l, at, &env, NULL, err))
		return NULL;
	{
		const char *host = mcr_env_get(&env, "MOONCAKE_LOCAL_HOSTNAME");

		/* a name with a port is the segment's; else Mooncake adds one */
		name = strchr(host, ':') ? strdup(host) : mcri_asprintf("%s:*", host);
	}
	mcr_env_free(&env);
	if (!name)
		mcri_error_nomem(err);
	return name;
}
