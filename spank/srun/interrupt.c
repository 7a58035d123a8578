/*
 * interrupt.c - srun's waits end promptly when srun is told to stop
 * (SIGTERM from timeout(1) or scancel, SIGINT from Ctrl-C, SIGHUP): the
 * plugin's waits run inside srun's callbacks, where srun either blocks
 * those signals until its step exists (Slurm 22.05-25.11: they stay
 * pending) or takes them in a handler of its own that only records them
 * (26.05). While a wait is watched, a handler of the plugin's records the
 * signal and then calls srun's own, so srun sees it as it would have; the
 * wait looks at both after each pause.
 */
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "plugin/plugin.h"

static const int WATCHED[] = { SIGTERM, SIGINT, SIGHUP };
#define N_WATCHED (sizeof(WATCHED) / sizeof(WATCHED[0]))

/* the watch's state, from mcp_interrupt_watch(true) to (false) */
static struct sigaction saved[N_WATCHED];
static volatile sig_atomic_t caught;
static bool watching;

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	caught = sig;
	for (size_t i = 0; i < N_WATCHED; i++) {
		const struct sigaction *old = &saved[i];

		if (WATCHED[i] != sig)
			continue;
		if (old->sa_flags & SA_SIGINFO) {
			old->sa_sigaction(sig, info, uctx);
		} else if (old->sa_handler == SIG_DFL) {
			/* srun did not take it: it ends srun, as it would have */
			sigaction(sig, old, NULL);
			raise(sig);
		} else if (old->sa_handler != SIG_IGN) {
			old->sa_handler(sig);
		}
	}
}

void mcp_interrupt_watch(bool on)
{
	struct sigaction sa;

	if (on == watching)
		return;
	watching = on;
	if (!on) {
		for (size_t i = 0; i < N_WATCHED; i++)
			sigaction(WATCHED[i], &saved[i], NULL);
		return;
	}
	caught = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < N_WATCHED; i++)
		sigaction(WATCHED[i], &sa, &saved[i]);
}

int mcp_interrupted(void)
{
	sigset_t pending;

	if (caught)
		return caught;
	if (sigpending(&pending) == 0)
		for (size_t i = 0; i < N_WATCHED; i++)
			if (sigismember(&pending, WATCHED[i]))
				return WATCHED[i];
	return 0;
}
