/*
 * records.c - the records of the job's directory (jobdir.h), one reader
 * and one writer each: the master's state, the election's locks, the
 * worker records. Every value read is checked (ports 1-65535, known
 * phases, strings that fit), so a record damaged or written by hand is
 * refused or ignored, never trusted as it stands.
 */
#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "jobdir/jobdir.h"
#include "net/net.h" /* mcri_pid_start */
#include "plugstack/plugstack.h" /* MCRI_RESTART_MAX */

static const char *const PHASES[] = { "", "starting", "ready", "failed" };

const char *mcri_phase_name(enum mcri_phase phase)
{
	return (unsigned)phase < MCRI_ARRAY_LEN(PHASES) ? PHASES[phase] : "?";
}

/* the JSON object in `name` (bounded), or NULL with err set */
static json_t *read_json(const struct mcri_jobdir *d, const char *name, size_t max,
			 struct mcr_error *err)
{
	json_error_t jerr;
	char *text;
	size_t len;
	json_t *obj;

	if (mcri_jobdir_read(d, name, max, &text, &len, err))
		return NULL;
	obj = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!json_is_object(obj)) {
		json_decref(obj);
		mcri_error_set(err, MCR_EIO, "cannot read %s/%s: %s", d->path, name,
			       obj ? "not a JSON object" : jerr.text);
		return NULL;
	}
	return obj;
}

/* the string `key` (or ""), cut to fit `dst` where a UTF-8 character
 * starts, so that what is read can always be written again */
static void copy_str(char *dst, size_t size, const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	size_t n = s ? strlen(s) : 0;

	if (n >= size) {
		n = size - 1;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(dst, s ? s : "", n);
	dst[n] = '\0';
}

static long long get_int(const json_t *obj, const char *key)
{
	return json_integer_value(json_object_get(obj, key));
}

/* a time of the record: Unix seconds up to the year 9999, else 0 */
static double seconds(const json_t *v)
{
	double t = json_number_value(v);

	return t >= 0 && t < 253402300800.0 ? t : 0;
}

/* v within 0..max, else 0 */
static long long bounded(long long v, long long max)
{
	return v >= 0 && v <= max ? v : 0;
}

static int port_of(const json_t *obj, const char *key, int fallback)
{
	long long p = get_int(obj, key);

	return p >= 1 && p <= 65535 ? (int)p : fallback;
}

/* obj (its reference taken; NULL: out of memory), indented, as the job
 * directory's file `name`, replaced whole */
static int write_json(const struct mcri_jobdir *d, const char *name, json_t *obj,
		      struct mcr_error *err)
{
	char *text;
	int rc;

	if (!obj)
		return mcri_error_nomem(err);
	text = json_dumps(obj, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(obj);
	if (!text)
		return mcri_error_nomem(err);
	rc = mcri_jobdir_write(d, name, text, strlen(text), true, err);
	free(text);
	return rc;
}

int mcri_state_read(const struct mcri_jobdir *d, struct mcri_state *st, struct mcr_error *err)
{
	const char *phase;
	json_t *obj;

	memset(st, 0, sizeof(*st));
	if (!(obj = read_json(d, MCRI_STATE_FILE, MCRI_RECORD_MAX, err)))
		return -1;
	phase = json_string_value(json_object_get(obj, "state"));
	for (size_t i = 1; phase && i < MCRI_ARRAY_LEN(PHASES); i++)
		if (strcmp(phase, PHASES[i]) == 0)
			st->phase = (enum mcri_phase)i;
	if (st->phase == MCRI_PHASE_NONE) {
		json_decref(obj);
		return mcri_error_set(err, MCR_EIO, "cannot read %s/%s: its state is not starting, ready or failed",
				      d->path, MCRI_STATE_FILE);
	}
	st->attempt = (int)get_int(obj, "attempt");
	st->run = (int)get_int(obj, "run");
	copy_str(st->job_id, sizeof(st->job_id), obj, "job_id");
	copy_str(st->infra_node, sizeof(st->infra_node), obj, "infra_node");
	copy_str(st->infra_addr, sizeof(st->infra_addr), obj, "infra_addr");
	/* a file of a release before per-job ports has none: srtctl's */
	st->ports.rpc = port_of(obj, "rpc_port", MCR_MASTER_PORT);
	st->ports.metadata = port_of(obj, "metadata_port", MCR_METADATA_PORT);
	st->ports.metrics = port_of(obj, "metrics_port", MCR_METRICS_PORT);
	copy_str(st->recipe, sizeof(st->recipe), obj, "recipe");
	copy_str(st->message, sizeof(st->message), obj, "message");
	copy_str(st->starter_host, sizeof(st->starter_host), obj, "starter_host");
	st->starter_pid = (long)get_int(obj, "starter_pid");
	st->srun_pid = (long)get_int(obj, "srun_pid");
	st->starter_start = (unsigned long long)get_int(obj, "starter_start");
	st->srun_start = (unsigned long long)get_int(obj, "srun_start");
	st->master_step = (long)get_int(obj, "master_step");
	st->started_at = get_int(obj, "started_at");
	st->ready_at = get_int(obj, "ready_at");
	json_decref(obj);
	return 0;
}

int mcri_state_write(const struct mcri_jobdir *d, const struct mcri_state *st,
		     struct mcr_error *err)
{
	json_t *obj = json_pack("{s:s, s:i, s:i, s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
				"state", mcri_phase_name(st->phase), "attempt", st->attempt,
				"run", st->run, "job_id", st->job_id, "infra_node", st->infra_node,
				"infra_addr", st->infra_addr, "rpc_port", st->ports.rpc,
				"metadata_port", st->ports.metadata,
				"metrics_port", st->ports.metrics,
				"recipe", st->recipe, "message", st->message,
				"starter_host", st->starter_host,
				"starter_pid", (json_int_t)st->starter_pid,
				"srun_pid", (json_int_t)st->srun_pid,
				"starter_start", (json_int_t)st->starter_start,
				"srun_start", (json_int_t)st->srun_start,
				"master_step", (json_int_t)st->master_step,
				"started_at", (json_int_t)st->started_at,
				"ready_at", (json_int_t)st->ready_at);

	return write_json(d, MCRI_STATE_FILE, obj, err);
}

/* ---- the master step's proof ------------------------------------------ */

static const char *const VERDICTS[] = { "", "own", "foreign" };

int mcri_proof_read(const struct mcri_jobdir *d, struct mcri_proof *p, struct mcr_error *err)
{
	const char *verdict;
	json_t *obj, *event;
	size_t i, n = 0;

	memset(p, 0, sizeof(*p));
	if (!(obj = read_json(d, MCRI_PROOF_FILE, 16384, err)))
		return -1;
	verdict = json_string_value(json_object_get(obj, "verdict"));
	for (size_t v = 1; verdict && v < MCRI_ARRAY_LEN(VERDICTS); v++)
		if (strcmp(verdict, VERDICTS[v]) == 0)
			p->verdict = (enum mcri_proof_verdict)v;
	p->attempt = (int)get_int(obj, "attempt");
	p->ports.rpc = port_of(obj, "rpc_port", 0);
	p->ports.metadata = port_of(obj, "metadata_port", 0);
	p->ports.metrics = port_of(obj, "metrics_port", 0);
	p->pid = (long)get_int(obj, "pid");
	p->start = (unsigned long long)get_int(obj, "start");
	p->step = (unsigned long)get_int(obj, "step");
	p->foreign_port = port_of(obj, "foreign_port", 0);
	p->foreign_uid = (unsigned)get_int(obj, "foreign_uid");
	p->restart_limit = (int)bounded(get_int(obj, "restart_limit"), MCRI_RESTART_MAX);
	p->restarts = (int)bounded(get_int(obj, "restarts"), MCRI_RESTART_MAX);
	p->restarting = json_is_true(json_object_get(obj, "restarting"));
	p->ended = json_is_true(json_object_get(obj, "ended"));
	p->proved_at = seconds(json_object_get(obj, "proved_at"));
	json_array_foreach(json_object_get(obj, "restart"), i, event) {
		struct mcri_restart *r = &p->restart[n];

		if (n == MCRI_RESTARTS_KEPT || !json_is_object(event))
			break;
		r->at = seconds(json_object_get(event, "at"));
		copy_str(r->cause, sizeof(r->cause), event, "cause");
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
	struct mcr_error ignored;

	if (mcri_proof_read(d, p, &ignored) == 0 && p->attempt == attempt)
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

int mcri_proof_write(const struct mcri_jobdir *d, const struct mcri_proof *p,
		     struct mcr_error *err)
{
	json_t *events = json_array();

	for (size_t i = 0; events && i < mcri_proof_kept(p); i++)
		if (json_array_append_new(events, json_pack("{s:f, s:s}", "at", round(p->restart[i].at * 1000) / 1000,
							    "cause", p->restart[i].cause))) {
			json_decref(events);
			events = NULL;
		}
	/* "o" takes the array's reference, and a NULL fails the whole */
	return write_json(d, MCRI_PROOF_FILE,
			  json_pack("{s:i, s:s, s:i, s:i, s:i, s:I, s:I, s:I, s:i, s:I, s:i, s:i, s:b, s:b, s:f, s:o}",
				    "attempt", p->attempt,
				    "verdict", VERDICTS[p->verdict < MCRI_ARRAY_LEN(VERDICTS) ? p->verdict : 0],
				    "rpc_port", p->ports.rpc, "metadata_port", p->ports.metadata,
				    "metrics_port", p->ports.metrics, "pid", (json_int_t)p->pid,
				    "start", (json_int_t)p->start, "step", (json_int_t)p->step,
				    "foreign_port", p->foreign_port, "foreign_uid", (json_int_t)p->foreign_uid,
				    "restart_limit", p->restart_limit, "restarts", p->restarts,
				    "restarting", (int)p->restarting, "ended", (int)p->ended,
				    "proved_at", round(p->proved_at * 1000) / 1000, "restart", events),
			  err);
}

/* ---- locks ------------------------------------------------------------ */

int mcri_lock_take(const struct mcri_jobdir *d, int attempt, const char *host,
		   struct mcr_error *err)
{
	char name[64], *text = mcri_asprintf("%ld %s %llu\n", (long)getpid(), host,
					     mcri_pid_start(getpid()));
	int rc;

	if (!text)
		return mcri_error_nomem(err);
	snprintf(name, sizeof(name), MCRI_LOCK_FILE, attempt);
	rc = mcri_jobdir_create(d, name, text, err);
	free(text);
	return rc;
}

void mcri_lock_read(const struct mcri_jobdir *d, int attempt, struct mcri_lock *l)
{
	struct mcr_error ignored;
	char name[64], fmt[32], *text = NULL;
	struct stat st;

	memset(l, 0, sizeof(*l));
	l->mtime = -1;
	snprintf(name, sizeof(name), MCRI_LOCK_FILE, attempt);
	if (mcri_jobdir_read_stat(d, name, 512, &text, NULL, &st, &ignored))
		return;
	l->mtime = (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9;
	snprintf(fmt, sizeof(fmt), "%%ld %%%zus %%llu", sizeof(l->host) - 1);
	if (sscanf(text, fmt, &l->pid, l->host, &l->start) < 2 || l->pid <= 0) {
		l->pid = 0;
		l->host[0] = '\0';
		l->start = 0;
	}
	free(text);
}

void mcri_lock_touch(const struct mcri_jobdir *d, int attempt)
{
	char name[64];

	snprintf(name, sizeof(name), MCRI_LOCK_FILE, attempt);
	utimensat(d->fd, name, NULL, AT_SYMLINK_NOFOLLOW);
}

bool mcri_lock_adopt(const struct mcri_jobdir *d, int attempt)
{
	struct mcr_error ignored;
	char name[80];

	snprintf(name, sizeof(name), MCRI_LOCK_FILE ".adopt", attempt);
	return mcri_jobdir_create(d, name, "", &ignored) == 1;
}

/* ---- worker records --------------------------------------------------- */

int mcri_worker_write(const struct mcri_jobdir *d, const struct mcri_worker *w,
		      struct mcr_error *err)
{
	struct mcri_jobdir sub;
	char *text = NULL, *name = NULL;
	json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I}", "node", w->node, "role", w->role,
			      "address", w->address, "job", (json_int_t)w->job,
			      "step", (json_int_t)w->step, "task", (json_int_t)w->task);
	int rc = -1;

	if (o)
		text = json_dumps(o, JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!text || !(name = mcri_asprintf("%s.%lu.%lu.%lu.json", w->node, w->job, w->step, w->task))) {
		mcri_error_nomem(err);
		goto out;
	}
	if (strchr(w->node, '/') || w->node[0] == '.' || !w->node[0]) {
		mcri_error_set(err, MCR_EINVAL, "'%s' cannot name a worker record", w->node);
		goto out;
	}
	if (mcri_jobdir_sub(d, MCRI_WORKERS_DIR, true, &sub, err))
		goto out;
	/* advice for status and the report: no fsync on every task's start */
	rc = mcri_jobdir_write(&sub, name, text, strlen(text), false, err);
	mcri_jobdir_close(&sub);
out:
	free(text);
	free(name);
	return rc;
}

static bool worker_of(const struct mcri_jobdir *d, const char *name, struct mcri_worker *w)
{
	struct mcr_error ignored;
	json_t *o = read_json(d, name, 4096, &ignored);
	bool ok;

	if (!o)
		return false;
	ok = json_is_string(json_object_get(o, "node")) && json_is_string(json_object_get(o, "role")) &&
	     json_is_string(json_object_get(o, "address"));
	copy_str(w->node, sizeof(w->node), o, "node");
	copy_str(w->role, sizeof(w->role), o, "role");
	copy_str(w->address, sizeof(w->address), o, "address");
	w->job = (unsigned long)get_int(o, "job");
	w->step = (unsigned long)get_int(o, "step");
	w->task = (unsigned long)get_int(o, "task");
	json_decref(o);
	return ok;
}

int mcri_workers_read(const struct mcri_jobdir *d, size_t max, struct mcri_worker **out,
		      size_t *n, struct mcr_error *err)
{
	struct mcri_jobdir sub;
	struct dirent *de;
	DIR *dir;
	int fd;

	*out = NULL;
	*n = 0;
	if (mcri_jobdir_sub(d, MCRI_WORKERS_DIR, false, &sub, err))
		return err->kind == MCR_ESTATE && !mcri_jobdir_exists(d, MCRI_WORKERS_DIR) ? 0 : -1;
	fd = fcntl(sub.fd, F_DUPFD_CLOEXEC, 0);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		mcri_jobdir_close(&sub);
		return mcri_error_set(err, MCR_EIO, "cannot list %s: %s", sub.path, strerror(errno));
	}
	while ((de = readdir(dir)) && *n < max) {
		size_t len = strlen(de->d_name);
		struct mcri_worker *grown;

		if (len < 6 || de->d_name[0] == '.' || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		if (!(grown = realloc(*out, (*n + 1) * sizeof(**out)))) {
			closedir(dir);
			mcri_jobdir_close(&sub);
			free(*out);
			*out = NULL;
			*n = 0;
			return mcri_error_nomem(err);
		}
		*out = grown;
		if (worker_of(&sub, de->d_name, &(*out)[*n]))
			(*n)++;
	}
	closedir(dir);
	mcri_jobdir_close(&sub);
	return 0;
}
