/*
 * fuzz_pool.c - libFuzzer target (make fuzz): what a listener on the
 * master's ports sends, which another user's process may be. Any bytes
 * as an HTTP answer (mcri_http_answer), its body as the Prometheus text
 * of /metrics (mcri_prom_parse, then the pool from it and status --json),
 * as /metrics/summary (mcri_pool_rates), and as the sampler's samples file
 * (mcri_samples_parse, then the report and its picture), of any length
 * the reader takes (make fuzz: -max_len=MCRI_METRICS_MAX, with the
 * largest page it takes among the seeds). Besides the
 * sanitizers' findings it aborts when a promise breaks:
 *  - a status is 0 or 100-999 and a body lies within the answer;
 *  - every sample has a name and labels in pairs, and the reader keeps
 *    to its caps (samples, labels, segments, rates: pool.h);
 *  - a failure leaves nothing behind; every message starts "mooncake: "
 *    and quotes no control character (a terminal's escape) it was sent;
 *  - status --json, the report and the picture are made of whatever
 *    parsed (a name that is not UTF-8 cannot stop them).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"
#include "pool/pool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...) (fprintf(stderr, __VA_ARGS__), abort())

static void check_message(const struct mcr_error *err)
{
	char msg[MCR_ERROR_MESSAGE_LENGTH];

	mcr_error_format(err, msg, sizeof(msg));
	if (strncmp(msg, "mooncake: ", 10) != 0)
		FAIL("a message without the prefix: %s\n", msg);
	for (const unsigned char *c = (const unsigned char *)msg; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			FAIL("a message quotes byte 0x%02x of what the listener sent\n", *c);
}

static void metrics(const char *text)
{
	struct mcri_prom p = { 0 };
	struct mcri_pool pool = { 0 };
	struct mcr_error err;
	char *json;

	if (mcri_prom_parse(text, &p, &err)) {
		check_message(&err);
		if (p.n || p.s)
			FAIL("a failed parse left %zu samples\n", p.n);
		return;
	}
	for (size_t i = 0; i < p.n; i++) {
		size_t k = 0;

		if (!p.s[i].name || !*p.s[i].name)
			FAIL("sample %zu has no name\n", i);
		while (p.s[i].labels && p.s[i].labels[k])
			k++;
		if (k % 2 || k != 2 * p.s[i].nlabels)
			FAIL("sample %zu has %zu label strings\n", i, k);
	}
	if (p.n > MCRI_PROM_SAMPLES_MAX || p.nlabels > MCRI_PROM_LABELS_MAX)
		FAIL("%zu samples and %zu labels kept\n", p.n, p.nlabels);
	if (mcri_pool_from_prom(&p, &pool, &err) == 0) {
		if (pool.nseg > MCRI_POOL_SEGMENTS_MAX)
			FAIL("%zu segments kept\n", pool.nseg);
		struct mcri_report r = { 0 };

		if ((json = mcri_pool_json(&pool, "1", 0)) == NULL)
			FAIL("status --json of a pool gave nothing\n");
		free(json);
		/* the sampler notes each sample's pool in its report */
		if (mcri_report_note_pool(&r, &pool, &err) || mcri_report_note_pool(&r, &pool, &err))
			FAIL("the report of a pool failed: %s\n", err.text);
		if (r.nseg != pool.nseg || (json = mcri_report_json(&r)) == NULL)
			FAIL("a report of %zu segments kept %zu\n", pool.nseg, r.nseg);
		free(json);
		mcri_report_free(&r);
	} else {
		check_message(&err);
	}
	if (mcri_pool_rates(text, &pool, &err))
		check_message(&err);
	if (pool.nrates > MCRI_POOL_RATES_MAX)
		FAIL("%zu rates kept\n", pool.nrates);
	mcri_pool_free(&pool);
	mcri_prom_free(&p);
}

static void samples(const char *text)
{
	struct mcri_report r = { 0 };
	struct mcr_error err;
	char *out;

	if (mcri_samples_parse(text, &r, &err) == 0) {
		if ((out = mcri_report_json(&r)) == NULL)
			FAIL("a report of %zu samples gave nothing\n", r.nsamples);
		free(out);
		if ((out = mcri_report_svg(&r)) == NULL)
			FAIL("a picture of %zu samples gave nothing\n", r.nsamples);
		free(out);
	} else {
		check_message(&err);
	}
	mcri_report_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	const char *body;
	int status;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (mcri_http_answer(text, &status, &body) == 0) {
		if (status != 0 && (status < 100 || status > 999))
			FAIL("status %d\n", status);
		if (body < text || body > text + strlen(text))
			FAIL("a body outside the answer\n");
		metrics(body);
	}
	metrics(text);
	samples(text);
	free(text);
	return 0;
}
