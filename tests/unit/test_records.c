/* test_records.c - the master step's proof (runtime/jobdir/records.c):
 * its restarts are written and read back whole, the last ones kept, and a
 * record damaged or written by hand is never trusted as it stands. */
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static double seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* the proof's restarts: written and read back; the last 16 kept, oldest
 * first; a record damaged or written by hand never points past what it
 * holds, nor says a restart is under way without one */
START_TEST(proof_restarts)
{
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	struct mcri_proof p = { .attempt = 2,
				.verdict = MCRI_PROOF_OWN,
				.ports = { 8700, 8701, 8702 },
				.restart_limit = 20,
				.proved_at = 1700000000.25 },
			  back;
	char cause[32], base[256], path[300];

	testutil_tmpdir(base, sizeof(base), "proof");
	snprintf(path, sizeof(path), "%s/%s", base, MCRI_PROOF_FILE);
	ck_assert_int_eq(mcri_jobdir_open(&d, base, getuid(), false, &err), 0);
	for (int i = 1; i <= 18; i++) {
		snprintf(cause, sizeof(cause), "exit status %d", i);
		mcri_proof_restart(&p, 1700000000.0 + i, cause);
	}
	p.restarting = true;
	ck_assert_int_eq(mcri_proof_write(&d, &p, &err), 0);
	ck_assert_int_eq(mcri_proof_read(&d, &back, &err), 0);
	ck_assert_int_eq(back.restarts, 18);
	ck_assert_int_eq(back.restart_limit, 20);
	ck_assert(back.restarting);
	ck_assert_uint_eq(mcri_proof_kept(&back), MCRI_RESTARTS_KEPT);
	ck_assert_str_eq(back.restart[0].cause, "exit status 3");
	ck_assert_str_eq(back.restart[MCRI_RESTARTS_KEPT - 1].cause, "exit status 18");
	ck_assert(back.restart[0].at == 1700000003.0);
	ck_assert(back.proved_at == 1700000000.25);
	testutil_write(
		path,
		"{\"attempt\": 1, \"restarts\": 5, \"restarting\": true, \"restart\": [{\"at\": 1e300, \"cause\": \"x\"}]}");
	ck_assert_int_eq(mcri_proof_read(&d, &back, &err), 0);
	ck_assert_int_eq(back.restarts, 1);
	ck_assert(back.restart[0].at == 0);
	testutil_write(path, "{\"attempt\": 1, \"restarts\": 5000, \"restarting\": true, \"restart\": []}");
	ck_assert_int_eq(mcri_proof_read(&d, &back, &err), 0);
	ck_assert_int_eq(back.restarts, 0);
	ck_assert(!back.restarting);
	ck_assert_uint_eq(mcri_proof_kept(&back), 0);
	mcri_jobdir_close(&d);
	testutil_rmrf(base);
}
END_TEST

/* the proof of an election attempt: another attempt's, a damaged one or
 * none at all reads as nothing, all zero */
START_TEST(proof_of_attempt)
{
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	struct mcri_proof p = { .attempt = 2, .verdict = MCRI_PROOF_OWN, .restart_limit = 3 }, back;
	char base[256], path[300];

	testutil_tmpdir(base, sizeof(base), "proof");
	snprintf(path, sizeof(path), "%s/%s", base, MCRI_PROOF_FILE);
	ck_assert_int_eq(mcri_jobdir_open(&d, base, getuid(), false, &err), 0);
	ck_assert_int_eq(mcri_proof_of_attempt(&d, 2, &back), -1);
	ck_assert_int_eq(back.restart_limit, 0);
	ck_assert_int_eq(mcri_proof_write(&d, &p, &err), 0);
	ck_assert_int_eq(mcri_proof_of_attempt(&d, 2, &back), 0);
	ck_assert_int_eq(back.restart_limit, 3);
	ck_assert_int_eq(mcri_proof_of_attempt(&d, 3, &back), -1);
	ck_assert_int_eq(back.verdict, MCRI_PROOF_NONE);
	ck_assert_int_eq(back.restart_limit, 0);
	testutil_write(path, "{\"attempt\": 2, \"restart_limit\": ");
	ck_assert_int_eq(mcri_proof_of_attempt(&d, 2, &back), -1);
	ck_assert_int_eq(back.attempt, 0);
	mcri_jobdir_close(&d);
	testutil_rmrf(base);
}
END_TEST

/* a watch on the job's directory: a wait ends with a file written into it
 * by another process (the state, renamed into place), long before its
 * bound; with nothing new it lasts its bound; no watch without a directory */
START_TEST(jobdir_watch)
{
	struct mcri_jobdir d, none = { .fd = -1 };
	struct mcr_error err = { 0 };
	struct mcri_state st = { .attempt = 1, .phase = MCRI_PHASE_READY };
	char base[256], path[320];
	double t;
	pid_t pid;
	struct mcri_watch w, nw;
	int status;

	testutil_tmpdir(base, sizeof(base), "watch");
	ck_assert_int_eq(mcri_jobdir_open(&d, base, getuid(), false, &err), 0);
	ck_assert_int_eq(mcri_jobdir_watch(&d, &w), 0);
	ck_assert_int_ge(w.inotify, 0);
	t = seconds_now();
	mcri_jobdir_wait(&w, 100);
	ck_assert(seconds_now() - t >= 0.09);
	/* the pool's other files (a client config, the master's log) wake
	 * no one: the wait lasts its bound */
	snprintf(path, sizeof(path), "%s/mooncake_store_config_prefill.json", base);
	testutil_write(path, "{}\n");
	snprintf(path, sizeof(path), "%s/mooncake_master.log", base);
	testutil_write(path, "started\n");
	t = seconds_now();
	mcri_jobdir_wait(&w, 300);
	ck_assert_msg(seconds_now() - t >= 0.29, "woken by another file after %.3f s", seconds_now() - t);
	/* a lock file does */
	snprintf(path, sizeof(path), "%s/mooncake_master.2.lock", base);
	testutil_write(path, "1 elsewhere\n");
	t = seconds_now();
	mcri_jobdir_wait(&w, 60000);
	ck_assert(seconds_now() - t < 30);
	if ((pid = fork()) == 0) {
		usleep(200 * 1000);
		_exit(mcri_state_write(&d, &st, &err) == 0 ? 0 : 1);
	}
	t = seconds_now();
	mcri_jobdir_wait(&w, 60000);
	ck_assert(seconds_now() - t < 30);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(status, 0);
	mcri_jobdir_unwatch(&w);
	ck_assert_int_eq(mcri_jobdir_watch(&none, &nw), -1);
	mcri_jobdir_wait(&nw, 60000); /* no watch: returns at once */
	mcri_jobdir_unwatch(&nw);
	mcri_jobdir_close(&d);
	testutil_rmrf(base);
}
END_TEST

/* a user whose inotify instances are used up (here: no descriptor left
 * for one, so that no instance of the user's is taken) still gets a
 * watch: the directory's change time, which the state file's write moves */
static int watch_without_inotify(const char *base)
{
	struct mcri_jobdir d;
	struct mcri_state st = { .attempt = 1, .phase = MCRI_PHASE_READY };
	struct mcr_error err = { 0 };
	struct mcri_watch w;
	struct rlimit few = { 256, 256 };
	double t;
	pid_t pid;
	int status, fd, null, last[4] = { -1, -1, -1, -1 };

	/* the directory older than a clock tick: the watch begins settled */
	usleep(50 * 1000);
	if (mcri_jobdir_open(&d, base, getuid(), false, &err) || setrlimit(RLIMIT_NOFILE, &few) ||
	    (null = open("/dev/null", O_RDONLY)) < 0)
		return 1;
	for (int k = 0; (fd = dup(null)) >= 0; k++)
		last[k % 4] = fd;
	if (mcri_jobdir_watch(&d, &w) != 0 || w.inotify != -1 || w.dir != d.fd || w.unsettled)
		return 2;
	for (int k = 0; k < 4; k++) /* descriptors for the state file's writer */
		if (last[k] >= 0)
			close(last[k]);
	t = seconds_now();
	mcri_jobdir_wait(&w, 100); /* nothing changes: its bound */
	if (seconds_now() - t < 0.09)
		return 3;
	if ((pid = fork()) == 0) {
		usleep(200 * 1000);
		_exit(mcri_state_write(&d, &st, &err) == 0 ? 0 : 1);
	}
	t = seconds_now();
	mcri_jobdir_wait(&w, 60000);
	if (seconds_now() - t >= 30 || waitpid(pid, &status, 0) != pid || status != 0)
		return 4;
	/* seen: once the write's last change (its rename) is taken, and
	 * the look again a tick later, the next wait waits again */
	mcri_jobdir_wait(&w, 100);
	mcri_jobdir_wait(&w, 100);
	t = seconds_now();
	mcri_jobdir_wait(&w, 100);
	if (seconds_now() - t < 0.09)
		return 5;
	mcri_jobdir_unwatch(&w);
	mcri_jobdir_close(&d);
	return 0;
}

START_TEST(jobdir_watch_past_inotify)
{
	char base[256];
	pid_t pid;
	int status;

	testutil_tmpdir(base, sizeof(base), "watchstat");
	if ((pid = fork()) == 0)
		_exit(watch_without_inotify(base));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "step %d failed", WEXITSTATUS(status));
	testutil_rmrf(base);
}
END_TEST

Suite *records_suite(void)
{
	Suite *s = suite_create("records");
	TCase *tc = tcase_create("proof");

	tcase_add_test(tc, proof_restarts);
	tcase_add_test(tc, proof_of_attempt);
	tcase_add_test(tc, jobdir_watch);
	tcase_add_test(tc, jobdir_watch_past_inotify);
	tcase_set_timeout(tc, 120); /* a wait that misses the change lasts its 60 s */
	suite_add_tcase(s, tc);
	return s;
}
