/*
 * pool.c - the job's pool now: what its master's /metrics and
 * /metrics/summary say, and which worker mounted each segment (the worker
 * records of the job's directory).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "net/net.h"
#include "pool/pool.h"

static long long count(double v)
{
	return isfinite(v) && v > 0 ? (long long)llround(v) : 0;
}

/* pool->seg by name: an index of its positions under a random key, so
 * that no set of names a client registers makes the lookups collide */
struct seg_lookup {
	struct mcri_pool *pool;
	const char *name;
};

static bool seg_named(const void *ctx, size_t pos)
{
	const struct seg_lookup *l = ctx;

	return strcmp(l->pool->seg[pos].name, l->name) == 0;
}

/* the segment `name` of pool (a new one at the end, seg grown by
 * doubling from *cap); NULL with err set */
static struct mcri_segment *segment(struct mcri_pool *pool, size_t *cap, struct mcri_index *ix, const char *name,
				    struct mcr_error *err)
{
	struct seg_lookup l = { pool, name };
	uint64_t h = mcri_hash(ix->key, name, strlen(name));
	size_t at = mcri_index_find(ix, h, seg_named, &l);
	struct mcri_segment *s;
	const char *colon;

	if (at != MCRI_NOT_FOUND)
		return &pool->seg[at];
	if (pool->nseg >= MCRI_POOL_SEGMENTS_MAX) {
		mcri_error_set(
			err, MCR_EINVAL,
			"the master's /metrics names more than %u segments: it is read no further; is what answers on the job's metrics port its mooncake_master?",
			MCRI_POOL_SEGMENTS_MAX);
		return NULL;
	}
	if (pool->nseg == *cap) {
		size_t grown = *cap ? 2 * *cap : 64;

		if (!(s = realloc(pool->seg, grown * sizeof(*s)))) {
			mcri_error_nomem(err);
			return NULL;
		}
		pool->seg = s;
		*cap = grown;
	}
	s = &pool->seg[pool->nseg];
	memset(s, 0, sizeof(*s));
	colon = strrchr(name, ':');
	s->name = strdup(name);
	s->address = strndup(name, colon ? (size_t)(colon - name) : strlen(name));
	if (!s->name || !s->address || mcri_index_add(ix, h, pool->nseg)) {
		free(s->name);
		free(s->address);
		mcri_error_nomem(err);
		return NULL;
	}
	pool->nseg++;
	return s;
}

int mcri_pool_from_prom(const struct mcri_prom *p, struct mcri_pool *pool, struct mcr_error *err)
{
	struct mcri_hashkey key;
	struct mcri_index ix = { .key = &key };
	size_t cap = pool->nseg;
	double v;
	int rc = 0;

	if (!mcri_prom_value(p, "master_total_capacity_bytes", &v))
		return mcri_error_set(
			err, MCR_EINVAL,
			"the master's /metrics has no master_total_capacity_bytes: is it a mooncake_master?");
	pool->capacity = count(v);
	pool->allocated = mcri_prom_value(p, "master_allocated_bytes", &v) ? count(v) : 0;
	pool->keys = mcri_prom_value(p, "master_key_count", &v) ? count(v) : 0;
	pool->clients = mcri_prom_value(p, "master_active_clients", &v) ? count(v) : 0;
	mcri_hashkey_init(&key);
	for (size_t i = 0; rc == 0 && i < pool->nseg; i++)
		if (mcri_index_add(&ix, mcri_hash(&key, pool->seg[i].name, strlen(pool->seg[i].name)), i))
			rc = mcri_error_nomem(err);
	for (size_t i = 0; rc == 0 && i < p->n; i++) {
		const struct mcri_prom_sample *s = &p->s[i];
		bool capacity = strcmp(s->name, "segment_total_capacity_bytes") == 0;
		const char *name;
		struct mcri_segment *seg;

		if (!capacity && strcmp(s->name, "segment_allocated_bytes") != 0)
			continue;
		if (!(name = mcri_prom_label(s, "segment")))
			continue;
		if (!(seg = segment(pool, &cap, &ix, name, err)))
			rc = -1;
		else if (capacity)
			seg->capacity = count(s->value);
		else
			seg->allocated = count(s->value);
	}
	mcri_index_free(&ix);
	return rc;
}

int mcri_pool_rates(const char *summary, struct mcri_pool *pool, struct mcr_error *err)
{
	static const char tag[] = "Requests (Success/Total per sec):";
	const char *p = strstr(summary, tag), *end;

	if (!p)
		return 0;
	p += sizeof(tag) - 1;
	end = strchr(p, '|');
	if (!end)
		end = p + strlen(p);
	while (p < end && pool->nrates < MCRI_POOL_RATES_MAX) {
		char name[64];
		double ok, total;
		int used = 0;
		struct mcri_rate *r;

		while (p < end && (*p == ' ' || *p == ','))
			p++;
		if (p >= end || sscanf(p, "%63[A-Za-z]=%lf/%lf%n", name, &ok, &total, &used) != 3)
			break;
		p += used;
		r = realloc(pool->rates, (pool->nrates + 1) * sizeof(*r));
		if (!r)
			return mcri_error_nomem(err);
		pool->rates = r;
		if (!(r[pool->nrates].name = strdup(name)))
			return mcri_error_nomem(err);
		r[pool->nrates++].per_s = isfinite(total) ? total : 0;
	}
	return 0;
}

/* add `role` to a "+"-joined set */
static int add_role(char **roles, const char *role)
{
	char *n;
	size_t len = strlen(role);

	if (*roles) {
		for (const char *p = *roles; (p = strstr(p, role)); p += len)
			if ((p == *roles || p[-1] == '+') && (p[len] == '+' || !p[len]))
				return 0;
		n = mcri_asprintf("%s+%s", *roles, role);
	} else {
		n = strdup(role);
	}
	if (!n)
		return -1;
	free(*roles);
	*roles = n;
	return 0;
}

#define MAX_WORKERS 65536 /* records read: a node per step of the job */

/* what the worker records say of one address: the node of the first,
 * the roles of all ("prefill+decode") */
struct place {
	const char *address, *node;
	char *roles;
};
struct place_lookup {
	const struct place *places;
	const char *address;
};

static bool place_at(const void *ctx, size_t pos)
{
	const struct place_lookup *l = ctx;

	return strcmp(l->places[pos].address, l->address) == 0;
}

/* each role of the "+"-joined `roles` added to *to */
static int add_roles(char **to, const char *roles)
{
	char role[sizeof(((struct mcri_worker *)0)->role)];

	if (!*to)
		return (*to = strdup(roles)) ? 0 : -1;
	for (const char *p = roles; *p; p += *p == '+') {
		size_t n = strcspn(p, "+");

		snprintf(role, sizeof(role), "%.*s", (int)n, p);
		if (add_role(to, role))
			return -1;
		p += n;
	}
	return 0;
}

int mcri_pool_join_workers(struct mcri_pool *pool, const struct mcri_jobdir *dir, struct mcr_error *err)
{
	struct mcri_hashkey key;
	struct mcri_index ix = { .key = &key };
	struct place *places = NULL;
	struct mcri_worker *w;
	size_t n, nplaces = 0;
	int rc = 0;

	if (mcri_workers_read(dir, MAX_WORKERS, &w, &n, err))
		return -1;
	mcri_hashkey_init(&key);
	/* the records by address (many tasks and steps share one), then
	 * each segment looked up once: linear in records and segments */
	if (n && !(places = calloc(n, sizeof(*places))))
		rc = mcri_error_nomem(err);
	for (size_t k = 0; rc == 0 && k < n; k++) {
		struct place_lookup l = { places, w[k].address };
		uint64_t h = mcri_hash(&key, w[k].address, strlen(w[k].address));
		size_t at = mcri_index_find(&ix, h, place_at, &l);

		if (at == MCRI_NOT_FOUND) {
			if (mcri_index_add(&ix, h, nplaces)) {
				rc = mcri_error_nomem(err);
				break;
			}
			at = nplaces++;
			places[at].address = w[k].address;
			places[at].node = w[k].node;
		}
		if (add_role(&places[at].roles, w[k].role))
			rc = mcri_error_nomem(err);
	}
	for (size_t i = 0; rc == 0 && i < pool->nseg; i++) {
		struct mcri_segment *s = &pool->seg[i];
		/* a lender's record names its segment; a worker's its address */
		struct place_lookup l = { places, s->name };
		size_t at = mcri_index_find(&ix, mcri_hash(&key, s->name, strlen(s->name)), place_at, &l);

		if (at == MCRI_NOT_FOUND) {
			l.address = s->address;
			at = mcri_index_find(&ix, mcri_hash(&key, s->address, strlen(s->address)), place_at, &l);
		}
		if (at == MCRI_NOT_FOUND)
			continue;
		if (!s->node && !(s->node = strdup(places[at].node)))
			rc = mcri_error_nomem(err);
		if (rc == 0 && add_roles(&s->role, places[at].roles))
			rc = mcri_error_nomem(err);
	}
	for (size_t k = 0; k < nplaces; k++)
		free(places[k].roles);
	free(places);
	mcri_index_free(&ix);
	free(w);
	return rc;
}

int mcri_pool_fetch(struct mcri_pool *pool, int timeout_ms, struct mcr_error *err)
{
	const struct mcri_state *m = &pool->master;
	const char *addr = m->infra_addr;
	struct mcri_prom prom;
	char *body = NULL;
	int status, rc;

	if (m->ha.masters) {
		int answering, refusing;

		pool->leader = mcri_ha_leader(m, timeout_ms, pool->health, pool->answered, &answering, &refusing);
		if (pool->leader < 0)
			return mcri_error_set(
				err, MCR_ESTATE,
				"no master of the job's HA pool leads and serves now (on %s and %d more): they may be choosing a leader; ask again in a few seconds",
				m->infra_node, m->ha.masters - 1);
		addr = m->ha.member[pool->leader].addr;
	}
	if (mcri_http_get(addr, m->ports.metrics, "/metrics", timeout_ms, MCRI_METRICS_MAX, &status, &body, err)) {
		char why[512];

		snprintf(why, sizeof(why), "%.500s", err->text);
		return mcri_error_set(err, MCR_ESTATE, "GET http://%s:%d/metrics: %s", addr, m->ports.metrics, why);
	}
	if (status != 200) {
		free(body);
		return mcri_error_set(err, MCR_ESTATE, "GET http://%s:%d/metrics answered %d", addr, m->ports.metrics,
				      status);
	}
	rc = mcri_prom_parse(body, &prom, err);
	free(body);
	if (rc)
		return -1;
	rc = mcri_pool_from_prom(&prom, pool, err);
	mcri_prom_free(&prom);
	if (rc)
		return -1;
	/* the rates are a bonus: a master without them is still the pool */
	if (mcri_http_get(addr, m->ports.metrics, "/metrics/summary", timeout_ms, MCRI_METRICS_MAX, &status, &body,
			  err) == 0) {
		rc = status == 200 ? mcri_pool_rates(body, pool, err) : 0;
		free(body);
	}
	return rc;
}

void mcri_segments_free(struct mcri_segment *seg, size_t nseg)
{
	for (size_t i = 0; i < nseg; i++) {
		free(seg[i].name);
		free(seg[i].address);
		free(seg[i].node);
		free(seg[i].role);
	}
	free(seg);
}

void mcri_pool_free(struct mcri_pool *pool)
{
	mcri_segments_free(pool->seg, pool->nseg);
	for (size_t i = 0; i < pool->nrates; i++)
		free(pool->rates[i].name);
	free(pool->rates);
	pool->seg = NULL;
	pool->rates = NULL;
	pool->nseg = pool->nrates = 0;
}

void mcri_human_bytes(long long bytes, char *buf, size_t size)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%lld B", bytes);
	else
		snprintf(buf, size, "%.1f %s", v, unit[u]);
}

double mcri_pool_uptime(const struct mcri_pool *pool, double now)
{
	double since = (double)pool->master.ready_at;

	/* a master the master step started again is up since it was proved */
	if (pool->keeper.restarts && pool->keeper.proved_at > since)
		since = pool->keeper.proved_at;
	return since > 0 && now > since ? now - since : 0;
}
