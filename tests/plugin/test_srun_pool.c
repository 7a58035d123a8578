/*
 * test_srun_pool.c - the plugin's callbacks against the SPANK stub (stub.c):
 * srun and the job's pool: what earlier sruns left, joining a ready
 * master, waiting, failures and their advice.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <slurm/slurm.h>

#include "plugin/handover.h"
#include "plugin_case.h"
#include "steps/master.h"

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
		snprintf(st.message, sizeof(st.message),
			 "mooncake_master on n1 exited during start-up (exit status 1)");
		_exit(testdir_state_write(logdir, &st) ? 1 : 0);
	}
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "decode"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains(
		"could not be started (another srun of this job tried): mooncake_master on n1 exited during start-up (exit status 1)");
	/* no client config for a pool that is not there */
	ck_assert(!exists("%s/outputs/4301/logs/mooncake_store_config_decode.json", case_dir));
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
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", case_dir);
	ck_assert_int_eq(mkdir(elsewhere, 0700), 0);
	ck_assert_int_eq(chdir(elsewhere), 0);
	stub.work_dir = case_dir;
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	stub.work_dir = case_dir; /* stub_reset cleared it */
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	/* the job's recorded master, found where the job was submitted */
	ck_log_contains("was ready, but has stopped");
	ck_assert(!exists("%s/elsewhere/outputs", case_dir));
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert_int_eq(chdir(case_dir), 0);
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
	ck_log_contains(
		"/outputs/4301/logs holds the Mooncake pool of job 999, which still runs, and this srun is of job 4301: one directory holds one job's pool");
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

/* An HA pool recorded ready whose masters all refuse (nothing listens on
 * their hosts: a state left by a job of the same id) and whose step
 * slurmctld says has ended: the srun fails at once, saying so, and does
 * not wait its bound for masters that do not answer */
START_TEST(srun_ha_pool_that_has_ended)
{
	char *av[] = { "ha=etcd", "ready_timeout=60", NULL };
	struct mcri_state st = { 0 };
	double t0;
	struct timespec ts;

	in_tmpdir();
	st.phase = MCRI_PHASE_READY;
	st.master_step = 3;
	st.ha = (struct mcri_ha){ .masters = 3,
				  .etcd_members = 3,
				  .etcd_client = 8703,
				  .etcd_peer = 8704,
				  .member = { { "n1", "127.0.0.1" }, { "n2", "127.0.0.2" }, { "n3", "127.0.0.3" } } };
	record_state(&st);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	stub.step_ended = true;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (double)ts.tv_sec;
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ck_log_contains("its step 4301.3 has ended");
	ck_assert_msg((double)ts.tv_sec - t0 < 30, "the srun waited %.0f s", (double)ts.tv_sec - t0);
	ck_assert_ptr_null(getenv(MCP_TASK_VAR));
	slurm_spank_exit(NULL, 0, NULL);
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
	ck_log_contains(
		"mooncake: job 4301 has ended (COMPLETED) while this srun waited for its mooncake_master; nothing was started for this step");
	ck_assert_msg((double)ts.tv_sec - t0 < 40, "the wait took %.0f s, not ended with the job",
		      (double)ts.tv_sec - t0);
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
	ck_log_contains(
		" s of at most 2 s: it does not answer from this node, asking again (port 8700 (RPC) does not accept: ");
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
	snprintf(path, sizeof(path), "%s/outputs/4301/logs", case_dir);
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
	snprintf(srun, sizeof(srun), "%s/fake-srun", case_dir);
	write_file(srun, "#!/bin/sh\n"
			 "echo 'slurmstepd: error: execve(): mooncake_master: No such file or directory' >&2\n"
			 "echo 'srun: error: n1: task 0: Exited with exit code 2' >&2\n"
			 "exit 2\n");
	ck_assert_int_eq(chmod(srun, 0755), 0);
	snprintf(opt, sizeof(opt), "srun=%s", srun);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains(
		"ended during start-up (exit status 2) before it was ready. mooncake_master is not on the PATH of the master step on n1 (with --export=NONE");
	ck_log_contains("in plugstack.conf, master=/path/to/mooncake_master");
	ck_log_contains("Last lines of");
	ck_log_contains("execve(): mooncake_master: No such file or directory");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(master_exec_advice_cases)
{
	char out[1024];

	mcp_master_advice(
		NULL,
		"\n    slurmstepd: error: execve(): mooncake_master: No such file or directory\n    srun: error: n1: task 0: Exited with exit code 2",
		"mooncake_master", "n1", out, sizeof(out));
	ck_assert_msg(strstr(out, " mooncake_master is not on the PATH of the master step on n1") == out, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "in plugstack.conf, master=/path/to/mooncake_master"));
	ck_assert_ptr_nonnull(strstr(out, "without --export=NONE"));
	/* a name from the recipe's service command, not master= */
	mcp_master_advice(NULL, "slurmstepd: error: execve(): my_master: No such file or directory", "mooncake_master",
			  "n2", out, sizeof(out));
	ck_assert_ptr_nonnull(strstr(out, "in the command of the recipe's mooncake-master service"));
	ck_assert_ptr_null(strstr(out, "master=/path/to/"));
	/* an absolute path that is missing on the node */
	mcp_master_advice(NULL, "slurmstepd: error: execve(): /opt/mc/bin/mooncake_master: No such file or directory",
			  "/opt/mc/bin/mooncake_master", "n1", out, sizeof(out));
	ck_assert_str_eq(
		out,
		" /opt/mc/bin/mooncake_master does not exist on n1: install mooncake_master there (the Mooncake wheel), or correct master= in plugstack.conf.");
	mcp_master_advice(NULL, "slurmstepd: error: execve(): /opt/mooncake_master: Permission denied",
			  "/opt/mooncake_master", "n1", out, sizeof(out));
	ck_assert_ptr_nonnull(strstr(out, "cannot be run by the job's user"));
	/* anything else: no advice */
	mcp_master_advice(NULL, "\n    E20251201 master.cpp:99] bind failed: Address already in use", "mooncake_master",
			  "n1", out, sizeof(out));
	ck_assert_str_eq(out, "");
	mcp_master_advice(NULL, "", "mooncake_master", "n1", out, sizeof(out));
	ck_assert_str_eq(out, "");
	mcp_master_advice(NULL, "execve(): ", "mooncake_master", "n1", out, sizeof(out));
	ck_assert_str_eq(out, "");
	/* no room: nothing is written, not even the NUL */
	out[0] = 'x';
	mcp_master_advice(NULL, "slurmstepd: error: execve(): mooncake_master: No such file or directory",
			  "mooncake_master", "n1", out, 0);
	ck_assert_int_eq(out[0], 'x');
}
END_TEST

START_TEST(srun_joins_a_ready_master)
{
	char path[512];
	struct stat before, after;

	in_tmpdir();
	free(handover_of(TRT, "decode"));
	snprintf(path, sizeof(path), "%s/outputs/4301/logs/mooncake_store_config_decode.json", case_dir);
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
	write_file(
		"other.yaml",
		"schema: 2\nengine: vllm\nroles:\n  prefill: {args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}}\n"
		"services:\n  - {name: mooncake-master, type: mooncake-master}\n");
	master = ready_master(TRT);
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(NULL, "other.yaml", "prefill"), -1);
	ck_assert_ptr_nonnull(realpath(TRT, trt));
	snprintf(
		want, sizeof(want),
		"mooncake: the job's Mooncake pool in %s/outputs/4301/logs comes from the recipe %s, and this srun names %s/other.yaml: one directory holds one pool. Use %s for this step too, or give the other recipe an output.log_dir of its own (its pool then gets a master of its own)",
		case_dir, trt, case_dir, trt);
	ck_log_contains(want);
	ck_assert(!exists("%s/outputs/4301/logs/mooncake_store_config.json", case_dir));
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

Suite *srun_pool_suite(void)
{
	Suite *s = suite_create("plugin-srun-pool");
	TCase *srun = tcase_create("srun");

	tcase_set_timeout(srun, 60);
	tcase_add_checked_fixture(srun, NULL, remove_tmpdir);
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
	tcase_add_test(srun, srun_ha_pool_that_has_ended);
	tcase_add_test(srun, srun_wait_ends_with_the_job);
	tcase_add_test(srun, srun_joins_a_ready_master);
	tcase_add_test(srun, srun_other_recipe_is_refused);
	tcase_add_test(srun, srun_changed_client_config_is_refused);
	suite_add_tcase(s, srun);
	return s;
}
