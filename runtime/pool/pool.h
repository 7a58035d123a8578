/*
 * pool.h - the job's pool as the master's admin port tells it (spec
 * mooncake.md §1.6): its Prometheus text (/metrics) read into numbers, the
 * segments joined to the workers that mounted them, the samples the
 * sampler step takes, and the report and picture written when the job
 * ends. Private to the runtime (runtime/README.md); mooncake-recipe
 * (status, sample) uses it.
 */
#ifndef MCRI_POOL_H_
#define MCRI_POOL_H_

#include <stdbool.h>
#include <stddef.h>

#include "jobdir/jobdir.h" /* the state file, the worker records */
#include "net/net.h"       /* what a master says of itself */

/* ---- Prometheus text format 0.0.4 (prom.c) ------------------------- */

/* What the pool's readers take of what answers on the master's metrics
 * port (the master, or whoever listens there after it ended): time and
 * memory stay linear in it, and bounded.
 *   MCRI_METRICS_MAX        bytes of one answer (/metrics, /metrics/summary)
 *   MCRI_PROM_SAMPLES_MAX   samples of one /metrics page
 *   MCRI_PROM_LABELS_MAX    labels (name="value" pairs) of all its samples
 *   MCRI_POOL_SEGMENTS_MAX  distinct segments of one page, and of the
 *                           report (every segment seen during the job)
 *   MCRI_POOL_RATES_MAX     request rates of one /metrics/summary
 * A master's page holds about 150 samples and two more (one label each)
 * per segment: 65536 segments fit, in about 8 MiB. */
#define MCRI_METRICS_MAX (16u << 20)
#define MCRI_PROM_SAMPLES_MAX 262144u
#define MCRI_PROM_LABELS_MAX 524288u
#define MCRI_POOL_SEGMENTS_MAX 65536u
#define MCRI_POOL_RATES_MAX 64u

struct mcri_prom_sample {
	char *name;     /* metric name, e.g. "segment_allocated_bytes" */
	char **labels;  /* name, value, name, value, ..., NULL */
	size_t nlabels; /* pairs in labels */
	double value;   /* +Inf, -Inf and NaN as C's */
};
/* A page: its names and labels point into `text`, its copy. */
struct mcri_prom {
	struct mcri_prom_sample *s;
	size_t n, cap;
	char *text;               /* the page, each name and label cut out in place */
	char **label;             /* every sample's labels, one list after another */
	size_t nlabel, label_cap; /* entries of label (pairs and NULLs), room */
	size_t nlabels;           /* label pairs of all samples */
};

/* Every sample line of `text` (comments, blank lines and timestamps
 * skipped; so is a sample with a label value that is not UTF-8 or holds a
 * control character, which any client may register as a segment's name).
 * MCR_EINVAL naming the line (its control characters as '?') for a line
 * that is not a sample, and for a page of more than MCRI_PROM_SAMPLES_MAX
 * samples or MCRI_PROM_LABELS_MAX labels; MCR_EIO for memory; `out` is
 * empty on failure. Time and memory linear in the text's length (about
 * twice it, and 32 bytes a sample). */
int mcri_prom_parse(const char *text, struct mcri_prom *out, struct mcr_error *err);
void mcri_prom_free(struct mcri_prom *p);
/* Value of label `label` of a sample, or NULL. */
const char *mcri_prom_label(const struct mcri_prom_sample *s, const char *label);
/* The value of the first sample named `name`; false when there is none. */
bool mcri_prom_value(const struct mcri_prom *p, const char *name, double *v);

/* ---- the pool now (pool.c) ----------------------------------------- */

struct mcri_segment {
	char *name;    /* the master's segment name: "<client address>:<port>" */
	char *address; /* the host part of the name */
	char *node;    /* the worker's node (<dir>/workers/), or NULL */
	char *role;    /* its role(s), "prefill" or "prefill+decode", or NULL */
	long long capacity, allocated;
	long long peak_allocated; /* report: the most seen during the job */
};

struct mcri_rate {
	char *name;   /* the master's name, e.g. "PutStart", "Get" */
	double per_s; /* total requests per second */
};

struct mcri_pool {
	struct mcri_state master; /* where the master is: the job's state file */
	struct mcri_proof keeper; /* its master step's restarts (the proof; zero when none) */
	long long capacity, allocated, keys, clients;
	struct mcri_segment *seg;
	size_t nseg;
	struct mcri_rate *rates; /* /metrics/summary, when it answered */
	size_t nrates;
	/* an HA pool (master.ha.masters): what each master said of itself
	 * (answered[k]: it did), and the one that leads and was asked (-1:
	 * none serves) */
	struct mcri_master_health health[MCRI_HA_MAX];
	bool answered[MCRI_HA_MAX];
	int leader;
};

/* The numbers of a /metrics text (master_total_capacity_bytes,
 * master_allocated_bytes, master_key_count, master_active_clients and the
 * segment_* gauges) into pool; the master part is left alone. */
int mcri_pool_from_prom(const struct mcri_prom *p, struct mcri_pool *pool, struct mcr_error *err);
/* The request rates of a /metrics/summary text ("Requests (Success/Total
 * per sec): PutStart=1.57/1.57, ..."); nothing when it has none. */
int mcri_pool_rates(const char *summary, struct mcri_pool *pool, struct mcr_error *err);
/* Node and role of each segment, from the worker records of the job's
 * directory (mcri_workers_read), joined by address. */
int mcri_pool_join_workers(struct mcri_pool *pool, const struct mcri_jobdir *dir, struct mcr_error *err);
/* Ask the master of pool->master (GET /metrics, /metrics/summary) within
 * timeout_ms each; MCR_ESTATE when it does not answer. An HA pool's
 * masters are each asked who leads (GET /health), and its serving leader
 * is the one asked; MCR_ESTATE when none serves. */
int mcri_pool_fetch(struct mcri_pool *pool, int timeout_ms, struct mcr_error *err);
/* Seconds the pool's running master has been up at `now` (Unix
 * seconds): since it was ready, or proved again after a restart; 0
 * unknown. */
double mcri_pool_uptime(const struct mcri_pool *pool, double now);
/* Free nseg segments, their strings and the array itself (seg may be NULL). */
void mcri_segments_free(struct mcri_segment *seg, size_t nseg);
void mcri_pool_free(struct mcri_pool *pool);

/* ---- samples, the report and its picture (report.c, svg.c) --------- */

struct mcri_sample {
	double t; /* Unix time, seconds */
	long long capacity, allocated, keys, clients;
};

#define MCRI_FAILOVERS_KEPT 16
struct mcri_report {
	char job_id[32];
	struct mcri_pool last;       /* the pool at its last sample */
	struct mcri_segment *seg;    /* every segment seen, with its peak */
	size_t nseg, seg_cap;        /* at most MCRI_POOL_SEGMENTS_MAX */
	size_t seg_unkept;           /* segments seen once seg was full */
	struct mcri_hashkey seg_key; /* seg by name (set at the first segment) */
	struct mcri_index seg_index;
	struct mcri_sample *samples;
	size_t nsamples, cap;
	double ended_at;
	char ended_by[64]; /* "SIGTERM", "the master stopped answering" */
	/* an HA pool: the node of the leader at the last sample, and each
	 * change of leader seen (a higher view; the last MCRI_FAILOVERS_KEPT) */
	char leader[256];
	long long view; /* its view_version (-1 unknown) */
	struct mcri_failover {
		double at; /* the first sample with the new leader */
		char from[256], to[256];
	} failover[MCRI_FAILOVERS_KEPT];
	size_t nfailover, failovers;
};

/* status --json: one JSON object (heap; NULL out of memory). */
char *mcri_pool_json(const struct mcri_pool *pool, const char *job_id, double now);
/* One line of mooncake_pool_samples.jsonl, with its newline (heap). */
char *mcri_sample_line(const struct mcri_sample *s);
/* The samples of a .jsonl text, appended to r (lines that do not parse,
 * such as a last line cut by a kill, are skipped). */
int mcri_samples_parse(const char *text, struct mcri_report *r, struct mcr_error *err);
int mcri_report_add_sample(struct mcri_report *r, const struct mcri_sample *s, struct mcr_error *err);
/* Remember the segments of `pool` (peaks) and keep it as r->last; an HA
 * pool's leader, and a change of it as a failover at r's last sample.
 * Of MCRI_POOL_SEGMENTS_MAX segments and more, the report keeps the first
 * and counts the others (seg_unkept). Time linear in pool's segments. */
int mcri_report_note_pool(struct mcri_report *r, const struct mcri_pool *pool, struct mcr_error *err);
/* mooncake_pool_report.json (heap). */
char *mcri_report_json(const struct mcri_report *r);
/* mooncake_pool.svg (heap): capacity, allocated bytes and keys over time. */
char *mcri_report_svg(const struct mcri_report *r);
void mcri_report_free(struct mcri_report *r);

/* "64.0 MiB", "3 B": bytes for people */
void mcri_human_bytes(long long bytes, char *buf, size_t size);

#endif /* MCRI_POOL_H_ */
