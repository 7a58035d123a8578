/*
 * guard.c - the master step proves, on the infra node, that the ports its
 * job's tasks will be given are its own mooncake_master's.
 *
 * srun hands the master step its attempt, ports and job directory
 * (MCP_GUARD_VAR); the step's task stays as the master's keeper
 * (master_keep.c) and looks at the node's listening sockets on those
 * ports until all three listen, then tells whose they are: the master's
 * (or a process under the keeper: a container's runtime runs the master as
 * its descendant) is MCRI_PROOF_OWN; one of another process, another
 * user's listener that took a port first, is MCRI_PROOF_FOREIGN, with the
 * port and the socket's owner. It writes that into the job's directory
 * (mooncake_master.proof.json, the job's user's alone). The srun that
 * starts the master records it ready only on OWN for its attempt
 * (master.c), and sruns that join trust that record while it says the
 * master runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	/* the master's keeper, this task (the master is its child) */
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
		struct mcri_proof now;

		/* a newer attempt's master step owns the file now: this one's
		 * word (a late end) is no longer the pool's */
		if (mcri_proof_read_member(&jd, g->proof.member, &now, &err) == 0 && now.attempt > g->proof.attempt)
			rc = 0;
		else
			rc = mcri_proof_write(&jd, &g->proof, &err);
		mcri_jobdir_close(&jd);
	}
	if (rc)
		fprintf(stderr, "mooncake: the master step cannot record whose its ports are: %s\n", err.text);
	return rc;
}
