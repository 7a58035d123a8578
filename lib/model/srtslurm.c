/*
 * srtslurm.c - srtctl's container aliases: `containers:` of its cluster
 * config, srtslurm.yaml, read with the library's own loader (PyYAML's
 * safe_load, as srtctl reads it). srtctl replaces a recipe's container
 * value that is a key of that mapping by the key's value, exactly, and
 * leaves any other value alone (srtctl's core/config.py); the plugin does
 * the same before it decides how the master runs (spank/container/alias.c
 * finds the files as srtctl finds them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "sys/sys.h"

/* a cluster config is a small YAML file */
#define MAX_SRTSLURM_BYTES (1u << 20)

/* err for a file that could not be read (errno-like e) */
static int unreadable(const char *name, int e, struct mcr_error *err)
{
	if (e == ENOMEM)
		return mcri_error_nomem(err);
	return mcri_error_set(
		err, MCR_EIO,
		"cannot read srtctl's cluster config %s: %s; make it a readable YAML file (srtctl's srtslurm.yaml), or remove it",
		name,
		e == EISDIR  ? "it is not a regular file"
		: e == EFBIG ? "it is larger than 1 MiB"
			     : strerror(e));
}

/* the mapping of `text` (heap, consumed) */
static int from_text(char *text, size_t len, const char *name, const char *alias, char **value,
		     struct mcr_position *where, struct mcr_error *err)
{
	const struct mcri_node *containers, *v;
	struct mcri_doc *doc = NULL;
	char *repr;
	int e, rc = 0;

	e = mcri_doc_parse(text, len, name, &doc, err);
	free(text);
	if (e)
		return -1;
	if (!doc->root)
		goto out; /* empty: no aliases */
	if (!mcri_is_map(doc->root)) {
		rc = mcri_err_at(
			err, MCR_EINVAL, doc, doc->root,
			"srtctl's cluster config must be a mapping (cluster:, model_paths:, containers:, ...); srtctl ignores this file, and no alias of it resolves: fix it, or remove it");
		goto out;
	}
	containers = mcri_map_get(doc->root, "containers");
	if (!containers || containers->type == MCRI_T_NULL)
		goto out;
	if (!mcri_is_map(containers)) {
		rc = mcri_err_at(
			err, MCR_EINVAL, doc, containers,
			"containers: must map srtctl's container aliases to images, e.g. containers: {trtllm: /shared/images/trtllm.sqsh}");
		goto out;
	}
	if (!(v = mcri_map_get(containers, alias)))
		goto out;
	if (!mcri_is_str(v) || !v->s[0]) {
		repr = mcri_repr(v);
		rc = mcri_err_at(
			err, MCR_EINVAL, doc, v,
			"containers.%s: %s is not an image; write a registry image, a squashfs file or an OCI bundle's path, e.g. %s: /shared/images/%s.sqsh",
			alias, repr ? repr : "the value", alias, alias);
		free(repr);
		goto out;
	}
	if (!(*value = strdup(v->s))) {
		rc = mcri_error_nomem(err);
		goto out;
	}
	if (where) {
		char key[MCR_ERROR_SOURCE_LENGTH];

		snprintf(key, sizeof(key), "containers.%s", alias);
		mcri_position_of(where, doc, v, key);
	}
	rc = 1;
out:
	mcri_doc_free(doc);
	return rc;
}

int mcr_srtslurm_container(const char *path, const char *display_name, const char *alias, char **value,
			   struct mcr_position *where, struct mcr_error *err)
{
	const char *name = display_name ? display_name : path;
	char *text = NULL;
	size_t len;
	int e;

	*value = NULL;
	if (where)
		memset(where, 0, sizeof(*where));
	if ((e = mcri_read_file(path, MAX_SRTSLURM_BYTES, &text, &len)))
		return unreadable(name, e, err);
	return from_text(text, len, name, alias, value, where, err);
}

int mcri_srtslurm_container_fd(int fd, const char *name, const char *alias, char **value, struct mcr_position *where,
			       struct mcr_error *err)
{
	char *text = NULL;
	size_t len;
	int e = fd < 0 ? errno : 0;

	*value = NULL;
	if (where)
		memset(where, 0, sizeof(*where));
	if (e || (e = mcri_read_fd(fd, MAX_SRTSLURM_BYTES, &text, &len)))
		return unreadable(name, e, err);
	return from_text(text, len, name, alias, value, where, err);
}
