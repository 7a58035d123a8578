/*
 * argv.c - the master's command line (reference §5): mooncake_master with
 * srtctl's flags and the three fixed ports, or the service's own command,
 * then its args.
 */
#include <stdlib.h>
#include <string.h>

#include "render/render.h"

static const char *const DEFAULT_FLAGS[] = {
	"--port=8700",
	"--enable_http_metadata_server=true",
	"--http_metadata_server_port=8701",
	"--eviction_high_watermark_ratio=0.9",
	"--default_kv_lease_ttl=10000",
	"--rpc_thread_num=16",
	"--enable_metric_reporting=true",
	"--metrics_port=8702",
	NULL,
};

int mcr_master_argv(const struct mcr_recipe *r, const char *binary,
		    char ***argv, struct mcr_error *err)
{
	const struct mcri_node *cmd = r->master_command, *args = r->master_args;
	size_t n = 0, cap = 0, i;
	char **v;

	*argv = NULL;
	if (!r->has_master || r->external)
		return mcri_error_set(err, MCR_EINVAL,
				      "the recipe starts no master (none declared, or external)");
	cap = 2 + (mcri_is_seq(cmd) ? cmd->n : 8) + (mcri_is_seq(args) ? args->n : 0);
	v = calloc(cap + 1, sizeof(*v));
	if (!v)
		return mcri_error_nomem(err);
	if (mcri_is_seq(cmd) && cmd->n > 0) {
		for (i = 0; i < cmd->n; i++)
			if (!(v[n++] = strdup(cmd->items[i]->s)))
				goto nomem;
	} else {
		if (!(v[n++] = strdup(binary)))
			goto nomem;
		for (i = 0; DEFAULT_FLAGS[i]; i++)
			if (!(v[n++] = strdup(DEFAULT_FLAGS[i])))
				goto nomem;
	}
	for (i = 0; mcri_is_seq(args) && i < args->n; i++)
		if (!(v[n++] = strdup(args->items[i]->s)))
			goto nomem;
	*argv = v;
	return 0;
nomem:
	mcr_strv_free(v);
	return mcri_error_nomem(err);
}
