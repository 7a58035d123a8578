/*
 * test_stepd.c - the plugin's callbacks against the SPANK stub (stub.c):
 * slurmstepd (remote context): what each task gets.
 */
#include <stdlib.h>
#include <sys/sysinfo.h>

#include <slurm/slurm.h>

#include "plugin/handover.h"
#include "plugin_case.h"
#include "steps/keep.h"
#include "steps/step.h"

static const char SGLANG[] =
	"schema: 2\n"
	"engine: sglang\n"
	"roles:\n"
	"  prefill: {args: {disaggregation-transfer-backend: mooncake}, env: {MOONCAKE_PROTOCOL: tcp}}\n"
	"  decode: {args: {disaggregation-transfer-backend: mooncake}}\n"
	"services:\n"
	"  - {name: mooncake-master, type: mooncake-master}\n";

static const char VLLM_GPU[] =
	"schema: 2\n"
	"engine: vllm\n"
	"resources: {gpus_per_node: 4}\n"
	"roles:\n"
	"  prefill: {args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}}\n"
	"services:\n"
	"  - name: mooncake-master\n"
	"    type: mooncake-master\n"
	"    options: {device_names_by_gpu: [mlx5_0, mlx5_0, mlx5_1, mlx5_1], store_config: {protocol: rdma}}\n";

/* TRT-LLM announces the file's local_hostname, else its node's name
 * resolved: a node whose name resolves to nothing or to a loopback
 * address, and every node under interface=, reads a file of its own that
 * carries the address the plugin found (the role's file plus
 * local_hostname) */
static char *read_all(const char *path)
{
	char *text = calloc(1, 65536);
	FILE *f = fopen(path, "r");

	ck_assert_msg(f != NULL, "no %s", path);
	ck_assert_uint_gt(fread(text, 1, 65535, f), 0);
	fclose(f);
	return text;
}

static void trtllm_node_file(const char *hostname, char **av, bool own)
{
	char role_file[512], want[512], *h, *text, *role_text, *cut;

	h = handover_of(TRT, "decode");
	remote_step(3, TRT, "decode", h, av);
	stub.hostname = hostname;
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_int_eq(stub.errors, 0);
	snprintf(role_file, sizeof(role_file), "%s/outputs/4301/logs/mooncake_store_config_decode.json", case_dir);
	snprintf(want, sizeof(want), "%s/outputs/4301/logs/mooncake_store_config_decode%s.json", case_dir,
		 own ? ".127.0.0.1" : "");
	ck_assert_str_eq(stub_getenv("MOONCAKE_CONFIG_PATH"), want);
	if (own) {
		text = read_all(want);
		role_text = read_all(role_file);
		ck_assert_ptr_nonnull(cut = strrchr(role_text, '\n'));
		*cut = '\0';
		ck_assert_ptr_nonnull(cut = mcri_asprintf("%s,\n  \"local_hostname\": \"127.0.0.1\"\n}", role_text));
		ck_assert_str_eq(text, cut);
		free(cut);
		free(role_text);
		free(text);
	}
	slurm_spank_exit(NULL, 0, NULL);
	free(h);
}

START_TEST(stepd_task_gets_role_env)
{
	char want[512], *h;

	in_tmpdir();
	h = handover_of(TRT, "decode");
	remote_step(3, TRT, "decode", h, NULL);
	/* a node whose name resolves to its own address: TRT-LLM's connector
	 * finds it, the role's file serves every node */
	stub.hostname = "10.0.0.7";
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	snprintf(want, sizeof(want), "%s/outputs/4301/logs/mooncake_store_config_decode.json", case_dir);
	ck_assert_str_eq(stub_getenv("MOONCAKE_CONFIG_PATH"), want);
	ck_assert_str_eq(stub_getenv("MOONCAKE_MASTER"), "127.0.0.1:8700");
	ck_assert_str_eq(stub_getenv("MOONCAKE_TE_META_DATA_SERVER"), "http://127.0.0.1:8701/metadata");
	ck_assert_str_eq(stub_getenv("MOONCAKE_LOCAL_HOSTNAME"), "127.0.0.1");
	/* the role's own env reaches its tasks */
	ck_assert_str_eq(stub_getenv("TLLM_LOG_LEVEL"), "INFO");
	/* the handover does not stay in the task's environment */
	ck_assert_ptr_null(stub_getenv(MCP_TASK_VAR));
	ck_assert_int_eq(stub.errors, 0);
	slurm_spank_exit(NULL, 0, NULL);
	/* the task recorded itself for status and the pool's report */
	{
		char host[256] = "", path[1024], buf[1024];
		FILE *f;
		size_t n;

		gethostname(host, sizeof(host) - 1);
		snprintf(path, sizeof(path), "%s/outputs/4301/logs/workers/%s.4301.3.0.json", case_dir, host);
		f = fopen(path, "r");
		ck_assert_msg(f != NULL, "no %s", path);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		snprintf(
			path, sizeof(path),
			"{\"node\": \"%s\", \"role\": \"decode\", \"address\": \"127.0.0.1\", \"job\": 4301, \"step\": 3, \"task\": 0}",
			host);
		ck_assert_str_eq(buf, path);
	}
	/* the node's first task speaks for the node: its second records nothing */
	{
		char host[256] = "", path[1024];
		struct stat sb;

		remote_step(3, TRT, "decode", h, NULL);
		stub.hostname = "10.0.0.7";
		stub.task_id = 1;
		ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
		ck_assert_int_eq(stub.errors, 0);
		slurm_spank_exit(NULL, 0, NULL);
		gethostname(host, sizeof(host) - 1);
		snprintf(path, sizeof(path), "%s/outputs/4301/logs/workers/%s.4301.3.1.json", case_dir, host);
		ck_assert_int_eq(stat(path, &sb), -1);
	}
	free(h);
}
END_TEST

START_TEST(stepd_trtllm_node_file)
{
	char *iface[] = { "interface=lo", NULL };

	in_tmpdir();
	trtllm_node_file("nowhere.invalid", NULL, true); /* resolves to nothing */
	trtllm_node_file("127.0.1.1", NULL, true);       /* Debian's /etc/hosts */
	trtllm_node_file("10.0.0.7", NULL, false);       /* its own address */
	trtllm_node_file("10.0.0.7", iface, true);       /* the admin chose the NIC */
}
END_TEST

/* the task reads no recipe: what srun checked is what it gets, even when
 * the recipe is gone (or edited) after srun */
START_TEST(stepd_reads_no_recipe)
{
	char *h;

	in_tmpdir();
	write_file("r.yaml", SGLANG);
	h = handover_of("r.yaml", "prefill");
	ck_assert_int_eq(unlink("r.yaml"), 0);
	remote_step(2, "r.yaml", "prefill", h, NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_str_eq(stub_getenv("MOONCAKE_PROTOCOL"), "tcp");
	ck_assert_str_eq(stub_getenv("MOONCAKE_MASTER"), "127.0.0.1:8700");
	ck_assert_ptr_null(stub_getenv("MOONCAKE_CONFIG_PATH"));
	slurm_spank_exit(NULL, 0, NULL);
	free(h);
}
END_TEST

START_TEST(stepd_batch_step_gets_nothing)
{
	uint32_t steps[] = { SLURM_BATCH_SCRIPT, SLURM_EXTERN_CONT, SLURM_INTERACTIVE_STEP };
	const char *h = "{\"env\": [[\"MOONCAKE_MASTER\", \"x\"]], \"peer\": \"127.0.0.1\"}";

	in_tmpdir();
	for (size_t i = 0; i < 3; i++) {
		remote_step(steps[i], TRT, "decode", h, NULL);
		ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
		ck_assert_ptr_null(stub_getenv("MOONCAKE_MASTER"));
		slurm_spank_exit(NULL, 0, NULL);
	}
	/* even a bad plugstack line never fails the batch step (node drain) */
	{
		char *bad[] = { "colour=blue", NULL };

		remote_step(SLURM_BATCH_SCRIPT, TRT, "decode", NULL, bad);
		ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
		slurm_spank_exit(NULL, 0, NULL);
	}
}
END_TEST

START_TEST(stepd_inherited_recipe_without_role)
{
	in_tmpdir();
	remote_step(2, "elsewhere.yaml", NULL, NULL, NULL);
	stub_setenv("SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_recipe", "elsewhere.yaml");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_ptr_null(stub_getenv("MOONCAKE_MASTER"));
	ck_assert_int_eq(stub.errors, 0);
	slurm_spank_exit(NULL, 0, NULL);
}
END_TEST

START_TEST(stepd_errors_return_minus_one)
{
	char *bad[] = { "colour=blue", NULL }, *long_value;
	const char *h = "{\"env\": [], \"peer\": \"\"}";

	in_tmpdir();
	/* a plugstack problem is raised in task_init, not in init */
	remote_step(1, TRT, "decode", h, bad);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains("unknown argument 'colour=blue'");
	slurm_spank_exit(NULL, 0, NULL);
	/* a role, but nothing handed over: srun's host lacks the plugin */
	remote_step(1, TRT, "decode", NULL, NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains(
		"mooncake: srun handed this task no Mooncake environment (SLURM_MOONCAKE_TASK is not set): is spank_mooncake.so in the plugstack.conf of the host srun ran on");
	slurm_spank_exit(NULL, 0, NULL);
	/* something else handed over */
	remote_step(1, TRT, "decode", "[1, 2]", NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains("mooncake: SLURM_MOONCAKE_TASK is not what srun hands over");
	slurm_spank_exit(NULL, 0, NULL);
	/* a handover of another version of the plugin (srun's host) */
	remote_step(1, TRT, "decode", "{\"v\": 1, \"env\": [], \"peer\": \"\"}", NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains(
		"mooncake: srun handed this task a Mooncake environment of format 1, and this node's spank_mooncake.so reads formats 2 and 3: srun's host and this node run different versions of the plugin");
	slurm_spank_exit(NULL, 0, NULL);
	/* a handed-over variable longer than a task reads fails the task as
	 * such, never as unset (the handover, or the lenders after it) */
	long_value = malloc(MCP_VAR_MAX + 1);
	ck_assert_ptr_nonnull(long_value);
	memset(long_value, 'x', MCP_VAR_MAX);
	long_value[MCP_VAR_MAX] = '\0';
	remote_step(1, TRT, "decode", long_value, NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains(
		"mooncake: SLURM_MOONCAKE_TASK is longer than the 65535 bytes a task reads: srun's plugin hands over less");
	slurm_spank_exit(NULL, 0, NULL);
	remote_step(1, TRT, "decode", h, NULL);
	stub_setenv("SLURM_MOONCAKE_LENDERS", long_value);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains("mooncake: SLURM_MOONCAKE_LENDERS is longer than the 65535 bytes a task reads");
	slurm_spank_exit(NULL, 0, NULL);
	free(long_value);
}
END_TEST

/* The ports variable is the user's to set: a step the plugin did not
 * launch as a job's master step (no guard that names the same ports, or
 * more than one task on the node) that sets it fails, saying so, and
 * makes root reserve nothing (issue 34.4) */
START_TEST(stepd_only_a_master_step_claims_ports)
{
	char *guard = mcp_guard_value(1, 10, 3, &(struct mcr_ports){ 8990, 8991, 8992 }, "/x");

	in_tmpdir();
	/* an ordinary step of any user that sets it */
	master_step(NULL, MCP_PORTS_VAR, "8990,8991,8992");
	ck_assert_int_eq(slurm_spank_task_init_privileged(NULL, 0, NULL), -1);
	ck_log_contains(
		"mooncake: SLURM_MOONCAKE_MASTER_PORTS='8990,8991,8992' is set on a step the plugin did not launch as a job's master step");
	slurm_spank_exit(NULL, 0, NULL);
	master_step(NULL, MCP_PORTS_VAR, "8990,8991,8992");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains("is set on a step the plugin did not launch as a job's master step");
	slurm_spank_exit(NULL, 0, NULL);
	/* a guard that names other ports */
	master_step(NULL, MCP_PORTS_VAR, "8993,8994,8995");
	stub_setenv(MCP_GUARD_VAR, guard);
	ck_assert_int_eq(slurm_spank_task_init_privileged(NULL, 0, NULL), -1);
	ck_log_contains("is set on a step the plugin did not launch as a job's master step");
	slurm_spank_exit(NULL, 0, NULL);
	/* two tasks on the node */
	master_step(NULL, MCP_PORTS_VAR, "8990,8991,8992");
	stub_setenv(MCP_GUARD_VAR, guard);
	stub.local_tasks = 2;
	ck_assert_int_eq(slurm_spank_task_init_privileged(NULL, 0, NULL), -1);
	ck_log_contains("or it runs 2 tasks on this node)");
	slurm_spank_exit(NULL, 0, NULL);
	free(guard);
}
END_TEST

/* As Slurm runs it, the master step claims its ports in
 * task_init_privileged (still root); a refusal there fails the task */
START_TEST(stepd_master_step_claims_its_ports_privileged)
{
	char *guard = mcp_guard_value(1, 10, 3, &(struct mcr_ports){ 8990, 8991, 8992 }, "/x");
	int busy;

	in_tmpdir();
	master_step(NULL, MCP_PORTS_VAR, "8990,8991,8992");
	stub_setenv(MCP_GUARD_VAR, guard);
	ck_assert_int_eq(slurm_spank_task_init_privileged(NULL, 0, NULL), 0);
	ck_assert_ptr_null(stub_getenv(MCP_PORTS_VAR));
	ck_assert_int_eq(stub.errors, 0);
	slurm_spank_exit(NULL, 0, NULL);
	busy = hold_port(8992);
	master_step(NULL, MCP_PORTS_VAR, "8990,8991,8992");
	stub_setenv(MCP_GUARD_VAR, guard);
	ck_assert_int_eq(slurm_spank_task_init_privileged(NULL, 0, NULL), -1);
	ck_log_contains("mooncake: port 8992 (metrics) on ");
	ck_log_contains(" is taken: another process listens on it; the srun that started this step tries other ports");
	ck_assert_ptr_null(stub_getenv(MCP_PORTS_VAR));
	slurm_spank_exit(NULL, 0, NULL);
	close(busy);
	/* a port no master of this cluster has: the variable is the user's */
	free(guard);
	guard = mcp_guard_value(1, 10, 3, &(struct mcr_ports){ 22, 8991, 8992 }, "/x");
	master_step(NULL, MCP_PORTS_VAR, "22,8991,8992");
	stub_setenv(MCP_GUARD_VAR, guard);
	ck_assert_int_eq(slurm_spank_task_init_privileged(NULL, 0, NULL), -1);
	ck_log_contains("mooncake: port 22 (RPC) is not a port of mooncake_master on this cluster");
	slurm_spank_exit(NULL, 0, NULL);
	/* a task of a role step has no ports to claim */
	ck_assert_int_eq(init(S_CTX_REMOTE, NULL), 0);
	stub.step_id = 5;
	ck_assert_int_eq(slurm_spank_task_init_privileged(NULL, 0, NULL), 0);
	ck_assert_int_eq(stub.errors, 0);
	slurm_spank_exit(NULL, 0, NULL);
	/* plugstack.conf arguments the plugin refuses fail the master step
	 * (slurmstepd loaded it all the same), saying which */
	{
		char *bad[] = { "colour=blue", NULL };

		master_step(bad, MCP_PORTS_VAR, "8990,8991,8992");
		ck_assert_int_eq(slurm_spank_task_init_privileged(NULL, 0, NULL), -1);
		ck_log_contains("unknown argument 'colour=blue'");
		slurm_spank_exit(NULL, 0, NULL);
	}
	free(guard);
}
END_TEST

START_TEST(stepd_sglang_gets_variables_no_path)
{
	char *h;

	in_tmpdir();
	write_file("sglang.yaml", SGLANG);
	h = handover_of("sglang.yaml", "prefill");
	remote_step(1, "sglang.yaml", "prefill", h, NULL);
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_ptr_null(stub_getenv("MOONCAKE_CONFIG_PATH"));
	ck_assert_str_eq(stub_getenv("MOONCAKE_MASTER"), "127.0.0.1:8700");
	ck_assert_str_eq(stub_getenv("MOONCAKE_PROTOCOL"), "tcp");
	slurm_spank_exit(NULL, 0, NULL);
	free(h);
}
END_TEST

/* vLLM device_names_by_gpu: the task's file follows its physical GPUs,
 * also when ConstrainDevices renumbers CUDA_VISIBLE_DEVICES from 0; it is
 * what the library renders for those GPUs */
START_TEST(stepd_vllm_per_gpu_file)
{
	char want[512], path[512], *h;
	char *text;
	FILE *f;

	in_tmpdir();
	write_file("vllm.yaml", VLLM_GPU);
	h = handover_of("vllm.yaml", "prefill");
	remote_step(1, "vllm.yaml", "prefill", h, NULL);
	stub_setenv("CUDA_VISIBLE_DEVICES", "0,1");
	stub_setenv("SLURM_STEP_GPUS", "2,3");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	snprintf(want, sizeof(want), "%s/outputs/4301/logs/mooncake_store_config_gpu2-3.json", case_dir);
	ck_assert_str_eq(stub_getenv("MOONCAKE_CONFIG_PATH"), want);
	f = fopen(want, "r");
	ck_assert_ptr_nonnull(f);
	text = calloc(1, 4096);
	ck_assert_uint_gt(fread(text, 1, 4095, f), 0);
	fclose(f);
	ck_assert_str_eq(text, "{\n  \"protocol\": \"rdma\",\n  \"master_server_address\": \"127.0.0.1:8700\",\n"
			       "  \"metadata_server\": \"P2PHANDSHAKE\",\n  \"device_name\": \"mlx5_1\"\n}");
	/* vLLM's store worker reads the node's address from its own variable */
	ck_assert_str_eq(stub_getenv("MOONCAKE_REQUESTER_LOCAL_HOSTNAME"), "127.0.0.1");
	ck_assert_str_eq(stub_getenv("MOONCAKE_LOCAL_HOSTNAME"), "127.0.0.1");
	free(text);
	slurm_spank_exit(NULL, 0, NULL);
	/* unconstrained: CUDA_VISIBLE_DEVICES holds physical ids already */
	remote_step(1, "vllm.yaml", "prefill", h, NULL);
	stub_setenv("CUDA_VISIBLE_DEVICES", "1,2");
	stub_setenv("SLURM_STEP_GPUS", "1,2");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	snprintf(path, sizeof(path), "%s/outputs/4301/logs/mooncake_store_config_gpu1-2.json", case_dir);
	ck_assert_str_eq(stub_getenv("MOONCAKE_CONFIG_PATH"), path);
	f = fopen(path, "r");
	text = calloc(1, 4096);
	ck_assert_uint_gt(fread(text, 1, 4095, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "\"device_name\": \"mlx5_0,mlx5_1\""));
	free(text);
	slurm_spank_exit(NULL, 0, NULL);
	/* a GPU outside the list */
	remote_step(1, "vllm.yaml", "prefill", h, NULL);
	stub_setenv("CUDA_VISIBLE_DEVICES", "5");
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains("does not cover physical GPUs [5]");
	slurm_spank_exit(NULL, 0, NULL);
	free(h);
}
END_TEST

/* a segment its node cannot lend fails the task when it starts, with the
 * numbers: the node's memory (sysinfo) against the step's tasks on it
 * times the segment srun handed over (what TRT-LLM reads: 4096 TiB passes
 * check); a segment that fits passes, and so does a role that lends
 * nothing */
static const char HUGE[] =
	"schema: 2\n"
	"engine: {type: trtllm, served_model_name: Qwen/Qwen3-0.6B}\n"
	"frontend: {type: trtllm_serve}\n"
	"roles:\n"
	"  prefill: {args: {kv_connector_config: {connector: mooncake-store}}, mooncake_store_config: {global_segment_size: 4096TiB}}\n"
	"  decode: {args: {kv_connector_config: {connector: mooncake-store}}, mooncake_store_config: {global_segment_size: 0}}\n"
	"  agg: {args: {kv_connector_config: {connector: mooncake-store}}, mooncake_store_config: {global_segment_size: 16MiB}}\n"
	"services:\n"
	"  - {name: mooncake-master, type: mooncake-master, options: {store_config: {protocol: tcp}}}\n";

START_TEST(stepd_segment_the_node_cannot_lend)
{
	struct sysinfo si;
	char *h;

	ck_assert_int_eq(sysinfo(&si), 0);
	in_tmpdir();
	write_file("huge.yaml", HUGE);
	h = handover_of("huge.yaml", "prefill");
	remote_step(1, "huge.yaml", "prefill", h, NULL);
	stub.hostname = "10.0.0.7";
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), -1);
	ck_log_contains(
		"mooncake: each task of this step lends a segment of 4503599627370496 bytes (4194304.0 GiB, roles.prefill.mooncake_store_config.global_segment_size) to the job's pool, and its 1 task on ");
	ck_log_contains(" would lend 4194304.0 GiB in all, more than the node's memory, ");
	ck_log_contains("no node lends more than it has; give each task a share of its node's memory there");
	ck_assert_ptr_null(stub_getenv("MOONCAKE_CONFIG_PATH")); /* nothing set */
	slurm_spank_exit(NULL, 0, NULL);
	free(h);
	/* 16 MiB fits a node, 3 tasks of it too; 0 is nothing */
	h = handover_of("huge.yaml", "agg");
	remote_step(1, "huge.yaml", "agg", h, NULL);
	stub.hostname = "10.0.0.7";
	stub.local_tasks = 3;
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	slurm_spank_exit(NULL, 0, NULL);
	free(h);
	h = handover_of("huge.yaml", "decode");
	remote_step(1, "huge.yaml", "decode", h, NULL);
	stub.hostname = "10.0.0.7";
	ck_assert_int_eq(slurm_spank_task_init(NULL, 0, NULL), 0);
	ck_assert_int_eq(stub.errors, 0);
	slurm_spank_exit(NULL, 0, NULL);
	free(h);
}
END_TEST

Suite *stepd_suite(void)
{
	Suite *s = suite_create("plugin-stepd");
	TCase *stepd = tcase_create("slurmstepd");

	tcase_add_checked_fixture(stepd, NULL, remove_tmpdir);
	tcase_add_test(stepd, stepd_task_gets_role_env);
	tcase_add_test(stepd, stepd_segment_the_node_cannot_lend);
	tcase_add_test(stepd, stepd_trtllm_node_file);
	tcase_add_test(stepd, stepd_reads_no_recipe);
	tcase_add_test(stepd, stepd_batch_step_gets_nothing);
	tcase_add_test(stepd, stepd_inherited_recipe_without_role);
	tcase_add_test(stepd, stepd_errors_return_minus_one);
	tcase_add_test(stepd, stepd_only_a_master_step_claims_ports);
	tcase_add_test(stepd, stepd_master_step_claims_its_ports_privileged);
	tcase_add_test(stepd, stepd_sglang_gets_variables_no_path);
	tcase_add_test(stepd, stepd_vllm_per_gpu_file);
	suite_add_tcase(s, stepd);
	return s;
}
