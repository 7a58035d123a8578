/*
 * ha.c - an HA pool as the state file records it (struct mcri_ha,
 * jobdir.h): its masters' nodes and addresses, its etcd's members and
 * ports, and the address its clients are given.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jobdir/json.h"
#include "net/net.h"

bool mcri_ha_join(const struct mcri_ha *ha, int n, const char *sep,
		  int (*item)(char *out, size_t size, const struct mcri_ha *ha, int k), char *buf, size_t size)
{
	size_t len = 0;

	if (!size || n < 1 || n > ha->masters || n > MCRI_HA_MAX)
		return false;
	buf[0] = '\0';
	for (int k = 0; k < n; k++) {
		int w = k ? snprintf(buf + len, size - len, "%s", sep) : 0;

		if (w < 0 || (size_t)w >= size - len)
			return false;
		len += (size_t)w;
		w = item(buf + len, size - len, ha, k);
		if (w < 0 || (size_t)w >= size - len)
			return false;
		len += (size_t)w;
	}
	return true;
}

/* an etcd member's ADDR:PORT */
static int endpoint(char *out, size_t size, const struct mcri_ha *ha, int k)
{
	return snprintf(out, size, "%s:%d", ha->member[k].addr, ha->etcd_client);
}

bool mcri_ha_address(const struct mcri_ha *ha, char *buf, size_t size)
{
	size_t n = strlen(MCR_HA_SCHEME);

	if (size <= n || ha->etcd_members < 1 || !mcri_ha_join(ha, ha->etcd_members, ";", endpoint, buf + n, size - n))
		return false;
	memcpy(buf, MCR_HA_SCHEME, n);
	return true;
}

bool mcri_ha_endpoints(const struct mcri_ha *ha, char *buf, size_t size)
{
	return ha->etcd_members >= 1 && mcri_ha_join(ha, ha->etcd_members, ";", endpoint, buf, size);
}

int mcri_ha_leader(const struct mcri_state *st, int timeout_ms, struct mcri_master_health *health, bool *answered,
		   int *answering, int *refusing)
{
	int leader = -1;

	*answering = 0;
	*refusing = 0;
	for (int k = 0; k < st->ha.masters && k < MCRI_HA_MAX; k++) {
		struct mcr_error ignored;

		answered[k] = mcri_master_health(st->ha.member[k].addr, st->ports.metrics, timeout_ms, &health[k],
						 &ignored) == 0;
		*answering += answered[k];
		/* the host answered, but no master there did */
		*refusing += !answered[k] && errno != ETIMEDOUT && errno != EHOSTUNREACH && errno != ENETUNREACH &&
			     errno != EHOSTDOWN && errno != ENETDOWN;
		if (answered[k] && leader < 0 && health[k].role == MCRI_MASTER_LEADER && health[k].service_ready)
			leader = k;
	}
	return leader;
}

bool mcri_state_master(const struct mcri_state *st, char *buf, size_t size)
{
	int w;

	if (st->ha.masters)
		return mcri_ha_address(&st->ha, buf, size);
	w = snprintf(buf, size, "%s:%d", st->infra_addr, st->ports.rpc);
	return w >= 0 && (size_t)w < size;
}

int mcri_ha_member_of(const struct mcri_ha *ha, const char *node)
{
	for (int k = 0; k < ha->masters && k < MCRI_HA_MAX; k++)
		if (node && strcmp(ha->member[k].node, node) == 0)
			return k;
	return -1;
}

json_t *mcri_ha_pack(const struct mcri_ha *ha)
{
	json_t *members = json_array();

	for (int k = 0; members && k < ha->masters && k < MCRI_HA_MAX; k++)
		if (json_array_append_new(members, json_pack("{s:s, s:s}", "node", ha->member[k].node, "addr",
							     ha->member[k].addr))) {
			json_decref(members);
			members = NULL;
		}
	return json_pack("{s:o, s:i, s:i, s:i}", "masters", members, "etcd_members", ha->etcd_members,
			 "etcd_client_port", ha->etcd_client, "etcd_peer_port", ha->etcd_peer);
}

void mcri_ha_unpack(const json_t *obj, struct mcri_ha *ha)
{
	const json_t *members = json_object_get(obj, "masters");
	size_t n = json_array_size(members);

	memset(ha, 0, sizeof(*ha));
	/* an HA pool has 2 or 3 masters, its etcd 1 member or one on each,
	 * and ports: anything else is a pool of one */
	if (n < 2 || n > MCRI_HA_MAX)
		return;
	ha->etcd_members = (int)mcri_json_int(obj, "etcd_members");
	ha->etcd_client = mcri_json_port(obj, "etcd_client_port", 0);
	ha->etcd_peer = mcri_json_port(obj, "etcd_peer_port", 0);
	for (size_t k = 0; k < n; k++) {
		const json_t *m = json_array_get(members, k);

		mcri_json_str(ha->member[k].node, sizeof(ha->member[k].node), m, "node");
		mcri_json_str(ha->member[k].addr, sizeof(ha->member[k].addr), m, "addr");
		if (!ha->member[k].node[0] || !ha->member[k].addr[0])
			goto none;
	}
	ha->masters = (int)n;
	if ((ha->etcd_members == 1 || ha->etcd_members == ha->masters) && ha->etcd_client && ha->etcd_peer)
		return;
none:
	memset(ha, 0, sizeof(*ha));
}
