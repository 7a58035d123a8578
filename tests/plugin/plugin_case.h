/* plugin_case.h - what the plugin test files share (plugin_case.c). */
#ifndef MCK_PLUGIN_CASE_H_
#define MCK_PLUGIN_CASE_H_

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <check.h>

#include "fake_master.h"
#include "jobdir/jobdir.h"
#include "stub.h"
#include "testdir.h"

#define TRT MCK_TOP "/examples/trtllm-serve-disagg-mooncake.yaml"

#define write_file testdir_write

#define ck_log_contains(needle)                                                                                        \
	ck_assert_msg(strstr(stub.log, (needle)) != NULL, "'%s' not in log:\n%s", (needle), stub.log)

/* the test's submit directory (in_tmpdir) */
extern char case_dir[256];

/* a fresh working directory (the submit directory) per test */
void in_tmpdir(void);

/* checked teardown (runs in the test's own process): no temporary
 * directory outlives its test */
void remove_tmpdir(void);

/* the file fmt names with arg (one %s) exists */
bool exists(const char *fmt, const char *arg);

/* slurm_spank_init with plugstack arguments (NULL-terminated) */
int init(spank_context_t ctx, char **av);

/* slurmstepd of the master step (step 4) with plugstack arguments `av`,
 * up to slurm_spank_init, srun's handover `var`=`value` in its environment
 * (MCP_PORTS_VAR or MCP_GUARD_VAR; var NULL: none) */
void master_step(char **av, const char *var, const char *value);

/* srun (local context) with plugstack arguments `av`, the recipe and the
 * role (either may be NULL) up to init_post_opt; its return code */
int srun_post_opt(char **av, const char *recipe, const char *role);

/* What an earlier srun of job 4301 left in its directory: the lock of
 * attempt 1 (held from another host) and the state `st` (attempt 1, infra
 * node n1 at 127.0.0.1 on 8700-8702 unless set). Returns the job directory. */
const char *record_state(struct mcri_state *st);

extern const struct mcr_ports DEFAULT_PORTS;

/* a ready master of job 4301 on n1 (127.0.0.1), started from `recipe` */
pid_t ready_master(const char *recipe);

/* What srun hands the tasks of a `role` step of `recipe` in job 4301,
 * whose master runs (heap copy). */
char *handover_of(const char *recipe, const char *role);
/* What an srun of a `role` step of `recipe` inside job 4301's allocation
 * hands its tasks (heap copy), whatever the job's directory holds. */
char *srun_handover(const char *recipe, const char *role);
/* slurmstepd's init and init_post_opt for step `step_id` of job 4301 with
 * the recipe and role options (role may be NULL), what srun handed over
 * (`handover`, NULL: nothing) and plugstack arguments `av` */
void remote_step(uint32_t step_id, const char *recipe, const char *role, const char *handover, char **av);

/* a listener on `port` (another program holding it) */
int hold_port(int port);

#endif
