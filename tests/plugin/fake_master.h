/* fake_master.h - a stand-in for mooncake_master in the plugin tests: it
 * listens on the three ports (RPC: accepts; metadata: /health, GET and PUT
 * /metadata?key=...; metrics: /health). Run in a child process; the tests
 * run in a network namespace of their own (tests/netns-run.sh). */
#ifndef MCK_FAKE_MASTER_H_
#define MCK_FAKE_MASTER_H_

#include <sys/types.h>

#include "mooncake_recipe.h"

/* A fake master on 127.0.0.1 at `ports`; `token` answers GET of any key
 * until a PUT replaces it. The child's pid; -1 when a port cannot bind. */
pid_t fake_master_start(const struct mcr_ports *ports, const char *token);
void fake_master_stop(pid_t pid);
/* Serve forever (the child's body; also `plugin_tests fake-master R M X`). */
void fake_master_serve(const struct mcr_ports *ports, const char *token);
/* The fake master as a fake srun's step runs it: `PROG fake-master R M X`
 * (or fake-master-late: it binds 3 s late), after the guard the master
 * step's task starts (MCP_GUARD_VAR), as slurmstepd's task_init does.
 * Returns -1 when argv is not that (the caller goes on), else does not
 * return but with the exit status. */
int fake_master_main(int argc, char **argv);

#endif
