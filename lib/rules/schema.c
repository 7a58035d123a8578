/*
 * schema.c - the first gates (reference §10.2, §10.3): `schema: 2` and no
 * pre-2.0 (v1) keys, then output.log_dir, which names the job's directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/check.h"
#include "sys/sys.h"

#define MIGRATE_HINT "convert it with `srtctl migrate -f %s --in-place`"

/* §10.2 the schema gate and the v1 keys */
int mcri_rules_schema(struct mcri_check *v)
{
	const struct mcri_node *root = v->r->root, *schema;
	static const char *const legacy_top[] = { "backend", "infra", NULL };
	static const struct {
		const char *section;
		const char *const keys[8];
	} legacy[] = {
		{ "frontend", { "orchestrator_placement", "dedicated_node" } },
		{ "benchmark", { "client_placement", "client_dedicated_node" } },
		{ "dynamo", { "version", "hash", "wheel", "cargo_patches" } },
	};
	const struct mcri_node *resources = mcri_map_get(root, "resources");

	schema = mcri_map_get(root, "schema");
	if (mcri_map_index(root, "schema") == MCRI_NO_INDEX)
		return mcri_fail(v, NULL,
				 "the recipe has no `schema:` key, which marks the pre-2.0 layout; " MIGRATE_HINT,
				 v->name);
	if (schema->type != MCRI_T_INT || schema->i != 2) {
		return mcri_fail(v, schema,
				 "schema: %s is not supported; this plugin reads `schema: 2` recipes (" MIGRATE_HINT
				 " to convert an older one)",
				 mcri_show(v, schema), v->name);
	}
	for (const char *const *k = legacy_top; *k; k++) {
		size_t i = mcri_map_index(root, *k);

		if (i != MCRI_NO_INDEX)
			return mcri_fail(v, root->keys[i],
					 "%s: is a pre-2.0 (v1) key; " MIGRATE_HINT
					 " (it moves backend.mooncake_kv_store into a mooncake-master service)",
					 *k, v->name);
	}
	if (mcri_is_map(resources)) {
		for (size_t i = 0; i < resources->n; i++) {
			const struct mcri_node *k = resources->keys[i];

			if (k->type != MCRI_T_STR)
				continue;
			for (int r = 0; r < MCR_ROLE_COUNT; r++) {
				const char *role = mcr_role_name((enum mcr_role)r);
				char a[64], b[64], c[64], d[64];

				snprintf(a, sizeof(a), "%s_nodes", role);
				snprintf(b, sizeof(b), "%s_workers", role);
				snprintf(c, sizeof(c), "gpus_per_%s", role);
				snprintf(d, sizeof(d), "%s_critical", role);
				if (!strcmp(k->s, a) || !strcmp(k->s, b) || !strcmp(k->s, c) || !strcmp(k->s, d))
					return mcri_fail(
						v, k,
						"resources.%s is a pre-2.0 (v1) key; per-role sizes live under roles.%s now; " MIGRATE_HINT,
						k->s, role, v->name);
			}
		}
	}
	for (size_t s = 0; s < MCRI_ARRAY_LEN(legacy); s++) {
		const struct mcri_node *sec = mcri_map_get(root, legacy[s].section);

		for (size_t k = 0; legacy[s].keys[k]; k++) {
			size_t i = mcri_map_index(sec, legacy[s].keys[k]);

			if (i != MCRI_NO_INDEX)
				return mcri_fail(v, sec->keys[i], "%s.%s is a pre-2.0 (v1) key; " MIGRATE_HINT,
						 legacy[s].section, legacy[s].keys[k], v->name);
		}
	}
	return 0;
}

/* §10.3 output.log_dir: the plugin expands its placeholders for every job */
int mcri_rules_log_dir(struct mcri_check *v)
{
	const struct mcri_node *n = mcri_map_get(mcri_map_get(v->r->root, "output"), "log_dir");
	struct mcr_error e = { 0 };
	char *dir;

	if (!n || n->type == MCRI_T_NULL)
		return 0;
	if (!mcri_is_str(n) || !n->s[0]) {
		return mcri_fail(v, n, "output.log_dir: must be a directory path, got %s", mcri_show(v, n));
	}
	if (n->s[0] == '~')
		return mcri_fail(
			v, n,
			"output.log_dir: '%s': ~ is not expanded (the directory would be named ~); write the absolute path, or one relative to the submit directory",
			n->s);
	dir = mcri_expand_dir_template(n->s, "1", "user", "/submit", &e);
	free(dir);
	if (dir)
		return 0;
	if (e.kind != MCR_EINVAL) { /* out of memory */
		*v->err = e;
		return -1;
	}
	return mcri_fail(v, n, "output.log_dir: %s", e.text);
}
