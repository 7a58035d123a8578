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
 * on it (a small registry every user may lock, MCP_PORT_REGISTRY, one line
 * "port pid" per reservation, void once its process is gone). A triple that
 * cannot be claimed fails the step at once; a port another program takes
 * between the claim and the master's bind makes mooncake_master exit; in
 * both cases the starter tries the next triple (election.c).
 */
#include <errno.h>
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

#include "plugin.h"

#define MAX_CANDIDATES 32
#define REGISTRY_MAX 512          /* reservations kept */
#define LOCK_WAIT_MS 2000         /* then claim without the registry */

static const struct mcr_ports DEFAULT = { MCR_MASTER_PORT, MCR_METADATA_PORT, MCR_METRICS_PORT };

static int triples(const struct mcp_plugstack *ps)
{
	return (ps->port_hi - ps->port_lo + 1) / 3;
}

int mcp_port_candidates(const struct mcp_plugstack *ps)
{
	int n = 1 + triples(ps);

	if (ps->fixed_ports)
		return 1;
	return n < MAX_CANDIDATES ? n : MAX_CANDIDATES;
}

void mcp_port_candidate(const struct mcp_plugstack *ps, unsigned long job_id,
			int candidate, struct mcr_ports *out)
{
	int t = triples(ps), i;

	*out = DEFAULT;
	if (ps->fixed_ports || candidate <= 0 || t <= 0)
		return;
	i = (int)((job_id + (unsigned long)candidate - 1) % (unsigned long)t);
	out->rpc = ps->port_lo + 3 * i;
	/* the default triple was candidate 0: its place in the range goes to
	 * the triple after it */
	if (out->rpc <= MCR_METRICS_PORT && out->rpc + 2 >= MCR_MASTER_PORT)
		out->rpc = ps->port_lo + 3 * ((i + 1) % t);
	out->metadata = out->rpc + 1;
	out->metrics = out->rpc + 2;
}

int mcp_ports_parse(const char *text, struct mcr_ports *out,
		    struct mcr_error *err)
{
	char end;

	if (!text || sscanf(text, "%d,%d,%d%c", &out->rpc, &out->metadata, &out->metrics,
			    &end) != 3 ||
	    out->rpc < 1 || out->rpc > 65535 || out->metadata < 1 || out->metadata > 65535 ||
	    out->metrics < 1 || out->metrics > 65535)
		return mcri_error_set(err, MCR_EINVAL,
				      "%s='%s' is not three ports RPC,METADATA,METRICS",
				      MCP_PORTS_VAR, text ? text : "");
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
	return ok;
}

static bool pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* the registry, locked; -1 when it cannot be used (then ports are claimed
 * on their bind alone) */
static int registry_open(const char *path)
{
	struct timespec pause = { 0, 20 * 1000000L };
	struct stat sb;
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);

	if (fd < 0)
		return -1;
	/* every user's masters share it: as its creator, open it to them */
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (sb.st_uid == geteuid() && (sb.st_mode & 0666) != 0666 && fchmod(fd, 0666) != 0)) {
		close(fd);
		return -1;
	}
	for (int waited = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited += 20) {
		if (errno != EWOULDBLOCK || waited >= LOCK_WAIT_MS) {
			close(fd);
			return -1;
		}
		nanosleep(&pause, NULL);
	}
	return fd;
}

struct reservation {
	int port;
	long pid;
};

/* the live reservations of the registry (at most REGISTRY_MAX) */
static size_t registry_read(int fd, struct reservation *r)
{
	char buf[REGISTRY_MAX * 24], *line, *save = NULL;
	ssize_t got = pread(fd, buf, sizeof(buf) - 1, 0);
	size_t n = 0;

	if (got <= 0)
		return 0;
	buf[got] = '\0';
	for (line = strtok_r(buf, "\n", &save); line && n < REGISTRY_MAX;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%d %ld", &r[n].port, &r[n].pid) == 2 && pid_alive(r[n].pid))
			n++;
	return n;
}

static void registry_write(int fd, const struct reservation *r, size_t n)
{
	char buf[REGISTRY_MAX * 24];
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%d %ld\n", r[i].port, r[i].pid);
	if (ftruncate(fd, 0) != 0)
		return;
	/* a torn write is emptied: it then reserves nothing */
	if (pwrite(fd, buf, len, 0) != (ssize_t)len && ftruncate(fd, 0) != 0)
		return;
}

int mcp_ports_claim(const struct mcr_ports *ports, const char *registry,
		    struct mcr_error *err)
{
	const int want[3] = { ports->rpc, ports->metadata, ports->metrics };
	static const char *const what[3] = { "RPC", "metadata", "metrics" };
	struct reservation *r = calloc(REGISTRY_MAX + 3, sizeof(*r));
	char host[256] = "";
	int fd = registry ? registry_open(registry) : -1, rc = -1;
	size_t n = 0;

	if (!r) {
		if (fd >= 0)
			close(fd);
		return mcri_error_nomem(err);
	}
	gethostname(host, sizeof(host) - 1);
	if (fd >= 0)
		n = registry_read(fd, r);
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < n; i++)
			if (r[i].port == want[k] && r[i].pid != (long)getpid()) {
				mcri_error_set(err, MCR_ESTATE,
					       "port %d (%s) on %s is taken: another job's mooncake_master (pid %ld) is starting on it; the srun that started this step tries other ports",
					       want[k], what[k], host, r[i].pid);
				goto out;
			}
		if (!port_free(want[k])) {
			mcri_error_set(err, MCR_ESTATE,
				       "port %d (%s) on %s is taken: another process listens on it; the srun that started this step tries other ports",
				       want[k], what[k], host);
			goto out;
		}
	}
	if (fd >= 0) {
		for (int k = 0; k < 3 && n < REGISTRY_MAX + 3; k++)
			r[n++] = (struct reservation){ want[k], (long)getpid() };
		if (n > REGISTRY_MAX) { /* the oldest go */
			memmove(r, r + (n - REGISTRY_MAX), REGISTRY_MAX * sizeof(*r));
			n = REGISTRY_MAX;
		}
		registry_write(fd, r, n);
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd); /* and with it the lock */
	free(r);
	return rc;
}
