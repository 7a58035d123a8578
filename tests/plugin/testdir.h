/* testdir.h - the plugin tests' scratch directories and files (testdir.c). */
#ifndef MCK_TESTDIR_H_
#define MCK_TESTDIR_H_

#include <stddef.h>

#include "jobdir/jobdir.h"

/* A fresh directory ${TMPDIR:-/tmp}/mck-NAME.XXXXXX in buf (size bytes),
 * made the current directory. */
void testdir_make(char *buf, size_t size, const char *name);
/* Remove it and all it holds (nothing when buf is empty). */
void testdir_remove(const char *buf);
/* path holds exactly text afterwards. */
void testdir_write(const char *path, const char *text);

struct mcri_state;
/* The state file of the job directory `dir` (runtime/jobdir), written and
 * read through the one writer and reader; the result of either. */
int testdir_state_write(const char *dir, const struct mcri_state *st);
int testdir_state_read(const char *dir, struct mcri_state *st);
struct mcri_proof;
/* The master step's proof in `dir`, through the one writer. */
int testdir_proof_write(const char *dir, const struct mcri_proof *p);

#endif
