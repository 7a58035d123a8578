/*
 * test_ports.c - the master's ports (ports.c): the triples an election
 * tries, and their claim on the infra node (run in a network namespace of
 * their own, tests/netns-run.sh: every port here is free unless a test
 * takes it).
 */
#include <check.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/net.h"
#include "steps/ports.h"

static struct mcri_plugstack ps;

static void plugstack(char **av)
{
	struct mcr_error err;
	int ac = 0;

	while (av && av[ac])
		ac++;
	ck_assert_int_eq(mcri_plugstack_parse(&ps, ac, av, &err), 0);
}

START_TEST(candidates_start_with_srtctls_ports)
{
	struct mcr_ports p;

	plugstack(NULL);
	ck_assert_int_eq(mcp_port_candidates(&ps), 32); /* 100 triples, bounded */
	mcp_port_candidate(&ps, 7, 0, &p);
	ck_assert_int_eq(p.rpc, 8700);
	ck_assert_int_eq(p.metadata, 8701);
	ck_assert_int_eq(p.metrics, 8702);
	/* then the range, from an offset of the job id */
	mcp_port_candidate(&ps, 7, 1, &p);
	ck_assert_int_eq(p.rpc, 8700 + 3 * 7);
	ck_assert_int_eq(p.metadata, p.rpc + 1);
	ck_assert_int_eq(p.metrics, p.rpc + 2);
	mcp_port_candidate(&ps, 7, 2, &p);
	ck_assert_int_eq(p.rpc, 8700 + 3 * 8);
	/* two jobs start on different triples */
	mcp_port_candidate(&ps, 8, 1, &p);
	ck_assert_int_eq(p.rpc, 8700 + 3 * 8);
}
END_TEST

START_TEST(candidates_skip_the_default_triple_and_wrap)
{
	char *av[] = { "port_range=8694-8705", NULL }; /* 4 triples: 8694 8697 8700 8703 */
	struct mcr_ports p;

	plugstack(av);
	ck_assert_int_eq(mcp_port_candidates(&ps), 5);
	mcp_port_candidate(&ps, 2, 1, &p); /* index 2: 8700, already tried */
	ck_assert_int_eq(p.rpc, 8703);
	mcp_port_candidate(&ps, 2, 2, &p); /* index 3 */
	ck_assert_int_eq(p.rpc, 8703);
	mcp_port_candidate(&ps, 2, 3, &p); /* wraps to index 0 */
	ck_assert_int_eq(p.rpc, 8694);
	for (int k = 1; k < 5; k++) {
		mcp_port_candidate(&ps, 2, k, &p);
		ck_assert_int_ge(p.rpc, 8694);
		ck_assert_int_le(p.metrics, 8705);
	}
	/* a range not aligned on 8700: two of its triples overlap the
	 * default one (8699-8701 and 8702-8704); neither is ever a candidate */
	{
		char *unaligned[] = { "port_range=8000-8999", NULL };

		plugstack(unaligned);
		for (unsigned long job = 0; job < 400; job++)
			for (int k = 1; k < mcp_port_candidates(&ps); k++) {
				mcp_port_candidate(&ps, job, k, &p);
				ck_assert_msg(p.rpc > 8702 || p.metrics < 8700, "job %lu candidate %d: %d-%d", job, k,
					      p.rpc, p.metrics);
			}
	}
}
END_TEST

START_TEST(fixed_ports_have_one_candidate)
{
	char *av[] = { "ports=fixed", NULL };
	struct mcr_ports p;

	plugstack(av);
	ck_assert_int_eq(mcp_port_candidates(&ps), 1);
	mcp_port_candidate(&ps, 7, 3, &p);
	ck_assert_int_eq(p.rpc, 8700);
}
END_TEST

START_TEST(port_arguments_are_checked)
{
	char *bad[][2] = { { "ports=some", NULL },
			   { "port_range=9000", NULL },
			   { "port_range=9000-9001", NULL },
			   { "port_range=80-90", NULL },
			   { "port_range=9000-70000", NULL } };
	const char *want[] = { "plugstack.conf: ports=some: write ports=auto",
			       "plugstack.conf: port_range=9000 must be LOW-HIGH",
			       "plugstack.conf: port_range=9000-9001 must be LOW-HIGH",
			       "plugstack.conf: port_range=80-90 must be LOW-HIGH",
			       "plugstack.conf: port_range=9000-70000 must be LOW-HIGH" };
	struct mcr_error err;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_int_eq(mcri_plugstack_parse(&ps, 1, bad[i], &err), -1);
		ck_assert_msg(strncmp(err.text, want[i], strlen(want[i])) == 0, "%s", err.text);
	}
}
END_TEST

START_TEST(ports_parse)
{
	struct mcr_ports p;
	struct mcr_error err;

	ck_assert_int_eq(mcp_ports_parse("8703,8704,8705", &p, NULL, &err), 0);
	ck_assert_int_eq(p.metadata, 8704);
	ck_assert_int_eq(mcp_ports_parse("8703,8704", &p, NULL, &err), -1);
	ck_assert_int_eq(mcp_ports_parse("8703,8704,8705x", &p, NULL, &err), -1);
	ck_assert_int_eq(mcp_ports_parse("0,8704,8705", &p, NULL, &err), -1);
	ck_assert_str_eq(
		err.text,
		"SLURM_MOONCAKE_MASTER_PORTS='0,8704,8705' is not three ports RPC,METADATA,METRICS (and an HA pool's two of etcd)");
	/* an HA pool's: five, the last two its etcd's */
	int etcd[2] = { -1, -1 };

	ck_assert_int_eq(mcp_ports_parse("8700,8701,8702", &p, etcd, &err), 0);
	ck_assert_int_eq(etcd[0], 0);
	ck_assert_int_eq(mcp_ports_parse("8700,8701,8702,8703,8704", &p, etcd, &err), 0);
	ck_assert_int_eq(p.metrics, 8702);
	ck_assert_int_eq(etcd[0], 8703);
	ck_assert_int_eq(etcd[1], 8704);
	ck_assert_int_eq(mcp_ports_parse("8700,8701,8702,8703,8704", &p, NULL, &err), -1);
	ck_assert_int_eq(mcp_ports_parse("8700,8701,8702,8703", &p, etcd, &err), -1);
	ck_assert_int_eq(mcp_ports_parse("8700,8701,8702,8703,8704,", &p, etcd, &err), -1);
	ck_assert_int_eq(mcp_ports_parse("8700,8701,8702,8703,70000", &p, etcd, &err), -1);
	ck_assert_int_eq(mcp_ports_parse("", &p, etcd, &err), -1);
	ck_assert_int_eq(mcp_ports_parse(NULL, &p, etcd, &err), -1);
}
END_TEST

/* an HA pool's etcd: the two ports after the master's, inside the range */
START_TEST(etcd_ports)
{
	struct mcri_plugstack range;
	struct mcr_error err;
	char *av[] = { "port_range=8700-8799" };
	int client, peer;

	ck_assert_int_eq(mcri_plugstack_parse(&range, 1, av, &err), 0);
	ck_assert_int_eq(mcp_etcd_ports(&range, &(struct mcr_ports){ 8700, 8701, 8702 }, &client, &peer), 0);
	ck_assert_int_eq(client, 8703);
	ck_assert_int_eq(peer, 8704);
	ck_assert_int_eq(mcp_etcd_ports(&range, &(struct mcr_ports){ 8796, 8797, 8798 }, &client, &peer), 0);
	ck_assert_int_eq(client, 8794);
	ck_assert_int_eq(peer, 8795);
	range.fixed_ports = true;
	ck_assert_int_eq(mcp_etcd_ports(&range, &(struct mcr_ports){ 8700, 8701, 8702 }, &client, &peer), 0);
	ck_assert_int_eq(client, 8703);
	ck_assert_int_eq(peer, 8704);
	/* a range of one triple has no room */
	range.fixed_ports = false;
	range.port_lo = 9000;
	range.port_hi = 9002;
	ck_assert_int_eq(mcp_etcd_ports(&range, &(struct mcr_ports){ 9000, 9001, 9002 }, &client, &peer), -1);
}
END_TEST

static char regdir[64], registry[96];

/* a registry in a directory of its own, as root's /run/spank-mooncake is */
static void fresh_registry(void)
{
	snprintf(regdir, sizeof(regdir), "/tmp/mck-ports.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(regdir));
	snprintf(registry, sizeof(registry), "%s/ports.1", regdir);
	plugstack(NULL);
}

static void remove_registry(void)
{
	unlink(registry);
	rmdir(regdir);
}

static int listener(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(fd, 1), 0);
	return fd;
}

static void put_registry(const char *text)
{
	FILE *f = fopen(registry, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(registry, 0600), 0);
}

static void read_registry(char *text, size_t size)
{
	FILE *f = fopen(registry, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(text, 1, size - 1, f);
	text[n] = '\0';
	fclose(f);
}

START_TEST(claim_free_ports_reserves_them)
{
	const struct mcr_ports p = { 8900, 8901, 8902 };
	struct mcr_error err;
	char text[256], want[256];
	long me = (long)getpid();
	unsigned long long start = mcri_pid_start(me);
	struct stat st;

	fresh_registry();
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 42, 1001, registry, &err), 0);
	read_registry(text, sizeof(text));
	ck_assert_uint_gt(start, 0);
	snprintf(want, sizeof(want), "8900 %ld %llu 42 1001\n8901 %ld %llu 42 1001\n8902 %ld %llu 42 1001\n", me, start,
		 me, start, me, start);
	ck_assert_str_eq(text, want);
	/* no one else may even open it (a lock held on it would stall claims) */
	ck_assert_int_eq(stat(registry, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	/* this process again (a retried task): its own reservation is no obstacle */
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 42, 1001, registry, &err), 0);
}
END_TEST

START_TEST(claim_refuses_a_port_someone_listens_on)
{
	const struct mcr_ports p = { 8910, 8911, 8912 };
	struct mcr_error err;
	int fd;

	fresh_registry();
	fd = listener(8911);
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 42, 1001, registry, &err), -1);
	ck_assert_msg(strstr(err.text, "port 8911 (metadata) on ") == err.text, "%s", err.text);
	ck_assert_ptr_nonnull(
		strstr(err.text,
		       " is taken: another process listens on it; the srun that started this step tries other ports"));
	close(fd);
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 42, 1001, registry, &err), 0);
}
END_TEST

/* the variable that asks for the claim is the user's: only ports a master
 * of this cluster may have are reserved by root (issue #17 review: a user
 * reserved every port of the node) */
START_TEST(claim_only_a_masters_ports)
{
	const struct mcr_ports low = { 22, 8701, 8702 }, out = { 9100, 9101, 9102 }, srtctl = { 8700, 8701, 8702 };
	struct mcr_error err;
	char *fixed[] = { "ports=fixed", NULL };

	fresh_registry();
	ck_assert_int_eq(mcp_ports_claim(&low, NULL, &ps, 42, 1001, registry, &err), -1);
	ck_assert_str_eq(
		err.text,
		"port 22 (RPC) is not a port of mooncake_master on this cluster (8700-8702, or port_range=8700-8999 of plugstack.conf): SLURM_MOONCAKE_MASTER_PORTS is set by the plugin alone; unset it");
	ck_assert_int_eq(mcp_ports_claim(&out, NULL, &ps, 42, 1001, registry, &err), -1);
	plugstack(fixed);
	ck_assert_int_eq(mcp_ports_claim(&srtctl, NULL, &ps, 42, 1001, registry, &err), 0);
	ck_assert_int_eq(mcp_ports_claim(&(struct mcr_ports){ 8900, 8901, 8902 }, NULL, &ps, 42, 1001, registry, &err),
			 -1);
}
END_TEST

/* another job's master is starting on the node: its reservation holds
 * until its process is gone; so does one of this job's own earlier
 * attempt (two attempts never share a triple, issue #17 review) */
START_TEST(claim_respects_a_live_reservation)
{
	const struct mcr_ports p = { 8920, 8921, 8922 };
	struct mcr_error err;
	pid_t other = fork();
	char text[512], line[128];

	if (other == 0) {
		pause();
		_exit(0);
	}
	fresh_registry();
	snprintf(line, sizeof(line), "8922 %ld %llu 7\n8940 %ld %llu 42\n", (long)other, mcri_pid_start(other),
		 (long)other, mcri_pid_start(other));
	put_registry(line);
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 42, 1001, registry, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.text, "port 8922 (metrics) on "));
	ck_assert_ptr_nonnull(
		strstr(err.text, "is taken: job 7 reserved it for its mooncake_master, etcd or lender (pid "));
	/* the same job's live reservation is an earlier attempt that runs */
	ck_assert_int_eq(mcp_ports_claim(&(struct mcr_ports){ 8940, 8941, 8942 }, NULL, &ps, 42, 1001, registry, &err),
			 -1);
	ck_assert_ptr_nonnull(strstr(err.text, "port 8940 (RPC) on "));
	ck_assert_ptr_nonnull(
		strstr(err.text, "is taken: job 42 reserved it for an earlier attempt of its mooncake_master"));
	/* other ports are this attempt's; the live reservations stay */
	ck_assert_int_eq(mcp_ports_claim(&(struct mcr_ports){ 8930, 8931, 8932 }, NULL, &ps, 42, 1001, registry, &err),
			 0);
	read_registry(text, sizeof(text));
	snprintf(line, sizeof(line), "8922 %ld %llu 7\n", (long)other, mcri_pid_start(other));
	ck_assert_ptr_nonnull(strstr(text, line));
	ck_assert_ptr_nonnull(strstr(text, "8940 "));
	ck_assert_ptr_nonnull(strstr(text, "8930 "));
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 43, 1001, registry, &err), 0);
}
END_TEST

/* a registry is trusted only as what the plugin writes: an entry whose
 * process has another start time (a pid reused), malformed lines, huge
 * ones, or a registry another user may write (or in a directory another
 * user may write) reserve nothing, and no content overflows a buffer */
START_TEST(claim_ignores_what_it_cannot_trust)
{
	const struct mcr_ports p = { 8950, 8951, 8952 };
	struct mcr_error err;
	char *junk = malloc(200000), line[256];
	FILE *f;

	fresh_registry();
	f = fopen(registry, "w");
	fprintf(f, "8950 %ld 1 7\n", (long)getppid());                             /* a live pid, another start */
	fprintf(f, "8951 %ld %llu\n", (long)getppid(), mcri_pid_start(getppid())); /* no job: an earlier format */
	fprintf(f, "70000 %ld %llu 7\n", (long)getppid(), mcri_pid_start(getppid()));
	fprintf(f, "8952 -5 7 7\nnonsense\n");
	memset(junk, '9', 199999);
	junk[199999] = '\0';
	fputs(junk, f); /* one line far past any bound */
	fclose(f);
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 42, 1001, registry, &err), 0);
	/* what remains is this claim alone, well formed */
	f = fopen(registry, "r");
	ck_assert_int_eq(fread(junk, 1, 199999, f) < 200, 1);
	fclose(f);
	/* a registry others may write is not used at all */
	snprintf(line, sizeof(line), "8950 %ld %llu 7\n", (long)getppid(), mcri_pid_start(getppid()));
	put_registry(line);
	ck_assert_int_eq(chmod(registry, 0666), 0);
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 42, 1001, registry, &err), 0);
	/* nor one in a directory others may write */
	ck_assert_int_eq(chmod(registry, 0600), 0);
	ck_assert_int_eq(chmod(regdir, 0777), 0);
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 42, 1001, registry, &err), 0);
	ck_assert_int_eq(chmod(regdir, 0700), 0);
	/* a live entry of another job's is respected, so the two above really
	 * did not read it */
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 42, 1001, registry, &err), -1);
	free(junk);
}
END_TEST

/* a job at its share of the registry: a lender's claim (one port) and a
 * master's (three) rest on their bind alone, the registry unchanged, and
 * stderr names exactly the ports claimed */
START_TEST(claim_past_a_jobs_share_rests_on_the_bind)
{
	const struct mcr_ports p = { 8970, 8971, 8972 };
	struct mcr_error err;
	pid_t other = fork();
	char text[2048], before[2048], said[1024], line[128], path[] = "/tmp/mck-ports-stderr.XXXXXX";
	int out = mkstemp(path), saved = dup(2);
	ssize_t n;

	if (other == 0) {
		pause();
		_exit(0);
	}
	ck_assert(out >= 0 && saved >= 0);
	fresh_registry();
	text[0] = '\0';
	for (int k = 0; k < MCP_REGISTRY_PER_JOB; k++) {
		snprintf(line, sizeof(line), "%d %ld %llu 42 1001\n", 8940 + k, (long)other, mcri_pid_start(other));
		strcat(text, line);
	}
	put_registry(text);
	read_registry(before, sizeof(before));
	ck_assert_int_eq(dup2(out, 2), 2);
	ck_assert_int_eq(mcp_lender_port_claim(8080, &ps, 42, 1001, registry, &err), 0);
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 42, 1001, registry, &err), 0);
	ck_assert_int_eq(dup2(saved, 2), 2);
	n = pread(out, said, sizeof(said) - 1, 0);
	ck_assert_int_gt(n, 0);
	said[n] = '\0';
	close(out);
	close(saved);
	unlink(path);
	ck_assert_msg(
		strstr(said,
		       ", 10 of job 42's and 10 of uid 1001's (at most 512, 10 per job, 128 per user): port(s) 8080 rest on their bind alone\n"),
		"%s", said);
	ck_assert_msg(strstr(said, "): port(s) 8970,8971,8972 rest on their bind alone\n"), "%s", said);
	read_registry(text, sizeof(text));
	ck_assert_str_eq(text, before);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
}
END_TEST

/* without a usable registry the bind alone decides */
START_TEST(claim_without_registry)
{
	const struct mcr_ports p = { 8960, 8961, 8962 };
	struct mcr_error err;

	plugstack(NULL);
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 42, 1001, NULL, &err), 0);
	ck_assert_int_eq(mcp_ports_claim(&p, NULL, &ps, 42, 1001, "/nonexistent/dir/registry", &err), 0);
}
END_TEST

/* the ports registry's lines (spank/steps/ports.c): only well-formed entries,
 * at most MCP_REGISTRY_MAX, and what is formatted parses the same */
START_TEST(registry_lines)
{
	char text[] = "8700 12 34 5\n8701 12 34 5 extra\n0 1 1 5\n65536 1 1 5\n8702 0 5 5\n8703 5 0 5\n"
		      "8705 5 5 0\n8706 5 5\nx\n\n8704 7 8 9";
	struct mcp_reservation r[4], again[4];
	char buf[64];

	ck_assert_uint_eq(mcp_registry_parse(text, r, 4), 2);
	ck_assert_int_eq(r[0].port, 8700);
	ck_assert_int_eq(r[0].pid, 12);
	ck_assert_uint_eq(r[0].start, 34);
	ck_assert_int_eq(r[1].port, 8704);
	ck_assert_uint_eq(r[1].job, 9);
	ck_assert_uint_eq(mcp_registry_format(r, 2, buf, sizeof(buf)), strlen("8700 12 34 5\n8704 7 8 9\n"));
	ck_assert_str_eq(buf, "8700 12 34 5\n8704 7 8 9\n");
	ck_assert_uint_eq(mcp_registry_parse(buf, again, 4), 2);
	for (int i = 0; i < 2; i++)
		ck_assert(r[i].port == again[i].port && r[i].pid == again[i].pid && r[i].start == again[i].start &&
			  r[i].job == again[i].job);
	/* what does not fit is left out, whole lines only */
	ck_assert_uint_eq(mcp_registry_format(r, 2, buf, 17), strlen("8700 12 34 5\n"));
	ck_assert_str_eq(buf, "8700 12 34 5\n");
}
END_TEST

Suite *ports_suite(void)
{
	Suite *s = suite_create("ports");
	TCase *tc = tcase_create("ports");

	tcase_add_checked_fixture(tc, NULL, remove_registry);
	tcase_add_test(tc, candidates_start_with_srtctls_ports);
	tcase_add_test(tc, candidates_skip_the_default_triple_and_wrap);
	tcase_add_test(tc, fixed_ports_have_one_candidate);
	tcase_add_test(tc, port_arguments_are_checked);
	tcase_add_test(tc, ports_parse);
	tcase_add_test(tc, etcd_ports);
	tcase_add_test(tc, claim_free_ports_reserves_them);
	tcase_add_test(tc, claim_refuses_a_port_someone_listens_on);
	tcase_add_test(tc, claim_respects_a_live_reservation);
	tcase_add_test(tc, claim_without_registry);
	tcase_add_test(tc, claim_past_a_jobs_share_rests_on_the_bind);
	tcase_add_test(tc, claim_only_a_masters_ports);
	tcase_add_test(tc, claim_ignores_what_it_cannot_trust);
	tcase_add_test(tc, registry_lines);
	suite_add_tcase(s, tc);
	return s;
}
