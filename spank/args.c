/*
 * args.c - the one option table, its callbacks, and the plugstack.conf
 * arguments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

/* the mooncake-recipe of the build (make's BINDIR), the pool's sampler */
#ifndef MCP_DEFAULT_SAMPLER
#define MCP_DEFAULT_SAMPLER "/usr/local/bin/mooncake-recipe"
#endif

struct mcp_context mcp_ctx;

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
	return set_value(&mcp_ctx.recipe_arg, optarg, "mooncake-recipe");
}

static int role_cb(int val, const char *optarg, int remote)
{
	(void)val;
	(void)remote;
	return set_value(&mcp_ctx.role_arg, optarg, "mooncake-role");
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

int mcp_register_options(spank_t sp)
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

static int copy_path(char *dst, size_t size, const char *value, const char *key,
		     struct mcr_error *err)
{
	int n;

	if (!*value)
		return mcri_error_set(err, MCR_EINVAL, "plugstack.conf: %s= needs a value", key);
	n = snprintf(dst, size, "%s", value);
	if (n < 0 || (size_t)n >= size)
		return mcri_error_set(err, MCR_EINVAL, "plugstack.conf: %s= is too long", key);
	return 0;
}

int mcp_parse_config(struct mcp_config *c, int ac, char **av,
		     struct mcr_error *err)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->master, sizeof(c->master), "mooncake_master");
	snprintf(c->srun, sizeof(c->srun), "srun");
	snprintf(c->job_dir, sizeof(c->job_dir), "%s", MCRI_DEFAULT_JOB_DIR);
	c->ready_timeout = 120;
	snprintf(c->sampler, sizeof(c->sampler), "%s", MCP_DEFAULT_SAMPLER);
	c->pool_interval = 5;
	for (int i = 0; i < ac; i++) {
		const char *a = av[i], *eq = strchr(a, '=');
		const char *value = eq ? eq + 1 : "";
		size_t klen = eq ? (size_t)(eq - a) : strlen(a);

#define KEY(k) (klen == strlen(k) && strncmp(a, k, klen) == 0)
		if (KEY("master")) {
			if (copy_path(c->master, sizeof(c->master), value, "master", err))
				return -1;
		} else if (KEY("srun")) {
			if (copy_path(c->srun, sizeof(c->srun), value, "srun", err))
				return -1;
		} else if (KEY("job_dir")) {
			if (copy_path(c->job_dir, sizeof(c->job_dir), value, "job_dir", err))
				return -1;
		} else if (KEY("interface")) {
			if (copy_path(c->interface, sizeof(c->interface), value, "interface", err))
				return -1;
		} else if (KEY("sampler")) {
			if (copy_path(c->sampler, sizeof(c->sampler), value, "sampler", err))
				return -1;
			if (c->sampler[0] != '/')
				return mcri_error_set(err, MCR_EINVAL,
						      "plugstack.conf: sampler=%s must be an absolute path (the mooncake-recipe binary, e.g. sampler=/usr/bin/mooncake-recipe)",
						      value);
		} else if (KEY("pool_interval")) {
			char *end;
			long t;

			errno = 0;
			t = strtol(value, &end, 10);
			if (errno || end == value || *end || t < 0 || t > 3600)
				return mcri_error_set(err, MCR_EINVAL,
						      "plugstack.conf: pool_interval=%s must be a number of seconds between 1 and 3600, or 0 to switch the pool sampler off",
						      value);
			c->pool_interval = (int)t;
		} else if (KEY("ready_timeout")) {
			char *end;
			long t;

			errno = 0;
			t = strtol(value, &end, 10);
			if (errno || end == value || *end || t < 1 || t > 86400)
				return mcri_error_set(err, MCR_EINVAL,
						      "plugstack.conf: ready_timeout=%s must be a number of seconds between 1 and 86400",
						      value);
			c->ready_timeout = (int)t;
		} else {
			return mcri_error_set(err, MCR_EINVAL,
					      "plugstack.conf: unknown argument '%s'; spank_mooncake.so takes master=, srun=, job_dir=, ready_timeout=, interface=, sampler= and pool_interval= (see spank_mooncake(8))",
					      a);
		}
#undef KEY
	}
	return 0;
}

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
	if (!mcp_ctx.role_arg)
		return 0;
	slurm_error(MCP_NAME ": --mooncake-role=%s needs a recipe: add --mooncake-recipe=PATH (here or on sbatch/salloc)",
		    mcp_ctx.role_arg);
	return -1;
}

void mcp_context_free(void)
{
	free(mcp_ctx.recipe_arg);
	free(mcp_ctx.role_arg);
	mcr_recipe_free(mcp_ctx.recipe);
	memset(&mcp_ctx, 0, sizeof(mcp_ctx));
}
