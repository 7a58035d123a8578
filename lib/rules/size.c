/*
 * size.c - sizes as TRT-LLM's parse_size(strict_units=True) reads them
 * (reference §9), and Python's int() for transfer_batch_size: what the
 * rendered-payload rules (C11, payload.c) need.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules/size.h"

#define SIZE_HINT "must be a byte count or use a binary unit (KiB, MiB, GiB, TiB); 'GB' is refused"

struct unit {
	const char *name;
	double scale;
};

static const struct unit UNITS[] = {
	{ "", 1.0 },
	{ "b", 1.0 },
	{ "kib", 1024.0 },
	{ "mib", 1024.0 * 1024 },
	{ "gib", 1024.0 * 1024 * 1024 },
	{ "tib", 1024.0 * 1024 * 1024 * 1024 },
};

/* Python's str.strip() whitespace for ASCII text */
bool mcri_py_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\x1c' ||
	       c == '\x1d' || c == '\x1e' || c == '\x1f';
}

/* truncate toward zero, as Python int(float); Python's ints have no bound,
 * ours saturate at 64 bits, which no size check can tell apart */
long long mcri_trunc_ll(double v)
{
	double t = trunc(v);

	if (t >= 9.2233720368547758e18)
		return LLONG_MAX;
	if (t <= -9.2233720368547758e18)
		return LLONG_MIN;
	return (long long)t;
}

static int parse_text(const char *text, long long *bytes)
{
	/* ^\s*([0-9]+(\.[0-9]+)?)\s*([a-zA-Z]*)\s*$ */
	const char *p = text, *num, *unit;
	size_t nlen, ulen;
	char numbuf[64], unitbuf[16];
	double scale = -1.0;

	while (mcri_py_space(*p))
		p++;
	num = p;
	while (isdigit((unsigned char)*p))
		p++;
	if (p == num)
		return -1;
	if (*p == '.') {
		const char *frac = ++p;

		while (isdigit((unsigned char)*p))
			p++;
		if (p == frac)
			return -1;
	}
	nlen = (size_t)(p - num);
	while (mcri_py_space(*p))
		p++;
	unit = p;
	while (isalpha((unsigned char)*p))
		p++;
	ulen = (size_t)(p - unit);
	while (mcri_py_space(*p))
		p++;
	if (*p || nlen >= sizeof(numbuf) || ulen >= sizeof(unitbuf))
		return -1;
	memcpy(numbuf, num, nlen);
	numbuf[nlen] = '\0';
	memcpy(unitbuf, unit, ulen);
	unitbuf[ulen] = '\0';
	for (size_t i = 0; i < MCRI_ARRAY_LEN(UNITS); i++)
		if (strcasecmp(unitbuf, UNITS[i].name) == 0)
			scale = UNITS[i].scale;
	if (scale < 0)
		return -1;
	*bytes = mcri_trunc_ll(strtod(numbuf, NULL) * scale);
	return 0;
}

/* A suggestion for a refused size: "16GB" -> "; write '16GiB' (binary) or
 * a byte count", "1e9" -> "; write the byte count 1000000000". */
static void size_fix(const char *text, char *fix, size_t size)
{
	static const struct {
		const char *unit, *binary;
	} decimal[] = {
		{ "k", "KiB" }, { "kb", "KiB" }, { "m", "MiB" }, { "mb", "MiB" },
		{ "g", "GiB" }, { "gb", "GiB" }, { "t", "TiB" }, { "tb", "TiB" },
	};
	char num[32], unit[16];
	double d;
	char *end;

	fix[0] = '\0';
	d = strtod(text, &end);
	if (end != text && !*end && isfinite(d) && d >= 0 && strpbrk(text, "eE")) {
		snprintf(fix, size, "; write the byte count %.0f", trunc(d));
		return;
	}
	if (sscanf(text, " %31[0-9.] %15[a-zA-Z] ", num, unit) != 2)
		return;
	for (size_t i = 0; i < MCRI_ARRAY_LEN(decimal); i++)
		if (strcasecmp(unit, decimal[i].unit) == 0)
			snprintf(fix, size, "; write '%s%s' (binary) or a byte count", num, decimal[i].binary);
}

int mcri_size_of_node(const char *key, const struct mcri_node *n, long long *bytes, struct mcr_error *err)
{
	char *r, fix[160];
	int rc;

	switch (n->type) {
	case MCRI_T_INT:
		*bytes = n->i;
		return 0;
	case MCRI_T_FLOAT:
		if (isfinite(n->f)) {
			*bytes = mcri_trunc_ll(n->f);
			return 0;
		}
		r = mcri_repr(n);
		rc = mcri_error_set(err, MCR_EINVAL, "%s must be a finite size, got %s", key, r ? r : "?");
		break;
	case MCRI_T_STR:
		if (parse_text(n->s, bytes) == 0)
			return 0;
		r = mcri_repr(n);
		size_fix(n->s, fix, sizeof(fix));
		rc = mcri_error_set(err, MCR_EINVAL, "%s %s " SIZE_HINT "%s", key, r ? r : "?", fix);
		break;
	default:
		r = mcri_repr(n);
		rc = mcri_error_set(err, MCR_EINVAL, "%s must be a byte count or a size such as '16GiB', got %s", key,
				    r ? r : "?");
		break;
	}
	free(r);
	return rc;
}

int mcr_parse_size_text(const char *key, const char *text, long long *bytes, struct mcr_error *err)
{
	if (parse_text(text, bytes) == 0)
		return 0;
	return mcri_error_set(err, MCR_EINVAL, "%s '%s' " SIZE_HINT, key, text);
}

/* int(str): optional whitespace, optional sign, digits with single '_'
 * between digits, optional whitespace */
bool mcri_py_int_text(const char *s, long long *out)
{
	const char *p = s;
	bool neg = false, digit = false, under = false;
	unsigned long long v = 0;

	while (mcri_py_space(*p))
		p++;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	for (; *p; p++) {
		if (isdigit((unsigned char)*p)) {
			unsigned d = (unsigned)(*p - '0');

			/* Python's int is unbounded: saturate, and stay saturated */
			v = v > (ULLONG_MAX - d) / 10 ? ULLONG_MAX : v * 10 + d;
			digit = true;
			under = false;
		} else if (*p == '_' && digit && !under) {
			under = true;
		} else {
			break;
		}
	}
	if (!digit || under)
		return false;
	while (mcri_py_space(*p))
		p++;
	if (*p)
		return false;
	if (v > (unsigned long long)LLONG_MAX)
		*out = neg ? LLONG_MIN : LLONG_MAX;
	else
		*out = neg ? -(long long)v : (long long)v;
	return true;
}

bool mcri_py_int(const struct mcri_node *n, long long *out)
{
	switch (n->type) {
	case MCRI_T_INT:
		*out = n->i;
		return true;
	case MCRI_T_FLOAT:
		if (!isfinite(n->f))
			return false;
		*out = mcri_trunc_ll(n->f);
		return true;
	case MCRI_T_STR:
		return mcri_py_int_text(n->s, out);
	default:
		return false;
	}
}
