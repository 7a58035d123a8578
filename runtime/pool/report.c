/*
 * report.c - the pool as JSON: status --json, one line per sample
 * (mooncake_pool_samples.jsonl, appended while the job runs) and the
 * report written when it ends (mooncake_pool_report.json). jansson builds
 * and reads the text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pool/pool.h"

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

/* a JSON string, or null for NULL */
static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* obj[key] = v; false when out of memory (v is consumed) */
static bool set(json_t *obj, const char *key, json_t *v)
{
	return v && json_object_set_new(obj, key, v) == 0;
}

static json_t *segment_json(const struct mcri_segment *s, bool peak)
{
	json_t *o = json_object();
	bool ok = o && set(o, "node", str_or_null(s->node)) && set(o, "role", str_or_null(s->role)) &&
		  set(o, "name", json_string(s->name)) && set(o, "address", json_string(s->address)) &&
		  set(o, "capacity_bytes", json_integer(s->capacity)) &&
		  set(o, "allocated_bytes", json_integer(s->allocated)) &&
		  (!peak || set(o, "peak_allocated_bytes", json_integer(s->peak_allocated)));

	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* the keys the pool held at the last sample before `at` (-1: none) */
static long long keys_before(const struct mcri_report *r, double at)
{
	long long keys = -1;

	for (size_t i = 0; r && i < r->nsamples && r->samples[i].t < at; i++)
		keys = r->samples[i].keys;
	return keys;
}

/* the master step's restarts of the master (restart=) into `master`; with
 * the report's samples, the keys each restart lost */
static bool restart_fields(json_t *master, const struct mcri_proof *p, const struct mcri_report *r)
{
	json_t *events;

	if (!set(master, "restart_limit", json_integer(p->restart_limit)) ||
	    !set(master, "restarts", json_integer(p->restarts)) ||
	    !set(master, "restarting", json_boolean(p->restarting)) || !set(master, "restart", events = json_array()))
		return false;
	for (size_t i = 0; i < mcri_proof_kept(p); i++) {
		long long lost = keys_before(r, p->restart[i].at);
		json_t *e = json_object();

		if (!e || json_array_append_new(events, e) != 0 ||
		    !set(e, "at", json_real(round(p->restart[i].at * 1000) / 1000)) ||
		    !set(e, "cause", json_string(p->restart[i].cause)) ||
		    (r && !set(e, "keys_lost", lost < 0 ? json_null() : json_integer(lost))))
			return false;
	}
	return true;
}

/* an HA pool: each master's role as it said it, and with the report's
 * samples each change of leader */
static bool ha_fields(json_t *o, const struct mcri_pool *pool, const struct mcri_report *r)
{
	const struct mcri_ha *ha = &pool->master.ha;
	json_t *h = json_object(), *masters, *changes;

	if (!set(o, "ha", h) || !set(h, "etcd_members", json_integer(ha->etcd_members)) ||
	    !set(h, "etcd_client_port", json_integer(ha->etcd_client)) ||
	    !set(h, "leader",
		 pool->leader >= 0 && pool->leader < ha->masters && pool->answered[pool->leader]
			 ? json_string(ha->member[pool->leader].node)
			 : json_null()) ||
	    !set(h, "masters", masters = json_array()))
		return false;
	for (int k = 0; k < ha->masters; k++) {
		const struct mcri_master_health *w = &pool->health[k];
		json_t *m = json_object();

		if (!m || json_array_append_new(masters, m) != 0 || !set(m, "node", json_string(ha->member[k].node)) ||
		    !set(m, "address", json_string(ha->member[k].addr)) ||
		    !set(m, "role",
			 json_string(!pool->answered[k]               ? "no answer"
				     : w->role == MCRI_MASTER_LEADER  ? "leader"
				     : w->role == MCRI_MASTER_STANDBY ? "standby"
								      : "unknown")))
			return false;
	}
	if (!r)
		return true;
	if (!set(h, "failovers", json_integer((json_int_t)r->failovers)) || !set(h, "failover", changes = json_array()))
		return false;
	for (size_t i = 0; i < r->nfailover; i++) {
		json_t *e = json_object();

		if (!e || json_array_append_new(changes, e) != 0 ||
		    !set(e, "at", json_real(round(r->failover[i].at * 1000) / 1000)) ||
		    !set(e, "from", json_string(r->failover[i].from)) || !set(e, "to", json_string(r->failover[i].to)))
			return false;
	}
	return true;
}

/* the fields status --json and the report share (each container is
 * attached to `o` before it is filled: `o` owns everything); `r`: the
 * report's, NULL for status */
static bool pool_fields(json_t *o, const struct mcri_pool *pool, const struct mcri_report *r, double now)
{
	const struct mcri_state *m = &pool->master;
	json_t *master = json_object(), *rates;
	json_int_t up = (json_int_t)mcri_pool_uptime(pool, now);

	if (!set(o, "master", master) || !set(master, "node", json_string(m->infra_node)) ||
	    !set(master, "address", json_string(m->infra_addr)) ||
	    !set(master, "rpc_port", json_integer(m->ports.rpc)) ||
	    !set(master, "metadata_port", json_integer(m->ports.metadata)) ||
	    !set(master, "metrics_port", json_integer(m->ports.metrics)) ||
	    !set(master, "state", json_string(mcri_phase_name(m->phase))) ||
	    !set(master, "ready_at", json_integer(m->ready_at)) || !set(master, "uptime_seconds", json_integer(up)) ||
	    !restart_fields(master, &pool->keeper, r) || (m->ha.masters && !ha_fields(o, pool, r)) ||
	    !set(o, "capacity_bytes", json_integer(pool->capacity)) ||
	    !set(o, "allocated_bytes", json_integer(pool->allocated)) || !set(o, "keys", json_integer(pool->keys)) ||
	    !set(o, "clients", json_integer(pool->clients)) || !set(o, "requests_per_second", rates = json_object()))
		return false;
	for (size_t i = 0; i < pool->nrates; i++)
		if (!set(rates, pool->rates[i].name, json_real(pool->rates[i].per_s)))
			return false;
	/* the segments go in as dump_pool writes the text */
	return set(o, "segments", json_array());
}

static char *dump(json_t *o, size_t flags)
{
	char *text = o ? json_dumps(o, flags) : NULL;

	json_decref(o);
	return text;
}

/* o as text (DUMP_FLAGS), its empty "segments" filled with seg: each
 * segment made and written in turn, as jansson would have written the
 * whole array, so that 65536 segments cost their text and not a tree of
 * 65536 objects (about 1 KiB each). o is consumed. */
static char *dump_pool(json_t *o, const struct mcri_segment *seg, size_t nseg, bool peak)
{
	static const char slot[] = "\n  \"segments\": []";
	char *text = dump(o, DUMP_FLAGS), *at, *item;
	struct mcri_buf b = { 0 };

	/* a string holds no line break: only the key of o itself matches */
	if (!text || !nseg || !(at = strstr(text, slot)))
		return text;
	at += sizeof(slot) - 3;
	mcri_buf_add(&b, text, (size_t)(at - text));
	mcri_buf_puts(&b, "[\n    ");
	for (size_t i = 0; i < nseg; i++) {
		if (!(item = dump(segment_json(&seg[i], peak), DUMP_FLAGS))) {
			b.oom = true;
			break;
		}
		for (const char *p = item, *nl; *p; p = nl + 1) {
			if (!(nl = strchr(p, '\n'))) {
				mcri_buf_puts(&b, p);
				break;
			}
			mcri_buf_add(&b, p, (size_t)(nl - p));
			mcri_buf_puts(&b, "\n    ");
		}
		free(item);
		mcri_buf_puts(&b, i + 1 < nseg ? ",\n    " : "\n  ]");
	}
	mcri_buf_puts(&b, at + 2);
	free(text);
	return mcri_buf_take(&b); /* NULL when memory ran out */
}

char *mcri_pool_json(const struct mcri_pool *pool, const char *job_id, double now)
{
	json_t *o = json_object();

	if (!o || !set(o, "job_id", str_or_null(job_id)) || !pool_fields(o, pool, NULL, now)) {
		json_decref(o);
		return NULL;
	}
	return dump_pool(o, pool->seg, pool->nseg, false);
}

static json_t *sample_json(const struct mcri_sample *s)
{
	json_t *o = json_object();

	if (!o || !set(o, "time", json_real(round(s->t * 1000) / 1000)) ||
	    !set(o, "capacity_bytes", json_integer(s->capacity)) ||
	    !set(o, "allocated_bytes", json_integer(s->allocated)) || !set(o, "keys", json_integer(s->keys)) ||
	    !set(o, "clients", json_integer(s->clients))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

char *mcri_sample_line(const struct mcri_sample *s)
{
	char *text = dump(sample_json(s), JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	char *line = text ? mcri_asprintf("%s\n", text) : NULL;

	free(text);
	return line;
}

int mcri_report_add_sample(struct mcri_report *r, const struct mcri_sample *s, struct mcr_error *err)
{
	if (r->nsamples == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct mcri_sample *n = realloc(r->samples, cap * sizeof(*n));

		if (!n)
			return mcri_error_nomem(err);
		r->samples = n;
		r->cap = cap;
	}
	r->samples[r->nsamples++] = *s;
	return 0;
}

static long long int_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : 0;
}

int mcri_samples_parse(const char *text, struct mcri_report *r, struct mcr_error *err)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		json_t *o = json_loadb(p, len, 0, NULL);
		json_t *t = json_object_get(o, "time");

		if (json_is_number(t)) {
			struct mcri_sample s = {
				.t = json_number_value(t),
				.capacity = int_of(o, "capacity_bytes"),
				.allocated = int_of(o, "allocated_bytes"),
				.keys = int_of(o, "keys"),
				.clients = int_of(o, "clients"),
			};

			if (mcri_report_add_sample(r, &s, err)) {
				json_decref(o);
				return -1;
			}
		}
		json_decref(o);
		p = nl ? nl + 1 : p + len;
	}
	return 0;
}

static int dup_into(char **dst, const char *src)
{
	char *n = src ? strdup(src) : NULL;

	if (src && !n)
		return -1;
	free(*dst);
	*dst = n;
	return 0;
}

static int copy_pool(struct mcri_pool *dst, const struct mcri_pool *src)
{
	mcri_pool_free(dst);
	*dst = *src;
	dst->seg = calloc(src->nseg ? src->nseg : 1, sizeof(*dst->seg));
	dst->rates = calloc(src->nrates ? src->nrates : 1, sizeof(*dst->rates));
	dst->nseg = dst->nrates = 0;
	if (!dst->seg || !dst->rates)
		return -1;
	for (size_t i = 0; i < src->nseg; i++, dst->nseg++) {
		struct mcri_segment *d = &dst->seg[i];

		*d = src->seg[i];
		d->name = d->address = d->node = d->role = NULL;
		if (dup_into(&d->name, src->seg[i].name) || dup_into(&d->address, src->seg[i].address) ||
		    dup_into(&d->node, src->seg[i].node) || dup_into(&d->role, src->seg[i].role)) {
			dst->nseg++;
			return -1;
		}
	}
	for (size_t i = 0; i < src->nrates; i++, dst->nrates++) {
		dst->rates[i].per_s = src->rates[i].per_s;
		if (!(dst->rates[i].name = strdup(src->rates[i].name)))
			return -1;
	}
	return 0;
}

/* an HA pool's leader at this sample: a new one is a failover */
static void note_leader(struct mcri_report *r, const struct mcri_pool *pool)
{
	const struct mcri_ha *ha = &pool->master.ha;
	const char *node;
	struct mcri_failover *f;
	long long view;

	if (!ha->masters || pool->leader < 0 || pool->leader >= ha->masters)
		return;
	node = ha->member[pool->leader].node;
	view = pool->health[pool->leader].view;
	/* each new leader's view is higher (a master started again on the
	 * same node may lead again); without views, another node */
	if (r->leader[0] && (view >= 0 && r->view >= 0 ? view > r->view : strcmp(r->leader, node) != 0)) {
		if (r->nfailover == MCRI_FAILOVERS_KEPT) /* the oldest goes */
			memmove(r->failover, r->failover + 1, sizeof(r->failover) - sizeof(r->failover[0]));
		else
			r->nfailover++;
		f = &r->failover[r->nfailover - 1];
		f->at = r->nsamples ? r->samples[r->nsamples - 1].t : 0;
		snprintf(f->from, sizeof(f->from), "%s", r->leader);
		snprintf(f->to, sizeof(f->to), "%s", node);
		r->failovers++;
	}
	snprintf(r->leader, sizeof(r->leader), "%s", node);
	r->view = view;
}

/* r->seg by name */
struct seg_lookup {
	const struct mcri_report *r;
	const char *name;
};

static bool seg_named(const void *ctx, size_t pos)
{
	const struct seg_lookup *l = ctx;

	return strcmp(l->r->seg[pos].name, l->name) == 0;
}

/* the report's segment `name`: a new one (zero) at the end, NULL when
 * the report holds MCRI_POOL_SEGMENTS_MAX (*full) or memory ran out */
static struct mcri_segment *report_segment(struct mcri_report *r, const char *name, bool *full)
{
	struct seg_lookup l = { r, name };
	uint64_t h;
	size_t at;
	char *copy;

	if (!r->seg_index.key) {
		mcri_hashkey_init(&r->seg_key);
		r->seg_index.key = &r->seg_key;
	}
	h = mcri_hash(r->seg_index.key, name, strlen(name));
	if ((at = mcri_index_find(&r->seg_index, h, seg_named, &l)) != MCRI_NOT_FOUND)
		return &r->seg[at];
	if (r->nseg >= MCRI_POOL_SEGMENTS_MAX) {
		*full = true;
		return NULL;
	}
	if (r->nseg == r->seg_cap) {
		size_t cap = r->seg_cap ? 2 * r->seg_cap : 64;
		struct mcri_segment *grown = realloc(r->seg, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		r->seg = grown;
		r->seg_cap = cap;
	}
	if (!(copy = strdup(name)))
		return NULL;
	if (mcri_index_add(&r->seg_index, h, r->nseg)) {
		free(copy);
		return NULL;
	}
	memset(&r->seg[r->nseg], 0, sizeof(r->seg[0]));
	r->seg[r->nseg].name = copy;
	return &r->seg[r->nseg++];
}

int mcri_report_note_pool(struct mcri_report *r, const struct mcri_pool *pool, struct mcr_error *err)
{
	note_leader(r, pool);
	for (size_t i = 0; i < pool->nseg; i++) {
		const struct mcri_segment *s = &pool->seg[i];
		bool full = false;
		struct mcri_segment *d = report_segment(r, s->name, &full);

		if (!d && full) {
			r->seg_unkept++;
			continue;
		}
		if (!d || dup_into(&d->address, s->address) || (s->node && dup_into(&d->node, s->node)) ||
		    (s->role && dup_into(&d->role, s->role)))
			return mcri_error_nomem(err);
		d->capacity = s->capacity;
		d->allocated = s->allocated;
		if (s->allocated > d->peak_allocated)
			d->peak_allocated = s->allocated;
	}
	return copy_pool(&r->last, pool) ? mcri_error_nomem(err) : 0;
}

char *mcri_report_json(const struct mcri_report *r)
{
	json_t *o = json_object(), *samples;
	long long peak = 0, peak_keys = 0, peak_clients = 0;
	double interval = 0;

	for (size_t i = 0; i < r->nsamples; i++) {
		const struct mcri_sample *s = &r->samples[i];

		peak = s->allocated > peak ? s->allocated : peak;
		peak_keys = s->keys > peak_keys ? s->keys : peak_keys;
		peak_clients = s->clients > peak_clients ? s->clients : peak_clients;
	}
	if (r->nsamples > 1)
		interval = (r->samples[r->nsamples - 1].t - r->samples[0].t) / (double)(r->nsamples - 1);
	if (!o || !set(o, "job_id", json_string(r->job_id)) || !pool_fields(o, &r->last, r, r->ended_at) ||
	    !set(o, "peak_allocated_bytes", json_integer(peak)) || !set(o, "peak_keys", json_integer(peak_keys)) ||
	    !set(o, "peak_clients", json_integer(peak_clients)) ||
	    !set(o, "segments_not_kept", json_integer((json_int_t)r->seg_unkept)) ||
	    !set(o, "interval_seconds", json_real(round(interval * 1000) / 1000)) ||
	    !set(o, "ended_at", json_real(round(r->ended_at * 1000) / 1000)) ||
	    !set(o, "ended_by", json_string(r->ended_by)) || !set(o, "samples", samples = json_array()))
		goto fail;
	for (size_t i = 0; i < r->nsamples; i++) {
		json_t *s = sample_json(&r->samples[i]);

		if (!s || json_array_append_new(samples, s) != 0)
			goto fail;
	}
	return dump_pool(o, r->seg, r->nseg, true);
fail:
	json_decref(o);
	return NULL;
}

void mcri_report_free(struct mcri_report *r)
{
	mcri_segments_free(r->seg, r->nseg);
	mcri_index_free(&r->seg_index);
	free(r->samples);
	mcri_pool_free(&r->last);
	memset(r, 0, sizeof(*r));
}
