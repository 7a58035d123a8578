/*
 * fuzz_handover.c - libFuzzer target (make fuzz): the handover variable
 * (MCP_TASK_VAR), which srun puts in each task's environment and
 * slurmstepd reads in every task (spank/plugin/handover.c): any bytes through
 * mcp_handover_decode, then what a task does with a handover: each value
 * with the node's address filled in, the per-GPU file for GPU 0. Besides
 * the sanitizers' findings it aborts when a promise breaks:
 *  - a failed decode leaves nothing (and its message starts
 *    "mooncake: ");
 *  - a handover that decodes is encoded and decoded again to the same
 *    one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/handover.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...) (fprintf(stderr, __VA_ARGS__), abort())

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void same(const struct mcp_handover *a, const struct mcp_handover *b)
{
	bool ok = a->env.count == b->env.count && strcmp(a->mark, b->mark) == 0 && strcmp(a->peer, b->peer) == 0 &&
		  same_str(a->role, b->role) && same_str(a->dir, b->dir) && same_str(a->gpu_dir, b->gpu_dir) &&
		  same_str(a->gpu_template, b->gpu_template) && a->gpu_count == b->gpu_count &&
		  same_str(a->node_dir, b->node_dir) && same_str(a->node_name, b->node_name) &&
		  same_str(a->node_template, b->node_template) && same_str(a->pyxis.image, b->pyxis.image) &&
		  same_str(a->pyxis.mounts, b->pyxis.mounts) && same_str(a->pyxis.env, b->pyxis.env) &&
		  same_str(a->pyxis.missing, b->pyxis.missing) && same_str(a->pyxis.was, b->pyxis.was) &&
		  a->pyxis.had == b->pyxis.had;

	for (size_t i = 0; ok && i < a->env.count; i++)
		ok = strcmp(a->env.vars[i].name, b->env.vars[i].name) == 0 &&
		     strcmp(a->env.vars[i].value, b->env.vars[i].value) == 0;
	for (size_t i = 0; ok && i < a->gpu_count; i++)
		ok = strcmp(a->gpu_names[i], b->gpu_names[i]) == 0;
	if (!ok)
		FAIL("a handover encoded and decoded again differs\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp_handover h, again;
	struct mcr_error err;
	char msg[MCR_ERROR_MESSAGE_LENGTH], *text = malloc(size + 1), *enc;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (mcp_handover_decode(text, &h, &err)) {
		mcr_error_format(&err, msg, sizeof(msg));
		if (strncmp(msg, "mooncake: ", 10) != 0)
			FAIL("a message without the prefix: %s\n", msg);
		if (h.env.vars || h.role || h.gpu_names || h.node_name)
			FAIL("a failed decode left something\n");
		free(text);
		return 0;
	}
	for (size_t i = 0; i < h.env.count; i++)
		free(mcp_handover_fill(&h, h.env.vars[i].value, "10.0.0.1"));
	if (h.gpu_template) {
		struct mcr_file f;
		const int gpu0 = 0;

		if (mcp_handover_gpu_file(&h, &gpu0, 1, &f, &err) == 0)
			mcr_file_free(&f);
	}
	if (!(enc = mcp_handover_encode(&h, &err)))
		FAIL("a decoded handover cannot be encoded: %s\n", err.text);
	if (mcp_handover_decode(enc, &again, &err))
		FAIL("a handover encoded again does not decode: %s\n", err.text);
	same(&h, &again);
	mcp_handover_free(&again);
	mcp_handover_free(&h);
	free(enc);
	free(text);
	return 0;
}
