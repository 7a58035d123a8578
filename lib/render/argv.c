/*
 * argv.c - the master's command line (reference §5): mooncake_master with
 * srtctl's flags and the three fixed ports, or the service's own command,
 * then its args.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"

/* srtctl's flags; %d: the port of that flag (RPC, metadata, metrics) */
static const struct {
	const char *flag;
	int port; /* 0: none, 1: RPC, 2: metadata, 3: metrics */
} DEFAULT_FLAGS[] = {
	{ "--port=%d", 1 },
	{ "--enable_http_metadata_server=true", 0 },
	{ "--http_metadata_server_port=%d", 2 },
	{ "--eviction_high_watermark_ratio=0.9", 0 },
	{ "--default_kv_lease_ttl=10000", 0 },
	{ "--rpc_thread_num=16", 0 },
	{ "--enable_metric_reporting=true", 0 },
	{ "--metrics_port=%d", 3 },
	{ NULL, 0 },
};

static bool valid_port(int p)
{
	return p >= 1 && p <= 65535;
}

int mcr_master_argv(const struct mcr_recipe *r, const char *binary, const struct mcr_ports *ports, char ***argv,
		    struct mcr_error *err)
{
	const struct mcr_ports fixed = { MCR_MASTER_PORT, MCR_METADATA_PORT, MCR_METRICS_PORT };
	const struct mcri_node *cmd = r->master_command, *args = r->master_args;
	size_t n = 0, cap = 0, i;
	char **v;

	*argv = NULL;
	if (!r->has_master || r->external)
		return mcri_error_set(err, MCR_EINVAL, "the recipe starts no master (none declared, or external)");
	if (!ports)
		ports = &fixed;
	if (!valid_port(ports->rpc) || !valid_port(ports->metadata) || !valid_port(ports->metrics))
		return mcri_error_set(err, MCR_EINVAL, "the master's ports %d, %d, %d: each must be 1-65535",
				      ports->rpc, ports->metadata, ports->metrics);
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
		for (i = 0; DEFAULT_FLAGS[i].flag; i++) {
			int port = DEFAULT_FLAGS[i].port == 1   ? ports->rpc
				   : DEFAULT_FLAGS[i].port == 2 ? ports->metadata
								: ports->metrics;

			v[n++] = DEFAULT_FLAGS[i].port ? mcri_asprintf(DEFAULT_FLAGS[i].flag, port)
						       : strdup(DEFAULT_FLAGS[i].flag);
			if (!v[n - 1])
				goto nomem;
		}
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
