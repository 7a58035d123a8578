/*
 * releases.c - warnings (reference §11) where what a recipe says is not
 * what its workers run with (doc/engine-contracts.md):
 *
 *   - the plugin sets the variable itself (base/taskvars.c): its value
 *     always wins over the recipe's
 *   - the supported releases disagree: vLLM 0.33.0 ignores
 *     device_name_per_gpu, which 0.34.0 reads; vLLM's sleep mode, which
 *     0.33.0's MooncakeStoreConnector never allows and 0.34.0 allows only
 *     with some configs; variables that need another Mooncake release
 *     (VLLM_MOONCAKE_STORE_SELECTIVE_LEASE, MOONCAKE_STORE_BACKEND, the
 *     master's --client_active_ttl_sec)
 *   - an engine overrides the file: TRT-LLM's connector runs with
 *     stage_through_host true whatever the file says
 *
 * They never refuse: the recipe runs, and the warning says how.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules/check.h"
#include "rules/releases.h"

/* ---- the plugin's own variables ------------------------------------- */

/* the plugin sets `t` in the tasks of at least one of the roles `roles`
 * (MCRI_ROLE_BIT) */
static bool sets_it(const struct mcr_recipe *r, const struct mcri_task_var *t, unsigned roles)
{
	if (!r->has_master)
		return false;
	switch (t->when) {
	case MCRI_TASK_VAR_POOL:
		return true;
	case MCRI_TASK_VAR_VLLM:
		return r->engine == MCR_ENGINE_VLLM;
	case MCRI_TASK_VAR_FILE:
		for (int role = 0; role < MCR_ROLE_COUNT; role++)
			if ((roles & MCRI_ROLE_BIT(role)) && mcr_recipe_role_reads_config(r, (enum mcr_role)role))
				return true;
		return false;
	}
	return false;
}

static void plugin_vars(struct mcri_check *v, const struct mcri_node *map, const char *where, unsigned roles)
{
	for (size_t i = 0; mcri_is_map(map) && i < map->n; i++) {
		const struct mcri_node *k = map->keys[i];
		const struct mcri_task_var *t = mcri_is_str(k) ? mcri_task_var(k->s) : NULL;

		if (t && sets_it(v->r, t, roles))
			mcri_warn(
				v, k,
				"%s.%s: the plugin sets %s itself in every task of %s to %s, and its value always wins over the recipe's (and over an image's or the caller's); remove it",
				where, k->s, k->s,
				roles == MCRI_ROLE_BIT(0) || roles == MCRI_ROLE_BIT(1) || roles == MCRI_ROLE_BIT(2)
					? "the role"
					: "each role",
				t->value);
	}
}

static void plugin_vars_rule(struct mcri_check *v)
{
	const struct mcr_recipe *r = v->r;
	unsigned all = 0;
	char where[64];

	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		if (!r->role_node[role])
			continue;
		all |= MCRI_ROLE_BIT(role);
		snprintf(where, sizeof(where), "roles.%s.env", mcr_role_name((enum mcr_role)role));
		plugin_vars(v, mcri_map_get(r->role_node[role], "env"), where, MCRI_ROLE_BIT(role));
	}
	plugin_vars(v, mcri_map_get(r->root, "environment"), "environment", all);
	plugin_vars(v, r->kv_env, "engine.mooncake_kv_store.env", all);
}

/* ---- variables that need another Mooncake release ------------------- */

static void mooncake_vars(struct mcri_check *v, const struct mcri_node *map, const char *where)
{
	const struct mcri_node *n;

	n = mcri_map_get(map, "VLLM_MOONCAKE_STORE_SELECTIVE_LEASE");
	/* vLLM reads it as on when its lower case is "true" or "1" */
	if (mcri_is_str(n) && (!strcasecmp(n->s, "true") || !strcmp(n->s, "1")))
		mcri_warn(v, n,
			  "%s.VLLM_MOONCAKE_STORE_SELECTIVE_LEASE: '%s' needs " MCRI_MOONCAKE_NEXT
			  " or later (MooncakeDistributedStore.batch_probe_key, which " MCRI_MOONCAKE
			  " lacks): " MCRI_VLLM_NEW
			  "'s workers with an older Mooncake fail at start (RuntimeError), and " MCRI_VLLM_OLD
			  " ignores it; " MCRI_MOONCAKE_NEXT
			  " is on PyPI as the CUDA 13 wheel only (mooncake-transfer-engine-cuda13)",
			  where, n->s);
	n = mcri_map_get(map, "MOONCAKE_STORE_BACKEND");
	if (!mcri_is_str(n))
		return;
	if (!strcmp(n->s, "cpp"))
		mcri_warn(v, n,
			  "%s.MOONCAKE_STORE_BACKEND: only " MCRI_MOONCAKE_NEXT
			  " or later reads it, and 'cpp' is its default (" MCRI_MOONCAKE " ignores it); remove it",
			  where);
	else if (!strcmp(n->s, "rs"))
		mcri_warn(
			v, n,
			"%s.MOONCAKE_STORE_BACKEND: 'rs' needs " MCRI_MOONCAKE_NEXT
			" or later built with Store-RS (WITH_STORE_RS): with 0.3.14's PyPI wheel, importing mooncake.store fails (ImportError), and " MCRI_MOONCAKE
			" ignores the variable; remove it",
			where);
	else
		mcri_warn(
			v, n,
			"%s.MOONCAKE_STORE_BACKEND: %s makes importing mooncake.store fail with " MCRI_MOONCAKE_NEXT
			" or later (ValueError: MOONCAKE_STORE_BACKEND must be exactly 'cpp' or 'rs'), and " MCRI_MOONCAKE
			" ignores it; remove it",
			where, mcri_show(v, n));
}

static void mooncake_vars_rule(struct mcri_check *v)
{
	const struct mcr_recipe *r = v->r;
	char where[64];

	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		snprintf(where, sizeof(where), "roles.%s.env", mcr_role_name((enum mcr_role)role));
		mooncake_vars(v, mcri_map_get(r->role_node[role], "env"), where);
	}
	mooncake_vars(v, mcri_map_get(r->root, "environment"), "environment");
	mooncake_vars(v, r->kv_env, "engine.mooncake_kv_store.env");
}

/* ---- the master's flags of another Mooncake release --------------------- */

/* mooncake_master's flags that 0.3.14 has and 0.3.13.post1 does not: with
 * an unknown flag the older master does not start (gflags) */
static const struct {
	const char *flag, *instead;
} NEXT_FLAGS[] = {
	{ "client_active_ttl_sec", "--client_ttl (which 0.3.14 still takes, as a deprecated alias)" },
};

static void master_flags_rule(struct mcri_check *v)
{
	const struct mcri_node *args = v->r->master_args;

	for (size_t i = 0; mcri_is_seq(args) && i < args->n; i++) {
		const char *a = mcri_is_str(args->items[i]) ? args->items[i]->s : NULL;

		while (a && *a == '-')
			a++;
		for (size_t k = 0; a && k < MCRI_ARRAY_LEN(NEXT_FLAGS); k++) {
			size_t len = strlen(NEXT_FLAGS[k].flag);

			if (!strncmp(a, NEXT_FLAGS[k].flag, len) && (a[len] == '=' || !a[len]))
				mcri_warn(v, args->items[i],
					  "%s: '%s' is a flag of " MCRI_MOONCAKE_NEXT
					  "'s mooncake_master; " MCRI_MOONCAKE
					  "'s does not know it and does not start; write %s",
					  v->r->kv_block ? "engine.mooncake_kv_store.master_extra_args"
							 : "mooncake-master args",
					  args->items[i]->s, NEXT_FLAGS[k].instead);
		}
	}
}

/* ---- vLLM: device_name_per_gpu, sleep mode ----------------------------- */

static void per_gpu_rule(struct mcri_check *v)
{
	const struct mcri_node *names = mcri_map_get(v->r->store_config, "device_name_per_gpu");

	if (mcri_is_seq(names) && names->n)
		mcri_warn(
			v, names,
			"%s.device_name_per_gpu: " MCRI_VLLM_NEW
			" gives each GPU's store client its entry, but " MCRI_VLLM_OLD
			" ignores the key and passes device_name '' (Mooncake then picks the RDMA devices itself): the same file means other devices to the two releases; mooncake device_names_by_gpu (the plugin writes each GPU's device_name into a file of its own) means the same to both",
			v->r->store_config_where);
}

/* why vLLM 0.34.0's MooncakeStoreConnector.supports_sleep_mode() refuses
 * the role's config, or NULL when it allows sleep mode */
static const char *sleep_refused(struct mcri_check *v, enum mcr_role role)
{
	const struct mcr_recipe *r = v->r;
	const struct mcri_node *sc = r->store_config, *n;
	const struct mcri_node *proto = mcri_map_get(sc, "protocol");
	const char *where, *role_where = mcri_keepf(v, "roles.%s.env", mcr_role_name(role));
	bool device = mcri_truthy(mcri_map_get(sc, "device_name")) ||
		      mcri_truthy(mcri_map_get(sc, "device_name_per_gpu")) ||
		      (mcri_is_seq(r->device_names_by_gpu) && r->device_names_by_gpu->n);

	if (!role_where)
		return "?";
	if (proto && !mcri_str_eq(proto, "rdma"))
		return mcri_keepf(v, "the protocol is %s, not 'rdma'", mcri_show(v, proto));
	if (!device)
		return "no device is named (device_name, device_name_per_gpu or mooncake device_names_by_gpu)";
	n = mcri_role_env(r, role, "MC_MS_AUTO_DISC", &where, role_where);
	if (mcri_is_str(n) && strcmp(n->s, "0"))
		return mcri_keepf(v, "%s.MC_MS_AUTO_DISC is '%s', not 0", where, n->s);
	if ((n = mcri_role_env(r, role, "MC_USE_TENT", &where, role_where)))
		return mcri_keepf(v, "%s sets MC_USE_TENT", where);
	if ((n = mcri_role_env(r, role, "MC_USE_TEV1", &where, role_where)))
		return mcri_keepf(v, "%s sets MC_USE_TEV1", where);
	return NULL;
}

static void sleep_rule(struct mcri_check *v)
{
	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		const struct mcri_node *args = mcri_map_get(v->r->role_node[role], "args");
		const struct mcri_node *on = mcri_arg(args, "enable-sleep-mode");
		const struct mcri_node *kt = mcri_arg(args, "kv-transfer-config");
		const char *why;

		if (!(on && on->type == MCRI_T_BOOL ? on->b : mcri_is_str(on) && !strcasecmp(on->s, "true")) ||
		    !mcri_is_str(kt) || !strstr(kt->s, "MooncakeStoreConnector"))
			continue;
		if ((why = sleep_refused(v, (enum mcr_role)role)))
			mcri_warn(
				v, on,
				"roles.%s.args: enable-sleep-mode with MooncakeStoreConnector: the role's workers fail at start with both vLLM releases (%s does not support sleep mode): " MCRI_VLLM_OLD
				" never allows it, " MCRI_VLLM_NEW
				" only with protocol 'rdma', a device named (device_name or device_name_per_gpu), MC_MS_AUTO_DISC unset or 0 and neither MC_USE_TENT nor MC_USE_TEV1 set, and here %s",
				mcr_role_name((enum mcr_role)role), "MooncakeStoreConnector", why);
		else
			mcri_warn(
				v, on,
				"roles.%s.args: enable-sleep-mode with MooncakeStoreConnector: " MCRI_VLLM_NEW
				" allows it with this config, but " MCRI_VLLM_OLD
				" never does: its workers fail at start (MooncakeStoreConnector does not support sleep mode)",
				mcr_role_name((enum mcr_role)role));
	}
}

/* ---- TRT-LLM: stage_through_host ------------------------------------- */

static void staging_rule(struct mcri_check *v)
{
	const struct mcri_node *said[MCR_ROLE_COUNT] = { 0 }; /* one warning per value */
	size_t nsaid = 0;

	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		bool again = false;
		const struct mcri_payload_entry *e, *er;
		struct mcri_payload p;
		char *kind;

		if (!(v->r->connector_modes & MCRI_ROLE_BIT(role)))
			continue;
		if (mcri_trtllm_payload(v->r, (enum mcr_role)role, "<infra_ip>:8700", &p, NULL)) {
			mcri_payload_free(&p);
			return;
		}
		e = mcri_payload_get(&p, "stage_through_host");
		er = mcri_payload_get(&p, "role");
		kind = er ? (er->val ? mcri_pystr(er->val) : strdup(er->text ? er->text : "")) : NULL;
		/* a capacity role transfers nothing: the connector sets it
		 * true without a word */
		for (size_t i = 0; e && i < nsaid; i++)
			again |= said[i] == e->val;
		if (e && e->val && !again && !mcri_truthy(e->val) && !(kind && strcasestr(kind, "capacity"))) {
			said[nsaid++] = e->val;
			mcri_warn(
				v, e->val,
				"%s.stage_through_host: %s, but " MCRI_TRTLLM
				" runs with stage_through_host true whatever the file says (pages pass through pinned host memory, 1 GiB per direction per rank, its only transfer path today; a warning in the worker's log says so); remove it (client config of roles.%s)",
				e->src ? e->src : "?", mcri_show(v, e->val), mcr_role_name((enum mcr_role)role));
		}
		free(kind);
		mcri_payload_free(&p);
	}
}

void mcri_rules_releases(struct mcri_check *v)
{
	const struct mcr_recipe *r = v->r;

	plugin_vars_rule(v);
	mooncake_vars_rule(v);
	if (!r->has_master)
		return;
	master_flags_rule(v);
	if (r->engine == MCR_ENGINE_VLLM) {
		per_gpu_rule(v);
		sleep_rule(v);
	} else if (r->engine == MCR_ENGINE_TRTLLM) {
		staging_rule(v);
	}
}
