/*
 * job.c - where a job's Mooncake files are, as the plugin chose it:
 * the job_dir= template of spank_mooncake.so's line in the cluster's
 * plugstack.conf (and the files it includes), else the default
 * <submit dir>/outputs/<job id>/logs, with the job's WorkDir and user from
 * Slurm's job record (slurm_job.c). A recipe's output.log_dir is not known
 * here (status --dir).
 */
#include <glob.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "jobdir/jobdir.h"
#include "plugstack/plugstack.h"
#include "sys/sys.h"

/* job_dir= of spank_mooncake.so's line in a plugstack file (and the files
 * it includes; depth bounds include loops), read by the plugin's own
 * parser (runtime/plugstack) into tmpl; tmpl is left as it is when the file
 * has no such line. -1 with err when the line's arguments are ones the
 * plugin refuses too. */
static int plugstack_job_dir(const char *path, int depth, char *tmpl, size_t size, struct mcr_error *err)
{
	char line[8192];
	FILE *f;
	int rc = 0;

	if (depth > 8 || !(f = fopen(path, "re")))
		return 0;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char *save = NULL, *kind = strtok_r(line, " \t\n", &save), *arg, *av[64];
		struct mcri_plugstack *ps;
		int ac = 0;

		if (!kind || kind[0] == '#')
			continue;
		arg = strtok_r(NULL, " \t\n", &save);
		if (!arg)
			continue;
		if (strcmp(kind, "include") == 0) {
			glob_t g;

			if (glob(arg, 0, NULL, &g) == 0)
				for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++)
					rc = plugstack_job_dir(g.gl_pathv[i], depth + 1, tmpl, size, err);
			globfree(&g);
			continue;
		}
		if ((strcmp(kind, "required") && strcmp(kind, "optional")) || !strstr(arg, "spank_mooncake.so"))
			continue;
		while (ac < 64 && (av[ac] = strtok_r(NULL, " \t\n", &save)))
			ac++;
		if (!(ps = malloc(sizeof(*ps)))) {
			rc = mcri_error_nomem(err);
		} else if ((rc = mcri_plugstack_parse(ps, ac, av, err)) == 0) {
			snprintf(tmpl, size, "%s", ps->job_dir);
		} else {
			char text[sizeof(err->text)];

			snprintf(text, sizeof(text), "%s", err->text);
			mcri_error_set(err, MCR_EINVAL, "%s: %s (the plugin refuses this line too)", path, text);
		}
		free(ps);
	}
	fclose(f);
	return rc;
}

/* The plugstack file slurm.conf names (PlugStackConfig=, else
 * plugstack.conf beside it, as Slurm reads it), heap; NULL when there is
 * no slurm.conf on disk ($SLURM_CONF, else /etc/slurm/slurm.conf). */
static char *plugstack_of_slurm_conf(void)
{
	const char *conf = getenv("SLURM_CONF") ? getenv("SLURM_CONF") : "/etc/slurm/slurm.conf";
	char line[4096], *found = NULL;
	FILE *f = fopen(conf, "re");

	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");

		if (strncasecmp(p, "PlugStackConfig", 15) != 0)
			continue;
		p += 15 + strspn(p + 15, " \t");
		if (*p++ != '=')
			continue;
		p += strspn(p, " \t");
		found = strndup(p, strcspn(p, " \t\n#"));
	}
	fclose(f);
	if (!found) {
		const char *slash = strrchr(conf, '/');

		found = mcri_asprintf("%.*s/plugstack.conf", slash ? (int)(slash - conf) : 1, slash ? conf : ".");
	}
	return found;
}

/* a job id as status takes it: digits, at most a uint32_t; 0 otherwise */
/* the job's number, or 0 when `job_id` is none (mcri_job_id_parse) */
static uint32_t job_number(const char *job_id)
{
	uint32_t id;

	return mcri_job_id_parse(job_id, &id) ? id : 0;
}

bool cli_job_ended(const char *job_id, char *state, size_t size)
{
	struct cli_job job;
	uint32_t id = job_number(job_id);
	char why[512];

	snprintf(state, size, "no longer known to Slurm");
	if (!id || cli_slurm_job(id, false, &job, why, sizeof(why)) != 0)
		return false; /* Slurm cannot be asked: nothing is known */
	if (!job.known)
		return true; /* gone from slurmctld: ended */
	snprintf(state, size, "JobState=%s", job.state);
	return job.ended;
}

int cli_job_dir(const char *job_id, char **dir, uid_t *job_uid, bool *ended, char *state, size_t size)
{
	char tmpl[4096] = MCRI_DEFAULT_JOB_DIR, user[256], why[512], *plug;
	struct mcr_error err = { 0 };
	struct cli_job job;
	struct passwd *pw;
	uint32_t id = job_number(job_id);

	*dir = NULL;
	if (!id) {
		fprintf(stderr, "mooncake: status --job '%s': a job id is a number, such as 4242\n", job_id);
		return 2;
	}
	/* slurm.conf names the plugstack file; only without one on disk
	 * (configless Slurm) is slurmctld asked for it */
	plug = plugstack_of_slurm_conf();
	if (cli_slurm_job(id, !plug, &job, why, sizeof(why)) != 0) {
		fprintf(stderr, "mooncake: job %s: cannot ask Slurm about it (%s)\n", job_id, why);
		free(plug);
		return 2;
	}
	if (!job.known) {
		fprintf(stderr,
			"mooncake: job %s is not known to Slurm; a job that ended more than MinJobAge ago is gone from it: run mooncake-recipe status --dir <its job directory>\n",
			job_id);
		free(plug);
		return 1;
	}
	snprintf(state, size, "JobState=%s", job.state);
	*ended = job.ended;
	*job_uid = job.uid;
	pw = getpwuid(job.uid);
	if (pw && pw->pw_name)
		snprintf(user, sizeof(user), "%s", pw->pw_name);
	else
		snprintf(user, sizeof(user), "%u", (unsigned)job.uid);
	if (job.uid != getuid() && getuid() != 0) {
		fprintf(stderr,
			"mooncake: job %s is not yours (it belongs to %s); status shows the pools of your own jobs: check the job id (squeue --me)\n",
			job_id, user);
		free(plug);
		return 1;
	}
	if (!job.work_dir[0]) {
		fprintf(stderr, "mooncake: job %s: Slurm gives no WorkDir for it\n", job_id);
		free(plug);
		return 2;
	}
	if (!plug && job.plugstack[0] && !(plug = strdup(job.plugstack))) {
		fprintf(stderr, "mooncake: out of memory\n");
		return 2;
	}
	if (plugstack_job_dir(plug ? plug : "/etc/slurm/plugstack.conf", 0, tmpl, sizeof(tmpl), &err)) {
		fprintf(stderr, "mooncake: job %s: %s\n", job_id, err.text);
		free(plug);
		return 2;
	}
	free(plug);
	*dir = mcri_job_dir_path(tmpl, job_id, job.uid, job.work_dir, &err);
	if (!*dir) {
		char msg[MCR_ERROR_MESSAGE_LENGTH];

		mcr_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "%s (job_dir=%s in plugstack.conf)\n", msg, tmpl);
		return 2;
	}
	return 0;
}
