/* test_acceptance_refused.c - srtctl's acceptance cases 10-14 (its
 * tests/test_trtllm_mooncake.py @76d3c647) and every refusal of its cases,
 * one Check test each (cases 1-9: test_acceptance.c; the recipes and
 * helpers: acceptance.h). Section numbers (§) and rule ids are those of
 * doc/recipe-reference.md. */
#include "acceptance.h"

/* 10. a disabled external mooncake-master entry changes nothing */
START_TEST(test_case10_disabled_external_entry)
{
	struct mcr_recipe *r = load_ok_free(edit(R, BENCHMARK,
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
		edit(R, SERVICES, "", D_MSC, "", P_KCC,
		     P_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m, run_dir: /d}\n", D_KCC,
		     D_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m, run_dir: /d-decode}\n", NULL),
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
				ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_CONFIG_PATH"), "/data/mooncake.json");
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
	static const char yaml[] = "schema: 2\n"
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
#define AGG_ONLY                                                                                                       \
	"  agg:\n"                                                                                                     \
	"    nodes: 1\n"                                                                                               \
	"    workers: 1\n"                                                                                             \
	"    gpus: 1\n"                                                                                                \
	"    args:\n"                                                                                                  \
	"      backend: pytorch\n"                                                                                     \
	"      kv_connector_config:\n"                                                                                 \
	"        connector: mooncake-store\n"                                                                          \
	"        mooncake_store:\n"                                                                                    \
	"          pool: file:///logs/pool.json\n"                                                                     \
	"          model_key: m\n"                                                                                     \
	"          run_dir: /logs/mc\n"

static const char DYNAMO_AGG[] = HEAD FRONTEND_DYNAMO ENGINE "roles:\n" AGG_ONLY BENCHMARK;

/* 13. the run_dir of a block needs trtllm-serve (or Dynamo's sidecar) */
START_TEST(test_case13_dynamo_agg_run_dir_needs_sidecar)
{
	struct mcr_recipe *r;

	/* without the sidecar: REFUSED below */
	r = load_ok_free(edit(DYNAMO_AGG, "  install: false\n", "  install: false\n  sidecar: true\n", NULL));
	ck_assert(!mcr_recipe_has_master(r));
	ck_assert_uint_eq(r->connector_modes, BIT(AGG));
	mcr_recipe_free(r);
}
END_TEST

/* ---- negative: the load must fail --------------------------------- */

/* examples/sglang/dynamo-disagg.yaml and examples/vllm/dynamo-disagg.yaml */
#define DYNAMO_DISAGG(engine, decode_arg)                                                                              \
	"schema: 2\n"                                                                                                  \
	"name: qwen3-0.6b-dynamo-disagg\n"                                                                             \
	"model:\n"                                                                                                     \
	"  path: qwen3-0.6b\n"                                                                                         \
	"  container: sglang\n"                                                                                        \
	"  precision: bf16\n"                                                                                          \
	"resources:\n"                                                                                                 \
	"  gpu_type: h100\n"                                                                                           \
	"  gpus_per_node: 8\n"                                                                                         \
	"dynamo:\n"                                                                                                    \
	"  source:\n"                                                                                                  \
	"    pypi: \"1.4.2\"\n"                                                                                        \
	"frontend:\n"                                                                                                  \
	"  type: dynamo\n"                                                                                             \
	"  enable_multiple_frontends: false\n"                                                                         \
	"  args:\n"                                                                                                    \
	"    router-mode: \"kv\"\n" engine "roles:\n"                                                                  \
	"  prefill:\n"                                                                                                 \
	"    nodes: 1\n"                                                                                               \
	"    workers: 1\n"                                                                                             \
	"    gpus: 1\n"                                                                                                \
	"    env:\n"                                                                                                   \
	"      PYTHONUNBUFFERED: \"1\"\n"                                                                              \
	"    args:\n"                                                                                                  \
	"      served-model-name: \"Qwen/Qwen3-0.6B\"\n"                                                               \
	"      tensor-parallel-size: 1\n"                                                                              \
	"  decode:\n"                                                                                                  \
	"    nodes: 0\n"                                                                                               \
	"    workers: 1\n"                                                                                             \
	"    gpus: 1\n"                                                                                                \
	"    env:\n"                                                                                                   \
	"      PYTHONUNBUFFERED: \"1\"\n"                                                                              \
	"    args:\n"                                                                                                  \
	"      served-model-name: \"Qwen/Qwen3-0.6B\"\n"                                                               \
	"      " decode_arg "\n"                                                                                       \
	"benchmark:\n"                                                                                                 \
	"  type: \"sa-bench\"\n"

/* 14. roles.<role>.mooncake_store_config is TRT-LLM's: the recipes load
 * without it (with it: REFUSED below) */
static const char SGLANG_DISAGG[] = DYNAMO_DISAGG("engine: sglang\n", "mem-fraction-static: 0.5");
static const char VLLM_DISAGG[] =
	DYNAMO_DISAGG("engine:\n  type: vllm\n  connector: nixl\n", "gpu-memory-utilization: 0.5");

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
} REFUSED
	[] = {
		{ "case09_transfer_batch_size_words",
		  R,
		  { STORE("transfer_batch_size: \"lots\"") },
		  "mooncake: r.yaml:60:30: Mooncake client config for roles.prefill: transfer_batch_size must be a positive integer, got 'lots' (set at services[mooncake-master].options.store_config.transfer_batch_size)" },
		{ "case09_transfer_batch_size_bool",
		  R,
		  { STORE("transfer_batch_size: true") },
		  "mooncake: r.yaml:60:30: Mooncake client config for roles.prefill: transfer_batch_size must be a positive integer, got True (set at services[mooncake-master].options.store_config.transfer_batch_size)" },
		{ "case13_dynamo_run_dir_without_sidecar",
		  DYNAMO_AGG,
		  { NULL },
		  "mooncake: r.yaml:28:9: roles.agg.args.kv_connector_config selects the mooncake-store connector, but its workers would not find a Mooncake client config. Declare a mooncake-master service (services: [{name: mooncake-master, type: mooncake-master}]) so the plugin gives each role its config. (Without one, set MOONCAKE_CONFIG_PATH in roles.agg.env, or, when trtllm-serve runs the engine, a mooncake_store block with run_dir.)" },
		{ "case14_sglang_role_store_config",
		  SGLANG_DISAGG,
		  { "      mem-fraction-static: 0.5\n",
		    "      mem-fraction-static: 0.5\n    mooncake_store_config: {global_segment_size: 16GiB}\n" },
		  "mooncake: r.yaml:38:28: roles.decode.mooncake_store_config is read by TRT-LLM only. For SGLang, set per-role Mooncake settings as MOONCAKE_* variables in roles.decode.env; for vLLM, in the mooncake-master service's options.store_config." },
		{ "case14_vllm_role_store_config",
		  VLLM_DISAGG,
		  { "      gpu-memory-utilization: 0.5\n",
		    "      gpu-memory-utilization: 0.5\n    mooncake_store_config: {global_segment_size: 16GiB}\n" },
		  "mooncake: r.yaml:40:28: roles.decode.mooncake_store_config is read by TRT-LLM only. For SGLang, set per-role Mooncake settings as MOONCAKE_* variables in roles.decode.env; for vLLM, in the mooncake-master service's options.store_config." },
		{ "case15_role_store_config_needs_master",
		  R,
		  { SERVICES, "services: []\n", P_ENV, CONFIG_PATH_ENV, D_ENV, CONFIG_PATH_ENV },
		  "mooncake: r.yaml:49:7: roles.decode.mooncake_store_config needs a mooncake-master service: srtslurm writes it into the client config it renders for the master's pool; declare `services: [{name: mooncake-master, type: mooncake-master}]` or remove the block" },
		{ "case16_no_connector_role",
		  R,
		  { P_KCC, "", D_KCC, "" },
		  "mooncake: r.yaml:49:5: a mooncake-master service is configured but no roles.<role>.args.kv_connector_config resolves to the Mooncake Store connector (connector: mooncake-store, with connector_module unset or tensorrt_llm._torch.pyexecutor.connectors.mooncake_store), so no TRT-LLM worker would use the master. Add `kv_connector_config: {connector: mooncake-store}` to the roles' args, or remove the service." },
		{ "case16_mooncake_store_block", R, { P_KCC, P_KCC "        mooncake_store: {pool: file:///logs/pool.json, model_key: m}\n" }, "mooncake: r.yaml:35:25: roles.prefill.args.kv_connector_config.mooncake_store is set, but with a mooncake-master service srtslurm gives this role its Mooncake client config through MOONCAKE_CONFIG_PATH, which TRT-LLM reads instead of that block. Remove the block and put its client keys in roles.prefill.mooncake_store_config (segment_size is global_segment_size there; pool, run_dir, and master_timeout have no equivalent)." },
		{ "case16_model_key_empty",
		  R,
		  { STORE("model_key: \"\"") },
		  "mooncake: r.yaml:60:20: Mooncake client config for roles.prefill: model_key must be a non-empty string, got '': TRT-LLM keys the pool by it. Leave it unset to use the served model name (set at services[mooncake-master].options.store_config.model_key)" },
		/* (not in srtctl's test) a blank served name is the same blank model_key */
		{ "case16_served_name_blank",
		  R,
		  { SERVED_NAME, "  served_model_name: \"  \"\n" },
		  "mooncake: r.yaml:17:22: engine.served_model_name: '  ' is blank, and it is the pool's model_key (Mooncake client config for roles.prefill: model_key must be a non-empty string); set it to the model's name or remove it" },
		{ "case16_size_gb",
		  R,
		  { SEG_8GIB, "        global_segment_size: 16GB\n" },
		  "mooncake: r.yaml:58:30: Mooncake client config for roles.prefill: global_segment_size '16GB' must be a byte count or use a binary unit (KiB, MiB, GiB, TiB); 'GB' is refused; write '16GiB' (binary) or a byte count (set at services[mooncake-master].options.store_config.global_segment_size)" },
		{ "case16_local_buffer_zero",
		  R,
		  { STORE("local_buffer_size: 0") },
		  "mooncake: r.yaml:60:28: Mooncake client config for roles.prefill: local_buffer_size must be at least 1 bytes, got 0 (set at services[mooncake-master].options.store_config.local_buffer_size)" },
		{ "case16_segment_negative",
		  R,
		  { SEG_8GIB, "        global_segment_size: -1\n" },
		  "mooncake: r.yaml:58:30: Mooncake client config for roles.prefill: global_segment_size must be at least 0 bytes, got -1 (set at services[mooncake-master].options.store_config.global_segment_size)" },
		{ "case16_transfer_batch_size_zero",
		  R,
		  { STORE("transfer_batch_size: 0") },
		  "mooncake: r.yaml:60:30: Mooncake client config for roles.prefill: transfer_batch_size must be a positive integer, got 0 (set at services[mooncake-master].options.store_config.transfer_batch_size)" },
		{ "case16_stage_through_host_string",
		  R,
		  { STORE_LAST, "        stage_through_host: \"false\"\n" },
		  "mooncake: r.yaml:59:29: Mooncake client config for roles.prefill: stage_through_host must be true or false, not the string 'false' (TRT-LLM takes its truthiness, so the string 'false' would mean true); write true or false unquoted (set at services[mooncake-master].options.store_config.stage_through_host)" },
		{ "case16_segment_size_key", R, { STORE("segment_size: 160GiB") }, "mooncake: r.yaml:60:9: mooncake-master options.store_config: segment_size belongs to the mooncake_store block and the client config ignores it: the client config calls it global_segment_size (set global_segment_size) (it is set to '160GiB')" },
		{ "case16_pool_key",
		  R,
		  { STORE("pool: file:///logs/pool.json") },
		  "mooncake: r.yaml:60:9: mooncake-master options.store_config: pool belongs to the mooncake_store block and the client config ignores it: srtctl points every role at the mooncake-master service; drop it (it is set to 'file:///logs/pool.json')" },
		{ "case16_external_master",
		  R,
		  { "    type: mooncake-master\n", "    type: mooncake-master\n    external: 10.0.0.5:8700\n" },
		  "mooncake: r.yaml:55:15: services[mooncake-master].external: an external mooncake-master is not supported for TRT-LLM: srtslurm renders each role's master_server_address from the infra node, where nothing would be listening; remove external to let the plugin start the master" },
		{ "case16_role_donor",
		  R,
		  { DECODE_KEY("role: donor") },
		  "mooncake: r.yaml:52:13: Mooncake client config for roles.decode: role must be one of ['both', 'capacity', 'consumer', 'producer'], got 'donor' (prefill and agg default to both, decode to capacity) (set at roles.decode.mooncake_store_config.role)" },
		{ "case16_store_config_without_connector",
		  R,
		  { D_KCC, "" },
		  "mooncake: r.yaml:49:7: roles.decode.mooncake_store_config is set, but only ['prefill'] use the Mooncake Store connector; add `kv_connector_config: {connector: mooncake-store}` to roles.decode.args or remove the block" },
		{ "case16_role_protocol",
		  R,
		  { DECODE_KEY("protocol: tcp") },
		  "mooncake: r.yaml:52:7: roles.decode.mooncake_store_config: protocol must be the same for every server of the pool; set it in the mooncake-master service's options.store_config and remove it from the role (it sets protocol: 'tcp')" },
		{ "case16_role_model_key",
		  R,
		  { DECODE_KEY("model_key: other") },
		  "mooncake: r.yaml:52:7: roles.decode.mooncake_store_config: model_key must be the same for every server of the pool; set it in the mooncake-master service's options.store_config and remove it from the role (it sets model_key: 'other')" },
		{ "case17_block_key_in_store_config",
		  R,
		  { STORE("master_timeout: 900") },
		  "mooncake: r.yaml:60:9: mooncake-master options.store_config: master_timeout belongs to the mooncake_store block and the client config ignores it: srtctl starts the master before the workers; drop it (it is set to 900)" },
		{ "case17_block_key_in_role",
		  R,
		  { D_MSC, D_MSC "      run_dir: /logs/mc\n" },
		  "mooncake: r.yaml:52:7: roles.decode.mooncake_store_config: run_dir belongs to the mooncake_store block and the client config ignores it: srtctl hands each role its config through MOONCAKE_CONFIG_PATH; drop it (it is set to '/logs/mc')" },
		{ "case18_infinite_size",
		  R,
		  { SEG_8GIB, "        global_segment_size: .inf\n" },
		  "mooncake: r.yaml:58:30: Mooncake client config for roles.prefill: global_segment_size must be a finite size, got inf (set at services[mooncake-master].options.store_config.global_segment_size)" },
		{ "case19_serve_nothing",
		  R,
		  { SERVICES, "", D_MSC, "" },
		  "mooncake: r.yaml:34:9: roles.prefill.args.kv_connector_config selects the mooncake-store connector, but its workers would not find a Mooncake client config. Declare a mooncake-master service (services: [{name: mooncake-master, type: mooncake-master}]) so the plugin gives each role its config. (Without one, set MOONCAKE_CONFIG_PATH in roles.prefill.env, or, when trtllm-serve runs the engine, a mooncake_store block with run_dir.)" },
		{ "case19_serve_block_without_run_dir",
		  R,
		  { SERVICES, "", D_MSC, "", P_KCC,
		    P_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m}\n", D_KCC,
		    D_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m}\n" },
		  "mooncake: r.yaml:34:9: roles.prefill.args.kv_connector_config selects the mooncake-store connector, but its workers would not find a Mooncake client config. Declare a mooncake-master service (services: [{name: mooncake-master, type: mooncake-master}]) so the plugin gives each role its config. (Without one, set MOONCAKE_CONFIG_PATH in roles.prefill.env, or, when trtllm-serve runs the engine, a mooncake_store block with run_dir.)" },
		{ "case19_dynamo_block_with_run_dir",
		  D,
		  { SERVICES, "", P_KCC,
		    P_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m, run_dir: /d}\n", D_KCC,
		    D_KCC "        mooncake_store: {pool: 10.0.0.5:50051, model_key: m, run_dir: /d-decode}\n" },
		  "mooncake: r.yaml:36:9: roles.prefill.args.kv_connector_config selects the mooncake-store connector, but its workers would not find a Mooncake client config. Declare a mooncake-master service (services: [{name: mooncake-master, type: mooncake-master}]) so the plugin gives each role its config. (Without one, set MOONCAKE_CONFIG_PATH in roles.prefill.env, or, when trtllm-serve runs the engine, a mooncake_store block with run_dir.)" },
		{ "case20_shared_run_dir",
		  R,
		  { SERVICES, "", D_MSC, "", P_KCC, P_KCC "        mooncake_store: " POOL "\n", D_KCC,
		    D_KCC "        mooncake_store: " POOL "\n" },
		  "mooncake: r.yaml:51:79: roles.decode.args.kv_connector_config.mooncake_store.run_dir '/logs/mc' would be shared by several servers, and TRT-LLM lets one live server own a run_dir. Give each role its own run_dir and one worker, or declare a mooncake-master service. (roles.prefill uses it too.)" },
		/* only prefill uses the connector, with a block, and runs two workers */
		{ "case20_two_workers",
		  R,
		  { SERVICES, "", D_MSC, "", D_KCC, "", P_KCC, P_KCC "        mooncake_store: " POOL "\n",
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
	ck_assert_msg(strcmp(msg, REFUSED[_i].message) == 0, "%s: got\n%s\nwant\n%s", REFUSED[_i].name, msg,
		      REFUSED[_i].message);
}
END_TEST
Suite *acceptance_refused_suite(void)
{
	Suite *s = suite_create("acceptance-refused");
	TCase *tc = tcase_create("spec7");

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
