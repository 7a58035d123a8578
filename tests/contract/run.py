#!/usr/bin/env python3
"""Contract tests: what `mooncake-recipe check` accepts, each engine's own
reader reads, with the values the plugin means.

  run.py [--setups FILE] MOONCAKE_RECIPE RECIPE...

For every recipe `check` accepts that has a pool, and for each of its roles,
this renders what the plugin hands a task on a node (the client configs with
`render`, the environment with `env`) and gives it to the role's engine the
way the engine's worker reads it (tests/contract/engines.py: vLLM's and
SGLang's readers from their released wheels, TRT-LLM's contract from
doc/engine-contracts.md). It passes when the reader takes it without an
error and reads:

  master     the job's master (10.1.1.1:8700 here), or the external one
  metadata   a metadata server Mooncake's setup() can use: the file's, else
             P2PHANDSHAKE (vLLM, TRT-LLM); the job's HTTP metadata server
             (SGLang, from MOONCAKE_TE_META_DATA_SERVER)
  address    the node's own address (10.9.9.9 here), where the engine takes
             one from the plugin
  sizes      the byte counts `mooncake-recipe explain` states for the recipe's
             sizes (what the plugin says each engine will read)
  role       TRT-LLM: the connector role of the file

and where the release reads the recipe otherwise than the other releases
or than the file says, `check` warns (lib/rules/releases.c): vLLM's
sleep-mode gate (MooncakeStoreConnector.supports_sleep_mode, run from the
wheel), a device_name_per_gpu the release ignores, TRT-LLM's
stage_through_host raised to true.

The releases are MCK_VLLM_VERSION and MCK_SGLANG_VERSION (one process
reads with one release of each; tests/tests.mk runs it once per pinned
pair). --setups FILE appends, one JSON line per recipe, role and engine,
the arguments the engine's reader passes to Mooncake's setup() there
(tests/contract/live.py gives them to a real setup()).

Prints a PASS/FAIL line per recipe and role and a summary in Check's format.
"""
import os
import re
import json
import subprocess
import sys
import tempfile
import warnings

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engines  # noqa: E402

INFRA = "10.1.1.1"
NODE = "10.9.9.9"
OK_LINE = re.compile(r": OK \(engine (\w+); roles ([\w, ]+); (.*)\)$", re.M)
BYTES = re.compile(r"^\s+(global_segment_size|local_buffer_size|MOONCAKE_GLOBAL_SEGMENT_SIZE)\s+.*?\((-?\d+) bytes( or more)?\)", re.M)


def cli(*args):
    p = subprocess.run([CLI, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def env_of(text):
    env = {}
    for line in text.splitlines():
        k, _, v = line.partition("=")
        env[k] = v
    return env


def role_args(path, role):
    """The role's args in the recipe, as srtctl reads them."""
    try:
        with open(path) as f:
            doc = yaml.safe_load(f)
        args = doc["roles"][role].get("args") or {}
        return args if isinstance(args, dict) else {}
    except Exception:
        return {}


def arg(args, dashed):
    return args.get(dashed, args.get(dashed.replace("-", "_")))


def release_problems(path, engine, role, config, env, seen, warned):
    """What this release reads otherwise than the other releases or than the
    file says must be what check warned of (lib/rules/releases.c)."""
    problems = []
    release = f"{'vLLM' if engine == 'vllm' else engine} {engine_version(engine)}"
    if engine == "vllm":
        args = role_args(path, role)
        sleep = arg(args, "enable-sleep-mode")
        kt = arg(args, "kv-transfer-config")
        if (sleep is True or str(sleep).lower() == "true") and "MooncakeStoreConnector" in str(kt):
            why = engines.vllm_sleep(config, env)
            said = [w for w in warned if f"roles.{role}.args: enable-sleep-mode" in w]
            if why and not any(release in w and ("never" in w or "fail at start with both" in w) for w in said):
                problems.append(f"{release} refuses sleep mode ({why}), and check did not say so")
            if not why and not any(f"{release} allows it" in w for w in said):
                problems.append(f"{release} allows sleep mode with this config, and check did not say so")
        with open(config) as f:
            per_gpu = json.load(f).get("device_name_per_gpu")
        if isinstance(per_gpu, list) and per_gpu and seen["device"] != per_gpu[0] and \
                not any(f"{release} ignores the key" in w for w in warned):
            problems.append(f"{release} gives GPU 0's store client device {seen['device']!r}, not "
                            f"device_name_per_gpu's {per_gpu[0]!r}, and check did not say so")
    if engine == "trtllm" and not seen["stage_through_host_asked"] and seen["role"] != "capacity" and \
            not any("stage_through_host" in w and "runs with stage_through_host true" in w for w in warned):
        problems.append("TRT-LLM runs with stage_through_host true, the file says false, and check did not say so")
    return problems


def engine_version(engine):
    return engines.VERSIONS.get(engine, "main")


def check_role(path, engine, role, pool, out, warned=(), setups=None):
    """[] when the engine reads the role's task as meant, else the problems."""
    rc, text, errs = cli("env", path, "--role", role, "--infra-addr", INFRA,
                         "--config-dir", out, "--local-hostname", NODE)
    if rc != 0:
        return [f"mooncake-recipe env failed: {errs.strip()}"]
    env = env_of(text)
    rc, text, errs = cli("explain", path, "--role", role, "--infra-addr", INFRA,
                         "--config-dir", out, "--local-hostname", NODE)
    if rc != 0:
        return [f"mooncake-recipe explain failed: {errs.strip()}"]
    stated = {("segment" if k != "local_buffer_size" else "buffer"): (int(b), bool(more))
              for k, b, more in BYTES.findall(text)}
    config = env.get("MOONCAKE_CONFIG_PATH")
    if engine in ("vllm", "trtllm") and not config:
        return []  # a role that reads no client config (a TRT-LLM role without the connector)
    try:
        # TRT-LLM's guess of the node's address is the node's business (the
        # plugin gives a node whose name resolves to no use a file with
        # local_hostname, tests/cluster/): here, a node whose name resolves
        seen = engines.read(engine, path=config, env=env, guess=lambda: NODE)
    except Exception as e:  # what the engine raises at its start
        return [f"{engine}'s reader refuses it: {type(e).__name__}: {e}"]
    problems = []
    external = pool == "external mooncake-master"
    master = env["MOONCAKE_MASTER"]
    if not external and master != f"{INFRA}:8700":
        problems.append(f"MOONCAKE_MASTER is {master}")
    if seen["master"] != master:
        problems.append(f"{engine} reads the master {seen['master']!r}, the task has {master}")
    if not seen["metadata"]:
        problems.append(f"{engine} reads no metadata server (Mooncake's setup() fails)")
    if engine == "sglang" and seen["metadata"] != env["MOONCAKE_TE_META_DATA_SERVER"]:
        problems.append(f"SGLang reads the metadata server {seen['metadata']!r}")
    if engine in ("vllm", "sglang") and seen["local_hostname"] != NODE:
        problems.append(f"{engine} announces {seen['local_hostname']!r}, not the node's {NODE}")
    for what, (want, more) in stated.items():
        # explain says "or more" where its 64 bits saturate (TRT-LLM's
        # parity with srtctl keeps such sizes); Python's ints do not
        if seen[what] != want and not (more and seen[what] >= want):
            problems.append(f"{engine} reads {what} as {seen[what]} bytes, explain says {want}")
    if engine == "trtllm" and seen["role"] not in ("both", "producer", "consumer", "capacity"):
        problems.append(f"TRT-LLM role {seen['role']!r}")
    if not all(isinstance(a, (str, int)) and not isinstance(a, bool) for a in seen["setup"]):
        problems.append(f"setup() would get {seen['setup']!r}")
    problems += release_problems(path, engine, role, config, env, seen, warned)
    if setups is not None and not problems:
        setups.write(json.dumps({"recipe": path, "role": role, "engine": engine,
                                 "release": engine_version(engine), "infra": INFRA, "node": NODE,
                                 "metadata": env.get("MOONCAKE_TE_META_DATA_SERVER", ""),
                                 "setup": seen["setup"]}) + "\n")
    return problems


VLLM_RECIPE = """schema: 2
name: size-{n}
model: {{path: "hf:Qwen/Qwen3-0.6B"}}
engine: vllm
roles:
  prefill:
    args: {{kv-transfer-config: '{{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}}'}}
services:
  - name: mooncake-master
    type: mooncake-master
    options:
      store_config: {{metadata_server: P2PHANDSHAKE, {key}: {value}}}
"""
SGLANG_RECIPE = """schema: 2
name: size-{n}
model: {{path: "hf:Qwen/Qwen3-0.6B"}}
engine: sglang
roles:
  prefill:
    env: {{{key}: {value}}}
    args: {{disaggregation-transfer-backend: mooncake, enable-hierarchical-cache: true,
           hicache-storage-backend: mooncake}}
services:
  - {{name: mooncake-master, type: mooncake-master}}
"""
# Spellings of a value, in the recipe's YAML, for the engine's reader: what
# check accepts the reader must read as explain says; what check refuses the
# reader must refuse too, unless the case says why the plugin is stricter.
DIFF_CASES = [
    ("vllm", "global_segment_size", v, None) for v in (
        "16GB", "16gb", "'16 GB'", "1.5GB", "16MB", "'.5gb'", "'1.gb'", "16GiB", "16G", "16TB",
        "16TiB", "1.2.3gb", "''", "lots", "1e9", "'-1'", "null", "[1]", ".inf", "' 16\\tgb '",
        "0x1000000", "'16777216'", "16777216")] + [
    # sizes vLLM reads, of 1 byte to 16 MiB - 1: Mooncake's setup() refuses them
    ("vllm", "global_segment_size", v, "Mooncake's setup() refuses a segment below 16 MiB")
    for v in ("16kb", "16b", "'16'", "16", "1.5", "0x10", "'1_000'", "'1.'", "'0.5kb'", "'16777215'")] + [
    ("vllm", "global_segment_size", "0", "vLLM's embedded mode refuses 0 (__post_init__)"),
    ("vllm", "global_segment_size", "-1", "a negative segment: Mooncake's setup() takes an unsigned size"),
    ("vllm", "global_segment_size", "true", "vLLM takes a bool as 1 byte; the plugin refuses it"),
    ("vllm", "global_segment_size", "99999999999999999999", "past 2^63 bytes: no node's memory"),
    ("vllm", "global_segment_size", "'99999999999999999999GB'", "past 2^63 bytes: no node's memory"),
    ("vllm", "global_segment_size", "1.0e+19", "past 2^63 bytes: no node's memory"),
    ("vllm", "enable_offload", "'false'", "vLLM's bool('false') is True: the plugin refuses a string"),
    ("vllm", "enable_offload", "false", None),
    ("vllm", "local_buffer_size", "0", None),
    ("vllm", "local_buffer_size", "4GB", None),
    ("vllm", "local_buffer_size", "4GiB", None),
] + [
    ("sglang", "MOONCAKE_GLOBAL_SEGMENT_SIZE", v, None) for v in (
        "'16gb'", "'16GB'", "' 16 gb '", "'+16gb'", "'1_6gb'", "'17179869184'", "'0'",
        "'16GiB'", "'1.5gb'", "'16mb'", "'gb'", "'16 G'", "''", "'1e9'")] + [
    ("sglang", "MOONCAKE_GLOBAL_SEGMENT_SIZE", "'16777215'", "Mooncake's setup() refuses a segment below 16 MiB")] + [
    ("sglang", "MOONCAKE_GLOBAL_SEGMENT_SIZE", "'99999999999999999999gb'", "past 2^63 bytes: no node's memory"),
    ("sglang", "MOONCAKE_GLOBAL_SEGMENT_SIZE", "'-1gb'", "a negative segment: Mooncake's setup() takes an unsigned size"),
    ("sglang", "MOONCAKE_GLOBAL_SEGMENT_SIZE", "'18446744073709551616'", "past 2^63 bytes: no node's memory"),
    ("sglang", "MOONCAKE_GLOBAL_SEGMENT_SIZE", "'-18446744073709551616'", "a negative segment"),
    ("sglang", "MOONCAKE_CHECK_SERVER", "'ture'", "SGLang would warn and use its default"),
    ("sglang", "MOONCAKE_CHECK_SERVER", "'Yes'", None),
] + [
    # vLLM 0.34.0's device_name_per_gpu (0.33.0 ignores the key: check
    # refuses what either release refuses)
    ("vllm", "device_name_per_gpu", v, None if ok else "vLLM 0.34.0 refuses it; 0.33.0 ignores the key")
    for v, ok in (("[mlx5_0]", True), ("[mlx5_0, mlx5_1]", True), ("null", True), ("mlx5_0", False),
                  ("[]", False), ("['']", False), ("[mlx5_0, ' ']", False), ("[1]", False), ("{a: b}", False))
] + [
    # what Mooncake's setup() takes (T1): the readers pass these through
    ("vllm", "protocol", v, None if ok else "Mooncake's setup() refuses it; vLLM passes it through")
    for v, ok in (("tcp", True), ("rdma", True), ("TCP", False), ("Tcp", False), ("RDMA", False),
                  ("ib", False), ("''", False))
] + [
    ("vllm", "metadata_server", v, None if ok else "Mooncake's setup() cannot use it; vLLM passes it through")
    for v, ok in (("P2PHANDSHAKE", True), ("'http://10.0.0.9:8701/metadata'", True),
                  ("'etcd://10.0.0.9:2379'", True), ("'10.0.0.9:2379;10.0.0.10:2379'", True),
                  ("p2phandshake", False), ("' P2PHANDSHAKE'", False), ("'HTTP://10.0.0.9:8701/metadata'", False),
                  ("'ftp://x'", False), ("metadata-host", False), ("'h:99999'", False))
] + [
    ("sglang", "MOONCAKE_PROTOCOL", v, None if ok else "Mooncake's setup() refuses it; SGLang passes it through")
    for v, ok in (("tcp", True), ("TCP", False), ("Rdma", False))
]


def raw_reader(engine, key, value, out):
    """The engine's reader on the value as written, past the plugin."""
    import json
    import yaml

    v = yaml.safe_load(f"v: {value}")["v"]
    if engine == "vllm":
        path = os.path.join(out, "raw.json")
        with open(path, "w") as f:
            json.dump({"metadata_server": "P2PHANDSHAKE", "master_server_address": "1.1.1.1:1",
                       key: v}, f)
        return engines.read("vllm", path=path, env={})
    return engines.read("sglang", env={"MOONCAKE_MASTER": "1.1.1.1:1", key: str(v)})


def differential():
    checks = failures = 0
    for n, (engine, key, value, stricter) in enumerate(DIFF_CASES):
        template = VLLM_RECIPE if engine == "vllm" else SGLANG_RECIPE
        checks += 1
        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "r.yaml")
            with open(path, "w") as f:
                f.write(template.format(n=n, key=key, value=value))
            rc, _, errs = cli("check", path)
            name = f"{engine} {key}: {value}"
            try:
                raw_reader(engine, key, value, out)
                reader = None
            except Exception as e:
                reader = f"{type(e).__name__}: {e}"
            if rc == 0 and stricter:
                problems = [f"check accepts it, but {stricter}"]
                verdict = "accepted by check"
            elif rc == 0:
                warned = [l for l in errs.splitlines() if l.startswith("mooncake: warning: ")]
                problems = check_role(path, engine, "prefill", "the plugin starts mooncake-master", out, warned) \
                    if cli("render", path, "--infra-addr", INFRA, "--out", out)[0] == 0 else ["render failed"]
                verdict = "accepted by check"
            elif rc == 1 and "mooncake: " in errs:
                problems = [] if reader or stricter else [
                    f"check refuses it ({errs.strip()}), but {engine}'s reader takes it"]
                verdict = "refused by check" + (f" ({stricter})" if stricter and not reader else "")
            else:
                problems = [f"check exited {rc}: {errs.strip()}"]
                verdict = "?"
        if problems:
            failures += 1
            print(f"FAIL {name}: {verdict}")
            for p in problems:
                print(f"    {p}")
        else:
            print(f"PASS {name}: {verdict}; the reader {'refuses it: ' + reader if reader else 'takes it'}")
    return checks, failures


def main():
    global CLI
    warnings.simplefilter("ignore")  # SGLang warns where it falls back to a default
    argv = sys.argv[1:]
    setups = None
    if argv[:1] == ["--setups"]:
        setups = open(argv[1], "a")
        argv = argv[2:]
    CLI = os.path.abspath(argv[0])
    print(f"releases: vLLM {engine_version('vllm')}, SGLang {engine_version('sglang')}, "
          "TRT-LLM's contract (doc/engine-contracts.md)")
    checks, failures = differential()
    for path in argv[1:]:
        rc, text, errs = cli("check", path)
        warned = [l for l in errs.splitlines() if l.startswith("mooncake: warning: ")]
        if rc != 0:
            continue  # refused: nothing reaches an engine
        m = OK_LINE.search(text + errs)
        if not m:
            print(f"FAIL {path}: no OK line from check: {text}{errs}")
            checks += 1
            failures += 1
            continue
        engine, roles, pool = m.group(1), m.group(2).split(", "), m.group(3)
        if pool not in ("the plugin starts mooncake-master", "external mooncake-master"):
            continue  # no pool: the plugin configures no Mooncake client
        with tempfile.TemporaryDirectory() as out:
            rc, _, errs = cli("render", path, "--infra-addr", INFRA, "--out", out)
            if rc != 0:
                print(f"FAIL {path}: render failed: {errs.strip()}")
                checks += 1
                failures += 1
                continue
            for role in roles:
                checks += 1
                problems = check_role(path, engine, role, pool, out, warned, setups)
                name = f"{os.path.basename(path)} {role} ({engine} {engine_version(engine)})"
                if problems:
                    failures += 1
                    print(f"FAIL {name}")
                    for p in problems:
                        print(f"    {p}")
                else:
                    print(f"PASS {name}")
    pct = 100 * (checks - failures) // checks if checks else 0
    print(f"{pct}%: Checks: {checks}, Failures: {failures}, Errors: 0")
    return 1 if failures or not checks else 0


if __name__ == "__main__":
    sys.exit(main())
