/*
 * dispatch.c - the only place that defines SPANK_PLUGIN and the callbacks
 * shared by several contexts; each is a switch on spank_context() that
 * calls the function of that context (pyxis's layout).
 */
#include <string.h>

#include "plugin.h"

SPANK_PLUGIN(mooncake, 1);

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	struct mcr_error err;

	switch (spank_context()) {
	case S_CTX_ALLOCATOR:
	case S_CTX_LOCAL:
		memset(&mcp_ctx, 0, sizeof(mcp_ctx));
		mcp_ctx.role = MCR_ROLE_NONE;
		if (mcp_parse_config(&mcp_ctx.config, ac, av, &err)) {
			mcp_error(&err);
			return -1;
		}
		mcp_ctx.config_ok = true;
		return mcp_register_options(sp);
	case S_CTX_REMOTE:
		return mcp_stepd_init(sp, ac, av);
	default:
		/* slurmd and the job script contexts: nothing to do */
		return 0;
	}
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	switch (spank_context()) {
	case S_CTX_ALLOCATOR:
		return mcp_alloc_post_opt(sp);
	case S_CTX_LOCAL:
		return mcp_srun_post_opt(sp);
	default:
		/* slurmstepd runs this as root: the recipe is read later, in
		 * task_init, as the user */
		return 0;
	}
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return mcp_srun_user_init(sp);
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return mcp_stepd_task_init(sp);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	mcp_context_free();
	return 0;
}
