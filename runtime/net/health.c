/*
 * health.c - what a master says of itself on its metrics port: GET
 * /health. In Mooncake's HA mode (0.3.13) it answers, e.g.,
 *   {"status":"ok","role":"leader","ha_state":"serving","service_ready":true,
 *    "leader_address":"10.0.0.11:8700","view_version":2}
 * and a standby "role":"standby", "service_ready":false. A master outside
 * HA mode answers other text: it leads alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "net/net.h"

#define HEALTH_MAX 4096

int mcri_master_health_parse(const char *body, struct mcri_master_health *h)
{
	json_t *o = json_loads(body ? body : "", 0, NULL), *v;
	const char *role, *leader;

	memset(h, 0, sizeof(*h));
	h->view = -1;
	if (!json_is_object(o)) {
		json_decref(o);
		return -1;
	}
	role = json_string_value(json_object_get(o, "role"));
	if (role && !strcmp(role, "leader"))
		h->role = MCRI_MASTER_LEADER;
	else if (role && !strcmp(role, "standby"))
		h->role = MCRI_MASTER_STANDBY;
	h->service_ready = json_is_true(json_object_get(o, "service_ready"));
	leader = json_string_value(json_object_get(o, "leader_address"));
	if (leader && strlen(leader) < sizeof(h->leader))
		strcpy(h->leader, leader);
	v = json_object_get(o, "view_version");
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		h->view = json_integer_value(v);
	json_decref(o);
	return 0;
}

int mcri_master_health(const char *host, int port, int timeout_ms, struct mcri_master_health *h, struct mcr_error *err)
{
	char *body = NULL;
	int status, rc;

	memset(h, 0, sizeof(*h));
	h->view = -1;
	if (mcri_http_get(host, port, "/health", timeout_ms, HEALTH_MAX, &status, &body, err))
		return -1;
	if (status != 200)
		rc = mcri_error_set(err, MCR_ESTATE, "%s:%d GET /health answered %d", host, port, status);
	else if ((rc = mcri_master_health_parse(body, h)))
		mcri_error_set(err, MCR_ESTATE, "%s:%d GET /health answered no JSON object: %.80s", host, port, body);
	free(body);
	if (rc)
		errno = EPROTO; /* an answer, not a master's */
	return rc;
}
