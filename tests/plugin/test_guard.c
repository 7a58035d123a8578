/*
 * test_guard.c - the master step's guard (spank/steps/keep.c), started as
 * slurmstepd starts it: the test process is the master step's task (the
 * master, once it would exec mooncake_master), and it binds the ports
 * itself, or finds one of them taken by a process outside its tree.
 */
#include <signal.h>
#include <sys/wait.h>

#include "net/net.h"
#include "plugin/handover.h"
#include "plugin_case.h"
#include "steps/ha.h"
#include "steps/keep.h"
#include "steps/step.h"

static const struct mcr_ports GUARD_PORTS = { 8980, 8981, 8982 };

/* a job directory (0700, the caller's) in the test's directory */
static const char *guard_dir(void)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/logs", case_dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	return path;
}

/* the master step's task_init with the guard's variable (srun's value for
 * attempt 1, a bound of `bound` seconds); its return code */
static int master_task_init(const char *dir, int bound)
{
	char *value = mcp_guard_value(1, bound, 0, &GUARD_PORTS, dir);
	int rc;

	ck_assert_ptr_nonnull(value);
	master_step(NULL, MCP_GUARD_VAR, value);
	free(value);
	rc = slurm_spank_task_init(NULL, 0, NULL);
	ck_assert_ptr_null(stub_getenv(MCP_GUARD_VAR));
	return rc;
}

/* the guard's proof in `dir`, waited for up to 10 s */
static struct mcri_proof wait_proof(const char *dir)
{
	struct mcri_proof p = { 0 };
	struct mcri_jobdir jd;
	struct mcr_error err;

	ck_assert_int_eq(mcri_jobdir_open(&jd, dir, getuid(), false, &err), 0);
	for (int i = 0; i < 400 && mcri_proof_read(&jd, &p, &err) != 0; i++)
		usleep(25000);
	mcri_jobdir_close(&jd);
	ck_assert_msg(p.verdict != MCRI_PROOF_NONE, "no proof in %s", dir);
	return p;
}

/* The master's own listeners: OWN, for its attempt, ports, pid and step */
START_TEST(guard_proves_the_masters_own_ports)
{
	const char *dir;
	struct mcri_proof p;
	int fd[3];

	in_tmpdir();
	dir = guard_dir();
	ck_assert_int_eq(master_task_init(dir, 10), 0);
	ck_assert_int_eq(stub.errors, 0);
	fd[0] = hold_port(GUARD_PORTS.rpc);
	fd[1] = hold_port(GUARD_PORTS.metadata);
	fd[2] = hold_port(GUARD_PORTS.metrics);
	p = wait_proof(dir);
	ck_assert_int_eq(p.verdict, MCRI_PROOF_OWN);
	ck_assert_int_eq(p.attempt, 1);
	ck_assert_int_eq(p.ports.rpc, GUARD_PORTS.rpc);
	ck_assert_int_eq(p.ports.metadata, GUARD_PORTS.metadata);
	ck_assert_int_eq(p.ports.metrics, GUARD_PORTS.metrics);
	/* the master step's task stays as the keeper; its child, this test
	 * from here on, is the master */
	ck_assert_int_eq(p.pid, (long)getppid());
	ck_assert_uint_eq(p.start, mcri_pid_start(getppid()));
	ck_assert_uint_eq(p.step, 4);
	for (int k = 0; k < 3; k++)
		close(fd[k]);
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* A listener outside the master's tree (another user's, raced into the
 * window before the master binds): FOREIGN, with its port and owner */
START_TEST(guard_names_a_foreign_listener)
{
	const char *dir;
	struct mcri_proof p;
	int fd[2], sync[2];
	pid_t mid, foreign = 0;

	in_tmpdir();
	dir = guard_dir();
	ck_assert_int_eq(pipe(sync), 0);
	/* twice forked: the listener is no descendant of this process */
	mid = fork();
	ck_assert_int_ge(mid, 0);
	if (mid == 0) {
		pid_t l = fork();

		if (l == 0) {
			int s = hold_port(GUARD_PORTS.metadata);
			pid_t me = getpid();

			if (write(sync[1], &me, sizeof(me)) != sizeof(me))
				_exit(1);
			pause();
			close(s);
			_exit(0);
		}
		_exit(l < 0);
	}
	ck_assert_int_eq(waitpid(mid, NULL, 0), mid);
	ck_assert_int_eq(read(sync[0], &foreign, sizeof(foreign)), sizeof(foreign));
	ck_assert_int_eq(master_task_init(dir, 10), 0);
	fd[0] = hold_port(GUARD_PORTS.rpc);
	fd[1] = hold_port(GUARD_PORTS.metrics);
	p = wait_proof(dir);
	kill(foreign, SIGKILL);
	ck_assert_int_eq(p.verdict, MCRI_PROOF_FOREIGN);
	ck_assert_int_eq(p.foreign_port, GUARD_PORTS.metadata);
	ck_assert_uint_eq(p.foreign_uid, getuid());
	close(fd[0]);
	close(fd[1]);
	close(sync[0]);
	close(sync[1]);
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* An HA pool's standby master listens on its RPC port only once it
 * leads: its metadata and metrics ports prove it OWN, in the proof of its
 * member (the second, on node n2); its master binds its node's address */
START_TEST(guard_proves_an_ha_standby)
{
	const struct mcri_ha ha = { .masters = 2,
				    .etcd_members = 1,
				    .etcd_client = 8983,
				    .etcd_peer = 8984,
				    .member = { { "n1", "127.0.0.1" }, { "n2", "127.0.0.2" } } };
	char *guard, *hav = mcp_ha_value(&ha, 1, "4301");
	struct mcri_proof p = { 0 };
	struct mcri_jobdir jd;
	struct mcr_error err;
	const char *dir;
	int fd[2];

	in_tmpdir();
	dir = guard_dir();
	guard = mcp_guard_value(1, 10, 0, &GUARD_PORTS, dir);
	master_step(NULL, MCP_GUARD_VAR, guard);
	stub_setenv(MCP_HA_VAR, hav);
	stub_setenv("SLURMD_NODENAME", "n2");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_int_eq(stub.errors, 0);
	ck_assert_str_eq(stub_getenv("FLAGS_rpc_address"), "127.0.0.2");
	ck_assert_ptr_null(stub_getenv(MCP_HA_VAR));
	fd[0] = hold_port(GUARD_PORTS.metadata);
	fd[1] = hold_port(GUARD_PORTS.metrics);
	ck_assert_int_eq(mcri_jobdir_open(&jd, dir, getuid(), false, &err), 0);
	for (int i = 0; i < 400 && mcri_proof_of_member(&jd, 1, 1, &p) != 0; i++)
		usleep(25000);
	ck_assert_int_eq(mcri_proof_of_attempt(&jd, 1, &(struct mcri_proof){ 0 }), -1);
	mcri_jobdir_close(&jd);
	ck_assert_int_eq(p.verdict, MCRI_PROOF_OWN);
	ck_assert(p.ha);
	ck_assert_int_eq(p.member, 1);
	close(fd[0]);
	close(fd[1]);
	free(guard);
	free(hav);
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* A guard variable that is not srun's fails the task, naming it */
START_TEST(guard_value_not_sruns_is_refused)
{
	static const char *const bad[] = {
		"garbage",
		"0,5,0,8980,8981,8982:/tmp",
		"1,5,0,8980,8981,70000:/tmp",
		"1,5,0,8980,8981,8982:relative",
		"1,0,0,8980,8981,8982:/tmp",
		"1,5,-1,8980,8981,8982:/tmp",
		"1,5,101,8980,8981,8982:/tmp",
		"1,5,8980,8981,8982:/tmp", /* an srun of the version before restart= */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[256];

		master_step(NULL, MCP_GUARD_VAR, bad[i]);
		ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
		snprintf(want, sizeof(want), "mooncake: %s='%s' is not what srun hands the master step", MCP_GUARD_VAR,
			 bad[i]);
		ck_log_contains(want);
		slurm_spank_exit(NULL, 0, NULL);
	}
}
END_TEST

Suite *guard_suite(void)
{
	Suite *s = suite_create("plugin-guard");
	TCase *tc = tcase_create("guard");

	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, NULL, remove_tmpdir);
	tcase_add_test(tc, guard_proves_the_masters_own_ports);
	tcase_add_test(tc, guard_names_a_foreign_listener);
	tcase_add_test(tc, guard_proves_an_ha_standby);
	tcase_add_test(tc, guard_value_not_sruns_is_refused);
	suite_add_tcase(s, tc);
	return s;
}
