/*
 * sample.c - mooncake-recipe sample: the job's pool sampler, the task of
 * the mooncake-pool step the plugin starts next to the master
 * (spank/steps/step.c). Every --interval seconds it asks the master's /metrics and
 * appends one line to <dir>/mooncake_pool_samples.jsonl (a kill loses
 * nothing already written). On SIGTERM or SIGINT (Slurm signals the job's
 * steps at its end: normal end, scancel, time limit) it takes one last
 * sample, so a job shorter than the interval reports what it held; on
 * that, or when the master
 * has not answered for max(30 s, 3 intervals), it writes
 * mooncake_pool_report.json and mooncake_pool.svg atomically and exits 0.
 * `--report` writes them from the samples file alone and exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "pool/pool.h"

#define LAST_SAMPLE_MS 300 /* the master answers for ~0.1 s after Slurm's SIGTERM */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* sleep `s` seconds unless a signal says stop */
static void pause_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (!stop_signal && nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int write_report(const struct mcri_jobdir *dir, struct mcri_report *r)
{
	struct mcr_error err = { 0 };
	char *json, *svg;
	int rc = 0;

	/* the master step's restarts of the master, when it had any */
	mcri_proof_of_attempt(dir, r->last.master.attempt, &r->last.keeper);
	json = mcri_report_json(r);
	svg = mcri_report_svg(r);

	if (!json || !svg) {
		fprintf(stderr, "mooncake: out of memory writing the pool's report\n");
		rc = 2;
	} else if (mcri_jobdir_write(dir, MCRI_REPORT_FILE, json, strlen(json), true, &err) ||
		   mcri_jobdir_write(dir, MCRI_PICTURE_FILE, svg, strlen(svg), true, &err)) {
		fprintf(stderr, "mooncake: %s\n", err.text);
		rc = 2;
	} else {
		printf("mooncake: pool report: %s/%s and %s/%s (%zu samples; %s)\n", dir->path, MCRI_REPORT_FILE,
		       dir->path, MCRI_PICTURE_FILE, r->nsamples, r->ended_by);
	}
	free(json);
	free(svg);
	return rc;
}

/* --report: the report of the samples file (segments are not in it) */
static int report_only(const struct mcri_jobdir *dir, struct mcri_report *r)
{
	struct mcr_error err = { 0 };
	char *text = NULL;

	if (mcri_jobdir_read(dir, MCRI_SAMPLES_FILE, MCRI_SAMPLES_MAX, &text, NULL, &err)) {
		fprintf(stderr, "mooncake: %s\n", err.text);
		return 1;
	}
	if (mcri_samples_parse(text, r, &err)) {
		free(text);
		fprintf(stderr, "mooncake: out of memory reading the samples\n");
		return 2;
	}
	free(text);
	mcri_state_read(dir, &r->last.master, &err);
	if (r->nsamples) {
		const struct mcri_sample *s = &r->samples[r->nsamples - 1];

		r->last.capacity = s->capacity;
		r->last.allocated = s->allocated;
		r->last.keys = s->keys;
		r->last.clients = s->clients;
		r->ended_at = s->t;
	}
	snprintf(r->ended_by, sizeof(r->ended_by), "rebuilt from %s", MCRI_SAMPLES_FILE);
	return write_report(dir, r);
}

/* The master step is starting the master again (restart=), or an HA
 * pool's masters are choosing a leader (one of them answers): the pool is
 * not gone while it does */
static bool restarting(const struct mcri_jobdir *dir, const struct mcri_state *master)
{
	struct mcri_master_health h[MCRI_HA_MAX];
	bool answered[MCRI_HA_MAX];
	struct mcri_proof p;
	int answering = 0, refusing;

	if (master->ha.masters)
		mcri_ha_leader(master, 1000, h, answered, &answering, &refusing);
	return answering > 0 || (mcri_proof_of_attempt(dir, master->attempt, &p) == 0 && p.restarting);
}

/* One sample of the pool (within timeout_ms) appended to the samples
 * file `fd` and to r; -1 with err when the master does not answer. */
static int take_sample(const struct mcri_jobdir *dir, const struct mcri_state *master, int fd, struct mcri_report *r,
		       int timeout_ms, struct mcr_error *err)
{
	struct mcri_pool pool = { .master = *master };
	struct mcri_sample s = { now_s(), 0, 0, 0, 0 };
	char *line;
	int rc = -1;

	if (mcri_pool_fetch(&pool, timeout_ms, err) || mcri_pool_join_workers(&pool, dir, err))
		goto out;
	s.capacity = pool.capacity;
	s.allocated = pool.allocated;
	s.keys = pool.keys;
	s.clients = pool.clients;
	line = mcri_sample_line(&s);
	if (!line || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		fprintf(stderr, "mooncake: cannot append to %s/%s: %s\n", dir->path, MCRI_SAMPLES_FILE,
			line ? strerror(errno) : "out of memory");
	free(line);
	if (mcri_report_add_sample(r, &s, err) || mcri_report_note_pool(r, &pool, err))
		fprintf(stderr, "mooncake: %s\n", err->text);
	rc = 0;
out:
	mcri_pool_free(&pool);
	return rc;
}

static int sample_loop(const struct mcri_jobdir *dir, double interval, struct mcri_report *r)
{
	double gone_after = interval * 3 > 30 ? interval * 3 : 30, last_ok;
	struct mcri_state master;
	struct mcr_error err = { 0 };
	struct sigaction sa;
	bool quiet = false;
	int fd;

	if (mcri_state_read(dir, &master, &err)) {
		fprintf(stderr, "mooncake: the pool sampler cannot find the master: %s\n", err.text);
		return 1;
	}
	if ((fd = mcri_jobdir_append(dir, MCRI_SAMPLES_FILE, true, &err)) < 0) {
		fprintf(stderr, "mooncake: %s\n", err.text);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a signal ends a sleep or a request */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("mooncake: sampling the pool of %s (%s:%d) every %g s into %s/%s\n", master.infra_node,
	       master.infra_addr, master.ports.metrics, interval, dir->path, MCRI_SAMPLES_FILE);
	fflush(stdout);
	last_ok = now_s();
	while (!stop_signal) {
		double t = now_s();
		int tmo = interval < 2 ? (int)(interval * 1000) : 2000;

		if (take_sample(dir, &master, fd, r, tmo > 200 ? tmo : 200, &err) == 0) {
			last_ok = t;
			quiet = false;
		} else if (!stop_signal) {
			if (!quiet)
				fprintf(stderr, "mooncake: the master does not answer: %s\n", err.text);
			quiet = true;
			if (t - last_ok >= gone_after && !restarting(dir, &master)) {
				snprintf(r->ended_by, sizeof(r->ended_by), "the master stopped answering");
				break;
			}
		}
		pause_s(interval - (now_s() - t));
	}
	if (stop_signal) {
		/* the job's last moments: Slurm stops the master at the same
		 * time, and it answers for a little while yet */
		take_sample(dir, &master, fd, r, LAST_SAMPLE_MS, &err);
		snprintf(r->ended_by, sizeof(r->ended_by), "%s", stop_signal == SIGTERM ? "SIGTERM" : "SIGINT");
	}
	close(fd);
	if (!r->last.master.infra_addr[0])
		r->last.master = master;
	r->ended_at = now_s();
	return write_report(dir, r);
}

int cli_sample(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "report", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mcri_report r = { 0 };
	struct mcri_jobdir jd;
	struct mcr_error err = { 0 };
	const char *dir = NULL, *job = getenv("SLURM_JOB_ID");
	double interval = 5;
	bool only = false;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'i':
			interval = strtod(optarg, &end);
			if (end == optarg || *end || !(interval >= 0.1 && interval <= 3600)) {
				fprintf(stderr, "mooncake: sample --interval %s: give seconds between 0.1 and 3600\n",
					optarg);
				return 2;
			}
			break;
		case 'r':
			only = true;
			break;
		case 'h':
			printf("usage: mooncake-recipe sample --dir DIR [--interval SECONDS] [--report]\n");
			return 0;
		default:
			fprintf(stderr, "usage: mooncake-recipe sample --dir DIR [--interval SECONDS] [--report]\n");
			return 2;
		}
	}
	if (!dir || optind != argc) {
		fprintf(stderr, "usage: mooncake-recipe sample --dir DIR [--interval SECONDS] [--report]\n");
		return 2;
	}
	snprintf(r.job_id, sizeof(r.job_id), "%s", job ? job : "");
	/* the job's directory, as the job's user (the sampler is a step of the job) */
	if (mcri_jobdir_open(&jd, dir, getuid(), false, &err)) {
		fprintf(stderr, "mooncake: %s\n", err.text);
		return err.kind == MCR_ESTATE ? 1 : 2;
	}
	rc = only ? report_only(&jd, &r) : sample_loop(&jd, interval, &r);
	mcri_jobdir_close(&jd);
	mcri_report_free(&r);
	return rc;
}
