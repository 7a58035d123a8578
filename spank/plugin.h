/*
 * plugin.h - what the files of spank_mooncake.so share.
 *
 * One dispatcher (dispatch.c) calls one function per context and callback:
 *   mcp_alloc_*  sbatch/salloc (alloc.c)
 *   mcp_srun_*   srun, the local context (srun.c, master.c)
 *   mcp_stepd_*  slurmstepd, the remote context (slurmstepd.c)
 * Each process keeps one struct mcp_context for the life of its plugin
 * stack (a SPANK plugin has no other place for state between callbacks); it
 * is freed and zeroed in slurm_spank_exit.
 */
#ifndef MCP_PLUGIN_H_
#define MCP_PLUGIN_H_

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <slurm/spank.h>

#include "mooncake_recipe.h"
#include "sys/sys.h"

#define MCP_NAME "mooncake"
/* srun hands its tasks the absolute path of the recipe it checked (a task
 * may run in another directory: --chdir, a script's cd); SLURM_ so that it
 * survives --export=NONE; each task removes it from its environment. */
#define MCP_RECIPE_PATH_VAR "SLURM_MOONCAKE_RECIPE_PATH"

/* plugstack.conf arguments (key=value), see doc/spank_mooncake.8 */
struct mcp_config {
	char master[PATH_MAX];   /* master=      binary run on the infra node */
	char srun[PATH_MAX];     /* srun=        binary that launches the master step */
	char job_dir[PATH_MAX];  /* job_dir=     template of the job's directory */
	int ready_timeout;       /* ready_timeout= seconds to wait for the master */
	char interface[64];      /* interface=   NIC for MOONCAKE_LOCAL_HOSTNAME */
	char sampler[PATH_MAX];  /* sampler=     mooncake-recipe, run as the pool's sampler step */
	int pool_interval;       /* pool_interval= seconds between samples, 0: no sampler */
};

struct mcp_context {
	struct mcp_config config;
	bool config_ok;
	struct mcr_error config_error; /* deferred to task_init in slurmstepd */
	char *recipe_arg;           /* --mooncake-recipe as given */
	char *role_arg;             /* --mooncake-role as given */
	struct mcr_recipe *recipe;  /* loaded in init_post_opt (srun, sbatch) */
	enum mcr_role role;
	bool active;                /* this srun step has a role and a recipe */
	bool prepared;              /* srun: the job's files and master are done */
	uint32_t prepared_job;      /* ... for this job (from the environment) */
};

extern struct mcp_context mcp_ctx;

/* args.c */
int mcp_register_options(spank_t sp);
int mcp_parse_config(struct mcp_config *config, int ac, char **av,
		     struct mcr_error *err);
/* True when the recipe reached this process from sbatch/salloc (the
 * SLURM_SPANK_ copy of the option in the environment) rather than from the
 * command line. `getenv_fn` reads the environment of the context. */
bool mcp_recipe_inherited(const char *recipe_arg,
			  const char *(*getenv_fn)(void *, const char *, char *, size_t),
			  void *arg);
/* --mooncake-role given without a recipe: -1 with a message, else 0. */
int mcp_role_without_recipe(void);
void mcp_context_free(void);

/* common.c: what several contexts do the same way */
/* Print err with slurm_error (mcr_error_format). */
void mcp_error(const struct mcr_error *err);
/* Load and validate the recipe (as the calling user) and decide the role
 * (mcr_recipe_resolve_role). */
int mcp_load(const char *recipe_arg, const char *role_arg, bool inherited,
	     struct mcr_recipe **recipe, enum mcr_role *role,
	     struct mcr_error *err);
/* The job's Mooncake directory: output.log_dir of the recipe, else the
 * job_dir= template; placeholders expanded, relative to submit_dir (the
 * current directory when NULL or empty). */
char *mcp_job_dir(const struct mcp_config *config,
		  const struct mcr_recipe *recipe, const char *job_id,
		  uid_t uid, const char *submit_dir, struct mcr_error *err);

/* The state file of the job's master (<job dir>/mooncake_master.json). */
struct mcp_master_state {
	char state[16];        /* "starting", "ready", "failed" */
	int attempt;           /* the attempt (lock number) this state is about */
	char infra_node[256];
	char infra_addr[64];
	char token[64];
	char message[MCR_ERROR_TEXT_LENGTH]; /* why it failed (a struct mcr_error text) */
	char starter_host[256];
	long starter_pid;
	long srun_pid;
	long long started_at, ready_at;
};
#define MCP_STATE_FILE "mooncake_master.json"
#define MCP_LOCK_FILE "mooncake_master.%d.lock" /* per attempt */
#define MCP_MAX_ATTEMPTS 100
#define MCP_LOG_FILE "mooncake_master.log"
int mcp_state_read(const char *dir, struct mcp_master_state *st,
		   struct mcr_error *err);
int mcp_state_write(const char *dir, const struct mcp_master_state *st,
		    struct mcr_error *err);

/* alloc.c */
int mcp_alloc_post_opt(spank_t sp);

/* srun.c */
int mcp_srun_post_opt(spank_t sp);
int mcp_srun_user_init(spank_t sp);

/* master.c: make sure the job's master runs (srun, local_user_init) */
struct mcp_job {
	const char *job_id;
	const char *dir;        /* the job's Mooncake directory */
	const char *infra_node; /* first node of the job */
	const char *infra_addr; /* its IPv4 address */
};
int mcp_ensure_master(const struct mcp_config *config,
		      const struct mcr_recipe *recipe, const struct mcp_job *job,
		      struct mcr_error *err);
/* master_advice.c: the fix for a master step whose mooncake_master could
 * not be run (slurmstepd's "execve(): NAME: No such file or directory" in
 * the log `tail`): " NAME is not on the PATH ... master=/path/to/NAME ...",
 * or "" when the tail shows no such failure. `master` is master=. */
void mcp_master_exec_advice(const char *tail, const char *master,
			    const char *node, char *out, size_t size);

/* spawn.c: the job steps the plugin starts (the master, the sampler) */
/* environ minus what such a step must not inherit (the plugin's options,
 * the job's time limit and GPU requests, MC_RPC_PROTOCOL), plus `extra`;
 * NULL-terminated, mcr_strv_free. */
char **mcp_step_env(const struct mcr_env *extra, struct mcr_error *err);
/* srun --jobid=J --overlap -N1 -n1 ... --job-name=NAME -w <infra>
 * --output=LOG --chdir=<dir> CMD... (mcr_strv_free) */
char **mcp_step_argv(const struct mcp_config *config, const struct mcp_job *job,
		     const char *name, const char *log, char *const *cmd,
		     struct mcr_error *err);
/* posix_spawnp argv[0] detached: own session, default signals and an
 * empty mask, stdin /dev/null, stdout and stderr appended to `log`, no
 * other descriptor. 0, or the error number. */
int mcp_spawn_detached(char *const argv[], char *const env[], const char *log,
		       pid_t *pid);

/* sampler.c: start the pool's sampler step (after the master is ready);
 * 0, or -1 with err set and printed as a warning (never an error of srun);
 * nothing with pool_interval=0. */
int mcp_start_sampler(const struct mcp_config *config, const struct mcp_job *job,
		      struct mcr_error *err);

/* workers.c: a task of a step with a master the plugin started records
 * its node, role and MOONCAKE_LOCAL_HOSTNAME (from `env`) in
 * <dir>/workers/ (task_init); a warning on the task's stderr when it
 * cannot. */
void mcp_record_worker(spank_t sp, const struct mcr_recipe *recipe,
		       const char *dir, enum mcr_role role, const struct mcr_env *env);

/* slurmstepd.c */
int mcp_stepd_init(spank_t sp, int ac, char **av);
int mcp_stepd_task_init(spank_t sp);

/* slurm_query.c: what only slurmctld knows (srun context). */
int mcp_job_nodes(uint32_t job_id, char **nodelist, struct mcr_error *err);
int mcp_node_address(const char *node, char *addr, size_t size,
		     struct mcr_error *err);

/* net.c */
/* IPv4 of `host` (a name or a dotted quad). */
int mcp_resolve_ipv4(const char *host, char *addr, size_t size,
		     struct mcr_error *err);
/* This host's address for MOONCAKE_LOCAL_HOSTNAME: the IPv4 of `iface`
 * when given, else the source address of the route toward `peer`. */
int mcp_local_address(const char *iface, const char *peer, char *addr,
		      size_t size, struct mcr_error *err);

#endif /* MCP_PLUGIN_H_ */
