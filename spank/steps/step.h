/*
 * master.h - what master.c (the driver of the election), master_step.c
 * (the master step: command line, log, stop) and master_probe.c (its
 * readiness probes) share.
 */
#ifndef MCP_MASTER_H_
#define MCP_MASTER_H_

#include "steps/election.h"
#include "plugin/plugin.h"

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
 * guard proves them the master's (guard.c). With `ha` (MCP_HA_VAR's
 * value, master_ha.c), the masters of an HA pool, a task on each of
 * at->nodes nodes, in Mooncake's HA mode (and their etcd ports claimed
 * too). */
int mcp_spawn_master(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe,
		     const struct mcp_container *container, const struct mcp_step_place *at,
		     const struct mcri_state *st, bool claim, const char *guard, const char *ha,
		     const char *log, pid_t *pid, struct mcr_error *err);

/* master_ha.c, srun's side of an HA pool (st->ha). The plan of the
 * starter of a new attempt (st->job_id set): the job's first `got` nodes
 * (at most 3) become st's infra node and, with ha=etcd and 2 or more of
 * them, an HA pool's masters (a one-node job: one master, said with -v),
 * its masters on the host (c: none, said); MCR_EINVAL for a recipe whose
 * clients cannot use one (mcr_recipe_ha_check). The pool's nodes as
 * srun's --nodelist ("n1,n2,n3"). */
int mcp_ha_plan(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe,
		const struct mcri_ha_member *nodes, int got, struct mcri_state *st,
		struct mcp_container *c, struct mcr_error *err);
int mcp_ha_nodelist(const struct mcri_ha *ha, char *buf, size_t size);
/* The first port of a
 * member's that accepts a connection (its master's or its etcd's), or 0;
 * is it ready: a leader serves (its RPC port accepts), and with `every`
 * every master answers (the pool's start). REFUSED while none leads (a
 * failover), NO_ANSWER when none answers; why says what it saw. */
int mcp_ha_busy_port(const struct mcri_state *st);
enum mcp_probe mcp_probe_ha(const struct mcri_state *st, bool every, char *why, size_t size);
/* slurmstepd, a master's keeper: what the HA pool's etcd (read from this
 * node's member p->self, else the first) holds still steers the clients to
 * the pool's own: every master_view names one of its masters on port
 * `rpc`, every member's peer URL one of its etcd members (Mooncake cannot
 * authenticate to etcd: another user who reaches it can write both), and
 * no answer is larger than a pool's etcd gives. 1 sound; 0 not, with what
 * it holds in why; -1 it did not answer. *names_self: a view names this
 * node's master (which must then lead: the keeper checks). The first
 * NOSPACE alarm seen (*full) is said on stderr. */
int mcp_ha_etcd_sound(const struct mcp_ha_part *p, int rpc, bool *full, bool *names_self, char *why,
		      size_t size);
/* SIGTERM the master step's srun (it forwards it), SIGKILL after 10 s.
 * `ours`: our child, reaped. */
void mcp_stop_step(pid_t pid, bool ours);

#endif /* MCP_MASTER_H_ */
