/*
 * options.c - the one option table (--mooncake-recipe, --mooncake-role),
 * its callbacks, and where the recipe came from (the plugstack.conf
 * arguments are runtime/plugstack's, which mooncake-recipe reads too).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/plugin.h"

/* The option values of this process's plugin stack: Slurm calls the
 * callbacks, which have no other place to put them. Freed in each
 * context's exit. */
static struct {
	char *recipe; /* --mooncake-recipe as given */
	char *role;   /* --mooncake-role as given */
} given;

/* Slurm passes the value again when it is inherited from sbatch/salloc
 * (environment first, command line second; in slurmstepd 22.05 calls every
 * callback twice): the last value wins, as on every Slurm command line. */
static int set_value(char **slot, const char *optarg, const char *option)
{
	char *copy;

	if (!optarg || !*optarg) {
		slurm_error(MCP_NAME ": --%s needs a value", option);
		return -1;
	}
	copy = strdup(optarg);
	if (!copy) {
		slurm_error(MCP_NAME ": out of memory");
		return -1;
	}
	free(*slot);
	*slot = copy;
	return 0;
}

static int recipe_cb(int val, const char *optarg, int remote)
{
	(void)val;
	(void)remote;
	return set_value(&given.recipe, optarg, "mooncake-recipe");
}

static int role_cb(int val, const char *optarg, int remote)
{
	(void)val;
	(void)remote;
	return set_value(&given.role, optarg, "mooncake-role");
}

static struct spank_option options[] = {
	{ "mooncake-recipe", "PATH",
	  "[mooncake] srtctl-style recipe (schema 2) with a mooncake-master "
	  "service: start the job's Mooncake master and give this step's tasks "
	  "their Mooncake client config",
	  1, 0, recipe_cb },
	{ "mooncake-role", "ROLE",
	  "[mooncake] role of this step in the recipe: prefill, decode or agg "
	  "(default: the recipe's only role)",
	  1, 0, role_cb },
	SPANK_OPTIONS_TABLE_END
};

int mcp_options_register(spank_t sp)
{
	for (struct spank_option *o = options; o->name; o++) {
		spank_err_t rc = spank_option_register(sp, o);

		if (rc != ESPANK_SUCCESS) {
			slurm_error(MCP_NAME ": cannot register --%s: %s", o->name,
				    spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

const char *mcp_option_recipe(void)
{
	return given.recipe;
}

const char *mcp_option_role(void)
{
	return given.role;
}

void mcp_options_free(void)
{
	free(given.recipe);
	free(given.role);
	given.recipe = given.role = NULL;
}

/* ---- where the recipe came from ---------------------------------------- */

#define INHERITED_VAR "SLURM_SPANK__SLURM_SPANK_OPTION_" MCP_NAME "_mooncake_recipe"

bool mcp_recipe_inherited(const char *recipe_arg,
			  const char *(*getenv_fn)(void *, const char *, char *, size_t),
			  void *arg)
{
	char buf[PATH_MAX + 1], a[PATH_MAX], b[PATH_MAX];
	const char *v = getenv_fn(arg, INHERITED_VAR, buf, sizeof(buf));

	if (!v || !recipe_arg)
		return false;
	if (strcmp(v, recipe_arg) == 0)
		return true;
	/* "./r.yaml" and "r.yaml" name the same recipe */
	return realpath(v, a) && realpath(recipe_arg, b) && strcmp(a, b) == 0;
}

int mcp_role_without_recipe(void)
{
	if (!given.role)
		return 0;
	slurm_error(MCP_NAME ": --mooncake-role=%s needs a recipe: add --mooncake-recipe=PATH (here or on sbatch/salloc)",
		    given.role);
	return -1;
}
