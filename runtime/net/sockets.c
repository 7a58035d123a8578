/*
 * sockets.c - who listens on a port: the kernel's socket tables
 * (/proc/net/tcp, /proc/net/tcp6) read into the listening sockets of a few
 * ports, and the socket inodes a process holds (/proc/<pid>/fd). The
 * master step proves with them that the ports its job's tasks are given
 * are its own mooncake_master's (spank/guard.c). The parser takes any
 * text (a foreign process cannot write these files, but it is fuzzed all
 * the same): lines it cannot read are skipped, nothing is unbounded.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/net.h"

size_t mcri_listeners(const char *text, const int *ports, size_t nports,
		      struct mcri_listener *out, size_t max)
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
		if (sscanf(line, " %*u: %63s %63s %7s %*s %*s %*s %u %*u %llu", local, remote, state, &uid,
			   &inode) != 5 ||
		    strcmp(state, "0A") != 0 || !(colon = strrchr(local, ':')) ||
		    sscanf(colon + 1, "%4x", &port) != 1 || strlen(colon + 1) != 4)
			continue; /* the header, another state, a line that is no socket */
		for (size_t k = 0; k < nports; k++)
			if (ports[k] == (int)port) {
				out[n].port = (int)port;
				out[n].uid = uid;
				out[n].inode = inode;
				n++;
				break;
			}
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

size_t mcri_listening(const int *ports, size_t nports, struct mcri_listener *out, size_t max)
{
	static const char *const tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	size_t n = 0;

	for (size_t t = 0; t < 2; t++) {
		char *text = read_proc(tables[t], 8u << 20);

		if (text)
			n += mcri_listeners(text, ports, nports, out + n, max - n);
		free(text);
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
