#!/usr/bin/env python3
"""Generate tests/recipes/{valid,invalid} from explicit, hand-written
expectations (reasoned from srtctl's behaviour as the project's contract,
doc/recipe-reference.md, states it: section numbers and rule ids (C1-C11,
V1, V2, M1) below are that page's; "srtctl case N" is case N of srtctl's
tests/test_trtllm_mooncake.py).

    python3 tests/recipes/gen_corpus.py      # rewrites valid/ and invalid/

The generated files are the corpus; tests/recipes/run.sh only reads them.
Never derive an expectation from what mooncake-recipe prints: when a case
fails, fix the implementation (or, if the reference says otherwise, this table).

Expected payloads below are written out by hand as Python dicts (in the
order the reference prescribes) and encoded with json.dumps(obj, indent=2),
which is the encoding §7 names. Every recipe's YAML typing is checked against
PyYAML safe_load before it is written.
"""
import copy
import json
import math
import os
import re
import shutil
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else HERE
EXAMPLES = os.path.join(HERE, "..", "..", "examples")


class Raw:
    """A scalar written exactly as `text` in the YAML, that PyYAML types as `value`."""

    def __init__(self, text, value):
        self.text = text
        self.value = value


def R(text, value):
    return Raw(text, value)


def _placeholders(obj, raws):
    if isinstance(obj, Raw):
        raws.append(obj.text)
        return "@@RAW%d@@" % (len(raws) - 1)
    if isinstance(obj, dict):
        return {_placeholders(k, raws): _placeholders(v, raws) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_placeholders(v, raws) for v in obj]
    return obj


def typed(obj):
    if isinstance(obj, Raw):
        return obj.value
    if isinstance(obj, dict):
        return {typed(k): typed(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [typed(v) for v in obj]
    return obj


def strict_eq(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a.keys()) == list(b.keys()) and all(strict_eq(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def dump(data):
    raws = []
    plain = _placeholders(data, raws)
    text = yaml.safe_dump(plain, sort_keys=False, default_flow_style=False,
                          allow_unicode=True, width=4096)
    text = re.sub(r"'@@RAW(\d+)@@'|@@RAW(\d+)@@",
                  lambda m: raws[int(m.group(1) or m.group(2))], text)
    got = yaml.safe_load(text)
    want = typed(data)
    if not strict_eq(got, want):
        raise SystemExit("YAML typing mismatch:\n%s\n%r\n%r" % (text, got, want))
    return text


# ---------------------------------------------------------------- builders

MSA = "10.1.1.1:8700"
QWEN = "Qwen/Qwen3-0.6B"
CONN = {"connector": "mooncake-store"}
MODULE = "tensorrt_llm._torch.pyexecutor.connectors.mooncake_store"
STORE = {"protocol": "rdma", "global_segment_size": "8GiB", "stage_through_host": True}
KVT = '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'
_NOARG = object()


def model(path="hf:Qwen/Qwen3-0.6B", container="trtllm.sqsh"):
    return {"path": path, "container": container, "precision": "bf16"}


def resources(gpus=8):
    return {"gpu_type": "h100", "gpus_per_node": gpus}


def master(store=_NOARG, name="mooncake-master", options=None, **extra):
    s = {"name": name, "type": "mooncake-master"}
    s.update(extra)
    opts = dict(options or {})
    if store is not _NOARG:
        opts = {"store_config": store, **opts}
    if opts:
        s["options"] = opts
    return s


def trt_role(conn=CONN, env=None, msc=None, workers=1):
    r = {"nodes": 1, "workers": workers, "gpus": 1}
    if env:
        r["env"] = env
    args = {"backend": "pytorch", "tensor_parallel_size": 1, "max_seq_len": 4096}
    if conn is not None:
        args["kv_connector_config"] = conn
    r["args"] = args
    if msc is not None:
        r["mooncake_store_config"] = msc
    return r


def recipe(name, engine, roles, services=None, frontend=None, mdl=None, res=None,
           top=None, schema=2):
    d = {}
    if schema is not None:
        d["schema"] = schema
    d["name"] = name
    d["model"] = mdl or model()
    d["resources"] = res or resources()
    d["frontend"] = frontend or {"type": "dynamo"}
    for k, v in (top or {}).items():
        d[k] = v
    if engine is not None:
        d["engine"] = engine
    d["roles"] = roles
    if services is not None:
        d["services"] = services
    return d


def trt(name="trt", store=_NOARG, prefill=None, decode=None, roles=None, services=_NOARG,
        engine=None, frontend=None, mdl=None, top=None):
    if store is _NOARG:
        store = dict(STORE)
    if services is _NOARG:
        services = [master(store)]
    if roles is None:
        roles = {"prefill": prefill if prefill is not None else trt_role(),
                 "decode": decode if decode is not None else trt_role()}
    return recipe(name, engine if engine is not None else {"type": "trtllm", "served_model_name": QWEN},
                  roles, services, frontend or {"type": "trtllm_serve"}, mdl=mdl, top=top)


def sgl_role(backend="mooncake", key="disaggregation-transfer-backend", msc=None, env=None):
    r = {"nodes": 1, "workers": 1, "gpus": 1}
    if env:
        r["env"] = env
    args = {"tp-size": 1, "mem-fraction-static": 0.8}
    if backend is not None:
        args[key] = backend
    r["args"] = args
    if msc is not None:
        r["mooncake_store_config"] = msc
    return r


def sgl(name="sgl", engine=_NOARG, services=_NOARG, prefill=None, decode=None, roles=None):
    if services is _NOARG:
        services = [master()]
    if roles is None:
        roles = {"prefill": prefill or sgl_role(), "decode": decode or sgl_role()}
    return recipe(name, None if engine is _NOARG else engine, roles, services,
                  mdl=model(container="sglang.sqsh"))


def vllm_role(kvt=KVT, key="kv-transfer-config", msc=None):
    r = {"nodes": 1, "workers": 1, "gpus": 4}
    args = {"tensor-parallel-size": 1, "block-size": 128}
    if kvt is not None:
        args[key] = kvt
    r["args"] = args
    if msc is not None:
        r["mooncake_store_config"] = msc
    return r


def vllm(name="vllm", store=_NOARG, services=_NOARG, engine=None, prefill=None, decode=None,
         roles=None, options=None, gpus=4):
    if services is _NOARG:
        services = [master(store, options=options)]
    if roles is None:
        roles = {"prefill": prefill or vllm_role(), "decode": decode or vllm_role()}
    return recipe(name, engine or {"type": "vllm"}, roles, services,
                  mdl=model(container="vllm.sqsh"), res=resources(gpus))


def pay(*items):
    """An ordered payload from (key, value) pairs."""
    return dict(items)


def std(role, mk=QWEN, gss="8GiB"):
    return pay(("role", role), ("model_key", mk), ("protocol", "rdma"),
               ("global_segment_size", gss), ("stage_through_host", True),
               ("master_server_address", MSA))


PF = "mooncake_store_config_prefill.json"
DF = "mooncake_store_config_decode.json"
AF = "mooncake_store_config_agg.json"
VF = "mooncake_store_config.json"

VALID = []    # (name, description, data-or-text, {file: payload})
INVALID = []  # (name, [expected substrings], description, data-or-text)


def valid(name, desc, data, files, warns=()):
    # §7.2: vLLM's reader defaults metadata_server to "", with which
    # Mooncake's setup() fails; the plugin writes P2PHANDSHAKE, after
    # master_server_address, when store_config has none
    if VF in files and "metadata_server" not in files[VF]:
        files[VF] = dict(files[VF], metadata_server="P2PHANDSHAKE")
    VALID.append((name, desc, data, files, list(warns)))


def invalid(name, expects, desc, data):
    if isinstance(expects, str):
        expects = [expects]
    INVALID.append((name, expects, desc, data))


def mutate(data, fn):
    d = copy.deepcopy(data)
    fn(d)
    return d


def read_example(fname):
    with open(os.path.join(EXAMPLES, fname), encoding="utf-8") as f:
        return f.read()


# ======================================================================
# VALID: TRT-LLM (§7.1)
# ======================================================================

valid("trtllm_example_serve",
      "PR example trtllm-serve-disagg-mooncake.yaml verbatim; §7.1 example: prefill role both "
      "8GiB, decode role capacity with its 16GiB override (srtctl cases 1-2).",
      read_example("trtllm-serve-disagg-mooncake.yaml"),
      {PF: std("both"), DF: std("capacity", gss="16GiB")})

valid("trtllm_example_dynamo",
      "PR example dynamo-disagg-mooncake.yaml verbatim: no per-role override, both files 8GiB.",
      read_example("dynamo-disagg-mooncake.yaml"),
      {PF: std("both"), DF: std("capacity")})

valid("trtllm_services_entry",
      "services entry form (§6): one mooncake-master with options.store_config; per-role files "
      "with role both/capacity, model_key = served_model_name, store keys in YAML order, "
      "master_server_address last (§7.1 steps 1-5).",
      trt("trtllm-services-entry"),
      {PF: std("both"), DF: std("capacity")})

valid("trtllm_model_key_from_hf_path",
      "No served_model_name: model_key = last component of hf:Qwen/Qwen3-0.6B = Qwen3-0.6B "
      "(§7.1, srtctl case 3).",
      trt("mk-hf", engine={"type": "trtllm"}),
      {PF: std("both", mk="Qwen3-0.6B"), DF: std("capacity", mk="Qwen3-0.6B")})

valid("trtllm_string_engine_local_path",
      "engine given as the string 'trtllm' (§6) and a local model path: model_key = "
      "directory name Llama-3.1-8B-Instruct (§7.1).",
      trt("mk-local", engine="trtllm", mdl=model(path="/models/llama/Llama-3.1-8B-Instruct")),
      {PF: std("both", mk="Llama-3.1-8B-Instruct"), DF: std("capacity", mk="Llama-3.1-8B-Instruct")})

valid("trtllm_model_path_trailing_slash",
      "Local model path with a trailing slash: runtime.model_path.name (a pathlib name) is "
      "still Llama-3.1-8B-Instruct (§7.1).",
      trt("mk-slash", engine={"type": "trtllm"},
          mdl=model(path="/models/llama/Llama-3.1-8B-Instruct/")),
      {PF: std("both", mk="Llama-3.1-8B-Instruct"), DF: std("capacity", mk="Llama-3.1-8B-Instruct")})

valid("trtllm_served_name_empty",
      "served_model_name: \"\" is not 'set (non-empty)', so model_key falls back to the model "
      "directory name Qwen3-0.6B (§7.1).",
      trt("mk-empty-served", engine={"type": "trtllm", "served_model_name": ""}),
      {PF: std("both", mk="Qwen3-0.6B"), DF: std("capacity", mk="Qwen3-0.6B")})

valid("trtllm_store_overrides_role_and_model_key",
      "options.store_config sets model_key and role: overwritten in place (positions 2 and 1), "
      "new keys appended in YAML order (§7.1 step 3, srtctl case 3).",
      trt("store-overrides", store={"protocol": "rdma", "model_key": "qwen3-pool", "role": "producer"}),
      {PF: pay(("role", "producer"), ("model_key", "qwen3-pool"), ("protocol", "rdma"),
               ("master_server_address", MSA)),
       DF: pay(("role", "producer"), ("model_key", "qwen3-pool"), ("protocol", "rdma"),
               ("master_server_address", MSA))})

valid("trtllm_master_address_in_place",
      "options.store_config.master_server_address is replaced by <infra>:8700 in place (keeps its "
      "3rd position); decode role: both via its mooncake_store_config (§7.1 step 5, srtctl case 5).",
      trt("msa-in-place", store={"master_server_address": "10.0.0.9:1234", "protocol": "tcp"},
          decode=trt_role(msc={"role": "both"})),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("master_server_address", MSA), ("protocol", "tcp")),
       DF: pay(("role", "both"), ("model_key", QWEN), ("master_server_address", MSA), ("protocol", "tcp"))})

valid("trtllm_role_layering",
      "Role keys layered over service keys: existing keys overwritten in place, new role keys "
      "appended after the service keys, master_server_address last (§7.1 steps 3-5).",
      trt("layering",
          store={"global_segment_size": "4GiB", "local_buffer_size": "512MiB", "protocol": "rdma"},
          prefill=trt_role(msc={"local_buffer_size": "1GiB", "device_name": "mlx5_0"}),
          decode=trt_role(msc={"role": "consumer", "global_segment_size": "32GiB",
                               "transfer_batch_size": 128})),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("global_segment_size", "4GiB"),
               ("local_buffer_size", "1GiB"), ("protocol", "rdma"), ("device_name", "mlx5_0"),
               ("master_server_address", MSA)),
       DF: pay(("role", "consumer"), ("model_key", QWEN), ("global_segment_size", "32GiB"),
               ("local_buffer_size", "512MiB"), ("protocol", "rdma"), ("transfer_batch_size", 128),
               ("master_server_address", MSA))})

valid("trtllm_agg_only",
      "A single agg role: mooncake_store_config_agg.json with role both (§7.1 'agg').",
      trt("agg", store={"protocol": "tcp"},
          roles={"agg": trt_role(msc={"local_buffer_size": "2GiB"})}),
      {AF: pay(("role", "both"), ("model_key", QWEN), ("protocol", "tcp"),
               ("local_buffer_size", "2GiB"), ("master_server_address", MSA))})

valid("trtllm_decode_without_connector",
      "decode has no kv_connector_config: not a connector mode, so no decode file (§7.1, srtctl case 4).",
      trt("decode-no-conn", decode=trt_role(conn=None)),
      {PF: std("both")})

valid("trtllm_connector_by_module",
      "decode selects the connector by connector_module only (§4, srtctl case 7): both files.",
      trt("conn-module", decode=trt_role(conn={
          "connector_module": MODULE,
          "connector_scheduler_class": "MooncakeStoreConnectorScheduler",
          "connector_worker_class": "MooncakeStoreConnectorWorker"})),
      {PF: std("both"), DF: std("capacity")})

valid("trtllm_connector_module_other",
      "decode {connector: mooncake-store, connector_module: my.connector} resolves to my.connector: "
      "not a connector mode, only the prefill file (§4, srtctl case 7).",
      trt("conn-module-other", decode=trt_role(conn={"connector": "mooncake-store",
                                                     "connector_module": "my.connector"})),
      {PF: std("both")})

valid("trtllm_connector_module_null",
      "connector_module: null falls back to connector: mooncake-store (§4 'present and not null'): "
      "both files.",
      trt("conn-module-null", decode=trt_role(conn={"connector": "mooncake-store",
                                                    "connector_module": None})),
      {PF: std("both"), DF: std("capacity")})

valid("trtllm_connector_other_name",
      "decode uses another connector name (lmcache): not a connector mode, only the prefill file (§4).",
      trt("conn-other", decode=trt_role(conn={"connector": "lmcache"})),
      {PF: std("both")})

valid("trtllm_mooncake_store_block_null",
      "kv_connector_config.mooncake_store: null is not 'present and not null' (C7): loads, both files.",
      trt("block-null", prefill=trt_role(conn={"connector": "mooncake-store", "mooncake_store": None})),
      {PF: std("both"), DF: std("capacity")})

valid("trtllm_role_capacity_spaces",
      "stage_through_host: 1 (int passes) and decode role ' Capacity ' (lower(trim) passes, written "
      "unchanged) (C11.2-C11.3, srtctl case 8).",
      trt("capacity-spaces", store={"stage_through_host": 1},
          decode=trt_role(msc={"role": " Capacity "})),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("stage_through_host", 1), ("master_server_address", MSA)),
       DF: pay(("role", " Capacity "), ("model_key", QWEN), ("stage_through_host", 1),
               ("master_server_address", MSA))})

valid("trtllm_transfer_batch_size_forms",
      "transfer_batch_size '64' (string, decode) and 64.0 (float, prefill, rendered 64.0) pass and keep "
      "their YAML types (C11.5, srtctl case 9).",
      trt("tbs-forms", store={"transfer_batch_size": "64"},
          prefill=trt_role(msc={"transfer_batch_size": R("64.0", 64.0)})),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("transfer_batch_size", 64.0), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", QWEN), ("transfer_batch_size", "64"),
               ("master_server_address", MSA))})

valid("trtllm_transfer_batch_size_int_literal",
      "transfer_batch_size ' +1_024 ': Python int() accepts surrounding spaces, a sign and '_' between "
      "digits (C11.5); the string is written unchanged.",
      trt("tbs-literal", store={"transfer_batch_size": " +1_024 "}),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("transfer_batch_size", " +1_024 "), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", QWEN), ("transfer_batch_size", " +1_024 "),
               ("master_server_address", MSA))})

valid("trtllm_disabled_external_second_master",
      "A second, disabled mooncake-master entry with external takes no part (§5, §6, srtctl case 10).",
      trt("disabled-ext", services=[master(dict(STORE)),
                                    {"name": "mooncake-master-ext", "type": "mooncake-master",
                                     "enabled": False, "external": "10.0.0.5:8700"}]),
      {PF: std("both"), DF: std("capacity")})

valid("trtllm_enabled_yes",
      "enabled: yes is a YAML 1.1 bool (true): the master is enabled (§1, §5).",
      trt("enabled-yes", services=[master(dict(STORE), enabled=R("yes", True))]),
      {PF: std("both"), DF: std("capacity")})

valid("trtllm_engine_block_form",
      "engine.mooncake_kv_store form (§6, the engine form, accepted for TRT-LLM) with container, "
      "env, master_extra_args and store_config; no services list.",
      trt("engine-block", services=None,
          engine={"type": "trtllm", "served_model_name": "pool-model",
                  "mooncake_kv_store": {"container": "mooncake.sqsh", "env": {"MC_LOG_LEVEL": "info"},
                                        "master_extra_args": ["--v=1"],
                                        "store_config": {"protocol": "tcp", "global_segment_size": "2GiB"}}}),
      {PF: pay(("role", "both"), ("model_key", "pool-model"), ("protocol", "tcp"),
               ("global_segment_size", "2GiB"), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", "pool-model"), ("protocol", "tcp"),
               ("global_segment_size", "2GiB"), ("master_server_address", MSA))})

valid("trtllm_service_extras",
      "Service container/args/env/start/placement/readiness/critical are not mapped into the client "
      "config (§6): files as for the bare entry.",
      trt("svc-extras", services=[master(dict(STORE), container="mooncake.sqsh",
                                         args=["--rpc_thread_num=32"], env={"GLOG_v": "1"},
                                         start="before_workers", placement={"node": "infra"},
                                         readiness={"port": 8700, "timeout_seconds": 300},
                                         critical=True)]),
      {PF: std("both"), DF: std("capacity")})

valid("trtllm_no_master_env_config_path",
      "No master; both roles set MOONCAKE_CONFIG_PATH in env: loads (C3 satisfied), no file (srtctl case 11).",
      trt("no-master-env", services=[],
          prefill=trt_role(env={"MOONCAKE_CONFIG_PATH": "/data/mooncake.json"}),
          decode=trt_role(env={"MOONCAKE_CONFIG_PATH": "/data/mooncake.json"})),
      {})

valid("trtllm_no_master_top_environment",
      "No master; MOONCAKE_CONFIG_PATH in the top-level environment covers every connector role "
      "(C3 uses environment ∪ role env), Dynamo frontend: loads, no file.",
      trt("no-master-top-env", services=None, frontend={"type": "dynamo"},
          top={"environment": {"MOONCAKE_CONFIG_PATH": "/data/mooncake.json"}}),
      {})

valid("trtllm_no_master_run_dirs",
      "No master, trtllm-serve, each role its own mooncake_store block with its own run_dir and one "
      "worker (C3/C4 pass, srtctl case 11): no file.",
      trt("no-master-run-dirs", services=[],
          prefill=trt_role(conn={"connector": "mooncake-store",
                                 "mooncake_store": {"pool": "10.0.0.5:50051", "model_key": "m", "run_dir": "/d"}}),
          decode=trt_role(conn={"connector": "mooncake-store",
                                "mooncake_store": {"pool": "10.0.0.5:50051", "model_key": "m",
                                                   "run_dir": "/d-decode"}})),
      {})

valid("trtllm_no_master_run_dirs_differ_by_slash",
      "C4 compares run_dir strings: '/logs/mc' and '/logs/mc/' are different strings, so no sharing is "
      "reported (C4 'the same run_dir string'): loads, no file.",
      trt("run-dir-slash", services=[],
          prefill=trt_role(conn={"connector": "mooncake-store", "mooncake_store": {"run_dir": "/logs/mc"}}),
          decode=trt_role(conn={"connector": "mooncake-store", "mooncake_store": {"run_dir": "/logs/mc/"}})),
      {})

valid("trtllm_no_master_sidecar_agg",
      "No master, Dynamo with dynamo.sidecar: true, single agg role with a run_dir block (srtctl case 13): "
      "loads, no file.",
      trt("sidecar-agg", services=None, frontend={"type": "dynamo"},
          top={"dynamo": {"sidecar": True}},
          roles={"agg": trt_role(conn={"connector": "mooncake-store",
                                       "mooncake_store": {"pool": "10.0.0.5:50051", "model_key": "m",
                                                          "run_dir": "/logs/mc"}})}),
      {})

valid("trtllm_no_master_no_connector",
      "TRT-LLM without a master and without the connector; services: [] (srtctl cases 6, 12): no file.",
      trt("no-master-no-conn", services=[], prefill=trt_role(conn=None), decode=trt_role(conn=None)),
      {})

valid("trtllm_yaml_typing",
      "YAML 1.1 typing feeding the rules (§1): '123' quoted string model_key, yes/off bools, 0x1000000 -> 16777216, "
      "1_000 -> 1000, 010 -> 8, 1.0e+9 float (rendered 1000000000.0); all valid, types kept in the file.",
      trt("yaml-typing",
          store={"model_key": R('"123"', "123"), "stage_through_host": R("yes", True),
                 "global_segment_size": R("0x1000000", 16777216), "local_buffer_size": R("1_000", 1000),
                 "transfer_batch_size": R("010", 8), "protocol": R('"tcp"', "tcp")},
          decode=trt_role(msc={"global_segment_size": R("1.0e+9", 1e9),
                               "stage_through_host": R("off", False)})),
      {PF: pay(("role", "both"), ("model_key", "123"), ("stage_through_host", True),
               ("global_segment_size", 16777216), ("local_buffer_size", 1000), ("transfer_batch_size", 8),
               ("protocol", "tcp"), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", "123"), ("stage_through_host", False),
               ("global_segment_size", 1e9), ("local_buffer_size", 1000), ("transfer_batch_size", 8),
               ("protocol", "tcp"), ("master_server_address", MSA))})

valid("trtllm_unicode_served_name",
      "Non-ASCII served_model_name and store value: escaped as \\uXXXX by json.dumps (§7).",
      trt("unicode", engine={"type": "trtllm", "served_model_name": "Qwén/模型-0.6B"},
          store={"namespace": "ns-ü", "protocol": "rdma"}),
      {PF: pay(("role", "both"), ("model_key", "Qwén/模型-0.6B"), ("namespace", "ns-ü"),
               ("protocol", "rdma"), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", "Qwén/模型-0.6B"), ("namespace", "ns-ü"),
               ("protocol", "rdma"), ("master_server_address", MSA))})

valid("trtllm_sizes_accepted_a",
      "§9 accepted spellings, each in a rendered payload: '16 GiB', ' 16GiB ', 16gib, 16B; the files "
      "keep them verbatim.",
      trt("sizes-a", store={"global_segment_size": "16gib", "local_buffer_size": " 16GiB "},
          prefill=trt_role(msc={"global_segment_size": "16 GiB"}),
          decode=trt_role(msc={"local_buffer_size": "16B"})),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("global_segment_size", "16 GiB"),
               ("local_buffer_size", " 16GiB "), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", QWEN), ("global_segment_size", "16gib"),
               ("local_buffer_size", "16B"), ("master_server_address", MSA))})

valid("trtllm_sizes_accepted_b",
      "§9 accepted: '16777216' (string byte count), 4kib, int 0, float 1.9 (truncated to 1 >= 1, rendered 1.9).",
      trt("sizes-b", store={"global_segment_size": "16777216", "local_buffer_size": R("1.9", 1.9)},
          prefill=trt_role(msc={"local_buffer_size": "4kib"}),
          decode=trt_role(msc={"global_segment_size": 0})),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("global_segment_size", "16777216"),
               ("local_buffer_size", "4kib"), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", QWEN), ("global_segment_size", 0),
               ("local_buffer_size", 1.9), ("master_server_address", MSA))})

valid("trtllm_sizes_accepted_c",
      "§9 accepted: tabs around the size ('\\t16GiB\\t' matches \\s), 1.5GiB, 1.5MiB, 8b.",
      trt("sizes-c", store={"global_segment_size": R('"\\t16GiB\\t"', "\t16GiB\t"), "local_buffer_size": 4096},
          prefill=trt_role(msc={"global_segment_size": "1.5GiB", "local_buffer_size": "1.5MiB"}),
          decode=trt_role(msc={"local_buffer_size": "8b"})),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("global_segment_size", "1.5GiB"),
               ("local_buffer_size", "1.5MiB"), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", QWEN), ("global_segment_size", "\t16GiB\t"),
               ("local_buffer_size", "8b"), ("master_server_address", MSA))})

valid("trtllm_sizes_accepted_d",
      "§9 accepted: '0' (string), 2TiB, '16 mib', '1 KiB'.",
      trt("sizes-d", store={"global_segment_size": "0", "local_buffer_size": "2TiB"},
          prefill=trt_role(msc={"global_segment_size": "16 mib"}),
          decode=trt_role(msc={"local_buffer_size": "1 KiB"})),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("global_segment_size", "16 mib"),
               ("local_buffer_size", "2TiB"), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", QWEN), ("global_segment_size", "0"),
               ("local_buffer_size", "1 KiB"), ("master_server_address", MSA))})

valid("trtllm_rule_edge_values",
      "C11 edges that pass: model_key ' pool ' (trimmed non-empty, written unchanged), role 'PRODUCER' "
      "and '\\tconsumer' (lower/trim), stage_through_host null, transfer_batch_size 1.5 (int() -> 1), "
      "global_segment_size -0.5 (truncates toward zero to 0 >= 0), local_buffer_size '0.5KiB' (512).",
      trt("rule-edges",
          store={"model_key": " pool ", "role": "PRODUCER", "stage_through_host": R("~", None),
                 "transfer_batch_size": R("1.5", 1.5), "global_segment_size": R("-0.5", -0.5),
                 "local_buffer_size": "0.5KiB"},
          decode=trt_role(msc={"role": R('"\\tconsumer"', "\tconsumer")})),
      {PF: pay(("role", "PRODUCER"), ("model_key", " pool "), ("stage_through_host", None),
               ("transfer_batch_size", 1.5), ("global_segment_size", -0.5), ("local_buffer_size", "0.5KiB"),
               ("master_server_address", MSA)),
       DF: pay(("role", "\tconsumer"), ("model_key", " pool "), ("stage_through_host", None),
               ("transfer_batch_size", 1.5), ("global_segment_size", -0.5), ("local_buffer_size", "0.5KiB"),
               ("master_server_address", MSA))})

valid("trtllm_size_huge_strings",
      "§9 sets no upper bound: '99999999999999999999' (bytes) and '100000000TiB' are a byte count and a "
      "binary-unit size (regex match, Python float/int arithmetic) and pass the minimum checks; the "
      "files keep the strings.",
      trt("sizes-huge", store={"global_segment_size": "99999999999999999999",
                               "local_buffer_size": "100000000TiB"}),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("global_segment_size", "99999999999999999999"),
               ("local_buffer_size", "100000000TiB"), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", QWEN), ("global_segment_size", "99999999999999999999"),
               ("local_buffer_size", "100000000TiB"), ("master_server_address", MSA))})

valid("trtllm_size_huge_float",
      "§9 int/float: must be finite, value = truncation toward zero; 1.0e+19 (float) is finite and >= 0, "
      "so it passes and is written as Python's repr 1e+19.",
      trt("sizes-huge-float", store={"global_segment_size": R("1.0e+19", 1e19)}),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("global_segment_size", 1e19), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", QWEN), ("global_segment_size", 1e19),
               ("master_server_address", MSA))})

valid("trtllm_sizes_accepted_e",
      "§9 accepted: the unit is compared lower-case, so 16GIB and 16Kib pass.",
      trt("sizes-e", store={"global_segment_size": "16GIB", "local_buffer_size": "16Kib"}),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("global_segment_size", "16GIB"),
               ("local_buffer_size", "16Kib"), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", QWEN), ("global_segment_size", "16GIB"),
               ("local_buffer_size", "16Kib"), ("master_server_address", MSA))})

valid("trtllm_connector_config_not_mapping",
      "decode kv_connector_config is the string 'mooncake-store', not a mapping: not a connector mode "
      "(§4 'is a mapping'), so only the prefill file.",
      trt("conn-string", decode=trt_role(conn="mooncake-store")),
      {PF: std("both")})

# ======================================================================
# VALID: SGLang (§7.3: no file)
# ======================================================================

valid("sglang_service_default_engine",
      "No engine key: SGLang (§3); a mooncake-master service, transfer backend mooncake on both "
      "roles: loads, SGLang gets no file (§7.3).",
      sgl("sgl-service"), {})

valid("sglang_string_engine",
      "engine: sglang as a string with a services entry (§6): no file.",
      sgl("sgl-string", engine="sglang"), {})

valid("sglang_engine_block_decode_only_backend",
      "engine.mooncake_kv_store (container, env, master_extra_args) and the underscore spelling "
      "disaggregation_transfer_backend on decode only (V2: one role suffices): no file.",
      sgl("sgl-engine-block", services=None,
          engine={"type": "sglang",
                  "mooncake_kv_store": {"container": "mooncake.sqsh",
                                        "env": {"MOONCAKE_GLOBAL_SEGMENT_SIZE": "4gb"},
                                        "master_extra_args": ["--rpc_thread_num=8"]}},
          prefill=sgl_role(backend=None),
          decode=sgl_role(key="disaggregation_transfer_backend")),
      {})

valid("sglang_external_master",
      "SGLang with an external mooncake-master (supported for SGLang/vLLM, §5, §12): loads, no file.",
      sgl("sgl-external", services=[master(external="10.0.0.5:8700")]), {})

valid("sglang_with_etcd_nats_services",
      "Other service kinds next to the master: an external etcd, a dedicated nats and a dedicated "
      "mooncake-master are all allowed (§5 supports_external / supports_dedicated): no file.",
      sgl("sgl-etcd-nats", services=[{"name": "etcd", "type": "etcd", "external": "10.0.0.1:2379"},
                                     {"name": "nats", "type": "nats", "placement": {"node": "dedicated"}},
                                     master(placement={"node": "dedicated"})]), {})

valid("sglang_agg_without_transfer_backend",
      "Aggregated SGLang recipe with a master: V2 applies only to disaggregated recipes; loads, no file.",
      sgl("sgl-agg", roles={"agg": sgl_role(backend=None)}), {})

valid("sglang_empty_role_store_config",
      "roles.decode.mooncake_store_config: {} counts as not set (§4), so C1 does not fire: no file.",
      sgl("sgl-empty-msc", decode=sgl_role(msc={})), {})

valid("sglang_disabled_master_no_backend",
      "The only mooncake-master is disabled (enabled: false): no store, so V2 is not checked; no file.",
      sgl("sgl-disabled", services=[master(enabled=False)],
          prefill=sgl_role(backend=None), decode=sgl_role(backend=None)), {})

# ======================================================================
# VALID: vLLM (§7.2: one shared file)
# ======================================================================

REAL_STORE = {"metadata_server": "P2PHANDSHAKE", "global_segment_size": "150GB",
              "local_buffer_size": "4GB", "protocol": "tcp", "device_name": "",
              "mode": "embedded", "enable_offload": True}

valid("vllm_service_store_config",
      "vLLM: one mooncake_store_config.json = options.store_config in order + master_server_address; "
      "sizes such as 150GB pass through (§7.2, §9 vLLM).",
      vllm("vllm-service", store=dict(REAL_STORE)),
      {VF: dict(REAL_STORE, master_server_address=MSA)})

valid("vllm_no_store_config",
      "vLLM master without options: the file holds only master_server_address (§7.2).",
      vllm("vllm-empty"),
      {VF: pay(("master_server_address", MSA))})

valid("vllm_master_address_in_place",
      "vLLM: a user master_server_address is replaced in place (§7.2).",
      vllm("vllm-msa", store={"protocol": "rdma", "master_server_address": "1.2.3.4:5", "x": 1}),
      {VF: pay(("protocol", "rdma"), ("master_server_address", MSA), ("x", 1))})

valid("vllm_engine_block",
      "vLLM engine.mooncake_kv_store form with store_config and env (§6): shared file.",
      vllm("vllm-engine-block", services=None,
           engine={"type": "vllm", "mooncake_kv_store": {
               "env": {"MC_TE_METRIC": "0"},
               "store_config": {"protocol": "rdma", "global_segment_size": "64GB", "role": "anything"}}}),
      {VF: pay(("protocol", "rdma"), ("global_segment_size", "64GB"), ("role", "anything"),
               ("master_server_address", MSA))})

valid("vllm_external_master",
      "vLLM with an external master: allowed; nothing is started and the file points the workers "
      "at the external master (the docs' promise, chosen over the infra IP of srtctl's worker code, §12 item 12, in the "
      "rendering, where nothing would be listening; issue #3: 'workers pointed at the external address').",
      vllm("vllm-external", services=[master({"protocol": "tcp"}, external="10.0.0.5:8700")]),
      {VF: pay(("protocol", "tcp"), ("master_server_address", "10.0.0.5:8700"))})

valid("vllm_device_names_by_gpu",
      "vLLM options.device_names_by_gpu with one entry per GPU (V1 ok): render writes the shared file "
      "only (per-GPU files are per launched process, §7.2).",
      vllm("vllm-devices", store={"protocol": "rdma"},
           options={"device_names_by_gpu": ["mlx5_0", "mlx5_0", "mlx5_1", "mlx5_1"]}),
      {VF: pay(("protocol", "rdma"), ("master_server_address", MSA))})

valid("vllm_device_names_by_gpu_empty",
      "options.device_names_by_gpu: [] is copied (the key is present) but empty, so V1 does not apply "
      "(§6, V1 'non-empty'): shared file.",
      vllm("vllm-devices-empty", store={"protocol": "rdma"}, options={"device_names_by_gpu": []}),
      {VF: pay(("protocol", "rdma"), ("master_server_address", MSA))})

valid("vllm_engine_block_device_names",
      "vLLM engine.mooncake_kv_store.device_names_by_gpu with one entry per GPU (V1 ok): shared file only.",
      vllm("vllm-engine-devices", services=None,
           engine={"type": "vllm", "mooncake_kv_store": {"store_config": {"protocol": "rdma"},
                                                         "device_names_by_gpu": ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]}}),
      {VF: pay(("protocol", "rdma"), ("master_server_address", MSA))})

valid("vllm_kv_transfer_underscore_decode_only",
      "V2: kv_transfer_config (underscore) on decode only, 'MoonCake' in mixed case: one role suffices.",
      vllm("vllm-underscore", store={"protocol": "tcp"},
           prefill=vllm_role(kvt=None),
           decode=vllm_role(key="kv_transfer_config",
                            kvt='{"kv_connector":"MoonCakeStoreConnector","kv_role":"kv_consumer"}')),
      {VF: pay(("protocol", "tcp"), ("master_server_address", MSA))})

valid("vllm_kv_transfer_substring",
      "V2 is a case-insensitive substring test on the kv-transfer-config string: a NixlConnector config "
      "whose string mentions /opt/MOONCAKE passes.",
      vllm("vllm-substring", store={"protocol": "tcp"},
           prefill=vllm_role(kvt='{"kv_connector":"NixlConnector","kv_connector_extra_config":{"lib":"/opt/MOONCAKE/lib"}}'),
           decode=vllm_role(kvt='{"kv_connector":"NixlConnector"}')),
      {VF: pay(("protocol", "tcp"), ("master_server_address", MSA))})

valid("vllm_agg_without_transfer_config",
      "Aggregated vLLM recipe: V2 not checked; shared file.",
      vllm("vllm-agg", store={"protocol": "tcp"}, roles={"agg": vllm_role(kvt=None)}),
      {VF: pay(("protocol", "tcp"), ("master_server_address", MSA))})

valid("vllm_typing_bools_nulls",
      "YAML 1.1 bools/nulls/strings in store_config (§1): yes/no/on/Off/True -> JSON bools, "
      "'y' stays a string, quoted 'true'/'yes' stay strings, ~/null -> null.",
      vllm("vllm-bools", store={
          "b_yes": R("yes", True), "b_no": R("no", False), "b_on": R("on", True),
          "b_off": R("Off", False), "b_true": R("True", True), "b_false": R("FALSE", False),
          "s_y": R("y", "y"), "s_n": R("n", "n"), "s_true": R('"true"', "true"),
          "s_yes": R("'yes'", "yes"), "n_tilde": R("~", None), "n_null": R("null", None),
          "n_empty": R("", None)}),
      {VF: pay(("b_yes", True), ("b_no", False), ("b_on", True), ("b_off", False),
               ("b_true", True), ("b_false", False), ("s_y", "y"), ("s_n", "n"),
               ("s_true", "true"), ("s_yes", "yes"), ("n_tilde", None), ("n_null", None),
               ("n_empty", None), ("master_server_address", MSA))})

valid("vllm_typing_numbers",
      "YAML 1.1 numbers (§1) rendered as Python json.dumps would: 1e9 and 1e+9 are strings, "
      "1.0e+9 float 1000000000.0, 64.0, 0x10 -> 16, 010 -> 8, 1_000 -> 1000, +7, -42, .5 -> 0.5, "
      "0.00001 -> 1e-05, 1.5e-5 -> 1.5e-05, 10000000000000000.0 -> 1e+16, 1_000.5, -0.0, 08 string, "
      "quoted '42' string.",
      vllm("vllm-numbers", store={
          "s_1e9": R("1e9", "1e9"), "s_1e_plus9": R("1e+9", "1e+9"), "f_1e9": R("1.0e+9", 1e9),
          "f_64": R("64.0", 64.0), "i_hex": R("0x10", 16), "i_oct": R("010", 8),
          "i_us": R("1_000", 1000), "i_plus": R("+7", 7), "i_neg": R("-42", -42),
          "f_half": R(".5", 0.5), "f_tiny": R("0.00001", 1e-05), "f_exp": R("1.5e-5", 1.5e-05),
          "f_big": R("10000000000000000.0", 1e16), "f_us": R("1_000.5", 1000.5),
          "f_negzero": R("-0.0", -0.0), "f_tenth": R("0.1", 0.1), "f_pi": R("3.14159", 3.14159),
          "s_08": R("08", "08"), "s_42": R('"42"', "42"), "i_zero": R("0", 0)}),
      {VF: pay(("s_1e9", "1e9"), ("s_1e_plus9", "1e+9"), ("f_1e9", 1e9), ("f_64", 64.0),
               ("i_hex", 16), ("i_oct", 8), ("i_us", 1000), ("i_plus", 7), ("i_neg", -42),
               ("f_half", 0.5), ("f_tiny", 1e-05), ("f_exp", 1.5e-05), ("f_big", 1e16),
               ("f_us", 1000.5), ("f_negzero", -0.0), ("f_tenth", 0.1), ("f_pi", 3.14159),
               ("s_08", "08"), ("s_42", "42"), ("i_zero", 0), ("master_server_address", MSA))})

valid("vllm_typing_exotic_ints",
      "YAML 1.1 exotic numbers (§1, PyYAML): 0b1010 -> 10, sexagesimal 1:30 -> 90 and 1:30.5 -> 90.5.",
      vllm("vllm-exotic", store={
          "i_bin": R("0b1010", 10), "i_sexa": R("1:30", 90), "f_sexa": R("1:30.5", 90.5)}),
      {VF: pay(("i_bin", 10), ("i_sexa", 90), ("f_sexa", 90.5), ("master_server_address", MSA))})

valid("vllm_typing_big_ints",
      "Python ints are unbounded: PyYAML safe_load gives 12345678901234567890 and -9223372036854775809 as "
      "ints and json.dumps writes them unchanged (§1; vLLM passes store_config through, §7.2).",
      vllm("vllm-big-ints", store={
          "i_big": R("12345678901234567890", 12345678901234567890),
          "i_negbig": R("-9223372036854775809", -9223372036854775809)}),
      {VF: pay(("i_big", 12345678901234567890), ("i_negbig", -9223372036854775809),
               ("master_server_address", MSA))})

valid("vllm_typing_float_special",
      "Special floats pass through vLLM rendering unvalidated and json.dumps writes them as "
      "Infinity, -Infinity, NaN (§7 = Python json.dumps).",
      vllm("vllm-special", store={"f_inf": R(".inf", float("inf")), "f_ninf": R("-.inf", float("-inf")),
                                  "f_nan": R(".nan", float("nan"))}),
      {VF: pay(("f_inf", float("inf")), ("f_ninf", float("-inf")), ("f_nan", float("nan")),
               ("master_server_address", MSA))})

valid("vllm_strings_escapes",
      "String encoding as json.dumps (§7.1): non-ASCII as \\uXXXX (surrogate pair for U+1F600), "
      "quote/backslash/control escapes, DEL as \\u007f, '/' not escaped, non-ASCII key, "
      "literal block with trailing newline.",
      vllm("vllm-strings", store={
          "latin": "héllo wörld", "cjk": "模型", "emoji": R('"\\U0001F600"', "\U0001F600"),
          "quote": R('"say \\"hi\\" \\\\ back"', 'say "hi" \\ back'),
          "ctrl": R('"tab\\tnl\\ncr\\rbell\\x07"', "tab\tnl\ncr\rbell\x07"),
          "del": R('"\\x7f"', "\x7f"), "slash": "http://h:8701/metadata",
          "clé": 1, "block": R("|\n        line1\n        line2", "line1\nline2\n")}),
      {VF: pay(("latin", "héllo wörld"), ("cjk", "模型"), ("emoji", "\U0001F600"),
               ("quote", 'say "hi" \\ back'), ("ctrl", "tab\tnl\ncr\rbell\x07"), ("del", "\x7f"),
               ("slash", "http://h:8701/metadata"), ("clé", 1), ("block", "line1\nline2\n"),
               ("master_server_address", MSA))})

valid("vllm_nested_values",
      "Nested maps/lists in store_config are rendered with json.dumps(indent=2) nesting; empty "
      "list/map as [] / {} (§7).",
      vllm("vllm-nested", store={
          "nested": {"a": 1, "b": [1, "x", {"c": None}, True]},
          "empty_list": R("[]", []), "empty_map": R("{}", {}),
          "lists": R("[[1, 2], []]", [[1, 2], []])}),
      {VF: pay(("nested", {"a": 1, "b": [1, "x", {"c": None}, True]}), ("empty_list", []),
               ("empty_map", {}), ("lists", [[1, 2], []]), ("master_server_address", MSA))})

valid("vllm_yaml_tags_and_scalars",
      "More PyYAML safe_load scalars (§1): !!str 16 -> '16', !!float 1 -> 1.0, !!int '7' -> 7, "
      "!!null '' -> null, folded >, single-quoted 'it''s', a multi-line plain scalar, a flow mapping.",
      vllm("vllm-tags", store={
          "t_str": R("!!str 16", "16"), "t_float": R("!!float 1", 1.0), "t_int": R("!!int '7'", 7),
          "t_null": R("!!null ''", None), "folded": R(">\n        folded\n        text", "folded text\n"),
          "quoted": R("'it''s'", "it's"), "plain": R("plain\n        continued", "plain continued"),
          "flow": R("{x: 1, y: [a, yes]}", {"x": 1, "y": ["a", True]})}),
      {VF: pay(("t_str", "16"), ("t_float", 1.0), ("t_int", 7), ("t_null", None), ("folded", "folded text\n"),
               ("quoted", "it's"), ("plain", "plain continued"), ("flow", {"x": 1, "y": ["a", True]}),
               ("master_server_address", MSA))})

valid("vllm_non_string_keys",
      "store_config is a free-form map that accepts any keys (§1); PyYAML types the keys 1, off, ~, "
      "0x10, 1.50 as int/bool/None/int/float and json.dumps writes them as \"1\", \"false\", \"null\", "
      "\"16\", \"1.5\".",
      vllm("vllm-keys", store={R("1", 1): "one", R("off", False): "bool key", R("~", None): "null key",
                               R("0x10", 16): "hex key", R("1.50", 1.5): "float key"}),
      {VF: pay(("1", "one"), ("false", "bool key"), ("null", "null key"), ("16", "hex key"),
               ("1.5", "float key"), ("master_server_address", MSA))})

# Hand-written YAML (anchors, merge keys, duplicate keys) -----------------

VLLM_HEAD = """schema: 2
name: {name}
model:
  path: hf:Qwen/Qwen3-0.6B
  container: vllm.sqsh
  precision: bf16
resources:
  gpu_type: h100
  gpus_per_node: 4
frontend:
  type: dynamo
engine:
  type: vllm
roles:
  prefill:
    nodes: 1
    workers: 1
    gpus: 4
    env: &common_env
      MC_A: "1"
      MC_B: "2"
    args:
      tensor-parallel-size: 1
      kv-transfer-config: '{kvt}'
  decode:
    nodes: 1
    workers: 1
    gpus: 4
    env: *common_env
    args:
      tensor-parallel-size: 1
      kv-transfer-config: '{kvt}'
services:
- name: mooncake-master
  type: mooncake-master
  options:
    store_config:
"""

anchor_text = VLLM_HEAD.format(name="vllm-anchor-merge", kvt=KVT) + """      b_first: "0"
      <<: *common_env
      MC_B: "3"
      last: true
"""
# PyYAML flatten_mapping: merged pairs first, then the mapping's own pairs;
# the later own MC_B wins but keeps the merged position; b_first comes after.
assert list(yaml.safe_load(anchor_text)["services"][0]["options"]["store_config"].items()) == \
    [("MC_A", "1"), ("MC_B", "3"), ("b_first", "0"), ("last", True)]
valid("vllm_anchor_merge",
      "Anchors, aliases and a << merge key in store_config, as PyYAML safe_load builds them (§1): "
      "merged pairs first (MC_A, MC_B), the own MC_B overrides in place, then b_first, last.",
      anchor_text,
      {VF: pay(("MC_A", "1"), ("MC_B", "3"), ("b_first", "0"), ("last", True), ("master_server_address", MSA))})

dup_text = VLLM_HEAD.format(name="vllm-duplicate-key", kvt=KVT) + """      protocol: tcp
      device_name: mlx5_0
      protocol: rdma
"""
assert list(yaml.safe_load(dup_text)["services"][0]["options"]["store_config"].items()) == \
    [("protocol", "rdma"), ("device_name", "mlx5_0")]
valid("vllm_duplicate_key",
      "A duplicate key in store_config: PyYAML safe_load keeps the first position and the last value "
      "(§1 'parsed with PyYAML safe_load').",
      dup_text,
      {VF: pay(("protocol", "rdma"), ("device_name", "mlx5_0"), ("master_server_address", MSA))})

# ======================================================================
# INVALID: §10.2 schema gate and v1 keys
# ======================================================================

BASE_TRT = trt("base")
BASE_SGL = sgl("base-sgl")
BASE_VLLM = vllm("base-vllm", store={"protocol": "tcp"})


def no_schema(d):
    del d["schema"]


invalid("schema_missing", "no `schema:` key",
        "No schema key: the pre-2.0 layout is refused (§10.2).", mutate(BASE_TRT, no_schema))
invalid("schema_1", ["schema", "srtctl migrate"],
        "schema: 1 is refused (§10.2 'other value').", mutate(BASE_TRT, lambda d: d.update(schema=1)))
invalid("schema_quoted_string", "schema",
        "schema: \"2\" is a string, not the integer 2 (§10.2).",
        mutate(BASE_TRT, lambda d: d.update(schema=R('"2"', "2"))))
invalid("schema_bool", "schema",
        "schema: yes is a bool (§10.2 'integer, not bool').",
        mutate(BASE_TRT, lambda d: d.update(schema=R("yes", True))))

V1 = [
    ("backend", lambda d: d.update(backend={"type": "trtllm"})),
    ("infra", lambda d: d.update(infra={"etcd_nats_dedicated_node": False})),
]
for role in ("prefill", "decode", "agg"):
    for kind in ("nodes", "workers"):
        key = "%s_%s" % (role, kind)
        V1.append(("resources." + key, (lambda k: lambda d: d["resources"].update({k: 1}))(key)))
for role in ("prefill", "decode", "agg"):
    key = "gpus_per_" + role
    V1.append(("resources." + key, (lambda k: lambda d: d["resources"].update({k: 1}))(key)))
for role in ("prefill", "decode", "agg"):
    key = role + "_critical"
    V1.append(("resources." + key, (lambda k: lambda d: d["resources"].update({k: True}))(key)))
V1 += [
    ("frontend.orchestrator_placement", lambda d: d["frontend"].update(orchestrator_placement="head")),
    ("frontend.dedicated_node", lambda d: d["frontend"].update(dedicated_node=True)),
    ("benchmark.client_placement", lambda d: d.update(benchmark={"type": "sa-bench", "client_placement": "head"})),
    ("benchmark.client_dedicated_node", lambda d: d.update(benchmark={"type": "sa-bench", "client_dedicated_node": True})),
    ("dynamo.version", lambda d: d.update(dynamo={"version": "0.8.0"})),
    ("dynamo.hash", lambda d: d.update(dynamo={"hash": "abc123"})),
    ("dynamo.wheel", lambda d: d.update(dynamo={"wheel": "1.4.0.dev20260730"})),
    ("dynamo.cargo_patches", lambda d: d.update(dynamo={"cargo_patches": ["p.patch"]})),
]
for key, fn in V1:
    leaf = key.split(".")[-1]
    invalid("v1_" + key.replace(".", "_"), ["srtctl migrate -f", leaf],
            "v1-only key %s under schema: 2 is refused with the migrate hint (§10.2)." % key,
            mutate(BASE_TRT, fn))

# ======================================================================
# INVALID: §5 / §10.2-§10.6
# ======================================================================

invalid("two_enabled_masters", "only one mooncake-master service is supported",
        "Two enabled mooncake-master entries (§5, §10.4).",
        trt("two-masters", services=[master(dict(STORE)), master(name="mooncake-master-2")]))
invalid("two_enabled_masters_sglang_external", "only one mooncake-master service is supported",
        "SGLang: a second enabled master, even external, is refused (§5).",
        sgl("two-masters-sgl", services=[master(), master(name="mc-ext", external="10.0.0.5:8700")]))
invalid("master_with_role_engines_only", "a mooncake-master service needs a top-level engine",
        "No top-level engine, roles set their own engine, and a master is declared (§6, §10.4).",
        mutate(BASE_SGL, lambda d: [d["roles"][r].update(engine="sglang") for r in ("prefill", "decode")]))
invalid("role_engine_with_store",
        "role-specific engines do not yet support implicit Mooncake stores or failover (decode)",
        "Top-level SGLang engine with a master, decode sets its own engine (§6).",
        mutate(sgl("role-engine", engine="sglang"), lambda d: d["roles"]["decode"].update(engine="sglang")))

for key, val in (("prefill_environment", {"A": "1"}), ("decode_extra_args", ["--x"]),
                 ("aggregated_environment", {"A": "1"}), ("trtllm_config", {"max_batch_size": 8}),
                 ("kv_events_config", {"enable": True})):
    invalid("engine_mapping_" + key, ["an engine mapping carries engine-wide knobs only", "roles.<role>"],
            "engine mapping with the per-role key %s (§3)." % key,
            mutate(BASE_TRT, (lambda k, v: lambda d: d["engine"].update({k: v}))(key, val)))
invalid("engine_mapping_roles", "roles are declared at the recipe's top level",
        "roles written under engine (§3).",
        mutate(BASE_TRT, lambda d: d["engine"].update(roles={"prefill": {"nodes": 1}})))
invalid("engine_unknown_field_trtllm", ["Unknown field", "served_model"],
        "Unknown TRT-LLM engine field (served_model instead of served_model_name) (§10.6, §3).",
        mutate(BASE_TRT, lambda d: d["engine"].update(served_model="x")))

# E1, E2 (§8): environment names a shell can export; values that keep a
# NAME=value line one line
invalid("env_name_with_equals", ["roles.prefill.env: 'B=C' is not an environment variable name", "(e.g. B_C)"],
        "E1: a name with '=' would be split there by every reader of the environment (§8).",
        mutate(BASE_TRT, lambda d: d["roles"]["prefill"].update(env={"B=C": "x"})))
invalid("env_name_empty", ["environment: '' is not an environment variable name"],
        "E1: an empty name (§8).",
        mutate(BASE_TRT, lambda d: d.update(environment={"": "x"})))
invalid("env_value_newline", ["environment.A: the value 'a\\nMOONCAKE_MASTER=evil:8700' contains a newline"],
        "E2: a newline in a value forges a NAME=value line where the environment is listed (§8).",
        mutate(BASE_TRT, lambda d: d.update(environment={"A": "a\nMOONCAKE_MASTER=evil:8700"})))

invalid("trtllm_store_device_names_by_gpu", ["device_names_by_gpu", "Unknown field"],
        "device_names_by_gpu under a TRT-LLM engine.mooncake_kv_store is an unknown field (§3).",
        trt("trt-dev", services=None,
            engine={"type": "trtllm", "served_model_name": QWEN,
                    "mooncake_kv_store": {"store_config": {"protocol": "rdma"},
                                          "device_names_by_gpu": ["mlx5_0"] * 8}}))
invalid("trtllm_service_device_names_by_gpu", ["device_names_by_gpu", "Unknown field"],
        "services options.device_names_by_gpu on TRT-LLM maps to an unknown field (§6).",
        trt("trt-svc-dev", services=[master(dict(STORE), options={"device_names_by_gpu": ["mlx5_0"] * 8})]))
invalid("trtllm_store_unknown_field", ["eviction_ratio", "Unknown field"],
        "Donor-design key eviction_ratio under a TRT-LLM engine.mooncake_kv_store (§3, §3).",
        trt("trt-unknown", services=None,
            engine={"type": "trtllm", "served_model_name": QWEN,
                    "mooncake_kv_store": {"store_config": {"protocol": "rdma"}, "eviction_ratio": 0.9}}))
invalid("vllm_store_unknown_field", ["default_kv_lease_ttl_ms", "Unknown field"],
        "default_kv_lease_ttl_ms (from the real v1 recipe) under vLLM engine.mooncake_kv_store (a saved real recipe, §3).",
        vllm("vllm-unknown", services=None,
             engine={"type": "vllm", "mooncake_kv_store": {"default_kv_lease_ttl_ms": 20000,
                                                           "store_config": {"protocol": "tcp"}}}))
invalid("sglang_store_config_unknown_field", ["store_config", "Unknown field"],
        "SGLang MooncakeKVStoreConfig has no store_config field (§3, §12).",
        sgl("sgl-store-config", services=None,
            engine={"type": "sglang", "mooncake_kv_store": {"store_config": {"protocol": "tcp"}}}))
invalid("sglang_service_store_config", ["store_config", "Unknown field"],
        "SGLang with services options.store_config: mapped to engine.mooncake_kv_store.store_config, which "
        "SGLang's block does not have (§6, §12).",
        sgl("sgl-svc-store-config", services=[master({"protocol": "tcp"})]))
invalid("mocker_with_master", ["mooncake_kv_store", "Unknown field"],
        "The mocker engine has no mooncake_kv_store field (§3: only SGLang, vLLM, TRT-LLM have it); a "
        "mooncake-master service maps into it (§6).",
        recipe("mocker-master", {"type": "mocker"}, {"agg": {"nodes": 1, "workers": 1, "gpus": 1}},
               [master()]))
invalid("c1_mocker_role_store_config", "roles.agg.mooncake_store_config is read by TRT-LLM only",
        "C1 also covers engines other than SGLang/vLLM (mocker), without a master.",
        recipe("mocker-c1", {"type": "mocker"},
               {"agg": {"nodes": 1, "workers": 1, "gpus": 1, "mooncake_store_config": {"protocol": "tcp"}}}))
invalid("service_readiness_interval_negative", "interval_seconds",
        "readiness.interval_seconds: -1 (must be > 0) (§5).",
        sgl("svc-interval", services=[master(readiness={"port": 8700, "interval_seconds": -1})]))
invalid("service_placement_unknown_key", "zone",
        "placement has node, pool, per only; an unknown key is refused (§10.6, §5).",
        sgl("svc-zone", services=[master(placement={"node": "infra", "zone": "a"})]))
invalid("service_unknown_field", "replicas",
        "An unknown field on a service entry is refused (§10.6, §5 field list).",
        sgl("svc-unknown", services=[master(replicas=2)]))
invalid("service_option_unknown",
        "services[mooncake-master].options has keys type 'mooncake-master' does not understand: eviction_ratio",
        "Unknown mooncake-master option key (§5).",
        trt("svc-opt", services=[master(dict(STORE), options={"eviction_ratio": 0.9})]))
invalid("role_unknown_key", ["Unknown field", "mooncake_config"],
        "Unknown role key (typo mooncake_config) (§10.6, §4).",
        mutate(BASE_TRT, lambda d: d["roles"]["decode"].update(mooncake_config={"protocol": "tcp"})))
invalid("role_unknown_name", "unknown role 'encode'; valid roles are prefill, decode, agg",
        "Role name outside prefill/decode/agg (§4).",
        mutate(BASE_SGL, lambda d: d["roles"].update(encode=sgl_role())))
invalid("role_aggregated_name", "unknown role 'aggregated'; valid roles are prefill, decode, agg",
        "The legacy worker-mode spelling 'aggregated' is not a role name (§4).",
        sgl("sgl-aggregated", roles={"aggregated": sgl_role(backend=None)}))

# per-entry service rules (§5)
invalid("service_type_unknown", "mooncake_master",
        "Unregistered service kind mooncake_master (underscore) (§5 type).",
        trt("svc-type", services=[dict(master(dict(STORE)), type="mooncake_master")]))
invalid("service_name_missing", "name",
        "Service entry without name (§5 'name (required, non-empty...)').",
        trt("svc-noname", services=[{"type": "mooncake-master", "options": {"store_config": dict(STORE)}}]))
invalid("service_name_empty", "name",
        "Service entry with name: \"\" (§5).",
        trt("svc-emptyname", services=[master(dict(STORE), name="")]))
invalid("service_name_duplicate", "twin-etcd",
        "Two entries named twin-etcd (§5 'unique across the list').",
        mutate(BASE_TRT, lambda d: d["services"].extend([{"name": "twin-etcd", "type": "etcd"},
                                                         {"name": "twin-etcd", "type": "etcd"}])))
invalid("service_external_unsupported_kind", "external",
        "external on a generic kind (only etcd, nats, mooncake-master support it) (§5).",
        mutate(BASE_SGL, lambda d: d["services"].append({"name": "side", "type": "generic",
                                                         "command": ["sleep", "infinity"],
                                                         "external": "10.0.0.5:9000"})))
invalid("service_external_empty", "external",
        "external: \"\" (must be a non-empty string) (§5).",
        sgl("svc-ext-empty", services=[master(external="")]))
invalid("service_command_empty", "command",
        "command: [] (if given must be non-empty) (§5).",
        sgl("svc-cmd-empty", services=[master(command=[])]))
invalid("service_args_blank", "args",
        "args with a blank entry (§5 'no blank entries').",
        sgl("svc-args-blank", services=[master(args=["--rpc_thread_num=8", ""])]))
invalid("service_placement_node_unknown", "moon",
        "placement.node: moon is not a placement (§5).",
        sgl("svc-node", services=[master(placement={"node": "moon"})]))
invalid("service_placement_per_unknown", "rank",
        "placement.per: rank (must be node or worker) (§5).",
        sgl("svc-per", services=[master(placement={"node": "infra", "per": "rank"})]))
invalid("service_start_unknown", "later",
        "start: later (must be infra, before_workers, after_frontend) (§5).",
        sgl("svc-start", services=[master(start="later")]))
invalid("service_readiness_two_probes", "readiness",
        "readiness with both port and tcp (exactly one probe) (§5).",
        sgl("svc-ready2", services=[master(readiness={"port": 8700, "tcp": "127.0.0.1:8700"})]))
invalid("service_readiness_no_probe", "readiness",
        "readiness with no probe at all (§5 'exactly one of port|tcp|http|log').",
        sgl("svc-ready0", services=[master(readiness={"timeout_seconds": 60})]))
invalid("service_readiness_timeout_zero", "timeout_seconds",
        "readiness.timeout_seconds: 0 (must be > 0) (§5).",
        sgl("svc-timeout", services=[master(readiness={"port": 8700, "timeout_seconds": 0})]))
invalid("service_dedicated_generic", "dedicated",
        "placement.node: dedicated on a generic kind (supports_dedicated only etcd, nats, mooncake-master) (§5).",
        mutate(BASE_SGL, lambda d: d["services"].append({"name": "side", "type": "generic",
                                                         "command": ["sleep", "infinity"],
                                                         "placement": {"node": "dedicated"}})))
invalid("service_disabled_still_validated", "moon",
        "A disabled entry is still validated as an entry (§5 enabled).",
        mutate(BASE_SGL, lambda d: d["services"].append(master(name="mc-old", enabled=False,
                                                               placement={"node": "moon"}))))
invalid("trtllm_only_master_disabled_no", "would not find a Mooncake client config",
        "The only master has enabled: no (YAML bool false): no store, so the connector roles have no "
        "config (§6, C3).",
        trt("disabled-no", services=[master(dict(STORE), enabled=R("no", False))]))

# ======================================================================
# INVALID: stage C, C1..C10
# ======================================================================

invalid("c1_sglang_role_store_config", "roles.decode.mooncake_store_config is read by TRT-LLM only",
        "C1: SGLang role with mooncake_store_config (srtctl case 14).",
        mutate(BASE_SGL, lambda d: d["roles"]["decode"].update(mooncake_store_config={"global_segment_size": "16GiB"})))
invalid("c1_vllm_role_store_config", "roles.decode.mooncake_store_config is read by TRT-LLM only",
        "C1: vLLM role with mooncake_store_config (srtctl case 14).",
        mutate(BASE_VLLM, lambda d: d["roles"]["decode"].update(mooncake_store_config={"global_segment_size": "16GiB"})))
invalid("c1_sglang_no_master", "roles.prefill.mooncake_store_config is read by TRT-LLM only",
        "C1 applies with or without a master.",
        sgl("c1-no-master", services=None, prefill=sgl_role(msc={"protocol": "tcp"})))
invalid("c2_no_master_role_store_config", "roles.decode.mooncake_store_config needs a mooncake-master service",
        "C2: no master, both roles set mooncake_store_config; the alphabetically smallest role (decode) "
        "is named (srtctl case 15).",
        trt("c2", services=[],
            prefill=trt_role(env={"MOONCAKE_CONFIG_PATH": "/data/mc.json"}, msc={"local_buffer_size": "1GiB"}),
            decode=trt_role(env={"MOONCAKE_CONFIG_PATH": "/data/mc.json"}, msc={"global_segment_size": "16GiB"})))
invalid("c3_no_master_nothing", "would not find a Mooncake client config",
        "C3: no master, connector roles with no config (srtctl case 19).", trt("c3a", services=[]))
invalid("c3_block_without_run_dir", "would not find a Mooncake client config",
        "C3: trtllm-serve, block {pool, model_key} without run_dir (srtctl case 19).",
        trt("c3b", services=[],
            prefill=trt_role(conn={"connector": "mooncake-store", "mooncake_store": {"pool": "p", "model_key": "m"}}),
            decode=trt_role(conn={"connector": "mooncake-store", "mooncake_store": {"pool": "p", "model_key": "m"}})))
invalid("c3_dynamo_run_dir", "would not find a Mooncake client config",
        "C3: Dynamo frontend without sidecar does not run trtllm-serve, so a run_dir block is not enough (srtctl case 19).",
        trt("c3c", services=[], frontend={"type": "dynamo"},
            prefill=trt_role(conn={"connector": "mooncake-store", "mooncake_store": {"run_dir": "/d"}}),
            decode=trt_role(conn={"connector": "mooncake-store", "mooncake_store": {"run_dir": "/d-decode"}})))
invalid("c3_only_prefill_env", ["roles.decode.args.kv_connector_config selects the mooncake-store connector",
                                "would not find a Mooncake client config"],
        "C3: MOONCAKE_CONFIG_PATH only in the prefill env; decode has none.",
        trt("c3d", services=[], prefill=trt_role(env={"MOONCAKE_CONFIG_PATH": "/data/mc.json"})))
invalid("c4_shared_run_dir", "would be shared by several servers",
        "C4: both roles use run_dir /logs/mc (srtctl case 20).",
        trt("c4a", services=[],
            prefill=trt_role(conn={"connector": "mooncake-store", "mooncake_store": {"run_dir": "/logs/mc"}}),
            decode=trt_role(conn={"connector": "mooncake-store", "mooncake_store": {"run_dir": "/logs/mc"}})))
invalid("c4_two_workers", "would be shared by several servers",
        "C4: prefill run_dir with workers: 2 (srtctl case 20); decode is covered by MOONCAKE_CONFIG_PATH.",
        trt("c4b", services=[],
            prefill=trt_role(conn={"connector": "mooncake-store", "mooncake_store": {"run_dir": "/logs/mc"}},
                             workers=2),
            decode=trt_role(env={"MOONCAKE_CONFIG_PATH": "/data/mc.json"})))
invalid("c5_external_trtllm", "external mooncake-master",
        "C5: TRT-LLM with an external master (srtctl case 16).",
        trt("c5", services=[master(dict(STORE), external="10.0.0.5:8700")]))
invalid("c6_no_connector_role", "no roles",
        "C6: master declared, no role uses the connector (srtctl case 16).",
        trt("c6", prefill=trt_role(conn=None), decode=trt_role(conn=None)))
invalid("c7_block_with_master", "mooncake_store is set",
        "C7: prefill kv_connector_config.mooncake_store block with a master (srtctl case 16).",
        trt("c7", prefill=trt_role(conn={"connector": "mooncake-store",
                                         "mooncake_store": {"pool": "file:///logs/pool.json", "model_key": "m"}})))
invalid("c8_store_config_on_non_connector_role",
        "roles.decode.mooncake_store_config is set, but only ['prefill'] use the Mooncake Store connector",
        "C8: decode sets mooncake_store_config without the connector (srtctl case 16).",
        trt("c8", decode=trt_role(conn=None, msc={"global_segment_size": "16GiB"})))
invalid("c8_prefill_not_connector",
        "roles.prefill.mooncake_store_config is set, but only ['decode'] use the Mooncake Store connector",
        "C8 with the roles the other way round.",
        trt("c8b", prefill=trt_role(conn=None, msc={"local_buffer_size": "1GiB"})))

C9 = [("segment_size", "160GiB", ["options.store_config: segment_size",
                                  "the client config calls it global_segment_size (set global_segment_size)"]),
      ("pool", "file:///logs/pool.json", ["options.store_config: pool",
                                          "srtctl points every role at the mooncake-master service; drop it"]),
      ("run_dir", "/logs/mc", ["options.store_config: run_dir",
                               "srtctl hands each role its config through MOONCAKE_CONFIG_PATH; drop it"]),
      ("master_timeout", 900, ["options.store_config: master_timeout",
                               "srtctl starts the master before the workers; drop it"])]
for key, val, exp in C9:
    invalid("c9_store_" + key, exp + ["belongs to the mooncake_store block and the client config ignores it"],
            "C9: block-only key %s in options.store_config (srtctl cases 16-17)." % key,
            trt("c9-" + key, store=dict(STORE, **{key: val})))
invalid("c9_exact_wording",
        ["mooncake-master options.store_config: segment_size belongs to the mooncake_store block and the client "
         "config ignores it: the client config calls it global_segment_size (set global_segment_size)"],
        "C9 wording exactly as the spec's template \"<where>: <key> belongs to the mooncake_store block and the "
        "client config ignores it: <why><hint>\" with <where> = \"mooncake-master options.store_config:\".",
        trt("c9-wording", store=dict(STORE, segment_size="160GiB")))
invalid("c9_role_run_dir", ["roles.decode.mooncake_store_config: run_dir",
                            "srtctl hands each role its config through MOONCAKE_CONFIG_PATH; drop it"],
        "C9: run_dir in roles.decode.mooncake_store_config (srtctl case 17).",
        trt("c9-role", decode=trt_role(msc={"run_dir": "/logs/mc"})))
invalid("c9_service_before_roles", ["options.store_config: master_timeout"],
        "C9 source order: options.store_config (master_timeout) is reported before decode's run_dir.",
        trt("c9-order", store=dict(STORE, master_timeout=900), decode=trt_role(msc={"run_dir": "/logs/mc"})))
invalid("c9_key_order", ["options.store_config: segment_size", "(set global_segment_size)"],
        "C9 key order segment_size, pool, run_dir, master_timeout regardless of YAML order.",
        trt("c9-keys", store={"pool": "p", "master_timeout": 5, "segment_size": "1GiB"}))
invalid("c9_roles_in_recipe_order", ["roles.decode.mooncake_store_config: run_dir"],
        "C9 checks the roles' mooncake_store_config in recipe order: decode is written first here, so its "
        "run_dir is reported before prefill's pool.",
        trt("c9-recipe-order",
            roles={"decode": trt_role(msc={"run_dir": "/logs/mc"}),
                   "prefill": trt_role(msc={"pool": "p"})}))
invalid("c10_protocol", "roles.decode.mooncake_store_config: protocol must be the same for every server of the pool",
        "C10: decode protocol: tcp (srtctl case 16).",
        trt("c10a", decode=trt_role(msc={"protocol": "tcp"})))
invalid("c10_model_key", "roles.decode.mooncake_store_config: model_key must be the same for every server of the pool",
        "C10: decode model_key (srtctl case 16).",
        trt("c10b", decode=trt_role(msc={"model_key": "other"})))
invalid("c10_several_keys",
        "roles.decode.mooncake_store_config: model_key, namespace, metadata_server, protocol must be the same for every server of the pool",
        "C10: all offending keys listed in the fixed order model_key, namespace, metadata_server, protocol, "
        "master_server_address, not YAML order.",
        trt("c10c", decode=trt_role(msc={"protocol": "tcp", "metadata_server": "P2PHANDSHAKE",
                                         "namespace": "ns", "model_key": "m"})))
invalid("c10_master_server_address_in_role",
        "roles.prefill.mooncake_store_config: master_server_address must be the same for every server of the pool",
        "C10: master_server_address is allowed only in options.store_config (§7.1 step 5).",
        trt("c10d", prefill=trt_role(msc={"master_server_address": "10.0.0.9:8700"})))
invalid("c10_after_c9", ["roles.decode.mooncake_store_config: pool",
                         "srtctl points every role at the mooncake-master service; drop it"],
        "C10 is only checked when C9 found nothing for that source: pool (C9) wins over protocol.",
        trt("c10e", decode=trt_role(msc={"protocol": "tcp", "pool": "p"})))

# ======================================================================
# INVALID: C11 / C11 and §9
# ======================================================================


def c11(name, expects, desc, store=None, prefill_msc=None, decode_msc=None):
    s = dict(STORE)
    s.update(store or {})
    invalid(name, expects, desc,
            trt(name.replace("_", "-"), store=s,
                prefill=trt_role(msc=prefill_msc) if prefill_msc is not None else None,
                decode=trt_role(msc=decode_msc) if decode_msc is not None else None))


PP = "Mooncake client config for roles.prefill: "
DP = "Mooncake client config for roles.decode: "
c11("c11_model_key_empty", [PP + "model_key must be a non-empty"], "C11.1: model_key: \"\" (srtctl case 16).",
    store={"model_key": ""})
c11("c11_model_key_blank", [PP + "model_key must be a non-empty"], "C11.1: whitespace-only model_key.",
    store={"model_key": "   "})
c11("c11_model_key_int", [PP + "model_key must be a non-empty"], "C11.1: model_key: 123 is an int (YAML typing).",
    store={"model_key": 123})
c11("c11_role_donor",
    [DP + "role must be one of ['both', 'capacity', 'consumer', 'producer'], got 'donor'"],
    "C11.2: decode role donor (srtctl case 16); prefill passes first.", decode_msc={"role": "donor"})
c11("c11_role_null", [PP + "role must be one of ['both', 'capacity', 'consumer', 'producer']"],
    "C11.2: role: ~ is null -> 'none' fails.", store={"role": R("~", None)})
c11("c11_role_bool", [PP + "role must be one of"],
    "C11.2: role: yes is the bool True -> 'true' fails (YAML 1.1 typing).", store={"role": R("yes", True)})
c11("c11_stage_through_host_string", [PP + "stage_through_host must be true or false, not the string 'false'"],
    "C11.3: quoted \"false\" (srtctl case 16).", store={"stage_through_host": R('"false"', "false")})
c11("c11_stage_through_host_quoted_yes", [PP + "stage_through_host must be true or false, not the string 'yes'"],
    "C11.3: 'yes' quoted is a string even though plain yes is a bool.",
    store={"stage_through_host": R("'yes'", "yes")})
c11("c11_model_key_before_role", [PP + "model_key must be a non-empty"],
    "C11 order: model_key is checked before role.", store={"role": "donor", "model_key": ""})
c11("c11_decode_prefix", [DP + "local_buffer_size must be at least 1 bytes, got 0"],
    "C11.4 on decode only: the message names roles.decode.", decode_msc={"local_buffer_size": 0})

invalid("c11_mode_order",
        ["Mooncake client config for roles.prefill: local_buffer_size must be at least 1 bytes, got 0"],
        "C11 checks connector modes in the order prefill, decode, agg, not recipe order: decode (written "
        "first, role donor) and prefill (local_buffer_size 0) both fail; prefill is reported.",
        trt("c11-mode-order",
            roles={"decode": trt_role(msc={"role": "donor"}),
                   "prefill": trt_role(msc={"local_buffer_size": 0})}))
c11("size_local_buffer_below_one_string", [PP + "local_buffer_size must be at least 1 bytes, got 0"],
    "§9: '0.9999' -> truncate(0.9999) = 0 < 1.", store={"local_buffer_size": "0.9999"})

SIZE_MSG = "must be a byte count or use a binary unit (KiB, MiB, GiB, TiB); 'GB' is refused"
for suffix, text, value in (("GB", "16GB", "16GB"), ("G", "16G", "16G"), ("MB", "512MB", "512MB"),
                            ("KB", "64KB", "64KB"), ("g_lower", "16g", "16g"), ("PiB", "1PiB", "1PiB"),
                            ("leading_dot", ".5GiB", ".5GiB"), ("exponent", "1e9", "1e9"),
                            ("negative", "-1GiB", "-1GiB"), ("words", "lots", "lots"),
                            ("empty", '""', ""), ("two_dots", "1.5.0GiB", "1.5.0GiB"),
                            ("inner_space", "16 G iB", "16 G iB"), ("plus_sign", '"+16GiB"', "+16GiB"),
                            ("trailing_dot", "1.GiB", "1.GiB"), ("hex_string", '"0x10"', "0x10"),
                            ("inf_string", '"inf"', "inf"), ("nan_string", '"nan"', "nan"),
                            ("bytes_word", "16bytes", "16bytes")):
    c11("size_refused_" + suffix, [PP + "global_segment_size '%s' " % value + SIZE_MSG],
        "§9 refused spelling %r for global_segment_size." % text,
        store={"global_segment_size": R(text, value)})
c11("size_refused_local_buffer_GB", [DP + "local_buffer_size '4GB' " + SIZE_MSG],
    "§9: local_buffer_size 4GB in roles.decode.mooncake_store_config.", decode_msc={"local_buffer_size": "4GB"})
c11("size_negative_int", [PP + "global_segment_size must be at least 0 bytes, got -1"],
    "C11.4: -1 (srtctl case 16).", store={"global_segment_size": -1})
c11("size_negative_float", [PP + "global_segment_size must be at least 0 bytes, got -1"],
    "§9: -1.5 truncates toward zero to -1.", store={"global_segment_size": R("-1.5", -1.5)})
c11("size_local_buffer_zero", [PP + "local_buffer_size must be at least 1 bytes, got 0"],
    "C11.4: local_buffer_size 0 (srtctl case 16).", store={"local_buffer_size": 0})
c11("size_local_buffer_fraction", [PP + "local_buffer_size must be at least 1 bytes, got 0"],
    "§9: 0.5 truncates to 0.", store={"local_buffer_size": R("0.5", 0.5)})
c11("size_local_buffer_zero_string", [PP + "local_buffer_size must be at least 1 bytes, got 0"],
    "§9: '0B' parses to 0 bytes, below the minimum 1.", store={"local_buffer_size": "0B"})
c11("size_inf", [PP + "global_segment_size must be a finite size, got inf"],
    "§9: .inf (srtctl case 18).", store={"global_segment_size": R(".inf", float("inf"))})
c11("size_nan", [PP + "global_segment_size must be a finite size, got nan"],
    "§9: .nan.", store={"global_segment_size": R(".nan", float("nan"))})
c11("size_bool", [PP + "global_segment_size must be a byte count or a size such as '16GiB', got True"],
    "§9: a bool (yes) is refused.", store={"global_segment_size": R("yes", True)})
c11("size_null", [PP + "local_buffer_size must be a byte count or a size such as '16GiB', got None"],
    "§9: null is refused.", store={"local_buffer_size": R("null", None)})
c11("size_list", [PP + "global_segment_size must be a byte count or a size such as '16GiB', got [1]"],
    "§9: a list is refused.", store={"global_segment_size": [1]})

for suffix, text, value, rep in (("double_underscore", '"1__0"', "1__0", "'1__0'"), ("zero", "0", 0, "0"), ("words", "lots", "lots", "'lots'"),
                                 ("bool", "true", True, "True"), ("float_string", '"64.0"', "64.0", "'64.0'"),
                                 ("hex_string", '"0x10"', "0x10", "'0x10'"), ("fraction", "0.9", 0.9, "0.9"),
                                 ("negative", "-3", -3, "-3"), ("null", "~", None, "None")):
    c11("transfer_batch_size_" + suffix,
        [PP + "transfer_batch_size must be a positive integer, got " + rep],
        "C11.5: transfer_batch_size %s." % text, store={"transfer_batch_size": R(text, value)})

# ======================================================================
# INVALID: first failure wins (§10 order)
# ======================================================================

invalid("order_v1_key_before_two_masters", ["srtctl migrate -f", "infra"],
        "Stage A order: the v1 key (1) is reported before the second master (2).",
        mutate(trt("order-a", services=[master(dict(STORE)), master(name="mc-2")]),
               lambda d: d.update(infra={"etcd_nats_dedicated_node": False})))
invalid("order_two_masters_before_unknown_field", "only one mooncake-master service is supported",
        "Stage A/B order: two masters (2) before an unknown role field (4).",
        mutate(trt("order-b", services=[master(dict(STORE)), master(name="mc-2")]),
               lambda d: d["roles"]["decode"].update(bogus=1)))
invalid("order_role_engines_before_unknown_field", "a mooncake-master service needs a top-level engine",
        "Stage A/B order: master with role-only engines (3) before an unknown role field (4).",
        mutate(BASE_SGL, lambda d: [d["roles"][r].update(engine="sglang", bogus=1) for r in ("prefill", "decode")]))
invalid("order_unknown_field_before_stage_c", ["Unknown field", "bogus"],
        "Stage B before stage C: an unknown role key is reported before C6 (no connector role).",
        mutate(trt("order-d", prefill=trt_role(conn=None), decode=trt_role(conn=None)),
               lambda d: d["roles"]["decode"].update(bogus=1)))
invalid("order_c5_before_c6", "external mooncake-master",
        "C5 (external) before C6 (no connector role).",
        trt("order-e", services=[master(dict(STORE), external="10.0.0.5:8700")],
            prefill=trt_role(conn=None), decode=trt_role(conn=None)))
invalid("order_c7_before_c8", "roles.prefill.args.kv_connector_config.mooncake_store is set",
        "C7 (prefill block) before C8 (decode store config without connector).",
        trt("order-f", prefill=trt_role(conn={"connector": "mooncake-store", "mooncake_store": {"pool": "p"}}),
            decode=trt_role(conn=None, msc={"local_buffer_size": "1GiB"})))
invalid("order_c8_before_c9", "roles.decode.mooncake_store_config is set, but only ['prefill'] use the Mooncake Store connector",
        "C8 before C9: decode's store config holds run_dir, but decode is not a connector role.",
        trt("order-g", decode=trt_role(conn=None, msc={"run_dir": "/logs/mc"})))
invalid("order_c10_before_c11", "roles.decode.mooncake_store_config: protocol must be the same for every server of the pool",
        "C10 (decode protocol) before C11 (model_key '' in the payload).",
        trt("order-h", store=dict(STORE, model_key=""), decode=trt_role(msc={"protocol": "tcp"})))
invalid("order_vllm_v1_before_v2", "mooncake device_names_by_gpu must have one entry per physical GPU on each node",
        "V1 (field validation at load) before V2 (stage C): bad device list and no kv-transfer-config.",
        vllm("order-i", store={"protocol": "rdma"}, options={"device_names_by_gpu": ["mlx5_0"]},
             prefill=vllm_role(kvt=None), decode=vllm_role(kvt=None)))

# ======================================================================
# INVALID: vLLM V1, V1/V2
# ======================================================================

for suffix, names, exp in (
        ("length", ["mlx5_0", "mlx5_1"], "mooncake device_names_by_gpu must have one entry per physical GPU on each node"),
        ("space", ["mlx5_0", "mlx5 1", "mlx5_2", "mlx5_3"], "single nonempty device names without whitespace"),
        ("comma", ["mlx5_0,mlx5_1", "mlx5_1", "mlx5_2", "mlx5_3"], "single nonempty device names without whitespace"),
        ("empty", ["mlx5_0", "", "mlx5_2", "mlx5_3"], "single nonempty device names without whitespace")):
    invalid("vllm_device_names_" + suffix, exp, "V1: device_names_by_gpu %r with gpus_per_node 4." % names,
            vllm("v1-" + suffix, store={"protocol": "rdma"}, options={"device_names_by_gpu": names}))

invalid("vllm_engine_block_device_names_length",
        "mooncake device_names_by_gpu must have one entry per physical GPU on each node",
        "V1 through the engine.mooncake_kv_store form: 8 names on 4-GPU nodes.",
        vllm("v1-engine", services=None,
             engine={"type": "vllm", "mooncake_kv_store": {"device_names_by_gpu": ["mlx5_0"] * 8}}))

invalid("sglang_disagg_without_transfer_backend",
        "neither roles.prefill.args nor roles.decode.args has 'disaggregation-transfer-backend: mooncake'",
        "V2: SGLang disaggregated with a master and no transfer backend.",
        sgl("v2-sgl", prefill=sgl_role(backend=None), decode=sgl_role(backend=None)))
invalid("sglang_disagg_nixl_backend",
        "neither roles.prefill.args nor roles.decode.args has 'disaggregation-transfer-backend: mooncake'",
        "V2: SGLang transfer backend nixl on both roles.",
        sgl("v2-sgl-nixl", prefill=sgl_role(backend="nixl"), decode=sgl_role(backend="nixl")))
invalid("sglang_transfer_backend_capitalized",
        "neither roles.prefill.args nor roles.decode.args has 'disaggregation-transfer-backend: mooncake'",
        "V2: the SGLang backend must equal 'mooncake' (== comparison); 'Mooncake' does not.",
        sgl("v2-sgl-case", prefill=sgl_role(backend="Mooncake"), decode=sgl_role(backend="Mooncake")))
invalid("vllm_disagg_without_kv_transfer_config", "has a kv-transfer-config that references a Mooncake connector",
        "V2: vLLM disaggregated with a master and no kv-transfer-config.",
        vllm("v2-vllm", prefill=vllm_role(kvt=None), decode=vllm_role(kvt=None)))
invalid("vllm_disagg_nixl_only", "has a kv-transfer-config that references a Mooncake connector",
        "V2: kv-transfer-config strings that name only NixlConnector.",
        vllm("v2-vllm-nixl", prefill=vllm_role(kvt='{"kv_connector":"NixlConnector"}'),
             decode=vllm_role(kvt='{"kv_connector":"NixlConnector"}')))
invalid("vllm_disagg_kv_transfer_mapping", "has a kv-transfer-config that references a Mooncake connector",
        "V2: kv-transfer-config written as a YAML mapping is not a string, so it does not count.",
        vllm("v2-vllm-map", prefill=vllm_role(kvt={"kv_connector": "MooncakeStoreConnector"}),
             decode=vllm_role(kvt={"kv_connector": "MooncakeStoreConnector"})))

# V3: vLLM's client config as vLLM's own reader takes it
# (MooncakeStoreConfig.from_file and __post_init__, reference §10.11)
invalid("v3_vllm_size_binary_unit",
        ["store_config.global_segment_size: '16GiB' is not a size vLLM's Mooncake reader", "write '16GB'"],
        "V3: vLLM's _parse_size takes gb/mb/kb/b (x1024) and byte counts; '16GiB' is its ValueError.",
        vllm("v3-gib", store={"protocol": "tcp", "global_segment_size": "16GiB"}))
invalid("v3_vllm_size_terabytes",
        ["store_config.global_segment_size: '2TB' is not a size vLLM's Mooncake reader", "write '2048GB'"],
        "V3: vLLM knows no TB; 2 TB is 2048GB to it.",
        vllm("v3-tb", store={"global_segment_size": "2TB"}))
invalid("v3_vllm_buffer_short_unit",
        ["store_config.local_buffer_size: '4G' is not a size vLLM's Mooncake reader", "write '4GB'"],
        "V3: '4G' is no unit of vLLM's.",
        vllm("v3-g", store={"local_buffer_size": "4G"}))
invalid("v3_vllm_embedded_zero_segment",
        "global_segment_size: 0 is 0 bytes as vLLM reads it, which vLLM's Mooncake reader",
        "V3: embedded mode (the default) needs a segment > 0 (__post_init__).",
        vllm("v3-zero", store={"global_segment_size": 0}))
invalid("v3_vllm_zero_buffer",
        "store_config.local_buffer_size: '0gb' is 0 bytes; vLLM's Mooncake reader",
        "V3: local_buffer_size must be > 0 (__post_init__).",
        vllm("v3-buf", store={"local_buffer_size": "0gb"}))
invalid("v3_vllm_standalone_with_segment",
        "global_segment_size: not set (vLLM's default is 4 GiB), but mode: standalone-store needs 0",
        "V3: standalone-store requires global_segment_size == 0; vLLM's default is 4 GiB.",
        vllm("v3-standalone", store={"mode": "standalone-store"}))
invalid("v3_vllm_unknown_mode", "store_config.mode: 'embeded' is not a mode vLLM's Mooncake reader",
        "V3: mode is embedded or standalone-store.",
        vllm("v3-mode", store={"mode": "embeded"}))
invalid("v3_vllm_empty_metadata_server", "store_config.metadata_server: '' is no metadata server",
        "V3: an empty metadata_server makes Mooncake's setup() fail (no valid endpoints).",
        vllm("v3-md", store={"metadata_server": ""}))
invalid("v3_vllm_protocol_not_a_string", "store_config.protocol: must be a string, got None",
        "V3: setup() takes strings; a null protocol is passed as None.",
        vllm("v3-proto", store={"protocol": None}))
invalid("v3_vllm_negative_segment", "store_config.global_segment_size: -1 is -1 bytes; a segment cannot be negative",
        "V3: vLLM passes -1 on to Mooncake's setup(), whose size is unsigned.",
        vllm("v3-neg", store={"global_segment_size": -1}))
invalid("v3_vllm_size_beyond_64_bits",
        "store_config.global_segment_size: '99999999999999999999GB' is 8 EiB or more, more than any node can give",
        "V3: a count past 2^63 bytes is no node's memory (and past 2^64 no size_t Mooncake's setup() takes).",
        vllm("v3-huge", store={"global_segment_size": "99999999999999999999GB"}))
invalid("v3_vllm_offload_string", "store_config.enable_offload: 'false' is not a bool: vLLM reads it with bool()",
        "V3: vLLM's bool() of a non-empty string is True.",
        vllm("v3-offload", store={"enable_offload": "false"}))
invalid("v3_vllm_null_metadata_server", "metadata_server: must be a string, got None: vLLM passes it to Mooncake's setup(), which takes only strings; remove it (the plugin then writes P2PHANDSHAKE)",
        "V3: a null metadata_server reaches setup() as None.",
        vllm("v3-mdnull", store={"metadata_server": None}))
invalid("v3_vllm_tenant_not_a_string", "store_config.tenant_id: must be a string or null, got 5",
        "V3: vLLM's _normalize_tenant_id raises TypeError for a number.",
        vllm("v3-tenant", store={"tenant_id": 5}))

# S1: SGLang's MOONCAKE_* variables as its own reader takes them
# (MooncakeStoreConfig.load_from_env, sglang/srt/environ.py)
invalid("s1_sglang_segment_binary_unit",
        ["roles.prefill.env.MOONCAKE_GLOBAL_SEGMENT_SIZE: '16GiB' is not a size SGLang's Mooncake reader", "write '16gb'"],
        "S1: SGLang reads an integer, or an integer followed by gb (x1024^3).",
        sgl("s1-gib", prefill=sgl_role(env={"MOONCAKE_GLOBAL_SEGMENT_SIZE": "16GiB"})))
invalid("s1_sglang_segment_fraction",
        ["roles.decode.env.MOONCAKE_GLOBAL_SEGMENT_SIZE: '1.5gb' is not a size SGLang's Mooncake reader",
         "write '1610612736' (1610612736 bytes to SGLang)"],
        "S1: int('1.5') fails in SGLang's reader.",
        sgl("s1-frac", decode=sgl_role(env={"MOONCAKE_GLOBAL_SEGMENT_SIZE": "1.5gb"})))
invalid("s1_sglang_segment_in_environment",
        "environment.MOONCAKE_GLOBAL_SEGMENT_SIZE: '4GB2' is not a size SGLang's Mooncake reader",
        "S1: the top-level environment reaches every role's workers too.",
        mutate(sgl("s1-env"), lambda d: d.update(environment={"MOONCAKE_GLOBAL_SEGMENT_SIZE": "4GB2"})))
invalid("s1_sglang_segment_wraps_64_bits",
        "roles.prefill.env.MOONCAKE_GLOBAL_SEGMENT_SIZE: '18446744073709551616' is 8 EiB or more",
        "S1: a size past 64 bits (which once wrapped around to 0) is refused.",
        sgl("s1-huge", prefill=sgl_role(env={"MOONCAKE_GLOBAL_SEGMENT_SIZE": "18446744073709551616"})))
invalid("s1_sglang_config_path", "SGLANG_HICACHE_MOONCAKE_CONFIG_PATH: with it SGLang reads the Mooncake settings of that file instead",
        "S1: SGLang reads that file before the environment the plugin sets.",
        sgl("s1-path", decode=sgl_role(env={"SGLANG_HICACHE_MOONCAKE_CONFIG_PATH": "/x.json"})))
invalid("s1_sglang_extra_config_master", "hicache-storage-backend-extra-config names a master_server_address",
        "S1: the extra config's master wins over MOONCAKE_MASTER in SGLang.",
        mutate(sgl("s1-extra"), lambda d: d["roles"]["prefill"]["args"].update(
            {"hicache-storage-backend-extra-config": '{"master_server_address": "10.5.5.5:50051"}'})))
invalid("e3_plugin_variable", "roles.prefill.env.SLURM_MOONCAKE_TASK: variables named SLURM_MOONCAKE_* belong to the plugin (rule E3)",
        "E3: the plugin's handover variables are not a recipe's to set.",
        sgl("e3-own", prefill=sgl_role(env={"SLURM_MOONCAKE_TASK": "{}"})))
invalid("e3_plugin_option", "environment._SLURM_SPANK_OPTION_mooncake_mooncake_recipe: variables named _SLURM_SPANK_OPTION_mooncake_* belong to the plugin",
        "E3: SPANK's copy of the plugin's option would reach every nested srun.",
        mutate(sgl("e3-opt"), lambda d: d.update(environment={"_SLURM_SPANK_OPTION_mooncake_mooncake_recipe": "x.yaml"})))
invalid("s1_sglang_bool_typo", "roles.prefill.env.MOONCAKE_CHECK_SERVER: 'ture' is not a bool SGLang reads",
        "S1: EnvBool takes true/1/yes/y/false/0/no/n; anything else is ignored for the default.",
        sgl("s1-bool", prefill=sgl_role(env={"MOONCAKE_CHECK_SERVER": "ture"})))
invalid("s1_sglang_port_not_an_int", "MOONCAKE_MASTER_METRICS_PORT: '90o3' is not an integer",
        "S1: EnvInt: int() of the value, else the default.",
        sgl("s1-port", prefill=sgl_role(env={"MOONCAKE_MASTER_METRICS_PORT": "90o3"})))

valid("sglang_env_layer_wins",
      "S1: a role's env value another layer overrides is not what the workers get, so it is not checked (§8).",
      mutate(sgl("s1-layers", prefill=sgl_role(env={"MOONCAKE_GLOBAL_SEGMENT_SIZE": "16GiB"})),
             lambda d: d.update(environment={"MOONCAKE_GLOBAL_SEGMENT_SIZE": "16gb"})),
      {})
valid("sglang_hicache_without_mooncake_transfer",
      "V2: SGLang's workers join the pool through HiCache with the mooncake backend, whatever their transfer backend.",
      sgl("v2-hicache", prefill=dict(sgl_role(backend="nixl"), args={"tp-size": 1, "disaggregation-transfer-backend": "nixl",
                                                                      "enable-hierarchical-cache": True,
                                                                      "hicache-storage-backend": "mooncake"}),
          decode=sgl_role(backend="nixl")),
      {})

# ======================================================================
# The releases users run (issue 37): vLLM 0.34.0 and 0.33.0, SGLang
# 0.5.23 and 0.5.22, TensorRT-LLM's connector on main, and what
# Mooncake's own setup() takes (doc/engine-contracts.md)
# ======================================================================

def vrole(env=None, **args):
    """A vLLM role of the store connector, with `env` and more args."""
    r = vllm_role()
    r["args"].update(args)
    if env:
        r["env"] = env
    return r


SLEEP = {"enable-sleep-mode": True}
KIND_WARN = "not a key vLLM's Mooncake client reads"

# vLLM 0.34.0's device_name_per_gpu: what 0.34.0 refuses is refused (V3),
# what it takes is taken with a warning (0.33.0 ignores the key)
invalid("v3_vllm_per_gpu_string",
        ["store_config.device_name_per_gpu: 'mlx5_0' is not a list of device names", "vLLM 0.34.0 refuses it"],
        "V3: vLLM 0.34.0's __post_init__ refuses a device_name_per_gpu that is not a non-empty list of "
        "non-blank strings.",
        vllm("v3-pergpu-str", store={"protocol": "rdma", "device_name_per_gpu": "mlx5_0"}))
invalid("v3_vllm_per_gpu_empty",
        ["store_config.device_name_per_gpu: [] is not a list of device names", "vLLM 0.34.0 refuses it"],
        "V3: an empty list is refused by vLLM 0.34.0 (a non-empty list).",
        vllm("v3-pergpu-empty", store={"protocol": "rdma", "device_name_per_gpu": []}))
invalid("v3_vllm_per_gpu_blank_entry",
        ["store_config.device_name_per_gpu[1]: ' ' is not a device name", "vLLM 0.34.0 refuses the list"],
        "V3: every entry must be a string with something but blanks (name.strip()).",
        vllm("v3-pergpu-blank", store={"protocol": "rdma", "device_name_per_gpu": ["mlx5_0", " ", "mlx5_2", "mlx5_3"]}))
invalid("v3_vllm_per_gpu_with_device_name",
        ["device_name ('mlx5_0') and device_name_per_gpu are both set", "set device_name or device_name_per_gpu, not both"],
        "V3: vLLM 0.34.0 refuses a non-empty device_name beside device_name_per_gpu.",
        vllm("v3-pergpu-both", store={"protocol": "rdma", "device_name": "mlx5_0",
                                      "device_name_per_gpu": ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]}))
invalid("v3_vllm_per_gpu_with_device_names_by_gpu",
        "device_name_per_gpu and mooncake device_names_by_gpu are both set",
        "V3: each per-GPU file the plugin writes has device_name and would carry device_name_per_gpu "
        "too, which vLLM 0.34.0 refuses.",
        vllm("v3-pergpu-bygpu", store={"protocol": "rdma", "device_name_per_gpu": ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]},
             options={"device_names_by_gpu": ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]}))
invalid("v3_vllm_per_gpu_short",
        ["device_name_per_gpu has 2 entries, and resources.gpus_per_node is 4",
         "has no entry for physical GPU 2"],
        "V3: vLLM 0.34.0 raises at setup() for a physical GPU past the list.",
        vllm("v3-pergpu-short", store={"protocol": "rdma", "device_name_per_gpu": ["mlx5_0", "mlx5_1"]}))
PER_GPU = ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
valid("vllm_device_name_per_gpu",
      "vLLM 0.34.0's device_name_per_gpu, one entry per GPU, device_name empty: taken and copied into the "
      "shared file; a warning says vLLM 0.33.0 ignores the key.",
      vllm("vllm-pergpu", store={"protocol": "rdma", "device_name": "", "device_name_per_gpu": list(PER_GPU)}),
      {VF: pay(("protocol", "rdma"), ("device_name", ""), ("device_name_per_gpu", list(PER_GPU)),
               ("master_server_address", MSA))},
      warns=["device_name_per_gpu: vLLM 0.34.0 gives each GPU's store client its entry, but vLLM 0.33.0 ignores the key"])
valid("vllm_device_name_per_gpu_null",
      "device_name_per_gpu: null is absent to vLLM 0.34.0 (config.get() gives None): no refusal, no warning.",
      vllm("vllm-pergpu-null", store={"protocol": "tcp", "device_name_per_gpu": None}),
      {VF: pay(("protocol", "tcp"), ("device_name_per_gpu", None), ("master_server_address", MSA))})

# T1: Mooncake's setup() compares protocol names and the metadata server's
# forms byte for byte (client_service.cpp, transfer_metadata_plugin.cpp)
invalid("t1_vllm_protocol_upper", ["store_config.protocol: 'TCP' is not a protocol Mooncake 0.3.13.post1", "write tcp"],
        "T1: setup() returns -1 (unsupported_protocol) for 'TCP'; vLLM passes it through.",
        vllm("t1-tcp", store={"protocol": "TCP"}))
invalid("t1_vllm_protocol_mixed", ["store_config.protocol: 'Tcp' is not a protocol", "write tcp"],
        "T1: the same for 'Tcp'.",
        vllm("t1-tcp2", store={"protocol": "Tcp"}))
invalid("t1_trtllm_protocol_upper", ["store_config.protocol: 'RDMA' is not a protocol", "write rdma"],
        "T1: TRT-LLM's connector passes protocol to setup() as written.",
        trt("t1-trt", store=dict(STORE, protocol="RDMA")))
invalid("t1_sglang_protocol_upper", ["roles.prefill.env.MOONCAKE_PROTOCOL: 'TCP' is not a protocol", "write tcp"],
        "T1: SGLang passes MOONCAKE_PROTOCOL to setup() as written.",
        sgl("t1-sgl", prefill=sgl_role(env={"MOONCAKE_PROTOCOL": "TCP"})))
invalid("t1_vllm_protocol_unknown", ["store_config.protocol: 'ib' is not a protocol", "it knows rdma, tcp"],
        "T1: a name Mooncake has no transport for.",
        vllm("t1-ib", store={"protocol": "ib"}))
invalid("t1_vllm_metadata_lower", ["metadata_server: 'p2phandshake' is not P2PHANDSHAKE", "write P2PHANDSHAKE"],
        "T1: setup() takes 'p2phandshake' for an etcd endpoint and waits for it.",
        vllm("t1-p2p", store={"protocol": "tcp", "metadata_server": "p2phandshake"}))
invalid("t1_trtllm_metadata_lower", ["metadata_server: 'p2phandshake' is not P2PHANDSHAKE", "write P2PHANDSHAKE"],
        "T1: the same for TRT-LLM's file.",
        trt("t1-trt-p2p", store=dict(STORE, metadata_server="p2phandshake")))
invalid("t1_vllm_metadata_scheme_case", ["metadata_server: 'HTTP://10.0.0.9:8701/metadata'", "write http://10.0.0.9:8701/metadata"],
        "T1: Mooncake knows the scheme only as http://; another spelling aborts the process.",
        vllm("t1-http", store={"protocol": "tcp", "metadata_server": "HTTP://10.0.0.9:8701/metadata"}))
invalid("t1_vllm_metadata_unknown_scheme", ["metadata_server: 'consul://10.0.0.9:8500' has a scheme", "no metadata plugin for"],
        "T1: Mooncake has metadata plugins for etcd, http(s) and redis only.",
        vllm("t1-consul", store={"protocol": "tcp", "metadata_server": "consul://10.0.0.9:8500"}))
invalid("t1_vllm_metadata_bare_host", ["metadata_server: 'metadata-host' is no metadata server", "each <host>:<port>"],
        "T1: without '://' the text is a list of etcd endpoints, each host:port.",
        vllm("t1-bare", store={"protocol": "tcp", "metadata_server": "metadata-host"}))
invalid("t1_trtllm_segment_below_a_slab",
        ["roles.prefill.mooncake_store_config.global_segment_size: '10 mib' is 10485760 bytes",
         "refuses a segment of 1 byte to 16 MiB less one", "give 0 (the worker lends nothing) or at least 16 MiB"],
        "T1: Mooncake 0.3.13.post1's setup() returns -600 for a segment of 1 byte to 16 MiB - 1 (the live "
        "layer found it); TRT-LLM's reader takes it.",
        trt("t1-seg", prefill=trt_role(msc={"global_segment_size": "10 mib"})))
invalid("t1_vllm_segment_below_a_slab",
        ["store_config.global_segment_size: '1MB' is 1048576 bytes", "refuses a segment of 1 byte to 16 MiB less one"],
        "T1: the same for vLLM's embedded mode (which takes anything above 0).",
        vllm("t1-seg-vllm", store={"protocol": "tcp", "global_segment_size": "1MB"}))
invalid("t1_sglang_segment_below_a_slab",
        ["roles.decode.env.MOONCAKE_GLOBAL_SEGMENT_SIZE: '4096' is 4096 bytes in all", "each of a worker's ranks its share"],
        "T1: the same for SGLang, whose ranks each take their share of it.",
        sgl("t1-seg-sgl", decode=sgl_role(env={"MOONCAKE_GLOBAL_SEGMENT_SIZE": "4096"})))
valid("vllm_metadata_forms_mooncake_takes",
      "T1: etcd endpoints as host:port, separated by ',' (Mooncake's etcd form): taken, with the warning "
      "that the clients read this metadata server, not the job's (§11).",
      vllm("t1-etcd", store={"protocol": "tcp", "metadata_server": "10.0.0.9:2379,10.0.0.10:2379"}),
      {VF: pay(("protocol", "tcp"), ("metadata_server", "10.0.0.9:2379,10.0.0.10:2379"), ("master_server_address", MSA))},
      warns=["metadata_server: '10.0.0.9:2379,10.0.0.10:2379' is not this job's metadata server"])
valid("trtllm_metadata_etcd_url",
      "T1: etcd://host:port is Mooncake's etcd form; TRT-LLM passes it through (with the warning of §11).",
      trt("t1-trt-etcd", store=dict(STORE, metadata_server="etcd://10.0.0.9:2379")),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("protocol", "rdma"), ("global_segment_size", "8GiB"),
               ("stage_through_host", True), ("metadata_server", "etcd://10.0.0.9:2379"), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", QWEN), ("protocol", "rdma"), ("global_segment_size", "8GiB"),
               ("stage_through_host", True), ("metadata_server", "etcd://10.0.0.9:2379"), ("master_server_address", MSA))},
      warns=["metadata_server: 'etcd://10.0.0.9:2379' is not this job's metadata server"])

# E4: a blank address variable is an engine's cue to guess one
invalid("e4_requester_hostname_blank",
        ["roles.prefill.env.MOONCAKE_REQUESTER_LOCAL_HOSTNAME: '' is blank (rule E4)", "remove it"],
        "E4: vLLM's store worker takes a blank MOONCAKE_REQUESTER_LOCAL_HOSTNAME for none and guesses "
        "the default route's address.",
        vllm("e4-req", prefill=vrole(env={"MOONCAKE_REQUESTER_LOCAL_HOSTNAME": ""})))
invalid("e4_local_hostname_blank", "environment.MOONCAKE_LOCAL_HOSTNAME: ' ' is blank (rule E4)",
        "E4: SGLang passes a blank MOONCAKE_LOCAL_HOSTNAME to setup().",
        recipe("e4-local", None, {"prefill": sgl_role(), "decode": sgl_role()}, [master()],
               mdl=model(container="sglang.sqsh"), top={"environment": {"MOONCAKE_LOCAL_HOSTNAME": " "}}))
invalid("e4_vllm_host_ip_blank", "roles.decode.env.VLLM_HOST_IP: '' is blank (rule E4)",
        "E4: a blank VLLM_HOST_IP is no address either.",
        vllm("e4-hostip", decode=vrole(env={"VLLM_HOST_IP": ""})))

# The plugin's own variables (lib/base/taskvars.c): the recipe's value is
# replaced, and check says so
valid("sglang_plugin_variables_in_env",
      "SGLang: MOONCAKE_MASTER and MOONCAKE_TE_META_DATA_SERVER in a role's env are replaced by the "
      "plugin's (§8): one warning each, besides SGLang's own (no HiCache).",
      sgl("pv-sgl", prefill=sgl_role(env={"MOONCAKE_MASTER": "10.0.0.9:50051",
                                          "MOONCAKE_TE_META_DATA_SERVER": "P2PHANDSHAKE"})),
      {},
      warns=["roles.prefill.env.MOONCAKE_MASTER: the plugin sets MOONCAKE_MASTER itself",
             "roles.prefill.env.MOONCAKE_TE_META_DATA_SERVER: the plugin sets MOONCAKE_TE_META_DATA_SERVER itself",
             "no role's workers join the Mooncake pool"])
valid("vllm_plugin_variables_in_environment",
      "vLLM: MOONCAKE_CONFIG_PATH and MOONCAKE_REQUESTER_LOCAL_HOSTNAME in the top-level environment are "
      "replaced by the plugin's in every role (§8).",
      recipe("pv-vllm", {"type": "vllm"}, {"prefill": vllm_role(), "decode": vllm_role()},
             [master({"protocol": "tcp"})], mdl=model(container="vllm.sqsh"), res=resources(4),
             top={"environment": {"MOONCAKE_CONFIG_PATH": "/etc/mooncake.json",
                                  "MOONCAKE_REQUESTER_LOCAL_HOSTNAME": "10.0.0.7"}}),
      {VF: pay(("protocol", "tcp"), ("master_server_address", MSA))},
      warns=["environment.MOONCAKE_CONFIG_PATH: the plugin sets MOONCAKE_CONFIG_PATH itself in every task of each role",
             "environment.MOONCAKE_REQUESTER_LOCAL_HOSTNAME: the plugin sets MOONCAKE_REQUESTER_LOCAL_HOSTNAME itself"])
valid("trtllm_plugin_variable_in_engine_env",
      "TRT-LLM engine block: MOONCAKE_LOCAL_HOSTNAME in its env is replaced by the node's address (§8).",
      recipe("pv-trt", {"type": "trtllm", "served_model_name": QWEN,
                        "mooncake_kv_store": {"store_config": {"protocol": "tcp"},
                                              "env": {"MOONCAKE_LOCAL_HOSTNAME": "10.0.0.5"}}},
             {"prefill": trt_role()}, None, {"type": "trtllm_serve"}),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("protocol", "tcp"), ("master_server_address", MSA))},
      warns=["engine.mooncake_kv_store.env.MOONCAKE_LOCAL_HOSTNAME: the plugin sets MOONCAKE_LOCAL_HOSTNAME itself"])
valid("sglang_requester_hostname_is_the_recipes",
      "MOONCAKE_REQUESTER_LOCAL_HOSTNAME is the plugin's only for vLLM: in an SGLang role it is the "
      "recipe's, without a word (but SGLang's own).",
      sgl("pv-sgl-req", prefill=sgl_role(env={"MOONCAKE_REQUESTER_LOCAL_HOSTNAME": "10.0.0.7"})),
      {},
      warns=["no role's workers join the Mooncake pool"])

# what the releases disagree on, and what an engine overrides
valid("vllm_sleep_mode_tcp",
      "vLLM 0.34.0 allows sleep mode with MooncakeStoreConnector only over rdma with a device; 0.33.0 "
      "never: a warning names both.",
      vllm("sleep-tcp", store={"protocol": "tcp"}, prefill=vrole(**SLEEP)),
      {VF: pay(("protocol", "tcp"), ("master_server_address", MSA))},
      warns=["the role's workers fail at start with both vLLM releases (MooncakeStoreConnector does not support sleep mode): vLLM 0.33.0 never allows it, vLLM 0.34.0 only with protocol 'rdma', a device named (device_name or device_name_per_gpu), MC_MS_AUTO_DISC unset or 0 and neither MC_USE_TENT nor MC_USE_TEV1 set, and here the protocol is 'tcp', not 'rdma'"])
valid("vllm_sleep_mode_auto_discovery",
      "rdma and a device, but the role's env sets MC_MS_AUTO_DISC=1, which vLLM 0.34.0's gate refuses.",
      vllm("sleep-disc", store={"protocol": "rdma", "device_name": "mlx5_0"},
           prefill=vrole(env={"MC_MS_AUTO_DISC": "1"}, **SLEEP)),
      {VF: pay(("protocol", "rdma"), ("device_name", "mlx5_0"), ("master_server_address", MSA))},
      warns=["roles.prefill.env.MC_MS_AUTO_DISC is '1', not 0"])
valid("vllm_sleep_mode_rdma_device",
      "rdma with a device: vLLM 0.34.0 allows sleep mode, 0.33.0 does not: a warning names 0.33.0.",
      vllm("sleep-ok", store={"protocol": "rdma", "device_name": "mlx5_0"}, decode=vrole(**SLEEP)),
      {VF: pay(("protocol", "rdma"), ("device_name", "mlx5_0"), ("master_server_address", MSA))},
      warns=["roles.decode.args: enable-sleep-mode with MooncakeStoreConnector: vLLM 0.34.0 allows it with this config, but vLLM 0.33.0 never does"])
valid("vllm_selective_lease",
      "VLLM_MOONCAKE_STORE_SELECTIVE_LEASE on needs Mooncake 0.3.14's batch_probe_key; off is nothing.",
      vllm("lease", store={"protocol": "tcp"}, prefill=vrole(env={"VLLM_MOONCAKE_STORE_SELECTIVE_LEASE": "True"}),
           decode=vrole(env={"VLLM_MOONCAKE_STORE_SELECTIVE_LEASE": "0"})),
      {VF: pay(("protocol", "tcp"), ("master_server_address", MSA))},
      warns=["roles.prefill.env.VLLM_MOONCAKE_STORE_SELECTIVE_LEASE: 'True' needs Mooncake 0.3.14 or later"])
valid("sglang_store_backend",
      "MOONCAKE_STORE_BACKEND: read by Mooncake 0.3.14 only; 'rs' needs a wheel built with Store-RS, "
      "'fast' is refused at import (ValueError).",
      sgl("backend", prefill=sgl_role(env={"MOONCAKE_STORE_BACKEND": "rs"}),
          decode=sgl_role(env={"MOONCAKE_STORE_BACKEND": "fast"})),
      {},
      warns=["roles.prefill.env.MOONCAKE_STORE_BACKEND: 'rs' needs Mooncake 0.3.14 or later built with Store-RS",
             "roles.decode.env.MOONCAKE_STORE_BACKEND: 'fast' makes importing mooncake.store fail with Mooncake 0.3.14",
             "no role's workers join the Mooncake pool"])
valid("trtllm_stage_through_host_false",
      "TRT-LLM's connector raises stage_through_host false back to true for a role that transfers (prefill, "
      "both): a warning; the capacity role's false is set true without a word.",
      trt("staging", store={"protocol": "rdma", "global_segment_size": "8GiB"},
          prefill=trt_role(msc={"stage_through_host": False}),
          decode=trt_role(msc={"stage_through_host": False})),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("protocol", "rdma"), ("global_segment_size", "8GiB"),
               ("stage_through_host", False), ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", QWEN), ("protocol", "rdma"), ("global_segment_size", "8GiB"),
               ("stage_through_host", False), ("master_server_address", MSA))},
      warns=["roles.prefill.mooncake_store_config.stage_through_host: False, but TensorRT-LLM's mooncake-store connector (main) runs with stage_through_host true"])
valid("trtllm_segment_past_any_node",
      "A segment of 4096 TiB per rank passes check (TRT-LLM reads it, under 8 EiB); no node lends that "
      "much, which the plugin refuses at task_init with the node's memory (spank_mooncake(8)).",
      trt("huge", store={"protocol": "tcp", "global_segment_size": "4096TiB"}),
      {PF: pay(("role", "both"), ("model_key", QWEN), ("protocol", "tcp"), ("global_segment_size", "4096TiB"),
               ("master_server_address", MSA)),
       DF: pay(("role", "capacity"), ("model_key", QWEN), ("protocol", "tcp"), ("global_segment_size", "4096TiB"),
               ("master_server_address", MSA))})

valid("vllm_master_flag_of_mooncake_0314",
      "Mooncake 0.3.14's master calls --client_ttl a deprecated alias of --client_active_ttl_sec, which "
      "0.3.13.post1's master does not know (it does not start): a warning; --client_ttl works with both.",
      vllm("next-flag", store={"protocol": "tcp"},
           services=[dict(master({"protocol": "tcp"}), args=["--client_active_ttl_sec=30", "--client_ttl=30"])]),
      {VF: pay(("protocol", "tcp"), ("master_server_address", MSA))},
      warns=["mooncake-master args: '--client_active_ttl_sec=30' is a flag of Mooncake 0.3.14's mooncake_master"])

# warnings the corpus already carried (§11)
NO_POOL = "no role's workers join the Mooncake pool"
WARNS = {
    "sglang_agg_without_transfer_backend": [NO_POOL],
    "sglang_empty_role_store_config": [NO_POOL],
    "sglang_engine_block_decode_only_backend": [NO_POOL],
    "sglang_env_layer_wins": [NO_POOL],
    "sglang_external_master": [NO_POOL],
    "sglang_service_default_engine": [NO_POOL],
    "sglang_string_engine": [NO_POOL],
    "sglang_with_etcd_nats_services": [NO_POOL],
    "trtllm_connector_module_other": ["roles.decode.args.kv_connector_config.connector: 'mooncake-store' is"],
    # TRT-LLM reads stage_through_host with bool(): null is False, which
    # its connector raises back to True (for the transferring prefill)
    "trtllm_rule_edge_values": ["store_config.stage_through_host: None, but TensorRT-LLM's mooncake-store connector (main) runs with stage_through_host true"],
}

# ======================================================================
# write
# ======================================================================


def header(lines):
    return "".join("# " + l + "\n" if l else "#\n" for l in lines)


def wrap(desc, width=96):
    words, out, cur = desc.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            out.append(cur)
            cur = w
        else:
            cur = cur + " " + w if cur else w
    if cur:
        out.append(cur)
    return out


def text_of(data):
    return data if isinstance(data, str) else dump(data)


def main():
    for sub in ("valid", "invalid"):
        shutil.rmtree(os.path.join(OUT, sub), ignore_errors=True)
        os.makedirs(os.path.join(OUT, sub))
    names = set()
    for name, desc, data, files, warns in VALID:
        assert name not in names, name
        names.add(name)
        path = os.path.join(OUT, "valid", name + ".yaml")
        warns = warns + WARNS.get(name, [])
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join("# warn: %s\n" % w for w in warns))
            f.write(header(["valid: " + l if i == 0 else l for i, l in enumerate(wrap(desc))]))
            f.write(text_of(data))
        exp = os.path.join(OUT, "valid", name + ".expected")
        os.makedirs(exp)
        if not files:
            open(os.path.join(exp, ".gitkeep"), "w").close()
        for fname, payload in files.items():
            with open(os.path.join(exp, fname), "w", encoding="utf-8") as f:
                f.write(json.dumps(payload, indent=2))
    for name, expects, desc, data in INVALID:
        assert name not in names, name
        names.add(name)
        path = os.path.join(OUT, "invalid", name + ".yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join("# expect: %s\n" % e for e in expects))
            f.write(header(wrap(desc)))
            f.write(text_of(data))
    print("valid %d, invalid %d" % (len(VALID), len(INVALID)))


main()
