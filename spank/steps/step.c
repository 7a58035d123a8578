/*
 * step.c - the job steps the plugin starts: their one launcher (the
 * master, a memory lender, the pool's sampler), the master step's command
 * line, log and stop, its readiness probes, and the sampler. Every step
 * is launched as
 *
 *   srun --jobid=J --overlap -N1 -n1 ... --job-name=NAME -w <infra>
 *        (an HA pool's masters: -N<k> -n<k> --no-kill -w <its nodes>)
 *        --output=LOG --chdir=<dir> [the container's options] CMD...
 *
 * spawned detached from the srun that starts it (own session, default
 * signals, stdin /dev/null, output to LOG, no other descriptor). The rule
 * for every such step: it runs exactly where the plugin decides (the host,
 * or the recipe's container through the system container.c chose) and
 * inherits no container option of the srun that started it. srun keeps
 * the SPANK options of every plugin in its environment
 * (_SLURM_SPANK_OPTION_<plugin>_<option>, and SLURM_SPANK_ before that
 * for the sruns of a job script), and a child srun takes them as its own;
 * pyxis also reads PYXIS_CONTAINER_* in srun and in slurmstepd, srun
 * reads SRUN_CONTAINER*, slurmstepd sets SLURM_CONTAINER*, and enroot
 * reads ENROOT_*. None of them reaches the step.
 *
 * Each is spawned by the plugin's one posix_spawn (plugin/child.c).
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "container/container.h"
#include "model/model.h"
#include "plugin/child.h"
#include "plugin/common.h"
#include "plugin/handover.h"
#include "steps/election.h"
#include "steps/ha.h"
#include "steps/keep.h"
#include "steps/step.h"

extern char **environ;

/* what no step the plugin starts inherits (prefixes of NAME=VALUE) */
static const char *const not_inherited[] = {
	/* the child srun must not start another master */
	"_SLURM_SPANK_OPTION_" MCP_NAME "_",
	"SLURM_SPANK__SLURM_SPANK_OPTION_" MCP_NAME "_",
	/* what srun hands its own tasks, and the master its ports and guard */
	MCP_TASK_VAR "=",
	MCP_PORTS_VAR "=",
	MCP_GUARD_VAR "=",
	MCP_HA_VAR "=",
	"SLURM_MOONCAKE_LENDERS=",
	"SLURM_MOONCAKE_LENDER=",
	/* the Mooncake settings of the srun's own environment: a step gets
	 * those the plugin gives it (a store service reads MOONCAKE_*, and a
	 * MOONCAKE_CONFIG_PATH would replace them all) */
	"MOONCAKE_",
	/* the MPI of the srun's step: each step the plugin starts runs
	 * --mpi=none, its one task no rank of another's */
	"PMI_",
	"PMIX_",
	"OMPI_",
	"SLURM_MPI_TYPE=",
	/* a step time limit would end the pool before the job */
	"SLURM_TIMELIMIT=",
	/* the job's GPU requests are the workers'; with --gres=none they
	 * make the step an invalid TRES request */
	"SLURM_GPUS=",
	"SLURM_GPUS_PER_NODE=",
	"SLURM_GPUS_PER_TASK=",
	"SLURM_GPUS_PER_SOCKET=",
	"SLURM_CPUS_PER_GPU=",
	"SLURM_MEM_PER_GPU=",
	"SLURM_GPU_BIND=",
	"SLURM_GPU_FREQ=",
	"SLURM_NTASKS_PER_GPU=",
	"SLURM_TRES_PER_TASK=",
	/* the master's RPC transport is its own business: MC_RPC_PROTOCOL
	 * set for the workers must not change it */
	"MC_RPC_PROTOCOL=",
	/* the containers of the srun that starts the step (a worker's): pyxis's
	 * options as srun and slurmstepd pass them, its defaults from the
	 * environment; Slurm's --container as srun reads it and as slurmstepd
	 * sets it; enroot's settings */
	"_SLURM_SPANK_OPTION_pyxis_",
	"SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_",
	"PYXIS_CONTAINER_",
	"SRUN_CONTAINER",
	"SLURM_CONTAINER",
	"ENROOT_",
	NULL,
};

bool mcp_step_inherits(const char *var)
{
	for (const char *const *p = not_inherited; *p; p++)
		if (strncmp(var, *p, strlen(*p)) == 0)
			return false;
	return true;
}

char **mcp_step_env(const struct mcr_env *extra, struct mcr_error *err)
{
	size_t n = 0, k = 0, count = extra ? extra->count : 0;
	char **env;

	for (char **e = environ; e && *e; e++)
		n++;
	env = calloc(n + count + 1, sizeof(*env));
	if (!env)
		goto nomem;
	for (char **e = environ; e && *e; e++) {
		size_t len = strcspn(*e, "=");
		bool replaced = false;

		for (size_t i = 0; i < count; i++)
			replaced |= strlen(extra->vars[i].name) == len && strncmp(extra->vars[i].name, *e, len) == 0;
		if (replaced || !mcp_step_inherits(*e))
			continue;
		if (!(env[k++] = strdup(*e)))
			goto nomem;
	}
	for (size_t i = 0; i < count; i++)
		if (asprintf(&env[k++], "%s=%s", extra->vars[i].name, extra->vars[i].value) < 0) {
			env[k - 1] = NULL;
			goto nomem;
		}
	return env;
nomem:
	mcr_strv_free(env);
	mcri_error_set(err, MCR_EIO, "out of memory");
	return NULL;
}

/* `n` strings of `from` into `to` at *k (heap copies) */
static int append(char **to, size_t *k, char *const *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(to[(*k)++] = strdup(from[i])))
			return -1;
	return 0;
}

char **mcp_step_argv(const struct mcri_plugstack *ps, const struct mcp_step_place *at, const char *name,
		     const char *log, char *const *options, char *const *cmd, struct mcr_error *err)
{
	char jobid[64], output[PATH_MAX + 16], chdir_opt[PATH_MAX + 16], node[900];
	char job_name[96], nodes[32], tasks[32];
	char *fixed[] = {
		(char *)ps->srun,
		"--quiet",
		jobid,
		"--overlap",
		nodes,
		tasks,
		"--ntasks-per-node=1",
		"--cpus-per-task=1",
		"--gres=none",
		"--mpi=none",
		"--cpu-bind=none",
		"--input=none",
		"--open-mode=append",
		"--kill-on-bad-exit=0",
		job_name,
		node,
		output,
		chdir_opt,
		NULL,
		NULL,
		NULL, /* room for --het-group=0, --no-kill */
	};
	size_t nf = mcr_strv_len(fixed), k = 0, len = mcr_strv_len(cmd);
	size_t no = options ? mcr_strv_len(options) : 0;
	char **argv;

	/* a heterogeneous job from outside: srun needs its component */
	if (at->het)
		fixed[nf++] = (char *)"--het-group=0";
	/* a step of several nodes (an HA pool's masters): a node lost ends
	 * its task, not the step */
	if (at->nodes > 1)
		fixed[nf++] = (char *)"--no-kill";
	snprintf(nodes, sizeof(nodes), "--nodes=%d", at->nodes > 1 ? at->nodes : 1);
	snprintf(tasks, sizeof(tasks), "--ntasks=%d", at->nodes > 1 ? at->nodes : 1);
	snprintf(jobid, sizeof(jobid), "--jobid=%s", at->job_id);
	snprintf(job_name, sizeof(job_name), "--job-name=%s", name);
	snprintf(output, sizeof(output), "--output=%s", log);
	snprintf(chdir_opt, sizeof(chdir_opt), "--chdir=%s", at->dir);
	snprintf(node, sizeof(node), "--nodelist=%s", at->node);
	argv = calloc(nf + no + len + 1, sizeof(*argv));
	if (!argv || append(argv, &k, fixed, nf) || append(argv, &k, options, no) || append(argv, &k, cmd, len)) {
		mcr_strv_free(argv);
		mcri_error_set(err, MCR_EIO, "out of memory");
		return NULL;
	}
	return argv;
}

int mcp_step_start(const struct mcri_plugstack *ps, const struct mcp_step_place *at, const struct mcp_step *step,
		   pid_t *pid, struct mcr_error *err)
{
	char **cmd = calloc(mcr_strv_len(step->cmd) + 1, sizeof(*cmd));
	char **options = NULL, **env = NULL, **argv = NULL;
	struct mcri_jobdir jd = { .fd = -1 };
	const char *name = strrchr(step->log, '/');
	size_t k = 0;
	int fd = -1, rc = -1;

	if (!cmd || append(cmd, &k, step->cmd, mcr_strv_len(step->cmd))) {
		mcri_error_nomem(err);
		goto out;
	}
	/* a fresh log for this step, in the job's directory and through it
	 * (a regular file, no link followed, 0600); its srun writes there too */
	if (!name || (size_t)(name - step->log) != strlen(at->dir) ||
	    strncmp(step->log, at->dir, (size_t)(name - step->log)) != 0) {
		mcri_error_set(err, MCR_EINVAL, "the log %s of the %s step is not in the job's directory %s", step->log,
			       step->name, at->dir);
		goto out;
	}
	if (mcri_jobdir_open(&jd, at->dir, getuid(), false, err) ||
	    (fd = mcri_jobdir_append(&jd, name + 1, true, err)) < 0)
		goto out;
	/* where it runs: the container's srun options and command (none on
	 * the host), an environment with no container of this srun's */
	if (mcp_container_options(step->container, at->dir, step->env, &options, &cmd, err) ||
	    !(env = mcp_step_env(step->env, err)) ||
	    !(argv = mcp_step_argv(ps, at, step->name, step->log, options, cmd, err)))
		goto out;
	rc = mcp_spawn(argv, env, &(struct mcp_spawn_io){ .log_fd = fd, .detached = true }, pid);
	if (rc != 0)
		rc = mcri_error_set(
			err, MCR_ESTATE,
			"cannot run %s to start the %s step: %s; set srun= in plugstack.conf to the path of srun",
			argv[0], step->name, strerror(rc));
out:
	if (fd >= 0)
		close(fd);
	mcri_jobdir_close(&jd);
	mcr_strv_free(cmd);
	mcr_strv_free(options);
	mcr_strv_free(env);
	mcr_strv_free(argv);
	return rc;
}

/* ---- the master step itself, for master.c: its srun command
 * line and environment, its log's last lines, and stopping it (its
 * readiness probes: below).
 *
 *   srun --quiet --jobid=J --overlap -N1 -n1 ... --job-name=mooncake-master
 *        --nodelist=<infra> --output=<dir>/mooncake_master.log --chdir=<dir>
 *        [the container's options, container.c]
 *        mooncake_master --port=8700 ... (the recipe's argv, lib/render/argv.c)
 * started by the plugin's one step launcher (above).
 */

#define LOG_TAIL_LINES 12
#define LOG_LINE_MAX 200

void mcp_log_tail(const char *path, char *out, size_t size)
{
	char buf[4096], *lines[64], *save = NULL, *line;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), n = 0;
	struct stat st;
	off_t end;
	ssize_t got;
	size_t o = 0;

	out[0] = '\0';
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* a log is a regular file */
		close(fd);
		return;
	}
	end = lseek(fd, 0, SEEK_END);
	lseek(fd, end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0, SEEK_SET);
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return;
	buf[got] = '\0';
	/* the tail goes into messages: no control character (a terminal's
	 * escape) of whatever wrote the log */
	for (ssize_t i = 0; i < got; i++)
		if (((unsigned char)buf[i] < 0x20 && buf[i] != '\n' && buf[i] != '\t') || buf[i] == 0x7f)
			buf[i] = '?';
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

void mcp_describe_status(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "status 0x%x", status);
}

void mcp_stop_step(pid_t pid, bool ours)
{
	int status;

	kill(pid, SIGTERM); /* srun forwards it to the master */
	for (int i = 0; i < 40; i++) {
		if (ours ? waitpid(pid, &status, WNOHANG) == pid : !mcp_pid_alive(pid))
			return;
		mcp_sleep_ms(250);
	}
	kill(pid, SIGKILL);
	if (ours)
		waitpid(pid, &status, 0);
}

/* one more variable at the end of env; -1 out of memory */
static int add_var(struct mcr_env *env, const char *name, const char *value)
{
	struct mcr_env_var *v = realloc(env->vars, (env->count + 1) * sizeof(*v));

	if (!v)
		return -1;
	env->vars = v;
	v[env->count].name = strdup(name);
	v[env->count].value = strdup(value);
	env->count++;
	return v[env->count - 1].name && v[env->count - 1].value ? 0 : -1;
}

int mcp_spawn_master(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe,
		     const struct mcp_container *container, const struct mcp_step_place *at,
		     const struct mcri_state *st, bool claim, const char *guard, const char *ha, const char *log,
		     pid_t *pid, struct mcr_error *err)
{
	const struct mcr_ports *ports = &st->ports;
	struct mcr_env env = { 0 };
	char **margv = NULL, pv[64];
	int rc = -1;

	if (mcr_master_argv(recipe, ps->master, ports, &margv, err) || mcr_master_env(recipe, &env, err) ||
	    (ha && mcp_ha_master_args(&st->ha, &margv, err)))
		goto out;
	/* the step's task claims its ports on the infra node (ports.c; an HA
	 * pool's tasks each on its node, its etcd's with them), and its guard
	 * proves them the master's (keep.c) */
	if (ha)
		snprintf(pv, sizeof(pv), "%d,%d,%d,%d,%d", ports->rpc, ports->metadata, ports->metrics,
			 st->ha.etcd_client, st->ha.etcd_peer);
	else
		snprintf(pv, sizeof(pv), "%d,%d,%d", ports->rpc, ports->metadata, ports->metrics);
	if ((claim && add_var(&env, MCP_PORTS_VAR, pv)) || (guard && add_var(&env, MCP_GUARD_VAR, guard)) ||
	    (ha && add_var(&env, MCP_HA_VAR, ha))) {
		mcri_error_nomem(err);
		goto out;
	}
	/* the recipe's container not used here: the line the starter says */
	if (container && container->note[0])
		slurm_info("%s", container->note);
	rc = mcp_step_start(ps, at,
			    &(struct mcp_step){ .name = "mooncake-master",
						.log = log,
						.cmd = margv,
						.env = &env,
						.container = container },
			    pid, err);
out:
	mcr_env_free(&env);
	mcr_strv_free(margv);
	return rc;
}

/* ---- is a master there, and ready? The readiness probes of
 * a job's master (TCP on its RPC port, GET /health on its metadata and
 * metrics ports, the job's token on its metadata server) and the look
 * for a listener on ports before a master is started there, for the
 * srun that starts or joins a pool (master.c, master.c) and an HA
 * pool's members (ha.c).
 */

/* errno of a failed probe: did the host answer at all? (a timeout is not
 * a refusal) */
static enum mcp_probe failed_probe(void)
{
	switch (errno) {
	case ETIMEDOUT:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
	case ENETDOWN:
		return MCP_PROBE_NO_ANSWER;
	default:
		return MCP_PROBE_REFUSED;
	}
}

enum mcp_probe mcp_probe_master(const char *addr, const struct mcr_ports *ports, const char *key_path,
				const char *token, bool health, char *why, size_t why_size)
{
	struct mcr_error reason;
	char body[256];
	int status;

	if (mcri_tcp_probe(addr, ports->rpc, MCP_PROBE_TIMEOUT_MS, &reason)) {
		enum mcp_probe r = failed_probe();

		snprintf(why, why_size, "port %d (RPC) does not accept: %.200s", ports->rpc, reason.text);
		return r;
	}
	for (int k = 0; health && k < 2; k++) {
		int port = k ? ports->metrics : ports->metadata;
		const char *what = k ? "metrics" : "metadata";

		if (mcri_http(addr, port, "GET", "/health", NULL, MCP_PROBE_TIMEOUT_MS, &status, body, sizeof(body),
			      &reason)) {
			enum mcp_probe r = failed_probe();

			snprintf(why, why_size, "port %d (%s) GET /health: %.200s", port, what, reason.text);
			return r;
		}
		if (status != 200 || (!k && strncmp(body, "OK", 2) != 0)) {
			snprintf(why, why_size, "port %d (%s) GET /health answered %d", port, what, status);
			return MCP_PROBE_REFUSED;
		}
	}
	if (!token)
		return MCP_PROBE_READY;
	if (mcri_http(addr, ports->metadata, "GET", key_path, NULL, MCP_PROBE_TIMEOUT_MS, &status, body, sizeof(body),
		      &reason)) {
		enum mcp_probe r = failed_probe();

		snprintf(why, why_size, "port %d GET %s: %.200s", ports->metadata, key_path, reason.text);
		return r;
	}
	if (status != 200 || strcmp(body, token) != 0) {
		snprintf(
			why, why_size,
			"a master answers on %s, but it is not the one this job started (its metadata server does not know this job)",
			addr);
		return MCP_PROBE_REFUSED;
	}
	return MCP_PROBE_READY;
}

int mcp_busy_port(const char *addr, const struct mcr_ports *ports)
{
	const int p[3] = { ports->rpc, ports->metadata, ports->metrics };

	for (int k = 0; k < 3; k++) {
		struct mcr_error reason;

		/* a lender's store has one port (lender.c) */
		if (p[k] > 0 && mcri_tcp_probe(addr, p[k], MCP_PROBE_TIMEOUT_MS, &reason) == 0)
			return p[k];
	}
	return 0;
}

/* ---- the pool's sampler: once the job's master is ready, the srun
 * that saw it ready starts a step of its own next to it,
 *   srun --jobid=J --overlap -N1 -n1 -w <infra> --job-name=mooncake-pool
 *        --output=<dir>/mooncake_pool.log <sampler> sample --dir <dir> --interval S
 * detached like the master step, by the same launcher (step.c), and on
 * the infra node's host: never in the recipe's container or a worker's
 * (the host's mooncake-recipe, sampler=). It asks the master's /metrics
 * every S seconds and, when Slurm ends the job's steps, writes the pool's
 * report and picture into the job's directory (mooncake-recipe(1),
 * sample). The master's start, failure and stop do not depend on it: a
 * sampler that cannot start is a warning on srun's terminal.
 */

#define POOL_LOG "mooncake_pool.log"

static int start(const struct mcri_plugstack *config, const struct mcp_step_place *job, struct mcr_error *err)
{
	char log[PATH_MAX + 32], interval[32];
	char *const cmd[] = {
		(char *)config->sampler, "sample", "--dir", (char *)job->dir, "--interval", interval, NULL
	};
	pid_t pid;

	if (access(config->sampler, X_OK) != 0)
		return mcri_error_set(
			err, MCR_ESTATE,
			"the pool sampler %s cannot run here (%s), so this job gets no pool report; install mooncake-recipe there, set sampler=/path/to/mooncake-recipe in plugstack.conf, or pool_interval=0 to switch the sampler off",
			config->sampler, strerror(errno));
	snprintf(interval, sizeof(interval), "%d", config->pool_interval);
	snprintf(log, sizeof(log), "%s/%s", job->dir, POOL_LOG);
	/* on the host (no container: NULL), whatever containers the workers,
	 * the srun that starts it or the master run in */
	return mcp_step_start(config, job, &(struct mcp_step){ .name = "mooncake-pool", .log = log, .cmd = cmd }, &pid,
			      err);
}

int mcp_start_sampler(const struct mcri_plugstack *config, const struct mcp_step_place *job, struct mcr_error *err)
{
	char msg[MCR_ERROR_MESSAGE_LENGTH];

	if (config->pool_interval <= 0)
		return 0;
	if (start(config, job, err) == 0)
		return 0;
	err->kind = MCR_WARNING;
	mcr_error_format(err, msg, sizeof(msg));
	slurm_info("%s", msg);
	return -1;
}

/* ---- what each step is handed: its guard ---------------------------------
 * srun hands the master step's task (MCP_GUARD_VAR) and a lender step's
 * (MCP_LENDER_VAR) what its keeper needs (keep.c): the attempt, the
 * readiness bound, restart=, its ports and the job's directory, and for a
 * lender what proves it ready. The step's task reads it back here.
 */

/* "ATTEMPT,BOUND,RESTART,RPC,METADATA,METRICS:DIR" (mcp_guard_value) */
int mcp_guard_parse(const char *value, unsigned long step, struct mcp_guard *g, struct mcr_error *err)
{
	int used = 0;

	memset(g, 0, sizeof(*g));
	if (sscanf(value, "%d,%d,%d,%d,%d,%d:%n", &g->proof.attempt, &g->bound, &g->proof.restart_limit,
		   &g->proof.ports.rpc, &g->proof.ports.metadata, &g->proof.ports.metrics, &used) != 6 ||
	    !used || g->proof.attempt < 1 || g->bound < 1 || g->proof.restart_limit < 0 ||
	    g->proof.restart_limit > MCRI_RESTART_MAX || g->proof.ports.rpc < 1 || g->proof.ports.rpc > 65535 ||
	    g->proof.ports.metadata < 1 || g->proof.ports.metadata > 65535 || g->proof.ports.metrics < 1 ||
	    g->proof.ports.metrics > 65535 || value[used] != '/' ||
	    snprintf(g->dir, sizeof(g->dir), "%s", value + used) >= (int)sizeof(g->dir))
		return mcri_error_set(err, MCR_EINVAL, "%s='%.200s' is not what srun hands the master step",
				      MCP_GUARD_VAR, value);
	/* the master's keeper, this task (the master is its child) */
	g->proof.pid = (long)getpid();
	g->proof.start = mcri_pid_start(g->proof.pid);
	g->proof.step = step;
	return 0;
}

char *mcp_guard_value(int attempt, int bound, int restart, const struct mcr_ports *ports, const char *dir)
{
	return mcri_asprintf("%d,%d,%d,%d,%d,%d:%s", attempt, bound, restart, ports->rpc, ports->metadata,
			     ports->metrics, dir);
}

char *mcp_lender_guard_value(int kind, int attempt, int bound, int restart, int hang, int port, const char *dir,
			     const char *subject, const char *what, const char *segment, const char *master,
			     const char *ready)
{
	return mcri_asprintf("%d,%d,%d,%d,%d,%d:%s\n%s\n%s\n%s\n%s\n%s", kind, attempt, bound, restart, hang, port, dir,
			     subject, what, segment, master, ready);
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

int mcp_lender_guard_parse(const char *value, unsigned long step, struct mcp_guard *g, struct mcr_error *err)
{
	struct mcp_guard_lender *l = &g->lender;
	int kind, hang, port, used = 0;
	const char *rest;

	memset(g, 0, sizeof(*g));
	if (sscanf(value, "%d,%d,%d,%d,%d,%d:%n", &kind, &g->proof.attempt, &g->bound, &g->proof.restart_limit, &hang,
		   &port, &used) != 6 ||
	    !used || kind < MCRI_LENDER_STORE || kind > MCRI_LENDER_DONOR || g->proof.attempt < 1 || g->bound < 1 ||
	    g->proof.restart_limit < 0 || g->proof.restart_limit > MCRI_RESTART_MAX || hang < 0 || port < 0 ||
	    port > 65535 || (kind == MCRI_LENDER_STORE) != (port > 0))
		goto bad;
	rest = value + used;
	if (!line(&rest, g->dir, sizeof(g->dir)) || g->dir[0] != '/' || !line(&rest, l->subject, sizeof(l->subject)) ||
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
