#!/usr/bin/env python3
"""A real Mooncake Store client, configured the way the task's engine
configures its own: vLLM's and SGLang's readers from their released wheels
(the file named by MOONCAKE_CONFIG_PATH; SGLang's MOONCAKE_* variables),
TRT-LLM's contract (doc/engine-contracts.md), then setup() with exactly the
arguments that engine passes. Used inside the test cluster's tasks.

  mc_client.py env                 print the task's Mooncake view, one KEY=value per line
  mc_client.py put KEY VALUE DONE  put VALUE under KEY, then stay mounted until the
                                   file DONE exists (the reader or the test says it is done)
  mc_client.py get KEY VALUE DONE  read KEY until it equals VALUE (120 s), touch DONE
  mc_client.py hold DONE           mount the task's segment, say MOUNTED, stay until DONE exists
  mc_client.py loop DONE           put a new key and get it back every 50 ms until DONE exists;
                                   print "UP <unix time>" at the first round trip that works
                                   after one that did not (and at the first)
  mc_client.py reput KEY VALUE GO DONE
                                   put VALUE under KEY; once the file GO exists (the master was
                                   killed), put it under KEY-after until that works (90 s), say
                                   how long it took, then stay until DONE exists

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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "contract"))
import engines  # noqa: E402  (the engines' own readers, tests/contract/)


def engine_of_task():
    """The engine whose worker this task stands for: MCK_ENGINE, else what
    the plugin handed it (TRT-LLM's files carry a connector role, vLLM's
    do not; SGLang gets no file)."""
    if os.environ.get("MCK_ENGINE"):
        return os.environ["MCK_ENGINE"]
    path = os.environ.get("MOONCAKE_CONFIG_PATH")
    if not path:
        return "sglang"
    with open(path) as f:
        return "trtllm" if "role" in json.load(f) else "vllm"


def settings():
    """What the engine's own reader makes of the task's config: vLLM's and
    SGLang's from their wheels, TRT-LLM's contract."""
    engine = engine_of_task()
    s = engines.read(engine, path=os.environ.get("MOONCAKE_CONFIG_PATH"), env=dict(os.environ))
    s["engine"] = engine
    return s


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
    """MooncakeDistributedStore.setup() with the arguments the engine passes."""
    from mooncake.store import MooncakeDistributedStore

    st = MooncakeDistributedStore()
    rc = st.setup(*s["setup"])
    if rc != 0:
        raise SystemExit(f"setup failed: {rc} ({s['engine']}: {s['setup']})")
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
        # what the engine's reader makes of it (the address it announces)
        print(f"{host} ENGINE={s['engine']}")
        print(f"{host} ENGINE_LOCAL_HOSTNAME={s['local_hostname']}")
        print(f"{host} ENGINE_MASTER={s['master']}")
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
    if cmd == "loop":
        done, st, up, i = sys.argv[2], store(s), False, 0
        while not os.path.exists(done):
            i += 1
            value = payload(f"loop-{i}", "@4096")
            ok = st.put(f"loop-{i}", value) == 0 and st.get(f"loop-{i}") == value
            if ok and not up:
                print(f"{host} UP {time.time():.3f}", flush=True)
            up = ok
            time.sleep(0.05)
        st.close()
        return
    key, spec, done = sys.argv[2], sys.argv[3], sys.argv[4]
    value = payload(key, spec)
    st = store(s)
    if cmd == "reput":
        print(f"{host} PUT {key} rc={st.put(key, value)}", flush=True)
        go, done = sys.argv[4], sys.argv[5]
        # the test's bound on its own events is the one that counts: this
        # wait only ends a worker whose test has gone
        deadline = time.time() + 900
        while not os.path.exists(go) and time.time() < deadline:
            time.sleep(0.1)
        t0, rc = time.time(), -1
        while rc != 0 and time.time() < t0 + 90:
            rc = st.put(key + "-after", payload(key + "-after", spec))
            if rc != 0:
                time.sleep(0.2)
        print(f"{host} PUT {key}-after rc={rc} after {time.time() - t0:.1f} s", flush=True)
        deadline = time.time() + 90
        while not os.path.exists(done) and time.time() < deadline:
            time.sleep(0.2)
    elif cmd == "put":
        rc = st.put(key, value)
        print(f"{host} PUT {key} rc={rc}", flush=True)
        # the test says when it is done: this bound only ends a worker
        # whose test has gone
        deadline = time.time() + 900
        while not os.path.exists(done) and time.time() < deadline:
            time.sleep(0.2)
    else:
        # an HA pool's clients find a new leader by themselves, some
        # 30 s after it serves (mooncake 0.3.13)
        deadline = time.time() + 120
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
