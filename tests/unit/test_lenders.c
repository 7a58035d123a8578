/* test_lenders.c - the memory lenders of a recipe (reference §5.1): where
 * each runs and whose tasks wait for it, its image, its command line and
 * environment with their origins, the name of a store's segment, the
 * metadata server it announces it to, and sizes as the wheel's store
 * service reads them (the refusals: test_refusals.c). */
#include "testutil.h"
#include "render/render.h"
#include "rules/engines.h"

#define SGLANG_STORE(placement, extra)                                                                                 \
	"schema: 2\n"                                                                                                  \
	"model: {container: img}\n"                                                                                    \
	"engine: {type: sglang, mooncake_kv_store: {container: kv-img}}\n"                                             \
	"roles:\n"                                                                                                     \
	"  prefill: {args: {enable-hierarchical-cache: true, hicache-storage-backend: mooncake}}\n"                    \
	"  decode: {args: {enable-hierarchical-cache: true, hicache-storage-backend: mooncake}}\n"                     \
	"services:\n"                                                                                                  \
	"  - {name: store, type: mooncake-store, placement: " placement extra "}\n"

static const struct mcri_lender_at AT = { "n3", "10.0.0.13", 8080, "10.0.0.11:8700", "10.0.0.11", 8701, "/jobs/7", 60 };

START_TEST(test_placements)
{
	static const struct {
		const char *placement;
		enum mcri_lender_place place;
		unsigned roles;
		bool prefill_waits, decode_waits;
	} cases[] = {
		{ "{node: decode}", MCRI_PLACE_ROLES, MCRI_ROLE_BIT(MCR_ROLE_DECODE), false, true },
		{ "{node: prefill, per: node}", MCRI_PLACE_ROLES, MCRI_ROLE_BIT(MCR_ROLE_PREFILL), true, false },
		{ "{node: workers}", MCRI_PLACE_ROLES, MCRI_ROLE_BIT(MCR_ROLE_PREFILL) | MCRI_ROLE_BIT(MCR_ROLE_DECODE),
		  true, true },
		{ "{node: all}", MCRI_PLACE_ALL, 0, true, true },
		{ "{node: head}", MCRI_PLACE_INFRA, 0, true, true },
		{ "{}", MCRI_PLACE_INFRA, 0, true, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char yaml[1024];
		struct mcr_recipe *r;

		snprintf(yaml, sizeof(yaml), SGLANG_STORE("%s", ""), cases[i].placement);
		r = load_ok(yaml);
		ck_assert_uint_eq(r->nlenders, 1);
		ck_assert_int_eq(r->lenders[0].place, cases[i].place);
		ck_assert_uint_eq(r->lenders[0].roles, cases[i].roles);
		ck_assert(r->lenders[0].critical);
		ck_assert_int_eq(mcri_lender_serves(&r->lenders[0], MCR_ROLE_PREFILL), cases[i].prefill_waits);
		ck_assert_int_eq(mcri_lender_serves(&r->lenders[0], MCR_ROLE_DECODE), cases[i].decode_waits);
		mcr_recipe_free(r);
	}
}
END_TEST

START_TEST(test_disabled_and_critical)
{
	struct mcr_recipe *r = load_ok(SGLANG_STORE("{node: decode}", ", critical: false"));

	ck_assert_uint_eq(r->nlenders, 1);
	ck_assert(!r->lenders[0].critical);
	mcr_recipe_free(r);
	r = load_ok(SGLANG_STORE("{node: decode}", ", enabled: false"));
	ck_assert_uint_eq(r->nlenders, 0);
	mcr_recipe_free(r);
}
END_TEST

/* srtctl's order: the service's container, the kind's fallback, the job's */
START_TEST(test_container)
{
	struct mcr_recipe *r = load_ok(SGLANG_STORE("{node: decode}", ", container: own-img"));
	struct mcr_position at;

	ck_assert_str_eq(mcri_lender_container(r, &r->lenders[0], &at), "own-img");
	ck_assert_str_eq(at.path, "services[store].container");
	mcr_recipe_free(r);
	r = load_ok(SGLANG_STORE("{node: decode}", ""));
	ck_assert_str_eq(mcri_lender_container(r, &r->lenders[0], &at), "kv-img");
	ck_assert_str_eq(at.path, "engine.mooncake_kv_store.container");
	mcr_recipe_free(r);
}
END_TEST

START_TEST(test_store_argv_env)
{
	struct mcr_recipe *r = load_ok(
		SGLANG_STORE("{node: decode}", ", env: {MOONCAKE_GLOBAL_SEGMENT_SIZE: 64g, MOONCAKE_PROTOCOL: rdma}"
					       ", args: ['-Dtenant_id=t1']"));
	struct mcri_env_origin *o = NULL;
	struct mcr_error err;
	struct mcr_env env;
	char **argv, *seg;

	ck_assert_int_eq(mcri_lender_argv(r, &r->lenders[0], &AT, &argv, &err), 0);
	ck_assert_str_eq(argv[0], "python3");
	ck_assert_str_eq(argv[1], "-c");
	ck_assert_ptr_nonnull(strstr(argv[2], "run_module('mooncake.mooncake_store_service'"));
	ck_assert_ptr_nonnull(strstr(argv[2], "'127.0.0.1'"));
	ck_assert_str_eq(argv[3], "--port=8080");
	ck_assert_str_eq(argv[4], "--max-wait-time=60");
	ck_assert_str_eq(argv[5], "-Dtenant_id=t1");
	ck_assert_ptr_null(argv[6]);
	mcr_strv_free(argv);
	ck_assert_int_eq(mcri_lender_env_origins(r, &r->lenders[0], &AT, &env, &o, &err), 0);
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_LOCAL_HOSTNAME"), "10.0.0.13");
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_GLOBAL_SEGMENT_SIZE"), "64g");
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_MASTER"), "10.0.0.11:8700");
	/* SGLang's workers find segments through the job's metadata server */
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_TE_META_DATA_SERVER"), "http://10.0.0.11:8701/metadata");
	ck_assert_int_eq(o[0].layer, MCRI_LAYER_LENDER_KIND);
	ck_assert_int_eq(o[1].layer, MCRI_LAYER_LENDER_ENV);
	ck_assert_ptr_nonnull(o[1].node);
	mcr_env_free(&env);
	free(o);
	ck_assert_ptr_nonnull(seg = mcri_lender_segment(r, &r->lenders[0], &AT, &err));
	ck_assert_str_eq(seg, "10.0.0.13:*");
	free(seg);
	mcr_recipe_free(r);
}
END_TEST

/* a store of vLLM's workers announces its segment as they find segments:
 * by the handshake their client config names (P2PHANDSHAKE by default) */
START_TEST(test_store_metadata_follows_the_workers)
{
	static const char VLLM[] =
		"schema: 2\n"
		"engine:\n"
		"  type: vllm\n"
		"  mooncake_kv_store:\n"
		"    store_config: {protocol: tcp, mode: standalone-store, global_segment_size: 0%s}\n"
		"roles:\n"
		"  prefill: {args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}}\n"
		"  decode: {args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}}\n"
		"services: [{name: store, type: mooncake-store, placement: {node: decode},"
		" env: {MOONCAKE_LOCAL_HOSTNAME: 'node3:9000'}}]\n";
	char yaml[1024];
	struct mcr_recipe *r;
	struct mcr_error err;
	struct mcr_env env;
	const char *where;
	char *seg;

	snprintf(yaml, sizeof(yaml), VLLM, "");
	r = load_ok(yaml);
	ck_assert_str_eq(mcri_lender_metadata(r, &where), "P2PHANDSHAKE");
	ck_assert_str_eq(where, "");
	ck_assert_int_eq(mcri_lender_env_origins(r, &r->lenders[0], &AT, &env, NULL, &err), 0);
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_TE_META_DATA_SERVER"), "P2PHANDSHAKE");
	/* the recipe's own name, port and all: the segment's */
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_LOCAL_HOSTNAME"), "node3:9000");
	ck_assert_ptr_nonnull(seg = mcri_lender_segment(r, &r->lenders[0], &AT, &err));
	ck_assert_str_eq(seg, "node3:9000");
	free(seg);
	mcr_env_free(&env);
	mcr_recipe_free(r);
	snprintf(yaml, sizeof(yaml), VLLM, ", metadata_server: 'http://m:1/metadata'");
	r = load_ok(yaml);
	ck_assert_str_eq(mcri_lender_metadata(r, &where), "http://m:1/metadata");
	ck_assert_str_eq(where, "engine.mooncake_kv_store.store_config");
	mcr_recipe_free(r);
}
END_TEST

START_TEST(test_donor_argv_env)
{
	struct mcr_recipe *r = load_ok("schema: 2\n"
				       "model: {path: /m/qwen}\n"
				       "engine: {type: trtllm}\n"
				       "roles:\n"
				       "  prefill: {args: {kv_connector_config: {connector: mooncake-store}}}\n"
				       "  decode: {args: {kv_connector_config: {connector: mooncake-store}}}\n"
				       "services:\n"
				       "  - {name: mooncake-master, type: mooncake-master}\n"
				       "  - {name: donor, type: mooncake-donor, placement: {node: decode},"
				       " options: {size: 640GiB}, env: {TLLM_LOG_LEVEL: DEBUG}}\n");
	struct mcr_error err;
	struct mcr_env env;
	char **argv;

	ck_assert_int_eq(mcri_lender_argv(r, &r->lenders[0], &AT, &argv, &err), 0);
	{
		const char *want[] = { "trtllm-serve",
				       "mooncake_donor",
				       "--master_server_address",
				       "10.0.0.11:8700",
				       "--segment_size",
				       "640GiB",
				       "--protocol",
				       "rdma",
				       "--ready_file",
				       "/jobs/7/mooncake/donor-n3.ready",
				       NULL };

		for (size_t i = 0; want[i] || argv[i]; i++)
			ck_assert_str_eq(argv[i] ? argv[i] : "(end)", want[i] ? want[i] : "(end)");
	}
	mcr_strv_free(argv);
	ck_assert_int_eq(mcri_lender_env_origins(r, &r->lenders[0], &AT, &env, NULL, &err), 0);
	ck_assert_str_eq(mcr_env_get(&env, "TRTLLM_MOONCAKE_RUN_DIR"), "/jobs/7/mooncake/donor-n3");
	ck_assert_str_eq(mcr_env_get(&env, "TRTLLM_MOONCAKE_MASTER_TIMEOUT"), "60");
	ck_assert_str_eq(mcr_env_get(&env, "TLLM_LOG_LEVEL"), "DEBUG"); /* the service's env wins */
	mcr_env_free(&env);
	ck_assert_ptr_null(mcri_lender_segment(r, &r->lenders[0], &AT, &err));
	mcr_recipe_free(r);
}
END_TEST

/* MooncakeConfig._parse_segment_size of the wheel */
START_TEST(test_store_sizes)
{
	static const struct {
		const char *text;
		long long bytes; /* -1: refused */
	} cases[] = {
		{ "17179869184", 17179869184LL },
		{ "16g", 16LL << 30 },
		{ "16GB", 16LL << 30 },
		{ " 1.5 g ", 1610612736LL },
		{ "64m", 64LL << 20 },
		{ "2t", 2LL << 40 },
		{ "512kb", 512LL << 10 },
		{ "100b", 100 },
		{ "1e3", 1000 },
		{ "16GiB", -1 },
		{ "g", -1 },
		{ "0x10", -1 },
		{ "inf", -1 },
		{ "nan", -1 },
		{ "1_000", -1 },
		{ "", -1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long long b = 0;
		int rc = mcri_store_size_text(cases[i].text, &b);

		ck_assert_msg(cases[i].bytes < 0 ? rc != 0 : rc == 0 && b == cases[i].bytes, "%s: rc %d, %lld",
			      cases[i].text, rc, b);
	}
}
END_TEST

Suite *lenders_suite(void)
{
	Suite *s = suite_create("lenders");
	TCase *tc = tcase_create("lenders");

	tcase_add_test(tc, test_placements);
	tcase_add_test(tc, test_disabled_and_critical);
	tcase_add_test(tc, test_container);
	tcase_add_test(tc, test_store_argv_env);
	tcase_add_test(tc, test_store_metadata_follows_the_workers);
	tcase_add_test(tc, test_donor_argv_env);
	tcase_add_test(tc, test_store_sizes);
	suite_add_tcase(s, tc);
	return s;
}
