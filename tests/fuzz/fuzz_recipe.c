/*
 * fuzz_recipe.c - libFuzzer target (make fuzz): any bytes through
 * mcr_recipe_load_buffer (the YAML loader and every rule), then every
 * render of a recipe that loads: the client configs, the vLLM per-GPU
 * config, the worker environment of each role, the master's environment
 * and argv. Besides the sanitizers' findings it aborts when a promise of
 * the library breaks:
 *  - every message starts with "mooncake: ";
 *  - every environment name is a shell name and no value holds a line
 *    break or control character (rules E1, E2);
 *  - what one render call writes is at most 16 times the input plus
 *    1 MiB (reference §7).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mooncake_recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RENDER_MAX(size) ((size)*16 + (1u << 20))

static void check_message(const struct mcr_error *err)
{
	static char msg[MCR_ERROR_MESSAGE_LENGTH];

	mcr_error_format(err, msg, sizeof(msg));
	if (strncmp(msg, "mooncake: ", 10) != 0) {
		fprintf(stderr, "a message without the prefix: %s\n", msg);
		abort();
	}
}

static void check_env(const struct mcr_env *env, size_t size)
{
	size_t total = 0;

	for (size_t i = 0; i < env->count; i++) {
		const char *n = env->vars[i].name;

		if (!((*n >= 'A' && *n <= 'Z') || (*n >= 'a' && *n <= 'z') || *n == '_') ||
		    n[strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")]) {
			fprintf(stderr, "an environment name that is not a shell name: '%s'\n", n);
			abort();
		}
		for (const unsigned char *p = (const unsigned char *)env->vars[i].value; *p; p++)
			if ((*p < 0x20 && *p != '\t') || *p == 0x7f) {
				fprintf(stderr, "%s has a control character 0x%02x\n", n, *p);
				abort();
			}
		total += strlen(n) + strlen(env->vars[i].value) + 2;
	}
	if (total > RENDER_MAX(size)) {
		fprintf(stderr, "an environment of %zu bytes from %zu bytes\n", total, size);
		abort();
	}
}

static void render(const struct mcr_recipe *r, size_t size)
{
	static const int gpus[][3] = { { 0, 1, 0 }, { 3, 0, 0 }, { 1, 1, 7 } };
	struct mcr_error err = { 0 };
	struct mcr_file_list files;
	struct mcr_file gpu;
	struct mcr_env env;
	char **argv;
	size_t total = 0;

	if (mcr_client_configs(r, "10.1.1.1:8700", &files, &err) == 0) {
		for (size_t i = 0; i < files.count; i++)
			total += strlen(files.files[i].text);
		if (total > RENDER_MAX(size)) {
			fprintf(stderr, "client configs of %zu bytes from %zu bytes\n", total, size);
			abort();
		}
		mcr_file_list_free(&files);
	} else {
		check_message(&err);
	}
	for (size_t g = 0; g < sizeof(gpus) / sizeof(gpus[0]); g++) {
		if (mcr_vllm_gpu_config(r, "10.1.1.1:8700", gpus[g], g + 1, &gpu, &err) == 0) {
			if (strlen(gpu.text) > RENDER_MAX(size))
				abort();
			mcr_file_free(&gpu);
		} else {
			check_message(&err);
		}
	}
	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		struct mcr_env_input in = { "10.1.1.1:8700", "10.1.1.1", "/logs", NULL, "10.1.1.2", 8701 };

		if (!mcr_recipe_has_role(r, (enum mcr_role)role))
			continue;
		if (mcr_worker_env(r, (enum mcr_role)role, &in, &env, &err) == 0) {
			check_env(&env, size);
			mcr_env_free(&env);
		} else {
			check_message(&err);
		}
	}
	if (mcr_master_env(r, &env, &err) == 0) {
		check_env(&env, size);
		mcr_env_free(&env);
	} else {
		check_message(&err);
	}
	if (mcr_master_argv(r, "mooncake_master", NULL, &argv, &err) == 0)
		mcr_strv_free(argv);
	else
		check_message(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcr_recipe *r = NULL;
	struct mcr_error err = { 0 };
	enum mcr_role role;
	char *roles;

	if (mcr_recipe_load_buffer((const char *)data, size, "fuzz.yaml", &r, &err)) {
		check_message(&err);
		return 0;
	}
	for (size_t i = 0; i < mcr_recipe_warning_count(r); i++)
		if (strncmp(mcr_recipe_warning(r, i), "mooncake: warning: ", 19) != 0)
			abort();
	roles = mcr_recipe_role_list(r);
	free(roles);
	if (mcr_recipe_resolve_role(r, NULL, false, &role, &err))
		check_message(&err);
	(void)mcr_recipe_ready_timeout(r);
	(void)mcr_recipe_log_dir(r);
	render(r, size);
	mcr_recipe_free(r);
	return 0;
}
