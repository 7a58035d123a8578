/*
 * test_lenders.c - the memory lenders' parts of the plugin (spank/lender*.c)
 * that run without a cluster: the guard srun hands a lender step, and a
 * role task's wait for the lenders of its node (their records in the job's
 * directory, as the starting srun and the lender's keeper write them).
 */
#include <sys/wait.h>
#include <time.h>

#include "plugin/common.h"
#include "plugin_case.h"
#include "stepd/stepd.h"
#include "steps/keep.h"
#include "steps/lender.h"
#include "steps/step.h"

START_TEST(lender_guard_round_trip)
{
	struct mcp_guard g;
	struct mcr_error err;
	char *v = mcp_lender_guard_value(MCRI_LENDER_STORE, 2, 60, 3, 30, 8080, "/jobs/7", "lender_store.n3",
					 "the store service store on n3", "10.0.0.13:*", "10.0.0.11:8702", "");

	ck_assert_int_eq(mcp_lender_guard_parse(v, 5, &g, &err), 0);
	ck_assert(g.lender.on);
	ck_assert_int_eq(g.lender.kind, MCRI_LENDER_STORE);
	ck_assert_int_eq(g.proof.attempt, 2);
	ck_assert_int_eq(g.bound, 60);
	ck_assert_int_eq(g.proof.restart_limit, 3);
	ck_assert_int_eq(g.hang, 30);
	ck_assert_int_eq(g.proof.ports.rpc, 8080);
	ck_assert_int_eq(g.proof.ports.metadata, 0);
	ck_assert_uint_eq(g.proof.step, 5);
	ck_assert_str_eq(g.dir, "/jobs/7");
	ck_assert_str_eq(g.lender.subject, "lender_store.n3");
	ck_assert_str_eq(g.lender.segment, "10.0.0.13:*");
	ck_assert_str_eq(g.lender.master, "10.0.0.11:8702");
	ck_assert_str_eq(mcp_guard_what(&g), "the store service store on n3");
	free(v);
	/* a donor: no port, no hang probe, a ready file in the job's directory */
	v = mcp_lender_guard_value(MCRI_LENDER_DONOR, 1, 60, 3, 30, 0, "/jobs/7", "lender_donor.n3", "the donor", "",
				   "10.0.0.11:8702", "mooncake/donor-n3.ready");
	ck_assert_int_eq(mcp_lender_guard_parse(v, 5, &g, &err), 0);
	ck_assert_int_eq(g.hang, 0);
	ck_assert_str_eq(g.lender.ready, "mooncake/donor-n3.ready");
	free(v);
}
END_TEST

/* what a user may set the variable to is refused: another subject, a
 * ready file outside the job's directory, a store without a port */
START_TEST(lender_guard_refuses_what_srun_never_hands)
{
	static const char *const bad[] = {
		"0,1,60,3,30,8080:/jobs/7\nmooncake_master\nw\n10.0.0.13:*\n10.0.0.11:8702\n",
		"1,1,60,3,30,0:/jobs/7\nlender_d.n3\nw\n\n10.0.0.11:8702\n/etc/passwd",
		"1,1,60,3,30,0:/jobs/7\nlender_d.n3\nw\n\n10.0.0.11:8702\n../../x",
		"0,1,60,3,30,0:/jobs/7\nlender_s.n3\nw\n10.0.0.13:*\n10.0.0.11:8702\n",
		"0,1,60,3,30,8080:jobs\nlender_s.n3\nw\n10.0.0.13:*\n10.0.0.11:8702\n",
		"0,1,60,999,30,8080:/jobs/7\nlender_s.n3\nw\n10.0.0.13:*\n10.0.0.11:8702\n",
		"7,1,60,3,30,8080:/jobs/7\nlender_s.n3\nw\n10.0.0.13:*\n10.0.0.11:8702\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct mcp_guard g;
		struct mcr_error err;

		ck_assert_msg(mcp_lender_guard_parse(bad[i], 5, &g, &err) == -1, "%zu: taken", i);
		ck_assert_ptr_nonnull(strstr(err.text, "is not what srun hands a lender step"));
		ck_assert(!g.lender.on);
	}
}
END_TEST

/* a lender's records in the job's directory `dir` (its state, its
 * keeper's proof) */
static void lender_records(const char *dir, const char *subject, enum mcri_phase phase, bool ended, const char *message)
{
	struct mcri_jobdir jd = { .fd = -1 };
	struct mcri_state st = { .phase = phase, .attempt = 1 };
	struct mcri_proof p = { .attempt = 1, .verdict = MCRI_PROOF_OWN, .ended = ended };
	struct mcr_error err;

	snprintf(st.message, sizeof(st.message), "%s", message);
	snprintf(st.job_id, sizeof(st.job_id), "4301");
	if (ended)
		snprintf(p.ended_why, sizeof(p.ended_why), "the store service ended 4 times already");
	ck_assert_int_eq(mcri_jobdir_open(&jd, dir, getuid(), false, &err), 0);
	ck_assert_int_eq(mcri_state_write_of(&jd, subject, &st, &err), 0);
	ck_assert_int_eq(mcri_proof_write_of(&jd, subject, &p, &err), 0);
	mcri_jobdir_close(&jd);
}

/* a task waits for each lender of its node until its state says ready;
 * one that failed, ended, or is not ready in time fails it (critical),
 * or is said and not waited for (critical: false) */
START_TEST(task_waits_for_its_nodes_lenders)
{
	char dir[512], value[2048];
	struct mcr_error err;
	pid_t writer;
	double t0;

	in_tmpdir();
	snprintf(dir, sizeof(dir), "%s/job", case_dir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	/* ready: on its own node (*), and an infra lender on n1 */
	lender_records(dir, "lender_store.n3", MCRI_PHASE_READY, false, "");
	lender_records(dir, "lender_head.n1", MCRI_PHASE_READY, false, "");
	snprintf(value, sizeof(value), "1\n%s\nL\tstore\t1\t5\t*\nL\thead\t1\t5\tn1\n", dir);
	ck_assert_int_eq(mcp_task_wait_lenders(value, "n3", &err), 0);
	/* starting, ready a moment later (written by another process) */
	lender_records(dir, "lender_store.n3", MCRI_PHASE_STARTING, false, "");
	writer = fork();
	if (writer == 0) {
		usleep(300000);
		lender_records(dir, "lender_store.n3", MCRI_PHASE_READY, false, "");
		_exit(0);
	}
	t0 = mcp_now();
	ck_assert_int_eq(mcp_task_wait_lenders(value, "n3", &err), 0);
	ck_assert(mcp_now() - t0 >= 0.25);
	ck_assert_int_eq(waitpid(writer, NULL, 0), writer);
	/* failed, with the starter's message */
	lender_records(dir, "lender_store.n3", MCRI_PHASE_FAILED, false, "it ended before it was ready");
	ck_assert_int_eq(mcp_task_wait_lenders(value, "n3", &err), -1);
	ck_assert_str_eq(
		err.text,
		"this task on n3 needs the lender store on n3 (critical: true): the lender store on n3 could not be started: it ended before it was ready");
	/* ended by its keeper */
	lender_records(dir, "lender_store.n3", MCRI_PHASE_READY, true, "");
	ck_assert_int_eq(mcp_task_wait_lenders(value, "n3", &err), -1);
	ck_assert_ptr_nonnull(
		strstr(err.text, "the lender store on n3 has ended (the store service ended 4 times already)"));
	/* srun's word that it failed: at once */
	lender_records(dir, "lender_store.n3", MCRI_PHASE_STARTING, false, "");
	snprintf(value, sizeof(value), "1\n%s\nL\tstore\t1\t5\t*\nF\tstore\tn3\tport 8080 is taken\n", dir);
	t0 = mcp_now();
	ck_assert_int_eq(mcp_task_wait_lenders(value, "n3", &err), -1);
	ck_assert(mcp_now() - t0 < 1);
	ck_assert_str_eq(err.text, "this task on n3 needs the lender store on n3 (critical: true): port 8080 is taken");
	/* critical: false goes on */
	snprintf(value, sizeof(value), "1\n%s\nL\tstore\t0\t5\t*\nF\tstore\tn3\tport 8080 is taken\n", dir);
	ck_assert_int_eq(mcp_task_wait_lenders(value, "n3", &err), 0);
	/* not ready within its bound (1 s): the log's last lines */
	testdir_write("job/service_store.n3.out", "starting\nstill starting\n");
	snprintf(value, sizeof(value), "1\n%s\nL\tstore\t1\t1\t*\n", dir);
	ck_assert_int_eq(mcp_task_wait_lenders(value, "n3", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.text, "timed out after 1 s waiting for the lender store on n3 (starting)"));
	ck_assert_ptr_nonnull(strstr(err.text, "still starting"));
	/* a value of another version of the plugin */
	ck_assert_int_eq(mcp_task_wait_lenders("2\nx\n", "n3", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.text, "SLURM_MOONCAKE_LENDERS is not what srun hands a task"));
}
END_TEST

/* srun's own --nodelist: before the step's command, the last one given */
START_TEST(srun_named_nodes)
{
	static const char a[] = "srun\0-N1\0-w\0n3\0--mooncake-role=decode\0python3\0-w\0x";
	static const char b[] = "srun\0--nodelist=n[1-2]\0-wn4\0true";
	static const char c[] = "srun\0--nodelist\0n1\0bash\0-c\0-w n2";
	static const char d[] = "srun\0-N2\0true\0-w\0n2";
	char *v;

	ck_assert_str_eq(v = mcp_srun_named_nodes(a, sizeof(a), 3), "n3");
	free(v);
	ck_assert_str_eq(v = mcp_srun_named_nodes(b, sizeof(b), 1), "n4");
	free(v);
	ck_assert_str_eq(v = mcp_srun_named_nodes(c, sizeof(c), 3), "n1");
	free(v);
	ck_assert_ptr_null(mcp_srun_named_nodes(d, sizeof(d), 3));
	ck_assert_ptr_null(mcp_srun_named_nodes(a, sizeof(a), 7));
}
END_TEST

Suite *lenders_suite(void)
{
	Suite *s = suite_create("lenders");
	TCase *tc = tcase_create("lenders");

	tcase_add_checked_fixture(tc, NULL, remove_tmpdir);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, lender_guard_round_trip);
	tcase_add_test(tc, lender_guard_refuses_what_srun_never_hands);
	tcase_add_test(tc, task_waits_for_its_nodes_lenders);
	tcase_add_test(tc, srun_named_nodes);
	suite_add_tcase(s, tc);
	return s;
}
