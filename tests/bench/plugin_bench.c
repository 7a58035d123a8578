/*
 * plugin_bench.c - what the plugin costs a job (make bench), measured side
 * by side in one run against the SPANK stub and a fake master
 * (tests/plugin/): numbers, not tests.
 *
 *   per task   task_init of a role step (the handover srun computed), CPU
 *              per task, next to what a task paid when it read the recipe
 *              itself (load + validate + env)
 *   per srun   init_post_opt of a role srun that joins a running master
 *              (state, probe of the RPC port, configs compared, handover)
 *   readiness  how long after the master's last port listens the srun
 *              that started it sees it ready
 * The per-srun ratio against a plain srun needs a cluster: srun_bench.sh.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_master.h"
#include "jobdir/jobdir.h"
#include "plugin/handover.h"
#include "stub.h"
#include "sys/sys.h"

/* the state file of a job directory, through its one writer and reader */
static int state_at(const char *dir, struct mcri_state *st, bool write)
{
	struct mcri_jobdir jd;
	struct mcr_error err = { 0 };
	int rc;

	if (mcri_jobdir_open(&jd, dir, getuid(), false, &err))
		return -1;
	rc = write ? mcri_state_write(&jd, st, &err) : mcri_state_read(&jd, st, &err);
	mcri_jobdir_close(&jd);
	return rc;
}

#define TRT MCK_TOP "/examples/trtllm-serve-disagg-mooncake.yaml"

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void die(const char *what)
{
	fprintf(stderr, "plugin_bench: %s\n%s", what, stub.log);
	exit(1);
}

/* srun's init_post_opt for `role` in job 4301, inside the allocation */
static int srun_once(char **av, const char *role)
{
	int ac = 0;

	while (av && av[ac])
		ac++;
	stub_reset(S_CTX_LOCAL);
	if (slurm_spank_init(NULL, ac, av) || stub_option("mooncake-recipe", TRT, 0) ||
	    stub_option("mooncake-role", role, 0))
		die("srun init");
	return slurm_spank_init_post_opt(NULL, 0, NULL);
}

static void write_state(const char *dir)
{
	struct mcri_state st = { 0 };
	struct mcr_error err;
	char logdir[600];

	snprintf(logdir, sizeof(logdir), "%s/outputs/4301/logs", dir);
	if (mcri_mkdir_p(logdir, 0755, &err))
		die("mkdir");
	st.phase = MCRI_PHASE_READY;
	st.attempt = 1;
	snprintf(st.infra_node, sizeof(st.infra_node), "n1");
	snprintf(st.infra_addr, sizeof(st.infra_addr), "127.0.0.1");
	st.ports = (struct mcr_ports){ 8700, 8701, 8702 };
	if (!realpath(TRT, st.recipe) || state_at(logdir, &st, true))
		die("state");
	snprintf(logdir, sizeof(logdir), "%s/outputs/4301/logs/mooncake_master.1.lock", dir);
	fclose(fopen(logdir, "w"));
}

int main(int argc, char **argv)
{
	const struct mcr_ports ports = { 8700, 8701, 8702 };
	int tasks = argc > 1 ? atoi(argv[1]) : 2000, sruns = argc > 2 ? atoi(argv[2]) : 200;
	char dir[] = "/tmp/mck-bench.XXXXXX", *handover;
	double t0, per_task, per_load, wall, cpu;
	pid_t master;

	int rc = fake_master_main(argc, argv);

	if (rc >= 0)
		return rc;
	if (!mkdtemp(dir) || chdir(dir) != 0)
		die("tmpdir");
	setenv("SLURM_JOB_ID", "4301", 1);
	master = fake_master_start(&ports, "abc");
	if (master < 0)
		die("fake master (run me in a network namespace of my own: tests/netns-run.sh)");
	write_state(dir);

	/* per srun: join the running master */
	if (srun_once(NULL, "decode"))
		die("srun");
	handover = strdup(getenv(MCP_TASK_VAR));
	slurm_spank_exit(NULL, 0, NULL);
	t0 = clock_s(CLOCK_MONOTONIC);
	cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	for (int i = 0; i < sruns; i++) {
		if (srun_once(NULL, "decode"))
			die("srun");
		slurm_spank_exit(NULL, 0, NULL);
	}
	wall = (clock_s(CLOCK_MONOTONIC) - t0) / sruns;
	cpu = (clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu) / sruns;
	printf("per srun  (joins a running master): %8.3f ms wall, %8.3f ms CPU  (%d sruns)\n", wall * 1e3, cpu * 1e3,
	       sruns);

	/* per task: apply the handover (the whole plugin stack of a task:
	 * init, options, task_init, exit); against loading the recipe. The
	 * first task of a node also records the node (a file, once per node
	 * and step): measured apart. */
	for (int first = 1; first >= 0; first--) {
		int n = first ? tasks / 10 : tasks;

		t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		for (int i = 0; i < n; i++) {
			stub_reset(S_CTX_REMOTE);
			stub.step_id = (uint32_t)i + 3; /* each a step of its own, as in a job */
			stub.task_id = first ? 0 : 1;
			stub_setenv(MCP_TASK_VAR, handover);
			if (slurm_spank_init(NULL, 0, NULL) || stub_option("mooncake-recipe", TRT, 1) ||
			    stub_option("mooncake-role", "decode", 1) || slurm_spank_task_init(NULL, 0, NULL))
				die("task_init");
			slurm_spank_exit(NULL, 0, NULL);
		}
		per_task = (clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0) / n;
		if (first)
			printf("per node  (its first task also records the node for status): %8.1f us CPU\n",
			       per_task * 1e6);
	}
	t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	for (int i = 0; i < tasks; i++) {
		struct mcr_recipe *r;
		struct mcr_env env;
		struct mcr_error err;
		struct mcr_env_input in = { "127.0.0.1:8700", "127.0.0.1", dir, NULL, "127.0.0.1", 0 };

		if (mcr_recipe_load_file(TRT, NULL, &r, &err) || mcr_worker_env(r, MCR_ROLE_DECODE, &in, &env, &err))
			die("load");
		mcr_env_free(&env);
		mcr_recipe_free(r);
	}
	per_load = (clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0) / tasks;
	printf("per task  (task_init, the handover): %8.1f us CPU; reading the recipe instead: %8.1f us (%.1fx)  (%d tasks)\n",
	       per_task * 1e6, per_load * 1e6, per_load / per_task, tasks);
	fake_master_stop(master);

	/* readiness: the starter against a master that listens 300 ms after
	 * its step starts (a fake srun); the delay between its last listen
	 * and srun seeing it ready */
	{
		char self[4096], script[8192], opt[600], stamp[600];
		char *av[] = { opt, NULL };
		double lat[9];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		FILE *f;

		if (n <= 0)
			die("readlink");
		self[n] = '\0';
		snprintf(stamp, sizeof(stamp), "%s/listening", dir);
		snprintf(
			script, sizeof(script),
			"#!/bin/sh\ncase \" $* \" in *\" --help \"*) exit 0;; esac\nsleep 0.3\nfor a; do case $a in --port=*) r=${a#*=};; --http_metadata_server_port=*) m=${a#*=};; --metrics_port=*) x=${a#*=};; esac; done\n"
			"FAKE_MASTER_STAMP=%s exec %s fake-master $r $m $x\n",
			stamp, self);
		snprintf(opt, sizeof(opt), "%s/srun", dir);
		f = fopen(opt, "w");
		fputs(script, f);
		fclose(f);
		chmod(opt, 0755);
		snprintf(opt, sizeof(opt), "srun=%s/srun", dir);
		for (int i = 0; i < 9; i++) {
			struct mcri_state st;
			char logdir[700];
			double listened = 0, ready;

			snprintf(logdir, sizeof(logdir), "rm -rf %s/outputs %s", dir, stamp);
			if (system(logdir) != 0)
				die("rm");
			if (srun_once(av, "prefill"))
				die("starting srun");
			ready = clock_s(CLOCK_REALTIME);
			slurm_spank_exit(NULL, 0, NULL);
			f = fopen(stamp, "r");
			if (!f || fscanf(f, "%lf", &listened) != 1)
				die("stamp");
			fclose(f);
			lat[i] = ready - listened;
			snprintf(logdir, sizeof(logdir), "%s/outputs/4301/logs", dir);
			if (state_at(logdir, &st, false) == 0 && st.srun_pid > 0) {
				kill((pid_t)st.srun_pid, SIGKILL);
				waitpid((pid_t)st.srun_pid, NULL, 0);
			}
		}
		qsort(lat, 9, sizeof(lat[0]), cmp_double);
		printf("readiness (seen after the last port listens): median %.0f ms, min %.0f, max %.0f  (9 starts)\n",
		       lat[4] * 1e3, lat[0] * 1e3, lat[8] * 1e3);
	}
	{
		char rm[64];

		snprintf(rm, sizeof(rm), "rm -rf %s", dir);
		if (system(rm) != 0)
			return 1;
	}
	return 0;
}
