/*
 * engines.c - sizes as each engine's own Mooncake reader reads them
 * (reference §9, doc/engine-contracts.md): vLLM's _parse_size() for its
 * client config, SGLang's _parse_global_segment_size() for
 * MOONCAKE_GLOBAL_SEGMENT_SIZE, TRT-LLM's parse_size(strict_units=True)
 * (size.c); the byte count explain states; and, for a size an engine
 * refuses, a spelling it takes for the size the user meant, checked by
 * reading it back. The rules that use them are readers.c's (V3, S1).
 *
 * Text is read as ASCII: the engines' Python also takes other Unicode
 * digits and blanks, which the plugin refuses (stricter, never looser).
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules/engines.h"
#include "rules/size.h"

#define GIB 1073741824.0

/* the number of [\d.]+ as Python's float() takes it: digits with at most
 * one dot; its end in *end */
static bool py_float_digits(const char *p, const char **end, double *v)
{
	const char *num = p;
	size_t digits = 0, dots = 0;
	char buf[400];

	for (; isdigit((unsigned char)*p) || *p == '.'; p++)
		*p == '.' ? dots++ : digits++;
	if (digits == 0 || dots > 1 || (size_t)(p - num) >= sizeof(buf))
		return false;
	memcpy(buf, num, (size_t)(p - num));
	buf[p - num] = '\0';
	*v = strtod(buf, NULL);
	*end = p;
	return true;
}

int mcri_vllm_size_text(const char *text, long long *bytes)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = { { "gb", GIB }, { "mb", 1048576.0 }, { "kb", 1024.0 }, { "b", 1.0 } };
	const char *p = text;
	double scale = 1.0, v;
	size_t ulen;

	/* strip, lower, then ^\s*([\d.]+)\s*(gb|mb|kb|b)?\s*$, float() */
	while (mcri_py_space(*p))
		p++;
	if (!py_float_digits(p, &p, &v))
		return -1;
	while (mcri_py_space(*p))
		p++;
	for (ulen = 0; isalpha((unsigned char)p[ulen]); ulen++)
		;
	if (ulen) {
		scale = -1.0;
		for (size_t i = 0; i < MCRI_ARRAY_LEN(units); i++)
			if (strlen(units[i].unit) == ulen && strncasecmp(p, units[i].unit, ulen) == 0)
				scale = units[i].scale;
		if (scale < 0)
			return -1;
		p += ulen;
	}
	while (mcri_py_space(*p))
		p++;
	if (*p || !isfinite(v * scale)) /* int(inf): OverflowError */
		return -1;
	*bytes = mcri_trunc_ll(v * scale);
	return 0;
}

int mcri_vllm_size(const struct mcri_node *n, long long *bytes)
{
	switch (n->type) {
	case MCRI_T_INT: /* beyond 64 bits: clamped, saturated as Python would not */
		*bytes = n->i;
		return 0;
	case MCRI_T_FLOAT:
		if (!isfinite(n->f))
			return -1;
		*bytes = mcri_trunc_ll(n->f);
		return 0;
	case MCRI_T_STR:
		return mcri_vllm_size_text(n->s, bytes);
	default: /* a bool is an int to Python: vLLM would take `true` as 1 byte */
		return -1;
	}
}

int mcri_store_size_text(const char *text, long long *bytes)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = { { "kb", 1024.0 },     { "mb", 1048576.0 }, { "gb", GIB },
		      { "tb", GIB * 1024 }, { "k", 1024.0 },     { "m", 1048576.0 },
		      { "g", GIB },         { "t", GIB * 1024 }, { "b", 1.0 } };
	const char *b = text, *e = text + strlen(text);
	double scale = 1.0, v;
	char num[400], *end;
	size_t len;

	while (mcri_py_space(*b))
		b++;
	while (e > b && mcri_py_space(e[-1]))
		e--;
	len = (size_t)(e - b);
	/* the first unit the lowered text ends with, in the service's order */
	for (size_t i = 0; i < MCRI_ARRAY_LEN(units); i++) {
		size_t ul = strlen(units[i].unit);

		if (len >= ul && strncasecmp(e - ul, units[i].unit, ul) == 0) {
			scale = units[i].scale;
			len -= ul;
			break;
		}
	}
	while (len && mcri_py_space(b[len - 1]))
		len--;
	if (!len || len >= sizeof(num))
		return -1;
	memcpy(num, b, len);
	num[len] = '\0';
	/* float(): a decimal number, with an exponent; not C's hex, inf or nan */
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)num[i]) && !strchr("+-.eE", num[i]))
			return -1;
	v = strtod(num, &end);
	if (*end || end == num || !isfinite(v * scale))
		return -1;
	*bytes = mcri_trunc_ll(v * scale);
	return 0;
}

int mcri_sglang_size_text(const char *text, long long *bytes)
{
	const long long gib = 1LL << 30;
	const char *b = text, *e = text + strlen(text);
	char num[400];
	bool gb;
	long long v;

	/* strip, lower; "<int>gb" is int() x 1024^3, anything else int() */
	while (mcri_py_space(*b))
		b++;
	while (e > b && mcri_py_space(e[-1]))
		e--;
	gb = e - b >= 2 && strncasecmp(e - 2, "gb", 2) == 0;
	if ((size_t)(e - b) >= sizeof(num))
		return -1;
	memcpy(num, b, (size_t)(e - b) - (gb ? 2 : 0));
	num[(e - b) - (gb ? 2 : 0)] = '\0';
	if (!mcri_py_int_text(num, &v))
		return -1;
	if (gb)
		v = v > LLONG_MAX / gib ? LLONG_MAX : v < LLONG_MIN / gib ? LLONG_MIN : v * gib;
	*bytes = v;
	return 0;
}

int mcri_engine_size(const struct mcr_recipe *r, const struct mcri_node *n, const char *text, long long *bytes)
{
	struct mcr_error ignored;

	if (!n && !text)
		return -1;
	switch (r->engine) {
	case MCR_ENGINE_VLLM:
		return n ? mcri_vllm_size(n, bytes) : mcri_vllm_size_text(text, bytes);
	case MCR_ENGINE_SGLANG:
		return text             ? mcri_sglang_size_text(text, bytes)
		       : mcri_is_str(n) ? mcri_sglang_size_text(n->s, bytes)
					: -1;
	default:
		if (n)
			return mcri_size_of_node("size", n, bytes, &ignored);
		return mcr_parse_size_text("size", text, bytes, &ignored);
	}
}

/* The bytes a size in any usual spelling means, every unit a power of
 * 1024 ("16GB", "16 GiB", "1.5t", "32M"): false when it is not one. */
static bool meant_bytes(const char *text, double *bytes)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {
		{ "", 1 },
		{ "b", 1 },
		{ "k", 1024 },
		{ "kb", 1024 },
		{ "kib", 1024 },
		{ "m", 1048576.0 },
		{ "mb", 1048576.0 },
		{ "mib", 1048576.0 },
		{ "g", GIB },
		{ "gb", GIB },
		{ "gib", GIB },
		{ "t", GIB * 1024 },
		{ "tb", GIB * 1024 },
		{ "tib", GIB * 1024 },
		{ "p", GIB * 1048576 },
		{ "pb", GIB * 1048576 },
		{ "pib", GIB * 1048576 },
	};
	const char *p = text, *u;
	double v;
	size_t ulen;

	while (mcri_py_space(*p))
		p++;
	if (!py_float_digits(p, &p, &v))
		return false;
	while (mcri_py_space(*p))
		p++;
	for (u = p, ulen = 0; isalpha((unsigned char)p[ulen]); ulen++)
		;
	for (p += ulen; mcri_py_space(*p); p++)
		;
	if (*p || ulen == 0) /* a bare number refused is no size anyone meant */
		return false;
	for (size_t i = 0; i < MCRI_ARRAY_LEN(units); i++)
		if (strlen(units[i].unit) == ulen && strncasecmp(u, units[i].unit, ulen) == 0) {
			*bytes = trunc(v * units[i].scale);
			return isfinite(*bytes) && *bytes < 9.2e18;
		}
	return false;
}

void mcri_size_suggestion(enum mcr_engine engine, const char *text, char *out, size_t size)
{
	double want;
	long long b, got;
	char cand[64];

	out[0] = '\0';
	if (!meant_bytes(text, &want))
		return;
	b = (long long)want;
	/* the largest whole unit of the engine's, else the byte count */
	if (engine == MCR_ENGINE_VLLM && b % (1LL << 30) == 0)
		snprintf(cand, sizeof(cand), "%lldGB", b >> 30);
	else if (engine == MCR_ENGINE_VLLM && b % (1LL << 20) == 0)
		snprintf(cand, sizeof(cand), "%lldMB", b >> 20);
	else if (engine == MCR_ENGINE_VLLM && b % 1024 == 0)
		snprintf(cand, sizeof(cand), "%lldKB", b >> 10);
	else if (engine == MCR_ENGINE_SGLANG && b % (1LL << 30) == 0)
		snprintf(cand, sizeof(cand), "%lldgb", b >> 30);
	else
		snprintf(cand, sizeof(cand), "%lld", b);
	/* only a spelling the engine reads back as those bytes */
	if ((engine == MCR_ENGINE_VLLM ? mcri_vllm_size_text(cand, &got) : mcri_sglang_size_text(cand, &got)) == 0 &&
	    got == b)
		snprintf(out, size, "; write '%s' (%lld bytes to %s)", cand, b,
			 engine == MCR_ENGINE_VLLM ? "vLLM" : "SGLang");
}
