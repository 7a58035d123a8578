/*
 * plugin_case.c - what the plugin test files share (plugin_case.h): the
 * scratch submit directory, the callbacks up to a context's point, a job
 * directory an earlier srun left, a ready fake master and its handover.
 */
#include <stdlib.h>

#include <slurm/slurm.h>

#include "jobdir/jobdir.h"
#include "plugin/handover.h"
#include "plugin_case.h"
#include "sys/sys.h"

char case_dir[256];

/* a fresh working directory (the submit directory) per test */
void in_tmpdir(void)
{
	remove_tmpdir();
	testdir_make(case_dir, sizeof(case_dir), "plugin");
	unsetenv("SLURM_SUBMIT_DIR");
	unsetenv("SLURM_JOB_ID");
	unsetenv("SLURM_HET_JOB_ID");
	unsetenv("SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_recipe");
	unsetenv(MCP_TASK_VAR);
}

/* checked teardown (runs in the test's own process): no temporary
 * directory outlives its test */
void remove_tmpdir(void)
{
	testdir_remove(case_dir);
}

bool exists(const char *fmt, const char *arg)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), fmt, arg);
	return stat(path, &st) == 0;
}

/* slurm_spank_init with plugstack arguments (NULL-terminated) */
int init(spank_context_t ctx, char **av)
{
	int ac = 0;

	while (av && av[ac])
		ac++;
	stub_reset(ctx);
	return slurm_spank_init(NULL, ac, av);
}

void master_step(char **av, const char *var, const char *value)
{
	ck_assert_int_eq(init(S_CTX_REMOTE, av), 0);
	stub.step_id = 4;
	if (var)
		stub_setenv(var, value);
}

/* srun (local context) with plugstack arguments `av`, the recipe and the
 * role (either may be NULL) up to init_post_opt; its return code */
int srun_post_opt(char **av, const char *recipe, const char *role)
{
	ck_assert_int_eq(init(S_CTX_LOCAL, av), 0);
	if (recipe)
		ck_assert_int_eq(stub_option("mooncake-recipe", recipe, 0), 0);
	if (role)
		ck_assert_int_eq(stub_option("mooncake-role", role, 0), 0);
	return slurm_spank_init_post_opt(NULL, 0, NULL);
}

/* What an earlier srun of job 4301 left in its directory: the lock of
 * attempt 1 (held from another host) and the state `st` (attempt 1, infra
 * node n1 at 127.0.0.1 on 8700-8702 unless set). Returns the job directory. */
const char *record_state(struct mcri_state *st)
{
	static char logdir[512];
	struct mcr_error err = { 0 };

	snprintf(logdir, sizeof(logdir), "%s/outputs/4301/logs", case_dir);
	ck_assert_int_eq(mcri_mkdir_p(logdir, 0755, &err), 0);
	write_file("outputs/4301/logs/mooncake_master.1.lock", "1 elsewhere\n");
	st->attempt = 1;
	if (!st->infra_node[0])
		snprintf(st->infra_node, sizeof(st->infra_node), "n1");
	if (!st->infra_addr[0])
		snprintf(st->infra_addr, sizeof(st->infra_addr), "127.0.0.1");
	if (!st->ports.rpc)
		st->ports = (struct mcr_ports){ 8700, 8701, 8702 };
	ck_assert_int_eq(testdir_state_write(logdir, st), 0);
	return logdir;
}

const struct mcr_ports DEFAULT_PORTS = { 8700, 8701, 8702 };

/* a ready master of job 4301 on n1 (127.0.0.1), started from `recipe` */
pid_t ready_master(const char *recipe)
{
	struct mcri_state st = { 0 };
	char path[PATH_MAX];
	pid_t pid = fake_master_start(&DEFAULT_PORTS, "abc");

	ck_assert_int_gt(pid, 0);
	st.phase = MCRI_PHASE_READY;
	ck_assert_ptr_nonnull(realpath(recipe, path));
	snprintf(st.recipe, sizeof(st.recipe), "%s", path);
	record_state(&st);
	return pid;
}

char *srun_handover(const char *recipe, const char *role)
{
	char *text;

	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(NULL, recipe, role), 0);
	ck_assert_int_eq(stub.errors, 0);
	ck_assert_ptr_nonnull(getenv(MCP_TASK_VAR));
	text = strdup(getenv(MCP_TASK_VAR));
	unsetenv(MCP_TASK_VAR);
	unsetenv("SLURM_JOB_ID");
	slurm_spank_exit(NULL, 0, NULL);
	return text;
}

/* What srun hands the tasks of a `role` step of `recipe` in job 4301,
 * whose master runs (heap copy). */
char *handover_of(const char *recipe, const char *role)
{
	pid_t master = ready_master(recipe);
	char *text = srun_handover(recipe, role);

	fake_master_stop(master);
	return text;
}

/* a listener on `port` (another program holding it) */
int hold_port(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(fd, 1), 0);
	return fd;
}

/* a remote step of job 4301 with the recipe and role options and, when
 * given, what srun handed over */
void remote_step(uint32_t step_id, const char *recipe, const char *role, const char *handover, char **av)
{
	ck_assert_int_eq(init(S_CTX_REMOTE, av), 0);
	stub.step_id = step_id;
	stub_setenv("SLURM_SUBMIT_DIR", case_dir);
	if (handover)
		stub_setenv(MCP_TASK_VAR, handover);
	ck_assert_int_eq(stub_option("mooncake-recipe", recipe, 1), 0);
	if (role)
		ck_assert_int_eq(stub_option("mooncake-role", role, 1), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(NULL, 0, NULL), 0);
}
