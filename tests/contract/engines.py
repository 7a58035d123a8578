"""The engines' own Mooncake config readers, loaded from their released
wheels (never copied into this repository), and TRT-LLM's contract.

tests/contract/fetch.sh downloads the wheels (pip download --no-deps) and
unpacks the few modules read here into MCK_ENGINES (one directory per
engine and version, e.g. $MCK_ENGINES/vllm-0.33.0/vllm/...). This module
loads exactly those files under their real module names; what they import
and do not use for reading a config (torch, zmq, psutil, requests,
SGLang's HiCache classes, vLLM's logger) is stubbed here, so a reader runs
as the engine runs it.

  vllm_read(path)        vLLM: MooncakeStoreConfig.from_file(path), and the
                         local hostname its worker passes to setup()
                         (rdma_utils.get_requester_local_hostname(get_ip()));
                         from 0.34.0 on, the device of physical GPU 0
                         (_device_name_for_current_gpu)
  vllm_sleep(path, env)  whether vLLM's MooncakeStoreConnector allows
                         --enable-sleep-mode (its supports_sleep_mode(), taken
                         from the wheel's connector.py and run on its own)
  sglang_read(env)       SGLang: what MooncakeStore reads its config with
                         (MooncakeBaseStore._load_config: a config file
                         when SGLANG_HICACHE_MOONCAKE_CONFIG_PATH is set,
                         else MooncakeStoreConfig.load_from_env()) under
                         the environment `env`
  trtllm_read(path)      TRT-LLM's mooncake-store connector, as
                         doc/engine-contracts.md states it (no released
                         wheel has it yet): the values from_file() takes,
                         and stage_through_host as its __post_init__ leaves
                         it (always true)

Each returns a dict: master, metadata, protocol, device, segment, buffer
(bytes), local_hostname, role (TRT-LLM), and `setup`: the arguments the
engine passes to MooncakeDistributedStore.setup(), in order. A file or
environment the engine refuses raises what the engine raises.

The release of each engine is MCK_VLLM_VERSION and MCK_SGLANG_VERSION
(tests/tests.mk pins them); one process reads with one release of each.
"""
import ast
import importlib.util
import json
import os
import re
import socket
import sys
import types

VERSIONS = {
    "vllm": os.environ.get("MCK_VLLM_VERSION", "0.34.0"),
    "sglang": os.environ.get("MCK_SGLANG_VERSION", "0.5.23"),
}
# the modules each reader needs, as paths inside the wheel (fetch.sh unpacks these)
MODULES = {
    "vllm": [
        "vllm/envs.py",
        "vllm/distributed/mooncake_store.py",
        "vllm/utils/network_utils.py",
        "vllm/distributed/kv_transfer/kv_connector/v1/mooncake/rdma_utils.py",
        # read for one function only (vllm_sleep), never imported
        "vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store/connector.py",
    ],
    "sglang": [
        "sglang/srt/environ.py",
        "sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py",
    ],
}


def engine_dir(engine):
    base = os.environ.get("MCK_ENGINES", "/var/cache/spank-mooncake/engines")
    return os.path.join(base, f"{engine}-{VERSIONS[engine]}")


def _package(name):
    """An empty package `name` (and its parents) in sys.modules."""
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        n = ".".join(parts[:i])
        if n not in sys.modules:
            m = types.ModuleType(n)
            m.__path__ = []
            sys.modules[n] = m
    return sys.modules[name]


def _stub(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    if "." in name:
        _package(name.rsplit(".", 1)[0])
    sys.modules[name] = m
    return m


def _load(engine, rel):
    """The wheel's module at `rel` (a path inside the wheel), under its name."""
    path = os.path.join(engine_dir(engine), rel)
    if not os.path.exists(path):
        raise SystemExit(f"{path} is missing: run tests/contract/fetch.sh")
    name = rel[:-3].replace("/", ".")
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == path:
        return sys.modules[name]
    _package(name.rsplit(".", 1)[0])
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


class _Anything:
    """A stand-in class for names a reader imports and never uses to read."""

    def __init__(self, *a, **k):
        pass


def _logger_stub(name):
    import logging

    return _stub(name, init_logger=logging.getLogger, logger=logging.getLogger(name))


_loaded = {}


def vllm():
    """vllm.distributed.mooncake_store and what its worker uses for the
    local hostname: (mooncake_store, network_utils, rdma_utils)."""
    if "vllm" in _loaded:
        return _loaded["vllm"]
    try:
        import regex  # noqa: F401  (vLLM's own dependency, installed by setup.sh)
    except ImportError:
        raise SystemExit("the regex module is missing: run tests/setup.sh")
    _logger_stub("vllm.logger")
    _stub("psutil", Process=_Anything)
    _stub("zmq", Socket=_Anything, Context=_Anything)
    _stub("zmq.asyncio", Socket=_Anything, Context=_Anything)
    sys.modules["zmq"].asyncio = sys.modules["zmq.asyncio"]
    _stub("urllib3.util", parse_url=lambda u: u)
    # 0.34.0's _device_name_for_current_gpu asks torch for the current
    # device and vLLM's platform for its physical id: GPU 0 here
    torch = sys.modules.get("torch") or _stub("torch")
    torch.accelerator = types.SimpleNamespace(current_device_index=lambda: 0)
    _stub("vllm.platforms", current_platform=types.SimpleNamespace(
        visible_device_id_to_physical_device_id=lambda i: i))
    envs = _load("vllm", MODULES["vllm"][0])
    sys.modules["vllm"].envs = envs
    store = _load("vllm", MODULES["vllm"][1])
    net = _load("vllm", MODULES["vllm"][2])
    rdma = _load("vllm", MODULES["vllm"][3])
    _loaded["vllm"] = (store, net, rdma)
    return _loaded["vllm"]


def sglang():
    """sglang.srt.mem_cache.storage.mooncake_store.mooncake_store (its
    MooncakeStoreConfig and DEFAULT_LOCAL_BUFFER_SIZE)."""
    if "sglang" in _loaded:
        return _loaded["sglang"]
    torch = sys.modules.get("torch") or _stub("torch")  # vllm() may have made it
    torch.__dict__.update(Tensor=_Anything, dtype=_Anything, uint8=None)
    _stub("requests")
    _stub("sglang.srt.mem_cache.hicache_storage", HiCacheStorage=_Anything,
          HiCacheStorageConfig=_Anything, HiCacheStorageExtraInfo=_Anything,
          PoolHitPolicy=_Anything, PoolName=_Anything, PoolTransfer=_Anything,
          PoolTransferResult=_Anything, SidecarPoolSpec=_Anything,
          disabled_l3_layout=lambda *a, **k: None)
    _stub("sglang.srt.mem_cache.hybrid_cache.linker_pool_assembler", DevicePoolEntry=_Anything)
    _stub("sglang.srt.mem_cache.pool_host", HostKVCache=_Anything, HostTensorAllocator=_Anything)
    _stub("sglang.srt.mem_cache.pool_host.mla", MLATokenToKVPoolHost=_Anything)
    _stub("sglang.srt.observability.metrics_collector", StorageMetrics=_Anything)
    _load("sglang", MODULES["sglang"][0])
    mod = _load("sglang", MODULES["sglang"][1])
    _loaded["sglang"] = mod
    return mod


def vllm_read(path):
    store, net, rdma = vllm()
    cfg = store.MooncakeStoreConfig.from_file(path)
    local = rdma.get_requester_local_hostname(net.get_ip())
    # what setup() gets as the device: 0.34.0 on, GPU 0's entry of
    # device_name_per_gpu when that is set
    per_gpu = getattr(store, "_device_name_for_current_gpu", None)
    device = per_gpu(cfg) if per_gpu else cfg.device_name
    return {
        "master": cfg.master_server_address,
        "metadata": cfg.metadata_server,
        "protocol": cfg.protocol,
        "device": device,
        "segment": cfg.global_segment_size,
        "buffer": cfg.local_buffer_size,
        "local_hostname": local,
        "role": "",
        "setup": [local, cfg.metadata_server, cfg.global_segment_size,
                  cfg.local_buffer_size, cfg.protocol, device,
                  cfg.master_server_address],
    }


def vllm_sleep(path, env):
    """None when the release's MooncakeStoreConnector allows
    --enable-sleep-mode with the client config at `path` under the
    environment `env`, else why not: its supports_sleep_mode(), the function
    alone, taken from the wheel's connector.py and run with the wheel's
    MooncakeStoreConfig (the rest of that module is never imported)."""
    store, _, _ = vllm()
    rel = MODULES["vllm"][4]
    with open(os.path.join(engine_dir("vllm"), rel)) as f:
        tree = ast.parse(f.read())
    fn = next(f for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and c.name == "MooncakeStoreConnector"
              for f in c.body if isinstance(f, ast.FunctionDef) and f.name == "supports_sleep_mode")
    fn.decorator_list = []
    fn.args.args[1].annotation = None
    fn.returns = None
    scope = {"MooncakeStoreConfig": store.MooncakeStoreConfig, "os": os}
    exec(compile(ast.Module(body=[fn], type_ignores=[]), rel, "exec"), scope)
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env, MOONCAKE_CONFIG_PATH=path)
    try:
        return None if scope["supports_sleep_mode"](None, None) else "it does not support sleep mode"
    except ValueError as e:
        return str(e)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def sglang_read(env):
    mod = sglang()
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        # MooncakeStore.__init__'s way: the extra config, else
        # SGLANG_HICACHE_MOONCAKE_CONFIG_PATH's file, else the environment
        cfg = mod.MooncakeBaseStore()._load_config(None)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    # MooncakeStore.__init__: one rank (tp_size * pp_size == 1), its own
    # transfer engine, the zero-copy local buffer
    return {
        "master": cfg.master_server_address,
        "metadata": cfg.metadata_server,
        "protocol": cfg.protocol,
        "device": cfg.device_name,
        "segment": cfg.global_segment_size,
        "buffer": mod.DEFAULT_LOCAL_BUFFER_SIZE,
        "local_hostname": cfg.local_hostname,
        "role": "",
        "check_server": cfg.check_server,
        "setup": [cfg.local_hostname, cfg.metadata_server, cfg.global_segment_size,
                  mod.DEFAULT_LOCAL_BUFFER_SIZE, cfg.protocol, cfg.device_name,
                  cfg.master_server_address],
    }


# ---- TRT-LLM's mooncake-store connector: the contract of doc/engine-contracts.md

_TRT_UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
_TRT_DECIMAL = {"k", "kb", "m", "mb", "g", "gb", "t", "tb"}
_TRT_ROLES = {"both", "producer", "consumer", "capacity"}


def trtllm_size(value):
    """parse_size(strict_units=True)."""
    if isinstance(value, bool):
        raise ValueError(f"a size cannot be a bool: {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", str(value))
    if not m:
        raise ValueError(f"invalid size {value!r}")
    unit = m.group(2).lower()
    if unit in _TRT_DECIMAL:
        raise ValueError(f"decimal unit in {value!r}: write a byte count or <n>GiB")
    if unit not in _TRT_UNITS:
        raise ValueError(f"unknown size unit in {value!r}")
    return int(float(m.group(1)) * _TRT_UNITS[unit])


def own_name_resolved():
    """TRT-LLM's connector's own guess of its node's address."""
    return socket.gethostbyname(socket.gethostname())


def trtllm_read(path, guess=own_name_resolved):
    with open(path) as f:
        cfg = json.load(f)
    master = cfg.get("master_server_address") or ""
    if not master:
        raise ValueError(f"{path}: master_server_address is required")
    segment = trtllm_size(cfg.get("global_segment_size", 3355443200))
    buffer = trtllm_size(cfg.get("local_buffer_size", 1073741824))
    if segment < 0:
        raise ValueError(f"{path}: global_segment_size must be >= 0")
    if buffer <= 0:
        raise ValueError(f"{path}: local_buffer_size must be > 0")
    role = str(cfg.get("role", "both")).strip().lower()
    if role not in _TRT_ROLES:
        raise ValueError(f"role={role!r} in {path} is not one of: {', '.join(sorted(_TRT_ROLES))}")
    int_batch = int(cfg.get("transfer_batch_size", 64))
    if int_batch <= 0:
        raise ValueError(f"{path}: transfer_batch_size must be > 0")
    metadata = cfg.get("metadata_server") or "P2PHANDSHAKE"
    local = cfg.get("local_hostname")
    if local is None:
        # the connector's own guess: this host's name, resolved (where it
        # resolves to no use, the plugin hands the task a file of its node's
        # own, with local_hostname)
        local = guess()
    protocol = cfg.get("protocol", "rdma")
    device = cfg.get("device_name", "")
    # bool() of the file's value, then raised back to True by
    # __post_init__ (with a warning in the log for a role that transfers)
    staging_asked = bool(cfg.get("stage_through_host", True))
    return {
        "master": master,
        "metadata": metadata,
        "protocol": protocol,
        "device": device,
        "segment": segment,
        "buffer": buffer,
        "local_hostname": local,
        "role": role,
        "stage_through_host": True,
        "stage_through_host_asked": staging_asked,
        "setup": [local, metadata, segment, buffer, protocol, device, master],
    }


def read(engine, path=None, env=None, guess=own_name_resolved):
    """The engine's view of a task: `path` its MOONCAKE_CONFIG_PATH (vLLM,
    TRT-LLM), `env` its environment (SGLang; vLLM's hostname override);
    `guess` TRT-LLM's own guess of the node's address."""
    if engine == "sglang":
        return sglang_read(env if env is not None else dict(os.environ))
    if engine == "vllm":
        if env is None:
            return vllm_read(path)
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(env)
        try:
            return vllm_read(path)
        finally:
            os.environ.clear()
            os.environ.update(saved)
    if engine == "trtllm":
        return trtllm_read(path, guess)
    raise ValueError(f"unknown engine {engine!r}")
