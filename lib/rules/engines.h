/*
 * engines.h - sizes as each engine's own reader reads them (engines.c)
 * and the rules that follow those readers (readers.c: V3, S1).
 */
#ifndef MCRI_RULES_ENGINES_H_
#define MCRI_RULES_ENGINES_H_

#include "model/model.h"

/* vLLM's _parse_size(): of a client-config value (a bool is refused: vLLM
 * would read `true` as 1 byte) or of a text. 0 with *bytes (saturated at
 * 64 bits), or -1 when vLLM refuses it. */
int mcri_vllm_size(const struct mcri_node *n, long long *bytes);
int mcri_vllm_size_text(const char *text, long long *bytes);
/* SGLang's MOONCAKE_GLOBAL_SEGMENT_SIZE: int(), or int() of "<n>gb" x
 * 1024^3 (saturated). 0, or -1 when SGLang raises. */
int mcri_sglang_size_text(const char *text, long long *bytes);
/* The wheel's Mooncake Store service (mooncake_config.py's
 * _parse_segment_size, MOONCAKE_GLOBAL_SEGMENT_SIZE and
 * MOONCAKE_LOCAL_BUFFER_SIZE of a mooncake-store lender): stripped and
 * lowered, a number with kb, mb, gb, tb, k, m, g, t or b (each a power of
 * 1024, 'b' bytes), or a number of bytes; int(float(...)) of it, so
 * "1.5g" is 1610612736 and 'GiB' is refused. 0 with *bytes (saturated),
 * or -1 when the service would raise (hex, inf, nan and '_' too, which
 * Python's float reads differently or not at all). */
int mcri_store_size_text(const char *text, long long *bytes);
/* The byte count the recipe's engine makes of a size: a node (a
 * client-config value) or a text (an environment value); TRT-LLM's is
 * parse_size(strict_units=True) (size.c). 0, or -1 when the engine
 * refuses it (or both are NULL). */
int mcri_engine_size(const struct mcr_recipe *r, const struct mcri_node *n, const char *text, long long *bytes);
/* For a size `engine` (vLLM or SGLang) refuses: "; write 'X' (N bytes to
 * vLLM)", a spelling it reads as the bytes the text meant (every unit a
 * power of 1024), checked by reading it back; "" when there is none. */
void mcri_size_suggestion(enum mcr_engine engine, const char *text, char *out, size_t size);

#endif /* MCRI_RULES_ENGINES_H_ */
