/*
 * net.h - the runtime's network helpers: Slurm host lists and the
 * readiness probes and HTTP requests the plugin and `mooncake-recipe
 * status` send to a job's master. Private (runtime/README.md).
 */
#ifndef MCRI_NET_H_
#define MCRI_NET_H_

#include <sys/types.h>

#include "base/base.h"

/* ---- Slurm host lists (hostlist.c) --------------------------------- */

/*
 * Expand a Slurm hostlist such as "n[1-3,7],gpu-[01-02]" into host names,
 * in order ("n1","n2","n3","n7","gpu-01","gpu-02"); zero padding is kept.
 * At most `max_hosts` names (a larger list is an MCR_EINVAL error).
 * NULL-terminated array, free with mcr_strv_free.
 */
int mcri_hostlist_expand(const char *hostlist, size_t max_hosts, char ***hosts, struct mcr_error *err);
/* The most hosts a job's or a step's list expands to. */
#define MCRI_HOSTLIST_MAX 65536

/* ---- readiness probes (probe.c) ------------------------------------ */

/* The monotonic clock in milliseconds: the bound of a probe, a wait. */
long long mcri_now_ms(void);

/*
 * TCP connect to host:port (host: IPv4 dotted quad or name) within
 * `timeout_ms` milliseconds. 0 when the port accepts; -1 otherwise, the
 * reason ("Connection refused", "timed out", ...) in err (MCR_ESTATE) and
 * its cause in errno: ECONNREFUSED (nothing listens: the host answered),
 * ETIMEDOUT, EHOSTUNREACH, ENETUNREACH (no answer: the host is unreachable).
 */
int mcri_tcp_probe(const char *host, int port, int timeout_ms, struct mcr_error *err);

/*
 * One HTTP/1.0 request (`method` GET or PUT, `body` for PUT or NULL) within
 * `timeout_ms`. 0 when a response arrived: *status holds its code and
 * `resp` (resp_size bytes, NUL-terminated) the start of its body. -1 when
 * no response came, the reason in err (MCR_ESTATE; MCR_EIO for memory) and
 * its cause in errno as mcri_tcp_probe sets it (ETIMEDOUT also when the
 * connection opened but no answer came in time; EPROTO for an answer that
 * is not HTTP).
 */
int mcri_http(const char *host, int port, const char *method, const char *path, const char *body, int timeout_ms,
	      int *status, char *resp, size_t resp_size, struct mcr_error *err);

/*
 * An HTTP answer as a master (or anything listening on its port) sent it,
 * NUL-terminated: 0 when it starts "HTTP/1.x CODE" (*status the code,
 * 100-999, else 0; *body its body's start), -1 when it is not HTTP.
 * Either output may be NULL.
 */
int mcri_http_answer(const char *answer, int *status, const char **body);

/*
 * GET `path` within `timeout_ms`, the whole body: 0 when a response
 * arrived, *status its code and *body (heap, caller frees, NUL-terminated)
 * its body. -1 as mcri_http, and also when the answer is larger than `max`
 * bytes (errno EMSGSIZE): /metrics grows with the segments of the pool.
 */
int mcri_http_get(const char *host, int port, const char *path, int timeout_ms, size_t max, int *status, char **body,
		  struct mcr_error *err);
/* ... any `method` with a `request` body (NULL: none), as mcri_http_get */
int mcri_http_whole(const char *host, int port, const char *method, const char *path, const char *request,
		    int timeout_ms, size_t max, int *status, char **body, struct mcr_error *err);

/* ---- a master's word on itself (health.c) ------------------------- */

/* In Mooncake's HA mode a master leads or stands by; outside it, UNKNOWN */
enum mcri_master_role { MCRI_MASTER_UNKNOWN = 0, MCRI_MASTER_LEADER, MCRI_MASTER_STANDBY };
struct mcri_master_health {
	enum mcri_master_role role;
	bool service_ready; /* the leader serves clients (after its warm-up) */
	char leader[64];    /* leader_address, "ADDR:PORT" ("" unknown) */
	long long view;     /* view_version (-1 unknown): each new leader's is higher */
};
/*
 * The master on host:port (its metrics port) says of itself: GET /health
 * within timeout_ms. 0 with *h; -1 with err (MCR_ESTATE: no answer, errno
 * as mcri_http sets it; an answer other than 200, or no JSON object, as a
 * master outside HA mode gives: errno EPROTO).
 */
int mcri_master_health(const char *host, int port, int timeout_ms, struct mcri_master_health *h, struct mcr_error *err);
/* /health's body into *h: 0, or -1 when it is no JSON object. */
int mcri_master_health_parse(const char *body, struct mcri_master_health *h);

/* ---- an HA pool's etcd, as its keepers check it (etcd.c) ------------ */

#define MCRI_ETCD_LIST_MAX 16   /* views, peer URLs read at most */
#define MCRI_ETCD_VALUE_MAX 128 /* a view's value or a peer URL, cut */
/* What etcd holds that steers the pool: the value of every
 * mooncake-store/<cluster>/master_view (the leader its clients follow,
 * "ADDR:PORT"), every member's peer URLs ("(none)" for a member added that
 * never came), and whether its backend quota is reached (the NOSPACE
 * alarm). */
struct mcri_etcd_view {
	char views[MCRI_ETCD_LIST_MAX][MCRI_ETCD_VALUE_MAX];
	int nviews;
	char peers[MCRI_ETCD_LIST_MAX][MCRI_ETCD_VALUE_MAX];
	int npeers;
	bool nospace;
};
/* Read it from the etcd member whose client port is host:port (its JSON
 * gateway), each request within timeout_ms: 0, or -1 with err (MCR_ESTATE:
 * no answer, or not etcd's) and errno EMSGSIZE when an answer was larger
 * than a pool's etcd gives (64 KiB: the keys under mooncake-store/ are
 * read without their values, each view alone). */
int mcri_etcd_read(const char *host, int port, int timeout_ms, struct mcri_etcd_view *v, struct mcr_error *err);
/* The gateway's answers, parsed (for the tests and the fuzzer): a range's
 * master_view values, a member list's peer URLs, at most `max`, into the
 * caller's arrays; 0, or -1 when it is no JSON object. */
int mcri_etcd_views_parse(const char *json, char (*views)[MCRI_ETCD_VALUE_MAX], int max, int *n);
int mcri_etcd_members_parse(const char *json, char (*peers)[MCRI_ETCD_VALUE_MAX], int max, int *n);

/* ---- who listens on a port (sockets.c) ---------------------------- */

struct mcri_listener {
	int port;
	unsigned uid;             /* the socket's owner */
	unsigned long long inode; /* the socket's, as /proc/<pid>/fd names it */
};
/* The listening TCP sockets of a /proc/net/tcp or tcp6 text whose local
 * port is one of `ports` (nports), at most `max` into out; lines that are
 * not a socket are skipped. */
size_t mcri_listeners(const char *text, const int *ports, size_t nports, struct mcri_listener *out, size_t max);
/* The same in this network namespace, IPv4 then IPv6: from the kernel's
 * socket diagnostics (netlink), which walk the listening sockets alone; a
 * family the kernel gives none for from its table (read up to 8 MiB).
 * `no_diag`, NULL or the caller's memory between calls (0 at first): the
 * families the kernel gave no diagnostics for (bit 0 IPv4, bit 1 IPv6),
 * which are not asked again (where inet_diag is missing, each ask makes
 * the kernel try to load it). */
size_t mcri_listening(const int *ports, size_t nports, struct mcri_listener *out, size_t max, unsigned *no_diag);
/* ... of one family (AF_INET, AF_INET6) from the socket diagnostics alone:
 * how many into out, or -1 when the kernel gives none (no inet_diag, a
 * sandbox without netlink, a dump that failed or was beyond bounds) */
ssize_t mcri_listening_diag(int family, const int *ports, size_t nports, struct mcri_listener *out, size_t max);
/* ... from its table alone, /proc/net/tcp (AF_INET) or tcp6 (AF_INET6) */
size_t mcri_listening_tables(int family, const int *ports, size_t nports, struct mcri_listener *out, size_t max);
/* Does process pid hold the socket `inode`? Does pid or a process under it? */
bool mcri_pid_has_socket(long pid, unsigned long long inode);
bool mcri_tree_has_socket(long root, unsigned long long inode);
/* The parent of process pid (0: none, or gone). */
long mcri_pid_parent(long pid);
/* A process's start time (clock ticks since boot), which tells it from a
 * later process that got its pid back; 0 when it is gone. */
unsigned long long mcri_pid_start(long pid);

/* ---- addresses (address.c) ---------------------------------------- */

/* IPv4 of `host` (a name or a dotted quad). */
int mcri_resolve_ipv4(const char *host, char *addr, size_t size, struct mcr_error *err);
/* This host's address for MOONCAKE_LOCAL_HOSTNAME: the IPv4 of `iface`
 * when given, else the source address of the route toward `peer`. */
int mcri_local_address(const char *iface, const char *peer, char *addr, size_t size, struct mcr_error *err);
/* What TRT-LLM's connector announces without a local_hostname in its
 * file, gethostbyname(gethostname()), is of no use to the other nodes:
 * this host's name resolves to no IPv4 address or to a loopback one
 * (127.0.1.1 with a Debian-style /etc/hosts). */
bool mcri_own_name_is_loopback(void);

#endif /* MCRI_NET_H_ */
