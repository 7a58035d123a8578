/* child.h - what a child of the plugin does between fork and exec
 * (child.c; mcp_spawn itself is in plugin.h). */
#ifndef MCP_CHILD_H_
#define MCP_CHILD_H_

/* Close every descriptor from `lowfd` up: closefrom() on every glibc and
 * kernel (the close_range system call, else the entries of /proc/self/fd,
 * else every number below RLIMIT_NOFILE). Async-signal-safe, for a child
 * between fork and exec; no error (what cannot be closed was not open). */
void mcp_close_from(int lowfd);

#endif
