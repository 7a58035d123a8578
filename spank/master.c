/*
 * master.c - one mooncake_master per job, as a job step of its own.
 *
 * The first srun of a job that needs the master starts it on the infra
 * node with
 *   srun --jobid=J --overlap -N1 -n1 -w <infra> --job-name=mooncake-master
 *        --output=<dir>/mooncake_master.log mooncake_master --port=8700 ...
 * detached from itself (own session, no inherited descriptors), so the
 * master outlives the srun that started it and Slurm ends it with the job.
 * Concurrent sruns elect one starter per attempt with an O_EXCL lock file in
 * the job's directory, mooncake_master.<attempt>.lock; the others wait for
 * the state file (<dir>/mooncake_master.json) to say ready or failed for that
 * attempt. A new attempt (after a failure this srun did not witness, or
 * when the starter is gone) takes the next number: no lock is ever removed,
 * so two sruns can never both believe they own the same attempt.
 *
 * Ready means: the master step is alive, TCP 8700 accepts, GET /health
 * answers 200 on 8701 and 8702, and (for every srun after the starter) the
 * metadata server holds this job's random token, so a foreign listener on
 * the ports is never taken for the job's master.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plugin.h"

#define POLL_MS 250
#define FIRST_PROGRESS_S 3 /* a master is usually ready in ~1.5 s: no line */
#define PROGRESS_EVERY_S 5
#define PROBE_TIMEOUT_MS 1000
#define LOG_TAIL_LINES 12
#define LOG_LINE_MAX 200
#define TOKEN_KEY "spank_mooncake/job/"

struct ctl {
	const struct mcp_config *config;
	const struct mcr_recipe *recipe;
	const struct mcp_job *job;
	char lock[PATH_MAX], log[PATH_MAX]; /* lock: this attempt's */
	int attempt;
	char key_path[128]; /* /metadata?key=... */
	int timeout;        /* seconds to wait for readiness */
	int bound;          /* seconds this srun waits at most (progress lines) */
	double t0;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Last lines of the master's log, indented, for error messages (the last
 * LOG_TAIL_LINES that are not known noise, each cut at LOG_LINE_MAX). */
static void log_tail(const char *path, char *out, size_t size)
{
	char buf[4096], *lines[64], *save = NULL, *line;
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	off_t end;
	ssize_t got;
	size_t o = 0;

	out[0] = '\0';
	if (fd < 0)
		return;
	end = lseek(fd, 0, SEEK_END);
	lseek(fd, end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0, SEEK_SET);
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return;
	buf[got] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* srun's note on clusters without task/affinity (we ask for
		 * --cpu-bind=none) is noise next to a real error */
		if (strstr(line, "lacks support for cpu binding"))
			continue;
		if (n == (int)(sizeof(lines) / sizeof(lines[0]))) {
			memmove(lines, lines + 1, sizeof(lines) - sizeof(lines[0]));
			n--;
		}
		lines[n++] = line;
	}
	for (int i = n > LOG_TAIL_LINES ? n - LOG_TAIL_LINES : 0; i < n; i++) {
		int w = snprintf(out + o, size - o, "\n    %.*s%s", LOG_LINE_MAX, lines[i],
				 strlen(lines[i]) > LOG_LINE_MAX ? " [...]" : "");

		if (w < 0 || (size_t)w >= size - o)
			break;
		o += (size_t)w;
	}
}

static void describe_status(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "status 0x%x", status);
}

/* What a readiness probe saw. */
enum probe_result {
	PROBE_READY = 0,
	PROBE_NOT_READY = -1, /* the infra node answered: refused, or not ready */
	PROBE_NO_ANSWER = -2, /* no answer at all: the node is unreachable */
};

/* errno of a failed probe: the host never answered (a timeout is not a
 * refusal) */
static enum probe_result failed_probe(void)
{
	switch (errno) {
	case ETIMEDOUT:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
	case ENETDOWN:
		return PROBE_NO_ANSWER;
	default:
		return PROBE_NOT_READY;
	}
}

/* Is the master at c->job->infra_addr ready? The reason it is not goes to
 * why. With `token`, the metadata server must also hold this job's token. */
static enum probe_result probe_ready(const struct ctl *c, const char *token,
				     char *why, size_t why_size)
{
	const char *addr = c->job->infra_addr;
	struct mcr_error reason;
	char body[256];
	int status;

	if (mcri_tcp_probe(addr, MCR_MASTER_PORT, PROBE_TIMEOUT_MS, &reason)) {
		enum probe_result r = failed_probe();

		snprintf(why, why_size, "port %d (RPC) does not accept: %.200s", MCR_MASTER_PORT, reason.text);
		return r;
	}
	for (int port = MCR_METADATA_PORT; port <= MCR_METRICS_PORT; port++) {
		const char *what = port == MCR_METADATA_PORT ? "metadata" : "metrics";

		if (mcri_http(addr, port, "GET", "/health", NULL, PROBE_TIMEOUT_MS,
			      &status, body, sizeof(body), &reason)) {
			enum probe_result r = failed_probe();

			snprintf(why, why_size, "port %d (%s) GET /health: %.200s", port, what, reason.text);
			return r;
		}
		if (status != 200 || (port == MCR_METADATA_PORT && strncmp(body, "OK", 2) != 0)) {
			snprintf(why, why_size, "port %d (%s) GET /health answered %d", port, what, status);
			return PROBE_NOT_READY;
		}
	}
	if (!token)
		return PROBE_READY;
	if (mcri_http(addr, MCR_METADATA_PORT, "GET", c->key_path, NULL, PROBE_TIMEOUT_MS,
		      &status, body, sizeof(body), &reason)) {
		enum probe_result r = failed_probe();

		snprintf(why, why_size, "port %d GET %s: %.200s", MCR_METADATA_PORT, c->key_path, reason.text);
		return r;
	}
	if (status != 200 || strcmp(body, token) != 0) {
		snprintf(why, why_size,
			 "a master answers on %s, but it is not the one this job started (its metadata server does not know this job)",
			 addr);
		return PROBE_NOT_READY;
	}
	return PROBE_READY;
}

/* A progress line every PROGRESS_EVERY_S while this srun waits: `state`
 * says for what, `why` what the last probe saw. */
static void progress(const struct ctl *c, double *next, const char *state,
		     const char *why)
{
	double t = now_s();

	if (t < *next)
		return;
	*next = t + PROGRESS_EVERY_S;
	slurm_info(MCP_NAME ": waiting for mooncake_master on %s (%s), %.0f s of at most %d s: %s (%s)",
		   c->job->infra_node, c->job->infra_addr, t - c->t0, c->bound, state, why);
}

static bool pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static void fill_state(const struct ctl *c, struct mcp_master_state *st,
		       const char *state)
{
	snprintf(st->state, sizeof(st->state), "%s", state);
	st->attempt = c->attempt;
	snprintf(st->infra_node, sizeof(st->infra_node), "%s", c->job->infra_node);
	snprintf(st->infra_addr, sizeof(st->infra_addr), "%s", c->job->infra_addr);
}

/* Record a failure for the other sruns of the job, then report it. */
static int fail_state(const struct ctl *c, struct mcp_master_state *st,
		      struct mcr_error *err)
{
	struct mcr_error ignored;

	struct mcp_master_state now;

	fill_state(c, st, "failed");
	snprintf(st->message, sizeof(st->message), "%s", err->text);
	/* a newer attempt (others took this one for gone) owns the state now */
	if (mcp_state_read(c->job->dir, &now, &ignored) == 0 && now.attempt > c->attempt)
		return -1;
	mcp_state_write(c->job->dir, st, &ignored);
	return -1;
}

/* environ minus what a step of ours must not inherit (spawn.c), then the
 * service's own env (NULL-terminated) */
static char **master_env(const struct mcr_recipe *recipe, struct mcr_error *err)
{
	struct mcr_env extra = { 0 };
	char **env;

	if (mcr_master_env(recipe, &extra, err))
		return NULL;
	env = mcp_step_env(&extra, err);
	mcr_env_free(&extra);
	return env;
}

static int spawn_master(const struct ctl *c, pid_t *pid, struct mcr_error *err)
{
	char **margv = NULL, **argv = NULL, **env = NULL;
	int rc = -1, logfd;

	if (mcr_master_argv(c->recipe, c->config->master, &margv, err))
		return -1;
	/* a fresh log for this job's master; srun's own messages go there too */
	logfd = open(c->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (logfd < 0) {
		mcri_error_set(err, MCR_EIO, "cannot create %s: %s", c->log, strerror(errno));
		mcr_strv_free(margv);
		return -1;
	}
	close(logfd);
	argv = mcp_step_argv(c->config, c->job, "mooncake-master", c->log, margv, err);
	env = argv ? master_env(c->recipe, err) : NULL;
	if (argv && env) {
		rc = mcp_spawn_detached(argv, env, c->log, pid);
		if (rc != 0)
			mcri_error_set(err, MCR_ESTATE,
				       "cannot run %s to start the master step: %s; set srun= in plugstack.conf",
				       argv[0], strerror(rc));
		rc = rc ? -1 : 0;
	}
	mcr_strv_free(margv);
	mcr_strv_free(argv);
	mcr_strv_free(env);
	return rc;
}

/* Stop the master step we started (srun forwards SIGTERM to the task). */
static void stop_child(pid_t pid)
{
	int status;

	kill(pid, SIGTERM);
	for (int i = 0; i < 40; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return;
		sleep_ms(POLL_MS);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

static int make_token(char *buf, size_t size)
{
	unsigned char r[16];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -1;
	for (size_t i = 0; i < sizeof(r) && 2 * i + 2 < size; i++)
		snprintf(buf + 2 * i, 3, "%02x", r[i]);
	return 0;
}

/* Wait until the master answers, then store this job's token in its
 * metadata server and record the ready state. `child` is the master step's
 * srun when this process started it (0 when it adopts one another srun
 * started, st->srun_pid on this host). */
static int await_ready(struct ctl *c, struct mcp_master_state *st, pid_t child,
		       struct mcr_error *err)
{
	double deadline = c->t0 + c->timeout, next = c->t0 + FIRST_PROGRESS_S;
	char why[512] = "starting", tail[3000], status_s[64];

	c->bound = c->timeout;
	int status;

	for (;;) {
		bool gone = false;

		pid_t w = child > 0 ? waitpid(child, &status, WNOHANG) : 0;

		if (w == child && child > 0) {
			describe_status(status, status_s, sizeof(status_s));
			gone = true;
		} else if (w < 0 && !pid_alive(child)) {
			/* reaped by someone else (ECHILD): status unknown */
			snprintf(status_s, sizeof(status_s), "exit status unknown");
			gone = true;
		} else if (child <= 0 && !pid_alive(st->srun_pid)) {
			snprintf(status_s, sizeof(status_s), "its srun, pid %ld, is gone", st->srun_pid);
			gone = true;
		}
		if (gone) {
			char busy[512] = "", advice[1024];

			log_tail(c->log, tail, sizeof(tail));
			mcp_master_exec_advice(tail, c->config->master, c->job->infra_node,
					       advice, sizeof(advice));
			/* lost a race for the ports with another job's master? */
			for (int port = MCR_MASTER_PORT; port <= MCR_METRICS_PORT && !busy[0]; port++) {
				struct mcr_error reason;

				if (mcri_tcp_probe(c->job->infra_addr, port, PROBE_TIMEOUT_MS,
						   &reason) == 0)
					snprintf(busy, sizeof(busy),
						 " Port %d on %s is in use by another process: another job's mooncake_master on the same node? Only one job at a time can use a node as its infra node (the ports are fixed): run such jobs on different first nodes, or with --exclusive.",
						 port, c->job->infra_node);
			}
			mcri_error_set(err, MCR_ESTATE,
				       "the master step (mooncake_master on %s) ended during start-up (%s) before it was ready.%s%s Last lines of %s:%s",
				       c->job->infra_node, status_s, busy, advice, c->log,
				      tail[0] ? tail : " (empty)");
			return fail_state(c, st, err);
		}
		if (probe_ready(c, NULL, why, sizeof(why)) == PROBE_READY) {
			int hs;
			char body[64];
			struct mcr_error reason;

			if (mcri_http(c->job->infra_addr, MCR_METADATA_PORT, "PUT", c->key_path,
				      st->token, PROBE_TIMEOUT_MS, &hs, body, sizeof(body),
				      &reason) == 0 && hs == 200 &&
			    probe_ready(c, st->token, why, sizeof(why)) == PROBE_READY)
				break;
		}
		if (now_s() >= deadline) {
			log_tail(c->log, tail, sizeof(tail));
			if (child > 0)
				stop_child(child);
			else
				kill((pid_t)st->srun_pid, SIGTERM);
			mcri_error_set(err, MCR_ESTATE,
				      "mooncake_master on %s (%s) was not ready after %d s: %s; it was stopped. If the node is just slow, raise readiness.timeout_seconds of the mooncake-master service (or ready_timeout= in plugstack.conf); last lines of %s:%s",
				      c->job->infra_node, c->job->infra_addr,
				      c->timeout, why, c->log,
				      tail[0] ? tail : " (empty)");
			return fail_state(c, st, err);
		}
		progress(c, &next, "not ready yet", why);
		sleep_ms(POLL_MS);
	}
	fill_state(c, st, "ready");
	st->ready_at = (long long)time(NULL);
	if (mcp_state_write(c->job->dir, st, err))
		return -1;
	slurm_info(MCP_NAME ": mooncake_master ready on %s (%s:%d) after %.1f s",
		   c->job->infra_node, c->job->infra_addr, MCR_MASTER_PORT,
		   now_s() - c->t0);
	/* the pool's sampler step (sampler.c): a warning if it cannot start */
	mcp_start_sampler(c->config, c->job, err);
	return 0;
}

static int start_master(struct ctl *c, struct mcr_error *err)
{
	struct mcp_master_state st = { 0 };
	pid_t pid = -1;

	fill_state(c, &st, "starting");
	gethostname(st.starter_host, sizeof(st.starter_host) - 1);
	st.starter_pid = (long)getpid();
	st.started_at = (long long)time(NULL);
	if (make_token(st.token, sizeof(st.token)))
		return mcri_error_set(err, MCR_EIO, "cannot make a random token");
	/* first thing under the lock: the other sruns see this attempt */
	if (mcp_state_write(c->job->dir, &st, err))
		return fail_state(c, &st, err);
	/* a listener before our master exists belongs to someone else */
	for (int port = MCR_MASTER_PORT; port <= MCR_METRICS_PORT; port++) {
		struct mcr_error reason;

		if (mcri_tcp_probe(c->job->infra_addr, port, PROBE_TIMEOUT_MS,
				   &reason) == 0) {
			mcri_error_set(err, MCR_ESTATE,
				      "port %d on the infra node %s (%s) is already in use by another process (not this job's master, which is not started yet), so mooncake_master could not listen there. Is another job's mooncake_master running on %s? Only one job at a time can use a node as its infra node (the ports are fixed): run the job on other nodes, or with --exclusive",
				      port, c->job->infra_node, c->job->infra_addr, c->job->infra_node);
			return fail_state(c, &st, err);
		}
	}
	if (spawn_master(c, &pid, err))
		return fail_state(c, &st, err);
	st.srun_pid = (long)pid;
	if (mcp_state_write(c->job->dir, &st, err)) {
		stop_child(pid);
		return fail_state(c, &st, err);
	}
	slurm_info(MCP_NAME ": starting mooncake_master on %s (%s) as step mooncake-master of job %s; log: %s",
		   c->job->infra_node, c->job->infra_addr, c->job->job_id, c->log);
	return await_ready(c, &st, pid, err);
}

/* The lock's holder: pid and host ("" when unreadable). */
static void lock_holder(const struct ctl *c, long *pid, char *host, size_t size)
{
	char fmt[32];
	FILE *f = fopen(c->lock, "re");

	*pid = 0;
	host[0] = '\0';
	snprintf(fmt, sizeof(fmt), "%%ld %%%zus", size - 1);
	if (f) {
		if (fscanf(f, fmt, pid, host) != 2)
			*pid = 0;
		fclose(f);
	}
}

static bool on_this_host(const char *host)
{
	char me[256] = "";

	gethostname(me, sizeof(me) - 1);
	return host[0] && strcmp(host, me) == 0;
}

/* The holder of this attempt's lock is gone when it ran on this host and
 * neither it nor the srun it spawned is alive, or (another host) its lock
 * is older than the readiness timeout, the starter's own bound. */
static bool starter_gone(const struct ctl *c, const struct mcp_master_state *st,
			 bool have_state)
{
	char lhost[256];
	long lpid;
	struct stat sb;

	lock_holder(c, &lpid, lhost, sizeof(lhost));
	if (lpid && on_this_host(lhost))
		return !pid_alive(lpid) && !(have_state && pid_alive(st->srun_pid));
	if (stat(c->lock, &sb) != 0)
		return true;
	/* the starter's own bound, plus the up to 10 s it takes to stop a
	 * master that was not ready */
	return time(NULL) - sb.st_mtime > c->timeout + 15;
}

/*
 * The state says the job's master is ready: it must answer, with this job's
 * token. A master that answers otherwise (a refused port, a foreign master)
 * has stopped: an error, never a restart behind running workers. One that
 * does not answer at all may be behind a network blip between this node and
 * the infra node: asked again until the readiness bound, with progress
 * lines, and then reported as unreachable, which is not the same as gone.
 */
static int join_ready(struct ctl *c, const struct mcp_master_state *st,
		      struct mcr_error *err)
{
	struct ctl cc = *c;
	struct mcp_job job = *c->job;
	char why[512] = "", me[256] = "";
	double next;
	enum probe_result r;

	/* the state names the infra node that the starter used */
	job.infra_node = st->infra_node;
	job.infra_addr = st->infra_addr;
	cc.job = &job;
	cc.t0 = now_s();
	cc.bound = c->timeout;
	next = cc.t0; /* the first "no answer" shows at once */
	while ((r = probe_ready(&cc, st->token, why, sizeof(why))) == PROBE_NO_ANSWER &&
	       now_s() - cc.t0 < cc.bound) {
		progress(&cc, &next, "it does not answer from this node, asking again", why);
		sleep_ms(POLL_MS);
	}
	if (r == PROBE_READY) {
		if (next > cc.t0)
			slurm_info(MCP_NAME ": mooncake_master on %s (%s) answers again after %.1f s",
				   job.infra_node, job.infra_addr, now_s() - cc.t0);
		return 0;
	}
	if (r == PROBE_NO_ANSWER) {
		gethostname(me, sizeof(me) - 1);
		return mcri_error_set(err, MCR_ESTATE,
				      "the job's mooncake_master on %s (%s) was ready, but this node (%s) cannot reach it: no answer within %d s (%s). It may still be running: check the network between %s and %s (link, routes, firewall), then run srun again",
				      job.infra_node, job.infra_addr, me, cc.bound, why,
				      me, job.infra_node);
	}
	return mcri_error_set(err, MCR_ESTATE,
			      "the job's mooncake_master on %s (%s) was ready, but has stopped: %s. It is not restarted behind running workers (their segments and keys are gone with it); see %s and resubmit the job",
			      job.infra_node, job.infra_addr, why, c->log);
}

/* Another srun holds this attempt's lock: wait for its verdict. 0 ready,
 * -1 error, 1 go on to the next attempt (this one failed before this srun
 * looked, or its starter is gone). */
static int wait_for_starter(struct ctl *c, struct mcr_error *err)
{
	double t = now_s(), deadline = t + c->timeout + 25, next = t + FIRST_PROGRESS_S;
	char why[512] = "another srun of this job is starting it";
	bool first = true;

	c->bound = c->timeout + 25;
	c->t0 = t; /* progress counts this wait */

	for (;;) {
		struct mcp_master_state st;
		struct mcr_error serr = { 0 };
		bool have = mcp_state_read(c->job->dir, &st, &serr) == 0;

		/* the state of an earlier attempt: this one has not begun to
		 * write yet (or a later one exists: move on) */
		if (have && st.attempt > c->attempt)
			return 1;
		if (have && st.attempt < c->attempt)
			have = false;
		if (have && strcmp(st.state, "failed") == 0) {
			const char *msg = st.message;

			if (!first)
				return mcri_error_set(err, MCR_ESTATE,
						     "the job's mooncake_master could not be started (another srun of this job tried): %s",
						     msg);
			/* an earlier srun's attempt failed (the recipe may be
			 * fixed by now): this srun tries again */
			slurm_info(MCP_NAME ": an earlier attempt to start the master failed; trying again");
			return 1;
		}
		if (have && strcmp(st.state, "ready") == 0)
			return join_ready(c, &st, err);
		if (have && strcmp(st.state, "starting") == 0 && st.srun_pid > 0 &&
		    on_this_host(st.starter_host) && !pid_alive(st.starter_pid) &&
		    pid_alive(st.srun_pid)) {
			/* the starter died after launching the master step: one
			 * srun on this host (O_EXCL again) finishes its work */
			char adopt[PATH_MAX + 8];
			int fd;

			snprintf(adopt, sizeof(adopt), "%s.adopt", c->lock);
			fd = open(adopt, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (fd >= 0) {
				close(fd);
				slurm_info(MCP_NAME ": the srun that started the master is gone; checking the master it launched");
				c->t0 = now_s();
				return await_ready(c, &st, 0, err);
			}
		} else if (starter_gone(c, &st, have)) {
			slurm_info(MCP_NAME ": the srun that was starting the master is gone; taking over");
			return 1;
		}
		if (now_s() >= deadline)
			return mcri_error_set(err, MCR_ESTATE,
					     "timed out after %.0f s waiting for the job's mooncake_master that another srun of this job is starting (state: %s); see %s",
					     now_s() - t, have ? st.state : "unknown", c->log);
		first = false;
		progress(c, &next, "not ready yet", why);
		sleep_ms(POLL_MS);
	}
}

int mcp_ensure_master(const struct mcp_config *config,
		      const struct mcr_recipe *recipe, const struct mcp_job *job,
		      struct mcr_error *err)
{
	struct ctl c = { .config = config, .recipe = recipe, .job = job };
	char host[256] = "";

	c.t0 = now_s();
	c.timeout = mcr_recipe_ready_timeout(recipe);
	if (c.timeout <= 0)
		c.timeout = config->ready_timeout;
	snprintf(c.log, sizeof(c.log), "%s/%s", job->dir, MCP_LOG_FILE);
	snprintf(c.key_path, sizeof(c.key_path), "/metadata?key=" TOKEN_KEY "%s",
		 job->job_id);
	gethostname(host, sizeof(host) - 1);
	for (c.attempt = 1; c.attempt <= MCP_MAX_ATTEMPTS; c.attempt++) {
		int fd, rc;

		snprintf(c.lock, sizeof(c.lock), "%s/" MCP_LOCK_FILE, job->dir, c.attempt);
		fd = open(c.lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dprintf(fd, "%ld %s\n", (long)getpid(), host);
			close(fd);
			c.t0 = now_s();
			return start_master(&c, err);
		}
		if (errno != EEXIST)
			return mcri_error_set(err, MCR_EIO,
					     "cannot create %s: %s; the job's directory must be writable by you",
					     c.lock, strerror(errno));
		rc = wait_for_starter(&c, err);
		if (rc <= 0)
			return rc;
	}
	return mcri_error_set(err, MCR_ESTATE,
			     "the job's mooncake_master could not be started in %d attempts; see %s",
			     MCP_MAX_ATTEMPTS, c.log);
}
