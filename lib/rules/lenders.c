/*
 * lenders.c - the memory lenders a recipe declares (reference §5.1,
 * refusals in §10.14): what the plugin runs of srtctl's `mooncake-store`
 * and `mooncake-donor` services, and what it refuses at load time, with
 * the fix, because it could not work or the plugin does not run it:
 * placements other than infra, head, a role's nodes, workers and all
 * (per: node), a start other than before_workers, a custom readiness
 * probe, a store without engine.mooncake_kv_store, its sizes as the
 * wheel's store service reads them, a donor without a size, of another
 * protocol than the prefill connector's, outside TRT-LLM or off the decode
 * nodes, and a placement on a role the recipe does not have. Every entry
 * passed services.c's checks first (fields, types, the generic placement).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/check.h"
#include "rules/engines.h"

#define MIB (1LL << 20)
/* the smallest segment Mooncake mounts (Slab::kSize, "Total size must be
 * at least 16777216") */
#define MIN_SEGMENT (16 * MIB)
#define STORE_READER "the wheel's mooncake_store_service (mooncake_config.py)"

/* what an enabled lender's own env must not set: the plugin gives the
 * store the job's master, and a config file would replace all of it */
static const char *const FORCED[] = { "MOONCAKE_MASTER", "MOONCAKE_TE_META_DATA_SERVER", "MOONCAKE_CONFIG_PATH", NULL };
static const char *const DONOR_OPTIONS[] = { "size", "protocol", NULL };

/* its name names files and a step: letters, digits, '.', '_', '-' */
static int check_name(struct mcri_check *v, const struct mcri_lender *l, const char *path)
{
	const struct mcri_node *n = mcri_map_get(l->entry, "name");
	size_t len = strlen(l->name);
	bool ok = len && len <= MCRI_LENDER_NAME_MAX && l->name[0] != '.';

	for (size_t i = 0; ok && i < len; i++)
		ok = isalnum((unsigned char)l->name[i]) || strchr("._-", l->name[i]);
	if (!ok)
		return mcri_fail(
			v, n,
			"%s.name: '%s' cannot name a lender: its name names the lender's step, log and records, so it takes letters, digits, '.', '_' and '-' (not first '.'), at most %d; e.g. '%s'",
			path, l->name, MCRI_LENDER_NAME_MAX, mcri_lender_kind_name(l->kind));
	return 0;
}

static int check_placement(struct mcri_check *v, const struct mcri_lender *l, const char *path)
{
	const struct mcri_node *placement = mcri_map_get(l->entry, "placement");
	const struct mcri_node *node = mcri_map_get(placement, "node"), *per, *pool;

	if ((pool = mcri_map_get(placement, "pool")) && pool->type != MCRI_T_NULL)
		return mcri_fail(
			v, pool,
			"%s.placement.pool: a lender on the nodes another service owns is not run by this plugin, which starts no service but the job's master and its lenders; place it on infra, head, prefill, decode, agg, workers or all",
			path);
	if (mcri_str_eq(node, "compute"))
		return mcri_fail(
			v, node,
			"%s.placement.node: 'compute' (the nodes that run no engine worker) is not run by this plugin: it sees the nodes of the sruns that run roles, never the others; use all (every node of the job), workers or a role",
			path);
	if ((per = mcri_map_get(placement, "per")) && mcri_str_eq(per, "worker"))
		return mcri_fail(
			v, per,
			"%s.placement.per: 'worker' (a lender for each engine worker, with that worker's GPUs) is not run by this plugin: it starts one lender per node, before the node's tasks exist, and never with a worker's GPUs; use per: node, and size the lender for the node",
			path);
	if (l->kind == MCRI_LENDER_DONOR && !mcri_str_eq(node, "decode"))
		return mcri_fail(
			v,
			node        ? node
			: placement ? placement
				    : l->entry,
			"%s.placement.node: a mooncake-donor lends the memory of the decode nodes (trtllm-serve mooncake_donor beside TRT-LLM's generation servers), so it needs placement: {node: decode}, got %s",
			path, node ? mcri_show(v, node) : "none");
	if (l->place == MCRI_PLACE_ROLES && !l->roles)
		return mcri_fail(
			v, node,
			"%s.placement.node: 'workers', but the recipe declares no roles, so no node would run the lender; add roles, or place it on infra",
			path);
	for (int k = 0; k < MCR_ROLE_COUNT && l->place == MCRI_PLACE_ROLES; k++)
		if ((l->roles & MCRI_ROLE_BIT(k)) && !v->r->role_node[k]) {
			char *roles = mcr_recipe_role_list(v->r);
			int rc = mcri_fail(
				v, node,
				"%s.placement.node: '%s', but the recipe has no roles.%s, so no node would run the lender and the pool would lack its memory; place it on one of the roles the recipe has (%s), workers, all or infra",
				path, node->s, node->s, roles ? roles : "?");

			free(roles);
			return rc;
		}
	return 0;
}

static int check_start_critical(struct mcri_check *v, const struct mcri_lender *l, const char *path)
{
	const struct mcri_node *start = mcri_map_get(l->entry, "start");
	const struct mcri_node *critical = mcri_map_get(l->entry, "critical");

	if (start && start->type != MCRI_T_NULL && !mcri_str_eq(start, "before_workers"))
		return mcri_fail(
			v, start,
			"%s.start: %s is not run by this plugin: a lender starts on its node before the tasks there that use it (before_workers), the first srun that places one of them starts it; remove start or write before_workers",
			path, mcri_show(v, start));
	if (critical && critical->type != MCRI_T_NULL && critical->type != MCRI_T_BOOL)
		return mcri_fail(v, critical, "%s.critical: Not a valid boolean: %s; write true or false", path,
				 mcri_show(v, critical));
	return 0;
}

/* a size of the store's env as its reader takes it: a segment of at least
 * 16 MiB (0 lends nothing), a local buffer of at least 1 byte */
static int store_size(struct mcri_check *v, const char *path, const char *name, const struct mcri_node *val)
{
	bool segment = strcmp(name, "MOONCAKE_GLOBAL_SEGMENT_SIZE") == 0;
	long long bytes;

	if (!mcri_is_str(val))
		return 0; /* E rules: a string */
	if (mcri_store_size_text(val->s, &bytes))
		return mcri_fail(
			v, val,
			"%s.env.%s: %s is not a size " STORE_READER
			" takes (it raises ValueError and the store does not start): a number of bytes, or a number with k, m, g or t (also kb ... tb; each a power of 1024); 'GiB' is refused; e.g. '16g' or '17179869184'",
			path, name, mcri_show(v, val));
	if (segment && bytes == 0)
		return mcri_fail(
			v, val,
			"%s.env.MOONCAKE_GLOBAL_SEGMENT_SIZE: %s is 0 bytes: the store would lend nothing to the pool; give the memory it lends, e.g. '64g', or remove the service",
			path, mcri_show(v, val));
	if (segment && bytes < MIN_SEGMENT)
		return mcri_fail(
			v, val,
			"%s.env.MOONCAKE_GLOBAL_SEGMENT_SIZE: %s is %lld bytes, below the 16 MiB Mooncake mounts at least (its setup fails: 'Total size must be at least 16777216'); give at least '16m'",
			path, mcri_show(v, val), bytes);
	if (bytes <= 0)
		return mcri_fail(v, val, "%s.env.%s: %s is %lld bytes; give a size above 0, e.g. '1g'", path, name,
				 mcri_show(v, val), bytes);
	return 0;
}

static int check_env_options(struct mcri_check *v, const struct mcri_lender *l, const char *path)
{
	const struct mcri_node *env = mcri_map_get(l->entry, "env");
	const struct mcri_node *options = mcri_map_get(l->entry, "options");

	for (size_t i = 0; mcri_is_map(env) && i < env->n; i++) {
		const struct mcri_node *k = env->keys[i];

		if (k->type != MCRI_T_STR)
			continue;
		if (mcri_in_list(k->s, FORCED))
			return mcri_fail(
				v, k,
				"%s.env.%s: the plugin gives the lender the job's master (MOONCAKE_MASTER, MOONCAKE_TE_META_DATA_SERVER), and a MOONCAKE_CONFIG_PATH would make the store read that file instead; remove it",
				path, k->s);
		if (l->kind == MCRI_LENDER_STORE &&
		    (!strcmp(k->s, "MOONCAKE_GLOBAL_SEGMENT_SIZE") || !strcmp(k->s, "MOONCAKE_LOCAL_BUFFER_SIZE")) &&
		    store_size(v, path, k->s, env->items[i]))
			return -1;
	}
	if (!mcri_is_map(options) || !options->n)
		return 0;
	if (l->kind == MCRI_LENDER_STORE)
		return mcri_fail(
			v, options->keys[0],
			"%s.options: type 'mooncake-store' takes no options: what it lends and how are MOONCAKE_* variables of its env (MOONCAKE_GLOBAL_SEGMENT_SIZE, MOONCAKE_PROTOCOL, MOONCAKE_DEVICE ...), as " STORE_READER
			" reads them; move them to env",
			path);
	return mcri_check_fields(v, options, mcri_keepf(v, "%s.options", path), DONOR_OPTIONS,
				 "type 'mooncake-donor' takes size and protocol");
}

/* the prefill connector's mooncake_store.protocol, or NULL */
static const struct mcri_node *prefill_protocol(const struct mcr_recipe *r)
{
	const struct mcri_node *args = mcri_map_get(r->role_node[MCR_ROLE_PREFILL], "args");
	const struct mcri_node *block = mcri_map_get(mcri_map_get(args, "kv_connector_config"), "mooncake_store");
	const struct mcri_node *p = mcri_map_get(block, "protocol");

	return mcri_is_str(p) ? p : NULL;
}

static int check_donor(struct mcri_check *v, const struct mcri_lender *l, const char *path)
{
	const struct mcri_node *options = mcri_map_get(l->entry, "options");
	const struct mcri_node *size = mcri_map_get(options, "size");
	const struct mcri_node *protocol = mcri_map_get(options, "protocol"), *theirs;
	long long bytes;

	if (v->r->engine != MCR_ENGINE_TRTLLM || !v->r->has_master)
		return mcri_fail(
			v, mcri_map_get(l->entry, "type"),
			"%s.type: a mooncake-donor is TRT-LLM's (trtllm-serve mooncake_donor) and lends to the pool of the job's mooncake-master; %s; for another engine use type: mooncake-store",
			path,
			v->r->engine != MCR_ENGINE_TRTLLM ? "this recipe's engine is not trtllm"
							  : "this recipe declares no mooncake-master service");
	if (!size || size->type == MCRI_T_NULL)
		return mcri_fail(
			v, options ? options : l->entry,
			"%s.options.size: a mooncake-donor needs the size of the segment it lends (trtllm-serve mooncake_donor --segment_size); add options: {size: 64GiB}",
			path);
	if (size->type == MCRI_T_BOOL || (size->type != MCRI_T_STR && size->type != MCRI_T_INT))
		return mcri_fail(v, size,
				 "%s.options.size: %s is not a size; write a byte count or a binary unit, e.g. 64GiB",
				 path, mcri_show(v, size));
	if (size->type == MCRI_T_STR) {
		struct mcr_error e;
		const char *key = mcri_keepf(v, "%s.options.size", path);

		if (mcr_parse_size_text(key ? key : "options.size", size->s, &bytes, &e))
			return mcri_fail(v, size, "%s; write e.g. '64GiB'", e.text);
	} else {
		bytes = size->i;
	}
	if (bytes < MIN_SEGMENT)
		return mcri_fail(
			v, size,
			"%s.options.size: %s is %lld bytes, below the 16 MiB Mooncake mounts at least; give the memory the donor lends, e.g. 64GiB",
			path, mcri_show(v, size), bytes);
	if (protocol && !mcri_is_str(protocol))
		return mcri_fail(v, protocol,
				 "%s.options.protocol: must be a transport name such as rdma or tcp, got %s", path,
				 mcri_show(v, protocol));
	theirs = prefill_protocol(v->r);
	if (theirs && strcmp(theirs->s, protocol ? protocol->s : "rdma") != 0)
		return mcri_fail(
			v, protocol ? protocol : size,
			"%s.options.protocol: '%s'%s, but the prefill connector's mooncake_store.protocol is '%s': the prefill's puts could not reach the donor's segment; use the same transport in both",
			path, protocol ? protocol->s : "rdma", protocol ? "" : " (its default)", theirs->s);
	return 0;
}

/* a store announces its segment one way: TRT-LLM's connector roles must
 * find segments the same way (their metadata_server) */
static int check_store_metadata(struct mcri_check *v, const struct mcri_lender *l, const char *path)
{
	const struct mcri_node *base = mcri_map_get(v->r->store_config, "metadata_server");
	const char *first = NULL;
	int first_role = -1;

	if (v->r->engine != MCR_ENGINE_TRTLLM)
		return 0;
	for (int k = 0; k < MCR_ROLE_COUNT; k++) {
		const struct mcri_node *own =
			mcri_map_get(mcri_map_get(v->r->role_node[k], "mooncake_store_config"), "metadata_server");
		const char *md = mcri_is_str(own) ? own->s : mcri_is_str(base) ? base->s : "P2PHANDSHAKE";

		if (!(v->r->connector_modes & MCRI_ROLE_BIT(k)))
			continue;
		if (!first) {
			first = md;
			first_role = k;
		} else if (strcmp(first, md) != 0) {
			return mcri_fail(
				v, own ? own : mcri_map_get(l->entry, "type"),
				"%s: roles.%s's workers find segments through metadata_server '%s', roles.%s's through '%s', and a store announces its segment one way only: give the connector roles one metadata_server",
				path, mcr_role_name(first_role), first, mcr_role_name(k), md);
		}
	}
	return 0;
}

int mcri_rules_lenders(struct mcri_check *v)
{
	for (size_t i = 0; i < v->r->nlenders; i++) {
		const struct mcri_lender *l = &v->r->lenders[i];
		const char *path = mcri_keepf(v, "services[%s]", l->name);

		if (!path)
			return -1;
		if (check_name(v, l, path) || check_placement(v, l, path) || check_start_critical(v, l, path) ||
		    check_env_options(v, l, path))
			return -1;
		if (l->kind == MCRI_LENDER_STORE && !v->r->kv_block)
			return mcri_fail(
				v, mcri_map_get(l->entry, "type"),
				"%s.type: a mooncake-store registers with the master that engine.mooncake_kv_store declares (srtctl refuses it without one), and this recipe has no engine.mooncake_kv_store; add `mooncake_kv_store: {}` to engine (in place of a mooncake-master service)",
				path);
		if (l->kind == MCRI_LENDER_STORE && check_store_metadata(v, l, path))
			return -1;
		if (l->kind == MCRI_LENDER_DONOR && check_donor(v, l, path))
			return -1;
	}
	return 0;
}
