/* test_oom.c - out of memory is an error like any other: each allocation
 * the library makes fails once, in turn, and every call must then either
 * succeed (a warning dropped, a value shown as "?") or fail with an error
 * set (MCR_EIO "out of memory", or the refusal it was making): never a bare
 * -1, never a crash or a leak (make sanitize).
 *
 * The unit tests are linked with --wrap for the allocation functions the
 * library calls (tests/tests.mk, UNIT_WRAP); the wrappers below pass
 * through until a test arms them. */
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static long countdown = -1; /* the allocation (from 0) that fails; -1: none */
static bool injected;

static bool fail_now(void)
{
	if (countdown < 0)
		return false;
	if (countdown-- == 0) {
		injected = true;
		return true;
	}
	return false;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
int __real_vasprintf(char **s, const char *fmt, va_list ap);
int __real___vasprintf_chk(char **s, int flag, const char *fmt, va_list ap);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_vasprintf(char **s, const char *fmt, va_list ap);
int __wrap_asprintf(char **s, const char *fmt, ...);
int __wrap___vasprintf_chk(char **s, int flag, const char *fmt, va_list ap);
int __wrap___asprintf_chk(char **s, int flag, const char *fmt, ...);

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_now() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return fail_now() ? NULL : __real_strndup(s, n);
}

int __wrap_vasprintf(char **s, const char *fmt, va_list ap)
{
	return fail_now() ? -1 : __real_vasprintf(s, fmt, ap);
}

int __wrap_asprintf(char **s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (fail_now())
		return -1;
	va_start(ap, fmt);
	n = __real_vasprintf(s, fmt, ap);
	va_end(ap);
	return n;
}

int __wrap___vasprintf_chk(char **s, int flag, const char *fmt, va_list ap)
{
	return fail_now() ? -1 : __real___vasprintf_chk(s, flag, fmt, ap);
}

int __wrap___asprintf_chk(char **s, int flag, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (fail_now())
		return -1;
	va_start(ap, fmt);
	n = __real___vasprintf_chk(s, flag, fmt, ap);
	va_end(ap);
	return n;
}

/* ---- the scenarios -------------------------------------------------- */

/* what a scenario produced (files, variables, argv): a call that succeeds
 * although an allocation failed must produce the same (snprintf into a
 * static buffer: no allocation) */
static char digest[1 << 16];
static size_t digest_len;

static void note(const char *a, const char *b)
{
	int n = snprintf(digest + digest_len, sizeof(digest) - digest_len, "%s=%s\n", a, b ? b : "(null)");

	if (n > 0 && (size_t)n < sizeof(digest) - digest_len)
		digest_len += (size_t)n;
}

static void note_files(const struct mcr_file_list *files)
{
	for (size_t i = 0; i < files->count; i++)
		note(files->files[i].name, files->files[i].text);
}

static void note_env(const struct mcr_env *env)
{
	for (size_t i = 0; i < env->count; i++)
		note(env->vars[i].name, env->vars[i].value);
}

/* One call of the library under test: returns its result, frees what it
 * made. `refused` is whether the call refuses its input without OOM. */
struct scenario {
	const char *name;
	int (*run)(struct mcr_error *err);
	bool refused;
};

static int load_text(const char *y, struct mcr_error *err)
{
	struct mcr_recipe *r = NULL;
	int rc = mcr_recipe_load_buffer(y, strlen(y), "r.yaml", &r, err);

	mcr_recipe_free(r);
	return rc;
}

/* the seed's TRT-LLM example, and everything rendered from it */
static int trtllm_example(struct mcr_error *err)
{
	struct mcr_recipe *r = NULL;
	struct mcr_file_list files = { 0 };
	struct mcr_env env = { 0 }, menv = { 0 };
	struct mcr_env_input in = { "10.1.1.1:8700", "10.1.1.1", "/logs", NULL, "10.1.1.2", 0 };
	enum mcr_role role;
	char **argv = NULL, *roles = NULL;
	int rc;

	rc = mcr_recipe_load_file(MCK_TOP "/examples/trtllm-serve-disagg-mooncake.yaml", NULL, &r, err);
	rc = rc ? rc : mcr_client_configs(r, "10.1.1.1:8700", &files, err);
	rc = rc ? rc : mcr_recipe_resolve_role(r, "decode", false, &role, err);
	rc = rc ? rc : mcr_worker_env(r, role, &in, &env, err);
	rc = rc ? rc : mcr_master_argv(r, "mooncake_master", NULL, &argv, err);
	rc = rc ? rc : mcr_master_env(r, &menv, err);
	if (rc == 0 && !(roles = mcr_recipe_role_list(r)))
		rc = mcri_error_nomem(err);
	if (rc == 0) {
		note_files(&files);
		note_env(&env);
		note_env(&menv);
		for (char **a = argv; *a; a++)
			note("argv", *a);
		note("roles", roles);
	}
	free(roles);
	mcr_strv_free(argv);
	mcr_env_free(&menv);
	mcr_env_free(&env);
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
	return rc;
}

static const char VLLM[] = "schema: 2\nengine: vllm\nresources: {gpus_per_node: 2}\n"
			   "roles:\n  prefill: {args: {kv-transfer-config: 'MooncakeStoreConnector'}, env: {A: '1'}}\n"
			   "services:\n  - name: mooncake-master\n    type: mooncake-master\n"
			   "    env: {MC_X: y}\n"
			   "    options: {device_names_by_gpu: [mlx5_0, mlx5_1],\n"
			   "              store_config: {protocol: rdma, protocl: x, 1: one, 2.5: f, ~: n, true: b}}\n";

static int vllm_gpu_files(struct mcr_error *err)
{
	struct mcr_recipe *r = NULL;
	struct mcr_file f = { 0 };
	struct mcr_env env = { 0 };
	struct mcr_env_input in = { "10.1.1.1:8700", "10.1.1.1", "/logs", NULL, "10.1.1.2", 0 };
	int gpus[] = { 1, 0 }, rc;

	rc = mcr_recipe_load_buffer(VLLM, strlen(VLLM), "r.yaml", &r, err);
	rc = rc ? rc : mcr_vllm_gpu_config(r, "10.1.1.1:8700", gpus, 2, &f, err);
	rc = rc ? rc : mcr_worker_env(r, MCR_ROLE_PREFILL, &in, &env, err);
	if (rc == 0) {
		note(f.name, f.text);
		note_env(&env);
	}
	mcr_env_free(&env);
	mcr_file_free(&f);
	mcr_recipe_free(r);
	return rc;
}

/* the engine form of the master, and the default model_key from
 * model.path */
static int engine_block(struct mcr_error *err)
{
	static const char y[] =
		"schema: 2\nmodel: {path: 'hf:org/name'}\n"
		"engine:\n  type: trtllm\n"
		"  mooncake_kv_store: {env: {MC_A: b}, master_extra_args: [--x], store_config: {protocol: tcp}}\n"
		"roles: {agg: {args: {kv_connector_config: {connector: mooncake-store}}}}\n";
	struct mcr_recipe *r = NULL;
	struct mcr_file_list files = { 0 };
	int rc = mcr_recipe_load_buffer(y, strlen(y), "r.yaml", &r, err);

	rc = rc ? rc : mcr_client_configs(r, "10.1.1.1:8700", &files, err);
	if (rc == 0)
		note_files(&files);
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
	return rc;
}

static int external_master(struct mcr_error *err)
{
	static const char y[] = "schema: 2\nengine: sglang\nroles: {agg: {}}\n"
				"services:\n  - {name: m, type: mooncake-master, external: 'h.example:8700'}\n";
	struct mcr_recipe *r = NULL;
	struct mcr_env env = { 0 };
	struct mcr_env_input in = { NULL, NULL, "/logs", NULL, NULL, 0 };
	int rc = mcr_recipe_load_buffer(y, strlen(y), "r.yaml", &r, err);

	rc = rc ? rc : mcr_worker_env(r, MCR_ROLE_AGG, &in, &env, err);
	if (rc == 0)
		note_env(&env);
	mcr_env_free(&env);
	mcr_recipe_free(r);
	return rc;
}

/* warnings: each is dropped when it finds no memory */
static int typos(struct mcr_error *err)
{
	return load_text(
		"schema: 2\nrole: {}\n"
		"engine: {type: trtllm, served_model_name: m}\n"
		"roles:\n"
		"  prefill: {args: {kv_connector_config: {connector: mooncake-store}},\n"
		"            mooncake_store_config: {global_segement_size: 1}}\n"
		"  agg: {args: {kv_conector_config: {}, kv_connector_config: {connector: mooncake_store}}}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master, options: {store_config: {protocl: tcp}}}\n",
		err);
}

static int unknown_field(struct mcr_error *err)
{
	return load_text("schema: 2\nroles:\n  decode: {colour: red}\n", err);
}

static int pool_wide_keys(struct mcr_error *err)
{
	return load_text("schema: 2\nengine: {type: trtllm, served_model_name: m}\n"
			 "roles:\n  decode: {args: {kv_connector_config: {connector: mooncake-store}},\n"
			 "           mooncake_store_config: {protocol: tcp, namespace: n}}\n"
			 "services:\n  - {name: mooncake-master, type: mooncake-master}\n",
			 err);
}

static int store_config_on_other_role(struct mcr_error *err)
{
	return load_text("schema: 2\nengine: {type: trtllm, served_model_name: m}\n"
			 "roles:\n  prefill: {args: {kv_connector_config: {connector: mooncake-store}}}\n"
			 "  decode: {mooncake_store_config: {global_segment_size: 1}}\n"
			 "services:\n  - {name: mooncake-master, type: mooncake-master}\n",
			 err);
}

static int shared_run_dir(struct mcr_error *err)
{
	return load_text(
		"schema: 2\nengine: trtllm\nfrontend: {type: trtllm_serve}\n"
		"roles:\n"
		"  prefill: {args: {kv_connector_config: {connector: mooncake-store, mooncake_store: {run_dir: /d}}}}\n"
		"  decode: {args: {kv_connector_config: {connector: mooncake-store, mooncake_store: {run_dir: /d}}}}\n",
		err);
}

static int bad_size(struct mcr_error *err)
{
	return load_text("schema: 2\nengine: {type: trtllm, served_model_name: m}\n"
			 "roles:\n  decode: {args: {kv_connector_config: {connector: mooncake-store}},\n"
			 "           mooncake_store_config: {global_segment_size: 16GB, role: capacity}}\n"
			 "services:\n  - {name: mooncake-master, type: mooncake-master}\n",
			 err);
}

static int service_fields(struct mcr_error *err)
{
	return load_text("schema: 2\nservices:\n"
			 "  - {name: a, command: [x], args: [y], env: {A: b}, placement: {node: infra}}\n"
			 "  - {name: b, type: mooncake-master, options: {store_config: {}, x: 1, 2: y}}\n",
			 err);
}

static int log_dir(struct mcr_error *err)
{
	return load_text("schema: 2\noutput: {log_dir: 'logs/{job_id}/{nope}'}\n", err);
}

static int yaml_features(struct mcr_error *err)
{
	return load_text("schema: 2\nbase: &b {a: 1, b: [1, 2]}\nm: {<<: [*b, {c: 3}], d: 4}\n"
			 "big: 123456789012345678901234567890\nf: 1.5\nt: !!str 5\n"
			 "i: !!int '1_000'\nbi: !!int '123456789012345678901234567890'\n"
			 "fl: !!float '1_0.5'\nb: !!bool yes\nn: !!null ''\n",
			 err);
}

static int system_helpers(struct mcr_error *err)
{
	char dir[] = "/tmp/mck-oom.XXXXXX", sub[64], *d = NULL, *host = NULL, **hosts = NULL;
	int rc, port;

	if (!mkdtemp(dir))
		return mcri_error_set(err, MCR_EIO, "mkdtemp");
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	rc = mcri_mkdir_p(sub, 0755, err);
	rc = rc ? rc : mcr_write_file_atomic(sub, "f", "x", 1, err);
	rc = rc ? rc : mcri_hostlist_expand("n[1-3,7],gpu-[01-02]", 100, &hosts, err);
	rc = rc ? rc : mcri_host_port_parse("10.0.0.5:8700", &host, &port, err);
	if (rc == 0 && !(d = mcri_expand_dir_template("out/{user}/{job_id}", "7", "u", "/s", err)))
		rc = -1;
	if (rc == 0) {
		note("dir", d);
		note("host", host);
		for (char **h = hosts; *h; h++)
			note("hosts", *h);
	}
	free(d);
	free(host);
	mcr_strv_free(hosts);
	snprintf(sub, sizeof(sub), "%s/a/b/f", dir);
	unlink(sub);
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/a", dir);
	rmdir(sub);
	rmdir(dir);
	return rc;
}

/* srtctl's container aliases, from a srtslurm.yaml */
static int srtslurm_alias(struct mcr_error *err)
{
	char path[] = "/tmp/mck-oom-srtslurm.XXXXXX", *v = NULL;
	static const char text[] = "cluster: {account: a}\ncontainers:\n  trtllm: /shared/trt.sqsh\n";
	int fd = mkstemp(path), rc;

	if (fd < 0)
		return mcri_error_set(err, MCR_EIO, "mkstemp");
	rc = write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1) ? 0 : -1;
	close(fd);
	rc = rc ? mcri_error_set(err, MCR_EIO, "write")
		: mcr_srtslurm_container(path, "srtslurm.yaml", "trtllm", &v, NULL, err);
	unlink(path);
	if (rc == 1) {
		note("alias", v);
		rc = 0;
	}
	free(v);
	return rc;
}

static const struct scenario SCENARIOS[] = {
	{ "trtllm_example", trtllm_example, false },
	{ "vllm_gpu_files", vllm_gpu_files, false },
	{ "external_master", external_master, false },
	{ "engine_block", engine_block, false },
	{ "typos", typos, false },
	{ "yaml_features", yaml_features, false },
	{ "system_helpers", system_helpers, false },
	{ "srtslurm_alias", srtslurm_alias, false },
	{ "unknown_field", unknown_field, true },
	{ "pool_wide_keys", pool_wide_keys, true },
	{ "store_config_on_other_role", store_config_on_other_role, true },
	{ "shared_run_dir", shared_run_dir, true },
	{ "bad_size", bad_size, true },
	{ "service_fields", service_fields, true },
	{ "log_dir", log_dir, true },
};

/* every allocation of the scenario fails once, in turn */
START_TEST(test_each_allocation_fails)
{
	const struct scenario *s = &SCENARIOS[_i];
	static char want[sizeof(digest)];
	struct mcr_error err;

	/* what the scenario produces with all the memory it wants */
	digest_len = 0;
	digest[0] = '\0';
	ck_assert_int_eq(s->run(&err), s->refused ? -1 : 0);
	memcpy(want, digest, sizeof(want));
	for (long n = 0;; n++) {
		int rc;

		memset(&err, 0, sizeof(err));
		digest_len = 0;
		digest[0] = '\0';
		injected = false;
		countdown = n;
		rc = s->run(&err);
		countdown = -1;
		if (!injected) {
			/* past the last allocation: the call as it is without OOM */
			ck_assert_msg(rc == (s->refused ? -1 : 0), "%s: rc %d without OOM", s->name, rc);
			break;
		}
		if (rc == 0) {
			ck_assert_msg(!s->refused, "%s: allocation %ld failed and the refusal vanished", s->name, n);
			ck_assert_msg(strcmp(digest, want) == 0,
				      "%s: allocation %ld failed and the output changed:\n%s\nnot\n%s", s->name, n,
				      digest, want);
			continue;
		}
		/* a failure always says what it is */
		ck_assert_msg((err.kind == MCR_EIO && strcmp(err.text, "out of memory") == 0) ||
				      (s->refused && err.kind == MCR_EINVAL && err.text[0]),
			      "%s: allocation %ld failed: kind %d, text '%s'", s->name, n, err.kind, err.text);
	}
}
END_TEST

Suite *oom_suite(void)
{
	Suite *s = suite_create("oom");
	TCase *tc = tcase_create("oom");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_each_allocation_fails, 0, (int)(sizeof(SCENARIOS) / sizeof(SCENARIOS[0])));
	suite_add_tcase(s, tc);
	return s;
}
