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
 * themselves; the keys the master indexed are lost. Slurm's signals reach
 * every process of the step (proctrack; the keeper renames itself, as
 * Slurm spares processes named slurmstepd): the keeper then starts
 * nothing and leaves as the master left. Nor does it start again a master
 * that never became ready (the srun that started it says why) or one that
 * exited 0 (mooncake_master does when it is told to stop).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "master.h"

#define POLL_MS 25
#define BACKOFF_MAX_S 16
#define STEADY_S 60 /* a master that ran this long starts the back-off again */

static volatile sig_atomic_t stopping; /* the signal Slurm ended the step with */

static void on_stop(int sig)
{
	stopping = sig;
}

/* the keeper's own handling of Slurm's signals, on; or off again, with
 * the task's signal mask `mask` as slurmstepd left it (for the master) */
static void catch_stop(bool on, sigset_t *mask)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa;
	sigset_t stop;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? on_stop : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&stop);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&stop, sigs[i]);
	}
	if (on)
		sigprocmask(SIG_UNBLOCK, &stop, mask);
	else
		sigprocmask(SIG_SETMASK, mask, NULL);
}

/* Unix seconds, to the millisecond (the pool's samples are) */
static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* the task leaves as its master left */
static void leave(int status)
{
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1);
}

/* Prove the master `child` ready (its sockets on the ports, guard.c) while
 * waiting for it to end; its wait status into *status. */
static void wait_master(struct mcp_guard *g, pid_t child, int *status)
{
	double deadline = mcp_now() + g->bound;
	bool looking = true;

	for (;;) {
		pid_t w = waitpid(child, status, looking ? WNOHANG : 0);

		if (w == child)
			return;
		if (w < 0 && errno != EINTR) {
			*status = 0;
			return;
		}
		if (!looking)
			continue;
		if ((g->proof.verdict = mcp_guard_look(&g->proof)) != MCRI_PROOF_NONE) {
			looking = false;
			g->proof.restarting = false;
			mcp_guard_record(g);
			if (g->proof.verdict == MCRI_PROOF_FOREIGN && g->proof.restarts) {
				/* another process took a port while the master was down */
				fprintf(stderr, "mooncake: port %d is another process's now (uid %u), not the restarted mooncake_master's; stopping it: the job's pool has ended\n",
					g->proof.foreign_port, g->proof.foreign_uid);
				kill(child, SIGKILL);
			}
		} else if (mcp_now() > deadline) {
			looking = false; /* never ready: the srun that waits says so */
		} else {
			mcp_sleep_ms(POLL_MS);
		}
	}
}

int mcp_master_keep(struct mcp_guard *g, struct mcr_error *err)
{
	int backoff = 1, status = 0;
	char cause[64];
	sigset_t mask;

	catch_stop(true, &mask);
	/* a process named slurmstepd is one Slurm's process tracking never
	 * signals (proctrack/linuxproc): the keeper is the task, named as such */
	prctl(PR_SET_NAME, "mooncake-keeper", 0, 0, 0);
	for (;;) {
		pid_t child = fork();
		double started = mcp_now(), ran;
		int delay;

		if (child == 0) {
			catch_stop(false, &mask);
			return 0; /* slurmstepd makes it mooncake_master */
		}
		if (child < 0 && !g->proof.restarts) {
			catch_stop(false, &mask);
			return mcri_error_set(err, MCR_EIO, "the master step cannot start its mooncake_master: fork: %s",
					      strerror(errno));
		}
		if (child < 0) {
			fprintf(stderr, "mooncake: cannot start mooncake_master again (fork: %s); the job's pool has ended\n",
				strerror(errno));
			g->proof.restarting = false;
			mcp_guard_record(g);
			_exit(1);
		}
		wait_master(g, child, &status);
		ran = mcp_now() - started;
		/* Slurm ends the step; a master that never was ready; one that
		 * stopped cleanly (mooncake_master exits 0 when told to stop) */
		if (stopping || (!g->proof.restarts && g->proof.verdict != MCRI_PROOF_OWN) ||
		    g->proof.verdict == MCRI_PROOF_FOREIGN || (WIFEXITED(status) && !WEXITSTATUS(status)))
			leave(status);
		mcp_describe_status(status, cause, sizeof(cause));
		if (g->proof.restarts >= g->proof.restart_limit) {
			fprintf(stderr, "mooncake: mooncake_master ended with %s after %.0f s, and it was started again %d times already (restart=%d); the job's pool has ended: see the lines above, and raise restart= in plugstack.conf if the master should outlive more ends\n",
				cause, ran, g->proof.restarts, g->proof.restart_limit);
			leave(status);
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
		for (int t = 0; t < delay * 10; t++) {
			if (stopping)
				leave(status);
			mcp_sleep_ms(100);
		}
	}
}
