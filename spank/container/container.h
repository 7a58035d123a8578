/*
 * container.h - where the steps the plugin starts run (container.c): the
 * recipe's container through pyxis or Slurm's OCI support, or the host;
 * and a role task's checks in slurmstepd, where pyxis or another plugin
 * put it in a container.
 */
#ifndef MCP_CONTAINER_H_
#define MCP_CONTAINER_H_

#include <limits.h>
#include <stdbool.h>

#include <slurm/spank.h>

#include "mooncake_recipe.h"
#include "plugin/handover.h"
#include "plugstack/plugstack.h"

/* what the cluster offers (container=auto) */
struct mcp_container_site {
	bool pyxis;              /* `srun --help` lists --container-image */
	bool oci;                /* oci.conf exists next to slurm.conf */
	char oci_conf[PATH_MAX]; /* where it was looked for */
};
/* where the job's master runs */
struct mcp_container {
	enum mcri_container_mode mode;       /* PYXIS, OCI, or NONE: the host */
	char value[PATH_MAX];                /* the image (pyxis), the bundle's real path (OCI) */
	char note[MCR_ERROR_MESSAGE_LENGTH]; /* the line the srun that starts the
					      * master prints: the image, whence */
	bool note_verbose;                   /* container=none: the note is for srun -v */
};
/* Look at the cluster: srun= --help, oci.conf next to $SLURM_CONF. */
void mcp_container_probe(const struct mcri_plugstack *ps, struct mcp_container_site *site);
/* srun's init_post_opt, before any step: where the master of `recipe`
 * runs (`site` NULL: probed when needed). -1 with a message at the recipe's value when the
 * chosen system cannot use it. */
int mcp_container_decide(const struct mcri_plugstack *ps, const struct mcr_recipe *recipe,
			 const struct mcp_container_site *site, struct mcp_container *c, struct mcr_error *err);
/* The same for the container `value` written at `where` (NULL: the
 * host), of what the messages call what[0..2] ("the master step",
 * "mooncake_master", "the infra node"; NULL: those) */
int mcp_container_decide_value(const struct mcri_plugstack *ps, const char *value, const struct mcr_position *where,
			       const char *const *what, const struct mcp_container_site *site, struct mcp_container *c,
			       struct mcr_error *err);
/* A step in it (c NULL or mode NONE: the host): *options, the srun options
 * that put the step there (NULL-terminated, mcr_strv_free; NULL on the
 * host); *cmd wrapped where the system needs it. `env`, the variables srun
 * sets for the step: in pyxis, their names are its --container-env (pyxis
 * keeps srun's values of those over the image's). */
int mcp_container_options(const struct mcp_container *c, const char *dir, const struct mcr_env *env, char ***options,
			  char ***cmd, struct mcr_error *err);
struct mcp_handover;
/* srun of a role step whose tasks pyxis runs in a container (pyxis's
 * --container-image or --container-name, as srun's environment holds them;
 * none: nothing): h->pyxis says which, with its --container-mounts; the
 * names of every variable the plugin sets in the tasks (h->env's and its
 * handover's) join pyxis's PYXIS_CONTAINER_ENV in srun's environment (so
 * that pyxis keeps the plugin's values over the image's), unless the user
 * gave --container-env, which then must name them (h->pyxis.missing). -1
 * out of memory. */
int mcp_pyxis_hand_over(struct mcp_handover *h, struct mcr_error *err);

/* ---- a role's task (slurmstepd) ------------------------------------- */

/* task_init of a role step: can the task read its client config `path`
 * where it runs (inside an OCI bundle: where the bundle mounts it)? -1
 * with the path and the mount to add. */
int mcp_task_config_check(spank_t sp, const char *path, struct mcr_error *err);
/* task_init of a role step, before it opens the job's directory `dir`
 * (NULL: it opens none): where pyxis (h->pyxis) or another plugin before
 * this one has put the task in a container already (`entered`), `dir`
 * must be there; where pyxis will put it in one after this plugin's
 * task_init, its --container-mounts must mount `config_dir` (the directory
 * of the client config the task reads; NULL: none) at its own path, and a
 * --container-env the user gave must name the plugin's variables. -1 with
 * what to add. PYXIS_CONTAINER_ENV is the user's again (srun named the
 * plugin's variables there for pyxis). */
int mcp_task_container_check(spank_t sp, const struct mcp_handover *h, const char *dir, const char *config_dir,
			     bool entered, struct mcr_error *err);

#endif /* MCP_CONTAINER_H_ */
