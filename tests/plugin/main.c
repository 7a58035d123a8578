/* main.c - the plugin layer's suites (srun, srun_pool, srun_join,
 * srun_master, stepd, stepd_wait, guard, election, ports, container, steps,
 * container_alias, handover, ha_etcd, child), or, as
 * `plugin_tests fake-master RPC METADATA METRICS`, the fake master a fake
 * srun runs (fake_master.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_master.h"

Suite *srun_suite(void);
Suite *srun_pool_suite(void);
Suite *srun_join_suite(void);
Suite *srun_master_suite(void);
Suite *stepd_suite(void);
Suite *stepd_wait_suite(void);
Suite *guard_suite(void);
Suite *keep_suite(void);
Suite *election_suite(void);
Suite *ports_suite(void);
Suite *container_suite(void);
Suite *steps_suite(void);
Suite *container_alias_suite(void);
Suite *handover_suite(void);
Suite *ha_etcd_suite(void);
Suite *child_suite(void);
Suite *lenders_suite(void);

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	if ((failed = fake_master_main(argc, argv)) >= 0)
		return failed;
	sr = srunner_create(election_suite());
	srunner_add_suite(sr, ports_suite());
	srunner_add_suite(sr, srun_suite());
	srunner_add_suite(sr, srun_pool_suite());
	srunner_add_suite(sr, srun_join_suite());
	srunner_add_suite(sr, srun_master_suite());
	srunner_add_suite(sr, stepd_suite());
	srunner_add_suite(sr, stepd_wait_suite());
	srunner_add_suite(sr, guard_suite());
	srunner_add_suite(sr, keep_suite());
	srunner_add_suite(sr, container_suite());
	srunner_add_suite(sr, steps_suite());
	srunner_add_suite(sr, container_alias_suite());
	srunner_add_suite(sr, handover_suite());
	srunner_add_suite(sr, ha_etcd_suite());
	srunner_add_suite(sr, child_suite());
	srunner_add_suite(sr, lenders_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
