/*
 * test_srun_join.c - the plugin's callbacks against the SPANK stub (stub.c):
 * what an srun that joins a pool, or waits while another srun starts it,
 * asks slurmctld and decides: the master step's end, the keeper's proof,
 * the look for pyxis.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <slurm/slurm.h>

#include "jobdir/jobdir.h"
#include "plugin/handover.h"
#include "plugin_case.h"

/* A fake master on the default ports, and job 4301's state of `phase`
 * naming master step 3 (*st; its job directory into logdir, 600 bytes):
 * the fake master's pid */
static pid_t pool_of_step_3(enum mcri_phase phase, struct mcri_state *st, char *logdir)
{
	pid_t master;

	in_tmpdir();
	master = fake_master_start(&DEFAULT_PORTS, "");
	ck_assert_int_gt(master, 0);
	memset(st, 0, sizeof(*st));
	st->phase = phase;
	st->master_step = 3;
	snprintf(logdir, 600, "%s", record_state(st));
	return master;
}

/* A process that records *st READY in logdir 300 ms from now: the
 * starter's verdict coming while the srun waits; its pid */
static pid_t ready_later(const char *logdir, struct mcri_state *st)
{
	pid_t pid = fork();

	if (pid == 0) {
		usleep(300000);
		st->phase = MCRI_PHASE_READY;
		_exit(testdir_state_write(logdir, st) == 0 ? 0 : 1);
	}
	ck_assert_int_gt(pid, 0);
	return pid;
}

/* The master recorded ready has ended (slurmctld: its step is gone) and
 * another user's process took its port: a joining srun says so, and hands
 * its tasks nothing. */
START_TEST(srun_joins_no_listener_of_an_ended_master_step)
{
	struct mcri_state st;
	char logdir[600];
	pid_t other = pool_of_step_3(MCRI_PHASE_READY, &st, logdir);

	stub.step_ended = true;
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	stub.step_ended = true; /* srun_post_opt's init reset it */
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains(
		"was ready, but has stopped: its step 4301.3 has ended, and another process answers on its port now");
	ck_assert_ptr_null(getenv(MCP_TASK_VAR));
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(other);
}
END_TEST

/* The job's first step is its master step, which ended with no record of
 * its end (an older plugin's keeper, a lost file), and another user's
 * process answers on its port now: a joiner asks slurmctld whenever the
 * record cannot prove the master step runs, whatever its number, and
 * refuses what answers there; a first wave, which finds the keeper's
 * proof, asks nothing (srun_trusts_the_keepers_proof_without_slurmctld). */
START_TEST(srun_asks_slurmctld_when_the_record_proves_nothing)
{
	struct mcri_state st;
	char logdir[600];
	pid_t other = pool_of_step_3(MCRI_PHASE_READY, &st, logdir);

	st.master_step = 0;
	ck_assert_int_eq(testdir_state_write(logdir, &st), 0);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	stub.step_ended = true;
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_assert_int_eq(stub.step_asked, 1);
	ck_log_contains("its step 4301.0 has ended, and another process answers on its port now");
	ck_assert_ptr_null(getenv(MCP_TASK_VAR));
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(other);
}
END_TEST

/* An srun that waits while another srun of the job starts its pool
 * decides no container (the starter did): it runs no `srun --help`, the
 * look for pyxis, which cost each srun of a first wave of 256 a third of
 * its CPU time (the first srun of a job looks: the cluster tests with
 * the pyxis stand-in). */
START_TEST(srun_waiting_for_the_starter_does_not_look_for_pyxis)
{
	struct mcri_state st;
	char logdir[600], srun[400], helped[400], opt[420], text[1000];
	char *av[] = { opt, NULL };
	pid_t flip, other = pool_of_step_3(MCRI_PHASE_STARTING, &st, logdir);

	snprintf(st.recipe, sizeof(st.recipe), "%s", TRT);
	ck_assert_int_eq(testdir_state_write(logdir, &st), 0);
	snprintf(srun, sizeof(srun), "%s/help-srun", case_dir);
	snprintf(helped, sizeof(helped), "%s/helped", case_dir);
	snprintf(text, sizeof(text), "#!/bin/sh\n[ \"$1\" = --help ] && echo \"$1\" >>%s\nexit 0\n", helped);
	write_file(srun, text);
	ck_assert_int_eq(chmod(srun, 0755), 0);
	snprintf(opt, sizeof(opt), "srun=%s", srun);
	flip = ready_later(logdir, &st);
	setenv("SLURM_JOB_ID", "4301", 1); /* inside the allocation */
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), 0);
	unsetenv("SLURM_JOB_ID");
	ck_assert_int_eq(waitpid(flip, NULL, 0), flip);
	ck_assert_ptr_nonnull(getenv(MCP_TASK_VAR));
	ck_assert_msg(!exists("%s", helped), "a waiting srun ran srun --help:\n%s", stub.log);
	unsetenv(MCP_TASK_VAR);
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(other);
}
END_TEST

/* A master step launched by a starter on another host that this srun
 * never sees touch its lock (one that may have died) is not joined while
 * it starts: the srun waits for the verdict, and its tasks get a handover
 * without "starting" (test_stepd.c: one whose lock is touched is). */
START_TEST(srun_does_not_join_an_untouched_starting_master)
{
	struct mcri_state st;
	char logdir[600];
	pid_t flip, other = pool_of_step_3(MCRI_PHASE_STARTING, &st, logdir);

	st.srun_pid = (long)getpid(); /* launched */
	ck_assert_int_eq(testdir_state_write(logdir, &st), 0);
	flip = ready_later(logdir, &st);
	setenv("SLURM_JOB_ID", "4301", 1); /* inside the allocation */
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	unsetenv("SLURM_JOB_ID");
	ck_assert_int_eq(waitpid(flip, NULL, 0), flip);
	ck_assert_int_eq(stub.errors, 0);
	ck_assert_ptr_nonnull(getenv(MCP_TASK_VAR));
	ck_assert_msg(!strstr(getenv(MCP_TASK_VAR), "\"starting\""), "%s", getenv(MCP_TASK_VAR));
	unsetenv(MCP_TASK_VAR);
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(other);
}
END_TEST

/* Another srun, on another host, holds job 4301's lock of attempt 1
 * (it starts the master): a child that holds it until killed; its pid */
static pid_t lock_holder(const char *logdir)
{
	int ready[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	if (pid == 0) {
		struct mcri_jobdir jd;
		struct mcr_error err;

		if (mcri_jobdir_open(&jd, logdir, getuid(), false, &err) || mcri_lock_hold(&jd, 1) < 0 ||
		    write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	return pid;
}

/* SIGTERM to this process 300 ms from now (timeout(1), scancel) */
static pid_t term_later(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		usleep(300000);
		_exit(kill(parent, SIGTERM) == 0 ? 0 : 1);
	}
	ck_assert_int_gt(pid, 0);
	return pid;
}

static volatile sig_atomic_t sruns_handler_ran;
static void sruns_handler(int sig)
{
	sruns_handler_ran = sig;
}

/* An srun that waits while another srun starts the job's master ends at
 * once when it is told to stop, saying what it waited for: with the
 * signal blocked and pending (srun 22.05-25.11 while its plugins
 * prepare), and with srun's own handler for it (26.05), which still runs */
START_TEST(srun_waiting_ends_when_told_to_stop)
{
	struct mcri_state st = { .phase = MCRI_PHASE_STARTING };
	struct sigaction sa = { .sa_handler = sruns_handler }, old_sa;
	sigset_t term, old_mask;
	struct timespec zero = { 0, 0 };
	const char *logdir;
	pid_t holder, killer;

	in_tmpdir();
	logdir = record_state(&st);
	holder = lock_holder(logdir);
	setenv("SLURM_JOB_ID", "4301", 1); /* inside the allocation */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, &term, &old_mask), 0);
	killer = term_later();
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), -1);
	ck_log_contains("mooncake: srun was told to stop (Terminated) while it waited ");
	ck_log_contains(
		" for the job's mooncake_master that another srun of this job is starting (another srun of this job is starting it); nothing was started for this step");
	ck_assert_ptr_null(getenv(MCP_TASK_VAR));
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert_int_eq(waitpid(killer, NULL, 0), killer);
	ck_assert_int_eq(sigtimedwait(&term, NULL, &zero), SIGTERM);
	ck_assert_int_eq(sigprocmask(SIG_SETMASK, &old_mask, NULL), 0);
	/* srun's own handler (26.05) */
	ck_assert_int_eq(sigaction(SIGTERM, &sa, &old_sa), 0);
	killer = term_later();
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), -1);
	ck_log_contains("mooncake: srun was told to stop (Terminated) while it waited ");
	ck_assert_int_eq(sruns_handler_ran, SIGTERM);
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert_int_eq(waitpid(killer, NULL, 0), killer);
	ck_assert_int_eq(sigaction(SIGTERM, &old_sa, NULL), 0);
	unsetenv("SLURM_JOB_ID");
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
}
END_TEST

/* A joiner of a ready pool whose master step is not the job's first (an
 * srun from outside the allocation started it after its own step) asks
 * slurmctld nothing when the step's keeper says, in its proof, that it
 * runs and its master owns the ports; when the keeper has ended the pool,
 * what answers on the port is refused. */
START_TEST(srun_trusts_the_keepers_proof_without_slurmctld)
{
	struct mcri_state st;
	struct mcri_proof pr = { 0 };
	char logdir[600];
	pid_t other = pool_of_step_3(MCRI_PHASE_READY, &st, logdir);

	pr.attempt = 1;
	pr.step = 3;
	pr.alive_at = (double)time(NULL); /* the keeper said so just now */
	pr.verdict = MCRI_PROOF_OWN;
	pr.ports = st.ports;
	ck_assert_int_eq(testdir_proof_write(logdir, &pr), 0);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	stub.step_ended = true; /* asked, it would refuse */
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), 0);
	ck_assert_int_eq(stub.step_asked, 0);
	ck_assert_ptr_nonnull(getenv(MCP_TASK_VAR));
	unsetenv(MCP_TASK_VAR);
	slurm_spank_exit(NULL, 0, NULL);
	/* a keeper that has not said it runs for long (its node lost,
	 * slurmstepd killed before it recorded the end) proves nothing:
	 * slurmctld is asked */
	pr.alive_at = (double)time(NULL) - MCRI_PROOF_STALE_S - 10;
	ck_assert_int_eq(testdir_proof_write(logdir, &pr), 0);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	stub.step_ended = true;
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_assert_int_eq(stub.step_asked, 1);
	ck_log_contains("its step 4301.3 has ended");
	slurm_spank_exit(NULL, 0, NULL);
	pr.alive_at = (double)time(NULL);
	/* a proof of another step (a master step of an earlier attempt) is
	 * not the keeper's word: slurmctld is asked */
	pr.step = 2;
	ck_assert_int_eq(testdir_proof_write(logdir, &pr), 0);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	stub.step_ended = true;
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_assert_int_eq(stub.step_asked, 1);
	ck_log_contains("its step 4301.3 has ended");
	slurm_spank_exit(NULL, 0, NULL);
	/* the keeper ended the pool: refused, whatever answers */
	pr.step = 3;
	pr.ended = true;
	ck_assert_int_eq(testdir_proof_write(logdir, &pr), 0);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "decode"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("its master step has ended the pool");
	ck_assert_ptr_null(getenv(MCP_TASK_VAR));
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(other);
}
END_TEST

Suite *srun_join_suite(void)
{
	Suite *s = suite_create("plugin-srun-join");
	TCase *srun = tcase_create("srun");

	tcase_set_timeout(srun, 60);
	tcase_add_checked_fixture(srun, NULL, remove_tmpdir);
	tcase_add_test(srun, srun_joins_no_listener_of_an_ended_master_step);
	tcase_add_test(srun, srun_asks_slurmctld_when_the_record_proves_nothing);
	tcase_add_test(srun, srun_waiting_ends_when_told_to_stop);
	tcase_add_test(srun, srun_waiting_for_the_starter_does_not_look_for_pyxis);
	tcase_add_test(srun, srun_does_not_join_an_untouched_starting_master);
	tcase_add_test(srun, srun_trusts_the_keepers_proof_without_slurmctld);
	suite_add_tcase(s, srun);
	return s;
}
