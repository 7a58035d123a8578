/*
 * prom.c - the Prometheus text exposition format (version 0.0.4), as the
 * master's /metrics writes it:
 *
 *   # HELP master_allocated_bytes ...
 *   # TYPE master_allocated_bytes gauge
 *   master_allocated_bytes 3145728
 *   segment_allocated_bytes{segment="10.99.0.1:14246"} 3145728
 *   master_value_size_bytes_bucket{le="+Inf"} 4
 *
 * A sample is a name, optional labels {name="value",...} (value escapes
 * \\, \" and \n), a value (a float, +Inf, -Inf, NaN) and an optional
 * timestamp, which is ignored.
 *
 * Whoever answers on the master's metrics port writes this text, so the
 * reader costs time and memory linear in it: one copy of the page, in
 * which every name and label is cut out in place (an escape only
 * shortens a value), one array of samples and one table of every
 * sample's labels, each grown by doubling, and at most
 * MCRI_PROM_SAMPLES_MAX samples and MCRI_PROM_LABELS_MAX labels.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pool/pool.h"

static bool name_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' || c == ':' || (!first && isdigit((unsigned char)c));
}

static char *skip_blank(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static const char *skip_blank_c(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static bool parse_value(const char *p, double *v, char **end)
{
	char *e;

	if (strncmp(p, "+Inf", 4) == 0 || strncmp(p, "Inf", 3) == 0) {
		*v = INFINITY;
		*end = (char *)p + (*p == '+' ? 4 : 3);
		return true;
	}
	if (strncmp(p, "-Inf", 4) == 0) {
		*v = -INFINITY;
		*end = (char *)p + 4;
		return true;
	}
	if (strncmp(p, "NaN", 3) == 0) {
		*v = NAN;
		*end = (char *)p + 3;
		return true;
	}
	errno = 0;
	*v = strtod(p, &e);
	if (e == p || errno == ERANGE)
		return false;
	*end = e;
	return true;
}

/* room for `more` entries in an array of `size`-byte items grown by
 * doubling; false out of memory */
static bool room(void **arr, size_t *cap, size_t n, size_t more, size_t size)
{
	size_t want = *cap ? *cap : 256;
	void *grown;

	if (n + more <= *cap)
		return true;
	while (want < n + more)
		want *= 2;
	if (!(grown = realloc(*arr, want * size)))
		return false;
	*arr = grown;
	*cap = want;
	return true;
}

enum line_result { LINE_OK = 0, LINE_BAD = -1, LINE_NOMEM = -2, LINE_UNUSABLE = -3, LINE_LABELS = -4 };

/* the label value from just after its opening quote, unescaped in place
 * and cut at its end (NUL); *next after the closing quote, NULL when it
 * has none. *unusable when it is not UTF-8 or holds a control character:
 * status --json could not write it, its text would gain a line (no master
 * names a segment so, but any client may register one) */
static char *label_value(char *p, char **next, bool *unusable)
{
	char *w = p, *r = p;

	for (; *r && *r != '"'; r++) {
		if (*r == '\\' && r[1]) {
			r++;
			*w++ = *r == 'n' ? '\n' : *r;
		} else {
			*w++ = *r;
		}
	}
	if (*r != '"') {
		*next = NULL;
		return NULL;
	}
	*next = r + 1;
	*w = '\0';
	*unusable |= !mcri_utf8_valid(p, (size_t)(w - p));
	for (const char *c = p; c < w; c++)
		*unusable |= (unsigned char)*c < 0x20 || *c == 0x7f;
	return p;
}

/* one sample line of the page's copy (NUL-terminated, changed in place)
 * into s, its labels appended to p's table (taken back unless LINE_OK) */
static enum line_result parse_line(char *line, struct mcri_prom_sample *s, struct mcri_prom *p)
{
	size_t first = p->nlabel;
	char *q = line, c;
	bool unusable = false;
	enum line_result rc = LINE_BAD;

	memset(s, 0, sizeof(*s));
	if (!name_char(*q, true))
		return LINE_BAD;
	s->name = q;
	while (name_char(*q, false))
		q++;
	c = *q;
	*q++ = '\0';
	if (c == '{') {
		q = skip_blank(q);
		while (*q != '}') {
			char *lname = q, *lend, *lvalue;

			if (!name_char(*q, true))
				goto out;
			while (name_char(*q, false))
				q++;
			lend = q;
			q = skip_blank(q);
			if (*q != '=' || *(q = skip_blank(q + 1)) != '"')
				goto out;
			*lend = '\0';
			if (!(lvalue = label_value(q + 1, &q, &unusable)))
				goto out;
			if (p->nlabels + s->nlabels >= MCRI_PROM_LABELS_MAX) {
				rc = LINE_LABELS;
				goto out;
			}
			/* the pair, and room for the list's NULL */
			if (!room((void **)&p->label, &p->label_cap, p->nlabel, 3, sizeof(char *))) {
				rc = LINE_NOMEM;
				goto out;
			}
			p->label[p->nlabel++] = lname;
			p->label[p->nlabel++] = lvalue;
			s->nlabels++;
			q = skip_blank(q);
			if (*q == ',')
				q = skip_blank(q + 1);
			else if (*q != '}')
				goto out;
		}
		c = *++q;
		q++;
	}
	if (c != ' ' && c != '\t')
		goto out;
	if (!parse_value(skip_blank(q), &s->value, &q))
		goto out;
	q = skip_blank(q);
	if (*q) { /* a timestamp: an integer of milliseconds */
		if (*q == '-')
			q++;
		if (!isdigit((unsigned char)*q))
			goto out;
		while (isdigit((unsigned char)*q))
			q++;
		if (*skip_blank(q))
			goto out;
	}
	if (unusable) {
		rc = LINE_UNUSABLE;
		goto out;
	}
	if (!room((void **)&p->label, &p->label_cap, p->nlabel, 1, sizeof(char *)))
		return LINE_NOMEM;
	p->label[p->nlabel++] = NULL;
	p->nlabels += s->nlabels;
	return LINE_OK;
out:
	p->nlabel = first;
	return rc;
}

int mcri_prom_parse(const char *text, struct mcri_prom *out, struct mcr_error *err)
{
	size_t size = strlen(text), k = 0;
	int lineno = 0;

	memset(out, 0, sizeof(*out));
	if (!(out->text = malloc(size + 1)))
		return mcri_error_nomem(err);
	memcpy(out->text, text, size + 1);
	for (const char *p = text, *next; *p; p = next) {
		const char *nl = memchr(p, '\n', size - (size_t)(p - text));
		size_t len = nl ? (size_t)(nl - p) : size - (size_t)(p - text);
		const char *s = skip_blank_c(p);
		char *line = out->text + (s - text), shown[104];
		struct mcri_prom_sample sample;
		enum line_result rc;

		next = p + len + (nl ? 1 : 0);
		lineno++;
		while (len && p[len - 1] == '\r')
			len--;
		if ((size_t)(s - p) >= len || *s == '#')
			continue;
		out->text[p + len - text] = '\0';
		rc = parse_line(line, &sample, out);
		if (rc == LINE_UNUSABLE)
			continue; /* a sample of a label no one can use */
		if (rc == LINE_OK && out->n == MCRI_PROM_SAMPLES_MAX) {
			mcri_prom_free(out);
			return mcri_error_set(
				err, MCR_EINVAL,
				"the master's /metrics holds more than %u samples (line %d), more than a pool of %u segments gives: it is read no further; is what answers on the job's metrics port its mooncake_master?",
				MCRI_PROM_SAMPLES_MAX, lineno, MCRI_POOL_SEGMENTS_MAX);
		}
		if (rc == LINE_OK && !room((void **)&out->s, &out->cap, out->n, 1, sizeof(*out->s)))
			rc = LINE_NOMEM;
		if (rc == LINE_LABELS) {
			mcri_prom_free(out);
			return mcri_error_set(
				err, MCR_EINVAL,
				"the master's /metrics holds more than %u labels (line %d), more than a pool of %u segments gives: it is read no further; is what answers on the job's metrics port its mooncake_master?",
				MCRI_PROM_LABELS_MAX, lineno, MCRI_POOL_SEGMENTS_MAX);
		}
		if (rc) {
			mcri_prom_free(out);
			if (rc == LINE_NOMEM)
				return mcri_error_nomem(err);
			len -= (size_t)(s - p);
			return mcri_error_set(err, MCR_EINVAL,
					      "line %d of the master's /metrics is not a Prometheus sample: '%s'",
					      lineno, mcri_printable(s, len > 100 ? 100 : len, shown, sizeof(shown)));
		}
		out->s[out->n++] = sample;
	}
	/* each sample's labels, now that the table has stopped moving */
	for (size_t i = 0; i < out->n; i++) {
		out->s[i].labels = out->label + k;
		k += 2 * out->s[i].nlabels + 1;
	}
	return 0;
}

void mcri_prom_free(struct mcri_prom *p)
{
	free(p->s);
	free(p->label);
	free(p->text);
	memset(p, 0, sizeof(*p));
}

const char *mcri_prom_label(const struct mcri_prom_sample *s, const char *label)
{
	for (char **l = s->labels; l && l[0] && l[1]; l += 2)
		if (strcmp(l[0], label) == 0)
			return l[1];
	return NULL;
}

bool mcri_prom_value(const struct mcri_prom *p, const char *name, double *v)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->s[i].name, name) == 0) {
			*v = p->s[i].value;
			return true;
		}
	return false;
}
