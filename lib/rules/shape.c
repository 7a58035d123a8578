/*
 * shape.c - the shape of the recipe around the pool (reference §10.4 to
 * §10.6): one master and where it comes from, the engine, the engine's
 * mooncake_kv_store block (or the service fields that stand for it), and
 * the roles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/check.h"

static const char *const ROLE_FIELDS[] = {
	"nodes",  "workers",   "gpus",      "srun_options",          "env",     "args",     "extra_args",
	"engine", "container", "kv_events", "mooncake_store_config", "sidecar", "critical", "restart",
	NULL
};
static const char *const TRTLLM_ENGINE_FIELDS[] = { "type",
						    "served_model_name",
						    "mooncake_kv_store",
						    "publish_metrics",
						    "publish_events_and_metrics",
						    "sequential_node_start",
						    "numa_memory_bind",
						    "numa_cpu_bind",
						    NULL };
static const char *const ENGINE_TYPES[] = {
	"trtllm", "sglang", "vllm", "mocker", "atom", "tilert", "tokenspeed", NULL
};

/* §10.4 one master: at most one enabled entry, not next to the engine block */
int mcri_rules_one_master(struct mcri_check *v)
{
	struct mcr_recipe *r = v->r;
	const struct mcri_node *services = mcri_map_get(r->root, "services");
	int enabled = 0;

	if (services && !mcri_is_seq(services) && services->type != MCRI_T_NULL) {
		return mcri_fail(v, services,
				 "services: must be a list of service entries (- name: mooncake-master ...), got %s",
				 mcri_show(v, services));
	}
	for (size_t i = 0; mcri_is_seq(services) && i < services->n; i++) {
		const struct mcri_node *e = services->items[i];

		if (!mcri_is_map(e) || !mcri_entry_is_master(e))
			continue;
		if (mcri_entry_enabled(e) && ++enabled > 1)
			return mcri_fail(
				v, e,
				"services[%s]: only one mooncake-master service is supported; remove it or set `enabled: false`",
				mcri_entry_name(e));
		if (r->kv_block && strcmp(mcri_entry_name(e), "mooncake-master") == 0 && !mcri_entry_enabled(e))
			return mcri_fail(
				v, e,
				"services[mooncake-master] has `enabled: false`, which drops the master that engine.mooncake_kv_store implies; remove engine.mooncake_kv_store or the disabled entry");
	}
	if (r->service && r->kv_block)
		return mcri_fail(
			v, r->kv_block,
			"engine.mooncake_kv_store: a mooncake-master service cannot be combined with engine.mooncake_kv_store (the service would silently replace it); keep one: move container/master_extra_args/store_config into the service (container, args, options.store_config)");
	if (r->service && !mcri_map_get(r->root, "engine") && mcri_is_map(r->roles)) {
		for (size_t i = 0; i < r->roles->n; i++)
			if (mcri_map_get(r->roles->items[i], "engine"))
				return mcri_fail(
					v, r->service,
					"a mooncake-master service needs a top-level engine; role-specific engines do not support it (set `engine:` at the top of the recipe)");
	}
	return 0;
}

/* §10.5 the engine's shape, §10.6 its fields */
int mcri_rules_engine(struct mcri_check *v)
{
	struct mcr_recipe *r = v->r;
	const struct mcri_node *e = r->engine_node, *engine = mcri_map_get(r->root, "engine");

	if (e && !mcri_is_str(mcri_map_get(e, "type"))) {
		const struct mcri_node *type = mcri_map_get(e, "type");

		return mcri_fail(
			v, type ? type : e,
			"engine.type: %s is not an engine name; set engine.type to one of trtllm, sglang, vllm, mocker, atom, tilert, tokenspeed",
			type ? mcri_show(v, type) : "a missing key");
	}
	if (engine && !e && engine->type != MCRI_T_STR && engine->type != MCRI_T_NULL) {
		return mcri_fail(
			v, engine,
			"engine: %s is neither an engine name nor a mapping with `type`; write e.g. `engine: trtllm` or `engine: {type: trtllm}`",
			mcri_show(v, engine));
	}
	if (!mcri_in_list(r->engine_type, ENGINE_TYPES))
		return mcri_fail(
			v, e ? mcri_map_get(e, "type") : engine,
			"engine: '%s' is not an engine; use one of trtllm, sglang, vllm, mocker, atom, tilert, tokenspeed",
			r->engine_type);
	if (!e)
		return 0;
	for (size_t i = 0; i < e->n; i++) {
		const struct mcri_node *k = e->keys[i];
		const char *ks = k->type == MCRI_T_STR ? k->s : "";
		size_t kl = strlen(ks);
		bool per_role = false;

		if (strcmp(ks, "roles") == 0)
			return mcri_fail(
				v, k,
				"engine.roles: roles are declared at the recipe's top level; move them to `roles:`");
		for (const char *const *m = (const char *const[]){ "prefill", "decode", "aggregated", NULL }; *m; m++) {
			char a[64], b[64];

			snprintf(a, sizeof(a), "%s_environment", *m);
			snprintf(b, sizeof(b), "%s_extra_args", *m);
			per_role |= !strcmp(ks, a) || !strcmp(ks, b);
		}
		per_role |= strcmp(ks, "kv_events_config") == 0;
		if (kl > 7 && strcmp(ks + kl - 7, "_config") == 0) {
			char eng[64];

			snprintf(eng, sizeof(eng), "%.*s", (int)(kl - 7), ks);
			per_role |= mcri_in_list(eng, ENGINE_TYPES);
		}
		if (per_role)
			return mcri_fail(
				v, k,
				"engine.%s: an engine mapping carries engine-wide knobs only; per-role settings (%s) live under roles.<role> (env, args, extra_args)",
				ks, ks);
	}
	if (r->engine == MCR_ENGINE_TRTLLM && mcri_check_fields(v, e, "engine", TRTLLM_ENGINE_FIELDS, NULL))
		return -1;
	return 0;
}

/* §10.6 engine.mooncake_kv_store, or the fields a declared service maps
 * into it */
int mcri_rules_kv_store(struct mcri_check *v)
{
	struct mcr_recipe *r = v->r;
	const struct mcri_node *b = r->kv_block;
	static const char *const trt[] = { "container", "env", "master_extra_args", "store_config", NULL };
	static const char *const vll[] = { "container",           "env", "master_extra_args", "store_config",
					   "device_names_by_gpu", NULL };
	static const char *const sgl[] = { "container", "env", "master_extra_args", NULL };
	const char *const *allowed = r->engine == MCR_ENGINE_TRTLLM ? trt : r->engine == MCR_ENGINE_VLLM ? vll : sgl;

	if (!r->has_master)
		return 0;
	if (r->engine == MCR_ENGINE_OTHER) {
		const struct mcri_node *at = b ? b : r->service;

		return mcri_fail(
			v, at,
			"engine.mooncake_kv_store: Unknown field. The %s engine has no Mooncake Store support; use engine trtllm, vllm or sglang, or remove the mooncake-master service",
			r->engine_type);
	}
	if (b) {
		if (b->type != MCRI_T_MAP) {
			return mcri_fail(
				v, b,
				"engine.mooncake_kv_store: must be a mapping (container, env, master_extra_args, store_config), got %s",
				mcri_show(v, b));
		}
		if (mcri_check_fields(
			    v, b, "engine.mooncake_kv_store", allowed,
			    r->engine == MCR_ENGINE_TRTLLM
				    ? "TRT-LLM's block has container, env, master_extra_args and store_config (device_names_by_gpu is vLLM only)"
			    : r->engine == MCR_ENGINE_SGLANG
				    ? "SGLang's block has container, env and master_extra_args; per-role Mooncake settings are MOONCAKE_* variables in roles.<role>.env"
				    : NULL))
			return -1;
		if (mcri_check_str_map(v, mcri_map_get(b, "env"), "engine.mooncake_kv_store.env") ||
		    mcri_check_str_list(v, mcri_map_get(b, "master_extra_args"),
					"engine.mooncake_kv_store.master_extra_args", true))
			return -1;
		{
			const struct mcri_node *sc = mcri_map_get(b, "store_config");

			if (sc && sc->type != MCRI_T_NULL && sc->type != MCRI_T_MAP) {
				return mcri_fail(
					v, sc,
					"engine.mooncake_kv_store.store_config: must be a mapping of client-config keys, got %s",
					mcri_show(v, sc));
			}
		}
	} else {
		const struct mcri_node *options = mcri_map_get(r->service, "options");
		const struct mcri_node *sc = mcri_map_get(options, "store_config");
		size_t dev = mcri_map_index(options, "device_names_by_gpu");

		if (sc && sc->type != MCRI_T_NULL && sc->type != MCRI_T_MAP) {
			return mcri_fail(
				v, sc,
				"services[%s].options.store_config: must be a mapping of client-config keys, got %s",
				mcri_entry_name(r->service), mcri_show(v, sc));
		}
		if (r->engine == MCR_ENGINE_SGLANG && mcri_truthy(sc))
			return mcri_fail(
				v, options->keys[mcri_map_index(options, "store_config")],
				"services[%s].options.store_config: SGLang reads no Mooncake client config file (engine.mooncake_kv_store.store_config: Unknown field); set per-role Mooncake settings as MOONCAKE_* variables in roles.<role>.env",
				mcri_entry_name(r->service));
		if (dev != MCRI_NO_INDEX && r->engine != MCR_ENGINE_VLLM)
			return mcri_fail(
				v, options->keys[dev],
				"services[%s].options.device_names_by_gpu: only vLLM reads it (engine.mooncake_kv_store.device_names_by_gpu: Unknown field); %s",
				mcri_entry_name(r->service),
				r->engine == MCR_ENGINE_TRTLLM
					? "for TRT-LLM set device_name in options.store_config or roles.<role>.mooncake_store_config"
					: "for SGLang set MOONCAKE_DEVICE in roles.<role>.env");
	}
	if (r->device_names_by_gpu && mcri_check_str_list(v, r->device_names_by_gpu,
							  b ? "engine.mooncake_kv_store.device_names_by_gpu"
							    : "mooncake-master options.device_names_by_gpu",
							  false))
		return -1;
	return 0;
}

/* §10.6 roles */
int mcri_rules_roles(struct mcri_check *v)
{
	struct mcr_recipe *r = v->r;
	const struct mcri_node *roles = r->roles;

	/* (a recipe without roles still has its environment checked: it used
	 * to be accepted malformed) */
	if (!roles || roles->type == MCRI_T_NULL)
		return mcri_check_str_map(v, mcri_map_get(r->root, "environment"), "environment");
	if (!mcri_is_map(roles)) {
		return mcri_fail(v, roles, "roles: must be a mapping of prefill/decode/agg to their settings, got %s",
				 mcri_show(v, roles));
	}
	for (size_t i = 0; i < roles->n; i++) {
		const struct mcri_node *k = roles->keys[i], *role = roles->items[i];
		char path[128];

		if (k->type != MCRI_T_STR || mcr_role_from_name(k->s) == MCR_ROLE_NONE) {
			char *s = mcri_key_str(k);
			int rc = mcri_fail(v, k, "roles: unknown role '%s'; valid roles are prefill, decode, agg",
					   s ? s : "?");

			free(s);
			return rc;
		}
		if (!mcri_is_map(role)) {
			return mcri_fail(v, role, "roles.%s: must be a mapping of the role's settings, got %s", k->s,
					 mcri_show(v, role));
		}
		snprintf(path, sizeof(path), "roles.%s", k->s);
		if (mcri_check_fields(v, role, path, ROLE_FIELDS, NULL))
			return -1;
		snprintf(path, sizeof(path), "roles.%s.env", k->s);
		if (mcri_check_str_map(v, mcri_map_get(role, "env"), path))
			return -1;
		{
			const struct mcri_node *msc = mcri_map_get(role, "mooncake_store_config");

			if (msc && msc->type != MCRI_T_NULL && msc->type != MCRI_T_MAP) {
				return mcri_fail(
					v, msc,
					"roles.%s.mooncake_store_config: must be a mapping of client-config keys, got %s",
					k->s, mcri_show(v, msc));
			}
		}
		if (r->has_master && mcri_map_get(role, "engine"))
			return mcri_fail(
				v, mcri_map_get(role, "engine"),
				"roles.%s.engine: role-specific engines do not yet support implicit Mooncake stores or failover (%s); use the top-level engine",
				k->s, k->s);
	}
	return mcri_check_str_map(v, mcri_map_get(r->root, "environment"), "environment");
}
