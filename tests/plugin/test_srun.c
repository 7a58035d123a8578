/*
 * test_srun.c - the plugin's callbacks against the SPANK stub (stub.c):
 * srun's options and plugstack arguments, sbatch's check, a node's
 * addresses.
 */
#include <stdlib.h>

#include "net/net.h"
#include "plugin/handover.h"
#include "plugin/slurm.h"
#include "plugin_case.h"
#include "plugstack/plugstack.h"
#include "srun/outside.h"

static const char BAD[] = "schema: 2\n"
			  "engine: {type: trtllm}\n"
			  "roles:\n"
			  "  prefill: {args: {kv_connector_config: {connector: mooncake-store}},\n"
			  "            mooncake_store_config: {global_segment_size: 16GB}}\n"
			  "services:\n"
			  "  - {name: mooncake-master, type: mooncake-master}\n";

START_TEST(srun_without_option_does_nothing)
{
	in_tmpdir();
	ck_assert_int_eq(init(S_CTX_LOCAL, NULL), 0);
	ck_assert_int_eq(stub.nopts, 2);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), 0);
	ck_assert_int_eq(slurm_spank_exit(NULL, 0, NULL), 0);
	ck_assert(!exists("%s/outputs", case_dir));
	ck_assert_str_eq(stub.log, "");
}
END_TEST

START_TEST(srun_bad_recipe_fails_before_anything)
{
	in_tmpdir();
	write_file("bad.yaml", BAD);
	ck_assert_int_eq(init(S_CTX_LOCAL, NULL), 0);
	ck_assert_int_eq(stub_option("mooncake-recipe", "bad.yaml", 0), 0);
	ck_assert_int_eq(stub_option("mooncake-role", "prefill", 0), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), -1);
	ck_log_contains("error: mooncake: bad.yaml:5:");
	ck_log_contains("roles.prefill.mooncake_store_config.global_segment_size");
	ck_log_contains("'GB' is refused");
	ck_assert_int_eq(stub.errors, 1);
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert(!exists("%s/outputs", case_dir));
}
END_TEST

START_TEST(srun_missing_recipe_file)
{
	in_tmpdir();
	ck_assert_int_eq(init(S_CTX_LOCAL, NULL), 0);
	ck_assert_int_eq(stub_option("mooncake-recipe", "nope.yaml", 0), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), -1);
	ck_log_contains("mooncake: cannot read the recipe nope.yaml (relative to ");
	ck_log_contains("): No such file or directory; check the recipe's path");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(srun_several_roles_need_a_role)
{
	in_tmpdir();
	ck_assert_int_eq(init(S_CTX_LOCAL, NULL), 0);
	ck_assert_int_eq(stub_option("mooncake-recipe", TRT, 0), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), -1);
	ck_log_contains("several roles (prefill, decode)");
	ck_log_contains("--mooncake-role=ROLE");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(srun_role_the_recipe_lacks)
{
	in_tmpdir();
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "agg"), -1);
	ck_log_contains("--mooncake-role=agg: the recipe has no roles.agg; its roles are prefill, decode");
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "donor"), -1);
	ck_log_contains("--mooncake-role=donor is not a role");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(srun_inherited_recipe_without_role_gets_nothing)
{
	in_tmpdir();
	setenv("SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_recipe", TRT, 1);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, NULL), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), 0);
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert(!exists("%s/outputs", case_dir));
	ck_assert_int_eq(stub.errors, 0);
	/* not even read: a helper srun may run where the path means nothing */
	setenv("SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_recipe", "elsewhere.yaml", 1);
	ck_assert_int_eq(srun_post_opt(NULL, "elsewhere.yaml", NULL), 0);
	ck_assert_int_eq(stub.errors, 0);
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(role_without_recipe_is_refused)
{
	spank_context_t ctx[] = { S_CTX_LOCAL, S_CTX_ALLOCATOR };

	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(init(ctx[i], NULL), 0);
		ck_assert_int_eq(stub_option("mooncake-role", "prefill", 0), 0);
		ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), -1);
		ck_log_contains("--mooncake-role=prefill needs a recipe: add --mooncake-recipe=PATH");
		slurm_spank_exit(NULL, 0, NULL);
	}
}
END_TEST

START_TEST(srun_empty_option_value)
{
	ck_assert_int_eq(init(S_CTX_LOCAL, NULL), 0);
	ck_assert_int_eq(stub_option("mooncake-recipe", "", 0), -1);
	ck_log_contains("--mooncake-recipe needs a value");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* Inside an allocation the job is prepared in init_post_opt, before srun
 * creates the step (a failing local_user_init would leave the step
 * allocated in Slurm 22.05); local_user_init then has nothing left to do. */
START_TEST(srun_in_allocation_prepares_before_the_step)
{
	char *av[] = { "srun=/bin/false", NULL };

	in_tmpdir();
	setenv("SLURM_JOB_ID", "4302", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), -1);
	ck_log_contains("ended during start-up (exit status 1) before it was ready");
	/* the job id came from the environment, not from S_JOB_ID (4301) */
	ck_assert(exists("%s/outputs/4302/logs/mooncake_master.json", case_dir));
	ck_assert(!exists("%s/outputs/4301", case_dir));
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* srun --jobid=OTHER inside an allocation: the environment's job is not the
 * step's; refused rather than preparing the wrong job */
START_TEST(srun_jobid_other_than_the_environment)
{
	in_tmpdir();
	write_file("agg.yaml", "schema: 2\nroles: {agg: {}}\n");
	setenv("SLURM_JOB_ID", "4302", 1);
	ck_assert_int_eq(srun_post_opt(NULL, "agg.yaml", NULL), 0);
	ck_assert_int_eq(slurm_spank_local_user_init(NULL, 0, NULL), -1);
	ck_log_contains("this step runs in job 4301, but srun's environment is job 4302's");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* A job id that is not one (garbage, 0, past Slurm's NO_VAL) is refused
 * with the variable and its value: never taken for job 0 or another job */
START_TEST(srun_refuses_a_job_id_that_is_not_one)
{
	const char *bad[] = { "4302x", "0", "4294967294", "99999999999999999999", "-1", " 4302" };

	in_tmpdir();
	write_file("agg.yaml", "schema: 2\nroles: {agg: {}}\n");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[128];

		setenv("SLURM_JOB_ID", bad[i], 1);
		ck_assert_int_eq(srun_post_opt(NULL, "agg.yaml", NULL), -1);
		snprintf(want, sizeof(want), "mooncake: SLURM_JOB_ID is '%s', which is not a Slurm job id", bad[i]);
		ck_log_contains(want);
		ck_assert(!exists("%s/outputs", case_dir));
		slurm_spank_exit(NULL, 0, NULL);
	}
	/* the largest job id Slurm gives is one */
	setenv("SLURM_JOB_ID", "4294967293", 1);
	ck_assert_int_eq(srun_post_opt(NULL, "agg.yaml", NULL), 0);
	ck_assert_int_eq(stub.errors, 0);
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

/* A recipe whose master is external: the tasks are pointed at it, and
 * nothing is started or written for a pool of the job's own */
START_TEST(srun_external_master_starts_nothing)
{
	const char *ext = MCK_TOP "/tests/recipes/valid/vllm_external_master.yaml";
	const char *text;

	in_tmpdir();
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(NULL, ext, "prefill"), 0);
	ck_assert_int_eq(stub.errors, 0);
	ck_assert_ptr_nonnull(text = getenv(MCP_TASK_VAR));
	ck_assert_ptr_nonnull(strstr(text, "[\"MOONCAKE_MASTER\",\"10.0.0.5:8700\"]"));
	ck_assert_ptr_nonnull(strstr(text, "[\"MOONCAKE_TE_META_DATA_SERVER\",\"http://10.0.0.5:8701/metadata\"]"));
	/* each task's address is the one toward the external master; its
	 * tasks are no workers of a pool of this job's */
	ck_assert_ptr_nonnull(strstr(text, "\"peer\":\"10.0.0.5\""));
	ck_assert(strstr(text, "\"role\"") == NULL);
	ck_assert(strstr(stub.log, "starting mooncake_master") == NULL);
	ck_assert(!exists("%s/outputs/4301/logs/mooncake_master.json", case_dir));
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(alloc_refuses_bad_recipe)
{
	in_tmpdir();
	write_file("bad.yaml", BAD);
	ck_assert_int_eq(init(S_CTX_ALLOCATOR, NULL), 0);
	ck_assert_int_eq(stub.nopts, 2);
	stub_option("mooncake-recipe", "bad.yaml", 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), -1);
	ck_log_contains("'GB' is refused");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(alloc_accepts_recipe_without_role)
{
	in_tmpdir();
	ck_assert_int_eq(init(S_CTX_ALLOCATOR, NULL), 0);
	stub_option("mooncake-recipe", TRT, 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), 0);
	slurm_spank_exit(NULL, 0, NULL);
	ck_assert_int_eq(init(S_CTX_ALLOCATOR, NULL), 0);
	stub_option("mooncake-recipe", TRT, 0);
	stub_option("mooncake-role", "agg", 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), -1);
	ck_log_contains("the recipe has no roles.agg");
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(plugstack_arguments)
{
	char *unknown[] = { "ready_timeout=10", "colour=blue", NULL };
	char *badtime[] = { "ready_timeout=0", NULL };
	char *ok[] = { "master=/opt/mc/bin/mooncake_master",
		       "srun=/usr/bin/srun",
		       "job_dir=/scratch/{user}/{job_id}",
		       "ready_timeout=300",
		       "interface=ib0",
		       NULL };

	ck_assert_int_eq(init(S_CTX_LOCAL, unknown), -1);
	ck_log_contains("unknown argument 'colour=blue'");
	ck_assert_int_eq(init(S_CTX_ALLOCATOR, badtime), -1);
	ck_log_contains("ready_timeout=0 must be a number of seconds");
	ck_assert_int_eq(init(S_CTX_LOCAL, ok), 0);
	slurm_spank_exit(NULL, 0, NULL);
	{
		struct mcri_plugstack ps;
		struct mcr_error err;

		ck_assert_int_eq(mcri_plugstack_parse(&ps, 5, ok, &err), 0);
		ck_assert_str_eq(ps.master, "/opt/mc/bin/mooncake_master");
		ck_assert_str_eq(ps.srun, "/usr/bin/srun");
		ck_assert_str_eq(ps.job_dir, "/scratch/{user}/{job_id}");
		ck_assert_int_eq(ps.ready_timeout, 300);
		ck_assert_str_eq(ps.interface, "ib0");
		ck_assert(!ps.fixed_ports);
		ck_assert_int_eq(ps.port_lo, 8700);
		ck_assert_int_eq(ps.port_hi, 8999);
	}
	/* slurmd and the job-script contexts never fail */
	ck_assert_int_eq(init(S_CTX_SLURMD, unknown), 0);
}
END_TEST

/* sampler= and pool_interval=: defaults, values, refusals */
START_TEST(plugstack_pool_arguments)
{
	char *ok[] = { "sampler=/opt/mc/bin/mooncake-recipe", "pool_interval=2", NULL };
	char *off[] = { "pool_interval=0", NULL };
	char *relative[] = { "sampler=mooncake-recipe", NULL };
	char *bad[] = { "pool_interval=5s", NULL };
	char *big[] = { "pool_interval=3601", NULL };

	struct mcri_plugstack ps;
	struct mcr_error err;

	ck_assert_int_eq(mcri_plugstack_parse(&ps, 0, NULL, &err), 0);
	ck_assert_int_eq(ps.pool_interval, 5);
	ck_assert_msg(strstr(ps.sampler, "/mooncake-recipe") != NULL && ps.sampler[0] == '/', "default sampler: %s",
		      ps.sampler);
	ck_assert_int_eq(mcri_plugstack_parse(&ps, 2, ok, &err), 0);
	ck_assert_str_eq(ps.sampler, "/opt/mc/bin/mooncake-recipe");
	ck_assert_int_eq(ps.pool_interval, 2);
	ck_assert_int_eq(mcri_plugstack_parse(&ps, 1, off, &err), 0);
	ck_assert_int_eq(ps.pool_interval, 0);
	ck_assert_int_eq(init(S_CTX_LOCAL, relative), -1);
	ck_log_contains(
		"mooncake: plugstack.conf: sampler=mooncake-recipe must be an absolute path (the mooncake-recipe binary, e.g. sampler=/usr/bin/mooncake-recipe)");
	ck_assert_int_eq(init(S_CTX_LOCAL, bad), -1);
	ck_log_contains(
		"mooncake: plugstack.conf: pool_interval=5s must be a number of seconds between 1 and 3600, or 0 to switch the pool sampler off");
	ck_assert_int_eq(init(S_CTX_LOCAL, big), -1);
	ck_log_contains("pool_interval=3601 must be a number of seconds");
}
END_TEST

/* restart=: 3 by default, 0 (never) to 100, a clear refusal otherwise */
START_TEST(plugstack_restart_argument)
{
	char *off[] = { "restart=0", NULL };
	char *most[] = { "restart=100", NULL };
	char *bad[] = { "restart=yes", NULL };
	char *big[] = { "restart=101", NULL };
	struct mcri_plugstack ps;
	struct mcr_error err;

	ck_assert_int_eq(mcri_plugstack_parse(&ps, 0, NULL, &err), 0);
	ck_assert_int_eq(ps.restart, 3);
	ck_assert_int_eq(mcri_plugstack_parse(&ps, 1, off, &err), 0);
	ck_assert_int_eq(ps.restart, 0);
	ck_assert_int_eq(mcri_plugstack_parse(&ps, 1, most, &err), 0);
	ck_assert_int_eq(ps.restart, 100);
	ck_assert_int_eq(init(S_CTX_LOCAL, bad), -1);
	ck_log_contains(
		"mooncake: plugstack.conf: restart=yes must be how many times the master step may start the job's mooncake_master again when it dies, 0 to 100 (0: never)");
	ck_assert_int_eq(init(S_CTX_LOCAL, big), -1);
	ck_log_contains("restart=101 must be how many times");
}
END_TEST

/* hang_timeout=: 60 s by default, 0 (never) or 10 to 86400; etcd_quota=:
 * 8 GiB by default, bytes or a binary unit from 16 MiB to 64 GiB; a clear
 * refusal otherwise */
START_TEST(plugstack_hang_and_quota_arguments)
{
	char *off[] = { "hang_timeout=0", "etcd_quota=16MiB", NULL };
	char *most[] = { "hang_timeout=86400", "etcd_quota=64GiB", NULL };
	char *short_hang[] = { "hang_timeout=5", NULL };
	char *units[] = { "etcd_quota=8GB", NULL };
	char *small[] = { "etcd_quota=1048576", NULL };
	struct mcri_plugstack ps;
	struct mcr_error err;

	ck_assert_int_eq(mcri_plugstack_parse(&ps, 0, NULL, &err), 0);
	ck_assert_int_eq(ps.hang_timeout, 60);
	ck_assert_int_eq(ps.etcd_quota, 8LL << 30);
	ck_assert_int_eq(mcri_plugstack_parse(&ps, 2, off, &err), 0);
	ck_assert_int_eq(ps.hang_timeout, 0);
	ck_assert_int_eq(ps.etcd_quota, 16LL << 20);
	ck_assert_int_eq(mcri_plugstack_parse(&ps, 2, most, &err), 0);
	ck_assert_int_eq(ps.hang_timeout, 86400);
	ck_assert_int_eq(ps.etcd_quota, 64LL << 30);
	ck_assert_int_eq(init(S_CTX_LOCAL, short_hang), -1);
	ck_log_contains(
		"mooncake: plugstack.conf: hang_timeout=5 must be how many seconds a running mooncake_master may answer none of its master step's probes before it is ended and started again as a crashed one is, 10 to 86400 (0: never)");
	ck_assert_int_eq(init(S_CTX_LOCAL, units), -1);
	ck_log_contains(
		"mooncake: plugstack.conf: etcd_quota=8GB must be the most an HA pool's etcd member may keep, bytes or a binary unit (KiB, MiB, GiB), 16MiB to 64GiB (e.g. etcd_quota=8GiB)");
	ck_assert_int_eq(init(S_CTX_LOCAL, small), -1);
	ck_log_contains("etcd_quota=1048576 must be");
}
END_TEST

/* addresses: a node's, this host's toward the master, a NIC's */
START_TEST(net_addresses)
{
	struct mcr_error err;
	char addr[64];

	ck_assert_int_eq(mcri_resolve_ipv4("127.0.0.1", addr, sizeof(addr), &err), 0);
	ck_assert_str_eq(addr, "127.0.0.1");
	ck_assert_int_eq(mcri_resolve_ipv4("no-such-node.invalid", addr, sizeof(addr), &err), -1);
	ck_assert_msg(strstr(err.text, "cannot resolve the address of node no-such-node.invalid: ") == err.text, "%s",
		      err.text);
	ck_assert_ptr_nonnull(strstr(err.text, "its NodeAddr in slurm.conf must resolve to an IPv4 address"));
	ck_assert_int_eq(mcri_local_address(NULL, "127.0.0.1", addr, sizeof(addr), &err), 0);
	ck_assert_str_eq(addr, "127.0.0.1");
	ck_assert_int_eq(mcri_local_address("lo", "192.0.2.1", addr, sizeof(addr), &err), 0);
	ck_assert_str_eq(addr, "127.0.0.1");
	ck_assert_int_eq(mcri_local_address("nope0", "127.0.0.1", addr, sizeof(addr), &err), -1);
	ck_assert_str_eq(
		err.text,
		"the network interface 'nope0' (plugstack.conf interface=) has no IPv4 address on this node; fix interface= or the node's network");
	ck_assert_int_eq(mcri_local_address(NULL, "not-an-address", addr, sizeof(addr), &err), -1);
	ck_assert_str_eq(err.text, "'not-an-address' is not an IPv4 address");
	/* only lo in this network namespace: no route elsewhere */
	ck_assert_int_eq(mcri_local_address(NULL, "192.0.2.1", addr, sizeof(addr), &err), -1);
	ck_assert_str_eq(
		err.text,
		"no route from this node to the master at 192.0.2.1: Network is unreachable; set interface= in plugstack.conf");
}
END_TEST

/* srun --jobid from outside the allocation: the job its command line
 * names, asked about while srun looks up the allocation */
static bool named(const char *args, size_t n, uint32_t *job)
{
	return mcp_outside_named_job(args, n, job);
}
/* a literal's arguments, with the NUL after the last, as cmdline has it */
#define NAMED(lit) named(lit, sizeof(lit), &job)

START_TEST(srun_outside_names_its_job)
{
	uint32_t job = 99;

	ck_assert(NAMED("srun\0--jobid=4301\0-N1\0true"));
	ck_assert_uint_eq(job, 4301);
	ck_assert(NAMED("srun\0--jobid\0004302\0true"));
	ck_assert_uint_eq(job, 4302);
	/* a heterogeneous job's component, a value that is no number, none */
	ck_assert(NAMED("srun\0--jobid=4301+1\0true"));
	ck_assert_uint_eq(job, 0);
	ck_assert(NAMED("srun\0--jobid=x\0true"));
	ck_assert_uint_eq(job, 0);
	ck_assert(NAMED("srun\0--jobid=99999999999\0true"));
	ck_assert_uint_eq(job, 0);
	ck_assert(NAMED("srun\0--jobid"));
	ck_assert_uint_eq(job, 0);
	/* no --jobid (nor a longer option that starts so): a new job */
	ck_assert(!NAMED("srun\0--jobidx=4\0-N1\0true"));
	ck_assert(!NAMED("srun\0-N1\0true"));
	/* arguments not terminated: nothing read past them */
	ck_assert(!named("srun\0--jobi", 11, &job));
}
END_TEST

Suite *srun_suite(void)
{
	Suite *s = suite_create("plugin-srun");
	TCase *srun = tcase_create("srun"), *alloc = tcase_create("sbatch");

	tcase_set_timeout(srun, 60);
	tcase_add_checked_fixture(srun, NULL, remove_tmpdir);
	tcase_add_checked_fixture(alloc, NULL, remove_tmpdir);
	tcase_add_test(srun, srun_without_option_does_nothing);
	tcase_add_test(srun, srun_refuses_a_job_id_that_is_not_one);
	tcase_add_test(srun, srun_bad_recipe_fails_before_anything);
	tcase_add_test(srun, srun_missing_recipe_file);
	tcase_add_test(srun, srun_several_roles_need_a_role);
	tcase_add_test(srun, srun_role_the_recipe_lacks);
	tcase_add_test(srun, srun_inherited_recipe_without_role_gets_nothing);
	tcase_add_test(srun, srun_empty_option_value);
	tcase_add_test(srun, role_without_recipe_is_refused);
	tcase_add_test(srun, srun_in_allocation_prepares_before_the_step);
	tcase_add_test(srun, srun_jobid_other_than_the_environment);
	tcase_add_test(srun, srun_outside_names_its_job);
	tcase_add_test(srun, srun_external_master_starts_nothing);
	tcase_add_test(srun, plugstack_arguments);
	tcase_add_test(srun, net_addresses);
	tcase_add_test(srun, plugstack_pool_arguments);
	tcase_add_test(srun, plugstack_restart_argument);
	tcase_add_test(srun, plugstack_hang_and_quota_arguments);
	tcase_add_test(alloc, alloc_refuses_bad_recipe);
	tcase_add_test(alloc, alloc_accepts_recipe_without_role);
	suite_add_tcase(s, srun);
	suite_add_tcase(s, alloc);
	return s;
}
