/*
 * master_step.c - the master step itself, for master.c: its srun command
 * line and environment, its log's last lines, and stopping it (its
 * readiness probes: master_probe.c).
 *
 *   srun --quiet --jobid=J --overlap -N1 -n1 ... --job-name=mooncake-master
 *        --nodelist=<infra> --output=<dir>/mooncake_master.log --chdir=<dir>
 *        [the container's options, container.c]
 *        mooncake_master --port=8700 ... (the recipe's argv, lib/render/argv.c)
 * started by the plugin's one step launcher (spawn.c).
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

#include "steps/step.h"


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
		     const struct mcri_state *st, bool claim, const char *guard, const char *ha,
		     const char *log, pid_t *pid, struct mcr_error *err)
{
	const struct mcr_ports *ports = &st->ports;
	struct mcr_env env = { 0 };
	char **margv = NULL, pv[64];
	int rc = -1;

	if (mcr_master_argv(recipe, ps->master, ports, &margv, err) ||
	    mcr_master_env(recipe, &env, err) || (ha && mcp_ha_master_args(&st->ha, &margv, err)))
		goto out;
	/* the step's task claims its ports on the infra node (ports.c; an HA
	 * pool's tasks each on its node, its etcd's with them), and its guard
	 * proves them the master's (guard.c) */
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
			    &(struct mcp_step){ "mooncake-master", log, margv, &env, container },
			    pid, err);
out:
	mcr_env_free(&env);
	mcr_strv_free(margv);
	return rc;
}
