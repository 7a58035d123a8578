/*
 * engines.c - what each engine's own Mooncake reader takes (reference
 * §9, doc/engine-contracts.md), so that a recipe `check` accepts is one
 * its workers can start with:
 *
 *   V3  vLLM's client config: MooncakeStoreConfig.from_file() and its
 *       __post_init__ (vllm/distributed/mooncake_store.py): sizes as its
 *       _parse_size() reads them, mode, the strings setup() is passed
 *   S1  SGLang's MOONCAKE_* variables as MooncakeStoreConfig.load_from_env()
 *       and sglang/srt/environ.py read them
 *
 * and the byte count each engine makes of a size (mcri_engine_size, for
 * mooncake-recipe explain). TRT-LLM's sizes are size.c's (C11).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules/check.h"
#include "rules/size.h"

#define VLLM_READER "vLLM's Mooncake reader (MooncakeStoreConfig in vllm/distributed/mooncake_store.py)"
#define VLLM_UNITS "a byte count, or a number with gb, mb, kb or b (any case, each a power of 1024)"
#define SGLANG_READER "SGLang's Mooncake reader (MooncakeStoreConfig.load_from_env in sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py)"

/* saturating double -> long long, truncated toward zero (Python int()) */
static long long trunc_sat(double v)
{
	double t = trunc(v);

	if (t >= 9.2233720368547758e18)
		return 9223372036854775807LL;
	if (t <= -9.2233720368547758e18)
		return -9223372036854775807LL - 1;
	return (long long)t;
}

/* vLLM's _parse_size() of a string: strip, lower, then
 * ^\s*([\d.]+)\s*(gb|mb|kb|b)?\s*$ and float() of the number */
static int vllm_size_text(const char *text, long long *bytes)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = { { "gb", 1073741824.0 }, { "mb", 1048576.0 }, { "kb", 1024.0 }, { "b", 1.0 } };
	const char *p = text, *num;
	size_t digits = 0, dots = 0, ulen;
	double scale = 1.0, v;
	char buf[64];

	while (isspace((unsigned char)*p))
		p++;
	for (num = p; isdigit((unsigned char)*p) || *p == '.'; p++)
		*p == '.' ? dots++ : digits++;
	/* float() of [\d.]+: digits with at most one dot */
	if (digits == 0 || dots > 1 || (size_t)(p - num) >= sizeof(buf))
		return -1;
	memcpy(buf, num, (size_t)(p - num));
	buf[p - num] = '\0';
	while (isspace((unsigned char)*p))
		p++;
	for (ulen = 0; isalpha((unsigned char)p[ulen]); ulen++)
		;
	if (ulen) {
		scale = -1.0;
		for (size_t i = 0; i < MCRI_ARRAY_LEN(units); i++)
			if (strlen(units[i].unit) == ulen && strncasecmp(p, units[i].unit, ulen) == 0)
				scale = units[i].scale;
		if (scale < 0)
			return -1;
		p += ulen;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return -1;
	v = strtod(buf, NULL) * scale;
	if (!isfinite(v)) /* int(inf): OverflowError */
		return -1;
	*bytes = trunc_sat(v);
	return 0;
}

/* vLLM's _parse_size() of a node; a bool (an int to Python) is refused:
 * vLLM would take `true` as 1 byte */
static int vllm_size(const struct mcri_node *n, long long *bytes)
{
	switch (n->type) {
	case MCRI_T_INT:
		*bytes = n->i;
		return 0;
	case MCRI_T_FLOAT:
		if (!isfinite(n->f))
			return -1;
		*bytes = trunc_sat(n->f);
		return 0;
	case MCRI_T_STR:
		return vllm_size_text(n->s, bytes);
	default:
		return -1;
	}
}

/* SGLang's _parse_global_segment_size() of an environment value: strip,
 * lower; "<int>gb" is int() x 1024^3, anything else int() (saturated) */
static int sglang_size_text(const char *text, long long *bytes)
{
	const long long gib = 1073741824LL, max = 9223372036854775807LL;
	const char *b = text, *e = text + strlen(text);
	bool gb;
	char *num;
	long long v;
	int rc;

	while (isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	gb = e - b >= 2 && strncasecmp(e - 2, "gb", 2) == 0;
	if (!(num = strndup(b, (size_t)(e - b) - (gb ? 2 : 0))))
		return -1;
	rc = mcri_py_int_text(num, &v) ? 0 : -1;
	free(num);
	if (rc == 0 && gb)
		v = v > max / gib ? max : v < -max / gib ? -max - 1 : v * gib;
	if (rc == 0)
		*bytes = v;
	return rc;
}

int mcri_engine_size(const struct mcr_recipe *r, const struct mcri_node *n,
		     const char *text, long long *bytes)
{
	struct mcr_error ignored;

	switch (r->engine) {
	case MCR_ENGINE_VLLM:
		return n ? vllm_size(n, bytes) : vllm_size_text(text, bytes);
	case MCR_ENGINE_SGLANG:
		return text ? sglang_size_text(text, bytes) :
		       mcri_is_str(n) ? sglang_size_text(n->s, bytes) : -1;
	default:
		if (n)
			return mcri_size_of_node("size", n, bytes, &ignored);
		return mcr_parse_size_text("size", text, bytes, &ignored);
	}
}

/* A spelling vLLM takes for a size it refuses: "16GiB" -> "16GB",
 * "1TiB" -> "1024GB", "16G" -> "16GB"; "" when there is none. */
static void vllm_fix(const struct mcri_node *n, char *fix, size_t size)
{
	char num[32], unit[16];
	double d;

	fix[0] = '\0';
	if (!mcri_is_str(n) || sscanf(n->s, " %31[0-9.] %15[a-zA-Z] ", num, unit) != 2)
		return;
	if (!strcasecmp(unit, "gib") || !strcasecmp(unit, "g"))
		snprintf(fix, size, "; write '%sGB' (vLLM reads it as %s x 1024^3 bytes) or a byte count", num, num);
	else if (!strcasecmp(unit, "mib") || !strcasecmp(unit, "m"))
		snprintf(fix, size, "; write '%sMB' (vLLM reads it as %s x 1024^2 bytes) or a byte count", num, num);
	else if (!strcasecmp(unit, "kib") || !strcasecmp(unit, "k"))
		snprintf(fix, size, "; write '%sKB' (vLLM reads it as %s x 1024 bytes) or a byte count", num, num);
	else if ((!strcasecmp(unit, "tib") || !strcasecmp(unit, "t") || !strcasecmp(unit, "tb")) &&
		 (d = strtod(num, NULL)) > 0 && isfinite(d))
		snprintf(fix, size, "; write '%gGB' (vLLM has no TB; it reads GB as 1024^3 bytes) or a byte count",
			 d * 1024);
}

/* ---- V3: vLLM's client config -------------------------------------- */

/* keys whose value vLLM hands to MooncakeDistributedStore.setup(), which
 * takes only strings */
static const char *const VLLM_STR_KEYS[] = { "metadata_server", "protocol", "device_name", NULL };

static int vllm_size_rule(struct mcri_check *v, const char *key, long long min,
			  long long *bytes)
{
	const struct mcri_node *n = mcri_map_get(v->r->store_config, key);
	char fix[160];

	if (!n)
		return 0;
	if (vllm_size(n, bytes)) {
		vllm_fix(n, fix, sizeof(fix));
		return mcri_fail(v, n, "%s.%s: %s is not a size " VLLM_READER " takes: it takes " VLLM_UNITS "%s",
				 v->r->store_config_where, key, mcri_show(v, n), fix);
	}
	if (*bytes < min && min > 0)
		return mcri_fail(v, n, "%s.%s: %s is %lld bytes; " VLLM_READER " refuses a buffer below 1 byte: give its size, e.g. '4GB'",
				 v->r->store_config_where, key, mcri_show(v, n), *bytes);
	if (*bytes < min)
		return mcri_fail(v, n, "%s.%s: %s is %lld bytes; a segment cannot be negative (Mooncake's setup() takes an unsigned size): give each worker's share of the pool, e.g. '32GB'",
				 v->r->store_config_where, key, mcri_show(v, n), *bytes);
	return 0;
}

static int vllm_reader_rule(struct mcri_check *v)
{
	const struct mcr_recipe *r = v->r;
	const struct mcri_node *sc = r->store_config, *mode, *md, *tenant;
	const char *where = r->store_config_where;
	long long gss = 4LL << 30, lbs = 4LL << 30;
	bool standalone = false;

	if (!mcri_is_map(sc))
		return 0;
	if (vllm_size_rule(v, "global_segment_size", 0, &gss) ||
	    vllm_size_rule(v, "local_buffer_size", 1, &lbs))
		return -1;
	if ((mode = mcri_map_get(sc, "mode"))) {
		if (!mcri_str_eq(mode, "embedded") && !mcri_str_eq(mode, "standalone-store"))
			return mcri_fail(v, mode, "%s.mode: %s is not a mode " VLLM_READER " knows: use 'embedded' (each worker gives global_segment_size to the pool) or 'standalone-store'",
					 where, mcri_show(v, mode));
		standalone = mcri_str_eq(mode, "standalone-store");
	}
	if (!standalone && gss == 0)
		return mcri_fail(v, mcri_map_get(sc, "global_segment_size"),
				 "%s.global_segment_size: 0 in embedded mode (vLLM's default), which " VLLM_READER " refuses: each worker must give the pool a segment; give its size (e.g. '32GB'), or set mode: standalone-store",
				 where);
	if (standalone && gss != 0)
		return mcri_fail(v, mode, "%s.mode: standalone-store needs global_segment_size: 0 (" VLLM_READER " refuses any other; its default is 4 GiB): set it to 0",
				 where);
	for (const char *const *k = VLLM_STR_KEYS; *k; k++) {
		const struct mcri_node *n = mcri_map_get(sc, *k);

		if (n && !mcri_is_str(n))
			return mcri_fail(v, n, "%s.%s: must be a string, got %s: vLLM passes it to Mooncake's setup(), which takes only strings; quote it",
					 where, *k, mcri_show(v, n));
	}
	md = mcri_map_get(sc, "metadata_server");
	if (md && !md->s[0])
		return mcri_fail(v, md, "%s.metadata_server: '' is no metadata server: vLLM passes it to Mooncake's setup(), which then fails (EtcdStoragePlugin: no valid endpoints provided); write metadata_server: P2PHANDSHAKE, or leave it out (the plugin then writes P2PHANDSHAKE)",
				 where);
	tenant = mcri_map_get(sc, "tenant_id");
	if (tenant && tenant->type != MCRI_T_NULL && !mcri_is_str(tenant))
		return mcri_fail(v, tenant, "%s.tenant_id: must be a string or null, got %s (" VLLM_READER " raises TypeError); quote it",
				 where, mcri_show(v, tenant));
	return 0;
}

/* ---- S1: SGLang's MOONCAKE_* variables ------------------------------ */

/* the variables SGLang parses as a bool (EnvBool) or an int (EnvInt);
 * a value it cannot parse is replaced by the default, with a warning in
 * the worker's log */
static const char *const SGLANG_BOOLS[] = {
	"MOONCAKE_CHECK_SERVER", "MOONCAKE_STANDALONE_STORAGE", "MOONCAKE_ENABLE_SSD_OFFLOAD", NULL
};
static const char *const SGLANG_INTS[] = { "MOONCAKE_MASTER_METRICS_PORT", NULL };
static const char *const SGLANG_BOOL_WORDS[] = { "true", "1", "yes", "y", "false", "0", "no", "n", NULL };

/* A spelling SGLang takes for a size it refuses: "1.5gb" or "1.5GiB" ->
 * "'1610612736'", "16GiB" -> "'16gb'", "16mb" -> "'16777216'". */
static void sglang_fix(const char *text, char *fix, size_t size)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = { { "gib", 1073741824.0 }, { "gb", 1073741824.0 }, { "g", 1073741824.0 },
		      { "mib", 1048576.0 }, { "mb", 1048576.0 }, { "m", 1048576.0 },
		      { "kib", 1024.0 }, { "kb", 1024.0 }, { "k", 1024.0 } };
	char num[32], unit[16];
	double d;

	fix[0] = '\0';
	if (sscanf(text, " %31[0-9.] %15[a-zA-Z] ", num, unit) != 2 || !isfinite(d = strtod(num, NULL)))
		return;
	for (size_t i = 0; i < MCRI_ARRAY_LEN(units); i++) {
		if (strcasecmp(unit, units[i].unit))
			continue;
		if (units[i].scale == 1073741824.0 && d == trunc(d) && !strchr(num, '.'))
			snprintf(fix, size, "; write '%sgb'", num);
		else
			snprintf(fix, size, "; write the byte count '%.0f'", trunc(d * units[i].scale));
	}
}

static int sglang_var_rule(struct mcri_check *v, const char *where,
			   const struct mcri_node *k, const struct mcri_node *val)
{
	long long n;
	char *low;
	bool ok;

	if (!mcri_is_str(k) || !mcri_is_str(val))
		return 0;
	if (strcmp(k->s, "MOONCAKE_GLOBAL_SEGMENT_SIZE") == 0) {
		char fix[96];

		sglang_fix(val->s, fix, sizeof(fix));
		if (sglang_size_text(val->s, &n))
			return mcri_fail(v, val, "%s.MOONCAKE_GLOBAL_SEGMENT_SIZE: %s is not a size " SGLANG_READER " takes (it raises ValueError and the worker does not start): it takes a byte count or a whole number of gb (1024^3 bytes)%s",
					 where, mcri_show(v, val), fix[0] ? fix : ", e.g. '16gb' or '17179869184'");
		if (n < 0)
			return mcri_fail(v, val, "%s.MOONCAKE_GLOBAL_SEGMENT_SIZE: %s is below 0 bytes: give the size of each worker's share of the pool, e.g. '16gb'",
					 where, mcri_show(v, val));
		return 0;
	}
	if (mcri_in_list(k->s, SGLANG_INTS) && !mcri_py_int_text(val->s, &n))
		return mcri_fail(v, val, "%s.%s: %s is not an integer, so " SGLANG_READER " ignores it and uses its default; write a port number",
				 where, k->s, mcri_show(v, val));
	if (!mcri_in_list(k->s, SGLANG_BOOLS))
		return 0;
	if (!(low = strdup(val->s)))
		return mcri_error_nomem(v->err);
	for (char *c = low; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	ok = mcri_in_list(low, SGLANG_BOOL_WORDS);
	free(low);
	if (!ok)
		return mcri_fail(v, val, "%s.%s: %s is not a bool SGLang reads (true, 1, yes, y, false, 0, no, n; any case), so it ignores it and uses its default: write true or false",
				 where, k->s, mcri_show(v, val));
	return 0;
}

static int sglang_env_rule(struct mcri_check *v, const struct mcri_node *map,
			   const char *where)
{
	for (size_t i = 0; mcri_is_map(map) && i < map->n; i++)
		if (sglang_var_rule(v, where, map->keys[i], map->items[i]))
			return -1;
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
	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		const char *where;

		if (!r->role_node[role])
			continue;
		if (!(where = mcri_keepf(v, "roles.%s.env", mcr_role_name((enum mcr_role)role))) ||
		    sglang_env_rule(v, mcri_map_get(r->role_node[role], "env"), where))
			return -1;
	}
	return sglang_env_rule(v, mcri_map_get(r->root, "environment"), "environment") ||
	       sglang_env_rule(v, r->kv_env, "engine.mooncake_kv_store.env") ? -1 : 0;
}
