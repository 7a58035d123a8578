/*
 * check.c - the toolkit of the rules: refusing at a node, showing values as
 * Python shows them, typo suggestions, and the checks of shapes that recur
 * (an env map, a list of strings, the known fields of a mapping).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules/check.h"

void mcri_check_init(struct mcri_check *v, struct mcr_recipe *r, struct mcr_error *err)
{
	memset(v, 0, sizeof(*v));
	v->r = r;
	v->err = err;
	v->name = r->doc->name;
}

void mcri_check_done(struct mcri_check *v)
{
	for (size_t i = 0; i < v->nshown; i++)
		free(v->shown[i]);
	free(v->shown);
	v->shown = NULL;
	v->nshown = v->cap = 0;
}

int mcri_fail(struct mcri_check *v, const struct mcri_node *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mcri_verr_at(v->err, MCR_EINVAL, v->r->doc, at, fmt, ap);
	va_end(ap);
	return mcri_error_code(v->err, v->rule);
}

void mcri_warn(struct mcri_check *v, const struct mcri_node *at, const char *fmt, ...)
{
	struct mcr_recipe *r = v->r;
	struct mcr_error *w;
	char *line;
	size_t len;
	va_list ap;

	if (r->nwarnings == MCRI_ARRAY_LEN(r->warnings))
		return;
	w = calloc(1, sizeof(*w));
	if (!w)
		return;
	va_start(ap, fmt);
	mcri_verr_at(w, MCR_WARNING, r->doc, at, fmt, ap);
	va_end(ap);
	/* a warning is advice: one that finds no memory is dropped */
	len = mcr_error_format(w, NULL, 0);
	if ((line = malloc(len + 1))) {
		mcr_error_format(w, line, len + 1);
		r->warnings[r->nwarnings++] = line;
	}
	free(w);
}

/* keep heap string s until mcri_check_done(); NULL (s freed) when out of
 * memory */
static const char *keep(struct mcri_check *v, char *s)
{
	if (s && v->nshown == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		char **shown = realloc(v->shown, cap * sizeof(*shown));

		if (!shown) {
			free(s);
			return NULL;
		}
		v->shown = shown;
		v->cap = cap;
	}
	if (s)
		v->shown[v->nshown++] = s;
	return s;
}

const char *mcri_show(struct mcri_check *v, const struct mcri_node *n)
{
	const char *s = keep(v, mcri_repr(n));

	return s ? s : "?";
}

const char *mcri_keepf(struct mcri_check *v, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = mcri_vasprintf(fmt, ap);
	va_end(ap);
	if (!s || !keep(v, s)) {
		mcri_error_nomem(v->err);
		return NULL;
	}
	return s;
}

bool mcri_in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

const char *mcri_entry_name(const struct mcri_node *e)
{
	const struct mcri_node *n = mcri_map_get(e, "name");

	return mcri_is_str(n) ? n->s : "?";
}

/* name with every character a shell name cannot hold replaced by '_' (and
 * '_' before a leading digit): the fix a message suggests */
static const char *env_name_fix(struct mcri_check *v, const char *name)
{
	struct mcri_buf b = { 0 };
	const char *kept;
	char *s;

	if (!*name)
		return "MY_VARIABLE";
	if (*name >= '0' && *name <= '9')
		mcri_buf_puts(&b, "_");
	for (const char *p = name; *p && b.len < 64; p++)
		mcri_buf_add(&b, isalnum((unsigned char)*p) && !(*p & 0x80) ? p : "_", 1);
	s = mcri_buf_take(&b);
	kept = s ? mcri_keepf(v, "%s", s) : NULL;
	free(s);
	return kept ? kept : "MY_VARIABLE";
}

/* E1 and E2 (reference §8): a name a shell can export, a value that keeps
 * a NAME=value line one line and that execve() passes */
const char *const MCRI_PLUGIN_VARS[] = {
	"SLURM_MOONCAKE_",
	"_SLURM_SPANK_OPTION_mooncake_",
	"SLURM_SPANK__SLURM_SPANK_OPTION_mooncake_",
	NULL,
};

/* E4: the variables that carry an address to a Mooncake client (the
 * master's, the metadata server's, the node's own) */
static const char *const ADDRESS_VARS[] = { "MOONCAKE_MASTER",
					    "MOONCAKE_TE_META_DATA_SERVER",
					    "MOONCAKE_LOCAL_HOSTNAME",
					    "MOONCAKE_REQUESTER_LOCAL_HOSTNAME",
					    "VLLM_HOST_IP",
					    "LOCAL_HOSTNAME",
					    NULL };

static int env_rules(struct mcri_check *v, const struct mcri_node *k, const struct mcri_node *val, const char *path)
{
	const char *problem;
	size_t len;

	if (!mcri_env_name_valid(k->s)) {
		mcri_fail(
			v, k,
			"%s: %s is not an environment variable name: use letters, digits and '_', not starting with a digit (e.g. %s)",
			path, mcri_show(v, k), env_name_fix(v, k->s));
		return mcri_error_code(v->err, MCR_E_E1);
	}
	/* E3: the plugin's own variables (its handovers, its options as SPANK
	 * passes them to nested sruns) */
	for (const char *const *own = MCRI_PLUGIN_VARS; *own; own++)
		if (strncmp(k->s, *own, strlen(*own)) == 0) {
			mcri_fail(
				v, k,
				"%s.%s: variables named %s* belong to the plugin (rule E3): set in a task, they would hand a nested srun a forged Mooncake environment or make it start a master step of its own; remove it",
				path, k->s, *own);
			return mcri_error_code(v->err, MCR_E_E3);
		}
	/* E4: a blank address: an engine takes it for none and guesses one */
	if (mcri_in_list(k->s, ADDRESS_VARS)) {
		const char *p = val->s;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p) {
			mcri_fail(
				v, val,
				"%s.%s: %s is blank (rule E4): an engine takes a blank address for none and guesses one (vLLM's store worker the default route's address, SGLang's 'localhost'), or its setup() gets an empty one; remove it%s, or give the address",
				path, k->s, mcri_show(v, val),
				mcri_task_var(k->s) ? " (the plugin gives every task of a role its own value)" : "");
			return mcri_error_code(v->err, MCR_E_E4);
		}
	}
	problem = mcri_env_value_problem(k->s, val->s);
	len = strlen(k->s) + 1 + strlen(val->s);
	if (problem && len > MCRI_ENV_STRING_MAX && strncmp(problem, "more", 4) == 0)
		mcri_fail(
			v, val,
			"%s.%s: %s=<value> is %zu bytes, more than the %u bytes execve() passes in one variable, so the tasks would not start; shorten the value, or put it in a file and pass the file's path",
			path, k->s, k->s, len, MCRI_ENV_STRING_MAX);
	else if (problem)
		mcri_fail(
			v, val,
			"%s.%s: the value %s contains %s, which would break the NAME=value lines an environment is listed in (and could forge other variables there); write the value on one line, without control characters",
			path, k->s, mcri_show(v, val), problem);
	return problem ? mcri_error_code(v->err, MCR_E_E2) : 0;
}

int mcri_check_str_map(struct mcri_check *v, const struct mcri_node *map, const char *path)
{
	if (!map || map->type == MCRI_T_NULL)
		return 0;
	if (map->type != MCRI_T_MAP) {
		return mcri_fail(v, map, "%s: must be a mapping of NAME: \"value\", got %s", path, mcri_show(v, map));
	}
	for (size_t i = 0; i < map->n; i++) {
		const struct mcri_node *k = map->keys[i], *val = map->items[i];

		if (k->type != MCRI_T_STR) {
			return mcri_fail(v, k, "%s: the key %s is not a string; quote it", path, mcri_show(v, k));
		}
		if (val->type != MCRI_T_STR) {
			return mcri_fail(v, val, "%s.%s: Not a valid string: %s; quote the value (e.g. %s: \"%s\")",
					 path, k->s, mcri_show(v, val), k->s,
					 val->type == MCRI_T_BOOL ? (val->b ? "true" : "false") : mcri_show(v, val));
		}
		if (env_rules(v, k, val, path))
			return -1;
	}
	return 0;
}

int mcri_check_str_list(struct mcri_check *v, const struct mcri_node *list, const char *path, bool no_blank)
{
	if (!list || list->type == MCRI_T_NULL)
		return 0;
	if (list->type != MCRI_T_SEQ) {
		return mcri_fail(v, list, "%s: must be a list of strings, got %s", path, mcri_show(v, list));
	}
	for (size_t i = 0; i < list->n; i++) {
		const struct mcri_node *it = list->items[i];

		if (it->type != MCRI_T_STR) {
			return mcri_fail(v, it, "%s[%zu]: Not a valid string: %s; quote it", path, i, mcri_show(v, it));
		}
		if (no_blank) {
			const char *p = it->s;

			while (isspace((unsigned char)*p))
				p++;
			if (!*p)
				return mcri_fail(v, it, "%s[%zu]: is blank; remove the empty entry", path, i);
		}
	}
	return 0;
}

/* words compared for typos are keys: longer ones are never "near" */
#define MAX_WORD 63
#define FAR ((size_t)99)

/* Levenshtein distance; FAR for words longer than MAX_WORD */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[MAX_WORD + 1], cur[MAX_WORD + 1];

	if (la > MAX_WORD - 1 || lb > MAX_WORD - 1)
		return FAR;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

const char *mcri_did_you_mean(const char *word, const char *const *list)
{
	const char *best = NULL;
	size_t bestd = FAR, maxd = strlen(word) <= 4 ? 1 : 2;

	size_t wl = strlen(word);

	for (; *list; list++) {
		size_t ll = strlen(*list), d;

		/* the distance is at least the difference in length */
		if ((wl > ll ? wl - ll : ll - wl) > maxd)
			continue;
		d = distance(word, *list);

		if (d < bestd) {
			bestd = d;
			best = *list;
		}
	}
	return bestd <= maxd ? best : NULL;
}

static int unknown_field(struct mcri_check *v, const struct mcri_node *key, const char *path,
			 const char *const *allowed, const char *hint)
{
	char *k = mcri_key_str(key);
	const char *near = k ? mcri_did_you_mean(k, allowed) : NULL;
	struct mcri_buf b = { 0 };
	char *list;
	int rc;

	for (const char *const *a = allowed; *a; a++)
		mcri_buf_printf(&b, "%s%s", a == allowed ? "" : ", ", *a);
	list = mcri_buf_take(&b);
	if (near)
		rc = mcri_fail(v, key, "%s.%s: Unknown field. Did you mean %s?%s%s", path, k, near, hint ? " " : "",
			       hint ? hint : "");
	else
		rc = mcri_fail(v, key, "%s.%s: Unknown field.%s%s%s Known fields: %s.", path, k ? k : "?",
			       hint ? " " : "", hint ? hint : "", hint ? "." : "", list ? list : "?");
	free(list);
	free(k);
	mcri_error_code(v->err, MCR_E_FIELD);
	return rc;
}

int mcri_check_fields(struct mcri_check *v, const struct mcri_node *map, const char *path, const char *const *allowed,
		      const char *hint)
{
	for (size_t i = 0; mcri_is_map(map) && i < map->n; i++) {
		const struct mcri_node *k = map->keys[i];

		if (k->type != MCRI_T_STR || !mcri_in_list(k->s, allowed))
			return unknown_field(v, k, path, allowed, hint);
	}
	return 0;
}

const struct mcri_node *mcri_arg(const struct mcri_node *args, const char *dashed)
{
	const struct mcri_node *n = mcri_map_get(args, dashed);
	char under[96];

	if (n || strlen(dashed) >= sizeof(under))
		return n;
	for (size_t i = 0; (under[i] = dashed[i] == '-' ? '_' : dashed[i]); i++)
		;
	return mcri_map_get(args, under);
}

bool mcri_sglang_joins_pool(const struct mcri_node *args)
{
	const struct mcri_node *on = mcri_arg(args, "enable-hierarchical-cache");

	/* srtctl passes `true` as the flag; the string "true" reads the same */
	return (on && on->type == MCRI_T_BOOL ? on->b : mcri_is_str(on) && !strcasecmp(on->s, "true")) &&
	       mcri_str_eq(mcri_arg(args, "hicache-storage-backend"), "mooncake");
}

const struct mcri_node *mcri_role_env(const struct mcr_recipe *r, enum mcr_role role, const char *name,
				      const char **where, const char *role_where)
{
	const struct mcri_node *n;

	if ((n = mcri_map_get(r->kv_env, name))) {
		*where = "engine.mooncake_kv_store.env";
		return n;
	}
	if ((n = mcri_map_get(mcri_map_get(r->root, "environment"), name))) {
		*where = "environment";
		return n;
	}
	*where = role_where;
	return mcri_map_get(mcri_map_get(r->role_node[role], "env"), name);
}
