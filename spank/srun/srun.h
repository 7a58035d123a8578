/*
 * srun.h - the local context: srun on the submit host, as the user
 * (srun.c), one function per callback (dispatch.c).
 */
#ifndef MCP_SRUN_H_
#define MCP_SRUN_H_

#include <slurm/spank.h>

int mcp_srun_init(spank_t sp, int ac, char **av);
int mcp_srun_post_opt(spank_t sp);
int mcp_srun_user_init(spank_t sp);
void mcp_srun_exit(void);

#endif /* MCP_SRUN_H_ */
