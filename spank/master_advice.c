/*
 * master_advice.c - what to do when the master step could not even run
 * mooncake_master. slurmstepd on the infra node reports it in the master's
 * log as
 *   slurmstepd: error: execve(): mooncake_master: No such file or directory
 * (a bare name is looked up on the step's PATH there, which srun cannot
 * see beforehand; with --export=NONE the steps get no PATH from the
 * submitting shell).
 * The starter adds the fix to its error message.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "plugin.h"

void mcp_master_exec_advice(const char *tail, const char *master,
			    const char *node, char *out, size_t size)
{
	const char *line = tail ? strstr(tail, "execve(): ") : NULL;
	const char *end, *why;
	char name[256];
	size_t len;
	bool configured; /* the name is master= (not the recipe's command) */

	if (!size)
		return;
	out[0] = '\0';
	if (!line)
		return;
	line += strlen("execve(): ");
	end = strstr(line, ": ");
	if (!end || (len = (size_t)(end - line)) == 0 || len >= sizeof(name) ||
	    memchr(line, '\n', len))
		return;
	memcpy(name, line, len);
	name[len] = '\0';
	why = end + 2;
	configured = master && strcmp(master, name) == 0;
	if (strncmp(why, "No such file", 12) == 0 && !strchr(name, '/'))
		snprintf(out, size,
			 " %s is not on the PATH of the master step on %s (with --export=NONE, the job's steps get no PATH from the submitting shell). Name it with an absolute path (%s%s), or run the job with its directory on PATH and without --export=NONE.",
			 name, node,
			 configured ? "in plugstack.conf, master=/path/to/" : "in the command of the recipe's mooncake-master service",
			 configured ? name : "");
	else if (strncmp(why, "No such file", 12) == 0)
		snprintf(out, size,
			 " %s does not exist on %s: install mooncake_master there (the Mooncake wheel), or correct %s.",
			 name, node,
			 configured ? "master= in plugstack.conf" : "the command of the recipe's mooncake-master service");
	else if (strncmp(why, "Permission denied", 17) == 0)
		snprintf(out, size,
			 " %s on %s cannot be run by the job's user (Permission denied): check its mode and its directories'.",
			 name, node);
}
