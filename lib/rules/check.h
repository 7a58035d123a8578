/*
 * check.h - the toolkit of the rules (stage 3, see lib/README.md) and the
 * checks each file of lib/rules/ provides, in the order validate.c runs
 * them. Every check returns 0, or -1 with the first refusal in v->err;
 * each refusal is listed, with its message, in doc/recipe-reference.md §10
 * (rule ids C1-C11, V1, V2, M1 there and in the comments here).
 */
#ifndef MCRI_RULES_CHECK_H_
#define MCRI_RULES_CHECK_H_

#include "model/model.h"

/* One validation of one recipe. */
struct mcri_check {
	struct mcr_recipe *r;
	struct mcr_error *err;
	const char *name; /* the recipe's display name (migration hints) */
	/* the code of a refusal (mcri_fail): the rule being checked (its
	 * stage's, set by validate.c; a stage of several rules sets each) */
	enum mcr_error_code rule;
	char **shown; /* mcri_show(), mcri_keepf() strings, freed by mcri_check_done() */
	size_t nshown, cap;
};

void mcri_check_init(struct mcri_check *v, struct mcr_recipe *r, struct mcr_error *err);
void mcri_check_done(struct mcri_check *v);

/* Refuse the recipe: MCR_EINVAL with code v->rule at the position of `at`
 * (none without it); returns -1, so a rule reads
 * `return mcri_fail(v, at, ...);`. */
int mcri_fail(struct mcri_check *v, const struct mcri_node *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Python's repr of a node for a message, kept until mcri_check_done(), so
 * a refusal reads `mcri_fail(v, at, "... got %s", mcri_show(v, node))`;
 * "?" when out of memory. */
const char *mcri_show(struct mcri_check *v, const struct mcri_node *n);
/* A formatted string (a key path) kept until mcri_check_done(); NULL with
 * v->err set when out of memory. */
const char *mcri_keepf(struct mcri_check *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* `s` is one of the NULL-terminated `list`. */
bool mcri_in_list(const char *s, const char *const *list);
/* The entry of `list` closest to `word` when it is close enough to be a
 * typo of it (at most 2 edits, 1 for words of up to 4 characters), else
 * NULL (reference §10.6, §11). */
const char *mcri_did_you_mean(const char *word, const char *const *list);

/* The prefixes of the plugin's own variables (rule E3). */
extern const char *const MCRI_PLUGIN_VARS[];
/* An env-like map: NAME: "value", strings only; null counts as absent;
 * rules E1, E2 and E3 for each variable. */
int mcri_check_str_map(struct mcri_check *v, const struct mcri_node *map, const char *path);
/* A list of strings (non-blank with `no_blank`); null counts as absent. */
int mcri_check_str_list(struct mcri_check *v, const struct mcri_node *list, const char *path, bool no_blank);
/* Every key of `map` is one of `allowed` (NULL-terminated); otherwise
 * "<path>.<key>: Unknown field." with the field meant or the known ones,
 * and `hint` (may be NULL). */
int mcri_check_fields(struct mcri_check *v, const struct mcri_node *map, const char *path, const char *const *allowed,
		      const char *hint);

/* An engine argument of a role's `args` in either of srtctl's spellings:
 * `dashed` ("enable-hierarchical-cache") or with underscores. */
const struct mcri_node *mcri_arg(const struct mcri_node *args, const char *dashed);
/* SGLang's workers of a role with these `args` are clients of the pool:
 * HiCache (enable-hierarchical-cache: true) with
 * hicache-storage-backend: mooncake. (disaggregation-transfer-backend:
 * mooncake is SGLang's own transfer engine, which never talks to the
 * master.) */
bool mcri_sglang_joins_pool(const struct mcri_node *args);

/* The value of the variable `name` a role's workers get from the recipe
 * (the layer that wins, reference §8: engine.mooncake_kv_store.env, else
 * environment, else the role's env), or NULL; *where is its layer's key
 * path (`role_where` for the role's env). */
const struct mcri_node *mcri_role_env(const struct mcr_recipe *r, enum mcr_role role, const char *name,
				      const char **where, const char *role_where);

/* The name of a services entry for messages ("?" without a string name). */
const char *mcri_entry_name(const struct mcri_node *entry);

/* ---- the checks, in the order of reference §10 ---------------------- */

/* schema.c: §10.2 the schema gate and v1 keys; §10.3 output.log_dir */
int mcri_rules_schema(struct mcri_check *v);
int mcri_rules_log_dir(struct mcri_check *v);
/* shape.c: §10.4 one master; §10.5 the engine's shape and §10.6 its
 * fields; engine.mooncake_kv_store; §10.6 roles */
int mcri_rules_one_master(struct mcri_check *v);
int mcri_rules_engine(struct mcri_check *v);
int mcri_rules_kv_store(struct mcri_check *v);
int mcri_rules_roles(struct mcri_check *v);
/* services.c: §10.6 every services entry */
int mcri_rules_services(struct mcri_check *v);
/* lenders.c: §10.14 the memory lenders (mooncake-store, mooncake-donor) */
int mcri_rules_lenders(struct mcri_check *v);
/* pool.c: C1 (§10.6); C2-C4 (§10.7); C5-C10 (§10.8, §10.9); V1, V2
 * (§10.11); M1 (§10.12) */
int mcri_rules_c1(struct mcri_check *v);
int mcri_rules_trtllm_no_master(struct mcri_check *v);
int mcri_rules_trtllm_master(struct mcri_check *v);
int mcri_rules_vllm_sglang(struct mcri_check *v);
int mcri_rules_master_ports(struct mcri_check *v);
/* readers.c: V3 vLLM's client config, S1 SGLang's environment, as the
 * engines' own readers take them (§10.11) */
int mcri_rules_engine_readers(struct mcri_check *v);
/* transfer.c: T1, the values the engines pass on to Mooncake's setup()
 * are ones Mooncake takes (§10.11) */
int mcri_rules_transfer(struct mcri_check *v);
/* payload.c: C11 (§10.10), the rendered client config of each connector
 * role */
int mcri_rules_c11(struct mcri_check *v);
/* lint.c: §11, warnings on a valid recipe (never refuses) */
void mcri_rules_lint(struct mcri_check *v);
/* A warning at `at` into the recipe's warnings (check.c; dropped when they
 * are full or memory ran out: a warning is advice). */
void mcri_warn(struct mcri_check *v, const struct mcri_node *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* releases.c: §11, where the workers run with other values than the
 * recipe's: the plugin's variables, the releases that disagree, what an
 * engine overrides */
void mcri_rules_releases(struct mcri_check *v);

#endif /* MCRI_RULES_CHECK_H_ */
