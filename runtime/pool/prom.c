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
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pool/pool.h"

static bool name_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' || c == ':' ||
	       (!first && isdigit((unsigned char)c));
}

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* a label value from just after its opening quote; *end after the closing.
 * *unusable when it is not UTF-8 or holds a control character: status
 * --json could not write it, its text would gain a line (no master names
 * a segment so, but any client may register one) */
static char *label_value(const char *p, const char **end, bool *unusable)
{
	struct mcri_buf b = { 0 };

	for (; *p && *p != '"' && *p != '\n'; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			mcri_buf_add(&b, *p == 'n' ? "\n" : p, 1);
		} else {
			mcri_buf_add(&b, p, 1);
		}
	}
	if (*p != '"') {
		free(b.p);
		*end = NULL;
		return NULL;
	}
	*unusable |= !mcri_utf8_valid(b.p ? b.p : "", b.len);
	for (size_t i = 0; i < b.len; i++)
		*unusable |= (unsigned char)b.p[i] < 0x20 || b.p[i] == 0x7f;
	*end = p + 1;
	mcri_buf_add(&b, "", 0);
	return mcri_buf_take(&b);
}

static bool parse_value(const char *p, double *v, const char **end)
{
	char *e;

	if (strncmp(p, "+Inf", 4) == 0 || strncmp(p, "Inf", 3) == 0) {
		*v = INFINITY;
		*end = p + (*p == '+' ? 4 : 3);
		return true;
	}
	if (strncmp(p, "-Inf", 4) == 0) {
		*v = -INFINITY;
		*end = p + 4;
		return true;
	}
	if (strncmp(p, "NaN", 3) == 0) {
		*v = NAN;
		*end = p + 3;
		return true;
	}
	errno = 0;
	*v = strtod(p, &e);
	if (e == p || errno == ERANGE)
		return false;
	*end = e;
	return true;
}

static void sample_free(struct mcri_prom_sample *s)
{
	free(s->name);
	if (s->labels)
		for (char **l = s->labels; *l; l++)
			free(*l);
	free(s->labels);
}

/* one sample line (without its newline) into s; -1 when it is not one,
 * -2 out of memory, -3 a sample with a label no one can use (skipped) */
static int parse_line(const char *line, size_t len, struct mcri_prom_sample *s)
{
	char *copy = strndup(line, len);
	const char *p = copy, *start;
	size_t nl = 0;
	int rc = -1;
	bool unusable = false;

	memset(s, 0, sizeof(*s));
	if (!copy)
		return -2;
	if (!(s->labels = calloc(1, sizeof(char *))))
		goto nomem;
	start = p;
	if (!name_char(*p, true))
		goto out;
	while (name_char(*p, false))
		p++;
	if (!(s->name = strndup(start, (size_t)(p - start))))
		goto nomem;
	if (*p == '{') {
		p = skip_blank(p + 1);
		while (*p != '}') {
			char **nlabels, *lname, *lvalue;

			start = p;
			if (!name_char(*p, true))
				goto out;
			while (name_char(*p, false))
				p++;
			if (!(lname = strndup(start, (size_t)(p - start))))
				goto nomem;
			p = skip_blank(p);
			if (*p != '=' || *(p = skip_blank(p + 1)) != '"') {
				free(lname);
				goto out;
			}
			lvalue = label_value(p + 1, &p, &unusable);
			if (!lvalue) {
				free(lname);
				if (!p)
					goto out;
				goto nomem;
			}
			nlabels = realloc(s->labels, (nl + 3) * sizeof(char *));
			if (!nlabels) {
				free(lname);
				free(lvalue);
				goto nomem;
			}
			s->labels = nlabels;
			s->labels[nl++] = lname;
			s->labels[nl++] = lvalue;
			s->labels[nl] = NULL;
			p = skip_blank(p);
			if (*p == ',')
				p = skip_blank(p + 1);
			else if (*p != '}')
				goto out;
		}
		p++;
	}
	if (*p != ' ' && *p != '\t')
		goto out;
	p = skip_blank(p);
	if (!parse_value(p, &s->value, &p))
		goto out;
	p = skip_blank(p);
	if (*p) { /* a timestamp: an integer of milliseconds */
		if (*p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			goto out;
		while (isdigit((unsigned char)*p))
			p++;
		if (*skip_blank(p))
			goto out;
	}
	rc = unusable ? -3 : 0;
	goto out;
nomem:
	rc = -2;
out:
	free(copy);
	if (rc)
		sample_free(s);
	return rc;
}

int mcri_prom_parse(const char *text, struct mcri_prom *out,
		    struct mcr_error *err)
{
	int lineno = 0;

	memset(out, 0, sizeof(*out));
	for (const char *p = text, *next; *p; p = next) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *s = skip_blank(p);
		struct mcri_prom_sample sample;
		char shown[104];
		int rc;

		next = p + len + (nl ? 1 : 0);
		lineno++;
		while (len && p[len - 1] == '\r')
			len--;
		if (*s == '#' || (size_t)(s - p) >= len)
			continue;
		rc = parse_line(s, len - (size_t)(s - p), &sample);
		if (rc == -3)
			continue; /* a sample of a label no one can use */
		if (rc == 0 && out->n == out->cap) {
			size_t cap = out->cap ? 2 * out->cap : 256;
			struct mcri_prom_sample *ns = realloc(out->s, cap * sizeof(*ns));

			if (!ns) {
				sample_free(&sample);
				rc = -2;
			} else {
				out->s = ns;
				out->cap = cap;
			}
		}
		if (rc) {
			mcri_prom_free(out);
			if (rc == -2)
				return mcri_error_nomem(err);
			return mcri_error_set(err, MCR_EINVAL,
					      "line %d of the master's /metrics is not a Prometheus sample: '%s'",
					      lineno, mcri_printable(s, len - (size_t)(s - p) > 100 ? 100 : len - (size_t)(s - p),
								     shown, sizeof(shown)));
		}
		out->s[out->n++] = sample;
	}
	return 0;
}

void mcri_prom_free(struct mcri_prom *p)
{
	for (size_t i = 0; i < p->n; i++)
		sample_free(&p->s[i]);
	free(p->s);
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
