/*
 * recipe.c - the recipe model: which engine, which roles, and the pool
 * (engine.mooncake_kv_store after srtctl's normalization of a declared
 * mooncake-master service, §1.6). Loading ends with mcr_recipe_validate()
 * (validate.c); nothing here prints or touches files but the recipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define MCR_MAX_RECIPE_BYTES (16u << 20)

#define CONNECTOR_MODULE "tensorrt_llm._torch.pyexecutor.connectors.mooncake_store"

bool mcr_entry_is_master(const struct mcr_node *entry)
{
	const struct mcr_node *type = mcr_map_get(entry, "type");

	return mcr_is_str(type) && strcmp(type->s, "mooncake-master") == 0;
}

bool mcr_entry_enabled(const struct mcr_node *entry)
{
	const struct mcr_node *enabled = mcr_map_get(entry, "enabled");

	return !enabled || enabled->type == MCR_T_NULL || mcr_truthy(enabled);
}

/* Connector detection (§1.4): the role's args.kv_connector_config resolves
 * to TRT-LLM's mooncake_store connector module. */
static bool uses_connector(const struct mcr_node *role)
{
	const struct mcr_node *args = mcr_map_get(role, "args");
	const struct mcr_node *kcc = mcr_map_get(args, "kv_connector_config");
	const struct mcr_node *module, *connector;

	if (!mcr_is_map(kcc))
		return false;
	module = mcr_map_get(kcc, "connector_module");
	if (module && module->type != MCR_T_NULL)
		return mcr_is_str(module) && strcmp(module->s, CONNECTOR_MODULE) == 0;
	connector = mcr_map_get(kcc, "connector");
	return mcr_is_str(connector) && strcmp(connector->s, "mooncake-store") == 0;
}

/* Last path component of model.path (hf:org/name -> name), as srtctl's
 * runtime.model_path.name. */
static char *model_dir_name(const struct mcr_node *model)
{
	const struct mcr_node *path = mcr_map_get(model, "path");
	const char *p, *slash;
	size_t len;

	if (!mcr_is_str(path) || !path->s[0])
		return NULL;
	p = path->s;
	if (strncmp(p, "hf:", 3) == 0)
		p += 3;
	len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		len--;
	for (slash = p + len; slash > p && slash[-1] != '/'; slash--)
		;
	return strndup(slash, len - (size_t)(slash - p));
}

int mcr_recipe_build(struct mcr_doc *doc, struct mcr_recipe *r,
		     struct mcr_error *err)
{
	const struct mcr_node *root = doc->root, *engine, *services, *sname;

	memset(r, 0, sizeof(*r));
	r->doc = doc;
	if (!root)
		return mcr_err_at(err, MCR_EINVAL, doc, NULL,
				  "the recipe is empty; write at least `schema: 2`, an engine, roles and a mooncake-master service");
	if (root->type != MCR_T_MAP)
		return mcr_err_at(err, MCR_EINVAL, doc, root,
				  "the recipe must be a mapping of keys (schema:, engine:, roles:, services:), not a single value or list");
	r->root = root;

	/* engine: a type string or a mapping with `type` (omitted = SGLang) */
	engine = mcr_map_get(root, "engine");
	/* a malformed engine is reported by validation, after the schema gate */
	r->engine_type = "sglang";
	if (engine && engine->type == MCR_T_STR) {
		r->engine_type = engine->s;
	} else if (mcr_is_map(engine)) {
		const struct mcr_node *type = mcr_map_get(engine, "type");

		r->engine_node = engine;
		r->engine_type = mcr_is_str(type) ? type->s : "";
	} else if (engine && engine->type != MCR_T_NULL) {
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

	r->roles = mcr_map_get(root, "roles");
	if (mcr_is_map(r->roles))
		for (int role = 0; role < MCR_ROLE_COUNT; role++)
			r->role_node[role] = mcr_map_get(
				r->roles, mcr_role_name((enum mcr_role)role));

	/* the enabled mooncake-master entry (validate.c refuses a second one) */
	services = mcr_map_get(root, "services");
	if (mcr_is_seq(services)) {
		for (size_t i = 0; i < services->n; i++) {
			const struct mcr_node *e = services->items[i];

			if (mcr_is_map(e) && mcr_entry_is_master(e) &&
			    mcr_entry_enabled(e) && !r->service)
				r->service = e;
		}
	}
	r->kv_block = mcr_map_get(r->engine_node, "mooncake_kv_store");
	if (r->kv_block && r->kv_block->type == MCR_T_NULL)
		r->kv_block = NULL;

	if (r->service) {
		const struct mcr_node *options = mcr_map_get(r->service, "options");
		const struct mcr_node *sc = mcr_map_get(options, "store_config");
		const struct mcr_node *ext = mcr_map_get(r->service, "external");

		r->has_master = true;
		if (mcr_truthy(sc))
			r->store_config = sc;
		{
			const struct mcr_node *name = mcr_map_get(r->service, "name");

			snprintf(r->store_config_where, sizeof(r->store_config_where),
				 "services[%s].options.store_config",
				 mcr_is_str(name) ? name->s : "mooncake-master");
		}
		if (mcr_map_index(options, "device_names_by_gpu") != (size_t)-1)
			r->device_names_by_gpu = mcr_map_get(options, "device_names_by_gpu");
		r->master_args = mcr_map_get(r->service, "args");
		r->master_command = mcr_map_get(r->service, "command");
		if (mcr_is_str(ext))
			r->external = ext->s;
	} else if (r->kv_block) {
		r->has_master = true;
		if (mcr_is_map(r->kv_block)) {
			const struct mcr_node *sc = mcr_map_get(r->kv_block, "store_config");

			if (mcr_truthy(sc))
				r->store_config = sc;
			snprintf(r->store_config_where, sizeof(r->store_config_where),
				 "engine.mooncake_kv_store.store_config");
			r->master_args = mcr_map_get(r->kv_block, "master_extra_args");
			r->device_names_by_gpu = mcr_map_get(r->kv_block, "device_names_by_gpu");
			r->kv_env = mcr_map_get(r->kv_block, "env");
		}
	}

	if (r->engine == MCR_ENGINE_TRTLLM)
		for (int role = 0; role < MCR_ROLE_COUNT; role++)
			if (r->role_node[role] && uses_connector(r->role_node[role]))
				r->connector_modes |= MCR_ROLE_BIT(role);

	sname = mcr_map_get(r->engine_node, "served_model_name");
	if (mcr_is_str(sname) && sname->s[0])
		r->served_model_name = strdup(sname->s);
	else
		r->served_model_name = model_dir_name(mcr_map_get(root, "model"));
	{
		const struct mcr_node *log_dir =
			mcr_map_get(mcr_map_get(root, "output"), "log_dir");

		if (mcr_is_str(log_dir) && log_dir->s[0])
			r->log_dir = log_dir->s;
	}
	return 0;
}

static int load(const char *text, size_t len, const char *name,
		struct mcr_recipe **out, struct mcr_error *err)
{
	struct mcr_doc *doc = NULL;
	struct mcr_recipe *r;

	*out = NULL;
	if (mcr_doc_parse(text, len, name, &doc, err))
		return -1;
	r = calloc(1, sizeof(*r));
	if (!r) {
		mcr_doc_free(doc);
		return mcr_err_nomem(err);
	}
	if (mcr_recipe_build(doc, r, err) || mcr_recipe_validate(r, err)) {
		r->doc = doc;
		mcr_recipe_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

int mcr_recipe_load_buffer(const char *text, size_t len,
			   const char *display_name, struct mcr_recipe **out,
			   struct mcr_error *err)
{
	return load(text, len, display_name ? display_name : "recipe", out, err);
}

int mcr_recipe_load_file(const char *path, const char *display_name,
			 struct mcr_recipe **out, struct mcr_error *err)
{
	const char *name = display_name ? display_name : path;
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int fd, rc = -1;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;
		char cwd[PATH_MAX] = "";

		/* a relative path: say where it was looked for */
		if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
			return mcr_error_set(err, MCR_EIO,
					     "cannot read the recipe %s (relative to %s): %s; check the recipe's path",
					     name, cwd, strerror(e));
		return mcr_error_set(err, MCR_EIO, "cannot read the recipe %s: %s; check the recipe's path",
				     name, strerror(e));
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		mcr_error_set(err, MCR_EIO,
			      "the recipe %s is not a regular file; give the path of a YAML file",
			      name);
		goto out;
	}
	if ((unsigned long long)st.st_size > MCR_MAX_RECIPE_BYTES) {
		mcr_error_set(err, MCR_EIO,
			      "the recipe %s is larger than %u MiB; a recipe is a small YAML file",
			      name, MCR_MAX_RECIPE_BYTES >> 20);
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		mcr_err_nomem(err);
		goto out;
	}
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, text + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			mcr_error_set(err, MCR_EIO, "cannot read the recipe %s: %s",
				      name, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	text[len] = '\0';
	rc = load(text, len, name, out, err);
out:
	free(text);
	close(fd);
	return rc;
}

void mcr_recipe_free(struct mcr_recipe *r)
{
	if (!r)
		return;
	mcr_doc_free(r->doc);
	free(r->served_model_name);
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r);
}

size_t mcr_recipe_warning_count(const struct mcr_recipe *r)
{
	return r->nwarnings;
}

const char *mcr_recipe_warning(const struct mcr_recipe *r, size_t i)
{
	return i < r->nwarnings ? r->warnings[i] : NULL;
}

enum mcr_engine mcr_recipe_engine(const struct mcr_recipe *r)
{
	return r->engine;
}

bool mcr_recipe_has_master(const struct mcr_recipe *r)
{
	return r->has_master;
}

const char *mcr_recipe_external_master(const struct mcr_recipe *r)
{
	return r->has_master ? r->external : NULL;
}

bool mcr_recipe_has_role(const struct mcr_recipe *r, enum mcr_role role)
{
	return role >= 0 && role < MCR_ROLE_COUNT && r->role_node[role] != NULL;
}

bool mcr_recipe_role_reads_config(const struct mcr_recipe *r, enum mcr_role role)
{
	if (!r->has_master || !mcr_recipe_has_role(r, role))
		return false;
	if (r->engine == MCR_ENGINE_TRTLLM)
		return (r->connector_modes & MCR_ROLE_BIT(role)) != 0;
	return r->engine == MCR_ENGINE_VLLM;
}

bool mcr_recipe_per_gpu_configs(const struct mcr_recipe *r)
{
	return r->has_master && r->engine == MCR_ENGINE_VLLM &&
	       mcr_is_seq(r->device_names_by_gpu) && r->device_names_by_gpu->n > 0;
}

int mcr_recipe_ready_timeout(const struct mcr_recipe *r)
{
	const struct mcr_node *t = mcr_map_get(mcr_map_get(r->service, "readiness"),
					       "timeout_seconds");

	if (t && t->type == MCR_T_INT && t->i > 0)
		return t->i > 86400 ? 86400 : (int)t->i;
	if (t && t->type == MCR_T_FLOAT && t->f > 0)
		return t->f > 86400 ? 86400 : (int)ceil(t->f);
	return 0;
}

const char *mcr_recipe_log_dir(const struct mcr_recipe *r)
{
	return r->log_dir;
}

char *mcr_recipe_role_list(const struct mcr_recipe *r)
{
	struct mcr_buf b = { 0 };

	for (int role = 0; role < MCR_ROLE_COUNT; role++) {
		if (!r->role_node[role])
			continue;
		if (b.len)
			mcr_buf_puts(&b, ", ");
		mcr_buf_puts(&b, mcr_role_name((enum mcr_role)role));
	}
	if (!b.len)
		mcr_buf_puts(&b, "(none)");
	return mcr_buf_take(&b);
}

int mcr_recipe_resolve_role(const struct mcr_recipe *r, const char *requested,
			    bool inherited, enum mcr_role *role,
			    struct mcr_error *err)
{
	char *list = mcr_recipe_role_list(r);
	int count = 0, rc = -1;
	enum mcr_role only = MCR_ROLE_NONE;

	*role = MCR_ROLE_NONE;
	if (!list)
		return mcr_err_nomem(err);
	for (int i = 0; i < MCR_ROLE_COUNT; i++)
		if (r->role_node[i]) {
			count++;
			only = (enum mcr_role)i;
		}
	if (requested) {
		enum mcr_role want = mcr_role_from_name(requested);

		if (want == MCR_ROLE_NONE) {
			mcr_err_at(err, MCR_EINVAL, r->doc, NULL,
				   "--mooncake-role=%s is not a role; use one of the recipe's roles: %s",
				   requested, list);
			goto out;
		}
		if (!r->role_node[want]) {
			mcr_err_at(err, MCR_EINVAL, r->doc, r->roles,
				   "--mooncake-role=%s: the recipe has no roles.%s; its roles are %s",
				   requested, requested, list);
			goto out;
		}
		*role = want;
		rc = 0;
		goto out;
	}
	if (inherited) {
		rc = 0; /* a helper step of the job script: it gets nothing */
		goto out;
	}
	if (count == 1) {
		*role = only;
		rc = 0;
		goto out;
	}
	if (count)
		mcr_err_at(err, MCR_EINVAL, r->doc, r->roles,
			   "the recipe has several roles (%s): say which one this srun runs with --mooncake-role=ROLE",
			   list);
	else
		mcr_err_at(err, MCR_EINVAL, r->doc, r->roles,
			   "the recipe declares no roles: add roles.prefill, roles.decode or roles.agg");
out:
	free(list);
	return rc;
}
