/*
 * alias.h - srtctl's container aliases (alias.c, srun).
 */
#ifndef MCP_ALIAS_H_
#define MCP_ALIAS_H_

#include <stddef.h>

#include "mooncake_recipe.h"
#include "plugstack/plugstack.h"

/* The recipe's container `value` through the srtslurm.yaml files, in order:
 * srtctl's own (SRTSLURM_CONFIG's, else srtslurm.yaml in the working directory,
 * its parent, its grandparent, if the user's or root's and no one else can
 * change it) and the cluster's (srtslurm=). When one maps it, *resolved (heap)
 * is what it maps to, and `how` says so ("'trtllm' is containers.trtllm of
 * /p/srtslurm.yaml:3:11"); else `looked` lists the files read and where none
 * was. `skipped`: "skipped F (it belongs to uid 1003 (mallory))", ... or "".
 * -1 with err (at the file): a file unreadable or not one srtctl loads. */
int mcp_container_alias(const struct mcri_plugstack *ps, const char *value, char **resolved, char *how, size_t how_size,
			char *looked, size_t looked_size, char *skipped, size_t skipped_size, struct mcr_error *err);

#endif /* MCP_ALIAS_H_ */
