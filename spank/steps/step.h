/*
 * step.h - the job steps the plugin starts (step.c): how each is launched
 * (the one srun --overlap command line), the master step's command line,
 * its readiness probes and its stop, and the pool's sampler step.
 */
#ifndef MCP_STEP_H_
#define MCP_STEP_H_

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "container/container.h"
#include "mooncake_recipe.h"
#include "plugstack/plugstack.h"
#include "steps/election.h"

/* ---- the one launcher of the job steps the plugin starts ------------- */

/* where such a step runs: the job, its Mooncake directory, the infra node */
struct mcp_step_place {
	const char *job_id;
	const char *dir;
	const char *node; /* or an HA pool's nodes, "n1,n2,n3" */
	bool het;         /* a heterogeneous job seen from outside its
			       * allocation: the step goes to component 0 */
	int nodes;        /* how many nodes, a task each (0: 1) */
};
/* what it is (step.c: the master; step.c: the pool's sampler) */
struct mcp_step {
	const char *name;                      /* --job-name (squeue --steps) */
	const char *log;                       /* its output; truncated first */
	char *const *cmd;                      /* what it runs */
	const struct mcr_env *env;             /* variables it gets, or NULL */
	const struct mcp_container *container; /* where: NULL (or mode NONE) the host */
};
/* Start the step: srun --jobid=J --overlap -N1 -n1 ... --job-name=NAME -w
 * <infra> --output=LOG --chdir=<dir> [the container's options] CMD...,
 * detached (mcp_spawn), with this process's environment minus what no
 * step inherits (mcp_step_inherits) plus `env`. Every step the plugin
 * starts goes through here: it runs where `container` says and nowhere
 * else. 0, or -1 with err. */
int mcp_step_start(const struct mcri_plugstack *ps, const struct mcp_step_place *at, const struct mcp_step *step,
		   pid_t *pid, struct mcr_error *err);
/* false for what a step must not inherit from the srun that starts it:
 * the plugin's own options and handovers, the job's time limit and GPU
 * requests, MC_RPC_PROTOCOL, and every container option of that srun
 * (pyxis's _SLURM_SPANK_OPTION_pyxis_*, SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_*
 * and PYXIS_CONTAINER_*, Slurm's SRUN_CONTAINER* and SLURM_CONTAINER*,
 * enroot's ENROOT_*). `var` is NAME=VALUE. */
bool mcp_step_inherits(const char *var);
/* environ, filtered so, plus `extra` (NULL: none); NULL-terminated,
 * mcr_strv_free. */
char **mcp_step_env(const struct mcr_env *extra, struct mcr_error *err);
/* the step's srun command line (mcr_strv_free) */
char **mcp_step_argv(const struct mcri_plugstack *ps, const struct mcp_step_place *at, const char *name,
		     const char *log, char *const *options, char *const *cmd, struct mcr_error *err);

#define MCP_PROBE_TIMEOUT_MS 1000

/* The last lines of the master's log, indented, for messages (noise
 * dropped, each line cut at 200 characters). */
void mcp_log_tail(const char *path, char *out, size_t size);
/* "exit status 1", "signal 9 (Killed)" */
void mcp_describe_status(int status, char *buf, size_t size);

/* Is the master at addr ready? TCP on the RPC port; with `health`, GET
 * /health on the metadata and metrics ports; with `token`, the metadata
 * server must hold it at key_path. What it is not goes to why. */
enum mcp_probe mcp_probe_master(const char *addr, const struct mcr_ports *ports, const char *key_path,
				const char *token, bool health, char *why, size_t why_size);
/* The first of the ports that accepts a connection at addr, or 0. */
int mcp_busy_port(const char *addr, const struct mcr_ports *ports);

/* Launch the master step (mcp_step_start: its own session, output to
 * `log`, truncated): the recipe's argv on `ports`, in `container` (NULL:
 * on the host); with `claim`, the step's task claims them on the infra
 * node first (MCP_PORTS_VAR); with `guard` (MCP_GUARD_VAR's value), its
 * guard proves them the master's (keep.c). With `ha` (MCP_HA_VAR's
 * value, ha.c), the masters of an HA pool, a task on each of
 * at->nodes nodes, in Mooncake's HA mode (and their etcd ports claimed
 * too). */
int mcp_spawn_master(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe,
		     const struct mcp_container *container, const struct mcp_step_place *at,
		     const struct mcri_state *st, bool claim, const char *guard, const char *ha, const char *log,
		     pid_t *pid, struct mcr_error *err);

/* SIGTERM the master step's srun (it forwards it), SIGKILL after 10 s.
 * `ours`: our child, reaped. */
void mcp_stop_step(pid_t pid, bool ours);

/* ---- what each step is handed: its guard (read back in its task) ---- */

struct mcp_guard; /* keep.h */
/* MCP_GUARD_VAR's value for the master step of `attempt` on `ports`, its
 * guard watching at most `bound` seconds, its master started again at most
 * `restart` times, its proof into `dir` (heap). */
char *mcp_guard_value(int attempt, int bound, int restart, const struct mcr_ports *ports, const char *dir);
/* MCP_GUARD_VAR's `value` for step `step` into g, the master being this
 * process (as the user, about to exec it); MCR_EINVAL when it is not
 * srun's. */
int mcp_guard_parse(const char *value, unsigned long step, struct mcp_guard *g, struct mcr_error *err);
/* MCP_LENDER_VAR's value (heap): the keeper's guard for lender `what` on
 * `subject`'s records, attempt, bound, restart=, hang_timeout=, its port
 * (0: none), the job's directory, and what proves it ready: a store's
 * segment at the master's metrics "host:port", a donor's ready file. */
char *mcp_lender_guard_value(int kind, int attempt, int bound, int restart, int hang, int port, const char *dir,
			     const char *subject, const char *what, const char *segment, const char *master,
			     const char *ready);
/* ... back into g (for step `step`, the keeper being this process);
 * MCR_EINVAL when it is not srun's */
int mcp_lender_guard_parse(const char *value, unsigned long step, struct mcp_guard *g, struct mcr_error *err);

/* ---- the pool's sampler ---------------------------------------------- */
/* Start the pool's sampler step (after the master is ready), on the
 * infra node's host, never in a container; 0, or -1 with err set and
 * printed as a warning (never an error of srun); nothing with
 * pool_interval=0. */
int mcp_start_sampler(const struct mcri_plugstack *ps, const struct mcp_step_place *at, struct mcr_error *err);

#endif /* MCP_STEP_H_ */
