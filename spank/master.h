/*
 * master.h - what master.c (the driver of the election) and master_step.c
 * (the master step: command line, probes, log, stop) share.
 */
#ifndef MCP_MASTER_H_
#define MCP_MASTER_H_

#include "election.h"
#include "plugin.h"

#define MCP_PROBE_TIMEOUT_MS 1000

/* The last lines of the master's log, indented, for messages (noise
 * dropped, each line cut at 200 characters). */
void mcp_log_tail(const char *path, char *out, size_t size);
/* "exit status 1", "signal 9 (Killed)" */
void mcp_describe_status(int status, char *buf, size_t size);

/* Is the master at addr ready? TCP on the RPC port; with `health`, GET
 * /health on the metadata and metrics ports; with `token`, the metadata
 * server must hold it at key_path. What it is not goes to why. */
enum mcp_probe mcp_probe_master(const char *addr, const struct mcr_ports *ports,
				const char *key_path, const char *token, bool health,
				char *why, size_t why_size);
/* The first of the ports that accepts a connection at addr, or 0. */
int mcp_busy_port(const char *addr, const struct mcr_ports *ports);

/* Launch the master step (mcp_step_start: its own session, output to
 * `log`, truncated): the recipe's argv on `ports`, in `container` (NULL:
 * on the host); with `claim`, the step's task claims them on the infra
 * node first (MCP_PORTS_VAR); with `guard` (MCP_GUARD_VAR's value), its
 * guard proves them the master's (guard.c). */
int mcp_spawn_master(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe,
		     const struct mcp_container *container, const struct mcp_step_place *at,
		     const struct mcr_ports *ports, bool claim, const char *guard, const char *log,
		     pid_t *pid, struct mcr_error *err);
/* SIGTERM the master step's srun (it forwards it), SIGKILL after 10 s.
 * `ours`: our child, reaped. */
void mcp_stop_step(pid_t pid, bool ours);

#endif /* MCP_MASTER_H_ */
