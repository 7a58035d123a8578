/*
 * master_advice.c - what to do when the master step could not even run
 * mooncake_master, one explanation per failure. The step's log tells how:
 *   slurmstepd: error: execve(): mooncake_master: No such file or directory
 * on the host (a bare name is looked up on the step's PATH there, which
 * srun cannot see beforehand; with --export=NONE the steps get no PATH
 * from the submitting shell), or, inside the recipe's container, env(1)'s
 * "env: 'mooncake_master': No such file or directory" (Slurm's OCI
 * --container runs /usr/bin/env NAME), slurmstepd's execve() line after
 * pyxis entered the image, or the runtime's "executable file not found".
 * The starter adds the fix to its error message.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "plugin.h"

/* the tail shows that the program could not be run inside a container */
static bool not_run_in_container(const char *tail)
{
	return (strstr(tail, "env: '") && strstr(tail, "': No such file")) ||
	       strstr(tail, "not found in $PATH") || strstr(tail, "command not found") ||
	       strstr(tail, "executable file") || strstr(tail, "execve(): ");
}

static void on_the_host(const char *tail, const char *master, const char *node, char *out,
			size_t size)
{
	const char *line = strstr(tail, "execve(): ");
	const char *end, *why;
	char name[256];
	size_t len;
	bool configured; /* the name is master= (not the recipe's command) */

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

void mcp_master_advice(const struct mcp_container *c, const char *tail, const char *master,
		       const char *node, char *out, size_t size)
{
	if (!size)
		return;
	out[0] = '\0';
	if (!tail)
		return;
	if (!c || c->mode == MCP_CONTAINER_NONE) {
		on_the_host(tail, master, node, out, size);
		return;
	}
	if (not_run_in_container(tail))
		snprintf(out, size,
			 " The master step ran in the container %s (%s) on %s, and %s could not be run there: install the Mooncake wheel in the image (pip install mooncake-transfer-engine, which puts mooncake_master on its PATH), or name the binary's path inside the container with master= in plugstack.conf; container=none runs the host's mooncake_master instead.",
			 c->value, c->mode == MCP_CONTAINER_OCI ? "Slurm's --container" : "pyxis",
			 node, master);
}
