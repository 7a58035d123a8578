/*
 * bench.c - what a recipe costs (make bench), as ratios measured side by
 * side in one run, so that a slower or busier machine changes the times
 * and not the ratios:
 *   1. mooncake-recipe check and render, whole processes, against
 *      /bin/true (the cost of starting any process), pairs run in turn;
 *   2. load + validate (and the render the shape feeds) per item of each
 *      shape of tests/bench/shapes.py at 10x, 100x and 1000x its base
 *      size: the time per item must stay flat (ratios near 1);
 *   3. load + validate against PyYAML's safe_load of the same file, both
 *      in their own process, measured in turn;
 *   4. the example recipe's load, render and worker environment per call.
 * The plugin's costs (per task, per node, per srun, readiness) follow
 * these (bench-plugin in tests/tests.mk: plugin_bench.c, srun_bench.sh).
 *
 *   bench TOP CLI WORKDIR
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mooncake_recipe.h"

extern char **environ;

static const char *top, *cli, *work;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what, const struct mcr_error *err)
{
	char msg[MCR_ERROR_MESSAGE_LENGTH] = "";

	if (err)
		mcr_error_format(err, msg, sizeof(msg));
	fprintf(stderr, "bench: %s %s\n", what, msg);
	exit(1);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die(path, NULL);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		die(path, NULL);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* ---- 1. whole processes ------------------------------------------- */

/* wall seconds of argv run to its exit, output to /dev/null */
static double run(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	double t0;
	pid_t pid;
	int st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	t0 = now();
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0)
		die(argv[0], NULL);
	waitpid(pid, &st, 0);
	t0 = now() - t0;
	posix_spawn_file_actions_destroy(&fa);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		die("a command failed:", NULL);
	return t0;
}

#define PAIRS 41

static void versus_true(const char *label, char *const argv[])
{
	char *const yard[] = { "/bin/true", NULL };
	double a[PAIRS], b[PAIRS], r[PAIRS];

	for (int i = 0; i < 3; i++) {
		run(argv);
		run(yard);
	}
	for (int i = 0; i < PAIRS; i++) {
		a[i] = run(argv);
		b[i] = run(yard);
		r[i] = a[i] / b[i];
	}
	printf("%-8s %8.3f ms   /bin/true %6.3f ms   ratio %5.2f\n", label, median(a, PAIRS) * 1e3,
	       median(b, PAIRS) * 1e3, median(r, PAIRS));
}

/* ---- 2, 3. in-process ---------------------------------------------- */

enum extra { LOAD, WITH_ENV, WITH_CONFIGS };

/* one load + validate (and the render the shape feeds) */
static void once(const char *text, size_t len, enum extra extra)
{
	struct mcr_recipe *r;
	struct mcr_error err = { 0 };

	if (mcr_recipe_load_buffer(text, len, "bench.yaml", &r, &err))
		die("load:", &err);
	if (extra == WITH_ENV) {
		struct mcr_env env;
		struct mcr_env_input in = { "10.1.1.1:8700", "10.1.1.1", "/logs", NULL, "10.1.1.2", 0 };

		if (mcr_worker_env(r, MCR_ROLE_PREFILL, &in, &env, &err))
			die("env:", &err);
		mcr_env_free(&env);
	} else if (extra == WITH_CONFIGS) {
		struct mcr_file_list files;

		if (mcr_client_configs(r, "10.1.1.1:8700", &files, &err))
			die("render:", &err);
		mcr_file_list_free(&files);
	}
	mcr_recipe_free(r);
}

/* median seconds of one call, over batches of about 2 ms */
static double per_call(const char *text, size_t len, enum extra extra)
{
	double t0 = now(), one, s[15];
	int batch;

	once(text, len, extra);
	one = now() - t0;
	batch = one > 0.002 ? 1 : (int)(0.002 / (one > 1e-7 ? one : 1e-7));
	for (int i = 0; i < 15; i++) {
		t0 = now();
		for (int j = 0; j < batch; j++)
			once(text, len, extra);
		s[i] = (now() - t0) / batch;
	}
	return median(s, 15);
}

static const struct {
	const char *shape;
	int base;
	enum extra extra;
	const char *what;
} SHAPES[] = {
	{ "keys", 20, LOAD, "environment variables" },
	{ "env", 20, WITH_ENV, "variables in role env and environment, + worker env" },
	{ "storecfg", 20, WITH_CONFIGS, "store_config keys, + client configs" },
	{ "anchors", 20, LOAD, "anchors, each aliased" },
	{ "aliases", 20, LOAD, "aliases of one anchor" },
	{ "merges", 10, LOAD, "keys merged into 5 mappings" },
	{ "sequences", 20, LOAD, "list items" },
	{ "services", 20, LOAD, "services" },
};

/* a heap string, or exit */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vasprintf(&s, f, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory", NULL);
	return s;
}

/* the recipe of `shape` with n items, written by shapes.py (caller frees) */
static char *shape_file(const char *shape, int n)
{
	char *path = fmt("%s/%s-%d.yaml", work, shape, n);
	char *cmd = fmt("python3 %s/tests/bench/shapes.py %s %d %s", top, shape, n, path);

	if (system(cmd) != 0)
		die("cannot run python3 tests/bench/shapes.py", NULL);
	free(cmd);
	return path;
}

static void scaling(char **paths)
{
	printf("\n== 2. load + validate per item, marginal over the same recipe without the items\n"
	       "   (medians; flat time per item: ratios near 1)\n");
	printf("%-10s %11s %11s %11s   %9s %10s  %s\n", "shape", "10x", "100x", "1000x", "100x/10x", "1000x/10x",
	       "items");
	for (size_t s = 0; s < sizeof(SHAPES) / sizeof(SHAPES[0]); s++) {
		double t0, per[3];
		size_t len;
		char *path = shape_file(SHAPES[s].shape, 0);
		char *text = slurp(path, &len);

		free(path);
		t0 = per_call(text, len, SHAPES[s].extra);
		free(text);
		for (int k = 0, mult = 10; k < 3; k++, mult *= 10) {
			int n = SHAPES[s].base * mult;
			double t;

			path = shape_file(SHAPES[s].shape, n);
			text = slurp(path, &len);
			t = per_call(text, len, SHAPES[s].extra);
			per[k] = (t - t0) / n;
			if (k == 2)
				paths[s] = path;
			else
				free(path);
			free(text);
		}
		printf("%-10s %8.1f ns %8.1f ns %8.1f ns   %9.2f %10.2f  %d-%d %s\n", SHAPES[s].shape, per[0] * 1e9,
		       per[1] * 1e9, per[2] * 1e9, per[1] / per[0], per[2] / per[0], SHAPES[s].base * 10,
		       SHAPES[s].base * 1000, SHAPES[s].what);
	}
}

/* PyYAML's median seconds per safe_load of path (its own process) */
static double pyyaml(const char *path)
{
	char *cmd = fmt("python3 %s/tests/bench/pyyaml_time.py %s", top, path), out[4096];
	double t = -1;
	FILE *p;

	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		die("cannot run python3", NULL);
	if (fgets(out, sizeof(out), p))
		t = atof(out);
	if (pclose(p) != 0 || t <= 0)
		die("PyYAML (python3-yaml) did not time", NULL);
	return t;
}

static void versus_pyyaml(char **paths)
{
	printf("\n== 3. load + validate vs PyYAML safe_load of the same file (1000x; each in its\n"
	       "   own process, in turn, 3 rounds; medians)\n");
	printf("%-10s %9s %14s %14s %9s\n", "shape", "bytes", "load+validate", "safe_load", "ratio");
	for (size_t s = 0; s < sizeof(SHAPES) / sizeof(SHAPES[0]); s++) {
		double a[3], b[3], r[3];
		size_t len;
		char *text = slurp(paths[s], &len);

		for (int i = 0; i < 3; i++) {
			a[i] = per_call(text, len, LOAD);
			b[i] = pyyaml(paths[s]);
			r[i] = a[i] / b[i];
		}
		printf("%-10s %9zu %11.2f ms %11.2f ms %9.4f\n", SHAPES[s].shape, len, median(a, 3) * 1e3,
		       median(b, 3) * 1e3, median(r, 3));
		free(text);
	}
}

static void example(void)
{
	char *path = fmt("%s/examples/trtllm-serve-disagg-mooncake.yaml", top);
	size_t len;
	char *text = slurp(path, &len);

	free(path);
	printf("\n== 4. the TRT-LLM example, per call in-process (what srun pays to check a recipe; its tasks read none: bench-plugin)\n");
	printf("load + validate           %8.1f us\n", per_call(text, len, LOAD) * 1e6);
	printf("  + worker env            %8.1f us\n", per_call(text, len, WITH_ENV) * 1e6);
	printf("  + client configs        %8.1f us\n", per_call(text, len, WITH_CONFIGS) * 1e6);
	free(text);
}

int main(int argc, char **argv)
{
	char *paths[sizeof(SHAPES) / sizeof(SHAPES[0])], *recipe, *outdir;
	struct rusage ru;

	if (argc != 4) {
		fprintf(stderr, "usage: bench TOP CLI WORKDIR\n");
		return 2;
	}
	top = argv[1];
	cli = argv[2];
	work = argv[3];
	recipe = fmt("%s/examples/trtllm-serve-disagg-mooncake.yaml", top);
	outdir = fmt("%s/render-out", work);
	printf("== 1. whole processes against /bin/true (the cost of any process; %d pairs in turn, medians)\n", PAIRS);
	{
		char *check[] = { (char *)cli, "check", recipe, NULL };
		char *render[] = { (char *)cli, "render", recipe, "--infra-addr", "10.1.1.1", "--out", outdir, NULL };

		versus_true("check", check);
		versus_true("render", render);
	}
	scaling(paths);
	versus_pyyaml(paths);
	example();
	for (size_t s = 0; s < sizeof(paths) / sizeof(paths[0]); s++)
		free(paths[s]);
	free(recipe);
	free(outdir);
	getrusage(RUSAGE_SELF, &ru);
	printf("\npeak RSS of this benchmark: %ld KiB\n", ru.ru_maxrss);
	return 0;
}
