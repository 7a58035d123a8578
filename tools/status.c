/*
 * status.c - mooncake-recipe status: the pool of a running job, from its
 * master's admin port, each segment joined to the worker that mounted it.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "pool/pool.h"

#define FETCH_TIMEOUT_MS 3000

static void duration(long long s, char *buf, size_t size)
{
	if (s >= 3600)
		snprintf(buf, size, "%lldh%02lldm%02llds", s / 3600, s / 60 % 60, s % 60);
	else if (s >= 60)
		snprintf(buf, size, "%lldm%02llds", s / 60, s % 60);
	else
		snprintf(buf, size, "%llds", s);
}

static void percent(long long part, long long whole, char *buf, size_t size)
{
	if (whole > 0)
		snprintf(buf, size, "%.1f%%", 100.0 * (double)part / (double)whole);
	else
		snprintf(buf, size, "-");
}

/* an HA pool: each master's role, and its etcd */
static void print_ha(const struct mcri_pool *pool, const char *up)
{
	const struct mcri_state *m = &pool->master;

	printf("HA pool  rpc %d, metadata %d, metrics %d on each master; etcd on", m->ports.rpc, m->ports.metadata,
	       m->ports.metrics);
	for (int k = 0; k < m->ha.etcd_members; k++)
		printf("%s %s", k ? "," : "", m->ha.member[k].node);
	printf(" (client %d, peer %d)\n", m->ha.etcd_client, m->ha.etcd_peer);
	for (int k = 0; k < m->ha.masters; k++) {
		const struct mcri_master_health *h = &pool->health[k];

		printf("master   %s (%s), %s", m->ha.member[k].node, m->ha.member[k].addr,
		       !pool->answered[k] ? "does not answer"
		       : h->role == MCRI_MASTER_LEADER
			       ? (h->service_ready ? "leader, serving" : "leader, not serving yet")
		       : h->role == MCRI_MASTER_STANDBY ? "standby"
							: "not in HA mode");
		if (k == pool->leader)
			printf(", up %s (the pool)", up);
		if (pool->answered[k] && h->view >= 0)
			printf(", view %lld", h->view);
		printf("\n");
	}
}

static void print_table(const struct mcri_pool *pool, const char *job_id, const char *dir, double now)
{
	static const char *const shown[] = { "PutStart", "Get", "Exist", "Del", "Ping" };
	const struct mcri_state *m = &pool->master;
	char cap[32], alloc[32], use[16], up[32];
	bool any = false;

	printf("Mooncake pool of job %s (%s)\n", job_id ? job_id : "?", dir);
	duration((long long)mcri_pool_uptime(pool, now), up, sizeof(up));
	if (m->ha.masters)
		print_ha(pool, up);
	else
		printf("master   %s (%s), rpc %d, metadata %d, metrics %d, up %s\n", m->infra_node, m->infra_addr,
		       m->ports.rpc, m->ports.metadata, m->ports.metrics, up);
	if (pool->keeper.restarts) {
		const struct mcri_restart *last = &pool->keeper.restart[mcri_proof_kept(&pool->keeper) - 1];
		time_t at = (time_t)last->at;
		struct tm tm;
		char when[32] = "?";

		if (gmtime_r(&at, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		printf("restarts %d of at most %d (restart=); the last after it ended at %s (%s): the keys it held were lost\n",
		       pool->keeper.restarts, pool->keeper.restart_limit, when, last->cause);
	}
	printf("%-10s %-15s %-24s %12s %12s %7s\n", "NODE", "ROLE", "SEGMENT", "CAPACITY", "ALLOCATED", "USED");
	for (size_t i = 0; i < pool->nseg; i++) {
		const struct mcri_segment *s = &pool->seg[i];

		mcri_human_bytes(s->capacity, cap, sizeof(cap));
		mcri_human_bytes(s->allocated, alloc, sizeof(alloc));
		percent(s->allocated, s->capacity, use, sizeof(use));
		printf("%-10s %-15s %-24s %12s %12s %7s\n", s->node ? s->node : "-", s->role ? s->role : "-", s->name,
		       cap, alloc, use);
	}
	mcri_human_bytes(pool->capacity, cap, sizeof(cap));
	mcri_human_bytes(pool->allocated, alloc, sizeof(alloc));
	percent(pool->allocated, pool->capacity, use, sizeof(use));
	snprintf(up, sizeof(up), "%zu segment%s", pool->nseg, pool->nseg == 1 ? "" : "s");
	printf("%-10s %-15s %-24s %12s %12s %7s\n", "total", "", up, cap, alloc, use);
	printf("keys %lld, clients %lld\n", pool->keys, pool->clients);
	for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
		for (size_t i = 0; i < pool->nrates; i++)
			if (strcmp(pool->rates[i].name, shown[k]) == 0) {
				printf("%s%s %.2f", any ? ", " : "requests/s (the master's summary): ", shown[k],
				       pool->rates[i].per_s);
				any = true;
			}
	if (any)
		printf("\n");
}

/* Open the job's directory as the job's user: root first becomes the
 * job's user (Slurm's UserId; for --dir, the directory's owner, not
 * followed through a link), so that status never looks at a user's path
 * as root; another user is told whose pool it is. The exit status on
 * failure, the message printed. */
static int open_job_dir(const char *dir, uid_t job_uid, bool job_known, struct mcri_jobdir *jd)
{
	struct mcr_error err = { 0 };
	struct passwd *pw;
	struct stat sb;
	uid_t as = job_uid;

	if (geteuid() == 0 && !job_known)
		as = lstat(dir, &sb) == 0 ? sb.st_uid : 0;
	if (geteuid() == 0 && as != 0) {
		pw = getpwuid(as);
		if (setgroups(0, NULL) != 0 || setgid(pw ? pw->pw_gid : (gid_t)as) != 0 || setuid(as) != 0) {
			fprintf(stderr,
				"mooncake: status cannot take the identity of the job's user (uid %u) to read %s: %s\n",
				(unsigned)as, dir, strerror(errno));
			return 2;
		}
	} else if (stat(dir, &sb) == 0 && sb.st_uid != getuid() && geteuid() != 0) {
		pw = getpwuid(sb.st_uid);
		fprintf(stderr,
			"mooncake: %s belongs to %s (uid %u): only that user (or root) may see the pool of its job\n",
			dir, pw ? pw->pw_name : "another user", (unsigned)sb.st_uid);
		return 1;
	}
	if (access(dir, F_OK) != 0 && errno == ENOENT)
		return 0; /* no directory: no pool, said by the caller */
	if (mcri_jobdir_open(jd, dir, getuid(), false, &err) == 0)
		return 0;
	fprintf(stderr, "mooncake: %s\n", err.text);
	return err.kind == MCR_ESTATE ? 1 : 2;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mooncake-recipe status [--job JOBID | --dir DIR] [--json]\n");
}

int cli_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "job", required_argument, NULL, 'j' },
		{ "dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *job = NULL, *dir_arg = NULL;
	struct mcri_pool pool = { 0 };
	struct mcr_error err = { 0 };
	struct mcri_jobdir jd = { .fd = -1 };
	char *dir = NULL, state[96];
	uid_t job_uid = 0;
	bool json = false, reported, ended = false;
	struct timespec ts;
	int c, rc = 1, fetch;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			job = optarg;
			break;
		case 'd':
			dir_arg = optarg;
			break;
		case 'J':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "mooncake: status: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!job && !dir_arg)
		job = getenv("SLURM_JOB_ID"); /* inside an allocation: its job */
	if (!job && !dir_arg) {
		fprintf(stderr,
			"mooncake: status needs a job: --job JOBID, --dir DIR (the job's Mooncake directory), or run it inside the job's allocation\n");
		return 2;
	}
	if (dir_arg) {
		if (!(dir = strdup(dir_arg)))
			return 2;
	} else if ((rc = cli_job_dir(job, &dir, &job_uid, &ended, state, sizeof(state))) != 0) {
		return rc;
	}
	if ((rc = open_job_dir(dir, job_uid, !dir_arg, &jd)) != 0)
		goto out;
	rc = 1;
	if (jd.fd < 0 || mcri_state_read(&jd, &pool.master, &err)) {
		if (jd.fd >= 0 && err.kind != MCR_ESTATE)
			fprintf(stderr, "mooncake: %s\n", err.text);
		else if (job && !dir_arg)
			fprintf(stderr,
				"mooncake: no Mooncake pool found for job %s (looked in %s); if its recipe sets output.log_dir, run mooncake-recipe status --dir <that directory>\n",
				job, dir);
		else
			fprintf(stderr,
				"mooncake: no Mooncake pool found in %s (it has no %s); give the job's Mooncake directory: <submit dir>/outputs/<job id>/logs, or the recipe's output.log_dir\n",
				dir, MCRI_STATE_FILE);
		goto out;
	}
	if (pool.master.phase != MCRI_PHASE_READY) {
		fprintf(stderr, "mooncake: the pool in %s has no running master: %s/%s says '%s'%s%s%s\n", dir, dir,
			MCRI_STATE_FILE, mcri_phase_name(pool.master.phase), pool.master.message[0] ? ": " : "",
			pool.master.message,
			pool.master.phase == MCRI_PHASE_STARTING ? "; try again in a few seconds" : "");
		goto out;
	}
	/* a master that still answers after its job ended (its slurmd lost,
	 * say) is no pool of a running job */
	if (dir_arg && pool.master.job_id[0])
		ended = cli_job_ended(pool.master.job_id, state, sizeof(state));
	if (ended) {
		reported = mcri_jobdir_exists(&jd, MCRI_REPORT_FILE);
		fprintf(stderr, "mooncake: job %s has ended (%s): its pool is gone; %s%s%s%s\n",
			job ? job : pool.master.job_id, state,
			reported ? "its report is " : "when a job ends its pool's report is in ", dir,
			reported ? "/" : "", reported ? MCRI_REPORT_FILE : "");
		goto out;
	}
	/* the master step's word on its restarts (none when it has none) */
	mcri_proof_of_attempt(&jd, pool.master.attempt, &pool.keeper);
	fetch = mcri_pool_fetch(&pool, FETCH_TIMEOUT_MS, &err);
	if (fetch && pool.keeper.restarting) {
		fprintf(stderr,
			"mooncake: the job's mooncake_master on %s (%s) ended (%s) and its master step is starting it again (restart %d of at most %d); try again in a few seconds\n",
			pool.master.infra_node, pool.master.infra_addr,
			pool.keeper.restart[mcri_proof_kept(&pool.keeper) - 1].cause, pool.keeper.restarts,
			pool.keeper.restart_limit);
		goto out;
	}
	if (fetch && pool.master.ha.masters) {
		fprintf(stderr, "mooncake: the job's HA pool does not serve now: %s\n", err.text);
		goto out;
	}
	/* an HA pool: the restarts and uptime are the leader's */
	if (!fetch && pool.master.ha.masters)
		mcri_proof_of_member(&jd, pool.master.attempt, pool.leader, &pool.keeper);
	if (fetch) {
		reported = mcri_jobdir_exists(&jd, MCRI_REPORT_FILE);
		fprintf(stderr,
			"mooncake: the job's mooncake_master on %s (%s:%d) does not answer (%s): it has stopped or the job has ended; %s%s%s%s\n",
			pool.master.infra_node, pool.master.infra_addr, pool.master.ports.metrics, err.text,
			reported ? "the pool's report is " : "when a job ends its pool's report is in ", dir,
			reported ? "/" : "", reported ? MCRI_REPORT_FILE : "");
		goto out;
	}
	if (mcri_pool_join_workers(&pool, &jd, &err)) {
		fprintf(stderr, "mooncake: %s\n", err.text);
		goto out;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	/* status --dir: the job the state file names */
	if (!job && pool.master.job_id[0])
		job = pool.master.job_id;
	if (json) {
		char *text = mcri_pool_json(&pool, job, (double)ts.tv_sec);

		if (!text) {
			fprintf(stderr, "mooncake: out of memory\n");
			rc = 2;
			goto out;
		}
		printf("%s\n", text);
		free(text);
	} else {
		print_table(&pool, job, dir, (double)ts.tv_sec);
	}
	rc = 0;
out:
	mcri_jobdir_close(&jd);
	mcri_pool_free(&pool);
	free(dir);
	return rc;
}
