/*
 * names.c - the words of the field: role and engine names.
 */
#include <string.h>

#include "base/base.h"

const char *mcr_role_name(enum mcr_role role)
{
	switch (role) {
	case MCR_ROLE_PREFILL:
		return "prefill";
	case MCR_ROLE_DECODE:
		return "decode";
	case MCR_ROLE_AGG:
		return "agg";
	default:
		return NULL;
	}
}

enum mcr_role mcr_role_from_name(const char *name)
{
	for (int r = 0; r < MCR_ROLE_COUNT; r++)
		if (name && strcmp(name, mcr_role_name((enum mcr_role)r)) == 0)
			return (enum mcr_role)r;
	return MCR_ROLE_NONE;
}

const char *mcr_engine_name(enum mcr_engine engine)
{
	switch (engine) {
	case MCR_ENGINE_SGLANG:
		return "sglang";
	case MCR_ENGINE_VLLM:
		return "vllm";
	case MCR_ENGINE_TRTLLM:
		return "trtllm";
	default:
		return "other";
	}
}
