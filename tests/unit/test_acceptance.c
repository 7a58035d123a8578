/* test_acceptance.c - srtctl's acceptance cases (its
 * tests/test_trtllm_mooncake.py @76d3c647), one Check test per case and one
 * per refusal. Section numbers (§) and rule ids are those of
 * doc/recipe-reference.md.
 *
 * R is the PR example examples/trtllm/trtllm-serve-disagg-mooncake.yaml and D
 * examples/trtllm/dynamo-disagg-mooncake.yaml, both with model.path
 * hf:Qwen/Qwen3-0.6B and model.container trtllm.sqsh as srtctl's cases set them. The
 * recipes are assembled from the named fragments below, and each case edits
 * them with edit(): a fragment is also the anchor that edit() replaces, so a
 * variant reads as "R with <fragment> replaced by <text>".
 *
 * "Sweep" in srtctl is the mock orchestrator; here it is what the library
 * owns of it: the files of mcr_client_configs for a master at the infra
 * address 10.1.1.1:8700, the worker environment of mcr_worker_env with the
 * files in /logs, and the master's argv of mcr_master_argv. Where a case
 * checks srtctl-only behaviour (step order, worker argv, the engine YAML),
 * the test checks the nearest thing the library decides and says so.
 */
#include <stdarg.h>

#include "testutil.h"

#define INFRA_IP "10.1.1.1"
#define MASTER INFRA_IP ":8700"

/* ---- the recipes --------------------------------------------------- */

#define HEAD                                       \
	"schema: 2\n"                              \
	"name: qwen3-0.6b-trtllm-disagg-mooncake\n" \
	"slurm:\n"                                 \
	"  time_limit: \"00:30:00\"\n"             \
	"model:\n"                                 \
	"  path: hf:Qwen/Qwen3-0.6B\n"             \
	"  container: trtllm.sqsh\n"               \
	"  precision: bf16\n"                      \
	"resources:\n"                             \
	"  gpu_type: h100\n"                       \
	"  gpus_per_node: 8\n"

#define FRONTEND_SERVE             \
	"frontend:\n"              \
	"  type: trtllm_serve\n"   \
	"  enable_multiple_frontends: false\n"

#define FRONTEND_DYNAMO            \
	"dynamo:\n"                \
	"  install: false\n"       \
	"frontend:\n"              \
	"  type: dynamo\n"         \
	"  enable_multiple_frontends: false\n"

#define SERVED_NAME "  served_model_name: Qwen/Qwen3-0.6B\n"
#define ENGINE "engine:\n  type: trtllm\n" SERVED_NAME

/* the roles' env and connectors; the comments make them edit() anchors */
#define P_ENV                                      \
	"    env:                       # prefill\n" \
	"      PYTHONUNBUFFERED: \"1\"\n"          \
	"      TLLM_LOG_LEVEL: INFO\n"
#define D_ENV                                      \
	"    env:                       # decode\n"  \
	"      PYTHONUNBUFFERED: \"1\"\n"          \
	"      TLLM_LOG_LEVEL: INFO\n"
/* what a role that owns its pool sets instead (cases 11 and 15) */
#define CONFIG_PATH_ENV                            \
	"    env:\n"                               \
	"      MOONCAKE_CONFIG_PATH: /data/mooncake.json\n"

#define P_KCC                                      \
	"      kv_connector_config:     # prefill\n" \
	"        connector: mooncake-store\n"
#define D_KCC                                      \
	"      kv_connector_config:     # decode\n"  \
	"        connector: mooncake-store\n"

#define PREFILL                                    \
	"  prefill:\n"                             \
	"    nodes: 1\n"                           \
	"    workers: 1\n"                         \
	"    gpus: 1\n"                            \
	P_ENV                                      \
	"    args:\n"                              \
	"      backend: pytorch\n"                 \
	"      tensor_parallel_size: 1\n"          \
	"      max_batch_size: 8\n"                \
	"      disable_overlap_scheduler: true\n"  \
	"      kv_cache_config:\n"                 \
	"        free_gpu_memory_fraction: 0.5\n"  \
	P_KCC

#define DECODE                                     \
	"  decode:\n"                              \
	"    nodes: colocate\n"                    \
	"    workers: 1\n"                         \
	"    gpus: 1\n"                            \
	D_ENV                                      \
	"    args:\n"                              \
	"      backend: pytorch\n"                 \
	"      tensor_parallel_size: 1\n"          \
	"      max_batch_size: 64\n"               \
	"      kv_cache_config:\n"                 \
	"        free_gpu_memory_fraction: 0.5\n"  \
	D_KCC

/* roles.decode.mooncake_store_config of R */
#define D_MSC                              \
	"    mooncake_store_config:\n"     \
	"      global_segment_size: 16GiB\n"

/* the last line of options.store_config: store keys are added after it */
#define STORE_LAST "        stage_through_host: true\n"
#define SERVICES                                   \
	"services:\n"                              \
	"  - name: mooncake-master\n"              \
	"    type: mooncake-master\n"              \
	"    options:\n"                           \
	"      store_config:\n"                    \
	"        protocol: rdma\n"                 \
	"        global_segment_size: 8GiB\n"      \
	STORE_LAST

#define BENCHMARK                                  \
	"benchmark:\n"                             \
	"  type: sa-bench\n"                       \
	"  isl: 128\n"                             \
	"  osl: 128\n"                             \
	"  concurrencies: \"4x8\"\n"

static const char R[] = HEAD FRONTEND_SERVE ENGINE "roles:\n" PREFILL DECODE D_MSC SERVICES BENCHMARK;
static const char D[] = HEAD FRONTEND_DYNAMO ENGINE "roles:\n" PREFILL DECODE SERVICES BENCHMARK;

/* ---- helpers ------------------------------------------------------- */

/* `text` (freed) with `old`, which must occur exactly once, replaced */
static char *edit_one(char *text, const char *old, const char *rep)
{
	char *at = strstr(text, old), *out;
	size_t pre, ol = strlen(old), rl = strlen(rep);

	ck_assert_msg(at != NULL, "edit: '%s' not in the recipe", old);
	ck_assert_msg(strstr(at + 1, old) == NULL, "edit: '%s' occurs twice", old);
	pre = (size_t)(at - text);
	out = malloc(strlen(text) - ol + rl + 1);
	ck_assert_ptr_nonnull(out);
	memcpy(out, text, pre);
	memcpy(out + pre, rep, rl);
	strcpy(out + pre + rl, at + ol);
	free(text);
	return out;
}

/* `base` with each (old, new) pair applied in turn, NULL-terminated */
static char *edit(const char *base, ...)
{
	char *text = strdup(base);
	const char *old;
	va_list ap;

	va_start(ap, base);
	while ((old = va_arg(ap, const char *)) != NULL)
		text = edit_one(text, old, va_arg(ap, const char *));
	va_end(ap);
	return text;
}

/* the text of an edited recipe must load / be refused */
static struct mcr_recipe *load_ok_free(char *yaml)
{
	struct mcr_recipe *r = load_ok(yaml);

	free(yaml);
	return r;
}


/* Files rendered for the master at 10.1.1.1:8700. */
static struct mcr_file_list render(const struct mcr_recipe *r)
{
	struct mcr_file_list list;
	struct mcr_error err = { 0 };

	if (mcr_client_configs(r, MASTER, &list, &err))
		ck_abort_msg("mcr_client_configs failed: %s", errmsg(&err));
	return list;
}

/* Text of file `name` in the list, or NULL. */
static const char *file_text(const struct mcr_file_list *list, const char *name)
{
	for (size_t i = 0; i < list->count; i++)
		if (strcmp(list->files[i].name, name) == 0)
			return list->files[i].text;
	return NULL;
}

/* Environment of a `role` task, files in /logs, node address 10.1.1.2. */
static struct mcr_env worker_env(const struct mcr_recipe *r, enum mcr_role role)
{
	struct mcr_env env;
	struct mcr_error err = { 0 };
	struct mcr_env_input in = {
		.master_address = MASTER,
		.metadata_host = INFRA_IP,
		.config_dir = "/logs",
		.config_name = NULL,
		.local_hostname = "10.1.1.2",
	};

	if (mcr_worker_env(r, role, &in, &env, &err))
		ck_abort_msg("mcr_worker_env(%s) failed: %s", mcr_role_name(role), errmsg(&err));
	return env;
}

/* The string value of "key" in a rendered JSON file (static storage), or
 * NULL when the key is absent or not a string. */
static const char *json_str(const char *json, const char *key)
{
	static char val[256];
	char pat[128];
	const char *p, *end;

	snprintf(pat, sizeof(pat), "\n  \"%s\": \"", key);
	if (!(p = strstr(json, pat)))
		return NULL;
	p += strlen(pat);
	end = strchr(p, '"');
	ck_assert_ptr_nonnull(end);
	ck_assert_uint_lt((size_t)(end - p), sizeof(val));
	memcpy(val, p, (size_t)(end - p));
	val[end - p] = '\0';
	return val;
}

#define BIT(role) MCRI_ROLE_BIT(MCR_ROLE_##role)

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
			"mooncake_master", "--port=8700", "--enable_http_metadata_server=true",
			"--http_metadata_server_port=8701", "--eviction_high_watermark_ratio=0.9",
			"--default_kv_lease_ttl=10000", "--rpc_thread_num=16",
			"--enable_metric_reporting=true", "--metrics_port=8702", NULL,
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
		ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_TE_META_DATA_SERVER"),
				 "http://10.1.1.1:8701/metadata");
		ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_LOCAL_HOSTNAME"), "10.1.1.2");
		mcr_env_free(&env);

		/* srtctl writes roles.<mode>.args verbatim as the engine YAML and
		 * asserts kv_connector_config == {connector: mooncake-store}; the
		 * plugin writes no engine YAML, so check that the library leaves the
		 * role's block as the recipe gave it (it only ever reads it). */
		{
			const struct mcri_node *kcc = mcri_map_get(
								   mcri_map_get(r->role_node[modes[i].mode], "args"),
								   "kv_connector_config");

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

	ck_assert_str_eq(json_str(file_text(&files, "mooncake_store_config_prefill.json"),
				  "global_segment_size"), "8GiB");
	ck_assert_str_eq(json_str(file_text(&files, "mooncake_store_config_decode.json"),
				  "global_segment_size"), "16GiB");
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
	ck_assert_str_eq(json_str(file_text(&files, "mooncake_store_config_prefill.json"),
				  "model_key"), "Qwen3-0.6B");
	ck_assert_str_eq(json_str(file_text(&files, "mooncake_store_config_decode.json"),
				  "model_key"), "Qwen3-0.6B");
	mcr_file_list_free(&files);
	mcr_recipe_free(r);

	r = load_ok_free(edit(R, SERVED_NAME, "",
			      STORE_LAST, STORE_LAST "        model_key: qwen3-pool\n", NULL));
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
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_TE_META_DATA_SERVER"),
			 "http://10.1.1.1:8701/metadata");
	mcr_env_free(&env);
	ck_assert_uint_eq(files.count, 1);
	ck_assert_ptr_null(file_text(&files, "mooncake_store_config_decode.json"));
	ck_assert_str_eq(json_str(file_text(&files, "mooncake_store_config_prefill.json"),
				  "role"), "both");
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
}
END_TEST

/* 5. master_server_address is always the infra node's; role override */
START_TEST(test_case05_master_address_forced_and_role_override)
{
	struct mcr_recipe *r = load_ok_free(edit(
		R, "      store_config:\n",
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
	static const char sglang[] =
		HEAD
		"roles:\n"
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
	struct mcr_recipe *r = load_ok_free(edit(
		R, D_KCC,
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
	struct mcr_recipe *r = load_ok_free(edit(
		R, STORE_LAST, "        stage_through_host: 1\n",
		D_MSC, D_MSC "      role: \" Capacity \"\n", NULL));
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

/* 10. a disabled external mooncake-master entry changes nothing */
START_TEST(test_case10_disabled_external_entry)
{
	struct mcr_recipe *r = load_ok_free(edit(
		R, BENCHMARK,
		"  - name: mooncake-master-ext\n"
		"    type: mooncake-master\n"
		"    enabled: false\n"
		"    external: 10.0.0.5:8700\n" BENCHMARK,
		NULL));

	ck_assert(mcr_recipe_has_master(r));
	ck_assert_ptr_null(mcr_recipe_external_master(r));
	ck_assert_ptr_nonnull(r->service);
	ck_assert_str_eq(mcri_map_get(r->service, "name")->s, "mooncake-master");
	mcr_recipe_free(r);
}
END_TEST

/* 11. without a master, roles that own their pool load (store null) */
START_TEST(test_case11_roles_own_their_pool)
{
	char *yamls[] = {
		/* trtllm_serve, both roles set MOONCAKE_CONFIG_PATH */
		edit(R, SERVICES, "", D_MSC, "", P_ENV, CONFIG_PATH_ENV, D_ENV, CONFIG_PATH_ENV, NULL),
		/* dynamo, the same env */
		edit(D, SERVICES, "", P_ENV, CONFIG_PATH_ENV, D_ENV, CONFIG_PATH_ENV, NULL),
		/* trtllm_serve, both roles carry a block with their own run_dir */
		edit(R, SERVICES, "", D_MSC, "",
		     P_KCC, P_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m, run_dir: /d}\n",
		     D_KCC, D_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m, run_dir: /d-decode}\n",
		     NULL),
	};

	for (int i = 0; i < 3; i++) {
		struct mcr_recipe *r = load_ok(yamls[i]);
		struct mcr_file_list files = render(r);

		ck_assert(!mcr_recipe_has_master(r));
		ck_assert_uint_eq(r->connector_modes, BIT(PREFILL) | BIT(DECODE));
		ck_assert_uint_eq(files.count, 0);
		for (int role = MCR_ROLE_PREFILL; role <= MCR_ROLE_DECODE; role++) {
			struct mcr_env env = worker_env(r, (enum mcr_role)role);

			/* §8: no Mooncake variables without a master; a recipe-set
			 * MOONCAKE_CONFIG_PATH passes through like any variable */
			ck_assert_ptr_null(mcr_env_get(&env, "MOONCAKE_MASTER"));
			ck_assert_ptr_null(mcr_env_get(&env, "MOONCAKE_TE_META_DATA_SERVER"));
			ck_assert_ptr_null(mcr_env_get(&env, "MOONCAKE_LOCAL_HOSTNAME"));
			if (i < 2)
				ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_CONFIG_PATH"),
						 "/data/mooncake.json");
			else
				ck_assert_ptr_null(mcr_env_get(&env, "MOONCAKE_CONFIG_PATH"));
			mcr_env_free(&env);
		}
		mcr_file_list_free(&files);
		mcr_recipe_free(r);
		free(yamls[i]);
	}
}
END_TEST

/* 12. a services-only TRT-LLM recipe (no roles, no connector) */
START_TEST(test_case12_services_only_trtllm)
{
	/* examples/features/torchrun-pool.yaml with engine: {type: trtllm} */
	static const char yaml[] =
		"schema: 2\n"
		"name: \"torchrun-pool\"\n"
		"slurm:\n"
		"  time_limit: \"00:20:00\"\n"
		"model:\n"
		"  path: \"hf:Qwen/Qwen3-0.6B\"\n"
		"  container: \"nvcr.io/nvidia/pytorch:25.06-py3\"\n"
		"  precision: \"bf16\"\n"
		"resources:\n"
		"  gpu_type: \"b200\"\n"
		"  gpus_per_node: 8\n"
		"engine:\n"
		"  type: trtllm\n"
		"frontend:\n"
		"  type: none\n"
		"services:\n"
		"  - name: train\n"
		"    type: generic\n"
		"    nodes: 2\n"
		"    command:\n"
		"      - torchrun\n"
		"      - --nnodes={pool_node_count}\n"
		"      - --nproc-per-node={gpus_per_node}\n"
		"      - --node-rank={index}\n"
		"      - --master-addr={pool_ip}\n"
		"      - --master-port=29500\n"
		"      - /demo/train.py\n"
		"    env:\n"
		"      NCCL_SOCKET_IFNAME: bond0\n"
		"      GLOO_SOCKET_IFNAME: bond0\n"
		"benchmark:\n"
		"  type: custom\n"
		"  command: >-\n"
		"    bash -c 'echo done'\n"
		"extra_mount:\n"
		"  - \"$SRTCTL_SOURCE_DIR/examples/features/torchrun-pool:/demo\"\n"
		"observability:\n"
		"  tachometer:\n"
		"    enabled: false\n";
	struct mcr_recipe *r = load_ok(yaml);

	ck_assert_int_eq(mcr_recipe_engine(r), MCR_ENGINE_TRTLLM);
	ck_assert(!mcr_recipe_has_master(r));
	ck_assert_uint_eq(r->connector_modes, 0);
	mcr_recipe_free(r);
}
END_TEST

/* D without a master and one agg role whose block has a run_dir */
#define AGG_ONLY                                               \
	"  agg:\n"                                             \
	"    nodes: 1\n"                                       \
	"    workers: 1\n"                                     \
	"    gpus: 1\n"                                        \
	"    args:\n"                                          \
	"      backend: pytorch\n"                             \
	"      kv_connector_config:\n"                         \
	"        connector: mooncake-store\n"                  \
	"        mooncake_store:\n"                            \
	"          pool: file:///logs/pool.json\n"             \
	"          model_key: m\n"                             \
	"          run_dir: /logs/mc\n"

static const char DYNAMO_AGG[] = HEAD FRONTEND_DYNAMO ENGINE "roles:\n" AGG_ONLY BENCHMARK;

/* 13. the run_dir of a block needs trtllm-serve (or Dynamo's sidecar) */
START_TEST(test_case13_dynamo_agg_run_dir_needs_sidecar)
{
	struct mcr_recipe *r;

	/* without the sidecar: REFUSED below */
	r = load_ok_free(edit(DYNAMO_AGG, "  install: false\n",
			      "  install: false\n  sidecar: true\n", NULL));
	ck_assert(!mcr_recipe_has_master(r));
	ck_assert_uint_eq(r->connector_modes, BIT(AGG));
	mcr_recipe_free(r);
}
END_TEST

/* ---- negative: the load must fail --------------------------------- */

/* examples/sglang/dynamo-disagg.yaml and examples/vllm/dynamo-disagg.yaml */
#define DYNAMO_DISAGG(engine, decode_arg)                        \
	"schema: 2\n"                                            \
	"name: qwen3-0.6b-dynamo-disagg\n"                       \
	"model:\n"                                               \
	"  path: qwen3-0.6b\n"                                   \
	"  container: sglang\n"                                  \
	"  precision: bf16\n"                                    \
	"resources:\n"                                           \
	"  gpu_type: h100\n"                                     \
	"  gpus_per_node: 8\n"                                   \
	"dynamo:\n"                                              \
	"  source:\n"                                            \
	"    pypi: \"1.4.2\"\n"                                  \
	"frontend:\n"                                            \
	"  type: dynamo\n"                                       \
	"  enable_multiple_frontends: false\n"                   \
	"  args:\n"                                              \
	"    router-mode: \"kv\"\n"                              \
	engine                                                   \
	"roles:\n"                                               \
	"  prefill:\n"                                           \
	"    nodes: 1\n"                                         \
	"    workers: 1\n"                                       \
	"    gpus: 1\n"                                          \
	"    env:\n"                                             \
	"      PYTHONUNBUFFERED: \"1\"\n"                        \
	"    args:\n"                                            \
	"      served-model-name: \"Qwen/Qwen3-0.6B\"\n"         \
	"      tensor-parallel-size: 1\n"                        \
	"  decode:\n"                                            \
	"    nodes: 0\n"                                         \
	"    workers: 1\n"                                       \
	"    gpus: 1\n"                                          \
	"    env:\n"                                             \
	"      PYTHONUNBUFFERED: \"1\"\n"                        \
	"    args:\n"                                            \
	"      served-model-name: \"Qwen/Qwen3-0.6B\"\n"         \
	"      " decode_arg "\n"                                 \
	"benchmark:\n"                                           \
	"  type: \"sa-bench\"\n"

/* 14. roles.<role>.mooncake_store_config is TRT-LLM's: the recipes load
 * without it (with it: REFUSED below) */
static const char SGLANG_DISAGG[] = DYNAMO_DISAGG("engine: sglang\n", "mem-fraction-static: 0.5");
static const char VLLM_DISAGG[] = DYNAMO_DISAGG("engine:\n  type: vllm\n  connector: nixl\n",
						"gpu-memory-utilization: 0.5");

START_TEST(test_case14_sglang_disagg_loads)
{
	mcr_recipe_free(load_ok(SGLANG_DISAGG));
}
END_TEST

START_TEST(test_case14_vllm_disagg_loads)
{
	mcr_recipe_free(load_ok(VLLM_DISAGG));
}
END_TEST

/* Every refusal of srtctl's cases, one test each: a recipe edited with up
 * to four (old, new) pairs, and the whole message. */
#define STORE(line) STORE_LAST, STORE_LAST "        " line "\n"
#define DECODE_KEY(line) D_MSC, D_MSC "      " line "\n"
#define SEG_8GIB "        global_segment_size: 8GiB\n"
#define POOL "{pool: file:///logs/pool.json, model_key: m, run_dir: /logs/mc}"

static const struct {
	const char *name, *base, *edits[10], *message;
} REFUSED[] = {
	{ "case09_transfer_batch_size_words", R,
	  { STORE("transfer_batch_size: \"lots\"") },
	  "mooncake: r.yaml:60:30: Mooncake client config for roles.prefill: transfer_batch_size must be a positive integer, got 'lots' (set at services[mooncake-master].options.store_config.transfer_batch_size)" },
	{ "case09_transfer_batch_size_bool", R,
	  { STORE("transfer_batch_size: true") },
	  "mooncake: r.yaml:60:30: Mooncake client config for roles.prefill: transfer_batch_size must be a positive integer, got True (set at services[mooncake-master].options.store_config.transfer_batch_size)" },
	{ "case13_dynamo_run_dir_without_sidecar", DYNAMO_AGG, { NULL },
	  "mooncake: r.yaml:28:9: roles.agg.args.kv_connector_config selects the mooncake-store connector, but its workers would not find a Mooncake client config. Declare a mooncake-master service (services: [{name: mooncake-master, type: mooncake-master}]) so the plugin gives each role its config. (Without one, set MOONCAKE_CONFIG_PATH in roles.agg.env, or, when trtllm-serve runs the engine, a mooncake_store block with run_dir.)" },
	{ "case14_sglang_role_store_config", SGLANG_DISAGG,
	  { "      mem-fraction-static: 0.5\n",
	    "      mem-fraction-static: 0.5\n    mooncake_store_config: {global_segment_size: 16GiB}\n" },
	  "mooncake: r.yaml:38:28: roles.decode.mooncake_store_config is read by TRT-LLM only. For SGLang, set per-role Mooncake settings as MOONCAKE_* variables in roles.decode.env; for vLLM, in the mooncake-master service's options.store_config." },
	{ "case14_vllm_role_store_config", VLLM_DISAGG,
	  { "      gpu-memory-utilization: 0.5\n",
	    "      gpu-memory-utilization: 0.5\n    mooncake_store_config: {global_segment_size: 16GiB}\n" },
	  "mooncake: r.yaml:40:28: roles.decode.mooncake_store_config is read by TRT-LLM only. For SGLang, set per-role Mooncake settings as MOONCAKE_* variables in roles.decode.env; for vLLM, in the mooncake-master service's options.store_config." },
	{ "case15_role_store_config_needs_master", R,
	  { SERVICES, "services: []\n", P_ENV, CONFIG_PATH_ENV, D_ENV, CONFIG_PATH_ENV },
	  "mooncake: r.yaml:49:7: roles.decode.mooncake_store_config needs a mooncake-master service: srtslurm writes it into the client config it renders for the master's pool; declare `services: [{name: mooncake-master, type: mooncake-master}]` or remove the block" },
	{ "case16_no_connector_role", R, { P_KCC, "", D_KCC, "" },
	  "mooncake: r.yaml:49:5: a mooncake-master service is configured but no roles.<role>.args.kv_connector_config resolves to the Mooncake Store connector (connector: mooncake-store, with connector_module unset or tensorrt_llm._torch.pyexecutor.connectors.mooncake_store), so no TRT-LLM worker would use the master. Add `kv_connector_config: {connector: mooncake-store}` to the roles' args, or remove the service." },
	{ "case16_mooncake_store_block", R,
	  { P_KCC, P_KCC "        mooncake_store: {pool: file:///logs/pool.json, model_key: m}\n" },
	  "mooncake: r.yaml:35:25: roles.prefill.args.kv_connector_config.mooncake_store is set, but with a mooncake-master service srtslurm gives this role its Mooncake client config through MOONCAKE_CONFIG_PATH, which TRT-LLM reads instead of that block. Remove the block and put its client keys in roles.prefill.mooncake_store_config (segment_size is global_segment_size there; pool, run_dir, and master_timeout have no equivalent)." },
	{ "case16_model_key_empty", R, { STORE("model_key: \"\"") },
	  "mooncake: r.yaml:60:20: Mooncake client config for roles.prefill: model_key must be a non-empty string, got '': TRT-LLM keys the pool by it. Leave it unset to use the served model name (set at services[mooncake-master].options.store_config.model_key)" },
	/* (not in srtctl's test) a blank served name is the same blank model_key */
	{ "case16_served_name_blank", R, { SERVED_NAME, "  served_model_name: \"  \"\n" },
	  "mooncake: r.yaml:17:22: engine.served_model_name: '  ' is blank, and it is the pool's model_key (Mooncake client config for roles.prefill: model_key must be a non-empty string); set it to the model's name or remove it" },
	{ "case16_size_gb", R, { SEG_8GIB, "        global_segment_size: 16GB\n" },
	  "mooncake: r.yaml:58:30: Mooncake client config for roles.prefill: global_segment_size '16GB' must be a byte count or use a binary unit (KiB, MiB, GiB, TiB); 'GB' is refused; write '16GiB' (binary) or a byte count (set at services[mooncake-master].options.store_config.global_segment_size)" },
	{ "case16_local_buffer_zero", R, { STORE("local_buffer_size: 0") },
	  "mooncake: r.yaml:60:28: Mooncake client config for roles.prefill: local_buffer_size must be at least 1 bytes, got 0 (set at services[mooncake-master].options.store_config.local_buffer_size)" },
	{ "case16_segment_negative", R, { SEG_8GIB, "        global_segment_size: -1\n" },
	  "mooncake: r.yaml:58:30: Mooncake client config for roles.prefill: global_segment_size must be at least 0 bytes, got -1 (set at services[mooncake-master].options.store_config.global_segment_size)" },
	{ "case16_transfer_batch_size_zero", R, { STORE("transfer_batch_size: 0") },
	  "mooncake: r.yaml:60:30: Mooncake client config for roles.prefill: transfer_batch_size must be a positive integer, got 0 (set at services[mooncake-master].options.store_config.transfer_batch_size)" },
	{ "case16_stage_through_host_string", R,
	  { STORE_LAST, "        stage_through_host: \"false\"\n" },
	  "mooncake: r.yaml:59:29: Mooncake client config for roles.prefill: stage_through_host must be true or false, not the string 'false' (TRT-LLM takes its truthiness, so the string 'false' would mean true); write true or false unquoted (set at services[mooncake-master].options.store_config.stage_through_host)" },
	{ "case16_segment_size_key", R, { STORE("segment_size: 160GiB") },
	  "mooncake: r.yaml:60:9: mooncake-master options.store_config: segment_size belongs to the mooncake_store block and the client config ignores it: the client config calls it global_segment_size (set global_segment_size) (it is set to '160GiB')" },
	{ "case16_pool_key", R, { STORE("pool: file:///logs/pool.json") },
	  "mooncake: r.yaml:60:9: mooncake-master options.store_config: pool belongs to the mooncake_store block and the client config ignores it: srtctl points every role at the mooncake-master service; drop it (it is set to 'file:///logs/pool.json')" },
	{ "case16_external_master", R,
	  { "    type: mooncake-master\n", "    type: mooncake-master\n    external: 10.0.0.5:8700\n" },
	  "mooncake: r.yaml:55:15: services[mooncake-master].external: an external mooncake-master is not supported for TRT-LLM: srtslurm renders each role's master_server_address from the infra node, where nothing would be listening; remove external to let the plugin start the master" },
	{ "case16_role_donor", R, { DECODE_KEY("role: donor") },
	  "mooncake: r.yaml:52:13: Mooncake client config for roles.decode: role must be one of ['both', 'capacity', 'consumer', 'producer'], got 'donor' (prefill and agg default to both, decode to capacity) (set at roles.decode.mooncake_store_config.role)" },
	{ "case16_store_config_without_connector", R, { D_KCC, "" },
	  "mooncake: r.yaml:49:7: roles.decode.mooncake_store_config is set, but only ['prefill'] use the Mooncake Store connector; add `kv_connector_config: {connector: mooncake-store}` to roles.decode.args or remove the block" },
	{ "case16_role_protocol", R, { DECODE_KEY("protocol: tcp") },
	  "mooncake: r.yaml:52:7: roles.decode.mooncake_store_config: protocol must be the same for every server of the pool; set it in the mooncake-master service's options.store_config and remove it from the role (it sets protocol: 'tcp')" },
	{ "case16_role_model_key", R, { DECODE_KEY("model_key: other") },
	  "mooncake: r.yaml:52:7: roles.decode.mooncake_store_config: model_key must be the same for every server of the pool; set it in the mooncake-master service's options.store_config and remove it from the role (it sets model_key: 'other')" },
	{ "case17_block_key_in_store_config", R, { STORE("master_timeout: 900") },
	  "mooncake: r.yaml:60:9: mooncake-master options.store_config: master_timeout belongs to the mooncake_store block and the client config ignores it: srtctl starts the master before the workers; drop it (it is set to 900)" },
	{ "case17_block_key_in_role", R, { D_MSC, D_MSC "      run_dir: /logs/mc\n" },
	  "mooncake: r.yaml:52:7: roles.decode.mooncake_store_config: run_dir belongs to the mooncake_store block and the client config ignores it: srtctl hands each role its config through MOONCAKE_CONFIG_PATH; drop it (it is set to '/logs/mc')" },
	{ "case18_infinite_size", R, { SEG_8GIB, "        global_segment_size: .inf\n" },
	  "mooncake: r.yaml:58:30: Mooncake client config for roles.prefill: global_segment_size must be a finite size, got inf (set at services[mooncake-master].options.store_config.global_segment_size)" },
	{ "case19_serve_nothing", R, { SERVICES, "", D_MSC, "" },
	  "mooncake: r.yaml:34:9: roles.prefill.args.kv_connector_config selects the mooncake-store connector, but its workers would not find a Mooncake client config. Declare a mooncake-master service (services: [{name: mooncake-master, type: mooncake-master}]) so the plugin gives each role its config. (Without one, set MOONCAKE_CONFIG_PATH in roles.prefill.env, or, when trtllm-serve runs the engine, a mooncake_store block with run_dir.)" },
	{ "case19_serve_block_without_run_dir", R,
	  { SERVICES, "", D_MSC, "",
	    P_KCC, P_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m}\n",
	    D_KCC, D_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m}\n" },
	  "mooncake: r.yaml:34:9: roles.prefill.args.kv_connector_config selects the mooncake-store connector, but its workers would not find a Mooncake client config. Declare a mooncake-master service (services: [{name: mooncake-master, type: mooncake-master}]) so the plugin gives each role its config. (Without one, set MOONCAKE_CONFIG_PATH in roles.prefill.env, or, when trtllm-serve runs the engine, a mooncake_store block with run_dir.)" },
	{ "case19_dynamo_block_with_run_dir", D,
	  { SERVICES, "",
	    P_KCC, P_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m, run_dir: /d}\n",
	    D_KCC, D_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m, run_dir: /d-decode}\n" },
	  "mooncake: r.yaml:36:9: roles.prefill.args.kv_connector_config selects the mooncake-store connector, but its workers would not find a Mooncake client config. Declare a mooncake-master service (services: [{name: mooncake-master, type: mooncake-master}]) so the plugin gives each role its config. (Without one, set MOONCAKE_CONFIG_PATH in roles.prefill.env, or, when trtllm-serve runs the engine, a mooncake_store block with run_dir.)" },
	{ "case20_shared_run_dir", R,
	  { SERVICES, "", D_MSC, "",
	    P_KCC, P_KCC "        mooncake_store: " POOL "\n",
	    D_KCC, D_KCC "        mooncake_store: " POOL "\n" },
	  "mooncake: r.yaml:51:79: roles.decode.args.kv_connector_config.mooncake_store.run_dir '/logs/mc' would be shared by several servers, and TRT-LLM lets one live server own a run_dir. Give each role its own run_dir and one worker, or declare a mooncake-master service. (roles.prefill uses it too.)" },
	/* only prefill uses the connector, with a block, and runs two workers */
	{ "case20_two_workers", R,
	  { SERVICES, "", D_MSC, "", D_KCC, "",
	    P_KCC, P_KCC "        mooncake_store: " POOL "\n",
	    "  prefill:\n    nodes: 1\n    workers: 1\n", "  prefill:\n    nodes: 1\n    workers: 2\n" },
	  "mooncake: r.yaml:35:79: roles.prefill.args.kv_connector_config.mooncake_store.run_dir '/logs/mc' would be shared by several servers, and TRT-LLM lets one live server own a run_dir. Give each role its own run_dir and one worker, or declare a mooncake-master service. (roles.prefill.workers is 2.)" },
};

START_TEST(test_refused)
{
	char *yaml = strdup(REFUSED[_i].base);
	const char *const *e = REFUSED[_i].edits;
	const char *msg;

	for (size_t k = 0; k + 1 < sizeof(REFUSED[_i].edits) / sizeof(e[0]) && e[k]; k += 2)
		yaml = edit_one(yaml, e[k], e[k + 1]);
	msg = load_err(yaml);
	free(yaml);
	ck_assert_msg(strcmp(msg, REFUSED[_i].message) == 0, "%s: got\n%s\nwant\n%s",
		      REFUSED[_i].name, msg, REFUSED[_i].message);
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
	tcase_add_test(tc, test_case10_disabled_external_entry);
	tcase_add_test(tc, test_case11_roles_own_their_pool);
	tcase_add_test(tc, test_case12_services_only_trtllm);
	tcase_add_test(tc, test_case13_dynamo_agg_run_dir_needs_sidecar);
	tcase_add_test(tc, test_case14_sglang_disagg_loads);
	tcase_add_test(tc, test_case14_vllm_disagg_loads);
	tcase_add_loop_test(tc, test_refused, 0, (int)(sizeof(REFUSED) / sizeof(REFUSED[0])));
	suite_add_tcase(s, tc);
	return s;
}
