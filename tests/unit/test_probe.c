/* test_probe.c - the probes of a master: HTTP against a small server of
 * the test's own, a server that does not answer, TCP that times out or
 * names no host. */
#include <netinet/in.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* a one-shot HTTP server on 127.0.0.1:<port> answering `reply` (NULL: it
 * accepts, then never answers) */
static pid_t http_server(const char *reply, int *port)
{
	struct sockaddr_in a = { 0 };
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	pid_t pid;

	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(s, 4), 0);
	getsockname(s, (struct sockaddr *)&a, &len);
	*port = ntohs(a.sin_port);
	pid = fork();
	if (pid == 0) {
		int c = accept(s, NULL, NULL);
		char buf[1024];

		if (!reply) /* accept, read, never answer */
			pause();
		if (c >= 0 && read(c, buf, sizeof(buf)) > 0 && write(c, reply, strlen(reply)) < 0)
			_exit(1);
		_exit(0);
	}
	close(s);
	return pid;
}

START_TEST(test_probes)
{
	struct mcr_error perr;
	char body[64];
	int port, status;
	pid_t pid;

	pid = http_server("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK", &port);
	ck_assert_int_eq(mcri_http("127.0.0.1", port, "GET", "/health", NULL, 2000, &status, body, sizeof(body), &perr),
			 0);
	ck_assert_int_eq(status, 200);
	ck_assert_str_eq(body, "OK");
	waitpid(pid, NULL, 0);
	pid = http_server("HTTP/1.0 404 Not Found\r\n\r\nmetadata not found", &port);
	ck_assert_int_eq(mcri_http("127.0.0.1", port, "GET", "/metadata?key=x", NULL, 2000, &status, body, sizeof(body),
				   &perr),
			 0);
	ck_assert_int_eq(status, 404);
	waitpid(pid, NULL, 0);
	/* a listener that is not HTTP */
	pid = http_server("SSH-2.0-OpenSSH\r\n", &port);
	ck_assert_int_eq(mcri_http("127.0.0.1", port, "GET", "/health", NULL, 2000, &status, body, sizeof(body), &perr),
			 -1);
	ck_assert_str_eq(perr.text, "the answer is not HTTP");
	waitpid(pid, NULL, 0);
	/* nothing listens any more on that port */
	ck_assert_int_eq(mcri_tcp_probe("127.0.0.1", port, 1000, &perr), -1);
	ck_assert_str_eq(perr.text, "Connection refused");
}
END_TEST

/* a listener that accepts and never answers: the request times out */
START_TEST(test_http_no_answer)
{
	struct mcr_error e = { 0 };
	char body[64];
	int port, status;
	pid_t pid = http_server(NULL, &port);

	ck_assert_int_eq(mcri_http("127.0.0.1", port, "GET", "/health", NULL, 300, &status, body, sizeof(body), &e),
			 -1);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ck_assert_str_eq(e.text, "no answer within 300 ms");
}
END_TEST

/* a listener whose queue is full: the connection is never accepted */
START_TEST(test_tcp_probe_times_out)
{
	struct sockaddr_in a = { 0 };
	socklen_t len = sizeof(a);
	struct mcr_error e = { 0 };
	int s = socket(AF_INET, SOCK_STREAM, 0), c[4];

	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(s, 0), 0);
	getsockname(s, (struct sockaddr *)&a, &len);
	for (int i = 0; i < 4; i++) {
		c[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		connect(c[i], (struct sockaddr *)&a, sizeof(a));
	}
	ck_assert_int_eq(mcri_tcp_probe("127.0.0.1", ntohs(a.sin_port), 300, &e), -1);
	for (int i = 0; i < 4; i++)
		close(c[i]);
	close(s);
	ck_assert_str_eq(e.text, "timed out");
}
END_TEST

START_TEST(test_tcp_probe_unresolvable)
{
	struct mcr_error e = { 0 };

	ck_assert_int_eq(mcri_tcp_probe("", 80, 300, &e), -1);
	ck_assert_int_eq(e.kind, MCR_ESTATE);
}
END_TEST

Suite *probe_suite(void)
{
	Suite *s = suite_create("probe");
	TCase *tc = tcase_create("probe");

	tcase_add_test(tc, test_probes);
	tcase_add_test(tc, test_http_no_answer);
	tcase_add_test(tc, test_tcp_probe_times_out);
	tcase_add_test(tc, test_tcp_probe_unresolvable);
	suite_add_tcase(s, tc);
	return s;
}
