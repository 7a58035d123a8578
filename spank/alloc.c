/*
 * alloc.c - sbatch and salloc (the allocator context): refuse a bad recipe
 * at submission, before the job waits in the queue.
 */
#include "plugin.h"

int mcp_alloc_post_opt(spank_t sp)
{
	struct mcr_error err = { 0 };
	enum mcr_role role;

	(void)sp;
	if (!mcp_ctx.recipe_arg)
		return mcp_role_without_recipe();
	/* the job's steps choose their roles; only an explicit one is checked */
	if (mcp_load(mcp_ctx.recipe_arg, mcp_ctx.role_arg, true, &mcp_ctx.recipe,
		     &role, &err)) {
		mcp_error(&err);
		return -1;
	}
	return 0;
}
