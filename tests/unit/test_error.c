/* test_error.c - struct mcr_error: fields, the one formatting function,
 * and long names or texts that must keep the reason at their end. */
#include <limits.h>
#include <unistd.h>

#include "testutil.h"

static struct mcr_error make(enum mcr_error_kind kind, const char *source, int line, int column, const char *text)
{
	struct mcr_error e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.line = line;
	e.column = column;
	snprintf(e.source, sizeof(e.source), "%s", source);
	snprintf(e.text, sizeof(e.text), "%s", text);
	return e;
}

START_TEST(test_format_with_position)
{
	struct mcr_error e = make(MCR_EINVAL, "r.yaml", 3, 5, "roles: bad");

	ck_assert_str_eq(errmsg(&e), "mooncake: r.yaml:3:5: roles: bad");
}
END_TEST

START_TEST(test_format_source_without_position)
{
	struct mcr_error e = make(MCR_EINVAL, "r.yaml", 0, 0, "the recipe is empty");

	ck_assert_str_eq(errmsg(&e), "mooncake: r.yaml: the recipe is empty");
}
END_TEST

START_TEST(test_format_without_source)
{
	struct mcr_error e = make(MCR_EIO, "", 0, 0, "cannot write /x: Permission denied");

	ck_assert_str_eq(errmsg(&e), "mooncake: cannot write /x: Permission denied");
}
END_TEST

START_TEST(test_format_warning)
{
	struct mcr_error e = make(MCR_WARNING, "r.yaml", 2, 1, "role: is not a recipe key");

	ck_assert_str_eq(errmsg(&e), "mooncake: warning: r.yaml:2:1: role: is not a recipe key");
}
END_TEST

START_TEST(test_format_returns_full_length)
{
	struct mcr_error e = make(MCR_EINVAL, "r.yaml", 3, 5, "roles: bad");

	ck_assert_uint_eq(mcr_error_format(&e, NULL, 0), strlen("mooncake: r.yaml:3:5: roles: bad"));
}
END_TEST

/* a buffer too small keeps the start and the end, where the fix is */
START_TEST(test_format_small_buffer_keeps_end)
{
	struct mcr_error e = make(MCR_EINVAL, "", 0, 0, "0123456789abcdefghijklmnopqrstuvwxyz; do this");
	char buf[30];

	mcr_error_format(&e, buf, sizeof(buf));
	ck_assert_str_eq(buf, "mooncake: 0 [...] yz; do this");
}
END_TEST

START_TEST(test_set_fields)
{
	struct mcr_error e;

	memset(&e, 0x55, sizeof(e));
	ck_assert_int_eq(mcri_error_set(&e, MCR_ESTATE, "n%d is %s", 1, "down"), -1);
	ck_assert_int_eq(e.kind, MCR_ESTATE);
	ck_assert_int_eq(e.line, 0);
	ck_assert_int_eq(e.column, 0);
	ck_assert_str_eq(e.source, "");
	ck_assert_str_eq(e.text, "n1 is down");
}
END_TEST

/* A recipe error carries its place in fields, not in the text. */
START_TEST(test_recipe_error_fields)
{
	struct mcr_recipe *r = NULL;
	struct mcr_error e = { 0 };
	const char *y = "schema: 2\nroles: [prefill]\n";

	ck_assert_int_eq(mcr_recipe_load_buffer(y, strlen(y), "r.yaml", &r, &e), -1);
	ck_assert_int_eq(e.kind, MCR_EINVAL);
	ck_assert_str_eq(e.source, "r.yaml");
	ck_assert_int_eq(e.line, 2);
	ck_assert_int_eq(e.column, 8);
	ck_assert_str_eq(e.text, "roles: must be a mapping of prefill/decode/agg to their settings, got ['prefill']");
}
END_TEST

/* Bug: a long relative path filled the message and cut off why the
 * recipe could not be read and what to do. */
START_TEST(test_long_path_keeps_reason)
{
	char path[4080], cwd[PATH_MAX], head[64];
	const char *end = ": No such file or directory; check the recipe's path";
	struct mcr_recipe *r = NULL;
	struct mcr_error e = { 0 };
	const char *msg;
	size_t n = 0;

	while (n + 5 < sizeof(path)) {
		memcpy(path + n, "ab/", 3);
		n += 3;
	}
	memcpy(path + n, "r", 2);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(mcr_recipe_load_file(path, NULL, &r, &e), -1);
	msg = errmsg(&e);
	snprintf(head, sizeof(head), "mooncake: cannot read the recipe %.20s", path);
	ck_assert_msg(strncmp(msg, head, strlen(head)) == 0, "%s", msg);
	ck_assert_ptr_nonnull(strstr(msg, " [...] "));
	ck_assert_str_eq(msg + strlen(msg) - strlen(end), end);
}
END_TEST

/* A recipe name longer than the source field keeps its end. */
START_TEST(test_long_source_keeps_file_name)
{
	char name[MCR_ERROR_SOURCE_LENGTH + 100];
	struct mcr_recipe *r = NULL;
	struct mcr_error e = { 0 };
	const char *y = "schema: 2\nroles: [prefill]\n";
	size_t len;

	memset(name, 'd', sizeof(name));
	memcpy(name + sizeof(name) - 8, "/r.yaml", 8);
	ck_assert_int_eq(mcr_recipe_load_buffer(y, strlen(y), name, &r, &e), -1);
	len = strlen(e.source);
	ck_assert_uint_eq(len, MCR_ERROR_SOURCE_LENGTH - 1);
	ck_assert_str_eq(e.source + len - 7, "/r.yaml");
}
END_TEST

/* A text longer than its field keeps its start and its end. */
START_TEST(test_long_text_keeps_end)
{
	static char big[MCR_ERROR_TEXT_LENGTH * 2];
	struct mcr_error e = { 0 };
	size_t len;

	memset(big, 'v', sizeof(big) - 1);
	mcri_error_set(&e, MCR_EINVAL, "start %s; the fix", big);
	len = strlen(e.text);
	ck_assert_uint_eq(len, MCR_ERROR_TEXT_LENGTH - 1);
	ck_assert_str_eq(e.text + len - 9, "; the fix");
}
END_TEST

Suite *error_suite(void)
{
	Suite *s = suite_create("error");
	TCase *tc = tcase_create("error");

	tcase_add_test(tc, test_format_with_position);
	tcase_add_test(tc, test_format_source_without_position);
	tcase_add_test(tc, test_format_without_source);
	tcase_add_test(tc, test_format_warning);
	tcase_add_test(tc, test_format_returns_full_length);
	tcase_add_test(tc, test_format_small_buffer_keeps_end);
	tcase_add_test(tc, test_set_fields);
	tcase_add_test(tc, test_recipe_error_fields);
	tcase_add_test(tc, test_long_path_keeps_reason);
	tcase_add_test(tc, test_long_source_keeps_file_name);
	tcase_add_test(tc, test_long_text_keeps_end);
	suite_add_tcase(s, tc);
	return s;
}
