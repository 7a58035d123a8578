/*
 * lint.c - warnings on a valid recipe (reference §11): likely typos that
 * srtctl and the plugin would pass through without a word (a top-level key,
 * a client-config key, a connector). They change nothing else.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/check.h"

/* keys the client-config readers know (reference §7.1, §7.2) */
static const char *const TRTLLM_CLIENT_KEYS[] = { "protocol",
						  "device_name",
						  "global_segment_size",
						  "local_buffer_size",
						  "local_hostname",
						  "tenant_id",
						  "role",
						  "namespace",
						  "model_key",
						  "transfer_batch_size",
						  "stage_through_host",
						  "metadata_server",
						  "master_server_address",
						  NULL };
static const char *const VLLM_CLIENT_KEYS[] = {
	"metadata_server",   "master_server_address", "protocol",  "device_name",         "mode", "global_segment_size",
	"local_buffer_size", "enable_offload",        "tenant_id", "device_name_per_gpu", NULL
};
/* top-level keys of an srtctl recipe (schema 2) */
static const char *const TOP_KEYS[] = { "schema",        "name",        "slurm",        "model",     "resources",
					"frontend",      "engine",      "roles",        "services",  "benchmark",
					"dynamo",        "environment", "output",       "sweep",     "profiling",
					"observability", "telemetry",   "health_check", "container", "setup_script",
					"srun_options",  "extra_mount", "identity",     NULL };

static void lint_client_keys(struct mcri_check *v, const struct mcri_node *map, const char *where,
			     const char *const *known, const char *reader)
{
	for (size_t i = 0; mcri_is_map(map) && i < map->n; i++) {
		const struct mcri_node *k = map->keys[i];
		const char *near;

		if (k->type != MCRI_T_STR || mcri_in_list(k->s, known))
			continue;
		if ((near = mcri_did_you_mean(k->s, known)))
			mcri_warn(
				v, k,
				"%s.%s is not a key %s reads (did you mean %s?); it is written to the client config unchanged and ignored there",
				where, k->s, reader, near);
	}
}

/*
 * Keys of a client config that fight what the plugin gives each task
 * (reference §11): a metadata_server the clients read instead of the job's
 * own (the task's MOONCAKE_TE_META_DATA_SERVER), a local_hostname that
 * every rank of every node would announce instead of its own address (the
 * task's MOONCAKE_LOCAL_HOSTNAME). `role_map` is a role's block.
 */
static void lint_against_plugin(struct mcri_check *v, const struct mcri_node *map, const char *where, bool role_map)
{
	const struct mcr_recipe *r = v->r;
	const struct mcri_node *md = mcri_map_get(map, "metadata_server");
	const struct mcri_node *lh = mcri_map_get(map, "local_hostname");

	if (r->external)
		return; /* the pool is not the job's: no metadata server of its own */
	if (!role_map && mcri_is_str(md) && md->s[0] && strcmp(md->s, "P2PHANDSHAKE") != 0)
		mcri_warn(
			v, md,
			"%s.metadata_server: '%s' is not this job's metadata server: the job's master serves http://<infra node>:%d/metadata and the tasks get that as MOONCAKE_TE_META_DATA_SERVER, but the Mooncake clients read this file's URL (a dead one makes each client retry 20 times, then fail); %s",
			where, md->s, MCR_METADATA_PORT,
			r->engine == MCR_ENGINE_TRTLLM
				? "remove metadata_server (TRT-LLM then uses P2PHANDSHAKE, which needs no metadata server)"
				: "set metadata_server: P2PHANDSHAKE (it needs no metadata server)");
	if (r->engine == MCR_ENGINE_TRTLLM && lh && lh->type != MCRI_T_NULL) {
		char *val = mcri_pystr(lh);

		mcri_warn(
			v, lh,
			"%s.local_hostname: '%s' is one address for every rank of %s on every node, while each task gets its own node's address as MOONCAKE_LOCAL_HOSTNAME; TRT-LLM reads the file's, so its segments would be announced at this address; remove local_hostname (each rank then finds its own)",
			where, val ? val : "?", role_map ? "the role" : "every role");
		free(val);
	}
}

static const char *const CONNECTOR[] = { "mooncake-store", NULL };
static const char *const CONNECTOR_CONFIG[] = { "kv_connector_config", NULL };

/* a TRT-LLM role: its client-config keys, its connector, its args keys */
static void lint_trtllm_role(struct mcri_check *v, enum mcr_role role)
{
	const struct mcr_recipe *r = v->r;
	const struct mcri_node *args = mcri_map_get(r->role_node[role], "args");
	const struct mcri_node *kcc = mcri_map_get(args, "kv_connector_config");
	const struct mcri_node *conn = mcri_map_get(kcc, "connector");
	char where[64];

	snprintf(where, sizeof(where), "roles.%s.mooncake_store_config", mcr_role_name(role));
	lint_client_keys(v, mcri_map_get(r->role_node[role], "mooncake_store_config"), where, TRTLLM_CLIENT_KEYS,
			 "TRT-LLM's Mooncake client");
	lint_against_plugin(v, mcri_map_get(r->role_node[role], "mooncake_store_config"), where, true);
	if (!(r->connector_modes & MCRI_ROLE_BIT(role)) && mcri_is_str(conn) && mcri_did_you_mean(conn->s, CONNECTOR))
		mcri_warn(
			v, conn,
			"roles.%s.args.kv_connector_config.connector: '%s' is not mooncake-store (did you mean mooncake-store?), so this role reads no Mooncake client config",
			mcr_role_name(role), conn->s);
	for (size_t j = 0; mcri_is_map(args) && j < args->n; j++) {
		const struct mcri_node *ak = args->keys[j];

		if (ak->type == MCRI_T_STR && strcmp(ak->s, "kv_connector_config") &&
		    mcri_did_you_mean(ak->s, CONNECTOR_CONFIG))
			mcri_warn(
				v, ak,
				"roles.%s.args.%s: did you mean kv_connector_config? Without it this role does not use the Mooncake Store connector",
				mcr_role_name(role), ak->s);
	}
}

static void lint_sglang_pool(struct mcri_check *v)
{
	const struct mcr_recipe *r = v->r;

	for (int role = 0; role < MCR_ROLE_COUNT; role++)
		if (mcri_sglang_joins_pool(mcri_map_get(r->role_node[role], "args")))
			return;
	mcri_warn(
		v, r->service ? r->service : r->kv_block,
		"no role's workers join the Mooncake pool: SGLang starts a Mooncake Store client only for HiCache storage (enable-hierarchical-cache: true with hicache-storage-backend: mooncake in a role's args); disaggregation-transfer-backend: mooncake is SGLang's own transfer engine and never talks to the master, so the job's master would serve no worker. Add both to the args of the roles that should share the pool");
}

/* variables a recipe may set but that change how every task runs, not
 * only its Mooncake client */
static void lint_env_names(struct mcri_check *v, const struct mcri_node *map, const char *where)
{
	for (size_t i = 0; mcri_is_map(map) && i < map->n; i++) {
		const struct mcri_node *k = map->keys[i];
		const char *what;

		if (!mcri_is_str(k))
			continue;
		if (strncmp(k->s, "LD_", 3) == 0)
			what = "the dynamic loader of every program the task starts";
		else if (strcmp(k->s, "PATH") == 0)
			what = "which programs every task runs";
		else if (strncmp(k->s, "SLURM_", 6) == 0)
			what = "what Slurm and the sruns started inside the task do";
		else
			continue;
		mcri_warn(
			v, k,
			"%s.%s: sets %s, which changes %s, not only its Mooncake client; set it in the job script or the srun line unless the recipe must carry it",
			where, k->s, k->s, what);
	}
}

void mcri_rules_lint(struct mcri_check *v)
{
	struct mcr_recipe *r = v->r;
	char where[64];

	/* top-level keys, in recipe order */
	for (size_t i = 0; i < r->root->n; i++) {
		const struct mcri_node *k = r->root->keys[i];
		const char *near;

		if (k->type == MCRI_T_STR && !mcri_in_list(k->s, TOP_KEYS) &&
		    (near = mcri_did_you_mean(k->s, TOP_KEYS)))
			mcri_warn(v, k, "%s: is not a recipe key (did you mean %s?)", k->s, near);
	}
	/* the variables every task of a role gets */
	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		snprintf(where, sizeof(where), "roles.%s.env", mcr_role_name((enum mcr_role)role));
		lint_env_names(v, mcri_map_get(r->role_node[role], "env"), where);
	}
	lint_env_names(v, mcri_map_get(r->root, "environment"), "environment");
	lint_env_names(v, r->kv_env, "engine.mooncake_kv_store.env");
	/* what the plugin, the engines and the releases make of the recipe */
	mcri_rules_releases(v);
	if (!r->has_master)
		return;
	/* the master's store_config, then role by role */
	if (r->engine == MCR_ENGINE_TRTLLM) {
		lint_client_keys(v, r->store_config, r->store_config_where, TRTLLM_CLIENT_KEYS,
				 "TRT-LLM's Mooncake client");
		lint_against_plugin(v, r->store_config, r->store_config_where, false);
		for (int role = 0; role < MCR_ROLE_COUNT; role++)
			lint_trtllm_role(v, (enum mcr_role)role);
	} else if (r->engine == MCR_ENGINE_VLLM) {
		lint_client_keys(v, r->store_config, r->store_config_where, VLLM_CLIENT_KEYS, "vLLM's Mooncake client");
		lint_against_plugin(v, r->store_config, r->store_config_where, false);
	} else if (r->engine == MCR_ENGINE_SGLANG) {
		lint_sglang_pool(v);
	}
}
