/* test_bounds.c - issue 9: the loader and the renders on large shapes
 * (behaviour, not time: make bench times them), the limits refused
 * before the work, environment names and values (E1, E2); the files
 * written: test_disk.c. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

/* a TRT-LLM recipe with a master; `env`, `store` and `extra` are spliced
 * into roles.prefill.env, the master's store_config and the top level */
static char *trt_recipe(const char *env, const char *store, const char *extra)
{
	struct mcri_buf b = { 0 };

	mcri_buf_printf(&b,
			"schema: 2\nmodel: {path: qwen3}\nfrontend: {type: trtllm_serve}\n"
			"engine: {type: trtllm}\n%s"
			"roles:\n"
			"  prefill:\n    env: {A: '1'%s}\n"
			"    args: {kv_connector_config: {connector: mooncake-store}}\n"
			"  decode:\n    args: {kv_connector_config: {connector: mooncake-store}}\n"
			"services:\n  - name: mooncake-master\n    type: mooncake-master\n"
			"    options:\n      store_config:\n        protocol: tcp\n%s",
			extra ? extra : "", env ? env : "", store ? store : "");
	return mcri_buf_take(&b);
}

static struct mcr_recipe *load_text(const char *text, struct mcr_error *err)
{
	struct mcr_recipe *r = NULL;

	if (mcr_recipe_load_buffer(text, strlen(text), "r.yaml", &r, err))
		return NULL;
	return r;
}

/* 30000 variables, half of them set twice: each found once, in the place
 * it was first set, with its last value (env_set by hash) */
START_TEST(test_many_env_keys)
{
	struct mcri_buf env = { 0 }, top = { 0 };
	struct mcr_env_input in = { "10.1.1.1:8700", "10.1.1.1", "/logs", NULL, "10.1.1.2", 0 };
	struct mcr_error err = { 0 };
	struct mcr_recipe *r;
	struct mcr_env out;
	char *text, *e, *t;

	for (int i = 0; i < 30000; i++)
		mcri_buf_printf(&env, ", V%d: r%d", i, i);
	mcri_buf_puts(&top, "environment:\n");
	for (int i = 0; i < 30000; i += 2)
		mcri_buf_printf(&top, "  V%d: e%d\n", i, i);
	e = mcri_buf_take(&env);
	t = mcri_buf_take(&top);
	text = trt_recipe(e, NULL, t);
	r = load_text(text, &err);
	ck_assert_msg(r != NULL, "%s", errmsg(&err));
	ck_assert_int_eq(mcr_worker_env(r, MCR_ROLE_PREFILL, &in, &out, &err), 0);
	ck_assert_uint_eq(out.count, 1 + 30000 + 4);
	ck_assert_str_eq(out.vars[1].name, "V0");
	ck_assert_str_eq(out.vars[1].value, "e0");
	ck_assert_str_eq(out.vars[2].name, "V1");
	ck_assert_str_eq(out.vars[2].value, "r1");
	ck_assert_str_eq(out.vars[30000].name, "V29999");
	ck_assert_str_eq(mcr_env_get(&out, "V29998"), "e29998");
	mcr_env_free(&out);
	mcr_recipe_free(r);
	free(text);
	free(e);
	free(t);
}
END_TEST

/* 20000 anchors, each aliased once: every alias is its own anchor's node */
START_TEST(test_many_anchors)
{
	struct mcri_buf b = { 0 };
	struct mcri_doc *d = NULL;
	struct mcr_error err = { 0 };
	const struct mcri_node *vals, *uses;
	char *text;

	mcri_buf_puts(&b, "values:\n");
	for (int i = 0; i < 20000; i++)
		mcri_buf_printf(&b, "  - &a%d v%d\n", i, i);
	mcri_buf_puts(&b, "uses:\n");
	for (int i = 19999; i >= 0; i--)
		mcri_buf_printf(&b, "  - *a%d\n", i);
	text = mcri_buf_take(&b);
	ck_assert_int_eq(mcri_doc_parse(text, strlen(text), "t.yaml", &d, &err), 0);
	vals = mcri_map_get(d->root, "values");
	uses = mcri_map_get(d->root, "uses");
	for (size_t i = 0; i < 20000; i++)
		ck_assert_ptr_eq(uses->items[19999 - i], vals->items[i]);
	mcri_doc_free(d);
	free(text);
}
END_TEST

/* a mapping of 50000 keys: every key found, a repeated one replaced in
 * place (map_put by hash) */
START_TEST(test_many_keys)
{
	struct mcri_buf b = { 0 };
	struct mcri_doc *d = NULL;
	struct mcr_error err = { 0 };
	char *text;

	for (int i = 0; i < 50000; i++)
		mcri_buf_printf(&b, "k%d: %d\n", i, i);
	mcri_buf_puts(&b, "k7: again\n");
	text = mcri_buf_take(&b);
	ck_assert_int_eq(mcri_doc_parse(text, strlen(text), "t.yaml", &d, &err), 0);
	ck_assert_uint_eq(d->root->n, 50000);
	ck_assert_str_eq(d->root->keys[7]->s, "k7");
	ck_assert_str_eq(mcri_map_get(d->root, "k7")->s, "again");
	ck_assert_int_eq(mcri_map_get(d->root, "k49999")->i, 49999);
	ck_assert_ptr_null(mcri_map_get(d->root, "k50000"));
	mcri_doc_free(d);
	free(text);
}
END_TEST

/* 5000 services, the last named like the first: found (by hash) */
START_TEST(test_many_services)
{
	struct mcri_buf b = { 0 };
	char *svc, *text;

	mcri_buf_puts(&b, "  - {name: s0}\n");
	for (int i = 1; i < 5000; i++)
		mcri_buf_printf(&b, "  - {name: s%d}\n", i);
	mcri_buf_puts(&b, "  - {name: s0}\n");
	svc = mcri_buf_take(&b);
	text = trt_recipe(NULL, NULL, NULL);
	mcri_buf_puts(&b, text);
	mcri_buf_puts(&b, svc);
	free(text);
	text = mcri_buf_take(&b);
	ck_assert_str_eq(
		load_err(text),
		"mooncake: r.yaml:5017:12: services[s0]: the name 's0' is used by another service too; names must be unique");
	free(text);
	free(svc);
}
END_TEST

/* merges that would copy more than 200000 values are refused at the merge
 * that passes the limit, before its pairs are copied */
START_TEST(test_merge_refused_before_copy)
{
	struct mcri_buf b = { 0 };
	struct mcri_doc *d = NULL;
	struct mcr_error err = { 0 };
	char *text;

	mcri_buf_puts(&b, "b: &b {k0: 0");
	for (int i = 1; i < 50000; i++)
		mcri_buf_printf(&b, ", k%d: 0", i);
	mcri_buf_puts(&b, "}\nu:\n- {<<: *b}\n- {<<: *b}\n- {<<: *b}\n");
	text = mcri_buf_take(&b);
	ck_assert_int_eq(mcri_doc_parse(text, strlen(text), "t.yaml", &d, &err), -1);
	ck_assert_str_eq(
		errmsg(&err),
		"mooncake: t.yaml:4:4: the merge keys (<<) of the recipe copy more than 200000 values in all; merge fewer or smaller mappings, or write the values out");
	free(text);
}
END_TEST

/* more values than the limit without any alias: the message says so, and
 * blames no alias */
START_TEST(test_plain_values_limit)
{
	struct mcri_buf b = { 0 };
	struct mcri_doc *d = NULL;
	struct mcr_error err = { 0 };
	char *text;

	mcri_buf_puts(&b, "[0");
	for (int i = 1; i < 200001; i++)
		mcri_buf_puts(&b, ",0");
	mcri_buf_puts(&b, "]\n");
	text = mcri_buf_take(&b);
	ck_assert_int_eq(mcri_doc_parse(text, strlen(text), "t.yaml", &d, &err), -1);
	ck_assert_str_eq(
		errmsg(&err),
		"mooncake: t.yaml:1:400000: the recipe has more than 200000 values (keys, items and scalars); a recipe describes one job: remove what it does not need");
	free(text);
}
END_TEST

/* an alias chain in a client config: 2 KB that would render to hundreds
 * of MB is refused when it is loaded, at l2 (100 KB of text) */
START_TEST(test_alias_chain_refused)
{
	struct mcri_buf b = { 0 };
	char *store, *text, want[512];

	mcri_buf_puts(&b, "        l0: &l0 '");
	for (int i = 0; i < 1000; i++)
		mcri_buf_puts(&b, "x");
	mcri_buf_puts(&b, "'\n");
	for (int l = 1; l <= 5; l++)
		mcri_buf_printf(&b, "        l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n",
				l, l, l - 1, l - 1, l - 1, l - 1, l - 1, l - 1, l - 1, l - 1, l - 1, l - 1);
	store = mcri_buf_take(&b);
	text = trt_recipe(NULL, store, NULL);
	snprintf(
		want, sizeof(want),
		"mooncake: r.yaml:19:13: the recipe expands through aliases to more than %zu bytes of values (8 times its %zu bytes, plus 64 KiB); write the aliased values out, or alias smaller ones",
		strlen(text) * 8 + 65536, strlen(text));
	ck_assert_str_eq(load_err(text), want);
	free(store);
	free(text);
}
END_TEST

/* deep nesting makes JSON much larger than its YAML (indentation): the
 * render stops at 16 times the recipe plus 1 MiB */
START_TEST(test_render_bounded)
{
	struct mcri_buf b = { 0 };
	struct mcr_error err = { 0 };
	struct mcr_file_list files;
	struct mcr_recipe *r;
	char *store, *text, want[512];

	mcri_buf_puts(&b, "        x_deep: ");
	for (int i = 0; i < 200; i++)
		mcri_buf_puts(&b, "[");
	mcri_buf_puts(&b, "0");
	for (int i = 1; i < 30000; i++)
		mcri_buf_puts(&b, ",0");
	for (int i = 0; i < 200; i++)
		mcri_buf_puts(&b, "]");
	mcri_buf_puts(&b, "\n");
	store = mcri_buf_take(&b);
	text = trt_recipe(NULL, store, NULL);
	r = load_text(text, &err);
	ck_assert_msg(r != NULL, "%s", errmsg(&err));
	ck_assert_int_eq(mcr_client_configs(r, "10.1.1.1:8700", &files, &err), -1);
	ck_assert_uint_eq(files.count, 0);
	snprintf(
		want, sizeof(want),
		"mooncake: the client config mooncake_store_config_prefill.json would take the render past %zu bytes, what one render may write for this recipe (16 times its %zu bytes, plus 1024 KiB); make the client config's values smaller (aliases repeat a value wherever they are used)",
		strlen(text) * 16 + (1u << 20), strlen(text));
	ck_assert_str_eq(errmsg(&err), want);
	mcr_recipe_free(r);
	free(store);
	free(text);
}
END_TEST

/* E1 and E2 at load (reference §8) */
static const struct {
	const char *env, *message;
} ENV_REFUSED[] = {
	{ ", B=C: x",
	  "mooncake: r.yaml:7:19: roles.prefill.env: 'B=C' is not an environment variable name: use letters, digits and '_', not starting with a digit (e.g. B_C)" },
	{ ", '': x",
	  "mooncake: r.yaml:7:19: roles.prefill.env: '' is not an environment variable name: use letters, digits and '_', not starting with a digit (e.g. MY_VARIABLE)" },
	{ ", 1A: x",
	  "mooncake: r.yaml:7:19: roles.prefill.env: '1A' is not an environment variable name: use letters, digits and '_', not starting with a digit (e.g. _1A)" },
	{ ", B: \"x\\nA=forged\"",
	  "mooncake: r.yaml:7:22: roles.prefill.env.B: the value 'x\\nA=forged' contains a newline, which would break the NAME=value lines an environment is listed in (and could forge other variables there); write the value on one line, without control characters" },
	{ ", B: \"x\\ry\"",
	  "mooncake: r.yaml:7:22: roles.prefill.env.B: the value 'x\\ry' contains a carriage return, which would break the NAME=value lines an environment is listed in (and could forge other variables there); write the value on one line, without control characters" },
	{ ", B: \"x\\ey\"",
	  "mooncake: r.yaml:7:22: roles.prefill.env.B: the value 'x\\x1by' contains a control character, which would break the NAME=value lines an environment is listed in (and could forge other variables there); write the value on one line, without control characters" },
};

START_TEST(test_env_refused)
{
	char *text = trt_recipe(ENV_REFUSED[_i].env, NULL, NULL);

	ck_assert_str_eq(load_err(text), ENV_REFUSED[_i].message);
	free(text);
}
END_TEST

/* a tab is fine; a value as long as execve() passes is fine, one byte
 * more is refused */
START_TEST(test_env_value_length)
{
	struct mcri_buf b = { 0 };
	struct mcr_error err = { 0 };
	struct mcr_recipe *r;
	char *value, *env, *text;

	value = malloc(MCRI_ENV_STRING_MAX);
	memset(value, 'v', MCRI_ENV_STRING_MAX - 2);
	value[MCRI_ENV_STRING_MAX - 2] = '\0'; /* B=<value>: 131071 bytes */
	mcri_buf_printf(&b, ", T: \"a\\tb\", B: %s", value);
	env = mcri_buf_take(&b);
	text = trt_recipe(env, NULL, NULL);
	r = load_text(text, &err);
	ck_assert_msg(r != NULL, "%s", errmsg(&err));
	mcr_recipe_free(r);
	free(env);
	free(text);
	mcri_buf_printf(&b, ", B: %sv", value);
	env = mcri_buf_take(&b);
	text = trt_recipe(env, NULL, NULL);
	ck_assert_str_eq(
		load_err(text),
		"mooncake: r.yaml:7:22: roles.prefill.env.B: B=<value> is 131072 bytes, more than the 131071 bytes execve() passes in one variable, so the tasks would not start; shorten the value, or put it in a file and pass the file's path");
	free(env);
	free(text);
	free(value);
}
END_TEST

/* what the caller gives the environment is held to E2 too */
START_TEST(test_env_input_refused)
{
	struct mcr_env_input in = { "10.1.1.1:8700", "10.1.1.1", "/logs\nMOONCAKE_MASTER=evil:1", NULL, "10.1.1.2", 0 };
	struct mcr_error err = { 0 };
	char *text = trt_recipe(NULL, NULL, NULL);
	struct mcr_recipe *r = load_text(text, &err);
	struct mcr_env out;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(mcr_worker_env(r, MCR_ROLE_PREFILL, &in, &out, &err), -1);
	ck_assert_uint_eq(out.count, 0);
	ck_assert_str_eq(
		errmsg(&err),
		"mooncake: the environment variable MOONCAKE_CONFIG_PATH would be '/logs\\nMOONCAKE_MASTER=evil:1/mooncake_store_config_prefill.json', which contains a newline (rule E2); fix what it is made of: the master's address, the node's address or the job directory");
	mcr_recipe_free(r);
	free(text);
}
END_TEST

/* a procfs file says it is empty (st_size 0) and is not: it is read */
START_TEST(test_procfs_recipe)
{
	struct mcr_recipe *r = NULL;
	struct mcr_error err = { 0 };

	ck_assert_int_eq(mcr_recipe_load_file("/proc/self/comm", NULL, &r, &err), -1);
	ck_assert_str_eq(
		errmsg(&err),
		"mooncake: /proc/self/comm:1:1: the recipe must be a mapping of keys (schema:, engine:, roles:, services:), not a single value or list");
}
END_TEST

/* what a message shows of a large value stays small */
START_TEST(test_repr_bounded)
{
	struct mcri_buf b = { 0 };
	struct mcri_doc *d = NULL;
	struct mcr_error err = { 0 };
	char *text, *r;

	mcri_buf_puts(&b, "[0");
	for (int i = 1; i < 100000; i++)
		mcri_buf_puts(&b, ",12345");
	mcri_buf_puts(&b, "]");
	text = mcri_buf_take(&b);
	ck_assert_int_eq(mcri_doc_parse(text, strlen(text), "t.yaml", &d, &err), 0);
	r = mcri_repr(d->root);
	ck_assert_uint_lt(strlen(r), 70000);
	ck_assert_str_eq(r + strlen(r) - 6, ", ...]");
	free(r);
	mcri_doc_free(d);
	free(text);
}
END_TEST

/* C3 refused for decode after prefill's run_dir was recorded for C4: the
 * early return freed nothing (a leak make sanitize reports) */
START_TEST(test_c3_after_run_dir)
{
	ck_assert_contains(load_err("schema: 2\nmodel: {path: q}\nfrontend: {type: trtllm_serve}\n"
				    "engine: {type: trtllm}\nservices: []\nroles:\n"
				    "  prefill: {args: {kv_connector_config: {connector: mooncake-store,"
				    " mooncake_store: {run_dir: /a}}}}\n"
				    "  decode: {args: {kv_connector_config: {connector: mooncake-store}}}\n"),
			   "r.yaml:8:40: roles.decode.args.kv_connector_config selects the mooncake-store connector");
}
END_TEST

Suite *bounds_suite(void)
{
	Suite *s = suite_create("bounds");
	TCase *tc = tcase_create("bounds");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_many_env_keys);
	tcase_add_test(tc, test_many_anchors);
	tcase_add_test(tc, test_many_keys);
	tcase_add_test(tc, test_many_services);
	tcase_add_test(tc, test_merge_refused_before_copy);
	tcase_add_test(tc, test_plain_values_limit);
	tcase_add_test(tc, test_alias_chain_refused);
	tcase_add_test(tc, test_render_bounded);
	tcase_add_loop_test(tc, test_env_refused, 0, (int)MCRI_ARRAY_LEN(ENV_REFUSED));
	tcase_add_test(tc, test_env_value_length);
	tcase_add_test(tc, test_env_input_refused);
	tcase_add_test(tc, test_procfs_recipe);
	tcase_add_test(tc, test_repr_bounded);
	tcase_add_test(tc, test_c3_after_run_dir);
	suite_add_tcase(s, tc);
	return s;
}
