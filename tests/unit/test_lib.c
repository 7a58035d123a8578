/* test_lib.c - the library's helpers: sizes (§9), JSON bytes (§7), atomic
 * files, the master's argv (§5), the worker environment (§8), warnings and
 * suggestions (hostlists and directory templates: test_names.c; the
 * readiness probes: test_probe.c). Section numbers are those of
 * doc/recipe-reference.md. */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* ---- sizes (§9) ------------------------------------------------------ */

static const struct {
	const char *text;
	long long bytes;
} SIZES_OK[] = {
	{ "16GiB", 17179869184LL },
	{ "16gib", 17179869184LL },
	{ "16 GiB", 17179869184LL },
	{ " 16GiB ", 17179869184LL },
	{ "1.5GiB", 1610612736LL },
	{ "16", 16 },
	{ "16B", 16 },
	{ "0", 0 },
	{ "8KiB", 8192 },
	{ "2TiB", 2199023255552LL },
	{ "0.5MiB", 524288 },
};
static const char *const SIZES_BAD[] = {
	"16GB", "16G", ".5GiB", "1e9", "-1GiB", "lots", "16PiB", "16 G iB", "", "1.GiB",
};

START_TEST(test_sizes_accepted)
{
	long long b = -1;
	struct mcr_error err = { 0 };

	ck_assert_int_eq(mcr_parse_size_text("global_segment_size", SIZES_OK[_i].text, &b, &err), 0);
	ck_assert_msg(b == SIZES_OK[_i].bytes, "%s -> %lld, want %lld", SIZES_OK[_i].text, b, SIZES_OK[_i].bytes);
}
END_TEST

START_TEST(test_sizes_refused)
{
	long long b;
	struct mcr_error err = { 0 };

	char want[256];

	ck_assert_int_eq(mcr_parse_size_text("global_segment_size", SIZES_BAD[_i], &b, &err), -1);
	snprintf(
		want, sizeof(want),
		"global_segment_size '%s' must be a byte count or use a binary unit (KiB, MiB, GiB, TiB); 'GB' is refused",
		SIZES_BAD[_i]);
	ck_assert_str_eq(err.text, want);
}
END_TEST

START_TEST(test_size_nodes)
{
	struct mcri_doc *doc = NULL;
	struct mcr_error se = { 0 };
	long long b;

	ck_assert_int_eq(mcri_size_of_node("k", typed("1.9", &doc), &b, &se), 0);
	ck_assert_int_eq(b, 1); /* truncated toward zero */
	mcri_doc_free(doc);
	ck_assert_int_eq(mcri_size_of_node("k", typed("-1", &doc), &b, &se), 0);
	ck_assert_int_eq(b, -1); /* the minimum check is the caller's */
	mcri_doc_free(doc);
	ck_assert_int_eq(mcri_size_of_node("k", typed("true", &doc), &b, &se), -1);
	ck_assert_str_eq(se.text, "k must be a byte count or a size such as '16GiB', got True");
	mcri_doc_free(doc);
	ck_assert_int_eq(mcri_size_of_node("k", typed("~", &doc), &b, &se), -1);
	ck_assert_str_eq(se.text, "k must be a byte count or a size such as '16GiB', got None");
	mcri_doc_free(doc);
	ck_assert_int_eq(mcri_size_of_node("k", typed("-.inf", &doc), &b, &se), -1);
	ck_assert_str_eq(se.text, "k must be a finite size, got -inf");
	mcri_doc_free(doc);
	ck_assert_int_eq(mcri_size_of_node("k", typed("1.0e+30", &doc), &b, &se), 0);
	ck_assert(b > 0); /* Python's int is unbounded: saturates, still valid */
	mcri_doc_free(doc);
}
END_TEST

START_TEST(test_py_int)
{
	static const struct {
		const char *text;
		bool ok;
		long long v;
	} cases[] = {
		{ "'64'", true, 64 },   { "' 64 '", true, 64 }, { "'-3'", true, -3 },   { "'1_000'", true, 1000 },
		{ "'64.0'", false, 0 }, { "'lots'", false, 0 }, { "'1__0'", false, 0 }, { "'_1'", false, 0 },
		{ "64.9", true, 64 },   { "-0.5", true, 0 },    { "~", false, 0 },      { ".nan", false, 0 },
		{ "7", true, 7 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mcri_doc *doc = NULL;
		long long v = -99;
		bool ok = mcri_py_int(typed(cases[i].text, &doc), &v);

		ck_assert_msg(ok == cases[i].ok, "int(%s): ok=%d", cases[i].text, ok);
		if (ok)
			ck_assert_msg(v == cases[i].v, "int(%s) = %lld", cases[i].text, v);
		mcri_doc_free(doc);
	}
}
END_TEST

/* ---- JSON bytes -------------------------------------------------------- */

START_TEST(test_json_format)
{
	const char *y = "schema: 2\n"
			"engine: vllm\n"
			"roles:\n"
			"  prefill: {args: {kv-transfer-config: 'MooncakeStoreConnector'}}\n"
			"services:\n"
			"  - name: mooncake-master\n"
			"    type: mooncake-master\n"
			"    options:\n"
			"      store_config:\n"
			"        ratio: 64.0\n"
			"        tiny: 0.00001\n"
			"        big: 1.0e+20\n"
			"        inf: .inf\n"
			"        text: \"caf\\u00e9 \\U0001F600 \\\"q\\\" \\\\ /\\t\\x7f\"\n"
			"        none: ~\n"
			"        flag: no\n"
			"        list: [1, 'two', {three: 3}]\n"
			"        empty: {}\n"
			"        nothing: []\n"
			"        1: int key\n"
			"        true: bool key\n";
	const char *want = "{\n"
			   "  \"ratio\": 64.0,\n"
			   "  \"tiny\": 1e-05,\n"
			   "  \"big\": 1e+20,\n"
			   "  \"inf\": Infinity,\n"
			   "  \"text\": \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ /\\t\\u007f\",\n"
			   "  \"none\": null,\n"
			   "  \"flag\": false,\n"
			   "  \"list\": [\n"
			   "    1,\n"
			   "    \"two\",\n"
			   "    {\n"
			   "      \"three\": 3\n"
			   "    }\n"
			   "  ],\n"
			   "  \"empty\": {},\n"
			   "  \"nothing\": [],\n"
			   /* 1 and true are one key to Python: the later value, the first position */
			   "  \"1\": \"bool key\",\n"
			   "  \"master_server_address\": \"10.1.1.1:8700\",\n"
			   /* vLLM's reader has no working default (reference §7.2) */
			   "  \"metadata_server\": \"P2PHANDSHAKE\"\n"
			   "}";
	struct mcr_recipe *r = load_ok(y);
	struct mcr_file_list files;
	struct mcr_error err = { 0 };

	ck_assert_int_eq(mcr_client_configs(r, "10.1.1.1:8700", &files, &err), 0);
	ck_assert_int_eq(files.count, 1);
	ck_assert_str_eq(files.files[0].name, "mooncake_store_config.json");
	ck_assert_str_eq(files.files[0].text, want);
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
}
END_TEST

/* ---- atomic files -------------------------------------------------------- */

START_TEST(test_atomic_write)
{
	char dir[] = "/tmp/mck-atomic.XXXXXX";
	struct mcr_error err = { 0 };
	char path[256], *text;
	DIR *d;
	struct dirent *e;
	int entries = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(mcr_write_file_atomic(dir, "f.json", "old", 3, &err), 0);
	ck_assert_int_eq(mcr_write_file_atomic(dir, "f.json", "{\n}", 3, &err), 0);
	snprintf(path, sizeof(path), "%s/f.json", dir);
	text = slurp(path);
	ck_assert_str_eq(text, "{\n}");
	free(text);
	/* no temporary file is left behind */
	d = opendir(dir);
	while ((e = readdir(d)))
		entries += e->d_name[0] != '.' || strncmp(e->d_name, ".f.json", 7) == 0;
	closedir(d);
	ck_assert_int_eq(entries, 1);
	/* an unwritable place: an error, nothing created */
	ck_assert_int_eq(mcr_write_file_atomic("/proc", "f.json", "x", 1, &err), -1);
	ck_assert_int_eq(err.kind, MCR_EIO);
	ck_assert_int_eq(mcri_mkdir_p("/dev/null/x", 0755, &err), -1);
	ck_assert_str_eq(errmsg(&err), "mooncake: cannot create the directory /dev/null/x: Not a directory");
	unlink(path);
	rmdir(dir);
}
END_TEST

/* Readers never see a half-written file while writers replace it. */
START_TEST(test_atomic_write_concurrent)
{
	char dir[] = "/tmp/mck-atomic.XXXXXX", path[256];
	char big[65536];
	struct mcr_error err = { 0 };
	pid_t pid;
	int bad = 0, status;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(mcr_write_file_atomic(dir, "f", big, strlen(big), &err), 0);
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 200; i++)
			if (mcr_write_file_atomic(dir, "f", big, strlen(big), &err))
				_exit(1);
		_exit(0);
	}
	snprintf(path, sizeof(path), "%s/f", dir);
	for (int i = 0; i < 400; i++) {
		char *t = slurp(path);

		bad += !t || strlen(t) != strlen(big);
		free(t);
	}
	waitpid(pid, &status, 0);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(bad, 0);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* ---- the master's argv (§5) -------------------------------------------- */

START_TEST(test_master_argv)
{
	const char *base = "schema: 2\nengine: sglang\nroles: {agg: {}}\nservices:\n"
			   "  - name: mooncake-master\n    type: mooncake-master\n";
	char y[1024];
	struct mcr_recipe *r;
	struct mcr_error err = { 0 };
	char **argv;
	const char *want[] = {
		"/opt/mc/bin/mooncake_master",
		"--port=8700",
		"--enable_http_metadata_server=true",
		"--http_metadata_server_port=8701",
		"--eviction_high_watermark_ratio=0.9",
		"--default_kv_lease_ttl=10000",
		"--rpc_thread_num=16",
		"--enable_metric_reporting=true",
		"--metrics_port=8702",
		"--client_ttl=30",
		NULL,
	};

	snprintf(y, sizeof(y), "%s    args: [--client_ttl=30]\n", base);
	r = load_ok(y);
	ck_assert_int_eq(mcr_master_argv(r, "/opt/mc/bin/mooncake_master", NULL, &argv, &err), 0);
	for (size_t i = 0; want[i] || argv[i]; i++)
		ck_assert_str_eq(argv[i] ? argv[i] : "(end)", want[i] ? want[i] : "(end)");
	mcr_strv_free(argv);
	mcr_recipe_free(r);
	/* command replaces the defaults; args are appended */
	snprintf(y, sizeof(y), "%s    command: [my-master, --x]\n    args: [--y]\n", base);
	r = load_ok(y);
	ck_assert_int_eq(mcr_master_argv(r, "mooncake_master", NULL, &argv, &err), 0);
	ck_assert_str_eq(argv[0], "my-master");
	ck_assert_str_eq(argv[1], "--x");
	ck_assert_str_eq(argv[2], "--y");
	ck_assert_ptr_null(argv[3]);
	mcr_strv_free(argv);
	mcr_recipe_free(r);
	/* (args that move a port: test_refusals.c) */
}
END_TEST

/* ---- worker environment (§8) ------------------------------------------- */

START_TEST(test_worker_env_layering)
{
	const char *y = "schema: 2\n"
			"engine:\n"
			"  type: sglang\n"
			"  mooncake_kv_store:\n"
			"    env: {MC_TE_METRIC: '1', MOONCAKE_LOCAL_HOSTNAME: from-kv-env}\n"
			"environment: {SHARED: top, MOONCAKE_MASTER: 'user value'}\n"
			"roles:\n"
			"  prefill:\n"
			"    args: {disaggregation-transfer-backend: mooncake}\n"
			"    env: {SHARED: role, ROLE_ONLY: p}\n"
			"  decode:\n"
			"    args: {disaggregation-transfer-backend: mooncake}\n"
			"    env: {MOONCAKE_LOCAL_HOSTNAME: decode-host}\n";
	struct mcr_recipe *r = load_ok(y);
	struct mcr_env env;
	struct mcr_error err = { 0 };
	struct mcr_env_input in = { "10.1.1.1:8700", "10.1.1.1", "/logs", NULL, "10.2.2.2", 0 };

	ck_assert_int_eq(mcr_worker_env(r, MCR_ROLE_PREFILL, &in, &env, &err), 0);
	ck_assert_str_eq(mcr_env_get(&env, "SHARED"), "top"); /* top-level environment wins */
	ck_assert_str_eq(mcr_env_get(&env, "ROLE_ONLY"), "p");
	ck_assert_str_eq(mcr_env_get(&env, "MC_TE_METRIC"), "1");
	/* the plugin's node address wins over the engine block's env */
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_LOCAL_HOSTNAME"), "10.2.2.2");
	/* the plugin's master wins over a user value */
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_MASTER"), "10.1.1.1:8700");
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_TE_META_DATA_SERVER"), "http://10.1.1.1:8701/metadata");
	ck_assert_ptr_null(mcr_env_get(&env, "MOONCAKE_CONFIG_PATH"));
	/* Mooncake's variables come last, in the order they are applied */
	ck_assert_str_eq(env.vars[env.count - 1].name, "MOONCAKE_TE_META_DATA_SERVER");
	mcr_env_free(&env);
	mcr_recipe_free(r);
}
END_TEST

START_TEST(test_resolve_role)
{
	struct mcr_recipe *r = load_ok("schema: 2\nroles: {agg: {}}\n");
	struct mcr_error err = { 0 };
	enum mcr_role role;

	ck_assert_int_eq(mcr_recipe_resolve_role(r, NULL, false, &role, &err), 0);
	ck_assert_int_eq(role, MCR_ROLE_AGG); /* the only role */
	ck_assert_int_eq(mcr_recipe_resolve_role(r, NULL, true, &role, &err), 0);
	ck_assert_int_eq(role, MCR_ROLE_NONE); /* inherited, no role: nothing */
	ck_assert_int_eq(mcr_recipe_resolve_role(r, "agg", true, &role, &err), 0);
	ck_assert_int_eq(role, MCR_ROLE_AGG);
	ck_assert_int_eq(mcr_recipe_resolve_role(r, "prefill", false, &role, &err), -1);
	ck_assert_str_eq(
		errmsg(&err),
		"mooncake: r.yaml:2:8: --mooncake-role=prefill: the recipe has no roles.prefill; its roles are agg");
	mcr_recipe_free(r);
	r = load_ok("schema: 2\n");
	ck_assert_int_eq(mcr_recipe_resolve_role(r, NULL, false, &role, &err), -1);
	ck_assert_str_eq(
		errmsg(&err),
		"mooncake: r.yaml: the recipe declares no roles: add roles.prefill, roles.decode or roles.agg");
	mcr_recipe_free(r);
}
END_TEST

/* ---- warnings and suggestions ------------------------------------------- */

/* advice: likely typos are named, valid recipes still load (reference §11) */
START_TEST(test_warnings_and_suggestions)
{
	const char *y =
		"schema: 2\n"
		"role: {}\n"
		"engine: {type: trtllm, served_model_name: m}\n"
		"roles:\n"
		"  prefill: {args: {kv_connector_config: {connector: mooncake-store}},\n"
		"            mooncake_store_config: {global_segement_size: 1}}\n"
		"  agg: {args: {kv_connector_config: {connector: mooncake_store}}}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master, options: {store_config: {protocl: tcp, custom_key: 1}}}\n";
	static const char *const want[] = {
		"mooncake: warning: r.yaml:2:1: role: is not a recipe key (did you mean roles?)",
		"mooncake: warning: r.yaml:9:77: services[mooncake-master].options.store_config.protocl is not a key TRT-LLM's Mooncake client reads (did you mean protocol?); it is written to the client config unchanged and ignored there",
		"mooncake: warning: r.yaml:6:37: roles.prefill.mooncake_store_config.global_segement_size is not a key TRT-LLM's Mooncake client reads (did you mean global_segment_size?); it is written to the client config unchanged and ignored there",
		"mooncake: warning: r.yaml:7:49: roles.agg.args.kv_connector_config.connector: 'mooncake_store' is not mooncake-store (did you mean mooncake-store?), so this role reads no Mooncake client config",
		NULL,
	};
	struct mcr_recipe *r = load_ok(y);

	/* the warnings, in order, and nothing after them */
	for (size_t i = 0; want[i] || mcr_recipe_warning(r, i); i++)
		ck_assert_str_eq(mcr_recipe_warning(r, i) ? mcr_recipe_warning(r, i) : "(none)",
				 want[i] ? want[i] : "(none)");
	mcr_recipe_free(r);
	/* (unknown fields and their suggestions: test_refusals.c) */
}
END_TEST

/* a refused size suggests its binary spelling or its byte count */
static const struct {
	const char *text, *message;
} SIZE_FIXES[] = {
	{ "16GB",
	  "k '16GB' must be a byte count or use a binary unit (KiB, MiB, GiB, TiB); 'GB' is refused; write '16GiB' (binary) or a byte count" },
	{ "32M",
	  "k '32M' must be a byte count or use a binary unit (KiB, MiB, GiB, TiB); 'GB' is refused; write '32MiB' (binary) or a byte count" },
	{ "1.5tb",
	  "k '1.5tb' must be a byte count or use a binary unit (KiB, MiB, GiB, TiB); 'GB' is refused; write '1.5TiB' (binary) or a byte count" },
	{ "1e9",
	  "k '1e9' must be a byte count or use a binary unit (KiB, MiB, GiB, TiB); 'GB' is refused; write the byte count 1000000000" },
	{ "16PiB", "k '16PiB' must be a byte count or use a binary unit (KiB, MiB, GiB, TiB); 'GB' is refused" },
};

START_TEST(test_size_suggestions)
{
	struct mcri_doc *doc = NULL;
	struct mcr_error se = { 0 };
	char q[64];
	long long b;

	snprintf(q, sizeof(q), "'%s'", SIZE_FIXES[_i].text);
	ck_assert_int_eq(mcri_size_of_node("k", typed(q, &doc), &b, &se), -1);
	mcri_doc_free(doc);
	ck_assert_str_eq(se.text, SIZE_FIXES[_i].message);
}
END_TEST

Suite *lib_suite(void)
{
	Suite *s = suite_create("lib");
	TCase *tc = tcase_create("helpers");

	tcase_add_loop_test(tc, test_sizes_accepted, 0, (int)(sizeof(SIZES_OK) / sizeof(SIZES_OK[0])));
	tcase_add_loop_test(tc, test_sizes_refused, 0, (int)(sizeof(SIZES_BAD) / sizeof(SIZES_BAD[0])));
	tcase_add_test(tc, test_size_nodes);
	tcase_add_test(tc, test_py_int);
	tcase_add_test(tc, test_json_format);
	tcase_add_test(tc, test_atomic_write);
	tcase_add_test(tc, test_atomic_write_concurrent);
	tcase_add_test(tc, test_master_argv);
	tcase_add_test(tc, test_worker_env_layering);
	tcase_add_test(tc, test_resolve_role);
	tcase_add_test(tc, test_warnings_and_suggestions);
	tcase_add_loop_test(tc, test_size_suggestions, 0, (int)(sizeof(SIZE_FIXES) / sizeof(SIZE_FIXES[0])));
	suite_add_tcase(s, tc);
	return s;
}
