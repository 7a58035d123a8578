/*
 * files.c - the client-config files of a recipe (reference §7): one per
 * TRT-LLM connector role, one shared vLLM file, the per-GPU vLLM files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"

static const char *const TRT_NAMES[MCR_ROLE_COUNT] = {
	"mooncake_store_config_prefill.json",
	"mooncake_store_config_decode.json",
	"mooncake_store_config_agg.json",
};
#define VLLM_NAME "mooncake_store_config.json"

const char *mcr_client_config_name(const struct mcr_recipe *r, enum mcr_role role)
{
	if (!mcr_recipe_role_reads_config(r, role))
		return NULL;
	return r->engine == MCR_ENGINE_TRTLLM ? TRT_NAMES[role] : VLLM_NAME;
}

static int add_file(const struct mcr_recipe *r, struct mcr_file_list *list, const char *name,
		    const struct mcri_payload *p, size_t *budget, struct mcr_error *err)
{
	struct mcr_file *f = realloc(list->files, (list->count + 1) * sizeof(*f));

	if (!f)
		return mcri_error_nomem(err);
	list->files = f;
	f = &list->files[list->count];
	if (mcri_payload_dumps(r, p, name, budget, &f->text, err))
		return -1;
	if (!(f->name = strdup(name))) {
		free(f->text);
		return mcri_error_nomem(err);
	}
	list->count++;
	return 0;
}

const char *mcri_effective_master(const struct mcr_recipe *r, const char *master_address)
{
	return r->external ? r->external : master_address;
}

int mcr_client_configs(const struct mcr_recipe *r, const char *master_address, struct mcr_file_list *out,
		       struct mcr_error *err)
{
	size_t budget = mcri_render_max(r);

	memset(out, 0, sizeof(*out));
	if (!r->has_master)
		return 0;
	master_address = mcri_effective_master(r, master_address);
	if (!master_address)
		return mcri_error_set(err, MCR_EINVAL, "no master address to write into the client configs");
	if (r->engine == MCR_ENGINE_TRTLLM) {
		for (int role = 0; role < MCR_ROLE_COUNT; role++) {
			struct mcri_payload p;
			int rc;

			if (!(r->connector_modes & MCRI_ROLE_BIT(role)))
				continue;
			rc = mcri_trtllm_payload(r, (enum mcr_role)role, master_address, &p, err);
			rc = rc ? rc : add_file(r, out, TRT_NAMES[role], &p, &budget, err);
			mcri_payload_free(&p);
			if (rc) {
				mcr_file_list_free(out);
				return -1;
			}
		}
	} else if (r->engine == MCR_ENGINE_VLLM) {
		struct mcri_payload p;
		int rc = mcri_vllm_payload(r, master_address, &p, err);

		rc = rc ? rc : add_file(r, out, VLLM_NAME, &p, &budget, err);
		mcri_payload_free(&p);
		if (rc) {
			mcr_file_list_free(out);
			return -1;
		}
	}
	return 0;
}

/* an address, or a host name: printable, no blank, quote, backslash or
 * '/', not starting with '.' (it names a file) */
static bool plain_address(const char *a)
{
	if (!a || !*a || *a == '.')
		return false;
	for (; *a; a++)
		if ((unsigned char)*a <= ' ' || *a == 0x7f || strchr("\"\\/", *a))
			return false;
	return true;
}

int mcr_trtllm_node_config(const struct mcr_recipe *r, enum mcr_role role, const char *master_address,
			   const char *local_hostname, struct mcr_file *out, struct mcr_error *err)
{
	struct mcri_payload p;
	size_t budget = mcri_render_max(r);
	const char *base;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (r->engine != MCR_ENGINE_TRTLLM || !mcr_recipe_role_reads_config(r, role))
		return mcri_error_set(
			err, MCR_EINVAL,
			"roles.%s reads no TRT-LLM client config: per-node files are for TRT-LLM connector roles with a master",
			mcr_role_name(role) ? mcr_role_name(role) : "?");
	if (!plain_address(local_hostname))
		return mcri_error_set(err, MCR_EINVAL, "'%.200s' is not a node address that can name a client config",
				      local_hostname ? local_hostname : "");
	if (mcri_trtllm_payload(r, role, master_address, &p, err))
		goto out;
	if (mcri_payload_get(&p, "local_hostname")) { /* the recipe's, for every node */
		rc = 0;
		goto out;
	}
	p.layer = MCRI_LAYER_NODE;
	base = TRT_NAMES[role];
	if (mcri_payload_set(&p, "local_hostname", NULL, local_hostname, err))
		goto out;
	out->name = mcri_asprintf("%.*s.%s.json", (int)(strlen(base) - strlen(".json")), base, local_hostname);
	if (!out->name) {
		mcri_error_nomem(err);
		goto out;
	}
	if (mcri_payload_dumps(r, &p, out->name, &budget, &out->text, err)) {
		mcr_file_free(out);
		goto out;
	}
	rc = 0;
out:
	mcri_payload_free(&p);
	return rc;
}

void mcr_file_free(struct mcr_file *f)
{
	if (!f)
		return;
	free(f->name);
	free(f->text);
	f->name = f->text = NULL;
}

void mcr_file_list_free(struct mcr_file_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		mcr_file_free(&list->files[i]);
	free(list->files);
	list->files = NULL;
	list->count = 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int mcr_gpu_selection(const char *const *names, size_t n_names, const int *gpu_ids, size_t count, char **file_name,
		      char **device_name, struct mcr_error *err)
{
	struct mcri_buf name = { 0 }, devices = { 0 }, missing = { 0 };
	int *ids = NULL, rc = -1;

	*file_name = *device_name = NULL;
	if (count == 0)
		return mcri_error_set(
			err, MCR_EINVAL,
			"the task has no GPUs (CUDA_VISIBLE_DEVICES is empty), but device_names_by_gpu needs each process's physical GPUs; request GPUs for the step (--gpus, --gres=gpu:N)");
	ids = malloc(count * sizeof(*ids));
	if (!ids)
		return mcri_error_nomem(err);
	memcpy(ids, gpu_ids, count * sizeof(*ids));
	qsort(ids, count, sizeof(*ids), cmp_int);
	mcri_buf_puts(&name, "mooncake_store_config_gpu");
	for (size_t i = 0; i < count; i++) {
		if (i && ids[i] == ids[i - 1])
			continue;
		mcri_buf_printf(&name, "%s%d", i ? "-" : "", ids[i]);
		if (ids[i] < 0 || (size_t)ids[i] >= n_names)
			mcri_buf_printf(&missing, "%s%d", missing.len ? ", " : "", ids[i]);
	}
	mcri_buf_puts(&name, ".json");
	if (missing.len) {
		mcri_error_set(
			err, MCR_EINVAL,
			"mooncake device_names_by_gpu does not cover physical GPUs [%s]: the list has %zu entries (GPUs 0-%zu); give one HCA name per GPU of the node",
			missing.p, n_names, n_names ? n_names - 1 : 0);
		goto out;
	}
	/* HCA names in the order of the process's GPUs, duplicates removed */
	for (size_t i = 0; i < count; i++) {
		const char *hca = names[gpu_ids[i]];
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= strcmp(names[gpu_ids[j]], hca) == 0;
		if (!seen)
			mcri_buf_printf(&devices, "%s%s", devices.len ? "," : "", hca);
	}
	*file_name = mcri_buf_take(&name);
	*device_name = mcri_buf_take(&devices);
	if (!*file_name || !*device_name) {
		free(*file_name);
		free(*device_name);
		*file_name = *device_name = NULL;
		mcri_error_nomem(err);
		goto out;
	}
	rc = 0;
out:
	free(ids);
	free(name.p);
	free(devices.p);
	free(missing.p);
	return rc;
}

int mcr_vllm_gpu_config(const struct mcr_recipe *r, const char *master_address, const int *gpu_ids, size_t count,
			struct mcr_file *out, struct mcr_error *err)
{
	const struct mcri_node *dev = r->device_names_by_gpu;
	struct mcri_payload p = { 0 };
	const char **names = NULL;
	char *file = NULL, *dn = NULL;
	size_t budget = mcri_render_max(r);
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (r->engine != MCR_ENGINE_VLLM || !mcri_is_seq(dev) || dev->n == 0)
		return mcri_error_set(
			err, MCR_EINVAL,
			"the recipe has no device_names_by_gpu; per-GPU client configs are for vLLM with options.device_names_by_gpu");
	names = malloc(dev->n * sizeof(*names));
	if (!names)
		return mcri_error_nomem(err);
	for (size_t i = 0; i < dev->n; i++)
		names[i] = dev->items[i]->s;
	if (mcr_gpu_selection(names, dev->n, gpu_ids, count, &file, &dn, err) ||
	    mcri_vllm_payload(r, mcri_effective_master(r, master_address), &p, err) ||
	    mcri_payload_set(&p, "device_name", NULL, dn, err))
		goto out;
	out->name = file;
	file = NULL;
	if (mcri_payload_dumps(r, &p, out->name, &budget, &out->text, err)) {
		mcr_file_free(out);
		goto out;
	}
	rc = 0;
out:
	free(names);
	free(file);
	free(dn);
	mcri_payload_free(&p);
	return rc;
}
