/*
 * records.c - the records of the job's directory (jobdir.h), one reader
 * and one writer each: the master's state, the election's locks, the
 * worker records (the master step's proof: proof.c). Every value read is checked (ports 1-65535, known
 * phases, strings that fit), so a record damaged or written by hand is
 * refused or ignored, never trusted as it stands.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobdir/json.h"
#include "net/net.h" /* mcri_pid_start */

static const char *const PHASES[] = { "", "starting", "ready", "failed" };

const char *mcri_phase_name(enum mcri_phase phase)
{
	return (unsigned)phase < MCRI_ARRAY_LEN(PHASES) ? PHASES[phase] : "?";
}

int mcri_lender_subject(const char *name, const char *node, char *buf, char *log, size_t log_size)
{
	int n;

	if (!*name || !*node || strchr(name, '/') || strchr(node, '/') || name[0] == '.' ||
	    (n = snprintf(buf, MCRI_SUBJECT_MAX + 1, MCRI_LENDER_PREFIX "%s.%s", name, node)) < 0 ||
	    n > MCRI_SUBJECT_MAX)
		return -1;
	if (log && snprintf(log, log_size, "service_%s.%s.out", name, node) >= (int)log_size)
		return -1;
	return 0;
}

/* "<subject><suffix>" into name (NAME_MAX + 1 bytes) */
static const char *file_name(const char *subject, const char *suffix, char *name, size_t size)
{
	snprintf(name, size, "%s%s", subject ? subject : MCRI_MASTER_SUBJECT, suffix);
	return name;
}

int mcri_state_read(const struct mcri_jobdir *d, struct mcri_state *st, struct mcr_error *err)
{
	return mcri_state_read_of(d, NULL, st, err);
}

int mcri_state_read_of(const struct mcri_jobdir *d, const char *subject, struct mcri_state *st, struct mcr_error *err)
{
	const char *phase;
	char file[NAME_MAX + 1];
	json_t *obj;

	memset(st, 0, sizeof(*st));
	if (!(obj = mcri_json_read(d, file_name(subject, ".json", file, sizeof(file)), MCRI_RECORD_MAX, err)))
		return -1;
	phase = json_string_value(json_object_get(obj, "state"));
	for (size_t i = 1; phase && i < MCRI_ARRAY_LEN(PHASES); i++)
		if (strcmp(phase, PHASES[i]) == 0)
			st->phase = (enum mcri_phase)i;
	if (st->phase == MCRI_PHASE_NONE) {
		json_decref(obj);
		return mcri_error_set(err, MCR_EIO, "cannot read %s/%s: its state is not starting, ready or failed",
				      d->path, file);
	}
	st->attempt = (int)mcri_json_int(obj, "attempt");
	st->run = (int)mcri_json_int(obj, "run");
	mcri_json_str(st->job_id, sizeof(st->job_id), obj, "job_id");
	mcri_json_str(st->cluster, sizeof(st->cluster), obj, "cluster");
	st->job_start = mcri_json_int(obj, "job_start");
	mcri_json_str(st->infra_node, sizeof(st->infra_node), obj, "infra_node");
	mcri_json_str(st->infra_addr, sizeof(st->infra_addr), obj, "infra_addr");
	/* a file of a release before per-job ports has none: srtctl's */
	st->ports.rpc = mcri_json_port(obj, "rpc_port", MCR_MASTER_PORT);
	st->ports.metadata = mcri_json_port(obj, "metadata_port", MCR_METADATA_PORT);
	st->ports.metrics = mcri_json_port(obj, "metrics_port", MCR_METRICS_PORT);
	mcri_json_str(st->recipe, sizeof(st->recipe), obj, "recipe");
	mcri_json_str(st->message, sizeof(st->message), obj, "message");
	mcri_json_str(st->starter_host, sizeof(st->starter_host), obj, "starter_host");
	st->starter_pid = (long)mcri_json_int(obj, "starter_pid");
	st->srun_pid = (long)mcri_json_int(obj, "srun_pid");
	st->starter_start = (unsigned long long)mcri_json_int(obj, "starter_start");
	st->srun_start = (unsigned long long)mcri_json_int(obj, "srun_start");
	st->master_step = (long)mcri_json_int(obj, "master_step");
	st->started_at = mcri_json_int(obj, "started_at");
	st->ready_at = mcri_json_int(obj, "ready_at");
	mcri_ha_unpack(json_object_get(obj, "ha"), &st->ha);
	json_decref(obj);
	return 0;
}

int mcri_state_write(const struct mcri_jobdir *d, const struct mcri_state *st, struct mcr_error *err)
{
	return mcri_state_write_of(d, NULL, st, err);
}

int mcri_state_write_of(const struct mcri_jobdir *d, const char *subject, const struct mcri_state *st,
			struct mcr_error *err)
{
	char file[NAME_MAX + 1];
	json_t *obj = json_pack(
		"{s:s, s:i, s:i, s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
		"state", mcri_phase_name(st->phase), "attempt", st->attempt, "run", st->run, "job_id", st->job_id,
		"infra_node", st->infra_node, "infra_addr", st->infra_addr, "rpc_port", st->ports.rpc, "metadata_port",
		st->ports.metadata, "metrics_port", st->ports.metrics, "recipe", st->recipe, "message", st->message,
		"starter_host", st->starter_host, "starter_pid", (json_int_t)st->starter_pid, "srun_pid",
		(json_int_t)st->srun_pid, "starter_start", (json_int_t)st->starter_start, "srun_start",
		(json_int_t)st->srun_start, "master_step", (json_int_t)st->master_step, "started_at",
		(json_int_t)st->started_at, "ready_at", (json_int_t)st->ready_at);

	/* which job of its id it is, where known */
	if (obj && (json_object_set_new(obj, "cluster", json_string(st->cluster)) ||
		    json_object_set_new(obj, "job_start", json_integer(st->job_start)))) {
		json_decref(obj);
		obj = NULL;
	}
	/* an HA pool's masters and etcd, after what every pool has */
	if (obj && st->ha.masters >= 2 && json_object_set_new(obj, "ha", mcri_ha_pack(&st->ha))) {
		json_decref(obj);
		obj = NULL;
	}
	return mcri_json_write(d, file_name(subject, ".json", file, sizeof(file)), obj, err);
}

/* ---- locks ------------------------------------------------------------ */

/* "<subject>.<attempt>.lock" into name */
static const char *lock_name(const char *subject, int attempt, char *name, size_t size)
{
	snprintf(name, size, "%s.%d.lock", subject ? subject : MCRI_MASTER_SUBJECT, attempt);
	return name;
}

int mcri_lock_take(const struct mcri_jobdir *d, int attempt, const char *host, int *held, struct mcr_error *err)
{
	return mcri_lock_take_of(d, NULL, attempt, host, held, err);
}

int mcri_lock_take_of(const struct mcri_jobdir *d, const char *subject, int attempt, const char *host, int *held,
		      struct mcr_error *err)
{
	char name[NAME_MAX + 1], *text = mcri_asprintf("%ld %s %llu\n", (long)getpid(), host, mcri_pid_start(getpid()));
	int rc;

	if (!text)
		return mcri_error_nomem(err);
	rc = mcri_jobdir_create_held(d, lock_name(subject, attempt, name, sizeof(name)), text, held, err);
	free(text);
	return rc;
}

void mcri_lock_read(const struct mcri_jobdir *d, int attempt, struct mcri_lock *l)
{
	mcri_lock_read_of(d, NULL, attempt, l);
}

void mcri_lock_read_of(const struct mcri_jobdir *d, const char *subject, int attempt, struct mcri_lock *l)
{
	struct mcr_error ignored;
	char name[NAME_MAX + 1], fmt[32], *text = NULL;
	struct stat st;

	memset(l, 0, sizeof(*l));
	l->mtime = -1;
	lock_name(subject, attempt, name, sizeof(name));
	l->held = -1;
	if (mcri_jobdir_read_held(d, name, 512, &text, NULL, &st, &l->held, &ignored))
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

int mcri_lock_hold(const struct mcri_jobdir *d, int attempt)
{
	return mcri_lock_hold_of(d, NULL, attempt);
}

int mcri_lock_hold_of(const struct mcri_jobdir *d, const char *subject, int attempt)
{
	char name[NAME_MAX + 1];

	return mcri_jobdir_hold(d, lock_name(subject, attempt, name, sizeof(name)));
}

void mcri_lock_seen_update(struct mcri_lock_seen *s, const struct mcri_jobdir *d, int attempt,
			   const struct mcri_lock *l, double now)
{
	char host[256] = "";

	if (attempt != s->attempt) {
		/* another host's "no one holds it" is believed only where the
		 * file system shows every host's locks (NFS mounted nolock
		 * tells each host only of its own) */
		gethostname(host, sizeof(host) - 1);
		s->free_told = mcri_jobdir_locks_shared(d) || (l->host[0] && !strcmp(l->host, host));
	}
	if (attempt != s->attempt) {
		s->attempt = attempt;
		s->mtime = l->mtime;
		s->changed = now;
		s->touched = false;
	} else if (l->mtime >= 0 && l->mtime != s->mtime) {
		/* a change from a lock read before (one that could not be
		 * read is no sign of life) */
		s->touched = s->mtime >= 0;
		s->mtime = l->mtime;
		s->changed = now;
	}
}

bool mcri_lock_seen_gone(const struct mcri_lock_seen *s, const struct mcri_lock *l, double now, double extra)
{
	double quiet = now - s->changed;

	if (l->held == 1)
		return false;
	return quiet > (l->held == 0 && s->free_told ? MCRI_LOCK_QUIET_S : MCRI_LOCK_STALE_S) + extra;
}

void mcri_lock_touch(const struct mcri_jobdir *d, int attempt)
{
	mcri_lock_touch_of(d, NULL, attempt);
}

void mcri_lock_touch_of(const struct mcri_jobdir *d, const char *subject, int attempt)
{
	char name[NAME_MAX + 1];

	utimensat(d->fd, lock_name(subject, attempt, name, sizeof(name)), NULL, AT_SYMLINK_NOFOLLOW);
}

bool mcri_lock_adopt(const struct mcri_jobdir *d, int attempt)
{
	return mcri_lock_adopt_of(d, NULL, attempt);
}

bool mcri_lock_adopt_of(const struct mcri_jobdir *d, const char *subject, int attempt)
{
	struct mcr_error ignored;
	char name[NAME_MAX + 8];

	lock_name(subject, attempt, name, sizeof(name) - 8);
	strcat(name, ".adopt");
	return mcri_jobdir_create(d, name, "", &ignored) == 1;
}

/* ---- worker records --------------------------------------------------- */

int mcri_worker_write(const struct mcri_jobdir *d, const struct mcri_worker *w, struct mcr_error *err)
{
	struct mcri_jobdir sub;
	char *text = NULL, *name = NULL;
	json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I}", "node", w->node, "role", w->role, "address", w->address,
			      "job", (json_int_t)w->job, "step", (json_int_t)w->step, "task", (json_int_t)w->task);
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
	json_t *o = mcri_json_read(d, name, 4096, &ignored);
	bool ok;

	if (!o)
		return false;
	ok = json_is_string(json_object_get(o, "node")) && json_is_string(json_object_get(o, "role")) &&
	     json_is_string(json_object_get(o, "address"));
	mcri_json_str(w->node, sizeof(w->node), o, "node");
	mcri_json_str(w->role, sizeof(w->role), o, "role");
	mcri_json_str(w->address, sizeof(w->address), o, "address");
	w->job = (unsigned long)mcri_json_int(o, "job");
	w->step = (unsigned long)mcri_json_int(o, "step");
	w->task = (unsigned long)mcri_json_int(o, "task");
	json_decref(o);
	return ok;
}

int mcri_workers_read(const struct mcri_jobdir *d, size_t max, struct mcri_worker **out, size_t *n,
		      struct mcr_error *err)
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
