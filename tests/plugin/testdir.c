/* testdir.c - see testdir.h */
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobdir/jobdir.h"
#include "testdir.h"

void testdir_make(char *buf, size_t size, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, size, "%s/mck-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	ck_assert_ptr_nonnull(mkdtemp(buf));
	ck_assert_int_eq(chdir(buf), 0);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void testdir_remove(const char *buf)
{
	if (buf[0])
		nftw(buf, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void testdir_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static int with_dir(const char *dir, int (*fn)(struct mcri_jobdir *, void *), void *arg)
{
	struct mcri_jobdir jd;
	struct mcr_error err = { 0 };
	int rc;

	if (mcri_jobdir_open(&jd, dir, getuid(), false, &err))
		return -1;
	rc = fn(&jd, arg);
	mcri_jobdir_close(&jd);
	return rc;
}

static int do_write(struct mcri_jobdir *jd, void *st)
{
	struct mcr_error err = { 0 };

	return mcri_state_write(jd, st, &err);
}

static int do_proof(struct mcri_jobdir *jd, void *p)
{
	struct mcr_error err = { 0 };

	return mcri_proof_write(jd, p, &err);
}

int testdir_proof_write(const char *dir, const struct mcri_proof *p)
{
	return with_dir(dir, do_proof, (void *)p);
}

static int do_read(struct mcri_jobdir *jd, void *st)
{
	struct mcr_error err = { 0 };

	return mcri_state_read(jd, st, &err);
}

int testdir_state_write(const char *dir, const struct mcri_state *st)
{
	return with_dir(dir, do_write, (void *)st);
}

int testdir_state_read(const char *dir, struct mcri_state *st)
{
	return with_dir(dir, do_read, st);
}
