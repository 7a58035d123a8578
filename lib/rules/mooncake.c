/*
 * mooncake.c - the Mooncake pool rules, each tagged with its id in
 * doc/recipe-reference.md: C1 (§10.6), C2-C4 TRT-LLM without a master
 * (§10.7), C5-C8 TRT-LLM with a master (§10.8), C9 and C10 the keys of a
 * client config (§10.9), V1 and V2 vLLM and SGLang with a master (§10.11),
 * M1 the master's ports (§10.12). C11 is in payload.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/check.h"

/* roles in srtctl's sorted order (agg < decode < prefill), for the rules
 * that report the first such role */
static const enum mcr_role SORTED_ROLES[] = { MCR_ROLE_AGG, MCR_ROLE_DECODE, MCR_ROLE_PREFILL };

static const struct mcri_node *role_msc(const struct mcr_recipe *r, enum mcr_role role)
{
	return mcri_map_get(r->role_node[role], "mooncake_store_config");
}

static const struct mcri_node *role_kcc(const struct mcr_recipe *r, enum mcr_role role)
{
	return mcri_map_get(mcri_map_get(r->role_node[role], "args"), "kv_connector_config");
}

static bool uses_connector(const struct mcr_recipe *r, enum mcr_role role)
{
	return (r->connector_modes & MCRI_ROLE_BIT(role)) != 0;
}

/* C1: roles.<r>.mooncake_store_config is TRT-LLM's (any engine, with or
 * without a master) */
int mcri_rules_c1(struct mcri_check *v)
{
	struct mcr_recipe *r = v->r;

	if (r->engine == MCR_ENGINE_TRTLLM || !mcri_is_map(r->roles))
		return 0;
	for (size_t i = 0; i < r->roles->n; i++) {
		const struct mcri_node *msc = mcri_map_get(r->roles->items[i], "mooncake_store_config");
		const char *role = r->roles->keys[i]->s;

		if (mcri_nonempty_map(msc))
			return mcri_fail(
				v, msc,
				"roles.%s.mooncake_store_config is read by TRT-LLM only. For SGLang, set per-role Mooncake settings as MOONCAKE_* variables in roles.%s.env; for vLLM, in the mooncake-master service's options.store_config.",
				role, role);
	}
	return 0;
}

/* ---- TRT-LLM without a master (§10.7) ------------------------------ */

static bool sets_config_path(const struct mcr_recipe *r, enum mcr_role role)
{
	return mcri_map_index(mcri_map_get(r->root, "environment"), "MOONCAKE_CONFIG_PATH") != MCRI_NO_INDEX ||
	       mcri_map_index(mcri_map_get(r->role_node[role], "env"), "MOONCAKE_CONFIG_PATH") != MCRI_NO_INDEX;
}

/* trtllm-serve runs the engine (C3: only then is a run_dir block used) */
static bool serve_runs_engine(const struct mcr_recipe *r)
{
	const struct mcri_node *ft = mcri_map_get(mcri_map_get(r->root, "frontend"), "type");

	return mcri_str_eq(ft, "trtllm_serve") || mcri_truthy(mcri_map_get(mcri_map_get(r->root, "dynamo"), "sidecar"));
}

/* C4: one live server per run_dir: the role's workers, or an earlier
 * connector role with the same run_dir. 1 with *why saying which, 0, or -1
 * when out of memory. */
static int shared_run_dir(struct mcri_check *v, enum mcr_role role, char **dirs, const char **why)
{
	const struct mcri_node *workers = mcri_map_get(v->r->role_node[role], "workers");

	*why = NULL;
	if (workers && workers->type == MCRI_T_INT && workers->i > 1) {
		*why = mcri_keepf(v, "roles.%s.workers is %s", mcr_role_name(role), mcri_show(v, workers));
		return *why ? 1 : -1;
	}
	for (int j = 0; j < (int)role; j++)
		if (dirs[j] && strcmp(dirs[j], dirs[role]) == 0) {
			*why = mcri_keepf(v, "roles.%s uses it too", mcr_role_name((enum mcr_role)j));
			return *why ? 1 : -1;
		}
	return 0;
}

/* C2, C3, C4 */
static int no_master_rules(struct mcri_check *v, char **dirs)
{
	struct mcr_recipe *r = v->r;

	/* C2 */
	v->rule = MCR_E_C2;
	for (size_t i = 0; i < MCRI_ARRAY_LEN(SORTED_ROLES); i++) {
		enum mcr_role role = SORTED_ROLES[i];

		if (mcri_nonempty_map(role_msc(r, role)))
			return mcri_fail(
				v, role_msc(r, role),
				"roles.%s.mooncake_store_config needs a mooncake-master service: srtslurm writes it into the client config it renders for the master's pool; declare `services: [{name: mooncake-master, type: mooncake-master}]` or remove the block",
				mcr_role_name(role));
	}
	for (int i = 0; i < MCR_ROLE_COUNT; i++) {
		enum mcr_role role = (enum mcr_role)i;
		const char *mode = mcr_role_name(role), *why;
		const struct mcri_node *run_dir;
		int rc;

		if (!uses_connector(r, role) || sets_config_path(r, role))
			continue;
		/* C3 */
		v->rule = MCR_E_C3;
		run_dir = mcri_map_get(mcri_map_get(role_kcc(r, role), "mooncake_store"), "run_dir");
		if (!mcri_truthy(run_dir) || !serve_runs_engine(r))
			return mcri_fail(
				v, role_kcc(r, role),
				"roles.%s.args.kv_connector_config selects the mooncake-store connector, but its workers would not find a Mooncake client config. Declare a mooncake-master service (services: [{name: mooncake-master, type: mooncake-master}]) so the plugin gives each role its config. (Without one, set MOONCAKE_CONFIG_PATH in roles.%s.env, or, when trtllm-serve runs the engine, a mooncake_store block with run_dir.)",
				mode, mode);
		/* C4 */
		v->rule = MCR_E_C4;
		if (!(dirs[role] = mcri_pystr(run_dir)))
			return mcri_error_nomem(v->err);
		rc = shared_run_dir(v, role, dirs, &why);
		if (rc > 0)
			return mcri_fail(
				v, run_dir,
				"roles.%s.args.kv_connector_config.mooncake_store.run_dir '%s' would be shared by several servers, and TRT-LLM lets one live server own a run_dir. Give each role its own run_dir and one worker, or declare a mooncake-master service. (%s.)",
				mode, dirs[role], why);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int mcri_rules_trtllm_no_master(struct mcri_check *v)
{
	char *dirs[MCR_ROLE_COUNT] = { 0 }; /* run_dir of each connector role */
	int rc;

	if (v->r->engine != MCR_ENGINE_TRTLLM || v->r->has_master)
		return 0;
	rc = no_master_rules(v, dirs);
	for (int i = 0; i < MCR_ROLE_COUNT; i++)
		free(dirs[i]);
	return rc;
}

/* ---- TRT-LLM with a master (§10.8, §10.9) -------------------------- */

/* C9: keys of the mooncake_store block, in this order, with why the client
 * config ignores them and what to do */
static const struct {
	const char *key, *why, *hint;
} BLOCK_ONLY[] = {
	{ "segment_size", "the client config calls it global_segment_size", " (set global_segment_size)" },
	{ "pool", "srtctl points every role at the mooncake-master service", "; drop it" },
	{ "run_dir", "srtctl hands each role its config through MOONCAKE_CONFIG_PATH; drop it", "" },
	{ "master_timeout", "srtctl starts the master before the workers; drop it", "" },
};

/* C10: keys that must be the same for every server of the pool */
static const char *const POOL_WIDE[] = {
	"model_key", "namespace", "metadata_server", "protocol", "master_server_address", NULL
};

/* C9 */
static int block_only_keys(struct mcri_check *v, const struct mcri_node *map, const char *where)
{
	v->rule = MCR_E_C9;
	for (size_t k = 0; k < MCRI_ARRAY_LEN(BLOCK_ONLY); k++) {
		size_t i = mcri_map_index(map, BLOCK_ONLY[k].key);

		if (i != MCRI_NO_INDEX)
			return mcri_fail(
				v, map->keys[i],
				"%s: %s belongs to the mooncake_store block and the client config ignores it: %s%s (it is set to %s)",
				where, BLOCK_ONLY[k].key, BLOCK_ONLY[k].why, BLOCK_ONLY[k].hint,
				mcri_show(v, map->items[i]));
	}
	return 0;
}

/* C10 */
static int pool_wide_keys(struct mcri_check *v, const struct mcri_node *map, const char *role)
{
	struct mcri_buf b = { 0 }, g = { 0 };
	const struct mcri_node *first = NULL;
	const char *them;
	char *keys, *got;
	int rc;

	v->rule = MCR_E_C10;
	for (const char *const *k = POOL_WIDE; *k; k++) {
		size_t i = mcri_map_index(map, *k);

		if (i == MCRI_NO_INDEX)
			continue;
		if (!first) {
			first = map->keys[i];
		} else {
			mcri_buf_puts(&b, ", ");
			mcri_buf_puts(&g, ", ");
		}
		mcri_buf_puts(&b, *k);
		mcri_buf_printf(&g, "%s: %s", *k, mcri_show(v, map->items[i]));
	}
	keys = mcri_buf_take(&b);
	got = mcri_buf_take(&g);
	if (!keys || !got)
		rc = mcri_error_nomem(v->err);
	else if (!first)
		rc = 0;
	else {
		them = strchr(keys, ',') ? "them" : "it";
		rc = mcri_fail(
			v, first,
			"roles.%s.mooncake_store_config: %s must be the same for every server of the pool; set %s in the mooncake-master service's options.store_config and remove %s from the role (it sets %s)",
			role, keys, them, them, got);
	}
	free(keys);
	free(got);
	return rc;
}

/* ['prefill', 'decode'], as Python prints a list of the connector roles;
 * NULL with v->err set when out of memory */
static const char *mode_list(struct mcri_check *v, unsigned modes)
{
	struct mcri_buf b = { 0 };
	char *s;
	const char *kept;

	mcri_buf_puts(&b, "[");
	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		if (!(modes & MCRI_ROLE_BIT(role)))
			continue;
		if (b.len > 1)
			mcri_buf_puts(&b, ", ");
		mcri_buf_printf(&b, "'%s'", mcr_role_name((enum mcr_role)role));
	}
	mcri_buf_puts(&b, "]");
	if (!(s = mcri_buf_take(&b))) {
		mcri_error_nomem(v->err);
		return NULL;
	}
	kept = mcri_keepf(v, "%s", s);
	free(s);
	return kept;
}

/* C5, C6, C7, C8 */
static int connector_rules(struct mcri_check *v)
{
	struct mcr_recipe *r = v->r;

	/* C5 */
	v->rule = MCR_E_C5;
	if (r->external)
		return mcri_fail(
			v, mcri_map_get(r->service, "external"),
			"services[%s].external: an external mooncake-master is not supported for TRT-LLM: srtslurm renders each role's master_server_address from the infra node, where nothing would be listening; remove external to let the plugin start the master",
			mcri_entry_name(r->service));
	/* C6 */
	v->rule = MCR_E_C6;
	if (!r->connector_modes)
		return mcri_fail(
			v, r->service ? r->service : r->kv_block,
			"a mooncake-master service is configured but no roles.<role>.args.kv_connector_config resolves to the Mooncake Store connector (connector: mooncake-store, with connector_module unset or tensorrt_llm._torch.pyexecutor.connectors.mooncake_store), so no TRT-LLM worker would use the master. Add `kv_connector_config: {connector: mooncake-store}` to the roles' args, or remove the service.");
	/* C7 */
	v->rule = MCR_E_C7;
	for (int i = 0; i < MCR_ROLE_COUNT; i++) {
		enum mcr_role role = (enum mcr_role)i;
		const struct mcri_node *block = mcri_map_get(role_kcc(r, role), "mooncake_store");

		if (uses_connector(r, role) && block && block->type != MCRI_T_NULL)
			return mcri_fail(
				v, block,
				"roles.%s.args.kv_connector_config.mooncake_store is set, but with a mooncake-master service srtslurm gives this role its Mooncake client config through MOONCAKE_CONFIG_PATH, which TRT-LLM reads instead of that block. Remove the block and put its client keys in roles.%s.mooncake_store_config (segment_size is global_segment_size there; pool, run_dir, and master_timeout have no equivalent).",
				mcr_role_name(role), mcr_role_name(role));
	}
	/* C8 */
	v->rule = MCR_E_C8;
	for (size_t i = 0; i < MCRI_ARRAY_LEN(SORTED_ROLES); i++) {
		enum mcr_role role = SORTED_ROLES[i];
		const char *list;

		if (!mcri_nonempty_map(role_msc(r, role)) || uses_connector(r, role))
			continue;
		if (!(list = mode_list(v, r->connector_modes)))
			return -1;
		return mcri_fail(
			v, role_msc(r, role),
			"roles.%s.mooncake_store_config is set, but only %s use the Mooncake Store connector; add `kv_connector_config: {connector: mooncake-store}` to roles.%s.args or remove the block",
			mcr_role_name(role), list, mcr_role_name(role));
	}
	return 0;
}

int mcri_rules_trtllm_master(struct mcri_check *v)
{
	struct mcr_recipe *r = v->r;

	if (r->engine != MCR_ENGINE_TRTLLM || !r->has_master)
		return 0;
	if (connector_rules(v))
		return -1;
	/* C9 in the master's store_config, then C9 and C10 role by role */
	if (r->store_config && block_only_keys(v, r->store_config,
					       r->service ? "mooncake-master options.store_config"
							  : "engine.mooncake_kv_store.store_config"))
		return -1;
	for (size_t i = 0; mcri_is_map(r->roles) && i < r->roles->n; i++) {
		const struct mcri_node *msc = mcri_map_get(r->roles->items[i], "mooncake_store_config");
		const char *role = r->roles->keys[i]->s, *where;

		if (!mcri_nonempty_map(msc))
			continue;
		if (!(where = mcri_keepf(v, "roles.%s.mooncake_store_config", role)) ||
		    block_only_keys(v, msc, where) || pool_wide_keys(v, msc, role))
			return -1;
	}
	return 0;
}

/* ---- vLLM and SGLang with a master (§10.11) ------------------------ */

static const char *const TRANSFER_BACKEND_KEYS[] = { "disaggregation-transfer-backend",
						     "disaggregation_transfer_backend", NULL };
static const char *const TRANSFER_CONFIG_KEYS[] = { "kv-transfer-config", "kv_transfer_config", NULL };

static bool args_have(const struct mcri_node *args, const char *const *keys, bool (*ok)(const struct mcri_node *))
{
	for (; *keys; keys++) {
		const struct mcri_node *n = mcri_map_get(args, *keys);

		if (n && ok(n))
			return true;
	}
	return false;
}

static bool is_mooncake_backend(const struct mcri_node *n)
{
	return mcri_str_eq(n, "mooncake");
}

static bool mentions_mooncake(const struct mcri_node *n)
{
	return mcri_is_str(n) && strcasestr(n->s, "mooncake") != NULL;
}

/* V1: one HCA name per GPU of a node */
static int device_names_rule(struct mcri_check *v)
{
	const struct mcr_recipe *r = v->r;
	const struct mcri_node *d = r->device_names_by_gpu, *gpn;

	if (r->engine != MCR_ENGINE_VLLM || !mcri_is_seq(d) || d->n == 0)
		return 0;
	gpn = mcri_map_get(mcri_map_get(r->root, "resources"), "gpus_per_node");
	if (!gpn || gpn->type != MCRI_T_INT || (size_t)gpn->i != d->n)
		return mcri_fail(
			v, d,
			"mooncake device_names_by_gpu must have one entry per physical GPU on each node: it has %zu, resources.gpus_per_node is %s",
			d->n, mcri_show(v, gpn));
	for (size_t i = 0; i < d->n; i++) {
		const char *s = d->items[i]->s;
		bool bad = !*s || strchr(s, ',');

		for (const char *p = s; *p; p++)
			bad |= isspace((unsigned char)*p) != 0;
		if (bad)
			return mcri_fail(
				v, d->items[i],
				"mooncake device_names_by_gpu entries must be single nonempty device names without whitespace, got %s at index %zu",
				mcri_show(v, d->items[i]), i);
	}
	return 0;
}

/* V2, vLLM: a kv-transfer-config string that names a Mooncake connector;
 * the usual mistake, the config written as a YAML mapping, is named */
static int vllm_transfer_rule(struct mcri_check *v, const struct mcri_node *pargs, const struct mcri_node *dargs)
{
	const struct mcr_recipe *r = v->r;

	if (args_have(pargs, TRANSFER_CONFIG_KEYS, mentions_mooncake) ||
	    args_have(dargs, TRANSFER_CONFIG_KEYS, mentions_mooncake))
		return 0;
	for (int role = MCR_ROLE_PREFILL; role <= MCR_ROLE_DECODE; role++) {
		const struct mcri_node *args = role == MCR_ROLE_PREFILL ? pargs : dargs;

		for (const char *const *k = TRANSFER_CONFIG_KEYS; *k; k++) {
			const struct mcri_node *kt = mcri_map_get(args, *k);

			if (kt && kt->type != MCRI_T_STR)
				return mcri_fail(
					v, kt,
					"a mooncake-master service is configured but neither roles.prefill.args nor roles.decode.args has a kv-transfer-config that references a Mooncake connector: roles.%s.args.%s is %s, and vLLM takes it as a JSON string; quote it, e.g. %s: '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}'",
					mcr_role_name((enum mcr_role)role), *k, mcri_show(v, kt), *k);
		}
	}
	return mcri_fail(
		v, r->service ? r->service : r->kv_block,
		"a mooncake-master service is configured but neither roles.prefill.args nor roles.decode.args has a kv-transfer-config that references a Mooncake connector; add e.g. kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}', or remove the service");
}

int mcri_rules_vllm_sglang(struct mcri_check *v)
{
	const struct mcr_recipe *r = v->r;
	const struct mcri_node *pargs = mcri_map_get(r->role_node[MCR_ROLE_PREFILL], "args");
	const struct mcri_node *dargs = mcri_map_get(r->role_node[MCR_ROLE_DECODE], "args");

	if (r->engine == MCR_ENGINE_TRTLLM || !r->has_master)
		return 0;
	if (device_names_rule(v))
		return -1;
	/* V2: only a disaggregated recipe (a prefill or decode role) */
	v->rule = MCR_E_V2;
	if (!r->role_node[MCR_ROLE_PREFILL] && !r->role_node[MCR_ROLE_DECODE])
		return 0;
	/* SGLang's workers also use the pool through HiCache alone */
	if (r->engine == MCR_ENGINE_SGLANG && !args_have(pargs, TRANSFER_BACKEND_KEYS, is_mooncake_backend) &&
	    !args_have(dargs, TRANSFER_BACKEND_KEYS, is_mooncake_backend) && !mcri_sglang_joins_pool(pargs) &&
	    !mcri_sglang_joins_pool(dargs))
		return mcri_fail(
			v, r->service ? r->service : r->kv_block,
			"a mooncake-master service is configured but neither roles.prefill.args nor roles.decode.args has 'disaggregation-transfer-backend: mooncake' (nor HiCache with enable-hierarchical-cache: true and hicache-storage-backend: mooncake); add it to the prefill and decode args, or remove the service");
	if (r->engine == MCR_ENGINE_VLLM)
		return vllm_transfer_rule(v, pargs, dargs);
	return 0;
}

/* ---- M1: the master's ports are fixed (§10.12) --------------------- */

/* flags (with one or two dashes, with or without =value) that move or
 * switch off one of the three ports */
static const char *const PORT_FLAGS[] = { "port",
					  "rpc_port",
					  "http_metadata_server_port",
					  "metrics_port",
					  "enable_http_metadata_server",
					  "noenable_http_metadata_server",
					  NULL };

static bool moves_a_port(const char *arg)
{
	size_t len = strcspn(arg, "=");
	const char *flag = arg;

	if (flag[0] != '-')
		return false;
	/* one dash or two */
	for (int dashes = 0; dashes < 2 && flag[0] == '-'; dashes++) {
		flag++;
		len--;
	}
	for (const char *const *m = PORT_FLAGS; *m; m++)
		if (strlen(*m) == len && strncmp(flag, *m, len) == 0)
			return true;
	return false;
}

int mcri_rules_master_ports(struct mcri_check *v)
{
	const struct mcri_node *args = v->r->master_args;

	if (!v->r->has_master)
		return 0;
	for (size_t i = 0; mcri_is_seq(args) && i < args->n; i++)
		if (moves_a_port(args->items[i]->s))
			return mcri_fail(
				v, args->items[i],
				"%s: '%s' would move or switch off one of the master's ports; the workers and the readiness check use 8700 (RPC), 8701 (HTTP metadata server) and 8702 (metrics): remove it",
				v->r->kv_block ? "engine.mooncake_kv_store.master_extra_args" : "mooncake-master args",
				args->items[i]->s);
	return 0;
}
