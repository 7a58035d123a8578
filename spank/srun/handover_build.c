/*
 * srun_handover.c - what an srun hands every task of its step, computed
 * once (encoded by handover.c, applied by slurmstepd.c): the role's
 * variables with a mark for each node's own address, TRT-LLM's client
 * config for a node that needs one of its own, vLLM's per-GPU file as a
 * template with each GPU's HCA name, for a master that is still
 * starting, the address each task waits for, and pyxis's container of the
 * step (container.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/plugin.h"
#include "render/render.h"

/* For vLLM's device_names_by_gpu: the per-GPU file as a template (the
 * file of GPU 0, its device_name a placeholder) and each GPU's HCA name as
 * the file escapes it, taken from the files the library renders. */
static int gpu_handover(const struct mcr_recipe *recipe, const char *master, const char *dir,
			struct mcp_handover *h, struct mcr_error *err)
{
	static const char key[] = "\n  \"device_name\": \"";
	size_t n = mcr_recipe_per_gpu_configs(recipe);

	h->gpu_names = calloc(n + 1, sizeof(*h->gpu_names));
	if (!h->gpu_names || !(h->gpu_dir = strdup(dir)))
		return mcri_error_nomem(err);
	for (int i = 0; i < (int)n; i++) {
		struct mcr_file f;
		const char *v, *e;

		if (mcr_vllm_gpu_config(recipe, master, &i, 1, &f, err))
			return -1;
		v = strstr(f.text, key);
		for (e = v ? v + strlen(key) : NULL; e && *e && *e != '"'; e++)
			if (*e == '\\' && e[1])
				e++;
		if (!v || !e || !*e) {
			mcri_error_set(err, MCR_ESTATE, "no device_name in %s", f.name);
			mcr_file_free(&f);
			return -1;
		}
		v += strlen(key);
		h->gpu_names[i] = strndup(v, (size_t)(e - v));
		if (i == 0)
			h->gpu_template = mcri_asprintf("%.*s%s%s", (int)(v - f.text), f.text,
							MCP_DEVICE_PLACEHOLDER, e);
		mcr_file_free(&f);
		if (!h->gpu_names[i] || !h->gpu_template)
			return mcri_error_nomem(err);
		h->gpu_count++;
	}
	return 0;
}

int mcp_srun_hand_over(const struct mcr_recipe *recipe, enum mcr_role role, const char *dir,
		       const char *master, const char *metadata_host, int metadata_port,
		       int starting_within, struct mcr_error *err)
{
	struct mcp_handover h = { 0 };
	/* the node's address is each task's own: srun renders a mark for it */
	struct mcr_env_input in = { master, metadata_host, dir, NULL, h.mark, metadata_port };
	const char *ext = mcr_recipe_external_master(recipe);
	struct mcr_file node = { 0 };
	char *text = NULL, *host = NULL;
	int rc = -1;

	if (mcp_handover_mark(&h, err) || mcr_worker_env(recipe, role, &in, &h.env, err))
		goto out;
	/* TRT-LLM reads the node's address only from its file: a file per node
	 * for the nodes whose own guess is no use (slurmstepd.c decides) */
	if (mcr_recipe_engine(recipe) == MCR_ENGINE_TRTLLM &&
	    mcr_recipe_role_reads_config(recipe, role)) {
		if (mcr_trtllm_node_config(recipe, role, master, h.mark, &node, err))
			goto out;
		if (node.name && !(h.node_dir = strdup(dir))) {
			mcri_error_nomem(err);
			goto out;
		}
		h.node_name = node.name;
		h.node_template = node.text;
		node.name = node.text = NULL;
	}
	if (ext) { /* each task's own address is the one toward it */
		if (mcri_host_port_parse(ext, &host, NULL, err) ||
		    mcp_resolve_ipv4(host, h.peer, sizeof(h.peer), err))
			goto out;
	} else if (metadata_host) {
		/* the job's own pool: its tasks record themselves (workers.c) */
		snprintf(h.peer, sizeof(h.peer), "%s", metadata_host);
		h.role = strdup(mcr_role_name(role));
		h.dir = strdup(dir);
		/* a master that is starting: each task waits for it */
		h.starting_within = starting_within;
		if (starting_within) {
			h.starting = strdup(master);
			h.starting_metadata = mcri_asprintf("%s:%d", metadata_host, metadata_port);
		}
		if (!h.role || !h.dir || (starting_within && (!h.starting || !h.starting_metadata))) {
			mcri_error_nomem(err);
			goto out;
		}
	}
	/* what each task lends: its node's memory is checked in task_init */
	{
		char set[320];

		if (mcri_role_lends(recipe, role, &h.lend, set, sizeof(set), err) ||
		    (h.lend > 0 && !(h.lend_set = strdup(set)))) {
			if (h.lend > 0 && !h.lend_set)
				mcri_error_nomem(err);
			goto out;
		}
	}
	if (mcr_recipe_per_gpu_configs(recipe) &&
	    mcr_recipe_role_reads_config(recipe, role) &&
	    gpu_handover(recipe, master, dir, &h, err))
		goto out;
	/* the tasks in pyxis's container keep the plugin's variables */
	if (mcp_pyxis_hand_over(&h, err) || !(text = mcp_handover_encode(&h, err)))
		goto out;
	if (setenv(MCP_TASK_VAR, text, 1) != 0) {
		mcri_error_nomem(err);
		goto out;
	}
	rc = 0;
out:
	free(text);
	free(host);
	mcr_file_free(&node);
	mcp_handover_free(&h);
	return rc;
}
