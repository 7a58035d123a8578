/*
 * scalar.c - a scalar's Python type and value, as PyYAML's safe_load gives
 * them: the implicit resolvers of YAML 1.1 (resolver.py) for plain scalars,
 * the standard tags (!!str, !!int, ...) for tagged ones, and the
 * constructors (construct_yaml_int, construct_yaml_float, ...).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "yaml/loader.h"

#define TAG_PREFIX "tag:yaml.org,2002:"

static const char *RE_INT =
	"^([-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)"
	"|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+)$";
static const char *RE_FLOAT =
	"^([-+]?([0-9][0-9_]*)\\.[0-9_]*([eE][-+][0-9]+)?"
	"|\\.[0-9][0-9_]*([eE][-+][0-9]+)?"
	"|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\\.[0-9_]*"
	"|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN))$";
static const char *RE_BOOL =
	"^(yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE"
	"|on|On|ON|off|Off|OFF)$";
static const char *RE_NULL = "^(~|null|Null|NULL|)$";

int mcri_resolver_init(struct mcri_resolver *ld, struct mcr_error *err)
{
	memset(ld, 0, sizeof(*ld));
	if (regcomp(&ld->re_int, RE_INT, REG_EXTENDED | REG_NOSUB) != 0)
		goto fail;
	if (regcomp(&ld->re_float, RE_FLOAT, REG_EXTENDED | REG_NOSUB) != 0) {
		regfree(&ld->re_int);
		goto fail;
	}
	if (regcomp(&ld->re_bool, RE_BOOL, REG_EXTENDED | REG_NOSUB) != 0) {
		regfree(&ld->re_int);
		regfree(&ld->re_float);
		goto fail;
	}
	if (regcomp(&ld->re_null, RE_NULL, REG_EXTENDED | REG_NOSUB) != 0) {
		regfree(&ld->re_int);
		regfree(&ld->re_float);
		regfree(&ld->re_bool);
		goto fail;
	}
	ld->ok = true;
	return 0;
fail:
	return mcri_error_set(err, MCR_EIO, "cannot compile the YAML resolvers");
}

void mcri_resolver_free(struct mcri_resolver *ld)
{
	if (!ld->ok)
		return;
	regfree(&ld->re_int);
	regfree(&ld->re_float);
	regfree(&ld->re_bool);
	regfree(&ld->re_null);
	ld->ok = false;
}

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
 * clamped), -1 not an int (or out of range in another base), NOMEM. */
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

		for (part = strtok_r(p, ":", &save); part;
		     part = strtok_r(NULL, ":", &save)) {
			long long d;

			errno = 0;
			d = strtoll(part, &end, 10);
			if (errno || *end || end == part)
				goto out;
			if (__builtin_mul_overflow(value, 60, &value) ||
			    __builtin_add_overflow(value, d, &value)) {
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
			rc = base == 10 ? 1 : -1;
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

/* PyYAML construct_yaml_float: 0 ok, -1 not a float, NOMEM. */
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
		char *save = NULL, *part;
		double value = 0.0;

		for (part = strtok_r(p, ":", &save); part;
		     part = strtok_r(NULL, ":", &save)) {
			double d = strtod(part, &end);

			if (*end || end == part)
				goto out;
			value = value * 60.0 + d;
		}
		*out = sign * value;
		rc = 0;
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
	{ "yes", true }, { "no", false }, { "true", true },
	{ "false", false }, { "on", true }, { "off", false },
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

int mcri_scalar_resolve(const struct mcri_resolver *ld,
			const struct mcri_doc *doc, struct mcri_node *n,
			const char *text, const char *tag, bool plain,
			const char *raw_tag, struct mcr_error *err)
{
	bool range = false;

	if (!tag && plain) {
		if (regexec(&ld->re_null, text, 0, NULL, 0) == 0) {
			n->type = MCRI_T_NULL;
			return 0;
		}
		if (regexec(&ld->re_bool, text, 0, NULL, 0) == 0) {
			n->type = MCRI_T_BOOL;
			bool_value(text, &n->b);
			return 0;
		}
		if (regexec(&ld->re_int, text, 0, NULL, 0) == 0) {
			int rc = construct_int(text, &n->i, &range);

			if (rc == NOMEM)
				return mcri_error_nomem(err);
			if (rc == 1)
				return big_int(n, text, err);
			if (rc == 0) {
				n->type = MCRI_T_INT;
				return 0;
			}
			if (range)
				return mcri_err_at(err, MCR_EINVAL, doc, n,
						   "integer '%s' is out of range (at most 64 bits)",
						   text);
		}
		if (regexec(&ld->re_float, text, 0, NULL, 0) == 0) {
			int rc = construct_float(text, &n->f);

			if (rc == NOMEM)
				return mcri_error_nomem(err);
			if (rc == 0) {
				n->type = MCRI_T_FLOAT;
				return 0;
			}
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
		return mcri_err_at(err, MCR_EINVAL, doc, n,
				   "the tag '%s' is not supported in a recipe; remove it",
				   raw_tag);
	}
	return mcri_err_at(err, MCR_EINVAL, doc, n,
			   "'%s' cannot be read as !!%s; fix the value or drop the tag",
			   text, tag);
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

