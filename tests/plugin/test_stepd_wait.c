/*
 * test_stepd_wait.c - the plugin's callbacks against the SPANK stub
 * (stub.c): a task of a step whose srun joined the job's master while it
 * started waits in task_init for ready (spank/stepd/stepd.c).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "plugin/common.h"
#include "plugin/handover.h"
#include "plugin_case.h"

/* What srun hands the tasks of a prefill step of job 4301 (heap) when the
 * job's master step was launched by another srun, on another host, and is
 * not ready yet: the srun joins it once it sees that srun touch its lock
 * (election.c), and its tasks wait for ready. *st is the state recorded,
 * logdir (600 bytes) the job's directory. */
static char *starting_handover(struct mcri_state *st, char *logdir)
{
	char *text, lock[700];
	pid_t toucher;

	memset(st, 0, sizeof(*st));
	st->phase = MCRI_PHASE_STARTING;
	st->master_step = 3;
	st->srun_pid = (long)getpid(); /* launched */
	snprintf(logdir, 600, "%s", record_state(st));
	snprintf(lock, sizeof(lock), "%s/mooncake_master.1.lock", logdir);
	toucher = fork();
	if (toucher == 0) { /* the starter's heartbeat */
		usleep(150000);
		_exit(utimensat(AT_FDCWD, lock, NULL, 0) == 0 ? 0 : 1);
	}
	ck_assert_int_gt(toucher, 0);
	text = srun_handover(TRT, "prefill");
	ck_assert_int_eq(waitpid(toucher, NULL, 0), toucher);
	return text;
}

/* the task of a step whose srun joined a master that was starting waits
 * until the job's state says ready on the address srun handed over; a
 * master that failed, came up on other ports or not in time fails the
 * task with why, and the task gets no Mooncake variable */
START_TEST(stepd_task_waits_for_a_starting_master)
{
	struct mcri_state st;
	struct mcp_handover d;
	struct mcr_error err;
	char logdir[600], *h, *h1;
	double t0;
	pid_t flip;

	in_tmpdir();
	h = starting_handover(&st, logdir);
	ck_assert_msg(strstr(h,
			     "\"starting\":{\"master\":\"127.0.0.1:8700\",\"metadata\":\"127.0.0.1:8701\",\"within\":"),
		      "%s", h);
	/* srun wrote the role's client config (the starter had not yet) */
	ck_assert(exists("%s/mooncake_store_config_prefill.json", logdir));
	/* ready 300 ms after the task began */
	flip = fork();
	if (flip == 0) {
		usleep(300000);
		st.phase = MCRI_PHASE_READY;
		_exit(testdir_state_write(logdir, &st) == 0 ? 0 : 1);
	}
	ck_assert_int_gt(flip, 0);
	remote_step(3, TRT, "prefill", h, NULL);
	t0 = mcp_now();
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_msg(mcp_now() - t0 >= 0.25, "the task did not wait: %.3f s", mcp_now() - t0);
	ck_assert_int_eq(waitpid(flip, NULL, 0), flip);
	ck_assert_str_eq(stub_getenv("MOONCAKE_MASTER"), "127.0.0.1:8700");
	ck_assert_int_eq(stub.errors, 0);
	slurm_spank_exit(NULL, 0, NULL);
	/* the attempt failed */
	st.phase = MCRI_PHASE_FAILED;
	snprintf(st.message, sizeof(st.message), "mooncake_master exited with status 1");
	ck_assert_int_eq(testdir_state_write(logdir, &st), 0);
	remote_step(3, TRT, "prefill", h, NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains(
		"mooncake: the job's mooncake_master could not be started (another srun of this job tried): mooncake_master exited with status 1");
	ck_assert_ptr_null(stub_getenv("MOONCAKE_MASTER"));
	slurm_spank_exit(NULL, 0, NULL);
	/* ready, on ports other than those handed over (another job's master
	 * took them meanwhile): the task follows it, its variables and the
	 * node's own client config name where it became ready, and nothing
	 * names the old ports */
	st.phase = MCRI_PHASE_READY;
	st.ports = (struct mcr_ports){ 8806, 8807, 8808 };
	ck_assert_int_eq(testdir_state_write(logdir, &st), 0);
	remote_step(3, TRT, "prefill", h, NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_int_eq(stub.errors, 0);
	ck_assert_str_eq(stub_getenv("MOONCAKE_MASTER"), "127.0.0.1:8806");
	ck_assert_str_eq(stub_getenv("MOONCAKE_TE_META_DATA_SERVER"), "http://127.0.0.1:8807/metadata");
	{
		struct mcp_handover d1;
		char *followed;

		ck_assert_int_eq(mcp_handover_decode(h, &d1, &err), 0);
		ck_assert_int_eq(mcp_handover_follow(&d1, "127.0.0.1:8806", "127.0.0.1:8807", &err), 0);
		ck_assert_ptr_nonnull(followed = mcp_handover_encode(&d1, &err));
		ck_assert_msg(strstr(followed, "\\\"master_server_address\\\": \\\"127.0.0.1:8806\\\""), "%s",
			      followed);
		ck_assert_msg(!strstr(followed, ":8700") && !strstr(followed, ":8701"), "%s", followed);
		mcp_handover_free(&d1);
		free(followed);
	}
	slurm_spank_exit(NULL, 0, NULL);
	/* still starting when the bound (1 s here) has passed */
	st.phase = MCRI_PHASE_STARTING;
	st.ports = DEFAULT_PORTS;
	ck_assert_int_eq(testdir_state_write(logdir, &st), 0);
	ck_assert_int_eq(mcp_handover_decode(h, &d, &err), 0);
	d.starting_within = 1;
	ck_assert_ptr_nonnull(h1 = mcp_handover_encode(&d, &err));
	mcp_handover_free(&d);
	remote_step(3, TRT, "prefill", h1, NULL);
	t0 = mcp_now();
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_assert_double_ge(mcp_now() - t0, 0.9);
	ck_log_contains(
		"mooncake: timed out after 1 s waiting for the job's mooncake_master (127.0.0.1:8700) that another srun of this job is starting (state: starting); see ");
	slurm_spank_exit(NULL, 0, NULL);
	free(h1);
	free(h);
}
END_TEST

Suite *stepd_wait_suite(void)
{
	Suite *s = suite_create("plugin-stepd-wait");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, NULL, remove_tmpdir);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, stepd_task_waits_for_a_starting_master);
	suite_add_tcase(s, tc);
	return s;
}
