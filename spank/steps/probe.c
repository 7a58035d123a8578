/*
 * master_probe.c - is a master there, and ready? The readiness probes of
 * a job's master (TCP on its RPC port, GET /health on its metadata and
 * metrics ports, the job's token on its metadata server) and the look
 * for a listener on ports before a master is started there, for the
 * srun that starts or joins a pool (master.c, master_look.c) and an HA
 * pool's members (master_ha.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "steps/step.h"

/* errno of a failed probe: did the host answer at all? (a timeout is not
 * a refusal) */
static enum mcp_probe failed_probe(void)
{
	switch (errno) {
	case ETIMEDOUT:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
	case ENETDOWN:
		return MCP_PROBE_NO_ANSWER;
	default:
		return MCP_PROBE_REFUSED;
	}
}

enum mcp_probe mcp_probe_master(const char *addr, const struct mcr_ports *ports,
				const char *key_path, const char *token, bool health,
				char *why, size_t why_size)
{
	struct mcr_error reason;
	char body[256];
	int status;

	if (mcri_tcp_probe(addr, ports->rpc, MCP_PROBE_TIMEOUT_MS, &reason)) {
		enum mcp_probe r = failed_probe();

		snprintf(why, why_size, "port %d (RPC) does not accept: %.200s", ports->rpc, reason.text);
		return r;
	}
	for (int k = 0; health && k < 2; k++) {
		int port = k ? ports->metrics : ports->metadata;
		const char *what = k ? "metrics" : "metadata";

		if (mcri_http(addr, port, "GET", "/health", NULL, MCP_PROBE_TIMEOUT_MS, &status,
			      body, sizeof(body), &reason)) {
			enum mcp_probe r = failed_probe();

			snprintf(why, why_size, "port %d (%s) GET /health: %.200s", port, what, reason.text);
			return r;
		}
		if (status != 200 || (!k && strncmp(body, "OK", 2) != 0)) {
			snprintf(why, why_size, "port %d (%s) GET /health answered %d", port, what, status);
			return MCP_PROBE_REFUSED;
		}
	}
	if (!token)
		return MCP_PROBE_READY;
	if (mcri_http(addr, ports->metadata, "GET", key_path, NULL, MCP_PROBE_TIMEOUT_MS, &status,
		      body, sizeof(body), &reason)) {
		enum mcp_probe r = failed_probe();

		snprintf(why, why_size, "port %d GET %s: %.200s", ports->metadata, key_path, reason.text);
		return r;
	}
	if (status != 200 || strcmp(body, token) != 0) {
		snprintf(why, why_size,
			 "a master answers on %s, but it is not the one this job started (its metadata server does not know this job)",
			 addr);
		return MCP_PROBE_REFUSED;
	}
	return MCP_PROBE_READY;
}

int mcp_busy_port(const char *addr, const struct mcr_ports *ports)
{
	const int p[3] = { ports->rpc, ports->metadata, ports->metrics };

	for (int k = 0; k < 3; k++) {
		struct mcr_error reason;

		/* a lender's store has one port (lender.c) */
		if (p[k] > 0 && mcri_tcp_probe(addr, p[k], MCP_PROBE_TIMEOUT_MS, &reason) == 0)
			return p[k];
	}
	return 0;
}
