/*
 * test_container.c - the master step in the recipe's container
 * (spank/container/container.c): container= in plugstack.conf, the decision per
 * cluster (pyxis, Slurm's OCI, neither) and its refusals, the master
 * step's command line in each, and a task's check of its client config
 * (inside an OCI bundle: where the bundle mounts it).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/container.h"
#include "plugin/handover.h"
#include "steps/master.h"
#include "steps/step.h"
#include "stub.h"
#include "testdir.h"

static char tmp[256], nofile[512];

/* no srtslurm.yaml anywhere: SRTSLURM_CONFIG names a file that is not
 * there (srtctl then uses none, and looks nowhere else) */
static void setup(void)
{
	testdir_make(tmp, sizeof(tmp), "container");
	stub_reset(S_CTX_LOCAL);
	snprintf(nofile, sizeof(nofile), "%s/no-srtslurm.yaml", tmp);
	setenv("SRTSLURM_CONFIG", nofile, 1);
}

static void teardown(void)
{
	unsetenv("SRTSLURM_CONFIG");
	testdir_remove(tmp);
}

#define put testdir_write

/* a recipe whose job runs in `container` (model.container, line 2) */
static struct mcr_recipe *recipe_in(const char *container)
{
	char y[1024];
	struct mcr_recipe *r = NULL;
	struct mcr_error err;

	snprintf(y, sizeof(y),
		 "schema: 2\nmodel: {path: x, container: '%s'}\nengine: sglang\nroles: {agg: {}}\n"
		 "services:\n  - {name: mooncake-master, type: mooncake-master}\n",
		 container);
	ck_assert_int_eq(mcr_recipe_load_buffer(y, strlen(y), "r.yaml", &r, &err), 0);
	return r;
}

static void plugstack(struct mcri_plugstack *ps, const char *arg)
{
	char *av[] = { (char *)arg, NULL };
	struct mcr_error err;

	ck_assert_int_eq(mcri_plugstack_parse(ps, arg ? 1 : 0, av, &err), 0);
}

/* decide for `container` with plugstack `arg` on a cluster `site`: the
 * return code, *c, and the message in `msg` */
static int decide(const char *arg, const struct mcp_container_site *site, const char *container,
		  struct mcp_container *c, char *msg, size_t size)
{
	struct mcri_plugstack ps;
	struct mcr_recipe *r = recipe_in(container);
	struct mcr_error err = { 0 };
	int rc;

	plugstack(&ps, arg);
	rc = mcp_container_decide(&ps, r, site, c, &err);
	mcr_error_format(&err, msg, size);
	mcr_recipe_free(r);
	return rc;
}

static void make_bundle(const char *name, const char *config)
{
	char path[512];

	ck_assert_int_eq(mkdir(name, 0755), 0);
	snprintf(path, sizeof(path), "%s/config.json", name);
	put(path, config);
}

#define ck_contains(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "'%s' not in:\n%s", (needle), (hay))

START_TEST(plugstack_container_argument)
{
	struct mcri_plugstack ps;
	struct mcr_error err;
	char *bad[] = { "container=docker", NULL };

	plugstack(&ps, NULL);
	ck_assert_int_eq(ps.container, MCRI_CONTAINER_AUTO);
	for (int m = MCRI_CONTAINER_AUTO; m <= MCRI_CONTAINER_NONE; m++) {
		char arg[64];

		snprintf(arg, sizeof(arg), "container=%s", mcri_container_mode_name((enum mcri_container_mode)m));
		plugstack(&ps, arg);
		ck_assert_int_eq(ps.container, m);
	}
	ck_assert_int_eq(mcri_plugstack_parse(&ps, 1, bad, &err), -1);
	ck_contains(err.text, "plugstack.conf: container=docker: write container=auto");
	/* srtslurm=: the cluster's srtslurm.yaml, an absolute path */
	ck_assert_str_eq(ps.srtslurm, "");
	plugstack(&ps, "srtslurm=/etc/slurm/srtslurm.yaml");
	ck_assert_str_eq(ps.srtslurm, "/etc/slurm/srtslurm.yaml");
	bad[0] = "srtslurm=srtslurm.yaml";
	ck_assert_int_eq(mcri_plugstack_parse(&ps, 1, bad, &err), -1);
	ck_assert_str_eq(
		err.text,
		"plugstack.conf: srtslurm=srtslurm.yaml must be an absolute path (the cluster's srtslurm.yaml of srtctl's container aliases, e.g. srtslurm=/etc/slurm/srtslurm.yaml)");
}
END_TEST

START_TEST(no_container_support_runs_the_host_master_and_says_so)
{
	const struct mcp_container_site none = { false, false, "/etc/slurm/oci.conf" };
	struct mcp_container c;
	char msg[4096];

	ck_assert_int_eq(decide(NULL, &none, "trtllm", &c, msg, sizeof(msg)), 0);
	ck_assert_int_eq(c.mode, MCRI_CONTAINER_NONE);
	ck_assert_str_eq(
		c.note,
		"mooncake: r.yaml:2:29: model.container: 'trtllm' is not used: this cluster has no container support for the master step (srun has no --container-image, there is no /etc/slurm/oci.conf), so mooncake_master runs from the PATH of the infra node, as without a container; container=none in plugstack.conf says so for good");
	ck_assert(!c.note_verbose);
	/* container=none: the host, with a line for srun -v */
	ck_assert_int_eq(decide("container=none", &none, "/nowhere", &c, msg, sizeof(msg)), 0);
	ck_assert_int_eq(c.mode, MCRI_CONTAINER_NONE);
	ck_assert_str_eq(
		c.note,
		"mooncake: r.yaml:2:29: model.container: '/nowhere' is not used (container=none in plugstack.conf): the master runs on the host");
	ck_assert(c.note_verbose);
}
END_TEST

START_TEST(pyxis_takes_images_and_refuses_aliases_and_directories)
{
	const struct mcp_container_site pyxis = { true, false, "/etc/slurm/oci.conf" };
	struct mcp_container c;
	char msg[4096], want[4096];

	ck_assert_int_eq(decide(NULL, &pyxis, "nvcr.io#nvidia/tensorrt-llm/release:1.0.0", &c, msg, sizeof(msg)), 0);
	ck_assert_int_eq(c.mode, MCRI_CONTAINER_PYXIS);
	ck_assert_str_eq(c.value, "nvcr.io#nvidia/tensorrt-llm/release:1.0.0");
	ck_assert_int_eq(decide(NULL, &pyxis, "trtllm", &c, msg, sizeof(msg)), -1);
	snprintf(
		want, sizeof(want),
		"mooncake: r.yaml:2:29: model.container: 'trtllm' looks like an srtctl alias (srtslurm.yaml's containers:), and no srtslurm.yaml maps it (SRTSLURM_CONFIG=%s, which does not exist (No such file or directory); plugstack.conf names no cluster-wide file (srtslurm=)); with pyxis on this cluster (srun has --container-image), the master step runs as srun --container-image=IMAGE: map it in containers: of srtslurm.yaml, or write the image itself, a registry image (e.g. model.container: nvcr.io#nvidia/tensorrt-llm/release:1.0.0, or docker.io#library/trtllm:latest for Docker Hub's) or the absolute path of a squashfs file (e.g. /shared/images/trtllm.sqsh)",
		nofile);
	ck_assert_str_eq(msg, want);
	ck_assert_int_eq(decide("container=pyxis", NULL, tmp, &c, msg, sizeof(msg)), -1);
	ck_contains(
		msg,
		"is a directory; with container=pyxis in plugstack.conf, the master step runs as srun --container-image=IMAGE");
	/* a squashfs file named relative to the submit directory */
	put("img.sqsh", "");
	ck_assert_int_eq(decide("container=pyxis", NULL, "./img.sqsh", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value + strlen(c.value) - 9, "/img.sqsh");
	ck_assert_int_eq(c.value[0], '/');
}
END_TEST

/* pyxis takes a squashfs file only by a name that starts with '/' or '.',
 * and pulls anything else from a registry (NVIDIA/pyxis issue 127): a file
 * named relative to the srun's directory is made absolute, a file name that
 * is no file here is refused, before any step */
START_TEST(pyxis_gets_an_absolute_squashfs_path)
{
	const struct mcp_container_site pyxis = { true, false, "/etc/slurm/oci.conf" };
	struct mcp_container c;
	char msg[4096], want[2048];

	ck_assert_int_eq(mkdir("images", 0755), 0);
	put("images/trt.sqsh", "");
	put("trt.sqsh", "");
	/* images/trt.sqsh and trt.sqsh would be registry images for pyxis */
	snprintf(want, sizeof(want), "%s/images/trt.sqsh", tmp);
	ck_assert_int_eq(decide(NULL, &pyxis, "images/trt.sqsh", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value, want);
	snprintf(want, sizeof(want), "%s/trt.sqsh", tmp);
	ck_assert_int_eq(decide(NULL, &pyxis, "trt.sqsh", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value, want);
	ck_assert_int_eq(decide(NULL, &pyxis, "./images/../trt.sqsh", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value, want);
	/* a squashfs name that is no file here */
	ck_assert_int_eq(decide(NULL, &pyxis, "other.sqsh", &c, msg, sizeof(msg)), -1);
	snprintf(
		want, sizeof(want),
		"mooncake: r.yaml:2:29: model.container: the squashfs file other.sqsh does not exist here (relative to %s: No such file or directory); with pyxis on this cluster (srun has --container-image), the master step runs as srun --container-image=IMAGE, and pyxis takes a squashfs file only by its absolute path or one starting with ./ (anything else is pulled from a registry), relative to where its task runs: write the file's absolute path, the same on every node (e.g. model.container: /shared/images/other.sqsh)",
		tmp);
	ck_assert_str_eq(msg, want);
	ck_assert_int_eq(decide(NULL, &pyxis, "./images/other.squashfs", &c, msg, sizeof(msg)), -1);
	ck_contains(msg, "the squashfs file ./images/other.squashfs does not exist here");
	ck_contains(msg, "(e.g. model.container: /shared/images/other.squashfs)");
	ck_assert_int_eq(decide(NULL, &pyxis, "images/other.sqsh", &c, msg, sizeof(msg)), -1);
	/* registry images and absolute paths as they are (the nodes may have
	 * files this host has not) */
	ck_assert_int_eq(decide(NULL, &pyxis, "nvidia/cuda:12.4.0-base-ubuntu22.04", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value, "nvidia/cuda:12.4.0-base-ubuntu22.04");
	ck_assert_int_eq(decide(NULL, &pyxis, "/nodes/only/trt.sqsh", &c, msg, sizeof(msg)), 0);
	ck_assert_str_eq(c.value, "/nodes/only/trt.sqsh");
	/* a directory by any name */
	ck_assert_int_eq(decide(NULL, &pyxis, "images", &c, msg, sizeof(msg)), -1);
	ck_contains(msg, "model.container: images is a directory");
}
END_TEST

START_TEST(oci_takes_bundle_directories_only)
{
	const struct mcp_container_site oci = { false, true, "/etc/slurm/oci.conf" };
	const struct mcp_container_site both = { true, true, "/etc/slurm/oci.conf" };
	struct mcp_container c;
	char msg[4096], bundle[512], want[4096];

	make_bundle("bundle", "{}");
	snprintf(bundle, sizeof(bundle), "%s/bundle", tmp);
	ck_assert_int_eq(decide(NULL, &oci, "./bundle", &c, msg, sizeof(msg)), 0);
	ck_assert_int_eq(c.mode, MCRI_CONTAINER_OCI);
	ck_assert_str_eq(c.value, bundle);
	/* a bundle directory goes to Slurm's --container even with pyxis */
	ck_assert_int_eq(decide(NULL, &both, bundle, &c, msg, sizeof(msg)), 0);
	ck_assert_int_eq(c.mode, MCRI_CONTAINER_OCI);
	ck_assert_int_eq(decide(NULL, &both, "nvcr.io#nvidia/x:1", &c, msg, sizeof(msg)), 0);
	ck_assert_int_eq(c.mode, MCRI_CONTAINER_PYXIS);
	/* what Slurm's --container cannot run refuses the srun */
	ck_assert_int_eq(decide(NULL, &oci, "trtllm", &c, msg, sizeof(msg)), -1);
	snprintf(
		want, sizeof(want),
		"mooncake: r.yaml:2:29: model.container: 'trtllm' is not an OCI bundle directory. With Slurm's OCI containers on this cluster (/etc/slurm/oci.conf), the master step runs as srun --container=BUNDLE, and a bundle is a directory that holds config.json and its root file system; 'trtllm' looks like an srtctl alias (srtslurm.yaml's containers:) or an image name, and no srtslurm.yaml maps it (SRTSLURM_CONFIG=%s, which does not exist (No such file or directory); plugstack.conf names no cluster-wide file (srtslurm=)). Write the bundle's absolute path (the same on every node), e.g. model.container: /shared/bundles/trtllm, or map the alias to it in containers: of srtslurm.yaml",
		nofile);
	ck_assert_str_eq(msg, want);
	ck_assert_int_eq(decide("container=oci", NULL, "/nonexistent/bundle", &c, msg, sizeof(msg)), -1);
	ck_contains(msg, "the OCI bundle /nonexistent/bundle does not exist here (No such file or directory)");
	put("img.sqsh", "");
	ck_assert_int_eq(decide("container=oci", NULL, "./img.sqsh", &c, msg, sizeof(msg)), -1);
	ck_contains(msg, "./img.sqsh is a file, not an OCI bundle directory");
	ck_assert_int_eq(mkdir("empty", 0755), 0);
	ck_assert_int_eq(decide(NULL, &oci, "./empty", &c, msg, sizeof(msg)), -1);
	ck_contains(msg, "./empty has no config.json, so it is not an OCI bundle");
}
END_TEST

static char **strv(const char *const *in)
{
	size_t n = 0;
	char **v;

	while (in[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = strdup(in[i]);
	return v;
}

static char *joined(char **v)
{
	static char buf[4096];
	size_t o = 0;

	buf[0] = '\0';
	for (; v && *v; v++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", o ? " " : "", *v);
	return buf;
}

START_TEST(master_step_options_per_system)
{
	static const char *const cmd0[] = { "mooncake_master", "--port=8700", NULL };
	struct mcp_container c = { .mode = MCRI_CONTAINER_OCI, .value = "/b/trt" };
	struct mcr_error err;
	char **opts, **cmd = strv(cmd0);

	/* Slurm's OCI: the bundle, and the name looked up inside it */
	ck_assert_int_eq(mcp_container_options(&c, "/jobs/4/logs", NULL, &opts, &cmd, &err), 0);
	ck_assert_str_eq(joined(opts), "--container=/b/trt");
	ck_assert_str_eq(joined(cmd), "/usr/bin/env mooncake_master --port=8700");
	mcr_strv_free(opts);
	mcr_strv_free(cmd);
	/* master=/abs/path is the path inside the container */
	cmd = strv((const char *const[]){ "/opt/mc/bin/mooncake_master", NULL });
	ck_assert_int_eq(mcp_container_options(&c, "/jobs/4/logs", NULL, &opts, &cmd, &err), 0);
	ck_assert_str_eq(joined(cmd), "/opt/mc/bin/mooncake_master");
	mcr_strv_free(opts);
	mcr_strv_free(cmd);
	/* pyxis: the image, the job's directory at its own path */
	c.mode = MCRI_CONTAINER_PYXIS;
	snprintf(c.value, sizeof(c.value), "nvcr.io#nvidia/trt:1");
	cmd = strv(cmd0);
	ck_assert_int_eq(mcp_container_options(&c, "/jobs/4/logs", NULL, &opts, &cmd, &err), 0);
	ck_assert_str_eq(
		joined(opts),
		"--container-image=nvcr.io#nvidia/trt:1 --container-mounts=/jobs/4/logs:/jobs/4/logs --container-workdir=/jobs/4/logs");
	ck_assert_str_eq(joined(cmd), "mooncake_master --port=8700");
	mcr_strv_free(opts);
	/* ... and the variables srun sets for the step named in
	 * --container-env, so that pyxis keeps their values over the image's
	 * (an HA pool's master: FLAGS_rpc_address, which its task sets) */
	{
		struct mcr_env_var vars[] = { { "MC_STORE_X", "1" },
					      { MCP_GUARD_VAR, "1,2,3,4,5,6:/d" },
					      { MCP_HA_VAR, "{}" } };
		struct mcr_env env = { vars, 3 };

		ck_assert_int_eq(mcp_container_options(&c, "/jobs/4/logs", &env, &opts, &cmd, &err), 0);
		ck_assert_str_eq(
			joined(opts),
			"--container-image=nvcr.io#nvidia/trt:1 --container-mounts=/jobs/4/logs:/jobs/4/logs --container-workdir=/jobs/4/logs --container-env=MC_STORE_X,SLURM_MOONCAKE_MASTER_GUARD,SLURM_MOONCAKE_HA,FLAGS_rpc_address");
		mcr_strv_free(opts);
		env.count = 2;
		ck_assert_int_eq(mcp_container_options(&c, "/jobs/4/logs", &env, &opts, &cmd, &err), 0);
		ck_assert_str_eq(joined(opts + 3), "--container-env=MC_STORE_X,SLURM_MOONCAKE_MASTER_GUARD");
		mcr_strv_free(opts);
	}
	ck_assert_int_eq(mcp_container_options(&c, "/jobs/a:b", NULL, &opts, &cmd, &err), -1);
	ck_contains(err.text, "the job's directory /jobs/a:b has a ':' or ',' in its name");
	mcr_strv_free(opts);
	/* the host: no option */
	c.mode = MCRI_CONTAINER_NONE;
	ck_assert_int_eq(mcp_container_options(&c, "/jobs/4/logs", NULL, &opts, &cmd, &err), 0);
	ck_assert_ptr_null(opts);
	ck_assert_int_eq(mcp_container_options(NULL, "/jobs/4/logs", NULL, &opts, &cmd, &err), 0);
	ck_assert_ptr_null(opts);
	ck_assert_str_eq(joined(cmd), "mooncake_master --port=8700");
	mcr_strv_free(cmd);
}
END_TEST

/* the master step srun runs, with the container's options before the
 * command (a recording srun) */
START_TEST(spawned_master_step_in_a_bundle)
{
	struct mcri_plugstack ps;
	struct mcr_recipe *r = recipe_in("/b/trt");
	struct mcp_container c = { .mode = MCRI_CONTAINER_OCI, .value = "/b/trt" };
	const struct mcri_state st = { .ports = { 8700, 8701, 8702 } };
	struct mcp_step_place at = { .job_id = "4301", .dir = tmp, .node = "n1" };
	struct mcr_error err;
	char log[512], out[300], text[1200], buf[4096];
	pid_t pid;
	FILE *f;
	size_t n;

	plugstack(&ps, NULL);
	snprintf(ps.srun, sizeof(ps.srun), "%s/fake-srun", tmp);
	snprintf(out, sizeof(out), "%s/argv.txt", tmp);
	snprintf(text, sizeof(text), "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done >%s.tmp\nmv %s.tmp %s\n", out,
		 out, out);
	put(ps.srun, text);
	ck_assert_int_eq(chmod(ps.srun, 0755), 0);
	snprintf(log, sizeof(log), "%s/mooncake_master.log", tmp);
	ck_assert_int_eq(mcp_spawn_master(&ps, r, &c, &at, &st, false, NULL, NULL, log, &pid, &err), 0);
	for (int i = 0; i < 200 && access(out, F_OK) != 0; i++)
		usleep(20000);
	f = fopen(out, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_contains(buf, "--chdir=");
	ck_contains(buf, "\n--container=/b/trt\n/usr/bin/env\nmooncake_master\n--port=8700\n");
	mcr_recipe_free(r);
}
END_TEST

/* one explanation for a master that could not be run: in its container,
 * the image or master=; on the host, the PATH or master=/path/to/ */
START_TEST(one_advice_for_a_master_that_could_not_run)
{
	struct mcp_container oci = { .mode = MCRI_CONTAINER_OCI, .value = "/b/trt" };
	struct mcp_container pyxis = { .mode = MCRI_CONTAINER_PYXIS, .value = "nvcr.io#nvidia/trt:1" };
	const char *env_tail = "\n    /usr/bin/env: 'mooncake_master': No such file or directory";
	const char *exec_tail = "\n    slurmstepd: error: execve(): mooncake_master: No such file or directory";
	char out[2048];

	mcp_master_advice(&oci, env_tail, "mooncake_master", "n1", out, sizeof(out));
	ck_assert_str_eq(
		out,
		" The master step ran in the container /b/trt (Slurm's --container) on n1, and mooncake_master could not be run there: install the Mooncake wheel in the image (pip install mooncake-transfer-engine, which puts mooncake_master on its PATH), or name the binary's path inside the container with master= in plugstack.conf; container=none runs the host's mooncake_master instead.");
	/* inside pyxis's image, slurmstepd's execve() line is about the PATH
	 * of the image's login shell, not the host's */
	mcp_master_advice(&pyxis, exec_tail, "mooncake_master", "n1", out, sizeof(out));
	ck_assert_str_eq(
		out,
		" mooncake_master is not on the PATH in pyxis's container of nvcr.io#nvidia/trt:1 on n1: pyxis gives the step the PATH of the image's login shell, which Debian's and Ubuntu's /etc/profile set anew, dropping what the image's /etc/environment (a Dockerfile's ENV) adds. Install the Mooncake wheel in the image, link its mooncake_master into /usr/local/bin there, or name its path in the image with master= in plugstack.conf; container=none runs the host's mooncake_master.");
	ck_assert_ptr_null(strstr(out, "PATH of the master step"));
	/* ... another execve() failure there: the image or master= */
	mcp_master_advice(&pyxis, "\n    slurmstepd: error: execve(): /opt/x/mooncake_master: Permission denied",
			  "mooncake_master", "n1", out, sizeof(out));
	ck_contains(
		out,
		" The master step ran in the container nvcr.io#nvidia/trt:1 (pyxis) on n1, and mooncake_master could not be run there");
	/* on the host: the host's advice only */
	oci.mode = MCRI_CONTAINER_NONE;
	mcp_master_advice(&oci, exec_tail, "mooncake_master", "n1", out, sizeof(out));
	ck_contains(out, " mooncake_master is not on the PATH of the master step on n1");
	ck_assert_ptr_null(strstr(out, "container"));
	/* another failure: nothing */
	mcp_master_advice(&pyxis, "\n    bind failed: Address already in use", "mooncake_master", "n1", out,
			  sizeof(out));
	ck_assert_str_eq(out, "");
	mcp_master_advice(&pyxis, NULL, "mooncake_master", "n1", out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

/* ---- a task's client config ------------------------------------------ */

static int task_check(const char *bundle, const char *path, char *msg, size_t size)
{
	struct mcr_error err = { 0 };
	int rc;

	stub_reset(S_CTX_REMOTE);
	if (bundle)
		stub_setenv("SLURM_CONTAINER", bundle);
	rc = mcp_task_config_check(NULL, path, &err);
	mcr_error_format(&err, msg, size);
	return rc;
}

START_TEST(task_reads_its_config_where_it_runs)
{
	char path[512], cfg[2048], bundle[600], msg[4096];

	ck_assert_int_eq(mkdir("logs", 0755), 0);
	snprintf(path, sizeof(path), "%s/logs/mooncake_store_config_decode.json", tmp);
	put(path, "{}");
	/* on the host (or in a container a plugin before this one entered) */
	ck_assert_int_eq(task_check(NULL, path, msg, sizeof(msg)), 0);
	ck_assert_int_eq(task_check(NULL, "/nonexistent/logs/c.json", msg, sizeof(msg)), -1);
	ck_contains(
		msg,
		"cannot read its client config /nonexistent/logs/c.json (MOONCAKE_CONFIG_PATH): No such file or directory. The job's directory /nonexistent/logs must be readable where the task runs");
	ck_contains(
		msg,
		"pyxis: --container-mounts=/nonexistent/logs:/nonexistent/logs; Slurm's --container: a bind mount of /nonexistent/logs in the bundle's config.json");
	/* an OCI bundle that mounts a directory above the job's */
	snprintf(
		cfg, sizeof(cfg),
		"{\"root\": {\"path\": \"rootfs\"}, \"mounts\": [{\"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\"},"
		" {\"destination\": \"%s/\", \"type\": \"none\", \"source\": \"%s\", \"options\": [\"rbind\"]}]}",
		tmp, tmp);
	make_bundle("b1", cfg);
	snprintf(bundle, sizeof(bundle), "%s/b1", tmp);
	ck_assert_int_eq(task_check(bundle, path, msg, sizeof(msg)), 0);
	/* ... whose source lacks the file */
	snprintf(cfg, sizeof(cfg),
		 "{\"mounts\": [{\"destination\": \"%s\", \"type\": \"bind\", \"source\": \"/nonexistent\"}]}", tmp);
	make_bundle("b2", cfg);
	snprintf(bundle, sizeof(bundle), "%s/b2", tmp);
	ck_assert_int_eq(task_check(bundle, path, msg, sizeof(msg)), -1);
	ck_contains(msg, "which mounts its client config");
	ck_contains(
		msg,
		"from /nonexistent/logs/mooncake_store_config_decode.json, and that cannot be read: No such file or directory");
	/* a bundle that does not mount it */
	make_bundle(
		"b3",
		"{\"root\": {\"path\": \"rootfs\"}, \"mounts\": [{\"destination\": \"/tmp\", \"type\": \"tmpfs\", \"source\": \"tmpfs\"}]}");
	snprintf(bundle, sizeof(bundle), "%s/b3", tmp);
	ck_assert_int_eq(task_check(bundle, "/srv/jobs/logs/c.json", msg, sizeof(msg)), -1);
	ck_contains(msg, "runs in the OCI bundle ");
	ck_contains(
		msg,
		"/b3 (srun --container), which does not mount /srv/jobs/logs, so the task cannot read its client config /srv/jobs/logs/c.json (MOONCAKE_CONFIG_PATH) there. Mount the job's directory at the same path: add {\"destination\": \"/srv/jobs/logs\", \"type\": \"bind\", \"source\": \"/srv/jobs/logs\", \"options\": [\"rbind\"]} (or one for a directory above it) to the mounts of ");
	/* a tmpfs over it hides it */
	ck_assert_int_eq(task_check(bundle, path, msg, sizeof(msg)), -1);
	ck_contains(msg, "which mounts something other than a bind mount at");
	/* a bundle whose config.json cannot be read: the host's view */
	ck_assert_int_eq(task_check("/nonexistent/bundle", path, msg, sizeof(msg)), 0);
}
END_TEST

/* ---- pyxis: a role step's container ----------------------------------- */

static void pyxis_env_clear(void)
{
	static const char *const vars[] = { "_SLURM_SPANK_OPTION_pyxis_container_image",
					    "_SLURM_SPANK_OPTION_pyxis_container_name",
					    "_SLURM_SPANK_OPTION_pyxis_container_mounts",
					    "_SLURM_SPANK_OPTION_pyxis_container_env",
					    "PYXIS_CONTAINER_IMAGE",
					    "PYXIS_CONTAINER_MOUNTS",
					    "PYXIS_CONTAINER_ENV",
					    NULL };

	for (const char *const *v = vars; *v; v++)
		unsetenv(*v);
}

/* what mcp_pyxis_hand_over put in h (its env is the test's) */
static void pyxis_free(struct mcp_handover *h)
{
	free(h->pyxis.image);
	free(h->pyxis.mounts);
	free(h->pyxis.env);
	free(h->pyxis.missing);
	free(h->pyxis.was);
	memset(&h->pyxis, 0, sizeof(h->pyxis));
}

/* srun: the plugin's variables join PYXIS_CONTAINER_ENV (pyxis's default
 * for --container-env) when the step runs in pyxis's container; a
 * --container-env of the user's is left alone, and what it lacks is
 * handed to the tasks */
START_TEST(pyxis_role_step_names_the_plugins_variables)
{
	struct mcr_env_var vars[] = { { "MOONCAKE_MASTER", "10.0.0.1:8700" }, { "MOONCAKE_CONFIG_PATH", "/j/c.json" } };
	struct mcp_handover h = { .env = { vars, 2 } };
	struct mcr_error err;

	pyxis_env_clear();
	/* no pyxis container: nothing */
	setenv("PYXIS_CONTAINER_ENV", "A", 1);
	ck_assert_int_eq(mcp_pyxis_hand_over(&h, &err), 0);
	ck_assert_ptr_null(h.pyxis.image);
	ck_assert_str_eq(getenv("PYXIS_CONTAINER_ENV"), "A");
	/* srun's --container-image (as Slurm keeps it in srun's environment),
	 * the mounts from pyxis's default */
	setenv("_SLURM_SPANK_OPTION_pyxis_container_image", "nvcr.io#x/y:1", 1);
	setenv("PYXIS_CONTAINER_MOUNTS", "/a:/a", 1);
	ck_assert_int_eq(mcp_pyxis_hand_over(&h, &err), 0);
	ck_assert_str_eq(h.pyxis.image, "nvcr.io#x/y:1");
	ck_assert_str_eq(h.pyxis.mounts, "/a:/a");
	ck_assert_ptr_null(h.pyxis.env);
	ck_assert_ptr_null(h.pyxis.missing);
	ck_assert(h.pyxis.had);
	ck_assert_str_eq(h.pyxis.was, "A");
	ck_assert_str_eq(getenv("PYXIS_CONTAINER_ENV"), "A,MOONCAKE_MASTER,MOONCAKE_CONFIG_PATH,SLURM_MOONCAKE_TASK");
	pyxis_free(&h);
	/* none before: each name once */
	unsetenv("PYXIS_CONTAINER_ENV");
	ck_assert_int_eq(mcp_pyxis_hand_over(&h, &err), 0);
	ck_assert(!h.pyxis.had);
	ck_assert_str_eq(getenv("PYXIS_CONTAINER_ENV"), "MOONCAKE_MASTER,MOONCAKE_CONFIG_PATH,SLURM_MOONCAKE_TASK");
	pyxis_free(&h);
	/* the user's --container-env: left alone; what it lacks is handed on */
	unsetenv("PYXIS_CONTAINER_ENV");
	setenv("_SLURM_SPANK_OPTION_pyxis_container_env", "X,MOONCAKE_MASTER", 1);
	setenv("_SLURM_SPANK_OPTION_pyxis_container_mounts", "/b:/b", 1);
	ck_assert_int_eq(mcp_pyxis_hand_over(&h, &err), 0);
	ck_assert_str_eq(h.pyxis.env, "X,MOONCAKE_MASTER");
	ck_assert_str_eq(h.pyxis.missing, "MOONCAKE_CONFIG_PATH");
	ck_assert_str_eq(h.pyxis.mounts, "/b:/b");
	ck_assert_ptr_null(getenv("PYXIS_CONTAINER_ENV"));
	pyxis_free(&h);
	setenv("_SLURM_SPANK_OPTION_pyxis_container_env", "MOONCAKE_CONFIG_PATH,MOONCAKE_MASTER", 1);
	ck_assert_int_eq(mcp_pyxis_hand_over(&h, &err), 0);
	ck_assert_ptr_null(h.pyxis.missing);
	pyxis_free(&h);
	pyxis_env_clear();
}
END_TEST

static int pyxis_check(struct mcp_handover *h, const char *dir, bool entered, char *msg, size_t size)
{
	struct mcr_error err = { 0 };
	int rc = mcp_task_container_check(NULL, h, dir, dir, entered, &err);

	mcr_error_format(&err, msg, size);
	return rc;
}

/* slurmstepd: pyxis's container entered before this plugin (the
 * directory is there or not), or to be entered after it (its mounts and
 * --container-env say) */
START_TEST(task_in_pyxis_container)
{
	struct mcp_handover h = { 0 };
	char dir[512], mounts[1200], msg[4096];

	stub_reset(S_CTX_REMOTE);
	stub.hostname = "n3";
	ck_assert_int_eq(mkdir("logs", 0755), 0);
	snprintf(dir, sizeof(dir), "%s/logs", tmp);
	h.pyxis.image = "nvcr.io#x/y:1";
	/* entered (pyxis first): the directory is there, or the mount to add */
	ck_assert_int_eq(pyxis_check(&h, dir, true, msg, sizeof(msg)), 0);
	ck_assert_int_eq(pyxis_check(&h, "/nonexistent/logs", true, msg, sizeof(msg)), -1);
	ck_contains(
		msg,
		"runs in pyxis's container of nvcr.io#x/y:1, which does not mount the job's directory /nonexistent/logs (it does not exist there: No such file or directory), where the task's client config and the pool's record of its workers are. Mount it at its own path: add --container-mounts=/nonexistent/logs:/nonexistent/logs to this srun");
	/* to be entered (pyxis after the plugin): a mount of it or above it */
	snprintf(mounts, sizeof(mounts), "/srv:/srv,%s:%s:ro", tmp, tmp);
	h.pyxis.mounts = mounts;
	ck_assert_int_eq(pyxis_check(&h, dir, false, msg, sizeof(msg)), 0);
	snprintf(mounts, sizeof(mounts), "%s", dir);
	ck_assert_int_eq(pyxis_check(&h, dir, false, msg, sizeof(msg)), 0);
	/* ... of another directory at its path: not it */
	snprintf(mounts, sizeof(mounts), "/srv:%s", tmp);
	ck_assert_int_eq(pyxis_check(&h, dir, false, msg, sizeof(msg)), -1);
	ck_contains(
		msg,
		"which pyxis enters after this plugin's task_init (pyxis's line comes after spank_mooncake.so's in plugstack.conf), and none of its --container-mounts (/srv:");
	ck_contains(msg, ") mounts the job's directory ");
	ck_contains(msg,
		    "at its own path, so the task could not read its client config there. Add --container-mounts=");
	h.pyxis.mounts = NULL;
	ck_assert_int_eq(pyxis_check(&h, dir, false, msg, sizeof(msg)), -1);
	ck_contains(msg, "and it is given no --container-mounts, so nothing mounts the job's directory ");
	/* its --container-env lacks the plugin's names */
	h.pyxis.mounts = mounts;
	snprintf(mounts, sizeof(mounts), "%s:%s", tmp, tmp);
	h.pyxis.env = "X";
	h.pyxis.missing = "MOONCAKE_MASTER,MOONCAKE_CONFIG_PATH";
	ck_assert_int_eq(pyxis_check(&h, dir, false, msg, sizeof(msg)), -1);
	ck_contains(
		msg,
		"this srun's --container-env=X lacks MOONCAKE_MASTER,MOONCAKE_CONFIG_PATH, which the plugin sets. Add them (--container-env=X,MOONCAKE_MASTER,MOONCAKE_CONFIG_PATH)");
	/* ... which matters not when pyxis came first */
	ck_assert_int_eq(pyxis_check(&h, dir, true, msg, sizeof(msg)), 0);
	/* the user's PYXIS_CONTAINER_ENV back */
	h.pyxis.env = h.pyxis.missing = NULL;
	stub_setenv("PYXIS_CONTAINER_ENV", "MOONCAKE_MASTER");
	ck_assert_int_eq(pyxis_check(&h, dir, false, msg, sizeof(msg)), 0);
	ck_assert_ptr_null(stub_getenv("PYXIS_CONTAINER_ENV"));
	h.pyxis.had = true;
	h.pyxis.was = "U";
	ck_assert_int_eq(pyxis_check(&h, dir, false, msg, sizeof(msg)), 0);
	ck_assert_str_eq(stub_getenv("PYXIS_CONTAINER_ENV"), "U");
	/* Slurm's --container: the bundle's mounts are checked instead */
	h.pyxis.mounts = NULL;
	stub_setenv("SLURM_CONTAINER", "/b");
	ck_assert_int_eq(pyxis_check(&h, dir, false, msg, sizeof(msg)), 0);
}
END_TEST

Suite *container_suite(void)
{
	Suite *s = suite_create("container");
	TCase *tc = tcase_create("container");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, plugstack_container_argument);
	tcase_add_test(tc, no_container_support_runs_the_host_master_and_says_so);
	tcase_add_test(tc, pyxis_takes_images_and_refuses_aliases_and_directories);
	tcase_add_test(tc, pyxis_gets_an_absolute_squashfs_path);
	tcase_add_test(tc, oci_takes_bundle_directories_only);
	tcase_add_test(tc, master_step_options_per_system);
	tcase_add_test(tc, spawned_master_step_in_a_bundle);
	tcase_add_test(tc, one_advice_for_a_master_that_could_not_run);
	tcase_add_test(tc, task_reads_its_config_where_it_runs);
	tcase_add_test(tc, pyxis_role_step_names_the_plugins_variables);
	tcase_add_test(tc, task_in_pyxis_container);
	suite_add_tcase(s, tc);
	return s;
}
