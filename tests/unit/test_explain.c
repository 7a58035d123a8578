/* test_explain.c - explain's provenance, layer by layer (reference §7,
 * §8): each key and variable names the layer that set it and the
 * file:line:col, and what it replaced; and the warnings about keys that
 * fight what the plugin gives each task (reference §11). */
#include "render/explain.h"
#include "testutil.h"

static const char TRT[] = "schema: 2\n"                                                        /* 1 */
			  "model: {path: /models/llama-8b}\n"                                  /* 2 */
			  "engine: {type: trtllm}\n"                                           /* 3 */
			  "environment: {HF_HOME: /cache, PYTHONUNBUFFERED: '0'}\n"            /* 4 */
			  "roles:\n"                                                           /* 5 */
			  "  decode:\n"                                                        /* 6 */
			  "    env: {PYTHONUNBUFFERED: '1', MY_VAR: x}\n"                      /* 7 */
			  "    args: {kv_connector_config: {connector: mooncake-store}}\n"     /* 8 */
			  "    mooncake_store_config:\n"                                       /* 9 */
			  "      global_segment_size: 64MiB\n"                                 /* 10 */
			  "      role: both\n"                                                 /* 11 */
			  "services:\n"                                                        /* 12 */
			  "  - name: mooncake-master\n"                                        /* 13 */
			  "    type: mooncake-master\n"                                        /* 14 */
			  "    options:\n"                                                     /* 15 */
			  "      store_config: {protocol: tcp, global_segment_size: 32MiB}\n"; /* 16 */

static char *explain(const char *yaml, enum mcr_role role, const struct mcr_env_input *in)
{
	struct mcr_recipe *r = load_ok(yaml);
	struct mcr_error err = { 0 };
	char *text = mcri_explain(r, role, in, &err);

	ck_assert_msg(text != NULL, "%s", errmsg(&err));
	mcr_recipe_free(r);
	return text;
}

/* the line of `text` that starts (after its indent) with `key` + blanks */
static const char *line_of(const char *text, const char *key)
{
	static char line[1024];
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *s = p + strspn(p, " ");

		if (strncmp(s, key, klen) == 0 && s[klen] == ' ') {
			size_t len = strcspn(p, "\n");

			snprintf(line, sizeof(line), "%.*s", (int)len, p);
			/* one blank between columns, for exact comparisons */
			for (char *w = line, *q = line;; q++) {
				if (*q == ' ' && (w == line || w[-1] == ' '))
					continue;
				if (!(*w++ = *q))
					break;
			}
			return line;
		}
	}
	ck_abort_msg("no line for %s in:\n%s", key, text);
	return NULL;
}

START_TEST(config_layers)
{
	struct mcr_env_input in = { "10.0.0.1:8700", "10.0.0.1", "/jobs/7", NULL, "10.0.0.3", 0 };
	char *t = explain(TRT, MCR_ROLE_DECODE, &in);
	const char *after;

	ck_assert_contains(t, "client config of roles.decode: mooncake_store_config_decode.json\n");
	/* role default, then roles.decode.mooncake_store_config over it */
	ck_assert_str_eq(line_of(t, "role"), "role \"both\" roles.decode.mooncake_store_config r.yaml:11:13");
	after = strstr(t, "\n  role ");
	ck_assert_contains(after, "(replaces \"capacity\" from role default)");
	/* served-model default: the last component of model.path */
	ck_assert_str_eq(line_of(t, "model_key"), "model_key \"llama-8b\" served-model default r.yaml:2:15 model.path");
	/* the service's options.store_config */
	ck_assert_str_eq(line_of(t, "protocol"),
			 "protocol \"tcp\" services[mooncake-master].options.store_config r.yaml:16:32");
	/* the role's block over the store_config, with where the old value was */
	ck_assert_str_eq(
		line_of(t, "global_segment_size"),
		"global_segment_size \"64MiB\" (67108864 bytes) roles.decode.mooncake_store_config r.yaml:10:28");
	ck_assert_contains(t,
			   "(replaces \"32MiB\" from services[mooncake-master].options.store_config at r.yaml:16:58)");
	/* the job's master */
	ck_assert_str_eq(
		line_of(t, "master_server_address"),
		"master_server_address \"10.0.0.1:8700\" the job's master (the plugin: the infra node's address)");
	free(t);
}
END_TEST

START_TEST(env_layers)
{
	struct mcr_env_input in = { "10.0.0.1:8700", "10.0.0.1", "/jobs/7", NULL, "10.0.0.3", 0 };
	char *t = explain(TRT, MCR_ROLE_DECODE, &in);

	ck_assert_contains(t, "\nworker environment of roles.decode:\n");
	ck_assert_str_eq(line_of(t, "MY_VAR"), "MY_VAR x roles.decode.env r.yaml:7:42");
	ck_assert_str_eq(line_of(t, "HF_HOME"), "HF_HOME /cache environment r.yaml:4:24");
	/* environment wins over the role's env, and says what it replaced */
	ck_assert_str_eq(line_of(t, "PYTHONUNBUFFERED"), "PYTHONUNBUFFERED 0 environment r.yaml:4:50");
	ck_assert_contains(t, "(replaces 1 from roles.decode.env at r.yaml:7:29)");
	ck_assert_str_eq(
		line_of(t, "MOONCAKE_LOCAL_HOSTNAME"),
		"MOONCAKE_LOCAL_HOSTNAME 10.0.0.3 the node's address (the plugin: interface=, else the route toward the master)");
	ck_assert_str_eq(line_of(t, "MOONCAKE_MASTER"),
			 "MOONCAKE_MASTER 10.0.0.1:8700 the job's master (the plugin: the infra node's address)");
	ck_assert_str_eq(
		line_of(t, "MOONCAKE_TE_META_DATA_SERVER"),
		"MOONCAKE_TE_META_DATA_SERVER http://10.0.0.1:8701/metadata the job's master (the plugin: the infra node's metadata server)");
	ck_assert_str_eq(
		line_of(t, "MOONCAKE_CONFIG_PATH"),
		"MOONCAKE_CONFIG_PATH /jobs/7/mooncake_store_config_decode.json the job's directory (the plugin: the role's file in the job's directory)");
	free(t);
}
END_TEST

/* engine.mooncake_kv_store: its store_config and its env; served model
 * from engine.served_model_name; placeholders without a job */
START_TEST(engine_block_layers)
{
	static const char yaml[] = "schema: 2\n"
				   "engine:\n"
				   "  type: trtllm\n"
				   "  served_model_name: Qwen/Qwen3-0.6B\n"
				   "  mooncake_kv_store:\n"
				   "    store_config: {protocol: tcp}\n"
				   "    env: {MOONCAKE_LOCAL_HOSTNAME: 10.9.9.9, MC_X: '1'}\n"
				   "roles:\n"
				   "  prefill: {args: {kv_connector_config: {connector: mooncake-store}}}\n";
	struct mcr_env_input in = { 0 };
	char *t = explain(yaml, MCR_ROLE_PREFILL, &in);

	ck_assert_str_eq(line_of(t, "role"),
			 "role \"both\" role default (both for prefill and agg, capacity for decode)");
	ck_assert_str_eq(line_of(t, "model_key"),
			 "model_key \"Qwen/Qwen3-0.6B\" served-model default r.yaml:4:22 engine.served_model_name");
	ck_assert_str_eq(line_of(t, "protocol"), "protocol \"tcp\" engine.mooncake_kv_store.store_config r.yaml:6:30");
	ck_assert_str_eq(
		line_of(t, "master_server_address"),
		"master_server_address \"<infra node>:8700\" the job's master (the plugin: the infra node's address)");
	/* the plugin's node address replaces the engine block's (its
	 * variables always win) */
	ck_assert_str_eq(
		line_of(t, "MOONCAKE_LOCAL_HOSTNAME"),
		"MOONCAKE_LOCAL_HOSTNAME <node address> the node's address (the plugin: interface=, else the route toward the master)");
	ck_assert_contains(t, "(replaces 10.9.9.9 from engine.mooncake_kv_store.env at r.yaml:7:36)");
	ck_assert_str_eq(line_of(t, "MC_X"), "MC_X 1 engine.mooncake_kv_store.env r.yaml:7:52");
	ck_assert_str_eq(
		line_of(t, "MOONCAKE_CONFIG_PATH"),
		"MOONCAKE_CONFIG_PATH <job dir>/mooncake_store_config_prefill.json the job's directory (the plugin: the role's file in the job's directory)");
	free(t);
}
END_TEST

START_TEST(roles_without_a_file)
{
	static const char sglang[] = "schema: 2\nengine: sglang\nroles: {prefill: {env: {MOONCAKE_PROTOCOL: tcp},\n"
				     "  args: {disaggregation-transfer-backend: mooncake}}}\n"
				     "services: [{name: mooncake-master, type: mooncake-master}]\n";
	struct mcr_env_input in = { 0 };
	struct mcr_recipe *r = load_ok(sglang);
	struct mcr_error err = { 0 };
	char *t = explain(sglang, MCR_ROLE_PREFILL, &in);

	ck_assert_contains(t, "client config of roles.prefill: none (SGLang workers read the MOONCAKE_* variables)\n");
	ck_assert_str_eq(line_of(t, "MOONCAKE_PROTOCOL"), "MOONCAKE_PROTOCOL tcp roles.prefill.env r.yaml:3:44");
	free(t);
	ck_assert_ptr_null(mcri_explain(r, MCR_ROLE_DECODE, &in, &err));
	ck_assert_str_eq(err.text, "the recipe has no roles.decode");
	mcr_recipe_free(r);
}
END_TEST

/* the values explain shows are those of the file render writes */
START_TEST(explain_matches_the_file)
{
	struct mcr_env_input in = { "10.0.0.1:8700", "10.0.0.1", "/jobs/7", NULL, "10.0.0.3", 0 };
	struct mcr_recipe *r = load_ok(TRT);
	struct mcr_file_list files;
	struct mcr_error err = { 0 };
	char *t = explain(TRT, MCR_ROLE_DECODE, &in);

	ck_assert_int_eq(mcr_client_configs(r, "10.0.0.1:8700", &files, &err), 0);
	ck_assert_uint_eq(files.count, 1);
	ck_assert_str_eq(files.files[0].text,
			 "{\n  \"role\": \"both\",\n  \"model_key\": \"llama-8b\",\n  \"protocol\": \"tcp\",\n"
			 "  \"global_segment_size\": \"64MiB\",\n  \"master_server_address\": \"10.0.0.1:8700\"\n}");
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
	free(t);
}
END_TEST

static const char *only_warning(const char *yaml)
{
	static char w[2048];
	struct mcr_recipe *r = load_ok(yaml);

	ck_assert_uint_eq(mcr_recipe_warning_count(r), 1);
	snprintf(w, sizeof(w), "%s", mcr_recipe_warning(r, 0));
	mcr_recipe_free(r);
	return w;
}

START_TEST(warnings_against_the_plugin)
{
	static const char md_trt[] =
		"schema: 2\nengine: {type: trtllm, served_model_name: m}\n"
		"roles: {prefill: {args: {kv_connector_config: {connector: mooncake-store}}}}\n"
		"services:\n"
		"  - name: mooncake-master\n"
		"    type: mooncake-master\n"
		"    options: {store_config: {metadata_server: 'http://10.0.0.9:8080/metadata'}}\n";
	static const char md_vllm[] =
		"schema: 2\nengine: vllm\nroles: {prefill: {args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}}}\n"
		"services: [{name: mooncake-master, type: mooncake-master,\n"
		"            options: {store_config: {metadata_server: 'http://old:8701/metadata'}}}]\n";
	static const char p2p[] =
		"schema: 2\nengine: vllm\nroles: {prefill: {args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}}}\n"
		"services: [{name: mooncake-master, type: mooncake-master,\n"
		"            options: {store_config: {metadata_server: P2PHANDSHAKE}}}]\n";
	static const char lh[] = "schema: 2\nengine: {type: trtllm, served_model_name: m}\n"
				 "roles:\n"
				 "  decode:\n"
				 "    args: {kv_connector_config: {connector: mooncake-store}}\n"
				 "    mooncake_store_config: {local_hostname: 10.0.0.5}\n"
				 "services: [{name: mooncake-master, type: mooncake-master}]\n";
	struct mcr_recipe *r;

	ck_assert_str_eq(
		only_warning(md_trt),
		"mooncake: warning: r.yaml:7:47: services[mooncake-master].options.store_config.metadata_server: 'http://10.0.0.9:8080/metadata' is not this job's metadata server: the job's master serves http://<infra node>:8701/metadata and the tasks get that as MOONCAKE_TE_META_DATA_SERVER, but the Mooncake clients read this file's URL (a dead one makes each client retry 20 times, then fail); remove metadata_server (TRT-LLM then uses P2PHANDSHAKE, which needs no metadata server)");
	ck_assert_str_eq(
		only_warning(md_vllm),
		"mooncake: warning: r.yaml:5:55: services[mooncake-master].options.store_config.metadata_server: 'http://old:8701/metadata' is not this job's metadata server: the job's master serves http://<infra node>:8701/metadata and the tasks get that as MOONCAKE_TE_META_DATA_SERVER, but the Mooncake clients read this file's URL (a dead one makes each client retry 20 times, then fail); set metadata_server: P2PHANDSHAKE (it needs no metadata server)");
	r = load_ok(p2p);
	ck_assert_uint_eq(mcr_recipe_warning_count(r), 0);
	mcr_recipe_free(r);
	ck_assert_str_eq(
		only_warning(lh),
		"mooncake: warning: r.yaml:6:45: roles.decode.mooncake_store_config.local_hostname: '10.0.0.5' is one address for every rank of the role on every node, while each task gets its own node's address as MOONCAKE_LOCAL_HOSTNAME; TRT-LLM reads the file's, so its segments would be announced at this address; remove local_hostname (each rank then finds its own)");
}
END_TEST

Suite *explain_suite(void)
{
	Suite *s = suite_create("explain");
	TCase *tc = tcase_create("explain");

	tcase_add_test(tc, config_layers);
	tcase_add_test(tc, env_layers);
	tcase_add_test(tc, engine_block_layers);
	tcase_add_test(tc, roles_without_a_file);
	tcase_add_test(tc, explain_matches_the_file);
	tcase_add_test(tc, warnings_against_the_plugin);
	suite_add_tcase(s, tc);
	return s;
}
