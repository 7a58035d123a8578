/*
 * lend.c - the memory each task of a role lends to the job's pool: its
 * global segment as the role's engine reads it (reference §9), for the
 * plugin's check when a task starts (spank/stepd/stepd.c), where the node's
 * memory is known.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "rules/check.h"
#include "rules/engines.h"

/* the engines' defaults (doc/engine-contracts.md) */
#define VLLM_DEFAULT "4GB"          /* DEFAULT_GLOBAL_SEGMENT_SIZE, 4 GiB */
#define TRTLLM_DEFAULT "3355443200" /* DEFAULT_GLOBAL_SEGMENT_SIZE */
#define SGLANG_DEFAULT "4gb"        /* MOONCAKE_GLOBAL_SEGMENT_SIZE's default */

int mcri_role_lends(const struct mcr_recipe *r, enum mcr_role role, long long *bytes, char *where, size_t size,
		    struct mcr_error *err)
{
	const struct mcri_node *n = NULL;
	const char *text = NULL, *layer = NULL;
	struct mcri_payload p = { 0 };
	int rc = 0;

	*bytes = 0;
	where[0] = '\0';
	if (!r->has_master || !mcr_recipe_has_role(r, role))
		return 0;
	switch (r->engine) {
	case MCR_ENGINE_VLLM:
		if (!mcr_recipe_role_reads_config(r, role))
			return 0;
		n = mcri_map_get(r->store_config, "global_segment_size");
		snprintf(where, size, "%s.global_segment_size",
			 r->store_config_where ? r->store_config_where : "store_config");
		if (!n) {
			text = VLLM_DEFAULT;
			snprintf(where, size, "global_segment_size (not set: vLLM's default)");
		}
		break;
	case MCR_ENGINE_TRTLLM:
		if (!mcr_recipe_role_reads_config(r, role))
			return 0;
		if (mcri_trtllm_payload(r, role, "<infra_ip>:8700", &p, err)) {
			mcri_payload_free(&p);
			return -1;
		}
		{
			const struct mcri_payload_entry *e = mcri_payload_get(&p, "global_segment_size");

			if (e && (e->val || e->text)) {
				n = e->val;
				text = e->val ? NULL : e->text;
				snprintf(where, size, "%s.global_segment_size", e->src ? e->src : "client config");
			} else {
				text = TRTLLM_DEFAULT;
				snprintf(where, size, "global_segment_size (not set: TRT-LLM's default)");
			}
		}
		break;
	case MCR_ENGINE_SGLANG:
		if (!mcri_sglang_joins_pool(mcri_map_get(r->role_node[role], "args")))
			return 0; /* no Mooncake Store client in its workers */
		{
			char role_where[64];

			snprintf(role_where, sizeof(role_where), "roles.%s.env", mcr_role_name(role));
			n = mcri_role_env(r, role, "MOONCAKE_GLOBAL_SEGMENT_SIZE", &layer, role_where);
			if (mcri_is_str(n)) {
				text = n->s;
				n = NULL;
				snprintf(where, size, "%s.MOONCAKE_GLOBAL_SEGMENT_SIZE", layer);
			} else {
				text = SGLANG_DEFAULT;
				snprintf(where, size, "MOONCAKE_GLOBAL_SEGMENT_SIZE (not set: SGLang's default)");
			}
		}
		break;
	default:
		return 0;
	}
	/* the rules took the size already: one the engine cannot read lends
	 * nothing here */
	if (mcri_engine_size(r, n, text, bytes) || *bytes < 0)
		*bytes = 0;
	mcri_payload_free(&p);
	return rc;
}
