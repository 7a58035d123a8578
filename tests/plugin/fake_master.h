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

#endif
