/*
 * readers.c - the rules that follow each engine's own Mooncake reader
 * (reference §10.11, doc/engine-contracts.md), so that a recipe `check`
 * accepts is one whose workers start:
 *
 *   V3  vLLM's client config, as MooncakeStoreConfig.from_file() and its
 *       __post_init__ (vllm/distributed/mooncake_store.py) take it: sizes
 *       as _parse_size() reads them, mode, the strings setup() is passed,
 *       enable_offload, tenant_id
 *   S1  SGLang's environment, as MooncakeStoreConfig.load_from_env() and
 *       sglang/srt/environ.py read it (the value each role's workers
 *       really get: the layer that wins, reference §8), and what would
 *       make SGLang read another master than the job's
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rules/check.h"
#include "rules/engines.h"
#include "rules/releases.h"
#include "rules/size.h"

#define VLLM_READER "vLLM's Mooncake reader (MooncakeStoreConfig in vllm/distributed/mooncake_store.py)"
#define VLLM_UNITS "a byte count, or a number with gb, mb, kb or b (any case, each a power of 1024)"
#define SGLANG_READER                                                                                                  \
	"SGLang's Mooncake reader (MooncakeStoreConfig.load_from_env in sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py)"

/* a count that saturated: beyond what any node has (and than setup()'s
 * size_t, for the larger ones) */
static bool too_large(long long bytes)
{
	return bytes == LLONG_MAX || bytes == LLONG_MIN;
}

/* ---- V3: vLLM's client config -------------------------------------- */

static int vllm_size_rule(struct mcri_check *v, const char *key, long long min, long long *bytes)
{
	const struct mcri_node *n = mcri_map_get(v->r->store_config, key);
	const char *where = v->r->store_config_where;
	char fix[160] = "";

	if (!n)
		return 0;
	if (n->type == MCRI_T_BOOL)
		return mcri_fail(
			v, n,
			"%s.%s: %s is no size: vLLM's reader would take it as %d byte%s; give a byte count or a size such as '32GB'",
			where, key, mcri_show(v, n), n->b, n->b ? "" : "s");
	if (mcri_vllm_size(n, bytes)) {
		if (mcri_is_str(n))
			mcri_size_suggestion(MCR_ENGINE_VLLM, n->s, fix, sizeof(fix));
		return mcri_fail(v, n, "%s.%s: %s is not a size " VLLM_READER " takes: it takes " VLLM_UNITS "%s",
				 where, key, mcri_show(v, n), fix);
	}
	if (too_large(*bytes))
		return mcri_fail(
			v, n,
			"%s.%s: %s is 8 EiB or more, more than any node can give (and, past 16 EiB, than Mooncake's setup() can take); give the size meant, e.g. '32GB'",
			where, key, mcri_show(v, n));
	if (*bytes < min && min > 0)
		return mcri_fail(v, n,
				 "%s.%s: %s is %lld bytes; " VLLM_READER
				 " refuses a buffer below 1 byte: give its size, e.g. '4GB'",
				 where, key, mcri_show(v, n), *bytes);
	if (*bytes < min)
		return mcri_fail(
			v, n,
			"%s.%s: %s is %lld bytes; a segment cannot be negative (Mooncake's setup() takes an unsigned size): give each worker's share of the pool, e.g. '32GB'",
			where, key, mcri_show(v, n), *bytes);
	return 0;
}

/* keys whose value vLLM hands to MooncakeDistributedStore.setup(), which
 * takes only strings, and what a null (vLLM passes None) should be */
static const struct {
	const char *key, *instead_of_null;
} VLLM_STR_KEYS[] = {
	{ "metadata_server", "remove it (the plugin then writes P2PHANDSHAKE)" },
	{ "protocol", "remove it (vLLM then uses rdma) or write protocol: tcp" },
	{ "device_name", "write device_name: '' (Mooncake then finds the RDMA devices)" },
};

static int vllm_strings_rule(struct mcri_check *v)
{
	const struct mcri_node *sc = v->r->store_config, *md, *off, *tenant;
	const char *where = v->r->store_config_where, *p;

	for (size_t i = 0; i < MCRI_ARRAY_LEN(VLLM_STR_KEYS); i++) {
		const struct mcri_node *n = mcri_map_get(sc, VLLM_STR_KEYS[i].key);

		if (n && !mcri_is_str(n))
			return mcri_fail(
				v, n,
				"%s.%s: must be a string, got %s: vLLM passes it to Mooncake's setup(), which takes only strings; %s",
				where, VLLM_STR_KEYS[i].key, mcri_show(v, n),
				n->type == MCRI_T_NULL ? VLLM_STR_KEYS[i].instead_of_null : "quote it");
	}
	if ((md = mcri_map_get(sc, "metadata_server"))) {
		for (p = md->s; mcri_py_space(*p); p++)
			;
		if (!*p)
			return mcri_fail(
				v, md,
				"%s.metadata_server: %s is no metadata server: vLLM passes it to Mooncake's setup(), which then fails (EtcdStoragePlugin: no valid endpoints provided); write metadata_server: P2PHANDSHAKE, or leave it out (the plugin then writes P2PHANDSHAKE)",
				where, mcri_show(v, md));
	}
	/* vLLM takes bool(value): the string 'false' is true */
	off = mcri_map_get(sc, "enable_offload");
	if (off && off->type != MCRI_T_BOOL && off->type != MCRI_T_NULL)
		return mcri_fail(
			v, off,
			"%s.enable_offload: %s is not a bool: vLLM reads it with bool(), so any non-empty text (even 'false') switches offloading on; write true or false, unquoted",
			where, mcri_show(v, off));
	tenant = mcri_map_get(sc, "tenant_id");
	if (tenant && tenant->type != MCRI_T_NULL && !mcri_is_str(tenant))
		return mcri_fail(v, tenant,
				 "%s.tenant_id: must be a string or null, got %s (" VLLM_READER
				 " raises TypeError); quote it",
				 where, mcri_show(v, tenant));
	return 0;
}

/* device_name_per_gpu: read by vLLM 0.34.0 (MooncakeStoreConfig and
 * _device_name_for_current_gpu), not by 0.33.0 (lint.c says so) */
static int vllm_per_gpu_rule(struct mcri_check *v)
{
	const struct mcr_recipe *r = v->r;
	const struct mcri_node *sc = r->store_config, *names = mcri_map_get(sc, "device_name_per_gpu");
	const struct mcri_node *dev = mcri_map_get(sc, "device_name"), *gpn;
	const char *where = r->store_config_where;

	if (!names || names->type == MCRI_T_NULL)
		return 0; /* vLLM takes null for absent */
	if (names->type != MCRI_T_SEQ || names->n == 0)
		return mcri_fail(
			v, names,
			"%s.device_name_per_gpu: %s is not a list of device names, one per physical GPU of a node: " MCRI_VLLM_NEW
			" refuses it (device_name_per_gpu must be a non-empty list of device names); write e.g. [mlx5_0, mlx5_1, ...]",
			where, mcri_show(v, names));
	for (size_t i = 0; i < names->n; i++) {
		const struct mcri_node *it = names->items[i];
		const char *p = mcri_is_str(it) ? it->s : NULL;

		while (p && mcri_py_space(*p))
			p++;
		if (!p || !*p)
			return mcri_fail(
				v, it,
				"%s.device_name_per_gpu[%zu]: %s is not a device name: " MCRI_VLLM_NEW
				" refuses the list (device_name_per_gpu must be a non-empty list of device names); give GPU %zu's HCA, e.g. mlx5_%zu",
				where, i, mcri_show(v, it), i, i);
	}
	/* vLLM refuses a non-empty device_name beside it (a bool, a number) */
	if (dev && mcri_truthy(dev))
		return mcri_fail(v, dev,
				 "%s: device_name (%s) and device_name_per_gpu are both set: " MCRI_VLLM_NEW
				 " refuses that (set device_name or device_name_per_gpu, not both); remove device_name",
				 where, mcri_show(v, dev));
	if (mcri_is_seq(r->device_names_by_gpu) && r->device_names_by_gpu->n)
		return mcri_fail(
			v, names,
			"%s.device_name_per_gpu and mooncake device_names_by_gpu are both set: the plugin writes each GPU's device_name into its per-GPU file, which would then carry device_name_per_gpu too, and " MCRI_VLLM_NEW
			" refuses both at once; keep device_names_by_gpu (both vLLM releases read it) and remove device_name_per_gpu",
			where);
	gpn = mcri_map_get(mcri_map_get(r->root, "resources"), "gpus_per_node");
	if (gpn && gpn->type == MCRI_T_INT && gpn->i > 0 && names->n < (size_t)gpn->i)
		return mcri_fail(
			v, names,
			"%s.device_name_per_gpu has %zu entr%s, and resources.gpus_per_node is %lld: " MCRI_VLLM_NEW
			"'s worker on physical GPU %zu fails (device_name_per_gpu has no entry for physical GPU %zu); give one device name per GPU of a node",
			where, names->n, names->n == 1 ? "y" : "ies", (long long)gpn->i, names->n, names->n);
	return 0;
}

static int vllm_reader_rule(struct mcri_check *v)
{
	const struct mcri_node *sc = v->r->store_config, *mode, *gss_node;
	const char *where = v->r->store_config_where;
	long long gss = 4LL << 30, lbs = 4LL << 30;
	bool standalone = false;

	if (!mcri_is_map(sc))
		return 0;
	if (vllm_size_rule(v, "global_segment_size", 0, &gss) || vllm_size_rule(v, "local_buffer_size", 1, &lbs))
		return -1;
	gss_node = mcri_map_get(sc, "global_segment_size");
	if ((mode = mcri_map_get(sc, "mode"))) {
		if (!mcri_str_eq(mode, "embedded") && !mcri_str_eq(mode, "standalone-store"))
			return mcri_fail(
				v, mode,
				"%s.mode: %s is not a mode " VLLM_READER
				" knows: use 'embedded' (each worker gives global_segment_size to the pool) or 'standalone-store'",
				where, mcri_show(v, mode));
		standalone = mcri_str_eq(mode, "standalone-store");
	}
	if (!standalone && gss == 0)
		return mcri_fail(
			v, gss_node,
			"%s.global_segment_size: %s is 0 bytes as vLLM reads it, which " VLLM_READER
			" refuses in embedded mode (its default): each worker must give the pool a segment; give its size (e.g. '32GB'), or set mode: standalone-store",
			where, mcri_show(v, gss_node));
	if (standalone && gss != 0)
		return mcri_fail(v, gss_node ? gss_node : mode,
				 "%s.global_segment_size: %s, but mode: standalone-store needs 0 (" VLLM_READER
				 " refuses any other): set global_segment_size: 0",
				 where, gss_node ? mcri_show(v, gss_node) : "not set (vLLM's default is 4 GiB)");
	if (vllm_per_gpu_rule(v))
		return -1;
	return vllm_strings_rule(v);
}

/* ---- S1: SGLang's environment --------------------------------------- */

/* the variables SGLang parses as a bool (EnvBool) or an int (EnvInt); a
 * value it cannot parse is replaced by its default, with a warning in the
 * worker's log */
static const char *const SGLANG_BOOLS[] = { "MOONCAKE_CHECK_SERVER", "MOONCAKE_STANDALONE_STORAGE",
					    "MOONCAKE_ENABLE_SSD_OFFLOAD", NULL };
static const char *const SGLANG_INTS[] = { "MOONCAKE_MASTER_METRICS_PORT", NULL };
static const char *const SGLANG_TRUE[] = { "true", "1", "yes", "y", NULL };
static const char *const SGLANG_FALSE[] = { "false", "0", "no", "n", NULL };

/* `s` is one of `words`, in any case (SGLang's EnvBool lowers it) */
static bool sglang_word(const char *s, const char *const *words)
{
	for (const char *const *w = words; *w; w++)
		if (strcasecmp(s, *w) == 0)
			return true;
	return false;
}
/* what makes SGLang read a config file instead of the job's variables */
#define SGLANG_CONFIG_VAR "SGLANG_HICACHE_MOONCAKE_CONFIG_PATH"

static int sglang_value_rule(struct mcri_check *v, const char *where, const char *name, const struct mcri_node *val)
{
	char fix[160] = "";
	long long n;

	if (!strcmp(name, SGLANG_CONFIG_VAR))
		return mcri_fail(
			v, val,
			"%s." SGLANG_CONFIG_VAR
			": with it SGLang reads the Mooncake settings of that file instead of the job's MOONCAKE_* variables, so its workers would not join the job's master; remove it (put the settings in MOONCAKE_* variables)",
			where);
	if (!strcmp(name, "MOONCAKE_GLOBAL_SEGMENT_SIZE")) {
		if (mcri_sglang_size_text(val->s, &n)) {
			mcri_size_suggestion(MCR_ENGINE_SGLANG, val->s, fix, sizeof(fix));
			return mcri_fail(
				v, val,
				"%s.MOONCAKE_GLOBAL_SEGMENT_SIZE: %s is not a size " SGLANG_READER
				" takes (it raises ValueError and the worker does not start): it takes a byte count or a whole number of gb (1024^3 bytes)%s",
				where, mcri_show(v, val), fix[0] ? fix : ", e.g. '16gb' or '17179869184'");
		}
		if (too_large(n))
			return mcri_fail(
				v, val,
				"%s.MOONCAKE_GLOBAL_SEGMENT_SIZE: %s is 8 EiB or more, more than any node can give (and, past 16 EiB, than Mooncake's setup() can take); give each worker's share of the pool, e.g. '16gb'",
				where, mcri_show(v, val));
		if (n < 0)
			return mcri_fail(
				v, val,
				"%s.MOONCAKE_GLOBAL_SEGMENT_SIZE: %s is below 0 bytes: give the size of each worker's share of the pool, e.g. '16gb'",
				where, mcri_show(v, val));
		return 0;
	}
	if (mcri_in_list(name, SGLANG_INTS) && !mcri_py_int_text(val->s, &n))
		return mcri_fail(v, val,
				 "%s.%s: %s is not an integer, so " SGLANG_READER
				 " ignores it and uses its default; write a port number",
				 where, name, mcri_show(v, val));
	if (!mcri_in_list(name, SGLANG_BOOLS))
		return 0;
	if (!sglang_word(val->s, SGLANG_TRUE) && !sglang_word(val->s, SGLANG_FALSE))
		return mcri_fail(
			v, val,
			"%s.%s: %s is not a bool SGLang reads (true, 1, yes, y, false, 0, no, n; any case), so it ignores it and uses its default: write true or false",
			where, name, mcri_show(v, val));
	return 0;
}

/* every name of the three env layers, each checked once per role at its winning value */
static int sglang_role_rule(struct mcri_check *v, enum mcr_role role)
{
	const struct mcr_recipe *r = v->r;
	const struct mcri_node *maps[3] = { mcri_map_get(r->role_node[role], "env"),
					    mcri_map_get(r->root, "environment"), r->kv_env };
	const char *role_where = mcri_keepf(v, "roles.%s.env", mcr_role_name(role));

	if (!role_where)
		return -1;
	for (size_t m = 0; m < 3; m++)
		for (size_t i = 0; mcri_is_map(maps[m]) && i < maps[m]->n; i++) {
			const struct mcri_node *k = maps[m]->keys[i], *val;
			const char *where;

			if (!mcri_is_str(k) || !(val = mcri_role_env(r, role, k->s, &where, role_where)) ||
			    val != maps[m]->items[i] || !mcri_is_str(val))
				continue; /* another layer wins: that one is checked */
			if (sglang_value_rule(v, where, k->s, val))
				return -1;
		}
	return 0;
}

/* --hicache-storage-backend-extra-config with its own master: SGLang
 * takes it before the environment */
static int sglang_extra_config_rule(struct mcri_check *v, enum mcr_role role)
{
	const struct mcri_node *x =
		mcri_arg(mcri_map_get(v->r->role_node[role], "args"), "hicache-storage-backend-extra-config");

	if (mcri_is_str(x) && (strstr(x->s, "master_server_address") || strstr(x->s, "client_server_address")))
		return mcri_fail(
			v, x,
			"roles.%s.args.hicache-storage-backend-extra-config names a master_server_address (or client_server_address), which SGLang takes before the job's MOONCAKE_MASTER: its workers would not join the job's master; remove that key from the extra config",
			mcr_role_name(role));
	return 0;
}

int mcri_rules_engine_readers(struct mcri_check *v)
{
	const struct mcr_recipe *r = v->r;

	if (!r->has_master)
		return 0;
	if (r->engine == MCR_ENGINE_VLLM)
		return vllm_reader_rule(v);
	if (r->engine != MCR_ENGINE_SGLANG)
		return 0;
	v->rule = MCR_E_S1;
	for (int role = 0; role < MCR_ROLE_COUNT; role++)
		if (r->role_node[role] &&
		    (sglang_role_rule(v, (enum mcr_role)role) || sglang_extra_config_rule(v, (enum mcr_role)role)))
			return -1;
	return 0;
}

/* ---- H1: the clients of an HA pool ------------------------------------ */

int mcr_recipe_ha_check(const struct mcr_recipe *recipe, struct mcr_error *err)
{
	struct mcr_recipe *r = (struct mcr_recipe *)recipe; /* mcri_check's; only read */
	const struct mcri_node *md;
	struct mcri_check v;
	int rc = 0;

	mcri_check_init(&v, r, err);
	v.rule = MCR_E_H1;
	if (!r->has_master) {
		rc = 0;
	} else if (r->external) {
		rc = mcri_error_set(
			err, MCR_EINVAL,
			"an HA pool (ha=etcd in plugstack.conf) runs the job's own masters, but this recipe's master is external (%s), which the plugin neither starts nor can make highly available; use the job's own master (leave master_server_address out), or run the job where ha=none",
			r->external);
		mcri_error_code(err, MCR_E_H1);
	} else if (r->engine != MCR_ENGINE_SGLANG) {
		md = mcri_map_get(r->store_config, "metadata_server");
		if (md && !mcri_str_eq(md, "P2PHANDSHAKE"))
			rc = mcri_fail(
				&v, md,
				"%s.metadata_server: %s, but the job's pool is an HA pool (ha=etcd in plugstack.conf): its clients find the leader through etcd, and each master's HTTP metadata server is its own, so a standby that takes over knows nothing of it; write metadata_server: P2PHANDSHAKE, or leave it out",
				r->store_config_where ? r->store_config_where : "store_config", mcri_show(&v, md));
	} else {
		for (int role = 0; !rc && role < MCR_ROLE_COUNT; role++) {
			const char *where, *role_where;
			const struct mcri_node *n;

			if (!r->role_node[role])
				continue;
			if (!(role_where = mcri_keepf(&v, "roles.%s.env", mcr_role_name((enum mcr_role)role)))) {
				rc = -1;
				break;
			}
			n = mcri_role_env(r, (enum mcr_role)role, "MOONCAKE_CHECK_SERVER", &where, role_where);
			if (mcri_is_str(n) && sglang_word(n->s, SGLANG_TRUE))
				rc = mcri_fail(
					&v, n,
					"%s.MOONCAKE_CHECK_SERVER: %s, but the job's pool is an HA pool (ha=etcd in plugstack.conf): SGLang's check takes the host of MOONCAKE_MASTER before its first ':', and an HA pool's address is etcd://..., so the worker would fail its check; set it false, or remove it",
					where, mcri_show(&v, n));
		}
	}
	mcri_check_done(&v);
	return rc;
}
