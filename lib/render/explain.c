/*
 * explain.c - mooncake-recipe explain: each key of a role's client config
 * and each variable of its worker environment, with the layer that set it
 * (reference §7, §8) and the file:line:col where. The values come from the
 * same layering that writes the files (model/layer.c) and the environment
 * (render/env.c), which record where each value came from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/explain.h"
#include "render/render.h"
#include "rules/engines.h"

/* the layer's name as explain prints it; `r`, `role` for key paths */
static void layer_name(const struct mcr_recipe *r, enum mcr_role role, enum mcri_layer layer, char *buf, size_t size)
{
	switch (layer) {
	case MCRI_LAYER_ROLE_DEFAULT:
		snprintf(buf, size, "role default");
		break;
	case MCRI_LAYER_MODEL_DEFAULT:
		snprintf(buf, size, "served-model default");
		break;
	case MCRI_LAYER_STORE_CONFIG:
		snprintf(buf, size, "%s", r->store_config_where ? r->store_config_where : "options.store_config");
		break;
	case MCRI_LAYER_ROLE_CONFIG:
		snprintf(buf, size, "roles.%s.mooncake_store_config", mcr_role_name(role));
		break;
	case MCRI_LAYER_MASTER:
		snprintf(buf, size, r->external ? "the external master" : "the job's master");
		break;
	case MCRI_LAYER_ROLE_ENV:
		snprintf(buf, size, "roles.%s.env", mcr_role_name(role));
		break;
	case MCRI_LAYER_ENVIRONMENT:
		snprintf(buf, size, "environment");
		break;
	case MCRI_LAYER_NODE:
		snprintf(buf, size, "the node's address");
		break;
	case MCRI_LAYER_ENGINE_ENV:
		snprintf(buf, size, "engine.mooncake_kv_store.env");
		break;
	case MCRI_LAYER_VLLM_DEFAULT:
		snprintf(buf, size, "the plugin's default");
		break;
	case MCRI_LAYER_LENDER_KIND:
		snprintf(buf, size, "the lender's kind");
		break;
	case MCRI_LAYER_LENDER_ENV:
		snprintf(buf, size, "services[<name>].env");
		break;
	case MCRI_LAYER_LENDER_METADATA:
		snprintf(buf, size, "the workers' client config");
		break;
	default:
		snprintf(buf, size, "the job's directory");
		break;
	}
}

/* "recipe.yaml:12:7" of a node, or "" */
static void where_of(const struct mcr_recipe *r, const struct mcri_node *n, char *buf, size_t size)
{
	if (n)
		snprintf(buf, size, "%s:%d:%d", r->doc->name, n->line, n->col);
	else
		buf[0] = '\0';
}

/* what the plugin (or a default) sets, said where no recipe line does */
static const char *plugin_note(const struct mcr_recipe *r, enum mcri_layer layer, const char *key)
{
	switch (layer) {
	case MCRI_LAYER_ROLE_DEFAULT:
		return "(both for prefill and agg, capacity for decode)";
	case MCRI_LAYER_MASTER:
		if (r->external)
			return "(the service's external address)";
		if (key && strcmp(key, "MOONCAKE_TE_META_DATA_SERVER") == 0)
			return "(the plugin: the infra node's metadata server)";
		return "(the plugin: the infra node's address)";
	case MCRI_LAYER_NODE:
		return "(the plugin: interface=, else the route toward the master)";
	case MCRI_LAYER_JOB_DIR:
		return "(the plugin: the role's file in the job's directory)";
	case MCRI_LAYER_VLLM_DEFAULT:
		return "(vLLM's own default, \"\", fails Mooncake's setup(); P2PHANDSHAKE needs no metadata server)";
	case MCRI_LAYER_LENDER_KIND:
		if (key && !strcmp(key, "MOONCAKE_LOCAL_HOSTNAME"))
			return "(srtctl's: the node's address; Mooncake names the segment after it and a port of its own)";
		return "(srtctl's, for this kind)";
	case MCRI_LAYER_LENDER_METADATA:
		return "(the store announces its segment as the workers find segments)";
	default:
		return "";
	}
}

/* `shown` (a heap string, the value as explain prints it) followed by
 * the byte count the engine's reader makes of a size: "\"32GB\"
 * (34359738368 bytes)"; `shown` unchanged for other keys; NULL (shown
 * freed) when out of memory. */
static char *with_bytes(const struct mcr_recipe *r, const char *key, const struct mcri_node *val, const char *text,
			char *shown)
{
	bool size = !strcmp(key, "global_segment_size") || !strcmp(key, "local_buffer_size");
	long long bytes;
	char *out;

	if (!shown || !size || mcri_engine_size(r, val, text, &bytes))
		return shown;
	/* a count that saturated is a lower bound (Python's ints are not) */
	out = mcri_asprintf("%s (%lld bytes%s)", shown, bytes, bytes == 9223372036854775807LL ? " or more" : "");
	free(shown);
	return out;
}

/* A table whose columns are as wide as their widest cell; a row with
 * only `line` is a note under the row above it. */
struct table {
	struct trow {
		char *cell[4]; /* key, value, layer, where and note */
		char *line;
	} * rows;
	size_t n;
	bool oom;
};

static void row(struct table *t, const char *key, const char *value, const char *layer, const char *where,
		const char *note)
{
	struct trow *r = realloc(t->rows, (t->n + 1) * sizeof(*r));

	if (!r) {
		t->oom = true;
		return;
	}
	t->rows = r;
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	r->cell[0] = strdup(key);
	r->cell[1] = strdup(value);
	r->cell[2] = strdup(layer);
	r->cell[3] = mcri_asprintf("%s%s%s", where, where[0] && note[0] ? " " : "", note);
	for (int i = 0; i < 4; i++)
		t->oom |= !r->cell[i];
}

static void note(struct table *t, char *line)
{
	struct trow *r = line ? realloc(t->rows, (t->n + 1) * sizeof(*r)) : NULL;

	if (!r) {
		free(line);
		t->oom = true;
		return;
	}
	t->rows = r;
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	r->line = line;
}

/* print the table into b and empty it */
static void flush(struct mcri_buf *b, struct table *t)
{
	int w[3] = { 0, 0, 0 };

	for (size_t i = 0; i < t->n; i++)
		for (int c = 0; c < 3 && !t->rows[i].line; c++)
			if (t->rows[i].cell[c] && (int)strlen(t->rows[i].cell[c]) > w[c])
				w[c] = (int)strlen(t->rows[i].cell[c]);
	for (size_t i = 0; i < t->n; i++) {
		struct trow *r = &t->rows[i];

		if (r->line)
			mcri_buf_printf(b, "  %*s  %s\n", w[0], "", r->line);
		else if (!t->oom)
			mcri_buf_printf(b, "  %-*s  %-*s  %-*s  %s\n", w[0], r->cell[0], w[1], r->cell[1], w[2],
					r->cell[2], r->cell[3]);
		for (int c = 0; c < 4; c++)
			free(r->cell[c]);
		free(r->line);
	}
	if (t->oom)
		b->oom = true;
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* a note under a value that replaced another: `json` shows the old
 * value as the client config would (else as the environment has it) */
static void replaced(struct table *t, const struct mcr_recipe *r, enum mcr_role role, enum mcri_layer layer,
		     const struct mcri_node *over, const char *over_text, bool json)
{
	char lname[128], at[MCR_ERROR_SOURCE_LENGTH + 32];
	char *v = json ? mcri_value_json(over, over_text ? over_text : "") : strdup(over_text ? over_text : "");

	layer_name(r, role, layer, lname, sizeof(lname));
	where_of(r, over, at, sizeof(at));
	note(t, v ? mcri_asprintf("(replaces %s from %s%s%s)", v, lname, at[0] ? " at " : "", at) : NULL);
	free(v);
}

/* the served model's node: engine.served_model_name, else model.path */
static const struct mcri_node *model_node(const struct mcr_recipe *r, const char **path)
{
	const struct mcri_node *n = mcri_map_get(r->engine_node, "served_model_name");

	*path = "engine.served_model_name";
	if (mcri_is_str(n) && n->s[0])
		return n;
	*path = "model.path";
	return mcri_map_get(mcri_map_get(r->root, "model"), "path");
}

static int explain_config(struct mcri_buf *b, const struct mcr_recipe *r, enum mcr_role role, const char *master,
			  struct mcr_error *err)
{
	const char *name = mcr_client_config_name(r, role);
	struct mcri_payload p;
	struct table t = { 0 };
	int rc;

	if (!name) {
		mcri_buf_printf(b, "client config of roles.%s: none (%s)\n", mcr_role_name(role),
				!r->has_master                   ? "the recipe has no mooncake-master"
				: r->engine == MCR_ENGINE_SGLANG ? "SGLang workers read the MOONCAKE_* variables"
				: r->engine == MCR_ENGINE_TRTLLM ? "the role does not use the mooncake-store connector"
								 : "the engine reads no Mooncake client config");
		return 0;
	}
	rc = r->engine == MCR_ENGINE_TRTLLM ? mcri_trtllm_payload(r, role, master, &p, err)
					    : mcri_vllm_payload(r, master, &p, err);
	if (rc) {
		mcri_payload_free(&p);
		return -1;
	}
	mcri_buf_printf(b, "client config of roles.%s: %s\n", mcr_role_name(role), name);
	row(&t, "KEY", "VALUE", "LAYER", "SET AT", "");
	for (size_t i = 0; i < p.n; i++) {
		const struct mcri_payload_entry *e = &p.e[i];
		const struct mcri_node *at = e->val;
		char lname[128], where[MCR_ERROR_SOURCE_LENGTH + 32];
		const char *pnote = plugin_note(r, e->layer, e->key), *path = NULL;
		char *v = mcri_value_json(e->val, e->text ? e->text : "");

		if (!v) {
			flush(b, &t);
			mcri_payload_free(&p);
			return mcri_error_nomem(err);
		}
		if (!(v = with_bytes(r, e->key, e->val, e->text, v))) {
			flush(b, &t);
			mcri_payload_free(&p);
			return mcri_error_nomem(err);
		}
		if (e->layer == MCRI_LAYER_MODEL_DEFAULT)
			at = model_node(r, &path);
		layer_name(r, role, e->layer, lname, sizeof(lname));
		where_of(r, at, where, sizeof(where));
		row(&t, e->key, v, lname, where, path ? path : pnote);
		if (e->replaced)
			replaced(&t, r, role, e->over_layer, e->over, e->over_text, true);
		free(v);
	}
	flush(b, &t);
	mcri_payload_free(&p);
	return 0;
}

static int explain_env(struct mcri_buf *b, const struct mcr_recipe *r, enum mcr_role role,
		       const struct mcr_env_input *in, struct mcr_error *err)
{
	struct mcri_env_origin *o = NULL;
	struct table t = { 0 };
	struct mcr_env env;

	if (mcri_worker_env_origins(r, role, in, &env, &o, err))
		return -1;
	mcri_buf_printf(b, "\nworker environment of roles.%s:\n", mcr_role_name(role));
	row(&t, "VARIABLE", "VALUE", "LAYER", "SET AT", "");
	for (size_t i = 0; i < env.count; i++) {
		char lname[128], where[MCR_ERROR_SOURCE_LENGTH + 32];
		char *v = NULL;

		layer_name(r, role, o[i].layer, lname, sizeof(lname));
		where_of(r, o[i].node, where, sizeof(where));
		if (r->engine == MCR_ENGINE_SGLANG && !strcmp(env.vars[i].name, "MOONCAKE_GLOBAL_SEGMENT_SIZE"))
			v = with_bytes(r, "global_segment_size", NULL, env.vars[i].value, strdup(env.vars[i].value));
		row(&t, env.vars[i].name, v ? v : env.vars[i].value, lname, where,
		    plugin_note(r, o[i].layer, env.vars[i].name));
		free(v);
		if (o[i].replaced)
			replaced(&t, r, role, o[i].over_layer, o[i].over, o[i].over_value, false);
	}
	flush(b, &t);
	if (env.count == 0)
		mcri_buf_puts(b, "  (none)\n");
	mcr_env_free(&env);
	free(o);
	return 0;
}

/* where a lender runs, for people */
static void placement_words(const struct mcri_lender *l, char *buf, size_t size)
{
	size_t o = 0;

	if (l->place == MCRI_PLACE_INFRA) {
		snprintf(buf, size, "the job's first node (infra)");
		return;
	}
	if (l->place == MCRI_PLACE_ALL) {
		snprintf(buf, size, "each node of the job (all)");
		return;
	}
	o += (size_t)snprintf(buf, size, "each node of the sruns of ");
	for (int k = 0, first = 1; k < MCR_ROLE_COUNT && o < size; k++)
		if (l->roles & MCRI_ROLE_BIT(k)) {
			o += (size_t)snprintf(buf + o, size - o, "%sroles.%s", first ? "" : ", ", mcr_role_name(k));
			first = 0;
		}
}

/* one lender the role's tasks wait for: its command line and environment,
 * each value with where it came from */
static int explain_lender(struct mcri_buf *b, const struct mcr_recipe *r, const struct mcri_lender *l,
			  const struct mcr_env_input *in, struct mcr_error *err)
{
	const struct mcri_node *cmd = mcri_map_get(l->entry, "command"), *args = mcri_map_get(l->entry, "args");
	const struct mcri_node *options = mcri_map_get(l->entry, "options"), *n;
	const char *md_where = NULL;
	struct mcri_lender_at at = { "<node>",          "<node address>",  8080,           in->master_address,
				     in->metadata_host, in->metadata_port, in->config_dir, 0 };
	struct mcri_env_origin *o = NULL;
	struct table t = { 0 };
	struct mcr_env env;
	char where[MCR_ERROR_SOURCE_LENGTH + 32], placed[200], *seg;
	size_t nargs = mcri_is_seq(args) ? args->n : 0;
	char **argv = NULL, own_cmd[MCRI_LENDER_NAME_MAX + 32], own_args[MCRI_LENDER_NAME_MAX + 32];

	snprintf(own_cmd, sizeof(own_cmd), "services[%s].command", l->name);
	snprintf(own_args, sizeof(own_args), "services[%s].args", l->name);

	placement_words(l, placed, sizeof(placed));
	mcri_buf_printf(b, "\nlender %s (%s), on %s; critical: %s:\n", l->name, mcri_lender_kind_name(l->kind), placed,
			l->critical ? "true" : "false");
	if (mcri_lender_argv(r, l, &at, &argv, err))
		return -1;
	row(&t, "COMMAND", "", "", "", "");
	for (size_t i = 0; argv[i]; i++) {
		size_t flags_end = mcr_strv_len(argv) - nargs;
		const char *word = argv[i], *from = "", *what = "";

		n = NULL;
		if (i < (mcri_is_seq(cmd) && cmd->n ? cmd->n : l->kind == MCRI_LENDER_STORE ? 3 : 2)) {
			from = mcri_is_seq(cmd) && cmd->n ? own_cmd : "the lender's kind";
			n = mcri_is_seq(cmd) && cmd->n ? cmd->items[i] : NULL;
			if (!n && l->kind == MCRI_LENDER_STORE && i == 2) {
				word = "<mooncake.mooncake_store_service as python -m runs it>";
				what = "(its REST API bound to 127.0.0.1: no other host reaches it)";
			}
		} else if (i >= flags_end) {
			from = own_args;
			n = args->items[i - flags_end];
		} else if (!strncmp(word, "--port=", 7)) {
			from = "the plugin";
			what = "(8080, else a port of port_range= free on the node)";
		} else if (!strncmp(word, "--max-wait-time=", 16)) {
			from = "the plugin";
			what = "(readiness.timeout_seconds, else ready_timeout=)";
		} else if (i > 0 && !strcmp(argv[i - 1], "--segment_size")) {
			from = "options.size";
			n = mcri_map_get(options, "size");
		} else if (i > 0 && !strcmp(argv[i - 1], "--protocol")) {
			from = mcri_map_get(options, "protocol") ? "options.protocol" : "the lender's kind";
			n = mcri_map_get(options, "protocol");
		} else if (i > 0 && !strcmp(argv[i - 1], "--master_server_address")) {
			from = "the job's master";
		} else if (i > 0 && !strcmp(argv[i - 1], "--ready_file")) {
			from = "the plugin";
			what = "(in the job's directory; an earlier start's is removed first)";
		}
		where_of(r, n, where, sizeof(where));
		row(&t, "", word, from, where, what);
	}
	mcr_strv_free(argv);
	if (mcri_lender_env_origins(r, l, &at, &env, &o, err)) {
		flush(b, &t);
		return -1;
	}
	mcri_lender_metadata(r, &md_where);
	row(&t, "VARIABLE", "VALUE", "LAYER", "SET AT", "");
	for (size_t i = 0; i < env.count; i++) {
		char lname[160];

		if (o[i].layer == MCRI_LAYER_LENDER_ENV)
			snprintf(lname, sizeof(lname), "services[%s].env", l->name);
		else if (o[i].layer == MCRI_LAYER_LENDER_METADATA && md_where && md_where[0])
			snprintf(lname, sizeof(lname), "%s", md_where);
		else
			layer_name(r, MCR_ROLE_PREFILL, o[i].layer, lname, sizeof(lname));
		where_of(r, o[i].node, where, sizeof(where));
		{
			/* a size as the store's reader reads it */
			long long bytes;
			char *v = NULL;

			if (l->kind == MCRI_LENDER_STORE && strstr(env.vars[i].name, "_SIZE") &&
			    mcri_store_size_text(env.vars[i].value, &bytes) == 0)
				v = mcri_asprintf("%s (%lld bytes)", env.vars[i].value, bytes);
			row(&t, env.vars[i].name, v ? v : env.vars[i].value, lname, where,
			    plugin_note(r, o[i].layer, env.vars[i].name));
			free(v);
		}
		if (o[i].replaced)
			replaced(&t, r, MCR_ROLE_PREFILL, o[i].over_layer, o[i].over, o[i].over_value, false);
	}
	flush(b, &t);
	mcr_env_free(&env);
	free(o);
	if (l->kind == MCRI_LENDER_STORE) {
		if (!(seg = mcri_lender_segment(r, l, &at, err)))
			return -1;
		mcri_buf_printf(b, "  ready when its port is its own and the job's master lists its segment %s%s\n",
				seg, strstr(seg, ":*") ? " (the new one of its host)" : "");
		free(seg);
	} else {
		mcri_buf_printf(b, "  ready when its ready file is there\n");
	}
	return 0;
}

char *mcri_explain_lenders(const struct mcr_recipe *r)
{
	struct mcri_buf b = { 0 };

	mcri_buf_puts(&b, "");
	for (size_t i = 0; i < r->nlenders; i++) {
		char placed[200];

		placement_words(&r->lenders[i], placed, sizeof(placed));
		mcri_buf_printf(&b, ", and %s %s on %s", mcri_lender_kind_name(r->lenders[i].kind), r->lenders[i].name,
				placed);
	}
	return mcri_buf_take(&b);
}

char *mcri_explain(const struct mcr_recipe *r, enum mcr_role role, const struct mcr_env_input *in,
		   struct mcr_error *err)
{
	struct mcri_buf b = { 0 };
	struct mcr_env_input job = *in;
	char master[128], *text;

	if (!mcr_recipe_has_role(r, role)) {
		mcri_error_set(err, MCR_EINVAL, "the recipe has no roles.%s",
			       mcr_role_name(role) ? mcr_role_name(role) : "?");
		return NULL;
	}
	/* placeholders for what only the job knows */
	snprintf(master, sizeof(master), "<infra node>:%d", MCR_MASTER_PORT);
	if (!job.master_address)
		job.master_address = master;
	if (!job.metadata_host)
		job.metadata_host = "<infra node>";
	if (!job.config_dir)
		job.config_dir = "<job dir>";
	if (!job.local_hostname)
		job.local_hostname = "<node address>";
	if (explain_config(&b, r, role, job.master_address, err) || explain_env(&b, r, role, &job, err)) {
		free(b.p);
		return NULL;
	}
	/* the lenders the role's tasks wait for */
	for (size_t i = 0; i < r->nlenders; i++)
		if (mcri_lender_serves(&r->lenders[i], role) && explain_lender(&b, r, &r->lenders[i], &job, err)) {
			free(b.p);
			return NULL;
		}
	if (!(text = mcri_buf_take(&b)))
		mcri_error_nomem(err);
	return text;
}
