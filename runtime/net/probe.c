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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/net.h"

long long mcri_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int remaining(long long deadline)
{
	long long left = deadline - mcri_now_ms();

	return left < 0 ? 0 : (int)left;
}

/* connected non-blocking socket or -1 with err set */
static int connect_to(const char *host, int port, long long deadline, struct mcr_error *err)
{
	struct addrinfo hints = { 0 }, *res = NULL;
	char service[16];
	int fd = -1, rc, e = EIO;

	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(service, sizeof(service), "%d", port);
	rc = getaddrinfo(host, service, &hints, &res);
	if (rc != 0) {
		mcri_error_set(err, MCR_ESTATE, "cannot resolve %s: %s", host, gai_strerror(rc));
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
		if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr != 0) {
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

int mcri_tcp_probe(const char *host, int port, int timeout_ms, struct mcr_error *err)
{
	int fd = connect_to(host, port, mcri_now_ms() + timeout_ms, err);

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

/* One request; the answer (headers and body) into *answer (heap,
 * NUL-terminated) and its length into *len: at most `max` bytes, the rest
 * dropped when `cut`, else an error (errno EMSGSIZE). */
static int exchange(const char *host, int port, const char *method, const char *path, const char *body, int timeout_ms,
		    size_t max, bool cut, char **answer, size_t *len, struct mcr_error *err)
{
	long long deadline = mcri_now_ms() + timeout_ms;
	char *buf = NULL, *req = NULL;
	size_t got = 0, cap = 0;
	int fd, rc = -1, n, e = EIO;

	*answer = NULL;
	*len = 0;
	fd = connect_to(host, port, deadline, err);
	if (fd < 0)
		return -1;
	n = asprintf(&req,
		     "%s %s HTTP/1.0\r\nHost: %s:%d\r\nUser-Agent: spank-mooncake\r\n"
		     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
		     method, path, host, port, body ? strlen(body) : 0, body ? body : "");
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
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;

		if (got + 1 >= cap) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *nb;

			if (ncap > max + 1)
				ncap = max + 1;
			if (got + 1 >= ncap && cut)
				break;
			if (got + 1 >= ncap) {
				e = EMSGSIZE;
				mcri_error_set(err, MCR_ESTATE, "the answer is larger than %zu bytes", max);
				goto out;
			}
			if (!(nb = realloc(buf, ncap))) {
				e = ENOMEM;
				mcri_error_nomem(err);
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		if (poll(&p, 1, remaining(deadline)) <= 0) {
			e = ETIMEDOUT;
			mcri_error_set(err, MCR_ESTATE, "no answer within %d ms", timeout_ms);
			goto out;
		}
		r = recv(fd, buf + got, cap - 1 - got, 0);
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
	if (mcri_http_answer(buf, NULL, NULL) != 0) {
		e = EPROTO;
		mcri_error_set(err, MCR_ESTATE, "the answer is not HTTP");
		goto out;
	}
	*answer = buf;
	*len = got;
	buf = NULL;
	rc = 0;
out:
	free(buf);
	free(req);
	close(fd);
	if (rc)
		errno = e;
	return rc;
}

int mcri_http_answer(const char *answer, int *status, const char **body)
{
	const char *sp = strchr(answer, ' '), *hdr_end;
	long code;
	char *end;

	if (strncmp(answer, "HTTP/1.", 7) != 0 || !sp)
		return -1;
	code = strtol(sp + 1, &end, 10);
	if (status)
		*status = end > sp + 1 && code >= 100 && code <= 999 ? (int)code : 0;
	hdr_end = strstr(answer, "\r\n\r\n");
	if (body)
		*body = hdr_end ? hdr_end + 4 : answer + strlen(answer);
	return 0;
}

/* status code and start of the body of an answer exchange() checked */
static const char *parse_answer(const char *answer, int *status)
{
	const char *body;

	mcri_http_answer(answer, status, &body);
	return body;
}

int mcri_http(const char *host, int port, const char *method, const char *path, const char *body, int timeout_ms,
	      int *status, char *resp, size_t resp_size, struct mcr_error *err)
{
	char *answer;
	size_t len;

	*status = 0;
	if (resp_size)
		resp[0] = '\0';
	/* the first 8 KiB of the answer are enough for /health and /metadata */
	if (exchange(host, port, method, path, body, timeout_ms, 8191, true, &answer, &len, err))
		return -1;
	if (resp_size)
		snprintf(resp, resp_size, "%s", parse_answer(answer, status));
	else
		parse_answer(answer, status);
	free(answer);
	return 0;
}

int mcri_http_get(const char *host, int port, const char *path, int timeout_ms, size_t max, int *status, char **body,
		  struct mcr_error *err)
{
	return mcri_http_whole(host, port, "GET", path, NULL, timeout_ms, max, status, body, err);
}

int mcri_http_whole(const char *host, int port, const char *method, const char *path, const char *request,
		    int timeout_ms, size_t max, int *status, char **body, struct mcr_error *err)
{
	char *answer;
	const char *start;
	size_t len;

	*status = 0;
	*body = NULL;
	if (exchange(host, port, method, path, request, timeout_ms, max, false, &answer, &len, err))
		return -1;
	start = parse_answer(answer, status);
	memmove(answer, start, strlen(start) + 1);
	*body = answer;
	return 0;
}
