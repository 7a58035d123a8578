/*
 * common.c - what srun, sbatch and slurmstepd do the same way: load the
 * recipe, name the job's directory, read and write the master's state file.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "plugin.h"

void mcp_error(const struct mcr_error *err)
{
	char msg[MCR_ERROR_MESSAGE_LENGTH];

	mcr_error_format(err, msg, sizeof(msg));
	slurm_error("%s", msg);
}

int mcp_load(const char *recipe_arg, const char *role_arg, bool inherited,
	     struct mcr_recipe **recipe, enum mcr_role *role,
	     struct mcr_error *err)
{
	*role = MCR_ROLE_NONE;
	if (mcr_recipe_load_file(recipe_arg, NULL, recipe, err))
		return -1;
	/* advice shows where the user looks: srun's and sbatch's terminal */
	if (spank_context() != S_CTX_REMOTE)
		for (size_t i = 0; i < mcr_recipe_warning_count(*recipe); i++)
			slurm_info("%s", mcr_recipe_warning(*recipe, i));
	if (mcr_recipe_resolve_role(*recipe, role_arg, inherited, role, err)) {
		mcr_recipe_free(*recipe);
		*recipe = NULL;
		return -1;
	}
	return 0;
}

char *mcp_job_dir(const struct mcp_config *config,
		  const struct mcr_recipe *recipe, const char *job_id,
		  uid_t uid, const char *submit_dir, struct mcr_error *err)
{
	const char *tmpl = mcr_recipe_log_dir(recipe);
	struct passwd pw, *res = NULL;
	char buf[4096], uidbuf[32], cwd[PATH_MAX];
	const char *user;

	if (!tmpl)
		tmpl = config->job_dir;
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

static void copy_str(char *dst, size_t size, json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	snprintf(dst, size, "%s", s ? s : "");
}

int mcp_state_read(const char *dir, struct mcp_master_state *st,
		   struct mcr_error *err)
{
	char *path = NULL;
	json_error_t jerr;
	json_t *obj;

	memset(st, 0, sizeof(*st));
	if (asprintf(&path, "%s/%s", dir, MCP_STATE_FILE) < 0)
		return mcri_error_set(err, MCR_EIO, "out of memory");
	obj = json_load_file(path, 0, &jerr);
	if (!obj) {
		int missing = access(path, F_OK) != 0 && errno == ENOENT;

		mcri_error_set(err, missing ? MCR_ESTATE : MCR_EIO,
			       "cannot read %s: %s", path,
			       missing ? "no such file" : jerr.text);
		free(path);
		return -1;
	}
	free(path);
	copy_str(st->state, sizeof(st->state), obj, "state");
	st->attempt = (int)json_integer_value(json_object_get(obj, "attempt"));
	copy_str(st->infra_node, sizeof(st->infra_node), obj, "infra_node");
	copy_str(st->infra_addr, sizeof(st->infra_addr), obj, "infra_addr");
	copy_str(st->token, sizeof(st->token), obj, "token");
	copy_str(st->message, sizeof(st->message), obj, "message");
	copy_str(st->starter_host, sizeof(st->starter_host), obj, "starter_host");
	st->starter_pid = (long)json_integer_value(json_object_get(obj, "starter_pid"));
	st->srun_pid = (long)json_integer_value(json_object_get(obj, "srun_pid"));
	st->started_at = json_integer_value(json_object_get(obj, "started_at"));
	st->ready_at = json_integer_value(json_object_get(obj, "ready_at"));
	json_decref(obj);
	return 0;
}

int mcp_state_write(const char *dir, const struct mcp_master_state *st,
		    struct mcr_error *err)
{
	json_t *obj = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I}",
				"state", st->state, "attempt", st->attempt,
				"infra_node", st->infra_node,
				"infra_addr", st->infra_addr, "token", st->token,
				"message", st->message, "starter_host", st->starter_host,
				"starter_pid", (json_int_t)st->starter_pid,
				"srun_pid", (json_int_t)st->srun_pid,
				"started_at", (json_int_t)st->started_at,
				"ready_at", (json_int_t)st->ready_at);
	char *text;
	int rc;

	if (!obj)
		return mcri_error_set(err, MCR_EIO, "out of memory");
	text = json_dumps(obj, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(obj);
	if (!text)
		return mcri_error_set(err, MCR_EIO, "out of memory");
	rc = mcr_write_file_atomic(dir, MCP_STATE_FILE, text, strlen(text), err);
	free(text);
	return rc;
}
