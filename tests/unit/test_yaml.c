/* test_yaml.c - YAML 1.1 typing as PyYAML safe_load gives it (spec §1.1),
 * merge keys, aliases and the errors of the loader. */
#include <math.h>

#include "testutil.h"

struct typing {
	const char *text;
	enum mcr_type type;
	const char *repr; /* Python repr of the value */
};

/* Each expectation was read off PyYAML 6 (yaml.safe_load) */
static const struct typing TYPING[] = {
	{ "16GiB", MCR_T_STR, "'16GiB'" },
	{ "1e9", MCR_T_STR, "'1e9'" },
	{ "1.0e+9", MCR_T_FLOAT, "1000000000.0" },
	{ "1.0e9", MCR_T_STR, "'1.0e9'" },
	{ "0x10", MCR_T_INT, "16" },
	{ "010", MCR_T_INT, "8" },
	{ "08", MCR_T_STR, "'08'" },
	{ "0o10", MCR_T_STR, "'0o10'" },
	{ "1_000", MCR_T_INT, "1000" },
	{ "0b101", MCR_T_INT, "5" },
	{ "1:30", MCR_T_INT, "90" },
	{ "1:30.5", MCR_T_FLOAT, "90.5" },
	{ "yes", MCR_T_BOOL, "True" },
	{ "No", MCR_T_BOOL, "False" },
	{ "on", MCR_T_BOOL, "True" },
	{ "OFF", MCR_T_BOOL, "False" },
	{ "true", MCR_T_BOOL, "True" },
	{ "y", MCR_T_STR, "'y'" },
	{ "~", MCR_T_NULL, "None" },
	{ "null", MCR_T_NULL, "None" },
	{ "", MCR_T_NULL, "None" },
	{ ".5", MCR_T_FLOAT, "0.5" },
	{ "-.5", MCR_T_STR, "'-.5'" },
	{ "1.", MCR_T_FLOAT, "1.0" },
	{ "64.0", MCR_T_FLOAT, "64.0" },
	{ "+1", MCR_T_INT, "1" },
	{ "-0", MCR_T_INT, "0" },
	{ ".inf", MCR_T_FLOAT, "inf" },
	{ "-.inf", MCR_T_FLOAT, "-inf" },
	{ ".NaN", MCR_T_FLOAT, "nan" },
	{ "_1", MCR_T_STR, "'_1'" },
	{ "1_", MCR_T_INT, "1" },
	{ "'16'", MCR_T_STR, "'16'" },
	{ "\"yes\"", MCR_T_STR, "'yes'" },
	{ "!!str 16", MCR_T_STR, "'16'" },
	{ "!!int '7'", MCR_T_INT, "7" },
	{ "1e+16", MCR_T_STR, "'1e+16'" },
	{ "10000000000000000.0", MCR_T_FLOAT, "1e+16" },
	{ "0.0001", MCR_T_FLOAT, "0.0001" },
	{ "0.00001", MCR_T_FLOAT, "1e-05" },
	{ "0.1", MCR_T_FLOAT, "0.1" },
	{ "\" Capacity \"", MCR_T_STR, "' Capacity '" },
	{ "it's", MCR_T_STR, "\"it's\"" },
	/* Python ints have no bound: beyond 64 bits the digits are kept */
	{ "12345678901234567890", MCR_T_INT, "12345678901234567890" },
	{ "-9_223_372_036_854_775_809", MCR_T_INT, "-9223372036854775809" },
	{ "+99999999999999999999", MCR_T_INT, "99999999999999999999" },
};

START_TEST(test_typing)
{
	const struct typing *t = &TYPING[_i];
	struct mcr_doc *doc = NULL;
	const struct mcr_node *n = typed(t->text, &doc);

	ck_assert_msg(n->type == t->type, "%s: type %d, want %d", t->text, n->type, t->type);
	ck_assert_repr(n, t->repr);
	mcr_doc_free(doc);
}
END_TEST

START_TEST(test_merge_keys_and_aliases)
{
	const char *y = "base: &b {a: 1, b: 2}\n"
			"other: &o {b: 20, c: 30}\n"
			"m: {<<: *b, a: 10}\n"
			"s: {<<: [*b, *o], d: 4}\n"
			"dup: {x: 1, y: 2, x: 3}\n"
			"same: {1: one, 1.0: float, true: bool}\n";
	struct mcr_doc *doc = NULL;
	struct mcr_error err = { 0 };

	ck_assert_int_eq(mcr_doc_parse(y, strlen(y), "t.yaml", &doc, &err), 0);
	ck_assert_repr(mcr_map_get(doc->root, "m"), "{'a': 10, 'b': 2}");
	/* the first mapping of a merge list wins, the later ones come first */
	ck_assert_repr(mcr_map_get(doc->root, "s"), "{'b': 2, 'c': 30, 'a': 1, 'd': 4}");
	ck_assert_repr(mcr_map_get(doc->root, "dup"), "{'x': 3, 'y': 2}");
	/* 1 == 1.0 == True as Python dict keys */
	ck_assert_repr(mcr_map_get(doc->root, "same"), "{1: 'bool'}");
	mcr_doc_free(doc);
}
END_TEST

START_TEST(test_billion_laughs_refused)
{
	const char *y = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
			"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
			"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
			"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
			"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
			"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
			"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n";
	const char *msg = load_err(y);

	ck_assert_contains(msg, "expands to more than");
}
END_TEST

START_TEST(test_loader_errors)
{
	ck_assert_contains(load_err("a: [1, 2\n"), "r.yaml:2:1: not valid YAML");
	ck_assert_contains(load_err("a: *nope\n"), "undefined alias '*nope'");
	ck_assert_contains(load_err("a: &x [1, *x]\n"), "cycle");
	ck_assert_contains(load_err("a: 1\n---\nb: 2\n"), "single document");
	ck_assert_contains(load_err("a: !!binary aGk=\n"), "tag");
	ck_assert_contains(load_err("a: !foo x\n"), "'!foo' is not supported");
	ck_assert_contains(load_err("? [1, 2]\n: x\n"), "unhashable key");
	ck_assert_contains(load_err("a: 0x1ffffffffffffffffff\n"), "out of range");
	ck_assert_contains(load_err(""), "the recipe is empty");
	ck_assert_contains(load_err("- a\n- b\n"), "must be a mapping");
}
END_TEST

Suite *yaml_suite(void)
{
	Suite *s = suite_create("yaml");
	TCase *tc = tcase_create("typing");

	tcase_add_loop_test(tc, test_typing, 0, (int)(sizeof(TYPING) / sizeof(TYPING[0])));
	tcase_add_test(tc, test_merge_keys_and_aliases);
	tcase_add_test(tc, test_billion_laughs_refused);
	tcase_add_test(tc, test_loader_errors);
	suite_add_tcase(s, tc);
	return s;
}
