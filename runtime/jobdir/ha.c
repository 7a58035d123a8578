/*
 * ha.c - an HA pool as the state file records it (struct mcri_ha,
 * jobdir.h): its masters' nodes and addresses, its etcd's members and
 * ports, and the address its clients are given.
 */
#include <stdio.h>
#include <string.h>

#include "jobdir/json.h"

/* "SCHEME" then each etcd member's ADDR:PORT, joined by ';' */
static bool join(const struct mcri_ha *ha, const char *scheme, char *buf, size_t size)
{
	size_t len = 0;

	if (ha->masters < 2 || ha->etcd_members < 1 || ha->etcd_members > ha->masters || !size)
		return false;
	buf[0] = '\0';
	for (int k = 0; k < ha->etcd_members; k++) {
		int w = snprintf(buf + len, size - len, "%s%s:%d", k ? ";" : scheme,
				 ha->member[k].addr, ha->etcd_client);

		if (w < 0 || (size_t)w >= size - len)
			return false;
		len += (size_t)w;
	}
	return true;
}

bool mcri_ha_address(const struct mcri_ha *ha, char *buf, size_t size)
{
	return join(ha, MCR_HA_SCHEME, buf, size);
}

bool mcri_ha_endpoints(const struct mcri_ha *ha, char *buf, size_t size)
{
	return join(ha, "", buf, size);
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
		if (json_array_append_new(members, json_pack("{s:s, s:s}", "node", ha->member[k].node,
							     "addr", ha->member[k].addr))) {
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
