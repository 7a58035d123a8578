/*
 * keep.c - the keeper: the task of a step the plugin starts (the master's,
 * a memory lender's) stays to keep its program running (restart=), after
 * its guard proved the program's ports its own.
 *
 * The master step's task forks in task_init: the child goes on to become
 * mooncake_master (slurmstepd execs it, in the recipe's container when a
 * later plugin enters one), and the task stays in the step as its keeper.
 * The keeper proves the ports the master's, as the guard does (the sockets
 * on them in the tree of the master's pid), then waits for it. When a master that was proved ready dies while the
 * job runs (a crash, an OOM kill, kill -9), the keeper records it in the
 * proof (restarting, when, how), says so in the master's log, and starts
 * it again on the same node and ports after a back-off (1, 2, 4, 8, 16 s;
 * 1 s again after a master that ran STEADY_S), at most restart= times,
 * and proves the new master's ports. A master that is alive but answers
 * none of the keeper's probes (GET /health on its metrics port every
 * HANG_PROBE_S) for hang_timeout= seconds (stopped, deadlocked) is killed
 * and counts as a crash. The keeper says in its proof every
 * MCRI_PROOF_ALIVE_S that it runs; an HA pool's keeper watches its etcd
 * and its ports (watch_running). The keeper runs with restart=0 too (it records the master's end
 * and finds a hung one); the master dies with it (PR_SET_PDEATHSIG), and
 * slurmstepd records the pool's end when the keeper itself is killed
 * (stepd.c, task_exit). Sruns that join meanwhile wait for
 * it (master.c); the clients mount their segments again by
 * themselves; the keys the master indexed are lost.
 *
 * Slurm's signals reach the master through the keeper (proctrack/cgroup
 * signals only the task, slurmstepd's child; proctrack/linuxproc spares
 * processes named slurmstepd, so the keeper renames itself): SIGTERM,
 * SIGINT, SIGHUP and SIGQUIT end the step, and the keeper starts nothing
 * again and leaves as the master left; a master killed by another signal
 * Slurm passed (scancel -s USR1) is not started again either. Nor is the
 * first master when it never became ready (the srun that started it says
 * why), a restarted one not proved within the readiness bound, one that
 * exited 0, or one whose port another process holds by then; a restarted
 * master that dies before it is proved counts as a restart, one not
 * started after all (the step ends during its back-off, a port is taken)
 * does not. When the
 * keeper leaves, its proof says the pool has ended, so that no srun takes
 * what answers on the ports later for the master.
 *
 * A master in a container: pyxis enters its container in its own
 * task_init, once per step, in the step's first task. Before this plugin
 * in plugstack.conf, it has entered it in the task before the keeper
 * forks, so every master the keeper starts runs there. After it, pyxis
 * enters it in the first master only (the keeper forks before), and
 * refuses to start a second container in the step ("container was not
 * started successfully by another task"): once the first master is
 * proved, the keeper takes what it runs with there (its namespaces, by
 * descriptors that keep them, its working directory, limits, environment
 * and command line, from /proc), and a master it starts again joins those
 * namespaces and executes that command line itself, never going back
 * through the plugins' task_init.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"
#include "plugin/common.h"
#include "plugin/handover.h"
#include "plugin/slurm.h"
#include "pool/pool.h"
#include "steps/ha.h"
#include "steps/keep.h"
#include "steps/ports.h"
#include "steps/step.h"

/* the namespaces a master in a container is in, in the order pyxis joins
 * them */
static const char *const NS_NAME[] = { "user", "cgroup", "mnt", "ipc", "uts", "net" };
static const int NS_TYPE[] = { CLONE_NEWUSER, CLONE_NEWCGROUP, CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWNET };
#define N_NS (sizeof(NS_TYPE) / sizeof(NS_TYPE[0]))

/* what the first master runs with in a container the keeper is not in
 * (g->rejoin), for the ones it starts again there */
struct container {
	bool looked;        /* the first proved master was looked at */
	bool in;            /* ... and it runs in a container: what follows */
	int ns[N_NS];       /* a descriptor of each namespace not the keeper's; -1 */
	int cwd;            /* its working directory (O_PATH) */
	char **argv, **env; /* its command line and environment */
	struct rlimit lim[RLIM_NLIMITS];
};

#define BACKOFF_MAX_S 16
#define STEADY_S 60 /* a master that ran this long starts the back-off again */

/* the signals the keeper passes on to the master (proctrack/cgroup
 * signals slurmstepd's children only): the first N_STOP end the step */
static const int PASSED[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCONT, SIGWINCH, SIGURG };
#define N_STOP 4
#define N_PASSED (sizeof(PASSED) / sizeof(PASSED[0]))

/* the keeper's state that its signal handler shares (one keeper per
 * process: the master step's task) */
static volatile sig_atomic_t stopping;   /* the signal Slurm ended the step with */
static volatile sig_atomic_t passed;     /* the last signal passed on */
static volatile sig_atomic_t master_pid; /* the running master, 0 none */

static void on_signal(int sig)
{
	int saved = errno;

	for (size_t i = 0; i < N_STOP; i++)
		if (PASSED[i] == sig)
			stopping = sig;
	passed = sig;
	if (master_pid > 0)
		kill((pid_t)master_pid, sig);
	errno = saved;
}

struct signals {
	struct sigaction old[N_PASSED + 1]; /* the task's dispositions (and SIGPIPE's), for the master */
	sigset_t mask;                      /* the task's mask, for the master */
	sigset_t passed;                    /* PASSED */
};

static void catch_signals(struct signals *s)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&s->passed);
	for (size_t i = 0; i < N_PASSED; i++)
		sigaddset(&s->passed, PASSED[i]);
	sa.sa_handler = on_signal;
	sa.sa_mask = s->passed;
	for (size_t i = 0; i < N_PASSED; i++)
		sigaction(PASSED[i], &sa, &s->old[i]);
	/* the keeper writes to the step's output: a closed pipe is no end */
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, &s->old[N_PASSED]);
	sigprocmask(SIG_UNBLOCK, &s->passed, &s->mask);
}

/* the master's signals as slurmstepd left the task's */
static void release_signals(const struct signals *s)
{
	for (size_t i = 0; i < N_PASSED; i++)
		sigaction(PASSED[i], &s->old[i], NULL);
	sigaction(SIGPIPE, &s->old[N_PASSED], NULL);
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
	int sig = !master_ran && stopping ? (int)stopping : WIFSIGNALED(status) ? WTERMSIG(status) : 0;

	/* an HA pool's etcd member of this node goes with its keeper */
	mcp_ha_etcd_stop(&g->ha, true);
	/* the pool has ended: no srun takes what answers on its ports now
	 * for the job's master */
	g->proof.restarting = false;
	g->proof.ended = true;
	mcp_guard_record(g);
	MCP_COVERAGE_FLUSH();
	if (sig) {
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
		sigprocmask(SIG_SETMASK, &s->mask, NULL);
		sigprocmask(SIG_UNBLOCK, &s->passed, NULL);
		/* the master's SIGABRT or SIGSEGV: the keeper dumps no core */
		setrlimit(RLIMIT_CORE, &(struct rlimit){ .rlim_cur = 0, .rlim_max = 0 });
		raise(sig);
		_exit(128 + sig);
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* The keeper ends the pool (or its master, in an HA pool) for a cause it
 * found: said in the master's log, and kept in its proof (ended_why), so
 * that the job's sruns say why */
__attribute__((format(printf, 2, 3))) static void end_why(struct mcp_guard *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->proof.ended_why, sizeof(g->proof.ended_why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mooncake: %s\n", g->proof.ended_why);
}

/* what a master's end for good means for the pool */
static const char *ended(const struct mcp_guard *g)
{
	if (g->lender.on)
		return "this node's memory is no longer lent to the job's pool";
	return g->ha.ha.masters ? "this node's master of the job's HA pool has ended (the others go on)"
				: "the job's pool has ended";
}

/* The master has ended for good. An HA pool's etcd member of this node
 * serves the other masters on: the keeper stays with it until Slurm ends
 * the step (or it ends), then leaves as the master left. */
static void master_gone(struct mcp_guard *g, const struct signals *s, int status, bool master_ran, const char *host)
{
	int st;

	if (g->ha.pid > 0 && !stopping) {
		fprintf(stderr,
			"mooncake: mooncake_master on %s is not started again; this node's etcd member of the job's HA pool stays until the job ends\n",
			host);
		/* this node's master has ended for good: said now, while the
		 * keeper stays with the etcd member */
		g->proof.restarting = false;
		g->proof.ended = true;
		mcp_guard_record(g);
		while (!stopping && waitpid(g->ha.pid, &st, WNOHANG) == 0)
			mcp_sleep_ms(250);
		if (!stopping)
			g->ha.pid = 0; /* it ended, and is reaped */
	}
	leave(g, s, status, master_ran);
}

/* The master is not started again after all (Slurm ended the step during
 * the back-off, a port is taken): that restart is not counted, the proof's
 * restarts are as they were before it */
static void uncount(struct mcp_guard *g, const struct mcri_proof *before)
{
	g->proof.restarts = before->restarts;
	memcpy(g->proof.restart, before->restart, sizeof(g->proof.restart));
}

/* /proc/PID/FILE's NUL-separated strings as a NULL-terminated vector
 * (heap); NULL when it cannot be read or is empty */
static char **proc_strings(pid_t pid, const char *file)
{
	char path[64], *buf = NULL, **v = NULL;
	size_t len = 0, n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	for (;;) {
		char *more = realloc(buf, len + 65536 + 1);
		ssize_t got;

		if (!more)
			goto fail;
		buf = more;
		got = read(fd, buf + len, 65536);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	fd = -1;
	if (!len)
		goto fail;
	buf[len] = '\0';
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		n++;
	if (!(v = calloc(n + 1, sizeof(*v))))
		goto fail;
	n = 0;
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		if (!(v[n++] = strdup(buf + i))) {
			mcr_strv_free(v);
			v = NULL;
			goto fail;
		}
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return v;
}

/* Is /proc/PID/ns/NAME (open as fd) another namespace than the keeper's? */
static bool other_ns(int fd, const char *name)
{
	char own[64];
	struct stat a, b;

	snprintf(own, sizeof(own), "/proc/self/ns/%s", name);
	return fstat(fd, &a) == 0 && stat(own, &b) == 0 && (a.st_ino != b.st_ino || a.st_dev != b.st_dev);
}

/* The proved master `pid`: when it runs in another mount namespace than
 * the keeper (pyxis's container, entered in it after this plugin's
 * task_init), what it runs with there, into c. Looked at once; what cannot
 * be taken is said (a master started again would run outside). */
static void take_container(pid_t pid, struct container *c)
{
	char path[64];
	const char *what = NULL;

	c->looked = true;
	for (size_t i = 0; i < N_NS; i++)
		c->ns[i] = -1;
	c->cwd = -1;
	snprintf(path, sizeof(path), "/proc/%ld/ns/mnt", (long)pid);
	if ((c->ns[2] = open(path, O_RDONLY | O_CLOEXEC)) < 0 || !other_ns(c->ns[2], "mnt")) {
		if (c->ns[2] >= 0)
			close(c->ns[2]);
		c->ns[2] = -1;
		return; /* the keeper's own: nothing to join */
	}
	for (size_t i = 0; i < N_NS && !what; i++) {
		if (i == 2)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/%s", (long)pid, NS_NAME[i]);
		if ((c->ns[i] = open(path, O_RDONLY | O_CLOEXEC)) < 0 && errno != ENOENT)
			what = NS_NAME[i];
		else if (c->ns[i] >= 0 && !other_ns(c->ns[i], NS_NAME[i])) {
			close(c->ns[i]);
			c->ns[i] = -1;
		}
	}
	snprintf(path, sizeof(path), "/proc/%ld/cwd", (long)pid);
	if (!what && (c->cwd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		what = "working directory";
	if (!what && !(c->argv = proc_strings(pid, "cmdline")))
		what = "command line";
	if (!what && !(c->env = proc_strings(pid, "environ")))
		what = "environment";
	for (int r = 0; !what && r < RLIM_NLIMITS; r++)
		if (prlimit(pid, (enum __rlimit_resource)r, NULL, &c->lim[r]) != 0)
			what = "limits";
	if (!what) {
		c->in = true;
		return;
	}
	fprintf(stderr,
		"mooncake: the master step cannot take the %s of its mooncake_master (pid %ld) in its container (%s): a master started again would not run there\n",
		what, (long)pid, strerror(errno));
	for (size_t i = 0; i < N_NS; i++)
		if (c->ns[i] >= 0)
			close(c->ns[i]);
	if (c->cwd >= 0)
		close(c->cwd);
	mcr_strv_free(c->argv);
	mcr_strv_free(c->env);
	c->argv = c->env = NULL;
}

/* In the child the keeper forked to start the master again: into the
 * container the first master ran in, then its command line. Never
 * returns. */
static void run_in_container(const struct container *c, pid_t keeper)
{
	const char *what = "its limits";

	for (int r = 0; r < RLIM_NLIMITS; r++)
		if (setrlimit((enum __rlimit_resource)r, &c->lim[r]) != 0)
			goto fail;
	for (size_t i = 0; i < N_NS; i++) {
		what = NS_NAME[i];
		if (c->ns[i] >= 0 && setns(c->ns[i], NS_TYPE[i]) != 0)
			goto fail;
	}
	what = "its working directory";
	if (fchdir(c->cwd) != 0)
		goto fail;
	/* joining a namespace may change the credentials, which clears the
	 * parent-death signal: set again */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != keeper)
		raise(SIGKILL);
	what = c->argv[0];
	execve(c->argv[0], c->argv, c->env);
fail:
	fprintf(stderr, "mooncake: cannot start mooncake_master again in the container of its first run (%s: %s)\n",
		what, strerror(errno));
	_exit(127);
}

enum end { END_DIED, END_NEVER_READY, END_FOREIGN, END_LOST, END_HUNG, END_STEERED };

#define HANG_PROBE_S 5 /* a running master is asked this often whether it answers */

/* One look at a running master as its clients see it: GET /health on its
 * metrics port answers 200 (an HA pool's master says what it is: *role).
 * What it did not do goes to why. */
static bool master_answers(const struct mcp_guard *g, enum mcri_master_role *role, char *why, size_t size)
{
	const char *addr = g->ha.ha.masters ? g->ha.ha.member[g->ha.self].addr : "127.0.0.1";
	struct mcri_master_health h;
	struct mcr_error e;
	char *body = NULL;
	int status = 0;
	bool ok;

	*role = MCRI_MASTER_UNKNOWN;
	if (g->lender.on)
		return mcp_lender_answers((struct mcp_guard *)g, why, size);
	if (mcri_http_get(addr, g->proof.ports.metrics, "/health", MCP_PROBE_TIMEOUT_MS, 4096, &status, &body, &e)) {
		snprintf(why, size, "GET /health on port %d: %.200s", g->proof.ports.metrics, e.text);
		return false;
	}
	/* an answer is life: a leader that says it does not serve yet (one
	 * that replays a long operation log) is not hung */
	ok = status == 200;
	if (!ok)
		snprintf(why, size, "GET /health on port %d answered %d", g->proof.ports.metrics, status);
	else if (g->ha.ha.masters && mcri_master_health_parse(body, &h) == 0)
		*role = h.role;
	free(body);
	return ok;
}

/* This node's etcd member of the HA pool has ended (reaped here): unless
 * Slurm ends the step, it is started again on its data, at most restart=
 * times; meanwhile the pool goes on with a majority of its members, or,
 * with one member, has none and cannot choose a new leader. */
static void etcd_ended(struct mcp_guard *g)
{
	char how[64], host[64] = "this node";
	struct mcr_error err;
	int status;

	while (waitpid(g->ha.pid, &status, 0) < 0 && errno == EINTR)
		;
	g->ha.pid = 0;
	if (stopping)
		return;
	gethostname(host, sizeof(host) - 1);
	mcp_describe_status(status, how, sizeof(how));
	fprintf(stderr,
		"mooncake: the etcd member m%d of the job's HA pool on %s ended with %s (its log: %s/" MCRI_ETCD_LOG
		"); %s\n",
		g->ha.self, host, how, g->dir, g->ha.self,
		g->ha.ha.etcd_members > 1
			? "the pool goes on while a majority of its etcd members runs"
			: "it is the pool's only member: no master can take over from a leader that ends until it is back");
	if (g->ha.restarts >= g->proof.restart_limit) {
		fprintf(stderr,
			"mooncake: the etcd member m%d ended %d times already (restart=%d): it is not started again\n",
			g->ha.self, g->ha.restarts + 1, g->proof.restart_limit);
		return;
	}
	g->ha.restarts++;
	mcp_sleep_ms(1000);
	if (stopping)
		return;
	if (mcp_ha_etcd_start(&g->ha, g->dir, NULL, g->bound, &err))
		fprintf(stderr, "mooncake: %s\n", err.text);
	else
		fprintf(stderr, "mooncake: the etcd member m%d was started again on %s (%d of at most %d)\n",
			g->ha.self, host, g->ha.restarts, g->proof.restart_limit);
}

/* what the keeper has seen of its running master */
struct watch {
	double probed, silent;      /* when it last asked it, since when it answered none */
	enum mcri_master_role role; /* what it last said it is (an HA pool's) */
	double watched;             /* when it last looked at the HA pool's etcd and ports */
	double alive;               /* when it last said in its proof that it runs */
	bool full;                  /* the HA pool's etcd said NOSPACE (said once) */
	bool named;                 /* the etcd names this node's master the leader */
};

#define WATCH_S 2 /* an HA pool's etcd and its master's ports are looked at this often */

/* Another master of this HA pool ended it because its etcd was steered:
 * its word into why */
static bool sibling_steered(const struct mcp_guard *g, char *why, size_t size)
{
	struct mcri_pool_end end;
	struct mcri_jobdir jd;
	struct mcr_error err;

	if (mcri_jobdir_open(&jd, g->dir, getuid(), false, &err))
		return false;
	mcri_pool_end(&jd, g->proof.attempt, g->ha.ha.masters, g->ha.self, &end);
	mcri_jobdir_close(&jd);
	if (end.steered)
		snprintf(why, size, "%s", end.why);
	return end.steered;
}

/* One look at a running master (every 250 ms): END_DIED while all is well;
 * END_HUNG once it answered no probe for hang_timeout= seconds;
 * END_STEERED when its HA pool's etcd names a leader or a member that is
 * none of the pool's (another user wrote it), or when another process
 * listens on its RPC port (a standby does not until it leads): the master
 * is killed then, and said why */
static enum end watch_running(struct mcp_guard *g, struct watch *w, pid_t child)
{
	char why[600];
	double now = mcp_now();
	int sound;

	/* its word that it runs, which a joining srun trusts only while fresh */
	if (now - w->alive >= MCRI_PROOF_ALIVE_S) {
		w->alive = now;
		g->proof.alive_at = wall_now();
		mcp_guard_record(g);
	}
	if (g->hang > 0 && now - w->probed >= (g->hang >= 4 * HANG_PROBE_S ? HANG_PROBE_S : g->hang / 4.0)) {
		w->probed = now;
		if (master_answers(g, &w->role, why, sizeof(why))) {
			w->silent = 0;
		} else if (!w->silent) {
			w->silent = now;
		} else if (now - w->silent >= g->hang) {
			/* hung: ended as a crashed master is, and started
			 * again likewise (restart=) */
			fprintf(stderr,
				"mooncake: %s (pid %ld) has answered none of its %s step's probes for %.0f s (hang_timeout=%d; the last: %s): it is hung, and is killed\n",
				mcp_guard_what(g), (long)child, g->lender.on ? "lender" : "master", now - w->silent,
				g->hang, why);
			kill(child, SIGKILL);
			return END_HUNG;
		}
	}
	if (!g->ha.ha.masters || now - w->watched < WATCH_S)
		return END_DIED;
	w->watched = now;
	if (mcp_guard_look(&g->proof, &g->no_diag) == MCRI_PROOF_FOREIGN) {
		/* the pool's etcd names this master its leader: its clients go
		 * to that process, and the whole pool ends */
		g->proof.steered = w->named;
		end_why(g, "port %d on this node is another process's (uid %u), not its mooncake_master's: %s",
			g->proof.foreign_port, g->proof.foreign_uid,
			w->named
				? "the job's HA pool's etcd names this node's master its leader, so its clients would go to that process: the pool ends"
				: "this master of the job's HA pool could not lead; it is stopped, and the others go on");
		kill(child, SIGKILL);
		return END_STEERED;
	}
	/* another master of the pool found its etcd steered: this one ends
	 * too (the whole pool ends, whichever keeper saw it first) */
	if (sibling_steered(g, why, sizeof(why))) {
		g->proof.steered = true;
		end_why(g, "%s", why);
		kill(child, SIGKILL);
		return END_STEERED;
	}
	/* (a view that names this node's master while it stands by is no sign
	 * of another's hand: a leader cut off from the others, or one that
	 * just lost its lease, is still named for a while) */
	sound = mcp_ha_etcd_sound(&g->ha, g->proof.ports.rpc, &w->full, &w->named, why, sizeof(why));
	if (sound == 0) {
		g->proof.steered = true;
		end_why(g,
			"the job's HA pool's etcd %.250s: someone who is not one of the job's masters wrote it (Mooncake's masters and clients cannot authenticate to etcd), and its clients would follow it: the pool ends; see spank_mooncake(8), SECURITY",
			why);
		kill(child, SIGKILL);
		return END_STEERED;
	}
	return END_DIED;
}

/* Prove the master `child` ready (its sockets on the ports) while
 * waiting for it to end; its wait status into *status, and master_pid 0
 * before it is reaped (no signal goes to a pid given to another process).
 * A restarted master that is not proved within the bound is stopped
 * (END_NEVER_READY); one whose port another process holds too
 * (END_FOREIGN). Nothing is proved once Slurm stops the step. */
static enum end wait_master(struct mcp_guard *g, const struct signals *s, pid_t child, int *status, struct container *c)
{
	double t0 = mcp_now(), deadline = t0 + g->bound;
	struct watch w = { 0 };
	enum end end = END_DIED;
	bool looking = true;

	for (;;) {
		/* a proved master is watched while it runs: whether it answers
		 * (hang_timeout=), and an HA pool's etcd and ports */
		bool watching = !looking && !stopping && end == END_DIED && g->proof.verdict == MCRI_PROOF_OWN;
		siginfo_t si;
		int rc;

		memset(&si, 0, sizeof(si));
		/* an HA pool's etcd member is the keeper's child too */
		rc = waitid(g->ha.pid > 0 ? P_ALL : P_PID, (id_t)child, &si,
			    WEXITED | WNOWAIT | (looking || watching ? WNOHANG : 0));
		if (rc == 0 && g->ha.pid > 0 && si.si_pid == g->ha.pid) {
			etcd_ended(g);
			continue;
		}
		if (rc == 0 && si.si_pid > 0 && si.si_pid != child) {
			int other;

			waitpid(si.si_pid, &other, 0); /* no child of ours: reaped */
			continue;
		}
		if (rc == 0 && si.si_pid == child) {
			sigprocmask(SIG_BLOCK, &s->passed, NULL);
			master_pid = 0;
			sigprocmask(SIG_UNBLOCK, &s->passed, NULL);
			while (waitpid(child, status, 0) < 0 && errno == EINTR)
				;
			return end;
		}
		if (rc < 0 && errno != EINTR) {
			fprintf(stderr, "mooncake: the %s step lost track of its %s (waitid: %s)\n",
				g->lender.on ? "lender" : "master", mcp_guard_what(g), strerror(errno));
			master_pid = 0;
			*status = 1 << 8;
			return END_LOST;
		}
		if (stopping) {
			looking = false;
			/* Slurm ends the step: the etcd member's data goes at
			 * once, not after the master has ended (a master slow
			 * to end would leave it to Slurm's SIGKILL) */
			mcp_ha_etcd_stop(&g->ha, true);
		}
		if (watching) {
			if ((end = watch_running(g, &w, child)) != END_DIED)
				continue;
			mcp_sleep_ms(250);
			continue;
		}
		if (!looking)
			continue;
		if ((g->proof.verdict = mcp_guard_prove(g)) != MCRI_PROOF_NONE) {
			looking = false;
			g->proof.restarting = false;
			g->proof.proved_at = g->proof.alive_at = wall_now();
			mcp_guard_record(g);
			/* the first master's container, for those started again */
			if (g->rejoin && !c->looked && g->proof.verdict == MCRI_PROOF_OWN)
				take_container(child, c);
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
			mcp_sleep_ms(mcp_ready_poll_ms(mcp_now() - t0));
		}
	}
}

/* A listener on one of the master's ports before it is started again:
 * another process's (the old master's sockets closed with it) */
static bool port_taken(struct mcp_guard *g)
{
	const int all[3] = { g->proof.ports.rpc, g->proof.ports.metadata, g->proof.ports.metrics };
	struct mcri_listener l[1];
	int ports[3];
	size_t n = 0;

	/* the ports it has (a lender: one, or none) */
	for (int k = 0; k < 3; k++)
		if (all[k] > 0)
			ports[n++] = all[k];
	if (!n || mcri_listening(ports, n, l, 1, &g->no_diag) == 0)
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
	struct mcri_proof before = g->proof; /* as it was before the restart under way */
	pid_t keeper = getpid();
	struct container c = { 0 };
	struct signals s;

	gethostname(host, sizeof(host) - 1);
	catch_signals(&s);
	/* a process named slurmstepd is one proctrack/linuxproc never
	 * signals: the keeper is the task, and says so */
	prctl(PR_SET_NAME, "mooncake-keeper", 0, 0, 0);
	for (;;) {
		double started, ran;
		enum end end;
		pid_t child;
		int delay;

		/* no stop signal between the check and master_pid */
		sigprocmask(SIG_BLOCK, &s.passed, NULL);
		if (stopping) {
			if (g->proof.restarting) {
				uncount(g, &before);
				fprintf(stderr, "mooncake: the %s step ends (signal %d): %s is not started again\n",
					g->lender.on ? "lender" : "master", (int)stopping, mcp_guard_what(g));
			}
			leave(g, &s, status, false);
		}
		/* a donor's ready file of an earlier start says nothing of this one */
		if (g->lender.on)
			mcp_lender_before_start(g);
		child = fork();
		if (child == 0) {
			/* no master serves without its keeper: killed with it
			 * (kept across the exec of mooncake_master) */
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
			if (getppid() != keeper)
				raise(SIGKILL);
			release_signals(&s);
			if (c.in)
				run_in_container(&c, keeper);
			return 0; /* slurmstepd makes it mooncake_master */
		}
		if (child > 0)
			master_pid = child;
		sigprocmask(SIG_UNBLOCK, &s.passed, NULL);
		if (child < 0 && !g->proof.restarts) {
			release_signals(&s);
			mcp_ha_etcd_stop(&g->ha, true);
			return mcri_error_set(
				err, MCR_EIO,
				"the %s step on %s cannot start %s: fork: %s; check the user's process limit (ulimit -u) and the memory there",
				g->lender.on ? "lender" : "master", host, mcp_guard_what(g), strerror(errno));
		}
		if (child < 0) {
			end_why(g,
				"the %s step on %s cannot start %s again (fork: %s): %s; check the user's process limit (ulimit -u) and the memory there",
				g->lender.on ? "lender" : "master", host, mcp_guard_what(g), strerror(errno), ended(g));
			master_gone(g, &s, 1 << 8, false, host);
		}
		started = mcp_now();
		end = wait_master(g, &s, child, &status, &c);
		ran = mcp_now() - started;
		if (end == END_HUNG)
			snprintf(cause, sizeof(cause), "a hang (no answer for %d s)", g->hang);
		else
			mcp_describe_status(status, cause, sizeof(cause));
		if (end == END_FOREIGN)
			end_why(g,
				"port %d on %s is another process's (uid %u), not the restarted %s's; it was stopped, and %s: find the process with ss -ltnp on %s, then resubmit the job",
				g->proof.foreign_port, host, g->proof.foreign_uid, mcp_guard_what(g), ended(g), host);
		else if (end == END_NEVER_READY && g->lender.on)
			end_why(g,
				"the restarted %s was not ready within %d s; it was stopped, and %s: see the lines above",
				mcp_guard_what(g), g->bound, ended(g));
		else if (end == END_NEVER_READY)
			end_why(g,
				"the restarted mooncake_master did not listen on its ports %d, %d, %d within %d s; it was stopped, and %s: see the lines above",
				g->proof.ports.rpc, g->proof.ports.metadata, g->proof.ports.metrics, g->bound,
				ended(g));
		/* the keeper stopped it: the pool ends, the task fails (a hung
		 * one is started again as a crashed one is) */
		if (end != END_DIED && end != END_HUNG)
			master_gone(g, &s, 1 << 8, false, host);
		/* Slurm ends the step, or signalled the master to its end; a
		 * master that never was ready, or stopped cleanly (exit 0) */
		if (stopping || (WIFSIGNALED(status) && WTERMSIG(status) == passed) ||
		    (!g->proof.restarts && g->proof.verdict != MCRI_PROOF_OWN) ||
		    (WIFEXITED(status) && !WEXITSTATUS(status)))
			master_gone(g, &s, status, true, host);
		if (g->proof.restarts >= g->proof.restart_limit) {
			end_why(g,
				"%s ended with %s after %.0f s, and it was started again %d times already (restart=%d): %s; see the lines above, and raise restart= in plugstack.conf if it should outlive more ends",
				mcp_guard_what(g), cause, ran, g->proof.restarts, g->proof.restart_limit, ended(g));
			master_gone(g, &s, status, true, host);
		}
		if (ran >= STEADY_S)
			backoff = 1;
		delay = backoff;
		backoff = backoff * 2 > BACKOFF_MAX_S ? BACKOFF_MAX_S : backoff * 2;
		before = g->proof;
		mcri_proof_restart(&g->proof, wall_now(), cause);
		g->proof.restarting = true;
		g->proof.verdict = MCRI_PROOF_NONE;
		mcp_guard_record(g);
		if (g->lender.on)
			fprintf(stderr,
				"mooncake: %s ended with %s after %.0f s; starting it again%s in %d s (restart %d of at most %d): the keys its segment held are lost\n",
				mcp_guard_what(g), cause, ran, g->proof.ports.rpc ? " on the same port" : "", delay,
				g->proof.restarts, g->proof.restart_limit);
		else
			fprintf(stderr,
				"mooncake: mooncake_master ended with %s after %.0f s; starting it again on ports %d, %d, %d in %d s (restart %d of at most %d): %s\n",
				cause, ran, g->proof.ports.rpc, g->proof.ports.metadata, g->proof.ports.metrics, delay,
				g->proof.restarts, g->proof.restart_limit,
				g->ha.ha.masters
					? "another master of the job's HA pool takes over meanwhile, and this one joins the pool again"
					: "the keys it held are lost, its clients mount their segments again");
		for (int t = 0; t < delay * 10 && !stopping; t++)
			mcp_sleep_ms(100);
		if (!stopping && port_taken(g)) {
			uncount(g, &before);
			mcp_guard_record(g);
			end_why(g,
				"port %d on %s is another process's now (uid %u): %s is not started again, and %s: find the process with ss -ltnp on %s, then resubmit the job",
				g->proof.foreign_port, host, g->proof.foreign_uid, mcp_guard_what(g), ended(g), host);
			master_gone(g, &s, 1 << 8, false, host);
		}
	}
}

/* ---- the master step proves, on the infra node, that the ports its
 * job's tasks will be given are its own mooncake_master's.
 *
 * srun hands the master step its attempt, ports and job directory
 * (MCP_GUARD_VAR); the step's task stays as the master's keeper
 * and looks at the node's listening sockets on those
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

#define MAX_LISTENERS 64

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
		if ((subject ? mcri_proof_read_of(&jd, subject, &now, &err)
			     : mcri_proof_read_member(&jd, g->proof.member, &now, &err)) == 0 &&
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

/* ---- a lender step's task keeps its lender (lender.h): the
 * master's keeper (above), told what proves a lender ready and
 * running.
 *
 * srun hands the step its guard (MCP_LENDER_VAR): the lender's kind and
 * records, its election attempt, its readiness bound, restart= and
 * hang_timeout=, its port, the job's directory, and what proves it:
 *   a store   its port listens, in the keeper's tree (as the master's
 *             guard proves its ports), and the master's
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

#define SEGMENTS_EVERY_MS 250 /* the master's segments, while a store starts */

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

	return seg && !strcmp(page->s[i].name, "segment_total_capacity_bytes") && page->s[i].value > 0 ? seg : NULL;
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
		fprintf(stderr,
			"mooncake: warning: %s (mooncake-recipe status shows the lender's segment without its node)\n",
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

/* the lender in the job's workers/ records (common.c), so that status
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
	snprintf(role, sizeof(role), "%s %.*s", mcri_lender_kind_name((enum mcri_lender_kind)g->lender.kind), (int)len,
		 name);
	snprintf(peer, sizeof(peer), "%.*s", (int)strcspn(g->lender.master, ":"), g->lender.master);
	if (g->lender.kind == MCRI_LENDER_DONOR && mcri_local_address(iface, peer, addr, sizeof(addr), &ignored))
		return;
	{
		struct mcri_worker *w = &g->lender.record;
		uint32_t job = 0, step = 0;

		/* the record's name is of these: none without them */
		if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
		    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
			return;
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

int mcp_lender_task(spank_t sp, const char *value, const struct mcri_plugstack *ps, uint32_t step, bool rejoin,
		    struct mcr_error *err)
{
	struct mcp_guard *g = calloc(1, sizeof(*g));
	char run_dir[PATH_MAX * 2];
	int rc = -1;

	if (!g)
		return mcri_error_nomem(err);
	spank_unsetenv(sp, MCP_LENDER_VAR);
	if (mcp_lender_guard_parse(value, step, g, err))
		goto out;
	/* a donor's run and ready directory, in the job's (TRT-LLM makes
	 * neither) */
	if (g->lender.kind == MCRI_LENDER_DONOR) {
		size_t len = strlen(g->lender.ready);

		snprintf(run_dir, sizeof(run_dir), "%s/mooncake", g->dir);
		if (mkdir(run_dir, 0700) != 0 && errno != EEXIST) {
			mcri_error_set(err, MCR_EIO, "cannot make %s for the donor: %s", run_dir, strerror(errno));
			goto out;
		}
		/* mooncake/donor-<node>.ready: its run directory mooncake/donor-<node> */
		snprintf(run_dir, sizeof(run_dir), "%s/%.*s", g->dir,
			 len > 6 && !strcmp(g->lender.ready + len - 6, ".ready") ? (int)len - 6 : (int)len,
			 g->lender.ready);
		if (mkdir(run_dir, 0700) != 0 && errno != EEXIST) {
			mcri_error_set(err, MCR_EIO, "cannot make %s for the donor: %s", run_dir, strerror(errno));
			goto out;
		}
	}
	record(sp, g, ps->interface);
	g->rejoin = rejoin;
	rc = mcp_master_keep(g, err);
out:
	free(g);
	return rc;
}

int mcp_lender_task_privileged(spank_t sp, const char *value, const struct mcri_plugstack *ps, struct mcr_error *err)
{
	struct mcp_guard *g = calloc(1, sizeof(*g));
	char ns[64] = "", registry[128];
	ssize_t n = readlink("/proc/self/ns/net", ns, sizeof(ns) - 1);
	uint32_t job_id, tasks = 0;
	uid_t uid;
	int rc = -1;

	if (!g)
		return mcri_error_nomem(err);
	if (mcp_lender_guard_parse(value, 0, g, err))
		goto out;
	rc = 0;
	if (!g->proof.ports.rpc)
		goto out; /* a donor: no port of its own */
	rc = -1;
	if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &tasks) != ESPANK_SUCCESS) {
		mcri_error_set(err, MCR_ESTATE, "the lender step cannot get its job id, user and tasks");
		goto out;
	}
	if (tasks != 1) {
		mcri_error_set(
			err, MCR_EINVAL,
			"%s is set on a step that runs %u tasks on this node, not one the plugin launched as a lender step: the variable is the plugin's alone; unset it",
			MCP_LENDER_VAR, tasks);
		goto out;
	}
	ns[n > 0 ? n : 0] = '\0';
	mcp_port_registry(strtoul(ns + strcspn(ns, "0123456789"), NULL, 10), registry, sizeof(registry));
	rc = mcp_lender_port_claim(g->proof.ports.rpc, ps, job_id, uid, registry, err);
out:
	free(g);
	return rc;
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
