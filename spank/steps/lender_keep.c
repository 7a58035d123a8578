/*
 * lender_keep.c - a lender step's task keeps its lender (lender.h): the
 * master's keeper (master_keep.c), told what proves a lender ready and
 * running.
 *
 * srun hands the step its guard (MCP_LENDER_VAR): the lender's kind and
 * records, its election attempt, its readiness bound, restart= and
 * hang_timeout=, its port, the job's directory, and what proves it:
 *   a store   its port listens, in the keeper's tree (as the master's
 *             guard proves its ports, guard.c), and the master's
 *             /metrics lists its segment (the name its
 *             MOONCAKE_LOCAL_HOSTNAME gives) with a capacity: the segment
 *             is mounted in the job's pool. Running, the same segment
 *             must stay listed (hang_timeout=): a store whose segment the
 *             pool lost (unmounted, a master that forgot it) is started
 *             again, and mounts it again.
 *   a donor   its ready file (trtllm-serve mooncake_donor --ready_file)
 *             is in the job's directory, which only the job's user can
 *             write; one of an earlier start is removed before each start.
 * The keeper records it all in the lender's proof (lender_<name>.<node>.
 * proof.json), which the starting srun, the joining ones and the tasks
 * read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "steps/lender.h"
#include "steps/step.h"
#include "pool/pool.h"
#include "steps/ports.h"

#define SEGMENTS_EVERY_MS 250 /* the master's segments, while a store starts */

char *mcp_lender_guard_value(int kind, int attempt, int bound, int restart, int hang, int port,
			     const char *dir, const char *subject, const char *what, const char *segment,
			     const char *master, const char *ready)
{
	return mcri_asprintf("%d,%d,%d,%d,%d,%d:%s\n%s\n%s\n%s\n%s\n%s", kind, attempt, bound, restart, hang,
			     port, dir, subject, what, segment, master, ready);
}

/* the next line of *text into buf (size bytes): false when it does not fit */
static bool line(const char **text, char *buf, size_t size)
{
	size_t len = strcspn(*text, "\n");

	if (len >= size)
		return false;
	memcpy(buf, *text, len);
	buf[len] = '\0';
	*text += len + ((*text)[len] == '\n');
	return true;
}

int mcp_lender_guard_parse(const char *value, unsigned long step, struct mcp_guard *g,
			   struct mcr_error *err)
{
	struct mcp_guard_lender *l = &g->lender;
	int kind, hang, port, used = 0;
	const char *rest;

	memset(g, 0, sizeof(*g));
	if (sscanf(value, "%d,%d,%d,%d,%d,%d:%n", &kind, &g->proof.attempt, &g->bound, &g->proof.restart_limit,
		   &hang, &port, &used) != 6 || !used || kind < MCRI_LENDER_STORE || kind > MCRI_LENDER_DONOR ||
	    g->proof.attempt < 1 || g->bound < 1 || g->proof.restart_limit < 0 ||
	    g->proof.restart_limit > MCRI_RESTART_MAX || hang < 0 || port < 0 || port > 65535 ||
	    (kind == MCRI_LENDER_STORE) != (port > 0))
		goto bad;
	rest = value + used;
	if (!line(&rest, g->dir, sizeof(g->dir)) || g->dir[0] != '/' ||
	    !line(&rest, l->subject, sizeof(l->subject)) ||
	    strncmp(l->subject, MCRI_LENDER_PREFIX, strlen(MCRI_LENDER_PREFIX)) || strchr(l->subject, '/') ||
	    !line(&rest, l->what, sizeof(l->what)) || !line(&rest, l->segment, sizeof(l->segment)) ||
	    !line(&rest, l->master, sizeof(l->master)) || !line(&rest, l->ready, sizeof(l->ready)) || *rest ||
	    (kind == MCRI_LENDER_STORE && (!l->segment[0] || !strchr(l->master, ':'))) ||
	    (kind == MCRI_LENDER_DONOR && (!l->ready[0] || l->ready[0] == '/' || strstr(l->ready, ".."))))
		goto bad;
	l->on = true;
	l->kind = kind;
	g->hang = kind == MCRI_LENDER_STORE ? hang : 0;
	g->proof.ports.rpc = port;
	/* its keeper, this task (the lender is its child) */
	g->proof.pid = (long)getpid();
	g->proof.start = mcri_pid_start(g->proof.pid);
	g->proof.step = step;
	return 0;
bad:
	memset(g, 0, sizeof(*g));
	return mcri_error_set(err, MCR_EINVAL, "%s='%.200s' is not what srun hands a lender step", MCP_LENDER_VAR,
			      value);
}

/* the store's segment is one Mooncake names ("<host>:*", P2PHANDSHAKE) */
static bool named_by_mooncake(const struct mcp_guard_lender *l)
{
	size_t len = strlen(l->segment);

	return len > 2 && !strcmp(l->segment + len - 2, ":*");
}

/* `seg` is a segment of the pattern's host */
static bool of_host(const struct mcp_guard_lender *l, const char *seg)
{
	size_t host = strlen(l->segment) - 1; /* "<host>:" */

	return !strncmp(seg, l->segment, host) && seg[host] && !strchr(seg + host, ':');
}

/* The master's segments (the names of those with a capacity) into *page;
 * false, with why, when it does not answer */
static bool segments(const struct mcp_guard_lender *l, struct mcri_prom *page, char *why, size_t size)
{
	struct mcr_error e;
	char host[256], *body = NULL;
	const char *colon = strrchr(l->master, ':');
	int status = 0, port = colon ? atoi(colon + 1) : 0;

	snprintf(host, sizeof(host), "%.*s", colon ? (int)(colon - l->master) : 0, l->master);
	if (mcri_http_get(host, port, "/metrics", MCP_PROBE_TIMEOUT_MS, MCRI_METRICS_MAX, &status, &body, &e)) {
		snprintf(why, size, "the job's master does not answer on %s: %.200s", l->master, e.text);
		return false;
	}
	if (status != 200 || mcri_prom_parse(body, page, &e)) {
		snprintf(why, size, "the job's master's /metrics on %s answered %d", l->master, status);
		free(body);
		return false;
	}
	free(body);
	return true;
}

/* the segment name of sample i with a capacity, or NULL */
static const char *lent(const struct mcri_prom *page, size_t i)
{
	const char *seg = mcri_prom_label(&page->s[i], "segment");

	return seg && !strcmp(page->s[i].name, "segment_total_capacity_bytes") && page->s[i].value > 0 ? seg :
													 NULL;
}

/* the lender's record in workers/, once it names its segment */
static void write_record(struct mcp_guard *g, const char *segment)
{
	struct mcri_jobdir jd = { .fd = -1 };
	struct mcr_error err;

	if (!g->lender.record.node[0])
		return;
	snprintf(g->lender.record.address, sizeof(g->lender.record.address), "%s", segment);
	if (mcri_jobdir_open(&jd, g->dir, getuid(), false, &err) != 0 ||
	    mcri_worker_write(&jd, &g->lender.record, &err) != 0)
		fprintf(stderr, "mooncake: warning: %s (mooncake-recipe status shows the lender's segment without its node)\n",
			err.text);
	mcri_jobdir_close(&jd);
}

/* the master's /metrics lists the store's segment with a capacity (with
 * P2PHANDSHAKE: a segment of its host that was not there before it
 * started, then that one); why not, when it does not */
static bool segment_mounted(struct mcp_guard *g, char *why, size_t size)
{
	struct mcp_guard_lender *l = &g->lender;
	struct mcri_prom page = { 0 };
	const char *want = named_by_mooncake(l) ? l->found : l->segment;
	bool found = false;

	if (!segments(l, &page, why, size))
		return false;
	for (size_t i = 0; i < page.n && !found; i++) {
		const char *seg = lent(&page, i);
		bool known = false;

		if (!seg)
			continue;
		if (want[0]) {
			found = !strcmp(seg, want);
			continue;
		}
		if (!of_host(l, seg))
			continue;
		for (int k = 0; k < l->nbefore && !known; k++)
			known = !strcmp(l->before[k], seg);
		if (!known && (found = true)) {
			snprintf(l->found, sizeof(l->found), "%s", seg);
			write_record(g, seg);
		}
	}
	mcri_prom_free(&page);
	if (!found)
		snprintf(why, size, "the job's master (%s) lists no segment %s", l->master,
			 want[0] ? want : "of the store's host that it did not have before");
	return found;
}

enum mcri_proof_verdict mcp_lender_look(struct mcp_guard *g)
{
	struct mcp_guard_lender *l = &g->lender;
	enum mcri_proof_verdict v;
	char why[400];
	double now;

	if (l->kind == MCRI_LENDER_DONOR) {
		struct mcri_jobdir jd = { .fd = -1 };
		struct mcr_error e;
		char *text = NULL;
		bool there = false;

		/* a regular file of the job's directory, through its descriptor */
		if (mcri_jobdir_open(&jd, g->dir, getuid(), false, &e) == 0) {
			there = mcri_jobdir_read(&jd, l->ready, 4096, &text, NULL, &e) == 0;
			mcri_jobdir_close(&jd);
		}
		free(text);
		return there ? MCRI_PROOF_OWN : MCRI_PROOF_NONE;
	}
	/* its port first (a local look), then the master's word (a request:
	 * at most every SEGMENTS_EVERY_MS) */
	if ((v = mcp_guard_look(&g->proof, &g->no_diag)) != MCRI_PROOF_OWN)
		return v;
	now = mcp_now();
	if (now - l->looked < SEGMENTS_EVERY_MS / 1000.0)
		return MCRI_PROOF_NONE;
	l->looked = now;
	return segment_mounted(g, why, sizeof(why)) ? MCRI_PROOF_OWN : MCRI_PROOF_NONE;
}

bool mcp_lender_answers(struct mcp_guard *g, char *why, size_t size)
{
	if (g->lender.kind != MCRI_LENDER_STORE)
		return true;
	return segment_mounted(g, why, size);
}

void mcp_lender_before_start(struct mcp_guard *g)
{
	struct mcp_guard_lender *l = &g->lender;
	char path[PATH_MAX * 2];

	if (l->kind == MCRI_LENDER_STORE && named_by_mooncake(l)) {
		struct mcri_prom page = { 0 };
		char why[400];

		/* the segments of its host now: the one it mounts is new */
		l->found[0] = '\0';
		l->nbefore = 0;
		if (!segments(l, &page, why, sizeof(why)))
			return;
		for (size_t i = 0; i < page.n && l->nbefore < (int)MCRI_ARRAY_LEN(l->before); i++) {
			const char *seg = lent(&page, i);

			if (seg && of_host(l, seg))
				snprintf(l->before[l->nbefore++], sizeof(l->before[0]), "%s", seg);
		}
		mcri_prom_free(&page);
		return;
	}
	if (l->kind != MCRI_LENDER_DONOR)
		return;
	/* the job's directory (and the mooncake/ in it) is the user's alone */
	snprintf(path, sizeof(path), "%s/%s", g->dir, g->lender.ready);
	if (unlink(path) != 0 && errno != ENOENT)
		fprintf(stderr, "mooncake: cannot remove the donor's ready file %s of an earlier start: %s\n", path,
			strerror(errno));
}

/* the lender in the job's workers/ records (workers.c), so that status
 * and the pool's report name its node and kind: a store by its segment's
 * name, a donor (whose segment TRT-LLM names) by its node's address */
static void record(spank_t sp, struct mcp_guard *g, const char *iface)
{
	struct mcri_jobdir jd = { .fd = -1 };
	struct mcr_error ignored;
	char role[sizeof(((struct mcri_worker *)0)->role)], addr[64] = "", node[256] = "", peer[300];
	const char *name = g->lender.subject + strlen(MCRI_LENDER_PREFIX);
	size_t len = strlen(name), nlen;

	/* lender_<name>.<node>: its name */
	if (spank_getenv(sp, "SLURMD_NODENAME", node, sizeof(node)) != ESPANK_SUCCESS)
		gethostname(node, sizeof(node) - 1);
	nlen = strlen(node);
	if (nlen && len > nlen + 1 && !strcmp(name + len - nlen, node) && name[len - nlen - 1] == '.')
		len -= nlen + 1;
	snprintf(role, sizeof(role), "%s %.*s", mcri_lender_kind_name((enum mcri_lender_kind)g->lender.kind),
		 (int)len, name);
	snprintf(peer, sizeof(peer), "%.*s", (int)strcspn(g->lender.master, ":"), g->lender.master);
	if (g->lender.kind == MCRI_LENDER_DONOR && mcp_local_address(iface, peer, addr, sizeof(addr), &ignored))
		return;
	{
		struct mcri_worker *w = &g->lender.record;
		uint32_t job = 0, step = 0;

		spank_get_item(sp, S_JOB_ID, &job);
		spank_get_item(sp, S_JOB_STEPID, &step);
		memset(w, 0, sizeof(*w));
		gethostname(w->node, sizeof(w->node) - 1);
		snprintf(w->role, sizeof(w->role), "%s", role);
		w->job = job;
		w->step = step;
	}
	/* a store named by Mooncake is recorded once its segment is found */
	if (g->lender.kind == MCRI_LENDER_STORE && named_by_mooncake(&g->lender))
		return;
	if (mcri_jobdir_open(&jd, g->dir, getuid(), false, &ignored) == 0)
		mcp_record_worker(sp, &jd, role, g->lender.kind == MCRI_LENDER_STORE ? g->lender.segment : addr);
	mcri_jobdir_close(&jd);
}

int mcp_lender_task(spank_t sp, const char *value, const struct mcri_plugstack *ps, uint32_t step,
		    bool rejoin, struct mcr_error *err)
{
	struct mcp_guard *g MCP_AUTOFREE = calloc(1, sizeof(*g));
	char run_dir[PATH_MAX * 2];

	if (!g)
		return mcri_error_nomem(err);
	spank_unsetenv(sp, MCP_LENDER_VAR);
	if (mcp_lender_guard_parse(value, step, g, err))
		return -1;
	/* a donor's run and ready directory, in the job's (TRT-LLM makes
	 * neither) */
	if (g->lender.kind == MCRI_LENDER_DONOR) {
		size_t len = strlen(g->lender.ready);

		snprintf(run_dir, sizeof(run_dir), "%s/mooncake", g->dir);
		if (mkdir(run_dir, 0700) != 0 && errno != EEXIST)
			return mcri_error_set(err, MCR_EIO, "cannot make %s for the donor: %s", run_dir, strerror(errno));
		/* mooncake/donor-<node>.ready: its run directory mooncake/donor-<node> */
		snprintf(run_dir, sizeof(run_dir), "%s/%.*s", g->dir,
			 len > 6 && !strcmp(g->lender.ready + len - 6, ".ready") ? (int)len - 6 : (int)len,
			 g->lender.ready);
		if (mkdir(run_dir, 0700) != 0 && errno != EEXIST)
			return mcri_error_set(err, MCR_EIO, "cannot make %s for the donor: %s", run_dir, strerror(errno));
	}
	record(sp, g, ps->interface);
	g->rejoin = rejoin;
	return mcp_master_keep(g, err);
}

int mcp_lender_task_privileged(spank_t sp, const char *value, const struct mcri_plugstack *ps,
			       struct mcr_error *err)
{
	struct mcp_guard *g MCP_AUTOFREE = calloc(1, sizeof(*g));
	char ns[64] = "", registry[128];
	ssize_t n = readlink("/proc/self/ns/net", ns, sizeof(ns) - 1);
	uint32_t job_id, tasks = 0;
	uid_t uid;

	if (!g)
		return mcri_error_nomem(err);
	if (mcp_lender_guard_parse(value, 0, g, err))
		return -1;
	if (!g->proof.ports.rpc)
		return 0; /* a donor: no port of its own */
	if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &tasks) != ESPANK_SUCCESS)
		return mcri_error_set(err, MCR_ESTATE, "the lender step cannot get its job id, user and tasks");
	if (tasks != 1)
		return mcri_error_set(err, MCR_EINVAL,
				      "%s is set on a step that runs %u tasks on this node, not one the plugin launched as a lender step: the variable is the plugin's alone; unset it",
				      MCP_LENDER_VAR, tasks);
	ns[n > 0 ? n : 0] = '\0';
	mcp_port_registry(strtoul(ns + strcspn(ns, "0123456789"), NULL, 10), registry, sizeof(registry));
	return mcp_lender_port_claim(g->proof.ports.rpc, ps, job_id, uid, registry, err);
}

int mcp_lender_record_end(const char *value, uint32_t step)
{
	struct mcri_jobdir jd = { .fd = -1 };
	struct mcr_error err;
	struct mcp_guard g;
	struct mcri_proof p;
	int rc = -1;

	if (mcp_lender_guard_parse(value, step, &g, &err))
		return -1;
	if (mcri_jobdir_open(&jd, g.dir, getuid(), false, &err) == 0) {
		if (mcri_proof_of_subject(&jd, g.lender.subject, g.proof.attempt, &p) != 0)
			p = g.proof;
		p.restarting = false;
		p.ended = true;
		rc = mcri_proof_write_of(&jd, g.lender.subject, &p, &err);
	}
	mcri_jobdir_close(&jd);
	return rc;
}
