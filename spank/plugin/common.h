/*
 * common.h - what every context of the plugin does the same way
 * (common.c): its name, the options that name the recipe and the role,
 * the recipe loaded, the job's Mooncake directory and the records its
 * tasks write there, messages, the clock.
 */
#ifndef MCP_COMMON_H_
#define MCP_COMMON_H_

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

/* ---- the options ------------------------------------------------------ */

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
bool mcp_recipe_inherited(const char *recipe_arg, const char *(*getenv_fn)(void *, const char *, char *, size_t),
			  void *arg);
/* --mooncake-role given without a recipe: -1 with a message, else 0. */
int mcp_role_without_recipe(void);

/* ---- the recipe, the job's directory, messages ----------------------- */

/* Print err with slurm_error (mcr_error_format). */
void mcp_error(const struct mcr_error *err);
/* Load and validate the recipe (as the calling user), print its warnings,
 * and decide the role (mcr_recipe_resolve_role). */
int mcp_load(const char *recipe_arg, const char *role_arg, bool inherited, struct mcr_recipe **recipe,
	     enum mcr_role *role, struct mcr_error *err);
/* A Slurm job id, `text` (the value of `name`, for the message): decimal
 * digits only, 1 to 4294967293 (Slurm's NO_VAL and INFINITE are no job).
 * 0 with *id, or -1 with err (MCR_EINVAL) naming the variable, its value
 * and the fix. */
int mcp_job_id_parse(const char *name, const char *text, uint32_t *id, struct mcr_error *err);
/* The job's Mooncake directory: output.log_dir of the recipe, else the
 * job_dir= template; placeholders expanded, relative to submit_dir (the
 * current directory when NULL or empty). Heap string, or NULL. */
char *mcp_job_dir(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe, const char *job_id, uid_t uid,
		  const char *submit_dir, struct mcr_error *err);

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

/* ---- processes and the clock ------------------------------------------ */

/* A live process, or one this process may not signal
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

/* A task of a step of the job's own pool records its node, role and
 * MOONCAKE_LOCAL_HOSTNAME in <dir>/workers/ (task_init); a warning on the
 * task's stderr when it cannot. */
void mcp_record_worker(spank_t sp, const struct mcri_jobdir *dir, const char *role, const char *address);

#endif /* MCP_COMMON_H_ */
