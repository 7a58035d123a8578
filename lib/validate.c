/*
 * validate.c - every load-time rule of §1 and §3, in srtctl's order; the
 * first failure wins. Each message names the key path, shows the bad value
 * and says what to do; where the spec quotes srtctl's wording we keep it,
 * because users search for it.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MIGRATE_HINT "convert it with `srtctl migrate -f %s --in-place`"

struct vctx {
	struct mcr_recipe *r;
	struct mcr_error *err;
	const char *name; /* recipe display name */
	char *reprs[16];  /* R() results, freed when the validation ends */
	size_t nreprs;
};

#define FAIL(v, at, ...) mcr_err_at((v)->err, MCR_EINVAL, (v)->r->doc, (at), __VA_ARGS__)

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

static bool str_eq(const struct mcr_node *n, const char *s)
{
	return mcr_is_str(n) && strcmp(n->s, s) == 0;
}

/* repr of a node for a message: kept until the validation ends, so a
 * refusal reads `return FAIL(v, at, "... got %s", R(v, node));` */
static const char *R(struct vctx *v, const struct mcr_node *n)
{
	char *s;

	if (v->nreprs == sizeof(v->reprs) / sizeof(v->reprs[0]) || !(s = mcr_repr(n)))
		return "?";
	v->reprs[v->nreprs++] = s;
	return s;
}

/* ---- stage A: schema gate and v1 keys (§1.1) ------------------------ */

static int check_schema(struct vctx *v)
{
	const struct mcr_node *root = v->r->root, *schema;
	static const char *const legacy_top[] = { "backend", "infra", NULL };
	static const char *const roles[] = { "prefill", "decode", "agg" };
	static const struct {
		const char *section;
		const char *const keys[8];
	} legacy[] = {
		{ "frontend", { "orchestrator_placement", "dedicated_node" } },
		{ "benchmark", { "client_placement", "client_dedicated_node" } },
		{ "dynamo", { "version", "hash", "wheel", "cargo_patches" } },
	};
	const struct mcr_node *resources = mcr_map_get(root, "resources");

	schema = mcr_map_get(root, "schema");
	if (mcr_map_index(root, "schema") == (size_t)-1)
		return FAIL(v, NULL,
			    "the recipe has no `schema:` key, which marks the pre-2.0 layout; " MIGRATE_HINT,
			    v->name);
	if (schema->type != MCR_T_INT || schema->i != 2) {
		return FAIL(v, schema,
			    "schema: %s is not supported; this plugin reads `schema: 2` recipes (" MIGRATE_HINT " to convert an older one)",
			    R(v, schema), v->name);
	}
	for (const char *const *k = legacy_top; *k; k++) {
		size_t i = mcr_map_index(root, *k);

		if (i != (size_t)-1)
			return FAIL(v, root->keys[i],
				    "%s: is a pre-2.0 (v1) key; " MIGRATE_HINT
				    " (it moves backend.mooncake_kv_store into a mooncake-master service)",
				    *k, v->name);
	}
	if (mcr_is_map(resources)) {
		for (size_t i = 0; i < resources->n; i++) {
			const struct mcr_node *k = resources->keys[i];

			if (k->type != MCR_T_STR)
				continue;
			for (int r = 0; r < 3; r++) {
				char a[64], b[64], c[64], d[64];

				snprintf(a, sizeof(a), "%s_nodes", roles[r]);
				snprintf(b, sizeof(b), "%s_workers", roles[r]);
				snprintf(c, sizeof(c), "gpus_per_%s", roles[r]);
				snprintf(d, sizeof(d), "%s_critical", roles[r]);
				if (!strcmp(k->s, a) || !strcmp(k->s, b) ||
				    !strcmp(k->s, c) || !strcmp(k->s, d))
					return FAIL(v, k,
						    "resources.%s is a pre-2.0 (v1) key; per-role sizes live under roles.%s now; " MIGRATE_HINT,
						    k->s, roles[r], v->name);
			}
		}
	}
	for (size_t s = 0; s < sizeof(legacy) / sizeof(legacy[0]); s++) {
		const struct mcr_node *sec = mcr_map_get(root, legacy[s].section);

		for (size_t k = 0; legacy[s].keys[k]; k++) {
			size_t i = mcr_map_index(sec, legacy[s].keys[k]);

			if (i != (size_t)-1)
				return FAIL(v, sec->keys[i],
					    "%s.%s is a pre-2.0 (v1) key; " MIGRATE_HINT,
					    legacy[s].section, legacy[s].keys[k], v->name);
		}
	}
	return 0;
}

/* ---- stage A: one master, and where it comes from (§1.6) ------------ */

static const char *entry_name(const struct mcr_node *e)
{
	const struct mcr_node *n = mcr_map_get(e, "name");

	return mcr_is_str(n) ? n->s : "?";
}

static int check_one_master(struct vctx *v)
{
	struct mcr_recipe *r = v->r;
	const struct mcr_node *services = mcr_map_get(r->root, "services");
	int enabled = 0;

	if (services && !mcr_is_seq(services) && services->type != MCR_T_NULL) {
		return FAIL(v, services,
			    "services: must be a list of service entries (- name: mooncake-master ...), got %s",
			    R(v, services));
	}
	for (size_t i = 0; mcr_is_seq(services) && i < services->n; i++) {
		const struct mcr_node *e = services->items[i];

		if (!mcr_is_map(e) || !mcr_entry_is_master(e))
			continue;
		if (mcr_entry_enabled(e) && ++enabled > 1)
			return FAIL(v, e,
				    "services[%s]: only one mooncake-master service is supported; remove it or set `enabled: false`",
				    entry_name(e));
		if (r->kv_block && strcmp(entry_name(e), "mooncake-master") == 0 &&
		    !mcr_entry_enabled(e))
			return FAIL(v, e,
				    "services[mooncake-master] has `enabled: false`, which drops the master that engine.mooncake_kv_store implies; remove engine.mooncake_kv_store or the disabled entry");
	}
	if (r->service && r->kv_block)
		return FAIL(v, r->kv_block,
			    "engine.mooncake_kv_store: a mooncake-master service cannot be combined with engine.mooncake_kv_store (the service would silently replace it); keep one: move container/master_extra_args/store_config into the service (container, args, options.store_config)");
	if (r->service && !mcr_map_get(r->root, "engine") && mcr_is_map(r->roles)) {
		for (size_t i = 0; i < r->roles->n; i++)
			if (mcr_map_get(r->roles->items[i], "engine"))
				return FAIL(v, r->service,
					    "a mooncake-master service needs a top-level engine; role-specific engines do not support it (set `engine:` at the top of the recipe)");
	}
	return 0;
}

/* ---- stage B: unknown fields and types ------------------------------ */

static int check_str_map(struct vctx *v, const struct mcr_node *map,
			 const char *path)
{
	if (!map || map->type == MCR_T_NULL)
		return 0;
	if (map->type != MCR_T_MAP) {
		return FAIL(v, map, "%s: must be a mapping of NAME: \"value\", got %s",
			    path, R(v, map));
	}
	for (size_t i = 0; i < map->n; i++) {
		const struct mcr_node *k = map->keys[i], *val = map->items[i];

		if (k->type != MCR_T_STR) {
			return FAIL(v, k, "%s: the key %s is not a string; quote it",
				    path, R(v, k));
		}
		if (val->type != MCR_T_STR) {
			return FAIL(v, val,
				    "%s.%s: Not a valid string: %s; quote the value (e.g. %s: \"%s\")",
				    path, k->s, R(v, val), k->s,
				    val->type == MCR_T_BOOL ? (val->b ? "true" : "false") : R(v, val));
		}
	}
	return 0;
}

static int check_str_list(struct vctx *v, const struct mcr_node *list,
			  const char *path, bool no_blank)
{
	if (!list || list->type == MCR_T_NULL)
		return 0;
	if (list->type != MCR_T_SEQ) {
		return FAIL(v, list, "%s: must be a list of strings, got %s", path, R(v, list));
	}
	for (size_t i = 0; i < list->n; i++) {
		const struct mcr_node *it = list->items[i];

		if (it->type != MCR_T_STR) {
			return FAIL(v, it,
				    "%s[%zu]: Not a valid string: %s; quote it", path, i, R(v, it));
		}
		if (no_blank) {
			const char *p = it->s;

			while (isspace((unsigned char)*p))
				p++;
			if (!*p)
				return FAIL(v, it, "%s[%zu]: is blank; remove the empty entry",
					    path, i);
		}
	}
	return 0;
}

/* Levenshtein distance, capped (the words here are short keys) */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

/* The entry of `list` closest to `word` when it is close enough to be a
 * typo of it (at most 2 edits, fewer for short words), else NULL. */
static const char *did_you_mean(const char *word, const char *const *list)
{
	const char *best = NULL;
	size_t bestd = 99, maxd = strlen(word) <= 4 ? 1 : 2;

	for (; *list; list++) {
		size_t d = distance(word, *list);

		if (d < bestd) {
			bestd = d;
			best = *list;
		}
	}
	return bestd <= maxd ? best : NULL;
}

static int unknown_field(struct vctx *v, const struct mcr_node *key,
			 const char *path, const char *const *allowed,
			 const char *hint)
{
	char *k = mcr_key_str(key);
	const char *near = k ? did_you_mean(k, allowed) : NULL;
	struct mcr_buf b = { 0 };
	char *list;
	int rc;

	for (const char *const *a = allowed; *a; a++)
		mcr_buf_printf(&b, "%s%s", a == allowed ? "" : ", ", *a);
	list = mcr_buf_take(&b);
	if (near)
		rc = FAIL(v, key, "%s.%s: Unknown field. Did you mean %s?%s%s", path,
			  k, near, hint ? " " : "", hint ? hint : "");
	else
		rc = FAIL(v, key, "%s.%s: Unknown field.%s%s%s Known fields: %s.", path,
			  k ? k : "?", hint ? " " : "", hint ? hint : "", hint ? "." : "",
			  list ? list : "?");
	free(list);
	free(k);
	return rc;
}

static int check_fields(struct vctx *v, const struct mcr_node *map,
			const char *path, const char *const *allowed,
			const char *hint)
{
	for (size_t i = 0; mcr_is_map(map) && i < map->n; i++) {
		const struct mcr_node *k = map->keys[i];

		if (k->type != MCR_T_STR || !in_list(k->s, allowed))
			return unknown_field(v, k, path, allowed, hint);
	}
	return 0;
}

static const char *const ROLE_FIELDS[] = {
	"nodes", "workers", "gpus", "srun_options", "env", "args", "extra_args",
	"engine", "container", "kv_events", "mooncake_store_config", "sidecar",
	"critical", "restart", NULL
};
static const char *const TRTLLM_ENGINE_FIELDS[] = {
	"type", "served_model_name", "mooncake_kv_store", "publish_metrics",
	"publish_events_and_metrics", "sequential_node_start", "numa_memory_bind",
	"numa_cpu_bind", NULL
};
static const char *const SERVICE_FIELDS[] = {
	"name", "type", "enabled", "external", "command", "args", "container",
	"env", "options", "placement", "nodes", "start", "readiness",
	"inherit_discovery_env", "critical", "terminal", "preamble",
	"cpus_per_task", "cpu_bind", "srun_options", "source", "build_command",
	"build_timeout_seconds", "metrics", NULL
};

static const char *const ENGINE_TYPES[] = {
	"trtllm", "sglang", "vllm", "mocker", "atom", "tilert", "tokenspeed", NULL
};

static int check_engine(struct vctx *v)
{
	struct mcr_recipe *r = v->r;
	const struct mcr_node *e = r->engine_node, *engine = mcr_map_get(r->root, "engine");

	if (e && !mcr_is_str(mcr_map_get(e, "type"))) {
		const struct mcr_node *type = mcr_map_get(e, "type");
		return FAIL(v, type ? type : e,
			    "engine.type: %s is not an engine name; set engine.type to one of trtllm, sglang, vllm, mocker, atom, tilert, tokenspeed",
			    type ? R(v, type) : "a missing key");
	}
	if (engine && !e && engine->type != MCR_T_STR && engine->type != MCR_T_NULL) {
		return FAIL(v, engine,
			    "engine: %s is neither an engine name nor a mapping with `type`; write e.g. `engine: trtllm` or `engine: {type: trtllm}`",
			    R(v, engine));
	}
	if (!in_list(r->engine_type, ENGINE_TYPES))
		return FAIL(v, e ? mcr_map_get(e, "type") : engine,
			    "engine: '%s' is not an engine; use one of trtllm, sglang, vllm, mocker, atom, tilert, tokenspeed",
			    r->engine_type);
	if (!e)
		return 0;
	for (size_t i = 0; i < e->n; i++) {
		const struct mcr_node *k = e->keys[i];
		const char *ks = k->type == MCR_T_STR ? k->s : "";
		size_t kl = strlen(ks);
		bool per_role = false;

		if (strcmp(ks, "roles") == 0)
			return FAIL(v, k,
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
			per_role |= in_list(eng, ENGINE_TYPES);
		}
		if (per_role)
			return FAIL(v, k,
				    "engine.%s: an engine mapping carries engine-wide knobs only; per-role settings (%s) live under roles.<role> (env, args, extra_args)",
				    ks, ks);
	}
	if (r->engine == MCR_ENGINE_TRTLLM &&
	    check_fields(v, e, "engine", TRTLLM_ENGINE_FIELDS, NULL))
		return -1;
	return 0;
}

/* engine.mooncake_kv_store, or the fields a declared service maps into it */
static int check_kv_store(struct vctx *v)
{
	struct mcr_recipe *r = v->r;
	const struct mcr_node *b = r->kv_block;
	static const char *const trt[] = { "container", "env", "master_extra_args", "store_config", NULL };
	static const char *const vll[] = { "container", "env", "master_extra_args", "store_config", "device_names_by_gpu", NULL };
	static const char *const sgl[] = { "container", "env", "master_extra_args", NULL };
	const char *const *allowed = r->engine == MCR_ENGINE_TRTLLM ? trt :
				     r->engine == MCR_ENGINE_VLLM   ? vll :
								      sgl;

	if (!r->has_master)
		return 0;
	if (r->engine == MCR_ENGINE_OTHER) {
		const struct mcr_node *at = b ? b : r->service;

		return FAIL(v, at,
			    "engine.mooncake_kv_store: Unknown field. The %s engine has no Mooncake Store support; use engine trtllm, vllm or sglang, or remove the mooncake-master service",
			    r->engine_type);
	}
	if (b) {
		if (b->type != MCR_T_MAP) {
			return FAIL(v, b,
				    "engine.mooncake_kv_store: must be a mapping (container, env, master_extra_args, store_config), got %s",
				    R(v, b));
		}
		if (check_fields(v, b, "engine.mooncake_kv_store", allowed,
				 r->engine == MCR_ENGINE_TRTLLM ?
					 "TRT-LLM's block has container, env, master_extra_args and store_config (device_names_by_gpu is vLLM only)" :
				 r->engine == MCR_ENGINE_SGLANG ?
					 "SGLang's block has container, env and master_extra_args; per-role Mooncake settings are MOONCAKE_* variables in roles.<role>.env" :
					 NULL))
			return -1;
		if (check_str_map(v, mcr_map_get(b, "env"), "engine.mooncake_kv_store.env") ||
		    check_str_list(v, mcr_map_get(b, "master_extra_args"),
				   "engine.mooncake_kv_store.master_extra_args", true))
			return -1;
		{
			const struct mcr_node *sc = mcr_map_get(b, "store_config");

			if (sc && sc->type != MCR_T_NULL && sc->type != MCR_T_MAP) {
				return FAIL(v, sc,
					    "engine.mooncake_kv_store.store_config: must be a mapping of client-config keys, got %s",
					    R(v, sc));
			}
		}
	} else {
		const struct mcr_node *options = mcr_map_get(r->service, "options");
		const struct mcr_node *sc = mcr_map_get(options, "store_config");
		size_t dev = mcr_map_index(options, "device_names_by_gpu");

		if (sc && sc->type != MCR_T_NULL && sc->type != MCR_T_MAP) {
			return FAIL(v, sc,
				    "services[%s].options.store_config: must be a mapping of client-config keys, got %s",
				    entry_name(r->service), R(v, sc));
		}
		if (r->engine == MCR_ENGINE_SGLANG && mcr_truthy(sc))
			return FAIL(v, options->keys[mcr_map_index(options, "store_config")],
				    "services[%s].options.store_config: SGLang reads no Mooncake client config file (engine.mooncake_kv_store.store_config: Unknown field); set per-role Mooncake settings as MOONCAKE_* variables in roles.<role>.env",
				    entry_name(r->service));
		if (dev != (size_t)-1 && r->engine != MCR_ENGINE_VLLM)
			return FAIL(v, options->keys[dev],
				    "services[%s].options.device_names_by_gpu: only vLLM reads it (engine.mooncake_kv_store.device_names_by_gpu: Unknown field); %s",
				    entry_name(r->service),
				    r->engine == MCR_ENGINE_TRTLLM ?
					    "for TRT-LLM set device_name in options.store_config or roles.<role>.mooncake_store_config" :
					    "for SGLang set MOONCAKE_DEVICE in roles.<role>.env");
	}
	if (r->device_names_by_gpu &&
	    check_str_list(v, r->device_names_by_gpu,
			   b ? "engine.mooncake_kv_store.device_names_by_gpu" :
			       "mooncake-master options.device_names_by_gpu",
			   false))
		return -1;
	return 0;
}

static bool valid_host_port(const char *s)
{
	const char *colon = strrchr(s, ':');
	char *end;
	long port;

	if (!colon || colon == s || strchr(s, ' ') || strchr(s, '/'))
		return false;
	port = strtol(colon + 1, &end, 10);
	return *end == '\0' && end != colon + 1 && port > 0 && port < 65536;
}

static int check_service(struct vctx *v, const struct mcr_node *e, size_t idx,
			 const struct mcr_node *services)
{
	char path[256];
	const struct mcr_node *name, *type, *n;
	const char *kind;
	bool master;
	static const char *const nodes[] = { "head", "infra", "dedicated", "prefill", "decode", "agg", "workers", "compute", "all", NULL };
	static const char *const starts[] = { "infra", "before_workers", "after_frontend", NULL };
	static const char *const probes[] = { "port", "tcp", "http", "log" };

	if (!mcr_is_map(e)) {
		return FAIL(v, e,
			    "services[%zu]: must be a mapping with name and type, got %s",
			    idx, R(v, e));
	}
	name = mcr_map_get(e, "name");
	if (!mcr_is_str(name) || !name->s[0]) {
		return FAIL(v, name ? name : e,
			    "services[%zu].name: every service needs a non-empty name, got %s",
			    idx, name ? R(v, name) : "nothing");
	}
	snprintf(path, sizeof(path), "services[%s]", name->s);
	for (size_t j = 0; j < idx; j++)
		if (mcr_is_map(services->items[j]) &&
		    str_eq(mcr_map_get(services->items[j], "name"), name->s))
			return FAIL(v, name,
				    "%s: the name '%s' is used by another service too; names must be unique",
				    path, name->s);
	if (check_fields(v, e, path, SERVICE_FIELDS, NULL))
		return -1;
	type = mcr_map_get(e, "type");
	if (type && !mcr_is_str(type)) {
		return FAIL(v, type, "%s.type: must be a service kind such as mooncake-master, got %s",
			    path, R(v, type));
	}
	kind = type ? type->s : "generic";
	master = strcmp(kind, "mooncake-master") == 0;
	if (strstr(kind, "ooncake") && !master && strcmp(kind, "mooncake-store") != 0)
		return FAIL(v, type,
			    "%s.type: '%s' is not a service kind; the pool's master is `type: mooncake-master` (and `mooncake-store` for store servers)",
			    path, kind);
	n = mcr_map_get(e, "enabled");
	if (n && n->type != MCR_T_BOOL) {
		return FAIL(v, n, "%s.enabled: Not a valid boolean: %s; write true or false",
			    path, R(v, n));
	}
	n = mcr_map_get(e, "external");
	if (n && n->type != MCR_T_NULL) {
		if (!mcr_is_str(n) || !n->s[0]) {
			return FAIL(v, n,
				    "%s.external: must be a non-empty \"host:port\" string, got %s",
				    path, R(v, n));
		}
		if (!in_list(kind, (const char *const[]){ "etcd", "nats", "mooncake-master", NULL }))
			return FAIL(v, n,
				    "%s.external: type '%s' cannot be external (only etcd, nats and mooncake-master can); remove external",
				    path, kind);
		if (master && !valid_host_port(n->s))
			return FAIL(v, n,
				    "%s.external: '%s' is not host:port; write the master's RPC address, e.g. 10.0.0.5:8700",
				    path, n->s);
	}
	n = mcr_map_get(e, "command");
	if (n && n->type != MCR_T_NULL) {
		char p2[300];

		snprintf(p2, sizeof(p2), "%s.command", path);
		if (check_str_list(v, n, p2, false))
			return -1;
		if (n->n == 0)
			return FAIL(v, n, "%s.command: must not be empty; remove it to use the default command",
				    path);
	}
	{
		char p2[300];

		snprintf(p2, sizeof(p2), "%s.args", path);
		if (check_str_list(v, mcr_map_get(e, "args"), p2, true))
			return -1;
		snprintf(p2, sizeof(p2), "%s.env", path);
		if (check_str_map(v, mcr_map_get(e, "env"), p2))
			return -1;
	}
	n = mcr_map_get(e, "options");
	if (n && n->type != MCR_T_NULL) {
		if (!mcr_is_map(n)) {
			return FAIL(v, n, "%s.options: must be a mapping, got %s", path, R(v, n));
		}
		if (master) {
			struct mcr_buf b = { 0 };
			const struct mcr_node *first = NULL;
			char *keys;
			int rc;

			for (size_t i = 0; i < n->n; i++) {
				const struct mcr_node *k = n->keys[i];

				if (k->type == MCR_T_STR &&
				    (!strcmp(k->s, "store_config") || !strcmp(k->s, "device_names_by_gpu")))
					continue;
				if (!first)
					first = k;
				else
					mcr_buf_puts(&b, ", ");
				{
					char *ks = mcr_key_str(k);

					mcr_buf_puts(&b, ks ? ks : "?");
					free(ks);
				}
			}
			if (first) {
				keys = mcr_buf_take(&b);
				rc = FAIL(v, first,
					  "%s.options has keys type 'mooncake-master' does not understand: %s; it takes store_config (and device_names_by_gpu for vLLM)",
					  path, keys ? keys : "?");
				free(keys);
				return rc;
			}
			free(b.p);
		}
	}
	n = mcr_map_get(e, "placement");
	if (n && n->type != MCR_T_NULL) {
		const struct mcr_node *node = mcr_map_get(n, "node"), *per = mcr_map_get(n, "per");

		char p2[300];

		if (!mcr_is_map(n))
			return FAIL(v, n, "%s.placement: must be a mapping (node, pool, per)", path);
		snprintf(p2, sizeof(p2), "%s.placement", path);
		if (check_fields(v, n, p2, (const char *const[]){ "node", "pool", "per", NULL },
				 "placement takes node, pool and per"))
			return -1;
		if (node && !(mcr_is_str(node) && in_list(node->s, nodes))) {
			return FAIL(v, node,
				    "%s.placement.node: %s is not a placement; use one of head, infra, dedicated, prefill, decode, agg, workers, compute, all",
				    path, R(v, node));
		}
		if (per && !(str_eq(per, "node") || str_eq(per, "worker"))) {
			return FAIL(v, per, "%s.placement.per: %s must be node or worker",
				    path, R(v, per));
		}
		if (node && str_eq(node, "dedicated") &&
		    !in_list(kind, (const char *const[]){ "etcd", "nats", "mooncake-master", NULL }))
			return FAIL(v, node,
				    "%s.placement.node: type '%s' cannot run on a dedicated node (only etcd, nats and mooncake-master can)",
				    path, kind);
		if (master && node && !str_eq(node, "infra") && !str_eq(node, "dedicated"))
			return FAIL(v, node,
				    "%s.placement.node: '%s' is not supported for the master: workers are always pointed at the infra node (the job's first node); use infra (the default) or dedicated",
				    path, node->s);
	}
	n = mcr_map_get(e, "start");
	if (n && !(mcr_is_str(n) && in_list(n->s, starts))) {
		return FAIL(v, n, "%s.start: %s must be one of infra, before_workers, after_frontend",
			    path, R(v, n));
	}
	n = mcr_map_get(e, "readiness");
	if (n && n->type != MCR_T_NULL) {
		int probes_set = 0;

		if (!mcr_is_map(n))
			return FAIL(v, n, "%s.readiness: must be a mapping with one of port, tcp, http, log",
				    path);
		for (size_t i = 0; i < 4; i++)
			probes_set += mcr_map_index(n, probes[i]) != (size_t)-1;
		if (probes_set != 1)
			return FAIL(v, n,
				    "%s.readiness: set exactly one of port, tcp, http, log (found %d)",
				    path, probes_set);
		for (const char *const *t = (const char *const[]){ "timeout_seconds", "interval_seconds", NULL }; *t; t++) {
			const struct mcr_node *x = mcr_map_get(n, *t);

			if (x && !((x->type == MCR_T_INT && x->i > 0) ||
				   (x->type == MCR_T_FLOAT && x->f > 0))) {
				return FAIL(v, x, "%s.readiness.%s: must be a number greater than 0, got %s",
					    path, *t, R(v, x));
			}
		}
	}
	return 0;
}

static int check_services(struct vctx *v)
{
	const struct mcr_node *services = mcr_map_get(v->r->root, "services");

	for (size_t i = 0; mcr_is_seq(services) && i < services->n; i++)
		if (check_service(v, services->items[i], i, services))
			return -1;
	return 0;
}

/* ---- stage C: roles (§1.4) ------------------------------------------ */

static int check_roles(struct vctx *v)
{
	struct mcr_recipe *r = v->r;
	const struct mcr_node *roles = r->roles;

	if (!roles || roles->type == MCR_T_NULL)
		return 0;
	if (!mcr_is_map(roles)) {
		return FAIL(v, roles,
			    "roles: must be a mapping of prefill/decode/agg to their settings, got %s",
			    R(v, roles));
	}
	for (size_t i = 0; i < roles->n; i++) {
		const struct mcr_node *k = roles->keys[i], *role = roles->items[i];
		char path[128];

		if (k->type != MCR_T_STR || mcr_role_from_name(k->s) == MCR_ROLE_NONE) {
			char *s = mcr_key_str(k);
			int rc = FAIL(v, k, "roles: unknown role '%s'; valid roles are prefill, decode, agg",
				      s ? s : "?");

			free(s);
			return rc;
		}
		if (!mcr_is_map(role)) {
			return FAIL(v, role, "roles.%s: must be a mapping of the role's settings, got %s",
				    k->s, R(v, role));
		}
		snprintf(path, sizeof(path), "roles.%s", k->s);
		if (check_fields(v, role, path, ROLE_FIELDS, NULL))
			return -1;
		snprintf(path, sizeof(path), "roles.%s.env", k->s);
		if (check_str_map(v, mcr_map_get(role, "env"), path))
			return -1;
		{
			const struct mcr_node *msc = mcr_map_get(role, "mooncake_store_config");

			if (msc && msc->type != MCR_T_NULL && msc->type != MCR_T_MAP) {
				return FAIL(v, msc,
					    "roles.%s.mooncake_store_config: must be a mapping of client-config keys, got %s",
					    k->s, R(v, msc));
			}
		}
		if (r->has_master && mcr_map_get(role, "engine"))
			return FAIL(v, mcr_map_get(role, "engine"),
				    "roles.%s.engine: role-specific engines do not yet support implicit Mooncake stores or failover (%s); use the top-level engine",
				    k->s, k->s);
	}
	return check_str_map(v, mcr_map_get(r->root, "environment"), "environment");
}

/* ---- stage C: Mooncake rules (§3, C1-C11) --------------------------- */

static const struct mcr_node *role_msc(const struct mcr_recipe *r, int role)
{
	return mcr_map_get(r->role_node[role], "mooncake_store_config");
}

static const struct mcr_node *role_kcc(const struct mcr_recipe *r, int role)
{
	return mcr_map_get(mcr_map_get(r->role_node[role], "args"),
			   "kv_connector_config");
}

/* roles in alphabetical order: agg < decode < prefill */
static const int SORTED_ROLES[] = { MCR_ROLE_AGG, MCR_ROLE_DECODE, MCR_ROLE_PREFILL };

static char *mode_list(unsigned modes)
{
	struct mcr_buf b = { 0 };

	mcr_buf_puts(&b, "[");
	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		if (!(modes & MCR_ROLE_BIT(role)))
			continue;
		if (b.len > 1)
			mcr_buf_puts(&b, ", ");
		mcr_buf_printf(&b, "'%s'", mcr_role_name((enum mcr_role)role));
	}
	mcr_buf_puts(&b, "]");
	return mcr_buf_take(&b);
}

static int check_c1(struct vctx *v)
{
	struct mcr_recipe *r = v->r;

	if (r->engine == MCR_ENGINE_TRTLLM || !mcr_is_map(r->roles))
		return 0;
	for (size_t i = 0; i < r->roles->n; i++) {
		const struct mcr_node *msc = mcr_map_get(r->roles->items[i], "mooncake_store_config");
		const char *role = r->roles->keys[i]->s;

		if (mcr_nonempty_map(msc))
			return FAIL(v, msc,
				    "roles.%s.mooncake_store_config is read by TRT-LLM only. For SGLang, set per-role Mooncake settings as MOONCAKE_* variables in roles.%s.env; for vLLM, in the mooncake-master service's options.store_config.",
				    role, role);
	}
	return 0;
}

static bool env_has(const struct mcr_node *env, const char *name)
{
	return mcr_map_index(env, name) != (size_t)-1;
}

static int check_no_master(struct vctx *v)
{
	struct mcr_recipe *r = v->r;
	const char *frontend_type = NULL;
	const struct mcr_node *ft = mcr_map_get(mcr_map_get(r->root, "frontend"), "type");
	bool serve, sidecar;
	char *run_dirs[MCR_ROLE_COUNT] = { 0 };

	for (int i = 0; i < 3; i++) {
		int role = SORTED_ROLES[i];

		if (mcr_nonempty_map(role_msc(r, role)))
			return FAIL(v, role_msc(r, role),
				    "roles.%s.mooncake_store_config needs a mooncake-master service: srtslurm writes it into the client config it renders for the master's pool; declare `services: [{name: mooncake-master, type: mooncake-master}]` or remove the block",
				    mcr_role_name((enum mcr_role)role));
	}
	if (mcr_is_str(ft))
		frontend_type = ft->s;
	serve = frontend_type && strcmp(frontend_type, "trtllm_serve") == 0;
	sidecar = mcr_truthy(mcr_map_get(mcr_map_get(r->root, "dynamo"), "sidecar"));
	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		const char *mode = mcr_role_name((enum mcr_role)role);
		const struct mcr_node *block, *run_dir, *workers;

		if (!(r->connector_modes & MCR_ROLE_BIT(role)))
			continue;
		if (env_has(mcr_map_get(r->root, "environment"), "MOONCAKE_CONFIG_PATH") ||
		    env_has(mcr_map_get(r->role_node[role], "env"), "MOONCAKE_CONFIG_PATH"))
			continue;
		block = mcr_map_get(role_kcc(r, role), "mooncake_store");
		run_dir = mcr_map_get(block, "run_dir");
		if (!mcr_truthy(run_dir) || !(serve || sidecar))
			return FAIL(v, role_kcc(r, role),
				    "roles.%s.args.kv_connector_config selects the mooncake-store connector, but its workers would not find a Mooncake client config. Declare a mooncake-master service (services: [{name: mooncake-master, type: mooncake-master}]) so the plugin gives each role its config. (Without one, set MOONCAKE_CONFIG_PATH in roles.%s.env, or, when trtllm-serve runs the engine, a mooncake_store block with run_dir.)",
				    mode, mode);
		workers = mcr_map_get(r->role_node[role], "workers");
		{
			char *dir = mcr_pystr(run_dir), why[96];
			bool shared = workers && workers->type == MCR_T_INT && workers->i > 1;

			if (shared)
				snprintf(why, sizeof(why), "roles.%s.workers is %s", mode, R(v, workers));
			for (int j = 0; j < role && dir && !shared; j++)
				if ((shared = run_dirs[j] && strcmp(run_dirs[j], dir) == 0))
					snprintf(why, sizeof(why), "roles.%s uses it too",
						 mcr_role_name((enum mcr_role)j));
			if (shared) {
				int rc = FAIL(v, run_dir,
					      "roles.%s.args.kv_connector_config.mooncake_store.run_dir '%s' would be shared by several servers, and TRT-LLM lets one live server own a run_dir. Give each role its own run_dir and one worker, or declare a mooncake-master service. (%s.)",
					      mode, dir ? dir : "?", why);

				free(dir);
				for (int j = 0; j < role; j++)
					free(run_dirs[j]);
				return rc;
			}
			run_dirs[role] = dir;
		}
	}
	for (int j = 0; j < MCR_ROLE_COUNT; j++)
		free(run_dirs[j]);
	return 0;
}

static const char *const BLOCK_ONLY[] = { "segment_size", "pool", "run_dir", "master_timeout" };
static const char *const BLOCK_WHY[] = {
	"the client config calls it global_segment_size", "srtctl points every role at the mooncake-master service",
	"srtctl hands each role its config through MOONCAKE_CONFIG_PATH; drop it",
	"srtctl starts the master before the workers; drop it",
};
static const char *const BLOCK_HINT[] = { " (set global_segment_size)", "; drop it", "", "" };
static const char *const POOL_WIDE[] = { "model_key", "namespace", "metadata_server", "protocol", "master_server_address", NULL };

static int check_block_only(struct vctx *v, const struct mcr_node *map,
			    const char *where)
{
	for (size_t k = 0; k < 4; k++) {
		size_t i = mcr_map_index(map, BLOCK_ONLY[k]);

		if (i != (size_t)-1) {
			return FAIL(v, map->keys[i],
				    "%s: %s belongs to the mooncake_store block and the client config ignores it: %s%s (it is set to %s)",
				    where, BLOCK_ONLY[k], BLOCK_WHY[k], BLOCK_HINT[k], R(v, map->items[i]));
		}
	}
	return 0;
}

static int check_pool_wide(struct vctx *v, const struct mcr_node *map,
			   const char *role)
{
	struct mcr_buf b = { 0 }, g = { 0 };
	const struct mcr_node *first = NULL;
	char *keys, *got;
	int rc;

	for (const char *const *k = POOL_WIDE; *k; k++) {
		size_t i = mcr_map_index(map, *k);

		if (i == (size_t)-1)
			continue;
		if (!first) {
			first = map->keys[i];
		} else {
			mcr_buf_puts(&b, ", ");
			mcr_buf_puts(&g, ", ");
		}
		mcr_buf_puts(&b, *k);
		mcr_buf_printf(&g, "%s: %s", *k, R(v, map->items[i]));
	}
	if (!first)
		return 0;
	keys = mcr_buf_take(&b);
	got = mcr_buf_take(&g);
	rc = FAIL(v, first,
		  "roles.%s.mooncake_store_config: %s must be the same for every server of the pool; set %s in the mooncake-master service's options.store_config and remove %s from the role (it sets %s)",
		  role, keys ? keys : "?", strchr(keys ? keys : "", ',') ? "them" : "it",
		  strchr(keys ? keys : "", ',') ? "them" : "it", got ? got : "?");
	free(keys);
	free(got);
	return rc;
}

/* §3.1 on the payload of one connector mode */
static int check_payload(struct vctx *v, int mode, const struct mcr_payload *p)
{
	const char *m = mcr_role_name((enum mcr_role)mode);
	const struct mcr_payload_entry *e;
	char msg[1024];

/* the message, then where the value was set (when the recipe set it) */
#define PFAIL(node, ...)                                                            \
	do {                                                                        \
		char _b[1024];                                                      \
		snprintf(_b, sizeof(_b), __VA_ARGS__);                              \
		if (e->src)                                                         \
			return FAIL(v, node,                                        \
				    "Mooncake client config for roles.%s: %s (set at %s.%s)", \
				    m, _b, e->src, e->key);                         \
		return FAIL(v, node, "Mooncake client config for roles.%s: %s", m, \
			    _b);                                                    \
	} while (0)

	if ((e = mcr_payload_get(p, "model_key"))) {
		bool ok;

		if (e->val) {
			const char *s = e->val->s;

			ok = mcr_is_str(e->val);
			while (ok && isspace((unsigned char)*s))
				s++;
			ok = ok && *s;
		} else {
			const char *s = e->text;

			while (isspace((unsigned char)*s))
				s++;
			ok = *s != '\0';
		}
		if (!ok && !e->val) {
			/* the default: engine.served_model_name, else model.path */
			const struct mcr_node *sn = mcr_map_get(v->r->engine_node, "served_model_name");

			if (mcr_is_str(sn) && sn->s[0])
				return FAIL(v, sn,
					    "engine.served_model_name: '%s' is blank, and it is the pool's model_key (Mooncake client config for roles.%s: model_key must be a non-empty string); set it to the model's name or remove it",
					    e->text, m);
			return FAIL(v, mcr_map_get(mcr_map_get(v->r->root, "model"), "path"),
				    "model.path: its last path component '%s' is blank, and it is the pool's model_key (Mooncake client config for roles.%s: model_key must be a non-empty string); set engine.served_model_name, or model_key in the mooncake-master service's options.store_config",
				    e->text, m);
		}
		if (!ok) {
			PFAIL(e->val,
			      "model_key must be a non-empty string, got %s: TRT-LLM keys the pool by it. Leave it unset to use the served model name",
			      R(v, e->val));
		}
	}
	if ((e = mcr_payload_get(p, "role")) && e->val) {
		char *s = mcr_pystr(e->val), *t, *end;
		bool ok;

		if (!s)
			return mcr_err_nomem(v->err);
		for (t = s; *t; t++)
			*t = (char)tolower((unsigned char)*t);
		for (t = s; isspace((unsigned char)*t); t++)
			;
		end = t + strlen(t);
		while (end > t && isspace((unsigned char)end[-1]))
			*--end = '\0';
		ok = in_list(t, (const char *const[]){ "both", "producer", "consumer", "capacity", NULL });
		free(s);
		if (!ok) {
			PFAIL(e->val,
			      "role must be one of ['both', 'capacity', 'consumer', 'producer'], got %s (prefill and agg default to both, decode to capacity)",
			      R(v, e->val));
		}
	}
	if ((e = mcr_payload_get(p, "stage_through_host")) && e->val &&
	    e->val->type == MCR_T_STR) {
		PFAIL(e->val,
		      "stage_through_host must be true or false, not the string %s (TRT-LLM takes its truthiness, so the string 'false' would mean true); write true or false unquoted",
		      R(v, e->val));
	}
	for (int k = 0; k < 2; k++) {
		const char *key = k == 0 ? "global_segment_size" : "local_buffer_size";
		long long min = k == 0 ? 0 : 1, bytes;

		if (!(e = mcr_payload_get(p, key)) || !e->val)
			continue;
		if (mcr_size_of_node(key, e->val, &bytes, msg, sizeof(msg)))
			PFAIL(e->val, "%s", msg);
		if (bytes < min) {
			char got[32];

			/* an int beyond 64 bits saturated: show its digits */
			if (e->val->type == MCR_T_INT)
				PFAIL(e->val, "%s must be at least %lld bytes, got %s", key,
				      min, R(v, e->val));
			snprintf(got, sizeof(got), "%lld", bytes);
			PFAIL(e->val, "%s must be at least %lld bytes, got %s", key, min, got);
		}
	}
	if ((e = mcr_payload_get(p, "transfer_batch_size")) && e->val) {
		long long n = 0;

		if (e->val->type == MCR_T_BOOL || !mcr_py_int(e->val, &n))
			n = 0;
		if (n <= 0) {
			PFAIL(e->val, "transfer_batch_size must be a positive integer, got %s",
			      R(v, e->val));
		}
	}
#undef PFAIL
	return 0;
}

static int check_trtllm_master(struct vctx *v)
{
	struct mcr_recipe *r = v->r;

	if (r->external)
		return FAIL(v, mcr_map_get(r->service, "external"),
			    "services[%s].external: an external mooncake-master is not supported for TRT-LLM: srtslurm renders each role's master_server_address from the infra node, where nothing would be listening; remove external to let the plugin start the master",
			    entry_name(r->service));
	if (!r->connector_modes)
		return FAIL(v, r->service ? r->service : r->kv_block,
			    "a mooncake-master service is configured but no roles.<role>.args.kv_connector_config resolves to the Mooncake Store connector (connector: mooncake-store, with connector_module unset or " "tensorrt_llm._torch.pyexecutor.connectors.mooncake_store), so no TRT-LLM worker would use the master. Add `kv_connector_config: {connector: mooncake-store}` to the roles' args, or remove the service.");
	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		const struct mcr_node *block;

		if (!(r->connector_modes & MCR_ROLE_BIT(role)))
			continue;
		block = mcr_map_get(role_kcc(r, role), "mooncake_store");
		if (block && block->type != MCR_T_NULL)
			return FAIL(v, block,
				    "roles.%s.args.kv_connector_config.mooncake_store is set, but with a mooncake-master service srtslurm gives this role its Mooncake client config through MOONCAKE_CONFIG_PATH, which TRT-LLM reads instead of that block. Remove the block and put its client keys in roles.%s.mooncake_store_config (segment_size is global_segment_size there; pool, run_dir, and master_timeout have no equivalent).",
				    mcr_role_name((enum mcr_role)role),
				    mcr_role_name((enum mcr_role)role));
	}
	for (int i = 0; i < 3; i++) {
		int role = SORTED_ROLES[i];

		if (mcr_nonempty_map(role_msc(r, role)) &&
		    !(r->connector_modes & MCR_ROLE_BIT(role))) {
			char *list = mode_list(r->connector_modes);
			int rc = FAIL(v, role_msc(r, role),
				      "roles.%s.mooncake_store_config is set, but only %s use the Mooncake Store connector; add `kv_connector_config: {connector: mooncake-store}` to roles.%s.args or remove the block",
				      mcr_role_name((enum mcr_role)role), list ? list : "?",
				      mcr_role_name((enum mcr_role)role));

			free(list);
			return rc;
		}
	}
	if (r->store_config &&
	    check_block_only(v, r->store_config,
			     r->service ? "mooncake-master options.store_config" :
					  "engine.mooncake_kv_store.store_config"))
		return -1;
	for (size_t i = 0; mcr_is_map(r->roles) && i < r->roles->n; i++) {
		const struct mcr_node *msc = mcr_map_get(r->roles->items[i], "mooncake_store_config");
		char where[128];

		if (!mcr_nonempty_map(msc))
			continue;
		snprintf(where, sizeof(where), "roles.%s.mooncake_store_config",
			 r->roles->keys[i]->s);
		if (check_block_only(v, msc, where) ||
		    check_pool_wide(v, msc, r->roles->keys[i]->s))
			return -1;
	}
	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		struct mcr_payload p = { 0 };
		int rc;

		if (!(r->connector_modes & MCR_ROLE_BIT(role)))
			continue;
		bool no_key;

		if (mcr_trtllm_payload(r, (enum mcr_role)role, "<infra_ip>:8700", &p)) {
			mcr_payload_free(&p);
			return mcr_err_nomem(v->err);
		}
		/* srtctl validates with a placeholder for the default model_key
		 * (§1.3), so the rules of §3.1 come first */
		no_key = !mcr_payload_get(&p, "model_key");
		if (no_key && mcr_payload_set(&p, "model_key", NULL, "<model directory name>")) {
			mcr_payload_free(&p);
			return mcr_err_nomem(v->err);
		}
		rc = check_payload(v, role, &p);
		mcr_payload_free(&p);
		if (rc)
			return rc;
		if (no_key)
			return FAIL(v, mcr_map_get(r->root, "model") ? mcr_map_get(r->root, "model") : r->root,
				    "Mooncake client config for roles.%s: the pool's model_key has no default because the recipe has neither engine.served_model_name nor model.path; set one of them, or model_key in options.store_config",
				    mcr_role_name((enum mcr_role)role));
	}
	return 0;
}

static bool args_have(const struct mcr_node *args, const char *k1, const char *k2,
		      bool (*ok)(const struct mcr_node *))
{
	const struct mcr_node *a = mcr_map_get(args, k1), *b = mcr_map_get(args, k2);

	return (a && ok(a)) || (b && ok(b));
}

static bool is_mooncake_backend(const struct mcr_node *n)
{
	return str_eq(n, "mooncake");
}

static bool mentions_mooncake(const struct mcr_node *n)
{
	return mcr_is_str(n) && strcasestr(n->s, "mooncake") != NULL;
}

static int check_vllm_sglang(struct vctx *v)
{
	struct mcr_recipe *r = v->r;
	const struct mcr_node *pargs = mcr_map_get(r->role_node[MCR_ROLE_PREFILL], "args");
	const struct mcr_node *dargs = mcr_map_get(r->role_node[MCR_ROLE_DECODE], "args");
	bool disagg = r->role_node[MCR_ROLE_PREFILL] || r->role_node[MCR_ROLE_DECODE];

	if (r->engine == MCR_ENGINE_VLLM && r->device_names_by_gpu &&
	    mcr_is_seq(r->device_names_by_gpu) && r->device_names_by_gpu->n > 0) {
		const struct mcr_node *d = r->device_names_by_gpu;
		const struct mcr_node *gpn = mcr_map_get(mcr_map_get(r->root, "resources"), "gpus_per_node");

		if (!gpn || gpn->type != MCR_T_INT || (size_t)gpn->i != d->n) {
			return FAIL(v, d,
				    "mooncake device_names_by_gpu must have one entry per physical GPU on each node: it has %zu, resources.gpus_per_node is %s",
				    d->n, R(v, gpn));
		}
		for (size_t i = 0; i < d->n; i++) {
			const char *s = d->items[i]->s;
			bool bad = !*s || strchr(s, ',');

			for (const char *p = s; *p; p++)
				bad |= isspace((unsigned char)*p) != 0;
			if (bad) {
				return FAIL(v, d->items[i],
					    "mooncake device_names_by_gpu entries must be single nonempty device names without whitespace, got %s at index %zu",
					    R(v, d->items[i]), i);
			}
		}
	}
	if (!disagg)
		return 0;
	if (r->engine == MCR_ENGINE_SGLANG &&
	    !args_have(pargs, "disaggregation-transfer-backend", "disaggregation_transfer_backend", is_mooncake_backend) &&
	    !args_have(dargs, "disaggregation-transfer-backend", "disaggregation_transfer_backend", is_mooncake_backend))
		return FAIL(v, r->service ? r->service : r->kv_block,
			    "a mooncake-master service is configured but neither roles.prefill.args nor roles.decode.args has 'disaggregation-transfer-backend: mooncake'; add it to the prefill and decode args, or remove the service");
	if (r->engine == MCR_ENGINE_VLLM &&
	    !args_have(pargs, "kv-transfer-config", "kv_transfer_config", mentions_mooncake) &&
	    !args_have(dargs, "kv-transfer-config", "kv_transfer_config", mentions_mooncake)) {
		/* the usual cause: the config written as a YAML mapping */
		for (int role = MCR_ROLE_PREFILL; role <= MCR_ROLE_DECODE; role++) {
			const struct mcr_node *args = role == MCR_ROLE_PREFILL ? pargs : dargs;

			for (const char *const *k = (const char *const[]){ "kv-transfer-config", "kv_transfer_config", NULL }; *k; k++) {
				const struct mcr_node *kt = mcr_map_get(args, *k);

				if (kt && kt->type != MCR_T_STR)
					return FAIL(v, kt,
						    "a mooncake-master service is configured but neither roles.prefill.args nor roles.decode.args has a kv-transfer-config that references a Mooncake connector: roles.%s.args.%s is %s, and vLLM takes it as a JSON string; quote it, e.g. %s: '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}'",
						    mcr_role_name((enum mcr_role)role), *k, R(v, kt), *k);
			}
		}
		return FAIL(v, r->service ? r->service : r->kv_block,
			    "a mooncake-master service is configured but neither roles.prefill.args nor roles.decode.args has a kv-transfer-config that references a Mooncake connector; add e.g. kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}', or remove the service");
	}
	return 0;
}

/* The plugin's own rule: the three ports are fixed (§4.1). */
static int check_master_args(struct vctx *v)
{
	const struct mcr_node *args = v->r->master_args;
	static const char *const moved[] = {
		"--port", "--rpc_port", "--http_metadata_server_port", "--metrics_port",
		"--enable_http_metadata_server", "--noenable_http_metadata_server",
		"-port", "-rpc_port", "-http_metadata_server_port", "-metrics_port",
		"-enable_http_metadata_server", "-noenable_http_metadata_server", NULL
	};

	for (size_t i = 0; mcr_is_seq(args) && i < args->n; i++) {
		const char *a = args->items[i]->s;
		size_t len = strcspn(a, "=");

		for (const char *const *m = moved; *m; m++)
			if (strlen(*m) == len && strncmp(a, *m, len) == 0)
				return FAIL(v, args->items[i],
					    "%s: '%s' would move or switch off one of the master's ports; the workers and the readiness check use 8700 (RPC), 8701 (HTTP metadata server) and 8702 (metrics): remove it",
					    v->r->kv_block ? "engine.mooncake_kv_store.master_extra_args" : "mooncake-master args",
					    a);
	}
	return 0;
}

/* output.log_dir: the plugin expands its placeholders for every job */
static int check_log_dir(struct vctx *v)
{
	const struct mcr_node *n = mcr_map_get(mcr_map_get(v->r->root, "output"), "log_dir");
	struct mcr_error e = { 0 };
	char *dir;

	if (!n || n->type == MCR_T_NULL)
		return 0;
	if (!mcr_is_str(n) || !n->s[0]) {
		return FAIL(v, n, "output.log_dir: must be a directory path, got %s", R(v, n));
	}
	if (n->s[0] == '~')
		return FAIL(v, n,
			    "output.log_dir: '%s': ~ is not expanded (the directory would be named ~); write the absolute path, or one relative to the submit directory",
			    n->s);
	dir = mcr_expand_dir_template(n->s, "1", "user", "/submit", &e);
	free(dir);
	if (!dir)
		return FAIL(v, n, "output.log_dir: %s", e.text);
	return 0;
}

static int validate(struct vctx *v)
{
	struct mcr_recipe *r = v->r;

	if (check_schema(v) || check_log_dir(v) || check_one_master(v) || check_engine(v) ||
	    check_kv_store(v) || check_services(v) || check_roles(v) || check_c1(v))
		return -1;
	if (r->engine == MCR_ENGINE_TRTLLM) {
		if (!r->has_master)
			return check_no_master(v);
		if (check_trtllm_master(v))
			return -1;
	} else if (r->has_master && check_vllm_sglang(v)) {
		return -1;
	}
	if (r->has_master && check_master_args(v))
		return -1;
	return 0;
}

/* ---- advice on a valid recipe: likely typos -------------------------- */

static void warn(struct vctx *v, const struct mcr_node *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void warn(struct vctx *v, const struct mcr_node *at, const char *fmt, ...)
{
	struct mcr_recipe *r = v->r;
	struct mcr_error *w;
	char *line;
	size_t len;
	va_list ap;

	if (r->nwarnings == sizeof(r->warnings) / sizeof(r->warnings[0]))
		return;
	w = calloc(1, sizeof(*w));
	if (!w)
		return;
	va_start(ap, fmt);
	mcr_verr_at(w, MCR_WARNING, r->doc, at, fmt, ap);
	va_end(ap);
	len = mcr_error_format(w, NULL, 0);
	if ((line = malloc(len + 1))) {
		mcr_error_format(w, line, len + 1);
		r->warnings[r->nwarnings++] = line;
	}
	free(w);
}

/* keys the client-config readers know (spec §3.1, spec/mooncake.md §4.2, §5) */
static const char *const TRTLLM_CLIENT_KEYS[] = {
	"protocol", "device_name", "global_segment_size", "local_buffer_size",
	"local_hostname", "tenant_id", "role", "namespace", "model_key",
	"transfer_batch_size", "stage_through_host", "metadata_server",
	"master_server_address", NULL
};
static const char *const VLLM_CLIENT_KEYS[] = {
	"metadata_server", "master_server_address", "protocol", "device_name", "mode",
	"global_segment_size", "local_buffer_size", "enable_offload", "tenant_id", NULL
};
/* top-level keys of an srtctl recipe (schema 2) */
static const char *const TOP_KEYS[] = {
	"schema", "name", "slurm", "model", "resources", "frontend", "engine", "roles",
	"services", "benchmark", "dynamo", "environment", "output", "sweep", "profiling",
	"observability", "telemetry", "health_check", "container", "setup_script",
	"srun_options", "extra_mount", "identity", NULL
};

static void lint_client_keys(struct vctx *v, const struct mcr_node *map,
			     const char *where, const char *const *known,
			     const char *reader)
{
	for (size_t i = 0; mcr_is_map(map) && i < map->n; i++) {
		const struct mcr_node *k = map->keys[i];
		const char *near;

		if (k->type != MCR_T_STR || in_list(k->s, known))
			continue;
		if ((near = did_you_mean(k->s, known)))
			warn(v, k,
			     "%s.%s is not a key %s reads (did you mean %s?); it is written to the client config unchanged and ignored there",
			     where, k->s, reader, near);
	}
}

static void lint(struct vctx *v)
{
	struct mcr_recipe *r = v->r;

	for (size_t i = 0; i < r->root->n; i++) {
		const struct mcr_node *k = r->root->keys[i];
		const char *near;

		if (k->type == MCR_T_STR && !in_list(k->s, TOP_KEYS) &&
		    (near = did_you_mean(k->s, TOP_KEYS)))
			warn(v, k, "%s: is not a recipe key (did you mean %s?)", k->s, near);
	}
	if (!r->has_master)
		return;
	if (r->engine == MCR_ENGINE_TRTLLM) {
		lint_client_keys(v, r->store_config, r->store_config_where,
				 TRTLLM_CLIENT_KEYS, "TRT-LLM's Mooncake client");
		for (int role = 0; role < MCR_ROLE_COUNT; role++) {
			const struct mcr_node *args = mcr_map_get(r->role_node[role], "args");
			const struct mcr_node *kcc = mcr_map_get(args, "kv_connector_config");
			const struct mcr_node *conn = mcr_map_get(kcc, "connector");
			char where[64];

			snprintf(where, sizeof(where), "roles.%s.mooncake_store_config",
				 mcr_role_name((enum mcr_role)role));
			lint_client_keys(v, mcr_map_get(r->role_node[role], "mooncake_store_config"),
					 where, TRTLLM_CLIENT_KEYS, "TRT-LLM's Mooncake client");
			if (!(r->connector_modes & MCR_ROLE_BIT(role)) && mcr_is_str(conn) &&
			    did_you_mean(conn->s, (const char *const[]){ "mooncake-store", NULL }))
				warn(v, conn,
				     "roles.%s.args.kv_connector_config.connector: '%s' is not mooncake-store (did you mean mooncake-store?), so this role reads no Mooncake client config",
				     mcr_role_name((enum mcr_role)role), conn->s);
			for (size_t j = 0; mcr_is_map(args) && j < args->n; j++) {
				const struct mcr_node *ak = args->keys[j];

				if (ak->type == MCR_T_STR && strcmp(ak->s, "kv_connector_config") &&
				    did_you_mean(ak->s, (const char *const[]){ "kv_connector_config", NULL }))
					warn(v, ak,
					     "roles.%s.args.%s: did you mean kv_connector_config? Without it this role does not use the Mooncake Store connector",
					     mcr_role_name((enum mcr_role)role), ak->s);
			}
		}
	} else if (r->engine == MCR_ENGINE_VLLM) {
		lint_client_keys(v, r->store_config, r->store_config_where,
				 VLLM_CLIENT_KEYS, "vLLM's Mooncake client");
	}
}

int mcr_recipe_validate(struct mcr_recipe *r, struct mcr_error *err)
{
	struct vctx v = { r, err, r->doc->name, { 0 }, 0 };
	int rc = validate(&v);

	if (rc == 0)
		lint(&v);

	for (size_t i = 0; i < v.nreprs; i++)
		free(v.reprs[i]);
	return rc;
}
