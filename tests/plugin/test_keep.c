/*
 * test_keep.c - the master step keeps its master running (restart=,
 * spank/steps/keep.c), as slurmstepd runs it: a child of the test is the
 * master step's task; task_init returns in the keeper's child, which
 * stands for mooncake_master (it binds the ports, waits for its proof,
 * then dies as a crash or an OOM kill would), and the task itself stays
 * the keeper until it leaves.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/wait.h>

#include "plugin/handover.h"
#include "plugin_case.h"
#include "steps/keep.h"
#include "steps/step.h"

static const struct mcr_ports KEEP_PORTS = { 8983, 8984, 8985 };

/* how each master the keeper starts ends: killed once proved; at once,
 * never ready; when Slurm stops it; the first killed once proved, the
 * next never listening */
enum master_end { DIE_KILLED, EXIT_AT_ONCE, WAIT_FOR_TERM, FIRST_ONLY, HANG_FIRST };

static const char *keep_dir(void)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/logs", case_dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	return path;
}

static bool read_proof(const char *dir, struct mcri_proof *p)
{
	struct mcri_jobdir jd;
	struct mcr_error err;
	bool ok;

	if (mcri_jobdir_open(&jd, dir, getuid(), false, &err))
		return false;
	ok = mcri_proof_read(&jd, p, &err) == 0;
	mcri_jobdir_close(&jd);
	return ok;
}

/* the proof removed (0, or -1) */
static int unlink_proof(const char *dir)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/mooncake_master.proof.json", dir);
	return unlink(path);
}

/* The master step's task with restart=`limit` and a readiness bound of
 * `bound` s, its stderr into <dir>/task.err; each master it starts ends
 * as `end` says. Its pid. */
static pid_t master_step_task_args(char **av, const char *dir, int limit, int bound, enum master_end end);

static pid_t master_step_task(const char *dir, int limit, int bound, enum master_end end)
{
	return master_step_task_args(NULL, dir, limit, bound, end);
}

/* ... with plugstack arguments `av` (NULL: none) */
static pid_t master_step_task_args(char **av, const char *dir, int limit, int bound, enum master_end end)
{
	pid_t task = fork();
	char err_path[600];

	ck_assert_int_ge(task, 0);
	if (task > 0)
		return task;
	snprintf(err_path, sizeof(err_path), "%s/task.err", dir);
	int fd = open(err_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	char *value = mcp_guard_value(1, bound, limit, &KEEP_PORTS, dir);
	struct mcri_proof p;
	int s[3];

	if (fd < 0 || dup2(fd, 2) < 0 || !value)
		_exit(90);
	master_step(av, MCP_GUARD_VAR, value);
	if (slurm_spank_task_init(NULL, 0, NULL) != 0)
		_exit(91);
	/* the keeper's child: mooncake_master, once slurmstepd execs it (an
	 * exec resets the test runner's own SIGTERM handler) */
	signal(SIGTERM, SIG_DFL);
	if (end == EXIT_AT_ONCE)
		_exit(3);
	if (end == FIRST_ONLY && read_proof(dir, &p) && p.restarts)
		pause(); /* a restarted master that never listens */
	if (end == HANG_FIRST && read_proof(dir, &p) && p.restarts)
		fake_master_serve(&KEEP_PORTS, ""); /* a restarted master that answers */
	for (int k = 0; k < 3; k++)
		s[k] = hold_port(k == 0 ? KEEP_PORTS.rpc : k == 1 ? KEEP_PORTS.metadata : KEEP_PORTS.metrics);
	for (int i = 0; i < 400; i++) {
		if (read_proof(dir, &p) && p.verdict == MCRI_PROOF_OWN && !p.restarting)
			break;
		usleep(25000);
	}
	if (end == WAIT_FOR_TERM || end == HANG_FIRST)
		pause(); /* its ports listen, and nothing answers on them */
	(void)s;
	raise(SIGKILL);
	_exit(92);
}

/* a listener on `port` (any address), or -1 while it is taken */
static int hold_port_try(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(fd, 1) == 0)
		return fd;
	close(fd);
	return -1;
}

/* the first child of `pid` (the keeper's master), 0 when it has none */
static pid_t first_child(pid_t pid)
{
	char path[64];
	long child = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	if (fscanf(f, "%ld", &child) != 1)
		child = 0;
	fclose(f);
	return (pid_t)child;
}

/* the one child of `pid` (the keeper's master) */
static pid_t child_of(pid_t pid)
{
	pid_t child = first_child(pid);

	ck_assert_int_gt(child, 0);
	return child;
}

/* the keeper's proof that its master owns the ports (10 s), into *p */
static void wait_own(const char *dir, struct mcri_proof *p)
{
	for (int i = 0; i < 400 && !(read_proof(dir, p) && p->verdict == MCRI_PROOF_OWN); i++)
		usleep(25000);
	ck_assert_int_eq(p->verdict, MCRI_PROOF_OWN);
}

/* the task's exit status, waited for up to 60 s */
static int task_status(pid_t task)
{
	int status = 0;

	for (int i = 0; i < 600; i++) {
		if (waitpid(task, &status, WNOHANG) == task)
			return status;
		usleep(100000);
	}
	kill(task, SIGKILL);
	ck_abort_msg("the master step's task did not leave");
	return 0;
}

static char *task_err(const char *dir)
{
	static char text[8192];
	char path[600];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/task.err", dir);
	if ((f = fopen(path, "r"))) {
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
	}
	text[n] = '\0';
	return text;
}

/* A master that was proved ready and is killed is started again on the
 * same ports, restart= times; then the task leaves as the master did */
START_TEST(keeper_starts_a_ready_master_again)
{
	const char *dir;
	struct mcri_proof p;
	int status;
	char *err;

	in_tmpdir();
	dir = keep_dir();
	status = task_status(master_step_task(dir, 2, 10, DIE_KILLED));
	err = task_err(dir);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status 0x%x:\n%s", status, err);
	/* how long it ran depends on the machine's load: not asserted */
	ck_assert_msg(strstr(err, "mooncake: mooncake_master ended with signal 9 (Killed) after "), "%s", err);
	ck_assert_msg(strstr(err, " s; starting it again on ports 8983, 8984, 8985 in 1 s (restart 1 of at most 2)"),
		      "%s", err);
	ck_assert_msg(strstr(err, "in 2 s (restart 2 of at most 2)"), "%s", err);
	ck_assert_msg(strstr(err, "it was started again 2 times already (restart=2): the job's pool has ended"), "%s",
		      err);
	ck_assert(read_proof(dir, &p));
	ck_assert_int_eq(p.verdict, MCRI_PROOF_OWN); /* the last master, proved */
	ck_assert(p.ended);
	ck_assert_int_eq(p.restarts, 2);
	ck_assert_int_eq(p.restart_limit, 2);
	ck_assert(!p.restarting);
	ck_assert_uint_eq(mcri_proof_kept(&p), 2);
	ck_assert_str_eq(p.restart[0].cause, "signal 9 (Killed)");
	ck_assert(p.restart[1].at >= p.restart[0].at + 1); /* the back-off */
	ck_assert_int_eq(p.ports.rpc, KEEP_PORTS.rpc);
}
END_TEST

/* A master that never became ready is not started again: the srun that
 * waits for it says why, from its log */
START_TEST(keeper_leaves_a_master_that_never_was_ready)
{
	const char *dir;
	struct mcri_proof p;
	int status;

	in_tmpdir();
	dir = keep_dir();
	status = task_status(master_step_task(dir, 3, 10, EXIT_AT_ONCE));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status 0x%x", status);
	ck_assert_msg(!strstr(task_err(dir), "starting it again"), "%s", task_err(dir));
	/* no restart, and the pool ended */
	ck_assert(read_proof(dir, &p));
	ck_assert_int_eq(p.restarts, 0);
	ck_assert(p.ended);
}
END_TEST

/* Slurm ends the step (SIGTERM to each of its processes): nothing is
 * started again, the task leaves with the master */
START_TEST(keeper_ends_with_the_step)
{
	const char *dir;
	struct mcri_proof p = { 0 };
	pid_t task, master;
	int status;

	in_tmpdir();
	dir = keep_dir();
	task = master_step_task(dir, 3, 10, WAIT_FOR_TERM);
	wait_own(dir, &p);
	/* the step's processes, as proctrack signals them: the task and its
	 * child, the master */
	master = child_of(task);
	ck_assert_int_gt(master, 0);
	ck_assert_int_eq(kill(task, SIGTERM), 0);
	/* ... the master may be gone already: the keeper passed it on first */
	ck_assert_msg(kill(master, SIGTERM) == 0 || errno == ESRCH, "kill: %s", strerror(errno));
	status = task_status(task);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status 0x%x", status);
	ck_assert_msg(!strstr(task_err(dir), "starting it again"), "%s", task_err(dir));
}
END_TEST

/* Slurm ends the step while the keeper waits to start the master again:
 * it starts nothing, and counts no restart. The keeper is frozen once its
 * proof says a restart is under way; no master child then means it is in
 * its back-off (a loaded machine may have started the master already: the
 * next, longer back-off is taken then). */
START_TEST(keeper_ends_with_the_step_during_the_back_off)
{
	const char *dir;
	struct mcri_proof p = { 0 };
	pid_t task;
	int status, before = -1;

	in_tmpdir();
	dir = keep_dir();
	task = master_step_task(dir, 3, 10, DIE_KILLED);
	for (int tries = 0, seen = 0; tries < 3 && before < 0; tries++) {
		for (int i = 0; i < 1200 && !(read_proof(dir, &p) && p.restarting && p.restarts > seen); i++)
			usleep(25000);
		ck_assert(p.restarting);
		ck_assert_int_eq(kill(task, SIGSTOP), 0);
		if (first_child(task) == 0)
			before = p.restarts - 1;
		else
			ck_assert_int_eq(kill(task, SIGCONT), 0);
		seen = p.restarts;
	}
	ck_assert_int_ge(before, 0);
	ck_assert_int_eq(kill(task, SIGTERM), 0);
	ck_assert_int_eq(kill(task, SIGCONT), 0);
	status = task_status(task);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status 0x%x", status);
	ck_assert_msg(strstr(task_err(dir),
			     "mooncake: the master step ends (signal 15): mooncake_master is not started again"),
		      "%s", task_err(dir));
	ck_assert(read_proof(dir, &p));
	ck_assert_int_eq(p.restarts, before);
	ck_assert_uint_eq(mcri_proof_kept(&p), (size_t)before);
	ck_assert(p.ended);
	ck_assert(!p.restarting);
}
END_TEST

/* A signal Slurm sends the step only (proctrack/cgroup signals the task
 * alone) reaches the master through the keeper; a master it ends is not
 * started again */
START_TEST(keeper_passes_slurms_signals_on)
{
	const char *dir;
	struct mcri_proof p = { 0 };
	pid_t task;
	int status;

	in_tmpdir();
	dir = keep_dir();
	task = master_step_task(dir, 3, 10, WAIT_FOR_TERM);
	wait_own(dir, &p);
	ck_assert_int_eq(kill(task, SIGUSR1), 0);
	status = task_status(task);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1, "status 0x%x", status);
	ck_assert_msg(!strstr(task_err(dir), "starting it again"), "%s", task_err(dir));
	ck_assert(read_proof(dir, &p));
	ck_assert(p.ended);
}
END_TEST

/* A restarted master that never listens is stopped after the readiness
 * bound, and ends the pool: the proof says no restart is under way */
START_TEST(keeper_stops_a_restarted_master_that_never_is_ready)
{
	const char *dir;
	struct mcri_proof p;
	int status;
	char *err;

	in_tmpdir();
	dir = keep_dir();
	status = task_status(master_step_task(dir, 3, 2, FIRST_ONLY));
	err = task_err(dir);
	/* the task fails; it was not killed */
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status 0x%x:\n%s", status, err);
	ck_assert_msg(
		strstr(err,
		       "mooncake: the restarted mooncake_master did not listen on its ports 8983, 8984, 8985 within 2 s; it was stopped, and the job's pool has ended"),
		"%s", err);
	ck_assert_msg(!strstr(err, "restart 2 of"), "%s", err);
	ck_assert(read_proof(dir, &p));
	ck_assert_int_eq(p.restarts, 1);
	ck_assert(!p.restarting);
}
END_TEST

/* Another process listens on a port while the master is down: the master
 * is not started again, the pool ends, the proof names the port */
START_TEST(keeper_starts_nothing_on_a_taken_port)
{
	const char *dir;
	struct mcri_proof p = { 0 };
	pid_t task, master;
	int status, taken;
	char *err;

	in_tmpdir();
	dir = keep_dir();
	task = master_step_task(dir, 3, 10, WAIT_FOR_TERM);
	wait_own(dir, &p);
	master = child_of(task);
	ck_assert_int_eq(kill(master, SIGKILL), 0);
	/* the test, outside the keeper's tree, takes the RPC port during the
	 * back-off (1 s) */
	for (int i = 0; i < 100 && (taken = hold_port_try(KEEP_PORTS.rpc)) < 0; i++)
		usleep(10000);
	ck_assert_int_ge(taken, 0);
	status = task_status(task);
	close(taken);
	err = task_err(dir);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status 0x%x:\n%s", status, err);
	ck_assert_msg(strstr(err, "mooncake: port 8983 on "), "%s", err);
	ck_assert_msg(strstr(err, " is another process's now (uid "), "%s", err);
	ck_assert_msg(
		strstr(err,
		       "mooncake_master is not started again, and the job's pool has ended: find the process with ss -ltnp on "),
		"%s", err);
	ck_assert(read_proof(dir, &p));
	ck_assert_int_eq(p.verdict, MCRI_PROOF_FOREIGN);
	ck_assert_int_eq(p.foreign_port, KEEP_PORTS.rpc);
	ck_assert(!p.restarting);
	ck_assert_int_eq(p.restarts, 0); /* nothing was started again */
}
END_TEST

/* ---- sruns that join a pool whose keeper restarts its master ---- */

/* What a keeper left in the job's directory of job 4301: a ready state
 * (attempt 1, master step `step`) and its proof `p`. */
static void keeper_said(struct mcri_proof *p, long step)
{
	struct mcri_state st = { .phase = MCRI_PHASE_READY, .master_step = step };
	struct mcri_jobdir jd;
	struct mcr_error err;

	ck_assert_int_eq(mcri_jobdir_open(&jd, record_state(&st), getuid(), false, &err), 0);
	ck_assert_int_eq(mcri_proof_write(&jd, p, &err), 0);
	mcri_jobdir_close(&jd);
}

/* A master that is alive but answers none of its keeper's probes
 * (hang_timeout=) is killed and started again as a crashed one is, the
 * cause recorded; the restarted one, which answers, is kept */
START_TEST(keeper_restarts_a_hung_master)
{
	char *av[] = { "hang_timeout=10", NULL };
	const char *dir;
	struct mcri_proof p;
	pid_t task, first;
	char *err;
	int i;

	in_tmpdir();
	dir = keep_dir();
	task = master_step_task_args(av, dir, 1, 30, HANG_FIRST);
	wait_own(dir, &p);
	first = child_of(task);
	/* the first hangs; then a restarted one is proved */
	for (i = 0;
	     i < 600 && !(read_proof(dir, &p) && p.restarts == 1 && p.verdict == MCRI_PROOF_OWN && !p.restarting); i++)
		usleep(100000);
	err = task_err(dir);
	ck_assert_msg(p.restarts == 1 && p.verdict == MCRI_PROOF_OWN, "restarts %d, verdict %d:\n%s", p.restarts,
		      p.verdict, err);
	ck_assert_msg(strstr(err, "has answered none of its master step's probes for ") &&
			      strstr(err, "(hang_timeout=10; the last: GET /health on port 8985: ") &&
			      strstr(err, "it is hung, and is killed"),
		      "%s", err);
	ck_assert_msg(strstr(err, "mooncake_master ended with a hang (no answer for 10 s) after "), "%s", err);
	ck_assert_str_eq(p.restart[0].cause, "a hang (no answer for 10 s)");
	ck_assert_int_ne(child_of(task), first);
	ck_assert(!p.ended);
	kill(task, SIGTERM);
	task_status(task);
}
END_TEST

/* `pid` has ended (gone, or a zombie nobody reaps here) within 10 s */
static bool ends(pid_t pid)
{
	for (int i = 0; i < 100; i++) {
		char path[64], stat[256] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		if (!(f = fopen(path, "r")))
			return true;
		if (!fgets(stat, sizeof(stat), f))
			stat[0] = '\0';
		fclose(f);
		if (strstr(stat, ") Z "))
			return true;
		usleep(100000);
	}
	return false;
}

/* The keeper killed (kill -9): its master dies with it, and slurmstepd,
 * as it reaps the task (task_exit), records that the pool has ended, so
 * that no srun takes what answers on its ports later for the master */
START_TEST(keeper_death_ends_the_pool)
{
	const char *dir;
	struct mcri_proof p;
	char *value;
	pid_t task, master;

	in_tmpdir();
	dir = keep_dir();
	task = master_step_task(dir, 3, 10, WAIT_FOR_TERM);
	wait_own(dir, &p);
	master = child_of(task);
	ck_assert(!p.ended);
	kill(task, SIGKILL);
	ck_assert(WIFSIGNALED(task_status(task)));
	ck_assert_msg(ends(master), "the master outlived its keeper");
	/* slurmstepd reaps the task */
	value = mcp_guard_value(1, 10, 3, &KEEP_PORTS, dir);
	master_step(NULL, MCP_GUARD_VAR, value);
	ck_assert_int_eq(slurm_spank_task_exit(NULL, 0, NULL), 0);
	slurm_spank_exit(NULL, 0, NULL);
	free(value);
	ck_assert(read_proof(dir, &p));
	ck_assert(p.ended);
	ck_assert(!p.restarting);
	ck_assert_int_eq(p.verdict, MCRI_PROOF_OWN); /* what the keeper last said, kept */
	/* a role step's task that ends records nothing */
	ck_assert_int_eq(unlink_proof(dir), 0);
	remote_step(5, TRT, "prefill", NULL, NULL);
	ck_assert_int_eq(slurm_spank_task_exit(NULL, 0, NULL), 0);
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert(!read_proof(dir, &p));
	/* an end that cannot be recorded is said, in slurmd's log */
	value = mcp_guard_value(1, 10, 3, &KEEP_PORTS, "/nonexistent/mck-job-dir");
	master_step(NULL, MCP_GUARD_VAR, value);
	ck_assert_int_eq(slurm_spank_task_exit(NULL, 0, NULL), 0);
	free(value);
	ck_log_contains(": the end of the job's master step 4 could not be recorded in its directory as uid ");
	ck_log_contains(
		" (the directory or its proof cannot be written); its sruns see the end by the step alone: make the job's directory reachable by its user from this node");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* The master recorded ready refuses while its step runs, and the step's
 * keeper says it is starting it again (restart=): a joining srun waits
 * for it within the bound, and then says what it waited for. */
START_TEST(srun_waits_for_a_restarting_master)
{
	char *av[] = { "ready_timeout=2", NULL };
	struct mcri_proof p = { .attempt = 1, .ports = { 8700, 8701, 8702 }, .restart_limit = 3, .restarting = true };

	in_tmpdir();
	mcri_proof_restart(&p, 1, "signal 9 (Killed)");
	keeper_said(&p, 3);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains(
		"was ready and ended; its master step is starting it again, but it has not answered within 2 s (it ended (signal 9 (Killed)), and its master step is starting it again on the same ports: restart 1 of at most 3)");
	ck_assert_ptr_null(getenv(MCP_TASK_VAR));
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* Something answers on the port of a master its step started again, but
 * the step has not proved it the master (another process may have taken
 * the port while it was down): a joining srun does not take it for the
 * master. */
START_TEST(srun_trusts_no_unproved_restarted_master)
{
	char *av[] = { "ready_timeout=2", NULL };
	struct mcri_proof p = { .attempt = 1, .ports = { 8700, 8701, 8702 }, .restart_limit = 3 };
	pid_t other;

	in_tmpdir();
	other = fake_master_start(&(struct mcr_ports){ 8700, 8701, 8702 }, "");
	ck_assert_int_gt(other, 0);
	mcri_proof_restart(&p, 1, "signal 9 (Killed)");
	keeper_said(&p, 3);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains(
		"but it has not answered within 2 s (a process answers on port 8700, but the master step has not proved it its restarted mooncake_master)");
	ck_assert_ptr_null(getenv(MCP_TASK_VAR));
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(other);
}
END_TEST

/* The keeper has ended the pool (its limit, a stop): whatever answers on
 * the master's port later is not the job's master, even for a master
 * step that is the job's first (no slurmctld asked). */
START_TEST(srun_takes_no_listener_of_an_ended_pool)
{
	struct mcri_proof p = { .attempt = 1,
				.verdict = MCRI_PROOF_OWN,
				.ports = { 8700, 8701, 8702 },
				.restart_limit = 3,
				.ended = true };
	pid_t other;

	in_tmpdir();
	other = fake_master_start(&(struct mcr_ports){ 8700, 8701, 8702 }, "");
	ck_assert_int_gt(other, 0);
	keeper_said(&p, 0);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains(
		"was ready, but has stopped: its master step has ended the pool (mooncake_master.log tells why), and another process answers on its port now");
	ck_assert_ptr_null(getenv(MCP_TASK_VAR));
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(other);
}
END_TEST

Suite *keep_suite(void)
{
	Suite *s = suite_create("plugin-keep");
	TCase *tc = tcase_create("keep");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, remove_tmpdir);
	tcase_add_test(tc, keeper_starts_a_ready_master_again);
	tcase_add_test(tc, keeper_leaves_a_master_that_never_was_ready);
	tcase_add_test(tc, keeper_ends_with_the_step);
	tcase_add_test(tc, keeper_ends_with_the_step_during_the_back_off);
	tcase_add_test(tc, keeper_passes_slurms_signals_on);
	tcase_add_test(tc, keeper_stops_a_restarted_master_that_never_is_ready);
	tcase_add_test(tc, keeper_starts_nothing_on_a_taken_port);
	tcase_add_test(tc, keeper_restarts_a_hung_master);
	tcase_add_test(tc, keeper_death_ends_the_pool);
	suite_add_tcase(s, tc);
	tc = tcase_create("join");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, NULL, remove_tmpdir);
	tcase_add_test(tc, srun_waits_for_a_restarting_master);
	tcase_add_test(tc, srun_trusts_no_unproved_restarted_master);
	tcase_add_test(tc, srun_takes_no_listener_of_an_ended_pool);
	suite_add_tcase(s, tc);
	return s;
}
