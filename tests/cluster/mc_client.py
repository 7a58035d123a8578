#!/usr/bin/env python3
"""A real Mooncake Store client, configured the way the plugin configures a
task: the JSON file named by MOONCAKE_CONFIG_PATH (TRT-LLM, vLLM) or, without
it, the MOONCAKE_* variables (SGLang). Used inside the test cluster's tasks.

  mc_client.py env                 print the task's Mooncake view, one KEY=value per line
  mc_client.py put KEY VALUE DONE  put VALUE under KEY, then stay mounted until the
                                   file DONE exists (the reader says it is done)
  mc_client.py get KEY VALUE DONE  read KEY until it equals VALUE (60 s), touch DONE
  mc_client.py hold DONE           mount the task's segment, say MOUNTED, stay until DONE exists

A VALUE of the form @N stands for N bytes derived from KEY (the same on both
sides), and prints as @N.
"""
import hashlib
import json
import os
import re
import socket
import sys
import time

UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


def size(value, default):
    """Sizes as TRT-LLM's strict parser reads them: bytes or binary units."""
    if value is None:
        return default
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*", str(value))
    if not m or m.group(2).lower() not in UNITS:
        raise SystemExit(f"bad size {value!r}")
    return int(float(m.group(1)) * UNITS[m.group(2).lower()])


def settings():
    path = os.environ.get("MOONCAKE_CONFIG_PATH")
    if path:
        with open(path) as f:
            cfg = json.load(f)
        return {
            "source": path,
            "master": cfg["master_server_address"],
            "metadata": cfg.get("metadata_server") or "P2PHANDSHAKE",
            "protocol": cfg.get("protocol", "rdma"),
            "device": cfg.get("device_name", ""),
            "segment": size(cfg.get("global_segment_size"), 64 << 20),
            "buffer": size(cfg.get("local_buffer_size"), 16 << 20),
            "role": cfg.get("role", ""),
        }
    return {
        "source": "env",
        "master": os.environ["MOONCAKE_MASTER"],
        "metadata": os.environ.get("MOONCAKE_TE_META_DATA_SERVER", "P2PHANDSHAKE"),
        "protocol": os.environ.get("MOONCAKE_PROTOCOL", "tcp"),
        "device": os.environ.get("MOONCAKE_DEVICE", ""),
        "segment": size(os.environ.get("MOONCAKE_GLOBAL_SEGMENT_SIZE"), 64 << 20),
        "buffer": size(os.environ.get("MOONCAKE_LOCAL_BUFFER_SIZE"), 16 << 20),
        "role": "",
    }


def payload(key, value):
    """VALUE as bytes: @N is N bytes derived from KEY."""
    if not value.startswith("@"):
        return value.encode()
    n = int(value[1:])
    block = hashlib.sha256(key.encode()).digest() * 1024
    return (block * (n // len(block) + 1))[:n]


def shown(key, value, got):
    if value.startswith("@"):
        return value if got == payload(key, value) else f"<{len(got)} other bytes>"
    return got.decode(errors="replace")


def store(s):
    from mooncake.store import MooncakeDistributedStore

    st = MooncakeDistributedStore()
    local = os.environ.get("MOONCAKE_LOCAL_HOSTNAME", "127.0.0.1")
    rc = st.setup(local, s["metadata"], s["segment"], s["buffer"], s["protocol"],
                  s["device"], s["master"])
    if rc != 0:
        raise SystemExit(f"setup failed: {rc}")
    return st


def main():
    cmd = sys.argv[1]
    host = socket.gethostname()
    s = settings()
    if cmd == "env":
        for k in sorted(os.environ):
            if k.startswith("MOONCAKE_") or k.startswith("MC_"):
                print(f"{host} {k}={os.environ[k]}")
        if os.environ.get("MOONCAKE_CONFIG_PATH"):
            print(f"{host} FILE_MASTER={s['master']}")
            print(f"{host} FILE_ROLE={s['role']}")
        return
    if cmd == "hold":
        done = sys.argv[2]
        st = store(s)
        print(f"{host} MOUNTED", flush=True)
        deadline = time.time() + 90
        while not os.path.exists(done) and time.time() < deadline:
            time.sleep(0.2)
        st.close()
        return
    key, spec, done = sys.argv[2], sys.argv[3], sys.argv[4]
    value = payload(key, spec)
    st = store(s)
    if cmd == "put":
        rc = st.put(key, value)
        print(f"{host} PUT {key} rc={rc}", flush=True)
        deadline = time.time() + 90
        while not os.path.exists(done) and time.time() < deadline:
            time.sleep(0.2)
    else:
        deadline = time.time() + 60
        got = b""
        while time.time() < deadline:
            got = st.get(key)
            if got == value:
                break
            time.sleep(0.2)
        print(f"{host} GOT {key}={shown(key, spec, got)}", flush=True)
        open(done, "w").close()
    st.close()


if __name__ == "__main__":
    main()
