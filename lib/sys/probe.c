/*
 * probe.c - the checks that tell a ready mooncake_master from a port that
 * merely accepts: TCP connect, and a minimal HTTP/1.0 client for /health
 * and /metadata. A few dozen lines of our own rather than libcurl, whose
 * global initialisation is not safe inside srun's threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sys/sys.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int remaining(long long deadline)
{
	long long left = deadline - now_ms();

	return left < 0 ? 0 : (int)left;
}

/* connected non-blocking socket or -1 with err set */
static int connect_to(const char *host, int port, long long deadline,
		      struct mcr_error *err)
{
	struct addrinfo hints = { 0 }, *res = NULL;
	char service[16];
	int fd = -1, rc, e = EIO;

	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(service, sizeof(service), "%d", port);
	rc = getaddrinfo(host, service, &hints, &res);
	if (rc != 0) {
		mcri_error_set(err, MCR_ESTATE, "cannot resolve %s: %s", host,
			       gai_strerror(rc));
		errno = EHOSTUNREACH;
		return -1;
	}
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		e = errno;
		mcri_error_set(err, MCR_ESTATE, "socket: %s", strerror(e));
		goto fail;
	}
	if (connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
		struct pollfd p = { fd, POLLOUT, 0 };
		int soerr = 0;
		socklen_t len = sizeof(soerr);

		if (errno != EINPROGRESS) {
			e = errno;
			mcri_error_set(err, MCR_ESTATE, "%s", strerror(e));
			goto fail;
		}
		rc = poll(&p, 1, remaining(deadline));
		if (rc == 0) {
			e = ETIMEDOUT;
			mcri_error_set(err, MCR_ESTATE, "timed out");
			goto fail;
		}
		if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 ||
		    soerr != 0) {
			e = soerr ? soerr : errno;
			mcri_error_set(err, MCR_ESTATE, "%s", strerror(e));
			goto fail;
		}
	}
	freeaddrinfo(res);
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	freeaddrinfo(res);
	errno = e;
	return -1;
}

int mcri_tcp_probe(const char *host, int port, int timeout_ms,
		   struct mcr_error *err)
{
	int fd = connect_to(host, port, now_ms() + timeout_ms, err);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int send_all(int fd, const char *buf, size_t len, long long deadline)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd p = { fd, POLLOUT, 0 };

			if (poll(&p, 1, remaining(deadline)) <= 0) {
				errno = ETIMEDOUT;
				return -1;
			}
			continue;
		}
		return -1;
	}
	return 0;
}

int mcri_http(const char *host, int port, const char *method, const char *path,
	      const char *body, int timeout_ms, int *status, char *resp,
	      size_t resp_size, struct mcr_error *err)
{
	long long deadline = now_ms() + timeout_ms;
	char buf[8192], *req = NULL;
	size_t got = 0;
	int fd, rc = -1, n, e = EIO;
	char *hdr_end, *sp;

	*status = 0;
	if (resp_size)
		resp[0] = '\0';
	fd = connect_to(host, port, deadline, err);
	if (fd < 0)
		return -1;
	n = asprintf(&req,
		     "%s %s HTTP/1.0\r\nHost: %s:%d\r\nUser-Agent: spank-mooncake\r\n"
		     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
		     method, path, host, port, body ? strlen(body) : 0,
		     body ? body : "");
	if (n < 0) {
		mcri_error_nomem(err);
		req = NULL;
		e = ENOMEM;
		goto out;
	}
	if (send_all(fd, req, (size_t)n, deadline)) {
		e = errno;
		mcri_error_set(err, MCR_ESTATE, "sending the request failed: %s", strerror(e));
		goto out;
	}
	while (got < sizeof(buf) - 1) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&p, 1, remaining(deadline)) <= 0) {
			e = ETIMEDOUT;
			mcri_error_set(err, MCR_ESTATE, "no answer within %d ms", timeout_ms);
			goto out;
		}
		r = recv(fd, buf + got, sizeof(buf) - 1 - got, 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0) {
			e = errno;
			mcri_error_set(err, MCR_ESTATE, "%s", strerror(e));
			goto out;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	if (strncmp(buf, "HTTP/1.", 7) != 0 || !(sp = strchr(buf, ' '))) {
		e = EPROTO;
		mcri_error_set(err, MCR_ESTATE, "the answer is not HTTP");
		goto out;
	}
	*status = atoi(sp + 1);
	hdr_end = strstr(buf, "\r\n\r\n");
	if (resp_size)
		snprintf(resp, resp_size, "%s", hdr_end ? hdr_end + 4 : "");
	rc = 0;
out:
	free(req);
	close(fd);
	if (rc)
		errno = e;
	return rc;
}
