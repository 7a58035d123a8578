/*
 * mooncake-recipe - check a recipe and render what the plugin would write.
 * A thin main over libmooncake_recipe: every rule lives in lib/.
 *
 * Exit status: 0 success, 1 the recipe is invalid, 2 usage or I/O error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "jobdir/jobdir.h" /* private, as below: the tool links the static libraries */
#include "mooncake_recipe.h"
#include "plugstack/plugstack.h"
#include "render/explain.h"
#include "sys/sys.h" /* private: mcri_mkdir_p, mcri_env_value_problem */

#ifndef MCR_VERSION
#define MCR_VERSION "0"
#endif

static void usage(FILE *f)
{
	fprintf(f, "usage: mooncake-recipe check RECIPE\n"
		   "       mooncake-recipe render RECIPE --infra-addr ADDR --out DIR\n"
		   "       mooncake-recipe env RECIPE --role ROLE --infra-addr ADDR --config-dir DIR\n"
		   "                           [--local-hostname ADDR]\n"
		   "       mooncake-recipe master-argv RECIPE [--binary PATH]\n"
		   "       mooncake-recipe explain RECIPE --role ROLE [--dir JOBDIR | --infra-addr ADDR\n"
		   "                           --config-dir DIR] [--local-hostname ADDR]\n"
		   "       mooncake-recipe status [--job JOBID | --dir DIR] [--json]\n"
		   "       mooncake-recipe sample --dir DIR [--interval SECONDS] [--report]\n"
		   "       mooncake-recipe plugstack [KEY=VALUE...]\n"
		   "       (render, env and master-argv: [--ports RPC,METADATA,METRICS])\n"
		   "       mooncake-recipe --version\n"
		   "\n"
		   "check        validate RECIPE as srtctl would (schema 2, Mooncake rules)\n"
		   "render       write the client-config files of RECIPE into DIR for a master\n"
		   "             on ADDR (port 8700, or --ports) and print each path\n"
		   "env          print the environment a task of ROLE gets (NAME=value lines)\n"
		   "master-argv  print the master's command line, one argument per line\n"
		   "explain      each key of ROLE's client config and each variable of its\n"
		   "             environment, with the layer and the file:line:col that set it\n"
		   "status       the pool of a running job: segments, bytes, keys, clients\n"
		   "             (inside an allocation: its job)\n"
		   "sample       the pool sampler the plugin runs as the job's mooncake-pool step\n"
		   "plugstack    check the plugin's arguments (its plugstack.conf line after\n"
		   "             the path) as the plugin does, and print every argument's value\n"
		   "\n"
		   "Exit status: 0 ok, 1 the recipe is invalid, 2 usage or I/O error.\n");
}

static int fail(const struct mcr_error *err)
{
	char msg[MCR_ERROR_MESSAGE_LENGTH];

	mcr_error_format(err, msg, sizeof(msg));
	fprintf(stderr, "%s\n", msg);
	return err->kind == MCR_EINVAL ? 1 : 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "infra-addr", required_argument, NULL, 'a' },
		{ "out", required_argument, NULL, 'o' },
		{ "role", required_argument, NULL, 'r' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "local-hostname", required_argument, NULL, 'l' },
		{ "binary", required_argument, NULL, 'b' },
		{ "ports", required_argument, NULL, 'p' },
		{ "dir", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *infra = NULL, *out = NULL, *role_name = NULL, *config_dir = NULL;
	const char *local = NULL, *binary = "mooncake_master", *cmd, *path, *job_dir = NULL;
	struct mcri_state job_master;
	struct mcri_jobdir jd;
	struct mcr_recipe *recipe = NULL;
	struct mcr_error err;
	struct mcr_ports ports = { .rpc = MCR_MASTER_PORT, .metadata = MCR_METADATA_PORT, .metrics = MCR_METRICS_PORT };
	char *master = NULL, end;
	int c, rc = 2;

	/* the pool's commands take no recipe */
	if (argc > 1 && strcmp(argv[1], "status") == 0)
		return cli_status(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "sample") == 0)
		return cli_sample(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "plugstack") == 0) {
		struct mcri_plugstack ps;

		if (mcri_plugstack_parse(&ps, argc - 2, argv + 2, &err))
			return fail(&err);
		mcri_plugstack_print(&ps, stdout);
		return 0;
	}
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("mooncake-recipe %s\n", MCR_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	path = argv[optind + 1];
	optind += 2;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			infra = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'r':
			role_name = optarg;
			break;
		case 'c':
			config_dir = optarg;
			break;
		case 'l':
			local = optarg;
			break;
		case 'b':
			binary = optarg;
			break;
		case 'p':
			if (sscanf(optarg, "%d,%d,%d%c", &ports.rpc, &ports.metadata, &ports.metrics, &end) != 3) {
				fprintf(stderr,
					"mooncake: --ports '%s': write three port numbers, RPC,METADATA,METRICS (e.g. 8700,8701,8702)\n",
					optarg);
				return 2;
			}
			break;
		case 'D':
			job_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "mooncake: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (strcmp(cmd, "check") && strcmp(cmd, "render") && strcmp(cmd, "env") && strcmp(cmd, "master-argv") &&
	    strcmp(cmd, "explain")) {
		fprintf(stderr, "mooncake: unknown command '%s'\n", cmd);
		usage(stderr);
		return 2;
	}
	/* what goes into NAME=value lines: one line each (rule E2) */
	{
		const char *const args[][2] = { { "--infra-addr", infra },
						{ "--config-dir", config_dir },
						{ "--local-hostname", local } };

		for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
			const char *problem = args[i][1] ? mcri_env_value_problem("X", args[i][1]) : NULL;

			if (problem) {
				fprintf(stderr, "mooncake: %s '", args[i][0]);
				for (const unsigned char *p = (const unsigned char *)args[i][1]; *p; p++)
					fprintf(stderr,
						*p == '\n'                ? "\\n"
						: *p < 0x20 || *p == 0x7f ? "\\x%02x"
									  : "%c",
						*p);
				fprintf(stderr,
					"' contains %s, which would break the NAME=value lines of the environment; give it on one line\n",
					problem);
				return 2;
			}
		}
	}
	if (out && !*out) {
		fprintf(stderr,
			"mooncake: render --out is empty; name the directory to write into (e.g. --out ./configs)\n");
		return 2;
	}
	if ((!strcmp(cmd, "render") && (!infra || !out)) ||
	    (!strcmp(cmd, "env") && (!infra || !role_name || !config_dir)) || (!strcmp(cmd, "explain") && !role_name)) {
		fprintf(stderr, "mooncake: %s needs %s\n", cmd,
			!strcmp(cmd, "render") ? "--infra-addr and --out"
			: !strcmp(cmd, "env")  ? "--role, --infra-addr and --config-dir"
					       : "--role");
		usage(stderr);
		return 2;
	}
	if (job_dir && strcmp(cmd, "explain") == 0) {
		/* the job's own master and directory, as its tasks get them */
		int bad = mcri_jobdir_open(&jd, job_dir, getuid(), false, &err) ||
			  mcri_state_read(&jd, &job_master, &err);

		mcri_jobdir_close(&jd);
		if (bad) {
			fprintf(stderr, "mooncake: explain --dir %s: %s\n", job_dir, err.text);
			return 1;
		}
		infra = infra ? infra : job_master.infra_addr;
		config_dir = config_dir ? config_dir : job_dir;
		ports = job_master.ports;
	} else if (job_dir) {
		fprintf(stderr, "mooncake: --dir is for explain (and status, sample)\n");
		return 2;
	}
	if (mcr_recipe_load_file(path, NULL, &recipe, &err))
		return fail(&err);
	for (size_t i = 0; i < mcr_recipe_warning_count(recipe); i++)
		fprintf(stderr, "%s\n", mcr_recipe_warning(recipe, i));
	if (infra && !(master = malloc(strlen(infra) + 8))) {
		fprintf(stderr, "mooncake: out of memory\n");
		goto out;
	}
	if (master)
		sprintf(master, "%s:%d", infra, ports.rpc);

	if (!strcmp(cmd, "check")) {
		char *roles = mcr_recipe_role_list(recipe), *lenders = mcri_explain_lenders(recipe);

		printf("%s: OK (engine %s; roles %s; %s%s)\n", path, mcr_engine_name(mcr_recipe_engine(recipe)),
		       roles ? roles : "?",
		       !mcr_recipe_has_master(recipe)       ? "no mooncake-master"
		       : mcr_recipe_external_master(recipe) ? "external mooncake-master"
							    : "the plugin starts mooncake-master",
		       lenders ? lenders : "");
		free(roles);
		free(lenders);
		rc = 0;
	} else if (!strcmp(cmd, "render")) {
		struct mcr_file_list files;

		if (mcr_client_configs(recipe, master, &files, &err) || mcri_mkdir_p(out, 0755, &err) ||
		    mcr_write_files(out, &files, &err)) {
			mcr_file_list_free(&files);
			rc = fail(&err);
			goto out;
		}
		for (size_t i = 0; i < files.count; i++)
			printf("%s/%s\n", out, files.files[i].name);
		if (files.count == 0)
			fprintf(stderr, "mooncake-recipe: %s: no client-config file to write: %s\n", path,
				!mcr_recipe_has_master(recipe) ? "the recipe has no mooncake-master service"
				: mcr_recipe_engine(recipe) == MCR_ENGINE_SGLANG
					? "SGLang workers read MOONCAKE_* variables, not a file"
					: "no role uses the Mooncake Store connector");
		mcr_file_list_free(&files);
		rc = 0;
	} else if (!strcmp(cmd, "env")) {
		struct mcr_env env;
		struct mcr_env_input in = { .master_address = master,
					    .metadata_host = infra,
					    .config_dir = config_dir,
					    .local_hostname = local ? local : infra,
					    .metadata_port = ports.metadata };
		enum mcr_role role;

		if (mcr_recipe_resolve_role(recipe, role_name, false, &role, &err) ||
		    mcr_worker_env(recipe, role, &in, &env, &err)) {
			rc = fail(&err);
			goto out;
		}
		for (size_t i = 0; i < env.count; i++)
			printf("%s=%s\n", env.vars[i].name, env.vars[i].value);
		mcr_env_free(&env);
		rc = 0;
	} else if (!strcmp(cmd, "explain")) {
		/* the node's address: a placeholder unless given */
		struct mcr_env_input in = { .master_address = master,
					    .metadata_host = infra,
					    .config_dir = config_dir,
					    .local_hostname = local,
					    .metadata_port = ports.metadata };
		enum mcr_role role;
		char *text;

		if (mcr_recipe_resolve_role(recipe, role_name, false, &role, &err) ||
		    !(text = mcri_explain(recipe, role, &in, &err))) {
			rc = fail(&err);
			goto out;
		}
		fputs(text, stdout);
		free(text);
		rc = 0;
	} else {
		char **v;

		if (mcr_master_argv(recipe, binary, &ports, &v, &err)) {
			rc = fail(&err);
			goto out;
		}
		for (char **p = v; *p; p++)
			printf("%s\n", *p);
		mcr_strv_free(v);
		rc = 0;
	}
out:
	free(master);
	mcr_recipe_free(recipe);
	return rc;
}
