/*
 * test_plugin.c - the plugin's callbacks driven per context against the
 * SPANK stub (stub.c): what srun, sbatch and slurmstepd would see.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "fake_master.h"
#include "plugin.h"
#include "stub.h"
#include "testdir.h"

#define TRT MCK_TOP "/examples/trtllm-serve-disagg-mooncake.yaml"

static const char SGLANG[] =
	"schema: 2\n"
	"engine: sglang\n"
	"roles:\n"
	"  prefill: {args: {disaggregation-transfer-backend: mooncake}, env: {MOONCAKE_PROTOCOL: tcp}}\n"
	"  decode: {args: {disaggregation-transfer-backend: mooncake}}\n"
	"services:\n"
	"  - {name: mooncake-master, type: mooncake-master}\n";

static const char BAD[] =
	"schema: 2\n"
	"engine: {type: trtllm}\n"
	"roles:\n"
	"  prefill: {args: {kv_connector_config: {connector: mooncake-store}},\n"
	"            mooncake_store_config: {global_segment_size: 16GB}}\n"
	"services:\n"
	"  - {name: mooncake-master, type: mooncake-master}\n";

static const char VLLM_GPU[] =
	"schema: 2\n"
	"engine: vllm\n"
	"resources: {gpus_per_node: 4}\n"
	"roles:\n"
	"  prefill: {args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}}\n"
	"services:\n"
	"  - name: mooncake-master\n"
	"    type: mooncake-master\n"
	"    options: {device_names_by_gpu: [mlx5_0, mlx5_0, mlx5_1, mlx5_1], store_config: {protocol: rdma}}\n";

static char dir[256];

static void remove_tmpdir(void);

/* a fresh working directory (the submit directory) per test */
static void in_tmpdir(void)
{
	remove_tmpdir();
	testdir_make(dir, sizeof(dir), "plugin");
	unsetenv("SLURM_SUBMIT_DIR");
	unsetenv("SLURM_JOB_ID");
	unsetenv("SLURM_HET_JOB_ID");
	unsetenv("SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_recipe");
	unsetenv(MCP_TASK_VAR);
}

/* checked teardown (runs in the test's own process): no temporary
 * directory outlives its test */
static void remove_tmpdir(void)
{
	testdir_remove(dir);
}

#define write_file testdir_write

static bool exists(const char *fmt, const char *arg)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), fmt, arg);
	return stat(path, &st) == 0;
}

/* slurm_spank_init with plugstack arguments (NULL-terminated) */
static int init(spank_context_t ctx, char **av)
{
	int ac = 0;

	while (av && av[ac])
		ac++;
	stub_reset(ctx);
	return slurm_spank_init(NULL, ac, av);
}

#define ck_log_contains(needle) \
	ck_assert_msg(strstr(stub.log, (needle)) != NULL, "'%s' not in log:\n%s", (needle), stub.log)

/* srun (local context) with plugstack arguments `av`, the recipe and the
 * role (either may be NULL) up to init_post_opt; its return code */
static int srun_post_opt(char **av, const char *recipe, const char *role)
{
	ck_assert_int_eq(init(S_CTX_LOCAL, av), 0);
	if (recipe)
		ck_assert_int_eq(stub_option("mooncake-recipe", recipe, 0), 0);
	if (role)
		ck_assert_int_eq(stub_option("mooncake-role", role, 0), 0);
	return slurm_spank_init_post_opt(NULL, 0, NULL);
}

/* What an earlier srun of job 4301 left in its directory: the lock of
 * attempt 1 (held from another host) and the state `st` (attempt 1, infra
 * node n1 at 127.0.0.1 on 8700-8702 unless set). Returns the job directory. */
static const char *record_state(struct mcri_state *st)
{
	static char logdir[512];
	struct mcr_error err = { 0 };

	snprintf(logdir, sizeof(logdir), "%s/outputs/4301/logs", dir);
	ck_assert_int_eq(mcri_mkdir_p(logdir, 0755, &err), 0);
	write_file("outputs/4301/logs/mooncake_master.1.lock", "1 elsewhere\n");
	st->attempt = 1;
	if (!st->infra_node[0])
		snprintf(st->infra_node, sizeof(st->infra_node), "n1");
	if (!st->infra_addr[0])
		snprintf(st->infra_addr, sizeof(st->infra_addr), "127.0.0.1");
	if (!st->ports.rpc)
		st->ports = (struct mcr_ports){ 8700, 8701, 8702 };
	ck_assert_int_eq(testdir_state_write(logdir, st), 0);
	return logdir;
}

/* ---- srun (local) ------------------------------------------------- */

START_TEST(srun_without_option_does_nothing)
{
	in_tmpdir();
	ck_assert_int_eq(init(S_CTX_LOCAL, NULL), 0);
	ck_assert_int_eq(stub.nopts, 2);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), 0);
	ck_assert_int_eq(slurm_spank_exit(NULL, 0, NULL), 0);
	ck_assert(!exists("%s/outputs", dir));
	ck_assert_str_eq(stub.log, "");
}
END_TEST

START_TEST(srun_bad_recipe_fails_before_anything)
{
	in_tmpdir();
	write_file("bad.yaml", BAD);
	ck_assert_int_eq(init(S_CTX_LOCAL, NULL), 0);
	ck_assert_int_eq(stub_option("mooncake-recipe", "bad.yaml", 0), 0);
	ck_assert_int_eq(stub_option("mooncake-role", "prefill", 0), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), -1);
	ck_log_contains("error: mooncake: bad.yaml:5:");
	ck_log_contains("roles.prefill.mooncake_store_config.global_segment_size");
	ck_log_contains("'GB' is refused");
	ck_assert_int_eq(stub.errors, 1);
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert(!exists("%s/outputs", dir));
}
END_TEST

START_TEST(srun_missing_recipe_file)
{
	in_tmpdir();
	ck_assert_int_eq(init(S_CTX_LOCAL, NULL), 0);
	ck_assert_int_eq(stub_option("mooncake-recipe", "nope.yaml", 0), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), -1);
	ck_log_contains("mooncake: cannot read the recipe nope.yaml (relative to ");
	ck_log_contains("): No such file or directory; check the recipe's path");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(srun_several_roles_need_a_role)
{
	in_tmpdir();
	ck_assert_int_eq(init(S_CTX_LOCAL, NULL), 0);
	ck_assert_int_eq(stub_option("mooncake-recipe", TRT, 0), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), -1);
	ck_log_contains("several roles (prefill, decode)");
	ck_log_contains("--mooncake-role=ROLE");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(srun_role_the_recipe_lacks)
{
	in_tmpdir();
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "agg"), -1);
	ck_log_contains("--mooncake-role=agg: the recipe has no roles.agg; its roles are prefill, decode");
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "donor"), -1);
	ck_log_contains("--mooncake-role=donor is not a role");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(srun_inherited_recipe_without_role_gets_nothing)
{
	in_tmpdir();
	setenv("SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_recipe", TRT, 1);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, NULL), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), 0);
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert(!exists("%s/outputs", dir));
	ck_assert_int_eq(stub.errors, 0);
	/* not even read: a helper srun may run where the path means nothing */
	setenv("SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_recipe", "elsewhere.yaml", 1);
	ck_assert_int_eq(srun_post_opt(NULL, "elsewhere.yaml", NULL), 0);
	ck_assert_int_eq(stub.errors, 0);
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(role_without_recipe_is_refused)
{
	spank_context_t ctx[] = { S_CTX_LOCAL, S_CTX_ALLOCATOR };

	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(init(ctx[i], NULL), 0);
		ck_assert_int_eq(stub_option("mooncake-role", "prefill", 0), 0);
		ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), -1);
		ck_log_contains("--mooncake-role=prefill needs a recipe: add --mooncake-recipe=PATH");
		slurm_spank_exit(NULL, 0, NULL);
	}
}
END_TEST

START_TEST(srun_empty_option_value)
{
	ck_assert_int_eq(init(S_CTX_LOCAL, NULL), 0);
	ck_assert_int_eq(stub_option("mooncake-recipe", "", 0), -1);
	ck_log_contains("--mooncake-recipe needs a value");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* Another srun is starting the master and fails while this srun waits:
 * this srun fails at once with that srun's message. */
START_TEST(srun_concurrent_failure_fails_at_once)
{
	struct mcri_state st = { 0 };
	const char *logdir;
	pid_t pid;

	in_tmpdir();
	st.phase = MCRI_PHASE_STARTING;
	snprintf(st.starter_host, sizeof(st.starter_host), "elsewhere");
	logdir = record_state(&st);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* the other srun's verdict, half a second later */
		usleep(500000);
		st.phase = MCRI_PHASE_FAILED;
		snprintf(st.message, sizeof(st.message), "mooncake_master on n1 exited during start-up (exit status 1)");
		_exit(testdir_state_write(logdir, &st) ? 1 : 0);
	}
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "decode"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("could not be started (another srun of this job tried): mooncake_master on n1 exited during start-up (exit status 1)");
	/* no client config for a pool that is not there */
	ck_assert(!exists("%s/outputs/4301/logs/mooncake_store_config_decode.json", dir));
	slurm_spank_exit(NULL, 0, NULL);
	waitpid(pid, NULL, 0);
}
END_TEST

/* A failure recorded before this srun came (the user may have fixed the
 * recipe since): this srun tries again instead of repeating old news. */
START_TEST(srun_earlier_failure_is_retried)
{
	char *av[] = { "srun=/bin/false", NULL };
	struct mcri_state st = { 0 };

	in_tmpdir();
	st.phase = MCRI_PHASE_FAILED;
	snprintf(st.message, sizeof(st.message), "OLD FAILURE");
	record_state(&st);
	ck_assert_int_eq(srun_post_opt(av, TRT, "decode"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("an earlier attempt to start the master failed; trying again");
	ck_log_contains("ended during start-up (exit status 1) before it was ready");
	ck_assert_msg(!strstr(stub.log, "OLD FAILURE"), "old failure repeated:\n%s", stub.log);
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* A master recorded ready that no longer answers: an error that says so,
 * never a silent restart. */
START_TEST(srun_ready_master_that_died)
{
	struct mcri_state st = { 0 };

	in_tmpdir();
	st.phase = MCRI_PHASE_READY;
	/* nothing answers there */
	snprintf(st.infra_addr, sizeof(st.infra_addr), "127.0.0.254");
	record_state(&st);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("was ready, but has stopped");
	ck_log_contains("mooncake_master.log");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* srun --jobid=J from another terminal, in another directory: the job's
 * directory is the one under the job's submit directory (slurmctld's),
 * never under where this srun runs (issue #20: a second master) */
START_TEST(srun_from_outside_uses_the_jobs_directory)
{
	struct mcri_state st = { 0 };
	char elsewhere[600];

	in_tmpdir();
	st.phase = MCRI_PHASE_READY;
	snprintf(st.infra_addr, sizeof(st.infra_addr), "127.0.0.254");
	record_state(&st);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", dir);
	ck_assert_int_eq(mkdir(elsewhere, 0700), 0);
	ck_assert_int_eq(chdir(elsewhere), 0);
	stub.work_dir = dir;
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	stub.work_dir = dir; /* stub_reset cleared it */
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	/* the job's recorded master, found where the job was submitted */
	ck_log_contains("was ready, but has stopped");
	ck_assert(!exists("%s/elsewhere/outputs", dir));
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert_int_eq(chdir(dir), 0);
}
END_TEST

/* a directory that holds another job's pool (output.log_dir without
 * {job_id}): refused while that job runs, a new pool once it has ended */
START_TEST(srun_other_jobs_pool_is_not_joined)
{
	struct mcri_state st = { 0 };

	in_tmpdir();
	st.phase = MCRI_PHASE_READY;
	snprintf(st.job_id, sizeof(st.job_id), "999");
	record_state(&st);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("mooncake: the directory ");
	ck_log_contains("/outputs/4301/logs holds the Mooncake pool of job 999, which still runs, and this srun is of job 4301: one directory holds one job's pool");
	slurm_spank_exit(NULL, 0, NULL);
	/* ... whatever this job's run (a requeued job's srun once took the
	 * other job's pool for its own earlier run's, issue #17 review) */
	stub.log[0] = '\0';
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	stub.restarts = 1;
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("holds the Mooncake pool of job 999, which still runs");
	slurm_spank_exit(NULL, 0, NULL);
	/* that job has ended: its pool is an earlier run's, not joined */
	stub.log[0] = '\0';
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	stub.job_ended = true;
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("was of job 999, which has ended; starting job 4301's there");
	ck_log_contains("starting mooncake_master on n1");
	ck_assert_ptr_null(strstr(stub.log, "holds the Mooncake pool of job 999"));
	ck_assert_ptr_null(strstr(stub.log, "was ready, but has stopped"));
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* the same srun of a requeued job (slurmctld: restart 1): the earlier
 * run's ready pool is not joined, even from outside the allocation */
START_TEST(srun_from_outside_sees_a_requeue)
{
	struct mcri_state st = { 0 };

	in_tmpdir();
	st.phase = MCRI_PHASE_READY;
	st.run = 0;
	snprintf(st.infra_addr, sizeof(st.infra_addr), "127.0.0.254");
	record_state(&st);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	stub.restarts = 1;
	/* a new pool is started (the real srun of this machine fails it) */
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("starting mooncake_master on n1");
	ck_log_contains("job 4301 was requeued (run 1): the pool of its earlier run (0)");
	ck_assert_ptr_null(strstr(stub.log, "was ready, but has stopped"));
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* The master recorded ready has ended (slurmctld: its step is gone) and
 * another user's process took its port: a joining srun says so, and hands
 * its tasks nothing. */
START_TEST(srun_joins_no_listener_of_an_ended_master_step)
{
	struct mcri_state st = { 0 };
	pid_t other;

	in_tmpdir();
	other = fake_master_start(&(struct mcr_ports){ 8700, 8701, 8702 }, "");
	ck_assert_int_gt(other, 0);
	st.phase = MCRI_PHASE_READY;
	st.master_step = 3;
	record_state(&st);
	stub.step_ended = true;
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	stub.step_ended = true; /* srun_post_opt's init reset it */
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("was ready, but has stopped: its step 4301.3 has ended, and another process answers on its port now");
	ck_assert_ptr_null(getenv(MCP_TASK_VAR));
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(other);
}
END_TEST

/* A wait for a master another srun is starting ends when the job does,
 * with the job's state, not at the readiness bound. */
START_TEST(srun_wait_ends_with_the_job)
{
	char *av[] = { "ready_timeout=60", NULL };
	struct mcri_state st = { 0 };
	char lock[600];
	double t0;
	struct timespec ts;

	in_tmpdir();
	st.phase = MCRI_PHASE_STARTING;
	snprintf(lock, sizeof(lock), "%s", record_state(&st));
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	stub.job_ended = true;
	/* the lock's holder (another host) keeps it fresh meanwhile */
	if (fork() == 0) {
		for (int i = 0; i < 40; i++) {
			char p[700];

			snprintf(p, sizeof(p), "%s/mooncake_master.1.lock", lock);
			utimensat(AT_FDCWD, p, NULL, 0);
			usleep(250000);
		}
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (double)ts.tv_sec;
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ck_log_contains("mooncake: job 4301 has ended (COMPLETED) while this srun waited for its mooncake_master; nothing was started for this step");
	ck_assert_msg((double)ts.tv_sec - t0 < 40, "the wait took %.0f s, not ended with the job", (double)ts.tv_sec - t0);
	slurm_spank_exit(NULL, 0, NULL);
	while (wait(NULL) > 0)
		;
}
END_TEST

/* A master recorded ready that does not answer at all (a network blip, a
 * pulled cable): asked again until the readiness bound, with progress, then
 * reported as unreachable, never as stopped. */
START_TEST(srun_ready_master_unreachable)
{
	char *av[] = { "ready_timeout=2", NULL };
	struct mcri_state st = { 0 };

	in_tmpdir();
	st.phase = MCRI_PHASE_READY;
	/* TEST-NET-1: nothing routes there, nothing answers */
	snprintf(st.infra_addr, sizeof(st.infra_addr), "192.0.2.1");
	record_state(&st);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains(" s of at most 2 s: it does not answer from this node, asking again (port 8700 (RPC) does not accept: ");
	ck_log_contains("mooncake: the job's mooncake_master on n1 (192.0.2.1) was ready, but this node (");
	ck_log_contains(") cannot reach it: no answer within 2 s (port 8700 (RPC) does not accept: ");
	ck_assert_msg(!strstr(stub.log, "has stopped"), "unreachable reported as stopped:\n%s", stub.log);
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* The starter sees its master step exit during start-up and reports the
 * status and the log, well before the readiness timeout. */
START_TEST(srun_master_that_exits_at_start)
{
	char *av[] = { "srun=/bin/false", "ready_timeout=30", NULL };
	char path[512];
	struct mcri_state st;

	in_tmpdir();
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("ended during start-up (exit status 1) before it was ready");
	snprintf(path, sizeof(path), "%s/outputs/4301/logs", dir);
	ck_assert_int_eq(testdir_state_read(path, &st), 0);
	ck_assert_int_eq(st.phase, MCRI_PHASE_FAILED);
	ck_assert_str_eq(st.infra_node, "n1");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* The master step's srun reports that slurmstepd could not find
 * mooncake_master (the job's PATH lacks it, e.g. --export=NONE): the error
 * says how to fix it, before the log's last lines. */
START_TEST(srun_master_not_on_path_says_how_to_fix)
{
	char srun[300], opt[320];
	char *av[] = { opt, "ready_timeout=30", NULL };

	in_tmpdir();
	snprintf(srun, sizeof(srun), "%s/fake-srun", dir);
	write_file(srun, "#!/bin/sh\n"
			 "echo 'slurmstepd: error: execve(): mooncake_master: No such file or directory' >&2\n"
			 "echo 'srun: error: n1: task 0: Exited with exit code 2' >&2\n"
			 "exit 2\n");
	ck_assert_int_eq(chmod(srun, 0755), 0);
	snprintf(opt, sizeof(opt), "srun=%s", srun);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("ended during start-up (exit status 2) before it was ready. mooncake_master is not on the PATH of the master step on n1 (with --export=NONE");
	ck_log_contains("in plugstack.conf, master=/path/to/mooncake_master");
	ck_log_contains("Last lines of");
	ck_log_contains("execve(): mooncake_master: No such file or directory");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(master_exec_advice_cases)
{
	char out[1024];

	mcp_master_advice(NULL, "\n    slurmstepd: error: execve(): mooncake_master: No such file or directory\n    srun: error: n1: task 0: Exited with exit code 2",
			  "mooncake_master", "n1", out, sizeof(out));
	ck_assert_msg(strstr(out, " mooncake_master is not on the PATH of the master step on n1") == out, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "in plugstack.conf, master=/path/to/mooncake_master"));
	ck_assert_ptr_nonnull(strstr(out, "without --export=NONE"));
	/* a name from the recipe's service command, not master= */
	mcp_master_advice(NULL, "slurmstepd: error: execve(): my_master: No such file or directory",
			  "mooncake_master", "n2", out, sizeof(out));
	ck_assert_ptr_nonnull(strstr(out, "in the command of the recipe's mooncake-master service"));
	ck_assert_ptr_null(strstr(out, "master=/path/to/"));
	/* an absolute path that is missing on the node */
	mcp_master_advice(NULL, "slurmstepd: error: execve(): /opt/mc/bin/mooncake_master: No such file or directory",
			  "/opt/mc/bin/mooncake_master", "n1", out, sizeof(out));
	ck_assert_str_eq(out, " /opt/mc/bin/mooncake_master does not exist on n1: install mooncake_master there (the Mooncake wheel), or correct master= in plugstack.conf.");
	mcp_master_advice(NULL, "slurmstepd: error: execve(): /opt/mooncake_master: Permission denied",
			  "/opt/mooncake_master", "n1", out, sizeof(out));
	ck_assert_ptr_nonnull(strstr(out, "cannot be run by the job's user"));
	/* anything else: no advice */
	mcp_master_advice(NULL, "\n    E20251201 master.cpp:99] bind failed: Address already in use",
			  "mooncake_master", "n1", out, sizeof(out));
	ck_assert_str_eq(out, "");
	mcp_master_advice(NULL, "", "mooncake_master", "n1", out, sizeof(out));
	ck_assert_str_eq(out, "");
	mcp_master_advice(NULL, "execve(): ", "mooncake_master", "n1", out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

/* Inside an allocation the job is prepared in init_post_opt, before srun
 * creates the step (a failing local_user_init would leave the step
 * allocated in Slurm 22.05); local_user_init then has nothing left to do. */
START_TEST(srun_in_allocation_prepares_before_the_step)
{
	char *av[] = { "srun=/bin/false", NULL };

	in_tmpdir();
	setenv("SLURM_JOB_ID", "4302", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), -1);
	ck_log_contains("ended during start-up (exit status 1) before it was ready");
	/* the job id came from the environment, not from S_JOB_ID (4301) */
	ck_assert(exists("%s/outputs/4302/logs/mooncake_master.json", dir));
	ck_assert(!exists("%s/outputs/4301", dir));
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* srun --jobid=OTHER inside an allocation: the environment's job is not the
 * step's; refused rather than preparing the wrong job */
START_TEST(srun_jobid_other_than_the_environment)
{
	in_tmpdir();
	write_file("agg.yaml", "schema: 2\nroles: {agg: {}}\n");
	setenv("SLURM_JOB_ID", "4302", 1);
	ck_assert_int_eq(srun_post_opt(NULL, "agg.yaml", NULL), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("this step runs in job 4301, but srun's environment is job 4302's");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* ---- sbatch / salloc (allocator) ---------------------------------- */

START_TEST(alloc_refuses_bad_recipe)
{
	in_tmpdir();
	write_file("bad.yaml", BAD);
	ck_assert_int_eq(init(S_CTX_ALLOCATOR, NULL), 0);
	ck_assert_int_eq(stub.nopts, 2);
	stub_option("mooncake-recipe", "bad.yaml", 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), -1);
	ck_log_contains("'GB' is refused");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(alloc_accepts_recipe_without_role)
{
	in_tmpdir();
	ck_assert_int_eq(init(S_CTX_ALLOCATOR, NULL), 0);
	stub_option("mooncake-recipe", TRT, 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), 0);
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert_int_eq(init(S_CTX_ALLOCATOR, NULL), 0);
	stub_option("mooncake-recipe", TRT, 0);
	stub_option("mooncake-role", "agg", 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), -1);
	ck_log_contains("the recipe has no roles.agg");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(plugstack_arguments)
{
	char *unknown[] = { "ready_timeout=10", "colour=blue", NULL };
	char *badtime[] = { "ready_timeout=0", NULL };
	char *ok[] = { "master=/opt/mc/bin/mooncake_master", "srun=/usr/bin/srun",
		       "job_dir=/scratch/{user}/{job_id}", "ready_timeout=300",
		       "interface=ib0", NULL };

	ck_assert_int_eq(init(S_CTX_LOCAL, unknown), -1);
	ck_log_contains("unknown argument 'colour=blue'");
	ck_assert_int_eq(init(S_CTX_ALLOCATOR, badtime), -1);
	ck_log_contains("ready_timeout=0 must be a number of seconds");
	ck_assert_int_eq(init(S_CTX_LOCAL, ok), 0);
	slurm_spank_exit(NULL, 0, NULL);
	{
		struct mcri_plugstack ps;
		struct mcr_error err;

		ck_assert_int_eq(mcri_plugstack_parse(&ps, 5, ok, &err), 0);
		ck_assert_str_eq(ps.master, "/opt/mc/bin/mooncake_master");
		ck_assert_str_eq(ps.srun, "/usr/bin/srun");
		ck_assert_str_eq(ps.job_dir, "/scratch/{user}/{job_id}");
		ck_assert_int_eq(ps.ready_timeout, 300);
		ck_assert_str_eq(ps.interface, "ib0");
		ck_assert(!ps.fixed_ports);
		ck_assert_int_eq(ps.port_lo, 8700);
		ck_assert_int_eq(ps.port_hi, 8999);
	}
	/* slurmd and the job-script contexts never fail */
	ck_assert_int_eq(init(S_CTX_SLURMD, unknown), 0);
}
END_TEST

/* ---- srun with a master: the fake one of fake_master.c ------------ */

static const struct mcr_ports DEFAULT_PORTS = { 8700, 8701, 8702 };

/* a ready master of job 4301 on n1 (127.0.0.1), started from `recipe` */
static pid_t ready_master(const char *recipe)
{
	struct mcri_state st = { 0 };
	char path[PATH_MAX];
	pid_t pid = fake_master_start(&DEFAULT_PORTS, "abc");

	ck_assert_int_gt(pid, 0);
	st.phase = MCRI_PHASE_READY;
	ck_assert_ptr_nonnull(realpath(recipe, path));
	snprintf(st.recipe, sizeof(st.recipe), "%s", path);
	record_state(&st);
	return pid;
}

/* What srun hands the tasks of a `role` step of `recipe` in job 4301,
 * whose master runs (heap copy). */
static char *handover_of(const char *recipe, const char *role)
{
	pid_t master = ready_master(recipe);
	char *text;

	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(NULL, recipe, role), 0);
	ck_assert_int_eq(stub.errors, 0);
	ck_assert_ptr_nonnull(getenv(MCP_TASK_VAR));
	text = strdup(getenv(MCP_TASK_VAR));
	unsetenv(MCP_TASK_VAR);
	unsetenv("SLURM_JOB_ID");
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(master);
	return text;
}

START_TEST(srun_joins_a_ready_master)
{
	char path[512];
	struct stat before, after;

	in_tmpdir();
	free(handover_of(TRT, "decode"));
	snprintf(path, sizeof(path), "%s/outputs/4301/logs/mooncake_store_config_decode.json", dir);
	ck_assert_int_eq(stat(path, &before), 0);
	/* the next srun finds the same file: nothing is rewritten */
	free(handover_of(TRT, "decode"));
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_int_eq(before.st_ino, after.st_ino);
	ck_assert_int_eq(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
}
END_TEST

/* one pool per job directory: a second recipe is refused, naming both */
START_TEST(srun_other_recipe_is_refused)
{
	static char want[PATH_MAX * 3 + 512];
	char trt[PATH_MAX];
	pid_t master;

	in_tmpdir();
	write_file("other.yaml", "schema: 2\nengine: vllm\nroles:\n  prefill: {args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}}\n"
				 "services:\n  - {name: mooncake-master, type: mooncake-master}\n");
	master = ready_master(TRT);
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(NULL, "other.yaml", "prefill"), -1);
	ck_assert_ptr_nonnull(realpath(TRT, trt));
	snprintf(want, sizeof(want),
		 "mooncake: the job's Mooncake pool in %s/outputs/4301/logs comes from the recipe %s, and this srun names %s/other.yaml: one directory holds one pool. Use %s for this step too, or give the other recipe an output.log_dir of its own (its pool then gets a master of its own)",
		 dir, trt, dir, trt);
	ck_log_contains(want);
	ck_assert(!exists("%s/outputs/4301/logs/mooncake_store_config.json", dir));
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(master);
}
END_TEST

/* a recipe edited under a running pool never rewrites its files */
START_TEST(srun_changed_client_config_is_refused)
{
	pid_t master;

	in_tmpdir();
	free(handover_of(TRT, "decode"));
	write_file("outputs/4301/logs/mooncake_store_config_decode.json", "{\"edited\": true}");
	master = ready_master(TRT);
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "decode"), -1);
	ck_log_contains("mooncake_store_config_decode.json of the job's running pool differs from what ");
	ck_log_contains("a running pool's files are never rewritten under its tasks");
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(master);
}
END_TEST

/* a listener on `port` (another program holding it) */
static int hold_port(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(fd, 1), 0);
	return fd;
}

/* A fake srun that runs the fake master on the ports of its argv. */
static void fake_srun(char *opt, size_t size)
{
	char self[PATH_MAX], script[PATH_MAX + 600], path[300];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	snprintf(path, sizeof(path), "%s/fake-srun", dir);
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n[ \"$1\" = --help ] && exit 0\n"
		 "for a; do case $a in --port=*) r=${a#*=};; --http_metadata_server_port=*) m=${a#*=};;"
		 " --metrics_port=*) x=${a#*=};; esac; done\nexec %s fake-master $r $m $x\n", self);
	write_file(path, script);
	ck_assert_int_eq(chmod(path, 0755), 0);
	snprintf(opt, size, "srun=%s", path);
}

/* the master the election started: its state, and stop it */
static void stop_started_master(struct mcri_state *st)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/outputs/4301/logs", dir);
	ck_assert_int_eq(testdir_state_read(path, st), 0);
	ck_assert_int_gt(st->srun_pid, 0);
	fake_master_stop((pid_t)st->srun_pid);
}

START_TEST(srun_starts_the_master_on_srtctls_ports)
{
	char opt[400];
	char *av[] = { opt, NULL };
	struct mcri_state st;

	in_tmpdir();
	fake_srun(opt, sizeof(opt));
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	ck_log_contains("starting mooncake_master on n1 (127.0.0.1, ports 8700, 8701, 8702) as step mooncake-master of job 4301");
	ck_log_contains("mooncake_master ready on n1 (127.0.0.1:8700) after ");
	ck_assert_ptr_nonnull(strstr(getenv(MCP_TASK_VAR), "[\"MOONCAKE_MASTER\",\"127.0.0.1:8700\"]"));
	slurm_spank_exit(NULL, 0, NULL);
	stop_started_master(&st);
	ck_assert_int_eq(st.phase, MCRI_PHASE_READY);
	ck_assert_int_eq(st.ports.rpc, 8700);
}
END_TEST

/* ports=auto: 8701 is taken on the infra node, the master gets a triple
 * of port_range, and every artifact says so */
START_TEST(srun_starts_the_master_on_free_ports)
{
	char opt[400], path[512], *text;
	char *av[] = { opt, NULL };
	struct mcri_state st;
	int busy;
	FILE *f;

	in_tmpdir();
	busy = hold_port(8701);
	fake_srun(opt, sizeof(opt));
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	/* job 4301: the triple at offset 4301 % 100 = 1 of 8700-8999 */
	ck_log_contains("starting mooncake_master on n1 (127.0.0.1, ports 8703, 8704, 8705)");
	text = getenv(MCP_TASK_VAR);
	ck_assert_ptr_nonnull(strstr(text, "[\"MOONCAKE_MASTER\",\"127.0.0.1:8703\"]"));
	ck_assert_ptr_nonnull(strstr(text, "[\"MOONCAKE_TE_META_DATA_SERVER\",\"http://127.0.0.1:8704/metadata\"]"));
	slurm_spank_exit(NULL, 0, NULL);
	close(busy);
	stop_started_master(&st);
	ck_assert_int_eq(st.ports.rpc, 8703);
	ck_assert_int_eq(st.ports.metadata, 8704);
	ck_assert_int_eq(st.ports.metrics, 8705);
	snprintf(path, sizeof(path), "%s/outputs/4301/logs/mooncake_store_config_prefill.json", dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	text = calloc(1, 8192);
	ck_assert_uint_gt(fread(text, 1, 8191, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "\"master_server_address\": \"127.0.0.1:8703\""));
	free(text);
}
END_TEST

/* ports=fixed: today's refusal, with its message */
START_TEST(srun_fixed_ports_taken_is_refused)
{
	char opt[400];
	char *av[] = { opt, "ports=fixed", NULL };
	int busy;

	in_tmpdir();
	busy = hold_port(8701);
	fake_srun(opt, sizeof(opt));
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), -1);
	ck_log_contains("mooncake: port 8701 on the infra node n1 (127.0.0.1) is already in use by another process (not this job's master, which is not started yet), so mooncake_master could not listen there. Is another job's mooncake_master running on n1? Only one job at a time can use a node as its infra node (the ports are fixed): run the job on other nodes, or with --exclusive");
	slurm_spank_exit(NULL, 0, NULL);
	close(busy);
}
END_TEST

/* a fake srun that does `body` (a shell snippet); `srun --help` (the
 * plugin's look for pyxis, container.c) lists nothing */
static void script_srun(char *opt, size_t size, const char *body)
{
	char path[300], text[4096];

	snprintf(path, sizeof(path), "%s/script-srun", dir);
	snprintf(text, sizeof(text), "#!/bin/sh\n[ \"$1\" = --help ] && exit 0\n%s\n", body);
	write_file(path, text);
	ck_assert_int_eq(chmod(path, 0755), 0);
	snprintf(opt, size, "srun=%s", path);
}

/* a master step that never answers: stopped at the readiness bound, with
 * the port that did not answer and the log's last lines */
START_TEST(srun_master_not_ready_in_time)
{
	char opt[400], path[512];
	char *av[] = { opt, "ready_timeout=2", NULL };
	struct mcri_state st;

	in_tmpdir();
	script_srun(opt, sizeof(opt), "echo 'still starting'; exec sleep 60");
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), -1);
	ck_log_contains("mooncake: mooncake_master on n1 (127.0.0.1) was not ready after 2 s: port 8700 (RPC) does not accept: Connection refused; it was stopped. If the node is just slow, raise readiness.timeout_seconds");
	ck_log_contains("still starting");
	slurm_spank_exit(NULL, 0, NULL);
	snprintf(path, sizeof(path), "%s/outputs/4301/logs", dir);
	ck_assert_int_eq(testdir_state_read(path, &st), 0);
	ck_assert_int_eq(st.phase, MCRI_PHASE_FAILED);
	ck_assert_msg(!testdir_state_read(path, &st) && kill((pid_t)st.srun_pid, 0) != 0,
		      "the master step's srun %ld still runs", st.srun_pid);
}
END_TEST

/* ports=auto: the master step's task could not claim its ports on the
 * infra node (another job's master took them first): the next triple */
START_TEST(srun_master_that_lost_its_ports_moves_on)
{
	char opt[400], self[PATH_MAX];
	static char body[3 * PATH_MAX];
	char *av[] = { opt, NULL };
	struct mcri_state st;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	in_tmpdir();
	snprintf(body, sizeof(body),
		 "if [ ! -e %s/tried ]; then touch %s/tried; echo 'slurmstepd: error: mooncake: port 8701 (metadata) on n1 is taken: another job'\"'\"'s mooncake_master (pid 1) is starting on it' >&2; exit 1; fi\n"
		 "for a; do case $a in --port=*) r=${a#*=};; --http_metadata_server_port=*) m=${a#*=};; --metrics_port=*) x=${a#*=};; esac; done\n"
		 "exec %s fake-master $r $m $x",
		 dir, dir, self);
	script_srun(opt, sizeof(opt), body);
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	ck_log_contains("mooncake: ports 8700, 8701, 8702 are taken on n1; trying others");
	ck_log_contains("starting mooncake_master on n1 (127.0.0.1, ports 8703, 8704, 8705)");
	slurm_spank_exit(NULL, 0, NULL);
	stop_started_master(&st);
	ck_assert_int_eq(st.ports.rpc, 8703);
}
END_TEST

/* Another user binds the master's ports between their choice and the
 * master's bind and answers as a master would (/health, the metadata
 * server): its sockets are not the master step's, so the job never
 * records it ready and no task is handed its address. */
START_TEST(srun_never_takes_a_foreign_listener_for_the_master)
{
	char opt[400], self[PATH_MAX], path[512], pidfile[400];
	static char body[3 * PATH_MAX];
	char *av[] = { opt, "ports=fixed", "ready_timeout=8", NULL };
	struct mcri_state st;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *f;
	long foreign = 0;
	int rc;

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	in_tmpdir();
	snprintf(pidfile, sizeof(pidfile), "%s/foreign.pid", dir);
	snprintf(body, sizeof(body),
		 "for a; do case $a in --port=*) r=${a#*=};; --http_metadata_server_port=*) m=${a#*=};; --metrics_port=*) x=${a#*=};; esac; done\n"
		 "(env -u %s %s fake-master $r $m $x & echo $! >%s)\n" /* not the master's child */
		 "exec %s fake-master-late $r $m $x",
		 MCP_GUARD_VAR, self, pidfile, self);
	script_srun(opt, sizeof(opt), body);
	setenv("SLURM_JOB_ID", "4301", 1);
	rc = srun_post_opt(av, TRT, "prefill");
	/* the other user's listener goes first, whatever the checks say */
	f = fopen(pidfile, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%ld", &foreign), 1);
	fclose(f);
	fake_master_stop((pid_t)foreign);
	ck_assert_int_eq(rc, -1);
	ck_log_contains("It could not take its ports (port ");
	ck_log_contains(" listens for another process there, of uid 0, not for this job's mooncake_master)");
	ck_assert_msg(!strstr(stub.log, "mooncake_master ready"), "a foreign listener was taken for the master:\n%s",
		      stub.log);
	ck_assert_ptr_null(getenv(MCP_TASK_VAR));
	slurm_spank_exit(NULL, 0, NULL);
	snprintf(path, sizeof(path), "%s/outputs/4301/logs", dir);
	ck_assert_int_eq(testdir_state_read(path, &st), 0);
	ck_assert_int_ne(st.phase, MCRI_PHASE_READY);
}
END_TEST

/* the starter died after it launched the master step: an srun on its host
 * finishes its work */
START_TEST(srun_adopts_the_master_of_a_dead_starter)
{
	struct mcri_state st = { 0 };
	char host[256] = "";
	pid_t gone = fork(), master;

	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	in_tmpdir();
	master = fake_master_start(&DEFAULT_PORTS, "");
	ck_assert_int_gt(master, 0);
	gethostname(host, sizeof(host) - 1);
	st.phase = MCRI_PHASE_STARTING;
	snprintf(st.starter_host, sizeof(st.starter_host), "%s", host);
	/* the starter's pid given to a later process (this test's parent):
	 * the start time tells it is not the starter (it was once taken for
	 * a live one, and the waiter waited its whole bound) */
	st.starter_pid = _i % 2 ? (long)getppid() : (long)gone;
	st.starter_start = _i % 2 ? 1 : 0;
	st.srun_pid = (long)master;
	st.srun_start = mcri_pid_start(master);
	record_state(&st);
	write_file("outputs/4301/logs/mooncake_master.1.lock", "1 elsewhere\n");
	/* what the launched master step's guard proved on the infra node */
	{
		char path[512];
		struct mcri_jobdir jd;
		struct mcr_error err;
		struct mcri_proof proof = { 1, MCRI_PROOF_OWN, { 8700, 8701, 8702 }, (long)master,
					    mcri_pid_start(master), 3, 0, 0 };

		snprintf(path, sizeof(path), "%s/outputs/4301/logs", dir);
		ck_assert_int_eq(mcri_jobdir_open(&jd, path, getuid(), false, &err), 0);
		ck_assert_int_eq(mcri_proof_write(&jd, &proof, &err), 0);
		mcri_jobdir_close(&jd);
	}
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	ck_log_contains("mooncake: the srun that started the master is gone; checking the master it launched");
	ck_log_contains("mooncake_master ready on n1 (127.0.0.1:8700)");
	slurm_spank_exit(NULL, 0, NULL);
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/outputs/4301/logs", dir);
		ck_assert_int_eq(testdir_state_read(path, &st), 0);
		ck_assert_int_eq(st.phase, MCRI_PHASE_READY);
		ck_assert_int_eq(st.master_step, 3); /* the step its guard named */
	}
	fake_master_stop(master);
}
END_TEST

/* addresses: a node's, this host's toward the master, a NIC's */
START_TEST(net_addresses)
{
	struct mcr_error err;
	char addr[64];

	ck_assert_int_eq(mcp_resolve_ipv4("127.0.0.1", addr, sizeof(addr), &err), 0);
	ck_assert_str_eq(addr, "127.0.0.1");
	ck_assert_int_eq(mcp_resolve_ipv4("no-such-node.invalid", addr, sizeof(addr), &err), -1);
	ck_assert_msg(strstr(err.text, "cannot resolve the address of node no-such-node.invalid: ") == err.text,
		      "%s", err.text);
	ck_assert_ptr_nonnull(strstr(err.text, "its NodeAddr in slurm.conf must resolve to an IPv4 address"));
	ck_assert_int_eq(mcp_local_address(NULL, "127.0.0.1", addr, sizeof(addr), &err), 0);
	ck_assert_str_eq(addr, "127.0.0.1");
	ck_assert_int_eq(mcp_local_address("lo", "192.0.2.1", addr, sizeof(addr), &err), 0);
	ck_assert_str_eq(addr, "127.0.0.1");
	ck_assert_int_eq(mcp_local_address("nope0", "127.0.0.1", addr, sizeof(addr), &err), -1);
	ck_assert_str_eq(err.text, "the network interface 'nope0' (plugstack.conf interface=) has no IPv4 address on this node; fix interface= or the node's network");
	ck_assert_int_eq(mcp_local_address(NULL, "not-an-address", addr, sizeof(addr), &err), -1);
	ck_assert_str_eq(err.text, "'not-an-address' is not an IPv4 address");
	/* only lo in this network namespace: no route elsewhere */
	ck_assert_int_eq(mcp_local_address(NULL, "192.0.2.1", addr, sizeof(addr), &err), -1);
	ck_assert_str_eq(err.text, "no route from this node to the master at 192.0.2.1: Network is unreachable; set interface= in plugstack.conf");
}
END_TEST

/* ports=fixed: the ports are taken by this job's own master, of a pool
 * from another recipe in another directory: the message names both, once
 * that directory's state confirms what the (unauthenticated) metadata
 * server says; a listener that only says so is not believed */
START_TEST(srun_fixed_ports_taken_by_the_jobs_other_pool)
{
	char *av[] = { "ports=fixed", NULL };
	struct mcri_state st = { .phase = MCRI_PHASE_READY, .attempt = 1, .job_id = "4301",
				 .infra_node = "n1", .infra_addr = "127.0.0.1",
				 .ports = { 8700, 8701, 8702 }, .recipe = "/r/first.yaml" };
	char said[1200], first[600], want[1500];
	pid_t other;

	in_tmpdir();
	snprintf(first, sizeof(first), "%s/first", dir);
	ck_assert_int_eq(mkdir(first, 0700), 0);
	ck_assert_int_eq(testdir_state_write(first, &st), 0);
	snprintf(said, sizeof(said), "/r/first.yaml\n%s", first);
	other = fake_master_start(&DEFAULT_PORTS, said);
	ck_assert_int_gt(other, 0);
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), -1);
	snprintf(want, sizeof(want), "mooncake: port 8700 on the infra node n1 (127.0.0.1) is taken by this job's own mooncake_master, of the pool of /r/first.yaml in %s; this srun's recipe ", first);
	ck_log_contains(want);
	ck_log_contains("with ports=fixed a node holds one master: use /r/first.yaml for this step too, or ask the admin for ports=auto (each pool then gets ports of its own)");
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(other);
	/* a listener that names a pool no state of this job confirms */
	other = fake_master_start(&DEFAULT_PORTS, "/tmp/evil.yaml\n/tmp");
	ck_assert_int_gt(other, 0);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), -1);
	ck_log_contains("mooncake: port 8700 on the infra node n1 (127.0.0.1) is already in use by another process");
	ck_assert_ptr_null(strstr(stub.log, "evil"));
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(other);
}
END_TEST

/* sampler= and pool_interval=: defaults, values, refusals */
START_TEST(plugstack_pool_arguments)
{
	char *ok[] = { "sampler=/opt/mc/bin/mooncake-recipe", "pool_interval=2", NULL };
	char *off[] = { "pool_interval=0", NULL };
	char *relative[] = { "sampler=mooncake-recipe", NULL };
	char *bad[] = { "pool_interval=5s", NULL };
	char *big[] = { "pool_interval=3601", NULL };

	struct mcri_plugstack ps;
	struct mcr_error err;

	ck_assert_int_eq(mcri_plugstack_parse(&ps, 0, NULL, &err), 0);
	ck_assert_int_eq(ps.pool_interval, 5);
	ck_assert_msg(strstr(ps.sampler, "/mooncake-recipe") != NULL && ps.sampler[0] == '/',
		      "default sampler: %s", ps.sampler);
	ck_assert_int_eq(mcri_plugstack_parse(&ps, 2, ok, &err), 0);
	ck_assert_str_eq(ps.sampler, "/opt/mc/bin/mooncake-recipe");
	ck_assert_int_eq(ps.pool_interval, 2);
	ck_assert_int_eq(mcri_plugstack_parse(&ps, 1, off, &err), 0);
	ck_assert_int_eq(ps.pool_interval, 0);
	ck_assert_int_eq(init(S_CTX_LOCAL, relative), -1);
	ck_log_contains("mooncake: plugstack.conf: sampler=mooncake-recipe must be an absolute path (the mooncake-recipe binary, e.g. sampler=/usr/bin/mooncake-recipe)");
	ck_assert_int_eq(init(S_CTX_LOCAL, bad), -1);
	ck_log_contains("mooncake: plugstack.conf: pool_interval=5s must be a number of seconds between 1 and 3600, or 0 to switch the pool sampler off");
	ck_assert_int_eq(init(S_CTX_LOCAL, big), -1);
	ck_log_contains("pool_interval=3601 must be a number of seconds");
}
END_TEST

/* a fake srun that writes its argv and environment into `out` */
static void recording_srun(const char *path, const char *out)
{
	char text[10000];

	snprintf(text, sizeof(text),
		 "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done >%s.tmp\nenv >%s.env\n"
		 "mv %s.tmp %s\n",
		 out, out, out, out);
	write_file(path, text);
	ck_assert_int_eq(chmod(path, 0755), 0);
}

static bool wait_file(const char *path)
{
	struct stat sb;

	for (int i = 0; i < 200; i++) {
		if (stat(path, &sb) == 0)
			return true;
		usleep(20000);
	}
	return false;
}

/* The sampler step: srun ... --job-name=mooncake-pool -w <infra>
 * --output=<dir>/mooncake_pool.log <sampler> sample --dir <dir>
 * --interval S, detached, without the plugin's options in its
 * environment; nothing with pool_interval=0; a sampler that cannot run is
 * a warning, never an error. */
START_TEST(sampler_step_argv_and_env)
{
	struct mcri_plugstack config;
	struct mcr_error err = { 0 };
	struct mcp_step_place job = { "4301", NULL, "n1", false };
	char srun[300], out[2048], sampler[300], logdir[300], buf[8192];
	char *av[] = { NULL };
	FILE *f;
	size_t n;

	in_tmpdir();
	snprintf(srun, sizeof(srun), "%s/fake-srun", dir);
	snprintf(out, sizeof(out), "%s/argv.txt", dir);
	snprintf(sampler, sizeof(sampler), "%s/fake-sampler", dir);
	snprintf(logdir, sizeof(logdir), "%s/logs", dir);
	ck_assert_int_eq(mkdir(logdir, 0755), 0);
	job.dir = logdir;
	recording_srun(srun, out);
	write_file(sampler, "#!/bin/sh\n");
	ck_assert_int_eq(chmod(sampler, 0755), 0);
	ck_assert_int_eq(mcri_plugstack_parse(&config, 0, av, &err), 0);
	snprintf(config.srun, sizeof(config.srun), "%s", srun);
	snprintf(config.sampler, sizeof(config.sampler), "%s", sampler);
	config.pool_interval = 7;
	setenv("SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_recipe", "r.yaml", 1);
	stub_reset(S_CTX_LOCAL);
	ck_assert_int_eq(mcp_start_sampler(&config, &job, &err), 0);
	ck_assert(wait_file(out));
	f = fopen(out, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "--jobid=4301\n--overlap\n--nodes=1\n--ntasks=1\n"));
	ck_assert_ptr_nonnull(strstr(buf, "--job-name=mooncake-pool\n--nodelist=n1\n"));
	snprintf(out, sizeof(out), "--output=%s/mooncake_pool.log\n--chdir=%s\n%s\nsample\n--dir\n%s\n--interval\n7\n",
		 logdir, logdir, sampler, logdir);
	ck_assert_msg(strstr(buf, out) != NULL, "%s", buf);
	ck_assert(exists("%s/logs/mooncake_pool.log", dir));
	snprintf(out, sizeof(out), "%s/argv.txt.env", dir);
	f = fopen(out, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_assert_msg(strstr(buf, "SLURM_SPANK__SLURM_SPANK_OPTION_mooncake") == NULL, "%s", buf);
	unsetenv("SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_recipe");
	ck_assert_int_eq(stub.errors, 0);
	ck_assert_str_eq(stub.log, "");
	/* off */
	config.pool_interval = 0;
	snprintf(config.sampler, sizeof(config.sampler), "/nonexistent/mooncake-recipe");
	ck_assert_int_eq(mcp_start_sampler(&config, &job, &err), 0);
	ck_assert_str_eq(stub.log, "");
	/* a sampler that is not there: a warning with the fix */
	config.pool_interval = 5;
	ck_assert_int_eq(mcp_start_sampler(&config, &job, &err), -1);
	ck_log_contains("mooncake: warning: the pool sampler /nonexistent/mooncake-recipe cannot run here (No such file or directory), so this job gets no pool report; install mooncake-recipe there, set sampler=/path/to/mooncake-recipe in plugstack.conf, or pool_interval=0 to switch the sampler off");
	ck_assert_int_eq(stub.errors, 0);
}
END_TEST

/* ---- slurmstepd (remote) ------------------------------------------ */

/* a remote step of job 4301 with the recipe and role options and, when
 * given, what srun handed over */
static void remote_step(uint32_t step_id, const char *recipe, const char *role,
			const char *handover, char **av)
{
	ck_assert_int_eq(init(S_CTX_REMOTE, av), 0);
	stub.step_id = step_id;
	stub_setenv("SLURM_SUBMIT_DIR", dir);
	if (handover)
		stub_setenv(MCP_TASK_VAR, handover);
	ck_assert_int_eq(stub_option("mooncake-recipe", recipe, 1), 0);
	if (role)
		ck_assert_int_eq(stub_option("mooncake-role", role, 1), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), 0);
}

START_TEST(stepd_task_gets_role_env)
{
	char want[512], *h;

	in_tmpdir();
	h = handover_of(TRT, "decode");
	remote_step(3, TRT, "decode", h, NULL);
	/* a node whose name resolves to its own address: TRT-LLM's connector
	 * finds it, the role's file serves every node */
	stub.hostname = "10.0.0.7";
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	snprintf(want, sizeof(want), "%s/outputs/4301/logs/mooncake_store_config_decode.json", dir);
	ck_assert_str_eq(stub_getenv("MOONCAKE_CONFIG_PATH"), want);
	ck_assert_str_eq(stub_getenv("MOONCAKE_MASTER"), "127.0.0.1:8700");
	ck_assert_str_eq(stub_getenv("MOONCAKE_TE_META_DATA_SERVER"), "http://127.0.0.1:8701/metadata");
	ck_assert_str_eq(stub_getenv("MOONCAKE_LOCAL_HOSTNAME"), "127.0.0.1");
	/* the role's own env reaches its tasks */
	ck_assert_str_eq(stub_getenv("TLLM_LOG_LEVEL"), "INFO");
	/* the handover does not stay in the task's environment */
	ck_assert_ptr_null(stub_getenv(MCP_TASK_VAR));
	ck_assert_int_eq(stub.errors, 0);
	slurm_spank_exit(NULL, 0, NULL);
	/* the task recorded itself for status and the pool's report */
	{
		char host[256] = "", path[1024], buf[1024];
		FILE *f;
		size_t n;

		gethostname(host, sizeof(host) - 1);
		snprintf(path, sizeof(path), "%s/outputs/4301/logs/workers/%s.4301.3.0.json", dir, host);
		f = fopen(path, "r");
		ck_assert_msg(f != NULL, "no %s", path);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		snprintf(path, sizeof(path),
			 "{\"node\": \"%s\", \"role\": \"decode\", \"address\": \"127.0.0.1\", \"job\": 4301, \"step\": 3, \"task\": 0}",
			 host);
		ck_assert_str_eq(buf, path);
	}
	free(h);
}
END_TEST

/* TRT-LLM announces the file's local_hostname, else its node's name
 * resolved: a node whose name resolves to nothing or to a loopback
 * address, and every node under interface=, reads a file of its own that
 * carries the address the plugin found (the role's file plus
 * local_hostname) */
static char *read_all(const char *path)
{
	char *text = calloc(1, 65536);
	FILE *f = fopen(path, "r");

	ck_assert_msg(f != NULL, "no %s", path);
	ck_assert_uint_gt(fread(text, 1, 65535, f), 0);
	fclose(f);
	return text;
}

static void trtllm_node_file(const char *hostname, char **av, bool own)
{
	char role_file[512], want[512], *h, *text, *role_text, *cut;

	h = handover_of(TRT, "decode");
	remote_step(3, TRT, "decode", h, av);
	stub.hostname = hostname;
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_int_eq(stub.errors, 0);
	snprintf(role_file, sizeof(role_file), "%s/outputs/4301/logs/mooncake_store_config_decode.json", dir);
	snprintf(want, sizeof(want), "%s/outputs/4301/logs/mooncake_store_config_decode%s.json", dir,
		 own ? ".127.0.0.1" : "");
	ck_assert_str_eq(stub_getenv("MOONCAKE_CONFIG_PATH"), want);
	if (own) {
		text = read_all(want);
		role_text = read_all(role_file);
		ck_assert_ptr_nonnull(cut = strrchr(role_text, '\n'));
		*cut = '\0';
		ck_assert_ptr_nonnull(cut = mcri_asprintf("%s,\n  \"local_hostname\": \"127.0.0.1\"\n}", role_text));
		ck_assert_str_eq(text, cut);
		free(cut);
		free(role_text);
		free(text);
	}
	slurm_spank_exit(NULL, 0, NULL);
	free(h);
}

START_TEST(stepd_trtllm_node_file)
{
	char *iface[] = { "interface=lo", NULL };

	in_tmpdir();
	trtllm_node_file("nowhere.invalid", NULL, true); /* resolves to nothing */
	trtllm_node_file("127.0.1.1", NULL, true);       /* Debian's /etc/hosts */
	trtllm_node_file("10.0.0.7", NULL, false);       /* its own address */
	trtllm_node_file("10.0.0.7", iface, true);       /* the admin chose the NIC */
}
END_TEST

/* the task reads no recipe: what srun checked is what it gets, even when
 * the recipe is gone (or edited) after srun */
START_TEST(stepd_reads_no_recipe)
{
	char *h;

	in_tmpdir();
	write_file("r.yaml", SGLANG);
	h = handover_of("r.yaml", "prefill");
	ck_assert_int_eq(unlink("r.yaml"), 0);
	remote_step(2, "r.yaml", "prefill", h, NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_str_eq(stub_getenv("MOONCAKE_PROTOCOL"), "tcp");
	ck_assert_str_eq(stub_getenv("MOONCAKE_MASTER"), "127.0.0.1:8700");
	ck_assert_ptr_null(stub_getenv("MOONCAKE_CONFIG_PATH"));
	slurm_spank_exit(NULL, 0, NULL);
	free(h);
}
END_TEST

START_TEST(stepd_batch_step_gets_nothing)
{
	uint32_t steps[] = { SLURM_BATCH_SCRIPT, SLURM_EXTERN_CONT, SLURM_INTERACTIVE_STEP };
	const char *h = "{\"env\": [[\"MOONCAKE_MASTER\", \"x\"]], \"peer\": \"127.0.0.1\"}";

	in_tmpdir();
	for (size_t i = 0; i < 3; i++) {
		remote_step(steps[i], TRT, "decode", h, NULL);
		ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
		ck_assert_ptr_null(stub_getenv("MOONCAKE_MASTER"));
		slurm_spank_exit(NULL, 0, NULL);
	}
	/* even a bad plugstack line never fails the batch step (node drain) */
	{
		char *bad[] = { "colour=blue", NULL };

		remote_step(SLURM_BATCH_SCRIPT, TRT, "decode", NULL, bad);
		ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
		slurm_spank_exit(NULL, 0, NULL);
	}
}
END_TEST

START_TEST(stepd_inherited_recipe_without_role)
{
	in_tmpdir();
	remote_step(2, "elsewhere.yaml", NULL, NULL, NULL);
	stub_setenv("SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_recipe", "elsewhere.yaml");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_ptr_null(stub_getenv("MOONCAKE_MASTER"));
	ck_assert_int_eq(stub.errors, 0);
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(stepd_errors_return_minus_one)
{
	char *bad[] = { "colour=blue", NULL };
	const char *h = "{\"env\": [], \"peer\": \"\"}";

	in_tmpdir();
	/* a plugstack problem is raised in task_init, not in init */
	remote_step(1, TRT, "decode", h, bad);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains("unknown argument 'colour=blue'");
	slurm_spank_exit(NULL, 0, NULL);
	/* a role, but nothing handed over: srun's host lacks the plugin */
	remote_step(1, TRT, "decode", NULL, NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains("mooncake: srun handed this task no Mooncake environment (SLURM_MOONCAKE_TASK is not set): is spank_mooncake.so in the plugstack.conf of the host srun ran on");
	slurm_spank_exit(NULL, 0, NULL);
	/* something else handed over */
	remote_step(1, TRT, "decode", "[1, 2]", NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains("mooncake: SLURM_MOONCAKE_TASK is not what srun hands over");
	slurm_spank_exit(NULL, 0, NULL);
	/* a handover of another version of the plugin (srun's host) */
	remote_step(1, TRT, "decode", "{\"v\": 1, \"env\": [], \"peer\": \"\"}", NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains("mooncake: srun handed this task a Mooncake environment of format 1, and this node's spank_mooncake.so reads format 2: srun's host and this node run different versions of the plugin");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* the master step claims its ports on the infra node */
START_TEST(stepd_master_step_claims_its_ports)
{
	int busy;

	in_tmpdir();
	ck_assert_int_eq(init(S_CTX_REMOTE, NULL), 0);
	stub.step_id = 4;
	stub_setenv(MCP_PORTS_VAR, "8990,8991,8992");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_ptr_null(stub_getenv(MCP_PORTS_VAR));
	slurm_spank_exit(NULL, 0, NULL);
	busy = hold_port(8991);
	ck_assert_int_eq(init(S_CTX_REMOTE, NULL), 0);
	stub.step_id = 4;
	stub_setenv(MCP_PORTS_VAR, "8990,8991,8992");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains("mooncake: port 8991 (metadata) on ");
	ck_log_contains(" is taken: another process listens on it; the srun that started this step tries other ports");
	slurm_spank_exit(NULL, 0, NULL);
	close(busy);
	/* a port no master of this cluster has: the variable is the user's */
	ck_assert_int_eq(init(S_CTX_REMOTE, NULL), 0);
	stub.step_id = 4;
	stub_setenv(MCP_PORTS_VAR, "22,8991,8992");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains("mooncake: port 22 (RPC) is not a port of mooncake_master on this cluster");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(stepd_sglang_gets_variables_no_path)
{
	char *h;

	in_tmpdir();
	write_file("sglang.yaml", SGLANG);
	h = handover_of("sglang.yaml", "prefill");
	remote_step(1, "sglang.yaml", "prefill", h, NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_ptr_null(stub_getenv("MOONCAKE_CONFIG_PATH"));
	ck_assert_str_eq(stub_getenv("MOONCAKE_MASTER"), "127.0.0.1:8700");
	ck_assert_str_eq(stub_getenv("MOONCAKE_PROTOCOL"), "tcp");
	slurm_spank_exit(NULL, 0, NULL);
	free(h);
}
END_TEST

/* vLLM device_names_by_gpu: the task's file follows its physical GPUs,
 * also when ConstrainDevices renumbers CUDA_VISIBLE_DEVICES from 0; it is
 * what the library renders for those GPUs */
START_TEST(stepd_vllm_per_gpu_file)
{
	char want[512], path[512], *h;
	char *text;
	FILE *f;

	in_tmpdir();
	write_file("vllm.yaml", VLLM_GPU);
	h = handover_of("vllm.yaml", "prefill");
	remote_step(1, "vllm.yaml", "prefill", h, NULL);
	stub_setenv("CUDA_VISIBLE_DEVICES", "0,1");
	stub_setenv("SLURM_STEP_GPUS", "2,3");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	snprintf(want, sizeof(want), "%s/outputs/4301/logs/mooncake_store_config_gpu2-3.json", dir);
	ck_assert_str_eq(stub_getenv("MOONCAKE_CONFIG_PATH"), want);
	f = fopen(want, "r");
	ck_assert_ptr_nonnull(f);
	text = calloc(1, 4096);
	ck_assert_uint_gt(fread(text, 1, 4095, f), 0);
	fclose(f);
	ck_assert_str_eq(text, "{\n  \"protocol\": \"rdma\",\n  \"master_server_address\": \"127.0.0.1:8700\",\n"
			       "  \"metadata_server\": \"P2PHANDSHAKE\",\n  \"device_name\": \"mlx5_1\"\n}");
	/* vLLM's store worker reads the node's address from its own variable */
	ck_assert_str_eq(stub_getenv("MOONCAKE_REQUESTER_LOCAL_HOSTNAME"), "127.0.0.1");
	ck_assert_str_eq(stub_getenv("MOONCAKE_LOCAL_HOSTNAME"), "127.0.0.1");
	free(text);
	slurm_spank_exit(NULL, 0, NULL);
	/* unconstrained: CUDA_VISIBLE_DEVICES holds physical ids already */
	remote_step(1, "vllm.yaml", "prefill", h, NULL);
	stub_setenv("CUDA_VISIBLE_DEVICES", "1,2");
	stub_setenv("SLURM_STEP_GPUS", "1,2");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	snprintf(path, sizeof(path), "%s/outputs/4301/logs/mooncake_store_config_gpu1-2.json", dir);
	ck_assert_str_eq(stub_getenv("MOONCAKE_CONFIG_PATH"), path);
	f = fopen(path, "r");
	text = calloc(1, 4096);
	ck_assert_uint_gt(fread(text, 1, 4095, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "\"device_name\": \"mlx5_0,mlx5_1\""));
	free(text);
	slurm_spank_exit(NULL, 0, NULL);
	/* a GPU outside the list */
	remote_step(1, "vllm.yaml", "prefill", h, NULL);
	stub_setenv("CUDA_VISIBLE_DEVICES", "5");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains("does not cover physical GPUs [5]");
	slurm_spank_exit(NULL, 0, NULL);
	free(h);
}
END_TEST

Suite *plugin_suite(void)
{
	Suite *s = suite_create("plugin");
	TCase *srun = tcase_create("srun"), *alloc = tcase_create("sbatch"),
	      *stepd = tcase_create("slurmstepd");

	tcase_set_timeout(srun, 60);
	tcase_add_checked_fixture(srun, NULL, remove_tmpdir);
	tcase_add_checked_fixture(alloc, NULL, remove_tmpdir);
	tcase_add_checked_fixture(stepd, NULL, remove_tmpdir);
	tcase_add_test(srun, srun_without_option_does_nothing);
	tcase_add_test(srun, srun_bad_recipe_fails_before_anything);
	tcase_add_test(srun, srun_missing_recipe_file);
	tcase_add_test(srun, srun_several_roles_need_a_role);
	tcase_add_test(srun, srun_role_the_recipe_lacks);
	tcase_add_test(srun, srun_inherited_recipe_without_role_gets_nothing);
	tcase_add_test(srun, srun_empty_option_value);
	tcase_add_test(srun, role_without_recipe_is_refused);
	tcase_add_test(srun, srun_concurrent_failure_fails_at_once);
	tcase_add_test(srun, srun_earlier_failure_is_retried);
	tcase_add_test(srun, srun_ready_master_that_died);
	tcase_add_test(srun, srun_from_outside_uses_the_jobs_directory);
	tcase_add_test(srun, srun_from_outside_sees_a_requeue);
	tcase_add_test(srun, srun_other_jobs_pool_is_not_joined);
	tcase_add_test(srun, srun_ready_master_unreachable);
	tcase_add_test(srun, srun_master_that_exits_at_start);
	tcase_add_test(srun, srun_master_not_on_path_says_how_to_fix);
	tcase_add_test(srun, master_exec_advice_cases);
	tcase_add_test(srun, srun_in_allocation_prepares_before_the_step);
	tcase_add_test(srun, srun_jobid_other_than_the_environment);
	tcase_add_test(srun, plugstack_arguments);
	tcase_add_test(srun, srun_master_not_ready_in_time);
	tcase_add_test(srun, srun_master_that_lost_its_ports_moves_on);
	tcase_add_loop_test(srun, srun_adopts_the_master_of_a_dead_starter, 0, 2);
	tcase_add_test(srun, srun_never_takes_a_foreign_listener_for_the_master);
	tcase_add_test(srun, srun_joins_no_listener_of_an_ended_master_step);
	tcase_add_test(srun, srun_wait_ends_with_the_job);
	tcase_add_test(srun, net_addresses);
	tcase_add_test(srun, plugstack_pool_arguments);
	tcase_add_test(srun, sampler_step_argv_and_env);
	tcase_add_test(alloc, alloc_refuses_bad_recipe);
	tcase_add_test(alloc, alloc_accepts_recipe_without_role);
	tcase_add_test(srun, srun_joins_a_ready_master);
	tcase_add_test(srun, srun_other_recipe_is_refused);
	tcase_add_test(srun, srun_changed_client_config_is_refused);
	tcase_add_test(srun, srun_starts_the_master_on_srtctls_ports);
	tcase_add_test(srun, srun_starts_the_master_on_free_ports);
	tcase_add_test(srun, srun_fixed_ports_taken_is_refused);
	tcase_add_test(srun, srun_fixed_ports_taken_by_the_jobs_other_pool);
	tcase_add_test(stepd, stepd_task_gets_role_env);
	tcase_add_test(stepd, stepd_trtllm_node_file);
	tcase_add_test(stepd, stepd_reads_no_recipe);
	tcase_add_test(stepd, stepd_batch_step_gets_nothing);
	tcase_add_test(stepd, stepd_inherited_recipe_without_role);
	tcase_add_test(stepd, stepd_errors_return_minus_one);
	tcase_add_test(stepd, stepd_master_step_claims_its_ports);
	tcase_add_test(stepd, stepd_sglang_gets_variables_no_path);
	tcase_add_test(stepd, stepd_vllm_per_gpu_file);
	suite_add_tcase(s, srun);
	suite_add_tcase(s, alloc);
	suite_add_tcase(s, stepd);
	return s;
}
