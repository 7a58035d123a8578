/*
 * pyrepr.c - what Python prints for a node: repr() for messages ('16GB',
 * True, None, 64.0), str() for environment values, and the strings
 * json.dumps makes of non-string keys.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaml/yaml.h"

void mcri_float_repr(double v, char *buf, size_t size)
{
	char tmp[64], digits[32];
	int prec, exp10, nd = 0;
	char *e;

	if (isnan(v)) {
		snprintf(buf, size, "nan");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, size, v < 0 ? "-inf" : "inf");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	/* tmp = [-]d[.ddd]e[+-]xx */
	e = strchr(tmp, 'e');
	exp10 = atoi(e + 1);
	for (char *p = tmp; p < e; p++)
		if (*p >= '0' && *p <= '9')
			digits[nd++] = *p;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	/* at most a sign, 17 digits, "0." and 4 zeros or an exponent: no
	 * allocation, so no way to fail */
	{
		char out[64];
		size_t o = 0;

		if (signbit(v))
			out[o++] = '-';
		if (exp10 < -4 || exp10 >= 16) {
			out[o++] = digits[0];
			if (nd > 1) {
				out[o++] = '.';
				memcpy(out + o, digits + 1, (size_t)nd - 1);
				o += (size_t)nd - 1;
			}
			snprintf(out + o, sizeof(out) - o, "e%c%02d", exp10 < 0 ? '-' : '+',
				 exp10 < 0 ? -exp10 : exp10);
		} else if (exp10 < 0) {
			out[o++] = '0';
			out[o++] = '.';
			for (int i = 0; i < -exp10 - 1; i++)
				out[o++] = '0';
			memcpy(out + o, digits, (size_t)nd);
			out[o + (size_t)nd] = '\0';
		} else {
			int intlen = exp10 + 1;

			for (int i = 0; i < intlen; i++)
				out[o++] = i < nd ? digits[i] : '0';
			out[o++] = '.';
			if (nd > intlen) {
				memcpy(out + o, digits + intlen, (size_t)(nd - intlen));
				o += (size_t)(nd - intlen);
			} else {
				out[o++] = '0';
			}
			out[o] = '\0';
		}
		snprintf(buf, size, "%s", out);
	}
}

static void repr_str(struct mcri_buf *b, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';

	mcri_buf_add(b, &q, 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\' || *p == (unsigned char)q) {
			mcri_buf_add(b, "\\", 1);
			mcri_buf_add(b, (const char *)p, 1);
		} else if (*p == '\n') {
			mcri_buf_puts(b, "\\n");
		} else if (*p == '\r') {
			mcri_buf_puts(b, "\\r");
		} else if (*p == '\t') {
			mcri_buf_puts(b, "\\t");
		} else if (*p < 0x20 || *p == 0x7f) {
			mcri_buf_printf(b, "\\x%02x", *p);
		} else {
			mcri_buf_add(b, (const char *)p, 1);
		}
	}
	mcri_buf_add(b, &q, 1);
}

/* a list or mapping is shown up to about this many bytes, then "...":
 * what the messages show of a value stays small however large the value
 * (a string, the recipe's own, is shown whole) */
#define REPR_MAX (64u << 10)

static void repr_into(struct mcri_buf *b, const struct mcri_node *n, bool quote, int depth)
{
	char num[64];
	size_t i;

	if (depth > 8 || b->len > REPR_MAX) {
		mcri_buf_puts(b, "...");
		return;
	}
	switch (n->type) {
	case MCRI_T_NULL:
		mcri_buf_puts(b, "None");
		break;
	case MCRI_T_BOOL:
		mcri_buf_puts(b, n->b ? "True" : "False");
		break;
	case MCRI_T_INT:
		if (n->s)
			mcri_buf_puts(b, n->s);
		else
			mcri_buf_printf(b, "%lld", n->i);
		break;
	case MCRI_T_FLOAT:
		mcri_float_repr(n->f, num, sizeof(num));
		mcri_buf_puts(b, num);
		break;
	case MCRI_T_STR:
		if (quote)
			repr_str(b, n->s);
		else
			mcri_buf_puts(b, n->s);
		break;
	case MCRI_T_SEQ:
		mcri_buf_puts(b, "[");
		for (i = 0; i < n->n && (i == 0 || b->len <= REPR_MAX); i++) {
			if (i)
				mcri_buf_puts(b, ", ");
			repr_into(b, n->items[i], true, depth + 1);
		}
		mcri_buf_puts(b, i < n->n ? ", ...]" : "]");
		break;
	case MCRI_T_MAP:
		mcri_buf_puts(b, "{");
		for (i = 0; i < n->n && (i == 0 || b->len <= REPR_MAX); i++) {
			if (i)
				mcri_buf_puts(b, ", ");
			repr_into(b, n->keys[i], true, depth + 1);
			mcri_buf_puts(b, ": ");
			repr_into(b, n->items[i], true, depth + 1);
		}
		mcri_buf_puts(b, i < n->n ? ", ...}" : "}");
		break;
	}
}

char *mcri_repr(const struct mcri_node *n)
{
	struct mcri_buf b = { 0 };

	if (!n)
		return strdup("None");
	repr_into(&b, n, true, 0);
	return mcri_buf_take(&b);
}

char *mcri_repr_text(const char *s)
{
	struct mcri_buf b = { 0 };

	repr_str(&b, s);
	return mcri_buf_take(&b);
}

char *mcri_pystr(const struct mcri_node *n)
{
	struct mcri_buf b = { 0 };

	if (!n)
		return strdup("None");
	repr_into(&b, n, false, 0);
	return mcri_buf_take(&b);
}

char *mcri_key_str(const struct mcri_node *key)
{
	return mcri_pystr(key);
}

/* json.dumps turns non-string keys into strings this way */
char *mcri_json_key(const struct mcri_node *k)
{
	char num[64];

	switch (k->type) {
	case MCRI_T_STR:
		return strdup(k->s);
	case MCRI_T_NULL:
		return strdup("null");
	case MCRI_T_BOOL:
		return strdup(k->b ? "true" : "false");
	case MCRI_T_INT:
		return k->s ? strdup(k->s) : mcri_asprintf("%lld", k->i);
	case MCRI_T_FLOAT:
		if (isnan(k->f))
			return strdup("NaN");
		if (isinf(k->f))
			return strdup(k->f < 0 ? "-Infinity" : "Infinity");
		mcri_float_repr(k->f, num, sizeof(num));
		return strdup(num);
	default:
		return NULL;
	}
}
