#!/usr/bin/env python3
"""The live layer of the contract tests: what each engine's reader derived
from a recipe `check` accepts goes to a real MooncakeDistributedStore.setup()
of the wheel, against a real mooncake_master, and a put and a get through
that client must work.

  live.py SETUPS.jsonl     (run by `make check-live` in tests/netns-run.sh)

SETUPS.jsonl is what tests/contract/run.py --setups wrote: one line per
recipe, role and engine release, with the arguments that release's reader
passes to setup() for a task of the role (the job's master at
10.1.1.1:8700, the task's node at 10.9.9.9).

What it changes to run here, and nothing else (each change is counted and
printed; any other difference from the reader's arguments is a failure):

  network    none of the addresses: they are made this network namespace's
             own (a veth pair carries every IPv4 address the readers name:
             the job's infra node, the node, an external master, a metadata
             server), a mooncake_master listens at every master address
             (one master per port, bound to all addresses) with its HTTP
             metadata server, and an etcd (the wheel's etcd client) where a
             reader names etcd endpoints
  protocol   rdma becomes tcp: this machine has no RDMA device (the device
             names stay: Mooncake ignores them over tcp)
  sizes      a segment larger than SEGMENT_CAP and a local buffer larger
             than BUFFER_CAP are shrunk to that; smaller ones stay
  segment 0  a client that lends nothing (vLLM's standalone-store mode)
             puts into a lender of the same metadata server: one more
             client, the pool's other member

Identical arguments are set up once (the readers of several recipes and
releases often agree). Each client puts and gets as the engines do, from
and into a buffer it registered (put_from, get_into: vLLM's, SGLang's and
TRT-LLM's transfers never go through the local buffer), and into its own
segment (ReplicateConfig.preferred_segment). All clients live in this one
process, which ends with os._exit: that spares Mooncake's teardown (2 s
per client).

Prints one PASS/FAIL line per distinct setup with the recipes and releases
that share it, the changes made, the time taken, and a summary in Check's
format.
"""
import collections
import ctypes
import ipaddress
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

SEGMENT_CAP = 16 << 20  # the smallest segment Mooncake's setup() takes
BUFFER_CAP = 16 << 20
VALUE = 64 << 10  # what each client puts and gets
MASTER_READY_S = 20
VENV = os.environ.get("MOONCAKE_VENV", "/opt/spank-mooncake/venv")


def addresses(setup):
    """The IPv4 addresses a setup's arguments name, and the master's and the
    HTTP metadata servers' ports, the etcd endpoints."""
    local, metadata, _, _, _, _, master = setup
    ips, etcd = set(), set()
    host, _, port = master.rpartition(":")
    masters = {int(port)}
    ips.add(host)
    ips.add(local.rpartition(":")[0] if re.fullmatch(r"[\d.]+:\d+", local) else local)
    http = set()
    m = re.match(r"https?://([\d.]+):(\d+)", metadata)
    if m:
        ips.add(m.group(1))
        http.add(int(m.group(2)))
    elif metadata != "P2PHANDSHAKE":
        for ep in re.split(r"[,;]", metadata.split("://", 1)[-1]):
            ep = ep.strip()
            if ep:
                h, _, p = ep.rpartition(":")
                ips.add(h)
                etcd.add(int(p))
    return {i for i in ips if is_ipv4(i)}, masters, http, etcd


def is_ipv4(s):
    try:
        return isinstance(ipaddress.ip_address(s), ipaddress.IPv4Address)
    except ValueError:
        return False


def adapt(setup):
    """The arguments as they run here, and the changes made."""
    local, metadata, segment, buffer, protocol, device, master = setup
    changes = []
    if protocol == "rdma":
        protocol = "tcp"
        changes.append("rdma->tcp")
    elif protocol != "tcp":
        raise SystemExit(f"the live layer runs rdma (as tcp) and tcp only, not {protocol!r}: {setup}")
    if segment > SEGMENT_CAP:
        changes.append(f"segment {segment}->{SEGMENT_CAP}")
        segment = SEGMENT_CAP
    if buffer > BUFFER_CAP:
        changes.append(f"buffer {buffer}->{BUFFER_CAP}")
        buffer = BUFFER_CAP
    return [local, metadata, segment, buffer, protocol, device, master], changes


def unchanged(reader, adapted):
    """[] when the adapted arguments differ from the reader's only where
    adapt() says they may."""
    problems = []
    for i, (a, b) in enumerate(zip(reader, adapted)):
        if a == b:
            continue
        if i == 4 and (a, b) == ("rdma", "tcp"):
            continue
        if i == 2 and a > b == SEGMENT_CAP or i == 3 and a > b == BUFFER_CAP:
            continue
        problems.append(f"argument {i} is {b!r} here, the reader's is {a!r}")
    return problems


def sh(*cmd):
    subprocess.run(cmd, check=True)


def wait_port(ip, port, proc, what, log):
    end = time.time() + MASTER_READY_S
    while time.time() < end:
        if proc.poll() is not None:
            raise SystemExit(f"{what} exited ({proc.returncode}); its log:\n{open(log).read()[-2000:]}")
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex((ip, port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"{what} is not listening on {ip}:{port} after {MASTER_READY_S} s")


def start_services(ips, masters, http, etcd, work):
    """A veth pair with every address, the masters, the etcd; the processes."""
    sh("ip", "link", "add", "mck0", "type", "veth", "peer", "name", "mck1")
    sh("ip", "link", "set", "mck0", "up")
    sh("ip", "link", "set", "mck1", "up")
    for ip in sorted(ips):
        sh("ip", "addr", "add", f"{ip}/32", "dev", "mck0")
    binary = os.path.join(VENV, "bin", "mooncake_master")
    procs = []
    # one master per RPC port; the HTTP metadata ports go to the masters in
    # turn (a master serves one), with free ports filling in
    spare = iter(range(18900, 19900))
    rpc, meta = sorted(masters), sorted(http)
    while len(meta) < len(rpc):
        meta.append(next(p for p in spare if p not in masters | http | etcd))
    while len(rpc) < len(meta):
        rpc.append(next(p for p in spare if p not in masters | http | etcd))
    any_ip = sorted(ips)[0]
    for n, (r, h) in enumerate(zip(rpc, meta)):
        log = os.path.join(work, f"master-{r}.log")
        metrics = next(p for p in spare if p not in masters | http | etcd)
        p = subprocess.Popen([binary, f"--rpc_port={r}", "--enable_http_metadata_server=true",
                              f"--http_metadata_server_port={h}", f"--metrics_port={metrics}"],
                             stdout=open(log, "w"), stderr=subprocess.STDOUT, cwd=work)
        procs.append(p)
        wait_port(any_ip, r, p, f"mooncake_master --rpc_port={r}", log)
        wait_port(any_ip, h, p, f"mooncake_master's HTTP metadata server (port {h})", log)
    for port in sorted(etcd):
        log = os.path.join(work, f"etcd-{port}.log")
        url = f"http://0.0.0.0:{port}"
        p = subprocess.Popen(["etcd", "--data-dir", os.path.join(work, f"etcd-{port}"),
                              "--listen-client-urls", url, "--advertise-client-urls", f"http://{any_ip}:{port}",
                              "--listen-peer-urls", f"http://127.0.0.1:{next(spare)}"],
                             stdout=open(log, "w"), stderr=subprocess.STDOUT, cwd=work)
        procs.append(p)
        wait_port(any_ip, port, p, f"etcd (port {port})", log)
    return procs


def main():
    t0 = time.time()
    readings = [json.loads(line) for line in open(sys.argv[1])]
    by_setup = collections.OrderedDict()
    for r in readings:
        by_setup.setdefault(json.dumps(r["setup"]), []).append(r)
    ips, masters, http, etcd = set(), set(), set(), set()
    for key in by_setup:
        a, m, h, e = addresses(json.loads(key))
        ips |= a
        masters |= m
        http |= h
        etcd |= e
    work = tempfile.mkdtemp(prefix="mck-live.")
    procs = start_services(ips, masters, http, etcd, work)
    up = time.time() - t0
    # Mooncake's clients log to this process's stderr: into a file, whose
    # tail a failure shows
    clog = os.path.join(work, "clients.log")
    stderr = os.dup(2)
    os.dup2(os.open(clog, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
    from mooncake.store import MooncakeDistributedStore, ReplicateConfig

    checks = failures = 0
    clients, lenders, buffers = [], {}, []
    distinct = collections.OrderedDict()
    for key, rs in by_setup.items():
        adapted, changes = adapt(json.loads(key))
        distinct.setdefault(json.dumps(adapted), (json.loads(key), changes, []))[2].extend(rs)
    for n, (key, (reader, changes, rs)) in enumerate(distinct.items()):
        args = json.loads(key)
        who = sorted({f"{os.path.basename(r['recipe'])} {r['role']} ({r['engine']} {r['release']})" for r in rs})
        problems = unchanged(reader, args)
        t = time.time()
        st = MooncakeDistributedStore()
        clients.append(st)
        rc = st.setup(*args)
        if rc != 0:
            problems.append(f"setup{tuple(args)} returned {rc}")
        else:
            target = st
            if args[2] == 0:
                # a client that lends nothing puts into another member's
                # segment, one of the same metadata server
                if args[1] not in lenders:
                    lender = MooncakeDistributedStore()
                    clients.append(lender)
                    lrc = lender.setup(args[0], args[1], SEGMENT_CAP, BUFFER_CAP, "tcp", "", args[6])
                    lenders[args[1]] = lender if lrc == 0 else None
                target = lenders[args[1]]
                changes = changes + ["a lender"]
            if target is None:
                problems.append("the lender's setup() failed")
            else:
                cfg = ReplicateConfig()
                cfg.preferred_segment = target.get_hostname()
                value = os.urandom(VALUE)
                src = ctypes.create_string_buffer(value, VALUE)
                dst = ctypes.create_string_buffer(VALUE)
                buffers.extend((src, dst))
                k = f"live-{n}"
                rrc = [st.register_buffer(ctypes.addressof(b), VALUE) for b in (src, dst)]
                prc = st.put_from(k, ctypes.addressof(src), VALUE, cfg) if rrc == [0, 0] else None
                grc = st.get_into(k, ctypes.addressof(dst), VALUE) if prc == 0 else None
                if rrc != [0, 0]:
                    problems.append(f"register_buffer returned {rrc}")
                elif prc != 0:
                    problems.append(f"put_from returned {prc}")
                elif grc != VALUE or dst.raw != value:
                    problems.append(f"get_into returned {grc}, and {'other' if grc == VALUE else 'no'} bytes than were put")
        checks += 1
        took = time.time() - t
        head = f"setup({', '.join(repr(a) for a in args)})"
        note = f" [{', '.join(changes)}]" if changes else ""
        if problems:
            failures += 1
            print(f"FAIL {head}{note} {took:.2f} s")
            for p in problems:
                print(f"    {p}")
            with open(clog, errors="replace") as f:
                for line in f.read().splitlines()[-8:]:
                    print(f"    | {line}")
        else:
            print(f"PASS {head}{note} {took:.2f} s")
        for w in who[:3]:
            print(f"    {w}")
        if len(who) > 3:
            print(f"    and {len(who) - 3} more")
    print(f"{len(readings)} readings (recipe, role, engine release), {len(by_setup)} distinct setups, "
          f"{len(distinct)} distinct here; {len(procs)} service(s) up in {up:.1f} s, "
          f"{time.time() - t0:.1f} s in all")
    pct = 100 * (checks - failures) // checks if checks else 0
    print(f"{pct}%: Checks: {checks}, Failures: {failures}, Errors: 0", flush=True)
    os.dup2(stderr, 2)
    for p in procs:
        p.kill()
    shutil.rmtree(work, ignore_errors=True)
    # Mooncake's teardown of each client takes 2 s: this process ends
    # without it (the masters it talked to are gone already)
    os._exit(1 if failures or not checks else 0)


if __name__ == "__main__":
    main()
