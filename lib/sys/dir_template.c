/*
 * dir_template.c - the name of the job's directory: a template with {job_id},
 * {user} and {submit_dir} (output.log_dir or the plugin's job_dir=). Its
 * files are the runtime's (runtime/jobdir/).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/sys.h"

char *mcri_expand_dir_template(const char *tmpl, const char *job_id, const char *user, const char *submit_dir,
			       struct mcr_error *err)
{
	struct mcri_buf b = { 0 };
	const char *p = tmpl;

	if (!tmpl || !*tmpl) {
		mcri_error_set(err, MCR_EINVAL, "the job directory template is empty");
		return NULL;
	}
	if (tmpl[0] != '/' && strncmp(tmpl, "{submit_dir}", 12) != 0) {
		mcri_buf_puts(&b, submit_dir);
		mcri_buf_puts(&b, "/");
	}
	while (*p) {
		if (*p == '{') {
			const char *end = strchr(p, '}');
			size_t n = end ? (size_t)(end - p - 1) : 0;

			if (end && n == 6 && strncmp(p + 1, "job_id", 6) == 0)
				mcri_buf_puts(&b, job_id);
			else if (end && n == 4 && strncmp(p + 1, "user", 4) == 0)
				mcri_buf_puts(&b, user);
			else if (end && n == 10 && strncmp(p + 1, "submit_dir", 10) == 0)
				mcri_buf_puts(&b, submit_dir);
			else {
				free(b.p);
				mcri_error_set(
					err, MCR_EINVAL,
					"the job directory '%s' has an unknown placeholder at '%s'; use {job_id}, {user} and {submit_dir}",
					tmpl, p);
				return NULL;
			}
			p = end + 1;
			continue;
		}
		mcri_buf_add(&b, p, 1);
		p++;
	}
	while (b.len > 1 && b.p && b.p[b.len - 1] == '/')
		b.p[--b.len] = '\0';
	{
		char *s = mcri_buf_take(&b);

		if (!s)
			mcri_error_nomem(err);
		return s;
	}
}
