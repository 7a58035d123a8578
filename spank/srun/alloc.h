/*
 * alloc.h - the allocator context: sbatch and salloc (alloc.c), one
 * function per callback (dispatch.c).
 */
#ifndef MCP_ALLOC_H_
#define MCP_ALLOC_H_

#include <slurm/spank.h>

int mcp_alloc_init(spank_t sp, int ac, char **av);
int mcp_alloc_post_opt(spank_t sp);
void mcp_alloc_exit(void);

#endif /* MCP_ALLOC_H_ */
