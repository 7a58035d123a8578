#!/usr/bin/env python3
"""A stand-in for `trtllm-serve mooncake_donor` (TensorRT-LLM's memory
donor), which cannot run on the test cluster: it models the documented
behaviour srtctl relies on (../shared/spec/srtctl-lenders.md), and lends a
real segment through the Mooncake wheel's client as the donor does.

  trtllm-serve mooncake_donor --master_server_address HOST:PORT
      --segment_size SIZE --protocol PROTO --ready_file PATH

SIZE is read as TRT-LLM reads it (parse_size(strict_units=True): a byte
count or a binary unit, KiB ... TiB). The donor mounts a segment of SIZE
bytes at the master (retrying until TRTLLM_MOONCAKE_MASTER_TIMEOUT
seconds), then writes its ready file (atomically) and stays, lending, until
it is told to stop. It writes its command line and the variables it was
given into TRTLLM_MOONCAKE_RUN_DIR/standin.args, so a test can check them.

The tests steer it with variables of the service's env (a stand-in's own):
  MCK_STANDIN_FAIL=1      exit 1 at once, saying why (a broken donor)
  MCK_STANDIN_NO_READY=1  mount, but never write the ready file (a hung one)
"""
import argparse
import os
import re
import signal
import socket
import sys
import time

UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


def parse_size(text):
    """TRT-LLM's parse_size(strict_units=True): decimal units refused."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).lower() not in UNITS:
        raise SystemExit(f"trtllm-serve mooncake_donor: --segment_size {text!r}: use a byte count or a binary unit (KiB, MiB, GiB, TiB)")
    return int(float(m.group(1)) * UNITS[m.group(2).lower()])


def own_address(master_host):
    """The address of the route toward the master (the test nodes' names
    resolve to none)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect((master_host, 9))
        return s.getsockname()[0]
    finally:
        s.close()


def main():
    if len(sys.argv) < 2 or sys.argv[1] != "mooncake_donor":
        raise SystemExit("trtllm-serve stand-in: only `trtllm-serve mooncake_donor` is modelled")
    p = argparse.ArgumentParser(prog="trtllm-serve mooncake_donor")
    p.add_argument("--master_server_address", required=True)
    p.add_argument("--segment_size", required=True)
    p.add_argument("--protocol", default="rdma")
    p.add_argument("--ready_file", required=True)
    a = p.parse_args(sys.argv[2:])
    run_dir = os.environ.get("TRTLLM_MOONCAKE_RUN_DIR", ".")
    os.makedirs(run_dir, exist_ok=True)
    with open(os.path.join(run_dir, "standin.args"), "w") as f:
        f.write(" ".join(sys.argv) + "\n")
        for k in ("TRTLLM_MOONCAKE_RUN_DIR", "TRTLLM_MOONCAKE_MASTER_TIMEOUT", "TLLM_LOG_LEVEL"):
            f.write(f"{k}={os.environ.get(k, '')}\n")
    print(f"mooncake_donor (stand-in): master {a.master_server_address}, segment {a.segment_size}, protocol {a.protocol}", flush=True)
    if os.environ.get("MCK_STANDIN_FAIL"):
        raise SystemExit("mooncake_donor (stand-in): failing as told (MCK_STANDIN_FAIL)")
    size = parse_size(a.segment_size)
    from mooncake.store import MooncakeDistributedStore

    host = a.master_server_address.rsplit(":", 1)[0]
    store = MooncakeDistributedStore()
    deadline = time.time() + float(os.environ.get("TRTLLM_MOONCAKE_MASTER_TIMEOUT", "120"))
    while True:
        rc = store.setup(own_address(host), "P2PHANDSHAKE", size, 16 << 20, a.protocol, "", a.master_server_address)
        if rc == 0:
            break
        if time.time() > deadline:
            raise SystemExit(f"mooncake_donor (stand-in): cannot mount its segment at {a.master_server_address}: setup {rc}")
        time.sleep(1)
    print(f"mooncake_donor (stand-in): lending {size} bytes", flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    if not os.environ.get("MCK_STANDIN_NO_READY"):
        tmp = a.ready_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{os.getpid()}\n")
        os.rename(tmp, a.ready_file)
    while not stop:
        time.sleep(0.2)
    store.close()


if __name__ == "__main__":
    main()
