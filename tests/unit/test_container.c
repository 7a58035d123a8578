/* test_container.c - mcr_recipe_master_container: the container the master
 * runs in, chosen as srtctl chooses it (the service's, else the engine
 * block's, else model.container), and where the recipe says so. */
#include "testutil.h"

static const char *container_of(const char *yaml, char *where, size_t size)
{
	static char value[256];
	struct mcr_recipe *r = load_ok(yaml);
	struct mcr_error at;
	const char *v = mcr_recipe_master_container(r, &at);

	snprintf(value, sizeof(value), "%s", v ? v : "(none)");
	snprintf(where, size, "%.100s:%d:%d: %.200s", at.source, at.line, at.column, at.text);
	ck_assert_int_eq(at.kind, MCR_OK);
	ck_assert_ptr_eq(mcr_recipe_master_container(r, NULL), v);
	mcr_recipe_free(r);
	return value;
}

START_TEST(test_master_container_precedence)
{
	char where[512];
	const char *model = "schema: 2\nmodel: {path: hf:Qwen/Qwen3-0.6B, container: trtllm}\n";

	/* the job's container, when nothing else names one */
	char y[1024];

	snprintf(y, sizeof(y),
		 "%sengine: {type: sglang}\nroles: {agg: {}}\nservices:\n"
		 "  - name: mooncake-master\n    type: mooncake-master\n",
		 model);
	ck_assert_str_eq(container_of(y, where, sizeof(where)), "trtllm");
	ck_assert_str_eq(where, "r.yaml:2:46: model.container");
	/* the service's wins over the job's */
	snprintf(y, sizeof(y),
		 "%sengine: {type: sglang}\nroles: {agg: {}}\nservices:\n"
		 "  - name: mc\n    type: mooncake-master\n    container: /b/master\n",
		 model);
	ck_assert_str_eq(container_of(y, where, sizeof(where)), "/b/master");
	ck_assert_str_eq(where, "r.yaml:8:16: services[mc].container");
	/* an empty service container does not count (srtctl: if truthy) */
	snprintf(y, sizeof(y),
		 "%sengine: {type: sglang}\nroles: {agg: {}}\nservices:\n"
		 "  - name: mc\n    type: mooncake-master\n    container: ''\n",
		 model);
	ck_assert_str_eq(container_of(y, where, sizeof(where)), "trtllm");
	/* the engine block's wins over the job's */
	snprintf(y, sizeof(y),
		 "%sengine:\n  type: vllm\n  mooncake_kv_store: {container: 'nvcr.io#nvidia/vllm:1'}\n"
		 "roles: {agg: {}}\n",
		 model);
	ck_assert_str_eq(container_of(y, where, sizeof(where)), "nvcr.io#nvidia/vllm:1");
	ck_assert_str_eq(where, "r.yaml:5:34: engine.mooncake_kv_store.container");
	snprintf(y, sizeof(y),
		 "%sengine:\n  type: vllm\n  mooncake_kv_store: {container: null}\nroles: {agg: {}}\n",
		 model);
	ck_assert_str_eq(container_of(y, where, sizeof(where)), "trtllm");
}
END_TEST

START_TEST(test_master_container_none)
{
	char where[512];

	/* no container anywhere */
	ck_assert_str_eq(container_of("schema: 2\nengine:\n  type: vllm\n  mooncake_kv_store: {}\n"
				      "roles: {agg: {}}\n",
				      where, sizeof(where)),
			 "(none)");
	ck_assert_str_eq(where, ":0:0: ");
	/* no master: no master's container, whatever the job runs in */
	ck_assert_str_eq(container_of("schema: 2\nmodel: {container: trtllm}\nengine: sglang\n"
				      "roles: {agg: {}}\n",
				      where, sizeof(where)),
			 "(none)");
	/* an external master is not started, so it has no container */
	ck_assert_str_eq(container_of("schema: 2\nmodel: {container: img}\nengine: sglang\n"
				      "roles: {agg: {}}\nservices:\n  - name: mooncake-master\n"
				      "    type: mooncake-master\n    external: 10.0.0.1:8700\n",
				      where, sizeof(where)),
			 "(none)");
}
END_TEST

START_TEST(test_master_container_examples)
{
	struct mcr_recipe *r = NULL;
	struct mcr_error err = { 0 }, at;

	ck_assert_int_eq(mcr_recipe_load_file(MCK_TOP "/examples/trtllm-serve-disagg-mooncake.yaml",
					      "trtllm-serve-disagg-mooncake.yaml", &r, &err),
			 0);
	ck_assert_str_eq(mcr_recipe_master_container(r, &at), "trtllm");
	ck_assert_str_eq(errmsg(&at), "mooncake: trtllm-serve-disagg-mooncake.yaml:26:14: model.container");
	mcr_recipe_free(r);
}
END_TEST

Suite *container_suite(void)
{
	Suite *s = suite_create("container");
	TCase *tc = tcase_create("master container");

	tcase_add_test(tc, test_master_container_precedence);
	tcase_add_test(tc, test_master_container_none);
	tcase_add_test(tc, test_master_container_examples);
	suite_add_tcase(s, tc);
	return s;
}
