/* test_refusals.c - every refusal of lib/ that the corpus does not reach,
 * one test per message, the message exact (the reference, §10, is the
 * contract), and the errors of the render functions (the names': test_names.c;
 * the files': test_disk.c). */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

/* a comment line of 50000 bytes: room for the aliases' text (line 1) */
#define X10(s) s s s s s s s s s s
#define BIG_COMMENT "# " X10(X10(X10(X10("xxxxx")))) "\n"

static const struct {
	const char *name, *yaml, *message;
} REFUSED[] = {
	{ "services_not_a_list",
	  "schema: 2\n"
	  "services: {a: 1}\n",
	  "mooncake: r.yaml:2:11: services: must be a list of service entries (- name: mooncake-master ...), got {'a': 1}" },
	{ "disabled_master_with_engine_block",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "services:\n"
	  "  - {name: mooncake-master, type: mooncake-master, enabled: false}\n",
	  "mooncake: r.yaml:4:5: services[mooncake-master] has `enabled: false`, which drops the master that engine.mooncake_kv_store implies; remove engine.mooncake_kv_store or the disabled entry" },
	{ "service_and_engine_block",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "services:\n"
	  "  - {name: m, type: mooncake-master}\n",
	  "mooncake: r.yaml:2:43: engine.mooncake_kv_store: a mooncake-master service cannot be combined with engine.mooncake_kv_store (the service would silently replace it); keep one: move container/master_extra_args/store_config into the service (container, args, options.store_config)" },
	{ "engine_type_not_a_string",
	  "schema: 2\n"
	  "engine: {type: 5}\n",
	  "mooncake: r.yaml:2:16: engine.type: 5 is not an engine name; set engine.type to one of trtllm, sglang, vllm, mocker, atom, tilert, tokenspeed" },
	{ "engine_type_missing",
	  "schema: 2\n"
	  "engine: {served_model_name: m}\n",
	  "mooncake: r.yaml:2:9: engine.type: a missing key is not an engine name; set engine.type to one of trtllm, sglang, vllm, mocker, atom, tilert, tokenspeed" },
	{ "engine_a_number",
	  "schema: 2\n"
	  "engine: 5\n",
	  "mooncake: r.yaml:2:9: engine: 5 is neither an engine name nor a mapping with `type`; write e.g. `engine: trtllm` or `engine: {type: trtllm}`" },
	{ "engine_type_unknown",
	  "schema: 2\n"
	  "engine: {type: foo}\n",
	  "mooncake: r.yaml:2:16: engine: 'foo' is not an engine; use one of trtllm, sglang, vllm, mocker, atom, tilert, tokenspeed" },
	{ "engine_block_not_a_mapping",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: [1]}\n",
	  "mooncake: r.yaml:2:43: engine.mooncake_kv_store: must be a mapping (container, env, master_extra_args, store_config), got [1]" },
	{ "engine_block_store_config_not_a_mapping",
	  "schema: 2\n"
	  "engine: {type: vllm, mooncake_kv_store: {store_config: 5}}\n",
	  "mooncake: r.yaml:2:56: engine.mooncake_kv_store.store_config: must be a mapping of client-config keys, got 5" },
	{ "service_store_config_not_a_mapping",
	  "schema: 2\n"
	  "engine: vllm\n"
	  "services:\n"
	  "  - {name: m, type: mooncake-master, options: {store_config: 5}}\n",
	  "mooncake: r.yaml:4:62: services[m].options.store_config: must be a mapping of client-config keys, got 5" },
	{ "role_empty",
	  "schema: 2\n"
	  "roles:\n"
	  "  prefill:\n",
	  "mooncake: r.yaml:3:11: roles.prefill: must be a mapping of the role's settings, got None" },
	{ "role_store_config_not_a_mapping",
	  "schema: 2\n"
	  "roles:\n"
	  "  prefill: {mooncake_store_config: 5}\n",
	  "mooncake: r.yaml:3:36: roles.prefill.mooncake_store_config: must be a mapping of client-config keys, got 5" },
	{ "environment_not_a_mapping",
	  "schema: 2\n"
	  "environment: [1]\n",
	  "mooncake: r.yaml:2:14: environment: must be a mapping of NAME: \"value\", got [1]" },
	{ "environment_key_not_a_string",
	  "schema: 2\n"
	  "environment: {1: a}\n",
	  "mooncake: r.yaml:2:15: environment: the key 1 is not a string; quote it" },
	{ "service_args_not_a_list",
	  "schema: 2\n"
	  "services:\n"
	  "  - {name: s, args: x}\n",
	  "mooncake: r.yaml:3:21: services[s].args: must be a list of strings, got 'x'" },
	{ "service_args_item_not_a_string",
	  "schema: 2\n"
	  "services:\n"
	  "  - {name: s, args: [1]}\n",
	  "mooncake: r.yaml:3:22: services[s].args[0]: Not a valid string: 1; quote it" },
	{ "log_dir_not_a_string",
	  "schema: 2\n"
	  "output: {log_dir: 5}\n",
	  "mooncake: r.yaml:2:19: output.log_dir: must be a directory path, got 5" },
	{ "external_without_port",
	  "schema: 2\n"
	  "engine: vllm\n"
	  "services:\n"
	  "  - {name: m, type: mooncake-master, external: nohost}\n",
	  "mooncake: r.yaml:4:48: services[m].external: 'nohost' is not host:port; write the master's RPC address, e.g. 10.0.0.5:8700" },
	{ "external_port_with_sign",
	  "schema: 2\n"
	  "engine: vllm\n"
	  "services:\n"
	  "  - {name: m, type: mooncake-master, external: 'h:+80'}\n",
	  "mooncake: r.yaml:4:48: services[m].external: 'h:+80' is not host:port; write the master's RPC address, e.g. 10.0.0.5:8700" },
	{ "service_options_not_a_mapping",
	  "schema: 2\n"
	  "services:\n"
	  "  - {name: s, options: 5}\n",
	  "mooncake: r.yaml:3:24: services[s].options: must be a mapping, got 5" },
	{ "service_placement_not_a_mapping",
	  "schema: 2\n"
	  "services:\n"
	  "  - {name: s, placement: 5}\n",
	  "mooncake: r.yaml:3:26: services[s].placement: must be a mapping (node, pool, per)" },
	{ "master_placement_prefill",
	  "schema: 2\n"
	  "services:\n"
	  "  - {name: m, type: mooncake-master, placement: {node: prefill}}\n",
	  "mooncake: r.yaml:3:56: services[m].placement.node: 'prefill' is not supported for the master: workers are always pointed at the infra node (the job's first node); use infra (the default) or dedicated" },
	{ "service_readiness_not_a_mapping",
	  "schema: 2\n"
	  "services:\n"
	  "  - {name: s, readiness: 5}\n",
	  "mooncake: r.yaml:3:26: services[s].readiness: must be a mapping with one of port, tcp, http, log" },
	{ "service_not_a_mapping",
	  "schema: 2\n"
	  "services: [5]\n",
	  "mooncake: r.yaml:2:12: services[0]: must be a mapping with name and type, got 5" },
	{ "service_type_not_a_string",
	  "schema: 2\n"
	  "services:\n"
	  "  - {name: s, type: 5}\n",
	  "mooncake: r.yaml:3:21: services[s].type: must be a service kind such as mooncake-master, got 5" },
	{ "lender_store_without_engine_block",
	  "schema: 2\n"
	  "engine: sglang\n"
	  "roles: {decode: {}}\n"
	  "services:\n"
	  "  - {name: mooncake-master, type: mooncake-master}\n"
	  "  - {name: store, type: mooncake-store, placement: {node: decode}}\n",
	  "mooncake: r.yaml:6:25: services[store].type: a mooncake-store registers with the master that engine.mooncake_kv_store declares (srtctl refuses it without one), and this recipe has no engine.mooncake_kv_store; add `mooncake_kv_store: {}` to engine (in place of a mooncake-master service)" },
	{ "lender_store_options",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store, options: {size: 64GiB}}\n",
	  "mooncake: r.yaml:5:51: services[store].options: type 'mooncake-store' takes no options: what it lends and how are MOONCAKE_* variables of its env (MOONCAKE_GLOBAL_SEGMENT_SIZE, MOONCAKE_PROTOCOL, MOONCAKE_DEVICE ...), as the wheel's mooncake_store_service (mooncake_config.py) reads them; move them to env" },
	{ "lender_store_size_gib",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store, env: {MOONCAKE_GLOBAL_SEGMENT_SIZE: 16GiB}}\n",
	  "mooncake: r.yaml:5:77: services[store].env.MOONCAKE_GLOBAL_SEGMENT_SIZE: '16GiB' is not a size the wheel's mooncake_store_service (mooncake_config.py) takes (it raises ValueError and the store does not start): a number of bytes, or a number with k, m, g or t (also kb ... tb; each a power of 1024); 'GiB' is refused; e.g. '16g' or '17179869184'" },
	{ "lender_store_size_zero",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store, env: {MOONCAKE_GLOBAL_SEGMENT_SIZE: '0'}}\n",
	  "mooncake: r.yaml:5:77: services[store].env.MOONCAKE_GLOBAL_SEGMENT_SIZE: '0' is 0 bytes: the store would lend nothing to the pool; give the memory it lends, e.g. '64g', or remove the service" },
	{ "lender_store_size_small",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store, env: {MOONCAKE_GLOBAL_SEGMENT_SIZE: 1m}}\n",
	  "mooncake: r.yaml:5:77: services[store].env.MOONCAKE_GLOBAL_SEGMENT_SIZE: '1m' is 1048576 bytes, below the 16 MiB Mooncake mounts at least (its setup fails: 'Total size must be at least 16777216'); give at least '16m'" },
	{ "lender_store_master_in_env",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store, env: {MOONCAKE_MASTER: 'h:1'}}\n",
	  "mooncake: r.yaml:5:47: services[store].env.MOONCAKE_MASTER: the plugin gives the lender the job's master (MOONCAKE_MASTER, MOONCAKE_TE_META_DATA_SERVER), and a MOONCAKE_CONFIG_PATH would make the store read that file instead; remove it" },
	{ "lender_compute",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store, placement: {node: compute}}\n",
	  "mooncake: r.yaml:5:59: services[store].placement.node: 'compute' (the nodes that run no engine worker) is not run by this plugin: it sees the nodes of the sruns that run roles, never the others; use all (every node of the job), workers or a role" },
	{ "lender_pool",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store, placement: {pool: other}}\n",
	  "mooncake: r.yaml:5:59: services[store].placement.pool: a lender on the nodes another service owns is not run by this plugin, which starts no service but the job's master and its lenders; place it on infra, head, prefill, decode, agg, workers or all" },
	{ "lender_per_worker",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store, placement: {node: decode, per: worker}}\n",
	  "mooncake: r.yaml:5:72: services[store].placement.per: 'worker' (a lender for each engine worker, with that worker's GPUs) is not run by this plugin: it starts one lender per node, before the node's tasks exist, and never with a worker's GPUs; use per: node, and size the lender for the node" },
	{ "lender_role_missing",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store, placement: {node: agg}}\n",
	  "mooncake: r.yaml:5:59: services[store].placement.node: 'agg', but the recipe has no roles.agg, so no node would run the lender and the pool would lack its memory; place it on one of the roles the recipe has (prefill, decode), workers, all or infra" },
	{ "lender_start_after_frontend",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store, start: after_frontend}\n",
	  "mooncake: r.yaml:5:48: services[store].start: 'after_frontend' is not run by this plugin: a lender starts on its node before the tasks there that use it (before_workers), the first srun that places one of them starts it; remove start or write before_workers" },
	{ "lender_readiness_probe",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store, readiness: {http: {port: 8080}}}\n",
	  "mooncake: r.yaml:5:52: services[store].readiness: a probe of its own is not run by this plugin for a lender: it proves a store ready by its segment mounted at the job's master, a donor by its ready file; keep timeout_seconds only" },
	{ "lender_name",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: 'my store', type: mooncake-store}\n",
	  "mooncake: r.yaml:5:12: services[my store].name: 'my store' cannot name a lender: its name names the lender's step, log and records, so it takes letters, digits, '.', '_' and '-' (not first '.'), at most 64; e.g. 'mooncake-store'" },
	{ "lender_critical",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store, critical: 'no'}\n",
	  "mooncake: r.yaml:5:51: services[store].critical: Not a valid boolean: 'no'; write true or false" },
	{ "lender_store_two_metadata_servers",
	  "schema: 2\n"
	  "model: {path: /m/q}\n"
	  "engine: {type: trtllm, mooncake_kv_store: {store_config: {metadata_server: P2PHANDSHAKE}}}\n"
	  "roles:\n"
	  "  prefill: {args: {kv_connector_config: {connector: mooncake-store}}}\n"
	  "  decode: {args: {kv_connector_config: {connector: mooncake-store}}, mooncake_store_config: {metadata_server: 'http://h:1/metadata'}}\n"
	  "services:\n"
	  "  - {name: store, type: mooncake-store}\n",
	  "mooncake: r.yaml:6:111: services[store]: roles.prefill's workers find segments through metadata_server 'P2PHANDSHAKE', roles.decode's through 'http://h:1/metadata', and a store announces its segment one way only: give the connector roles one metadata_server" },
	{ "donor_not_trtllm",
	  "schema: 2\n"
	  "engine: {type: sglang, mooncake_kv_store: {}}\n"
	  "roles: {prefill: {}, decode: {}}\n"
	  "services:\n"
	  "  - {name: donor, type: mooncake-donor, placement: {node: decode}, options: {size: 1GiB}}\n",
	  "mooncake: r.yaml:5:25: services[donor].type: a mooncake-donor is TRT-LLM's (trtllm-serve mooncake_donor) and lends to the pool of the job's mooncake-master; this recipe's engine is not trtllm; for another engine use type: mooncake-store" },
	{ "donor_placement",
	  "schema: 2\n"
	  "engine: {type: trtllm}\n"
	  "roles:\n"
	  "  prefill: {args: {kv_connector_config: {connector: mooncake-store, mooncake_store: {protocol: tcp}}}}\n"
	  "  decode: {args: {kv_connector_config: {connector: mooncake-store}}}\n"
	  "services:\n"
	  "  - {name: mooncake-master, type: mooncake-master}\n"
	  "  - {name: donor, type: mooncake-donor, options: {size: 1GiB}}\n",
	  "mooncake: r.yaml:8:5: services[donor].placement.node: a mooncake-donor lends the memory of the decode nodes (trtllm-serve mooncake_donor beside TRT-LLM's generation servers), so it needs placement: {node: decode}, got none" },
	{ "donor_without_size",
	  "schema: 2\n"
	  "engine: {type: trtllm}\n"
	  "roles:\n"
	  "  prefill: {args: {kv_connector_config: {connector: mooncake-store, mooncake_store: {protocol: tcp}}}}\n"
	  "  decode: {args: {kv_connector_config: {connector: mooncake-store}}}\n"
	  "services:\n"
	  "  - {name: mooncake-master, type: mooncake-master}\n"
	  "  - {name: donor, type: mooncake-donor, placement: {node: decode}}\n",
	  "mooncake: r.yaml:8:5: services[donor].options.size: a mooncake-donor needs the size of the segment it lends (trtllm-serve mooncake_donor --segment_size); add options: {size: 64GiB}" },
	{ "donor_size_decimal",
	  "schema: 2\n"
	  "engine: {type: trtllm}\n"
	  "roles:\n"
	  "  prefill: {args: {kv_connector_config: {connector: mooncake-store, mooncake_store: {protocol: tcp}}}}\n"
	  "  decode: {args: {kv_connector_config: {connector: mooncake-store}}}\n"
	  "services:\n"
	  "  - {name: mooncake-master, type: mooncake-master}\n"
	  "  - {name: donor, type: mooncake-donor, placement: {node: decode}, options: {size: 64GB, protocol: tcp}}\n",
	  "mooncake: r.yaml:8:84: services[donor].options.size '64GB' must be a byte count or use a binary unit (KiB, MiB, GiB, TiB); 'GB' is refused; write e.g. '64GiB'" },
	{ "donor_protocol_differs",
	  "schema: 2\n"
	  "engine: {type: trtllm}\n"
	  "roles:\n"
	  "  prefill: {args: {kv_connector_config: {connector: mooncake-store, mooncake_store: {protocol: tcp}}}}\n"
	  "  decode: {args: {kv_connector_config: {connector: mooncake-store}}}\n"
	  "services:\n"
	  "  - {name: mooncake-master, type: mooncake-master}\n"
	  "  - {name: donor, type: mooncake-donor, placement: {node: decode}, options: {size: 1GiB}}\n",
	  "mooncake: r.yaml:8:84: services[donor].options.protocol: 'rdma' (its default), but the prefill connector's mooncake_store.protocol is 'tcp': the prefill's puts could not reach the donor's segment; use the same transport in both" },
	{ "donor_option_unknown",
	  "schema: 2\n"
	  "engine: {type: trtllm}\n"
	  "roles:\n"
	  "  prefill: {args: {kv_connector_config: {connector: mooncake-store, mooncake_store: {protocol: tcp}}}}\n"
	  "  decode: {args: {kv_connector_config: {connector: mooncake-store}}}\n"
	  "services:\n"
	  "  - {name: mooncake-master, type: mooncake-master}\n"
	  "  - {name: donor, type: mooncake-donor, placement: {node: decode}, options: {size: 1GiB, eviction: 1}}\n",
	  "mooncake: r.yaml:8:90: services[donor].options.eviction: Unknown field. type 'mooncake-donor' takes size and protocol. Known fields: size, protocol." },
	{ "service_kind_misspelt",
	  "schema: 2\n"
	  "services:\n"
	  "  - {name: s, type: mooncake_store}\n",
	  "mooncake: r.yaml:3:21: services[s].type: 'mooncake_store' is not a service kind; the pool's master is `type: mooncake-master`, its memory lenders `mooncake-store` and `mooncake-donor`" },
	{ "service_enabled_quoted",
	  "schema: 2\n"
	  "services:\n"
	  "  - {name: s, enabled: 'yes'}\n",
	  "mooncake: r.yaml:3:24: services[s].enabled: Not a valid boolean: 'yes'; write true or false" },
	{ "model_path_blank_component",
	  "schema: 2\n"
	  "engine: {type: trtllm}\n"
	  "roles:\n"
	  "  prefill: {args: {kv_connector_config: {connector: mooncake-store}}}\n"
	  "model: {path: /}\n"
	  "services:\n"
	  "  - {name: mooncake-master, type: mooncake-master}\n",
	  "mooncake: r.yaml:5:15: model.path: its last path component '' is blank, and it is the pool's model_key (Mooncake client config for roles.prefill: model_key must be a non-empty string); set engine.served_model_name, or model_key in the mooncake-master service's options.store_config" },
	{ "model_key_no_default",
	  "schema: 2\n"
	  "engine: {type: trtllm}\n"
	  "roles:\n"
	  "  prefill: {args: {kv_connector_config: {connector: mooncake-store}}}\n"
	  "services:\n"
	  "  - {name: mooncake-master, type: mooncake-master}\n",
	  "mooncake: r.yaml:1:1: Mooncake client config for roles.prefill: the pool's model_key has no default because the recipe has neither engine.served_model_name nor model.path; set one of them, or model_key in options.store_config" },
	{ "yaml_nul", "a: \"x\\0y\"\n", "mooncake: r.yaml:1:4: a value contains a NUL character; remove it" },
	{ "yaml_tag_on_mapping", "a: !!seq {x: 1}\n",
	  "mooncake: r.yaml:1:4: the tag 'tag:yaml.org,2002:seq' is not supported in a recipe; remove it" },
	{ "yaml_merge_scalar", "a: {<<: 1}\n",
	  "mooncake: r.yaml:1:9: expected a mapping or list of mappings for merging (<<); merge only mappings" },
	{ "yaml_merge_list_of_scalars", "a: {<<: [1]}\n",
	  "mooncake: r.yaml:1:10: expected a mapping for merging (<<), but found another value; merge only mappings" },
	{ "yaml_tag_mismatch", "a: !!int trtllm\n",
	  "mooncake: r.yaml:1:4: 'trtllm' cannot be read as !!int; fix the value or drop the tag" },
	{ "master_args_metrics_port",
	  "schema: 2\n"
	  "engine: sglang\n"
	  "roles: {agg: {}}\n"
	  "services:\n"
	  "  - name: mooncake-master\n"
	  "    type: mooncake-master\n"
	  "    args: [--metrics_port=9003]\n",
	  "mooncake: r.yaml:7:12: mooncake-master args: '--metrics_port=9003' would move or switch off one of the master's ports; the workers and the readiness check use 8700 (RPC), 8701 (HTTP metadata server) and 8702 (metrics): remove it" },
	{ "master_args_metadata_server_off",
	  "schema: 2\n"
	  "engine: sglang\n"
	  "roles: {agg: {}}\n"
	  "services:\n"
	  "  - name: mooncake-master\n"
	  "    type: mooncake-master\n"
	  "    args: [--enable_http_metadata_server=false]\n",
	  "mooncake: r.yaml:7:12: mooncake-master args: '--enable_http_metadata_server=false' would move or switch off one of the master's ports; the workers and the readiness check use 8700 (RPC), 8701 (HTTP metadata server) and 8702 (metrics): remove it" },
	{ "master_args_port_separate_value",
	  "schema: 2\n"
	  "engine: sglang\n"
	  "roles: {agg: {}}\n"
	  "services:\n"
	  "  - name: mooncake-master\n"
	  "    type: mooncake-master\n"
	  "    args: [--port, '9000']\n",
	  "mooncake: r.yaml:7:12: mooncake-master args: '--port' would move or switch off one of the master's ports; the workers and the readiness check use 8700 (RPC), 8701 (HTTP metadata server) and 8702 (metrics): remove it" },
	{ "env_value_int",
	  "schema: 2\n"
	  "roles:\n"
	  "  agg:\n"
	  "    env: {PYTHONUNBUFFERED: 1}\n",
	  "mooncake: r.yaml:4:29: roles.agg.env.PYTHONUNBUFFERED: Not a valid string: 1; quote the value (e.g. PYTHONUNBUFFERED: \"1\")" },
	{ "env_value_bool",
	  "schema: 2\n"
	  "roles:\n"
	  "  agg:\n"
	  "    env: {X: yes}\n",
	  "mooncake: r.yaml:4:14: roles.agg.env.X: Not a valid string: True; quote the value (e.g. X: \"true\")" },
	{ "log_dir_placeholder",
	  "schema: 2\n"
	  "output: {log_dir: '/x/{job}'}\n",
	  "mooncake: r.yaml:2:19: output.log_dir: the job directory '/x/{job}' has an unknown placeholder at '{job}'; use {job_id}, {user} and {submit_dir}" },
	{ "log_dir_tilde",
	  "schema: 2\n"
	  "output: {log_dir: '~/mc/{job_id}'}\n",
	  "mooncake: r.yaml:2:19: output.log_dir: '~/mc/{job_id}': ~ is not expanded (the directory would be named ~); write the absolute path, or one relative to the submit directory" },
	{ "role_field_typo",
	  "schema: 2\n"
	  "roles:\n"
	  "  decode: {mooncake_store_confg: {}}\n",
	  "mooncake: r.yaml:3:12: roles.decode.mooncake_store_confg: Unknown field. Did you mean mooncake_store_config?" },
	{ "role_field_unknown",
	  "schema: 2\n"
	  "roles:\n"
	  "  decode: {colour: red}\n",
	  "mooncake: r.yaml:3:12: roles.decode.colour: Unknown field. Known fields: nodes, workers, gpus, srun_options, env, args, extra_args, engine, container, kv_events, mooncake_store_config, sidecar, critical, restart." },
	{ "yaml_syntax", "a: [1, 2\n",
	  "mooncake: r.yaml:2:1: not valid YAML: did not find expected ',' or ']' while parsing a flow sequence; fix the syntax" },
	{ "yaml_undefined_alias", "a: *nope\n",
	  "mooncake: r.yaml:1:4: found undefined alias '*nope'; define the anchor '&nope' before using it" },
	{ "yaml_alias_cycle", "a: &x [1, *x]\n",
	  "mooncake: r.yaml:1:11: the alias '*x' refers to a value that contains it (a cycle); recipes cannot be recursive" },
	{ "yaml_two_documents",
	  "a: 1\n"
	  "---\n"
	  "b: 2\n",
	  "mooncake: r.yaml:2:1: expected a single document in the stream, but found another one; keep one recipe per file" },
	{ "yaml_binary_tag", "a: !!binary aGk=\n",
	  "mooncake: r.yaml:1:4: the tag 'tag:yaml.org,2002:binary' is not supported in a recipe; remove it" },
	{ "yaml_local_tag", "a: !foo x\n",
	  "mooncake: r.yaml:1:4: the tag '!foo' is not supported in a recipe; remove it" },
	{ "yaml_unhashable_key",
	  "? [1, 2]\n"
	  ": x\n",
	  "mooncake: r.yaml:1:3: found unhashable key (a list or mapping used as a key); use a plain key" },
	{ "yaml_hex_out_of_range", "a: 0x1ffffffffffffffffff\n",
	  "mooncake: r.yaml:1:4: integer '0x1ffffffffffffffffff' is out of range (at most 64 bits)" },
	{ "yaml_empty", "",
	  "mooncake: r.yaml: the recipe is empty; write at least `schema: 2`, an engine, roles and a mooncake-master service" },
	{ "yaml_list",
	  "- a\n"
	  "- b\n",
	  "mooncake: r.yaml:1:1: the recipe must be a mapping of keys (schema:, engine:, roles:, services:), not a single value or list" },
	{ "yaml_billion_laughs",
	  "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	  "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
	  "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	  "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
	  "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
	  "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
	  "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n",
	  /* e holds 100000 values of 2 bytes: more text than 8 times the
		 * recipe's 319 bytes plus 64 KiB, before f is built */
	  "mooncake: r.yaml:5:4: the recipe expands through aliases to more than 68088 bytes of values (8 times its 319 bytes, plus 64 KiB); write the aliased values out, or alias smaller ones" },
	/* the same with room for the text (a long comment): the number of
	 * values trips first, at f's second alias */
	{ "yaml_billion_laughs_values",
	  BIG_COMMENT "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
		      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
		      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
		      "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
		      "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
	  "mooncake: r.yaml:7:4: the recipe expands to more than 200000 values through aliases; write it out without nested aliases" },

};

START_TEST(test_refused)
{
	ck_assert_msg(strcmp(load_err(REFUSED[_i].yaml), REFUSED[_i].message) == 0, "%s: got\n%s\nwant\n%s",
		      REFUSED[_i].name, load_err(REFUSED[_i].yaml), REFUSED[_i].message);
}
END_TEST

/* a document nested deeper than the loader's limit */
/* a disabled lender lends nothing, under srtctl as under the plugin */
START_TEST(test_lender_disabled_passes)
{
	mcr_recipe_free(load_ok("schema: 2\n"
				"engine: {type: sglang, mooncake_kv_store: {}}\n"
				"services:\n"
				"  - {name: store, type: mooncake-store, enabled: false}\n"
				"  - {name: donor, type: mooncake-donor, enabled: false}\n"));
}
END_TEST

START_TEST(test_yaml_too_deep)
{
	char y[1024];
	size_t n = 0;

	n += (size_t)snprintf(y, sizeof(y), "a: ");
	for (int i = 0; i < 300; i++)
		y[n++] = '[';
	for (int i = 0; i < 300; i++)
		y[n++] = ']';
	y[n] = '\0';
	ck_assert_str_eq(load_err(y), "mooncake: r.yaml:1:259: the recipe nests more than 256 levels deep; flatten it");
}
END_TEST

/* ---- loading a file ------------------------------------------------ */

START_TEST(test_recipe_too_large)
{
	char path[] = "/tmp/mck-big.XXXXXX", want[512];
	struct mcr_recipe *r = NULL;
	struct mcr_error e = { 0 };
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (16 << 20) + 1), 0);
	close(fd);
	ck_assert_int_eq(mcr_recipe_load_file(path, NULL, &r, &e), -1);
	unlink(path);
	snprintf(want, sizeof(want), "mooncake: the recipe %s is larger than 16 MiB; a recipe is a small YAML file",
		 path);
	ck_assert_str_eq(errmsg(&e), want);
}
END_TEST

START_TEST(test_recipe_not_a_file)
{
	struct mcr_recipe *r = NULL;
	struct mcr_error e = { 0 };

	ck_assert_int_eq(mcr_recipe_load_file("/tmp", "dir", &r, &e), -1);
	ck_assert_str_eq(errmsg(&e), "mooncake: the recipe dir is not a regular file; give the path of a YAML file");
}
END_TEST

/* ---- render: what a caller may get wrong ---------------------------- */

static const char VLLM[] = "schema: 2\nengine: vllm\nresources: {gpus_per_node: 2}\n"
			   "roles: {agg: {}}\n"
			   "services:\n  - name: mooncake-master\n    type: mooncake-master\n"
			   "    options: {device_names_by_gpu: [mlx5_0, mlx5_1]}\n";

START_TEST(test_master_argv_without_master)
{
	struct mcr_recipe *r = load_ok("schema: 2\nroles: {agg: {}}\n");
	struct mcr_error e = { 0 };
	char **argv;

	ck_assert_int_eq(mcr_master_argv(r, "mooncake_master", NULL, &argv, &e), -1);
	mcr_recipe_free(r);
	ck_assert_str_eq(errmsg(&e), "mooncake: the recipe starts no master (none declared, or external)");
}
END_TEST

START_TEST(test_client_configs_without_address)
{
	struct mcr_recipe *r = load_ok(VLLM);
	struct mcr_file_list files;
	struct mcr_error e = { 0 };

	ck_assert_int_eq(mcr_client_configs(r, NULL, &files, &e), -1);
	mcr_recipe_free(r);
	ck_assert_str_eq(errmsg(&e), "mooncake: no master address to write into the client configs");
}
END_TEST

START_TEST(test_worker_env_without_address)
{
	struct mcr_recipe *r = load_ok(VLLM);
	struct mcr_env_input in = { NULL, "10.1.1.1", "/logs", NULL, NULL, 0 };
	struct mcr_env env;
	struct mcr_error e = { 0 };

	ck_assert_int_eq(mcr_worker_env(r, MCR_ROLE_AGG, &in, &env, &e), -1);
	mcr_recipe_free(r);
	ck_assert_str_eq(errmsg(&e), "mooncake: no master address for the worker environment");
}
END_TEST

START_TEST(test_worker_env_role_not_in_recipe)
{
	struct mcr_recipe *r = load_ok(VLLM);
	struct mcr_env_input in = { "10.1.1.1:8700", "10.1.1.1", "/logs", NULL, NULL, 0 };
	struct mcr_env env;
	struct mcr_error e = { 0 };

	ck_assert_int_eq(mcr_worker_env(r, MCR_ROLE_DECODE, &in, &env, &e), -1);
	mcr_recipe_free(r);
	ck_assert_str_eq(errmsg(&e), "mooncake: the recipe has no roles.decode");
}
END_TEST

START_TEST(test_gpu_config_without_device_list)
{
	struct mcr_recipe *r = load_ok("schema: 2\nroles: {agg: {}}\n");
	struct mcr_error e = { 0 };
	struct mcr_file f;
	int gpu = 0;

	ck_assert_int_eq(mcr_vllm_gpu_config(r, "10.1.1.1:8700", &gpu, 1, &f, &e), -1);
	mcr_recipe_free(r);
	ck_assert_str_eq(
		errmsg(&e),
		"mooncake: the recipe has no device_names_by_gpu; per-GPU client configs are for vLLM with options.device_names_by_gpu");
}
END_TEST

START_TEST(test_gpu_config_without_gpus)
{
	struct mcr_recipe *r = load_ok(VLLM);
	struct mcr_error e = { 0 };
	struct mcr_file f;

	ck_assert_int_eq(mcr_vllm_gpu_config(r, "10.1.1.1:8700", NULL, 0, &f, &e), -1);
	mcr_recipe_free(r);
	ck_assert_str_eq(
		errmsg(&e),
		"mooncake: the task has no GPUs (CUDA_VISIBLE_DEVICES is empty), but device_names_by_gpu needs each process's physical GPUs; request GPUs for the step (--gpus, --gres=gpu:N)");
}
END_TEST

START_TEST(test_gpu_config_uncovered_gpus)
{
	struct mcr_recipe *r = load_ok(VLLM);
	struct mcr_error e = { 0 };
	struct mcr_file f;
	int gpus[] = { 3, 1, 2 };

	ck_assert_int_eq(mcr_vllm_gpu_config(r, "10.1.1.1:8700", gpus, 3, &f, &e), -1);
	mcr_recipe_free(r);
	ck_assert_str_eq(
		errmsg(&e),
		"mooncake: mooncake device_names_by_gpu does not cover physical GPUs [2, 3]: the list has 2 entries (GPUs 0-1); give one HCA name per GPU of the node");
}
END_TEST

Suite *refusals_suite(void)
{
	Suite *s = suite_create("refusals");
	TCase *tc = tcase_create("refusals");

	tcase_add_loop_test(tc, test_refused, 0, (int)(sizeof(REFUSED) / sizeof(REFUSED[0])));
	tcase_add_test(tc, test_lender_disabled_passes);
	tcase_add_test(tc, test_yaml_too_deep);
	tcase_add_test(tc, test_recipe_too_large);
	tcase_add_test(tc, test_recipe_not_a_file);
	tcase_add_test(tc, test_master_argv_without_master);
	tcase_add_test(tc, test_client_configs_without_address);
	tcase_add_test(tc, test_worker_env_without_address);
	tcase_add_test(tc, test_worker_env_role_not_in_recipe);
	tcase_add_test(tc, test_gpu_config_without_device_list);
	tcase_add_test(tc, test_gpu_config_without_gpus);
	tcase_add_test(tc, test_gpu_config_uncovered_gpus);
	suite_add_tcase(s, tc);
	return s;
}
