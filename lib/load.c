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
#include "sys/sys.h"

/* reference §1: at most 16 MiB */
#define MCR_MAX_RECIPE_BYTES (16u << 20)

static int load(const char *text, size_t len, const char *name, struct mcr_recipe **out, struct mcr_error *err)
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

int mcr_recipe_load_buffer(const char *text, size_t len, const char *display_name, struct mcr_recipe **out,
			   struct mcr_error *err)
{
	return load(text, len, display_name ? display_name : "recipe", out, err);
}

int mcr_recipe_load_file(const char *path, const char *display_name, struct mcr_recipe **out, struct mcr_error *err)
{
	const char *name = display_name ? display_name : path;
	char *text = NULL, cwd[PATH_MAX] = "";
	size_t len = 0;
	int e, rc;

	*out = NULL;
	e = mcri_read_file(path, MCR_MAX_RECIPE_BYTES, &text, &len);
	switch (e) {
	case 0:
		break;
	case ENOMEM:
		return mcri_error_nomem(err);
	case EISDIR:
		return mcri_error_set(err, MCR_EIO, "the recipe %s is not a regular file; give the path of a YAML file",
				      name);
	case EFBIG:
		return mcri_error_set(err, MCR_EIO,
				      "the recipe %s is larger than %u MiB; a recipe is a small YAML file", name,
				      MCR_MAX_RECIPE_BYTES >> 20);
	default:
		/* a relative path: say where it was looked for */
		if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
			return mcri_error_set(err, MCR_EIO,
					      "cannot read the recipe %s (relative to %s): %s; check the recipe's path",
					      name, cwd, strerror(e));
		return mcri_error_set(err, MCR_EIO, "cannot read the recipe %s: %s; check the recipe's path", name,
				      strerror(e));
	}
	rc = load(text, len, name, out, err);
	free(text);
	return rc;
}
