/*
 * handover.c - what srun computes once and hands each task of its step, in
 * one environment variable (MCP_TASK_VAR, a JSON object): the role's
 * Mooncake variables, the master's host (each task finds its own address
 * toward it), and for vLLM's device_names_by_gpu the per-GPU client config
 * as a template plus each GPU's HCA name. A task then needs no recipe: it
 * gets exactly what srun checked and rendered, even when the recipe is
 * edited after srun, and slurmstepd parses no YAML.
 *
 *   {"v": 2, "env": [["NAME", "value"], ...], "peer": "10.0.0.1",
 *    "mark": "@mooncake-node-address-<16 hex>@",
 *    "role": "prefill", "dir": "/job/dir",      (a step of the job's own pool)
 *    "gpu": {"dir": "/job/dir", "template": "{...}", "names": ["mlx5_0", ...]},
 *    "node": {"dir": "/job/dir", "name": "...<node address>.json", "template": "{...}"},
 *    "starting": {"master": "10.0.0.1:8700", "metadata": "10.0.0.1:8701",
 *                 "within": 145},  (its master not ready yet)
 *    "pyxis": {"image": "nvcr.io#...", "mounts": "/a:/a", "env": "A,B",
 *              "missing": "MOONCAKE_MASTER,...", "was": "A,B"}}
 *             (the tasks run in pyxis's container; each key but image
 *              only when set; "was", the user's PYXIS_CONTAINER_ENV, null
 *              when the user had none)
 *
 * The template is the per-GPU file with MCP_DEVICE_PLACEHOLDER as its
 * device_name; the names are JSON-escaped as the file escapes them (Python's
 * json.dumps), so that the task's device_name, a comma-joined list of
 * them, is byte for byte what the library would write.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <jansson.h>

#include "base/base.h"
#include "plugin/handover.h"

char *mcp_handover_encode(const struct mcp_handover *h, struct mcr_error *err)
{
	json_t *o = json_object(), *env = json_array(), *gpu = NULL, *names;
	char *text = NULL;
	bool ok = o && env && json_object_set_new(o, "env", env) == 0 &&
		  json_object_set_new(o, "v",
				      json_integer(h->starting ? MCP_HANDOVER_STARTING : MCP_HANDOVER_VERSION)) == 0 &&
		  json_object_set_new(o, "mark", json_string(h->mark)) == 0;

	for (size_t i = 0; ok && i < h->env.count; i++)
		ok = json_array_append_new(env, json_pack("[ss]", h->env.vars[i].name, h->env.vars[i].value)) == 0;
	ok = ok && json_object_set_new(o, "peer", json_string(h->peer)) == 0;
	if (ok && h->role && h->dir)
		ok = json_object_set_new(o, "role", json_string(h->role)) == 0 &&
		     json_object_set_new(o, "dir", json_string(h->dir)) == 0;
	if (ok && h->gpu_dir) {
		gpu = json_pack("{s:s, s:s, s:[]}", "dir", h->gpu_dir, "template", h->gpu_template, "names");
		names = json_object_get(gpu, "names");
		ok = gpu && json_object_set_new(o, "gpu", gpu) == 0;
		for (size_t i = 0; ok && i < h->gpu_count; i++)
			ok = json_array_append_new(names, json_string(h->gpu_names[i])) == 0;
	}
	if (ok && h->node_template)
		ok = json_object_set_new(o, "node",
					 json_pack("{s:s, s:s, s:s}", "dir", h->node_dir, "name", h->node_name,
						   "template", h->node_template)) == 0;
	if (ok && h->lend > 0)
		ok = json_object_set_new(o, "lend",
					 json_pack("{s:I, s:s}", "bytes", (json_int_t)h->lend, "set",
						   h->lend_set ? h->lend_set : "")) == 0;
	if (ok && h->starting)
		ok = json_object_set_new(o, "starting",
					 json_pack("{s:s, s:s, s:i}", "master", h->starting, "metadata",
						   h->starting_metadata, "within", h->starting_within)) == 0;
	if (ok && h->pyxis.image) {
		json_t *p = json_pack("{s:s}", "image", h->pyxis.image);
		const char *keys[] = { "mounts", "env", "missing" };
		const char *values[] = { h->pyxis.mounts, h->pyxis.env, h->pyxis.missing };

		ok = p && json_object_set_new(o, "pyxis", p) == 0;
		for (size_t i = 0; ok && i < 3; i++)
			ok = !values[i] || json_object_set_new(p, keys[i], json_string(values[i])) == 0;
		if (ok && (h->pyxis.had || !h->pyxis.env))
			ok = json_object_set_new(p, "was", h->pyxis.had ? json_string(h->pyxis.was) : json_null()) == 0;
	}
	if (ok)
		text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!text) {
		mcri_error_nomem(err);
	} else if (strlen(text) >= MCP_VAR_MAX) {
		mcri_error_set(
			err, MCR_EINVAL,
			"what srun hands each task of this step (%zu bytes: the recipe's environment for the role, its file names) is more than the %d bytes a task reads; shorten the env values of the recipe (roles.<role>.env, environment, engine.mooncake_kv_store.env)",
			strlen(text), MCP_VAR_MAX - 1);
		free(text);
		text = NULL;
	}
	return text;
}

static char *dup_string(json_t *v)
{
	const char *s = json_string_value(v);

	return s ? strdup(s) : NULL;
}

/* *out: the string `key` of o, when it has one (heap); false when it is
 * there but no string (or out of memory) */
static bool opt_string(json_t *o, const char *key, char **out)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	return !v || (*out = dup_string(v)) != NULL;
}

int mcp_handover_decode(const char *text, struct mcp_handover *h, struct mcr_error *err)
{
	json_error_t jerr;
	json_t *o = json_loads(text, 0, &jerr), *env, *gpu, *names, *node, *starting, *lend, *pyxis;
	const char *peer, *mark;
	json_int_t version, within;
	size_t n;

	memset(h, 0, sizeof(*h));
	if (!o)
		return mcri_error_set(err, MCR_ESTATE, "%s is not what srun hands over: %s", MCP_TASK_VAR, jerr.text);
	if (!json_is_object(o))
		goto bad;
	version = json_integer_value(json_object_get(o, "v"));
	if (version != MCP_HANDOVER_VERSION && version != MCP_HANDOVER_STARTING) {
		json_decref(o);
		return mcri_error_set(
			err, MCR_ESTATE,
			"srun handed this task a Mooncake environment of format %lld, and this node's spank_mooncake.so reads formats %d and %d: srun's host and this node run different versions of the plugin; install the same one on every login and compute node",
			(long long)version, MCP_HANDOVER_VERSION, MCP_HANDOVER_STARTING);
	}
	mark = json_string_value(json_object_get(o, "mark"));
	if (!mark || snprintf(h->mark, sizeof(h->mark), "%s", mark) >= (int)sizeof(h->mark))
		goto bad;
	env = json_object_get(o, "env");
	n = json_array_size(env);
	peer = json_string_value(json_object_get(o, "peer"));
	if (!peer || !json_is_array(env) || snprintf(h->peer, sizeof(h->peer), "%s", peer) >= (int)sizeof(h->peer))
		goto bad;
	h->env.vars = calloc(n ? n : 1, sizeof(*h->env.vars));
	if (!h->env.vars)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		json_t *pair = json_array_get(env, i);

		if (!json_is_string(json_array_get(pair, 0)) || !json_is_string(json_array_get(pair, 1)))
			goto bad;
		h->env.vars[i].name = dup_string(json_array_get(pair, 0));
		h->env.vars[i].value = dup_string(json_array_get(pair, 1));
		h->env.count++;
		if (!h->env.vars[i].name || !h->env.vars[i].value)
			goto nomem;
	}
	if (json_object_get(o, "role")) {
		h->role = dup_string(json_object_get(o, "role"));
		h->dir = dup_string(json_object_get(o, "dir"));
		if (!h->role || !h->dir)
			goto bad;
	}
	gpu = json_object_get(o, "gpu");
	if (gpu) {
		names = json_object_get(gpu, "names");
		h->gpu_dir = dup_string(json_object_get(gpu, "dir"));
		h->gpu_template = dup_string(json_object_get(gpu, "template"));
		if (!h->gpu_dir || !h->gpu_template || !json_is_array(names))
			goto bad;
		h->gpu_names = calloc(json_array_size(names) + 1, sizeof(*h->gpu_names));
		if (!h->gpu_names)
			goto nomem;
		for (size_t i = 0; i < json_array_size(names); i++) {
			if (!(h->gpu_names[i] = dup_string(json_array_get(names, i))))
				goto bad;
			h->gpu_count++;
		}
	}
	if ((node = json_object_get(o, "node"))) {
		h->node_dir = dup_string(json_object_get(node, "dir"));
		h->node_name = dup_string(json_object_get(node, "name"));
		h->node_template = dup_string(json_object_get(node, "template"));
		if (!h->node_dir || !h->node_name || !h->node_template || strchr(h->node_name, '/') || h->gpu_dir)
			goto bad;
	}
	if ((lend = json_object_get(o, "lend"))) {
		h->lend = json_integer_value(json_object_get(lend, "bytes"));
		h->lend_set = dup_string(json_object_get(lend, "set"));
		if (h->lend <= 0 || !h->lend_set)
			goto bad;
	}
	if ((starting = json_object_get(o, "starting"))) {
		h->starting = dup_string(json_object_get(starting, "master"));
		h->starting_metadata = dup_string(json_object_get(starting, "metadata"));
		within = json_integer_value(json_object_get(starting, "within"));
		if (!h->starting || !h->starting_metadata || !h->dir || within <= 0 || within > MCP_WAIT_MAX ||
		    version != MCP_HANDOVER_STARTING)
			goto bad;
		h->starting_within = (int)within;
	}
	if ((pyxis = json_object_get(o, "pyxis"))) {
		json_t *was = json_object_get(pyxis, "was");

		if (!(h->pyxis.image = dup_string(json_object_get(pyxis, "image"))) ||
		    !opt_string(pyxis, "mounts", &h->pyxis.mounts) || !opt_string(pyxis, "env", &h->pyxis.env) ||
		    !opt_string(pyxis, "missing", &h->pyxis.missing) ||
		    (was && !json_is_null(was) && !(h->pyxis.was = dup_string(was))))
			goto bad;
		h->pyxis.had = h->pyxis.was != NULL;
	}
	json_decref(o);
	return 0;
bad:
	mcri_error_set(err, MCR_ESTATE, "%s is not what srun hands over (a plugin of another version on srun's host?)",
		       MCP_TASK_VAR);
	goto fail;
nomem:
	mcri_error_nomem(err);
fail:
	json_decref(o);
	mcp_handover_free(h);
	return -1;
}

void mcp_handover_free(struct mcp_handover *h)
{
	mcr_env_free(&h->env);
	free(h->role);
	free(h->dir);
	free(h->gpu_dir);
	free(h->gpu_template);
	mcr_strv_free(h->gpu_names);
	free(h->node_dir);
	free(h->node_name);
	free(h->node_template);
	free(h->starting);
	free(h->starting_metadata);
	free(h->lend_set);
	free(h->pyxis.image);
	free(h->pyxis.mounts);
	free(h->pyxis.env);
	free(h->pyxis.missing);
	free(h->pyxis.was);
	memset(h, 0, sizeof(*h));
}

int mcp_handover_gpu_file(const struct mcp_handover *h, const int *ids, size_t count, struct mcr_file *out,
			  struct mcr_error *err)
{
	const char *mark = strstr(h->gpu_template, MCP_DEVICE_PLACEHOLDER);
	char *device = NULL;

	memset(out, 0, sizeof(*out));
	if (!mark)
		return mcri_error_set(err, MCR_ESTATE, "%s has no device_name to fill in", MCP_TASK_VAR);
	if (mcr_gpu_selection((const char *const *)h->gpu_names, h->gpu_count, ids, count, &out->name, &device, err))
		return -1;
	out->text = mcri_asprintf("%.*s%s%s", (int)(mark - h->gpu_template), h->gpu_template, device,
				  mark + strlen(MCP_DEVICE_PLACEHOLDER));
	free(device);
	if (!out->text) {
		mcr_file_free(out);
		return mcri_error_nomem(err);
	}
	return 0;
}

int mcp_handover_mark(struct mcp_handover *h, struct mcr_error *err)
{
	unsigned char r[8];
	char hex[17];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return mcri_error_set(err, MCR_EIO, "cannot make a random mark: %s", strerror(errno));
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(hex + 2 * i, 3, "%02x", r[i]);
	snprintf(h->mark, sizeof(h->mark), "@mooncake-node-address-%s@", hex);
	return 0;
}

char *mcp_handover_fill(const struct mcp_handover *h, const char *text, const char *addr)
{
	struct mcri_buf b = { 0 };
	const char *p = text, *m;
	size_t len = strlen(h->mark);

	while (len && (m = strstr(p, h->mark))) {
		mcri_buf_add(&b, p, (size_t)(m - p));
		mcri_buf_puts(&b, addr);
		p = m + len;
	}
	mcri_buf_puts(&b, p);
	return mcri_buf_take(&b);
}

/* `text` with every `from` that stands as a whole address (no digit or
 * dot before it, no digit after it) replaced by `to` (heap; NULL out of
 * memory) */
static char *replace_address(const char *text, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0, o = 0;
	const char *p;
	char *out;

	for (p = strstr(text, from); p; p = strstr(p + fl, from))
		n++;
	if (!(out = malloc(strlen(text) + n * (tl > fl ? tl - fl : 0) + 1)))
		return NULL;
	for (p = text; *p;) {
		bool whole = strncmp(p, from, fl) == 0 &&
			     (p == text || !(isdigit((unsigned char)p[-1]) || p[-1] == '.')) &&
			     !isdigit((unsigned char)p[fl]);

		if (whole) {
			memcpy(out + o, to, tl);
			o += tl;
			p += fl;
		} else {
			out[o++] = *p++;
		}
	}
	out[o] = '\0';
	return out;
}

/* *text with the addresses of h->starting replaced (NULL: nothing) */
static int follow_text(const struct mcp_handover *h, char **text, const char *master, const char *metadata)
{
	char *a, *b;

	if (!*text)
		return 0;
	if (!(a = replace_address(*text, h->starting, master)))
		return -1;
	b = replace_address(a, h->starting_metadata, metadata);
	free(a);
	if (!b)
		return -1;
	free(*text);
	*text = b;
	return 0;
}

int mcp_handover_follow(struct mcp_handover *h, const char *master, const char *metadata, struct mcr_error *err)
{
	char *m = strdup(master), *d = strdup(metadata);
	int rc = m && d ? 0 : -1;

	for (size_t i = 0; !rc && i < h->env.count; i++)
		rc = follow_text(h, &h->env.vars[i].value, master, metadata);
	if (!rc)
		rc = follow_text(h, &h->node_template, master, metadata);
	if (!rc)
		rc = follow_text(h, &h->gpu_template, master, metadata);
	if (rc) {
		free(m);
		free(d);
		return mcri_error_nomem(err);
	}
	free(h->starting);
	free(h->starting_metadata);
	h->starting = m;
	h->starting_metadata = d;
	return 0;
}
