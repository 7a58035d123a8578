/*
 * child.h - the plugin's one posix_spawn (child.c), and what a child of
 * the plugin does between fork and exec.
 */
#ifndef MCP_CHILD_H_
#define MCP_CHILD_H_

#include <stdbool.h>
#include <sys/types.h>

/* How a spawned program's output goes: stdout and stderr appended to
 * `log_fd`, or (log_fd -1) stdout to `out_fd` and stderr to /dev/null; stdin
 * is /dev/null and no other descriptor is inherited. `detached`: its own
 * session, default signals and an empty signal mask. */
struct mcp_spawn_io {
	int log_fd; /* stdout and stderr, or -1: stdout to out_fd */
	int out_fd;
	bool detached;
};
/* posix_spawnp argv[0] so; 0, or the error number */
int mcp_spawn(char *const argv[], char *const env[], const struct mcp_spawn_io *io, pid_t *pid);

/* Close every descriptor from `lowfd` up: closefrom() on every glibc and
 * kernel (the close_range system call, else the entries of /proc/self/fd,
 * else every number below RLIMIT_NOFILE). Async-signal-safe, for a child
 * between fork and exec; no error (what cannot be closed was not open). */
void mcp_close_from(int lowfd);

#endif /* MCP_CHILD_H_ */
