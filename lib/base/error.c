/*
 * error.c - struct mcr_error: setting its fields, its code's name, and the
 * one way a message is printed (mcr_error_format, and mcri_note_at for a
 * line about a value that is no error). A text too long for its field
 * keeps its start and its end, where a message says why and what to do; a
 * name too long keeps its end.
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

/* The formatted text into dst (size bytes), fitted as fit() does; what
 * fits of it when there is no memory for the whole */
static void vfit(char *dst, size_t size, const char *fmt, va_list ap)
{
	char *s = NULL;
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vasprintf(&s, fmt, copy);
	va_end(copy);
	if (n < 0) {
		s = NULL; /* unspecified after a failure */
		vsnprintf(dst, size, fmt, ap);
	} else {
		fit(dst, size, s, (size_t)n);
	}
	free(s);
}

/* A source name longer than its field (size bytes) keeps its end (the
 * file's name). */
static void set_name(char *dst, size_t size, const char *name)
{
	size_t len = strlen(name);

	if (len < size) {
		memcpy(dst, name, len + 1);
		return;
	}
	memcpy(dst, "...", 3);
	memcpy(dst + 3, name + len - (size - 4), size - 4);
	dst[size - 1] = '\0';
}

/* "mooncake: <kind><source>:<line>:<column>: <text>" (see
 * mcr_error_format) */
static size_t format(char *buf, size_t size, const char *kind, const char *source, int line, int column,
		     const char *text)
{
	char where[64] = "";
	const char *sep = source[0] ? (line > 0 ? where : ": ") : "";
	size_t len;
	char *s = NULL;
	int n;

	if (source[0] && line > 0)
		snprintf(where, sizeof(where), ":%d:%d: ", line, column);
	n = asprintf(&s, "mooncake: %s%s%s%s", kind, source, sep, text);
	if (n < 0) { /* no memory: what fits */
		n = snprintf(buf, size, "mooncake: %s%s%s%s", kind, source, sep, text);
		return n < 0 ? 0 : (size_t)n;
	}
	len = (size_t)n;
	fit(buf, size, s, len);
	free(s);
	return len;
}

size_t mcr_error_format(const struct mcr_error *err, char *buf, size_t size)
{
	return format(buf, size, err->kind == MCR_WARNING ? "warning: " : "", err->source, err->line, err->column,
		      err->text);
}

size_t mcri_note_at(char *buf, size_t size, const struct mcr_position *at, const char *fmt, ...)
{
	char text[MCR_ERROR_TEXT_LENGTH];
	va_list ap;

	va_start(ap, fmt);
	vfit(text, sizeof(text), fmt, ap);
	va_end(ap);
	return format(buf, size, "", at->source, at->line, at->column, text);
}

void mcri_position_set(struct mcr_position *at, const char *source, int line, int column, const char *path)
{
	set_name(at->source, sizeof(at->source), source ? source : "");
	at->line = line;
	at->column = column;
	snprintf(at->path, sizeof(at->path), "%s", path ? path : "");
}

/* the codes' names, in the order of enum mcr_error_code */
static const char *const CODE_NAMES[] = {
	"none", "invalid", "io", "nomem", "state", "advice", "YAML", "field", "schema", "log_dir", "shape",
	"C1",   "C2",      "C3", "C4",    "C5",    "C6",     "C7",   "C8",    "C9",     "C10",     "C11",
	"V1",   "V2",      "V3", "S1",    "M1",    "E1",     "E2",   "E3",    "H1",     "T1",      "E4",
};

const char *mcr_error_code_name(enum mcr_error_code code)
{
	if ((unsigned)code >= sizeof(CODE_NAMES) / sizeof(CODE_NAMES[0]))
		return "?";
	return CODE_NAMES[code];
}

/* the code of an error no one has said more of */
static enum mcr_error_code kind_code(enum mcr_error_kind kind)
{
	switch (kind) {
	case MCR_OK:
		return MCR_E_NONE;
	case MCR_EINVAL:
		return MCR_E_INVALID;
	case MCR_EIO:
		return MCR_E_IO;
	case MCR_ESTATE:
		return MCR_E_STATE;
	case MCR_WARNING:
		return MCR_E_ADVICE;
	}
	return MCR_E_INVALID;
}

int mcri_error_vat(struct mcr_error *err, enum mcr_error_kind kind, const char *source, int line, int column,
		   const char *fmt, va_list ap)
{
	if (!err)
		return -1;
	err->kind = kind;
	err->code = kind_code(kind);
	err->line = line;
	err->column = column;
	set_name(err->source, sizeof(err->source), source ? source : "");
	vfit(err->text, sizeof(err->text), fmt, ap);
	return -1;
}

int mcri_error_at(struct mcr_error *err, enum mcr_error_kind kind, const struct mcr_position *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mcri_error_vat(err, kind, at->source, at->line, at->column, fmt, ap);
	va_end(ap);
	return -1;
}

int mcri_error_set(struct mcr_error *err, enum mcr_error_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mcri_error_vat(err, kind, NULL, 0, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int mcri_error_nomem(struct mcr_error *err)
{
	mcri_error_set(err, MCR_EIO, "out of memory");
	return mcri_error_code(err, MCR_E_NOMEM);
}

int mcri_error_code(struct mcr_error *err, enum mcr_error_code code)
{
	if (err)
		err->code = code;
	return -1;
}
