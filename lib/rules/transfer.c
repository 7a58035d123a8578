/*
 * transfer.c - T1 (reference §10.11): the values an engine passes on to
 * Mooncake's MooncakeDistributedStore.setup() are ones Mooncake itself
 * takes, spelled as it spells them (doc/engine-contracts.md, "Mooncake"):
 *
 *   protocol         one of the transfer protocols Mooncake's client
 *                    installs, compared byte for byte ('TCP' makes setup()
 *                    return -1, unsupported_protocol)
 *   metadata_server  P2PHANDSHAKE exactly; a URL whose scheme is one of
 *                    Mooncake's metadata plugins (etcd, http, https, redis;
 *                    another scheme aborts the process); or, without
 *                    '://', a list of etcd endpoints, each host:port
 *                    ('p2phandshake' is taken for an etcd endpoint, and
 *                    setup() waits for an etcd that is not there)
 *
 *   global_segment_size  0 (the client lends nothing) or at least 16 MiB,
 *                    as the engine reads it: a segment of 1 byte to 16 MiB
 *                    less one makes setup() return -600 (INVALID_PARAMS;
 *                    the master's allocator works in slabs of 16 MiB)
 *
 * for the client config vLLM and TRT-LLM read (the master's store_config,
 * TRT-LLM's per-role layers) and SGLang's MOONCAKE_PROTOCOL and
 * MOONCAKE_GLOBAL_SEGMENT_SIZE. SGLang's metadata server is the plugin's
 * (MOONCAKE_TE_META_DATA_SERVER).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules/check.h"
#include "rules/engines.h"
#include "rules/releases.h"

/* Mooncake's client (Client::InitTransferEngine, client_service.cpp): the
 * protocols it installs a transport for */
static const char *const PROTOCOLS[] = { "rdma",    "tcp",          "efa", "cxl",          "cxi", "ascend",
					 "ubshmem", "sunrise_link", "ub",  "nvlink_intra", NULL };
#define PROTOCOL_LIST "rdma, tcp, efa, cxl, cxi, ascend, ubshmem, sunrise_link, ub, nvlink_intra"
/* MetadataStoragePlugin::Create (transfer_metadata_plugin.cpp): the
 * schemes of a metadata server's URL */
static const char *const SCHEMES[] = { "etcd", "http", "https", "redis", NULL };
#define SETUP MCRI_MOONCAKE "'s MooncakeDistributedStore.setup()"
#define FORMS                                                                                                          \
	"P2PHANDSHAKE (no metadata server), http://<host>:<port>/metadata (an HTTP metadata server), or etcd://<host>:<port> (etcd)"

/* the entry of `list` that is `s` in another case, or NULL */
static const char *other_case(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcasecmp(s, *list) == 0)
			return *list;
	return NULL;
}

static int protocol_rule(struct mcri_check *v, const struct mcri_node *at, const char *where, const char *text)
{
	const char *fix;

	if (mcri_in_list(text, PROTOCOLS))
		return 0;
	if ((fix = other_case(text, PROTOCOLS)))
		return mcri_fail(v, at,
				 "%s: '%s' is not a protocol " SETUP
				 " knows: it compares the exact name and returns -1 (unsupported_protocol); write %s",
				 where, text, fix);
	return mcri_fail(v, at,
			 "%s: '%s' is not a protocol " SETUP
			 " knows (it returns -1, unsupported_protocol); it knows " PROTOCOL_LIST
			 " (tcp works on any network, rdma needs InfiniBand or RoCE)",
			 where, text);
}

#define MIN_SEGMENT (16LL << 20)

/* a segment as the engine reads it (the size rules before this one took
 * it) is 0 or at least MIN_SEGMENT */
static int segment_rule(struct mcri_check *v, const struct mcri_node *at, const struct mcri_node *n, const char *text,
			const char *where, const char *per_rank)
{
	long long bytes;

	if (mcri_engine_size(v->r, n, text, &bytes) || bytes <= 0 || bytes >= MIN_SEGMENT)
		return 0;
	return mcri_fail(
		v, at,
		"%s: %s is %lld bytes%s, and " SETUP
		" refuses a segment of 1 byte to 16 MiB less one (it returns -600, INVALID_PARAMS: the master hands out memory in slabs of 16 MiB); give 0 (the worker lends nothing) or at least 16 MiB",
		where, mcri_show(v, at), bytes, per_rank);
}

/* one etcd endpoint of a list: host:port, the port a number 1-65535 */
static bool etcd_endpoint(const char *b, const char *e)
{
	const char *colon = NULL;
	long port = 0;

	for (const char *p = b; p < e; p++) {
		if (isspace((unsigned char)*p))
			return false;
		if (*p == ':')
			colon = p;
	}
	if (!colon || colon == b || colon + 1 == e || e - colon > 6)
		return false;
	for (const char *p = colon + 1; p < e; p++) {
		if (!isdigit((unsigned char)*p))
			return false;
		port = port * 10 + (*p - '0');
	}
	return port >= 1 && port <= 65535;
}

static int metadata_rule(struct mcri_check *v, const struct mcri_node *at, const char *where, const char *text)
{
	const char *sep = strstr(text, "://"), *b = text, *e;
	char scheme[16];
	size_t len;

	if (strcmp(text, "P2PHANDSHAKE") == 0)
		return 0;
	while (isspace((unsigned char)*b))
		b++;
	for (e = b + strlen(b); e > b && isspace((unsigned char)e[-1]); e--)
		;
	if ((size_t)(e - b) == strlen("P2PHANDSHAKE") && strncasecmp(b, "P2PHANDSHAKE", 12) == 0)
		return mcri_fail(
			v, at,
			"%s: '%s' is not P2PHANDSHAKE to " SETUP
			": it compares the exact spelling and takes any other text without '://' for a list of etcd endpoints, so setup() would wait for an etcd that is not there; write P2PHANDSHAKE",
			where, text);
	if (sep) {
		len = (size_t)(sep - text);
		snprintf(scheme, sizeof(scheme), "%.*s", (int)(len < sizeof(scheme) ? len : sizeof(scheme) - 1), text);
		if (len < sizeof(scheme) && mcri_in_list(scheme, SCHEMES)) {
			if (!sep[3] || isspace((unsigned char)sep[3]))
				return mcri_fail(v, at, "%s: '%s' names no host after '%s://'; write " FORMS, where,
						 text, scheme);
			return 0;
		}
		if (len < sizeof(scheme) && other_case(scheme, SCHEMES))
			return mcri_fail(
				v, at,
				"%s: '%s': " SETUP
				" knows the scheme only as '%s://' (another spelling makes it abort the whole process: Unable to find metadata storage plugin); write %s%s",
				where, text, other_case(scheme, SCHEMES), other_case(scheme, SCHEMES), sep);
		return mcri_fail(
			v, at,
			"%s: '%s' has a scheme " SETUP
			" has no metadata plugin for (it aborts the whole process: Unable to find metadata storage plugin); write " FORMS,
			where, text);
	}
	/* etcd endpoints, separated by ',' or ';', blanks around each ignored */
	for (const char *p = text, *q; *p; p = *q ? q + 1 : q) {
		const char *s, *t;

		q = p + strcspn(p, ",;");
		for (s = p; s < q && isspace((unsigned char)*s); s++)
			;
		for (t = q; t > s && isspace((unsigned char)t[-1]); t--)
			;
		if (s < t && !etcd_endpoint(s, t))
			return mcri_fail(
				v, at,
				"%s: '%s' is no metadata server " SETUP
				" can reach: text without '://' is a list of etcd endpoints, each <host>:<port>, and '%.*s' is not one; write " FORMS,
				where, text, (int)(t - s), s);
		if (!*q)
			break;
	}
	if (b == e)
		return mcri_fail(v, at,
				 "%s: '%s' is no metadata server: " SETUP
				 " then fails (no valid endpoints provided); write " FORMS,
				 where, text);
	return 0;
}

/* the value at `n` of `key` in a client config, from the map at `src` */
static int config_value(struct mcri_check *v, const struct mcri_node *n, const char *src, const char *key)
{
	const char *where;

	if (!n || (!mcri_is_str(n) && strcmp(key, "global_segment_size")))
		return 0; /* the engine's reader refuses another type (V3, C11) */
	if (!(where = mcri_keepf(v, "%s.%s", src ? src : "store_config", key)))
		return -1;
	if (!strcmp(key, "global_segment_size"))
		return segment_rule(v, n, n, NULL, where, "");
	if (!strcmp(key, "protocol"))
		return protocol_rule(v, n, where, n->s);
	/* TRT-LLM takes an empty metadata_server for P2PHANDSHAKE; vLLM's
	 * empty one is refused by V3 */
	return n->s[0] ? metadata_rule(v, n, where, n->s) : 0;
}

static int trtllm_rule(struct mcri_check *v)
{
	static const char *const KEYS[] = { "protocol", "metadata_server", "global_segment_size" };

	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		struct mcri_payload p;
		int rc = 0;

		if (!(v->r->connector_modes & MCRI_ROLE_BIT(role)))
			continue;
		if (mcri_trtllm_payload(v->r, (enum mcr_role)role, "<infra_ip>:8700", &p, v->err)) {
			mcri_payload_free(&p);
			return -1;
		}
		for (size_t k = 0; k < MCRI_ARRAY_LEN(KEYS) && !rc; k++) {
			const struct mcri_payload_entry *e = mcri_payload_get(&p, KEYS[k]);

			if (e && e->val)
				rc = config_value(v, e->val, e->src, KEYS[k]);
		}
		mcri_payload_free(&p);
		if (rc)
			return -1;
	}
	return 0;
}

static int sglang_rule(struct mcri_check *v)
{
	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		const char *where, *role_where;
		const struct mcri_node *n;

		if (!v->r->role_node[role])
			continue;
		if (!(role_where = mcri_keepf(v, "roles.%s.env", mcr_role_name((enum mcr_role)role))))
			return -1;
		n = mcri_role_env(v->r, (enum mcr_role)role, "MOONCAKE_PROTOCOL", &where, role_where);
		if (mcri_is_str(n) &&
		    (!(where = mcri_keepf(v, "%s.MOONCAKE_PROTOCOL", where)) || protocol_rule(v, n, where, n->s)))
			return -1;
		/* SGLang divides it among the tensor- and pipeline-parallel
		 * ranks of a worker: each rank's share is smaller still */
		n = mcri_role_env(v->r, (enum mcr_role)role, "MOONCAKE_GLOBAL_SEGMENT_SIZE", &where, role_where);
		if (mcri_is_str(n) && (!(where = mcri_keepf(v, "%s.MOONCAKE_GLOBAL_SEGMENT_SIZE", where)) ||
				       segment_rule(v, n, NULL, n->s, where,
						    " in all (SGLang gives each of a worker's ranks its share)")))
			return -1;
	}
	return 0;
}

int mcri_rules_transfer(struct mcri_check *v)
{
	const struct mcr_recipe *r = v->r;

	if (!r->has_master)
		return 0;
	switch (r->engine) {
	case MCR_ENGINE_VLLM:
		if (config_value(v, mcri_map_get(r->store_config, "protocol"), r->store_config_where, "protocol") ||
		    config_value(v, mcri_map_get(r->store_config, "global_segment_size"), r->store_config_where,
				 "global_segment_size"))
			return -1;
		return config_value(v, mcri_map_get(r->store_config, "metadata_server"), r->store_config_where,
				    "metadata_server");
	case MCR_ENGINE_TRTLLM:
		return trtllm_rule(v);
	case MCR_ENGINE_SGLANG:
		return sglang_rule(v);
	default:
		return 0;
	}
}
