/*
 * bench.c - what a recipe costs the plugin (make bench): load + validate,
 * render, worker env, per call, and the peak memory. Numbers, not tests:
 * each task of a step pays load + validate + env once in task_init.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "mooncake_recipe.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const struct mcr_error *err)
{
	char msg[MCR_ERROR_MESSAGE_LENGTH];

	mcr_error_format(err, msg, sizeof(msg));
	fprintf(stderr, "%s\n", msg);
	exit(1);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : MCK_TOP "/examples/trtllm-serve-disagg-mooncake.yaml";
	int n = argc > 2 ? atoi(argv[2]) : 2000;
	struct mcr_error err = { 0 };
	struct rusage ru;
	double t0, t_load, t_render, t_env;

	t0 = now();
	for (int i = 0; i < n; i++) {
		struct mcr_recipe *r;

		if (mcr_recipe_load_file(path, NULL, &r, &err))
			die(&err);
		mcr_recipe_free(r);
	}
	t_load = (now() - t0) / n;
	{
		struct mcr_recipe *r;

		if (mcr_recipe_load_file(path, NULL, &r, &err))
			die(&err);
		t0 = now();
		for (int i = 0; i < n; i++) {
			struct mcr_file_list files;

			if (mcr_client_configs(r, "10.1.1.1:8700", &files, &err))
				die(&err);
			mcr_file_list_free(&files);
		}
		t_render = (now() - t0) / n;
		t0 = now();
		for (int i = 0; i < n; i++) {
			struct mcr_env env;
			struct mcr_env_input in = { "10.1.1.1:8700", "10.1.1.1", "/logs", NULL, "10.1.1.2" };

			if (mcr_worker_env(r, MCR_ROLE_DECODE, &in, &env, &err))
				die(&err);
			mcr_env_free(&env);
		}
		t_env = (now() - t0) / n;
		mcr_recipe_free(r);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("recipe: %s (%d rounds)\n", path, n);
	printf("load + validate:   %8.1f us per call\n", t_load * 1e6);
	printf("render configs:    %8.1f us per call\n", t_render * 1e6);
	printf("worker env:        %8.1f us per call\n", t_env * 1e6);
	printf("peak RSS:          %8ld KiB\n", ru.ru_maxrss);
	return 0;
}
