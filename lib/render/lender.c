/*
 * lender.c - a memory lender's command line (render.h; its environment is
 * env.c's): the wheel's store service, or TRT-LLM's donor, as srtctl runs
 * them, with the service's `command` in place of the program and its
 * `args` after the flags.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"

/* the program of each kind, when the service names no command. The
 * wheel's store service serves its REST API (put, get, remove, mount of
 * any path as the job's user, ...: no authentication) on 0.0.0.0, with no
 * flag to bind it elsewhere: the plugin runs it as python -m would, its
 * aiohttp site bound to the loopback address, so that no other host
 * reaches it (spank_mooncake(8), SECURITY) */
#define STORE_BOOTSTRAP                                                                                                \
	"import runpy, aiohttp.web as w\n"                                                                             \
	"class Loopback(w.TCPSite):\n"                                                                                 \
	"    def __init__(self, runner, host=None, port=None, **kw):\n"                                                \
	"        super().__init__(runner, '127.0.0.1', port, **kw)\n"                                                  \
	"w.TCPSite = Loopback\n"                                                                                       \
	"runpy.run_module('mooncake.mooncake_store_service', run_name='__main__', alter_sys=True)\n"
static const char *const STORE_PROGRAM[] = { "python3", "-c", STORE_BOOTSTRAP, NULL };
static const char *const DONOR_PROGRAM[] = { "trtllm-serve", "mooncake_donor", NULL };

char *mcri_donor_ready_file(const char *node)
{
	return mcri_asprintf("mooncake/donor-%s.ready", node);
}

char *mcri_donor_run_dir(const char *node)
{
	return mcri_asprintf("mooncake/donor-%s", node);
}

/* one more word at v[*n] (heap; v has room) */
static int push(char **v, size_t *n, char *word)
{
	if (!word)
		return -1;
	v[(*n)++] = word;
	return 0;
}

int mcri_lender_argv(const struct mcr_recipe *r, const struct mcri_lender *l, const struct mcri_lender_at *at,
		     char ***argv, struct mcr_error *err)
{
	const struct mcri_node *cmd = mcri_map_get(l->entry, "command");
	const struct mcri_node *args = mcri_map_get(l->entry, "args");
	const struct mcri_node *options = mcri_map_get(l->entry, "options");
	const struct mcri_node *size = mcri_map_get(options, "size");
	const struct mcri_node *protocol = mcri_map_get(options, "protocol");
	const char *const *program = l->kind == MCRI_LENDER_STORE ? STORE_PROGRAM : DONOR_PROGRAM;
	size_t n = 0, cap = 16 + (mcri_is_seq(cmd) ? cmd->n : 0) + (mcri_is_seq(args) ? args->n : 0);
	char **v, *ready = NULL;
	int fail = 0;

	(void)r;
	*argv = NULL;
	if ((l->kind == MCRI_LENDER_STORE && at->port <= 0) || (l->kind == MCRI_LENDER_DONOR && !at->master))
		return mcri_error_set(err, MCR_EINVAL, "no %s for the lender %s",
				      l->kind == MCRI_LENDER_STORE ? "port" : "master address", l->name);
	if (!(v = calloc(cap + 1, sizeof(*v))))
		return mcri_error_nomem(err);
	if (mcri_is_seq(cmd) && cmd->n)
		for (size_t i = 0; i < cmd->n && !fail; i++)
			fail = push(v, &n, strdup(cmd->items[i]->s));
	else
		for (size_t i = 0; program[i] && !fail; i++)
			fail = push(v, &n, strdup(program[i]));
	if (!fail && l->kind == MCRI_LENDER_STORE) {
		fail = push(v, &n, mcri_asprintf("--port=%d", at->port)) ||
		       push(v, &n, mcri_asprintf("--max-wait-time=%d", at->timeout > 0 ? at->timeout : 120));
	} else if (!fail) {
		char *rel = mcri_donor_ready_file(at->node);

		ready = rel ? mcri_asprintf("%s/%s", at->dir ? at->dir : ".", rel) : NULL;
		free(rel);
		fail = push(v, &n, strdup("--master_server_address")) || push(v, &n, strdup(at->master)) ||
		       push(v, &n, strdup("--segment_size")) ||
		       push(v, &n, mcri_is_str(size) ? strdup(size->s) : mcri_asprintf("%lld", size ? size->i : 0)) ||
		       push(v, &n, strdup("--protocol")) ||
		       push(v, &n, strdup(mcri_is_str(protocol) ? protocol->s : "rdma")) ||
		       push(v, &n, strdup("--ready_file")) || push(v, &n, ready);
		ready = NULL;
	}
	for (size_t i = 0; !fail && mcri_is_seq(args) && i < args->n; i++)
		fail = push(v, &n, strdup(args->items[i]->s));
	if (fail) {
		mcr_strv_free(v);
		return mcri_error_nomem(err);
	}
	*argv = v;
	return 0;
}
