/*
 * services.c - every entry of `services`, enabled or not (reference §5,
 * refusals in §10.6): its name, fields, kind, and the fields whose values
 * are checked (external, command, args, env, options, placement, start,
 * readiness).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/check.h"
#include "sys/sys.h"

static const char *const SERVICE_FIELDS[] = { "name",
					      "type",
					      "enabled",
					      "external",
					      "command",
					      "args",
					      "container",
					      "env",
					      "options",
					      "placement",
					      "nodes",
					      "start",
					      "readiness",
					      "inherit_discovery_env",
					      "critical",
					      "terminal",
					      "preamble",
					      "cpus_per_task",
					      "cpu_bind",
					      "srun_options",
					      "source",
					      "build_command",
					      "build_timeout_seconds",
					      "metrics",
					      NULL };
/* the kinds that may be external or run on a dedicated node */
static const char *const INFRA_KINDS[] = { "etcd", "nats", "mooncake-master", NULL };
static const char *const PLACEMENT_FIELDS[] = { "node", "pool", "per", NULL };
static const char *const PLACEMENT_NODES[] = { "head", "infra",   "dedicated", "prefill", "decode",
					       "agg",  "workers", "compute",   "all",     NULL };
static const char *const STARTS[] = { "infra", "before_workers", "after_frontend", NULL };
static const char *const PROBES[] = { "port", "tcp", "http", "log", NULL };
static const char *const READINESS_NUMBERS[] = { "timeout_seconds", "interval_seconds", NULL };
/* the kinds that lend their memory to the job's pool (srtctl's
 * mooncake-store and, for TRT-LLM, mooncake-donor) */
static const char *const LENDER_KINDS[] = { "mooncake-store", "mooncake-donor", NULL };
/* what `options` of a mooncake-master may hold */
static const char *const MASTER_OPTIONS[] = { "store_config", "device_names_by_gpu", NULL };

/* One entry being checked. */
struct entry {
	const struct mcri_node *e;
	const char *path; /* "services[<name>]" */
	const char *kind; /* type, "generic" by default */
	bool master;
	bool lender; /* mooncake-store, mooncake-donor (lenders.c) */
};

/* "<path>.<field>", for the toolkit's checks */
static int sub_path(struct mcri_check *v, const struct entry *s, const char *field, const char **out)
{
	*out = mcri_keepf(v, "%s.%s", s->path, field);
	return *out ? 0 : -1;
}

static int check_external(struct mcri_check *v, const struct entry *s)
{
	const struct mcri_node *n = mcri_map_get(s->e, "external");
	struct mcr_error ignored;

	if (!n || n->type == MCRI_T_NULL)
		return 0;
	if (!mcri_is_str(n) || !n->s[0])
		return mcri_fail(v, n, "%s.external: must be a non-empty \"host:port\" string, got %s", s->path,
				 mcri_show(v, n));
	if (!mcri_in_list(s->kind, INFRA_KINDS))
		return mcri_fail(
			v, n,
			"%s.external: type '%s' cannot be external (only etcd, nats and mooncake-master can); remove external",
			s->path, s->kind);
	if (s->master && mcri_host_port_parse(n->s, NULL, NULL, &ignored))
		return mcri_fail(
			v, n, "%s.external: '%s' is not host:port; write the master's RPC address, e.g. 10.0.0.5:8700",
			s->path, n->s);
	return 0;
}

static int check_command_args_env(struct mcri_check *v, const struct entry *s)
{
	const struct mcri_node *n = mcri_map_get(s->e, "command");
	const char *path;

	if (n && n->type != MCRI_T_NULL) {
		if (sub_path(v, s, "command", &path) || mcri_check_str_list(v, n, path, false))
			return -1;
		if (n->n == 0)
			return mcri_fail(v, n, "%s.command: must not be empty; remove it to use the default command",
					 s->path);
	}
	if (sub_path(v, s, "args", &path) || mcri_check_str_list(v, mcri_map_get(s->e, "args"), path, true) ||
	    sub_path(v, s, "env", &path) || mcri_check_str_map(v, mcri_map_get(s->e, "env"), path))
		return -1;
	return 0;
}

static int check_options(struct mcri_check *v, const struct entry *s)
{
	const struct mcri_node *n = mcri_map_get(s->e, "options"), *first = NULL;
	struct mcri_buf b = { 0 };
	char *keys;
	int rc;

	if (!n || n->type == MCRI_T_NULL)
		return 0;
	if (!mcri_is_map(n))
		return mcri_fail(v, n, "%s.options: must be a mapping, got %s", s->path, mcri_show(v, n));
	if (!s->master)
		return 0;
	/* every key a master does not understand, in recipe order */
	for (size_t i = 0; i < n->n; i++) {
		const struct mcri_node *k = n->keys[i];
		char *ks;

		if (k->type == MCRI_T_STR && mcri_in_list(k->s, MASTER_OPTIONS))
			continue;
		if (!first)
			first = k;
		else
			mcri_buf_puts(&b, ", ");
		ks = mcri_key_str(k);
		mcri_buf_puts(&b, ks ? ks : "?");
		free(ks);
	}
	keys = mcri_buf_take(&b);
	if (!first) {
		free(keys);
		return 0;
	}
	rc = mcri_fail(
		v, first,
		"%s.options has keys type 'mooncake-master' does not understand: %s; it takes store_config (and device_names_by_gpu for vLLM)",
		s->path, keys ? keys : "?");
	free(keys);
	return rc;
}

static int check_placement(struct mcri_check *v, const struct entry *s)
{
	const struct mcri_node *n = mcri_map_get(s->e, "placement"), *node, *per;
	const char *path;

	if (!n || n->type == MCRI_T_NULL)
		return 0;
	if (!mcri_is_map(n))
		return mcri_fail(v, n, "%s.placement: must be a mapping (node, pool, per)", s->path);
	if (sub_path(v, s, "placement", &path) ||
	    mcri_check_fields(v, n, path, PLACEMENT_FIELDS, "placement takes node, pool and per"))
		return -1;
	node = mcri_map_get(n, "node");
	per = mcri_map_get(n, "per");
	if (node && !(mcri_is_str(node) && mcri_in_list(node->s, PLACEMENT_NODES)))
		return mcri_fail(
			v, node,
			"%s.placement.node: %s is not a placement; use one of head, infra, dedicated, prefill, decode, agg, workers, compute, all",
			s->path, mcri_show(v, node));
	if (per && !(mcri_str_eq(per, "node") || mcri_str_eq(per, "worker")))
		return mcri_fail(v, per, "%s.placement.per: %s must be node or worker", s->path, mcri_show(v, per));
	if (node && mcri_str_eq(node, "dedicated") && !mcri_in_list(s->kind, INFRA_KINDS))
		return mcri_fail(
			v, node,
			"%s.placement.node: type '%s' cannot run on a dedicated node (only etcd, nats and mooncake-master can)",
			s->path, s->kind);
	if (s->master && node && !mcri_str_eq(node, "infra") && !mcri_str_eq(node, "dedicated"))
		return mcri_fail(
			v, node,
			"%s.placement.node: '%s' is not supported for the master: workers are always pointed at the infra node (the job's first node); use infra (the default) or dedicated",
			s->path, node->s);
	return 0;
}

static int check_start_readiness(struct mcri_check *v, const struct entry *s)
{
	const struct mcri_node *n = mcri_map_get(s->e, "start");
	int probes_set = 0;

	if (n && !(mcri_is_str(n) && mcri_in_list(n->s, STARTS)))
		return mcri_fail(v, n, "%s.start: %s must be one of infra, before_workers, after_frontend", s->path,
				 mcri_show(v, n));
	n = mcri_map_get(s->e, "readiness");
	if (!n || n->type == MCRI_T_NULL)
		return 0;
	if (!mcri_is_map(n))
		return mcri_fail(v, n, "%s.readiness: must be a mapping with one of port, tcp, http, log", s->path);
	for (const char *const *p = PROBES; *p; p++)
		probes_set += mcri_map_index(n, *p) != MCRI_NO_INDEX;
	/* a lender is proved ready by the plugin itself: its bound only */
	if (s->lender && probes_set)
		return mcri_fail(
			v, n,
			"%s.readiness: a probe of its own is not run by this plugin for a lender: it proves a store ready by its segment mounted at the job's master, a donor by its ready file; keep timeout_seconds only",
			s->path);
	if (probes_set != 1 && !s->lender)
		return mcri_fail(v, n, "%s.readiness: set exactly one of port, tcp, http, log (found %d)", s->path,
				 probes_set);
	for (const char *const *t = READINESS_NUMBERS; *t; t++) {
		const struct mcri_node *x = mcri_map_get(n, *t);

		if (x && !((x->type == MCRI_T_INT && x->i > 0) || (x->type == MCRI_T_FLOAT && x->f > 0)))
			return mcri_fail(v, x, "%s.readiness.%s: must be a number greater than 0, got %s", s->path, *t,
					 mcri_show(v, x));
	}
	return 0;
}

/* the names of the entries checked so far, by hash */
struct names {
	const struct mcri_node *services;
	struct mcri_index ix;
	const char *name; /* the one looked up */
};

static bool name_eq(const void *ctx, size_t pos)
{
	const struct names *nm = ctx;

	return mcri_str_eq(mcri_map_get(nm->services->items[pos], "name"), nm->name);
}

/* name (unique, non-empty), fields, kind, enabled */
static int check_identity(struct mcri_check *v, const struct mcri_node *services, size_t idx, struct names *names,
			  struct entry *s)
{
	const struct mcri_node *e = services->items[idx], *name, *type, *n;

	if (!mcri_is_map(e))
		return mcri_fail(v, e, "services[%zu]: must be a mapping with name and type, got %s", idx,
				 mcri_show(v, e));
	name = mcri_map_get(e, "name");
	if (!mcri_is_str(name) || !name->s[0])
		return mcri_fail(v, name ? name : e, "services[%zu].name: every service needs a non-empty name, got %s",
				 idx, name ? mcri_show(v, name) : "nothing");
	s->e = e;
	if (!(s->path = mcri_keepf(v, "services[%s]", name->s)))
		return -1;
	{
		uint64_t h = mcri_hash(names->ix.key, name->s, strlen(name->s));

		names->name = name->s;
		if (mcri_index_find(&names->ix, h, name_eq, names) != MCRI_NOT_FOUND)
			return mcri_fail(v, name,
					 "%s: the name '%s' is used by another service too; names must be unique",
					 s->path, name->s);
		if (mcri_index_add(&names->ix, h, idx))
			return mcri_error_nomem(v->err);
	}
	if (mcri_check_fields(v, e, s->path, SERVICE_FIELDS, NULL))
		return -1;
	type = mcri_map_get(e, "type");
	if (type && !mcri_is_str(type))
		return mcri_fail(v, type, "%s.type: must be a service kind such as mooncake-master, got %s", s->path,
				 mcri_show(v, type));
	s->kind = type ? type->s : "generic";
	s->master = strcmp(s->kind, "mooncake-master") == 0;
	if (strstr(s->kind, "ooncake") && !s->master && !mcri_in_list(s->kind, LENDER_KINDS))
		return mcri_fail(
			v, type,
			"%s.type: '%s' is not a service kind; the pool's master is `type: mooncake-master`, its memory lenders `mooncake-store` and `mooncake-donor`",
			s->path, s->kind);
	n = mcri_map_get(e, "enabled");
	if (n && n->type != MCRI_T_BOOL)
		return mcri_fail(v, n, "%s.enabled: Not a valid boolean: %s; write true or false", s->path,
				 mcri_show(v, n));
	s->lender = mcri_in_list(s->kind, LENDER_KINDS);
	return 0;
}

int mcri_rules_services(struct mcri_check *v)
{
	const struct mcri_node *services = mcri_map_get(v->r->root, "services");
	struct names names = { services, { .key = &v->r->doc->hashkey }, NULL };
	int rc = 0;

	for (size_t i = 0; rc == 0 && mcri_is_seq(services) && i < services->n; i++) {
		struct entry s = { 0 };

		if (check_identity(v, services, i, &names, &s) || check_external(v, &s) ||
		    check_command_args_env(v, &s) || check_options(v, &s) || check_placement(v, &s) ||
		    check_start_readiness(v, &s))
			rc = -1;
	}
	mcri_index_free(&names.ix);
	return rc;
}
