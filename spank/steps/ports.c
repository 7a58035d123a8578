/*
 * ports.c - the ports of a job's master (plugstack ports=auto|fixed).
 *
 * With ports=fixed every master takes 8700, 8701 and 8702, as srtctl
 * renders it. With ports=auto (the default) the srun that starts the master
 * tries triples in turn: 8700-8702 first (so a job alone on its infra node
 * is byte for byte what srtctl renders), then triples of port_range= from an
 * offset its job id chooses. Each triple goes to the master step in
 * SLURM_MOONCAKE_MASTER_PORTS; there, on the infra node itself, the step's
 * task claims it before mooncake_master runs: every port must bind, and no
 * other job's master that is starting on the node may hold a reservation
 * on it (a small registry root keeps, mcp_port_registry(), one line
 * "port pid start job" per reservation, void once its process is gone;
 * an earlier attempt's of the same job, while it lives, too). A triple that
 * cannot be claimed fails the step at once; a port another program takes
 * between the claim and the master's bind makes mooncake_master exit; in
 * both cases the starter tries the next triple (election.c).
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "jobdir/jobdir.h"
#include "net/net.h"
#include "plugin/handover.h"
#include "plugstack/plugstack.h"
#include "steps/ports.h"

#define MAX_CANDIDATES 32
#define LOCK_WAIT_MS 2000 /* then claim without the registry */

static const struct mcr_ports DEFAULT = { .rpc = MCR_MASTER_PORT,
					  .metadata = MCR_METADATA_PORT,
					  .metrics = MCR_METRICS_PORT };

static int triples(const struct mcri_plugstack *ps)
{
	return (ps->port_hi - ps->port_lo + 1) / 3;
}

int mcp_port_candidates(const struct mcri_plugstack *ps)
{
	int n = 1 + triples(ps);

	if (ps->fixed_ports)
		return 1;
	return n < MAX_CANDIDATES ? n : MAX_CANDIDATES;
}

void mcp_port_candidate(const struct mcri_plugstack *ps, unsigned long job_id, int candidate, struct mcr_ports *out)
{
	int t = triples(ps), i;

	*out = DEFAULT;
	if (ps->fixed_ports || candidate <= 0 || t <= 0)
		return;
	i = (int)((job_id + (unsigned long)candidate - 1) % (unsigned long)t);
	/* the default triple was candidate 0: a triple of the range that
	 * overlaps it (one or two of them, as the range is aligned) gives its
	 * place to the next that does not */
	for (int k = 0; k < 3; k++) {
		out->rpc = ps->port_lo + 3 * ((i + k) % t);
		if (out->rpc > MCR_METRICS_PORT || out->rpc + 2 < MCR_MASTER_PORT)
			break;
	}
	out->metadata = out->rpc + 1;
	out->metrics = out->rpc + 2;
}

/* the last of srtctl's ports and the two after them (an HA pool's etcd with
 * 8700-8702) */
#define FIXED_HI (MCR_METRICS_PORT + 2)

int mcp_etcd_ports(const struct mcri_plugstack *ps, const struct mcr_ports *master, int *client, int *peer)
{
	int lo = ps->fixed_ports ? MCR_MASTER_PORT : ps->port_lo;
	int hi = ps->fixed_ports ? FIXED_HI : ps->port_hi;

	/* the two after the master's three, or, at the range's end, the two
	 * before them; 8703, 8704 after srtctl's */
	if (master->rpc == MCR_MASTER_PORT || master->rpc + 4 <= hi)
		*client = master->rpc + 3;
	else if (master->rpc - 2 >= lo)
		*client = master->rpc - 2;
	else
		return -1;
	*peer = *client + 1;
	return 0;
}

int mcp_ports_parse(const char *text, struct mcr_ports *out, int *etcd, struct mcr_error *err)
{
	int p[5], n = 0;
	const char *c = text;

	/* three or five port numbers, comma-separated, nothing else */
	while (c && n < 5) {
		char *end;
		long v;

		if (*c < '0' || *c > '9')
			break;
		v = strtol(c, &end, 10);
		if (v < 1 || v > 65535 || (*end && *end != ','))
			break;
		p[n++] = (int)v;
		c = *end ? end + 1 : NULL;
	}
	if (c || (n != 3 && !(n == 5 && etcd)))
		return mcri_error_set(err, MCR_EINVAL,
				      "%s='%s' is not three ports RPC,METADATA,METRICS (and an HA pool's two of etcd)",
				      MCP_PORTS_VAR, text ? text : "");
	*out = (struct mcr_ports){ p[0], p[1], p[2] };
	if (etcd) {
		etcd[0] = n == 5 ? p[3] : 0;
		etcd[1] = n == 5 ? p[4] : 0;
	}
	return 0;
}

/* Can this host bind `port` (all addresses, as mooncake_master does)? */
static bool port_free(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	bool ok;

	if (fd < 0)
		return false;
	a.sin_addr.s_addr = htonl(INADDR_ANY);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	/* and no IPv6 listener either (the guard would call it foreign after
	 * a whole start); a node without IPv6 has none */
	if (ok && (fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0) {
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
					   .sin6_port = htons((uint16_t)port),
					   .sin6_addr = IN6ADDR_ANY_INIT };

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		ok = bind(fd, (struct sockaddr *)&a6, sizeof(a6)) == 0 || errno != EADDRINUSE;
		close(fd);
	}
	return ok;
}

void mcp_port_registry(unsigned long ns, char *path, size_t size)
{
	snprintf(path, size, "%s/ports.%lu", MCP_PORT_REGISTRY_DIR, ns);
}

/* the registry's file is root's (or, unprivileged, ours) and only its
 * owner may write it */
static bool trusted(int fd)
{
	struct stat sb;

	return fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (sb.st_uid == 0 || sb.st_uid == geteuid()) &&
	       !(sb.st_mode & (S_IWGRP | S_IWOTH));
}

/* the registry, locked; -1 when it cannot be used (then ports are claimed
 * on their bind alone). Its directory is made by root, 0700, and checked
 * through its descriptor; the file is 0600: no one else can even open it
 * (a lock held on a file others can read would stall every claim). */
static int registry_open(const char *path)
{
	struct timespec pause = { 0, 20 * 1000000L };
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat sb;
	int dfd, fd;

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir))
		return -1;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	if (fstat(dfd, &sb) != 0 || sb.st_uid != geteuid() || (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		close(dfd);
		return -1;
	}
	fd = openat(dfd, slash + 1, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	close(dfd);
	if (fd < 0)
		return -1;
	if (!trusted(fd)) {
		close(fd);
		return -1;
	}
	/* one of an earlier release was 0644 */
	if (fstat(fd, &sb) == 0 && (sb.st_mode & 077))
		fchmod(fd, 0600);
	for (int waited = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited += 20) {
		if (errno != EWOULDBLOCK || waited >= LOCK_WAIT_MS) {
			close(fd);
			return -1;
		}
		nanosleep(&pause, NULL);
	}
	return fd;
}

#define LINE_MAX_BYTES 80 /* "port pid start job\n": 5 + 1 + 7 + 1 + 20 + 1 + 20 + 1 */

/* the fields of one line: 4 or 5 decimal numbers, one space apart, into
 * v; how many, or -1 */
static int line_fields(const char *line, unsigned long long *v)
{
	int n = 0;

	for (const char *c = line; *c; n++) {
		char *end;

		if (n == 5 || *c < '0' || *c > '9')
			return -1;
		errno = 0;
		v[n] = strtoull(c, &end, 10);
		if (errno || (*end && *end != ' ') || (*end == ' ' && !end[1]))
			return -1;
		c = *end ? end + 1 : end;
	}
	return n;
}

size_t mcp_registry_parse(char *text, struct mcp_reservation *r, size_t max)
{
	char *line, *save = NULL;
	size_t n = 0;

	for (line = strtok_r(text, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v[5];
		int got;

		/* "port pid start job uid"; a line without the uid (an earlier
		 * release's) reserves for a user unknown */
		if (strlen(line) >= LINE_MAX_BYTES || (got = line_fields(line, v)) < 4 || v[0] < 1 || v[0] > 65535 ||
		    v[1] < 1 || v[1] > LONG_MAX || v[2] == 0 || v[3] == 0 || v[3] > ULONG_MAX ||
		    (got == 5 && v[4] > UINT32_MAX))
			continue; /* not an entry */
		r[n++] = (struct mcp_reservation){ .port = (int)v[0],
						   .pid = (long)v[1],
						   .start = v[2],
						   .job = (unsigned long)v[3],
						   .uid = got == 5 ? (long)v[4] : -1 };
	}
	return n;
}

size_t mcp_registry_format(const struct mcp_reservation *r, size_t n, char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int w = r[i].uid >= 0 ? snprintf(buf + len, size - len, "%d %ld %llu %lu %ld\n", r[i].port, r[i].pid,
						 r[i].start, r[i].job, r[i].uid)
				      : snprintf(buf + len, size - len, "%d %ld %llu %lu\n", r[i].port, r[i].pid,
						 r[i].start, r[i].job);

		if (w < 0 || (size_t)w >= size - len) {
			buf[len] = '\0';
			break; /* no room: the rest is not reserved */
		}
		len += (size_t)w;
	}
	return len;
}

/* the live reservations of the registry: its entries whose process still
 * runs with the start time it had (a reused pid is another process) */
static size_t registry_read(int fd, struct mcp_reservation *r)
{
	char buf[MCP_REGISTRY_BYTES + 1];
	ssize_t got = pread(fd, buf, sizeof(buf) - 1, 0);
	size_t n, live = 0;

	if (got <= 0)
		return 0;
	buf[got] = '\0';
	n = mcp_registry_parse(buf, r, MCP_REGISTRY_MAX);
	for (size_t i = 0; i < n; i++)
		if (mcri_pid_start(r[i].pid) == r[i].start)
			r[live++] = r[i];
	return live;
}

static void registry_write(int fd, const struct mcp_reservation *r, size_t n)
{
	char buf[MCP_REGISTRY_BYTES + 1];
	size_t len = mcp_registry_format(r, n, buf, sizeof(buf));

	if (ftruncate(fd, 0) != 0)
		return;
	/* a torn write is emptied: it then reserves nothing */
	if (pwrite(fd, buf, len, 0) != (ssize_t)len && ftruncate(fd, 0) != 0)
		return;
}

/* a port a master of this cluster may have: srtctl's (and the two of an
 * HA pool's etcd after them), or in port_range= */
static bool master_port(const struct mcri_plugstack *ps, int port)
{
	return (port >= MCR_MASTER_PORT && port <= FIXED_HI) ||
	       (!ps->fixed_ports && port >= ps->port_lo && port <= ps->port_hi);
}

/* "job 42 of uid 1001 (alice)" */
static void holder(const struct mcp_reservation *r, char *buf, size_t size)
{
	char who[96] = "";

	if (r->uid >= 0)
		mcri_who((uid_t)r->uid, who, sizeof(who));
	snprintf(buf, size, "job %lu%s%s", r->job, who[0] ? " of " : "", who);
}

/* a port a lender of this cluster may have: a store's 8080 (the wheel's
 * default), or in port_range= */
static bool lender_port(const struct mcri_plugstack *ps, int port)
{
	return port == MCP_LENDER_PORT || (!ps->fixed_ports && port >= ps->port_lo && port <= ps->port_hi &&
					   (port < MCR_MASTER_PORT || port > FIXED_HI));
}

int mcp_lender_port_candidates(const struct mcri_plugstack *ps)
{
	int n = 1 + (ps->port_hi - ps->port_lo + 1);

	if (ps->fixed_ports)
		return 1;
	return n < MAX_CANDIDATES ? n : MAX_CANDIDATES;
}

int mcp_lender_port_candidate(const struct mcri_plugstack *ps, unsigned long job_id, const char *name, int candidate)
{
	int span = ps->port_hi - ps->port_lo + 1, port;
	unsigned long h = 5381;

	if (ps->fixed_ports || candidate <= 0 || span <= 0)
		return MCP_LENDER_PORT;
	for (const char *c = name; *c; c++)
		h = h * 33 + (unsigned char)*c;
	/* the range from an offset of the job and the lender, past the
	 * master's default ports */
	for (int k = 0; k < span; k++) {
		port = ps->port_lo +
		       (int)((job_id * 7 + h + (unsigned long)candidate - 1 + (unsigned long)k) % (unsigned long)span);
		if (lender_port(ps, port))
			return port;
	}
	return MCP_LENDER_PORT;
}

static int claim(const int *want, const char *const *what, int count, bool lender, const struct mcri_plugstack *ps,
		 unsigned long job, uid_t uid, const char *registry, struct mcr_error *err);

int mcp_ports_claim(const struct mcr_ports *ports, const int *etcd, const struct mcri_plugstack *ps, unsigned long job,
		    uid_t uid, const char *registry, struct mcr_error *err)
{
	const int want[5] = { ports->rpc, ports->metadata, ports->metrics, etcd ? etcd[0] : 0, etcd ? etcd[1] : 0 };
	static const char *const what[5] = { "RPC", "metadata", "metrics", "etcd client", "etcd peer" };

	return claim(want, what, etcd && etcd[0] ? 5 : 3, false, ps, job, uid, registry, err);
}

int mcp_lender_port_claim(int port, const struct mcri_plugstack *ps, unsigned long job, uid_t uid, const char *registry,
			  struct mcr_error *err)
{
	static const char *const what[1] = { "a lender's" };

	return claim(&port, what, 1, true, ps, job, uid, registry, err);
}

static int claim(const int *want, const char *const *what, int count, bool lender, const struct mcri_plugstack *ps,
		 unsigned long job, uid_t uid, const char *registry, struct mcr_error *err)
{
	struct mcp_reservation *r;
	char host[256] = "", who[160];
	int fd, rc = -1;
	size_t n = 0, kept = 0, of_job = 0, of_user = 0;

	for (int k = 0; k < count; k++)
		if (lender ? !lender_port(ps, want[k]) : !master_port(ps, want[k]))
			return mcri_error_set(
				err, MCR_EINVAL,
				lender ? "port %d (%s) is not a port of a memory lender on this cluster (8080, or port_range=%d-%d of plugstack.conf past 8700-8704): %s is set by the plugin alone; unset it"
				       : "port %d (%s) is not a port of mooncake_master on this cluster (8700-8702, or port_range=%d-%d of plugstack.conf): %s is set by the plugin alone; unset it",
				want[k], what[k], ps->port_lo, ps->port_hi,
				lender ? "SLURM_MOONCAKE_LENDER" : MCP_PORTS_VAR);
	if (!(r = calloc(MCP_REGISTRY_MAX, sizeof(*r))))
		return mcri_error_nomem(err);
	fd = registry ? registry_open(registry) : -1;
	gethostname(host, sizeof(host) - 1);
	if (fd >= 0)
		n = registry_read(fd, r);
	for (size_t i = 0; i < n; i++) {
		of_job += r[i].job == job;
		of_user += r[i].uid == (long)uid;
	}
	for (int k = 0; k < count; k++) {
		for (size_t i = 0; i < n; i++)
			if (r[i].port == want[k] && r[i].pid != (long)getpid()) {
				holder(&r[i], who, sizeof(who));
				mcri_error_set(
					err, MCR_ESTATE,
					"port %d (%s) on %s is taken: %s reserved it for %s mooncake_master, etcd or lender (pid %ld), which is starting on it; the srun that started this step tries other ports",
					want[k], what[k], host, who,
					r[i].job == job ? "an earlier attempt of its" : "its", r[i].pid);
				goto out;
			}
		if (!port_free(want[k])) {
			mcri_error_set(
				err, MCR_ESTATE,
				"port %d (%s) on %s is taken: another process listens on it; the srun that started this step tries other ports",
				want[k], what[k], host);
			goto out;
		}
	}
	if (fd >= 0) {
		/* the live reservations stay (a dead one is gone already) */
		kept = n;
		/* a full registry keeps its live entries, and a job or a user
		 * never holds more than its share: this claim then rests on
		 * the bind alone */
		if (kept + (size_t)count > MCP_REGISTRY_MAX || of_job + (size_t)count > MCP_REGISTRY_PER_JOB ||
		    of_user + (size_t)count > MCP_REGISTRY_PER_USER) {
			char ports[64] = "";

			for (int k = 0, len = 0; k < count && len < (int)sizeof(ports); k++)
				len += snprintf(ports + len, sizeof(ports) - (size_t)len, "%s%d", k ? "," : "",
						want[k]);
			fprintf(stderr,
				"mooncake: the ports registry of %s holds %zu reservations, %zu of job %lu's and %zu of uid %u's (at most %d, %d per job, %d per user): port(s) %s rest on their bind alone\n",
				host, n, of_job, job, of_user, (unsigned)uid, MCP_REGISTRY_MAX, MCP_REGISTRY_PER_JOB,
				MCP_REGISTRY_PER_USER, ports);
		} else {
			for (int k = 0; k < count; k++)
				r[kept++] = (struct mcp_reservation){ .port = want[k],
								      .pid = (long)getpid(),
								      .start = mcri_pid_start(getpid()),
								      .job = job,
								      .uid = (long)uid };
			registry_write(fd, r, kept);
		}
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd); /* and with it the lock */
	free(r);
	return rc;
}
