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

#include "steps/lender.h"
#include "plugin/plugin.h"

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
	const int all[3] = { p->ports.rpc, p->ports.metadata, p->ports.metrics };
	struct mcri_listener l[MAX_LISTENERS];
	int ports[3];
	size_t n, nports = 0;
	bool seen[3] = { false, false, false };

	/* the ports it has (a lender's store: one) */
	for (int k = 0; k < 3; k++)
		if (all[k] > 0)
			ports[nports++] = all[k];
	if (!nports)
		return MCRI_PROOF_NONE;
	n = mcri_listening(ports, nports, l, MAX_LISTENERS, no_diag);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < nports; k++)
			seen[k] |= l[i].port == ports[k];
	/* a master of an HA pool listens on its RPC port only while it
	 * leads: its other two prove it (and a socket on the RPC port must
	 * be its own all the same) */
	for (size_t k = 0; k < nports; k++)
		if (!seen[k] && !(k == 0 && p->ha))
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
		const char *subject = g->lender.on ? g->lender.subject : NULL;

		/* a newer attempt's master step owns the file now: this one's
		 * word (a late end) is no longer the pool's */
		if ((subject ? mcri_proof_read_of(&jd, subject, &now, &err) :
			       mcri_proof_read_member(&jd, g->proof.member, &now, &err)) == 0 &&
		    now.attempt > g->proof.attempt)
			rc = 0;
		else
			rc = mcri_proof_write_of(&jd, subject, &g->proof, &err);
		mcri_jobdir_close(&jd);
	}
	if (rc)
		fprintf(stderr, "mooncake: the %s step cannot record whose its ports are: %s\n",
			g->lender.on ? "lender" : "master", err.text);
	return rc;
}

enum mcri_proof_verdict mcp_guard_prove(struct mcp_guard *g)
{
	return g->lender.on ? mcp_lender_look(g) : mcp_guard_look(&g->proof, &g->no_diag);
}

const char *mcp_guard_what(const struct mcp_guard *g)
{
	return g->lender.on ? g->lender.what : "mooncake_master";
}
