/*
 * taskvars.c - the variables the plugin sets in every task of a role
 * (reference §8): one list, read by the rules (check warns where a recipe
 * sets one of them, lib/rules/lint.c), by the worker environment
 * (lib/render/env.c sets them after every layer of the recipe) and by the
 * plugin where something else could set them in a task (an image's own
 * environment, pyxis). Whatever else sets one of these names, the task
 * runs with the plugin's value.
 */
#include <string.h>

#include "base/base.h"

const struct mcri_task_var MCRI_TASK_VARS[] = {
	{ "MOONCAKE_MASTER", MCRI_TASK_VAR_POOL, "the job's master (<infra node>:8700, or the external one)" },
	{ "MOONCAKE_TE_META_DATA_SERVER", MCRI_TASK_VAR_POOL,
	  "the job's metadata server (http://<infra node>:8701/metadata)" },
	{ "MOONCAKE_LOCAL_HOSTNAME", MCRI_TASK_VAR_POOL,
	  "each node's own address (interface= in plugstack.conf, else the route toward the master)" },
	{ "MOONCAKE_REQUESTER_LOCAL_HOSTNAME", MCRI_TASK_VAR_VLLM, "each node's own address, for vLLM's store worker" },
	{ "MOONCAKE_CONFIG_PATH", MCRI_TASK_VAR_FILE, "the role's client config in the job's directory" },
	{ NULL, 0, NULL },
};

const struct mcri_task_var *mcri_task_var(const char *name)
{
	for (const struct mcri_task_var *t = MCRI_TASK_VARS; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}
