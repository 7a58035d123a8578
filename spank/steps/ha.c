/*
 * ha.c - an HA pool (plugstack ha=etcd): the job's masters in
 * Mooncake's HA mode, with an etcd of the job's own.
 *
 * A job of two or more nodes gets one master step whose tasks run on its
 * first two or three nodes, one each (srun -N2 or -N3, --no-kill: a node
 * lost takes its task only). Each task is its master's keeper
 * (keep.c) and, on the first node (of two) or on each of three, an
 * etcd member's too; each master runs with --enable_ha on its node's
 * address, one leads and the others stand by, and the clients find the
 * leader through etcd (etcd://...) with P2PHANDSHAKE for their transfer
 * metadata. Every master proves its ports its own as a single master does
 * (keep.c; a standby listens on its RPC port only once it leads). The
 * pool is ready when a leader serves and every master answers; a joining
 * srun needs a serving leader, and waits for one within the readiness
 * bound while the masters choose one (a failover).
 *
 * srun hands the tasks the pool in MCP_HA_VAR:
 *   "ATTEMPT,JOB,ETCD_MEMBERS,CLIENT_PORT,PEER_PORT;NODE=ADDR;NODE=ADDR[;NODE=ADDR]"
 * and each task finds itself by its node's name (SLURMD_NODENAME).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "container/container.h"
#include "plugin/child.h"
#include "plugin/common.h"
#include "plugin/handover.h"
#include "steps/election.h"
#include "steps/ha.h"
#include "steps/step.h"

/* ---- srun: the pool's plan, its step, its readiness ------------------ */

int mcp_ha_plan(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe, const struct mcri_ha_member *nodes,
		int got, struct mcri_state *st, struct mcp_container *c, struct mcr_error *err)
{
	memset(&st->ha, 0, sizeof(st->ha));
	if (ps->ha != MCRI_HA_ETCD)
		return 0;
	if (got < 2) {
		slurm_verbose(MCP_NAME
			      ": ha=etcd: job %s has one node, so its pool has one master (restart= keeps it running)",
			      st->job_id);
		return 0;
	}
	if (mcr_recipe_ha_check(recipe, err))
		return -1;
	st->ha.masters = got > MCRI_HA_MAX ? MCRI_HA_MAX : got;
	/* a majority of three survives a node; of two, one member is as good */
	st->ha.etcd_members = st->ha.masters == 3 ? 3 : 1;
	memcpy(st->ha.member, nodes, (size_t)st->ha.masters * sizeof(nodes[0]));
	if (c->mode != MCRI_CONTAINER_NONE) {
		slurm_info(
			MCP_NAME
			": ha=etcd runs the job's masters and their etcd on the nodes' host (mooncake_master and etcd from the job's PATH), not in the recipe's container %s",
			c->value);
		memset(c, 0, sizeof(*c));
		c->mode = MCRI_CONTAINER_NONE;
	}
	return 0;
}

static int node_name(char *out, size_t size, const struct mcri_ha *ha, int k)
{
	return snprintf(out, size, "%s", ha->member[k].node);
}

int mcp_ha_nodelist(const struct mcri_ha *ha, char *buf, size_t size)
{
	return mcri_ha_join(ha, ha->masters, ",", node_name, buf, size) ? 0 : -1;
}

char *mcp_ha_value(const struct mcri_ha *ha, int attempt, const char *job_id)
{
	char *v = mcri_asprintf("%d,%s,%d,%d,%d", attempt, job_id, ha->etcd_members, ha->etcd_client, ha->etcd_peer);

	for (int k = 0; v && k < ha->masters; k++) {
		char *longer = mcri_asprintf("%s;%s=%s", v, ha->member[k].node, ha->member[k].addr);

		free(v);
		v = longer;
	}
	return v;
}

int mcp_ha_master_args(const struct mcri_ha *ha, char ***argv, struct mcr_error *err)
{
	char endpoints[512], connstring[600];
	const char *extra[] = { "--enable_ha=true", "--ha_backend_type=etcd", connstring, "--enable_oplog=true",
				"--tryfromenv=rpc_address" };
	size_t n = mcr_strv_len(*argv), k = 0;
	char **grown;

	if (!mcri_ha_endpoints(ha, endpoints, sizeof(endpoints)))
		return mcri_error_set(err, MCR_EINVAL, "an HA pool's etcd endpoints do not fit in %zu bytes",
				      sizeof(endpoints));
	snprintf(connstring, sizeof(connstring), "--ha_backend_connstring=%s", endpoints);
	if (!(grown = realloc(*argv, (n + 6) * sizeof(*grown))))
		return mcri_error_nomem(err);
	*argv = grown;
	for (; k < 5; k++) {
		grown[n + k] = strdup(extra[k]);
		grown[n + k + 1] = NULL;
		if (!grown[n + k])
			return mcri_error_nomem(err);
	}
	return 0;
}

int mcp_ha_busy_port(const struct mcri_state *st)
{
	const struct mcr_ports etcd = { .rpc = st->ha.etcd_client,
					.metadata = st->ha.etcd_peer,
					.metrics = st->ha.etcd_peer };
	int p;

	for (int k = 0; k < st->ha.masters; k++)
		if ((p = mcp_busy_port(st->ha.member[k].addr, &st->ports)) ||
		    (k < st->ha.etcd_members && (p = mcp_busy_port(st->ha.member[k].addr, &etcd))))
			return p;
	return 0;
}

/* an etcd member that does not answer GET /health: said into why */
static void etcd_look(const struct mcri_state *st, char *why, size_t size)
{
	for (int k = 0; k < st->ha.etcd_members; k++) {
		struct mcr_error reason;
		char body[256];
		int status;

		if (mcri_http(st->ha.member[k].addr, st->ha.etcd_client, "GET", "/health", NULL, MCP_PROBE_TIMEOUT_MS,
			      &status, body, sizeof(body), &reason) != 0 ||
		    status != 200) {
			size_t n = strlen(why);

			snprintf(why + n, size - n, "; its etcd on %s (port %d) does not answer%s",
				 st->ha.member[k].node, st->ha.etcd_client,
				 st->ha.etcd_members == 1 ? ", and it has no other member" : "");
			return;
		}
	}
}

enum mcp_probe mcp_probe_ha(const struct mcri_state *st, bool every, char *why, size_t size)
{
	struct mcri_master_health h[MCRI_HA_MAX];
	bool answered[MCRI_HA_MAX];
	int answering, refusing, leader = mcri_ha_leader(st, MCP_PROBE_TIMEOUT_MS, h, answered, &answering, &refusing);

	if (leader >= 0 && (!every || answering == st->ha.masters)) {
		struct mcr_error reason;

		if (mcri_tcp_probe(st->ha.member[leader].addr, st->ports.rpc, MCP_PROBE_TIMEOUT_MS, &reason) == 0)
			return MCP_PROBE_READY;
		snprintf(why, size, "its leader on %s does not accept on port %d: %.200s", st->ha.member[leader].node,
			 st->ports.rpc, reason.text);
		return MCP_PROBE_REFUSED;
	}
	if (leader >= 0)
		snprintf(why, size, "a leader serves, but %d of its %d masters answer", answering, st->ha.masters);
	else if (answering)
		snprintf(why, size, "%d of its %d masters answer%s, and none leads yet", answering, st->ha.masters,
			 answering == 1 ? "s" : "");
	else
		snprintf(why, size, "none of its %d masters answers on port %d", st->ha.masters, st->ports.metrics);
	if (leader < 0)
		etcd_look(st, why, size);
	/* no answer at all only when no host answered: a host where nothing
	 * listens refuses (a pool that has ended) */
	return answering || refusing ? MCP_PROBE_REFUSED : MCP_PROBE_NO_ANSWER;
}

/* ---- slurmstepd: one node's part ------------------------------------ */

/* a node's name or IPv4 address as the value carries it */
static bool plain(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("-_.", *s)))
			return false;
	return true;
}

/* a member's node or address that another has too */
static bool repeated(const struct mcri_ha *ha)
{
	for (int a = 0; a < ha->masters; a++)
		for (int b = a + 1; b < ha->masters; b++)
			if (!strcmp(ha->member[a].node, ha->member[b].node) ||
			    !strcmp(ha->member[a].addr, ha->member[b].addr))
				return true;
	return false;
}

int mcp_ha_parse(const char *value, const char *node, struct mcp_ha_part *p, struct mcr_error *err)
{
	char buf[2048], *save = NULL, *tok, job[32];
	struct mcri_ha *ha = &p->ha;
	int attempt, used = 0;

	memset(p, 0, sizeof(*p));
	p->self = -1;
	if (snprintf(buf, sizeof(buf), "%s", value) >= (int)sizeof(buf) ||
	    sscanf(buf, "%9d,%31[0-9],%1d,%5d,%5d%n", &attempt, job, &ha->etcd_members, &ha->etcd_client,
		   &ha->etcd_peer, &used) != 5 ||
	    buf[used] != ';' || attempt < 1 || ha->etcd_client < 1 || ha->etcd_client > 65535 || ha->etcd_peer < 1 ||
	    ha->etcd_peer > 65535 || ha->etcd_client == ha->etcd_peer)
		goto bad;
	for (tok = strtok_r(buf + used + 1, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(tok, '=');

		if (ha->masters == MCRI_HA_MAX || !eq)
			goto bad;
		*eq = '\0';
		if (!plain(tok) || !plain(eq + 1) ||
		    snprintf(ha->member[ha->masters].node, sizeof(ha->member[0].node), "%s", tok) >=
			    (int)sizeof(ha->member[0].node) ||
		    snprintf(ha->member[ha->masters].addr, sizeof(ha->member[0].addr), "%s", eq + 1) >=
			    (int)sizeof(ha->member[0].addr))
			goto bad;
		ha->masters++;
	}
	/* two masters share one etcd member, three have one each */
	if (ha->masters < 2 || ha->etcd_members != (ha->masters == 3 ? 3 : 1) || repeated(ha))
		goto bad;
	snprintf(p->token, sizeof(p->token), "mooncake-%s-%d", job, attempt);
	if ((p->self = mcri_ha_member_of(ha, node)) < 0)
		return mcri_error_set(
			err, MCR_ESTATE,
			"this task runs on %s, which is none of the job's HA masters' nodes (%s=%.200s): srun placed the master step elsewhere than the plugin asked",
			node ? node : "(a node without SLURMD_NODENAME)", MCP_HA_VAR, value);
	return 0;
bad:
	memset(p, 0, sizeof(*p));
	return mcri_error_set(
		err, MCR_EINVAL,
		"%s='%.200s' is not what srun hands an HA pool's master step: is the spank_mooncake.so of srun's host the same as this node's?",
		MCP_HA_VAR, value);
}

/* member k's etcd peer URL, "http://ADDR:PEER" (snprintf's return) */
static int peer_of(char *out, size_t size, const struct mcri_ha *ha, int k)
{
	return snprintf(out, size, "http://%s:%d", ha->member[k].addr, ha->etcd_peer);
}

/* Does `url` (a peer URL etcd lists) name one of the pool's etcd members? */
static bool own_peer(const struct mcri_ha *ha, const char *url)
{
	for (int k = 0; k < ha->etcd_members; k++) {
		char own[128];

		peer_of(own, sizeof(own), ha, k);
		if (!strcmp(url, own))
			return true;
	}
	return false;
}

/* Does `view` (a master_view's value) name one of the pool's masters? */
static bool own_master(const struct mcri_ha *ha, int rpc, const char *view)
{
	for (int k = 0; k < ha->masters; k++) {
		char own[96];

		snprintf(own, sizeof(own), "%s:%d", ha->member[k].addr, rpc);
		if (!strcmp(view, own))
			return true;
	}
	return false;
}

int mcp_ha_etcd_sound(const struct mcp_ha_part *p, int rpc, bool *full, bool *names_self, char *why, size_t size)
{
	char self[96];
	const struct mcri_ha *ha = &p->ha;
	/* this node's member, else the first */
	int k = p->self < ha->etcd_members ? p->self : 0;
	struct mcri_etcd_view *v = calloc(1, sizeof(*v));
	struct mcr_error err;
	int rc = 1;

	*names_self = false;
	snprintf(self, sizeof(self), "%s:%d", ha->member[p->self].addr, rpc);
	if (!v)
		return -1;
	if (mcri_etcd_read(ha->member[k].addr, ha->etcd_client, MCP_PROBE_TIMEOUT_MS, v, &err) < 0) {
		/* no answer (etcd down, slow) tells nothing; an answer too large
		 * to be read whole is not a pool's */
		if (errno == EMSGSIZE) {
			snprintf(why, size, "on %s holds more than a pool writes (%.200s)", ha->member[k].node,
				 err.text);
			rc = 0;
		} else {
			rc = -1;
		}
		free(v);
		return rc;
	}
	for (int i = 0; rc == 1 && i < v->nviews; i++)
		*names_self |= !strcmp(v->views[i], self);
	for (int i = 0; rc == 1 && i < v->nviews; i++)
		if (!own_master(ha, rpc, v->views[i])) {
			snprintf(
				why, size,
				"names %.100s as the leader its clients follow (a master_view key), which is none of the pool's masters",
				v->views[i]);
			rc = 0;
		}
	if (rc == 1 && v->nviews == MCRI_ETCD_LIST_MAX) {
		snprintf(why, size, "holds %d or more master_view keys, where a pool writes one", v->nviews);
		rc = 0;
	}
	for (int i = 0; rc == 1 && i < v->npeers; i++)
		if (!own_peer(ha, v->peers[i])) {
			snprintf(why, size, "has a member at %.100s, which is none of the pool's (%d) etcd members",
				 v->peers[i], ha->etcd_members);
			rc = 0;
		}
	if (rc == 1 && v->npeers > ha->etcd_members) {
		snprintf(why, size, "has %d members, where the pool has %d", v->npeers, ha->etcd_members);
		rc = 0;
	}
	if (rc == 1 && v->nospace && !*full) {
		*full = true;
		fprintf(stderr,
			"mooncake: the job's HA pool's etcd has reached its backend quota (NOSPACE): its masters' operation log is no longer written, and a standby can no longer take over from the leader\n");
	}
	free(v);
	return rc;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* the member's data: on this node's local disk, the user's alone, gone
 * with it (nftw: depth first, no link followed) */
static void remove_data(struct mcp_ha_part *p)
{
	if (p->data_dir[0])
		nftw(p->data_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	p->data_dir[0] = '\0';
}

/* an etcd member's name and peer URL, "mK=http://ADDR:PEER" */
static int peer_url(char *out, size_t size, const struct mcri_ha *ha, int k)
{
	int n = snprintf(out, size, "m%d=", k);

	return n < 0 || (size_t)n >= size ? n : n + peer_of(out + n, size - (size_t)n, ha, k);
}

/* Run etcd as this node's member, its output appended to `fd`: forked by
 * the keeper, killed with it (PR_SET_PDEATHSIG: a keeper Slurm kills
 * leaves no etcd behind, whatever proctrack follows), in the keeper's
 * session and process group, with the signals exec leaves as they were
 * (SIGPIPE, the mask) set back, and an environment of its own (no ETCD_*
 * of slurmstepd's). */
static int spawn_etcd(struct mcp_ha_part *p, int fd, struct mcr_error *err)
{
	const struct mcri_ha *ha = &p->ha;
	const char *addr = ha->member[p->self].addr;
	char name[16], data[PATH_MAX + 16], lc[128], ac[128], lp[160], ap[160], token[96], quota[64], url[100];
	char cluster[MCRI_HA_MAX * 96 + 32] = "--initial-cluster=";
	char *env[] = { "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	/* a backend quota for the operation log of a long job (Mooncake never
	 * deletes it: about 0.5 KB a key put and removed), and old revisions
	 * of overwritten keys compacted away */
	char *argv[] = { p->etcd,
			 "--name",
			 name,
			 data,
			 lc,
			 ac,
			 lp,
			 ap,
			 cluster,
			 token,
			 "--initial-cluster-state=new",
			 "--log-level=warn",
			 quota,
			 "--auto-compaction-mode=revision",
			 "--auto-compaction-retention=1000",
			 NULL };
	size_t n = strlen(cluster);
	pid_t keeper = getpid(), pid;

	snprintf(name, sizeof(name), "m%d", p->self);
	snprintf(data, sizeof(data), "--data-dir=%s/data", p->data_dir);
	snprintf(lc, sizeof(lc), "--listen-client-urls=http://%s:%d", addr, ha->etcd_client);
	snprintf(ac, sizeof(ac), "--advertise-client-urls=http://%s:%d", addr, ha->etcd_client);
	peer_of(url, sizeof(url), ha, p->self);
	snprintf(lp, sizeof(lp), "--listen-peer-urls=%s", url);
	snprintf(ap, sizeof(ap), "--initial-advertise-peer-urls=%s", url);
	snprintf(token, sizeof(token), "--initial-cluster-token=%s", p->token);
	snprintf(quota, sizeof(quota), "--quota-backend-bytes=%lld", p->quota > 0 ? p->quota : 8LL << 30);
	if (!mcri_ha_join(ha, ha->etcd_members, ",", peer_url, cluster + n, sizeof(cluster) - n))
		return mcri_error_set(err, MCR_EINVAL, "the HA pool's etcd members do not fit in one argument");
	if ((pid = fork()) < 0)
		return mcri_error_set(
			err, MCR_EIO,
			"cannot start the etcd member %s of the job's HA pool: fork: %s; check the user's process limit (ulimit -u) there",
			name, strerror(errno));
	if (pid == 0) {
		sigset_t none;
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != keeper)
			_exit(127); /* the keeper is gone already */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (null < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		mcp_close_from(3);
		execve(p->etcd, argv, env);
		dprintf(2,
			"mooncake: cannot run %s as the etcd member %s of the job's HA pool: %s; install etcd (Debian: etcd-server) on the nodes, or set etcd= in plugstack.conf to its path\n",
			p->etcd, name, strerror(errno));
		_exit(127);
	}
	p->pid = pid;
	return 0;
}

/* its two ports listen, each socket the etcd member's own (1), one is
 * another process's (-1, *port its port and *uid its owner), or not both
 * listen yet (0); no_diag: mcri_listening's memory */
static int etcd_ports(const struct mcp_ha_part *p, int *port, unsigned *uid, unsigned *no_diag)
{
	const int ports[2] = { p->ha.etcd_client, p->ha.etcd_peer };
	struct mcri_listener l[16];
	size_t n = mcri_listening(ports, 2, l, 16, no_diag);
	bool seen[2] = { false, false };

	for (size_t i = 0; i < n; i++) {
		if (!mcri_tree_has_socket((long)p->pid, l[i].inode)) {
			*port = l[i].port;
			*uid = l[i].uid;
			return -1;
		}
		for (int k = 0; k < 2; k++)
			seen[k] |= l[i].port == ports[k];
	}
	return seen[0] && seen[1];
}

int mcp_ha_etcd_start(struct mcp_ha_part *p, const char *job_dir, const char *tmp, int bound, struct mcr_error *err)
{
	struct mcri_jobdir jd = { .fd = -1 };
	char log[64], host[64] = "this node";
	bool fresh = !p->data_dir[0];
	int fd = -1, rc = -1, port = 0, ended;
	unsigned uid = 0, no_diag = 0;

	gethostname(host, sizeof(host) - 1);
	/* a directory of its own, the first time: a name no other user can
	 * take beforehand; a member started again keeps its data */
	if (fresh && (snprintf(p->data_dir, sizeof(p->data_dir), "%s/mooncake-etcd.%s.XXXXXX",
			       tmp && *tmp ? tmp : "/tmp", p->token) >= (int)sizeof(p->data_dir) ||
		      !mkdtemp(p->data_dir))) {
		rc = mcri_error_set(
			err, MCR_EIO,
			"cannot make the etcd member's data directory %s on %s: %s; set TMPDIR to a directory of the node's local disk the job's user can write",
			p->data_dir, host, strerror(errno));
		p->data_dir[0] = '\0';
		return rc;
	}
	snprintf(log, sizeof(log), MCRI_ETCD_LOG, p->self);
	if (mcri_jobdir_open(&jd, job_dir, getuid(), false, err) ||
	    (fd = mcri_jobdir_append(&jd, log, fresh, err)) < 0 || spawn_etcd(p, fd, err))
		goto out;
	/* its ports are its own before any master is told of them: another
	 * user's listener there would steer the pool */
	for (double t0 = mcp_now(); (rc = etcd_ports(p, &port, &uid, &no_diag)) == 0; mcp_sleep_ms(25)) {
		if (waitpid(p->pid, &ended, WNOHANG) == p->pid) {
			p->pid = 0;
			rc = mcri_error_set(
				err, MCR_ESTATE,
				"the etcd member m%d of the job's HA pool ended at once on %s; its log %s/%s says why",
				p->self, host, job_dir, log);
			goto out;
		}
		if (mcp_now() - t0 > bound) {
			rc = mcri_error_set(
				err, MCR_ESTATE,
				"the etcd member m%d of the job's HA pool did not listen on %s ports %d and %d within %d s; its log %s/%s says why",
				p->self, host, p->ha.etcd_client, p->ha.etcd_peer, bound, job_dir, log);
			goto out;
		}
	}
	if (rc < 0) {
		rc = mcri_error_set(
			err, MCR_ESTATE,
			"port %d on %s is another process's (uid %u), not the job's etcd member's: nothing of the HA pool is started there; find the process with ss -ltnp on %s, then resubmit the job",
			port, host, uid, host);
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	mcri_jobdir_close(&jd);
	if (rc)
		mcp_ha_etcd_stop(p, fresh);
	return rc;
}

void mcp_ha_etcd_stop(struct mcp_ha_part *p, bool data)
{
	int status;

	/* its data goes with it, so nothing of it needs a clean stop: at
	 * once, before Slurm's KillWait ends the keeper too */
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
			;
		p->pid = 0;
	}
	if (data)
		remove_data(p);
}
