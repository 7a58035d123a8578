/*
 * sys.h - the system helpers of the library and the plugin: directories,
 * the job directory's name, host:port, Slurm host lists, readiness probes.
 * Private (not exported from libmooncake_recipe.so): the plugin and the
 * command-line tool link the static library and include this header.
 */
#ifndef MCRI_SYS_H_
#define MCRI_SYS_H_

#include <jansson.h>

#include "base/base.h"

/* ---- directories (files.c; the atomic writes are public) ----------- */

/* mcr_write_file_atomic, and without its fsync when not `durable` (a
 * reader still never sees half of the file; a crash may lose it). */
int mcri_write_file(const char *dir, const char *name, const char *text, size_t len,
		    bool durable, struct mcr_error *err);

/* mkdir -p with `mode` for the directories it creates. MCR_EIO when one
 * cannot be created or `path` exists and is not a directory. */
int mcri_mkdir_p(const char *path, unsigned mode, struct mcr_error *err);

/* ---- the job directory (jobdir.c) ---------------------------------- */

/* Default template when neither the recipe (output.log_dir) nor the admin
 * sets one: like srtctl, "<submit dir>/outputs/<job id>/logs". */
#define MCRI_DEFAULT_JOB_DIR "{submit_dir}/outputs/{job_id}/logs"

/*
 * `template` with "{job_id}", "{user}" and "{submit_dir}" replaced; a
 * relative result is taken relative to `submit_dir`; trailing slashes
 * removed. A heap string, or NULL with err set (MCR_EINVAL for an empty
 * template or an unknown placeholder).
 */
char *mcri_expand_dir_template(const char *template, const char *job_id,
			       const char *user, const char *submit_dir,
			       struct mcr_error *err);

/* The master's state file in the job's directory: the plugin writes it
 * (spank/state.c), `mooncake-recipe status` reads it (pool.c). */
#define MCRI_MASTER_STATE "mooncake_master.json"

/* The JSON document in <dir>/<name> (a new reference, json_decref it), or
 * NULL with err set: MCR_ESTATE when the file does not exist, MCR_EIO when
 * it cannot be read or parsed ("cannot read PATH: WHY"). */
json_t *mcri_json_read(const char *dir, const char *name, struct mcr_error *err);
/* The string obj[key] into dst (size bytes, cut to fit); "" when obj has
 * no such string. */
void mcri_json_copy_str(char *dst, size_t size, const json_t *obj, const char *key);

/* ---- host:port (hostport.c) ---------------------------------------- */

/*
 * The one reader of "host:port" (an external master, the address the
 * files and the workers get): split at the last colon; the host is
 * non-empty and has no blank or '/', the port is 1-65535 in decimal
 * digits. On success *host (heap, caller frees) and *port are set when not
 * NULL. MCR_EINVAL otherwise.
 */
int mcri_host_port_parse(const char *text, char **host, int *port,
			 struct mcr_error *err);

/* ---- Slurm host lists (hostlist.c) --------------------------------- */

/*
 * Expand a Slurm hostlist such as "n[1-3,7],gpu-[01-02]" into host names,
 * in order ("n1","n2","n3","n7","gpu-01","gpu-02"); zero padding is kept.
 * At most `max_hosts` names (a larger list is an MCR_EINVAL error).
 * NULL-terminated array, free with mcr_strv_free.
 */
int mcri_hostlist_expand(const char *hostlist, size_t max_hosts, char ***hosts,
			 struct mcr_error *err);

/* ---- readiness probes (probe.c) ------------------------------------ */

/*
 * TCP connect to host:port (host: IPv4 dotted quad or name) within
 * `timeout_ms` milliseconds. 0 when the port accepts; -1 otherwise, the
 * reason ("Connection refused", "timed out", ...) in err (MCR_ESTATE) and
 * its cause in errno: ECONNREFUSED (nothing listens: the host answered),
 * ETIMEDOUT, EHOSTUNREACH, ENETUNREACH (no answer: the host is unreachable).
 */
int mcri_tcp_probe(const char *host, int port, int timeout_ms,
		   struct mcr_error *err);

/*
 * One HTTP/1.0 request (`method` GET or PUT, `body` for PUT or NULL) within
 * `timeout_ms`. 0 when a response arrived: *status holds its code and
 * `resp` (resp_size bytes, NUL-terminated) the start of its body. -1 when
 * no response came, the reason in err (MCR_ESTATE; MCR_EIO for memory) and
 * its cause in errno as mcri_tcp_probe sets it (ETIMEDOUT also when the
 * connection opened but no answer came in time; EPROTO for an answer that
 * is not HTTP).
 */
int mcri_http(const char *host, int port, const char *method, const char *path,
	      const char *body, int timeout_ms, int *status, char *resp,
	      size_t resp_size, struct mcr_error *err);

/*
 * GET `path` within `timeout_ms`, the whole body: 0 when a response
 * arrived, *status its code and *body (heap, caller frees, NUL-terminated)
 * its body. -1 as mcri_http, and also when the answer is larger than `max`
 * bytes (errno EMSGSIZE): /metrics grows with the segments of the pool.
 */
int mcri_http_get(const char *host, int port, const char *path, int timeout_ms,
		  size_t max, int *status, char **body, struct mcr_error *err);

#endif /* MCRI_SYS_H_ */
