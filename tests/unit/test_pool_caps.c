/* test_pool_caps.c - runtime/pool's limits on what answers on the
 * master's metrics port (pool.h): a page of MCRI_PROM_SAMPLES_MAX samples,
 * MCRI_PROM_LABELS_MAX labels or MCRI_POOL_SEGMENTS_MAX segments is read,
 * one more is refused with a message that says so; a summary's rates stop
 * at MCRI_POOL_RATES_MAX; the report keeps MCRI_POOL_SEGMENTS_MAX segments
 * and counts the others; status --json writes its segments as jansson
 * would have. (The time and memory they cost: make bench.) */
#include <jansson.h>

#include "pool/pool.h"
#include "testutil.h"

/* n lines of `line` (a printf format taking the line's number) after
 * master_total_capacity_bytes (heap) */
static char *page_of(size_t n, const char *line)
{
	struct mcri_buf b = { 0 };
	char *text;

	mcri_buf_puts(&b, "master_total_capacity_bytes 1\n");
	for (size_t i = 0; i < n; i++)
		mcri_buf_printf(&b, line, i);
	text = mcri_buf_take(&b);
	ck_assert_ptr_nonnull(text);
	return text;
}

START_TEST(samples_capped)
{
	char *text = page_of(MCRI_PROM_SAMPLES_MAX - 1, "a%zu 1\n");
	struct mcri_prom p;
	struct mcr_error err = { 0 };
	char want[512];

	ck_assert_int_eq(mcri_prom_parse(text, &p, &err), 0);
	ck_assert_uint_eq(p.n, MCRI_PROM_SAMPLES_MAX);
	ck_assert_str_eq(p.s[p.n - 1].name, "a262142");
	mcri_prom_free(&p);
	free(text);
	text = page_of(MCRI_PROM_SAMPLES_MAX, "a%zu 1\n");
	ck_assert_int_eq(mcri_prom_parse(text, &p, &err), -1);
	ck_assert_int_eq(err.kind, MCR_EINVAL);
	snprintf(
		want, sizeof(want),
		"the master's /metrics holds more than %u samples (line %u), more than a pool of %u segments gives: it is read no further; is what answers on the job's metrics port its mooncake_master?",
		MCRI_PROM_SAMPLES_MAX, MCRI_PROM_SAMPLES_MAX + 1, MCRI_POOL_SEGMENTS_MAX);
	ck_assert_str_eq(err.text, want);
	ck_assert_uint_eq(p.n, 0);
	ck_assert_ptr_null(p.s);
	/* comments and samples of unusable labels are no samples */
	free(text);
	text = page_of(MCRI_PROM_SAMPLES_MAX - 1, "# a%zu 1\na{x=\"\\n\"} 1\nb 2\n");
	ck_assert_int_eq(mcri_prom_parse(text, &p, &err), 0);
	ck_assert_uint_eq(p.n, MCRI_PROM_SAMPLES_MAX);
	mcri_prom_free(&p);
	free(text);
}
END_TEST

START_TEST(labels_capped)
{
	/* 64 labels a sample: the cap is 8192 such samples */
	struct mcri_buf line = { 0 };
	char *fmt, *text, want[512];
	struct mcri_prom p;
	struct mcr_error err = { 0 };
	const size_t per = 64, fill = MCRI_PROM_LABELS_MAX / 64;

	mcri_buf_puts(&line, "a{");
	for (size_t k = 0; k < per; k++)
		mcri_buf_printf(&line, "%sl%zu=\"%zu\"", k ? "," : "", k, k);
	mcri_buf_puts(&line, "} %zu\n");
	fmt = mcri_buf_take(&line);
	text = page_of(fill, fmt);
	ck_assert_int_eq(mcri_prom_parse(text, &p, &err), 0);
	ck_assert_uint_eq(p.n, fill + 1);
	ck_assert_uint_eq(p.nlabels, MCRI_PROM_LABELS_MAX);
	ck_assert_uint_eq(p.s[fill].nlabels, per);
	ck_assert_str_eq(mcri_prom_label(&p.s[fill], "l63"), "63");
	ck_assert_ptr_null(mcri_prom_label(&p.s[0], "l0"));
	mcri_prom_free(&p);
	free(text);
	/* one label more */
	text = page_of(fill, fmt);
	text = realloc(text, strlen(text) + 16);
	strcat(text, "b{c=\"d\"} 1\n");
	ck_assert_int_eq(mcri_prom_parse(text, &p, &err), -1);
	snprintf(want, sizeof(want), "the master's /metrics holds more than %u labels (line %zu), ",
		 MCRI_PROM_LABELS_MAX, fill + 2);
	ck_assert_msg(strncmp(err.text, want, strlen(want)) == 0, "%s", err.text);
	ck_assert_uint_eq(p.nlabels, 0);
	free(text);
	free(fmt);
}
END_TEST

START_TEST(segments_capped)
{
	char *text = page_of(MCRI_POOL_SEGMENTS_MAX, "segment_allocated_bytes{segment=\"10.0.0.1:%zu\"} 1\n");
	struct mcri_prom p;
	struct mcri_pool pool = { 0 };
	struct mcri_report r = { 0 };
	struct mcr_error err = { 0 };
	char *json;

	ck_assert_int_eq(mcri_prom_parse(text, &p, &err), 0);
	ck_assert_int_eq(mcri_pool_from_prom(&p, &pool, &err), 0);
	ck_assert_uint_eq(pool.nseg, MCRI_POOL_SEGMENTS_MAX);
	ck_assert_str_eq(pool.seg[65535].name, "10.0.0.1:65535");
	ck_assert_str_eq(pool.seg[65535].address, "10.0.0.1");
	/* a segment's two gauges meet in one segment */
	mcri_prom_free(&p);
	free(text);
	ck_assert_int_eq(mcri_report_note_pool(&r, &pool, &err), 0);
	ck_assert_uint_eq(r.nseg, MCRI_POOL_SEGMENTS_MAX);
	mcri_pool_free(&pool);
	/* one more segment on the page: refused */
	text = page_of(MCRI_POOL_SEGMENTS_MAX + 1, "segment_total_capacity_bytes{segment=\"10.0.0.2:%zu\"} 1\n");
	ck_assert_int_eq(mcri_prom_parse(text, &p, &err), 0);
	ck_assert_int_eq(mcri_pool_from_prom(&p, &pool, &err), -1);
	ck_assert_str_eq(
		err.text,
		"the master's /metrics names more than 65536 segments: it is read no further; is what answers on the job's metrics port its mooncake_master?");
	mcri_pool_free(&pool);
	mcri_prom_free(&p);
	free(text);
	/* the report keeps the first 65536 of the job and counts the others */
	text = page_of(3, "segment_allocated_bytes{segment=\"10.0.0.3:%zu\"} 5\n");
	ck_assert_int_eq(mcri_prom_parse(text, &p, &err), 0);
	ck_assert_int_eq(mcri_pool_from_prom(&p, &pool, &err), 0);
	ck_assert_int_eq(mcri_report_note_pool(&r, &pool, &err), 0);
	ck_assert_uint_eq(r.nseg, MCRI_POOL_SEGMENTS_MAX);
	ck_assert_uint_eq(r.seg_unkept, 3);
	ck_assert_uint_eq(r.last.nseg, 3);
	json = mcri_report_json(&r);
	ck_assert_ptr_nonnull(strstr(json, "\"segments_not_kept\": 3,"));
	free(json);
	mcri_pool_free(&pool);
	mcri_prom_free(&p);
	mcri_report_free(&r);
	free(text);
}
END_TEST

START_TEST(rates_capped)
{
	struct mcri_buf b = { 0 };
	struct mcri_pool pool = { 0 };
	struct mcr_error err = { 0 };
	char *summary;

	mcri_buf_puts(&b, "Requests (Success/Total per sec):");
	for (int i = 0; i < 1000; i++)
		mcri_buf_printf(&b, " R%c%c=1/2,", 'a' + i / 26 % 26, 'a' + i % 26);
	summary = mcri_buf_take(&b);
	ck_assert_int_eq(mcri_pool_rates(summary, &pool, &err), 0);
	ck_assert_uint_eq(pool.nrates, MCRI_POOL_RATES_MAX);
	ck_assert_str_eq(pool.rates[MCRI_POOL_RATES_MAX - 1].name, "Rcl");
	mcri_pool_free(&pool);
	free(summary);
}
END_TEST

/* status --json and the report write their segments one at a time, as
 * jansson writes the whole tree: the text loads and dumps back the same */
START_TEST(segments_written_as_jansson_writes_them)
{
	struct mcri_segment seg[3] = {
		{ "10.0.0.1:1", "10.0.0.1", "n\"1", "prefill+decode", 10, 5, 7 },
		{ "10.0.0.2:1", "10.0.0.2", NULL, NULL, 0, 0, 0 },
		{ "caf\xc3\xa9:2", "caf\xc3\xa9", "\\n2", "decode", 1, 1, 1 },
	};
	struct mcri_pool pool = { .seg = seg, .nseg = 3, .leader = -1 };
	struct mcri_report r = { .last = pool, .seg = seg, .nseg = 3 };
	char *texts[4] = { mcri_pool_json(&pool, "7", 0), mcri_report_json(&r), NULL, NULL };

	pool.nseg = r.nseg = 0;
	texts[2] = mcri_pool_json(&pool, "7", 0);
	texts[3] = mcri_report_json(&r);
	for (int i = 0; i < 4; i++) {
		json_error_t e;
		json_t *o;
		char *again;

		ck_assert_ptr_nonnull(texts[i]);
		o = json_loads(texts[i], 0, &e);
		ck_assert_msg(o != NULL, "%s: %s", e.text, texts[i]);
		ck_assert_uint_eq(json_array_size(json_object_get(o, "segments")), i < 2 ? 3 : 0);
		again = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
		ck_assert_str_eq(texts[i], again);
		free(again);
		json_decref(o);
		free(texts[i]);
	}
}
END_TEST

Suite *pool_caps_suite(void)
{
	Suite *s = suite_create("pool_caps");
	TCase *tc = tcase_create("pool_caps");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, samples_capped);
	tcase_add_test(tc, labels_capped);
	tcase_add_test(tc, segments_capped);
	tcase_add_test(tc, rates_capped);
	tcase_add_test(tc, segments_written_as_jansson_writes_them);
	suite_add_tcase(s, tc);
	return s;
}
