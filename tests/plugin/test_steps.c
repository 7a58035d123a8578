/*
 * test_steps.c - the one rule for every job step the plugin starts
 * (spank/steps/step.c): the master and the pool's sampler run exactly where the
 * plugin decides (the host, or the recipe's container through pyxis or
 * Slurm's OCI support) and inherit no container option of the srun that
 * started them, here a worker's srun with pyxis's --container-image
 * (srun keeps it in its environment as _SLURM_SPANK_OPTION_pyxis_* and
 * SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_*), a job-wide PYXIS_CONTAINER_*,
 * Slurm's --container (SRUN_CONTAINER as srun reads it, SLURM_CONTAINER
 * as slurmstepd sets it) and enroot's ENROOT_*. A recording srun stands
 * for srun: it writes the command line and the environment it was given.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "container/container.h"
#include "plugin/handover.h"
#include "steps/ha.h"
#include "steps/step.h"
#include "stub.h"
#include "testdir.h"

static char tmp[256];

/* what a worker's srun with containers of its own has in its environment */
static const char *const worker_env[][2] = {
	{ "_SLURM_SPANK_OPTION_pyxis_container_image", "worker-image" },
	{ "_SLURM_SPANK_OPTION_pyxis_container_mounts", "/w:/w" },
	{ "SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_container_image", "worker-image" },
	{ "SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_container_workdir", "/root" },
	{ "PYXIS_CONTAINER_IMAGE", "job-image" },
	{ "PYXIS_CONTAINER_MOUNTS", "/j:/j" },
	{ "SRUN_CONTAINER", "/bundles/worker" },
	{ "SRUN_CONTAINER_ID", "worker" },
	{ "SLURM_CONTAINER", "/bundles/worker" },
	{ "SLURM_CONTAINER_ID", "worker" },
	{ "ENROOT_RUNTIME_PATH", "/run/enroot/user" },
	{ "ENROOT_MOUNT_HOME", "y" },
};
#define N_WORKER_ENV (sizeof(worker_env) / sizeof(worker_env[0]))

static void setup(void)
{
	testdir_make(tmp, sizeof(tmp), "steps");
	stub_reset(S_CTX_LOCAL);
	for (size_t i = 0; i < N_WORKER_ENV; i++)
		setenv(worker_env[i][0], worker_env[i][1], 1);
	setenv("MCK_KEEP_ME", "1", 1);
}

static void teardown(void)
{
	for (size_t i = 0; i < N_WORKER_ENV; i++)
		unsetenv(worker_env[i][0]);
	unsetenv("MCK_KEEP_ME");
	testdir_remove(tmp);
}

#define ck_contains(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "'%s' not in:\n%s", (needle), (hay))
#define ck_lacks(hay, needle) ck_assert_msg(strstr((hay), (needle)) == NULL, "'%s' in:\n%s", (needle), (hay))

/* The lines of `text` (one word or NAME=value a line, as the recording
 * srun= writes them), into lines[] (pointers into `copy`); how many. */
static size_t split_lines(const char *text, char *copy, size_t size, char **lines, size_t max)
{
	char *save = NULL;
	size_t n = 0;

	snprintf(copy, size, "%s", text);
	for (char *l = strtok_r(copy, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	return n;
}

/* The value of the variable `name` in an environment listed one
 * NAME=value a line (wherever its line stands, the first too), or NULL */
static const char *env_value(const char *env, const char *name)
{
	static char copy[65536], value[4096];
	char *lines[2048];
	size_t n = split_lines(env, copy, sizeof(copy), lines, 2048), len = strlen(name);

	for (size_t i = 0; i < n; i++)
		if (strncmp(lines[i], name, len) == 0 && lines[i][len] == '=') {
			snprintf(value, sizeof(value), "%s", lines[i] + len + 1);
			return value;
		}
	return NULL;
}

#define ck_env(env, name, want)                                                                                        \
	do {                                                                                                           \
		const char *got_ = env_value((env), (name));                                                           \
		ck_assert_msg(got_ &&strcmp(got_, (want)) == 0, "%s is '%s', not '%s' in:\n%s", (name),                \
			      got_ ? got_ : "(unset)", (want), (env));                                                 \
	} while (0)
#define ck_no_env(env, name) ck_assert_msg(env_value((env), (name)) == NULL, "%s is set in:\n%s", (name), (env))

/* the words `seq` (NULL-terminated) stand in `argv`, one a line, in a row */
static bool has_words(const char *argv, const char *const *seq)
{
	static char copy[8192];
	char *lines[512];
	size_t n = split_lines(argv, copy, sizeof(copy), lines, 512), k = 0;

	while (seq[k])
		k++;
	for (size_t i = 0; i + k <= n; i++) {
		size_t j = 0;

		while (j < k && strcmp(lines[i + j], seq[j]) == 0)
			j++;
		if (j == k)
			return true;
	}
	return false;
}
#define ck_words(argv, ...)                                                                                            \
	ck_assert_msg(has_words((argv), (const char *const[]){ __VA_ARGS__, NULL }),                                   \
		      "the words %s do not stand in a row in:\n%s", #__VA_ARGS__, (argv))

static void slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_msg(f != NULL, "%s was not written", path);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* a plugstack whose srun= records its command line (argv.txt, one word a
 * line) and environment (env.txt) */
static void recording(struct mcri_plugstack *ps)
{
	char *av[] = { NULL }, text[2048];
	struct mcr_error err;

	ck_assert_int_eq(mcri_plugstack_parse(ps, 0, av, &err), 0);
	snprintf(ps->srun, sizeof(ps->srun), "%s/fake-srun", tmp);
	snprintf(ps->sampler, sizeof(ps->sampler), "%s/fake-sampler", tmp);
	snprintf(text, sizeof(text), "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done >%s/argv.txt\nenv >%s/env.txt\n",
		 tmp, tmp);
	testdir_write(ps->srun, text);
	testdir_write(ps->sampler, "#!/bin/sh\n");
	ck_assert_int_eq(chmod(ps->srun, 0755), 0);
	ck_assert_int_eq(chmod(ps->sampler, 0755), 0);
}

/* the step's srun has ended (our child): its argv and environment */
static void recorded(pid_t pid, char *argv, char *env, size_t size)
{
	char path[400];
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(path, sizeof(path), "%s/argv.txt", tmp);
	slurp(path, argv, size);
	snprintf(path, sizeof(path), "%s/env.txt", tmp);
	slurp(path, env, size);
}

/* no variable of the worker's containers reached the step */
static void no_worker_container(const char *env)
{
	for (size_t i = 0; i < N_WORKER_ENV; i++)
		ck_no_env(env, worker_env[i][0]);
	ck_env(env, "MCK_KEEP_ME", "1"); /* and the rest of the environment did */
}

/* the container options in the step's argv, one a line ("" for none) */
static const char *container_options(const char *argv)
{
	static char out[2048];
	char copy[8192], *save = NULL;
	size_t o = 0;

	snprintf(copy, sizeof(copy), "%s", argv);
	out[0] = '\0';
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strncmp(l, "--container", 11) == 0)
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s", o ? " " : "", l);
	return out;
}

static struct mcr_recipe *recipe(void)
{
	static const char y[] = "schema: 2\nmodel: {path: x, container: 'nvcr.io#nvidia/trt:1'}\n"
				"engine: sglang\nroles: {agg: {}}\n"
				"services:\n  - {name: mooncake-master, type: mooncake-master}\n";
	struct mcr_recipe *r = NULL;
	struct mcr_error err;

	ck_assert_int_eq(mcr_recipe_load_buffer(y, strlen(y), "r.yaml", &r, &err), 0);
	return r;
}

START_TEST(what_no_step_inherits)
{
	static const char *const dropped[] = {
		"_SLURM_SPANK_OPTION_pyxis_container_image=x",
		"SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_container_name=x",
		"PYXIS_CONTAINER_WORKDIR=/x",
		"SRUN_CONTAINER=/b",
		"SRUN_CONTAINER_ID=c",
		"SRUN_CONTAINER_TYPE=oci",
		"SLURM_CONTAINER=/b",
		"SLURM_CONTAINER_ID=c",
		"ENROOT_DATA_PATH=/d",
		"_SLURM_SPANK_OPTION_mooncake_mooncake_recipe=r.yaml",
		MCP_TASK_VAR "=x",
		MCP_GUARD_VAR "=g",
		"SLURM_GPUS_PER_NODE=4",
		"MC_RPC_PROTOCOL=rdma",
		NULL,
	};
	static const char *const kept[] = {
		"PATH=/usr/bin",
		"SLURM_JOB_ID=4",
		"_SLURM_SPANK_OPTION_other_flag=1",
		"SLURM_SPANK__SLURM_SPANK_OPTION_other_x=1",
		"PYXIS_DEBUG=1",
		"MY_ENROOT_HOME=/h",
		NULL,
	};

	for (const char *const *v = dropped; *v; v++)
		ck_assert_msg(!mcp_step_inherits(*v), "a step inherits %s", *v);
	for (const char *const *v = kept; *v; v++)
		ck_assert_msg(mcp_step_inherits(*v), "a step does not inherit %s", *v);
}
END_TEST

/* the master step: the plugin's container options and nothing else, on
 * the host, through pyxis, through Slurm's OCI support */
START_TEST(the_master_runs_where_the_plugin_decides)
{
	const struct mcp_container choices[] = {
		{ .mode = MCRI_CONTAINER_NONE, .note = "mooncake: r.yaml:2:29: model.container: 'x' is not used" },
		{ .mode = MCRI_CONTAINER_PYXIS, .value = "nvcr.io#nvidia/trt:1" },
		{ .mode = MCRI_CONTAINER_OCI, .value = "/bundles/trt" },
	};
	const char *want[3];
	struct mcri_plugstack ps;
	struct mcr_recipe *r = recipe();
	const struct mcri_state st = { .ports = { 8700, 8701, 8702 } };
	struct mcp_step_place at = { .job_id = "4301", .dir = tmp, .node = "n1" };
	char argv[8192], env[65536], log[400], pyxis[1200];
	struct mcr_error err;
	pid_t pid;

	/* pyxis: the variables srun sets for the master step's task keep
	 * srun's values over the image's (--container-env) */
	snprintf(
		pyxis, sizeof(pyxis),
		"--container-image=nvcr.io#nvidia/trt:1 --container-mounts=%s:%s --container-workdir=%s --container-env=" MCP_PORTS_VAR
		"," MCP_GUARD_VAR,
		tmp, tmp, tmp);
	want[0] = "";
	want[1] = pyxis;
	want[2] = "--container=/bundles/trt";
	recording(&ps);
	snprintf(log, sizeof(log), "%s/mooncake_master.log", tmp);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(mcp_spawn_master(&ps, r, &choices[i], &at, &st, true, "G1", NULL, log, &pid, &err), 0);
		recorded(pid, argv, env, sizeof(env));
		ck_assert_str_eq(container_options(argv), want[i]);
		ck_words(argv, "--job-name=mooncake-master");
		no_worker_container(env);
		ck_env(env, MCP_PORTS_VAR, "8700,8701,8702");
		ck_env(env, MCP_GUARD_VAR, "G1");
		/* the recipe's container not used: the starter says so */
		if (i == 0)
			ck_contains(stub.log, "mooncake: r.yaml:2:29: model.container: 'x' is not used");
	}
	/* no container: the same as the host */
	ck_assert_int_eq(mcp_spawn_master(&ps, r, NULL, &at, &st, false, NULL, NULL, log, &pid, &err), 0);
	recorded(pid, argv, env, sizeof(env));
	ck_assert_str_eq(container_options(argv), "");
	no_worker_container(env);
	ck_no_env(env, MCP_PORTS_VAR);
	ck_no_env(env, MCP_GUARD_VAR);
	mcr_recipe_free(r);
}
END_TEST

/* an HA pool's masters: one step, a task on each of its nodes, a lost
 * node not its end; Mooncake's HA flags after the recipe's argv; the
 * pool handed over, the etcd ports claimed with the master's */
START_TEST(the_ha_pool_is_one_step_on_its_nodes)
{
	struct mcri_plugstack ps;
	struct mcr_recipe *r = recipe();
	struct mcri_state st = {
		.ports = { 8700, 8701, 8702 },
		.ha = { .masters = 3,
			.etcd_members = 3,
			.etcd_client = 8703,
			.etcd_peer = 8704,
			.member = { { "n1", "10.0.0.1" }, { "n2", "10.0.0.2" }, { "n3", "10.0.0.3" } } }
	};
	struct mcp_step_place at = { .job_id = "4301", .dir = tmp, .node = "n1,n2,n3", .nodes = 3 };
	char argv[8192], env[65536], log[400], *ha = mcp_ha_value(&st.ha, 2, "4301");
	struct mcr_error err;
	pid_t pid;

	recording(&ps);
	snprintf(log, sizeof(log), "%s/mooncake_master.log", tmp);
	ck_assert_int_eq(mcp_spawn_master(&ps, r, NULL, &at, &st, true, "G1", ha, log, &pid, &err), 0);
	recorded(pid, argv, env, sizeof(env));
	ck_words(argv, "--nodes=3", "--ntasks=3", "--ntasks-per-node=1");
	ck_words(argv, "--no-kill");
	ck_words(argv, "--nodelist=n1,n2,n3");
	ck_words(argv, "--port=8700");
	ck_words(argv, "--enable_ha=true", "--ha_backend_type=etcd",
		 "--ha_backend_connstring=10.0.0.1:8703;10.0.0.2:8703;10.0.0.3:8703", "--enable_oplog=true",
		 "--tryfromenv=rpc_address");
	ck_env(env, MCP_HA_VAR, "2,4301,3,8703,8704;n1=10.0.0.1;n2=10.0.0.2;n3=10.0.0.3");
	ck_env(env, MCP_PORTS_VAR, "8700,8701,8702,8703,8704");
	/* a master of one: no step of several nodes */
	at = (struct mcp_step_place){ .job_id = "4301", .dir = tmp, .node = "n1" };
	memset(&st.ha, 0, sizeof(st.ha));
	ck_assert_int_eq(mcp_spawn_master(&ps, r, NULL, &at, &st, true, "G1", NULL, log, &pid, &err), 0);
	recorded(pid, argv, env, sizeof(env));
	ck_words(argv, "--nodes=1", "--ntasks=1");
	ck_lacks(argv, "--no-kill");
	ck_lacks(argv, "--enable_ha");
	ck_no_env(env, MCP_HA_VAR);
	free(ha);
	mcr_recipe_free(r);
}
END_TEST

/* what srun hands an HA pool's tasks: each finds itself by its node */
START_TEST(the_ha_handover)
{
	const struct mcri_ha ha = { .masters = 2,
				    .etcd_members = 1,
				    .etcd_client = 8706,
				    .etcd_peer = 8707,
				    .member = { { "gpu-01", "10.0.0.1" }, { "gpu-02", "10.0.0.2" } } };
	static const char *const bad[] = {
		"",
		"1,4301,1,8706,8707",
		"1,4301,1,8706,8707;gpu-01=10.0.0.1",
		"0,4301,1,8706,8707;a=1;b=2",
		"1,4301,2,8706,8707;a=1;b=2;c=3",
		"1,4301,1,8706,70000;a=1;b=2",
		"1,4301,1,8706,8707;a=1;b=2;c=3;d=4",
		"1,4301,1,8706,8707;a=1;b",
		"1,4301,1,8706,8707;a/x=1;b=2",
		"1,x,1,8706,8707;a=1;b=2",
		"1,4301,2,8706,8707;a=1;b=2",
		"1,4301,1,8706,8706;a=1;b=2",
		"1,4301,1,8706,8707;a=1;a=2",
		"1,4301,1,8706,8707;a=1;b=1",
		"1,4301,1,8706,8707;a=fe80::1;b=2",
	};
	char *v = mcp_ha_value(&ha, 3, "4301");
	struct mcp_ha_part p;
	struct mcr_error err;

	ck_assert_int_eq(mcp_ha_parse(v, "gpu-02", &p, &err), 0);
	ck_assert_int_eq(p.self, 1);
	ck_assert_int_eq(p.ha.masters, 2);
	ck_assert_int_eq(p.ha.etcd_members, 1);
	ck_assert_int_eq(p.ha.etcd_client, 8706);
	ck_assert_str_eq(p.ha.member[0].addr, "10.0.0.1");
	ck_assert_str_eq(p.token, "mooncake-4301-3");
	ck_assert_int_eq(mcp_ha_parse(v, "gpu-03", &p, &err), -1);
	ck_contains(err.text, "this task runs on gpu-03, which is none of the job's HA masters' nodes");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(mcp_ha_parse(bad[i], "a", &p, &err) == -1, "'%s' was taken", bad[i]);
		ck_contains(err.text, "is not what srun hands an HA pool's master step");
	}
	free(v);
}
END_TEST

/* the sampler: on the host, whatever the worker's srun has */
START_TEST(the_sampler_runs_on_the_host)
{
	struct mcri_plugstack ps;
	struct mcp_step_place at = { .job_id = "4301", .dir = tmp, .node = "n1" };
	char argv[8192], env[65536], path[400];
	struct mcr_error err;
	int status;
	pid_t pid;

	recording(&ps);
	ck_assert_int_eq(mcp_start_sampler(&ps, &at, &err), 0);
	/* the sampler's srun is this test's only child */
	pid = waitpid(-1, &status, 0);
	ck_assert_int_gt(pid, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(path, sizeof(path), "%s/argv.txt", tmp);
	slurp(path, argv, sizeof(argv));
	ck_assert_str_eq(container_options(argv), "");
	ck_words(argv, "--job-name=mooncake-pool");
	snprintf(path, sizeof(path), "%s/env.txt", tmp);
	slurp(path, env, sizeof(env));
	no_worker_container(env);
	ck_assert_str_eq(stub.log, "");
}
END_TEST

/* a step that cannot start says where, what and the fix */
START_TEST(a_step_that_cannot_start)
{
	struct mcri_plugstack ps;
	struct mcp_step_place at = { .job_id = "4301", .dir = tmp, .node = "n1" };
	char *const cmd[] = { "true", NULL };
	char log[400];
	struct mcr_error err;
	pid_t pid;

	recording(&ps);
	snprintf(log, sizeof(log), "%s/missing/x.log", tmp);
	ck_assert_int_eq(mcp_step_start(&ps, &at, &(struct mcp_step){ "mooncake-pool", log, cmd, NULL, NULL }, &pid,
					&err),
			 -1);
	ck_contains(err.text, "/missing/x.log of the mooncake-pool step is not in the job's directory ");
	/* the log is used through the job's directory: a link there (another
	 * user's, say) is never followed, nor truncated through */
	snprintf(log, sizeof(log), "%s/x.log", tmp);
	ck_assert_int_eq(symlink("/etc/hostname", log), 0);
	ck_assert_int_eq(mcp_step_start(&ps, &at, &(struct mcp_step){ "mooncake-pool", log, cmd, NULL, NULL }, &pid,
					&err),
			 -1);
	ck_contains(err.text, "x.log: ");
	ck_contains(err.text, "(a link: the job's files are never followed through one)");
	ck_assert_int_eq(unlink(log), 0);
	snprintf(ps.srun, sizeof(ps.srun), "/nonexistent/srun");
	ck_assert_int_eq(mcp_step_start(&ps, &at, &(struct mcp_step){ "mooncake-pool", log, cmd, NULL, NULL }, &pid,
					&err),
			 -1);
	ck_assert_str_eq(
		err.text,
		"cannot run /nonexistent/srun to start the mooncake-pool step: No such file or directory; set srun= in plugstack.conf to the path of srun");
}
END_TEST

Suite *steps_suite(void)
{
	Suite *s = suite_create("steps");
	TCase *tc = tcase_create("steps");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, what_no_step_inherits);
	tcase_add_test(tc, the_master_runs_where_the_plugin_decides);
	tcase_add_test(tc, the_sampler_runs_on_the_host);
	tcase_add_test(tc, the_ha_pool_is_one_step_on_its_nodes);
	tcase_add_test(tc, the_ha_handover);
	tcase_add_test(tc, a_step_that_cannot_start);
	suite_add_tcase(s, tc);
	return s;
}
