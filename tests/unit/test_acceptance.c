/* test_acceptance.c - the acceptance cases of spec §7 (srtctl's
 * tests/test_trtllm_mooncake.py @76d3c647), one Check test per case.
 *
 * R is the PR example examples/trtllm/trtllm-serve-disagg-mooncake.yaml and D
 * examples/trtllm/dynamo-disagg-mooncake.yaml, both with model.path
 * hf:Qwen/Qwen3-0.6B and model.container trtllm.sqsh as §7 sets them. The
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

/* `base` with each (old, new) pair applied in turn, NULL-terminated; every
 * `old` must occur exactly once in the text it is applied to. */
static char *edit(const char *base, ...)
{
	char *text = strdup(base);
	const char *old;
	va_list ap;

	va_start(ap, base);
	while ((old = va_arg(ap, const char *)) != NULL) {
		const char *rep = va_arg(ap, const char *);
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
		text = out;
	}
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

static void refused(char *yaml, const char *needle)
{
	const char *msg = load_err(yaml);

	ck_assert_contains(msg, needle);
	free(yaml);
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
	 * library-side check is the argv: exactly `mooncake_master --port=8700
	 * ...`, and neither mooncake_master nor a mooncake_donor anywhere else
	 * in it. */
	ck_assert_int_eq(mcr_master_argv(r, "mooncake_master", &argv, &err), 0);
	ck_assert_str_eq(argv[0], "mooncake_master");
	ck_assert_str_eq(argv[1], "--port=8700");
	for (size_t i = 1; argv[i]; i++) {
		ck_assert_ptr_null(strstr(argv[i], "mooncake_master"));
		ck_assert_ptr_null(strstr(argv[i], "mooncake_donor"));
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
		/* and the rest of the snapshot's Mooncake env (§7, §5) */
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

/* 2. role keys over service keys; the whole files as spec §2.1 shows them */
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
	/* §5: a non-connector TRT-LLM role still gets the other Mooncake vars */
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

	/* validated, but written unchanged (§3.1) */
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
	refused(edit(R, STORE_LAST, STORE_LAST "        transfer_batch_size: \"lots\"\n", NULL),
		"positive integer");
	refused(edit(R, STORE_LAST, STORE_LAST "        transfer_batch_size: true\n", NULL),
		"positive integer");
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

			/* §5: no Mooncake variables without a master; a recipe-set
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

/* 13. the run_dir of a block needs trtllm-serve (or Dynamo's sidecar) */
START_TEST(test_case13_dynamo_agg_run_dir_needs_sidecar)
{
	static const char no_sidecar[] =
		HEAD FRONTEND_DYNAMO ENGINE "roles:\n" AGG_ONLY BENCHMARK;
	struct mcr_recipe *r;

	ck_assert_contains(load_err(no_sidecar), "would not find a Mooncake client config");
	r = load_ok_free(edit(no_sidecar, "  install: false\n",
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

/* 14. roles.<role>.mooncake_store_config is TRT-LLM's */
START_TEST(test_case14_role_store_config_trtllm_only)
{
	static const char *const yamls[] = {
		DYNAMO_DISAGG("engine: sglang\n", "mem-fraction-static: 0.5"),
		DYNAMO_DISAGG("engine:\n  type: vllm\n  connector: nixl\n",
			      "gpu-memory-utilization: 0.5"),
	};

	for (size_t i = 0; i < 2; i++) {
		const char *last = i ? "      gpu-memory-utilization: 0.5\n" :
				       "      mem-fraction-static: 0.5\n";
		char *buf = malloc(strlen(last) + 64);

		mcr_recipe_free(load_ok(yamls[i]));
		sprintf(buf, "%s    mooncake_store_config: {global_segment_size: 16GiB}\n", last);
		refused(edit(yamls[i], last, buf, NULL),
			"roles.decode.mooncake_store_config is read by TRT-LLM only");
		free(buf);
	}
}
END_TEST

/* 15. TRT-LLM role keys without a master (C2) */
START_TEST(test_case15_role_store_config_needs_master)
{
	refused(edit(R, SERVICES, "services: []\n", P_ENV, CONFIG_PATH_ENV, D_ENV, CONFIG_PATH_ENV, NULL),
		"roles.decode.mooncake_store_config needs a mooncake-master service");
}
END_TEST

/* 16. mutations of R that the load refuses */
START_TEST(test_case16_refused_mutations)
{
#define STORE(line) edit(R, STORE_LAST, STORE_LAST "        " line "\n", NULL)
#define DECODE_KEY(line) edit(R, D_MSC, D_MSC "      " line "\n", NULL)
	refused(edit(R, P_KCC, "", D_KCC, "", NULL), "no roles");
	refused(edit(R, P_KCC, P_KCC "        mooncake_store: {pool: file:///logs/pool.json, model_key: m}\n", NULL),
		"mooncake_store is set");
	refused(STORE("model_key: \"\""), "model_key must be a non-empty");
	/* (not in srtctl's test) a blank served name is the same blank model_key */
	refused(edit(R, SERVED_NAME, "  served_model_name: \"  \"\n", NULL),
		"model_key must be a non-empty");
	refused(edit(R, "        global_segment_size: 8GiB\n", "        global_segment_size: 16GB\n", NULL),
		"'GB' is refused");
	refused(STORE("local_buffer_size: 0"), "at least 1 bytes");
	refused(edit(R, "        global_segment_size: 8GiB\n", "        global_segment_size: -1\n", NULL),
		"at least 0 bytes");
	refused(STORE("transfer_batch_size: 0"), "positive integer");
	refused(edit(R, STORE_LAST, "        stage_through_host: \"false\"\n", NULL), "not the string");
	refused(STORE("segment_size: 160GiB"), "set global_segment_size");
	refused(STORE("pool: file:///logs/pool.json"), "drop it");
	refused(edit(R, "    type: mooncake-master\n",
		     "    type: mooncake-master\n    external: 10.0.0.5:8700\n", NULL),
		"external mooncake-master");
	refused(DECODE_KEY("role: donor"), "role must be");
	refused(edit(R, D_KCC, "", NULL),
		"roles.decode.mooncake_store_config is set, but only ['prefill']");
	refused(DECODE_KEY("protocol: tcp"),
		"roles.decode.mooncake_store_config: protocol must be the same for every server of the pool");
	refused(DECODE_KEY("model_key: other"),
		"model_key must be the same for every server of the pool");
#undef STORE
#undef DECODE_KEY
}
END_TEST

/* 17. where block-only keys are reported */
START_TEST(test_case17_block_only_key_location)
{
	refused(edit(R, STORE_LAST, STORE_LAST "        master_timeout: 900\n", NULL),
		"options.store_config:");
	refused(edit(R, D_MSC, D_MSC "      run_dir: /logs/mc\n", NULL),
		"roles.decode.mooncake_store_config:");
}
END_TEST

/* 18. sizes must be finite */
START_TEST(test_case18_infinite_size)
{
	refused(edit(R, "        global_segment_size: 8GiB\n",
		     "        global_segment_size: .inf\n", NULL),
		"global_segment_size must be a finite size");
}
END_TEST

/* 19. without a master a connector role must find its config */
START_TEST(test_case19_no_master_no_config)
{
	/* trtllm_serve, nothing */
	refused(edit(R, SERVICES, "", D_MSC, "", NULL),
		"would not find a Mooncake client config");
	/* trtllm_serve, a block without run_dir */
	refused(edit(R, SERVICES, "", D_MSC, "",
		     P_KCC, P_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m}\n",
		     D_KCC, D_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m}\n",
		     NULL),
		"would not find a Mooncake client config");
	/* dynamo (not run by trtllm-serve), a block with run_dir */
	refused(edit(D, SERVICES, "",
		     P_KCC, P_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m, run_dir: /d}\n",
		     D_KCC, D_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m, run_dir: /d-decode}\n",
		     NULL),
		"would not find a Mooncake client config");
}
END_TEST

/* 20. one live server per run_dir */
START_TEST(test_case20_shared_run_dir)
{
	refused(edit(R, SERVICES, "", D_MSC, "",
		     P_KCC, P_KCC "        mooncake_store: {pool: file:///logs/pool.json, model_key: m, run_dir: /logs/mc}\n",
		     D_KCC, D_KCC "        mooncake_store: {pool: file:///logs/pool.json, model_key: m, run_dir: /logs/mc}\n",
		     NULL),
		"would be shared by several servers");
	/* only prefill uses the connector, with a block, and runs two workers */
	refused(edit(R, SERVICES, "", D_MSC, "", D_KCC, "",
		     P_KCC, P_KCC "        mooncake_store: {pool: file:///logs/pool.json, model_key: m, run_dir: /logs/mc}\n",
		     "  prefill:\n    nodes: 1\n    workers: 1\n",
		     "  prefill:\n    nodes: 1\n    workers: 2\n",
		     NULL),
		"would be shared by several servers");
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
	tcase_add_test(tc, test_case14_role_store_config_trtllm_only);
	tcase_add_test(tc, test_case15_role_store_config_needs_master);
	tcase_add_test(tc, test_case16_refused_mutations);
	tcase_add_test(tc, test_case17_block_only_key_location);
	tcase_add_test(tc, test_case18_infinite_size);
	tcase_add_test(tc, test_case19_no_master_no_config);
	tcase_add_test(tc, test_case20_shared_run_dir);
	suite_add_tcase(s, tc);
	return s;
}
