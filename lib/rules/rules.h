/*
 * rules.h - the rules stage as the load pipeline (lib/load.c) sees it.
 */
#ifndef MCRI_RULES_H_
#define MCRI_RULES_H_

#include "model/model.h"

/* Every load-time rule of doc/recipe-reference.md §10, in its order; the
 * first refusal wins (MCR_EINVAL in err). */
int mcri_recipe_validate(struct mcr_recipe *r, struct mcr_error *err);
/* The warnings of §11 on a valid recipe, into r->warnings. */
void mcri_recipe_lint(struct mcr_recipe *r);

#endif /* MCRI_RULES_H_ */
