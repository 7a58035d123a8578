/*
 * render.h - what the files of the render stage share (stage 4, see
 * lib/README.md): the public functions they implement are declared in
 * mooncake_recipe.h.
 */
#ifndef MCRI_RENDER_H_
#define MCRI_RENDER_H_

#include "model/model.h"

/* The payload as Python's json.dumps(payload, indent=2) writes it
 * (reference §7); NULL only when out of memory. */
char *mcri_payload_dumps(const struct mcri_payload *p);

/* One value as it appears in a client config, on one line ("tcp" with
 * its quotes, 16, true, {"a": 1}); `text` when `n` is NULL. NULL only when
 * out of memory. */
char *mcri_value_json(const struct mcri_node *n, const char *text);

/* The address the files and the workers get: an external master's for
 * vLLM/SGLang, otherwise the one the caller computed for the infra node. */
const char *mcri_effective_master(const struct mcr_recipe *r,
				  const char *master_address);

/* Where a variable of the worker environment was set (explain). */
struct mcri_env_origin {
	enum mcri_layer layer;
	const struct mcri_node *node; /* the recipe's value, NULL: the plugin's */
	char where[80];               /* the map's key path ("roles.decode.env") */
	bool replaced;                /* it replaced the value of an earlier layer: */
	enum mcri_layer over_layer;
	const struct mcri_node *over;
	char over_value[256];         /* that value (cut) */
};

/* mcr_worker_env, and with `origins` (not NULL) the origin of each
 * variable, in the order of out->vars (heap array, caller frees). */
int mcri_worker_env_origins(const struct mcr_recipe *r, enum mcr_role role,
			    const struct mcr_env_input *in, struct mcr_env *out,
			    struct mcri_env_origin **origins, struct mcr_error *err);

#endif /* MCRI_RENDER_H_ */
