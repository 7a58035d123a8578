/*
 * fuzz_registry.c - libFuzzer target (make fuzz): the ports registry of a
 * node (spank/steps/ports.c), read by every master step's claim on the node.
 * Only root writes it, but it is read as if anyone could have: any bytes,
 * cut at the file's bound as the claim cuts them, through
 * mcp_registry_parse. Besides the sanitizers' findings it aborts when a
 * promise breaks:
 *  - every entry is a port 1-65535 with a pid and a start time above 0,
 *    and there are at most MCP_REGISTRY_MAX;
 *  - what is formatted again (mcp_registry_format) parses to the same
 *    entries, and fits the file's bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steps/ports.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...) (fprintf(stderr, __VA_ARGS__), abort())

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[MCP_REGISTRY_BYTES + 1], again[MCP_REGISTRY_BYTES + 1];
	static struct mcp_reservation r[MCP_REGISTRY_MAX], r2[MCP_REGISTRY_MAX];
	size_t n, n2, len;

	if (size > MCP_REGISTRY_BYTES)
		size = MCP_REGISTRY_BYTES;
	memcpy(text, data, size);
	text[size] = '\0';
	n = mcp_registry_parse(text, r, MCP_REGISTRY_MAX);
	if (n > MCP_REGISTRY_MAX)
		FAIL("%zu entries\n", n);
	for (size_t i = 0; i < n; i++)
		if (r[i].port < 1 || r[i].port > 65535 || r[i].pid <= 0 || r[i].start == 0 || r[i].job == 0)
			FAIL("entry %zu: %d %ld %llu %lu\n", i, r[i].port, r[i].pid, r[i].start, r[i].job);
	len = mcp_registry_format(r, n, again, sizeof(again));
	if (len >= sizeof(again) || strlen(again) != len)
		FAIL("%zu bytes formatted\n", len);
	n2 = mcp_registry_parse(again, r2, MCP_REGISTRY_MAX);
	if (n2 != n)
		FAIL("%zu entries formatted again read as %zu\n", n, n2);
	for (size_t i = 0; i < n; i++)
		if (r[i].port != r2[i].port || r[i].pid != r2[i].pid || r[i].start != r2[i].start ||
		    r[i].job != r2[i].job)
			FAIL("entry %zu formatted again reads otherwise\n", i);
	return 0;
}
