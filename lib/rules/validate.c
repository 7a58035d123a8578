/*
 * validate.c - the order of the rules. Every load-time rule of
 * doc/recipe-reference.md §10 runs in the order of that page (srtctl's
 * order); the first refusal wins. A newcomer looking for a rule finds its
 * section or id here, and its file in the table's comment.
 */
#include "rules/check.h"
#include "rules/rules.h"

static int (*const RULES[])(struct mcri_check *) = {
	mcri_rules_schema,           /* §10.2 schema.c */
	mcri_rules_log_dir,          /* §10.3 schema.c */
	mcri_rules_one_master,       /* §10.4 shape.c */
	mcri_rules_engine,           /* §10.5, §10.6 shape.c */
	mcri_rules_kv_store,         /* §10.6 shape.c */
	mcri_rules_services,         /* §10.6 services.c */
	mcri_rules_roles,            /* §10.6 shape.c */
	mcri_rules_c1,               /* C1 (§10.6) pool.c */
	mcri_rules_trtllm_no_master, /* C2-C4 (§10.7) pool.c */
	mcri_rules_trtllm_master,    /* C5-C10 (§10.8, §10.9) pool.c */
	mcri_rules_c11,              /* C11 (§10.10) payload.c */
	mcri_rules_vllm_sglang,      /* V1, V2 (§10.11) pool.c */
	mcri_rules_engine_readers,   /* V3, S1 (§10.11) engines.c */
	mcri_rules_master_ports,     /* M1 (§10.12) pool.c */
};

int mcri_recipe_validate(struct mcr_recipe *r, struct mcr_error *err)
{
	struct mcri_check v;
	int rc = 0;

	mcri_check_init(&v, r, err);
	for (size_t i = 0; i < MCRI_ARRAY_LEN(RULES) && rc == 0; i++)
		rc = RULES[i](&v);
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
