/*
 * config.c - the client-config payloads (§2), their files, the master's
 * argv (§4.1) and the worker environment (§5).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* ---- payloads ------------------------------------------------------- */

int mcr_trtllm_payload(const struct mcr_recipe *r, enum mcr_role mode,
		       const char *master_address, struct mcr_payload *out)
{
	const struct mcr_node *msc =
		mcr_map_get(r->role_node[mode], "mooncake_store_config");

	memset(out, 0, sizeof(*out));
	if (mcr_payload_set(out, "role", NULL,
			    mode == MCR_ROLE_DECODE ? "capacity" : "both"))
		return -1;
	if (r->served_model_name &&
	    mcr_payload_set(out, "model_key", NULL, r->served_model_name))
		return -1;
	char src[64];

	snprintf(src, sizeof(src), "roles.%s.mooncake_store_config", mcr_role_name(mode));
	if (mcr_payload_merge_map(out, r->store_config, r->store_config_where) ||
	    mcr_payload_merge_map(out, msc, src) ||
	    mcr_payload_set(out, "master_server_address", NULL, master_address))
		return -1;
	return 0;
}

int mcr_vllm_payload(const struct mcr_recipe *r, const char *master_address,
		     struct mcr_payload *out)
{
	memset(out, 0, sizeof(*out));
	if (mcr_payload_merge_map(out, r->store_config, r->store_config_where) ||
	    mcr_payload_set(out, "master_server_address", NULL, master_address))
		return -1;
	return 0;
}

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

static int add_file(struct mcr_file_list *list, const char *name,
		    struct mcr_payload *p)
{
	struct mcr_file *f = realloc(list->files, (list->count + 1) * sizeof(*f));

	if (!f)
		return -1;
	list->files = f;
	f = &list->files[list->count];
	f->name = strdup(name);
	f->text = mcr_payload_dumps(p);
	if (!f->name || !f->text) {
		free(f->name);
		free(f->text);
		return -1;
	}
	list->count++;
	return 0;
}

/* The address the files and the workers get: an external master's for
 * vLLM/SGLang, otherwise the one the caller computed for the infra node. */
static const char *effective_master(const struct mcr_recipe *r,
				    const char *master_address)
{
	return r->external ? r->external : master_address;
}

int mcr_client_configs(const struct mcr_recipe *r, const char *master_address,
		       struct mcr_file_list *out, struct mcr_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!r->has_master)
		return 0;
	master_address = effective_master(r, master_address);
	if (!master_address)
		return mcr_error_set(err, MCR_EINVAL,
				     "no master address to write into the client configs");
	if (r->engine == MCR_ENGINE_TRTLLM) {
		for (int role = 0; role < MCR_ROLE_COUNT; role++) {
			struct mcr_payload p;
			int rc;

			if (!(r->connector_modes & MCR_ROLE_BIT(role)))
				continue;
			rc = mcr_trtllm_payload(r, (enum mcr_role)role, master_address, &p);
			rc = rc ? rc : add_file(out, TRT_NAMES[role], &p);
			mcr_payload_free(&p);
			if (rc) {
				mcr_file_list_free(out);
				return mcr_err_nomem(err);
			}
		}
	} else if (r->engine == MCR_ENGINE_VLLM) {
		struct mcr_payload p;
		int rc = mcr_vllm_payload(r, master_address, &p);

		rc = rc ? rc : add_file(out, VLLM_NAME, &p);
		mcr_payload_free(&p);
		if (rc) {
			mcr_file_list_free(out);
			return mcr_err_nomem(err);
		}
	}
	return 0;
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

int mcr_vllm_gpu_config(const struct mcr_recipe *r, const char *master_address,
			const int *gpu_ids, size_t count, struct mcr_file *out,
			struct mcr_error *err)
{
	const struct mcr_node *dev = r->device_names_by_gpu;
	struct mcr_buf name = { 0 }, devices = { 0 }, missing = { 0 };
	struct mcr_payload p = { 0 };
	int *ids = NULL, rc = -1;
	char *dn = NULL;

	memset(out, 0, sizeof(*out));
	if (r->engine != MCR_ENGINE_VLLM || !mcr_is_seq(dev) || dev->n == 0)
		return mcr_error_set(err, MCR_EINVAL,
				     "the recipe has no device_names_by_gpu; per-GPU client configs are for vLLM with options.device_names_by_gpu");
	if (count == 0)
		return mcr_error_set(err, MCR_EINVAL,
				     "the task has no GPUs (CUDA_VISIBLE_DEVICES is empty), but device_names_by_gpu needs each process's physical GPUs; request GPUs for the step (--gpus, --gres=gpu:N)");
	ids = malloc(count * sizeof(*ids));
	if (!ids)
		return mcr_err_nomem(err);
	memcpy(ids, gpu_ids, count * sizeof(*ids));
	qsort(ids, count, sizeof(*ids), cmp_int);
	mcr_buf_puts(&name, "mooncake_store_config_gpu");
	for (size_t i = 0; i < count; i++) {
		if (i && ids[i] == ids[i - 1])
			continue;
		mcr_buf_printf(&name, "%s%d", i ? "-" : "", ids[i]);
		if (ids[i] < 0 || (size_t)ids[i] >= dev->n) {
			mcr_buf_printf(&missing, "%s%d", missing.len ? ", " : "", ids[i]);
			continue;
		}
	}
	mcr_buf_puts(&name, ".json");
	if (missing.len) {
		mcr_error_set(err, MCR_EINVAL,
			      "mooncake device_names_by_gpu does not cover physical GPUs [%s]: the list has %zu entries (GPUs 0-%zu); give one HCA name per GPU of the node",
			      missing.p, dev->n, dev->n - 1);
		goto out;
	}
	/* HCA names in the order of the process's GPUs, duplicates removed */
	for (size_t i = 0; i < count; i++) {
		const char *hca = dev->items[gpu_ids[i]]->s;
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= strcmp(dev->items[gpu_ids[j]]->s, hca) == 0;
		if (!seen)
			mcr_buf_printf(&devices, "%s%s", devices.len ? "," : "", hca);
	}
	dn = mcr_buf_take(&devices);
	if (!dn || mcr_vllm_payload(r, effective_master(r, master_address), &p) ||
	    mcr_payload_set(&p, "device_name", NULL, dn)) {
		mcr_err_nomem(err);
		goto out;
	}
	out->name = mcr_buf_take(&name);
	out->text = mcr_payload_dumps(&p);
	if (!out->name || !out->text) {
		mcr_file_free(out);
		mcr_err_nomem(err);
		goto out;
	}
	rc = 0;
out:
	free(ids);
	free(dn);
	free(name.p);
	free(devices.p);
	free(missing.p);
	mcr_payload_free(&p);
	return rc;
}

/* ---- files ---------------------------------------------------------- */

int mcr_write_file_atomic(const char *dir, const char *name, const char *text,
			  size_t len, struct mcr_error *err)
{
	char *path = mcr_asprintf("%s/%s", dir, name);
	char *tmp = mcr_asprintf("%s/.%s.tmp.%ld", dir, name, (long)getpid());
	int fd = -1, rc = -1;
	size_t off = 0;

	if (!path || !tmp) {
		mcr_err_nomem(err);
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		mcr_error_set(err, MCR_EIO, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			mcr_error_set(err, MCR_EIO, "cannot write %s: %s", tmp,
				      n < 0 ? strerror(errno) : "short write");
			goto out;
		}
		off += (size_t)n;
	}
	if (fsync(fd) != 0) {
		mcr_error_set(err, MCR_EIO, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		mcr_error_set(err, MCR_EIO, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		mcr_error_set(err, MCR_EIO, "cannot rename %s to %s: %s", tmp, path,
			      strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc && tmp)
		unlink(tmp);
	free(path);
	free(tmp);
	return rc;
}

int mcr_write_files(const char *dir, const struct mcr_file_list *list,
		    struct mcr_error *err)
{
	for (size_t i = 0; i < list->count; i++)
		if (mcr_write_file_atomic(dir, list->files[i].name,
					  list->files[i].text,
					  strlen(list->files[i].text), err))
			return -1;
	return 0;
}

int mcr_mkdir_p(const char *path, unsigned mode, struct mcr_error *err)
{
	char *p = strdup(path);
	int rc = 0;

	if (!p)
		return mcr_err_nomem(err);
	for (char *s = p + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, (mode_t)mode) != 0 && errno != EEXIST) {
				rc = mcr_error_set(err, MCR_EIO,
						   "cannot create the directory %s: %s",
						   p, strerror(errno));
				break;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	if (rc == 0) {
		struct stat st;

		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			rc = mcr_error_set(err, MCR_EIO,
					   "%s is not a directory; remove it or choose another job directory",
					   path);
	}
	free(p);
	return rc;
}

char *mcr_expand_dir_template(const char *tmpl, const char *job_id,
			      const char *user, const char *submit_dir,
			      struct mcr_error *err)
{
	struct mcr_buf b = { 0 };
	const char *p = tmpl;

	if (!tmpl || !*tmpl) {
		mcr_error_set(err, MCR_EINVAL, "the job directory template is empty");
		return NULL;
	}
	if (tmpl[0] != '/' && strncmp(tmpl, "{submit_dir}", 12) != 0) {
		mcr_buf_puts(&b, submit_dir);
		mcr_buf_puts(&b, "/");
	}
	while (*p) {
		if (*p == '{') {
			const char *end = strchr(p, '}');
			size_t n = end ? (size_t)(end - p - 1) : 0;

			if (end && n == 6 && strncmp(p + 1, "job_id", 6) == 0)
				mcr_buf_puts(&b, job_id);
			else if (end && n == 4 && strncmp(p + 1, "user", 4) == 0)
				mcr_buf_puts(&b, user);
			else if (end && n == 10 && strncmp(p + 1, "submit_dir", 10) == 0)
				mcr_buf_puts(&b, submit_dir);
			else {
				free(b.p);
				mcr_error_set(err, MCR_EINVAL,
					      "the job directory '%s' has an unknown placeholder at '%s'; use {job_id}, {user} and {submit_dir}",
					      tmpl, p);
				return NULL;
			}
			p = end + 1;
			continue;
		}
		mcr_buf_add(&b, p, 1);
		p++;
	}
	while (b.len > 1 && b.p && b.p[b.len - 1] == '/')
		b.p[--b.len] = '\0';
	{
		char *s = mcr_buf_take(&b);

		if (!s)
			mcr_err_nomem(err);
		return s;
	}
}

/* ---- the master's argv (§4.1) -------------------------------------- */

static const char *const DEFAULT_FLAGS[] = {
	"--port=8700",
	"--enable_http_metadata_server=true",
	"--http_metadata_server_port=8701",
	"--eviction_high_watermark_ratio=0.9",
	"--default_kv_lease_ttl=10000",
	"--rpc_thread_num=16",
	"--enable_metric_reporting=true",
	"--metrics_port=8702",
	NULL,
};

int mcr_master_argv(const struct mcr_recipe *r, const char *binary,
		    char ***argv, struct mcr_error *err)
{
	const struct mcr_node *cmd = r->master_command, *args = r->master_args;
	size_t n = 0, cap = 0, i;
	char **v;

	*argv = NULL;
	if (!r->has_master || r->external)
		return mcr_error_set(err, MCR_EINVAL,
				     "the recipe starts no master (none declared, or external)");
	cap = 2 + (mcr_is_seq(cmd) ? cmd->n : 8) + (mcr_is_seq(args) ? args->n : 0);
	v = calloc(cap + 1, sizeof(*v));
	if (!v)
		return mcr_err_nomem(err);
	if (mcr_is_seq(cmd) && cmd->n > 0) {
		for (i = 0; i < cmd->n; i++)
			if (!(v[n++] = strdup(cmd->items[i]->s)))
				goto nomem;
	} else {
		if (!(v[n++] = strdup(binary)))
			goto nomem;
		for (i = 0; DEFAULT_FLAGS[i]; i++)
			if (!(v[n++] = strdup(DEFAULT_FLAGS[i])))
				goto nomem;
	}
	for (i = 0; mcr_is_seq(args) && i < args->n; i++)
		if (!(v[n++] = strdup(args->items[i]->s)))
			goto nomem;
	*argv = v;
	return 0;
nomem:
	mcr_strv_free(v);
	return mcr_err_nomem(err);
}

/* ---- worker environment (§5) --------------------------------------- */

static int env_set(struct mcr_env *env, const char *name, const char *value)
{
	struct mcr_env_var *v;
	char *val = strdup(value);

	if (!val)
		return -1;
	for (size_t i = 0; i < env->count; i++) {
		if (strcmp(env->vars[i].name, name) == 0) {
			free(env->vars[i].value);
			env->vars[i].value = val;
			return 0;
		}
	}
	v = realloc(env->vars, (env->count + 1) * sizeof(*v));
	if (!v) {
		free(val);
		return -1;
	}
	env->vars = v;
	v = &env->vars[env->count];
	v->value = val;
	if (!(v->name = strdup(name))) {
		free(val);
		return -1;
	}
	env->count++;
	return 0;
}

static int env_merge(struct mcr_env *env, const struct mcr_node *map)
{
	for (size_t i = 0; mcr_is_map(map) && i < map->n; i++) {
		char *k = mcr_key_str(map->keys[i]), *val = mcr_pystr(map->items[i]);
		int rc = k && val ? env_set(env, k, val) : -1;

		free(k);
		free(val);
		if (rc)
			return -1;
	}
	return 0;
}

const char *mcr_env_get(const struct mcr_env *env, const char *name)
{
	for (size_t i = 0; i < env->count; i++)
		if (strcmp(env->vars[i].name, name) == 0)
			return env->vars[i].value;
	return NULL;
}

void mcr_env_free(struct mcr_env *env)
{
	for (size_t i = 0; i < env->count; i++) {
		free(env->vars[i].name);
		free(env->vars[i].value);
	}
	free(env->vars);
	env->vars = NULL;
	env->count = 0;
}

int mcr_master_env(const struct mcr_recipe *r, struct mcr_env *out,
		   struct mcr_error *err)
{
	memset(out, 0, sizeof(*out));
	if (r->service && env_merge(out, mcr_map_get(r->service, "env"))) {
		mcr_env_free(out);
		return mcr_err_nomem(err);
	}
	return 0;
}

/* host part of "host:port" */
static char *host_of(const char *address)
{
	const char *colon = strrchr(address, ':');

	return colon ? strndup(address, (size_t)(colon - address)) : strdup(address);
}

int mcr_worker_env(const struct mcr_recipe *r, enum mcr_role role,
		   const struct mcr_env_input *in, struct mcr_env *out,
		   struct mcr_error *err)
{
	const char *master = r->has_master ? effective_master(r, in->master_address) : NULL;
	char *meta_host = NULL, *val = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!mcr_recipe_has_role(r, role))
		return mcr_error_set(err, MCR_EINVAL, "the recipe has no roles.%s",
				     mcr_role_name(role) ? mcr_role_name(role) : "?");
	if (env_merge(out, mcr_map_get(r->role_node[role], "env")) ||
	    env_merge(out, mcr_map_get(r->root, "environment")))
		goto nomem;
	if (!r->has_master) {
		rc = 0;
		goto out;
	}
	if (!master) {
		mcr_error_set(err, MCR_EINVAL,
			      "no master address for the worker environment");
		goto out;
	}
	if (!mcr_env_get(out, "MOONCAKE_LOCAL_HOSTNAME") && in->local_hostname &&
	    env_set(out, "MOONCAKE_LOCAL_HOSTNAME", in->local_hostname))
		goto nomem;
	if (env_merge(out, r->kv_env))
		goto nomem;
	meta_host = r->external ? host_of(r->external) :
		    strdup(in->metadata_host ? in->metadata_host : "");
	if (!meta_host || env_set(out, "MOONCAKE_MASTER", master))
		goto nomem;
	val = mcr_asprintf("http://%s:%d/metadata", meta_host, MCR_METADATA_PORT);
	if (!val || env_set(out, "MOONCAKE_TE_META_DATA_SERVER", val))
		goto nomem;
	free(val);
	val = NULL;
	if (mcr_recipe_role_reads_config(r, role)) {
		const char *name = in->config_name ? in->config_name :
						     mcr_client_config_name(r, role);

		val = mcr_asprintf("%s/%s", in->config_dir ? in->config_dir : ".", name);
		if (!val || env_set(out, "MOONCAKE_CONFIG_PATH", val))
			goto nomem;
	}
	rc = 0;
	goto out;
nomem:
	mcr_err_nomem(err);
out:
	if (rc)
		mcr_env_free(out);
	free(meta_host);
	free(val);
	return rc;
}
