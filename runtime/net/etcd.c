/*
 * etcd.c - what an HA pool's etcd holds, as its masters' keepers check it
 * (spank/steps/ha.c): Mooncake's masters and clients cannot authenticate
 * to etcd (no client certificate, no user: its etcd wrapper builds its
 * client from endpoints alone), so anyone who reaches the etcd's client
 * port can write its keys and change its membership. The keepers read,
 * through etcd's JSON gateway (v3, keys and values in base64):
 *   - every mooncake-store/<cluster>/master_view: the leader the clients
 *     follow, "ADDR:PORT"
 *   - the member list: each member's peer URLs
 *   - the alarms: NOSPACE once its backend quota is reached
 * and end the pool when etcd names what is none of the pool's own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "net/net.h"

#define VIEW_PREFIX "mooncake-store/"
#define VIEW_SUFFIX "/master_view"
#define ANSWER_MAX (64u << 10)

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_encode(const char *in, char *out)
{
	size_t n = strlen(in), o = 0;
	const unsigned char *s = (const unsigned char *)in;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v =
			(unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);

		out[o++] = B64[v >> 18 & 63];
		out[o++] = B64[v >> 12 & 63];
		out[o++] = i + 1 < n ? B64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? B64[v & 63] : '=';
	}
	out[o] = '\0';
}

/* `in` decoded into out (size bytes, NUL-terminated): 0, or -1 when it is
 * no base64 or does not fit */
static int b64_decode(const char *in, char *out, size_t size)
{
	unsigned v = 0;
	int bits = 0;
	size_t o = 0;

	for (; *in && *in != '='; in++) {
		const char *p = strchr(B64, *in);

		if (!p || !*in)
			return -1;
		v = v << 6 | (unsigned)(p - B64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o + 1 >= size)
				return -1;
			out[o++] = (char)(v >> bits & 0xff);
		}
	}
	out[o] = '\0';
	return 0;
}

/* POST `path` with `body` to the gateway: its answer's body (heap), or
 * NULL with err. An answer larger than ANSWER_MAX is an error: a pool's
 * etcd holds a few small keys, and what cannot be read whole cannot be
 * checked. */
static char *ask(const char *host, int port, const char *path, const char *body, int timeout_ms, struct mcr_error *err)
{
	char *text = NULL;
	int status;

	if (mcri_http_whole(host, port, "POST", path, body, timeout_ms, ANSWER_MAX, &status, &text, err))
		return NULL; /* errno as mcri_http_whole left it (EMSGSIZE: too large) */
	if (status == 200)
		return text;
	mcri_error_set(err, MCR_ESTATE, "etcd on %s:%d answered %d to %s", host, port, status, path);
	free(text);
	errno = EPROTO;
	return NULL;
}

/* The master_view keys of a keys-only range answer, decoded, at most
 * `max` (one more than a pool writes is said by the caller): 0, or -1 */
static int view_keys(const char *json, char (*keys)[512], int max, int *n)
{
	json_t *o = json_loads(json ? json : "", 0, NULL), *kv;
	size_t i;

	*n = 0;
	if (!json_is_object(o)) {
		json_decref(o);
		return -1;
	}
	json_array_foreach(json_object_get(o, "kvs"), i, kv)
	{
		const char *k = json_string_value(json_object_get(kv, "key"));
		size_t kl;

		if (*n == max)
			break;
		if (!k || b64_decode(k, keys[*n], sizeof(keys[0])) || (kl = strlen(keys[*n])) < strlen(VIEW_SUFFIX) ||
		    strcmp(keys[*n] + kl - strlen(VIEW_SUFFIX), VIEW_SUFFIX) != 0)
			continue;
		(*n)++;
	}
	json_decref(o);
	return 0;
}

int mcri_etcd_views_parse(const char *json, char (*views)[MCRI_ETCD_VALUE_MAX], int max, int *n)
{
	json_t *o = json_loads(json ? json : "", 0, NULL), *kvs, *kv;
	size_t i;

	*n = 0;
	if (!json_is_object(o)) {
		json_decref(o);
		return -1;
	}
	kvs = json_object_get(o, "kvs");
	json_array_foreach(kvs, i, kv)
	{
		char key[512];
		const char *k = json_string_value(json_object_get(kv, "key")),
			   *v = json_string_value(json_object_get(kv, "value"));
		size_t kl;

		if (!k || b64_decode(k, key, sizeof(key)) || (kl = strlen(key)) < strlen(VIEW_SUFFIX) ||
		    strcmp(key + kl - strlen(VIEW_SUFFIX), VIEW_SUFFIX) != 0)
			continue;
		if (*n == max)
			break;
		/* a value that is no base64, or too long, is named as it came */
		if (!v || b64_decode(v, views[*n], MCRI_ETCD_VALUE_MAX))
			snprintf(views[*n], MCRI_ETCD_VALUE_MAX, "%.60s", v ? v : "(none)");
		(*n)++;
	}
	json_decref(o);
	return 0;
}

int mcri_etcd_members_parse(const char *json, char (*peers)[MCRI_ETCD_VALUE_MAX], int max, int *n)
{
	json_t *o = json_loads(json ? json : "", 0, NULL), *members, *m, *urls, *u;
	size_t i, j;

	*n = 0;
	if (!json_is_object(o) || !json_is_array(members = json_object_get(o, "members"))) {
		json_decref(o);
		return -1;
	}
	json_array_foreach(members, i, m)
	{
		urls = json_object_get(m, "peerURLs");
		/* a member without a peer URL is one added that never came */
		if (!json_array_size(urls) && *n < max)
			snprintf(peers[(*n)++], MCRI_ETCD_VALUE_MAX, "(none)");
		json_array_foreach(urls, j, u)
		{
			if (*n == max)
				break;
			snprintf(peers[(*n)++], MCRI_ETCD_VALUE_MAX, "%s",
				 json_string_value(u) ? json_string_value(u) : "(none)");
		}
	}
	json_decref(o);
	return 0;
}

int mcri_etcd_read(const char *host, int port, int timeout_ms, struct mcri_etcd_view *v, struct mcr_error *err)
{
	char from[64], to[64], body[240], *text;
	char keys[MCRI_ETCD_LIST_MAX][512];
	json_t *o, *a;
	size_t i;
	int rc;

	memset(v, 0, sizeof(*v));
	/* the members first: a member added that never comes takes the quorum
	 * of a one-member etcd, and the list is this member's own word */
	if (!(text = ask(host, port, "/v3/cluster/member/list", "{}", timeout_ms, err)))
		return -1;
	rc = mcri_etcd_members_parse(text, v->peers, MCRI_ETCD_LIST_MAX, &v->npeers);
	free(text);
	if (rc)
		return mcri_error_set(err, MCR_ESTATE, "etcd on %s:%d: its members did not read", host, port);
	/* the views as this member holds them (serializable: no quorum
	 * needed, so an etcd without one is read all the same): the keys
	 * under mooncake-store/ first, without their values (another key's
	 * large value cannot blind the look), then each master_view's value */
	b64_encode(VIEW_PREFIX, from);
	b64_encode("mooncake-store0", to); /* the prefix's end: '/' + 1 */
	snprintf(body, sizeof(body),
		 "{\"key\": \"%s\", \"range_end\": \"%s\", \"serializable\": true, \"keys_only\": true}", from, to);
	if (!(text = ask(host, port, "/v3/kv/range", body, timeout_ms, err)))
		return -1; /* errno says why: EMSGSIZE, more than a pool writes */
	rc = view_keys(text, keys, MCRI_ETCD_LIST_MAX, &v->nviews);
	free(text);
	if (rc)
		return mcri_error_set(err, MCR_ESTATE, "etcd on %s:%d: its keys did not read", host, port);
	for (int k = 0; k < v->nviews; k++) {
		char key[sizeof(keys[0]) * 4 / 3 + 8], b[sizeof(key) + 64];
		int n;

		b64_encode(keys[k], key);
		snprintf(b, sizeof(b), "{\"key\": \"%s\", \"serializable\": true}", key);
		if (!(text = ask(host, port, "/v3/kv/range", b, timeout_ms, err)))
			return -1;
		rc = mcri_etcd_views_parse(text, &v->views[k], 1, &n);
		free(text);
		if (rc || n != 1) /* gone meanwhile: a view of none */
			snprintf(v->views[k], sizeof(v->views[k]), "(none)");
	}
	/* the alarms: NOSPACE, the backend quota reached */
	if ((text = ask(host, port, "/v3/maintenance/alarm", "{\"action\": \"GET\"}", timeout_ms, err))) {
		o = json_loads(text, 0, NULL);
		json_array_foreach(json_object_get(o, "alarms"), i, a)
		{
			const char *kind = json_string_value(json_object_get(a, "alarm"));

			v->nospace |= kind && strcmp(kind, "NOSPACE") == 0;
		}
		json_decref(o);
		free(text);
	}
	return 0;
}
