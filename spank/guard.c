/*
 * guard.c - the master step proves, on the infra node, that the ports its
 * job's tasks will be given are its own mooncake_master's.
 *
 * The master step's task forks a guard in task_init, just before it
 * becomes mooncake_master (the task's pid is the master's). The guard
 * watches the node's socket tables (/proc/net/tcp, tcp6) until all three
 * ports listen, then tells whose sockets they are: the master's (or a
 * process under it: a container's runtime runs the master as its
 * descendant) is MCRI_PROOF_OWN; one of another process, another user's
 * listener that took a port first, is MCRI_PROOF_FOREIGN, with the port
 * and the socket's owner. It writes that into the job's directory
 * (mooncake_master.proof.json, the job's user's alone) and exits; it also
 * exits when the master does, or after the readiness bound. The srun that
 * starts the master records it ready only on the guard's OWN for its
 * attempt (master.c), and sruns that join trust that record. When the
 * master step keeps its master running (restart=, master_keep.c), the
 * keeper proves each master it starts again the same way (mcp_guard_look).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plugin.h"

#define MAX_LISTENERS 64

/* "ATTEMPT,BOUND,RESTART,RPC,METADATA,METRICS:DIR" (mcp_guard_value) */
int mcp_guard_parse(const char *value, unsigned long step, struct mcp_guard *g,
		    struct mcr_error *err)
{
	int used = 0;

	memset(g, 0, sizeof(*g));
	if (sscanf(value, "%d,%d,%d,%d,%d,%d:%n", &g->proof.attempt, &g->bound,
		   &g->proof.restart_limit, &g->proof.ports.rpc, &g->proof.ports.metadata,
		   &g->proof.ports.metrics, &used) != 6 || !used ||
	    g->proof.attempt < 1 || g->bound < 1 || g->proof.restart_limit < 0 ||
	    g->proof.restart_limit > MCRI_RESTART_MAX || g->proof.ports.rpc < 1 || g->proof.ports.rpc > 65535 ||
	    g->proof.ports.metadata < 1 || g->proof.ports.metadata > 65535 ||
	    g->proof.ports.metrics < 1 || g->proof.ports.metrics > 65535 || value[used] != '/' ||
	    snprintf(g->dir, sizeof(g->dir), "%s", value + used) >= (int)sizeof(g->dir))
		return mcri_error_set(err, MCR_EINVAL, "%s='%.200s' is not what srun hands the master step",
				      MCP_GUARD_VAR, value);
	/* the master once this task execs it; with restart=, its keeper */
	g->proof.pid = (long)getpid();
	g->proof.start = mcri_pid_start(g->proof.pid);
	g->proof.step = step;
	return 0;
}

char *mcp_guard_value(int attempt, int bound, int restart, const struct mcr_ports *ports,
		      const char *dir)
{
	return mcri_asprintf("%d,%d,%d,%d,%d,%d:%s", attempt, bound, restart, ports->rpc,
			     ports->metadata, ports->metrics, dir);
}

enum mcri_proof_verdict mcp_guard_look(struct mcri_proof *p, unsigned *no_diag)
{
	const int ports[3] = { p->ports.rpc, p->ports.metadata, p->ports.metrics };
	struct mcri_listener l[MAX_LISTENERS];
	size_t n = mcri_listening(ports, 3, l, MAX_LISTENERS, no_diag);
	bool seen[3] = { false, false, false };

	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			seen[k] |= l[i].port == ports[k];
	/* a master of an HA pool listens on its RPC port only while it
	 * leads: its other two prove it (and a socket on the RPC port must
	 * be its own all the same) */
	if ((!seen[0] && !p->ha) || !seen[1] || !seen[2])
		return MCRI_PROOF_NONE;
	for (size_t i = 0; i < n; i++)
		if (!mcri_tree_has_socket(p->pid, l[i].inode)) {
			p->foreign_port = l[i].port;
			p->foreign_uid = l[i].uid;
			return MCRI_PROOF_FOREIGN;
		}
	return MCRI_PROOF_OWN;
}

int mcp_guard_record(const struct mcp_guard *g)
{
	struct mcri_jobdir jd;
	struct mcr_error err;
	int rc = -1;

	if (mcri_jobdir_open(&jd, g->dir, getuid(), false, &err) == 0) {
		rc = mcri_proof_write(&jd, &g->proof, &err);
		mcri_jobdir_close(&jd);
	}
	if (rc)
		fprintf(stderr, "mooncake: the master step cannot record whose its ports are: %s\n", err.text);
	return rc;
}

/* the guard's life: until the verdict, the master's end, or the bound */
static void watch(struct mcp_guard *g)
{
	double t0 = mcp_now();

	while (mcp_now() - t0 < g->bound) {
		if (mcri_pid_start(g->proof.pid) != g->proof.start)
			return; /* the master is gone: its srun tells why */
		if ((g->proof.verdict = mcp_guard_look(&g->proof, &g->no_diag)) != MCRI_PROOF_NONE)
			break;
		mcp_sleep_ms(mcp_ready_poll_ms(mcp_now() - t0));
	}
	if (g->proof.verdict != MCRI_PROOF_NONE)
		mcp_guard_record(g);
}

int mcp_guard_start(const struct mcp_guard *guard, struct mcr_error *err)
{
	struct mcp_guard g = *guard;
	pid_t mid, w;
	int status = 0;

	/* twice forked: the guard is no child the master would have to reap */
	mid = fork();
	if (mid < 0)
		return mcri_error_set(err, MCR_EIO, "cannot start the master step's guard: %s", strerror(errno));
	if (mid == 0) {
		pid_t pid = fork();

		if (pid == 0) {
			signal(SIGTERM, SIG_DFL);
			watch(&g);
			MCP_COVERAGE_FLUSH();
			_exit(0);
		}
		_exit(pid < 0 ? 1 : 0);
	}
	while ((w = waitpid(mid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w != mid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return mcri_error_set(err, MCR_EIO, "cannot start the master step's guard");
	return 0;
}
