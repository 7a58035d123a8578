/*
 * explain.h - where each value a role gets comes from (mooncake-recipe
 * explain). Private; the command-line tool includes it.
 */
#ifndef MCRI_EXPLAIN_H_
#define MCRI_EXPLAIN_H_

#include "base/base.h"

/*
 * The client config of `role` (key by key: its value, the layer that set
 * it, the file:line:col where, and the value it replaced) and the worker
 * environment the role gets (the same for each variable), as text for
 * people (heap, caller frees). The layers are those of reference §7 and
 * §8: role default, served-model default, the master's store_config,
 * roles.<role>.mooncake_store_config, the job's master; roles.<role>.env,
 * environment, the node's address, engine.mooncake_kv_store.env, the job's
 * directory. `in` is what the job would give (NULL fields: placeholders).
 * Errors: MCR_EINVAL for a role the recipe lacks, MCR_EIO out of memory.
 */
char *mcri_explain(const struct mcr_recipe *recipe, enum mcr_role role, const struct mcr_env_input *in,
		   struct mcr_error *err);

/* The recipe's lenders for `check`'s line: ", and mooncake-store store on
 * each node of the sruns of roles.decode" for each (heap; "" without any;
 * NULL out of memory). explain's text shows each lender its role's tasks
 * wait for: its command line and environment, each value with where it
 * came from. */
char *mcri_explain_lenders(const struct mcr_recipe *recipe);

#endif /* MCRI_EXPLAIN_H_ */
