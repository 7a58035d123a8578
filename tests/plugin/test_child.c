/*
 * test_child.c - the plugin's children (spank/plugin/child.c): what mcp_spawn
 * gives the program it starts (stdin /dev/null, its output where asked, no
 * other descriptor; detached, a session and default signals of its own; a
 * missing program's error number), the same whether it is built on
 * posix_spawn_file_actions_addclosefrom_np (glibc 2.34) or on fork and exec
 * (older glibc, or -DMCP_SPAWN_CLOSEFROM=0); and mcp_close_from, with and
 * without the close_range system call (a seccomp filter refuses it with
 * ENOSYS, as a kernel older than 5.9 does).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin/child.h"
#include "steps/election.h"
#include "testdir.h"

/* what the child shell says: which of the descriptors 0-4, 20, 21 and $0
 * it has, where 0 and 2 lead, its session and its ignored and blocked
 * signals (/proc/PID/status, hexadecimal masks) */
#define REPORT                                                                                                         \
	"for f in 0 1 2 3 4 20 21 $0; do [ -e /proc/$$/fd/$f ] && printf 'fd%s ' $f; done; "                           \
	"printf '0=%s 2=%s ' $(readlink /proc/$$/fd/0) $(readlink /proc/$$/fd/2); "                                    \
	"set -- $(cat /proc/$$/stat); [ \"$6\" = $$ ] && printf 'own-session '; "                                      \
	"grep -E '^Sig(Ign|Blk)' /proc/$$/status | tr '\\t\\n' '  '"

static char tmp[256];

/* the signals 1-31 of the mask `name` (SigIgn, SigBlk) in the report
 * (32 and 33 are glibc's own, which no program changes) */
static unsigned long mask_of(const char *out, const char *name)
{
	char key[16];
	const char *at;

	snprintf(key, sizeof(key), "%s:", name);
	at = strstr(out, key);
	ck_assert_msg(at != NULL, "no %s in: %s", name, out);
	return strtoul(at + strlen(key), NULL, 16) & 0x7fffffffUL;
}

/* the signals this process ignores (those it inherited, as nohup's
 * SIGHUP, and its own): the SigIgn mask of /proc/self/status */
static unsigned long own_ignored(void)
{
	char status[4096];
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	n = read(fd, status, sizeof(status) - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	status[n] = '\0';
	return mask_of(status, "SigIgn");
}

static void setup(void)
{
	testdir_make(tmp, sizeof(tmp), "child");
}

static void teardown(void)
{
	testdir_remove(tmp);
}

/* a descriptor kept open across exec, at `at` (not close-on-exec); false
 * when it cannot be made */
static bool leak_at(int at)
{
	int fd = open("/dev/null", O_RDONLY);
	bool ok = fd >= 0 && dup2(fd, at) == at;

	if (fd >= 0 && fd != at)
		close(fd);
	return ok;
}

/* what `argv` said on stdout (mcp_spawn with out_fd), waited for */
static void spawn_out(char *const argv[], char *out, size_t size)
{
	int fds[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid = -1;

	ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
	ck_assert_int_eq(mcp_spawn(argv, (char *[]){ "PATH=/usr/bin:/bin", NULL },
				   &(struct mcp_spawn_io){ .log_fd = -1, .out_fd = fds[1] }, &pid),
			 0);
	close(fds[1]);
	while (len + 1 < size && (n = read(fds[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child said: %s", out);
}

START_TEST(spawn_gives_stdin_null_and_no_other_descriptor)
{
	char *argv[] = { "sh", "-c", REPORT, "300", NULL }, out[1024];

	/* (3 and 4 may be Check's own: a child gets them no more than these) */
	ck_assert(leak_at(20) && leak_at(21) && leak_at(300));
	signal(SIGUSR1, SIG_IGN);
	spawn_out(argv, out, sizeof(out));
	/* stderr /dev/null, nothing past 2; not detached: the caller's
	 * session, its ignored signal (SIGUSR1: bit 9) kept */
	ck_assert_msg(strncmp(out, "fd0 fd1 fd2 0=/dev/null 2=/dev/null Sig", 39) == 0, "%s", out);
	ck_assert_msg(strstr(out, "own-session") == NULL, "%s", out);
	ck_assert_msg(mask_of(out, "SigIgn") == own_ignored(), "%s", out);
	ck_assert_msg(mask_of(out, "SigIgn") & 1UL << (SIGUSR1 - 1), "%s", out);
}
END_TEST

START_TEST(spawn_detached_has_its_session_and_default_signals)
{
	char *argv[] = { "sh", "-c", REPORT, "300", NULL }, log[300], out[1024];
	sigset_t usr2;
	int fd, status;
	ssize_t n;
	pid_t pid = -1;

	snprintf(log, sizeof(log), "%s/log", tmp);
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert(leak_at(20) && leak_at(300));
	signal(SIGUSR1, SIG_IGN);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr2, NULL);
	ck_assert_int_eq(mcp_spawn(argv, (char *[]){ "PATH=/usr/bin:/bin", NULL },
				   &(struct mcp_spawn_io){ .log_fd = fd, .detached = true }, &pid),
			 0);
	close(fd);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	fd = open(log, O_RDONLY);
	n = read(fd, out, sizeof(out) - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	out[n] = '\0';
	/* stdout and stderr the log, the log's descriptor itself not kept */
	ck_assert_msg(strncmp(out, "fd0 fd1 fd2 0=/dev/null 2=", 26) == 0 && strstr(out, "/log own-session"), "%s",
		      out);
	ck_assert_msg(mask_of(out, "SigIgn") == 0 && mask_of(out, "SigBlk") == 0, "%s", out);
}
END_TEST

START_TEST(spawn_says_why_a_program_does_not_run)
{
	char *missing[] = { "/nonexistent/srun", NULL }, *unknown[] = { "mck-no-such-program", NULL };
	char *plain[] = { tmp, NULL };
	pid_t pid = -1;

	ck_assert_int_eq(mcp_spawn(missing, (char *[]){ NULL }, &(struct mcp_spawn_io){ .log_fd = 2 }, &pid), ENOENT);
	ck_assert_int_eq(mcp_spawn(unknown, (char *[]){ NULL }, &(struct mcp_spawn_io){ .log_fd = 2 }, &pid), ENOENT);
	/* a directory is not a program */
	ck_assert_int_eq(mcp_spawn(plain, (char *[]){ NULL }, &(struct mcp_spawn_io){ .log_fd = 2 }, &pid), EACCES);
	ck_assert_int_eq(pid, -1);
	/* no child left behind */
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
}
END_TEST

/* in a child: descriptors at 3-6, 100 and the limit's last, then
 * mcp_close_from(5); exit 0 when 3 and 4 stay and the rest are closed, else
 * the first that is wrong; refuse_close_range: close_range fails with ENOSYS */
static int close_from_child(bool refuse_close_range)
{
	struct rlimit lim;
	int last, at[] = { 3, 4, 5, 6, 100, 0 };

	if (getrlimit(RLIMIT_NOFILE, &lim) != 0)
		return 90;
	last = lim.rlim_cur > 4096 ? 4095 : (int)lim.rlim_cur - 1;
	at[5] = last;
	for (size_t i = 0; i < 6; i++)
		if (!leak_at(at[i]))
			return 89;
	if (refuse_close_range) {
#ifdef SYS_close_range
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close_range, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { .len = 4, .filter = f };

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
			return 91;
		if (syscall(SYS_close_range, 1000U, 1000U, 0U) != -1 || errno != ENOSYS)
			return 92;
#endif
	}
	mcp_close_from(5);
	for (size_t i = 0; i < 6; i++)
		if ((fcntl(at[i], F_GETFD) >= 0) != (at[i] < 5))
			return at[i] == last ? 99 : at[i];
	return 0;
}

static void close_from(bool refuse_close_range)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(close_from_child(refuse_close_range));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "exit %d (the descriptor that is wrong; 99 the limit's last)", WEXITSTATUS(status));
}

START_TEST(close_from_closes_every_descriptor_from_lowfd)
{
	close_from(false);
}
END_TEST

START_TEST(close_from_walks_proc_without_close_range)
{
	close_from(true);
}
END_TEST

Suite *child_suite(void)
{
	Suite *s = suite_create("child");
	TCase *tc = tcase_create("child");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, spawn_gives_stdin_null_and_no_other_descriptor);
	tcase_add_test(tc, spawn_detached_has_its_session_and_default_signals);
	tcase_add_test(tc, spawn_says_why_a_program_does_not_run);
	tcase_add_test(tc, close_from_closes_every_descriptor_from_lowfd);
	tcase_add_test(tc, close_from_walks_proc_without_close_range);
	suite_add_tcase(s, tc);
	return s;
}
