/*
 * plugstack.c - spank_mooncake.so's arguments in plugstack.conf: one table
 * of keys, each with its kind, its field and its message.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugstack/plugstack.h"
#include "sys/sys.h"

/* the mooncake-recipe of the build (make's BINDIR), the pool's sampler */
#ifndef MCRI_DEFAULT_SAMPLER
#define MCRI_DEFAULT_SAMPLER "/usr/local/bin/mooncake-recipe"
#endif

/* the names of the modes, in the order of their enums */
static const char *const CONTAINER_NAMES[] = { "auto", "pyxis", "oci", "none" };
static const char *const HA_NAMES[] = { "none", "etcd" };

const char *mcri_container_mode_name(enum mcri_container_mode mode)
{
	return (unsigned)mode < MCRI_ARRAY_LEN(CONTAINER_NAMES) ? CONTAINER_NAMES[mode] : "?";
}

const char *mcri_ha_mode_name(enum mcri_ha_mode mode)
{
	return (unsigned)mode < MCRI_ARRAY_LEN(HA_NAMES) ? HA_NAMES[mode] : "?";
}

/* value's index among names[0..n-1], or -1 */
static int name_index(const char *value, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(value, names[i]) == 0)
			return (int)i;
	return -1;
}

enum arg_kind {
	ARG_PATH,
	ARG_ABSPATH,
	ARG_SECONDS,
	ARG_INTERVAL,
	ARG_PORTS,
	ARG_RANGE,
	ARG_CONTAINER,
	ARG_RESTART,
	ARG_HA,
	ARG_HANG,
	ARG_QUOTA
};

static const struct plugstack_arg {
	const char *key;
	enum arg_kind kind;
	size_t offset, size; /* in struct mcri_plugstack (ARG_PATH, ARG_ABSPATH) */
	const char *what;    /* ARG_ABSPATH: what it names, with an example */
} ARGS[] = {
	{ "master", ARG_PATH, offsetof(struct mcri_plugstack, master), PATH_MAX, NULL },
	{ "srun", ARG_PATH, offsetof(struct mcri_plugstack, srun), PATH_MAX, NULL },
	{ "job_dir", ARG_PATH, offsetof(struct mcri_plugstack, job_dir), PATH_MAX, NULL },
	{ "interface", ARG_PATH, offsetof(struct mcri_plugstack, interface), 64, NULL },
	{ "ready_timeout", ARG_SECONDS, 0, 0, NULL },
	{ "ports", ARG_PORTS, 0, 0, NULL },
	{ "port_range", ARG_RANGE, 0, 0, NULL },
	{ "sampler", ARG_ABSPATH, offsetof(struct mcri_plugstack, sampler), PATH_MAX,
	  "the mooncake-recipe binary, e.g. sampler=/usr/bin/mooncake-recipe" },
	{ "pool_interval", ARG_INTERVAL, 0, 0, NULL },
	{ "container", ARG_CONTAINER, 0, 0, NULL },
	{ "restart", ARG_RESTART, 0, 0, NULL },
	{ "hang_timeout", ARG_HANG, 0, 0, NULL },
	{ "ha", ARG_HA, 0, 0, NULL },
	{ "etcd", ARG_PATH, offsetof(struct mcri_plugstack, etcd), PATH_MAX, NULL },
	{ "etcd_quota", ARG_QUOTA, 0, 0, NULL },
	{ "srtslurm", ARG_ABSPATH, offsetof(struct mcri_plugstack, srtslurm), PATH_MAX,
	  "the cluster's srtslurm.yaml of srtctl's container aliases, e.g. srtslurm=/etc/slurm/srtslurm.yaml" },
};
#define N_ARGS (sizeof(ARGS) / sizeof(ARGS[0]))
#define ARG_LIST                                                                                                       \
	"master=, srun=, job_dir=, interface=, ready_timeout=, ports=, port_range=, sampler=, pool_interval=, container=, restart=, hang_timeout=, ha=, etcd=, etcd_quota= and srtslurm="

static int parse_long(const char *text, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(text, &end, 10);
	return errno || end == text || *end || *out < lo || *out > hi ? -1 : 0;
}

static int set_arg(struct mcri_plugstack *ps, const struct plugstack_arg *a, const char *value, struct mcr_error *err)
{
	long lo, hi;
	int n;

	switch (a->kind) {
	case ARG_ABSPATH:
		if (value[0] != '/')
			return mcri_error_set(err, MCR_EINVAL, "plugstack.conf: %s=%s must be an absolute path (%s)",
					      a->key, value, a->what);
		/* fall through */
	case ARG_PATH:
		n = snprintf((char *)ps + a->offset, a->size, "%s", value);
		if (!*value || n < 0 || (size_t)n >= a->size)
			return mcri_error_set(err, MCR_EINVAL, "plugstack.conf: %s=%s: %s", a->key, value,
					      *value ? "too long" : "needs a value");
		return 0;
	case ARG_INTERVAL:
		if (parse_long(value, 0, 3600, &lo))
			return mcri_error_set(
				err, MCR_EINVAL,
				"plugstack.conf: pool_interval=%s must be a number of seconds between 1 and 3600, or 0 to switch the pool sampler off",
				value);
		ps->pool_interval = (int)lo;
		return 0;
	case ARG_RESTART:
		if (parse_long(value, 0, MCRI_RESTART_MAX, &lo))
			return mcri_error_set(
				err, MCR_EINVAL,
				"plugstack.conf: restart=%s must be how many times the master step may start the job's mooncake_master again when it dies, 0 to %d (0: never)",
				value, MCRI_RESTART_MAX);
		ps->restart = (int)lo;
		return 0;
	case ARG_HANG:
		if (parse_long(value, 0, 86400, &lo) || (lo > 0 && lo < MCRI_HANG_MIN))
			return mcri_error_set(
				err, MCR_EINVAL,
				"plugstack.conf: hang_timeout=%s must be how many seconds a running mooncake_master may answer none of its master step's probes before it is ended and started again as a crashed one is, %d to 86400 (0: never)",
				value, MCRI_HANG_MIN);
		ps->hang_timeout = (int)lo;
		return 0;
	case ARG_QUOTA: {
		struct mcr_error ignored;
		long long bytes;

		if (mcr_parse_size_text("etcd_quota", value, &bytes, &ignored) || bytes < MCRI_ETCD_QUOTA_MIN ||
		    bytes > MCRI_ETCD_QUOTA_MAX)
			return mcri_error_set(
				err, MCR_EINVAL,
				"plugstack.conf: etcd_quota=%s must be the most an HA pool's etcd member may keep, bytes or a binary unit (KiB, MiB, GiB), 16MiB to 64GiB (e.g. etcd_quota=8GiB)",
				value);
		ps->etcd_quota = bytes;
		return 0;
	}
	case ARG_HA:
		if ((n = name_index(value, HA_NAMES, MCRI_ARRAY_LEN(HA_NAMES))) >= 0) {
			ps->ha = (enum mcri_ha_mode)n;
			return 0;
		}
		return mcri_error_set(
			err, MCR_EINVAL,
			"plugstack.conf: ha=%s: write ha=none (one mooncake_master per job, on its first node) or ha=etcd (jobs of two or more nodes get masters in Mooncake's HA mode on their first two or three nodes, with an etcd of the job's own)",
			value);
	case ARG_SECONDS:
		if (parse_long(value, 1, 86400, &lo))
			return mcri_error_set(
				err, MCR_EINVAL,
				"plugstack.conf: ready_timeout=%s must be a number of seconds between 1 and 86400",
				value);
		ps->ready_timeout = (int)lo;
		return 0;
	case ARG_PORTS:
		if (strcmp(value, "auto") && strcmp(value, "fixed"))
			return mcri_error_set(
				err, MCR_EINVAL,
				"plugstack.conf: ports=%s: write ports=auto (8700-8702 when free on the infra node, else free ports of port_range=) or ports=fixed (always 8700-8702)",
				value);
		ps->fixed_ports = strcmp(value, "fixed") == 0;
		return 0;
	case ARG_CONTAINER:
		if ((n = name_index(value, CONTAINER_NAMES, MCRI_ARRAY_LEN(CONTAINER_NAMES))) >= 0) {
			ps->container = (enum mcri_container_mode)n;
			return 0;
		}
		return mcri_error_set(
			err, MCR_EINVAL,
			"plugstack.conf: container=%s: write container=auto (the cluster's container support: pyxis's --container-image, else Slurm's --container with oci.conf, else the host), container=pyxis, container=oci, or container=none (the master always runs on the host)",
			value);
	case ARG_RANGE: {
		const char *dash = strchr(value, '-');
		char low[16];

		if (!dash || (size_t)(dash - value) >= sizeof(low))
			goto bad_range;
		snprintf(low, sizeof(low), "%.*s", (int)(dash - value), value);
		if (parse_long(low, 1024, 65535, &lo) || parse_long(dash + 1, 1024, 65535, &hi) || hi - lo + 1 < 3)
			goto bad_range;
		ps->port_lo = (int)lo;
		ps->port_hi = (int)hi;
		return 0;
	bad_range:
		return mcri_error_set(
			err, MCR_EINVAL,
			"plugstack.conf: port_range=%s must be LOW-HIGH, ports 1024-65535 with room for at least 3 (e.g. port_range=8700-8999)",
			value);
	}
	}
	return 0;
}

int mcri_plugstack_parse(struct mcri_plugstack *ps, int ac, char **av, struct mcr_error *err)
{
	memset(ps, 0, sizeof(*ps));
	snprintf(ps->master, sizeof(ps->master), "mooncake_master");
	snprintf(ps->srun, sizeof(ps->srun), "srun");
	snprintf(ps->job_dir, sizeof(ps->job_dir), "%s", MCRI_DEFAULT_JOB_DIR);
	ps->ready_timeout = 120;
	ps->port_lo = 8700;
	ps->port_hi = 8999;
	snprintf(ps->sampler, sizeof(ps->sampler), "%s", MCRI_DEFAULT_SAMPLER);
	ps->pool_interval = 5;
	ps->restart = 3;
	ps->hang_timeout = 60;
	snprintf(ps->etcd, sizeof(ps->etcd), "etcd");
	ps->etcd_quota = 8LL << 30;
	for (int i = 0; i < ac; i++) {
		const char *eq = strchr(av[i], '=');
		size_t klen = eq ? (size_t)(eq - av[i]) : strlen(av[i]);
		const struct plugstack_arg *a = NULL;

		for (size_t k = 0; k < N_ARGS && !a; k++)
			if (strlen(ARGS[k].key) == klen && strncmp(av[i], ARGS[k].key, klen) == 0)
				a = &ARGS[k];
		if (!a)
			return mcri_error_set(err, MCR_EINVAL,
					      "plugstack.conf: unknown argument '%s'; spank_mooncake.so takes " ARG_LIST
					      " (see spank_mooncake(8))",
					      av[i]);
		if (set_arg(ps, a, eq ? eq + 1 : "", err))
			return -1;
	}
	return 0;
}

/* one argument's value in ps, as plugstack.conf writes it */
static void print_value(const struct mcri_plugstack *ps, const struct plugstack_arg *a, FILE *f)
{
	switch (a->kind) {
	case ARG_PATH:
	case ARG_ABSPATH:
		fprintf(f, "%s", (const char *)ps + a->offset);
		break;
	case ARG_SECONDS:
		fprintf(f, "%d", ps->ready_timeout);
		break;
	case ARG_INTERVAL:
		fprintf(f, "%d", ps->pool_interval);
		break;
	case ARG_PORTS:
		fprintf(f, "%s\tauto|fixed", ps->fixed_ports ? "fixed" : "auto");
		break;
	case ARG_RANGE:
		fprintf(f, "%d-%d", ps->port_lo, ps->port_hi);
		break;
	case ARG_CONTAINER:
		fprintf(f, "%s\t", mcri_container_mode_name(ps->container));
		for (size_t i = 0; i < MCRI_ARRAY_LEN(CONTAINER_NAMES); i++)
			fprintf(f, "%s%s", i ? "|" : "", CONTAINER_NAMES[i]);
		break;
	case ARG_RESTART:
		fprintf(f, "%d", ps->restart);
		break;
	case ARG_HANG:
		fprintf(f, "%d", ps->hang_timeout);
		break;
	case ARG_QUOTA:
		if (ps->etcd_quota % (1LL << 30) == 0)
			fprintf(f, "%lldGiB", ps->etcd_quota >> 30);
		else if (ps->etcd_quota % (1LL << 20) == 0)
			fprintf(f, "%lldMiB", ps->etcd_quota >> 20);
		else
			fprintf(f, "%lld", ps->etcd_quota);
		break;
	case ARG_HA:
		fprintf(f, "%s\t", mcri_ha_mode_name(ps->ha));
		for (size_t i = 0; i < MCRI_ARRAY_LEN(HA_NAMES); i++)
			fprintf(f, "%s%s", i ? "|" : "", HA_NAMES[i]);
		break;
	}
}

void mcri_plugstack_print(const struct mcri_plugstack *ps, FILE *f)
{
	for (size_t k = 0; k < N_ARGS; k++) {
		fprintf(f, "%s=", ARGS[k].key);
		print_value(ps, &ARGS[k], f);
		fputc('\n', f);
	}
}
