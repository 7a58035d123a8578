/* test_codes.c - enum mcr_error_code: what a program acts on, beside the
 * text. Every refusal of the invalid corpus whose file is named for a rule
 * of doc/recipe-reference.md (c5_*.yaml: rule C5) carries that rule's code;
 * the texts themselves are checked once, by the corpus (tests/recipes/). */
#include <dirent.h>
#include <strings.h>

#include "testutil.h"

/* the error of loading `yaml` (a recipe srtctl refuses) */
static struct mcr_error refusal(const char *yaml)
{
	struct mcr_recipe *r = NULL;
	struct mcr_error e = { 0 };

	ck_assert_int_eq(mcr_recipe_load_buffer(yaml, strlen(yaml), "r.yaml", &r, &e), -1);
	ck_assert_ptr_null(r);
	return e;
}

START_TEST(test_error_is_small)
{
	/* about 1 KB: any stack holds it, no caller needs a static buffer */
	ck_assert_uint_le(sizeof(struct mcr_error), 1400);
	ck_assert_uint_le(sizeof(struct mcr_position), 600);
}
END_TEST

START_TEST(test_code_names)
{
	ck_assert_str_eq(mcr_error_code_name(MCR_E_NONE), "none");
	ck_assert_str_eq(mcr_error_code_name(MCR_E_YAML), "YAML");
	ck_assert_str_eq(mcr_error_code_name(MCR_E_C5), "C5");
	ck_assert_str_eq(mcr_error_code_name(MCR_E_C11), "C11");
	ck_assert_str_eq(mcr_error_code_name(MCR_E_M1), "M1");
	ck_assert_str_eq(mcr_error_code_name(MCR_E_E3), "E3");
	ck_assert_str_eq(mcr_error_code_name(MCR_E_H1), "H1");
	ck_assert_str_eq(mcr_error_code_name(MCR_E_T1), "T1");
	ck_assert_str_eq(mcr_error_code_name(MCR_E_E4), "E4");
	ck_assert_str_eq(mcr_error_code_name((enum mcr_error_code)(MCR_E_E4 + 1)), "?");
	ck_assert_str_eq(mcr_error_code_name((enum mcr_error_code) - 1), "?");
	/* one name each */
	for (int a = MCR_E_NONE; a <= MCR_E_E4; a++)
		for (int b = a + 1; b <= MCR_E_E4; b++)
			ck_assert_str_ne(mcr_error_code_name((enum mcr_error_code)a),
					 mcr_error_code_name((enum mcr_error_code)b));
}
END_TEST

START_TEST(test_codes_of_the_setters)
{
	struct mcr_error e;

	memset(&e, 0x55, sizeof(e));
	mcri_error_set(&e, MCR_EIO, "cannot write /x");
	ck_assert_int_eq(e.code, MCR_E_IO);
	mcri_error_set(&e, MCR_ESTATE, "the master stopped");
	ck_assert_int_eq(e.code, MCR_E_STATE);
	mcri_error_set(&e, MCR_EINVAL, "bad argument");
	ck_assert_int_eq(e.code, MCR_E_INVALID);
	mcri_error_nomem(&e);
	ck_assert_int_eq(e.kind, MCR_EIO);
	ck_assert_int_eq(e.code, MCR_E_NOMEM);
	ck_assert_int_eq(mcri_error_code(&e, MCR_E_C3), -1);
	ck_assert_int_eq(e.code, MCR_E_C3);
	ck_assert_int_eq(mcri_error_code(NULL, MCR_E_C3), -1);
}
END_TEST

START_TEST(test_codes_of_the_loader_and_rules)
{
	ck_assert_int_eq(refusal("schema: 2\nroles: {prefill: [\n").code, MCR_E_YAML);
	ck_assert_int_eq(refusal("a: *nowhere\n").code, MCR_E_YAML);
	ck_assert_int_eq(refusal("schema: 2\nengine: {type: trtllm, colour: red}\n").code, MCR_E_FIELD);
	ck_assert_int_eq(refusal("schema: 1\n").code, MCR_E_SCHEMA);
	ck_assert_int_eq(refusal("schema: 2\nroles: [prefill]\n").code, MCR_E_SHAPE);
	ck_assert_int_eq(refusal("schema: 2\nenvironment: {'1A': x}\n").code, MCR_E_E1);
	ck_assert_int_eq(refusal("schema: 2\nenvironment: {A: \"x\\ny\"}\n").code, MCR_E_E2);
	ck_assert_int_eq(refusal("schema: 2\nenvironment: {SLURM_MOONCAKE_X: x}\n").code, MCR_E_E3);
}
END_TEST

/* the rule a corpus file is named for ("c10_model_key.yaml": C10), or
 * MCR_E_NONE */
static enum mcr_error_code named_rule(const char *file)
{
	static const struct {
		const char *prefix;
		enum mcr_error_code code;
	} RULE_FILES[] = {
		{ "c10_after_c9", MCR_E_C9 }, /* C9 is checked first, and wins */
		{ "c10_", MCR_E_C10 },        { "c11_", MCR_E_C11 },
		{ "c1_", MCR_E_C1 },          { "c2_", MCR_E_C2 },
		{ "c3_", MCR_E_C3 },          { "c4_", MCR_E_C4 },
		{ "c5_", MCR_E_C5 },          { "c6_", MCR_E_C6 },
		{ "c7_", MCR_E_C7 },          { "c8_", MCR_E_C8 },
		{ "c9_", MCR_E_C9 },          { "v1_", MCR_E_SCHEMA }, /* srtctl's v1 keys (§10.2), not rule V1 */
		{ "v3_", MCR_E_V3 },          { "s1_", MCR_E_S1 },
		{ "e3_", MCR_E_E3 },          { "t1_", MCR_E_T1 },
		{ "e4_", MCR_E_E4 },
	};

	for (size_t i = 0; i < sizeof(RULE_FILES) / sizeof(RULE_FILES[0]); i++)
		if (strncmp(file, RULE_FILES[i].prefix, strlen(RULE_FILES[i].prefix)) == 0)
			return RULE_FILES[i].code;
	return MCR_E_NONE;
}

START_TEST(test_corpus_refusals_carry_their_rule)
{
	const char *dir = MCK_TOP "/tests/recipes/invalid";
	DIR *d = opendir(dir);
	struct dirent *ent;
	int named = 0, all = 0;

	ck_assert_ptr_nonnull(d);
	while ((ent = readdir(d))) {
		char path[1024];
		struct mcr_recipe *r = NULL;
		struct mcr_error e = { 0 };
		enum mcr_error_code want;
		size_t n = strlen(ent->d_name);

		if (n < 6 || strcmp(ent->d_name + n - 5, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name);
		ck_assert_int_eq(mcr_recipe_load_file(path, ent->d_name, &r, &e), -1);
		all++;
		/* every refusal says what it is, none is left generic */
		ck_assert_msg(e.code != MCR_E_NONE && e.code != MCR_E_INVALID, "%s: code %s", ent->d_name,
			      mcr_error_code_name(e.code));
		want = named_rule(ent->d_name);
		if (want == MCR_E_NONE)
			continue;
		named++;
		ck_assert_msg(e.code == want, "%s: code %s, the file is named for %s", ent->d_name,
			      mcr_error_code_name(e.code), mcr_error_code_name(want));
	}
	closedir(d);
	ck_assert_int_ge(all, 150);
	ck_assert_int_ge(named, 60);
}
END_TEST

Suite *codes_suite(void)
{
	Suite *s = suite_create("codes");
	TCase *tc = tcase_create("codes");

	tcase_add_test(tc, test_error_is_small);
	tcase_add_test(tc, test_code_names);
	tcase_add_test(tc, test_codes_of_the_setters);
	tcase_add_test(tc, test_codes_of_the_loader_and_rules);
	tcase_add_test(tc, test_corpus_refusals_carry_their_rule);
	suite_add_tcase(s, tc);
	return s;
}
