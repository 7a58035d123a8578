/*
 * hostlist.c - expand Slurm host lists ("n[1-3,7],gpu-[01-02]").
 *
 * The plugin calls this instead of slurm_hostlist_*, whose type changed in
 * Slurm 23.11, so the same code builds against every release and is tested
 * here with Check and the sanitizers.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"

struct out {
	char **v;
	size_t n, max;
};

static int push(struct out *o, char *s, struct mcr_error *err)
{
	char **v;

	if (!s)
		return mcri_error_nomem(err);
	if (o->n >= o->max) {
		free(s);
		return mcri_error_set(err, MCR_EINVAL, "the host list names more than %zu hosts", o->max);
	}
	v = realloc(o->v, (o->n + 2) * sizeof(*v));
	if (!v) {
		free(s);
		return mcri_error_nomem(err);
	}
	o->v = v;
	v[o->n++] = s;
	v[o->n] = NULL;
	return 0;
}

/* Expand one host expression: prefix[ranges]suffix, possibly several
 * bracket groups ("rack[1-2]-n[1-3]"), recursively. */
static int expand(struct out *o, const char *expr, size_t len, struct mcr_error *err)
{
	const char *open = memchr(expr, '[', len), *close, *p;

	if (!open)
		return push(o, strndup(expr, len), err);
	close = memchr(open, ']', len - (size_t)(open - expr));
	if (!close || close == open + 1)
		return mcri_error_set(err, MCR_EINVAL, "bad host list '%.*s': unbalanced or empty brackets", (int)len,
				      expr);
	for (p = open + 1; p < close;) {
		const char *comma = memchr(p, ',', (size_t)(close - p));
		const char *end = comma ? comma : close, *dash;
		unsigned long lo, hi;
		int width;
		char *e;

		dash = memchr(p, '-', (size_t)(end - p));
		if (!isdigit((unsigned char)*p))
			goto bad;
		lo = strtoul(p, &e, 10);
		if (e != (dash ? dash : end))
			goto bad;
		width = (int)(e - p);
		hi = lo;
		if (dash) {
			if (!isdigit((unsigned char)dash[1]))
				goto bad;
			hi = strtoul(dash + 1, &e, 10);
			if (e != end || hi < lo)
				goto bad;
		}
		if (hi - lo >= o->max)
			return mcri_error_set(err, MCR_EINVAL, "the host list names more than %zu hosts", o->max);
		for (unsigned long i = lo; i <= hi; i++) {
			char *s = mcri_asprintf("%.*s%0*lu%.*s", (int)(open - expr), expr, width, i,
						(int)(len - (size_t)(close + 1 - expr)), close + 1);
			int rc;

			if (!s)
				return mcri_error_nomem(err);
			rc = expand(o, s, strlen(s), err);
			free(s);
			if (rc)
				return -1;
		}
		p = comma ? comma + 1 : close;
	}
	return 0;
bad:
	return mcri_error_set(err, MCR_EINVAL, "bad host list '%.*s': ranges must look like [1-3,7] or [01-10]",
			      (int)len, expr);
}

int mcri_hostlist_expand(const char *list, size_t max_hosts, char ***hosts, struct mcr_error *err)
{
	struct out o = { NULL, 0, max_hosts };
	const char *p = list;

	*hosts = NULL;
	if (!list)
		return mcri_error_set(err, MCR_EINVAL, "empty host list");
	while (*p) {
		const char *start = p;
		int depth = 0;

		/* a top-level comma ends a host expression */
		for (; *p && (depth > 0 || *p != ','); p++) {
			if (*p == '[')
				depth++;
			else if (*p == ']' && --depth < 0)
				break;
		}
		if (depth != 0) {
			mcr_strv_free(o.v);
			return mcri_error_set(err, MCR_EINVAL, "bad host list '%s': unbalanced brackets", list);
		}
		if (p > start && expand(&o, start, (size_t)(p - start), err)) {
			mcr_strv_free(o.v);
			return -1;
		}
		if (*p == ',')
			p++;
	}
	if (o.n == 0) {
		mcr_strv_free(o.v);
		return mcri_error_set(err, MCR_EINVAL, "empty host list '%s'", list);
	}
	*hosts = o.v;
	return 0;
}
