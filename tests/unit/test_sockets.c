/* test_sockets.c - what runtime/net/sockets.c reads of /proc: a process's
 * parent and start time (the identity of a starter, a master step's srun,
 * a registry entry) and whose a listening socket is (the guard's proof).
 * Nothing else tested these: a start time read one field too far (the
 * process's size, which changes) once made every starter look dead. */
#include <check.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/net.h"

/* field 22 of /proc/PID/stat, read another way: every field after the
 * last ')' in turn */
static unsigned long long starttime(long pid)
{
	char path[64], buf[2048], *p, *save = NULL;
	unsigned long long v = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')') + 2;
	for (int field = 3; (p = strtok_r(p, " ", &save)); p = NULL, field++)
		if (field == 22) {
			v = strtoull(p, NULL, 10);
			break;
		}
	return v;
}

START_TEST(start_time_is_field_22_and_stays)
{
	long me = (long)getpid();
	unsigned long long before = mcri_pid_start(me);
	char *big = malloc(64 << 20);

	ck_assert_uint_gt(before, 0);
	ck_assert_uint_eq(before, starttime(me));
	/* the process grows: its start time does not change */
	memset(big, 1, 64 << 20);
	ck_assert_uint_eq(mcri_pid_start(me), before);
	free(big);
	ck_assert_uint_eq(mcri_pid_start(getppid()), starttime(getppid()));
	ck_assert_uint_eq(mcri_pid_start(0), 0);
	ck_assert_uint_eq(mcri_pid_start(-1), 0);
}
END_TEST

START_TEST(parent_of_a_child)
{
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	ck_assert_int_eq(mcri_pid_parent(child), (long)getpid());
	/* a child started after this process */
	ck_assert_uint_ge(mcri_pid_start(child), mcri_pid_start(getpid()));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ck_assert_int_eq(mcri_pid_parent(child), 0);
	ck_assert_uint_eq(mcri_pid_start(child), 0);
}
END_TEST

/* a listener of this process is found, and is this process's (and its
 * parent's tree's), not a child's that has none */
START_TEST(listener_and_its_owner)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct mcri_listener l[8];
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port, ready[2];
	char c;
	size_t n;
	pid_t child;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(fd, 1), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	n = mcri_listening(&port, 1, l, 8, NULL);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(l[0].port, port);
	ck_assert_uint_eq(l[0].uid, getuid());
	ck_assert(mcri_tree_has_socket((long)getpid(), l[0].inode));
	ck_assert(mcri_tree_has_socket((long)getppid(), l[0].inode)); /* under it */
	ck_assert_int_eq(pipe(ready), 0);
	child = fork();
	if (child == 0) {
		close(fd);
		close(ready[0]);
		close(ready[1]); /* it holds the socket no more */
		pause();
		_exit(0);
	}
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 0);
	close(ready[0]);
	ck_assert(!mcri_tree_has_socket((long)child, l[0].inode));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(fd);
	ck_assert_uint_eq(mcri_listening(&port, 1, l, 8, NULL), 0);
}
END_TEST

/* the kernel's socket diagnostics and its tables tell the same listeners,
 * IPv4 and IPv6, with the same owner and inode; where this kernel gives
 * diagnostics (netlink answers) they are what mcri_listening asked */
START_TEST(diagnostics_and_tables_agree)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct mcri_listener l[8], t4[8], t6[8], d[8];
	socklen_t len = sizeof(a), len6 = sizeof(a6);
	int fd = socket(AF_INET, SOCK_STREAM, 0), fd6 = socket(AF_INET6, SOCK_STREAM, 0), ports[2];
	int nl = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_SOCK_DIAG);
	unsigned no_diag = 0;
	size_t n, n4, n6;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(fd, 1), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	ports[0] = ntohs(a.sin_port);
	ports[1] = 0;
	/* IPv6 where this machine has it (a build sandbox may not) */
	if (fd6 >= 0 && bind(fd6, (struct sockaddr *)&a6, sizeof(a6)) == 0) {
		ck_assert_int_eq(listen(fd6, 1), 0);
		ck_assert_int_eq(getsockname(fd6, (struct sockaddr *)&a6, &len6), 0);
		ports[1] = ntohs(a6.sin6_port);
	}
	n = mcri_listening(ports, 2, l, 8, &no_diag);
	n4 = mcri_listening_tables(AF_INET, ports, 2, t4, 8);
	n6 = mcri_listening_tables(AF_INET6, ports, 2, t6, 8);
	ck_assert_uint_eq(n4, 1);
	ck_assert_uint_eq(n6, ports[1] ? 1 : 0);
	ck_assert_uint_eq(n, n4 + n6);
	ck_assert_int_eq(l[0].port, ports[0]);
	ck_assert_uint_eq(l[0].uid, t4[0].uid);
	ck_assert_uint_eq(l[0].inode, t4[0].inode);
	if (ports[1]) {
		ck_assert_int_eq(l[1].port, ports[1]);
		ck_assert_uint_eq(l[1].uid, t6[0].uid);
		ck_assert_uint_eq(l[1].inode, t6[0].inode);
		ck_assert(mcri_pid_has_socket((long)getpid(), l[1].inode));
	}
	if (nl >= 0) {
		/* this kernel gives diagnostics: IPv4's came from them */
		close(nl);
		ck_assert_int_eq(no_diag & 1u, 0);
		ck_assert_int_eq(mcri_listening_diag(AF_INET, ports, 2, d, 8), 1);
		ck_assert_uint_eq(d[0].inode, t4[0].inode);
	}
	/* a family marked without diagnostics is read from its table */
	no_diag = 3;
	ck_assert_uint_eq(mcri_listening(ports, 2, l, 8, &no_diag), n);
	ck_assert_uint_eq(l[0].inode, t4[0].inode);
	/* out holds at most max: the first, and nothing past it */
	l[1].port = -1;
	ck_assert_uint_eq(mcri_listening(ports, 2, l, 1, NULL), 1);
	ck_assert_int_eq(l[0].port, ports[0]);
	ck_assert_int_eq(l[1].port, -1);
	close(fd);
	if (fd6 >= 0)
		close(fd6);
}
END_TEST

Suite *sockets_suite(void)
{
	Suite *s = suite_create("sockets");
	TCase *tc = tcase_create("sockets");

	tcase_add_test(tc, start_time_is_field_22_and_stays);
	tcase_add_test(tc, parent_of_a_child);
	tcase_add_test(tc, listener_and_its_owner);
	tcase_add_test(tc, diagnostics_and_tables_agree);
	suite_add_tcase(s, tc);
	return s;
}
