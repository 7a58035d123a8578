/* main.c - the plugin layer's suites (plugin, election, ports, container), or, as
 * `plugin_tests fake-master RPC METADATA METRICS`, the fake master a fake
 * srun runs (fake_master.c). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fake_master.h"

Suite *plugin_suite(void);
Suite *election_suite(void);
Suite *ports_suite(void);
Suite *container_suite(void);

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	if (argc == 5 && strcmp(argv[1], "fake-master") == 0) {
		struct mcr_ports p = { atoi(argv[2]), atoi(argv[3]), atoi(argv[4]) };

		fake_master_serve(&p, "");
		return 1;
	}
	sr = srunner_create(election_suite());
	srunner_add_suite(sr, ports_suite());
	srunner_add_suite(sr, plugin_suite());
	srunner_add_suite(sr, container_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
