/*
 * plugin.h - what the files of spank_mooncake.so share.
 *
 * One dispatcher (dispatch.c) calls one function per context and callback,
 * and each context keeps its state private to its file, from its init to
 * its exit (pyxis's shape):
 *   mcp_alloc_*  sbatch, salloc (alloc.c)
 *   mcp_srun_*   srun, the local context (srun.c; the master: master.c)
 *   mcp_stepd_*  slurmstepd, the remote context (slurmstepd.c)
 * options.c holds the command-line options and the plugstack arguments.
 */
#ifndef MCP_PLUGIN_H_
#define MCP_PLUGIN_H_

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <slurm/spank.h>

#include "jobdir/jobdir.h"
#include "mooncake_recipe.h"
#include "net/net.h"
#include "plugstack/plugstack.h"
#include "sys/sys.h"

#define MCP_NAME "mooncake"

/* What srun hands its tasks (handover.c): SLURM_ so that it survives
 * --export=NONE; each task removes it from its environment. */
#define MCP_TASK_VAR "SLURM_MOONCAKE_TASK"
/* What srun hands the master step: its ports, to claim on the infra node
 * (ports.c), "rpc,metadata,metrics"; and what its guard needs (guard.c). */
#define MCP_PORTS_VAR "SLURM_MOONCAKE_MASTER_PORTS"
#define MCP_GUARD_VAR "SLURM_MOONCAKE_MASTER_GUARD"
/* ... and, for an HA pool (ha=etcd), its masters and etcd (master_ha.c) */
#define MCP_HA_VAR "SLURM_MOONCAKE_HA"

/* ---- options.c ------------------------------------------------------ */

/* Register --mooncake-recipe and --mooncake-role in any context. */
int mcp_options_register(spank_t sp);
/* Their values (NULL when not given); the strings live until
 * mcp_options_free(), called by each context's exit. */
const char *mcp_option_recipe(void);
const char *mcp_option_role(void);
void mcp_options_free(void);
/* True when the recipe reached this process from sbatch/salloc (the
 * SLURM_SPANK_ copy of the option in the environment) rather than from the
 * command line. `getenv_fn` reads the environment of the context. */
bool mcp_recipe_inherited(const char *recipe_arg,
			  const char *(*getenv_fn)(void *, const char *, char *, size_t),
			  void *arg);
/* --mooncake-role given without a recipe: -1 with a message, else 0. */
int mcp_role_without_recipe(void);

/* ---- common.c: what several contexts do the same way ---------------- */

/* Print err with slurm_error (mcr_error_format). */
void mcp_error(const struct mcr_error *err);
/* A pointer declared MCP_AUTOFREE is freed when it goes out of scope
 * (mcp_freep(&p) is free(p)). */
#define MCP_AUTOFREE __attribute__((cleanup(mcp_freep)))
void mcp_freep(void *pointer_to_pointer);
/* Load and validate the recipe (as the calling user), print its warnings,
 * and decide the role (mcr_recipe_resolve_role). */
int mcp_load(const char *recipe_arg, const char *role_arg, bool inherited,
	     struct mcr_recipe **recipe, enum mcr_role *role,
	     struct mcr_error *err);
/* The job's Mooncake directory: output.log_dir of the recipe, else the
 * job_dir= template; placeholders expanded, relative to submit_dir (the
 * current directory when NULL or empty). Heap string, or NULL. */
char *mcp_job_dir(const struct mcri_plugstack *ps,
		  const struct mcr_recipe *recipe, const char *job_id,
		  uid_t uid, const char *submit_dir, struct mcr_error *err);

/* the election's attempts (mooncake_master.<n>.lock) a job may use */
#define MCP_MAX_ATTEMPTS 100

/* The coverage build (make coverage, -DMCP_COVERAGE) counts what a forked
 * process of the plugin ran before it _exits (the guard, the keeper);
 * nothing in any other build. */
#ifdef MCP_COVERAGE
void __gcov_dump(void);
#define MCP_COVERAGE_FLUSH() __gcov_dump()
#else
#define MCP_COVERAGE_FLUSH() ((void)0)
#endif

/* ---- master_ha.c: an HA pool (ha=etcd) -------------------------------- */

/* One node's part of an HA pool, in its master step's task: the pool, the
 * member this node is, and its etcd member when it runs one */
struct mcp_ha_part {
	struct mcri_ha ha;        /* ha.masters 0: not an HA pool */
	int self;                 /* this node's member, 0..ha.masters-1 */
	char token[64];           /* the etcd cluster's: mooncake-<job>-<attempt> */
	char etcd[PATH_MAX];      /* the etcd binary (etcd= of plugstack.conf) */
	char data_dir[PATH_MAX];  /* the member's data, on the node's local disk ("" none) */
	long long quota;          /* the most it may keep, bytes (etcd_quota=) */
	pid_t pid;                /* the running etcd member (0 none) */
	int restarts;             /* how often it was started again (restart= at most) */
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
int mcp_ha_etcd_start(struct mcp_ha_part *p, const char *job_dir, const char *tmp, int bound,
		      struct mcr_error *err);
/* Stop it (SIGKILL: nothing of it needs a clean stop), with `data` its
 * data removed. */
void mcp_ha_etcd_stop(struct mcp_ha_part *p, bool data);

/* ---- guard.c: the master step proves its ports are its master's ------ */

/* what the master step's guard knows: its proof so far (attempt, ports,
 * the master's pid, start and step, restart= as restart_limit; an HA
 * pool's member), where to write it, and how long to watch (seconds);
 * for an HA pool, this node's part of it (its keeper runs the etcd
 * member) */
/* a memory lender's keeper (lender_keep.c): the lender step's task keeps
 * its store or donor as the master step's keeps the master */
struct mcp_guard_lender {
	bool on;                           /* false: the master's keeper */
	int kind;                          /* enum mcri_lender_kind */
	char subject[MCRI_SUBJECT_MAX + 1]; /* its records (runtime/jobdir) */
	char what[160];                    /* "the store service mooncake-store" */
	char segment[256];                 /* a store's segment name */
	char master[300];                  /* the master's metrics "host:port" */
	char ready[PATH_MAX];              /* a donor's ready file, in dir */
	double looked;                     /* the master's segments last read */
	/* a store announced by P2PHANDSHAKE (segment "<host>:*"): Mooncake
	 * names its segment, the new one of its host is its; those of the
	 * host before it started, and the one found */
	char before[32][128];
	int nbefore;
	char found[256];
	struct mcri_worker record;         /* its record in workers/ (status) */
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
/* MCP_GUARD_VAR's value for the master step of `attempt` on `ports`, its
 * guard watching at most `bound` seconds, its master started again at most
 * `restart` times, its proof into `dir` (heap). */
char *mcp_guard_value(int attempt, int bound, int restart, const struct mcr_ports *ports,
		      const char *dir);
/* MCP_GUARD_VAR's `value` for step `step` into g, the master being this
 * process (as the user, about to exec it); MCR_EINVAL when it is not
 * srun's. */
int mcp_guard_parse(const char *value, unsigned long step, struct mcp_guard *g,
		    struct mcr_error *err);
/* One look at the sockets on p's ports: NONE (not all three listen yet),
 * OWN (each in the tree of p->pid) or FOREIGN (foreign_port, foreign_uid).
 * no_diag: mcri_listening's memory (the guard's). */
enum mcri_proof_verdict mcp_guard_look(struct mcri_proof *p, unsigned *no_diag);
/* Write g's proof into the job's directory; a failure is a line on stderr. */
int mcp_guard_record(const struct mcp_guard *g);
/* The keeper's look at what it keeps: the master's sockets
 * (mcp_guard_look), or a lender's (lender_keep.c) */
enum mcri_proof_verdict mcp_guard_prove(struct mcp_guard *g);
/* What the keeper calls what it keeps in messages: "mooncake_master",
 * "the store service mooncake-store" */
const char *mcp_guard_what(const struct mcp_guard *g);

/* ---- master_keep.c: the master step keeps its master running ------- */

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

/* interrupt.c: srun's waits end on SIGTERM, SIGINT and SIGHUP. Watch
 * (on) from the start of a wait to its end (off): the signal srun was
 * told to stop with (still pending, or caught and passed to srun's own
 * handler), or 0. */
void mcp_interrupt_watch(bool on);
int mcp_interrupted(void);

/* common.c: a live process, or one this process may not signal
 * (kill(pid, 0)). */
bool mcp_pid_alive(long pid);
double mcp_now(void); /* seconds, monotonic */
/* Sleeps ms milliseconds, through interrupting signals. */
void mcp_sleep_ms(int ms);
/* The pause between two looks for a master becoming ready (its sockets,
 * its port), `waited` seconds into the wait: 5 ms while a master usually
 * becomes ready (the bench's floor looks as often), 25 ms after (a master
 * that takes long costs its node little). Milliseconds. */
static inline int mcp_ready_poll_ms(double waited)
{
	return waited < 5 ? 5 : 25;
}

/* ---- spawn.c: the one launcher of the job steps the plugin starts --- */

/* where such a step runs: the job, its Mooncake directory, the infra node */
struct mcp_step_place {
	const char *job_id;
	const char *dir;
	const char *node;     /* or an HA pool's nodes, "n1,n2,n3" */
	bool het;             /* a heterogeneous job seen from outside its
			       * allocation: the step goes to component 0 */
	int nodes;            /* how many nodes, a task each (0: 1) */
};
struct mcp_container; /* container.c */
/* what it is (master_step.c: the master; sampler.c: the pool's sampler) */
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
int mcp_step_start(const struct mcri_plugstack *ps, const struct mcp_step_place *at,
		   const struct mcp_step *step, pid_t *pid, struct mcr_error *err);
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
char **mcp_step_argv(const struct mcri_plugstack *ps, const struct mcp_step_place *at,
		     const char *name, const char *log, char *const *options,
		     char *const *cmd, struct mcr_error *err);

/* ---- child.c: the plugin's one posix_spawn ---------------------------- */

/* How a spawned program's output goes: stdout and stderr appended to
 * `log_fd`, or (log_fd -1) stdout to `out_fd` and stderr to /dev/null; stdin
 * is /dev/null and no other descriptor is inherited. `detached`: its own
 * session, default signals and an empty signal mask. */
struct mcp_spawn_io {
	int log_fd;  /* stdout and stderr, or -1: stdout to out_fd */
	int out_fd;
	bool detached;
};
/* posix_spawnp argv[0] so; 0, or the error number */
int mcp_spawn(char *const argv[], char *const env[], const struct mcp_spawn_io *io,
	      pid_t *pid);

/* ---- container.c: where the master runs (srun) ----------------------- */

/* what the cluster offers (container=auto) */
struct mcp_container_site {
	bool pyxis;              /* `srun --help` lists --container-image */
	bool oci;                /* oci.conf exists next to slurm.conf */
	char oci_conf[PATH_MAX]; /* where it was looked for */
};
/* where the job's master runs */
struct mcp_container {
	enum mcri_container_mode mode; /* PYXIS, OCI, or NONE: the host */
	char value[PATH_MAX];         /* the image (pyxis), the bundle's real path (OCI) */
	char note[MCR_ERROR_MESSAGE_LENGTH]; /* the line the srun that starts the
					      * master prints: the image, whence */
	bool note_verbose;            /* container=none: the note is for srun -v */
};
/* Look at the cluster: srun= --help, oci.conf next to $SLURM_CONF. */
void mcp_container_probe(const struct mcri_plugstack *ps, struct mcp_container_site *site);
/* srun's init_post_opt, before any step: where the master of `recipe`
 * runs (`site` NULL: probed when needed). -1 with a message at the recipe's value when the
 * chosen system cannot use it. */
int mcp_container_decide(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe,
			 const struct mcp_container_site *site, struct mcp_container *c,
			 struct mcr_error *err);
/* The same for the container `value` written at `where` (NULL: the
 * host), of what the messages call what[0..2] ("the master step",
 * "mooncake_master", "the infra node"; NULL: those) */
int mcp_container_decide_value(const struct mcri_plugstack *ps, const char *value,
			       const struct mcr_position *where, const char *const *what,
			       const struct mcp_container_site *site, struct mcp_container *c,
			       struct mcr_error *err);
/* A step in it (c NULL or mode NONE: the host): *options, the srun options
 * that put the step there (NULL-terminated, mcr_strv_free; NULL on the
 * host); *cmd wrapped where the system needs it. `env`, the variables srun
 * sets for the step: in pyxis, their names are its --container-env (pyxis
 * keeps srun's values of those over the image's). */
int mcp_container_options(const struct mcp_container *c, const char *dir,
			  const struct mcr_env *env, char ***options, char ***cmd,
			  struct mcr_error *err);
struct mcp_handover;
/* srun of a role step whose tasks pyxis runs in a container (pyxis's
 * --container-image or --container-name, as srun's environment holds them;
 * none: nothing): h->pyxis says which, with its --container-mounts; the
 * names of every variable the plugin sets in the tasks (h->env's and its
 * handover's) join pyxis's PYXIS_CONTAINER_ENV in srun's environment (so
 * that pyxis keeps the plugin's values over the image's), unless the user
 * gave --container-env, which then must name them (h->pyxis.missing). -1
 * out of memory. */
int mcp_pyxis_hand_over(struct mcp_handover *h, struct mcr_error *err);

/* ---- container_alias.c: srtctl's container aliases (srun) ------------ */

/* The recipe's container `value` through the srtslurm.yaml files, in order:
 * srtctl's own (SRTSLURM_CONFIG's, else srtslurm.yaml in the working directory,
 * its parent, its grandparent, if the user's or root's and no one else can
 * change it) and the cluster's (srtslurm=). When one maps it, *resolved (heap)
 * is what it maps to, and `how` says so ("'trtllm' is containers.trtllm of
 * /p/srtslurm.yaml:3:11"); else `looked` lists the files read and where none
 * was. `skipped`: "skipped F (it belongs to uid 1003 (mallory))", ... or "".
 * -1 with err (at the file): a file unreadable or not one srtctl loads. */
int mcp_container_alias(const struct mcri_plugstack *ps, const char *value, char **resolved,
			char *how, size_t how_size, char *looked, size_t looked_size,
			char *skipped, size_t skipped_size, struct mcr_error *err);

/* ---- container_task.c: a task's client config (slurmstepd) ----------- */

/* task_init of a role step: can the task read its client config `path`
 * where it runs (inside an OCI bundle: where the bundle mounts it)? -1
 * with the path and the mount to add. */
int mcp_task_config_check(spank_t sp, const char *path, struct mcr_error *err);
/* task_init of a role step, before it opens the job's directory `dir`
 * (NULL: it opens none): where pyxis (h->pyxis) or another plugin before
 * this one has put the task in a container already (`entered`), `dir`
 * must be there; where pyxis will put it in one after this plugin's
 * task_init, its --container-mounts must mount `config_dir` (the directory
 * of the client config the task reads; NULL: none) at its own path, and a
 * --container-env the user gave must name the plugin's variables. -1 with
 * what to add. PYXIS_CONTAINER_ENV is the user's again (srun named the
 * plugin's variables there for pyxis). */
int mcp_task_container_check(spank_t sp, const struct mcp_handover *h, const char *dir,
			     const char *config_dir, bool entered, struct mcr_error *err);

/* ---- sampler.c, workers.c: what `mooncake-recipe status` and the pool's
 * report read ----------------------------------------------------------- */

/* Start the pool's sampler step (after the master is ready), on the
 * infra node's host, never in a container; 0, or -1 with err set and
 * printed as a warning (never an error of srun); nothing with
 * pool_interval=0. */
int mcp_start_sampler(const struct mcri_plugstack *ps, const struct mcp_step_place *at,
		      struct mcr_error *err);
/* A task of a step of the job's own pool records its node, role and
 * MOONCAKE_LOCAL_HOSTNAME in <dir>/workers/ (task_init); a warning on the
 * task's stderr when it cannot. */
void mcp_record_worker(spank_t sp, const struct mcri_jobdir *dir, const char *role,
		       const char *address);

/* slurmstepd.c: a task that waits for what another srun starts (the
 * master, a lender: `subject` of the records, NULL the master): the
 * starter of the attempt `st` is about is gone, its lock held by no one
 * and untouched for a few seconds longer than a waiting srun would take
 * to take over (mcri_lock_seen_gone), and no srun has taken a newer
 * attempt's lock. `seen` and `looked` keep what this task saw (the lock
 * is read at most once a second). */
bool mcp_starter_gone(const struct mcri_jobdir *jd, const char *subject, const struct mcri_state *st,
		      struct mcri_lock_seen *seen, double *looked, double now);

/* ---- handover.c: what srun computes once and hands each task -------- */

/* The handover's format: a task refuses one of another (a plugin of
 * another version on srun's host). A handover with `starting` is of
 * MCP_HANDOVER_STARTING: a node whose plugin cannot wait for the master
 * refuses it (its task would start before the master is ready), and
 * reads the others as before. */
#define MCP_HANDOVER_VERSION 2
#define MCP_HANDOVER_STARTING 3

struct mcp_handover {
	struct mcr_env env;     /* the role's variables (srun's, in order); a value
				 * equal to `mark` is the node's address */
	/* what srun renders in place of the node's address, which each task
	 * fills in: random per srun, so no recipe value can be taken for it */
	char mark[48];
	char peer[64];          /* the master's host: the route toward it */
	/* a step of the job's own pool: its role and directory (workers.c) */
	char *role, *dir;
	/* vLLM device_names_by_gpu: the per-GPU file, for the task's GPUs */
	char *gpu_dir;          /* where to write it (NULL: not per GPU) */
	char *gpu_template;     /* the file's text, DEVICE_NAME for its device */
	char **gpu_names;       /* each GPU's HCA name, JSON-escaped */
	size_t gpu_count;
	/* TRT-LLM: the role's client config for one node (its name and text
	 * with `mark` for the address), which a task writes into
	 * `node_dir` and reads where its connector's own guess of the address
	 * is no use (interface=, mcp_own_name_is_loopback); NULL: never */
	char *node_dir, *node_name, *node_template;
	/* a step that joined the job's master while it started: the master
	 * address srun handed over (mcri_state_master) and its metadata
	 * server's ("host:port"), which each task waits for, in `dir`'s
	 * state, up to `starting_within` seconds from its start; NULL: the
	 * master was ready */
	char *starting, *starting_metadata;
	int starting_within;
	/* the bytes each task lends to the pool, and where the recipe sets
	 * them (mcri_role_lends); 0/NULL: nothing */
	long long lend;
	char *lend_set;
	/* the step's tasks run in pyxis's container (mcp_pyxis_hand_over) */
	struct mcp_pyxis_step {
		char *image;   /* its --container-image (or -name); NULL: no pyxis */
		char *mounts;  /* its --container-mounts; NULL: none */
		char *env;     /* the user's --container-env; NULL: not given */
		char *missing; /* the plugin's variables that env lacks; NULL: none */
		char *was;     /* the user's PYXIS_CONTAINER_ENV, when `had` */
		bool had;
	} pyxis;
};
/* task_init of a role step (lend.c): the segment each of the step's tasks
 * on this node lends (h->lend) fits in the node's memory; -1 with the
 * numbers and the setting to lower. */
int mcp_task_lend_check(spank_t sp, const struct mcp_handover *h, struct mcr_error *err);
#define MCP_DEVICE_PLACEHOLDER "\x01" "device" "\x01"
/* A new random mark for the node's address (h->mark). */
int mcp_handover_mark(struct mcp_handover *h, struct mcr_error *err);
/* `text` with every h->mark replaced by `addr` (heap; NULL out of memory). */
char *mcp_handover_fill(const struct mcp_handover *h, const char *text, const char *addr);
/* The handover as one environment value (heap), and back. */
char *mcp_handover_encode(const struct mcp_handover *h, struct mcr_error *err);
int mcp_handover_decode(const char *text, struct mcp_handover *h,
			struct mcr_error *err);
void mcp_handover_free(struct mcp_handover *h);
/* A joined master became ready at `master`, its metadata server at
 * `metadata` ("host:port"), not where it was starting (h->starting, a
 * port was taken meanwhile): every value and template of h that names
 * the old addresses names these (whole addresses only), and h->starting
 * is `master`. 0, or -1 out of memory. */
int mcp_handover_follow(struct mcp_handover *h, const char *master, const char *metadata,
			struct mcr_error *err);
/* The per-GPU client config of the GPUs `ids` (physical indexes, `count`):
 * its file name and text (heap). */
int mcp_handover_gpu_file(const struct mcp_handover *h, const int *ids,
			  size_t count, struct mcr_file *out,
			  struct mcr_error *err);

/* ---- master.c: make sure the job's master runs (srun) --------------- */

struct mcp_job {
	const char *job_id;
	int run;                /* the job's run (SLURM_RESTART_COUNT), -1 unknown
				 * (an srun from outside the allocation) */
	bool het;               /* a heterogeneous job's leader, from outside its
				 * allocation (mcp_step_place.het) */
	const struct mcri_jobdir *dir; /* the job's Mooncake directory, open */
	const char *recipe;     /* the recipe's real path */
	/* the job's first `want` nodes (the infra node first) and their
	 * addresses, *got of them (fewer when the job has fewer); found
	 * lazily (a Slurm RPC) only by the srun that starts the master */
	int (*find_nodes)(void *arg, struct mcri_ha_member *nodes, int want, int *got,
			  struct mcr_error *err);
	void *find_nodes_arg;
	/* where the master runs, decided by srun before anything was written;
	 * NULL when the pool ran already (the starter decides then) */
	const struct mcp_container *container;
	/* the starter, just before it launches the master step and again
	 * just before it records the pool ready: the job's client configs for
	 * the master at `master` ("host:port"), so that no srun that joins
	 * finds them missing or of an earlier run or attempt; -1 with err */
	int (*configs)(void *arg, const char *master, struct mcr_error *err);
	void *configs_arg;
	/* the caller may join a master whose step was launched but is not
	 * ready yet (*st then says starting): its tasks wait for ready
	 * (mcp_handover.starting). Never an HA pool. */
	bool join_starting;
	/* which job of its id this is, where srun knows it without asking
	 * slurmctld (SLURM_CLUSTER_NAME; SLURM_JOB_START_TIME, Slurm 23.02
	 * on; an srun from outside the allocation asked): "" and 0 unknown */
	const char *cluster;
	long long start;
};
/* The longest master address a pool's clients get (an HA pool's etcd://
 * address of three members; mcri_state_master) */
#define MCP_MASTER_ADDRESS_MAX 1024
/* Start or join the job's master. On success *st is the ready state
 * (infra node and address, ports), or with job->join_starting the state
 * of a master that is starting (phase MCRI_PHASE_STARTING): its step was
 * launched and its client configs written, ready is still to come. */
int mcp_ensure_master(const struct mcri_plugstack *ps,
		      const struct mcr_recipe *recipe, const struct mcp_job *job,
		      struct mcri_state *st, struct mcr_error *err);
/* How long a master may take to be ready (seconds): the recipe's bound,
 * else plugstack.conf's ready_timeout=. */
int mcp_ready_timeout(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe);
/* The address the pool's clients get (mcri_state_master: "host:port", an
 * HA pool's etcd://) into buf (size bytes): 0, or -1 with err set. */
int mcp_master_address(const struct mcri_state *st, char *buf, size_t size, struct mcr_error *err);
/* master_advice.c: the fix for a master step that could not run
 * mooncake_master, from its log's `tail` (slurmstepd's "execve(): NAME:
 * No such file or directory", env(1)'s, a container runtime's): inside
 * the container `c` (NULL or mode NONE: the host), the image to fix or
 * master=; on the host, the PATH or master=/path/to/NAME. "" when the tail
 * shows no such failure. `master` is master=. */
void mcp_master_advice(const struct mcp_container *c, const char *tail, const char *master,
		       const char *node, char *out, size_t size);

/* ---- the contexts ---------------------------------------------------- */

/* alloc.c */
int mcp_alloc_init(spank_t sp, int ac, char **av);
int mcp_alloc_post_opt(spank_t sp);
void mcp_alloc_exit(void);
/* srun.c */
int mcp_srun_init(spank_t sp, int ac, char **av);
int mcp_srun_post_opt(spank_t sp);
int mcp_srun_user_init(spank_t sp);
void mcp_srun_exit(void);
/* slurmstepd.c */
int mcp_stepd_init(spank_t sp, int ac, char **av);
int mcp_stepd_task_init_privileged(spank_t sp);
int mcp_stepd_task_init(spank_t sp);
int mcp_stepd_task_exit(spank_t sp);
void mcp_stepd_exit(void);

/* ---- slurm_query.c: what only slurmctld knows (srun) ----------------- */

int mcp_job_nodes(uint32_t job_id, char **nodelist, struct mcr_error *err);
/* the nodes of step step_id of job job_id, as a Slurm host list (heap) */
int mcp_step_nodes(uint32_t job_id, uint32_t step_id, char **nodelist, struct mcr_error *err);
/* What slurmctld says of a job: whether it has ended (or is ending), its
 * state's name, the leader of its heterogeneous job (0 when it is none). */
struct mcp_job_facts {
	bool ended;
	char state[32];
	uint32_t het_leader;
	int restarts;            /* its restart count (a requeue is a new run) */
	char work_dir[PATH_MAX]; /* where it was submitted ("" unknown) */
	long long start_time;    /* when it started, Unix seconds (0 unknown) */
	char cluster[64];        /* the cluster it runs on ("" unknown) */
};
int mcp_job_facts(uint32_t job_id, struct mcp_job_facts *f, struct mcr_error *err);
/* ... and of one of its steps: whether it has ended (slurmctld no longer
 * lists it, or it is completing). */
struct mcp_step_facts {
	bool ended;
};
int mcp_step_facts(uint32_t job_id, uint32_t step_id, struct mcp_step_facts *f,
		   struct mcr_error *err);
int mcp_node_address(const char *node, char *addr, size_t size,
		     struct mcr_error *err);
/* srun talks to another cluster than this host's: srun -M, or a job of a
 * federation that runs on a sibling (libslurm's working_cluster_rec) */
bool mcp_srun_other_cluster(void);

/* ---- srun_handover.c: what srun hands its step's tasks -------------- */

/* MCP_TASK_VAR in srun's environment (so in its tasks'): the handover of
 * `role` with the client configs in `dir`, the master at `master` (NULL:
 * the recipe's external one), the job's own pool's metadata server on
 * `metadata_host` (else NULL) and `metadata_port`; `starting_within` > 0:
 * the master is starting, each task waits for it so many seconds. 0, -1. */
int mcp_srun_hand_over(const struct mcr_recipe *recipe, enum mcr_role role, const char *dir,
		       const char *master, const char *metadata_host, int metadata_port,
		       int starting_within, struct mcr_error *err);

/* ---- srun_outside.c: an srun from outside the allocation ------------ */

/* The job a command line names with --jobid: `args` holds n bytes of
 * NUL-terminated arguments (as /proc/PID/cmdline). True, with *job_id its
 * number (0 when it does not read as one: J+K, no value). The first
 * --jobid is taken, even one among the task's arguments. */
bool mcp_outside_named_job(const char *args, size_t n, uint32_t *job_id);

/* init_post_opt: true when srun's command line names the job (--jobid):
 * an srun from outside the allocation, whose job's starter decided where
 * its master runs (local_user_init asks slurmctld about the job,
 * mcp_job_facts). */
bool mcp_outside_begin(void);

/* ---- net.c ------------------------------------------------------------ */

/* IPv4 of `host` (a name or a dotted quad). */
int mcp_resolve_ipv4(const char *host, char *addr, size_t size,
		     struct mcr_error *err);
/* This host's address for MOONCAKE_LOCAL_HOSTNAME: the IPv4 of `iface`
 * when given, else the source address of the route toward `peer`. */
int mcp_local_address(const char *iface, const char *peer, char *addr,
		      size_t size, struct mcr_error *err);
/* What TRT-LLM's connector announces without a local_hostname in its
 * file, gethostbyname(gethostname()), is of no use to the other nodes:
 * this host's name resolves to no IPv4 address or to a loopback one
 * (127.0.1.1 with a Debian-style /etc/hosts). */
bool mcp_own_name_is_loopback(void);

#endif /* MCP_PLUGIN_H_ */
