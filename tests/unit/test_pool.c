/* test_pool.c - lib/pool: the master's Prometheus text (a capture of the
 * wheel's real master, tests/unit/fixtures/, and a live master when the
 * wheel is installed), the pool it describes, segments joined to worker
 * records, the samples, the report and its SVG (parsed as XML by Python's
 * xml.etree). */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "pool/pool.h"
#include "testutil.h"

#define FIX MCK_TOP "/tests/unit/fixtures/"
#define VENV_MASTER "/opt/spank-mooncake/venv/bin/mooncake_master"

START_TEST(prom_parses_the_real_master)
{
	char *text = slurp(FIX "metrics_0.3.13.post1.txt");
	struct mcri_prom p;
	struct mcr_error err = { 0 };
	double v;
	const struct mcri_prom_sample *inf = NULL;

	ck_assert_int_eq(mcri_prom_parse(text, &p, &err), 0);
	ck_assert_uint_eq(p.n, 145); /* every line that is not a comment */
	ck_assert(mcri_prom_value(&p, "master_total_capacity_bytes", &v));
	ck_assert_double_eq(v, 67108864);
	ck_assert(mcri_prom_value(&p, "master_allocated_bytes", &v));
	ck_assert_double_eq(v, 3145728);
	ck_assert(mcri_prom_value(&p, "master_key_count", &v));
	ck_assert_double_eq(v, 3);
	ck_assert(mcri_prom_value(&p, "master_active_clients", &v));
	ck_assert_double_eq(v, 1);
	ck_assert(!mcri_prom_value(&p, "no_such_metric", &v));
	for (size_t i = 0; i < p.n; i++)
		if (strcmp(p.s[i].name, "master_value_size_bytes_bucket") == 0 &&
		    strcmp(mcri_prom_label(&p.s[i], "le"), "+Inf") == 0)
			inf = &p.s[i];
	ck_assert_ptr_nonnull(inf);
	ck_assert_double_eq(inf->value, 4);
	mcri_prom_free(&p);
	free(text);
}
END_TEST

START_TEST(prom_syntax)
{
	struct mcri_prom p;
	struct mcr_error err = { 0 };

	ck_assert_int_eq(mcri_prom_parse("# HELP a b\n# TYPE a gauge\n\n"
					 "a 1\r\nb{x=\"q\\\"u\\\\ote\",y=\"\"} -Inf 1700000000000\n"
					 "c{ z = \"1\" , } NaN\nd +Inf\ne 1.5e3\n",
					 &p, &err),
			 0);
	ck_assert_uint_eq(p.n, 5);
	ck_assert_str_eq(p.s[1].name, "b");
	ck_assert_str_eq(mcri_prom_label(&p.s[1], "x"), "q\"u\\ote");
	ck_assert_str_eq(mcri_prom_label(&p.s[1], "y"), "");
	ck_assert(isinf(p.s[1].value) && p.s[1].value < 0);
	ck_assert_str_eq(mcri_prom_label(&p.s[2], "z"), "1");
	ck_assert(isnan(p.s[2].value));
	ck_assert(isinf(p.s[3].value) && p.s[3].value > 0);
	ck_assert_double_eq(p.s[4].value, 1500);
	mcri_prom_free(&p);
	/* not a sample: the line is named */
	ck_assert_int_eq(mcri_prom_parse("a 1\nb{x=\"1} 2\n", &p, &err), -1);
	ck_assert_str_eq(err.text, "line 2 of the master's /metrics is not a Prometheus sample: 'b{x=\"1} 2'");
	ck_assert_int_eq(mcri_prom_parse("a\n", &p, &err), -1);
	ck_assert_int_eq(mcri_prom_parse("9a 1\n", &p, &err), -1);
	ck_assert_int_eq(mcri_prom_parse("a 1 2 3\n", &p, &err), -1);
	ck_assert_int_eq(mcri_prom_parse("a{b} 1\n", &p, &err), -1);
	ck_assert_uint_eq(p.n, 0);
	/* what any client may register as a segment's name, or a listener
	 * that is not the master send: a label that is not UTF-8 or holds a
	 * line break (status --json could not write it, or its text would
	 * gain a line) drops its sample, and only it; a line that is no
	 * sample is quoted without its control characters (a terminal's
	 * escape) */
	ck_assert_int_eq(mcri_prom_parse("segment_allocated_bytes{segment=\"10.0.0.\354:1\"} 1\n"
					 "a{x=\"1\\n2\"} 1\na{x=\"\033[2J\"} 1\n"
					 "a{x=\"\xed\xa0\x80\"} 1\n" /* a surrogate */
					 "a{x=\"\xc0\xaf\"} 1\n"     /* overlong */
					 "master_total_capacity_bytes 5\n",
					 &p, &err),
			 0);
	ck_assert_uint_eq(p.n, 1);
	ck_assert_str_eq(p.s[0].name, "master_total_capacity_bytes");
	mcri_prom_free(&p);
	ck_assert_int_eq(mcri_prom_parse("a \033[2J\n", &p, &err), -1);
	ck_assert_str_eq(err.text, "line 1 of the master's /metrics is not a Prometheus sample: 'a ?[2J'");
	ck_assert_int_eq(mcri_prom_parse("a{x=\"caf\xc3\xa9 \xf0\x9f\x90\xb1\"} 1\n", &p, &err), 0);
	ck_assert_str_eq(mcri_prom_label(&p.s[0], "x"), "caf\xc3\xa9 \xf0\x9f\x90\xb1");
	mcri_prom_free(&p);
	/* a last line without its newline, ended by a carriage return, ends
	 * the text (it once looped for ever) */
	ck_assert_int_eq(mcri_prom_parse("a 1\nb 2\r", &p, &err), 0);
	ck_assert_uint_eq(p.n, 2);
	mcri_prom_free(&p);
}
END_TEST

/* a rate the summary gives as nan or inf is 0: status --json writes it */
START_TEST(rates_not_finite)
{
	struct mcri_pool pool = { 0 };
	struct mcr_error err = { 0 };
	char *json;

	ck_assert_int_eq(mcri_pool_rates("Requests (Success/Total per sec): Put=1/nan, Get=1/inf, Exist=1/2", &pool,
					 &err),
			 0);
	ck_assert_uint_eq(pool.nrates, 3);
	ck_assert_double_eq(pool.rates[0].per_s, 0);
	ck_assert_double_eq(pool.rates[1].per_s, 0);
	ck_assert_double_eq(pool.rates[2].per_s, 2);
	json = mcri_pool_json(&pool, "7", 0);
	ck_assert_ptr_nonnull(json);
	ck_assert_ptr_nonnull(strstr(json, "\"Put\": 0"));
	free(json);
	mcri_pool_free(&pool);
}
END_TEST

/* the pool of the fixture, joined to a worker record */
static void fixture_pool(struct mcri_pool *pool, const char *dir)
{
	char *text = slurp(FIX "metrics_0.3.13.post1.txt"), *sum = slurp(FIX "summary_0.3.13.post1.txt");
	struct mcri_prom p;
	struct mcr_error err = { 0 };

	memset(pool, 0, sizeof(*pool));
	ck_assert_int_eq(mcri_prom_parse(text, &p, &err), 0);
	ck_assert_int_eq(mcri_pool_from_prom(&p, pool, &err), 0);
	ck_assert_int_eq(mcri_pool_rates(sum, pool, &err), 0);
	if (dir) {
		struct mcri_jobdir jd;

		ck_assert_int_eq(mcri_jobdir_open(&jd, dir, getuid(), false, &err), 0);
		ck_assert_int_eq(mcri_pool_join_workers(pool, &jd, &err), 0);
		mcri_jobdir_close(&jd);
	}
	mcri_prom_free(&p);
	free(text);
	free(sum);
}

static char tmp[256];

static void make_tmp(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/mck-pool.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void put_file(const char *dir, const char *name, const char *text)
{
	struct mcr_error err = { 0 };

	ck_assert_int_eq(mcri_mkdir_p(dir, 0755, &err), 0);
	ck_assert_int_eq(mcr_write_file_atomic(dir, name, text, strlen(text), &err), 0);
}

static void rm_tmp(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(pool_of_the_real_master)
{
	struct mcri_pool pool;
	char wdir[300];

	make_tmp();
	snprintf(wdir, sizeof(wdir), "%s/workers", tmp);
	/* two tasks of n2 (prefill and decode colocated), one elsewhere, a torn file */
	put_file(
		wdir, "n2.7.0.0.json",
		"{\"node\": \"n2\", \"role\": \"prefill\", \"address\": \"10.99.0.1\", \"job\": 7, \"step\": 0, \"task\": 0}");
	put_file(
		wdir, "n2.7.1.0.json",
		"{\"node\": \"n2\", \"role\": \"decode\", \"address\": \"10.99.0.1\", \"job\": 7, \"step\": 1, \"task\": 0}");
	put_file(
		wdir, "n2.7.2.0.json",
		"{\"node\": \"n2\", \"role\": \"prefill\", \"address\": \"10.99.0.1\", \"job\": 7, \"step\": 2, \"task\": 0}");
	put_file(wdir, "n3.7.1.0.json", "{\"node\": \"n3\", \"role\": \"decode\", \"address\": \"10.99.0.3\"}");
	put_file(wdir, "n4.7.1.0.json", "{\"node\": ");
	fixture_pool(&pool, tmp);
	ck_assert_int_eq(pool.capacity, 67108864);
	ck_assert_int_eq(pool.allocated, 3145728);
	ck_assert_int_eq(pool.keys, 3);
	ck_assert_int_eq(pool.clients, 1);
	ck_assert_uint_eq(pool.nseg, 1);
	ck_assert_str_eq(pool.seg[0].address, "10.99.0.1");
	ck_assert_int_eq(pool.seg[0].capacity, 67108864);
	ck_assert_int_eq(pool.seg[0].allocated, 3145728);
	ck_assert_str_eq(pool.seg[0].node, "n2");
	ck_assert_msg(strcmp(pool.seg[0].role, "prefill+decode") == 0 ||
			      strcmp(pool.seg[0].role, "decode+prefill") == 0,
		      "%s", pool.seg[0].role);
	/* the summary's request rates: names and totals as the master gives them */
	ck_assert_uint_ge(pool.nrates, 10);
	ck_assert_str_eq(pool.rates[0].name, "PutStart");
	mcri_pool_free(&pool);
	rm_tmp();
}
END_TEST

START_TEST(master_state_file)
{
	struct mcri_jobdir jd;
	struct mcri_state m;
	struct mcr_error err = { 0 };

	make_tmp();
	ck_assert_int_eq(mcri_jobdir_open(&jd, tmp, getuid(), false, &err), 0);
	ck_assert_int_eq(mcri_state_read(&jd, &m, &err), -1);
	ck_assert_int_eq(err.kind, MCR_ESTATE);
	put_file(tmp, "mooncake_master.json",
		 "{\"state\": \"ready\", \"infra_node\": \"n1\", \"infra_addr\": \"10.0.0.1\", \"ready_at\": 100}");
	ck_assert_int_eq(mcri_state_read(&jd, &m, &err), 0);
	ck_assert_int_eq(m.ports.rpc, 8700);
	ck_assert_int_eq(m.ports.metadata, 8701);
	ck_assert_int_eq(m.ports.metrics, 8702);
	ck_assert_str_eq(m.infra_node, "n1");
	/* the per-job ports of issue 10, when the file carries them */
	put_file(
		tmp, "mooncake_master.json",
		"{\"state\": \"ready\", \"infra_node\": \"n1\", \"infra_addr\": \"10.0.0.1\", \"rpc_port\": 18700, \"metadata_port\": 18701, \"metrics_port\": 18702}");
	ck_assert_int_eq(mcri_state_read(&jd, &m, &err), 0);
	ck_assert_int_eq(m.ports.rpc, 18700);
	ck_assert_int_eq(m.ports.metrics, 18702);
	put_file(tmp, "mooncake_master.json", "{");
	ck_assert_int_eq(mcri_state_read(&jd, &m, &err), -1);
	ck_assert_int_eq(err.kind, MCR_EIO);
	mcri_jobdir_close(&jd);
	rm_tmp();
}
END_TEST

START_TEST(status_json_fields)
{
	struct mcri_pool pool;
	json_t *o, *seg;
	char *text;

	fixture_pool(&pool, NULL);
	snprintf(pool.master.infra_node, sizeof(pool.master.infra_node), "n1");
	snprintf(pool.master.infra_addr, sizeof(pool.master.infra_addr), "10.0.0.1");
	pool.master.ready_at = 1000;
	text = mcri_pool_json(&pool, "42", 1065);
	ck_assert_ptr_nonnull(text);
	o = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_string_value(json_object_get(o, "job_id")), "42");
	ck_assert_int_eq(json_integer_value(json_object_get(o, "capacity_bytes")), 67108864);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "allocated_bytes")), 3145728);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "keys")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "clients")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(o, "master"), "uptime_seconds")), 65);
	seg = json_array_get(json_object_get(o, "segments"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(seg, "capacity_bytes")), 67108864);
	ck_assert_int_eq(json_integer_value(json_object_get(seg, "allocated_bytes")), 3145728);
	/* not joined: node and role are null */
	ck_assert(json_is_null(json_object_get(seg, "node")));
	ck_assert(json_is_null(json_object_get(seg, "role")));
	ck_assert(json_is_number(json_object_get(json_object_get(o, "requests_per_second"), "PutStart")));
	json_decref(o);
	free(text);
	mcri_pool_free(&pool);
}
END_TEST

/* python3 -c 'xml.etree.ElementTree.parse(...)' on `svg`: 0 when it parses
 * as XML whose root is an svg element */
static int svg_parses(const char *svg)
{
	char path[] = "/tmp/mck-svg.XXXXXX", cmd[512];
	int fd = mkstemp(path), rc;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, svg, strlen(svg)), (ssize_t)strlen(svg));
	close(fd);
	snprintf(
		cmd, sizeof(cmd),
		"python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
		"sys.exit(0 if r.tag == \"{http://www.w3.org/2000/svg}svg\" and len(r.findall(\"{http://www.w3.org/2000/svg}polyline\")) == 3 else 3)' %s",
		path);
	rc = system(cmd);
	unlink(path);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

START_TEST(report_samples_json_and_svg)
{
	struct mcri_report r = { 0 }, back = { 0 };
	struct mcri_pool pool;
	struct mcr_error err = { 0 };
	struct mcri_sample s[3] = {
		{ 1700000000.0, 64 << 20, 0, 0, 1 },
		{ 1700000005.25, 96 << 20, 5 << 20, 2, 2 },
		{ 1700000010.5, 96 << 20, 1 << 20, 1, 2 },
	};
	struct mcri_buf lines = { 0 };
	json_t *o, *samples;
	char *text, *svg, *all;

	snprintf(r.job_id, sizeof(r.job_id), "7<&>");
	for (int i = 0; i < 3; i++) {
		char *line = mcri_sample_line(&s[i]);

		ck_assert_ptr_nonnull(line);
		ck_assert(line[strlen(line) - 1] == '\n');
		mcri_buf_puts(&lines, line);
		free(line);
		ck_assert_int_eq(mcri_report_add_sample(&r, &s[i], &err), 0);
	}
	/* a kill may cut the last line: it is skipped */
	mcri_buf_puts(&lines, "{\"time\": 17000000");
	all = mcri_buf_take(&lines);
	ck_assert_int_eq(mcri_samples_parse(all, &back, &err), 0);
	ck_assert_uint_eq(back.nsamples, 3);
	ck_assert_double_eq_tol(back.samples[1].t, 1700000005.25, 1e-6);
	ck_assert_int_eq(back.samples[1].allocated, 5 << 20);
	ck_assert_int_eq(back.samples[2].keys, 1);
	free(all);
	mcri_report_free(&back);

	fixture_pool(&pool, NULL);
	ck_assert_int_eq(mcri_report_note_pool(&r, &pool, &err), 0);
	pool.seg[0].allocated = 1;
	ck_assert_int_eq(mcri_report_note_pool(&r, &pool, &err), 0);
	mcri_pool_free(&pool);
	r.ended_at = 1700000011;
	snprintf(r.ended_by, sizeof(r.ended_by), "SIGTERM");
	text = mcri_report_json(&r);
	ck_assert_ptr_nonnull(text);
	o = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "peak_allocated_bytes")), 5 << 20);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "peak_keys")), 2);
	ck_assert_str_eq(json_string_value(json_object_get(o, "ended_by")), "SIGTERM");
	ck_assert_int_eq(json_integer_value(json_object_get(o, "capacity_bytes")), 67108864);
	ck_assert(json_is_array(json_object_get(o, "segments")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(json_object_get(o, "segments"), 0),
							    "peak_allocated_bytes")),
			 3145728);
	samples = json_object_get(o, "samples");
	ck_assert_uint_eq(json_array_size(samples), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(samples, 1), "allocated_bytes")), 5 << 20);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(samples, 1), "clients")), 2);
	ck_assert(json_is_number(json_object_get(json_array_get(samples, 1), "time")));
	json_decref(o);
	free(text);

	svg = mcri_report_svg(&r);
	ck_assert_ptr_nonnull(svg);
	ck_assert_ptr_nonnull(strstr(svg, "Mooncake pool of job 7&lt;&amp;&gt;"));
	ck_assert_ptr_nonnull(strstr(svg, "peak allocated 5.0 MiB"));
	ck_assert_int_eq(svg_parses(svg), 0);
	free(svg);
	mcri_report_free(&r);
	/* no samples: still a picture */
	svg = mcri_report_svg(&r);
	ck_assert_ptr_nonnull(strstr(svg, "no samples"));
	ck_assert_int_eq(svg_parses(svg), 0);
	free(svg);
}
END_TEST

START_TEST(human_bytes)
{
	char b[32];

	mcri_human_bytes(3, b, sizeof(b));
	ck_assert_str_eq(b, "3 B");
	mcri_human_bytes(64 << 20, b, sizeof(b));
	ck_assert_str_eq(b, "64.0 MiB");
	mcri_human_bytes(1536, b, sizeof(b));
	ck_assert_str_eq(b, "1.5 KiB");
}
END_TEST

/* The wheel's real master on ports of this test's own network namespace
 * (tests/netns-run.sh): its /metrics, fetched and parsed as status does.
 * Skipped where the wheel is not installed. */
START_TEST(live_master)
{
	char *argv[] = { VENV_MASTER,
			 "--port=28700",
			 "--enable_http_metadata_server=true",
			 "--http_metadata_server_port=28701",
			 "--metrics_port=28702",
			 NULL };
	struct mcri_pool pool = { 0 };
	struct mcr_error err = { 0 };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc = -1, status;

	if (access(VENV_MASTER, X_OK) != 0)
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	ck_assert_int_eq(posix_spawn(&pid, VENV_MASTER, &fa, NULL, argv, NULL), 0);
	posix_spawn_file_actions_destroy(&fa);
	snprintf(pool.master.infra_addr, sizeof(pool.master.infra_addr), "127.0.0.1");
	pool.master.ports.metrics = 28702;
	for (int i = 0; i < 100 && rc != 0; i++) {
		usleep(100000);
		mcri_pool_free(&pool);
		rc = mcri_pool_fetch(&pool, 1000, &err);
	}
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	ck_assert_msg(rc == 0, "the live master's /metrics: %s", err.text);
	ck_assert_int_eq(pool.capacity, 0);
	ck_assert_int_eq(pool.keys, 0);
	ck_assert_uint_eq(pool.nseg, 0);
	ck_assert_uint_ge(pool.nrates, 10);
	mcri_pool_free(&pool);
	/* nobody there any more */
	ck_assert_int_eq(mcri_pool_fetch(&pool, 500, &err), -1);
	ck_assert_int_eq(err.kind, MCR_ESTATE);
	ck_assert_ptr_nonnull(strstr(err.text, "GET http://127.0.0.1:28702/metrics: "));
}
END_TEST

Suite *pool_suite(void)
{
	Suite *s = suite_create("pool");
	TCase *tc = tcase_create("pool");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, prom_parses_the_real_master);
	tcase_add_test(tc, prom_syntax);
	tcase_add_test(tc, rates_not_finite);
	tcase_add_test(tc, pool_of_the_real_master);
	tcase_add_test(tc, master_state_file);
	tcase_add_test(tc, status_json_fields);
	tcase_add_test(tc, report_samples_json_and_svg);
	tcase_add_test(tc, human_bytes);
	tcase_add_test(tc, live_master);
	suite_add_tcase(s, tc);
	return s;
}
