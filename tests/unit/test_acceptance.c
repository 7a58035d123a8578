/* test_acceptance.c - srtctl's acceptance cases 1-9 (its
 * tests/test_trtllm_mooncake.py @76d3c647), one Check test per case; cases
 * 10-14 and every refusal are in test_acceptance_refused.c. Section numbers
 * (§) and rule ids are those of doc/recipe-reference.md. The recipes and
 * helpers are acceptance.h's.
 *
 * "Sweep" in srtctl is the mock orchestrator; here it is what the library
 * owns of it: the files of mcr_client_configs for a master at the infra
 * address 10.1.1.1:8700, the worker environment of mcr_worker_env with the
 * files in /logs, and the master's argv of mcr_master_argv. Where a case
 * checks srtctl-only behaviour (step order, worker argv, the engine YAML),
 * the test checks the nearest thing the library decides and says so.
 */
#include "acceptance.h"

/* ---- positive / rendering ----------------------------------------- */

/* One recipe of case 1 (R or D). */
static void check_case01(const char *yaml)
{
	struct mcr_recipe *r = load_ok(yaml);
	struct mcr_file_list files = render(r);
	struct mcr_error err = { 0 };
	char **argv = NULL;
	static const struct {
		enum mcr_role mode;
		const char *role, *path;
	} modes[] = {
		{ MCR_ROLE_PREFILL, "both", "/logs/mooncake_store_config_prefill.json" },
		{ MCR_ROLE_DECODE, "capacity", "/logs/mooncake_store_config_decode.json" },
	};

	/* The master step: srtctl starts service_mooncake-master before any
	 * worker step; the plugin's ordering is not a library decision, so the
	 * library-side check is the argv, exactly (srtctl's test: it starts
	 * `mooncake_master --port=8700`, no mooncake_donor, mooncake_master
	 * only first). */
	ck_assert_int_eq(mcr_master_argv(r, "mooncake_master", NULL, &argv, &err), 0);
	{
		static const char *const want[] = {
			"mooncake_master",
			"--port=8700",
			"--enable_http_metadata_server=true",
			"--http_metadata_server_port=8701",
			"--eviction_high_watermark_ratio=0.9",
			"--default_kv_lease_ttl=10000",
			"--rpc_thread_num=16",
			"--enable_metric_reporting=true",
			"--metrics_port=8702",
			NULL,
		};

		for (size_t i = 0; want[i] || argv[i]; i++)
			ck_assert_str_eq(argv[i] ? argv[i] : "(end)", want[i] ? want[i] : "(end)");
	}
	mcr_strv_free(argv);

	/* Connector modes (prefill, decode), a file for each and nothing else.
	 * (The worker argv after trtllm-llmapi-launch - trtllm-serve for R,
	 * python3 -m dynamo.trtllm for D - is srtctl's; the plugin only sets the
	 * environment of the tasks the user's srun starts.) */
	ck_assert_uint_eq(r->connector_modes, BIT(PREFILL) | BIT(DECODE));
	ck_assert_uint_eq(files.count, 2);
	for (size_t i = 0; i < 2; i++) {
		struct mcr_env env = worker_env(r, modes[i].mode);
		const char *name = strrchr(modes[i].path, '/') + 1;
		const char *json = file_text(&files, name);
		const char *addr;

		ck_assert_msg(json != NULL, "no %s rendered", name);
		ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_CONFIG_PATH"), modes[i].path);
		ck_assert_str_eq(json_str(json, "role"), modes[i].role);
		ck_assert_str_eq(json_str(json, "model_key"), "Qwen/Qwen3-0.6B");
		ck_assert_contains(json, "\n  \"stage_through_host\": true");
		addr = json_str(json, "master_server_address");
		ck_assert_ptr_nonnull(addr);
		ck_assert_uint_gt(strlen(addr), 5);
		ck_assert_str_eq(addr + strlen(addr) - 5, ":8700");
		ck_assert_str_eq(addr, mcr_env_get(&env, "MOONCAKE_MASTER"));
		/* and the rest of the snapshot's Mooncake env (§8) */
		ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_TE_META_DATA_SERVER"), "http://10.1.1.1:8701/metadata");
		ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_LOCAL_HOSTNAME"), "10.1.1.2");
		mcr_env_free(&env);

		/* srtctl writes roles.<mode>.args verbatim as the engine YAML and
		 * asserts kv_connector_config == {connector: mooncake-store}; the
		 * plugin writes no engine YAML, so check that the library leaves the
		 * role's block as the recipe gave it (it only ever reads it). */
		{
			const struct mcri_node *kcc =
				mcri_map_get(mcri_map_get(r->role_node[modes[i].mode], "args"), "kv_connector_config");

			ck_assert(mcri_is_map(kcc));
			ck_assert_uint_eq(kcc->n, 1);
			ck_assert_str_eq(mcri_map_get(kcc, "connector")->s, "mooncake-store");
			ck_assert_ptr_null(strstr(json, "mooncake_store\""));
		}
	}
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
}

START_TEST(test_case01_render_connector_roles)
{
	check_case01(R);
	check_case01(D);
}
END_TEST

/* 2. role keys over service keys; the whole files, layered as §7.1 says */
START_TEST(test_case02_role_keys_over_service_keys)
{
	struct mcr_recipe *r = load_ok(R);
	struct mcr_file_list files = render(r);

	ck_assert_str_eq(json_str(file_text(&files, "mooncake_store_config_prefill.json"), "global_segment_size"),
			 "8GiB");
	ck_assert_str_eq(json_str(file_text(&files, "mooncake_store_config_decode.json"), "global_segment_size"),
			 "16GiB");
	ck_assert_str_eq(file_text(&files, "mooncake_store_config_prefill.json"),
			 "{\n"
			 "  \"role\": \"both\",\n"
			 "  \"model_key\": \"Qwen/Qwen3-0.6B\",\n"
			 "  \"protocol\": \"rdma\",\n"
			 "  \"global_segment_size\": \"8GiB\",\n"
			 "  \"stage_through_host\": true,\n"
			 "  \"master_server_address\": \"10.1.1.1:8700\"\n"
			 "}");
	ck_assert_str_eq(file_text(&files, "mooncake_store_config_decode.json"),
			 "{\n"
			 "  \"role\": \"capacity\",\n"
			 "  \"model_key\": \"Qwen/Qwen3-0.6B\",\n"
			 "  \"protocol\": \"rdma\",\n"
			 "  \"global_segment_size\": \"16GiB\",\n"
			 "  \"stage_through_host\": true,\n"
			 "  \"master_server_address\": \"10.1.1.1:8700\"\n"
			 "}");
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
}
END_TEST

/* 3. model_key defaults to the model directory name without
 * served_model_name; options.store_config.model_key overrides it */
START_TEST(test_case03_model_key_default_and_override)
{
	struct mcr_recipe *r = load_ok_free(edit(R, SERVED_NAME, "", NULL));
	struct mcr_file_list files = render(r);

	/* srtctl: the last component of the trtllm-serve model argument */
	ck_assert_uint_eq(files.count, 2);
	ck_assert_str_eq(json_str(file_text(&files, "mooncake_store_config_prefill.json"), "model_key"), "Qwen3-0.6B");
	ck_assert_str_eq(json_str(file_text(&files, "mooncake_store_config_decode.json"), "model_key"), "Qwen3-0.6B");
	mcr_file_list_free(&files);
	mcr_recipe_free(r);

	r = load_ok_free(edit(R, SERVED_NAME, "", STORE_LAST, STORE_LAST "        model_key: qwen3-pool\n", NULL));
	files = render(r);
	{
		const char *json = file_text(&files, "mooncake_store_config_decode.json");

		ck_assert_str_eq(json_str(json, "model_key"), "qwen3-pool");
		/* overwritten in place: still the second key */
		ck_assert_contains(json, "{\n  \"role\": \"capacity\",\n  \"model_key\": \"qwen3-pool\",\n");
	}
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
}
END_TEST

/* 4. a role without the connector reads no file */
START_TEST(test_case04_non_connector_role_gets_no_file)
{
	struct mcr_recipe *r = load_ok_free(edit(R, D_KCC, "", D_MSC, "", NULL));
	struct mcr_file_list files = render(r);
	struct mcr_env env = worker_env(r, MCR_ROLE_DECODE);

	ck_assert_ptr_null(mcr_env_get(&env, "MOONCAKE_CONFIG_PATH"));
	/* §8: a non-connector TRT-LLM role still gets the other Mooncake vars */
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_MASTER"), MASTER);
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_TE_META_DATA_SERVER"), "http://10.1.1.1:8701/metadata");
	mcr_env_free(&env);
	ck_assert_uint_eq(files.count, 1);
	ck_assert_ptr_null(file_text(&files, "mooncake_store_config_decode.json"));
	ck_assert_str_eq(json_str(file_text(&files, "mooncake_store_config_prefill.json"), "role"), "both");
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
}
END_TEST

/* 5. master_server_address is always the infra node's; role override */
START_TEST(test_case05_master_address_forced_and_role_override)
{
	struct mcr_recipe *r = load_ok_free(edit(R, "      store_config:\n",
						 "      store_config:\n        master_server_address: 10.0.0.9:1234\n",
						 D_MSC, D_MSC "      role: both\n", NULL));
	struct mcr_file_list files = render(r);
	const char *prefill = file_text(&files, "mooncake_store_config_prefill.json");
	const char *decode = file_text(&files, "mooncake_store_config_decode.json");

	ck_assert_uint_eq(r->connector_modes, BIT(PREFILL) | BIT(DECODE));
	ck_assert_uint_eq(files.count, 2);
	ck_assert_ptr_nonnull(prefill);
	ck_assert_ptr_nonnull(decode);
	ck_assert_str_eq(json_str(prefill, "role"), "both");
	ck_assert_str_eq(json_str(prefill, "master_server_address"), MASTER);
	ck_assert_ptr_null(strstr(prefill, "10.0.0.9"));
	/* replaced in place: it keeps the position the user gave it */
	ck_assert_contains(prefill, "\"model_key\": \"Qwen/Qwen3-0.6B\",\n"
				    "  \"master_server_address\": \"10.1.1.1:8700\",\n"
				    "  \"protocol\": \"rdma\"");
	ck_assert_str_eq(json_str(decode, "role"), "both");
	ck_assert_str_eq(json_str(decode, "master_server_address"), MASTER);
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
}
END_TEST

/* 6. no store, no files */
START_TEST(test_case06_no_store_no_files)
{
	/* SGLang by default (no engine key) */
	static const char sglang[] = HEAD "roles:\n"
					  "  prefill:\n"
					  "    args:\n"
					  "      disaggregation-transfer-backend: mooncake\n"
					  "  decode:\n"
					  "    args:\n"
					  "      disaggregation-transfer-backend: mooncake\n";
	/* TRT-LLM without a master (and so without the connector, C3) */
	char *trtllm = edit(R, P_KCC, "", D_KCC, "", D_MSC, "", SERVICES, "", NULL);
	const char *const yamls[] = { sglang, trtllm };

	for (size_t i = 0; i < 2; i++) {
		struct mcr_recipe *r = load_ok(yamls[i]);
		struct mcr_file_list files = render(r);

		ck_assert(!mcr_recipe_has_master(r));
		ck_assert_uint_eq(files.count, 0);
		mcr_file_list_free(&files);
		mcr_recipe_free(r);
	}
	free(trtllm);
}
END_TEST

/* 7. connector detection by connector_module */
START_TEST(test_case07_connector_by_module)
{
	struct mcr_recipe *r =
		load_ok_free(edit(R, D_KCC,
				  "      kv_connector_config:\n"
				  "        connector_module: tensorrt_llm._torch.pyexecutor.connectors.mooncake_store\n"
				  "        connector_scheduler_class: MooncakeStoreConnectorScheduler\n"
				  "        connector_worker_class: MooncakeStoreConnectorWorker\n",
				  NULL));
	struct mcr_file_list files = render(r);

	ck_assert_uint_eq(r->connector_modes, BIT(PREFILL) | BIT(DECODE));
	ck_assert_uint_eq(files.count, 2);
	ck_assert_ptr_nonnull(file_text(&files, "mooncake_store_config_decode.json"));
	mcr_file_list_free(&files);
	mcr_recipe_free(r);

	/* an explicit other module wins over `connector: mooncake-store` */
	r = load_ok_free(edit(R, D_KCC,
			      "      kv_connector_config:\n"
			      "        connector: mooncake-store\n"
			      "        connector_module: my.connector\n",
			      D_MSC, "", NULL));
	files = render(r);
	ck_assert_uint_eq(r->connector_modes, BIT(PREFILL));
	ck_assert(!mcr_recipe_role_reads_config(r, MCR_ROLE_DECODE));
	ck_assert_uint_eq(files.count, 1);
	ck_assert_str_eq(files.files[0].name, "mooncake_store_config_prefill.json");
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
}
END_TEST

/* 8. stage_through_host: 1 and role " Capacity " pass */
START_TEST(test_case08_lenient_values_load)
{
	struct mcr_recipe *r = load_ok_free(edit(R, STORE_LAST, "        stage_through_host: 1\n", D_MSC,
						 D_MSC "      role: \" Capacity \"\n", NULL));
	struct mcr_file_list files = render(r);
	const char *decode = file_text(&files, "mooncake_store_config_decode.json");

	/* validated (C11.2, C11.3), but written unchanged */
	ck_assert_str_eq(json_str(decode, "role"), " Capacity ");
	ck_assert_contains(decode, "\n  \"stage_through_host\": 1,");
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
}
END_TEST

/* 9. transfer_batch_size as Python int() reads it */
START_TEST(test_case09_transfer_batch_size)
{
	mcr_recipe_free(load_ok_free(edit(R, STORE_LAST, STORE_LAST "        transfer_batch_size: \"64\"\n", NULL)));
	mcr_recipe_free(load_ok_free(edit(R, STORE_LAST, STORE_LAST "        transfer_batch_size: 64.0\n", NULL)));
	/* "lots" and true: REFUSED below */
}
END_TEST

Suite *acceptance_suite(void)
{
	Suite *s = suite_create("acceptance");
	TCase *tc = tcase_create("spec7");

	tcase_add_test(tc, test_case01_render_connector_roles);
	tcase_add_test(tc, test_case02_role_keys_over_service_keys);
	tcase_add_test(tc, test_case03_model_key_default_and_override);
	tcase_add_test(tc, test_case04_non_connector_role_gets_no_file);
	tcase_add_test(tc, test_case05_master_address_forced_and_role_override);
	tcase_add_test(tc, test_case06_no_store_no_files);
	tcase_add_test(tc, test_case07_connector_by_module);
	tcase_add_test(tc, test_case08_lenient_values_load);
	tcase_add_test(tc, test_case09_transfer_batch_size);
	suite_add_tcase(s, tc);
	return s;
}
