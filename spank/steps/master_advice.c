/*
 * master_advice.c - what to do when the master step could not even run
 * mooncake_master, one explanation per failure. The step's log tells how:
 *   slurmstepd: error: execve(): mooncake_master: No such file or directory
 * on the host (a bare name is looked up on the step's PATH there, which
 * srun cannot see beforehand; with --export=NONE the steps get no PATH
 * from the submitting shell), or, inside the recipe's container, env(1)'s
 * "env: 'mooncake_master': No such file or directory" (Slurm's OCI
 * --container runs /usr/bin/env NAME), slurmstepd's execve() line after
 * pyxis entered the image (its login shell's PATH, pyxis before or after
 * this plugin), or the runtime's "executable file not found".
 * The starter adds the fix to its error message.
 *
 * And the message of every other way an election fails
 * (mcp_master_failure), from what the driver saw.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "steps/run.h"

/* the tail shows that the program could not be run inside a container */
static bool not_run_in_container(const char *tail)
{
	return (strstr(tail, "env: '") && strstr(tail, "': No such file")) ||
	       strstr(tail, "not found in $PATH") || strstr(tail, "command not found") ||
	       strstr(tail, "executable file") || strstr(tail, "execve(): ");
}

static void on_the_host(const char *tail, const char *master, const char *node, char *out,
			size_t size)
{
	const char *line = strstr(tail, "execve(): ");
	const char *end, *why;
	char name[256];
	size_t len;
	bool configured; /* the name is master= (not the recipe's command) */

	if (!line)
		return;
	line += strlen("execve(): ");
	end = strstr(line, ": ");
	if (!end || (len = (size_t)(end - line)) == 0 || len >= sizeof(name) ||
	    memchr(line, '\n', len))
		return;
	memcpy(name, line, len);
	name[len] = '\0';
	why = end + 2;
	configured = master && strcmp(master, name) == 0;
	if (strncmp(why, "No such file", 12) == 0 && !strchr(name, '/'))
		snprintf(out, size,
			 " %s is not on the PATH of the master step on %s (with --export=NONE, the job's steps get no PATH from the submitting shell). Name it with an absolute path (%s%s), or run the job with its directory on PATH and without --export=NONE.",
			 name, node,
			 configured ? "in plugstack.conf, master=/path/to/" : "in the command of the recipe's mooncake-master service",
			 configured ? name : "");
	else if (strncmp(why, "No such file", 12) == 0)
		snprintf(out, size,
			 " %s does not exist on %s: install mooncake_master there (the Mooncake wheel), or correct %s.",
			 name, node,
			 configured ? "master= in plugstack.conf" : "the command of the recipe's mooncake-master service");
	else if (strncmp(why, "Permission denied", 17) == 0)
		snprintf(out, size,
			 " %s on %s cannot be run by the job's user (Permission denied): check its mode and its directories'.",
			 name, node);
}

void mcp_master_advice(const struct mcp_container *c, const char *tail, const char *master,
		       const char *node, char *out, size_t size)
{
	const char *exec, *why;

	if (!size)
		return;
	out[0] = '\0';
	if (!tail)
		return;
	if (!c || c->mode == MCRI_CONTAINER_NONE) {
		on_the_host(tail, master, node, out, size);
		return;
	}
	/* pyxis runs a bare name as slurmstepd finds it on the task's PATH,
	 * which pyxis sets to the container's: the PATH of the image's login
	 * shell */
	if (c->mode == MCRI_CONTAINER_PYXIS && (exec = strstr(tail, "execve(): ")) &&
	    (why = strstr(exec, ": No such file")) && !memchr(exec, '/', (size_t)(why - exec)) &&
	    !memchr(exec, '\n', (size_t)(why - exec)))
		snprintf(out, size,
			 " %s is not on the PATH in pyxis's container of %s on %s: pyxis gives the step the PATH of the image's login shell, which Debian's and Ubuntu's /etc/profile set anew, dropping what the image's /etc/environment (a Dockerfile's ENV) adds. Install the Mooncake wheel in the image, link its mooncake_master into /usr/local/bin there, or name its path in the image with master= in plugstack.conf; container=none runs the host's mooncake_master.",
			 master, c->value, node);
	else if (not_run_in_container(tail))
		snprintf(out, size,
			 " The master step ran in the container %s (%s) on %s, and %s could not be run there: install the Mooncake wheel in the image (pip install mooncake-transfer-engine, which puts mooncake_master on its PATH), or name the binary's path inside the container with master= in plugstack.conf; container=none runs the host's mooncake_master instead.",
			 c->value, c->mode == MCRI_CONTAINER_OCI ? "Slurm's --container" : "pyxis",
			 node, master);
}

/* the message of a failed election (err), from what the driver saw */
void mcp_master_failure(struct master *m, const struct mcp_election *el, struct mcr_error *err)
{
	const struct mcri_state *st = &m->st;
	char tail[3000], advice[1024] = "", busy[512] = "";
	char other_recipe[PATH_MAX], other_dir[PATH_MAX];
	int bound = (int)el->timeout;

	switch (el->verdict) {
	case MCP_V_LOCK_ERROR:
	case MCP_V_SPAWN_ERROR:
		*err = m->err;
		break;
	case MCP_V_PORTS_BUSY:
		if (mcp_master_own_pool(m, other_recipe, sizeof(other_recipe), other_dir, sizeof(other_dir))) {
			/* a second pool of this job: another recipe, another directory */
			mcri_error_set(err, MCR_EINVAL,
				       "port %d on the infra node %s (%s) is taken by this job's own mooncake_master, of the pool of %s in %s; this srun's recipe %s has a pool of its own (in %s), and with ports=fixed a node holds one master: use %s for this step too, or ask the admin for ports=auto (each pool then gets ports of its own)",
				       m->busy_port, st->infra_node, st->infra_addr, other_recipe, other_dir,
				       m->job->recipe, m->job->dir->path, other_recipe);
			break;
		}
		mcri_error_set(err, MCR_ESTATE,
			       "port %d on the infra node %s (%s) is already in use by another process (not this job's master, which is not started yet), so mooncake_master could not listen there. Is another job's mooncake_master running on %s? Only one job at a time can use a node as its infra node (the ports are fixed): run the job on other nodes, or with --exclusive",
			       m->busy_port, st->infra_node, st->infra_addr, st->infra_node);
		break;
	case MCP_V_NO_FREE_PORTS:
		mcri_error_set(err, MCR_ESTATE,
			       "no free ports for mooncake_master on the infra node %s (%s): each of the %d triples it tried was taken (8700-8702, then %d of the %d triples of port_range=%d-%d); widen port_range= in plugstack.conf, or run the job on another first node",
			       st->infra_node, st->infra_addr, el->max_candidates, el->max_candidates - 1,
			       (m->ps->port_hi - m->ps->port_lo + 1) / 3, m->ps->port_lo, m->ps->port_hi);
		break;
	case MCP_V_EXITED:
		mcp_log_tail(m->log, tail, sizeof(tail));
		mcp_master_advice(&m->container, tail, m->ps->master, st->infra_node, advice,
				  sizeof(advice));
		if (mcp_master_foreign(m))
			snprintf(busy, sizeof(busy), " It could not take its ports%s.", m->why_foreign);
		else if (m->busy_port && !m->claim_ports)
			snprintf(busy, sizeof(busy),
				 " Port %d on %s is in use by another process: another job's mooncake_master on the same node? Only one job at a time can use a node as its infra node (the ports are fixed): run such jobs on different first nodes, or with --exclusive.",
				 m->busy_port, st->infra_node);
		mcri_error_set(err, MCR_ESTATE,
			       "the master step (mooncake_master on %s) ended during start-up (%s) before it was ready.%s%s Last lines of %s:%s",
			       st->infra_node, m->ended, busy, advice, m->log, tail[0] ? tail : " (empty)");
		break;
	case MCP_V_TIMEOUT:
		mcp_log_tail(m->log, tail, sizeof(tail));
		mcri_error_set(err, MCR_ESTATE,
			       "mooncake_master on %s (%s) was not ready after %d s: %s; it was stopped. If the node is just slow, raise readiness.timeout_seconds of the mooncake-master service (or ready_timeout= in plugstack.conf); last lines of %s:%s",
			       st->infra_node, st->infra_addr, bound, m->why, m->log,
			       tail[0] ? tail : " (empty)");
		break;
	case MCP_V_OTHER_FAILED:
		mcri_error_set(err, MCR_ESTATE,
			       "the job's mooncake_master could not be started (another srun of this job tried): %s",
			       st->message);
		break;
	case MCP_V_WAIT_TIMEOUT:
		mcri_error_set(err, MCR_ESTATE,
			       "timed out after %.0f s waiting for the job's mooncake_master that another srun of this job is starting (state: %s); see %s",
			       mcp_now() - m->t0, st->phase ? mcri_phase_name(st->phase) : "unknown",
			       m->log);
		break;
	case MCP_V_UNREACHABLE:
		mcri_error_set(err, MCR_ESTATE,
			       "the job's mooncake_master on %s (%s) was ready, but this node (%s) cannot reach it: no answer within %d s (%s). It may still be running: check the network between %s and %s (link, routes, firewall), then run srun again",
			       st->infra_node, st->infra_addr, m->host, bound, m->why, m->host,
			       st->infra_node);
		break;
	case MCP_V_STOPPED:
		mcri_error_set(err, MCR_ESTATE,
			       "the job's mooncake_master on %s (%s) was ready, but has stopped: %s. No srun starts a new one behind running workers (their segments and keys are gone with it); see %s and resubmit the job",
			       st->infra_node, st->infra_addr, m->why, m->log);
		break;
	case MCP_V_RESTART_TIMEOUT:
		mcri_error_set(err, MCR_ESTATE,
			       "the job's mooncake_master on %s (%s) was ready and ended; its master step is starting it again, but it has not answered within %d s (%s). See %s for why it ended and why it does not come back",
			       st->infra_node, st->infra_addr, bound, m->why, m->log);
		break;
	case MCP_V_OTHER_JOB:
		mcri_error_set(err, MCR_EINVAL,
			       "the directory %s holds the Mooncake pool of job %s, which still runs, and this srun is of job %s: one directory holds one job's pool. Put {job_id} in the recipe's output.log_dir (e.g. log_dir: outputs/{job_id}/logs), or use another directory",
			       m->job->dir->path, st->job_id, m->job->job_id);
		break;
	case MCP_V_OTHER_RECIPE:
		mcri_error_set(err, MCR_EINVAL,
			       "the job's Mooncake pool in %s comes from the recipe %s, and this srun names %s: one directory holds one pool. Use %s for this step too, or give the other recipe an output.log_dir of its own (its pool then gets a master of its own)",
			       m->job->dir->path, st->recipe, m->job->recipe, st->recipe);
		break;
	default:
		mcri_error_set(err, MCR_ESTATE,
			       "the job's mooncake_master could not be started in %d attempts; see %s",
			       el->max_attempts, m->log);
	}
}
