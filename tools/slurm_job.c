/*
 * slurm_job.c - what slurmctld knows of a job, for mooncake-recipe status:
 * its user, state and submit directory from libslurm's job record
 * (slurm_load_job, as the plugin's own queries in spank/plugin/slurm.c,
 * through the same spank/plugin/slurm_compat.h), never from a text in which the
 * job's name or comment could forge a field (`scontrol show job` prints
 * the name among them). The only file of the tool that calls libslurm.
 *
 * libslurm is asked in a child process: where Slurm is not configured,
 * libslurm ends the process that asks (its fatal(), after a retry of up
 * to a minute for a missing SLURM_CONF), and the tool's own process keeps
 * none of libslurm's state (its configuration, plugins, credentials)
 * before it takes the job's user's identity. The child hands back a fixed
 * record; when it has none, its last words on stderr say why.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"
#include "cli.h"
#include "plugin/slurm_compat.h"

/* what the child hands back */
struct answer {
	int rc; /* 0: *job holds the answer; else why says */
	struct cli_job job;
	char why[512];
};

/* in the child: ask, and write the answer to fd */
static void ask(uint32_t job_id, bool plugstack, int fd)
{
	struct answer a;
	job_info_msg_t *msg = NULL;
	slurm_conf_t *conf = NULL;

	memset(&a, 0, sizeof(a));
	slurm_init(NULL);
	if (mcp_slurm_load_job(&msg, job_id) != 0 || !msg) {
		if (errno == ESLURM_INVALID_JOB_ID) {
			a.job.known = false; /* gone: it ended MinJobAge ago */
		} else {
			a.rc = -1;
			snprintf(a.why, sizeof(a.why), "%s", slurm_strerror(errno));
		}
	} else {
		for (uint32_t i = 0; i < msg->record_count; i++) {
			const slurm_job_info_t *j = &msg->job_array[i];

			if (j->job_id != job_id)
				continue;
			a.job.known = true;
			a.job.uid = (uid_t)j->user_id;
			a.job.ended = mcp_job_state_ended(j->job_state);
			snprintf(a.job.state, sizeof(a.job.state), "%s", mcp_job_state_name(j->job_state));
			snprintf(a.job.work_dir, sizeof(a.job.work_dir), "%s", j->work_dir ? j->work_dir : "");
			break;
		}
		slurm_free_job_info_msg(msg);
	}
	if (a.rc == 0 && plugstack && slurm_load_ctl_conf((time_t)0, &conf) == 0 && conf) {
		snprintf(a.job.plugstack, sizeof(a.job.plugstack), "%s", conf->plugstack ? conf->plugstack : "");
		mcp_slurm_free_conf(conf);
	}
	if (write(fd, &a, sizeof(a)) != (ssize_t)sizeof(a))
		_exit(3);
	slurm_fini();
	_exit(0);
}

/* the last line of text (len bytes) that is not empty, for a message */
static void last_line(const char *text, size_t len, char *out, size_t size)
{
	size_t end = len, start;

	while (end && (text[end - 1] == '\n' || text[end - 1] == '\r'))
		end--;
	for (start = end; start && text[start - 1] != '\n'; start--)
		;
	mcri_printable(text + start, end - start < 300 ? end - start : 300, out, size);
}

int cli_slurm_job(uint32_t job_id, bool plugstack, struct cli_job *job, char *why, size_t size)
{
	struct answer a;
	char said[4096], line[320];
	size_t kept = 0;
	int res[2], err[2], status = 0;
	ssize_t n;
	pid_t pid;

	memset(job, 0, sizeof(*job));
	if (pipe2(res, O_CLOEXEC) != 0)
		goto io;
	if (pipe2(err, O_CLOEXEC) != 0) {
		close(res[0]);
		close(res[1]);
		goto io;
	}
	fflush(NULL); /* libslurm's exit() must not write this process's buffers */
	if ((pid = fork()) < 0) {
		close(res[0]);
		close(res[1]);
		close(err[0]);
		close(err[1]);
		goto io;
	}
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		close(res[0]);
		close(err[0]);
		if (dup2(err[1], STDERR_FILENO) < 0)
			_exit(3);
		ask(job_id, plugstack, res[1]);
	}
	close(res[1]);
	close(err[1]);
	/* what it says (its tail), until it ends; then its answer */
	while ((n = read(err[0], said + kept, sizeof(said) - 1 - kept)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		kept += (size_t)n;
		if (kept == sizeof(said) - 1) { /* keep the last half */
			memmove(said, said + kept / 2, kept - kept / 2);
			kept -= kept / 2;
		}
	}
	close(err[0]);
	n = read(res[0], &a, sizeof(a));
	close(res[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof(a) && a.rc == 0) {
		*job = a.job;
		return 0;
	}
	line[0] = '\0';
	if (kept)
		last_line(said, kept, line, sizeof(line));
	if (n == (ssize_t)sizeof(a))
		snprintf(why, size, "%s", a.why);
	else if (line[0])
		snprintf(why, size, "%s", line);
	else if (WIFSIGNALED(status))
		snprintf(why, size, "libslurm ended with signal %d", WTERMSIG(status));
	else
		snprintf(why, size, "libslurm ended with status %d", WEXITSTATUS(status));
	return -1;
io:
	snprintf(why, size, "%s", strerror(errno));
	return -1;
}
