/*
 * alloc.c - sbatch and salloc (the allocator context): refuse a bad recipe
 * at submission, before the job waits in the queue.
 */
#include <string.h>

#include "plugin/common.h"
#include "srun/alloc.h"

/* this sbatch's or salloc's state, from init to exit */
static struct {
	struct mcri_plugstack ps;
} ctx;

int mcp_alloc_init(spank_t sp, int ac, char **av)
{
	struct mcr_error err;

	memset(&ctx, 0, sizeof(ctx));
	if (mcri_plugstack_parse(&ctx.ps, ac, av, &err)) {
		mcp_error(&err);
		return -1;
	}
	return mcp_options_register(sp);
}

int mcp_alloc_post_opt(spank_t sp)
{
	struct mcr_error err_buf = { 0 }, *err = &err_buf;
	struct mcr_recipe *recipe = NULL;
	enum mcr_role role;

	(void)sp;
	if (!mcp_option_recipe())
		return mcp_role_without_recipe();
	/* the job's steps choose their roles; only an explicit one is checked */
	if (mcp_load(mcp_option_recipe(), mcp_option_role(), true, &recipe, &role, err)) {
		mcp_error(err);
		return -1;
	}
	mcr_recipe_free(recipe);
	return 0;
}

void mcp_alloc_exit(void)
{
	mcp_options_free();
	memset(&ctx, 0, sizeof(ctx));
}
