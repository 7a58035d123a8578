/* test_container.c - mcr_recipe_master_container: the container the master
 * runs in, chosen as srtctl chooses it (the service's, else the engine
 * block's, else model.container), and where the recipe says so; and
 * mcr_srtslurm_container: srtctl's aliases, containers: of srtslurm.yaml. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "testutil.h"

/* "<source>:<line>:<column>: <key path>" */
static const char *pos(const struct mcr_position *at)
{
	static char s[MCR_ERROR_MESSAGE_LENGTH];

	snprintf(s, sizeof(s), "%s:%d:%d: %s", at->source, at->line, at->column, at->path);
	return s;
}

static const char *container_of(const char *yaml, char *where, size_t size)
{
	static char value[256];
	struct mcr_recipe *r = load_ok(yaml);
	struct mcr_position at;
	const char *v = mcr_recipe_master_container(r, &at);

	snprintf(value, sizeof(value), "%s", v ? v : "(none)");
	snprintf(where, size, "%.100s", pos(&at));
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
	snprintf(y, sizeof(y), "%sengine:\n  type: vllm\n  mooncake_kv_store: {container: null}\nroles: {agg: {}}\n",
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
	struct mcr_error err = { 0 };
	struct mcr_position at;

	ck_assert_int_eq(mcr_recipe_load_file(MCK_TOP "/examples/trtllm-serve-disagg-mooncake.yaml",
					      "trtllm-serve-disagg-mooncake.yaml", &r, &err),
			 0);
	ck_assert_str_eq(mcr_recipe_master_container(r, &at), "trtllm");
	ck_assert_str_eq(pos(&at), "trtllm-serve-disagg-mooncake.yaml:26:14: model.container");
	mcr_recipe_free(r);
}
END_TEST

/* srtslurm.yaml holding `text` (in TMPDIR); the alias looked up there */
static int alias_in(const char *text, const char *alias, char **value, struct mcr_position *where,
		    struct mcr_error *err)
{
	char path[512];
	const char *dir = getenv("TMPDIR");
	FILE *f;
	int rc, fd;

	snprintf(path, sizeof(path), "%s/mck-srtslurm.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	rc = mcr_srtslurm_container(path, "srtslurm.yaml", alias, value, where, err);
	unlink(path);
	return rc;
}

START_TEST(test_srtslurm_aliases)
{
	struct mcr_position where;
	struct mcr_error err;
	char *v;

	/* srtctl's cluster config: only containers: matters */
	ck_assert_int_eq(alias_in("cluster:\n  account: a\ncontainers:\n  trtllm: /shared/trtllm.sqsh\n"
				  "  vllm: 'nvcr.io#nvidia/vllm:1'\n",
				  "vllm", &v, &where, &err),
			 1);
	ck_assert_str_eq(v, "nvcr.io#nvidia/vllm:1");
	ck_assert_str_eq(pos(&where), "srtslurm.yaml:5:9: containers.vllm");
	free(v);
	/* not a key: 0, the value stays as it is (srtctl's rule) */
	ck_assert_int_eq(alias_in("containers: {trtllm: /x.sqsh}\n", "sglang", &v, &where, &err), 0);
	ck_assert_ptr_null(v);
	ck_assert_str_eq(where.source, "");
	ck_assert_int_eq(alias_in("containers: {trtllm: /x.sqsh}\n", "/x.sqsh", &v, NULL, &err), 0);
	/* a key of another type is not the string alias (Python's `in`) */
	ck_assert_int_eq(alias_in("containers: {1: /x.sqsh}\n", "1", &v, NULL, &err), 0);
	/* no containers:, null, an empty file */
	ck_assert_int_eq(alias_in("cluster: {account: a}\n", "trtllm", &v, NULL, &err), 0);
	ck_assert_int_eq(alias_in("containers:\n", "trtllm", &v, NULL, &err), 0);
	ck_assert_int_eq(alias_in("", "trtllm", &v, NULL, &err), 0);
	/* what srtctl would not load */
	ck_assert_int_eq(alias_in("- a\n", "trtllm", &v, NULL, &err), -1);
	ck_assert_str_eq(
		errmsg(&err),
		"mooncake: srtslurm.yaml:1:1: srtctl's cluster config must be a mapping (cluster:, model_paths:, containers:, ...); srtctl ignores this file, and no alias of it resolves: fix it, or remove it");
	ck_assert_int_eq(alias_in("containers: /x\n", "trtllm", &v, NULL, &err), -1);
	ck_assert_str_eq(
		errmsg(&err),
		"mooncake: srtslurm.yaml:1:13: containers: must map srtctl's container aliases to images, e.g. containers: {trtllm: /shared/images/trtllm.sqsh}");
	ck_assert_int_eq(alias_in("containers: {trtllm: ''}\n", "trtllm", &v, NULL, &err), -1);
	ck_assert_str_eq(
		errmsg(&err),
		"mooncake: srtslurm.yaml:1:22: containers.trtllm: '' is not an image; write a registry image, a squashfs file or an OCI bundle's path, e.g. trtllm: /shared/images/trtllm.sqsh");
	ck_assert_int_eq(alias_in("containers: {trtllm: 3}\n", "trtllm", &v, NULL, &err), -1);
	ck_assert_contains(errmsg(&err), "containers.trtllm: 3 is not an image");
	ck_assert_int_eq(alias_in("containers: {trtllm: [\n", "trtllm", &v, NULL, &err), -1);
	ck_assert_contains(errmsg(&err), "mooncake: srtslurm.yaml:");
	ck_assert_int_eq(err.kind, MCR_EINVAL);
	/* a file that cannot be read */
	ck_assert_int_eq(mcr_srtslurm_container("/nonexistent/srtslurm.yaml", NULL, "trtllm", &v, NULL, &err), -1);
	ck_assert_str_eq(
		errmsg(&err),
		"mooncake: cannot read srtctl's cluster config /nonexistent/srtslurm.yaml: No such file or directory; make it a readable YAML file (srtctl's srtslurm.yaml), or remove it");
	ck_assert_int_eq(err.kind, MCR_EIO);
	ck_assert_int_eq(mcr_srtslurm_container("/", NULL, "trtllm", &v, NULL, &err), -1);
	ck_assert_contains(errmsg(&err), "/: it is not a regular file");
}
END_TEST

Suite *container_suite(void)
{
	Suite *s = suite_create("container");
	TCase *tc = tcase_create("master container");

	tcase_add_test(tc, test_master_container_precedence);
	tcase_add_test(tc, test_master_container_none);
	tcase_add_test(tc, test_master_container_examples);
	tcase_add_test(tc, test_srtslurm_aliases);
	suite_add_tcase(s, tc);
	return s;
}
