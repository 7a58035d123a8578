/* test_engines.c - what each engine's own reader makes of a recipe's
 * values (lib/rules/engines.c, reference §9 and §10.11): vLLM's and
 * SGLang's sizes, the metadata server vLLM's file gets, the address each
 * engine reads, and the SGLang recipe whose workers never join the pool.
 * tests/contract/ runs the engines' released readers on the same. */
#include <limits.h>

#include "rules/engines.h"
#include "testutil.h"

#define REFUSED LLONG_MIN

static const struct {
	const char *engine, *yaml; /* a scalar, as the recipe writes it */
	long long bytes;           /* REFUSED: the engine refuses it */
} SIZES[] = {
	/* vLLM's _parse_size: byte counts, gb/mb/kb/b as powers of 1024 */
	{ "vllm", "16GB", 17179869184LL },
	{ "vllm", "16gb", 17179869184LL },
	{ "vllm", "' 16 Gb '", 17179869184LL },
	{ "vllm", "1.5GB", 1610612736LL },
	{ "vllm", "'.5kb'", 512 },
	{ "vllm", "'1.mb'", 1048576 },
	{ "vllm", "16b", 16 },
	{ "vllm", "'16'", 16 },
	{ "vllm", "16", 16 },
	{ "vllm", "1.9", 1 },
	{ "vllm", "0x10", 16 },
	{ "vllm", "16GiB", REFUSED },
	{ "vllm", "16G", REFUSED },
	{ "vllm", "16TB", REFUSED },
	{ "vllm", "1.2.3gb", REFUSED },
	{ "vllm", "'.'", REFUSED },
	{ "vllm", "''", REFUSED },
	{ "vllm", "'-1'", REFUSED },
	{ "vllm", "1e9", REFUSED },
	{ "vllm", "true", REFUSED },
	{ "vllm", "null", REFUSED },
	{ "vllm", ".inf", REFUSED },
	/* SGLang's MOONCAKE_GLOBAL_SEGMENT_SIZE: int(), or int() of gb x 1024^3 */
	{ "sglang", "'16gb'", 17179869184LL },
	{ "sglang", "'16GB'", 17179869184LL },
	{ "sglang", "' 16 gb '", 17179869184LL },
	{ "sglang", "'+1_6gb'", 17179869184LL },
	{ "sglang", "'4096'", 4096 },
	{ "sglang", "'-1gb'", -1073741824LL },
	{ "sglang", "'16GiB'", REFUSED },
	{ "sglang", "'1.5gb'", REFUSED },
	{ "sglang", "'16mb'", REFUSED },
	{ "sglang", "'gb'", REFUSED },
	{ "sglang", "''", REFUSED },
};

START_TEST(test_engine_sizes)
{
	char yaml[512];
	struct mcr_recipe *r;
	struct mcri_doc *doc = NULL;
	const struct mcri_node *n;
	long long bytes = 0;
	int rc;

	snprintf(yaml, sizeof(yaml), "schema: 2\nengine: %s\n", SIZES[_i].engine);
	r = load_ok(yaml);
	n = typed(SIZES[_i].yaml, &doc);
	/* vLLM reads the file's JSON value, SGLang the variable's text */
	rc = strcmp(SIZES[_i].engine, "sglang") ? mcri_engine_size(r, n, NULL, &bytes)
						: mcri_engine_size(r, NULL, n->s, &bytes);
	if (SIZES[_i].bytes == REFUSED)
		ck_assert_msg(rc == -1, "%s %s: took %lld", SIZES[_i].engine, SIZES[_i].yaml, bytes);
	else
		ck_assert_msg(rc == 0 && bytes == SIZES[_i].bytes, "%s %s: rc %d, %lld bytes", SIZES[_i].engine,
			      SIZES[_i].yaml, rc, bytes);
	mcri_doc_free(doc);
	mcr_recipe_free(r);
}
END_TEST

#define VLLM_RECIPE(store)                                                                                             \
	"schema: 2\n"                                                                                                  \
	"engine: vllm\n"                                                                                               \
	"roles:\n"                                                                                                     \
	"  prefill: {args: {kv-transfer-config: MooncakeStoreConnector}}\n"                                            \
	"services:\n"                                                                                                  \
	"  - {name: mooncake-master, type: mooncake-master, options: {store_config: " store "}}\n"

/* vLLM's reader defaults metadata_server to "", which Mooncake's setup()
 * refuses: the file gets P2PHANDSHAKE unless the recipe names one */
START_TEST(test_vllm_metadata_default)
{
	struct mcr_recipe *r = load_ok(VLLM_RECIPE("{protocol: tcp}"));
	struct mcr_file_list files;
	struct mcr_error err = { 0 };

	ck_assert_int_eq(mcr_client_configs(r, "10.1.1.1:8700", &files, &err), 0);
	ck_assert_str_eq(files.files[0].text,
			 "{\n  \"protocol\": \"tcp\",\n  \"master_server_address\": \"10.1.1.1:8700\",\n"
			 "  \"metadata_server\": \"P2PHANDSHAKE\"\n}");
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
	r = load_ok(VLLM_RECIPE("{metadata_server: 'http://h:8701/metadata'}"));
	ck_assert_int_eq(mcr_client_configs(r, "10.1.1.1:8700", &files, &err), 0);
	ck_assert_str_eq(files.files[0].text, "{\n  \"metadata_server\": \"http://h:8701/metadata\",\n"
					      "  \"master_server_address\": \"10.1.1.1:8700\"\n}");
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
	ck_assert_str_eq(
		load_err(VLLM_RECIPE("{metadata_server: ''}")),
		"mooncake: r.yaml:6:94: services[mooncake-master].options.store_config.metadata_server: '' is no metadata server: vLLM passes it to Mooncake's setup(), which then fails (EtcdStoragePlugin: no valid endpoints provided); write metadata_server: P2PHANDSHAKE, or leave it out (the plugin then writes P2PHANDSHAKE)");
}
END_TEST

/* each engine reads the node's address from its own place: vLLM from
 * MOONCAKE_REQUESTER_LOCAL_HOSTNAME (else the default route's address),
 * SGLang from MOONCAKE_LOCAL_HOSTNAME */
START_TEST(test_node_address_per_engine)
{
	struct mcr_env_input in = { "10.1.1.1:8700", "10.1.1.1", "/d", NULL, "10.2.2.2", 0 };
	struct mcr_recipe *r = load_ok(VLLM_RECIPE("{protocol: tcp}"));
	struct mcr_error err = { 0 };
	struct mcr_env env;

	ck_assert_int_eq(mcr_worker_env(r, MCR_ROLE_PREFILL, &in, &env, &err), 0);
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_LOCAL_HOSTNAME"), "10.2.2.2");
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_REQUESTER_LOCAL_HOSTNAME"), "10.2.2.2");
	mcr_env_free(&env);
	mcr_recipe_free(r);
	/* the plugin's address for the node wins over the recipe's, and over
	 * a VLLM_HOST_IP of the recipe's (which vLLM reads only without
	 * MOONCAKE_REQUESTER_LOCAL_HOSTNAME) */
	r = load_ok(
		"schema: 2\nengine: vllm\nroles:\n"
		"  prefill: {env: {MOONCAKE_LOCAL_HOSTNAME: 10.7.7.7}, args: {kv-transfer-config: MooncakeStoreConnector}}\n"
		"  decode: {env: {VLLM_HOST_IP: 10.8.8.8}, args: {kv-transfer-config: MooncakeStoreConnector}}\n"
		"services: [{name: mooncake-master, type: mooncake-master}]\n");
	ck_assert_int_eq(mcr_worker_env(r, MCR_ROLE_PREFILL, &in, &env, &err), 0);
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_LOCAL_HOSTNAME"), "10.2.2.2");
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_REQUESTER_LOCAL_HOSTNAME"), "10.2.2.2");
	mcr_env_free(&env);
	ck_assert_int_eq(mcr_worker_env(r, MCR_ROLE_DECODE, &in, &env, &err), 0);
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_REQUESTER_LOCAL_HOSTNAME"), "10.2.2.2");
	ck_assert_str_eq(mcr_env_get(&env, "VLLM_HOST_IP"), "10.8.8.8");
	mcr_env_free(&env);
	mcr_recipe_free(r);
	r = load_ok("schema: 2\nengine: sglang\nroles:\n"
		    "  prefill: {args: {disaggregation-transfer-backend: mooncake}}\n"
		    "services: [{name: mooncake-master, type: mooncake-master}]\n");
	ck_assert_int_eq(mcr_worker_env(r, MCR_ROLE_PREFILL, &in, &env, &err), 0);
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_LOCAL_HOSTNAME"), "10.2.2.2");
	ck_assert_ptr_null(mcr_env_get(&env, "MOONCAKE_REQUESTER_LOCAL_HOSTNAME"));
	mcr_env_free(&env);
	mcr_recipe_free(r);
}
END_TEST

#define SGLANG_RECIPE(prefill_args)                                                                                    \
	"schema: 2\n"                                                                                                  \
	"engine: sglang\n"                                                                                             \
	"roles:\n"                                                                                                     \
	"  prefill: {args: {disaggregation-transfer-backend: mooncake" prefill_args "}}\n"                             \
	"  decode: {args: {disaggregation-transfer-backend: mooncake}}\n"                                              \
	"services: [{name: mooncake-master, type: mooncake-master}]\n"

/* SGLang joins the pool only through HiCache's mooncake storage backend */
START_TEST(test_sglang_without_a_store_client)
{
	struct mcr_recipe *r = load_ok(SGLANG_RECIPE(""));

	ck_assert_uint_eq(mcr_recipe_warning_count(r), 1);
	ck_assert_str_eq(
		mcr_recipe_warning(r, 0),
		"mooncake: warning: r.yaml:6:12: no role's workers join the Mooncake pool: SGLang starts a Mooncake Store client only for HiCache storage (enable-hierarchical-cache: true with hicache-storage-backend: mooncake in a role's args); disaggregation-transfer-backend: mooncake is SGLang's own transfer engine and never talks to the master, so the job's master would serve no worker. Add both to the args of the roles that should share the pool");
	mcr_recipe_free(r);
	/* either spelling of the keys, in one role, is enough */
	r = load_ok(SGLANG_RECIPE(", enable_hierarchical_cache: true, hicache-storage-backend: mooncake"));
	ck_assert_uint_eq(mcr_recipe_warning_count(r), 0);
	mcr_recipe_free(r);
	/* HiCache with another backend does not join the pool */
	r = load_ok(SGLANG_RECIPE(", enable-hierarchical-cache: true, hicache-storage-backend: file"));
	ck_assert_uint_eq(mcr_recipe_warning_count(r), 1);
	mcr_recipe_free(r);
}
END_TEST

Suite *engines_suite(void)
{
	Suite *s = suite_create("engines");
	TCase *tc = tcase_create("readers");

	tcase_add_loop_test(tc, test_engine_sizes, 0, (int)(sizeof(SIZES) / sizeof(SIZES[0])));
	tcase_add_test(tc, test_vllm_metadata_default);
	tcase_add_test(tc, test_node_address_per_engine);
	tcase_add_test(tc, test_sglang_without_a_store_client);
	suite_add_tcase(s, tc);
	return s;
}
