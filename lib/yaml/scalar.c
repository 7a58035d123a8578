/*
 * scalar.c - a scalar's Python type and value, as PyYAML's safe_load gives
 * them: the implicit resolvers of YAML 1.1 (resolver.py) for plain scalars,
 * the standard tags (!!str, !!int, ...) for tagged ones, and the
 * constructors (construct_yaml_int, construct_yaml_float, ...).
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "yaml/loader.h"

#define TAG_PREFIX "tag:yaml.org,2002:"

/* Python (3.11 and later) converts at most this many decimal digits to an
 * int; PyYAML's safe_load fails beyond (int_max_str_digits) */
#define PY_MAX_STR_DIGITS 4300

/* text without '_' (PyYAML removes them before converting numbers) */
static char *strip_underscores(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *p = text; *p; p++)
		if (*p != '_')
			*o++ = *p;
	*o = '\0';
	return out;
}

/* what the constructors return when memory ran out (not "not a number":
 * that would silently type the value as a string) */
#define NOMEM (-2)

/* PyYAML construct_yaml_int. 0 ok, 1 a decimal int beyond 64 bits (*out
 * clamped), -1 not an int (or out of range in another base), TOO_LONG
 * more digits than Python converts, NOMEM. */
#define TOO_LONG 2
static int construct_int(const char *text, long long *out, bool *range)
{
	char *v = strip_underscores(text), *p, *end;
	int sign = 1, base = 10, rc = -1;
	long long value = 0;

	*range = false;
	if (!v)
		return NOMEM;
	p = v;
	if (*p == '-')
		sign = -1;
	if (*p == '-' || *p == '+')
		p++;
	if (*p == '\0')
		goto out;
	if (strcmp(p, "0") == 0) {
		*out = 0;
		rc = 0;
		goto out;
	}
	if (strchr(p, ':')) {
		/* sexagesimal: 1:30 = 90 */
		char *save = NULL, *part;

		for (part = strtok_r(p, ":", &save); part; part = strtok_r(NULL, ":", &save)) {
			long long d;

			errno = 0;
			d = strtoll(part, &end, 10);
			if (errno || *end || end == part)
				goto out;
			if (__builtin_mul_overflow(value, 60, &value) || __builtin_add_overflow(value, d, &value)) {
				*range = true;
				goto out;
			}
		}
		*out = sign * value;
		rc = 0;
		goto out;
	}
	if (p[0] == '0' && p[1] == 'b') {
		base = 2;
		p += 2;
	} else if (p[0] == '0' && p[1] == 'x') {
		base = 16;
		p += 2;
	} else if (p[0] == '0') {
		base = 8;
	}
	if (*p == '\0')
		goto out;
	errno = 0;
	{
		unsigned long long u = strtoull(p, &end, base);

		if (*end)
			goto out;
		if (errno == ERANGE || u > (unsigned long long)LLONG_MAX + (sign < 0)) {
			*range = true;
			/* a decimal integer beyond 64 bits is still an int to
			 * Python: the caller keeps its digits */
			rc = base != 10 ? -1 : strlen(p) > PY_MAX_STR_DIGITS ? TOO_LONG : 1;
			*out = sign < 0 ? LLONG_MIN : LLONG_MAX;
			goto out;
		}
		*out = sign < 0 ? (long long)(0 - u) : (long long)u;
	}
	rc = 0;
out:
	free(v);
	return rc;
}

/* 60**k as Python's float(int) gives it (correctly rounded); inf beyond
 * the range of a double, where Python raises OverflowError */
static double power60(size_t k)
{
#ifdef __SIZEOF_INT128__
	if (k <= 21) { /* 60**21 < 2**127: exact, then one rounding */
		unsigned __int128 p = 1;

		for (size_t i = 0; i < k; i++)
			p *= 60;
		return (double)p;
	}
#endif
	{
		long double p = 1.0L;

		for (size_t i = 0; i < k; i++)
			p *= 60.0L;
		return p > (long double)DBL_MAX ? INFINITY : (double)p;
	}
}

/* construct_yaml_float's sexagesimal branch, in Python's order: the parts
 * from the last, value += float(part) * 60**k. 0, -1 not a float, OVERFLOW */
#define OVERFLOW (-3)
static int sexagesimal_float(char *p, double *out)
{
	size_t parts = 1, k = 0;
	double value = 0.0;
	char *end = p + strlen(p);

	for (char *c = p; *c; c++)
		parts += *c == ':';
	for (char *part_end = end; k < parts; k++) {
		char *start = part_end, *stop;
		volatile double term; /* no fused multiply-add: Python rounds twice */
		double d, base;

		while (start > p && start[-1] != ':')
			start--;
		*part_end = '\0';
		d = strtod(start, &stop);
		if (stop != part_end || start == part_end)
			return -1;
		base = power60(k);
		if (isinf(base))
			return OVERFLOW;
		term = d * base;
		value += term;
		part_end = start > p ? start - 1 : p;
	}
	*out = value;
	return 0;
}

/* PyYAML construct_yaml_float: 0 ok, -1 not a float, OVERFLOW, NOMEM. */
static int construct_float(const char *text, double *out)
{
	char *v = strip_underscores(text), *p, *end;
	double sign = 1.0;
	int rc = -1;

	if (!v)
		return NOMEM;
	for (p = v; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	p = v;
	if (*p == '-')
		sign = -1.0;
	if (*p == '-' || *p == '+')
		p++;
	if (strcmp(p, ".inf") == 0) {
		*out = sign * INFINITY;
		rc = 0;
	} else if (strcmp(p, ".nan") == 0) {
		*out = NAN;
		rc = 0;
	} else if (strchr(p, ':')) {
		rc = sexagesimal_float(p, out);
		if (rc == 0)
			*out *= sign;
	} else {
		double d = strtod(p, &end);

		if (*end || end == p)
			goto out;
		*out = sign * d;
		rc = 0;
	}
out:
	free(v);
	return rc;
}

/* YAML 1.1 booleans (any case, as the resolver accepts them) */
static const struct {
	const char *word;
	bool value;
} BOOLS[] = {
	{ "yes", true }, { "no", false }, { "true", true }, { "false", false }, { "on", true }, { "off", false },
};

static bool bool_value(const char *text, bool *out)
{
	for (size_t i = 0; i < MCRI_ARRAY_LEN(BOOLS); i++) {
		if (strcasecmp(text, BOOLS[i].word) == 0) {
			*out = BOOLS[i].value;
			return true;
		}
	}
	return false;
}

/* An int beyond 64 bits: n->i is clamped, n->s keeps its decimal digits
 * (sign, no '_', no '+') for repr and JSON, as Python prints it. */
static int big_int(struct mcri_node *n, const char *text, struct mcr_error *err)
{
	char *digits = strip_underscores(text), *p;

	if (!digits)
		return mcri_error_nomem(err);
	p = digits[0] == '+' ? digits + 1 : digits;
	n->type = MCRI_T_INT;
	n->s = strdup(p);
	free(digits);
	return n->s ? 0 : mcri_error_nomem(err);
}

static int too_long(const struct mcri_doc *doc, const struct mcri_node *n, const char *text, struct mcr_error *err)
{
	return mcri_err_at(
		err, MCR_EINVAL, doc, n,
		"integer '%s' has more than %d digits, which Python does not convert (PyYAML refuses the recipe); quote it to keep it a string",
		text, PY_MAX_STR_DIGITS);
}

/* the value of a scalar PyYAML's resolvers typed as `it`, by its
 * constructor; a text PyYAML's constructor raises on is refused */
static int construct_implicit(const struct mcri_doc *doc, struct mcri_node *n, const char *text, enum mcri_implicit it,
			      bool newline, struct mcr_error *err)
{
	static const char *const NAMES[] = { "str", "null", "bool", "int", "float", "merge", "value" };
	bool range = false;
	int rc;

	switch (it) {
	case MCRI_IMPLICIT_NULL:
		n->type = MCRI_T_NULL;
		return 0;
	case MCRI_IMPLICIT_BOOL:
		n->type = MCRI_T_BOOL;
		if (!newline && bool_value(text, &n->b))
			return 0;
		break; /* "true\n": PyYAML's table has no such word */
	case MCRI_IMPLICIT_INT:
		rc = construct_int(text, &n->i, &range);
		if (rc == NOMEM)
			return mcri_error_nomem(err);
		if (rc == 1)
			return big_int(n, text, err);
		if (rc == TOO_LONG)
			return too_long(doc, n, text, err);
		if (range)
			return mcri_err_at(err, MCR_EINVAL, doc, n, "integer '%s' is out of range (at most 64 bits)",
					   text);
		n->type = MCRI_T_INT;
		if (rc == 0)
			return 0;
		break; /* 0b_, 0x_: no digit */
	case MCRI_IMPLICIT_FLOAT:
		rc = construct_float(text, &n->f);
		if (rc == NOMEM)
			return mcri_error_nomem(err);
		n->type = MCRI_T_FLOAT;
		/* float(".inf\n") fails where PyYAML's own ".inf" matched */
		if (rc == 0 && !(newline && strpbrk(text, "nN")))
			return 0;
		break;
	case MCRI_IMPLICIT_MERGE:
		/* a key (load.c refuses it anywhere else) */
		n->type = MCRI_T_STR;
		n->merge_key = true;
		n->s = strdup("<<");
		return n->s ? 0 : mcri_error_nomem(err);
	case MCRI_IMPLICIT_VALUE:
		/* PyYAML reads `=` as a string key only (load.c) */
		n->type = MCRI_T_STR;
		n->value_key = true;
		n->s = strdup(text);
		return n->s ? 0 : mcri_error_nomem(err);
	default:
		break;
	}
	return mcri_err_at(
		err, MCR_EINVAL, doc, n,
		"'%s' is written as a YAML 1.1 %s, but PyYAML cannot read it as one (safe_load fails); quote it to keep it a string",
		text, NAMES[it]);
}

int mcri_scalar_resolve(const struct mcri_doc *doc, struct mcri_node *n, const char *text, size_t len, const char *tag,
			bool implicit, const char *raw_tag, struct mcr_error *err)
{
	bool range = false;

	if (tag && strcmp(tag, "merge") == 0) { /* !!merge: a merge key, whatever its text */
		n->type = MCRI_T_STR;
		n->merge_key = true;
		n->s = strdup("<<");
		return n->s ? 0 : mcri_error_nomem(err);
	}
	if (!tag && implicit) {
		bool newline;
		enum mcri_implicit it = mcri_implicit_type(text, len, &newline);

		if (it != MCRI_IMPLICIT_STR) {
			char *t = newline ? strndup(text, len - 1) : NULL;
			int rc;

			if (newline && !t)
				return mcri_error_nomem(err);
			rc = construct_implicit(doc, n, t ? t : text, it, newline, err);
			free(t);
			return rc;
		}
		tag = NULL; /* a plain string */
	}
	if (!tag || strcmp(tag, "str") == 0) {
		n->type = MCRI_T_STR;
		n->s = strdup(text);
		return n->s ? 0 : mcri_error_nomem(err);
	}
	if (strcmp(tag, "null") == 0) {
		n->type = MCRI_T_NULL;
		return 0;
	}
	if (strcmp(tag, "bool") == 0) {
		n->type = MCRI_T_BOOL;
		if (bool_value(text, &n->b))
			return 0;
	} else if (strcmp(tag, "int") == 0) {
		int rc = construct_int(text, &n->i, &range);

		n->type = MCRI_T_INT;
		if (rc == NOMEM)
			return mcri_error_nomem(err);
		if (rc == 1)
			return big_int(n, text, err);
		if (rc == TOO_LONG)
			return too_long(doc, n, text, err);
		if (rc == 0)
			return 0;
	} else if (strcmp(tag, "float") == 0) {
		int rc = construct_float(text, &n->f);

		n->type = MCRI_T_FLOAT;
		if (rc == NOMEM)
			return mcri_error_nomem(err);
		if (rc == 0)
			return 0;
	} else {
		return mcri_err_at(err, MCR_EINVAL, doc, n, "the tag '%s' is not supported in a recipe; remove it",
				   raw_tag);
	}
	return mcri_err_at(err, MCR_EINVAL, doc, n, "'%s' cannot be read as !!%s; fix the value or drop the tag", text,
			   tag);
}

const char *mcri_short_tag(const char *tag, bool *unsupported)
{
	*unsupported = false;
	if (!tag || strcmp(tag, "!") == 0)
		return NULL;
	if (strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)) == 0)
		return tag + strlen(TAG_PREFIX);
	*unsupported = true;
	return tag;
}
