/*
 * load.c - the load pipeline: a recipe's file or text through the stages
 * of the library (lib/README.md): YAML (lib/yaml/), the model
 * (lib/model/), the rules (lib/rules/), then the warnings. The public entry
 * points mcr_recipe_load_file and mcr_recipe_load_buffer live here; the
 * render stage (lib/render/) works on the recipe they return.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/model.h"
#include "rules/rules.h"

/* reference §1: at most 16 MiB */
#define MCR_MAX_RECIPE_BYTES (16u << 20)

static int load(const char *text, size_t len, const char *name,
		struct mcr_recipe **out, struct mcr_error *err)
{
	struct mcri_doc *doc = NULL;
	struct mcr_recipe *r;

	*out = NULL;
	/* stage 1, YAML */
	if (mcri_doc_parse(text, len, name, &doc, err))
		return -1;
	r = calloc(1, sizeof(*r));
	if (!r) {
		mcri_doc_free(doc);
		return mcri_error_nomem(err);
	}
	/* stage 2, the model; stage 3, the rules; then advice */
	if (mcri_recipe_build(doc, r, err) || mcri_recipe_validate(r, err)) {
		r->doc = doc;
		mcr_recipe_free(r);
		return -1;
	}
	mcri_recipe_lint(r);
	*out = r;
	return 0;
}

int mcr_recipe_load_buffer(const char *text, size_t len,
			   const char *display_name, struct mcr_recipe **out,
			   struct mcr_error *err)
{
	return load(text, len, display_name ? display_name : "recipe", out, err);
}

int mcr_recipe_load_file(const char *path, const char *display_name,
			 struct mcr_recipe **out, struct mcr_error *err)
{
	const char *name = display_name ? display_name : path;
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int fd, rc = -1;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;
		char cwd[PATH_MAX] = "";

		/* a relative path: say where it was looked for */
		if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
			return mcri_error_set(err, MCR_EIO,
					      "cannot read the recipe %s (relative to %s): %s; check the recipe's path",
					      name, cwd, strerror(e));
		return mcri_error_set(err, MCR_EIO, "cannot read the recipe %s: %s; check the recipe's path",
				      name, strerror(e));
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		mcri_error_set(err, MCR_EIO,
			       "the recipe %s is not a regular file; give the path of a YAML file",
			       name);
		goto out;
	}
	if ((unsigned long long)st.st_size > MCR_MAX_RECIPE_BYTES) {
		mcri_error_set(err, MCR_EIO,
			       "the recipe %s is larger than %u MiB; a recipe is a small YAML file",
			       name, MCR_MAX_RECIPE_BYTES >> 20);
		goto out;
	}
	/* read to the end, not to st_size: a file of /proc or of some FUSE
	 * file systems says 0 and has text */
	for (size_t cap = 0;;) {
		ssize_t n;

		if (len == cap) {
			char *t;

			if (cap > MCR_MAX_RECIPE_BYTES) {
				mcri_error_set(err, MCR_EIO,
					       "the recipe %s is larger than %u MiB; a recipe is a small YAML file",
					       name, MCR_MAX_RECIPE_BYTES >> 20);
				goto out;
			}
			cap = cap ? cap * 2 : (size_t)st.st_size + 4096;
			if (cap > MCR_MAX_RECIPE_BYTES + 1)
				cap = MCR_MAX_RECIPE_BYTES + 1;
			if (!(t = realloc(text, cap + 1))) {
				mcri_error_nomem(err);
				goto out;
			}
			text = t;
		}
		n = read(fd, text + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			mcri_error_set(err, MCR_EIO, "cannot read the recipe %s: %s",
				       name, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	text[len] = '\0';
	rc = load(text, len, name, out, err);
out:
	free(text);
	close(fd);
	return rc;
}
