/*
 * test_container_alias.c - srtctl's container aliases (spank/container/alias.c,
 * spank/container/container.c): `container: trtllm` resolves through srtslurm.yaml
 * found as srtctl finds it ($SRTSLURM_CONFIG, else the working directory,
 * its parent, its grandparent), then the cluster's srtslurm= file, to an
 * image or a bundle; an alias no file maps is refused before any step,
 * naming the files read; a file srtctl would not load is refused at its
 * line. A srtslurm.yaml the lookup finds (not one SRTSLURM_CONFIG or
 * srtslurm= names) is read only when it is the user's or root's and no
 * one else can change it or a directory above it (a sticky one aside);
 * any other is skipped, named with its owner, and the lookup goes on.
 */
#include <check.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "container/container.h"
#include "stub.h"
#include "testdir.h"

static char tmp[256];
static const struct mcp_container_site pyxis = { true, false, "/etc/slurm/oci.conf" };
static const struct mcp_container_site oci = { false, true, "/etc/slurm/oci.conf" };
static const struct mcp_container_site none = { false, false, "/etc/slurm/oci.conf" };

static void setup(void)
{
	testdir_make(tmp, sizeof(tmp), "alias");
	stub_reset(S_CTX_LOCAL);
	unsetenv("SRTSLURM_CONFIG");
	/* srtctl's walk up stops at the grandparent: a/b/c never sees tmp */
	ck_assert_int_eq(mkdir("a", 0755), 0);
	ck_assert_int_eq(mkdir("a/b", 0755), 0);
	ck_assert_int_eq(mkdir("a/b/c", 0755), 0);
	ck_assert_int_eq(chdir("a/b/c"), 0);
}

static void teardown(void)
{
	unsetenv("SRTSLURM_CONFIG");
	testdir_remove(tmp);
}

#define ck_contains(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "'%s' not in:\n%s", (needle), (hay))

/* tmp/<rel> holds text (0644, whatever the umask) */
static void put(const char *rel, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	testdir_write(path, text);
	ck_assert_int_eq(chmod(path, 0644), 0);
}

/* decide for model.container `value` on `site`, plugstack `arg` (or none) */
static int decide(const char *arg, const struct mcp_container_site *site, const char *value, struct mcp_container *c,
		  char *msg, size_t size)
{
	char y[1024], *av[] = { (char *)arg, NULL };
	struct mcri_plugstack ps;
	struct mcr_recipe *r = NULL;
	struct mcr_error err = { 0 };
	int rc;

	snprintf(y, sizeof(y),
		 "schema: 2\nmodel: {path: x, container: '%s'}\nengine: sglang\nroles: {agg: {}}\n"
		 "services:\n  - {name: mooncake-master, type: mooncake-master}\n",
		 value);
	ck_assert_int_eq(mcr_recipe_load_buffer(y, strlen(y), "r.yaml", &r, &err), 0);
	ck_assert_int_eq(mcri_plugstack_parse(&ps, arg ? 1 : 0, av, &err), 0);
	rc = mcp_container_decide(&ps, r, site, c, &err);
	mcr_error_format(&err, msg, size);
	mcr_recipe_free(r);
	return rc;
}

#define ALIASES "cluster: {account: a}\ncontainers:\n  trtllm: 'nvcr.io#nvidia/tensorrt-llm/release:1.0.0'\n"

START_TEST(an_alias_resolves_through_srtctls_file)
{
	struct mcp_container c;
	char msg[8192], want[8192], file[512];

	/* the grandparent's srtslurm.yaml, as srtctl finds it */
	put("a/srtslurm.yaml", ALIASES);
	ck_assert_int_eq(decide(NULL, &pyxis, "trtllm", &c, msg, sizeof(msg)), 0);
	ck_assert_int_eq(c.mode, MCRI_CONTAINER_PYXIS);
	ck_assert_str_eq(c.value, "nvcr.io#nvidia/tensorrt-llm/release:1.0.0");
	/* the srun that starts the master says which image, from which file
	 * (slurm_info, not only -v: step.c) */
	snprintf(
		want, sizeof(want),
		"mooncake: r.yaml:2:29: model.container ('trtllm' is containers.trtllm of %s/a/srtslurm.yaml:3:11): the master step runs in nvcr.io#nvidia/tensorrt-llm/release:1.0.0 (pyxis)",
		tmp);
	ck_assert_str_eq(c.note, want);
	ck_assert(!c.note_verbose);
	/* the nearest file wins (the working directory's, then its parent's) */
	put("a/b/srtslurm.yaml", "containers: {trtllm: 'nvcr.io#nvidia/parent:2'}\n");
	ck_assert_int_eq(decide(NULL, &pyxis, "trtllm", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value, "nvcr.io#nvidia/parent:2");
	/* a value that is no key is left as it is */
	ck_assert_int_eq(decide(NULL, &pyxis, "nvcr.io#nvidia/other:3", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value, "nvcr.io#nvidia/other:3");
	ck_assert_str_eq(
		c.note,
		"mooncake: r.yaml:2:29: model.container: the master step runs in nvcr.io#nvidia/other:3 (pyxis)");
	/* SRTSLURM_CONFIG: that file only */
	put("mine.yaml", "containers: {trtllm: 'nvcr.io#nvidia/mine:4'}\n");
	snprintf(file, sizeof(file), "%s/mine.yaml", tmp);
	setenv("SRTSLURM_CONFIG", file, 1);
	ck_assert_int_eq(decide(NULL, &pyxis, "trtllm", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value, "nvcr.io#nvidia/mine:4");
	/* ... and when it does not exist, no file (srtctl looks nowhere else) */
	snprintf(file, sizeof(file), "%s/gone.yaml", tmp);
	setenv("SRTSLURM_CONFIG", file, 1);
	ck_assert_int_eq(decide(NULL, &pyxis, "trtllm", &c, msg, sizeof(msg)), -1);
	snprintf(
		want, sizeof(want),
		"'trtllm' looks like an srtctl alias (srtslurm.yaml's containers:), and no srtslurm.yaml maps it (SRTSLURM_CONFIG=%s, which does not exist (No such file or directory); plugstack.conf names no cluster-wide file (srtslurm=))",
		file);
	ck_contains(msg, want);
}
END_TEST

START_TEST(the_cluster_file_and_what_was_read)
{
	struct mcp_container c;
	char msg[8192], want[8192], arg[600];

	/* srtslurm= in plugstack.conf: the cluster's aliases, after srtctl's */
	put("cluster.yaml", "containers:\n  trtllm: 'nvcr.io#nvidia/cluster:1'\n  vllm: 'nvcr.io#nvidia/vllm:1'\n");
	snprintf(arg, sizeof(arg), "srtslurm=%s/cluster.yaml", tmp);
	ck_assert_int_eq(decide(arg, &pyxis, "vllm", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value, "nvcr.io#nvidia/vllm:1");
	put("a/b/c/srtslurm.yaml", "containers: {trtllm: 'nvcr.io#nvidia/user:1'}\n");
	ck_assert_int_eq(decide(arg, &pyxis, "trtllm", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value, "nvcr.io#nvidia/user:1");
	ck_assert_int_eq(decide(arg, &pyxis, "vllm", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value, "nvcr.io#nvidia/vllm:1");
	/* an alias no file maps: refused, naming the files read */
	ck_assert_int_eq(decide(arg, &pyxis, "sglang", &c, msg, sizeof(msg)), -1);
	snprintf(
		want, sizeof(want),
		"mooncake: r.yaml:2:29: model.container: 'sglang' looks like an srtctl alias (srtslurm.yaml's containers:), and no srtslurm.yaml maps it (%s/a/b/c/srtslurm.yaml, %s/cluster.yaml (srtslurm= in plugstack.conf)); with pyxis on this cluster",
		tmp, tmp);
	ck_contains(msg, want);
	/* none found: where srtctl looked */
	snprintf(want, sizeof(want), "%s/a/b/c/srtslurm.yaml", tmp);
	ck_assert_int_eq(unlink(want), 0);
	put("srtslurm.yaml", ALIASES); /* above the grandparent: not srtctl's */
	ck_assert_int_eq(decide(NULL, &oci, "trtllm", &c, msg, sizeof(msg)), -1);
	snprintf(
		want, sizeof(want),
		"and no srtslurm.yaml maps it (no srtslurm.yaml in %s/a/b/c, %s/a/b, %s/a (and SRTSLURM_CONFIG is not set); plugstack.conf names no cluster-wide file (srtslurm=)). Write the bundle's absolute path",
		tmp, tmp, tmp);
	ck_contains(msg, want);
	/* a cluster file that is not there is an error of the admin's */
	ck_assert_int_eq(decide("srtslurm=/nonexistent/srtslurm.yaml", &pyxis, "trtllm", &c, msg, sizeof(msg)), -1);
	ck_assert_str_eq(
		msg,
		"mooncake: cannot read srtctl's cluster config /nonexistent/srtslurm.yaml: No such file or directory; make it a readable YAML file (srtctl's srtslurm.yaml), or remove it");
}
END_TEST

START_TEST(an_alias_resolves_to_what_the_system_takes)
{
	struct mcp_container c;
	char msg[8192], want[8192];

	/* a bundle directory: Slurm's OCI support */
	ck_assert_int_eq(mkdir("bundle", 0755), 0);
	testdir_write("bundle/config.json", "{}");
	put("a/srtslurm.yaml", "containers: {trtllm: ./b/c/bundle, img: images/trt.sqsh, dir: /}\n");
	ck_assert_int_eq(chdir(tmp), 0);
	ck_assert_int_eq(mkdir("images", 0755), 0);
	testdir_write("images/trt.sqsh", "");
	ck_assert_int_eq(chdir("a"), 0);
	/* (from a: its own srtslurm.yaml; values relative to this directory) */
	ck_assert_int_eq(decide(NULL, &oci, "trtllm", &c, msg, sizeof(msg)), 0);
	ck_assert_int_eq(c.mode, MCRI_CONTAINER_OCI);
	snprintf(want, sizeof(want), "%s/a/b/c/bundle", tmp);
	ck_assert_str_eq(c.value, want);
	/* a relative squashfs path: made absolute for pyxis (issue 127) */
	ck_assert_int_eq(chdir(tmp), 0);
	ck_assert_int_eq(rename("a/srtslurm.yaml", "srtslurm.yaml"), 0);
	ck_assert_int_eq(decide(NULL, &pyxis, "img", &c, msg, sizeof(msg)), 0);
	snprintf(want, sizeof(want), "%s/images/trt.sqsh", tmp);
	ck_assert_str_eq(c.value, want);
	/* what the alias names, refused: the message says both */
	ck_assert_int_eq(decide(NULL, &pyxis, "dir", &c, msg, sizeof(msg)), -1);
	snprintf(
		want, sizeof(want),
		"mooncake: r.yaml:2:29: model.container ('dir' is containers.dir of %s/srtslurm.yaml:1:63): / is a directory; with pyxis on this cluster",
		tmp);
	ck_contains(msg, want);
}
END_TEST

START_TEST(a_file_srtctl_would_not_load)
{
	struct mcp_container c;
	char msg[8192], want[8192];

	put("a/b/c/srtslurm.yaml", "containers:\n  - trtllm\n");
	ck_assert_int_eq(decide(NULL, &pyxis, "trtllm", &c, msg, sizeof(msg)), -1);
	snprintf(
		want, sizeof(want),
		"mooncake: %s/a/b/c/srtslurm.yaml:2:3: containers: must map srtctl's container aliases to images, e.g. containers: {trtllm: /shared/images/trtllm.sqsh}",
		tmp);
	ck_assert_str_eq(msg, want);
	put("a/b/c/srtslurm.yaml", "containers: {trtllm: [1]}\n");
	ck_assert_int_eq(decide(NULL, &pyxis, "trtllm", &c, msg, sizeof(msg)), -1);
	ck_contains(
		msg,
		"/a/b/c/srtslurm.yaml:1:22: containers.trtllm: [1] is not an image; write a registry image, a squashfs file or an OCI bundle's path, e.g. trtllm: /shared/images/trtllm.sqsh");
	put("a/b/c/srtslurm.yaml", "containers: {trtllm: x\n");
	ck_assert_int_eq(decide(NULL, &pyxis, "trtllm", &c, msg, sizeof(msg)), -1);
	ck_contains(msg, "/a/b/c/srtslurm.yaml:");
	/* where no container runs the master, no file is read */
	ck_assert_int_eq(decide(NULL, &none, "trtllm", &c, msg, sizeof(msg)), 0);
	ck_assert_int_eq(c.mode, MCRI_CONTAINER_NONE);
	ck_contains(c.note, "'trtllm' is not used: this cluster has no container support");
	ck_assert_int_eq(decide("container=none", &pyxis, "trtllm", &c, msg, sizeof(msg)), 0);
	ck_assert_int_eq(c.mode, MCRI_CONTAINER_NONE);
}
END_TEST

#define MINE "containers: {trtllm: 'nvcr.io#nvidia/mine:1'}\n"
#define THEIRS "containers: {trtllm: 'nvcr.io#evil/theirs:6'}\n"

/* decide as above, with plugstack srtslurm=tmp/cluster.yaml (which maps
 * trtllm to nvcr.io#nvidia/cluster:1); the image, and the note holds
 * `note` */
static void decides(const char *image, const char *note)
{
	struct mcp_container c;
	char msg[8192], arg[600];

	snprintf(arg, sizeof(arg), "srtslurm=%s/cluster.yaml", tmp);
	ck_assert_msg(decide(arg, &pyxis, "trtllm", &c, msg, sizeof(msg)) == 0, "%s", msg);
	ck_assert_str_eq(c.value, image);
	ck_assert(!c.note_verbose);
	ck_contains(c.note, note);
}

#define SKIPPED_RULE                                                                                                   \
	"a srtslurm.yaml found in the working directory or above is read only when it is yours or root's and no one else can change it (SRTSLURM_CONFIG names one to read as it is)"

START_TEST(a_found_file_is_read_only_when_no_one_else_can_change_it)
{
	char want[2048], path[512];

	put("cluster.yaml", "containers: {trtllm: 'nvcr.io#nvidia/cluster:1'}\n");
	put("a/b/c/srtslurm.yaml", THEIRS);
	put("a/b/srtslurm.yaml", MINE);
	/* a file every user may write: skipped, and the lookup goes on */
	snprintf(path, sizeof(path), "%s/a/b/c/srtslurm.yaml", tmp);
	ck_assert_int_eq(chmod(path, 0666), 0);
	snprintf(
		want, sizeof(want),
		"model.container ('trtllm' is containers.trtllm of %s/a/b/srtslurm.yaml:1:22): the master step runs in nvcr.io#nvidia/mine:1 (pyxis); skipped %s (every user may write it (mode 0666)): " SKIPPED_RULE,
		tmp, path);
	decides("nvcr.io#nvidia/mine:1", want);
	/* ... as if it were not there: without another, the cluster's */
	snprintf(path, sizeof(path), "%s/a/b/srtslurm.yaml", tmp);
	ck_assert_int_eq(unlink(path), 0);
	decides("nvcr.io#nvidia/cluster:1", "the master step runs in nvcr.io#nvidia/cluster:1 (pyxis); skipped ");
	/* a link, even to a file of one's own, is not followed */
	snprintf(path, sizeof(path), "%s/a/b/c/srtslurm.yaml", tmp);
	ck_assert_int_eq(unlink(path), 0);
	put("mine.yaml", MINE);
	snprintf(want, sizeof(want), "%s/mine.yaml", tmp);
	ck_assert_int_eq(symlink(want, path), 0);
	snprintf(want, sizeof(want), "skipped %s (it is a link (of uid %u", path, (unsigned)getuid());
	decides("nvcr.io#nvidia/cluster:1", want);
	ck_assert_int_eq(unlink(path), 0);
	/* a directory above it that every user may write: only when sticky */
	put("a/srtslurm.yaml", MINE);
	snprintf(path, sizeof(path), "%s/a", tmp);
	ck_assert_int_eq(chmod(path, 0777), 0);
	snprintf(
		want, sizeof(want),
		"skipped %s/a/srtslurm.yaml (it is in %s, which every user may write (mode 0777, without the sticky bit))",
		tmp, path);
	decides("nvcr.io#nvidia/cluster:1", want);
	ck_assert_int_eq(chmod(path, 01777), 0);
	decides("nvcr.io#nvidia/mine:1", "the master step runs in nvcr.io#nvidia/mine:1 (pyxis)");
	ck_assert_int_eq(chmod(path, 0755), 0);
}
END_TEST

/* what root alone can set up: files and directories of other users */
START_TEST(another_users_file_is_skipped_naming_its_owner)
{
	struct mcp_container c;
	char want[2048], path[512], msg[8192], *dir;

	if (getuid() != 0)
		return; /* the test runs as root (make check-plugin in CI) */
	put("cluster.yaml", "containers: {trtllm: 'nvcr.io#nvidia/cluster:1'}\n");
	/* another user's file in the grandparent, and the directory sticky
	 * and world-writable (as /tmp): the attack of issue 34 */
	put("a/srtslurm.yaml", THEIRS);
	snprintf(path, sizeof(path), "%s/a/srtslurm.yaml", tmp);
	ck_assert_int_eq(chown(path, 4242, 4242), 0);
	snprintf(want, sizeof(want), "%s/a", tmp);
	ck_assert_int_eq(chmod(want, 01777), 0);
	snprintf(
		want, sizeof(want),
		"model.container ('trtllm' is containers.trtllm of %s/cluster.yaml:1:22): the master step runs in nvcr.io#nvidia/cluster:1 (pyxis); skipped %s (it belongs to uid 4242): " SKIPPED_RULE,
		tmp, path);
	decides("nvcr.io#nvidia/cluster:1", want);
	/* without the cluster's file, the alias is unmapped, and the error
	 * says what was skipped */
	ck_assert_int_eq(decide(NULL, &pyxis, "trtllm", &c, msg, sizeof(msg)), -1);
	snprintf(
		want, sizeof(want),
		"and no srtslurm.yaml maps it (skipped %s (it belongs to uid 4242); no srtslurm.yaml in %s/a/b/c, %s/a/b, %s/a (and SRTSLURM_CONFIG is not set); plugstack.conf names no cluster-wide file (srtslurm=))",
		path, tmp, tmp, tmp);
	ck_contains(msg, want);
	/* the file a user names is the user's choice, whoever owns it */
	setenv("SRTSLURM_CONFIG", path, 1);
	ck_assert_int_eq(decide(NULL, &pyxis, "trtllm", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value, "nvcr.io#evil/theirs:6");
	unsetenv("SRTSLURM_CONFIG");
	/* group-writable: by a group of others, skipped */
	ck_assert_int_eq(chown(path, 0, 4242), 0);
	ck_assert_int_eq(chmod(path, 0664), 0);
	snprintf(want, sizeof(want), "skipped %s (its group may write it (mode 0664))", path);
	decides("nvcr.io#nvidia/cluster:1", want);
	ck_assert_int_eq(chmod(path, 0644), 0);
	/* a directory above it of another user's, who could replace it */
	dir = want;
	snprintf(dir, sizeof(want), "%s/a", tmp);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(chown(dir, 4242, 4242), 0);
	snprintf(msg, sizeof(msg), "skipped %s (it is in %s, which belongs to uid 4242)", path, dir);
	decides("nvcr.io#nvidia/cluster:1", msg);
	ck_assert_int_eq(chown(dir, 0, 0), 0);
	/* root's file, for another user: read. (That user, in a child: the
	 * scratch directory opened to it.) */
	ck_assert_int_eq(chmod(tmp, 0755), 0);
	{
		int fds[2], st;
		char got[256] = "";
		pid_t pid;

		ck_assert_int_eq(pipe(fds), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			char arg[600], *av[] = { arg, NULL };
			struct mcri_plugstack ps;
			struct mcr_recipe *r = NULL;
			struct mcr_error err = { 0 };
			struct mcp_container ct;
			const char *y =
				"schema: 2\nmodel: {path: x, container: trtllm}\nengine: sglang\nroles: {agg: {}}\n"
				"services:\n  - {name: mooncake-master, type: mooncake-master}\n";

			snprintf(arg, sizeof(arg), "srtslurm=%s/cluster.yaml", tmp);
			if (setgroups(0, NULL) || setgid(4242) || setuid(4242) ||
			    mcr_recipe_load_buffer(y, strlen(y), "r.yaml", &r, &err) ||
			    mcri_plugstack_parse(&ps, 1, av, &err) || mcp_container_decide(&ps, r, &pyxis, &ct, &err))
				_exit(1);
			if (write(fds[1], ct.value, strlen(ct.value)) < 0)
				_exit(1);
			_exit(0);
		}
		close(fds[1]);
		ck_assert_int_ge(read(fds[0], got, sizeof(got) - 1), 0);
		close(fds[0]);
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		ck_assert_str_eq(got, "nvcr.io#evil/theirs:6"); /* root's file: THEIRS, now root's */
	}
	ck_assert_int_eq(chmod(tmp, 0700), 0);
}
END_TEST

Suite *container_alias_suite(void)
{
	Suite *s = suite_create("container_alias");
	TCase *tc = tcase_create("container_alias");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, an_alias_resolves_through_srtctls_file);
	tcase_add_test(tc, the_cluster_file_and_what_was_read);
	tcase_add_test(tc, an_alias_resolves_to_what_the_system_takes);
	tcase_add_test(tc, a_file_srtctl_would_not_load);
	tcase_add_test(tc, a_found_file_is_read_only_when_no_one_else_can_change_it);
	tcase_add_test(tc, another_users_file_is_skipped_naming_its_owner);
	suite_add_tcase(s, tc);
	return s;
}
