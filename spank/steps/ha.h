/*
 * ha.h - an HA pool (plugstack ha=etcd, ha.c): the job's masters in
 * Mooncake's HA mode on its first nodes, each with an etcd member of the
 * job's own; srun's plan and probes, and a master step's etcd member and
 * watch.
 */
#ifndef MCP_HA_H_
#define MCP_HA_H_

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "container/container.h"
#include "jobdir/jobdir.h"
#include "mooncake_recipe.h"
#include "plugstack/plugstack.h"
#include "steps/election.h"

/* One node's part of an HA pool, in its master step's task: the pool, the
 * member this node is, and its etcd member when it runs one */
struct mcp_ha_part {
	struct mcri_ha ha;       /* ha.masters 0: not an HA pool */
	int self;                /* this node's member, 0..ha.masters-1 */
	char token[64];          /* the etcd cluster's: mooncake-<job>-<attempt> */
	char etcd[PATH_MAX];     /* the etcd binary (etcd= of plugstack.conf) */
	char data_dir[PATH_MAX]; /* the member's data, on the node's local disk ("" none) */
	long long quota;         /* the most it may keep, bytes (etcd_quota=) */
	pid_t pid;               /* the running etcd member (0 none) */
	int restarts;            /* how often it was started again (restart= at most) */
};
/* MCP_HA_VAR's value for the pool `ha` of election attempt `attempt` of
 * job `job_id` (heap; NULL out of memory). */
char *mcp_ha_value(const struct mcri_ha *ha, int attempt, const char *job_id);
/* ... into p, for the task on `node` (SLURMD_NODENAME): MCR_EINVAL when
 * it is not srun's, MCR_ESTATE when the node is none of the pool's. */
int mcp_ha_parse(const char *value, const char *node, struct mcp_ha_part *p, struct mcr_error *err);
/* The flags of Mooncake's HA mode after the master's argv (*argv grown):
 * --enable_ha=true --ha_backend_type=etcd --ha_backend_connstring=<the
 * etcd members> --enable_oplog=true --tryfromenv=rpc_address (each task
 * sets FLAGS_rpc_address to its node's address). */
int mcp_ha_master_args(const struct mcri_ha *ha, char ***argv, struct mcr_error *err);
/* Start this node's etcd member (as the user, in its keeper), its data
 * in a new directory under `tmp` (the job's TMPDIR, else /tmp), or the
 * one it had when it is started again; its output in the job's directory
 * (mooncake_etcd.<k>.log); p->pid. Its two ports must listen within
 * `bound` seconds, each its own socket: MCR_ESTATE when one is another
 * process's (stopped then, data removed). */
int mcp_ha_etcd_start(struct mcp_ha_part *p, const char *job_dir, const char *tmp, int bound, struct mcr_error *err);
/* Stop it (SIGKILL: nothing of it needs a clean stop), with `data` its
 * data removed. */
void mcp_ha_etcd_stop(struct mcp_ha_part *p, bool data);

/* ---- srun's side ---------------------------------------------------- */
/* The plan of the starter of a new attempt with ha=etcd (st->job_id and
 * its infra node set): the job's first `got` nodes (at most 3), 2 or more
 * of them, become an HA pool's masters (a one-node job: one master, said
 * with -v), its masters on the host (c: none, said); MCR_EINVAL for a
 * recipe whose clients cannot use one (mcr_recipe_ha_check); nothing
 * without ha=etcd. The pool's nodes as srun's --nodelist ("n1,n2,n3"). */
int mcp_ha_plan(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe, const struct mcri_ha_member *nodes,
		int got, struct mcri_state *st, struct mcp_container *c, struct mcr_error *err);
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
int mcp_ha_etcd_sound(const struct mcp_ha_part *p, int rpc, bool *full, bool *names_self, char *why, size_t size);

#endif /* MCP_HA_H_ */
