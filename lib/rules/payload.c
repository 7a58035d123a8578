/*
 * payload.c - C11 (reference §10.10): the client config each TRT-LLM
 * connector role would get, built with a placeholder master address, and
 * checked key by key as TRT-LLM reads it: C11.1 model_key, C11.2 role,
 * C11.3 stage_through_host, C11.4 the sizes, C11.5 transfer_batch_size.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/check.h"
#include "rules/size.h"

/* what srtctl renders before the infra node is known */
#define PLACEHOLDER_MASTER "<infra_ip>:8700"
#define PLACEHOLDER_MODEL_KEY "<model directory name>"

static const char *const CLIENT_ROLES[] = { "both", "producer", "consumer", "capacity", NULL };

/* The refusal of a payload value: "Mooncake client config for roles.<r>:
 * <text> (set at <key path>)". */
static int payload_fail(struct mcri_check *v, enum mcr_role mode, const struct mcri_payload_entry *e, const char *fmt,
			...) __attribute__((format(printf, 4, 5)));

static int payload_fail(struct mcri_check *v, enum mcr_role mode, const struct mcri_payload_entry *e, const char *fmt,
			...)
{
	char *text;
	va_list ap;

	va_start(ap, fmt);
	text = mcri_vasprintf(fmt, ap);
	va_end(ap);
	if (!text)
		return mcri_error_nomem(v->err);
	/* a value of the recipe always has the key path it came from
	 * (layer.c); the defaults (role, model_key) are text, not nodes */
	mcri_fail(v, e->val, "Mooncake client config for roles.%s: %s (set at %s.%s)", mcr_role_name(mode), text,
		  e->src ? e->src : "?", e->key);
	free(text);
	return -1;
}

static bool blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return *s == '\0';
}

/* C11.1: a non-blank string */
static int model_key_rule(struct mcri_check *v, enum mcr_role mode, const struct mcri_payload *p)
{
	const struct mcri_payload_entry *e = mcri_payload_get(p, "model_key");
	const struct mcri_node *sn;

	if (!e)
		return 0;
	if (e->val && (!mcri_is_str(e->val) || blank(e->val->s)))
		return payload_fail(
			v, mode, e,
			"model_key must be a non-empty string, got %s: TRT-LLM keys the pool by it. Leave it unset to use the served model name",
			mcri_show(v, e->val));
	if (e->val || !blank(e->text))
		return 0;
	/* a blank default: name where it came from, engine.served_model_name
	 * or else model.path */
	sn = mcri_map_get(v->r->engine_node, "served_model_name");
	if (mcri_is_str(sn) && sn->s[0])
		return mcri_fail(
			v, sn,
			"engine.served_model_name: '%s' is blank, and it is the pool's model_key (Mooncake client config for roles.%s: model_key must be a non-empty string); set it to the model's name or remove it",
			e->text, mcr_role_name(mode));
	return mcri_fail(
		v, mcri_map_get(mcri_map_get(v->r->root, "model"), "path"),
		"model.path: its last path component '%s' is blank, and it is the pool's model_key (Mooncake client config for roles.%s: model_key must be a non-empty string); set engine.served_model_name, or model_key in the mooncake-master service's options.store_config",
		e->text, mcr_role_name(mode));
}

/* C11.2: lower(trim(str(value))) is a client role */
static int role_rule(struct mcri_check *v, enum mcr_role mode, const struct mcri_payload *p)
{
	const struct mcri_payload_entry *e = mcri_payload_get(p, "role");
	char *s, *t, *end;
	bool ok;

	if (!e || !e->val)
		return 0;
	if (!(s = mcri_pystr(e->val)))
		return mcri_error_nomem(v->err);
	for (t = s; *t; t++)
		*t = (char)tolower((unsigned char)*t);
	for (t = s; isspace((unsigned char)*t); t++)
		;
	end = t + strlen(t);
	while (end > t && isspace((unsigned char)end[-1]))
		*--end = '\0';
	ok = mcri_in_list(t, CLIENT_ROLES);
	free(s);
	if (ok)
		return 0;
	return payload_fail(
		v, mode, e,
		"role must be one of ['both', 'capacity', 'consumer', 'producer'], got %s (prefill and agg default to both, decode to capacity)",
		mcri_show(v, e->val));
}

/* C11.3: not a string (TRT-LLM takes its truthiness) */
static int stage_through_host_rule(struct mcri_check *v, enum mcr_role mode, const struct mcri_payload *p)
{
	const struct mcri_payload_entry *e = mcri_payload_get(p, "stage_through_host");

	if (!e || !e->val || e->val->type != MCRI_T_STR)
		return 0;
	return payload_fail(
		v, mode, e,
		"stage_through_host must be true or false, not the string %s (TRT-LLM takes its truthiness, so the string 'false' would mean true); write true or false unquoted",
		mcri_show(v, e->val));
}

/* C11.4: the sizes, and their minimums */
static const struct {
	const char *key;
	long long min;
} SIZES[] = {
	{ "global_segment_size", 0 },
	{ "local_buffer_size", 1 },
};

static int size_rules(struct mcri_check *v, enum mcr_role mode, const struct mcri_payload *p)
{
	for (size_t k = 0; k < MCRI_ARRAY_LEN(SIZES); k++) {
		const struct mcri_payload_entry *e = mcri_payload_get(p, SIZES[k].key);
		struct mcr_error why = { 0 };
		long long bytes;

		if (!e || !e->val)
			continue;
		if (mcri_size_of_node(SIZES[k].key, e->val, &bytes, &why))
			return payload_fail(v, mode, e, "%s", why.text);
		if (bytes >= SIZES[k].min)
			continue;
		/* an int beyond 64 bits saturated: show its digits */
		if (e->val->type == MCRI_T_INT)
			return payload_fail(v, mode, e, "%s must be at least %lld bytes, got %s", SIZES[k].key,
					    SIZES[k].min, mcri_show(v, e->val));
		return payload_fail(v, mode, e, "%s must be at least %lld bytes, got %lld", SIZES[k].key, SIZES[k].min,
				    bytes);
	}
	return 0;
}

/* C11.5: Python's int() of it is positive (a bool is refused) */
static int transfer_batch_size_rule(struct mcri_check *v, enum mcr_role mode, const struct mcri_payload *p)
{
	const struct mcri_payload_entry *e = mcri_payload_get(p, "transfer_batch_size");
	long long n = 0;

	if (!e || !e->val)
		return 0;
	if (e->val->type == MCRI_T_BOOL || !mcri_py_int(e->val, &n))
		n = 0;
	if (n > 0)
		return 0;
	return payload_fail(v, mode, e, "transfer_batch_size must be a positive integer, got %s", mcri_show(v, e->val));
}

static int payload_rules(struct mcri_check *v, enum mcr_role mode, const struct mcri_payload *p)
{
	if (model_key_rule(v, mode, p) || role_rule(v, mode, p) || stage_through_host_rule(v, mode, p) ||
	    size_rules(v, mode, p) || transfer_batch_size_rule(v, mode, p))
		return -1;
	return 0;
}

/* the payload of one connector role, checked */
static int connector_role(struct mcri_check *v, enum mcr_role mode)
{
	struct mcr_recipe *r = v->r;
	struct mcri_payload p = { 0 };
	bool no_key;
	int rc = -1;

	if (mcri_trtllm_payload(r, mode, PLACEHOLDER_MASTER, &p, v->err))
		goto out;
	/* srtctl validates with a placeholder for the default model_key, so
	 * the payload rules come before "no default" */
	no_key = !mcri_payload_get(&p, "model_key");
	if (no_key && mcri_payload_set(&p, "model_key", NULL, PLACEHOLDER_MODEL_KEY, v->err))
		goto out;
	if (payload_rules(v, mode, &p))
		goto out;
	if (no_key) {
		const struct mcri_node *model = mcri_map_get(r->root, "model");

		mcri_fail(
			v, model ? model : r->root,
			"Mooncake client config for roles.%s: the pool's model_key has no default because the recipe has neither engine.served_model_name nor model.path; set one of them, or model_key in options.store_config",
			mcr_role_name(mode));
		goto out;
	}
	rc = 0;
out:
	mcri_payload_free(&p);
	return rc;
}

int mcri_rules_c11(struct mcri_check *v)
{
	if (v->r->engine != MCR_ENGINE_TRTLLM || !v->r->has_master)
		return 0;
	/* in the order prefill, decode, agg */
	for (int role = 0; role < MCR_ROLE_COUNT; role++)
		if ((v->r->connector_modes & MCRI_ROLE_BIT(role)) && connector_role(v, (enum mcr_role)role))
			return -1;
	return 0;
}
