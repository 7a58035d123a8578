/* fake_master.c - see fake_master.h */
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_master.h"
#include "plugin/handover.h"
#include "steps/keep.h"
#include "steps/step.h"

static int listen_on(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_ANY);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 16) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void answer(int fd, bool metadata, char *value, size_t size)
{
	char req[4096], resp[4300];
	ssize_t n = recv(fd, req, sizeof(req) - 1, 0);
	const char *body = "OK", *status = "200 OK";
	char *b;

	if (n <= 0)
		return;
	req[n] = '\0';
	if (metadata && strstr(req, "/metadata?key=")) {
		if (strncmp(req, "PUT ", 4) == 0 && (b = strstr(req, "\r\n\r\n"))) {
			snprintf(value, size, "%s", b + 4);
			body = "metadata updated";
		} else {
			body = value;
		}
	} else if (!strstr(req, "/health")) {
		status = "404 Not Found";
		body = "not found";
	}
	n = snprintf(resp, sizeof(resp), "HTTP/1.1 %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s", status,
		     strlen(body), body);
	if (send(fd, resp, (size_t)n, MSG_NOSIGNAL) < 0)
		return;
}

void fake_master_serve(const struct mcr_ports *ports, const char *token)
{
	struct pollfd p[3];
	char value[256];
	const int port[3] = { ports->rpc, ports->metadata, ports->metrics };

	snprintf(value, sizeof(value), "%s", token);
	for (int k = 0; k < 3; k++) {
		p[k].fd = listen_on(port[k]);
		p[k].events = POLLIN;
		if (p[k].fd < 0)
			_exit(3);
	}
	/* for the readiness benchmark: when the last port listens */
	if (getenv("FAKE_MASTER_STAMP")) {
		struct timespec ts;
		FILE *f = fopen(getenv("FAKE_MASTER_STAMP"), "w");

		clock_gettime(CLOCK_REALTIME, &ts);
		if (f) {
			fprintf(f, "%.6f\n", (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
			fclose(f);
		}
	}
	for (;;) {
		if (poll(p, 3, -1) < 0)
			continue;
		for (int k = 0; k < 3; k++) {
			int c;

			if (!(p[k].revents & POLLIN) || (c = accept(p[k].fd, NULL, NULL)) < 0)
				continue;
			if (k > 0)
				answer(c, k == 1, value, sizeof(value));
			close(c);
		}
	}
}

pid_t fake_master_start(const struct mcr_ports *ports, const char *token)
{
	pid_t pid = fork();

	if (pid == 0)
		fake_master_serve(ports, token);
	/* until it listens */
	for (int i = 0; pid > 0 && i < 200; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)ports->metrics) };
		int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
		close(fd);
		if (ok)
			return pid;
		usleep(10000);
	}
	if (pid > 0)
		fake_master_stop(pid);
	return -1;
}

void fake_master_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int fake_master_main(int argc, char **argv)
{
	struct mcr_ports p;
	const char *guard = getenv(MCP_GUARD_VAR);
	struct mcr_error err;
	struct mcp_guard g;
	bool late;

	if (argc != 5 || (strcmp(argv[1], "fake-master") && strcmp(argv[1], "fake-master-late")))
		return -1;
	late = strcmp(argv[1], "fake-master-late") == 0;
	p = (struct mcr_ports){ atoi(argv[2]), atoi(argv[3]), atoi(argv[4]) };
	/* as the master step's task does: it stays as the keeper, its child
	 * becomes the master */
	if (guard && (mcp_guard_parse(guard, 0, &g, &err) || mcp_master_keep(&g, &err))) {
		fprintf(stderr, "%s\n", err.text);
		return 1;
	}
	if (late) /* a master that binds late: another process may have its ports by then */
		sleep(3);
	fake_master_serve(&p, "");
	return 1;
}
