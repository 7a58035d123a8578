/*
 * build.c - the recipe model (model.h) read from the node tree: which
 * engine, which roles, and the pool: a declared mooncake-master service or
 * engine.mooncake_kv_store, as srtctl normalises them (reference §6).
 * Nothing here prints or touches files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

#define CONNECTOR_MODULE "tensorrt_llm._torch.pyexecutor.connectors.mooncake_store"

bool mcri_entry_is_master(const struct mcri_node *entry)
{
	const struct mcri_node *type = mcri_map_get(entry, "type");

	return mcri_is_str(type) && strcmp(type->s, "mooncake-master") == 0;
}

bool mcri_entry_enabled(const struct mcri_node *entry)
{
	const struct mcri_node *enabled = mcri_map_get(entry, "enabled");

	return !enabled || enabled->type == MCRI_T_NULL || mcri_truthy(enabled);
}

/* Connector detection (reference §4): the role's args.kv_connector_config
 * resolves to TRT-LLM's mooncake_store connector module. */
static bool uses_connector(const struct mcri_node *role)
{
	const struct mcri_node *args = mcri_map_get(role, "args");
	const struct mcri_node *kcc = mcri_map_get(args, "kv_connector_config");
	const struct mcri_node *module, *connector;

	if (!mcri_is_map(kcc))
		return false;
	module = mcri_map_get(kcc, "connector_module");
	if (module && module->type != MCRI_T_NULL)
		return mcri_is_str(module) && strcmp(module->s, CONNECTOR_MODULE) == 0;
	connector = mcri_map_get(kcc, "connector");
	return mcri_is_str(connector) && strcmp(connector->s, "mooncake-store") == 0;
}

/* Last path component of model.path (hf:org/name -> name), as srtctl's
 * runtime.model_path.name, into *name (NULL without a model.path); -1 only
 * when out of memory. */
static int model_dir_name(const struct mcri_node *model, char **name)
{
	const struct mcri_node *path = mcri_map_get(model, "path");
	const char *p, *slash;
	size_t len;

	*name = NULL;
	if (!mcri_is_str(path) || !path->s[0])
		return 0;
	p = path->s;
	if (strncmp(p, "hf:", 3) == 0)
		p += 3;
	len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		len--;
	for (slash = p + len; slash > p && slash[-1] != '/'; slash--)
		;
	*name = strndup(slash, len - (size_t)(slash - p));
	return *name ? 0 : -1;
}

int mcri_recipe_build(struct mcri_doc *doc, struct mcr_recipe *r, struct mcr_error *err)
{
	const struct mcri_node *root = doc->root, *engine, *services, *sname;

	memset(r, 0, sizeof(*r));
	r->doc = doc;
	if (!root)
		return mcri_err_at(
			err, MCR_EINVAL, doc, NULL,
			"the recipe is empty; write at least `schema: 2`, an engine, roles and a mooncake-master service");
	if (root->type != MCRI_T_MAP)
		return mcri_err_at(
			err, MCR_EINVAL, doc, root,
			"the recipe must be a mapping of keys (schema:, engine:, roles:, services:), not a single value or list");
	r->root = root;

	/* engine: a type string or a mapping with `type` (omitted = SGLang) */
	engine = mcri_map_get(root, "engine");
	/* a malformed engine is reported by validation, after the schema gate */
	r->engine_type = "sglang";
	if (engine && engine->type == MCRI_T_STR) {
		r->engine_type = engine->s;
	} else if (mcri_is_map(engine)) {
		const struct mcri_node *type = mcri_map_get(engine, "type");

		r->engine_node = engine;
		r->engine_type = mcri_is_str(type) ? type->s : "";
	} else if (engine && engine->type != MCRI_T_NULL) {
		r->engine_type = "";
	}
	if (strcmp(r->engine_type, "trtllm") == 0)
		r->engine = MCR_ENGINE_TRTLLM;
	else if (strcmp(r->engine_type, "vllm") == 0)
		r->engine = MCR_ENGINE_VLLM;
	else if (strcmp(r->engine_type, "sglang") == 0)
		r->engine = MCR_ENGINE_SGLANG;
	else
		r->engine = MCR_ENGINE_OTHER;

	r->roles = mcri_map_get(root, "roles");
	if (mcri_is_map(r->roles))
		for (int role = 0; role < MCR_ROLE_COUNT; role++)
			r->role_node[role] = mcri_map_get(r->roles, mcr_role_name((enum mcr_role)role));

	/* the enabled mooncake-master entry (rules/shape.c refuses a second one) */
	services = mcri_map_get(root, "services");
	if (mcri_is_seq(services)) {
		for (size_t i = 0; i < services->n; i++) {
			const struct mcri_node *e = services->items[i];

			if (mcri_is_map(e) && mcri_entry_is_master(e) && mcri_entry_enabled(e) && !r->service)
				r->service = e;
		}
	}
	/* the enabled lenders (rules/lenders.c checks each) */
	if (mcri_is_seq(services)) {
		for (size_t i = 0; i < services->n; i++) {
			const struct mcri_node *e = services->items[i];
			enum mcri_lender_kind kind;
			struct mcri_lender *l;

			if (!mcri_is_map(e) || mcri_entry_lender_kind(e, &kind) || !mcri_entry_enabled(e))
				continue;
			if (!(l = realloc(r->lenders, (r->nlenders + 1) * sizeof(*l))))
				return mcri_error_nomem(err);
			r->lenders = l;
			l = &r->lenders[r->nlenders++];
			memset(l, 0, sizeof(*l));
			l->entry = e;
			l->name = mcri_is_str(mcri_map_get(e, "name")) ? mcri_map_get(e, "name")->s : "";
			l->kind = kind;
		}
	}
	r->kv_block = mcri_map_get(r->engine_node, "mooncake_kv_store");
	if (r->kv_block && r->kv_block->type == MCRI_T_NULL)
		r->kv_block = NULL;

	if (r->service) {
		const struct mcri_node *options = mcri_map_get(r->service, "options");
		const struct mcri_node *sc = mcri_map_get(options, "store_config");
		const struct mcri_node *ext = mcri_map_get(r->service, "external");

		const struct mcri_node *name = mcri_map_get(r->service, "name");

		r->has_master = true;
		if (mcri_truthy(sc))
			r->store_config = sc;
		r->store_config_where = mcri_asprintf("services[%s].options.store_config",
						      mcri_is_str(name) ? name->s : "mooncake-master");
		if (!r->store_config_where)
			return mcri_error_nomem(err);
		if (mcri_map_index(options, "device_names_by_gpu") != MCRI_NO_INDEX)
			r->device_names_by_gpu = mcri_map_get(options, "device_names_by_gpu");
		r->master_args = mcri_map_get(r->service, "args");
		r->master_command = mcri_map_get(r->service, "command");
		if (mcri_is_str(ext))
			r->external = ext->s;
	} else if (r->kv_block) {
		r->has_master = true;
		if (mcri_is_map(r->kv_block)) {
			const struct mcri_node *sc = mcri_map_get(r->kv_block, "store_config");

			if (mcri_truthy(sc))
				r->store_config = sc;
			r->store_config_where = strdup("engine.mooncake_kv_store.store_config");
			if (!r->store_config_where)
				return mcri_error_nomem(err);
			r->master_args = mcri_map_get(r->kv_block, "master_extra_args");
			r->device_names_by_gpu = mcri_map_get(r->kv_block, "device_names_by_gpu");
			r->kv_env = mcri_map_get(r->kv_block, "env");
		}
	}

	if (r->engine == MCR_ENGINE_TRTLLM)
		for (int role = 0; role < MCR_ROLE_COUNT; role++)
			if (r->role_node[role] && uses_connector(r->role_node[role]))
				r->connector_modes |= MCRI_ROLE_BIT(role);

	sname = mcri_map_get(r->engine_node, "served_model_name");
	if (mcri_is_str(sname) && sname->s[0]) {
		if (!(r->served_model_name = strdup(sname->s)))
			return mcri_error_nomem(err);
	} else if (model_dir_name(mcri_map_get(root, "model"), &r->served_model_name)) {
		return mcri_error_nomem(err);
	}
	/* where each lender runs, once the roles are known */
	for (size_t i = 0; i < r->nlenders; i++) {
		const struct mcri_node *critical = mcri_map_get(r->lenders[i].entry, "critical");

		r->lenders[i].place = mcri_lender_placement(r, r->lenders[i].entry, &r->lenders[i].roles);
		r->lenders[i].critical = !critical || critical->type == MCRI_T_NULL || mcri_truthy(critical);
	}
	{
		const struct mcri_node *log_dir = mcri_map_get(mcri_map_get(root, "output"), "log_dir");

		if (mcri_is_str(log_dir) && log_dir->s[0])
			r->log_dir = log_dir->s;
	}
	return 0;
}

void mcr_recipe_free(struct mcr_recipe *r)
{
	if (!r)
		return;
	mcri_doc_free(r->doc);
	free(r->served_model_name);
	free(r->store_config_where);
	free(r->lenders);
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r);
}
