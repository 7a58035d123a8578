/* test_names.c - the names a recipe and the plugin put together: Slurm
 * hostlists, the job directory's template, host:port, what each accepts
 * and what it refuses. */

#include "testutil.h"

START_TEST(test_hostlist)
{
	static const struct {
		const char *list;
		const char *want; /* space-joined */
	} ok[] = {
		{ "n1", "n1" },
		{ "n[1-3,7],gpu-01", "n1 n2 n3 n7 gpu-01" },
		{ "gpu-[08-11]", "gpu-08 gpu-09 gpu-10 gpu-11" },
		{ "rack[1-2]-n[1-2]", "rack1-n1 rack1-n2 rack2-n1 rack2-n2" },
		{ "a,b,,c", "a b c" },
		{ "node[9-10]x", "node9x node10x" },
	};
	static const char *const bad[] = { "n[1-", "n[]", "n[3-1]", "n[a-b]", "n]1[", "n[1-2" };
	struct mcr_error err = { 0 };
	char **hosts;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct mcri_buf b = { 0 };
		char *joined;

		ck_assert_int_eq(mcri_hostlist_expand(ok[i].list, 1000, &hosts, &err), 0);
		for (char **h = hosts; *h; h++)
			mcri_buf_printf(&b, "%s%s", h == hosts ? "" : " ", *h);
		joined = mcri_buf_take(&b);
		ck_assert_str_eq(joined, ok[i].want);
		free(joined);
		mcr_strv_free(hosts);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(mcri_hostlist_expand(bad[i], 1000, &hosts, &err) == -1, "%s accepted", bad[i]);
	ck_assert_int_eq(mcri_hostlist_expand("n[1-100000]", 1000, &hosts, &err), -1);
	ck_assert_str_eq(errmsg(&err), "mooncake: the host list names more than 1000 hosts");
}
END_TEST

START_TEST(test_dir_template)
{
	struct mcr_error err = { 0 };
	char *d;

	d = mcri_expand_dir_template(MCRI_DEFAULT_JOB_DIR, "4301", "alice", "/home/alice/run", &err);
	ck_assert_str_eq(d, "/home/alice/run/outputs/4301/logs");
	free(d);
	d = mcri_expand_dir_template("./outputs/{job_id}/logs/", "7", "u", "/s", &err);
	ck_assert_str_eq(d, "/s/./outputs/7/logs");
	free(d);
	d = mcri_expand_dir_template("/scratch/{user}/{job_id}", "7", "bob", "/s", &err);
	ck_assert_str_eq(d, "/scratch/bob/7");
	free(d);
}
END_TEST

START_TEST(test_dir_template_unknown_placeholder)
{
	struct mcr_error err = { 0 };

	ck_assert_ptr_null(mcri_expand_dir_template("/x/{jobid}", "7", "u", "/s", &err));
	ck_assert_str_eq(
		errmsg(&err),
		"mooncake: the job directory '/x/{jobid}' has an unknown placeholder at '{jobid}'; use {job_id}, {user} and {submit_dir}");
}
END_TEST

START_TEST(test_hostlist_over_max)
{
	struct mcr_error e = { 0 };
	char **hosts;

	ck_assert_int_eq(mcri_hostlist_expand("a,b,c", 2, &hosts, &e), -1);
	ck_assert_str_eq(errmsg(&e), "mooncake: the host list names more than 2 hosts");
}
END_TEST

START_TEST(test_hostlist_null)
{
	struct mcr_error e = { 0 };
	char **hosts;

	ck_assert_int_eq(mcri_hostlist_expand(NULL, 2, &hosts, &e), -1);
	ck_assert_str_eq(errmsg(&e), "mooncake: empty host list");
}
END_TEST

START_TEST(test_hostlist_only_commas)
{
	struct mcr_error e = { 0 };
	char **hosts;

	ck_assert_int_eq(mcri_hostlist_expand(",,", 2, &hosts, &e), -1);
	ck_assert_str_eq(errmsg(&e), "mooncake: empty host list ',,'");
}
END_TEST

START_TEST(test_dir_template_empty)
{
	struct mcr_error e = { 0 };

	ck_assert_ptr_null(mcri_expand_dir_template("", "1", "u", "/s", &e));
	ck_assert_str_eq(errmsg(&e), "mooncake: the job directory template is empty");
}
END_TEST

/* host:port, the one reader: what it accepts */
static const struct {
	const char *text, *host;
	int port;
} HOST_PORT_OK[] = {
	{ "10.0.0.5:8700", "10.0.0.5", 8700 }, { "h:1", "h", 1 }, { "h:65535", "h", 65535 },
	{ "a:b:8700", "a:b", 8700 }, /* the last colon, everywhere */
	{ "[::1]:8700", "[::1]", 8700 },
};

START_TEST(test_host_port_accepted)
{
	struct mcr_error e = { 0 };
	char *host = NULL;
	int port = 0;

	ck_assert_int_eq(mcri_host_port_parse(HOST_PORT_OK[_i].text, &host, &port, &e), 0);
	ck_assert_msg(strcmp(host, HOST_PORT_OK[_i].host) == 0 && port == HOST_PORT_OK[_i].port, "%s -> %s %d",
		      HOST_PORT_OK[_i].text, host, port);
	free(host);
}
END_TEST

/* ... and what it refuses (a sign or blank in the port was accepted by
 * one of the three readers it replaces) */
static const char *const HOST_PORT_BAD[] = {
	"nohost", "h:",     ":8700",  "h:0",    "h:65536", "h:+80",
	"h: 80",  "h:\t80", "h x:80", "h/x:80", "h:80x",   "h:99999999999999999999",
};

START_TEST(test_host_port_refused)
{
	struct mcr_error e = { 0 };
	char want[128];

	ck_assert_int_eq(mcri_host_port_parse(HOST_PORT_BAD[_i], NULL, NULL, &e), -1);
	snprintf(want, sizeof(want), "'%s' is not host:port (a host, a colon, a port from 1 to 65535)",
		 HOST_PORT_BAD[_i]);
	ck_assert_str_eq(e.text, want);
}
END_TEST

Suite *names_suite(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, test_hostlist);
	tcase_add_test(tc, test_dir_template);
	tcase_add_test(tc, test_dir_template_unknown_placeholder);
	tcase_add_test(tc, test_hostlist_over_max);
	tcase_add_test(tc, test_hostlist_null);
	tcase_add_test(tc, test_hostlist_only_commas);
	tcase_add_test(tc, test_dir_template_empty);
	tcase_add_loop_test(tc, test_host_port_accepted, 0, (int)(sizeof(HOST_PORT_OK) / sizeof(HOST_PORT_OK[0])));
	tcase_add_loop_test(tc, test_host_port_refused, 0, (int)(sizeof(HOST_PORT_BAD) / sizeof(HOST_PORT_BAD[0])));
	suite_add_tcase(s, tc);
	return s;
}
