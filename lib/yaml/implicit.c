/*
 * implicit.c - which type PyYAML's implicit resolvers (resolver.py, YAML
 * 1.1) give a plain scalar, by hand instead of by regular expression: no
 * compilation, no state, one pass over the text. Each matcher below quotes
 * the expression it stands for; tests/unit/test_typing.c checks them
 * against PyYAML on a generated corpus.
 *
 * Python's `$` also matches before a final newline, so "12\n" (a `!`-tagged
 * quoted scalar can end with one) resolves as "12" does.
 */
#include <string.h>

#include "yaml/loader.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* characters of s[0..n) that are digits or '_' (max_digit: the largest
 * digit allowed), from the start */
static size_t span_digits(const char *s, size_t n, char max_digit)
{
	size_t i = 0;

	while (i < n && ((s[i] >= '0' && s[i] <= max_digit) || s[i] == '_'))
		i++;
	return i;
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_digit(s[i]) && !(s[i] >= 'a' && s[i] <= 'f') && !(s[i] >= 'A' && s[i] <= 'F') && s[i] != '_')
			return false;
	return n > 0;
}

/* (?::[0-5]?[0-9])+ from the start of s: the length it matches, 0 when it
 * does not (two digits are taken when they fit: one digit followed by a
 * digit can never be followed by ':', '.' or the end) */
static size_t sexagesimal(const char *s, size_t n)
{
	size_t i = 0;

	while (i + 1 < n && s[i] == ':' && is_digit(s[i + 1])) {
		if (i + 2 < n && s[i + 1] <= '5' && is_digit(s[i + 2]))
			i += 3;
		else
			i += 2;
	}
	return i;
}

/* (?:[eE][-+][0-9]+)?$ */
static bool exponent_end(const char *s, size_t n)
{
	if (n == 0)
		return true;
	if (n < 3 || (s[0] != 'e' && s[0] != 'E') || (s[1] != '-' && s[1] != '+'))
		return false;
	for (size_t i = 2; i < n; i++)
		if (!is_digit(s[i]))
			return false;
	return true;
}

static bool word_in(const char *s, size_t n, const char *const *words)
{
	for (; *words; words++)
		if (strlen(*words) == n && memcmp(s, *words, n) == 0)
			return true;
	return false;
}

/* ^(?:[-+]?0b[0-1_]+ |[-+]?0[0-7_]+ |[-+]?(?:0|[1-9][0-9_]*)
 *   |[-+]?0x[0-9a-fA-F_]+ |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$ */
static bool is_int(const char *s, size_t n)
{
	size_t i = (n > 0 && (s[0] == '-' || s[0] == '+')) ? 1 : 0, j;

	if (i == n)
		return false;
	s += i;
	n -= i;
	if (s[0] == '0') {
		if (n == 1)
			return true;
		if (s[1] == 'b')
			return n > 2 && span_digits(s + 2, n - 2, '1') == n - 2;
		if (s[1] == 'x')
			return all_hex(s + 2, n - 2);
		return span_digits(s + 1, n - 1, '7') == n - 1;
	}
	if (!is_digit(s[0]))
		return false;
	j = 1 + span_digits(s + 1, n - 1, '9');
	return j == n || (sexagesimal(s + j, n - j) == n - j);
}

/* ^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
 *   |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
 *   |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
 *   |[-+]?\.(?:inf|Inf|INF) |\.(?:nan|NaN|NAN))$ */
static bool is_float(const char *s, size_t n)
{
	static const char *const INF[] = { ".inf", ".Inf", ".INF", NULL };
	static const char *const NANS[] = { ".nan", ".NaN", ".NAN", NULL };
	size_t i, j, k;

	if (word_in(s, n, NANS))
		return true;
	if (n >= 2 && s[0] == '.' && is_digit(s[1])) {
		j = 2 + span_digits(s + 2, n - 2, '9');
		return exponent_end(s + j, n - j);
	}
	i = (n > 0 && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
	if (word_in(s + i, n - i, INF))
		return true;
	if (i == n || !is_digit(s[i]))
		return false;
	j = i + 1 + span_digits(s + i + 1, n - i - 1, '9');
	if (j < n && s[j] == '.') {
		k = j + 1 + span_digits(s + j + 1, n - j - 1, '9');
		return exponent_end(s + k, n - k);
	}
	k = j + sexagesimal(s + j, n - j);
	if (k == j || k == n || s[k] != '.')
		return false;
	return span_digits(s + k + 1, n - k - 1, '9') == n - k - 1;
}

/* the resolvers of a non-empty text, in PyYAML's order (bool, float, int,
 * merge, null, value; the timestamp resolver is not applied, reference
 * §12) */
static enum mcri_implicit match(const char *s, size_t n)
{
	static const char *const BOOLS[] = { "yes",  "Yes",  "YES",   "no",    "No",    "NO", "true",
					     "True", "TRUE", "false", "False", "FALSE", "on", "On",
					     "ON",   "off",  "Off",   "OFF",   NULL };
	static const char *const NULLS[] = { "~", "null", "Null", "NULL", NULL };

	if (word_in(s, n, BOOLS))
		return MCRI_IMPLICIT_BOOL;
	if (is_float(s, n))
		return MCRI_IMPLICIT_FLOAT;
	if (is_int(s, n))
		return MCRI_IMPLICIT_INT;
	if (n == 2 && s[0] == '<' && s[1] == '<')
		return MCRI_IMPLICIT_MERGE;
	if (word_in(s, n, NULLS))
		return MCRI_IMPLICIT_NULL;
	if (n == 1 && s[0] == '=')
		return MCRI_IMPLICIT_VALUE;
	return MCRI_IMPLICIT_STR;
}

enum mcri_implicit mcri_implicit_type(const char *text, size_t len, bool *newline)
{
	enum mcri_implicit t;

	*newline = false;
	if (len == 0)
		return MCRI_IMPLICIT_NULL;
	t = match(text, len);
	/* PyYAML picks the resolvers by the first character: "\n" alone has
	 * none */
	if (t == MCRI_IMPLICIT_STR && len > 1 && text[len - 1] == '\n') {
		t = match(text, len - 1);
		*newline = t != MCRI_IMPLICIT_STR;
	}
	return t;
}
