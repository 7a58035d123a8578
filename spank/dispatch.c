/*
 * dispatch.c - the only place that defines SPANK_PLUGIN and the callbacks;
 * each is a switch on spank_context() that calls the function of that
 * context (pyxis's layout). Each context keeps its state in its own file.
 */
#include "srun/alloc.h"
#include "srun/srun.h"
#include "stepd/stepd.h"

SPANK_PLUGIN(mooncake, 1);

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	switch (spank_context()) {
	case S_CTX_ALLOCATOR:
		return mcp_alloc_init(sp, ac, av);
	case S_CTX_LOCAL:
		return mcp_srun_init(sp, ac, av);
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
		/* slurmstepd runs this as root: the work is in task_init, as
		 * the user */
		return 0;
	}
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return mcp_srun_user_init(sp);
}

int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return mcp_stepd_task_init_privileged(sp);
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return mcp_stepd_task_init(sp);
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return spank_context() == S_CTX_REMOTE ? mcp_stepd_task_exit(sp) : 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	switch (spank_context()) {
	case S_CTX_ALLOCATOR:
		mcp_alloc_exit();
		break;
	case S_CTX_LOCAL:
		mcp_srun_exit();
		break;
	case S_CTX_REMOTE:
		mcp_stepd_exit();
		break;
	default:
		break;
	}
	return 0;
}
