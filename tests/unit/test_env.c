/* test_env.c - the variables a recipe may not set (E3: the plugin's own)
 * and the ones it is warned about (LD_*, PATH, SLURM_*): reference §8, §11. */
#include "testutil.h"

START_TEST(plugin_variables_refused)
{
	ck_assert_str_eq(
		load_err(SGLANG_ENV_RECIPE("{SLURM_MOONCAKE_MASTER_PORTS: '1,2,3'}")),
		"mooncake: r.yaml:4:19: roles.prefill.env.SLURM_MOONCAKE_MASTER_PORTS: variables named SLURM_MOONCAKE_* belong to the plugin (rule E3): set in a task, they would hand a nested srun a forged Mooncake environment or make it start a master step of its own; remove it");
	ck_assert_contains(load_err(SGLANG_ENV_RECIPE(
				   "{SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_role: decode}")),
			   "variables named SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_* belong to the plugin (rule E3)");
}
END_TEST

START_TEST(task_wide_variables_warned)
{
	struct mcr_recipe *r = load_ok(
		SGLANG_ENV_RECIPE("{LD_PRELOAD: /x.so, PATH: /bin, SLURM_CPU_BIND: none, MOONCAKE_PROTOCOL: tcp}"));

	ck_assert_uint_eq(mcr_recipe_warning_count(r), 3);
	ck_assert_str_eq(
		mcr_recipe_warning(r, 0),
		"mooncake: warning: r.yaml:4:19: roles.prefill.env.LD_PRELOAD: sets LD_PRELOAD, which changes the dynamic loader of every program the task starts, not only its Mooncake client; set it in the job script or the srun line unless the recipe must carry it");
	ck_assert_contains(mcr_recipe_warning(r, 1),
			   "roles.prefill.env.PATH: sets PATH, which changes which programs every task runs");
	ck_assert_contains(
		mcr_recipe_warning(r, 2),
		"roles.prefill.env.SLURM_CPU_BIND: sets SLURM_CPU_BIND, which changes what Slurm and the sruns started inside the task do");
	mcr_recipe_free(r);
}
END_TEST

Suite *env_suite(void)
{
	Suite *s = suite_create("env");
	TCase *tc = tcase_create("env");

	tcase_add_test(tc, plugin_variables_refused);
	tcase_add_test(tc, task_wide_variables_warned);
	suite_add_tcase(s, tc);
	return s;
}
