/*
 * ports.h - the ports of a job's master and of an HA pool's etcd
 * (ports.c): which a starter tries, and their claim on the node.
 */
#ifndef MCP_PORTS_H_
#define MCP_PORTS_H_

#include <stddef.h>
#include <sys/types.h>

#include "mooncake_recipe.h"
#include "plugstack/plugstack.h"

/* ---- the master's ports (ports=auto|fixed) ---------------------------- */

/* How many port triples an election may try: 1 for ports=fixed. */
int mcp_port_candidates(const struct mcri_plugstack *ps);
/* The `candidate`-th triple for job `job_id`: 0 is 8700, 8701, 8702; then
 * triples of port_range, from an offset the job id chooses. */
void mcp_port_candidate(const struct mcri_plugstack *ps, unsigned long job_id, int candidate, struct mcr_ports *out);
/* An HA pool's etcd: its client and peer ports, the two after the
 * master's three (8703, 8704 with 8700-8702), or the two before them
 * when those would leave port_range=; -1 when neither fits (a range of
 * fewer than five ports). */
int mcp_etcd_ports(const struct mcri_plugstack *ps, const struct mcr_ports *master, int *client, int *peer);
/* "rpc,metadata,metrics" to ports, or "rpc,metadata,metrics,client,peer"
 * with an HA pool's etcd ports into etcd[2] (NULL: refused); etcd[0] 0
 * for three (MCR_EINVAL when it is neither). */
int mcp_ports_parse(const char *text, struct mcr_ports *out, int *etcd, struct mcr_error *err);
/* On the infra node, in the master step's task (before it becomes the
 * user: task_init_privileged): the ports srun chose must be ports a master
 * may have (8700-8702, or a triple of ps's port_range=: the variable that
 * asks is the user's), free here, and not reserved by another job's master
 * or by an earlier attempt of this job that still runs; reserve them for
 * this process (the master after exec), job `job` and its user `uid` in
 * `registry` (live reservations stay; an entry ends with its process; a
 * job, a user holds at most MCP_REGISTRY_PER_JOB, _PER_USER entries); `etcd` (NULL, or its
 * two ports, 0 for none) an HA pool's etcd member's two ports as well. The registry must be a
 * regular file of root's (or of this user's, run unprivileged: the plugin
 * tests), mode 0600, in a directory of its owner's that no one else may
 * write; every entry is checked (ports 1-65535, a live process with the
 * start time it had) and every read and write bounded; live entries are
 * never dropped (a full registry reserves nothing more). Without a usable
 * registry the bind alone decides. -1 with a message that names the port. */
int mcp_ports_claim(const struct mcr_ports *ports, const int *etcd, const struct mcri_plugstack *ps, unsigned long job,
		    uid_t uid, const char *registry, struct mcr_error *err);
/* The registry of the node's port space (its network namespace's inode
 * `ns`): in a directory of root's, written by root only, so no user can
 * put an entry in it (task_init_privileged claims). */
#define MCP_PORT_REGISTRY_DIR "/run/spank-mooncake"
void mcp_port_registry(unsigned long ns, char *path, size_t size);
/* One reservation of the registry: a line "PORT PID START JOB UID\n",
 * START the process's start time (mcri_pid_start) when it reserved PORT
 * for the master step of job JOB of user UID (a line of an earlier
 * release has no UID: -1). */
struct mcp_reservation {
	int port;
	long pid;
	unsigned long long start;
	unsigned long job;
	long uid;
};
#define MCP_REGISTRY_MAX 512 /* reservations kept */
/* what one job, one user may hold of it (more claims rest on the bind
 * alone): an HA pool's 5 ports for the attempt that starts and one that
 * ends; a user's array of 40 jobs on one infra node */
#define MCP_REGISTRY_PER_JOB 10
#define MCP_REGISTRY_PER_USER 128
#define MCP_REGISTRY_BYTES (MCP_REGISTRY_MAX * 80) /* the file's bound */
/* The well-formed lines of `text` (NUL-terminated; changed, as strtok_r
 * does) into r[0..max-1], in order: port 1-65535, pid, start and job > 0,
 * a uid or none, decimal numbers one space apart, one line under 80
 * bytes; anything else is skipped. Whether the process still
 * runs is the caller's to check. Returns how many. */
size_t mcp_registry_parse(char *text, struct mcp_reservation *r, size_t max);
/* r[0..n-1] as the registry's lines into buf (NUL-terminated; the entries
 * that do not fit are left out). Returns the length written. */
size_t mcp_registry_format(const struct mcp_reservation *r, size_t n, char *buf, size_t size);

/* ---- a memory lender's port (a store's --port, lender.c) ------------- */

/* the store service's own default port (mooncake_store_service --port) */
#define MCP_LENDER_PORT 8080
/* How many ports a lender's election may try (1 for ports=fixed), and
 * the `candidate`-th for lender `name` of job `job_id`: 0 is 8080, then
 * single ports of port_range= (never 8700-8704) from an offset the job
 * and the name choose. */
int mcp_lender_port_candidates(const struct mcri_plugstack *ps);
int mcp_lender_port_candidate(const struct mcri_plugstack *ps, unsigned long job_id, const char *name, int candidate);
/* On the lender's node, in its step's task (root, task_init_privileged):
 * claim `port` as mcp_ports_claim claims the master's, for a lender's
 * port (8080 or port_range=). */
int mcp_lender_port_claim(int port, const struct mcri_plugstack *ps, unsigned long job, uid_t uid, const char *registry,
			  struct mcr_error *err);

#endif /* MCP_PORTS_H_ */
