/*
 * validate.c - the order of the rules. Every load-time rule of
 * doc/recipe-reference.md §10 runs in the order of that page (srtctl's
 * order); the first refusal wins. A newcomer looking for a rule finds its
 * section or id here, and its file in the table's comment.
 */
#include "rules/check.h"
#include "rules/rules.h"

static const struct {
	int (*check)(struct mcri_check *);
	enum mcr_error_code code; /* of its refusals (a stage of several rules
				   * sets each rule's) */
} RULES[] = {
	{ mcri_rules_schema, MCR_E_SCHEMA },       /* §10.2 schema.c */
	{ mcri_rules_log_dir, MCR_E_LOG_DIR },     /* §10.3 schema.c */
	{ mcri_rules_one_master, MCR_E_SHAPE },    /* §10.4 shape.c */
	{ mcri_rules_engine, MCR_E_SHAPE },        /* §10.5, §10.6 shape.c */
	{ mcri_rules_kv_store, MCR_E_SHAPE },      /* §10.6 shape.c */
	{ mcri_rules_services, MCR_E_SHAPE },      /* §10.6 services.c */
	{ mcri_rules_roles, MCR_E_SHAPE },         /* §10.6 shape.c */
	{ mcri_rules_lenders, MCR_E_SHAPE },       /* §10.14 lenders.c */
	{ mcri_rules_c1, MCR_E_C1 },               /* C1 (§10.6) mooncake.c */
	{ mcri_rules_trtllm_no_master, MCR_E_C2 }, /* C2-C4 (§10.7) mooncake.c */
	{ mcri_rules_trtllm_master, MCR_E_C5 },    /* C5-C10 (§10.8, §10.9) mooncake.c */
	{ mcri_rules_c11, MCR_E_C11 },             /* C11 (§10.10) payload.c */
	{ mcri_rules_vllm_sglang, MCR_E_V1 },      /* V1, V2 (§10.11) mooncake.c */
	{ mcri_rules_engine_readers, MCR_E_V3 },   /* V3, S1 (§10.11) engines.c */
	{ mcri_rules_transfer, MCR_E_T1 },         /* T1 (§10.11) transfer.c */
	{ mcri_rules_master_ports, MCR_E_M1 },     /* M1 (§10.12) mooncake.c */
};

int mcri_recipe_validate(struct mcr_recipe *r, struct mcr_error *err)
{
	struct mcri_check v;
	int rc = 0;

	mcri_check_init(&v, r, err);
	for (size_t i = 0; i < MCRI_ARRAY_LEN(RULES) && rc == 0; i++) {
		v.rule = RULES[i].code;
		rc = RULES[i].check(&v);
		/* a refusal of a helper that knows no rule is its stage's */
		if (rc && err && err->code == MCR_E_INVALID)
			err->code = v.rule;
	}
	mcri_check_done(&v);
	return rc;
}

void mcri_recipe_lint(struct mcr_recipe *r)
{
	struct mcri_check v;

	mcri_check_init(&v, r, NULL);
	mcri_rules_lint(&v);
	mcri_check_done(&v);
}
