/*
 * base.h - what every stage of the library uses: errors, growable strings,
 * small macros. Private (prefix mcri_), within lib/ and for the plugin and
 * the command-line tool (doc/libmooncake_recipe.md).
 *
 * Conventions of the library's private functions, as of its public ones:
 *  - a function that can fail returns int, 0 on success, -1 with `err` set
 *    (out of memory included: MCR_EIO, "out of memory");
 *  - a function that returns a heap pointer returns NULL only when memory
 *    ran out, as malloc does (mcri_buf_take, mcri_repr, ...), unless it
 *    takes an `err`, which it then sets.
 */
#ifndef MCRI_BASE_H_
#define MCRI_BASE_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mooncake_recipe.h"

#define MCRI_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* bit of a role in a set of roles (struct mcr_recipe.connector_modes) */
#define MCRI_ROLE_BIT(role) (1u << (role))

/* a + b, or SIZE_MAX when the sum does not fit (sizes and weights) */
static inline size_t mcri_weight_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* ---- errors (error.c) ---------------------------------------------- */

/* Set every field of err (source NULL: ""); returns -1. */
int mcri_error_vat(struct mcr_error *err, enum mcr_error_kind kind, const char *source, int line, int column,
		   const char *fmt, va_list ap);
/* err at a position (its path is not used); returns -1. */
int mcri_error_at(struct mcr_error *err, enum mcr_error_kind kind, const struct mcr_position *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* err without source or position; returns -1. */
int mcri_error_set(struct mcr_error *err, enum mcr_error_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* MCR_EIO "out of memory" (code MCR_E_NOMEM); returns -1. */
int mcri_error_nomem(struct mcr_error *err);
/* The set error's code said more exactly (the setters above give the
 * kind's: MCR_EINVAL -> MCR_E_INVALID, MCR_EIO -> MCR_E_IO, ...); err may
 * be NULL; returns -1, so `return mcri_error_code(err, MCR_E_YAML);`. */
int mcri_error_code(struct mcr_error *err, enum mcr_error_code code);
/* Fill a position (source NULL: "", path NULL: ""). */
void mcri_position_set(struct mcr_position *at, const char *source, int line, int column, const char *path);
/* A line about the value at `at` that is no error, printed as messages
 * are ("mooncake: <source>:<line>:<column>: <text>") into buf (size bytes,
 * MCR_ERROR_MESSAGE_LENGTH holds any); returns the complete length. */
size_t mcri_note_at(char *buf, size_t size, const struct mcr_position *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- environment variables (names.c; reference §8, E1 and E2) ------ */

/* E1: a name a shell can export: a letter or '_', then letters, digits and
 * '_' ([A-Za-z_][A-Za-z0-9_]*). */
bool mcri_env_name_valid(const char *name);
/* E2: the longest NAME=value string execve() passes (Linux's
 * MAX_ARG_STRLEN, 32 pages, less the NUL). */
#define MCRI_ENV_STRING_MAX 131071u
/* E2: NULL when `value` can be passed safely as the value of `name`: no
 * line break or other control character but tab (a line of
 * `NAME=value` stays one line), and NAME=value at most MCRI_ENV_STRING_MAX
 * bytes; otherwise what is wrong ("a newline", "a carriage return", "a
 * control character", "more bytes than execve() passes"), static. */
const char *mcri_env_value_problem(const char *name, const char *value);

/* ---- the plugin's variables in a role's tasks (taskvars.c; §8) ------- */

/* When the plugin sets a variable: in every task of a role of a recipe with
 * a pool (MCRI_TASK_VAR_POOL), in those of vLLM's roles
 * (MCRI_TASK_VAR_VLLM), in those of the roles that read a client config
 * (MCRI_TASK_VAR_FILE, mcr_recipe_role_reads_config). */
enum mcri_task_var_when { MCRI_TASK_VAR_POOL = 1, MCRI_TASK_VAR_VLLM, MCRI_TASK_VAR_FILE };
struct mcri_task_var {
	const char *name;
	enum mcri_task_var_when when;
	const char *value; /* what the plugin sets it to, for messages */
};
/* Every variable the plugin sets in the tasks of a role; its value always
 * wins over the recipe's (render/env.c sets them last), an image's or an
 * inherited one. Ends with a NULL name. */
extern const struct mcri_task_var MCRI_TASK_VARS[];
/* The entry of `name` in MCRI_TASK_VARS, or NULL when the plugin does not
 * set it. */
const struct mcri_task_var *mcri_task_var(const char *name);

/* ---- strings (str.c) ----------------------------------------------- */

/* The text fmt makes, in a new string the caller frees; NULL when out of
 * memory. */
char *mcri_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same from a va_list (ap is used up). */
char *mcri_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* true when s[0..len-1] is well-formed UTF-8 (no overlong form, no
 * surrogate, nothing above U+10FFFF) */
bool mcri_utf8_valid(const char *s, size_t len);
/* `s` for a message: at most `max` bytes of it into buf (size > max),
 * each byte that is not printable ASCII as '?', so that what another
 * party sent can be quoted without steering a terminal. Returns buf. */
char *mcri_printable(const char *s, size_t max, char *buf, size_t size);

/* A growable string: add to it, then take it. After an allocation failure
 * every add is a no-op and take returns NULL. Zero-initialise it. */
struct mcri_buf {
	char *p;
	size_t len, cap;
	bool oom;
};
void mcri_buf_add(struct mcri_buf *b, const char *s, size_t n);
void mcri_buf_puts(struct mcri_buf *b, const char *s);
void mcri_buf_printf(struct mcri_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The string (caller frees; "" when nothing was added), or NULL after an
 * allocation failure; the buffer is empty again either way. */
char *mcri_buf_take(struct mcri_buf *b);

/* ---- hashing (hash.c) ---------------------------------------------- */

/* The key of a keyed hash: random per document, so that no recipe can make
 * its keys collide (every lookup stays constant time). */
struct mcri_hashkey {
	uint64_t k[2];
};
/* A fresh random key (getrandom; the clock and the process without
 * entropy). Never fails. */
void mcri_hashkey_init(struct mcri_hashkey *hk);
/* SipHash-1-3 of `len` bytes under `hk` (NULL: the all-zero key). */
uint64_t mcri_hash(const struct mcri_hashkey *hk, const void *data, size_t len);

/* An index of positions (0 .. 2^32-2) in the caller's array, by the hash of
 * what is at each position; the caller says what "equal" means. Open
 * addressing, at most half full. Zero-initialise it; free with
 * mcri_index_free. */
struct mcri_index_slot {
	uint32_t pos1; /* position + 1; 0: empty */
	uint32_t hash; /* low bits of its hash */
};
struct mcri_index {
	struct mcri_index_slot *slot;
	size_t mask; /* capacity - 1; 0 before the first add */
	size_t n;
	const struct mcri_hashkey *key; /* the key its users hash with (not used here) */
};
#define MCRI_NOT_FOUND ((size_t)-1)
/* Record that `pos` holds something of hash `hash`; -1 when out of memory
 * (the index is unchanged). */
int mcri_index_add(struct mcri_index *ix, uint64_t hash, size_t pos);
/* The first recorded position of hash `hash` for which eq(ctx, pos) is
 * true, or MCRI_NOT_FOUND. */
size_t mcri_index_find(const struct mcri_index *ix, uint64_t hash, bool (*eq)(const void *ctx, size_t pos),
		       const void *ctx);
void mcri_index_free(struct mcri_index *ix);

#endif /* MCRI_BASE_H_ */
