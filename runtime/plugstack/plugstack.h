/*
 * plugstack.h - the arguments of spank_mooncake.so's line in
 * plugstack.conf (key=value, doc/spank_mooncake.8), read by one parser:
 * the plugin's, at every load, and mooncake-recipe's, which finds the line
 * the cluster's Slurm reads (status: where a job's directory is).
 */
#ifndef MCRI_PLUGSTACK_H_
#define MCRI_PLUGSTACK_H_

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "mooncake_recipe.h"

/* container=: how the master step runs in the recipe's container (spank/container/container.c) */
enum mcri_container_mode {
	MCRI_CONTAINER_AUTO = 0, /* what the cluster has: pyxis, Slurm's OCI, or the host */
	MCRI_CONTAINER_PYXIS,    /* srun --container-image (pyxis) */
	MCRI_CONTAINER_OCI,      /* srun --container=BUNDLE (Slurm's OCI support) */
	MCRI_CONTAINER_NONE,     /* the host's mooncake_master */
};

#define MCRI_RESTART_MAX 100             /* restart= at most */
#define MCRI_HANG_MIN 10                 /* hang_timeout= at least (0: off) */
#define MCRI_ETCD_QUOTA_MIN (16LL << 20) /* etcd_quota= at least, bytes */
#define MCRI_ETCD_QUOTA_MAX (64LL << 30) /* ... at most */

/* ha=: the job's pool on one master, or on masters in Mooncake's HA mode
 * with an etcd of the job's own (spank/steps/ha.c) */
enum mcri_ha_mode {
	MCRI_HA_NONE = 0, /* one master on the infra node (restart= keeps it running) */
	MCRI_HA_ETCD,     /* a job of 2 or more nodes: a master on each of its first
			   * 2 or 3 nodes, one leader, the others standing by */
};

/* plugstack.conf arguments (key=value), see doc/spank_mooncake.8 */
struct mcri_plugstack {
	char master[PATH_MAX];              /* master=      binary run on the infra node */
	char srun[PATH_MAX];                /* srun=        binary that launches the master step */
	char job_dir[PATH_MAX];             /* job_dir=     template of the job's directory */
	int ready_timeout;                  /* ready_timeout= seconds to wait for the master */
	char interface[64];                 /* interface=   NIC for MOONCAKE_LOCAL_HOSTNAME */
	bool fixed_ports;                   /* ports=fixed  (default auto) */
	int port_lo, port_hi;               /* port_range=LO-HI for ports=auto */
	char sampler[PATH_MAX];             /* sampler=     mooncake-recipe, run as the pool's sampler step */
	int pool_interval;                  /* pool_interval= seconds between samples, 0: no sampler */
	enum mcri_container_mode container; /* container=auto|pyxis|oci|none */
	char srtslurm[PATH_MAX];            /* srtslurm=    the cluster's srtslurm.yaml ("": none) */
	int restart;                        /* restart=     times the master step starts its master again, 0: never */
	int hang_timeout;                   /* hang_timeout= seconds a running master may answer no probe, 0: never */
	enum mcri_ha_mode ha;               /* ha=none|etcd */
	char etcd[PATH_MAX];                /* etcd=        the etcd binary an HA pool's members run */
	long long etcd_quota;               /* etcd_quota=  bytes an HA pool's etcd member may keep (8 GiB) */
};

/* Parse the plugin's arguments av[0..ac-1] ("key=value", as Slurm hands
 * them to slurm_spank_init) into ps, with the defaults for those not
 * given. -1 with err (MCR_EINVAL, "plugstack.conf: ...", the argument and
 * its fix) for an unknown key or a bad value; ps is then partly set. */
int mcri_plugstack_parse(struct mcri_plugstack *ps, int ac, char **av, struct mcr_error *err);
/* Every argument, in the parser's table's order, as "key=value" lines of
 * ps's values (an empty value: none), and for one of a few names a tab and
 * the names, "auto|fixed": `mooncake-recipe plugstack`, and the test that
 * holds spank_mooncake(8) to the parser (tests/artifact/arguments.sh) */
void mcri_plugstack_print(const struct mcri_plugstack *ps, FILE *f);
/* "none", "etcd"; "?" for another value */
const char *mcri_ha_mode_name(enum mcri_ha_mode mode);
/* "auto", "pyxis", "oci", "none"; "?" for another value */
const char *mcri_container_mode_name(enum mcri_container_mode mode);

#endif /* MCRI_PLUGSTACK_H_ */
