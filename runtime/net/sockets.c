/*
 * sockets.c - who listens on a port: the kernel's listening TCP sockets
 * (socket diagnostics over netlink, or the tables /proc/net/tcp and
 * /proc/net/tcp6 where the kernel gives none) for a few ports, and the
 * socket inodes a process holds (/proc/<pid>/fd). The master step proves
 * with them that the ports its job's tasks are given are its own
 * mooncake_master's (spank/steps/keep.c). The parser of the tables takes any
 * text (a foreign process cannot write these files, but it is fuzzed all
 * the same): lines it cannot read are skipped, nothing is unbounded.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "net/net.h"

/* one port of `ports`? */
static bool wanted(int port, const int *ports, size_t nports)
{
	for (size_t k = 0; k < nports; k++)
		if (ports[k] == port)
			return true;
	return false;
}

size_t mcri_listeners(const char *text, const int *ports, size_t nports, struct mcri_listener *out, size_t max)
{
	size_t n = 0;

	for (const char *p = text, *nl; p && *p && n < max; p = nl ? nl + 1 : NULL) {
		char line[512], local[64], remote[64], state[8];
		unsigned uid;
		unsigned long long inode;
		unsigned port;
		const char *colon;
		size_t len;

		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (len >= sizeof(line))
			continue; /* no socket line is that long */
		memcpy(line, p, len);
		line[len] = '\0';
		/* "  0: 00000000:1FFC 00000000:0000 0A ... uid timeout inode ..." */
		if (sscanf(line, " %*u: %63s %63s %7s %*s %*s %*s %u %*u %llu", local, remote, state, &uid, &inode) !=
			    5 ||
		    strcmp(state, "0A") != 0 || !(colon = strrchr(local, ':')) ||
		    sscanf(colon + 1, "%4x", &port) != 1 || strlen(colon + 1) != 4)
			continue; /* the header, another state, a line that is no socket */
		if (wanted((int)port, ports, nports))
			out[n++] = (struct mcri_listener){ .port = (int)port, .uid = uid, .inode = inode };
	}
	return n;
}

/* the text of a /proc file, at most max bytes (heap), or NULL */
static char *read_proc(const char *path, size_t max)
{
	size_t got = 0;
	char *buf = malloc(max + 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (got < max) {
		ssize_t r = read(fd, buf + got, max - got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	return buf;
}

#define DIAG_DATAGRAMS 1024 /* of 16 KiB: a dump beyond is no host's listeners */

/* Reading /proc/net/tcp walks every connection of the machine's (all
 * network namespaces') hash table, milliseconds on a busy host, and the
 * master step looks every few milliseconds while its master starts; a
 * dump of the listening state walks the listening sockets alone. */
ssize_t mcri_listening_diag(int family, const int *ports, size_t nports, struct mcri_listener *out, size_t max)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} ask = {
		.nlh = { .nlmsg_len = sizeof(ask),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.req = { .sdiag_family = (unsigned char)family,
			 .sdiag_protocol = IPPROTO_TCP,
			 .idiag_states = 1u << TCP_LISTEN },
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct timeval bound = { .tv_sec = 1 }; /* the kernel answers at once */
	size_t found = 0;
	ssize_t rc = -1;
	int fd;

	if ((fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof(bound)) != 0 ||
	    sendto(fd, &ask, sizeof(ask), 0, (struct sockaddr *)&kernel, sizeof(kernel)) != (ssize_t)sizeof(ask))
		goto out;
	for (int datagrams = 0; datagrams < DIAG_DATAGRAMS;) {
		char buf[16384] __attribute__((aligned(__alignof__(struct nlmsghdr))));
		/* MSG_TRUNC: the datagram's whole length, were it cut */
		ssize_t got = recv(fd, buf, sizeof(buf), MSG_TRUNC);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || (size_t)got > sizeof(buf))
			goto out;
		datagrams++;
		/* the messages of this datagram, each whole within it */
		for (size_t at = 0; at + sizeof(struct nlmsghdr) <= (size_t)got;) {
			const struct nlmsghdr *h = (const struct nlmsghdr *)(buf + at);
			const struct inet_diag_msg *m;
			int port;

			if (h->nlmsg_len < sizeof(*h) || h->nlmsg_len > (size_t)got - at)
				goto out;
			at += NLMSG_ALIGN(h->nlmsg_len);
			if (h->nlmsg_type == NLMSG_DONE) {
				int error = 0;

				/* a dump that ended in an error says so here */
				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(error)))
					memcpy(&error, NLMSG_DATA(h), sizeof(error));
				if (error == 0)
					rc = (ssize_t)found;
				goto out;
			}
			if (h->nlmsg_type == NLMSG_ERROR)
				goto out; /* no inet_diag for this family */
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
				continue;
			m = NLMSG_DATA(h);
			port = ntohs(m->id.idiag_sport);
			if (found < max && wanted(port, ports, nports))
				out[found++] = (struct mcri_listener){ .port = port,
								       .uid = m->idiag_uid,
								       .inode = m->idiag_inode };
		}
	}
out:
	close(fd);
	return rc;
}

size_t mcri_listening_tables(int family, const int *ports, size_t nports, struct mcri_listener *out, size_t max)
{
	char *text = read_proc(family == AF_INET6 ? "/proc/net/tcp6" : "/proc/net/tcp", 8u << 20);
	size_t n = text ? mcri_listeners(text, ports, nports, out, max) : 0;

	free(text);
	return n;
}

size_t mcri_listening(const int *ports, size_t nports, struct mcri_listener *out, size_t max, unsigned *no_diag)
{
	static const int families[] = { AF_INET, AF_INET6 };
	unsigned none = 0, *skip = no_diag ? no_diag : &none;
	size_t n = 0;

	for (unsigned f = 0; f < 2; f++) {
		ssize_t got = -1;

		if (!(*skip & (1u << f)) &&
		    (got = mcri_listening_diag(families[f], ports, nports, out + n, max - n)) < 0)
			*skip |= 1u << f; /* the kernel gives none: its table from now on */
		n += got >= 0 ? (size_t)got : mcri_listening_tables(families[f], ports, nports, out + n, max - n);
	}
	return n;
}

bool mcri_pid_has_socket(long pid, unsigned long long inode)
{
	char path[64], link[64], want[48];
	struct dirent *de;
	DIR *d;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%ld/fd", pid);
	snprintf(want, sizeof(want), "socket:[%llu]", inode);
	if (!(d = opendir(path)))
		return false;
	while (!found && (de = readdir(d))) {
		char fd_path[400];
		ssize_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(fd_path, sizeof(fd_path), "%s/%s", path, de->d_name);
		len = readlink(fd_path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		found = strcmp(link, want) == 0;
	}
	closedir(d);
	return found;
}

/* /proc/PID/stat after the command name (which may hold ')' and blanks:
 * after the last ')'): " state ppid ...", into buf; NULL when it is gone */
static const char *proc_stat(long pid, char *buf, size_t size)
{
	char path[64], *p;
	ssize_t n;
	int fd;

	if (pid <= 0)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return (p = strrchr(buf, ')')) ? p + 1 : NULL;
}

long mcri_pid_parent(long pid)
{
	char buf[1024];
	const char *p = proc_stat(pid, buf, sizeof(buf));
	long ppid = 0;

	if (!p || sscanf(p, " %*c %ld", &ppid) != 1)
		return 0;
	return ppid;
}

unsigned long long mcri_pid_start(long pid)
{
	char buf[1024];
	const char *p = proc_stat(pid, buf, sizeof(buf));
	unsigned long long start = 0;

	/* field 22, starttime: p is at the blank before field 3, state */
	for (int field = 3; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start) != 1)
		return 0;
	return start;
}

bool mcri_tree_has_socket(long root, unsigned long long inode)
{
	struct dirent *de;
	DIR *d;
	bool found;

	if (mcri_pid_has_socket(root, inode))
		return true;
	/* a container's runtime (crun) runs the master as a descendant */
	if (!(d = opendir("/proc")))
		return false;
	found = false;
	while (!found && (de = readdir(d))) {
		long pid = strtol(de->d_name, NULL, 10), up = pid;

		if (pid <= 0 || pid == root)
			continue;
		for (int depth = 0; depth < 16 && up > 1 && up != root; depth++)
			up = mcri_pid_parent(up);
		found = up == root && mcri_pid_has_socket(pid, inode);
	}
	closedir(d);
	return found;
}
