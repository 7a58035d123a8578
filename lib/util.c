/*
 * util.c - small string helpers and error formatting.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

char *mcr_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *mcr_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

void mcr_buf_add(struct mcr_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void mcr_buf_puts(struct mcr_buf *b, const char *s)
{
	mcr_buf_add(b, s, strlen(s));
}

void mcr_buf_printf(struct mcr_buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	mcr_buf_add(b, s, (size_t)n);
	free(s);
}

char *mcr_buf_take(struct mcr_buf *b)
{
	char *p;

	if (b->oom) {
		free(b->p);
		b->p = NULL;
		b->len = b->cap = 0;
		return NULL;
	}
	if (!b->p)
		return strdup("");
	p = b->p;
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

static void set_msg(struct mcr_error *err, enum mcr_error_kind kind,
		    const char *prefix, const char *fmt, va_list ap)
{
	int n;

	if (!err)
		return;
	err->kind = kind;
	n = snprintf(err->msg, sizeof(err->msg), "mooncake: %s", prefix);
	if (n < 0 || (size_t)n >= sizeof(err->msg))
		return;
	vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
}

int mcr_error_set(struct mcr_error *err, enum mcr_error_kind kind,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_msg(err, kind, "", fmt, ap);
	va_end(ap);
	return -1;
}

int mcr_verr_at(struct mcr_error *err, enum mcr_error_kind kind,
		const struct mcr_doc *doc, const struct mcr_node *at,
		const char *fmt, va_list ap)
{
	char prefix[1024];
	const char *name = doc && doc->name ? doc->name : "recipe";

	if (at && at->line > 0)
		snprintf(prefix, sizeof(prefix), "%s:%d:%d: ", name, at->line,
			 at->col);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", name);
	set_msg(err, kind, prefix, fmt, ap);
	return -1;
}

int mcr_err_at(struct mcr_error *err, enum mcr_error_kind kind,
	       const struct mcr_doc *doc, const struct mcr_node *at,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mcr_verr_at(err, kind, doc, at, fmt, ap);
	va_end(ap);
	return -1;
}

int mcr_err_nomem(struct mcr_error *err)
{
	return mcr_error_set(err, MCR_EIO, "out of memory");
}

void mcr_strv_free(char **strv)
{
	if (!strv)
		return;
	for (char **p = strv; *p; p++)
		free(*p);
	free(strv);
}

size_t mcr_strv_len(char *const *strv)
{
	size_t n = 0;

	while (strv && strv[n])
		n++;
	return n;
}

const char *mcr_role_name(enum mcr_role role)
{
	switch (role) {
	case MCR_ROLE_PREFILL:
		return "prefill";
	case MCR_ROLE_DECODE:
		return "decode";
	case MCR_ROLE_AGG:
		return "agg";
	default:
		return NULL;
	}
}

enum mcr_role mcr_role_from_name(const char *name)
{
	for (int r = 0; r < MCR_ROLE_COUNT; r++)
		if (name && strcmp(name, mcr_role_name((enum mcr_role)r)) == 0)
			return (enum mcr_role)r;
	return MCR_ROLE_NONE;
}

const char *mcr_engine_name(enum mcr_engine engine)
{
	switch (engine) {
	case MCR_ENGINE_SGLANG:
		return "sglang";
	case MCR_ENGINE_VLLM:
		return "vllm";
	case MCR_ENGINE_TRTLLM:
		return "trtllm";
	default:
		return "other";
	}
}
