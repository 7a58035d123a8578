/*
 * keep.h - the keeper (keep.c): the task of a step the plugin starts
 * (the master's, a lender's) stays to keep its program running: its
 * guard proves the program's ports its own, the keeper restarts it
 * (restart=, hang_timeout=) and records its end.
 */
#ifndef MCP_KEEP_H_
#define MCP_KEEP_H_

#include <limits.h>
#include <stdbool.h>

#include <slurm/spank.h>

#include "jobdir/jobdir.h"
#include "mooncake_recipe.h"
#include "plugstack/plugstack.h"
#include "steps/ha.h"

/* ---- the guard: the step proves its ports are its program's ---------- */

/* what the master step's guard knows: its proof so far (attempt, ports,
 * the master's pid, start and step, restart= as restart_limit; an HA
 * pool's member), where to write it, and how long to watch (seconds);
 * for an HA pool, this node's part of it (its keeper runs the etcd
 * member) */
/* a memory lender's keeper (keep.c): the lender step's task keeps
 * its store or donor as the master step's keeps the master */
struct mcp_guard_lender {
	bool on;                            /* false: the master's keeper */
	int kind;                           /* enum mcri_lender_kind */
	char subject[MCRI_SUBJECT_MAX + 1]; /* its records (runtime/jobdir) */
	char what[160];                     /* "the store service mooncake-store" */
	char segment[256];                  /* a store's segment name */
	char master[300];                   /* the master's metrics "host:port" */
	char ready[PATH_MAX];               /* a donor's ready file, in dir */
	double looked;                      /* the master's segments last read */
	/* a store announced by P2PHANDSHAKE (segment "<host>:*"): Mooncake
	 * names its segment, the new one of its host is its; those of the
	 * host before it started, and the one found */
	char before[32][128];
	int nbefore;
	char found[256];
	struct mcri_worker record; /* its record in workers/ (status) */
};
struct mcp_guard {
	struct mcri_proof proof;
	char dir[PATH_MAX];
	int bound;
	struct mcp_ha_part ha;
	unsigned no_diag; /* families without socket diagnostics (mcri_listening) */
	int hang;         /* seconds a proved master may answer no probe (0: never asked) */
	/* a plugin after this one may put the master into a container it
	 * starts once per step (pyxis, after this plugin in plugstack.conf):
	 * the keeper is not in one, nor is the step Slurm's --container */
	bool rejoin;
	struct mcp_guard_lender lender;
};
/* One look at the sockets on p's ports: NONE (not all three listen yet),
 * OWN (each in the tree of p->pid) or FOREIGN (foreign_port, foreign_uid).
 * no_diag: mcri_listening's memory (the guard's). */
enum mcri_proof_verdict mcp_guard_look(struct mcri_proof *p, unsigned *no_diag);
/* Write g's proof into the job's directory; a failure is a line on stderr. */
int mcp_guard_record(const struct mcp_guard *g);
/* The keeper's look at what it keeps: the master's sockets
 * (mcp_guard_look), or a lender's (keep.c) */
enum mcri_proof_verdict mcp_guard_prove(struct mcp_guard *g);
/* What the keeper calls what it keeps in messages: "mooncake_master",
 * "the store service mooncake-store" */
const char *mcp_guard_what(const struct mcp_guard *g);

/* ---- the keeper: the step keeps its program running ----------------- */

/* In the master step's task: fork. The child returns 0 and becomes
 * mooncake_master (killed when this process dies); this process stays as
 * the task, its keeper: it proves the master's ports (as the guard's
 * look, mcp_guard_look), records it, asks it every few seconds whether it
 * answers (g->hang), starts it again when it dies or hangs after it was
 * proved ready (at most g->proof.restart_limit times, 1-16 s apart), and
 * leaves with the master's status when Slurm ends the step or the limit
 * is reached, its proof saying the pool has ended: it never returns. -1
 * with err when it cannot fork at all. With g->rejoin, a proved master
 * that runs in a container the keeper is not in (pyxis entered it in the
 * child, after this plugin's task_init) is started again in that
 * container: its namespaces, working directory, limits, environment and
 * command line, taken from the first master (the plugin that made it
 * refuses to start a second one in the step). */
int mcp_master_keep(struct mcp_guard *g, struct mcr_error *err);

/* ---- a lender's keeper ---------------------------------------------- */

/* One look (mcp_guard_prove): NONE while not ready; OWN once its port (a
 * store's) listens in the keeper's tree and its segment is mounted at the
 * master, or a donor's ready file is there; FOREIGN when another process
 * holds the port. */
enum mcri_proof_verdict mcp_lender_look(struct mcp_guard *g);
/* The keeper's probe of a running lender (hang_timeout=): a store's
 * segment is still mounted at the master; a donor: always. */
bool mcp_lender_answers(struct mcp_guard *g, char *why, size_t size);
/* Before each start: a donor's ready file of an earlier start removed. */
void mcp_lender_before_start(struct mcp_guard *g);
/* slurmstepd, task_init of a lender step: the guard, the keeper
 * (keep.c's mcp_master_keep; `rejoin` as its g->rejoin: a lender a
 * later plugin puts in a container is started again in it); returns 0 in
 * the child that becomes the lender, never in the keeper. */
int mcp_lender_task(spank_t sp, const char *value, const struct mcri_plugstack *ps, uint32_t step, bool rejoin,
		    struct mcr_error *err);
/* task_init_privileged of a lender step: its port claimed in root's
 * registry of the node (ports.c) */
int mcp_lender_task_privileged(spank_t sp, const char *value, const struct mcri_plugstack *ps, struct mcr_error *err);
/* task_exit (a child that is the job's user): the keeper has ended, its
 * proof says so */
int mcp_lender_record_end(const char *value, uint32_t step);

#endif /* MCP_KEEP_H_ */
