/*
 * test_ha_etcd.c - an HA pool's etcd member, as its keeper runs it
 * (spank/steps/ha.c): a stand-in etcd (a script that listens on the two
 * ports its command line names and records that command line) is started
 * with its data in a new directory, proved the owner of its ports,
 * stopped, and its data removed; a port another process holds first
 * stops it, naming the port; a binary that cannot run says so in its log.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "plugin_case.h"
#include "steps/ha.h"

#define CLIENT_PORT 8990
#define PEER_PORT 8991

/* the stand-in etcd: listens on the ports of --listen-client-urls and
 * --listen-peer-urls, writes its command line to argv.txt, waits */
static const char FAKE_ETCD[] = "#!/usr/bin/env python3\n"
				"import re, socket, sys, time\n"
				"args = ' '.join(sys.argv[1:])\n"
				"open('argv.txt', 'w').write(args + '\\n')\n"
				"socks = []\n"
				"for flag in ('--listen-client-urls', '--listen-peer-urls'):\n"
				"    host, port = re.search(flag + r'=http://([^:]+):(\\d+)', args).groups()\n"
				"    s = socket.socket()\n"
				"    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
				"    s.bind((host, int(port)))\n"
				"    s.listen(1)\n"
				"    socks.append(s)\n"
				"time.sleep(600)\n";

/* this node (127.0.0.1) the first of three members */
static void part(struct mcp_ha_part *p, const char *etcd)
{
	memset(p, 0, sizeof(*p));
	p->ha = (struct mcri_ha){ .masters = 3,
				  .etcd_members = 3,
				  .etcd_client = CLIENT_PORT,
				  .etcd_peer = PEER_PORT,
				  .member = { { "n1", "127.0.0.1" }, { "n2", "127.0.0.2" }, { "n3", "127.0.0.3" } } };
	snprintf(p->token, sizeof(p->token), "mooncake-4301-1");
	snprintf(p->etcd, sizeof(p->etcd), "%s/%s", case_dir, etcd);
}

static const char *job_dir(void)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/logs", case_dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	return path;
}

/* a whole small file (heap; NULL when unreadable) */
static char *slurp_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	if (fread(buf, 1, 65535, f) == 0 && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* a listener of this process on addr:port */
static int listen_on(const char *addr, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_eq(inet_pton(AF_INET, addr, &a.sin_addr), 1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(fd, 1), 0);
	return fd;
}

START_TEST(etcd_member_started_proved_and_stopped)
{
	struct mcp_ha_part p;
	struct mcr_error err;
	char path[700], argv[4096] = "", data[PATH_MAX];
	FILE *f;

	in_tmpdir();
	snprintf(path, sizeof(path), "%s/fake-etcd", case_dir);
	testdir_write(path, FAKE_ETCD);
	ck_assert_int_eq(chmod(path, 0755), 0);
	part(&p, "fake-etcd");
	ck_assert_msg(mcp_ha_etcd_start(&p, job_dir(), case_dir, 20, &err) == 0, "%s", err.text);
	ck_assert_int_gt(p.pid, 0);
	snprintf(data, sizeof(data), "%s", p.data_dir);
	ck_assert_msg(strncmp(data, case_dir, strlen(case_dir)) == 0 &&
			      strstr(data, "/mooncake-etcd.mooncake-4301-1.") != NULL,
		      "%s", data);
	ck_assert(access(data, F_OK) == 0);
	f = fopen("argv.txt", "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(argv, sizeof(argv), f));
	fclose(f);
	ck_assert_ptr_nonnull(strstr(argv, "--name m0 "));
	ck_assert_ptr_nonnull(strstr(argv, "--listen-client-urls=http://127.0.0.1:8990 "));
	ck_assert_ptr_nonnull(strstr(
		argv, "--initial-cluster=m0=http://127.0.0.1:8991,m1=http://127.0.0.2:8991,m2=http://127.0.0.3:8991 "));
	ck_assert_ptr_nonnull(strstr(argv, "--initial-cluster-token=mooncake-4301-1 "));
	mcp_ha_etcd_stop(&p, true);
	ck_assert_int_eq(p.pid, 0);
	ck_assert_msg(access(data, F_OK) != 0, "%s is left", data);
}
END_TEST

/* another process listens on the client port first: the member is
 * stopped, its data removed, the port and its owner named */
START_TEST(etcd_member_on_a_taken_port)
{
	struct mcp_ha_part p;
	struct mcr_error err;
	char path[700];
	int fd;

	in_tmpdir();
	snprintf(path, sizeof(path), "%s/fake-etcd", case_dir);
	testdir_write(path, FAKE_ETCD);
	ck_assert_int_eq(chmod(path, 0755), 0);
	/* on another address of the node: both bind, and the port is not
	 * the member's alone (a listener on all of them fails its bind:
	 * it ends at once) */
	fd = listen_on("127.0.0.2", CLIENT_PORT);
	part(&p, "fake-etcd");
	ck_assert_int_eq(mcp_ha_etcd_start(&p, job_dir(), case_dir, 10, &err), -1);
	ck_assert_msg(strstr(err.text, "port 8990 on ") && strstr(err.text, "is another process's (uid "), "%s",
		      err.text);
	ck_assert_msg(strstr(err.text, "nothing of the HA pool is started there; find the process with ss -ltnp"), "%s",
		      err.text);
	ck_assert_int_eq(p.pid, 0);
	ck_assert_str_eq(p.data_dir, "");
	close(fd);
}
END_TEST

/* an etcd binary that cannot run: its log says why, with the fix */
START_TEST(etcd_member_that_cannot_run)
{
	struct mcp_ha_part p;
	struct mcr_error err;
	char log[700], *text;
	const char *dir;

	in_tmpdir();
	dir = job_dir();
	part(&p, "no-such-etcd");
	ck_assert_int_eq(mcp_ha_etcd_start(&p, dir, case_dir, 10, &err), -1);
	ck_assert_msg(strstr(err.text, "the etcd member m0 of the job's HA pool ended at once on "), "%s", err.text);
	snprintf(log, sizeof(log), "%s/mooncake_etcd.0.log", dir);
	text = slurp_file(log);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "mooncake: cannot run ") && strstr(text, "install etcd (Debian: etcd-server)"), "%s",
		      text);
	free(text);
	ck_assert_str_eq(p.data_dir, "");
}
END_TEST

Suite *ha_etcd_suite(void)
{
	Suite *s = suite_create("plugin-ha-etcd");
	TCase *tc = tcase_create("etcd");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, remove_tmpdir);
	tcase_add_test(tc, etcd_member_started_proved_and_stopped);
	tcase_add_test(tc, etcd_member_on_a_taken_port);
	tcase_add_test(tc, etcd_member_that_cannot_run);
	suite_add_tcase(s, tc);
	return s;
}
