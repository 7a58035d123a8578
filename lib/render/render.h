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

/* The address the files and the workers get: an external master's for
 * vLLM/SGLang, otherwise the one the caller computed for the infra node. */
const char *mcri_effective_master(const struct mcr_recipe *r,
				  const char *master_address);

#endif /* MCRI_RENDER_H_ */
