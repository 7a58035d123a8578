/* test_ha.c - an HA pool (plugstack ha=etcd) as the library and the
 * runtime see it: which recipes its clients can use (rule H1,
 * mcr_recipe_ha_check), the etcd:// address in the client configs and
 * the environment, the pool in the state file and each master's proof,
 * and what a master says of itself on /health. */
#include <jansson.h>
#include <unistd.h>

#include "net/net.h"
#include "pool/pool.h"
#include "testutil.h"

#define VLLM(store)                                                                                                    \
	"schema: 2\n"                                                                                                  \
	"model: {path: 'hf:Qwen/Qwen3-0.6B'}\n"                                                                        \
	"engine: vllm\n"                                                                                               \
	"roles:\n"                                                                                                     \
	"  prefill: {args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}}\n"                   \
	"services:\n"                                                                                                  \
	"  - name: mooncake-master\n"                                                                                  \
	"    type: mooncake-master\n"                                                                                  \
	"    options:\n"                                                                                               \
	"      store_config: " store "\n"

#define HA_MASTER "etcd://10.0.0.1:8703;10.0.0.2:8703;10.0.0.3:8703"

/* what mcr_recipe_ha_check says of `yaml`: "" when it passes */
static const char *ha_check(const char *yaml, enum mcr_error_code *code)
{
	static char msg[MCR_ERROR_MESSAGE_LENGTH];
	struct mcr_recipe *r = load_ok(yaml);
	struct mcr_error err = { 0 };

	msg[0] = '\0';
	*code = MCR_E_NONE;
	if (mcr_recipe_ha_check(r, &err)) {
		snprintf(msg, sizeof(msg), "%s", errmsg(&err));
		*code = err.code;
	}
	mcr_recipe_free(r);
	return msg;
}

START_TEST(ha_clients_refused)
{
	enum mcr_error_code code;

	ck_assert_str_eq(ha_check(VLLM("{protocol: tcp}"), &code), "");
	ck_assert_str_eq(ha_check(VLLM("{metadata_server: P2PHANDSHAKE}"), &code), "");
	ck_assert_str_eq(
		ha_check(VLLM("{metadata_server: 'http://h:8080/metadata'}"), &code),
		"mooncake: r.yaml:10:39: services[mooncake-master].options.store_config.metadata_server: 'http://h:8080/metadata', but the job's pool is an HA pool (ha=etcd in plugstack.conf): its clients find the leader through etcd, and each master's HTTP metadata server is its own, so a standby that takes over knows nothing of it; write metadata_server: P2PHANDSHAKE, or leave it out");
	ck_assert_int_eq(code, MCR_E_H1);
	ck_assert_str_eq(mcr_error_code_name(MCR_E_H1), "H1");
	ck_assert_str_eq(ha_check(SGLANG_ENV_RECIPE("{MOONCAKE_CHECK_SERVER: 'false'}"), &code), "");
	ck_assert_contains(
		ha_check(SGLANG_ENV_RECIPE("{MOONCAKE_CHECK_SERVER: 'Yes'}"), &code),
		"r.yaml:4:42: roles.prefill.env.MOONCAKE_CHECK_SERVER: 'Yes', but the job's pool is an HA pool");
	ck_assert_int_eq(code, MCR_E_H1);
	ck_assert_contains(ha_check(VLLM("{protocol: tcp}\n    external: '10.9.9.9:50051'"), &code),
			   "this recipe's master is external (10.9.9.9:50051)");
	ck_assert_int_eq(code, MCR_E_H1);
}
END_TEST

/* the clients get the etcd:// address as it is, and P2PHANDSHAKE for
 * their transfer metadata */
START_TEST(ha_address_rendered)
{
	struct mcr_recipe *r = load_ok(SGLANG_ENV_RECIPE("{MOONCAKE_PROTOCOL: tcp}"));
	struct mcr_env_input in = { HA_MASTER, "10.0.0.1", "/d", NULL, "10.0.0.7", 8701 };
	struct mcr_error err = { 0 };
	struct mcr_file_list files;
	struct mcr_env env;

	ck_assert_int_eq(mcr_worker_env(r, MCR_ROLE_PREFILL, &in, &env, &err), 0);
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_MASTER"), HA_MASTER);
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_TE_META_DATA_SERVER"), "P2PHANDSHAKE");
	mcr_env_free(&env);
	in.master_address = "10.0.0.1:8700";
	ck_assert_int_eq(mcr_worker_env(r, MCR_ROLE_PREFILL, &in, &env, &err), 0);
	ck_assert_str_eq(mcr_env_get(&env, "MOONCAKE_TE_META_DATA_SERVER"), "http://10.0.0.1:8701/metadata");
	mcr_env_free(&env);
	mcr_recipe_free(r);
	r = load_ok(VLLM("{protocol: tcp}"));
	ck_assert_int_eq(mcr_client_configs(r, HA_MASTER, &files, &err), 0);
	ck_assert_uint_eq(files.count, 1);
	ck_assert_contains(files.files[0].text, "\"master_server_address\": \"" HA_MASTER "\"");
	ck_assert_contains(files.files[0].text, "\"metadata_server\": \"P2PHANDSHAKE\"");
	mcr_file_list_free(&files);
	mcr_recipe_free(r);
}
END_TEST

static void member(struct mcri_ha *ha, int k, const char *node, const char *addr)
{
	snprintf(ha->member[k].node, sizeof(ha->member[k].node), "%s", node);
	snprintf(ha->member[k].addr, sizeof(ha->member[k].addr), "%s", addr);
}

/* the pool in the state file: written and read back; its address; a
 * record damaged or written by hand is a pool of one */
START_TEST(ha_state)
{
	struct mcri_state st = { .phase = MCRI_PHASE_READY, .attempt = 1, .ports = { 8700, 8701, 8702 } }, back;
	struct mcri_ha *ha = &st.ha;
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	char base[256], path[300], buf[256];

	ha->masters = 3;
	ha->etcd_members = 3;
	ha->etcd_client = 8703;
	ha->etcd_peer = 8704;
	member(ha, 0, "n1", "10.0.0.1");
	member(ha, 1, "n2", "10.0.0.2");
	member(ha, 2, "n3", "10.0.0.3");
	ck_assert(mcri_ha_address(ha, buf, sizeof(buf)));
	ck_assert_str_eq(buf, HA_MASTER);
	ck_assert(mcri_ha_endpoints(ha, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "10.0.0.1:8703;10.0.0.2:8703;10.0.0.3:8703");
	ck_assert(!mcri_ha_address(ha, buf, 20));
	ck_assert_int_eq(mcri_ha_member_of(ha, "n3"), 2);
	ck_assert_int_eq(mcri_ha_member_of(ha, "n4"), -1);
	testutil_tmpdir(base, sizeof(base), "ha");
	snprintf(path, sizeof(path), "%s/%s", base, MCRI_STATE_FILE);
	ck_assert_int_eq(mcri_jobdir_open(&d, base, getuid(), false, &err), 0);
	ck_assert_int_eq(mcri_state_write(&d, &st, &err), 0);
	ck_assert_int_eq(mcri_state_read(&d, &back, &err), 0);
	ck_assert_int_eq(back.ha.masters, 3);
	ck_assert_int_eq(back.ha.etcd_members, 3);
	ck_assert_int_eq(back.ha.etcd_client, 8703);
	ck_assert_int_eq(back.ha.etcd_peer, 8704);
	ck_assert_str_eq(back.ha.member[2].node, "n3");
	ck_assert_str_eq(back.ha.member[1].addr, "10.0.0.2");
	/* two masters share one etcd member */
	ha->masters = 2;
	ha->etcd_members = 1;
	ck_assert(mcri_ha_address(ha, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "etcd://10.0.0.1:8703");
	/* a pool of one has no "ha" */
	memset(ha, 0, sizeof(*ha));
	ck_assert(!mcri_ha_address(ha, buf, sizeof(buf)));
	ck_assert_int_eq(mcri_state_write(&d, &st, &err), 0);
	ck_assert_int_eq(mcri_state_read(&d, &back, &err), 0);
	ck_assert_int_eq(back.ha.masters, 0);
	/* by hand: 2 etcd members of 3 masters, a member without an address,
	 * four masters: none is an HA pool */
	testutil_write(
		path,
		"{\"state\": \"ready\", \"ha\": {\"masters\": [{\"node\": \"a\", \"addr\": \"1\"}, {\"node\": \"b\", \"addr\": \"2\"}, {\"node\": \"c\", \"addr\": \"3\"}], \"etcd_members\": 2, \"etcd_client_port\": 1, \"etcd_peer_port\": 2}}");
	ck_assert_int_eq(mcri_state_read(&d, &back, &err), 0);
	ck_assert_int_eq(back.ha.masters, 0);
	testutil_write(
		path,
		"{\"state\": \"ready\", \"ha\": {\"masters\": [{\"node\": \"a\", \"addr\": \"1\"}, {\"node\": \"b\"}], \"etcd_members\": 1, \"etcd_client_port\": 1, \"etcd_peer_port\": 2}}");
	ck_assert_int_eq(mcri_state_read(&d, &back, &err), 0);
	ck_assert_int_eq(back.ha.masters, 0);
	testutil_write(
		path,
		"{\"state\": \"ready\", \"ha\": {\"masters\": [{\"node\": \"a\", \"addr\": \"1\"}, {\"node\": \"b\", \"addr\": \"2\"}], \"etcd_members\": 1, \"etcd_client_port\": 1, \"etcd_peer_port\": 70000}}");
	ck_assert_int_eq(mcri_state_read(&d, &back, &err), 0);
	ck_assert_int_eq(back.ha.masters, 0);
	mcri_jobdir_close(&d);
	testutil_rmrf(base);
}
END_TEST

/* each master of an HA pool proves its own ports, in a file of its own */
START_TEST(ha_proofs)
{
	struct mcri_proof p = { .attempt = 4,
				.member = 2,
				.ha = true,
				.verdict = MCRI_PROOF_OWN,
				.ports = { 8700, 8701, 8702 } },
			  back;
	struct mcri_jobdir d;
	struct mcr_error err = { 0 };
	char base[256], path[300];

	testutil_tmpdir(base, sizeof(base), "haproof");
	ck_assert_int_eq(mcri_jobdir_open(&d, base, getuid(), false, &err), 0);
	ck_assert_int_eq(mcri_proof_write(&d, &p, &err), 0);
	snprintf(path, sizeof(path), "%s/mooncake_master.proof.2.json", base);
	ck_assert(access(path, F_OK) == 0);
	ck_assert_int_eq(mcri_proof_of_attempt(&d, 4, &back), -1); /* the first master has none */
	ck_assert_int_eq(mcri_proof_of_member(&d, 4, 2, &back), 0);
	ck_assert(back.ha);
	ck_assert_int_eq(back.member, 2);
	ck_assert_int_eq(mcri_proof_of_member(&d, 5, 2, &back), -1);
	ck_assert_int_eq(mcri_proof_read_member(&d, 3, &back, &err), -1);
	p.member = 3;
	ck_assert_int_eq(mcri_proof_write(&d, &p, &err), -1);
	p.member = 0;
	ck_assert_int_eq(mcri_proof_write(&d, &p, &err), 0);
	ck_assert_int_eq(mcri_proof_of_attempt(&d, 4, &back), 0);
	ck_assert_int_eq(back.member, 0);
	mcri_jobdir_close(&d);
	testutil_rmrf(base);
}
END_TEST

/* /health as mooncake_master 0.3.13 answers it in HA mode, and outside */
START_TEST(ha_health)
{
	struct mcri_master_health h;

	ck_assert_int_eq(
		mcri_master_health_parse(
			"{\"status\":\"ok\",\"role\":\"leader\",\"ha_state\":\"serving\",\"service_ready\":true,\"leader_address\":\"10.0.0.2:8700\",\"view_version\":7}",
			&h),
		0);
	ck_assert_int_eq(h.role, MCRI_MASTER_LEADER);
	ck_assert(h.service_ready);
	ck_assert_str_eq(h.leader, "10.0.0.2:8700");
	ck_assert_int_eq(h.view, 7);
	ck_assert_int_eq(
		mcri_master_health_parse(
			"{\"status\":\"ok\",\"role\":\"standby\",\"service_ready\":false,\"leader_address\":\"10.0.0.2:8700\"}",
			&h),
		0);
	ck_assert_int_eq(h.role, MCRI_MASTER_STANDBY);
	ck_assert(!h.service_ready);
	ck_assert_int_eq(h.view, -1);
	ck_assert_int_eq(mcri_master_health_parse("OK", &h), -1);
	ck_assert_int_eq(h.role, MCRI_MASTER_UNKNOWN);
	ck_assert_int_eq(
		mcri_master_health_parse("{\"role\": 3, \"leader_address\": \""
					 "0123456789012345678901234567890123456789012345678901234567890123456789\"}",
					 &h),
		0);
	ck_assert_int_eq(h.role, MCRI_MASTER_UNKNOWN);
	ck_assert_str_eq(h.leader, "");
}
END_TEST

/* the report of an HA pool: each master's role, and each change of
 * leader seen at a sample (status --json has the roles, not the changes) */
START_TEST(ha_report_failovers)
{
	struct mcri_report r = { 0 };
	struct mcri_pool pool = { .leader = 0 };
	struct mcr_error err = { 0 };
	const char *leaders[] = { "n1", "n1", "n2", "n2", "n3" };
	json_t *o, *h;
	char *text;

	pool.master.ha.masters = 3;
	pool.master.ha.etcd_members = 3;
	pool.master.ha.etcd_client = 8703;
	member(&pool.master.ha, 0, "n1", "10.0.0.1");
	member(&pool.master.ha, 1, "n2", "10.0.0.2");
	member(&pool.master.ha, 2, "n3", "10.0.0.3");
	for (int i = 0; i < 5; i++) {
		struct mcri_sample s = { 1700000000.0 + i, 0, 0, 0, 0 };

		pool.leader = leaders[i][1] - '1';
		for (int k = 0; k < 3; k++) {
			pool.health[k].view = -1;
			pool.answered[k] = k != 0 || i < 2; /* n1 is gone after its leadership */
			pool.health[k].role = k == pool.leader ? MCRI_MASTER_LEADER : MCRI_MASTER_STANDBY;
		}
		ck_assert_int_eq(mcri_report_add_sample(&r, &s, &err), 0);
		ck_assert_int_eq(mcri_report_note_pool(&r, &pool, &err), 0);
	}
	ck_assert_uint_eq(r.failovers, 2);
	ck_assert_str_eq(r.failover[0].from, "n1");
	ck_assert_str_eq(r.failover[0].to, "n2");
	ck_assert(r.failover[0].at == 1700000002.0);
	ck_assert_str_eq(r.failover[1].to, "n3");
	text = mcri_report_json(&r);
	ck_assert_ptr_nonnull(text);
	o = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(o);
	h = json_object_get(o, "ha");
	ck_assert_str_eq(json_string_value(json_object_get(h, "leader")), "n3");
	ck_assert_int_eq(json_integer_value(json_object_get(h, "failovers")), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(h, "failover"), 1), "from")),
			 "n2");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(h, "masters"), 0), "role")),
			 "no answer");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(h, "masters"), 2), "role")),
			 "leader");
	json_decref(o);
	free(text);
	/* with views: a master that leads again after a restart is a
	 * failover too, the same view is none */
	pool.health[2].view = 7;
	ck_assert_int_eq(mcri_report_note_pool(&r, &pool, &err), 0);
	pool.health[2].view = 9;
	ck_assert_int_eq(mcri_report_note_pool(&r, &pool, &err), 0);
	ck_assert_int_eq(mcri_report_note_pool(&r, &pool, &err), 0);
	ck_assert_uint_eq(r.failovers, 3);
	ck_assert_str_eq(r.failover[2].from, "n3");
	ck_assert_str_eq(r.failover[2].to, "n3");
	for (int k = 0; k < 3; k++)
		pool.health[k].view = -1;
	/* more changes than kept: the last ones, counted all */
	for (int i = 0; i < 40; i++) {
		pool.leader = i % 2;
		ck_assert_int_eq(mcri_report_note_pool(&r, &pool, &err), 0);
	}
	ck_assert_uint_eq(r.nfailover, MCRI_FAILOVERS_KEPT);
	ck_assert_uint_eq(r.failovers, 43);
	mcri_report_free(&r);
}
END_TEST

/* What an HA pool's keepers read of its etcd's gateway: the value of
 * every mooncake-store/<cluster>/master_view (base64, decoded; other keys
 * skipped), every member's peer URLs (one added that never came has
 * none), at most the caller's count; anything but a JSON object refused */
START_TEST(ha_etcd_answers_parsed)
{
	/* mooncake-store/mooncake_cluster/master_view = 10.0.0.9:9999,
	 * /oplog/x = junk */
	static const char range[] = "{\"header\":{},\"kvs\":[{\"key\":\"L29wbG9nL3g=\",\"value\":\"anVuaw==\"},"
				    "{\"key\":\"bW9vbmNha2Utc3RvcmUvbW9vbmNha2VfY2x1c3Rlci9tYXN0ZXJfdmlldw==\","
				    "\"value\":\"MTAuMC4wLjk6OTk5OQ==\"}],\"count\":\"2\"}";
	static const char members[] = "{\"members\":[{\"name\":\"m0\",\"peerURLs\":[\"http://10.0.0.1:8704\"]},"
				      "{\"peerURLs\":[\"http://10.0.0.14:2380\"]},{\"name\":\"\"}]}";
	char out[4][MCRI_ETCD_VALUE_MAX];
	int n;

	ck_assert_int_eq(mcri_etcd_views_parse(range, out, 4, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(out[0], "10.0.0.9:9999");
	ck_assert_int_eq(mcri_etcd_views_parse("{}", out, 4, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(mcri_etcd_views_parse("[1]", out, 4, &n), -1);
	ck_assert_int_eq(mcri_etcd_members_parse(members, out, 4, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(out[0], "http://10.0.0.1:8704");
	ck_assert_str_eq(out[1], "http://10.0.0.14:2380");
	ck_assert_str_eq(out[2], "(none)");
	ck_assert_int_eq(mcri_etcd_members_parse(members, out, 2, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(mcri_etcd_members_parse("not json", out, 4, &n), -1);
}
END_TEST

Suite *ha_suite(void)
{
	Suite *s = suite_create("ha");
	TCase *tc = tcase_create("ha");

	tcase_add_test(tc, ha_clients_refused);
	tcase_add_test(tc, ha_address_rendered);
	tcase_add_test(tc, ha_state);
	tcase_add_test(tc, ha_proofs);
	tcase_add_test(tc, ha_health);
	tcase_add_test(tc, ha_etcd_answers_parsed);
	tcase_add_test(tc, ha_report_failovers);
	suite_add_tcase(s, tc);
	return s;
}
