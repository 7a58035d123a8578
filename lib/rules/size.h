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
int mcri_size_of_node(const char *key, const struct mcri_node *n, long long *bytes, struct mcr_error *err);
/* Python int(value) for transfer_batch_size (C11.5), saturated at 64
 * bits; false when the conversion fails. */
bool mcri_py_int(const struct mcri_node *n, long long *out);
/* Python's str.strip() whitespace, for ASCII text. */
bool mcri_py_space(char c);
/* Python int(float) of v, saturated at 64 bits. */
long long mcri_trunc_ll(double v);
/* Python int() of a text (blanks around, a sign, '_' between digits),
 * saturated at 64 bits (LLONG_MIN, LLONG_MAX: as large or larger). */
bool mcri_py_int_text(const char *s, long long *out);

#endif /* MCRI_RULES_SIZE_H_ */
