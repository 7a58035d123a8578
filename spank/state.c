/*
 * state.c - the state file of a job's master, <job dir>/mooncake_master.json:
 * which attempt, its phase (starting, ready, failed), where the master runs
 * and on which ports, the token that proves it is this job's, the recipe
 * that started it, who started it. Written atomically by the srun that
 * holds the attempt's lock; read by every other srun of the job.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "plugin.h"

static const char *const PHASES[] = { "", "starting", "ready", "failed" };

const char *mcp_state_phase_name(enum mcp_state_phase phase)
{
	return (unsigned)phase < sizeof(PHASES) / sizeof(PHASES[0]) ? PHASES[phase] : "?";
}

static long long get_int(json_t *obj, const char *key)
{
	return json_integer_value(json_object_get(obj, key));
}

int mcp_state_read(const char *dir, struct mcp_master_state *st,
		   struct mcr_error *err)
{
	const char *phase;
	json_t *obj;

	memset(st, 0, sizeof(*st));
	if (!(obj = mcri_json_read(dir, MCRI_MASTER_STATE, err)))
		return -1;
	phase = json_string_value(json_object_get(obj, "state"));
	for (size_t i = 1; phase && i < sizeof(PHASES) / sizeof(PHASES[0]); i++)
		if (strcmp(phase, PHASES[i]) == 0)
			st->phase = (enum mcp_state_phase)i;
	st->attempt = (int)get_int(obj, "attempt");
	mcri_json_copy_str(st->infra_node, sizeof(st->infra_node), obj, "infra_node");
	mcri_json_copy_str(st->infra_addr, sizeof(st->infra_addr), obj, "infra_addr");
	st->ports.rpc = (int)get_int(obj, "rpc_port");
	st->ports.metadata = (int)get_int(obj, "metadata_port");
	st->ports.metrics = (int)get_int(obj, "metrics_port");
	if (!st->ports.rpc || !st->ports.metadata || !st->ports.metrics)
		st->ports = (struct mcr_ports){ MCR_MASTER_PORT, MCR_METADATA_PORT, MCR_METRICS_PORT };
	mcri_json_copy_str(st->token, sizeof(st->token), obj, "token");
	mcri_json_copy_str(st->recipe, sizeof(st->recipe), obj, "recipe");
	mcri_json_copy_str(st->message, sizeof(st->message), obj, "message");
	mcri_json_copy_str(st->starter_host, sizeof(st->starter_host), obj, "starter_host");
	st->starter_pid = (long)get_int(obj, "starter_pid");
	st->srun_pid = (long)get_int(obj, "srun_pid");
	st->started_at = get_int(obj, "started_at");
	st->ready_at = get_int(obj, "ready_at");
	json_decref(obj);
	return 0;
}

int mcp_state_write(const char *dir, const struct mcp_master_state *st,
		    struct mcr_error *err)
{
	json_t *obj = json_pack("{s:s, s:i, s:s, s:s, s:i, s:i, s:i, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I}",
				"state", mcp_state_phase_name(st->phase),
				"attempt", st->attempt, "infra_node", st->infra_node,
				"infra_addr", st->infra_addr, "rpc_port", st->ports.rpc,
				"metadata_port", st->ports.metadata,
				"metrics_port", st->ports.metrics, "token", st->token,
				"recipe", st->recipe, "message", st->message,
				"starter_host", st->starter_host,
				"starter_pid", (json_int_t)st->starter_pid,
				"srun_pid", (json_int_t)st->srun_pid,
				"started_at", (json_int_t)st->started_at,
				"ready_at", (json_int_t)st->ready_at);
	char *text;
	int rc;

	if (!obj)
		return mcri_error_nomem(err);
	text = json_dumps(obj, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(obj);
	if (!text)
		return mcri_error_nomem(err);
	rc = mcr_write_file_atomic(dir, MCRI_MASTER_STATE, text, strlen(text), err);
	free(text);
	return rc;
}
