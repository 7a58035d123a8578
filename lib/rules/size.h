/*
 * size.h - the values the rendered-payload rules (C11) convert as TRT-LLM
 * and Python do (reference §9). mcr_parse_size_text is public.
 */
#ifndef MCRI_RULES_SIZE_H_
#define MCRI_RULES_SIZE_H_

#include "model/model.h"

/* TRT-LLM parse_size(strict_units=True) on a node: an int, a finite float
 * (truncated toward zero) or a size string; beyond 64 bits saturated.
 * MCR_EINVAL with the reason (which names `key`) otherwise. */
int mcri_size_of_node(const char *key, const struct mcri_node *n,
		      long long *bytes, struct mcr_error *err);
/* Python int(value) for transfer_batch_size (C11.5), saturated at 64
 * bits; false when the conversion fails. */
bool mcri_py_int(const struct mcri_node *n, long long *out);
/* Python int() of a text (blanks around, a sign, '_' between digits). */
bool mcri_py_int_text(const char *s, long long *out);

/* engines.c: the byte count the recipe's engine makes of a size, a node
 * (a client-config value) or a text (an environment value): TRT-LLM's
 * parse_size (above), vLLM's _parse_size, SGLang's
 * MOONCAKE_GLOBAL_SEGMENT_SIZE. 0, or -1 when the engine refuses it. */
int mcri_engine_size(const struct mcr_recipe *r, const struct mcri_node *n,
		     const char *text, long long *bytes);

#endif /* MCRI_RULES_SIZE_H_ */
