/*
 * common.c - what srun and sbatch do the same way: load the recipe, name
 * the job's directory; how every context prints an error; whether a
 * process is alive; the clock and a sleep.
 */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plugin/plugin.h"

void mcp_error(const struct mcr_error *err)
{
	char msg[MCR_ERROR_MESSAGE_LENGTH];

	mcr_error_format(err, msg, sizeof(msg));
	slurm_error("%s", msg);
}

void mcp_freep(void *pointer_to_pointer)
{
	void **p = pointer_to_pointer;

	free(*p);
	*p = NULL;
}

int mcp_load(const char *recipe_arg, const char *role_arg, bool inherited,
	     struct mcr_recipe **recipe, enum mcr_role *role,
	     struct mcr_error *err)
{
	*role = MCR_ROLE_NONE;
	if (mcr_recipe_load_file(recipe_arg, NULL, recipe, err))
		return -1;
	/* advice shows where the user looks: srun's and sbatch's terminal */
	for (size_t i = 0; i < mcr_recipe_warning_count(*recipe); i++)
		slurm_info("%s", mcr_recipe_warning(*recipe, i));
	if (mcr_recipe_resolve_role(*recipe, role_arg, inherited, role, err)) {
		mcr_recipe_free(*recipe);
		*recipe = NULL;
		return -1;
	}
	return 0;
}

char *mcp_job_dir(const struct mcri_plugstack *ps,
		  const struct mcr_recipe *recipe, const char *job_id,
		  uid_t uid, const char *submit_dir, struct mcr_error *err)
{
	const char *tmpl = mcr_recipe_log_dir(recipe);
	struct passwd pw, *res = NULL;
	char buf[4096], uidbuf[32], cwd[PATH_MAX];
	const char *user;

	if (!tmpl)
		tmpl = ps->job_dir;
	/* a standalone srun's job, and its tasks, have no SLURM_SUBMIT_DIR
	 * before Slurm sets it: the directory srun runs in */
	if (!submit_dir || !*submit_dir) {
		if (!getcwd(cwd, sizeof(cwd))) {
			mcri_error_set(err, MCR_ESTATE, "cannot get the current directory: %s",
				       strerror(errno));
			return NULL;
		}
		submit_dir = cwd;
	}
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res) {
		user = pw.pw_name;
	} else {
		snprintf(uidbuf, sizeof(uidbuf), "%lu", (unsigned long)uid);
		user = uidbuf;
	}
	return mcri_expand_dir_template(tmpl, job_id, user, submit_dir, err);
}

bool mcp_pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

void mcp_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

double mcp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
