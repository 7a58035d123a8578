/* main.c - the plugin layer's suites (plugin, election, ports, container,
 * steps, container_alias, handover), or, as
 * `plugin_tests fake-master RPC METADATA METRICS`, the fake master a fake
 * srun runs (fake_master.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_master.h"
#include "plugin.h"

Suite *plugin_suite(void);
Suite *election_suite(void);
Suite *ports_suite(void);
Suite *container_suite(void);
Suite *steps_suite(void);
Suite *container_alias_suite(void);
Suite *handover_suite(void);

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	if (argc == 5 && strcmp(argv[1], "fake-master") == 0) {
		struct mcr_ports p = { atoi(argv[2]), atoi(argv[3]), atoi(argv[4]) };
		const char *guard = getenv(MCP_GUARD_VAR);
		struct mcr_error err;

		/* as the master step's task does before it becomes the master */
		if (guard && mcp_guard_start(guard, 0, &err)) {
			fprintf(stderr, "%s\n", err.text);
			return 1;
		}
		fake_master_serve(&p, "");
		return 1;
	}
	/* a master that binds late: another process may have its ports by then */
	if (argc == 5 && strcmp(argv[1], "fake-master-late") == 0) {
		struct mcr_ports p = { atoi(argv[2]), atoi(argv[3]), atoi(argv[4]) };
		const char *guard = getenv(MCP_GUARD_VAR);
		struct mcr_error err;

		if (guard && mcp_guard_start(guard, 0, &err)) {
			fprintf(stderr, "%s\n", err.text);
			return 1;
		}
		sleep(3);
		fake_master_serve(&p, "");
		return 1;
	}
	sr = srunner_create(election_suite());
	srunner_add_suite(sr, ports_suite());
	srunner_add_suite(sr, plugin_suite());
	srunner_add_suite(sr, container_suite());
	srunner_add_suite(sr, steps_suite());
	srunner_add_suite(sr, container_alias_suite());
	srunner_add_suite(sr, handover_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
