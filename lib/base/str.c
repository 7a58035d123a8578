/*
 * str.c - growable strings and NULL-terminated string vectors.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

char *mcri_vasprintf(const char *fmt, va_list ap)
{
	char *s = NULL;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *mcri_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = mcri_vasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void mcri_buf_add(struct mcri_buf *b, const char *s, size_t n)
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

void mcri_buf_puts(struct mcri_buf *b, const char *s)
{
	mcri_buf_add(b, s, strlen(s));
}

void mcri_buf_printf(struct mcri_buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = mcri_vasprintf(fmt, ap);
	va_end(ap);
	if (!s) {
		b->oom = true;
		return;
	}
	mcri_buf_puts(b, s);
	free(s);
}

char *mcri_buf_take(struct mcri_buf *b)
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

bool mcri_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		unsigned c = *p++, n, cp;

		if (c < 0x80)
			continue;
		if (c >= 0xC2 && c <= 0xDF)
			n = 1, cp = c & 0x1F;
		else if (c >= 0xE0 && c <= 0xEF)
			n = 2, cp = c & 0x0F;
		else if (c >= 0xF0 && c <= 0xF4)
			n = 3, cp = c & 0x07;
		else
			return false;
		if ((size_t)(end - p) < n)
			return false;
		for (unsigned i = 0; i < n; i++, p++) {
			if ((*p & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (*p & 0x3F);
		}
		if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
		    (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
			return false;
	}
	return true;
}

char *mcri_printable(const char *s, size_t max, char *buf, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return buf;
	for (; s[n] && n < max && n + 1 < size; n++)
		buf[n] = s[n] >= 0x20 && s[n] < 0x7f ? s[n] : '?';
	buf[n] = '\0';
	return buf;
}
