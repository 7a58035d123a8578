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

bool mcri_env_name_valid(const char *name)
{
	if (!((*name >= 'A' && *name <= 'Z') || (*name >= 'a' && *name <= 'z') || *name == '_'))
		return false;
	for (const char *p = name + 1; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

const char *mcri_env_value_problem(const char *name, const char *value)
{
	size_t len = strlen(value);

	for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
		if (*p == '\n')
			return "a newline";
		if (*p == '\r')
			return "a carriage return";
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return "a control character";
	}
	if (strlen(name) + 1 + len > MCRI_ENV_STRING_MAX)
		return "more bytes than execve() passes";
	return NULL;
}
