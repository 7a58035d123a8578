/* test_yaml.c - YAML 1.1 typing as PyYAML safe_load gives it (reference §1),
 * merge keys, aliases and the errors of the loader. */
#include <math.h>

#include "testutil.h"

struct typing {
	const char *text;
	enum mcri_type type;
	const char *repr; /* Python repr of the value */
};

/* Each expectation was read off PyYAML 6 (yaml.safe_load) */
static const struct typing TYPING[] = {
	{ "16GiB", MCRI_T_STR, "'16GiB'" },
	{ "1e9", MCRI_T_STR, "'1e9'" },
	{ "1.0e+9", MCRI_T_FLOAT, "1000000000.0" },
	{ "1.0e9", MCRI_T_STR, "'1.0e9'" },
	{ "0x10", MCRI_T_INT, "16" },
	{ "010", MCRI_T_INT, "8" },
	{ "08", MCRI_T_STR, "'08'" },
	{ "0o10", MCRI_T_STR, "'0o10'" },
	{ "1_000", MCRI_T_INT, "1000" },
	{ "0b101", MCRI_T_INT, "5" },
	{ "1:30", MCRI_T_INT, "90" },
	{ "1:30.5", MCRI_T_FLOAT, "90.5" },
	{ "yes", MCRI_T_BOOL, "True" },
	{ "No", MCRI_T_BOOL, "False" },
	{ "on", MCRI_T_BOOL, "True" },
	{ "OFF", MCRI_T_BOOL, "False" },
	{ "true", MCRI_T_BOOL, "True" },
	{ "y", MCRI_T_STR, "'y'" },
	{ "~", MCRI_T_NULL, "None" },
	{ "null", MCRI_T_NULL, "None" },
	{ "", MCRI_T_NULL, "None" },
	{ ".5", MCRI_T_FLOAT, "0.5" },
	{ "-.5", MCRI_T_STR, "'-.5'" },
	{ "1.", MCRI_T_FLOAT, "1.0" },
	{ "64.0", MCRI_T_FLOAT, "64.0" },
	{ "+1", MCRI_T_INT, "1" },
	{ "-0", MCRI_T_INT, "0" },
	{ ".inf", MCRI_T_FLOAT, "inf" },
	{ "-.inf", MCRI_T_FLOAT, "-inf" },
	{ ".NaN", MCRI_T_FLOAT, "nan" },
	{ "_1", MCRI_T_STR, "'_1'" },
	{ "1_", MCRI_T_INT, "1" },
	{ "'16'", MCRI_T_STR, "'16'" },
	{ "\"yes\"", MCRI_T_STR, "'yes'" },
	{ "!!str 16", MCRI_T_STR, "'16'" },
	{ "!!int '7'", MCRI_T_INT, "7" },
	{ "1e+16", MCRI_T_STR, "'1e+16'" },
	{ "10000000000000000.0", MCRI_T_FLOAT, "1e+16" },
	{ "0.0001", MCRI_T_FLOAT, "0.0001" },
	{ "0.00001", MCRI_T_FLOAT, "1e-05" },
	{ "0.1", MCRI_T_FLOAT, "0.1" },
	{ "\" Capacity \"", MCRI_T_STR, "' Capacity '" },
	{ "it's", MCRI_T_STR, "\"it's\"" },
	/* Python ints have no bound: beyond 64 bits the digits are kept */
	{ "12345678901234567890", MCRI_T_INT, "12345678901234567890" },
	{ "-9_223_372_036_854_775_809", MCRI_T_INT, "-9223372036854775809" },
	{ "+99999999999999999999", MCRI_T_INT, "99999999999999999999" },
};

START_TEST(test_typing)
{
	const struct typing *t = &TYPING[_i];
	struct mcri_doc *doc = NULL;
	const struct mcri_node *n = typed(t->text, &doc);

	ck_assert_msg(n->type == t->type, "%s: type %d, want %d", t->text, n->type, t->type);
	ck_assert_repr(n, t->repr);
	mcri_doc_free(doc);
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
	struct mcri_doc *doc = NULL;
	struct mcr_error err = { 0 };

	ck_assert_int_eq(mcri_doc_parse(y, strlen(y), "t.yaml", &doc, &err), 0);
	ck_assert_repr(mcri_map_get(doc->root, "m"), "{'a': 10, 'b': 2}");
	/* the first mapping of a merge list wins, the later ones come first */
	ck_assert_repr(mcri_map_get(doc->root, "s"), "{'b': 2, 'c': 30, 'a': 1, 'd': 4}");
	ck_assert_repr(mcri_map_get(doc->root, "dup"), "{'x': 3, 'y': 2}");
	/* 1 == 1.0 == True as Python dict keys */
	ck_assert_repr(mcri_map_get(doc->root, "same"), "{1: 'bool'}");
	mcri_doc_free(doc);
}
END_TEST

/* (the loader's refusals, each message exact: test_refusals.c) */

Suite *yaml_suite(void)
{
	Suite *s = suite_create("yaml");
	TCase *tc = tcase_create("typing");

	tcase_add_loop_test(tc, test_typing, 0, (int)(sizeof(TYPING) / sizeof(TYPING[0])));
	tcase_add_test(tc, test_merge_keys_and_aliases);
	suite_add_tcase(s, tc);
	return s;
}
