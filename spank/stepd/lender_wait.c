/*
 * lender_task.c - a role's task waits for the lenders of its node
 * (lender.h), in task_init, before its command runs: srun handed it, in
 * MCP_LENDERS_VAR, which lenders its role needs (on its own node, or an
 * infra lender on the job's first node) and which of them srun already
 * saw fail. The task reads each lender's records in the job's directory
 * (checked as srun checked it) until its state says ready, at most the
 * lender's readiness bound (and the time a starter takes to stop one that
 * was not ready): ready, and its step's keeper has not ended it, is
 * lending. A lender that failed, ended, whose starter is gone with no srun
 * taking over, or that is not ready in time fails the task with the
 * lender's own cause and its log's last lines; with critical: false the
 * task says so on its stderr and runs all the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "steps/lender.h"
#include "steps/step.h"

#define WATCH_MS 250 /* the records, the directory watched: a bound all the same */
#define POLL_MS 100  /* ... unwatched */

/* one lender this task waits for */
struct wanted {
	char name[MCRI_LENDER_NAME_MAX + 1];
	char node[256];
	char subject[MCRI_SUBJECT_MAX + 1];
	char log[NAME_MAX + 1];
	bool critical;
	int bound;           /* seconds */
	const char *failed;  /* srun's word that it failed (into the value), or NULL */
	bool done;
};

/* the field after *p up to a tab or the line's end (NUL-terminated in
 * place); NULL at the line's end */
static char *field(char **p)
{
	char *start = *p;
	size_t len;

	if (!start)
		return NULL;
	len = strcspn(start, "\t\n");
	if (start[len] == '\t') {
		start[len] = '\0';
		*p = start + len + 1;
	} else {
		start[len] = '\0';
		*p = NULL;
	}
	return start;
}

/* Why lender w is not lending (0: it is; 1: not yet) */
static int look(const struct mcri_jobdir *jd, struct wanted *w, struct mcri_lock_seen *seen, double *looked,
		double now, double end, struct mcr_error *err)
{
	struct mcri_state st;
	struct mcri_proof p;
	struct mcr_error ignored;
	char tail[2000] = "", log[PATH_MAX + NAME_MAX + 2];

	snprintf(log, sizeof(log), "%s/%s", jd->path, w->log);
	if (mcri_state_read_of(jd, w->subject, &st, &ignored) != 0)
		st.phase = MCRI_PHASE_NONE;
	if (st.phase == MCRI_PHASE_READY) {
		if (mcri_proof_of_subject(jd, w->subject, st.attempt, &p) == 0 && p.ended) {
			mcp_log_tail(log, tail, sizeof(tail));
			return mcri_error_set(err, MCR_ESTATE, "the lender %s on %s has ended (%.400s); its log %s ends:%s",
					      w->name, w->node, p.ended_why[0] ? p.ended_why : "its step has ended", log,
					      tail[0] ? tail : " (empty)");
		}
		return 0;
	}
	if (st.phase == MCRI_PHASE_FAILED)
		return mcri_error_set(err, MCR_ESTATE, "the lender %s on %s could not be started: %.1024s", w->name,
				      w->node, st.message);
	if (st.phase == MCRI_PHASE_STARTING && mcp_starter_gone(jd, w->subject, &st, seen, looked, now))
		return mcri_error_set(err, MCR_ESTATE,
				      "the srun that was starting the lender %s on %s is gone, and no srun has taken over; run this step again (it takes over)",
				      w->name, w->node);
	if (now >= end) {
		mcp_log_tail(log, tail, sizeof(tail));
		return mcri_error_set(err, MCR_ESTATE,
				      "timed out after %d s waiting for the lender %s on %s (%s); if it is just slow raise readiness.timeout_seconds of services[%s]; its log %s ends:%s",
				      w->bound, w->name, w->node,
				      st.phase ? mcri_phase_name(st.phase) : "nothing started it", w->name, log,
				      tail[0] ? tail : " (empty)");
	}
	return 1;
}

int mcp_task_wait_lenders(const char *value, const char *node, struct mcr_error *err)
{
	char *text MCP_AUTOFREE = strdup(value), *lines, *dir, *save = NULL, *l;
	struct wanted *w MCP_AUTOFREE = NULL;
	struct mcri_jobdir jd = { .fd = -1 };
	struct mcri_watch watch = MCRI_WATCH_NONE;
	struct mcri_lock_seen *seen MCP_AUTOFREE = NULL;
	double *looked MCP_AUTOFREE = NULL, t0 = mcp_now();
	size_t n = 0, left;
	bool watched = false, tried = false;
	int rc = -1;

	if (!text)
		return mcri_error_nomem(err);
	if (strncmp(text, "1\n", 2) != 0 || !(dir = text + 2) || !(lines = strchr(dir, '\n')))
		return mcri_error_set(err, MCR_EINVAL, "%s is not what srun hands a task: is the plugin on srun's host of the same version?",
				      MCP_LENDERS_VAR);
	*lines++ = '\0';
	/* the lenders, then srun's word on those that failed */
	for (l = strtok_r(lines, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *p = l, *kind = field(&p);

		if (kind && !strcmp(kind, "L")) {
			char *name = field(&p), *critical = field(&p), *bound = field(&p), *on = field(&p);
			struct wanted *grown;

			if (!on)
				continue;
			if (!(grown = realloc(w, (n + 1) * sizeof(*w))))
				return mcri_error_nomem(err);
			w = grown;
			memset(&w[n], 0, sizeof(w[n]));
			snprintf(w[n].name, sizeof(w[n].name), "%s", name);
			snprintf(w[n].node, sizeof(w[n].node), "%s", strcmp(on, "*") ? on : node);
			w[n].critical = atoi(critical) != 0;
			w[n].bound = atoi(bound) > 0 ? atoi(bound) : 1;
			if (mcri_lender_subject(w[n].name, w[n].node, w[n].subject, w[n].log, sizeof(w[n].log)))
				continue;
			n++;
		} else if (kind && !strcmp(kind, "F")) {
			char *name = field(&p), *on = field(&p), *why = field(&p);

			for (size_t i = 0; name && on && why && i < n; i++)
				if (!strcmp(w[i].name, name) && !strcmp(w[i].node, on))
					w[i].failed = why;
		}
	}
	if (!n)
		return 0;
	if (!(seen = calloc(n, sizeof(*seen))) || !(looked = calloc(n, sizeof(*looked))))
		return mcri_error_nomem(err);
	if (mcri_jobdir_open(&jd, dir, getuid(), false, err))
		return -1;
	/* a watch only once a look found one not ready (a first wave's tasks
	 * mostly find theirs ready: no inotify instance each) */
	for (left = n;;) {
		double now = mcp_now();

		for (size_t i = 0; i < n; i++) {
			struct mcr_error why;
			int r;

			if (w[i].done)
				continue;
			r = w[i].failed ? mcri_error_set(&why, MCR_ESTATE, "%s", w[i].failed) :
					  look(&jd, &w[i], &seen[i], &looked[i], now, t0 + w[i].bound, &why);
			if (r > 0)
				continue;
			w[i].done = true;
			left--;
			if (r == 0)
				continue;
			if (w[i].critical) {
				mcri_error_set(err, MCR_ESTATE, "this task on %s needs the lender %s on %s (critical: true): %s",
					       node, w[i].name, w[i].node, why.text);
				goto out;
			}
			fprintf(stderr, "mooncake: %s; services[%s] has critical: false, so this task runs without it\n",
				why.text, w[i].name);
		}
		if (!left)
			break;
		if (!tried) {
			/* begun before the next look: no change is missed */
			tried = true;
			watched = mcri_jobdir_watch(&jd, &watch) == 0;
			continue;
		}
		if (watched)
			mcri_jobdir_wait(&watch, WATCH_MS);
		else
			mcp_sleep_ms(POLL_MS);
	}
	rc = 0;
out:
	mcri_jobdir_unwatch(&watch);
	mcri_jobdir_close(&jd);
	return rc;
}
