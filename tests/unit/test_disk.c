/* test_disk.c - the files the library writes: a directory made or refused,
 * a write set all or nothing, a link planted in its way, a write onto a
 * directory. */
#include <dirent.h>
#include <unistd.h>

#include "testutil.h"

START_TEST(test_mkdir_empty_path)
{
	struct mcr_error err = { 0 };

	ck_assert_int_eq(mcri_mkdir_p("", 0755, &err), -1);
	ck_assert_str_eq(errmsg(&err),
			 "mooncake: the directory to create is an empty path; name a directory (e.g. ./out)");
}
END_TEST

static char *read_file(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return slurp(path);
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* a hard link planted where the temporary file used to be (a predictable
 * name) is not written through */
START_TEST(test_planted_link)
{
	char dir[] = "/tmp/mck-plant.XXXXXX", victim[256], plant[256];
	struct mcr_error err = { 0 };
	char *t;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	f = fopen(victim, "w");
	fputs("precious", f);
	fclose(f);
	snprintf(plant, sizeof(plant), "%s/.f.json.tmp.%ld", dir, (long)getpid());
	ck_assert_int_eq(link(victim, plant), 0);
	ck_assert_int_eq(mcr_write_file_atomic(dir, "f.json", "{}", 2, &err), 0);
	t = read_file(dir, "victim");
	ck_assert_str_eq(t, "precious");
	free(t);
	t = read_file(dir, "f.json");
	ck_assert_str_eq(t, "{}");
	free(t);
	ck_assert_int_eq(entries(dir), 3); /* victim, the plant, f.json */
	unlink(plant);
	unlink(victim);
	t = read_file(dir, "f.json");
	free(t);
	snprintf(plant, sizeof(plant), "%s/f.json", dir);
	unlink(plant);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* a set of files is replaced all together or not at all */
START_TEST(test_write_set_all_or_nothing)
{
	char dir[] = "/tmp/mck-set.XXXXXX", path[256];
	struct mcr_file files[] = { { "a.json", "new a" }, { "b.json", "new b" } };
	struct mcr_file_list list = { files, 2 };
	struct mcr_error err = { 0 };
	char *t;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(mcr_write_file_atomic(dir, "a.json", "old a", 5, &err), 0);
	/* b.json cannot be replaced: nothing is */
	snprintf(path, sizeof(path), "%s/b.json", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ck_assert_int_eq(mcr_write_files(dir, &list, &err), -1);
	t = read_file(dir, "a.json");
	ck_assert_str_eq(t, "old a");
	free(t);
	ck_assert_int_eq(entries(dir), 2); /* no temporary or backup file left */
	/* b.json's temporary file cannot be made: nothing is replaced */
	files[1].name = "missing/b.json";
	ck_assert_int_eq(mcr_write_files(dir, &list, &err), -1);
	t = read_file(dir, "a.json");
	ck_assert_str_eq(t, "old a");
	free(t);
	ck_assert_int_eq(entries(dir), 2);
	/* then both, together */
	rmdir(path);
	files[1].name = "b.json";
	ck_assert_int_eq(mcr_write_files(dir, &list, &err), 0);
	t = read_file(dir, "a.json");
	ck_assert_str_eq(t, "new a");
	free(t);
	t = read_file(dir, "b.json");
	ck_assert_str_eq(t, "new b");
	free(t);
	ck_assert_int_eq(entries(dir), 2);
	unlink(path);
	snprintf(path, sizeof(path), "%s/a.json", dir);
	unlink(path);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* a file cannot replace a directory: refused before anything is written,
 * nothing is left */
START_TEST(test_write_onto_directory)
{
	char dir[] = "/tmp/mck-write.XXXXXX", sub[64], want[512];
	struct mcr_error e = { 0 };

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/f.json", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(mcr_write_file_atomic(dir, "f.json", "{}", 2, &e), -1);
	rmdir(sub);
	ck_assert_int_eq(rmdir(dir), 0); /* no temporary file left */
	snprintf(want, sizeof(want),
		 "mooncake: cannot write %s: it exists and is not a regular file (a directory); remove it", sub);
	ck_assert_str_eq(errmsg(&e), want);
}
END_TEST

START_TEST(test_mkdir_onto_file)
{
	char path[] = "/tmp/mck-file.XXXXXX", want[512];
	struct mcr_error e = { 0 };
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(mcri_mkdir_p(path, 0755, &e), -1);
	unlink(path);
	snprintf(want, sizeof(want), "mooncake: %s is not a directory; remove it or choose another job directory",
		 path);
	ck_assert_str_eq(errmsg(&e), want);
}
END_TEST

Suite *disk_suite(void)
{
	Suite *s = suite_create("disk");
	TCase *tc = tcase_create("disk");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_mkdir_empty_path);
	tcase_add_test(tc, test_planted_link);
	tcase_add_test(tc, test_write_set_all_or_nothing);
	tcase_add_test(tc, test_write_onto_directory);
	tcase_add_test(tc, test_mkdir_onto_file);
	suite_add_tcase(s, tc);
	return s;
}
