/*
 * test_handover.c - the handover variable read back (spank/plugin/handover.c):
 * what srun encodes decodes to the same; what is not srun's, or does not
 * fit, is refused whole, never cut (a value cut to fit is one the task
 * could not hand on).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/handover.h"

#define MARK "@mooncake-node-address-0123456789abcdef@"

START_TEST(encoded_decodes_the_same)
{
	struct mcr_env_var vars[] = { { "MOONCAKE_MASTER", "10.0.0.1:8700" }, { "MOONCAKE_LOCAL_HOSTNAME", MARK } };
	struct mcp_handover h = { .env = { vars, 2 }, .mark = MARK, .peer = "10.0.0.1" }, back;
	struct mcr_error err;
	char *text = mcp_handover_encode(&h, &err), *filled;

	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(mcp_handover_decode(text, &back, &err), 0);
	ck_assert_uint_eq(back.env.count, 2);
	ck_assert_str_eq(back.env.vars[1].name, "MOONCAKE_LOCAL_HOSTNAME");
	ck_assert_str_eq(back.peer, "10.0.0.1");
	filled = mcp_handover_fill(&back, back.env.vars[1].value, "10.0.0.7");
	ck_assert_str_eq(filled, "10.0.0.7");
	free(filled);
	mcp_handover_free(&back);
	free(text);
}
END_TEST

/* a handover past what a task reads (MCP_VAR_MAX) is refused at srun,
 * saying how large it is and what to shorten; one byte less is handed */
START_TEST(encoded_fits_what_a_task_reads)
{
	struct mcr_env_var vars[] = { { "BIG", NULL } };
	struct mcp_handover h = { .env = { vars, 1 }, .mark = MARK, .peer = "10.0.0.1" };
	struct mcr_error err;
	char *text, *value = malloc(MCP_VAR_MAX);
	size_t rest;

	ck_assert_ptr_nonnull(value);
	vars[0].value = strcpy(value, "");
	ck_assert_ptr_nonnull(text = mcp_handover_encode(&h, &err));
	/* the value that makes the text exactly MCP_VAR_MAX - 1 bytes */
	rest = MCP_VAR_MAX - 1 - strlen(text);
	free(text);
	memset(value, 'x', rest);
	value[rest] = '\0';
	ck_assert_ptr_nonnull(text = mcp_handover_encode(&h, &err));
	ck_assert_uint_eq(strlen(text), MCP_VAR_MAX - 1);
	free(text);
	value[rest] = 'x';
	value[rest + 1] = '\0';
	ck_assert_ptr_null(mcp_handover_encode(&h, &err));
	ck_assert_str_eq(
		err.text,
		"what srun hands each task of this step (65536 bytes: the recipe's environment for the role, its file names) is more than the 65535 bytes a task reads; shorten the env values of the recipe (roles.<role>.env, environment, engine.mooncake_kv_store.env)");
	free(value);
}
END_TEST

/* the step's pyxis container: each field back, "was" null when the user
 * had no PYXIS_CONTAINER_ENV */
START_TEST(pyxis_container_decodes_the_same)
{
	struct mcp_handover h = { .mark = MARK,
				  .peer = "10.0.0.1",
				  .pyxis = { .image = "nvcr.io#x/y:1", .mounts = "/a:/a", .was = "U", .had = true } },
			    back;
	struct mcr_error err;
	char *text = mcp_handover_encode(&h, &err);

	ck_assert_int_eq(mcp_handover_decode(text, &back, &err), 0);
	ck_assert_str_eq(back.pyxis.image, "nvcr.io#x/y:1");
	ck_assert_str_eq(back.pyxis.mounts, "/a:/a");
	ck_assert_ptr_null(back.pyxis.env);
	ck_assert(back.pyxis.had);
	ck_assert_str_eq(back.pyxis.was, "U");
	mcp_handover_free(&back);
	free(text);
	h.pyxis = (struct mcp_pyxis_step){ .image = "i", .env = "X", .missing = "MOONCAKE_MASTER" };
	text = mcp_handover_encode(&h, &err);
	ck_assert_int_eq(mcp_handover_decode(text, &back, &err), 0);
	ck_assert_ptr_null(back.pyxis.mounts);
	ck_assert_str_eq(back.pyxis.env, "X");
	ck_assert_str_eq(back.pyxis.missing, "MOONCAKE_MASTER");
	ck_assert(!back.pyxis.had);
	mcp_handover_free(&back);
	free(text);
	h.pyxis = (struct mcp_pyxis_step){ .image = "i" };
	text = mcp_handover_encode(&h, &err);
	ck_assert_ptr_nonnull(strstr(text, "\"was\":null"));
	ck_assert_int_eq(mcp_handover_decode(text, &back, &err), 0);
	ck_assert(!back.pyxis.had);
	ck_assert_ptr_null(back.pyxis.was);
	mcp_handover_free(&back);
	free(text);
	/* no pyxis: no key */
	h.pyxis.image = NULL;
	text = mcp_handover_encode(&h, &err);
	ck_assert_ptr_null(strstr(text, "pyxis"));
	free(text);
}
END_TEST

/* a master that was starting: the handover says so in a format of its
 * own (3), which a plugin that cannot wait refuses; one without it keeps
 * format 2, which every plugin reads */
START_TEST(starting_master_decodes_the_same)
{
	struct mcp_handover h = { .mark = MARK,
				  .peer = "10.0.0.1",
				  .role = "prefill",
				  .dir = "/job/dir",
				  .starting = "10.0.0.1:8700",
				  .starting_metadata = "10.0.0.1:8701",
				  .starting_within = 145 },
			    back;
	struct mcr_error err;
	char *text = mcp_handover_encode(&h, &err);

	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "\"v\":3"));
	ck_assert_int_eq(mcp_handover_decode(text, &back, &err), 0);
	ck_assert_str_eq(back.starting, "10.0.0.1:8700");
	ck_assert_str_eq(back.starting_metadata, "10.0.0.1:8701");
	ck_assert_int_eq(back.starting_within, 145);
	ck_assert_str_eq(back.dir, "/job/dir");
	mcp_handover_free(&back);
	free(text);
	h.starting = h.starting_metadata = NULL;
	text = mcp_handover_encode(&h, &err);
	ck_assert_ptr_nonnull(strstr(text, "\"v\":2"));
	ck_assert_int_eq(mcp_handover_decode(text, &back, &err), 0);
	ck_assert_ptr_null(back.starting);
	ck_assert_int_eq(back.starting_within, 0);
	mcp_handover_free(&back);
	free(text);
}
END_TEST

/* a task follows a joined master to where it became ready: whole
 * addresses only, in every value and template */
START_TEST(follow_replaces_whole_addresses)
{
	struct mcr_env_var vars[] = {
		{ "MOONCAKE_MASTER", "10.0.0.1:8700" },
		{ "MOONCAKE_TE_META_DATA_SERVER", "http://10.0.0.1:8701/metadata" },
		{ "A", "110.0.0.1:8700 10.0.0.1:87001 10.0.0.1:8700,10.0.0.1:8700" },
	};
	struct mcp_handover h = { .mark = MARK,
				  .peer = "10.0.0.1",
				  .role = "prefill",
				  .dir = "/d",
				  .starting_within = 5 };
	struct mcr_error err;

	ck_assert_ptr_nonnull(h.env.vars = calloc(3, sizeof(*h.env.vars)));
	for (size_t i = 0; i < 3; i++) {
		h.env.vars[i].name = strdup(vars[i].name);
		h.env.vars[i].value = strdup(vars[i].value);
	}
	h.env.count = 3;
	h.starting = strdup("10.0.0.1:8700");
	h.starting_metadata = strdup("10.0.0.1:8701");
	h.node_template = strdup("{\"master_server_address\": \"10.0.0.1:8700\"}");
	ck_assert_int_eq(mcp_handover_follow(&h, "10.0.0.1:18706", "10.0.0.1:18707", &err), 0);
	ck_assert_str_eq(h.env.vars[0].value, "10.0.0.1:18706");
	ck_assert_str_eq(h.env.vars[1].value, "http://10.0.0.1:18707/metadata");
	ck_assert_str_eq(h.env.vars[2].value, "110.0.0.1:8700 10.0.0.1:87001 10.0.0.1:18706,10.0.0.1:18706");
	ck_assert_str_eq(h.node_template, "{\"master_server_address\": \"10.0.0.1:18706\"}");
	ck_assert_str_eq(h.starting, "10.0.0.1:18706");
	ck_assert_str_eq(h.starting_metadata, "10.0.0.1:18707");
	h.role = h.dir = NULL; /* not the handover's own */
	mcp_handover_free(&h);
}
END_TEST

START_TEST(refused_whole)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{\"v\": 2}",
		"{\"v\": 1, \"env\": [], \"peer\": \"n1\", \"mark\": \"m\"}",
		"{\"v\": 2, \"env\": [[\"A\", 1]], \"peer\": \"n1\", \"mark\": \"m\"}",
		"{\"v\": 2, \"env\": [], \"peer\": \"n1\", \"mark\": \"m\", \"gpu\": {\"dir\": \"/d\", \"template\": \"t\", \"names\": [1]}}",
		"{\"v\": 2, \"env\": [], \"peer\": \"n1\", \"mark\": \"m\", \"node\": {\"dir\": \"/d\", \"name\": \"a/b\", \"template\": \"t\"}}",
		/* starting: in format 3 only, with the job's directory, a bound */
		"{\"v\": 2, \"env\": [], \"peer\": \"n1\", \"mark\": \"m\", \"role\": \"prefill\", \"dir\": \"/d\", \"starting\": {\"metadata\": \"n1:8701\", \"master\": \"n1:8700\", \"within\": 5}}",
		"{\"v\": 3, \"env\": [], \"peer\": \"n1\", \"mark\": \"m\", \"starting\": {\"metadata\": \"n1:8701\", \"master\": \"n1:8700\", \"within\": 5}}",
		"{\"v\": 3, \"env\": [], \"peer\": \"n1\", \"mark\": \"m\", \"role\": \"prefill\", \"dir\": \"/d\", \"starting\": {\"metadata\": \"n1:8701\", \"master\": \"n1:8700\", \"within\": 0}}",
		/* a wait past any bound srun hands over */
		"{\"v\": 3, \"env\": [], \"peer\": \"n1\", \"mark\": \"m\", \"role\": \"prefill\", \"dir\": \"/d\", \"starting\": {\"metadata\": \"n1:8701\", \"master\": \"n1:8700\", \"within\": 86461}}",
		"{\"v\": 3, \"env\": [], \"peer\": \"n1\", \"mark\": \"m\", \"role\": \"prefill\", \"dir\": \"/d\", \"starting\": {\"metadata\": \"n1:8701\", \"within\": 5}}",
		/* ... and the metadata server's address, which a task follows too */
		"{\"v\": 3, \"env\": [], \"peer\": \"n1\", \"mark\": \"m\", \"role\": \"prefill\", \"dir\": \"/d\", \"starting\": {\"master\": \"n1:8700\", \"within\": 5}}",
		"{\"v\": 4, \"env\": [], \"peer\": \"n1\", \"mark\": \"m\"}",
		/* a peer longer than any host name or address: once cut to fit,
		 * and then the task could not encode what it read */
		"{\"v\": 2, \"env\": [], \"mark\": \"m\", \"peer\": \"0123456789012345678901234567890123456789012345678901234567890123\"}",
	};
	struct mcp_handover h;
	struct mcr_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(mcp_handover_decode(bad[i], &h, &err) == -1, "accepted: %s", bad[i]);
		ck_assert_ptr_null(h.env.vars);
		ck_assert_msg(strstr(err.text, MCP_TASK_VAR) || strstr(err.text, "format "), "%s", err.text);
	}
	/* 63 bytes fit */
	ck_assert_int_eq(
		mcp_handover_decode(
			"{\"v\": 2, \"env\": [], \"mark\": \"m\", \"peer\": \"012345678901234567890123456789012345678901234567890123456789012\"}",
			&h, &err),
		0);
	mcp_handover_free(&h);
}
END_TEST

Suite *handover_suite(void)
{
	Suite *s = suite_create("handover");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, encoded_decodes_the_same);
	tcase_add_test(tc, encoded_fits_what_a_task_reads);
	tcase_add_test(tc, starting_master_decodes_the_same);
	tcase_add_test(tc, pyxis_container_decodes_the_same);
	tcase_add_test(tc, follow_replaces_whole_addresses);
	tcase_add_test(tc, refused_whole);
	suite_add_tcase(s, tc);
	return s;
}
