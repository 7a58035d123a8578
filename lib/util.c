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

#define ELISION " [...] "

/* Copy `len` bytes of src into dst (size bytes); when they do not fit, keep
 * the start and the end (where a message says why and what to do), joined by
 * ELISION. */
static void fit(char *dst, size_t size, const char *src, size_t len)
{
	size_t el = strlen(ELISION), head, tail;

	if (size == 0)
		return;
	if (len < size) {
		memcpy(dst, src, len);
		dst[len] = '\0';
		return;
	}
	if (size <= el + 2) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return;
	}
	tail = (size - 1 - el) / 2;
	head = size - 1 - el - tail;
	memcpy(dst, src, head);
	memcpy(dst + head, ELISION, el);
	memcpy(dst + head + el, src + len - tail, tail);
	dst[size - 1] = '\0';
}

static void set_text(struct mcr_error *err, const char *fmt, va_list ap)
{
	char *s = NULL;
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vasprintf(&s, fmt, copy);
	va_end(copy);
	if (n < 0) /* no memory for the whole text: what fits */
		vsnprintf(err->text, sizeof(err->text), fmt, ap);
	else
		fit(err->text, sizeof(err->text), s, (size_t)n);
	free(s);
}

/* A source name longer than the field keeps its end (the file's name). */
static void set_source(struct mcr_error *err, const char *name)
{
	size_t len = strlen(name), size = sizeof(err->source);

	if (len < size) {
		memcpy(err->source, name, len + 1);
		return;
	}
	memcpy(err->source, "...", 3);
	memcpy(err->source + 3, name + len - (size - 4), size - 4);
	err->source[size - 1] = '\0';
}

size_t mcr_error_format(const struct mcr_error *err, char *buf, size_t size)
{
	char where[64] = "";
	const char *kind = err->kind == MCR_WARNING ? "warning: " : "";
	const char *sep = err->source[0] ? (err->line > 0 ? where : ": ") : "";
	size_t len;
	char *s = NULL;
	int n;

	if (err->source[0] && err->line > 0)
		snprintf(where, sizeof(where), ":%d:%d: ", err->line, err->column);
	n = asprintf(&s, "mooncake: %s%s%s%s", kind, err->source, sep, err->text);
	if (n < 0) { /* no memory: what fits */
		n = snprintf(buf, size, "mooncake: %s%s%s%s", kind, err->source, sep, err->text);
		return n < 0 ? 0 : (size_t)n;
	}
	len = (size_t)n;
	fit(buf, size, s, len);
	free(s);
	return len;
}

static int verror(struct mcr_error *err, enum mcr_error_kind kind,
		  const char *source, int line, int column, const char *fmt,
		  va_list ap)
{
	if (!err)
		return -1;
	err->kind = kind;
	err->line = line;
	err->column = column;
	set_source(err, source ? source : "");
	set_text(err, fmt, ap);
	return -1;
}

int mcr_error_set(struct mcr_error *err, enum mcr_error_kind kind,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(err, kind, NULL, 0, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int mcr_verr_at(struct mcr_error *err, enum mcr_error_kind kind,
		const struct mcr_doc *doc, const struct mcr_node *at,
		const char *fmt, va_list ap)
{
	const char *name = doc && doc->name ? doc->name : "recipe";

	if (at && at->line > 0)
		return verror(err, kind, name, at->line, at->col, fmt, ap);
	return verror(err, kind, name, 0, 0, fmt, ap);
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
