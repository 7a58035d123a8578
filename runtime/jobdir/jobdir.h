/*
 * jobdir.h - the job's Mooncake directory and every file the plugin and
 * `mooncake-recipe status` keep in it, with one owner: this module.
 *
 * The directory is the job's: it is opened once (O_DIRECTORY | O_NOFOLLOW)
 * and refused unless it belongs to the job's user and no one else may
 * write it; the plugin creates its last level 0700. Every later access is
 * relative to that descriptor, refuses links (O_NOFOLLOW), never waits on
 * a FIFO (O_NONBLOCK), reads regular files only and at most a bound of
 * bytes, and writes atomically (a temporary file, then a rename), mode 0600.
 * Another user sharing a node, or a directory on shared space, can then
 * neither plant, redirect, nor stall what the job reads and writes.
 *
 * The records, each with one reader and one writer:
 *   mooncake_master.json           the master's state (struct mcri_state)
 *   mooncake_master.proof.json     what the master step saw on the infra node:
 *                                  whose sockets listen on its ports, and each
 *                                  restart of its master (struct mcri_proof);
 *                                  mooncake_master.proof.<k>.json of an HA
 *                                  pool's other masters
 *   mooncake_master.<n>.lock       one per election attempt (struct mcri_lock)
 *   workers/<node>.<job>.<step>.<task>.json   a node of a role step
 *   mooncake_pool_samples.jsonl    the sampler's samples
 *   mooncake_pool_report.json, mooncake_pool.svg   the pool's report
 * and the logs (mooncake_master.log, mooncake_pool.log) and client configs
 * the plugin writes. Private to the runtime (runtime/README.md).
 */
#ifndef MCRI_JOBDIR_H_
#define MCRI_JOBDIR_H_

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "base/base.h"
#include "mooncake_recipe.h"

#define MCRI_STATE_FILE "mooncake_master.json"
#define MCRI_PROOF_FILE "mooncake_master.proof.json"
#define MCRI_MEMBER_PROOF_FILE "mooncake_master.proof.%d.json" /* an HA pool's k-th master, k >= 1 */
#define MCRI_ETCD_LOG "mooncake_etcd.%d.log"                   /* an HA pool's k-th etcd member */
#define MCRI_LOCK_FILE "mooncake_master.%d.lock"               /* per attempt */
#define MCRI_MASTER_LOG "mooncake_master.log"
#define MCRI_POOL_LOG "mooncake_pool.log"
#define MCRI_WORKERS_DIR "workers"
#define MCRI_SAMPLES_FILE "mooncake_pool_samples.jsonl"
#define MCRI_REPORT_FILE "mooncake_pool_report.json"
#define MCRI_PICTURE_FILE "mooncake_pool.svg"

/* The records of the master and of each memory lender have one shape: a
 * subject's state <subject>.json (struct mcri_state), its step's proof
 * <subject>.proof.json (struct mcri_proof) and the locks of its election
 * <subject>.<n>.lock (struct mcri_lock); the master's subject is
 * "mooncake_master", a lender's on one node "lender_<name>.<node>"
 * (mcri_lender_subject), its log service_<name>.<node>.out. */
#define MCRI_MASTER_SUBJECT "mooncake_master"
#define MCRI_LENDER_PREFIX "lender_"
#define MCRI_SUBJECT_MAX 200 /* a subject's longest name: its files' names fit in 255 bytes */
/* The subject of lender `name` on `node` into buf (MCRI_SUBJECT_MAX + 1
 * bytes), and its log's name into log (NULL: not wanted); -1 when they
 * would not make plain file names (too long, '/', a leading '.'). */
int mcri_lender_subject(const char *name, const char *node, char *buf, char *log, size_t log_size);

/* the most a record of the directory may hold: a larger one is refused */
#define MCRI_RECORD_MAX (256u << 10)
#define MCRI_SAMPLES_MAX (64u << 20)

struct mcri_jobdir {
	int fd;              /* the directory, or -1 */
	char path[PATH_MAX]; /* its name, for messages and for the tasks */
};

/* ---- the directory (jobdir.c) -------------------------------------- */

/* A Slurm job id: `text` is decimal digits only, 1 to 4294967293 (Slurm's
 * NO_VAL and INFINITE are no job). true with *id, else false. */
bool mcri_job_id_parse(const char *text, uint32_t *id);
/* The path of a job's directory: `tmpl` (a recipe's output.log_dir, else
 * job_dir= of plugstack.conf) with {job_id}, {user} (the name of `uid`,
 * else its number) and {submit_dir} expanded (mcri_expand_dir_template).
 * Heap string, or NULL with err. */
char *mcri_job_dir_path(const char *tmpl, const char *job_id, uid_t uid, const char *submit_dir, struct mcr_error *err);

/* Open the job's directory `path` as the calling user; with `create`,
 * make it first (missing parents 0755, the directory itself 0700). It
 * must be a directory, not a link, owned by `uid`, that neither its group
 * nor others may write: otherwise MCR_ESTATE with what to change. *d is
 * the caller's (mcri_jobdir_close), closed on failure. */
int mcri_jobdir_open(struct mcri_jobdir *d, const char *path, uid_t uid, bool create, struct mcr_error *err);
/* A sub-directory (workers/), made 0700 with `create`, checked the same. */
int mcri_jobdir_sub(const struct mcri_jobdir *d, const char *name, bool create, struct mcri_jobdir *sub,
		    struct mcr_error *err);
void mcri_jobdir_close(struct mcri_jobdir *d);

/* The regular file `name`, NUL-terminated (heap), its length in *len when
 * not NULL. MCR_ESTATE with errno ENOENT when there is none; MCR_EIO when
 * it is a link, a FIFO or another special file, larger than `max` bytes,
 * or unreadable. */
int mcri_jobdir_read(const struct mcri_jobdir *d, const char *name, size_t max, char **text, size_t *len,
		     struct mcr_error *err);
/* The same, and the file's status as it was opened in *opened (on NFS an
 * open revalidates the attributes: its mtime is the server's, never a
 * cached one). */
int mcri_jobdir_read_stat(const struct mcri_jobdir *d, const char *name, size_t max, char **text, size_t *len,
			  struct stat *opened, struct mcr_error *err);
/* The same, and whether a live process holds a lock on it (*holder: 1 a
 * process holds an open file description lock on it, 0 none does, -1 the
 * file system cannot tell: it keeps no such locks). On NFS the lock is
 * the server's: no attribute cache delays it. */
int mcri_jobdir_read_held(const struct mcri_jobdir *d, const char *name, size_t max, char **text, size_t *len,
			  struct stat *opened, int *holder, struct mcr_error *err);
/* Whether another open file description than fd's holds a lock on fd's
 * file: 1, 0, or -1 (the file system cannot tell). A 0 is another host's
 * truth only where mcri_jobdir_locks_shared says so. */
int mcri_jobdir_holder(int fd);
/* Does every host that shares d see the locks another host holds on its
 * files? A file system of one host (ext4, XFS, btrfs, tmpfs, overlayfs,
 * ZFS), and NFS unless mounted nolock or local_lock=posix|all: true;
 * every other file system (Lustre, GPFS, FUSE...): false, as it cannot be
 * told here. */
bool mcri_jobdir_locks_shared(const struct mcri_jobdir *d);
/* Hold `name` (an open file description lock on the whole file, which
 * lasts until the returned descriptor is closed, or the process ends):
 * the descriptor, or -1 when it is missing, not a regular file, held by
 * another, or the file system keeps no locks. */
int mcri_jobdir_hold(const struct mcri_jobdir *d, const char *name);
/* Replace `name` atomically (mode 0600), fsynced when `durable`. */
int mcri_jobdir_write(const struct mcri_jobdir *d, const char *name, const char *text, size_t len, bool durable,
		      struct mcr_error *err);
/* The set of files all replaced, or none (the client configs). */
int mcri_jobdir_write_files(const struct mcri_jobdir *d, const struct mcr_file_list *files, struct mcr_error *err);
/* Create `name` holding `text` unless it exists (looked for first: then
 * nothing is written): the text is written to a temporary file first and
 * linked into place, so the file never exists empty or half written (a
 * full disk leaves no file). 1 when created, 0 when it existed already,
 * -1 with err set. */
int mcri_jobdir_create(const struct mcri_jobdir *d, const char *name, const char *text, struct mcr_error *err);
/* The same, and when it is created *held is a descriptor of it that holds
 * its lock (locked before the file had its name, so that it is never seen
 * unheld while this process lives; the caller closes it to let go), or -1
 * where the file system keeps no locks. */
int mcri_jobdir_create_held(const struct mcri_jobdir *d, const char *name, const char *text, int *held,
			    struct mcr_error *err);
/* The client configs `files`, as one of many sruns of a job puts them
 * there at the same time (the first wave of a job's sruns). A file that
 * is missing is created whole, atomically, by whichever srun comes first
 * (the others find it made). An `owner` (the srun that starts the pool,
 * or one of a job whose master is not the plugin's) replaces a file that
 * differs; any other srun never replaces one: a file that still differs
 * after a file being replaced would have settled (about 0.2 s) is the
 * answer 1, its index in *differs. *written: how many files this call
 * wrote. 0, 1, or -1 with err. */
int mcri_jobdir_settle(const struct mcri_jobdir *d, const struct mcr_file_list *files, bool owner, size_t *differs,
		       size_t *written, struct mcr_error *err);
/* `name` opened for appending (a log, the samples), created 0600, emptied
 * first with `truncate`; a regular file only. The descriptor, or -1. */
int mcri_jobdir_append(const struct mcri_jobdir *d, const char *name, bool truncate, struct mcr_error *err);
/* Does the regular file `name` hold exactly `text`? (bounded, no link) */
bool mcri_jobdir_same(const struct mcri_jobdir *d, const char *name, const char *text);
/* Keep `name` as `name`.`suffix` (a rename in the directory; nothing
 * when there is none): 0, or -1. */
int mcri_jobdir_keep(const struct mcri_jobdir *d, const char *name, const char *suffix);
/* Is `name` there (anything but a dangling name)? */
bool mcri_jobdir_exists(const struct mcri_jobdir *d, const char *name);

/* ---- who may change a path (trust.c) --------------------------------- */

/* The rule the job's directory and the files the plugin finds by itself
 * (srtctl's srtslurm.yaml in the working directory and above) share: what
 * is `uid`'s belongs to uid and no one else may write it (a group write
 * bit counts only for a group of others: uid's own private group, as
 * Debian's adduser makes with umask 002, is uid's); each directory above
 * it belongs to root or uid, and others may write it only with the sticky
 * bit (as /tmp: there no one but an entry's owner can move the entry). */

/* "uid 1001 (alice)" (or "uid 1001" without a name) into buf */
void mcri_who(uid_t uid, char *buf, size_t size);
/* May others than its owner (and root) write what st describes? uid's
 * own private group is no one else. */
bool mcri_others_write(const struct stat *st, uid_t uid);
/* May the directory st describes stand above a path of uid's? */
bool mcri_parent_trusted(const struct stat *st, uid_t uid);
/* Is `owner` the overflow user (/proc/sys/kernel/overflowuid, 65534) of a
 * user namespace that maps only some users (a container's, as enroot makes
 * one for pyxis), so a user it does not map, root or not? */
bool mcri_unmapped_owner(uid_t owner);
/* Walk the absolute path `real` (no "." or "..": realpath's or getcwd's)
 * from / down to the directory that holds its last part, each opened
 * O_PATH without following a link, calling check(fd, name, arg) on each
 * (nonzero stops the walk). That directory's descriptor (O_PATH, the
 * caller closes it) and *leaf, the last part of real; -1 with errno when
 * a directory cannot be opened (`at` names it); -2 when check stopped. */
int mcri_walk(const char *real, int (*check)(int fd, const char *dir, void *arg), void *arg, char *at, size_t at_size,
	      const char **leaf);
/* The file `path` (absolute, as getcwd gives its directory) that the
 * plugin found by itself, opened once for reading (O_NOFOLLOW,
 * O_NONBLOCK: no link followed, no FIFO waited on) and used only if uid
 * may trust it: checked through the descriptors that it belongs to uid or
 * root and no one else may write it, and that each directory above it
 * passes the rule above. The descriptor (>= 0, the caller reads it as a
 * regular file or refuses it, and closes it); -1 with errno when it
 * cannot be opened (ENOENT: there is none, or a directory above it cannot
 * be opened); -2 with err MCR_ESTATE when
 * it is not to be trusted, its text saying why, of the file: "it belongs
 * to uid 1003 (mallory)", "every user may write it (mode 0666)", "it is in
 * /x, which belongs to ...", "it is a link (of ...), which this lookup
 * does not follow". */
int mcri_trusted_open(const char *path, uid_t uid, struct mcr_error *err);

/* ---- a change in it (watch.c) --------------------------------------- */

/* Waiting for another process's write of the state file or a lock file
 * (one created, renamed into place or removed; the state file's READY).
 * A watch is inotify's; where this user has no inotify instance left
 * (fs.inotify.max_user_instances, 128 on many systems: a first wave of
 * 256 sruns on one host) it is the directory's change time, looked at
 * every 50 ms (a stat, where the caller's poll reads the state file and
 * its lock); there any file created, renamed or removed in the directory
 * wakes, and a change time within a clock tick of its look wakes once
 * more (a second change in the same tick leaves it as it was). None on a
 * file system that would not show other hosts' writes (a network one:
 * the caller then polls). mcri_jobdir_watch: 0, or -1 with no watch. mcri_jobdir_wait returns once the state file or a lock file
 * changed since the watch began or the last wait (with inotify the pool's
 * other files do not count), the directory moved, or after timeout_ms
 * milliseconds (or a signal): the other clients of a file server write
 * unseen, so the timeout bounds the wait. The watch uses d's descriptor:
 * d stays open while it is used. A watch that is none (-1 above, or
 * MCRI_WATCH_NONE) waits no time and unwatches as nothing. */
struct mcri_watch {
	int inotify;          /* inotify's descriptor, or -1 */
	int dir;              /* the directory's (d's, not owned), -1: no watch */
	struct timespec seen; /* without inotify, its change time as last seen */
	bool unsettled;       /* ... which was then within a clock tick */
};
#define MCRI_WATCH_NONE ((struct mcri_watch){ .inotify = -1, .dir = -1 })
int mcri_jobdir_watch(const struct mcri_jobdir *d, struct mcri_watch *w);
void mcri_jobdir_wait(struct mcri_watch *w, int timeout_ms);
void mcri_jobdir_unwatch(struct mcri_watch *w);

/* ---- the records (records.c) --------------------------------------- */

/* the phase of a job's pool, one name for it everywhere */
enum mcri_phase {
	MCRI_PHASE_NONE = 0, /* no state file */
	MCRI_PHASE_STARTING,
	MCRI_PHASE_READY,
	MCRI_PHASE_FAILED,
};
/* "starting", "ready", "failed" ("" for NONE) */
const char *mcri_phase_name(enum mcri_phase phase);

/* An HA pool (plugstack ha=etcd, spank/steps/ha.c): a master on each of
 * the job's first `masters` nodes (2 or 3), in Mooncake's HA mode, one of
 * them the leader and the others standing by, and an etcd of the job's
 * own with a member on each of the first `etcd_members` of them (1, or 3
 * when there are 3), on ports etcd_client and etcd_peer. member[0] is the
 * infra node. masters 0: a pool of one master. */
#define MCRI_HA_MAX 3
struct mcri_ha {
	int masters;
	int etcd_members;
	int etcd_client, etcd_peer;
	struct mcri_ha_member {
		char node[256];
		char addr[64];
	} member[MCRI_HA_MAX];
};
/* What its clients are given as the master's address (master_server_address,
 * MOONCAKE_MASTER): "etcd://ADDR:PORT;ADDR:PORT;..." of its etcd members,
 * into buf; false when it does not fit or ha is no HA pool. */
bool mcri_ha_address(const struct mcri_ha *ha, char *buf, size_t size);
/* The etcd endpoints alone, "ADDR:PORT;ADDR:PORT" (the masters'
 * --ha_backend_connstring); false as above. */
bool mcri_ha_endpoints(const struct mcri_ha *ha, char *buf, size_t size);
/* The member that runs on `node` (a Slurm node name), or -1. */
int mcri_ha_member_of(const struct mcri_ha *ha, const char *node);
/* item(out, size, ha, k) (snprintf's return) of the first n members,
 * joined by sep, into buf; false when it does not fit. */
bool mcri_ha_join(const struct mcri_ha *ha, int n, const char *sep,
		  int (*item)(char *out, size_t size, const struct mcri_ha *ha, int k), char *buf, size_t size);
struct mcri_master_health;
struct mcri_state;
/* Ask each master of st's HA pool what it is (GET /health on its
 * metrics port, within timeout_ms each): health[k], answered[k] (arrays
 * of MCRI_HA_MAX), *answering how many did, *refusing how many did not
 * though their host answered (nothing listens there: no timeout, no
 * unreachable host). The serving leader's member, or -1. */
int mcri_ha_leader(const struct mcri_state *st, int timeout_ms, struct mcri_master_health *health, bool *answered,
		   int *answering, int *refusing);

/* mooncake_master.json: the master of the job's pool */
struct mcri_state {
	enum mcri_phase phase;
	int attempt;     /* the election attempt it is about */
	int run;         /* the job's run (SLURM_RESTART_COUNT) it belongs to */
	char job_id[32]; /* the job whose pool it is */
	/* which job of that id: its cluster and its start (Unix seconds), as
	 * slurmctld had them when the pool started ("", 0: unknown); another
	 * job that got the same id (a new slurmctld state, another cluster on
	 * the same file system) differs in one of them, a requeued run in
	 * `run` */
	char cluster[64];
	long long job_start;
	char infra_node[256];
	char infra_addr[64];
	struct mcr_ports ports; /* 8700-8702 unless the file says (each 1-65535) */
	char recipe[PATH_MAX];  /* the recipe that started the pool (its real path) */
	char message[2048];     /* why it failed */
	char starter_host[256];
	long starter_pid;
	long srun_pid; /* the master step's srun, on the starter's host */
	/* their start times (clock ticks since boot): a pid given to a later
	 * process is not the srun (0: unknown) */
	unsigned long long starter_start, srun_start;
	long master_step;               /* the master step's id, once ready (0: a job's first step) */
	long long started_at, ready_at; /* Unix seconds, 0 unknown */
	struct mcri_ha ha;              /* an HA pool's masters and etcd (ha.masters 0: none) */
};

/* MCR_ESTATE (errno ENOENT) when there is none, MCR_EIO when it cannot be
 * read or is not a state file. */
/* The master address the pool's clients get (master_server_address,
 * MOONCAKE_MASTER): "ADDR:RPC_PORT" of the infra node, or an HA pool's
 * etcd:// address; false when it does not fit in buf. */
bool mcri_state_master(const struct mcri_state *st, char *buf, size_t size);
int mcri_state_read(const struct mcri_jobdir *d, struct mcri_state *st, struct mcr_error *err);
int mcri_state_write(const struct mcri_jobdir *d, const struct mcri_state *st, struct mcr_error *err);
/* ... of a subject (NULL: the master's) */
int mcri_state_read_of(const struct mcri_jobdir *d, const char *subject, struct mcri_state *st, struct mcr_error *err);
int mcri_state_write_of(const struct mcri_jobdir *d, const char *subject, const struct mcri_state *st,
			struct mcr_error *err);

/* mooncake_master.proof.json: the master step's own word, from the infra
 * node, on the sockets that listen on its ports (spank/steps/keep.c). Only the
 * job's user can write it (the directory is the job's), so a listener of
 * another user on those ports can never be taken for the master. */
#define MCRI_RESTARTS_KEPT 16
enum mcri_proof_verdict {
	MCRI_PROOF_NONE = 0,
	MCRI_PROOF_OWN,     /* all three listen, each socket the master's (or its children's) */
	MCRI_PROOF_FOREIGN, /* a socket on one of them belongs to another process */
};
struct mcri_proof {
	int attempt; /* the election attempt it is about */
	int member;  /* an HA pool's master (0-2; 0 also for a pool of one) */
	bool ha;     /* in Mooncake's HA mode: a standby master does not
				      * listen on its RPC port until it leads */
	enum mcri_proof_verdict verdict;
	struct mcr_ports ports;
	long pid;                 /* the master's (the master step's task) */
	unsigned long long start; /* its start time, clock ticks since boot */
	unsigned long step;       /* the master step's id */
	int foreign_port;         /* FOREIGN: the port, */
	unsigned foreign_uid;     /* the owner of the socket on it */
	/* the master step keeps its master running (spank/steps/keep.c): */
	int restart_limit;   /* how often it may start it again (restart=) */
	int restarts;        /* how often it has */
	bool restarting;     /* the master ended, and is being started again */
	bool ended;          /* the keeper has left: the pool has ended */
	char ended_why[400]; /* ... why, when the keeper ended it ("" else) */
	bool steered;        /* ... because an HA pool's etcd named a leader or
				      * member not its own: the whole pool ends */
	double proved_at;    /* when the running master was proved (Unix s), 0 unknown */
	double alive_at;     /* when the keeper last said it runs (Unix s, every
				      * MCRI_PROOF_ALIVE_S), 0 unknown */
	struct mcri_restart {
		double at;             /* when the master ended, Unix seconds */
		char cause[64];        /* how: "signal 9 (Killed)", "exit status 1" */
	} restart[MCRI_RESTARTS_KEPT]; /* the last ones, oldest first */
};
/* The keeper says it runs this often; a proof older than MCRI_PROOF_STALE_S
 * (its keeper's clock against the reader's) proves nothing: a joining srun
 * asks slurmctld then */
#define MCRI_PROOF_ALIVE_S 30
#define MCRI_PROOF_STALE_S 120
/* Each master has a proof of its own: mooncake_master.proof.json is the
 * first's (the only one of a pool of one), mooncake_master.proof.<k>.json
 * an HA pool's k-th (p->member). mcri_proof_read reads the first's. */
int mcri_proof_read(const struct mcri_jobdir *d, struct mcri_proof *p, struct mcr_error *err);
int mcri_proof_read_member(const struct mcri_jobdir *d, int member, struct mcri_proof *p, struct mcr_error *err);
/* The proof of election attempt `attempt` (the state's): 0, or -1 with *p
 * all zero when there is none for it (no file, a damaged one, or one of
 * another attempt: a master step that has not proved its master yet). */
int mcri_proof_of_attempt(const struct mcri_jobdir *d, int attempt, struct mcri_proof *p);
int mcri_proof_of_member(const struct mcri_jobdir *d, int attempt, int member, struct mcri_proof *p);
/* What the proofs of an HA pool's `masters` masters (attempt `attempt`)
 * say of its end, member `skip` aside (-1: none): how many have ended,
 * whether one ended the whole pool (steered), and why (the steered one's
 * word, else the first that has one; "" none). */
struct mcri_pool_end {
	int ended;
	bool steered;
	char why[400];
};
void mcri_pool_end(const struct mcri_jobdir *d, int attempt, int masters, int skip, struct mcri_pool_end *out);
/* How many of p->restart hold a restart (the last MCRI_RESTARTS_KEPT). */
size_t mcri_proof_kept(const struct mcri_proof *p);
/* One more restart: the master ended at `at` (Unix seconds) of `cause`. */
void mcri_proof_restart(struct mcri_proof *p, double at, const char *cause);
int mcri_proof_write(const struct mcri_jobdir *d, const struct mcri_proof *p, struct mcr_error *err);
/* ... of a subject (NULL: the master's), its member 0 */
int mcri_proof_read_of(const struct mcri_jobdir *d, const char *subject, struct mcri_proof *p, struct mcr_error *err);
int mcri_proof_of_subject(const struct mcri_jobdir *d, const char *subject, int attempt, struct mcri_proof *p);
int mcri_proof_write_of(const struct mcri_jobdir *d, const char *subject, const struct mcri_proof *p,
			struct mcr_error *err);

/* mooncake_master.<attempt>.lock: who won an attempt. Its holder keeps
 * an open file description lock on it while it works (the file system's
 * word that it lives, on any host: a stopped process keeps it, a dead one
 * loses it at once) and touches it every second (a heartbeat, for file
 * systems that keep no locks). */
struct mcri_lock {
	long pid;                 /* the srun that took it, 0 unknown */
	unsigned long long start; /* its start time, 0 unknown */
	char host[256];           /* its host ("" unknown) */
	double mtime;             /* when its holder last touched it (the file
			     * server's clock, Unix seconds), -1: no lock */
	int held;                 /* 1 a live process holds it, 0 none does, -1
			     * the file system cannot tell */
};
/* Take the lock of `attempt` for this process: 1 taken, 0 another has it,
 * -1 with err set (the directory cannot be written). When taken, *held
 * is the descriptor that holds it (-1: the file system keeps no locks):
 * the caller closes it once it has recorded its verdict. */
int mcri_lock_take(const struct mcri_jobdir *d, int attempt, const char *host, int *held, struct mcr_error *err);
/* Who holds it (mtime -1 when nobody took it). */
void mcri_lock_read(const struct mcri_jobdir *d, int attempt, struct mcri_lock *l);
/* Hold the lock of `attempt`, whose holder is gone (the one srun that
 * adopts its work): the descriptor, or -1. */
int mcri_lock_hold(const struct mcri_jobdir *d, int attempt);
/* What one reader saw of an attempt's lock over time, on its own
 * monotonic clock (seconds): whatever the hosts' clocks say, a change of
 * the lock's mtime is a sign of its holder's life. */
struct mcri_lock_seen {
	int attempt;    /* the lock it is about (0: none read yet) */
	double mtime;   /* its mtime as last read (-1: none read) */
	double changed; /* when it was first read or last changed */
	bool touched;   /* it changed since this reader first read it */
	bool free_told; /* a lock no process holds is told so here: its
			     * holder is on this host, or the file system shows
			     * every host's locks (mcri_jobdir_locks_shared) */
};
/* A lock whose holder the file system says is gone, untouched for so
 * long: gone */
#define MCRI_LOCK_QUIET_S 3
/* ... whose file system cannot tell: untouched for so long, longer than
 * the longest call between two heartbeats (a slurmctld RPC that retries,
 * up to 2 x MessageTimeout, 10 s by default) */
#define MCRI_LOCK_STALE_S 30
/* What `l`, read at `now` in d, adds to what s saw of `attempt`'s lock. */
void mcri_lock_seen_update(struct mcri_lock_seen *s, const struct mcri_jobdir *d, int attempt,
			   const struct mcri_lock *l, double now);
/* The holder of the lock s saw last (l) is gone at `now`: no live process
 * holds it (where that is told: s->free_told) and it was untouched for
 * MCRI_LOCK_QUIET_S + `extra` seconds, or, where it is not told, for
 * MCRI_LOCK_STALE_S + `extra` (a lock that was never read counts as
 * untouched). A held lock never is. */
bool mcri_lock_seen_gone(const struct mcri_lock_seen *s, const struct mcri_lock *l, double now, double extra);
/* The holder is alive: its lock's age starts again (a heartbeat, so that
 * sruns on other hosts tell a dead starter within seconds). */
void mcri_lock_touch(const struct mcri_jobdir *d, int attempt);
/* The one srun that finishes the work of a dead starter of `attempt`:
 * true for the first caller. */
bool mcri_lock_adopt(const struct mcri_jobdir *d, int attempt);
/* The same, of a subject's election (NULL: the master's) */
int mcri_lock_take_of(const struct mcri_jobdir *d, const char *subject, int attempt, const char *host, int *held,
		      struct mcr_error *err);
void mcri_lock_read_of(const struct mcri_jobdir *d, const char *subject, int attempt, struct mcri_lock *l);
int mcri_lock_hold_of(const struct mcri_jobdir *d, const char *subject, int attempt);
void mcri_lock_touch_of(const struct mcri_jobdir *d, const char *subject, int attempt);
bool mcri_lock_adopt_of(const struct mcri_jobdir *d, const char *subject, int attempt);

/* workers/<node>.<job>.<step>.<task>.json: a node of a role step, or a
 * memory lender's step (its role "<kind> <name>", its address the name of
 * its segment, "host:port") */
struct mcri_worker {
	char node[256];
	char role[96];
	char address[300]; /* what its Mooncake clients announce (a lender: its segment) */
	unsigned long job, step, task;
};
/* Written without fsync (it is advice). */
int mcri_worker_write(const struct mcri_jobdir *d, const struct mcri_worker *w, struct mcr_error *err);
/* Every record (at most `max`; ones that do not parse are skipped);
 * *out is the caller's (free), *n its length. */
int mcri_workers_read(const struct mcri_jobdir *d, size_t max, struct mcri_worker **out, size_t *n,
		      struct mcr_error *err);

#endif /* MCRI_JOBDIR_H_ */
