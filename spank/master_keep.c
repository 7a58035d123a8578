/*
 * master_keep.c - the master step keeps its master running (restart=).
 *
 * The master step's task forks in task_init: the child goes on to become
 * mooncake_master (slurmstepd execs it, in the recipe's container when a
 * later plugin enters one), and the task stays in the step as its keeper.
 * The keeper proves the ports the master's, as the guard does (guard.c),
 * then waits for it. When a master that was proved ready dies while the
 * job runs (a crash, an OOM kill, kill -9), the keeper records it in the
 * proof (restarting, when, how), says so in the master's log, and starts
 * it again on the same node and ports after a back-off (1, 2, 4, 8, 16 s;
 * 1 s again after a master that ran STEADY_S), at most restart= times,
 * and proves the new master's ports. Sruns that join meanwhile wait for
 * it (master_look.c); the clients mount their segments again by
 * themselves; the keys the master indexed are lost.
 *
 * Slurm's signals to the step end it: the keeper passes each on to the
 * master (proctrack/cgroup signals only the task, slurmstepd's child;
 * proctrack/linuxproc spares processes named slurmstepd, so the keeper
 * renames itself), starts nothing again, and leaves as the master left.
 * Nor does it start again a master that never became ready (the srun that
 * started the first says why; a restarted one ends the pool), one that
 * exited 0, or one whose port another process holds by then.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "master.h"

#define POLL_MS 25
#define BACKOFF_MAX_S 16
#define STEADY_S 60 /* a master that ran this long starts the back-off again */

static const int STOP_SIGNALS[] = { SIGTERM, SIGINT, SIGHUP };
#define N_STOP (sizeof(STOP_SIGNALS) / sizeof(STOP_SIGNALS[0]))

/* the keeper's state that its signal handler shares (one keeper per
 * process: the master step's task) */
static volatile sig_atomic_t stopping;  /* the signal Slurm ended the step with */
static volatile pid_t master_pid;       /* the running master, 0 none */

static void on_stop(int sig)
{
	int saved = errno;

	stopping = sig;
	if (master_pid > 0)
		kill(master_pid, sig);
	errno = saved;
}

struct signals {
	struct sigaction old[N_STOP]; /* the task's dispositions, for the master */
	sigset_t mask;                /* the task's mask, for the master */
	sigset_t stop;                /* STOP_SIGNALS */
};

static void catch_stop(struct signals *s)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&s->stop);
	for (size_t i = 0; i < N_STOP; i++)
		sigaddset(&s->stop, STOP_SIGNALS[i]);
	sa.sa_mask = s->stop;
	for (size_t i = 0; i < N_STOP; i++)
		sigaction(STOP_SIGNALS[i], &sa, &s->old[i]);
	sigprocmask(SIG_UNBLOCK, &s->stop, &s->mask);
}

/* the master's signals as slurmstepd left the task's */
static void release_stop(const struct signals *s)
{
	for (size_t i = 0; i < N_STOP; i++)
		sigaction(STOP_SIGNALS[i], &s->old[i], NULL);
	sigprocmask(SIG_SETMASK, &s->mask, NULL);
}

/* Unix seconds, to the millisecond (the pool's samples are) */
static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The task leaves: its proof says no restart is under way, and it ends as
 * its master ended (an exit status, or the same signal), or by the stop
 * signal when no master runs. */
static void leave(struct mcp_guard *g, const struct signals *s, int status, bool master_ran)
{
	int sig = !master_ran && stopping ? (int)stopping :
		  WIFSIGNALED(status) ? WTERMSIG(status) : 0;

	if (g->proof.restarting) {
		g->proof.restarting = false;
		mcp_guard_record(g);
	}
	MCP_COVERAGE_FLUSH();
	if (sig) {
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
		sigprocmask(SIG_SETMASK, &s->mask, NULL);
		sigprocmask(SIG_UNBLOCK, &s->stop, NULL);
		/* the master's SIGABRT or SIGSEGV: the keeper dumps no core */
		setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
		raise(sig);
		_exit(128 + sig);
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

enum end { END_DIED, END_NEVER_READY, END_FOREIGN, END_LOST };

/* Prove the master `child` ready (its sockets on the ports, guard.c) while
 * waiting for it to end; its wait status into *status. A restarted master
 * that is not proved within the bound is stopped (END_NEVER_READY); one
 * whose port another process holds too (END_FOREIGN). */
static enum end wait_master(struct mcp_guard *g, pid_t child, int *status)
{
	double deadline = mcp_now() + g->bound;
	enum end end = END_DIED;
	bool looking = true;

	for (;;) {
		pid_t w = waitpid(child, status, looking ? WNOHANG : 0);

		if (w == child)
			return end;
		if (w < 0 && errno != EINTR) {
			fprintf(stderr, "mooncake: the master step lost track of its mooncake_master (waitpid: %s)\n",
				strerror(errno));
			return END_LOST;
		}
		if (!looking)
			continue;
		if ((g->proof.verdict = mcp_guard_look(&g->proof)) != MCRI_PROOF_NONE) {
			looking = false;
			g->proof.restarting = false;
			g->proof.proved_at = wall_now();
			mcp_guard_record(g);
			if (g->proof.verdict == MCRI_PROOF_FOREIGN && g->proof.restarts) {
				end = END_FOREIGN;
				kill(child, SIGKILL);
			}
		} else if (mcp_now() > deadline) {
			/* the first master: the srun that waits says why */
			looking = false;
			if (g->proof.restarts) {
				end = END_NEVER_READY;
				kill(child, SIGKILL);
			}
		} else {
			mcp_sleep_ms(POLL_MS);
		}
	}
}

/* A listener on one of the master's ports before it is started again:
 * another process's (the old master's sockets closed with it) */
static bool port_taken(struct mcp_guard *g)
{
	const int ports[3] = { g->proof.ports.rpc, g->proof.ports.metadata, g->proof.ports.metrics };
	struct mcri_listener l[1];

	if (mcri_listening(ports, 3, l, 1) == 0)
		return false;
	g->proof.verdict = MCRI_PROOF_FOREIGN;
	g->proof.foreign_port = l[0].port;
	g->proof.foreign_uid = l[0].uid;
	return true;
}

int mcp_master_keep(struct mcp_guard *g, struct mcr_error *err)
{
	int backoff = 1, status = 0;
	char cause[64], host[64] = "the infra node";
	struct signals s;

	gethostname(host, sizeof(host) - 1);
	catch_stop(&s);
	/* a process named slurmstepd is one proctrack/linuxproc never
	 * signals: the keeper is the task, and says so */
	prctl(PR_SET_NAME, "mooncake-keeper", 0, 0, 0);
	for (;;) {
		double started, ran;
		enum end end;
		pid_t child;
		int delay;

		/* no stop signal between the check and master_pid */
		sigprocmask(SIG_BLOCK, &s.stop, NULL);
		if (stopping)
			leave(g, &s, status, false);
		child = fork();
		if (child == 0) {
			release_stop(&s);
			return 0; /* slurmstepd makes it mooncake_master */
		}
		if (child > 0)
			master_pid = child;
		sigprocmask(SIG_UNBLOCK, &s.stop, NULL);
		if (child < 0 && !g->proof.restarts) {
			release_stop(&s);
			return mcri_error_set(err, MCR_EIO,
					      "the master step on %s cannot start mooncake_master: fork: %s; check the user's process limit (ulimit -u) and the memory there",
					      host, strerror(errno));
		}
		if (child < 0) {
			fprintf(stderr, "mooncake: the master step on %s cannot start mooncake_master again (fork: %s): the job's pool has ended; check the user's process limit (ulimit -u) and the memory there\n",
				host, strerror(errno));
			leave(g, &s, 1 << 8, false);
		}
		started = mcp_now();
		end = wait_master(g, child, &status);
		master_pid = 0;
		ran = mcp_now() - started;
		mcp_describe_status(status, cause, sizeof(cause));
		if (end == END_FOREIGN)
			fprintf(stderr, "mooncake: port %d on %s is another process's (uid %u), not the restarted mooncake_master's; it was stopped, and the job's pool has ended: find the process with ss -ltnp on %s, then resubmit the job\n",
				g->proof.foreign_port, host, g->proof.foreign_uid, host);
		else if (end == END_NEVER_READY)
			fprintf(stderr, "mooncake: the restarted mooncake_master did not listen on its ports %d, %d, %d within %d s; it was stopped, and the job's pool has ended: see the lines above\n",
				g->proof.ports.rpc, g->proof.ports.metadata, g->proof.ports.metrics, g->bound);
		/* Slurm ends the step; a master that never was ready, stopped
		 * cleanly (exit 0), or lost to another process */
		if (stopping || end != END_DIED || (!g->proof.restarts && g->proof.verdict != MCRI_PROOF_OWN) ||
		    (WIFEXITED(status) && !WEXITSTATUS(status)))
			leave(g, &s, status, true);
		if (g->proof.restarts >= g->proof.restart_limit) {
			fprintf(stderr, "mooncake: mooncake_master ended with %s after %.0f s, and it was started again %d times already (restart=%d): the job's pool has ended; see the lines above, and raise restart= in plugstack.conf if the master should outlive more ends\n",
				cause, ran, g->proof.restarts, g->proof.restart_limit);
			leave(g, &s, status, true);
		}
		if (ran >= STEADY_S)
			backoff = 1;
		delay = backoff;
		backoff = backoff * 2 > BACKOFF_MAX_S ? BACKOFF_MAX_S : backoff * 2;
		mcri_proof_restart(&g->proof, wall_now(), cause);
		g->proof.restarting = true;
		g->proof.verdict = MCRI_PROOF_NONE;
		mcp_guard_record(g);
		fprintf(stderr, "mooncake: mooncake_master ended with %s after %.0f s; starting it again on ports %d, %d, %d in %d s (restart %d of at most %d): the keys it held are lost, its clients mount their segments again\n",
			cause, ran, g->proof.ports.rpc, g->proof.ports.metadata, g->proof.ports.metrics,
			delay, g->proof.restarts, g->proof.restart_limit);
		for (int t = 0; t < delay * 10 && !stopping; t++)
			mcp_sleep_ms(100);
		if (!stopping && port_taken(g)) {
			mcp_guard_record(g);
			fprintf(stderr, "mooncake: port %d on %s is another process's now (uid %u): mooncake_master is not started again, and the job's pool has ended: find the process with ss -ltnp on %s, then resubmit the job\n",
				g->proof.foreign_port, host, g->proof.foreign_uid, host);
			leave(g, &s, 1 << 8, false);
		}
	}
}
