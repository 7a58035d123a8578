/* test_jobdir.c - the job's directory and its records (runtime/jobdir/):
 * a directory that is not the job's is refused, no link is followed, no
 * FIFO waited on, reads are bounded, writes atomic and private, and each
 * record has one reader and one writer that refuse what they cannot trust. */
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static char base[256];

static void fresh(void)
{
	testutil_tmpdir(base, sizeof(base), "jobdir");
}

static void cleanup(void)
{
	testutil_rmrf(base);
}

static char *path_of(const char *rel)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	return p;
}

START_TEST(created_private)
{
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	struct stat st;

	fresh();
	ck_assert_int_eq(mcri_jobdir_open(&d, path_of("outputs/7/logs"), getuid(), true, &err), 0);
	ck_assert_int_eq(stat(path_of("outputs/7/logs"), &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700); /* the job's own */
	ck_assert_int_eq(stat(path_of("outputs/7"), &st), 0);
	ck_assert_int_eq(st.st_mode & 0700, 0700); /* parents as any directory */
	ck_assert_int_eq(mcri_jobdir_write(&d, "f.json", "{}", 2, true, &err), 0);
	ck_assert_int_eq(stat(path_of("outputs/7/logs/f.json"), &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	mcri_jobdir_close(&d);
	cleanup();
}
END_TEST

START_TEST(not_the_jobs)
{
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	char want[2048], shared[512];

	fresh();
	/* writable by the user's own private group (umask 002): only the user */
	ck_assert_int_eq(mkdir(path_of("shared"), 0700), 0);
	ck_assert_int_eq(chmod(path_of("shared"), 02775), 0);
	ck_assert_int_eq(mcri_jobdir_open(&d, path_of("shared"), getuid(), true, &err), 0);
	mcri_jobdir_close(&d);
	/* writable by a group of others (a project's) */
	ck_assert_int_eq(chown(path_of("shared"), (uid_t)-1, getgid() + 4242), 0);
	ck_assert_int_eq(chmod(path_of("shared"), 0770), 0);
	ck_assert_int_eq(mcri_jobdir_open(&d, path_of("shared"), getuid(), true, &err), -1);
	snprintf(shared, sizeof(shared), "%s", path_of("shared"));
	snprintf(
		want, sizeof(want),
		"the job's directory %s may be written by its group (mode 0770): another user could plant or change the pool's files there; run chmod go-w %s, or use a directory of your own",
		shared, shared);
	ck_assert_str_eq(err.text, want);
	ck_assert_int_eq(err.kind, MCR_ESTATE);
	/* ... by everyone, with the sticky bit (a /tmp) */
	ck_assert_int_eq(chmod(path_of("shared"), 01777), 0);
	ck_assert_int_eq(mcri_jobdir_open(&d, path_of("shared"), getuid(), false, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.text, "may be written by every user (mode 1777)"));
	/* another user's */
	ck_assert_int_eq(chmod(path_of("shared"), 0700), 0);
	ck_assert_int_eq(mcri_jobdir_open(&d, path_of("shared"), getuid() + 4242, false, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.text, "belongs to uid 0"));
	ck_assert_ptr_nonnull(strstr(err.text, "not to the job's user, uid 4242"));
	/* a link to a directory, and a file */
	ck_assert_int_eq(symlink("shared", path_of("link")), 0);
	ck_assert_int_eq(mcri_jobdir_open(&d, path_of("link"), getuid(), false, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.text, "is a link or not a directory"));
	testutil_write(path_of("file"), "x");
	ck_assert_int_eq(mcri_jobdir_open(&d, path_of("file"), getuid(), true, &err), -1);
	ck_assert_int_eq(d.fd, -1);
	cleanup();
}
END_TEST

/* every parent of the job's directory: only root or the job's user may
 * change it (or it is sticky, as /tmp); a link among the parents is
 * resolved, and the tasks get the path without it (issue #17 review:
 * another user swapped a parent for a link to their own tree) */
START_TEST(parents_are_the_jobs)
{
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	char want[2048], real[512];

	fresh();
	ck_assert_int_eq(mkdir(path_of("open"), 0700), 0);
	ck_assert_int_eq(chmod(path_of("open"), 0777), 0);
	ck_assert_int_eq(mcri_jobdir_open(&d, path_of("open/job/logs"), getuid(), true, &err), -1);
	snprintf(
		want, sizeof(want),
		"the job's directory %s/open/job/logs is inside %s/open, which every user may write (mode 0777, without the sticky bit): another user could move it and put a directory of theirs in its place; run chmod go-w %s/open (or chmod +t, as /tmp), or use a directory whose every parent only you and root can change (output.log_dir in the recipe, e.g. a directory in your home)",
		base, base, base);
	ck_assert_str_eq(err.text, want);
	ck_assert_int_eq(d.fd, -1);
	{ /* refused before anything is made */
		struct stat st;

		ck_assert_int_eq(stat(path_of("open/job"), &st), -1);
	}
	/* sticky, as /tmp: others may add entries, never move ours */
	ck_assert_int_eq(chmod(path_of("open"), 01777), 0);
	ck_assert_int_eq(mcri_jobdir_open(&d, path_of("open/job/logs"), getuid(), true, &err), 0);
	mcri_jobdir_close(&d);
	/* group-writable, deeper down: by the user's private group, fine;
	 * by a group of others, not */
	ck_assert_int_eq(chmod(path_of("open/job"), 02775), 0);
	ck_assert_int_eq(mcri_jobdir_open(&d, path_of("open/job/logs"), getuid(), false, &err), 0);
	mcri_jobdir_close(&d);
	ck_assert_int_eq(chown(path_of("open/job"), (uid_t)-1, getgid() + 4242), 0);
	ck_assert_int_eq(mcri_jobdir_open(&d, path_of("open/job/logs"), getuid(), false, &err), -1);
	ck_assert_ptr_nonnull(
		strstr(err.text, "/open/job, which its group may write (mode 2775, without the sticky bit)"));
	ck_assert_ptr_nonnull(strstr(err.text, "; run chmod go-w "));
	ck_assert_int_eq(chmod(path_of("open/job"), 0755), 0);
	/* a link among the parents: resolved, and the path handed on has none */
	ck_assert_int_eq(symlink("open/job", path_of("via")), 0);
	ck_assert_int_eq(mcri_jobdir_open(&d, path_of("via/logs"), getuid(), false, &err), 0);
	snprintf(real, sizeof(real), "%s/open/job/logs", base);
	ck_assert_str_eq(d.path, real);
	mcri_jobdir_close(&d);
	/* a parent of another user's (root may hand one to a test user) */
	if (getuid() == 0) {
		ck_assert_int_eq(chown(path_of("open/job"), 4242, 4242), 0);
		ck_assert_int_eq(mcri_jobdir_open(&d, path_of("open/job/logs"), 0, false, &err), -1);
		ck_assert_ptr_nonnull(strstr(err.text, "/open/job, which belongs to uid 4242"));
		ck_assert_ptr_nonnull(strstr(err.text, "that user could move it"));
		/* root's, written by a group: its owner alone can change it */
		ck_assert_int_eq(chown(path_of("open/job"), 0, getgid() + 4242), 0);
		ck_assert_int_eq(chmod(path_of("open/job"), 0775), 0);
		ck_assert_int_eq(mcri_jobdir_open(&d, path_of("open/job/logs"), 4243, false, &err), -1);
		ck_assert_ptr_nonnull(strstr(err.text, "; ask its owner, root, to run chmod +t "));
	}
	cleanup();
}
END_TEST

/* the first wave of a job's sruns: each puts the job's client configs
 * into the directory at the same time (issue #20: 1 to 7 of 256 sruns
 * failed with "differs" or "cannot keep the previous" while the files on
 * disk were right) */
static const struct mcr_file wave_files[] = {
	{ "mooncake_store_config_prefill.json", "{\"role\": \"prefill\"}\n" },
	{ "mooncake_store_config_decode.json", "{\"role\": \"decode\"}\n" },
};

START_TEST(first_wave_settles)
{
	const struct mcr_file_list files = { (struct mcr_file *)wave_files, 2 };
	enum { SRUNS = 24, ROUNDS = 8 };

	for (int round = 0; round < ROUNDS; round++) {
		int go[2], failed = 0;
		pid_t kids[SRUNS];

		fresh();
		ck_assert_int_eq(pipe(go), 0);
		for (int k = 0; k < SRUNS; k++) {
			if ((kids[k] = fork()) == 0) {
				struct mcri_jobdir d;
				struct mcr_error err = { 0 };
				size_t differs, written;
				char c;

				close(go[1]);
				if (read(go[0], &c, 1) != 0)
					_exit(3);
				/* one owner (the starter), the rest join */
				if (mcri_jobdir_open(&d, base, getuid(), false, &err) ||
				    mcri_jobdir_settle(&d, &files, k == 0, &differs, &written, &err) != 0)
					_exit(1);
				_exit(0);
			}
		}
		close(go[0]);
		close(go[1]); /* all of them at once */
		for (int k = 0; k < SRUNS; k++) {
			int status;

			ck_assert_int_eq(waitpid(kids[k], &status, 0), kids[k]);
			failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
		}
		ck_assert_int_eq(failed, 0);
		for (size_t f = 0; f < files.count; f++) {
			char *text = slurp(path_of(files.files[f].name));

			ck_assert_str_eq(text, files.files[f].text);
			free(text);
		}
		cleanup();
	}
}
END_TEST

/* a joining srun finds a file of an earlier run that the owner is about
 * to replace: it waits for it, and is not refused; one that stays
 * different is (the recipe was edited) */
START_TEST(joiner_waits_for_a_file_being_replaced)
{
	const struct mcr_file_list files = { (struct mcr_file *)wave_files, 2 };
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	size_t differs = 9, written = 9;
	pid_t owner;

	fresh();
	testutil_write(path_of(wave_files[1].name), "{\"role\": \"an earlier run's\"}\n");
	ck_assert_int_eq(mcri_jobdir_open(&d, base, getuid(), false, &err), 0);
	if ((owner = fork()) == 0) {
		struct mcr_error e = { 0 };
		size_t x, y;

		usleep(60 * 1000);
		_exit(mcri_jobdir_settle(&d, &files, true, &x, &y, &e) == 0 ? 0 : 1);
	}
	ck_assert_int_eq(mcri_jobdir_settle(&d, &files, false, &differs, &written, &err), 0);
	ck_assert_int_eq(waitpid(owner, NULL, 0), owner);
	/* edited for good: refused, naming the file, nothing rewritten */
	testutil_write(path_of(wave_files[0].name), "{\"role\": \"edited\"}\n");
	ck_assert_int_eq(mcri_jobdir_settle(&d, &files, false, &differs, &written, &err), 1);
	ck_assert_uint_eq(differs, 0);
	ck_assert_uint_eq(written, 0);
	{
		char *text = slurp(path_of(wave_files[0].name));

		ck_assert_str_eq(text, "{\"role\": \"edited\"}\n");
		free(text);
	}
	/* the owner replaces it */
	ck_assert_int_eq(mcri_jobdir_settle(&d, &files, true, &differs, &written, &err), 0);
	ck_assert_uint_eq(written, 1);
	mcri_jobdir_close(&d);
	cleanup();
}
END_TEST

START_TEST(files_are_files)
{
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	char *text = NULL, big[200];
	struct stat st;
	int fd;

	fresh();
	ck_assert_int_eq(mcri_jobdir_open(&d, base, getuid(), false, &err), 0);
	/* a FIFO: refused at once (never a read that waits for a writer) */
	ck_assert_int_eq(mkfifo(path_of("mooncake_master.json"), 0600), 0);
	ck_assert_int_eq(mcri_jobdir_read(&d, "mooncake_master.json", 4096, &text, NULL, &err), -1);
	ck_assert_int_eq(err.kind, MCR_EIO);
	ck_assert_ptr_nonnull(strstr(err.text, "is not a regular file"));
	ck_assert_int_eq(mcri_jobdir_append(&d, "mooncake_master.json", true, &err), -1);
	/* a link: not followed, for reading, appending or writing; the file
	 * it points to is never touched */
	testutil_write(path_of("victim"), "precious");
	ck_assert_int_eq(symlink("victim", path_of("log")), 0);
	ck_assert_int_eq(mcri_jobdir_read(&d, "log", 4096, &text, NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.text, "(a link: the job's files are never followed through one)"));
	ck_assert_int_eq(mcri_jobdir_append(&d, "log", true, &err), -1);
	ck_assert_int_eq(mcri_jobdir_write(&d, "log", "new", 3, false, &err), -1);
	ck_assert_ptr_nonnull(
		strstr(err.text, "it exists and is not a regular file (a special file or link); remove it"));
	ck_assert_int_eq(lstat(path_of("log"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(mcri_jobdir_read(&d, "victim", 4096, &text, NULL, &err), 0);
	ck_assert_str_eq(text, "precious");
	free(text);
	/* bounded */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	testutil_write(path_of("big"), big);
	ck_assert_int_eq(mcri_jobdir_read(&d, "big", 100, &text, NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.text, "more than the 100 a record of the pool may hold"));
	ck_assert_ptr_null(text);
	/* an append emptied only once it is known to be ours */
	ck_assert_int_ge(fd = mcri_jobdir_append(&d, "big", true, &err), 0);
	close(fd);
	ck_assert_int_eq(stat(path_of("big"), &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	/* not a path */
	ck_assert_int_eq(mcri_jobdir_write(&d, "../escape", "x", 1, false, &err), -1);
	ck_assert_int_eq(err.kind, MCR_EINVAL);
	mcri_jobdir_close(&d);
	cleanup();
}
END_TEST

START_TEST(create_is_never_empty)
{
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	char *text;

	fresh();
	ck_assert_int_eq(mcri_jobdir_open(&d, base, getuid(), false, &err), 0);
	ck_assert_int_eq(mcri_jobdir_create(&d, "lock", "42 n1\n", &err), 1);
	ck_assert_int_eq(mcri_jobdir_create(&d, "lock", "43 n2\n", &err), 0);
	ck_assert_int_eq(mcri_jobdir_read(&d, "lock", 64, &text, NULL, &err), 0);
	ck_assert_str_eq(text, "42 n1\n");
	free(text);
	mcri_jobdir_close(&d);
	/* no temporary file is left */
	{
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s')\" = lock", base);
		ck_assert_int_eq(system(cmd), 0);
	}
	cleanup();
}
END_TEST

START_TEST(state_record)
{
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	struct mcri_state st = { .phase = MCRI_PHASE_READY, .attempt = 3, .run = 1, .ports = { 18700, 18701, 18702 } },
			  back;

	fresh();
	ck_assert_int_eq(mcri_jobdir_open(&d, base, getuid(), false, &err), 0);
	ck_assert_int_eq(mcri_state_read(&d, &back, &err), -1);
	ck_assert_int_eq(err.kind, MCR_ESTATE);
	snprintf(st.infra_node, sizeof(st.infra_node), "n1");
	snprintf(st.recipe, sizeof(st.recipe), "/r.yaml");
	ck_assert_int_eq(mcri_state_write(&d, &st, &err), 0);
	ck_assert_int_eq(mcri_state_read(&d, &back, &err), 0);
	ck_assert_int_eq(back.phase, MCRI_PHASE_READY);
	ck_assert_int_eq(back.attempt, 3);
	ck_assert_int_eq(back.run, 1);
	ck_assert_int_eq(back.ports.metrics, 18702);
	ck_assert_str_eq(back.infra_node, "n1");
	ck_assert_str_eq(back.recipe, "/r.yaml");
	/* what a hand or another release wrote: a phase it does not know is
	 * refused, ports out of range are srtctl's */
	testutil_write(path_of("mooncake_master.json"), "{\"state\": \"readyish\"}");
	ck_assert_int_eq(mcri_state_read(&d, &back, &err), -1);
	ck_assert_int_eq(err.kind, MCR_EIO);
	testutil_write(
		path_of("mooncake_master.json"),
		"{\"state\": \"ready\", \"rpc_port\": 99999, \"metadata_port\": -1, \"metrics_port\": \"8702\"}");
	ck_assert_int_eq(mcri_state_read(&d, &back, &err), 0);
	ck_assert_int_eq(back.ports.rpc, 8700);
	ck_assert_int_eq(back.ports.metadata, 8701);
	ck_assert_int_eq(back.ports.metrics, 8702);
	testutil_write(path_of("mooncake_master.json"), "[1]");
	ck_assert_int_eq(mcri_state_read(&d, &back, &err), -1);
	/* a string longer than its field is cut where a character starts:
	 * what was read can be written again (it once could not) */
	{
		char text[300 + sizeof(back.infra_node)];

		snprintf(text, sizeof(text), "{\"state\": \"ready\", \"infra_node\": \"%0*d\xc3\xa9\"}",
			 (int)sizeof(back.infra_node) - 2, 0);
		testutil_write(path_of("mooncake_master.json"), text);
		ck_assert_int_eq(mcri_state_read(&d, &back, &err), 0);
		ck_assert_uint_eq(strlen(back.infra_node), sizeof(back.infra_node) - 2);
		ck_assert_int_eq(mcri_state_write(&d, &back, &err), 0);
	}
	mcri_jobdir_close(&d);
	cleanup();
}
END_TEST

START_TEST(lock_records)
{
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	struct mcri_lock l;
	int held, other;

	fresh();
	ck_assert_int_eq(mcri_jobdir_open(&d, base, getuid(), false, &err), 0);
	mcri_lock_read(&d, 1, &l);
	ck_assert(l.mtime < 0);
	ck_assert_int_eq(mcri_lock_take(&d, 1, "n1", &held, &err), 1);
	ck_assert_int_ge(held, 0); /* a local file system keeps locks */
	ck_assert_int_eq(mcri_lock_take(&d, 1, "n2", &other, &err), 0);
	ck_assert_int_eq(other, -1);
	mcri_lock_read(&d, 1, &l);
	ck_assert(l.mtime > 0 && fabs(l.mtime - (double)time(NULL)) < 60);
	ck_assert_int_eq(l.pid, getpid());
	ck_assert_str_eq(l.host, "n1");
	ck_assert_int_eq(l.held, 1);
	/* let go: nobody holds it, and the one that adopts it holds it */
	close(held);
	mcri_lock_read(&d, 1, &l);
	ck_assert_int_eq(l.held, 0);
	ck_assert(mcri_lock_adopt(&d, 1));
	ck_assert(!mcri_lock_adopt(&d, 1));
	ck_assert_int_ge(held = mcri_lock_hold(&d, 1), 0);
	ck_assert_int_eq(mcri_lock_hold(&d, 1), -1);
	mcri_lock_read(&d, 1, &l);
	ck_assert_int_eq(l.held, 1);
	close(held);
	/* an empty lock of an older release says nobody, and nobody holds it */
	testutil_write(path_of("mooncake_master.2.lock"), "");
	mcri_lock_read(&d, 2, &l);
	ck_assert(l.mtime > 0);
	ck_assert_int_eq(l.pid, 0);
	ck_assert_int_eq(l.held, 0);
	mcri_jobdir_close(&d);
	cleanup();
}
END_TEST

/* A starter's lock tells whether its holder lives, on the reader's own
 * clock: a holder that died lets go of it at once (gone once it has been
 * quiet for MCRI_LOCK_QUIET_S), one that is stopped keeps it (never gone,
 * however long it is quiet); where the file system cannot tell, only a
 * lock quiet for MCRI_LOCK_STALE_S is gone; a touch starts again. */
START_TEST(lock_holder_lives_or_not)
{
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	struct mcri_lock_seen seen = { 0 };
	struct mcri_lock l;
	int ready[2], status;
	pid_t holder;
	char c;

	fresh();
	ck_assert_int_eq(mcri_jobdir_open(&d, base, getuid(), false, &err), 0);
	ck_assert_int_eq(pipe(ready), 0);
	holder = fork();
	if (holder == 0) {
		int fd;

		close(ready[0]);
		if (mcri_lock_take(&d, 1, "n1", &fd, &err) != 1 || fd < 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	/* stopped: quiet for as long as you like, and still not gone */
	ck_assert_int_eq(kill(holder, SIGSTOP), 0);
	mcri_lock_read(&d, 1, &l);
	mcri_lock_seen_update(&seen, &d, 1, &l, 100.0);
	ck_assert_int_eq(l.held, 1);
	ck_assert(!mcri_lock_seen_gone(&seen, &l, 100.0 + 10 * MCRI_LOCK_STALE_S, 0));
	/* dead: it let go; gone once quiet for MCRI_LOCK_QUIET_S (+ extra) */
	ck_assert_int_eq(kill(holder, SIGKILL), 0);
	ck_assert_int_eq(waitpid(holder, &status, 0), holder);
	mcri_lock_read(&d, 1, &l);
	mcri_lock_seen_update(&seen, &d, 1, &l, 101.0);
	ck_assert_int_eq(l.held, 0);
	ck_assert(!mcri_lock_seen_gone(&seen, &l, 100.0 + MCRI_LOCK_QUIET_S - 0.5, 0));
	ck_assert(mcri_lock_seen_gone(&seen, &l, 100.0 + MCRI_LOCK_QUIET_S + 0.5, 0));
	ck_assert(!mcri_lock_seen_gone(&seen, &l, 100.0 + MCRI_LOCK_QUIET_S + 0.5, 2));
	/* touched meanwhile: quiet again from the touch */
	l.mtime += 1;
	mcri_lock_seen_update(&seen, &d, 1, &l, 103.0);
	ck_assert(seen.touched);
	ck_assert(!mcri_lock_seen_gone(&seen, &l, 103.0 + MCRI_LOCK_QUIET_S - 0.5, 0));
	/* a file system that keeps no locks: only a stale lock is gone */
	l.held = -1;
	ck_assert(!mcri_lock_seen_gone(&seen, &l, 103.0 + MCRI_LOCK_QUIET_S + 1, 0));
	ck_assert(mcri_lock_seen_gone(&seen, &l, 103.0 + MCRI_LOCK_STALE_S + 1, 0));
	/* another attempt's lock starts afresh, untouched */
	mcri_lock_seen_update(&seen, &d, 2, &l, 200.0);
	ck_assert(!seen.touched);
	ck_assert_int_eq(seen.attempt, 2);
	mcri_jobdir_close(&d);
	cleanup();
}
END_TEST

/* Inside a container's user namespace that maps only the job's user (as
 * enroot's for pyxis), a parent of another owner shows as the overflow
 * user, and passes: srun checked it on the host. In the initial namespace
 * that user is just another user. */
START_TEST(parents_in_a_container_user_namespace)
{
	struct stat st;
	const char *parent;
	int fd, status;
	pid_t pid;
	char map[64];
	uid_t uid = getuid();

	fresh();
	ck_assert_int_eq(stat("/", &st), 0);
	ck_assert(!mcri_unmapped_owner(65534));
	/* a parent owned by someone the namespace will not map: another
	 * user's (root makes one), or root's (for a user) */
	ck_assert_int_eq(mkdir(path_of("other"), 0755), 0);
	if (uid == 0)
		ck_assert_int_eq(chown(path_of("other"), 4242, 4242), 0);
	parent = uid == 0 ? path_of("other") : "/";
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		snprintf(map, sizeof(map), "%u %u 1", uid, uid);
		if (unshare(CLONE_NEWUSER) != 0 || (fd = open("/proc/self/uid_map", O_WRONLY)) < 0 ||
		    write(fd, map, strlen(map)) != (ssize_t)strlen(map) || close(fd) != 0)
			_exit(2);
		if (stat(parent, &st) != 0 || !mcri_unmapped_owner(st.st_uid) || !mcri_parent_trusted(&st, uid))
			_exit(1);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x", status);
}
END_TEST

START_TEST(worker_records)
{
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	struct mcri_worker w = { "n2", "prefill", "10.0.0.2", 7, 1, 0 }, *all;
	size_t n;

	fresh();
	ck_assert_int_eq(mcri_jobdir_open(&d, base, getuid(), false, &err), 0);
	ck_assert_int_eq(mcri_workers_read(&d, 16, &all, &n, &err), 0);
	free(all);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(mcri_worker_write(&d, &w, &err), 0);
	testutil_write(path_of("workers/torn.json"), "{\"node\": ");
	ck_assert_int_eq(mkfifo(path_of("workers/fifo.json"), 0600), 0);
	ck_assert_int_eq(mcri_workers_read(&d, 16, &all, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(all[0].node, "n2");
	ck_assert_str_eq(all[0].address, "10.0.0.2");
	ck_assert_uint_eq(all[0].step, 1);
	free(all);
	snprintf(w.node, sizeof(w.node), "../x");
	ck_assert_int_eq(mcri_worker_write(&d, &w, &err), -1);
	mcri_jobdir_close(&d);
	cleanup();
}
END_TEST

/* a job id is digits only, 1 to 4294967293; the job's directory names
 * its user by name (or number) and its submit directory */
START_TEST(job_ids_and_directory_paths)
{
	const char *bad[] = { "", "0", "-1", " 1", "1 ", "12a", "4294967294", "4294967295", "18446744073709551617" };
	struct mcr_error err = { 0 };
	uint32_t id = 7;
	char *p, want[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(!mcri_job_id_parse(bad[i], &id), "'%s' taken for a job id", bad[i]);
		ck_assert_uint_eq(id, 7);
	}
	ck_assert(!mcri_job_id_parse(NULL, &id));
	ck_assert(mcri_job_id_parse("1", &id) && id == 1);
	ck_assert(mcri_job_id_parse("4294967293", &id) && id == 4294967293u);
	ck_assert(mcri_job_id_parse("004302", &id) && id == 4302);
	ck_assert_ptr_nonnull(p = mcri_job_dir_path("{submit_dir}/o/{job_id}/{user}", "4302", 0, "/s", &err));
	ck_assert_str_eq(p, "/s/o/4302/root");
	free(p);
	/* a uid without a name: its number */
	ck_assert_ptr_nonnull(p = mcri_job_dir_path("/x/{user}", "1", 4000123, "/s", &err));
	snprintf(want, sizeof(want), "/x/%u", 4000123u);
	ck_assert_str_eq(p, want);
	free(p);
}
END_TEST

Suite *jobdir_suite(void)
{
	Suite *s = suite_create("jobdir");
	TCase *tc = tcase_create("jobdir");

	tcase_add_test(tc, created_private);
	tcase_add_test(tc, not_the_jobs);
	tcase_add_test(tc, parents_are_the_jobs);
	tcase_add_test(tc, first_wave_settles);
	tcase_add_test(tc, joiner_waits_for_a_file_being_replaced);
	tcase_add_test(tc, files_are_files);
	tcase_add_test(tc, create_is_never_empty);
	tcase_add_test(tc, state_record);
	tcase_add_test(tc, lock_records);
	tcase_add_test(tc, lock_holder_lives_or_not);
	tcase_add_test(tc, worker_records);
	tcase_add_test(tc, job_ids_and_directory_paths);
	tcase_add_test(tc, parents_in_a_container_user_namespace);
	suite_add_tcase(s, tc);
	return s;
}
