/*
 * test_srun_master.c - the plugin's callbacks against the SPANK stub (stub.c):
 * srun starting the master step (the fake srun runs fake_master.c): ports,
 * readiness, foreign listeners, a dead starter, the sampler step.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

#include <slurm/slurm.h>

#include "net/net.h"
#include "plugin/handover.h"
#include "plugin_case.h"
#include "steps/step.h"

/* A fake srun that runs the fake master on the ports of its argv. */
static void fake_srun(char *opt, size_t size)
{
	char self[PATH_MAX], script[PATH_MAX + 600], path[300];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	snprintf(path, sizeof(path), "%s/fake-srun", case_dir);
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n[ \"$1\" = --help ] && exit 0\n"
		 "for a; do case $a in --port=*) r=${a#*=};; --http_metadata_server_port=*) m=${a#*=};;"
		 " --metrics_port=*) x=${a#*=};; esac; done\nexec %s fake-master $r $m $x\n",
		 self);
	write_file(path, script);
	ck_assert_int_eq(chmod(path, 0755), 0);
	snprintf(opt, size, "srun=%s", path);
}

/* the master the election started: its state, and stop it */
static void stop_started_master(struct mcri_state *st)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/outputs/4301/logs", case_dir);
	ck_assert_int_eq(testdir_state_read(path, st), 0);
	ck_assert_int_gt(st->srun_pid, 0);
	fake_master_stop((pid_t)st->srun_pid);
}

/* a fake srun that does `body` (a shell snippet); `srun --help` (the
 * plugin's look for pyxis, container.c) lists nothing */
static void script_srun(char *opt, size_t size, const char *body)
{
	char path[300], text[4096];

	snprintf(path, sizeof(path), "%s/script-srun", case_dir);
	snprintf(text, sizeof(text), "#!/bin/sh\n[ \"$1\" = --help ] && exit 0\n%s\n", body);
	write_file(path, text);
	ck_assert_int_eq(chmod(path, 0755), 0);
	snprintf(opt, size, "srun=%s", path);
}

/* a fake srun that writes its argv and environment into `out` */
static void recording_srun(const char *path, const char *out)
{
	char text[10000];

	snprintf(text, sizeof(text),
		 "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done >%s.tmp\nenv >%s.env\n"
		 "mv %s.tmp %s\n",
		 out, out, out, out);
	write_file(path, text);
	ck_assert_int_eq(chmod(path, 0755), 0);
}

static bool wait_file(const char *path)
{
	struct stat sb;

	for (int i = 0; i < 200; i++) {
		if (stat(path, &sb) == 0)
			return true;
		usleep(20000);
	}
	return false;
}

START_TEST(srun_starts_the_master_on_srtctls_ports)
{
	char opt[400];
	char *av[] = { opt, NULL };
	struct mcri_state st;

	in_tmpdir();
	fake_srun(opt, sizeof(opt));
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	ck_log_contains(
		"starting mooncake_master on n1 (127.0.0.1, ports 8700, 8701, 8702) as step mooncake-master of job 4301");
	ck_log_contains("mooncake_master ready on n1 (127.0.0.1:8700) after ");
	ck_assert_ptr_nonnull(strstr(getenv(MCP_TASK_VAR), "[\"MOONCAKE_MASTER\",\"127.0.0.1:8700\"]"));
	slurm_spank_exit(NULL, 0, NULL);
	stop_started_master(&st);
	ck_assert_int_eq(st.phase, MCRI_PHASE_READY);
	ck_assert_int_eq(st.ports.rpc, 8700);
}
END_TEST

/* ports=auto: 8701 is taken on the infra node, the master gets a triple
 * of port_range, and every artifact says so */
START_TEST(srun_starts_the_master_on_free_ports)
{
	char opt[400], path[512], *text;
	char *av[] = { opt, NULL };
	struct mcri_state st;
	int busy;
	FILE *f;

	in_tmpdir();
	busy = hold_port(8701);
	fake_srun(opt, sizeof(opt));
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	/* job 4301: the triple at offset 4301 % 100 = 1 of 8700-8999 */
	ck_log_contains("starting mooncake_master on n1 (127.0.0.1, ports 8703, 8704, 8705)");
	text = getenv(MCP_TASK_VAR);
	ck_assert_ptr_nonnull(strstr(text, "[\"MOONCAKE_MASTER\",\"127.0.0.1:8703\"]"));
	ck_assert_ptr_nonnull(strstr(text, "[\"MOONCAKE_TE_META_DATA_SERVER\",\"http://127.0.0.1:8704/metadata\"]"));
	slurm_spank_exit(NULL, 0, NULL);
	close(busy);
	stop_started_master(&st);
	ck_assert_int_eq(st.ports.rpc, 8703);
	ck_assert_int_eq(st.ports.metadata, 8704);
	ck_assert_int_eq(st.ports.metrics, 8705);
	snprintf(path, sizeof(path), "%s/outputs/4301/logs/mooncake_store_config_prefill.json", case_dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	text = calloc(1, 8192);
	ck_assert_uint_gt(fread(text, 1, 8191, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "\"master_server_address\": \"127.0.0.1:8703\""));
	free(text);
}
END_TEST

/* The job's directory holds the pool of another job that got this job's
 * id (a new slurmctld state, another cluster on the same file system):
 * its state says ready, another start (and here another cluster). The
 * srun tells it from this job's own pool without asking slurmctld when
 * the environment says when this job started (Slurm 23.02 on), and by
 * asking once the old pool does not answer (22.05); either way it starts
 * this job's pool afresh over it, keeps the old job's log, and says so
 * (issue 33.4) */
START_TEST(srun_starts_afresh_over_another_job_of_its_id)
{
	char opt[400], path[600];
	char *av[] = { opt, NULL };
	struct mcri_state st;

	for (int release = 0; release < 2; release++) {
		const char *logdir;

		in_tmpdir();
		fake_srun(opt, sizeof(opt));
		memset(&st, 0, sizeof(st));
		st.phase = MCRI_PHASE_READY;
		st.master_step = 0;
		st.job_start = 1000;
		snprintf(st.cluster, sizeof(st.cluster), "old");
		snprintf(st.job_id, sizeof(st.job_id), "4301");
		snprintf(st.recipe, sizeof(st.recipe), "/elsewhere/r.yaml");
		logdir = record_state(&st);
		snprintf(path, sizeof(path), "%s/mooncake_master.log", logdir);
		write_file(path, "the earlier job's master log\n");
		setenv("SLURM_JOB_ID", "4301", 1);
		setenv("SLURM_CLUSTER_NAME", "old", 1); /* the same cluster, its ids begun again */
		if (release == 0) {                     /* 23.02 on: srun knows when its job started */
			setenv("SLURM_JOB_START_TIME", "2000", 1);
		} else { /* 22.05: slurmctld, asked once the old pool is found dead */
			unsetenv("SLURM_JOB_START_TIME");
			stub.step_ended = true;
		}
		stub.start_time = 2000;
		ck_assert_msg(srun_post_opt(av, TRT, "prefill") == 0, "%s", stub.log);
		ck_log_contains(
			"/outputs/4301/logs held the pool of another job 4301 (cluster old, started at 1000), which has ended: this job's pool starts afresh there; that job's logs are kept as mooncake_master.log.job4301-1000");
		ck_log_contains("starting mooncake_master on n1 (127.0.0.1, ports 8700, 8701, 8702)");
		ck_assert_ptr_null(strstr(stub.log, "has stopped"));
		ck_assert_ptr_nonnull(getenv(MCP_TASK_VAR));
		/* slurmctld confirms what the environment (or, on 22.05, the dead
		 * pool) says; the starter asks which job it is */
		ck_assert_int_eq(stub.facts_asked, 2);
		slurm_spank_exit(NULL, 0, NULL);
		stop_started_master(&st);
		ck_assert_int_eq(st.phase, MCRI_PHASE_READY);
		ck_assert_int_eq(st.attempt, 2);
		ck_assert_int_eq(st.job_start, 2000);
		snprintf(path, sizeof(path), "%s/mooncake_master.log.job4301-1000", logdir);
		ck_assert(exists("%s", path));
		unsetenv("SLURM_JOB_START_TIME");
		unsetenv("SLURM_CLUSTER_NAME");
		stub.start_time = 0;
		unsetenv(MCP_TASK_VAR);
		remove_tmpdir();
	}
}
END_TEST

/* An srun whose environment was inherited from another job's step (a
 * salloc run inside one): its SLURM_JOB_START_TIME is not this job's; the
 * job's own running pool is not taken for another job's, slurmctld says
 * so, and the srun joins it */
START_TEST(srun_joins_its_pool_whatever_an_inherited_start_says)
{
	struct mcri_state st = { .phase = MCRI_PHASE_READY, .job_start = 1000 };
	struct mcri_proof pr = { .attempt = 1, .step = 0, .verdict = MCRI_PROOF_OWN, .alive_at = (double)time(NULL) };
	const char *logdir;
	pid_t master;

	in_tmpdir();
	master = fake_master_start(&DEFAULT_PORTS, "");
	ck_assert_int_gt(master, 0);
	snprintf(st.job_id, sizeof(st.job_id), "4301");
	ck_assert_ptr_nonnull(realpath(TRT, st.recipe));
	logdir = record_state(&st);
	pr.ports = st.ports;
	ck_assert_int_eq(testdir_proof_write(logdir, &pr), 0);
	setenv("SLURM_JOB_ID", "4301", 1);
	setenv("SLURM_JOB_START_TIME", "999", 1); /* another job's */
	stub.start_time = 1000;                   /* slurmctld's word */
	ck_assert_msg(srun_post_opt(NULL, TRT, "prefill") == 0, "%s", stub.log);
	ck_assert_ptr_null(strstr(stub.log, "held the pool of another job"));
	ck_assert_ptr_null(strstr(stub.log, "starting mooncake_master"));
	ck_assert_ptr_nonnull(strstr(getenv(MCP_TASK_VAR), "[\"MOONCAKE_MASTER\",\"127.0.0.1:8700\"]"));
	ck_assert_int_eq(stub.facts_asked, 1);
	slurm_spank_exit(NULL, 0, NULL);
	unsetenv("SLURM_JOB_START_TIME");
	unsetenv(MCP_TASK_VAR);
	stub.start_time = 0;
	fake_master_stop(master);
}
END_TEST

/* ports=fixed: today's refusal, with its message */
/* ports=auto with every triple it may try taken: refused, naming how many
 * it tried and the fix; no master step is started */
START_TEST(srun_no_free_ports_is_refused)
{
	char opt[400], path[512];
	char *av[] = { opt, "port_range=8990-8995", NULL };
	int busy[3];
	struct stat sb;

	in_tmpdir();
	busy[0] = hold_port(8700);
	busy[1] = hold_port(8992);
	busy[2] = hold_port(8993);
	fake_srun(opt, sizeof(opt));
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), -1);
	ck_log_contains(
		"mooncake: no free ports for mooncake_master on the infra node n1 (127.0.0.1): each of the 3 triples it tried was taken (8700-8702, then 2 of the 2 triples of port_range=8990-8995); widen port_range= in plugstack.conf, or run the job on another first node");
	ck_assert(strstr(stub.log, "starting mooncake_master") == NULL);
	snprintf(path, sizeof(path), "%s/outputs/4301/logs/mooncake_master.log", case_dir);
	ck_assert(stat(path, &sb) != 0 || sb.st_size == 0);
	slurm_spank_exit(NULL, 0, NULL);
	for (int k = 0; k < 3; k++)
		close(busy[k]);
}
END_TEST

START_TEST(srun_fixed_ports_taken_is_refused)
{
	char opt[400];
	char *av[] = { opt, "ports=fixed", NULL };
	int busy;

	in_tmpdir();
	busy = hold_port(8701);
	fake_srun(opt, sizeof(opt));
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), -1);
	ck_log_contains(
		"mooncake: port 8701 on the infra node n1 (127.0.0.1) is already in use by another process (not this job's master, which is not started yet), so mooncake_master could not listen there. Is another job's mooncake_master running on n1? Only one job at a time can use a node as its infra node (the ports are fixed): run the job on other nodes, or with --exclusive");
	slurm_spank_exit(NULL, 0, NULL);
	close(busy);
}
END_TEST

/* a master step that never answers: stopped at the readiness bound, with
 * the port that did not answer and the log's last lines */
START_TEST(srun_master_not_ready_in_time)
{
	char opt[400], path[512];
	char *av[] = { opt, "ready_timeout=2", NULL };
	struct mcri_state st;

	in_tmpdir();
	script_srun(opt, sizeof(opt), "echo 'still starting'; exec sleep 60");
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), -1);
	ck_log_contains(
		"mooncake: mooncake_master on n1 (127.0.0.1) was not ready after 2 s: port 8700 (RPC) does not accept: Connection refused; it was stopped. If the node is just slow, raise readiness.timeout_seconds");
	ck_log_contains("still starting");
	slurm_spank_exit(NULL, 0, NULL);
	snprintf(path, sizeof(path), "%s/outputs/4301/logs", case_dir);
	ck_assert_int_eq(testdir_state_read(path, &st), 0);
	ck_assert_int_eq(st.phase, MCRI_PHASE_FAILED);
	ck_assert_msg(!testdir_state_read(path, &st) && kill((pid_t)st.srun_pid, 0) != 0,
		      "the master step's srun %ld still runs", st.srun_pid);
}
END_TEST

/* ports=auto: the master step's task could not claim its ports on the
 * infra node (another job's master took them first): the next triple */
START_TEST(srun_master_that_lost_its_ports_moves_on)
{
	char opt[400], self[PATH_MAX];
	static char body[3 * PATH_MAX];
	char *av[] = { opt, NULL };
	struct mcri_state st;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	in_tmpdir();
	snprintf(
		body, sizeof(body),
		"if [ ! -e %s/tried ]; then touch %s/tried; echo 'slurmstepd: error: mooncake: port 8701 (metadata) on n1 is taken: another job'\"'\"'s mooncake_master (pid 1) is starting on it' >&2; exit 1; fi\n"
		"for a; do case $a in --port=*) r=${a#*=};; --http_metadata_server_port=*) m=${a#*=};; --metrics_port=*) x=${a#*=};; esac; done\n"
		"exec %s fake-master $r $m $x",
		case_dir, case_dir, self);
	script_srun(opt, sizeof(opt), body);
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), 0);
	/* the claim's words, which name who reserved the port */
	ck_log_contains(
		"mooncake: ports 8700, 8701, 8702 are taken on n1: port 8701 (metadata) on n1 is taken: another job's mooncake_master (pid 1) is starting on it; trying others");
	ck_log_contains("starting mooncake_master on n1 (127.0.0.1, ports 8703, 8704, 8705)");
	slurm_spank_exit(NULL, 0, NULL);
	stop_started_master(&st);
	ck_assert_int_eq(st.ports.rpc, 8703);
}
END_TEST

/* Another user binds the master's ports between their choice and the
 * master's bind and answers as a master would (/health, the metadata
 * server): its sockets are not the master step's, so the job never
 * records it ready and no task is handed its address. */
START_TEST(srun_never_takes_a_foreign_listener_for_the_master)
{
	char opt[400], self[PATH_MAX], path[512], pidfile[400];
	static char body[3 * PATH_MAX];
	char *av[] = { opt, "ports=fixed", "ready_timeout=8", NULL };
	struct mcri_state st;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *f;
	long foreign = 0;
	int rc;

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	in_tmpdir();
	snprintf(pidfile, sizeof(pidfile), "%s/foreign.pid", case_dir);
	snprintf(
		body, sizeof(body),
		"for a; do case $a in --port=*) r=${a#*=};; --http_metadata_server_port=*) m=${a#*=};; --metrics_port=*) x=${a#*=};; esac; done\n"
		"(env -u %s %s fake-master $r $m $x & echo $! >%s)\n" /* not the master's child */
		"exec %s fake-master-late $r $m $x",
		MCP_GUARD_VAR, self, pidfile, self);
	script_srun(opt, sizeof(opt), body);
	setenv("SLURM_JOB_ID", "4301", 1);
	rc = srun_post_opt(av, TRT, "prefill");
	/* the other user's listener goes first, whatever the checks say */
	f = fopen(pidfile, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%ld", &foreign), 1);
	fclose(f);
	fake_master_stop((pid_t)foreign);
	ck_assert_int_eq(rc, -1);
	ck_log_contains("It could not take its ports (port ");
	ck_log_contains(" listens for another process there, of uid 0, not for this job's mooncake_master)");
	ck_assert_msg(!strstr(stub.log, "mooncake_master ready"), "a foreign listener was taken for the master:\n%s",
		      stub.log);
	ck_assert_ptr_null(getenv(MCP_TASK_VAR));
	slurm_spank_exit(NULL, 0, NULL);
	snprintf(path, sizeof(path), "%s/outputs/4301/logs", case_dir);
	ck_assert_int_eq(testdir_state_read(path, &st), 0);
	ck_assert_int_ne(st.phase, MCRI_PHASE_READY);
}
END_TEST

/* the starter died after it launched the master step: an srun on its host
 * finishes its work */
START_TEST(srun_adopts_the_master_of_a_dead_starter)
{
	struct mcri_state st = { 0 };
	char host[256] = "";
	pid_t gone = fork(), master;

	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	in_tmpdir();
	master = fake_master_start(&DEFAULT_PORTS, "");
	ck_assert_int_gt(master, 0);
	gethostname(host, sizeof(host) - 1);
	st.phase = MCRI_PHASE_STARTING;
	snprintf(st.starter_host, sizeof(st.starter_host), "%s", host);
	/* the starter's pid given to a later process (this test's parent):
	 * the start time tells it is not the starter (it was once taken for
	 * a live one, and the waiter waited its whole bound) */
	st.starter_pid = _i % 2 ? (long)getppid() : (long)gone;
	st.starter_start = _i % 2 ? 1 : 0;
	st.srun_pid = (long)master;
	st.srun_start = mcri_pid_start(master);
	record_state(&st);
	write_file("outputs/4301/logs/mooncake_master.1.lock", "1 elsewhere\n");
	/* what the launched master step's guard proved on the infra node */
	{
		char path[512];
		struct mcri_jobdir jd;
		struct mcr_error err;
		struct mcri_proof proof = { .attempt = 1,
					    .verdict = MCRI_PROOF_OWN,
					    .ports = { 8700, 8701, 8702 },
					    .pid = (long)master,
					    .start = mcri_pid_start(master),
					    .step = 3 };

		snprintf(path, sizeof(path), "%s/outputs/4301/logs", case_dir);
		ck_assert_int_eq(mcri_jobdir_open(&jd, path, getuid(), false, &err), 0);
		ck_assert_int_eq(mcri_proof_write(&jd, &proof, &err), 0);
		mcri_jobdir_close(&jd);
	}
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(NULL, TRT, "prefill"), 0);
	ck_log_contains("mooncake: the srun that started the master is gone; checking the master it launched");
	ck_log_contains("mooncake_master ready on n1 (127.0.0.1:8700)");
	slurm_spank_exit(NULL, 0, NULL);
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/outputs/4301/logs", case_dir);
		ck_assert_int_eq(testdir_state_read(path, &st), 0);
		ck_assert_int_eq(st.phase, MCRI_PHASE_READY);
		ck_assert_int_eq(st.master_step, 3); /* the step its guard named */
	}
	fake_master_stop(master);
}
END_TEST

/* ports=fixed: the ports are taken by this job's own master, of a pool
 * from another recipe in another directory: the message names both, once
 * that directory's state confirms what the (unauthenticated) metadata
 * server says; a listener that only says so is not believed */
START_TEST(srun_fixed_ports_taken_by_the_jobs_other_pool)
{
	char *av[] = { "ports=fixed", NULL };
	struct mcri_state st = { .phase = MCRI_PHASE_READY,
				 .attempt = 1,
				 .job_id = "4301",
				 .infra_node = "n1",
				 .infra_addr = "127.0.0.1",
				 .ports = { 8700, 8701, 8702 },
				 .recipe = "/r/first.yaml" };
	char said[1200], first[600], want[1500];
	pid_t other;

	in_tmpdir();
	snprintf(first, sizeof(first), "%s/first", case_dir);
	ck_assert_int_eq(mkdir(first, 0700), 0);
	ck_assert_int_eq(testdir_state_write(first, &st), 0);
	snprintf(said, sizeof(said), "/r/first.yaml\n%s", first);
	other = fake_master_start(&DEFAULT_PORTS, said);
	ck_assert_int_gt(other, 0);
	setenv("SLURM_JOB_ID", "4301", 1);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), -1);
	snprintf(
		want, sizeof(want),
		"mooncake: port 8700 on the infra node n1 (127.0.0.1) is taken by this job's own mooncake_master, of the pool of /r/first.yaml in %s; this srun's recipe ",
		first);
	ck_log_contains(want);
	ck_log_contains(
		"with ports=fixed a node holds one master: use /r/first.yaml for this step too, or ask the admin for ports=auto (each pool then gets ports of its own)");
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(other);
	/* a listener that names a pool no state of this job confirms */
	other = fake_master_start(&DEFAULT_PORTS, "/tmp/evil.yaml\n/tmp");
	ck_assert_int_gt(other, 0);
	ck_assert_int_eq(srun_post_opt(av, TRT, "prefill"), -1);
	ck_log_contains("mooncake: port 8700 on the infra node n1 (127.0.0.1) is already in use by another process");
	ck_assert_ptr_null(strstr(stub.log, "evil"));
	slurm_spank_exit(NULL, 0, NULL);
	fake_master_stop(other);
}
END_TEST

/* The sampler step: srun ... --job-name=mooncake-pool -w <infra>
 * --output=<case_dir>/mooncake_pool.log <sampler> sample --case_dir <case_dir>
 * --interval S, detached, without the plugin's options in its
 * environment; nothing with pool_interval=0; a sampler that cannot run is
 * a warning, never an error. */
START_TEST(sampler_step_argv_and_env)
{
	struct mcri_plugstack config;
	struct mcr_error err = { 0 };
	struct mcp_step_place job = { .job_id = "4301", .node = "n1" };
	char srun[300], out[2048], sampler[300], logdir[300], buf[8192];
	char *av[] = { NULL };
	FILE *f;
	size_t n;

	in_tmpdir();
	snprintf(srun, sizeof(srun), "%s/fake-srun", case_dir);
	snprintf(out, sizeof(out), "%s/argv.txt", case_dir);
	snprintf(sampler, sizeof(sampler), "%s/fake-sampler", case_dir);
	snprintf(logdir, sizeof(logdir), "%s/logs", case_dir);
	ck_assert_int_eq(mkdir(logdir, 0755), 0);
	job.dir = logdir;
	recording_srun(srun, out);
	write_file(sampler, "#!/bin/sh\n");
	ck_assert_int_eq(chmod(sampler, 0755), 0);
	ck_assert_int_eq(mcri_plugstack_parse(&config, 0, av, &err), 0);
	snprintf(config.srun, sizeof(config.srun), "%s", srun);
	snprintf(config.sampler, sizeof(config.sampler), "%s", sampler);
	config.pool_interval = 7;
	setenv("SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_recipe", "r.yaml", 1);
	stub_reset(S_CTX_LOCAL);
	ck_assert_int_eq(mcp_start_sampler(&config, &job, &err), 0);
	ck_assert(wait_file(out));
	f = fopen(out, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "--jobid=4301\n--overlap\n--nodes=1\n--ntasks=1\n"));
	ck_assert_ptr_nonnull(strstr(buf, "--job-name=mooncake-pool\n--nodelist=n1\n"));
	snprintf(out, sizeof(out), "--output=%s/mooncake_pool.log\n--chdir=%s\n%s\nsample\n--dir\n%s\n--interval\n7\n",
		 logdir, logdir, sampler, logdir);
	ck_assert_msg(strstr(buf, out) != NULL, "%s", buf);
	ck_assert(exists("%s/logs/mooncake_pool.log", case_dir));
	snprintf(out, sizeof(out), "%s/argv.txt.env", case_dir);
	f = fopen(out, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_assert_msg(strstr(buf, "SLURM_SPANK__SLURM_SPANK_OPTION_mooncake") == NULL, "%s", buf);
	unsetenv("SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_mooncake_recipe");
	ck_assert_int_eq(stub.errors, 0);
	ck_assert_str_eq(stub.log, "");
	/* off */
	config.pool_interval = 0;
	snprintf(config.sampler, sizeof(config.sampler), "/nonexistent/mooncake-recipe");
	ck_assert_int_eq(mcp_start_sampler(&config, &job, &err), 0);
	ck_assert_str_eq(stub.log, "");
	/* a sampler that is not there: a warning with the fix */
	config.pool_interval = 5;
	ck_assert_int_eq(mcp_start_sampler(&config, &job, &err), -1);
	ck_log_contains(
		"mooncake: warning: the pool sampler /nonexistent/mooncake-recipe cannot run here (No such file or directory), so this job gets no pool report; install mooncake-recipe there, set sampler=/path/to/mooncake-recipe in plugstack.conf, or pool_interval=0 to switch the sampler off");
	ck_assert_int_eq(stub.errors, 0);
}
END_TEST

Suite *srun_master_suite(void)
{
	Suite *s = suite_create("plugin-srun-master");
	TCase *srun = tcase_create("srun");

	tcase_set_timeout(srun, 60);
	tcase_add_checked_fixture(srun, NULL, remove_tmpdir);
	tcase_add_test(srun, srun_master_not_ready_in_time);
	tcase_add_test(srun, srun_master_that_lost_its_ports_moves_on);
	tcase_add_loop_test(srun, srun_adopts_the_master_of_a_dead_starter, 0, 2);
	tcase_add_test(srun, srun_never_takes_a_foreign_listener_for_the_master);
	tcase_add_test(srun, sampler_step_argv_and_env);
	tcase_add_test(srun, srun_starts_the_master_on_srtctls_ports);
	tcase_add_test(srun, srun_starts_afresh_over_another_job_of_its_id);
	tcase_add_test(srun, srun_joins_its_pool_whatever_an_inherited_start_says);
	tcase_add_test(srun, srun_starts_the_master_on_free_ports);
	tcase_add_test(srun, srun_fixed_ports_taken_is_refused);
	tcase_add_test(srun, srun_no_free_ports_is_refused);
	tcase_add_test(srun, srun_fixed_ports_taken_by_the_jobs_other_pool);
	suite_add_tcase(s, srun);
	return s;
}
