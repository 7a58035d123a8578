/*
 * jobdir.c - where a job's Mooncake files are, as the plugin chose it:
 * the job_dir= template of spank_mooncake.so's line in the cluster's
 * plugstack.conf (and the files it includes), else the default
 * <submit dir>/outputs/<job id>/logs, with the job's WorkDir and user from
 * scontrol. A recipe's output.log_dir is not known here (status --dir).
 */
#include <ctype.h>
#include <glob.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "plugstack/plugstack.h"
#include "sys/sys.h"

/* the output of a command line (heap; NULL when it could not run) */
static char *run(const char *cmd, int *status)
{
	struct mcri_buf b = { 0 };
	char buf[4096];
	size_t n;
	FILE *p = popen(cmd, "re");

	if (!p)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		mcri_buf_add(&b, buf, n);
	*status = pclose(p);
	return mcri_buf_take(&b);
}

/* the value of `key` (" KEY=value" on scontrol's one line), heap */
static char *field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; (p = strstr(p, key)); p += klen) {
		if ((p == text || isspace((unsigned char)p[-1])) && p[klen] == '=')
			return strndup(p + klen + 1, strcspn(p + klen + 1, " \n"));
	}
	return NULL;
}

/* job_dir= of spank_mooncake.so's line in a plugstack file (and the files
 * it includes; depth bounds include loops), read by the plugin's own
 * parser (runtime/plugstack) into tmpl; tmpl is left as it is when the file
 * has no such line. -1 with err when the line's arguments are ones the
 * plugin refuses too. */
static int plugstack_job_dir(const char *path, int depth, char *tmpl, size_t size,
			     struct mcr_error *err)
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
		if ((strcmp(kind, "required") && strcmp(kind, "optional")) ||
		    !strstr(arg, "spank_mooncake.so"))
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

		found = mcri_asprintf("%.*s/plugstack.conf", slash ? (int)(slash - conf) : 1,
				      slash ? conf : ".");
	}
	return found;
}

/* the JobState of scontrol's line: ended or not, its name in state */
static bool ended_of(const char *out, char *state, size_t size)
{
	char *st = field(out, "JobState");
	bool ended;

	snprintf(state, size, "JobState=%s", st ? st : "?");
	if (!st)
		return false;
	ended = strcmp(st, "RUNNING") && strcmp(st, "PENDING") && strcmp(st, "SUSPENDED") &&
		strcmp(st, "CONFIGURING") && strcmp(st, "REQUEUED");
	free(st);
	return ended;
}

bool cli_job_ended(const char *job_id, char *state, size_t size)
{
	char cmd[128], *out;
	int status = 0;
	bool ended;

	snprintf(state, size, "no longer known to Slurm");
	if (!*job_id || strspn(job_id, "0123456789") != strlen(job_id) || strlen(job_id) > 20)
		return false;
	snprintf(cmd, sizeof(cmd), "scontrol show job -o %s 2>&1", job_id);
	out = run(cmd, &status);
	if (!out)
		return false; /* no scontrol: nothing is known */
	ended = status != 0 || ended_of(out, state, size); /* gone from slurmctld: ended */
	free(out);
	return ended;
}

int cli_job_dir(const char *job_id, char **dir, uid_t *job_uid, bool *ended, char *state,
		size_t size)
{
	char cmd[128], tmpl[4096] = MCRI_DEFAULT_JOB_DIR, *out, *workdir, *user, *cfg, *plug;
	struct mcr_error err = { 0 };
	unsigned long uid;
	int status = 0;

	*dir = NULL;
	if (!*job_id || strspn(job_id, "0123456789") != strlen(job_id) || strlen(job_id) > 20) {
		fprintf(stderr, "mooncake: status --job '%s': a job id is a number, such as 4242\n", job_id);
		return 2;
	}
	snprintf(cmd, sizeof(cmd), "scontrol show job -o %s 2>&1", job_id);
	out = run(cmd, &status);
	if (!out || status != 0) {
		fprintf(stderr,
			"mooncake: job %s: scontrol show job failed (%s); a job that ended more than MinJobAge ago is gone from Slurm: run mooncake-recipe status --dir <its job directory>\n",
			job_id, out && *out ? strtok(out, "\n") : "cannot run scontrol");
		free(out);
		return 1;
	}
	workdir = field(out, "WorkDir");
	user = field(out, "UserId");
	*ended = ended_of(out, state, size);
	free(out);
	if (!workdir || !user || sscanf(strchr(user, '(') ? strchr(user, '(') + 1 : "", "%lu", &uid) != 1) {
		fprintf(stderr, "mooncake: job %s: scontrol show job gave no WorkDir or UserId\n", job_id);
		free(workdir);
		free(user);
		return 2;
	}
	*strchr(user, '(') = '\0';
	*job_uid = (uid_t)uid;
	if (uid != (unsigned long)getuid() && getuid() != 0) {
		fprintf(stderr,
			"mooncake: job %s is not yours (it belongs to %s); status shows the pools of your own jobs: check the job id (squeue --me)\n",
			job_id, user);
		free(workdir);
		free(user);
		return 1;
	}
	/* job_dir= of the plugin's line, as the plugin read it: slurm.conf
	 * names the plugstack file; only without one on disk (configless
	 * Slurm) is scontrol asked */
	if (!(plug = plugstack_of_slurm_conf())) {
		cfg = run("scontrol show config 2>/dev/null", &status);
		plug = cfg ? field(cfg, "PlugStackConfig") : NULL;
		if (!plug && cfg) { /* "PlugStackConfig         = /etc/slurm/plugstack.conf" */
			char *p = strstr(cfg, "PlugStackConfig");

			if (p && (p = strchr(p, '=')))
				plug = strndup(p + 2, strcspn(p + 2, "\n"));
		}
		free(cfg);
	}
	if (plugstack_job_dir(plug ? plug : "/etc/slurm/plugstack.conf", 0, tmpl, sizeof(tmpl), &err)) {
		fprintf(stderr, "mooncake: job %s: %s\n", job_id, err.text);
		free(plug);
		free(workdir);
		free(user);
		return 2;
	}
	free(plug);
	*dir = mcri_expand_dir_template(tmpl, job_id, user, workdir, &err);
	free(workdir);
	free(user);
	if (!*dir) {
		char msg[MCR_ERROR_MESSAGE_LENGTH];

		mcr_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "%s (job_dir=%s in plugstack.conf)\n", msg, tmpl);
		return 2;
	}
	return 0;
}
