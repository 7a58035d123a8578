/*
 * sys.h - the system helpers of the recipe library: atomic files and
 * directories, the job directory's name, host:port. Private (prefix
 * mcri_); the plugin and the command-line tool link the static library and
 * may include this header. What only runs with a job (probes, host lists,
 * the job directory's files, the pool) is the runtime's, runtime/.
 */
#ifndef MCRI_SYS_H_
#define MCRI_SYS_H_

#include "base/base.h"

/* ---- directories (files.c; the atomic writes are mcr_*) ----------- */

/* mcr_write_file_atomic, and without its fsync when not `durable` (a
 * reader still never sees half of the file; a crash may lose it). */
int mcri_write_file(const char *dir, const char *name, const char *text, size_t len, bool durable,
		    struct mcr_error *err);
/* The same in the directory open at `dirfd` (its name `dir`, for
 * messages), new files with `mode`: every step relative to the descriptor,
 * no name followed through a link. `name` is a file name (MCR_EINVAL for
 * a path). */
int mcri_write_file_at(int dirfd, const char *dir, const char *name, const char *text, size_t len, bool durable,
		       unsigned mode, struct mcr_error *err);
/* mcr_write_files in the directory open at `dirfd`, new files with `mode`. */
int mcri_write_files_at(int dirfd, const char *dir, const struct mcr_file_list *list, unsigned mode,
			struct mcr_error *err);

/* mkdir -p with `mode` for the directories it creates. MCR_EIO when one
 * cannot be created or `path` exists and is not a directory. */
int mcri_mkdir_p(const char *path, unsigned mode, struct mcr_error *err);

/* ---- small text files (readfile.c) --------------------------------- */

/* The whole regular file `path` (at most `max` bytes) into *text (heap,
 * NUL-terminated, the caller frees) and *len. 0, or an errno value: the
 * open's or the read's, EISDIR for something that is not a regular file
 * (a directory, a FIFO), EFBIG when it is larger than `max`, ENOMEM. */
int mcri_read_file(const char *path, size_t max, char **text, size_t *len);
/* The same from the descriptor fd, open for reading (not closed here):
 * a file checked through the descriptor it is read from. */
int mcri_read_fd(int fd, size_t max, char **text, size_t *len);

/* ---- the job directory (dir_template.c) ---------------------------------- */

/* Default template when neither the recipe (output.log_dir) nor the admin
 * sets one: like srtctl, "<submit dir>/outputs/<job id>/logs". */
#define MCRI_DEFAULT_JOB_DIR "{submit_dir}/outputs/{job_id}/logs"

/*
 * `template` with "{job_id}", "{user}" and "{submit_dir}" replaced; a
 * relative result is taken relative to `submit_dir`; trailing slashes
 * removed. A heap string, or NULL with err set (MCR_EINVAL for an empty
 * template or an unknown placeholder).
 */
char *mcri_expand_dir_template(const char *template, const char *job_id, const char *user, const char *submit_dir,
			       struct mcr_error *err);

/* ---- host:port (hostport.c) ---------------------------------------- */

/*
 * The one reader of "host:port" (an external master, the address the
 * files and the workers get): split at the last colon; the host is
 * non-empty and has no blank or '/', the port is 1-65535 in decimal
 * digits. On success *host (heap, caller frees) and *port are set when not
 * NULL. MCR_EINVAL otherwise.
 */
int mcri_host_port_parse(const char *text, char **host, int *port, struct mcr_error *err);

#endif /* MCRI_SYS_H_ */
