/*
 * proof.c - mooncake_master.proof.json (jobdir.h): the master step's own
 * word, from the node its master runs on, on the sockets that listen on
 * the master's ports, and on each restart of its master; an HA pool's
 * other masters each have a file of their own.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jobdir/json.h"
#include "plugstack/plugstack.h" /* MCRI_RESTART_MAX */

static const char *const VERDICTS[] = { "", "own", "foreign" };

/* the file of master `member` of `subject` (NULL: the master's; member
 * 0 for a pool of one, and for a lender) */
static void file_of(const char *subject, int member, char *name, size_t size)
{
	if (subject)
		snprintf(name, size, "%s.proof.json", subject);
	else if (member > 0)
		snprintf(name, size, MCRI_MEMBER_PROOF_FILE, member);
	else
		snprintf(name, size, "%s", MCRI_PROOF_FILE);
}

int mcri_proof_read(const struct mcri_jobdir *d, struct mcri_proof *p, struct mcr_error *err)
{
	return mcri_proof_read_member(d, 0, p, err);
}

static int proof_read(const struct mcri_jobdir *d, const char *subject, int member, struct mcri_proof *p,
		      struct mcr_error *err);

int mcri_proof_read_member(const struct mcri_jobdir *d, int member, struct mcri_proof *p, struct mcr_error *err)
{
	return proof_read(d, NULL, member, p, err);
}

int mcri_proof_read_of(const struct mcri_jobdir *d, const char *subject, struct mcri_proof *p, struct mcr_error *err)
{
	return proof_read(d, subject, 0, p, err);
}

int mcri_proof_of_subject(const struct mcri_jobdir *d, const char *subject, int attempt, struct mcri_proof *p)
{
	struct mcr_error ignored;

	if (proof_read(d, subject, 0, p, &ignored) == 0 && p->attempt == attempt)
		return 0;
	memset(p, 0, sizeof(*p));
	return -1;
}

static int proof_read(const struct mcri_jobdir *d, const char *subject, int member, struct mcri_proof *p,
		      struct mcr_error *err)
{
	const char *verdict;
	json_t *obj, *event;
	size_t i, n = 0;
	char name[NAME_MAX + 1];

	memset(p, 0, sizeof(*p));
	if (member < 0 || member >= MCRI_HA_MAX)
		return mcri_error_set(err, MCR_EINVAL, "no master %d in a pool", member);
	file_of(subject, member, name, sizeof(name));
	if (!(obj = mcri_json_read(d, name, 16384, err)))
		return -1;
	p->member = member;
	p->ha = json_is_true(json_object_get(obj, "ha"));
	verdict = json_string_value(json_object_get(obj, "verdict"));
	for (size_t v = 1; verdict && v < MCRI_ARRAY_LEN(VERDICTS); v++)
		if (strcmp(verdict, VERDICTS[v]) == 0)
			p->verdict = (enum mcri_proof_verdict)v;
	p->attempt = (int)mcri_json_int(obj, "attempt");
	p->ports.rpc = mcri_json_port(obj, "rpc_port", 0);
	p->ports.metadata = mcri_json_port(obj, "metadata_port", 0);
	p->ports.metrics = mcri_json_port(obj, "metrics_port", 0);
	p->pid = (long)mcri_json_int(obj, "pid");
	p->start = (unsigned long long)mcri_json_int(obj, "start");
	p->step = (unsigned long)mcri_json_int(obj, "step");
	p->foreign_port = mcri_json_port(obj, "foreign_port", 0);
	p->foreign_uid = (unsigned)mcri_json_int(obj, "foreign_uid");
	p->restart_limit = (int)mcri_json_bounded(mcri_json_int(obj, "restart_limit"), MCRI_RESTART_MAX);
	p->restarts = (int)mcri_json_bounded(mcri_json_int(obj, "restarts"), MCRI_RESTART_MAX);
	p->restarting = json_is_true(json_object_get(obj, "restarting"));
	p->ended = json_is_true(json_object_get(obj, "ended"));
	mcri_json_str(p->ended_why, sizeof(p->ended_why), obj, "ended_why");
	p->steered = json_is_true(json_object_get(obj, "steered"));
	p->proved_at = mcri_json_seconds(json_object_get(obj, "proved_at"));
	p->alive_at = mcri_json_seconds(json_object_get(obj, "alive_at"));
	json_array_foreach(json_object_get(obj, "restart"), i, event)
	{
		struct mcri_restart *r = &p->restart[n];

		if (n == MCRI_RESTARTS_KEPT || !json_is_object(event))
			break;
		r->at = mcri_json_seconds(json_object_get(event, "at"));
		mcri_json_str(r->cause, sizeof(r->cause), event, "cause");
		n++;
	}
	/* as many restarts as events kept, and none under way without one:
	 * a record damaged or written by hand never points past what it holds */
	if (n < mcri_proof_kept(p))
		p->restarts = (int)n;
	p->restarting &= p->restarts > 0;
	json_decref(obj);
	return 0;
}

int mcri_proof_of_attempt(const struct mcri_jobdir *d, int attempt, struct mcri_proof *p)
{
	return mcri_proof_of_member(d, attempt, 0, p);
}

int mcri_proof_of_member(const struct mcri_jobdir *d, int attempt, int member, struct mcri_proof *p)
{
	struct mcr_error ignored;

	if (mcri_proof_read_member(d, member, p, &ignored) == 0 && p->attempt == attempt)
		return 0;
	memset(p, 0, sizeof(*p));
	return -1;
}

size_t mcri_proof_kept(const struct mcri_proof *p)
{
	return (size_t)(p->restarts < MCRI_RESTARTS_KEPT ? p->restarts : MCRI_RESTARTS_KEPT);
}

void mcri_proof_restart(struct mcri_proof *p, double at, const char *cause)
{
	size_t kept = mcri_proof_kept(p);

	if (kept == MCRI_RESTARTS_KEPT) /* the oldest goes */
		memmove(p->restart, p->restart + 1, sizeof(p->restart) - sizeof(p->restart[0]));
	else
		kept++;
	p->restart[kept - 1].at = at;
	snprintf(p->restart[kept - 1].cause, sizeof(p->restart[0].cause), "%s", cause);
	p->restarts++;
}

int mcri_proof_write(const struct mcri_jobdir *d, const struct mcri_proof *p, struct mcr_error *err)
{
	return mcri_proof_write_of(d, NULL, p, err);
}

int mcri_proof_write_of(const struct mcri_jobdir *d, const char *subject, const struct mcri_proof *p,
			struct mcr_error *err)
{
	json_t *events;
	char name[NAME_MAX + 1];

	if (p->member < 0 || p->member >= MCRI_HA_MAX)
		return mcri_error_set(err, MCR_EINVAL, "no master %d in a pool", p->member);
	file_of(subject, p->member, name, sizeof(name));
	events = json_array();
	for (size_t i = 0; events && i < mcri_proof_kept(p); i++)
		if (json_array_append_new(events, json_pack("{s:f, s:s}", "at", round(p->restart[i].at * 1000) / 1000,
							    "cause", p->restart[i].cause))) {
			json_decref(events);
			events = NULL;
		}
	/* "o" takes the array's reference, and a NULL fails the whole */
	return mcri_json_write(
		d, name,
		json_pack(
			"{s:i, s:b, s:s, s:i, s:i, s:i, s:I, s:I, s:I, s:i, s:I, s:i, s:i, s:b, s:b, s:s, s:b, s:f, s:f, s:o}",
			"attempt", p->attempt, "ha", (int)p->ha, "verdict",
			VERDICTS[p->verdict < MCRI_ARRAY_LEN(VERDICTS) ? p->verdict : 0], "rpc_port", p->ports.rpc,
			"metadata_port", p->ports.metadata, "metrics_port", p->ports.metrics, "pid", (json_int_t)p->pid,
			"start", (json_int_t)p->start, "step", (json_int_t)p->step, "foreign_port", p->foreign_port,
			"foreign_uid", (json_int_t)p->foreign_uid, "restart_limit", p->restart_limit, "restarts",
			p->restarts, "restarting", (int)p->restarting, "ended", (int)p->ended, "ended_why",
			p->ended_why, "steered", (int)p->steered, "proved_at", round(p->proved_at * 1000) / 1000,
			"alive_at", round(p->alive_at * 1000) / 1000, "restart", events),
		err);
}

void mcri_pool_end(const struct mcri_jobdir *d, int attempt, int masters, int skip, struct mcri_pool_end *out)
{
	struct mcri_proof p;

	memset(out, 0, sizeof(*out));
	for (int k = 0; k < masters && k < MCRI_HA_MAX; k++) {
		if (k == skip || mcri_proof_of_member(d, attempt, k, &p) != 0 || !p.ended)
			continue;
		out->ended++;
		if (p.ended_why[0] && (!out->why[0] || (p.steered && !out->steered)))
			snprintf(out->why, sizeof(out->why), "%s", p.ended_why);
		out->steered |= p.steered;
	}
}
