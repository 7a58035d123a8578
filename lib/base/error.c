/*
 * error.c - struct mcr_error: setting its fields, and the one function that
 * prints it (mcr_error_format). A text or name too long for its field keeps
 * its end, where a message says why and what to do.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

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

int mcri_error_vat(struct mcr_error *err, enum mcr_error_kind kind,
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

int mcri_error_set(struct mcr_error *err, enum mcr_error_kind kind,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mcri_error_vat(err, kind, NULL, 0, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int mcri_error_nomem(struct mcr_error *err)
{
	return mcri_error_set(err, MCR_EIO, "out of memory");
}
