/*
 * svg.c - mooncake_pool.svg: the pool's capacity, allocated bytes (left
 * axis) and keys (right axis) over the job's life, from its samples. Plain
 * SVG 1.1 that a browser shows; text is XML-escaped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool/pool.h"

#define W 860
#define H 420
#define LEFT 90.0
#define RIGHT 70.0
#define TOP 50.0
#define BOTTOM 60.0
#define PW (W - LEFT - RIGHT)
#define PH (H - TOP - BOTTOM)
#define TICKS 5

static void put_escaped(struct mcri_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			mcri_buf_puts(b, "&lt;");
			break;
		case '>':
			mcri_buf_puts(b, "&gt;");
			break;
		case '&':
			mcri_buf_puts(b, "&amp;");
			break;
		case '"':
			mcri_buf_puts(b, "&quot;");
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				mcri_buf_add(b, s, 1);
		}
	}
}

/* a round step for an axis up to `max` (> 0) */
static double nice_step(double max)
{
	double raw = max / TICKS, mag = 1, f;

	/* the power of ten at or below raw, by hand: pow's symbol is of
	 * glibc 2.29, above the floor (README, "Requirements") */
	while (mag * 10 <= raw)
		mag *= 10;
	while (mag > raw)
		mag /= 10;
	f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* a round byte step: powers of two of a binary unit */
static double byte_step(double max)
{
	double step = 1;

	while (step * TICKS < max)
		step *= 2;
	return step;
}

static void time_label(double s, char *buf, size_t size)
{
	long v = lround(s);

	if (v >= 3600)
		snprintf(buf, size, "%ld:%02ld:%02ld", v / 3600, v / 60 % 60, v % 60);
	else
		snprintf(buf, size, "%ld:%02ld", v / 60, v % 60);
}

static void series(struct mcri_buf *b, const struct mcri_report *r, int which, double tspan, double ymax,
		   const char *style)
{
	mcri_buf_printf(b, "<polyline fill=\"none\" %s points=\"", style);
	for (size_t i = 0; i < r->nsamples; i++) {
		const struct mcri_sample *s = &r->samples[i];
		double v = which == 0 ? (double)s->capacity : which == 1 ? (double)s->allocated : (double)s->keys;
		double x = LEFT + (tspan > 0 ? (s->t - r->samples[0].t) / tspan * PW : 0);
		double y = TOP + PH - (ymax > 0 ? v / ymax * PH : 0);

		mcri_buf_printf(b, "%s%.1f,%.1f", i ? " " : "", x, y);
	}
	mcri_buf_puts(b, "\"/>\n");
}

#define LENDERS_SHOWN 4

/* the segments memory lenders lent (their role names the kind: "mooncake-store
 * store"), with their node and capacity: "; lent by mooncake-store store
 * on n3 (64.0 MiB), ..." */
static void lenders(struct mcri_buf *b, const struct mcri_report *r)
{
	size_t shown = 0, more = 0;

	for (size_t i = 0; i < r->nseg; i++) {
		const struct mcri_segment *s = &r->seg[i];
		char size[32];

		if (!s->role || (strncmp(s->role, "mooncake-store ", 15) && strncmp(s->role, "mooncake-donor ", 15)))
			continue;
		if (shown == LENDERS_SHOWN) {
			more++;
			continue;
		}
		mcri_human_bytes(s->capacity, size, sizeof(size));
		mcri_buf_puts(b, shown++ ? ", " : "; lent by ");
		put_escaped(b, s->role);
		mcri_buf_puts(b, " on ");
		put_escaped(b, s->node ? s->node : s->address);
		mcri_buf_printf(b, " (%s)", size);
	}
	if (more)
		mcri_buf_printf(b, " and %zu more", more);
}

char *mcri_report_svg(const struct mcri_report *r)
{
	struct mcri_buf b = { 0 };
	double bmax = 0, kmax = 0, tspan = 0, bstep, kstep, tstep;
	long long peak = 0;
	char label[64], title[128];

	for (size_t i = 0; i < r->nsamples; i++) {
		const struct mcri_sample *s = &r->samples[i];

		bmax = fmax(bmax, fmax((double)s->capacity, (double)s->allocated));
		kmax = fmax(kmax, (double)s->keys);
		peak = s->allocated > peak ? s->allocated : peak;
	}
	if (r->nsamples > 1)
		tspan = r->samples[r->nsamples - 1].t - r->samples[0].t;
	bstep = byte_step(bmax > 0 ? bmax : 1);
	kstep = nice_step(kmax > 0 ? kmax : 1);
	if (kstep < 1)
		kstep = 1;
	tstep = nice_step(tspan > 0 ? tspan : 1);
	bmax = bstep * ceil((bmax > 0 ? bmax : 1) / bstep);
	kmax = kstep * ceil((kmax > 0 ? kmax : 1) / kstep);

	mcri_buf_printf(
		&b,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, H, W, H);
	snprintf(title, sizeof(title), "Mooncake pool of job %s", r->job_id[0] ? r->job_id : "?");
	mcri_buf_puts(&b, "<title>");
	put_escaped(&b, title);
	mcri_buf_puts(&b, "</title>\n<text x=\"90\" y=\"22\" font-size=\"15\" font-weight=\"bold\">");
	put_escaped(&b, title);
	mcri_human_bytes(peak, label, sizeof(label));
	mcri_buf_printf(&b, "</text>\n<text x=\"90\" y=\"40\" fill=\"#555\">%zu samples over ", r->nsamples);
	time_label(tspan, title, sizeof(title));
	mcri_buf_printf(&b, "%s; peak allocated %s", title, label);
	lenders(&b, r);
	mcri_buf_puts(&b, "</text>\n");
	/* grid and axes */
	for (int i = 0; i * bstep <= bmax + 0.5; i++) {
		double y = TOP + PH - i * bstep / bmax * PH;

		mcri_human_bytes((long long)(i * bstep), label, sizeof(label));
		mcri_buf_printf(&b,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
				LEFT, y, LEFT + PW, y, LEFT - 6, y + 4, label);
	}
	for (int i = 0; i * kstep <= kmax + 0.5; i++) {
		double y = TOP + PH - i * kstep / kmax * PH;

		mcri_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#d95f02\">%.0f</text>\n", LEFT + PW + 6, y + 4,
				i * kstep);
	}
	for (int i = 0; tspan > 0 && i * tstep <= tspan + 1e-9; i++) {
		double x = LEFT + i * tstep / tspan * PW;

		time_label(i * tstep, label, sizeof(label));
		mcri_buf_printf(&b,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n"
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
				x, TOP, x, TOP + PH, x, TOP + PH + 16, label);
	}
	mcri_buf_printf(
		&b,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n"
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time since the first sample (m:ss)</text>\n"
		"<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">bytes</text>\n"
		"<text transform=\"translate(%.1f %.1f) rotate(90)\" text-anchor=\"middle\" fill=\"#d95f02\">keys</text>\n",
		LEFT, TOP, PW, PH, LEFT + PW / 2, (double)H - 22, TOP + PH / 2, (double)W - 16, TOP + PH / 2);
	if (r->nsamples == 0)
		mcri_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no samples</text>\n",
				LEFT + PW / 2, TOP + PH / 2);
	series(&b, r, 0, tspan, bmax, "stroke=\"#888\" stroke-width=\"2\" stroke-dasharray=\"6 4\"");
	series(&b, r, 1, tspan, bmax, "stroke=\"#1b6ec2\" stroke-width=\"2\"");
	series(&b, r, 2, tspan, kmax, "stroke=\"#d95f02\" stroke-width=\"1.5\"");
	/* legend */
	mcri_buf_printf(
		&b,
		"<g transform=\"translate(%.1f %d)\">\n"
		"<line x1=\"0\" y1=\"0\" x2=\"24\" y2=\"0\" stroke=\"#888\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/><text x=\"30\" y=\"4\">capacity</text>\n"
		"<line x1=\"110\" y1=\"0\" x2=\"134\" y2=\"0\" stroke=\"#1b6ec2\" stroke-width=\"2\"/><text x=\"140\" y=\"4\">allocated</text>\n"
		"<line x1=\"230\" y1=\"0\" x2=\"254\" y2=\"0\" stroke=\"#d95f02\" stroke-width=\"1.5\"/><text x=\"260\" y=\"4\">keys (right axis)</text>\n"
		"</g>\n</svg>\n",
		LEFT + PW - 380, H - 8);
	return mcri_buf_take(&b);
}
