/* testutil.h - helpers shared by the unit suites. */
#ifndef MCK_TESTUTIL_H_
#define MCK_TESTUTIL_H_

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "rules/size.h"
#include "sys/sys.h"
#include "net/net.h"
#include "jobdir/jobdir.h"
#include "mooncake_recipe.h"

#ifndef MCK_TOP
#define MCK_TOP "."
#endif

/* The message of err as the CLI and the plugin print it (static storage). */
static inline const char *errmsg(const struct mcr_error *err)
{
	static char buf[MCR_ERROR_MESSAGE_LENGTH];

	mcr_error_format(err, buf, sizeof(buf));
	return buf;
}

/* An SGLang recipe of one prefill role whose env is the YAML flow map
 * `env` (a string literal), with the job's own master. */
#define SGLANG_ENV_RECIPE(env)                                                                                         \
	"schema: 2\n"                                                                                                  \
	"engine: sglang\n"                                                                                             \
	"roles:\n"                                                                                                     \
	"  prefill: {env: " env ", args: {disaggregation-transfer-backend: mooncake,"                                  \
	" enable-hierarchical-cache: true, hicache-storage-backend: mooncake}}\n"                                      \
	"services: [{name: mooncake-master, type: mooncake-master}]\n"

/* Load `yaml` (named "r.yaml" in messages); fail the test on an error. */
static inline struct mcr_recipe *load_ok(const char *yaml)
{
	struct mcr_recipe *r = NULL;
	struct mcr_error err = { 0 };

	if (mcr_recipe_load_buffer(yaml, strlen(yaml), "r.yaml", &r, &err))
		ck_abort_msg("expected the recipe to load, got: %s", errmsg(&err));
	return r;
}

/* Load `yaml` expecting a failure; returns the message (static storage). */
static inline const char *load_err(const char *yaml)
{
	static struct mcr_error err;
	struct mcr_recipe *r = NULL;

	memset(&err, 0, sizeof(err));
	if (mcr_recipe_load_buffer(yaml, strlen(yaml), "r.yaml", &r, &err) == 0) {
		mcr_recipe_free(r);
		ck_abort_msg("expected the recipe to be refused:\n%s", yaml);
	}
	return errmsg(&err);
}

/* Assert that `msg` contains `needle`. */
#define ck_assert_contains(msg, needle)                                                                                \
	ck_assert_msg(strstr((msg), (needle)) != NULL, "'%s' not found in: %s", (needle), (msg))

/* Assert the Python repr() of a node. */
#define ck_assert_repr(node, want)                                                                                     \
	do {                                                                                                           \
		char *_r = mcri_repr(node);                                                                            \
		ck_assert_str_eq(_r, (want));                                                                          \
		free(_r);                                                                                              \
	} while (0)

/* Whole file into a NUL-terminated heap buffer (NULL if unreadable). */
static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) != NULL) {
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = '\0';
		}
	}
	fclose(f);
	return buf;
}

/* path holds exactly text afterwards (a plain write, as a hand would) */
static inline void testutil_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "cannot write %s", path);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* a fresh directory $TMPDIR/mck-<name>.XXXXXX, its path into buf */
static inline void testutil_tmpdir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/mck-%s.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	ck_assert_ptr_nonnull(mkdtemp(buf));
}

/* dir and everything in it removed */
static inline void testutil_rmrf(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* A YAML value parsed as PyYAML would type it: the node of key `v` in
 * "v: <text>" (the document stays alive in *doc). */
static inline const struct mcri_node *typed(const char *text, struct mcri_doc **doc)
{
	char buf[512];
	struct mcr_error err = { 0 };

	snprintf(buf, sizeof(buf), "v: %s\n", text);
	if (mcri_doc_parse(buf, strlen(buf), "t.yaml", doc, &err))
		ck_abort_msg("cannot parse %s: %s", text, errmsg(&err));
	return mcri_map_get((*doc)->root, "v");
}

#endif
