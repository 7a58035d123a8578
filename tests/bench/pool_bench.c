/*
 * pool_bench.c - what the pool's metrics reader costs (make bench): a
 * /metrics page read as status and the sampler read it (runtime/pool:
 * parsed, made a pool, written as status --json, noted in the report),
 * each measurement in a process of its own, so that its peak memory is
 * its own:
 *   - pages of 64 to 65536 segments (MCRI_POOL_SEGMENTS_MAX), each
 *     segment two samples as the master writes them, after the 145
 *     samples of a real master's page: the time per segment must stay
 *     flat (ratios near 1), the memory above the page linear in it;
 *   - the largest page the reader takes: MCRI_METRICS_MAX bytes, 65536
 *     segments, MCRI_PROM_SAMPLES_MAX samples, MCRI_PROM_LABELS_MAX labels;
 *   - MCRI_METRICS_MAX bytes of the shortest samples ("a 1"), which the
 *     reader refuses at MCRI_PROM_SAMPLES_MAX.
 *
 *   pool_bench FIXTURE   (tests/unit/fixtures/metrics_0.3.13.post1.txt)
 *   pool_bench FIXTURE --write FILE   the largest page into FILE (a seed
 *                                     of make fuzz's pool target)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pool/pool.h"

static const char *fixture;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* KiB of this process's VmRSS or VmHWM */
static long status_kib(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0)
			v = atol(line + strlen(key) + 1);
	if (f)
		fclose(f);
	return v;
}

static void die(const char *what)
{
	fprintf(stderr, "pool_bench: %s\n", what);
	exit(1);
}

/* the page: the real master's (one segment), then more, `segments` in
 * all; or with
 * `full`, padded to the reader's every limit; or `shortest`: "a 1" lines */
static char *page(size_t segments, bool full, bool shortest)
{
	struct mcri_buf b = { 0 };
	FILE *f;
	char buf[65536];
	size_t n, samples = 0;

	if (shortest) {
		while (b.len + 4 <= MCRI_METRICS_MAX)
			mcri_buf_add(&b, "a 1\n", 4);
		return mcri_buf_take(&b);
	}
	if (!(f = fopen(fixture, "r")))
		die(fixture);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		mcri_buf_add(&b, buf, n);
	fclose(f);
	samples = 145;
	for (size_t i = 1; i < segments; i++, samples += 2)
		mcri_buf_printf(&b,
				"segment_allocated_bytes{segment=\"10.%zu.%zu.%zu:%zu\"} 1048576\n"
				"segment_total_capacity_bytes{segment=\"10.%zu.%zu.%zu:%zu\"} 17179869184\n",
				i >> 16, (i >> 8) & 255, i & 255, 12000 + i, i >> 16, (i >> 8) & 255, i & 255,
				12000 + i);
	if (full) {
		/* every sample left with as many labels as remain, its values
		 * long enough to reach the byte limit */
		size_t left = MCRI_PROM_SAMPLES_MAX - samples, used = 0;
		size_t labels;

		for (const char *q = b.p; (q = strstr(q, "=\"")); q += 2)
			used++;
		labels = (MCRI_PROM_LABELS_MAX - used) / left;
		size_t per = (MCRI_METRICS_MAX - b.len - 4096) / left;
		size_t value = (per - 8 - labels * 6) / (labels ? labels : 1);
		char *v = malloc(value + 1);

		if (!v)
			die("out of memory");
		memset(v, 'v', value);
		v[value] = '\0';
		for (size_t i = 0; i < left; i++) {
			mcri_buf_puts(&b, "x{");
			for (size_t k = 0; k < labels; k++)
				mcri_buf_printf(&b, "%sl%zu=\"%s\"", k ? "," : "", k, v);
			mcri_buf_puts(&b, "} 1\n");
		}
		free(v);
	}
	return mcri_buf_take(&b);
}

/* one read of the page as status and the sampler read it; false when
 * the reader refused it */
static bool read_page(const char *text)
{
	struct mcri_prom p;
	struct mcri_pool pool = { 0 };
	struct mcri_report r = { 0 };
	struct mcr_error err = { 0 };
	char *json;

	if (mcri_prom_parse(text, &p, &err))
		return false;
	if (mcri_pool_from_prom(&p, &pool, &err))
		die(err.text);
	mcri_prom_free(&p);
	if (!(json = mcri_pool_json(&pool, "1", 0)))
		die("status --json: out of memory");
	free(json);
	if (mcri_report_note_pool(&r, &pool, &err) || mcri_report_note_pool(&r, &pool, &err))
		die(err.text);
	mcri_report_free(&r);
	mcri_pool_free(&pool);
	return true;
}

struct result {
	double seconds; /* median of one read */
	size_t bytes;   /* of the page */
	long peak_kib;  /* above the page */
	bool refused;
};

/* a read of the page (median of a few), in a child: its peak is its own */
static struct result measure(size_t segments, bool full, bool shortest)
{
	struct result res = { 0 };
	int fds[2];
	pid_t pid;

	if (pipe(fds) || (pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		char *text = page(segments, full, shortest);
		long base;
		double s[7];
		int runs = segments >= 6400 || full || shortest ? 3 : 7;

		if (!text)
			die("out of memory");
		base = status_kib("VmRSS:");
		res.bytes = strlen(text);
		for (int i = 0; i < runs; i++) {
			double t0 = now();

			res.refused = !read_page(text);
			s[i] = now() - t0;
		}
		for (int i = 0; i < runs; i++) /* the median */
			for (int j = i + 1; j < runs; j++)
				if (s[j] < s[i]) {
					double t = s[i];

					s[i] = s[j];
					s[j] = t;
				}
		res.seconds = s[runs / 2];
		res.peak_kib = status_kib("VmHWM:") - base;
		if (write(fds[1], &res, sizeof(res)) != (ssize_t)sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &res, sizeof(res)) != (ssize_t)sizeof(res))
		die("a measurement failed");
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return res;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 640, 6400, MCRI_POOL_SEGMENTS_MAX };
	struct result zero, base, r;

	if (argc != 2 && !(argc == 4 && strcmp(argv[2], "--write") == 0)) {
		fprintf(stderr, "usage: pool_bench FIXTURE [--write FILE]\n");
		return 2;
	}
	fixture = argv[1];
	if (argc == 4) {
		char *text = page(MCRI_POOL_SEGMENTS_MAX, true, false);
		FILE *f = fopen(argv[3], "w");

		if (!text || !f || fputs(text, f) < 0 || fclose(f) != 0)
			die(argv[3]);
		free(text);
		return 0;
	}
	printf("\n== 5. the pool's metrics reader (status, the sampler): a page parsed, made a pool,\n"
	       "   written as status --json and noted in the report twice; each in its own process\n"
	       "   (medians, per segment marginal over the real master's page alone: flat time per\n"
	       "   segment, ratios near 1; memory: the peak above the page)\n");
	printf("%-9s %10s %14s %9s %12s %10s\n", "segments", "bytes", "per segment", "ratio", "peak", "per byte");
	zero = measure(1, false, false);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		r = measure(sizes[i], false, false);
		r.seconds = (r.seconds - zero.seconds) / (double)(sizes[i] - 1);
		if (i == 0)
			base = r;
		printf("%-9zu %10zu %11.2f us %9.2f %8.1f MiB %10.2f\n", sizes[i], r.bytes, r.seconds * 1e6,
		       r.seconds / base.seconds, (double)r.peak_kib / 1024,
		       (double)r.peak_kib * 1024 / (double)r.bytes);
	}
	r = measure(MCRI_POOL_SEGMENTS_MAX, true, false);
	printf("the largest page taken (%u segments, %u samples, %u labels): %zu bytes, %.3f s, peak %.1f MiB (%.2f per byte)%s\n",
	       MCRI_POOL_SEGMENTS_MAX, MCRI_PROM_SAMPLES_MAX, MCRI_PROM_LABELS_MAX, r.bytes, r.seconds,
	       (double)r.peak_kib / 1024, (double)r.peak_kib * 1024 / (double)r.bytes, r.refused ? " REFUSED" : "");
	r = measure(0, false, true);
	printf("%zu bytes of 4-byte samples (refused after %u): %.3f s, peak %.1f MiB (%.2f per byte)%s\n", r.bytes,
	       MCRI_PROM_SAMPLES_MAX, r.seconds, (double)r.peak_kib / 1024, (double)r.peak_kib * 1024 / (double)r.bytes,
	       r.refused ? "" : " TAKEN");
	return 0;
}
