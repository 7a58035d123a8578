#!/usr/bin/env python3
"""Write a valid TRT-LLM recipe (the shape of examples/trtllm-serve-disagg-
mooncake.yaml) grown along one shape to N items, for make bench and the
bounds tests:

    shapes.py SHAPE N [OUT]        (OUT: - or absent for stdout)

  keys       `environment` with N variables
  env        N variables in roles.prefill.env and N in `environment`, half
             of them the same names (the worker environment's layering)
  storecfg   the master's store_config with N client-config keys (the
             client configs' layering and JSON)
  anchors    N anchored values, each aliased once
  aliases    one anchored value aliased N times
  merges     an anchored mapping of N keys merged into 5 mappings
  sequences  a list of N values
  services   N services (generic, unique names) besides the master
  nested     N levels of nested lists (at most 200: the loader refuses 256)

Every recipe passes `mooncake-recipe check` (up to the loader's limits).
"""
import sys

HEAD = """schema: 2
name: "bench"
model: {path: "qwen3-0.6b"}
resources: {gpus_per_node: 8}
frontend: {type: trtllm_serve}
engine: {type: trtllm, served_model_name: "Qwen/Qwen3-0.6B"}
"""
ROLES = """roles:
  prefill:
    env: {PYTHONUNBUFFERED: "1"%s}
    args: {backend: pytorch, kv_connector_config: {connector: mooncake-store}}
  decode:
    args: {backend: pytorch, kv_connector_config: {connector: mooncake-store}}
    mooncake_store_config: {global_segment_size: 16GiB}
"""
SERVICES = """services:
  - name: mooncake-master
    type: mooncake-master
    options:
      store_config:
        protocol: tcp
        global_segment_size: 8GiB
%s"""


def recipe(shape, n):
    out = [HEAD]
    role_env = ""
    store = ""
    extra_services = ""
    if shape == "keys":
        out.append("environment:\n")
        out.extend("  VAR_%d: \"value %d\"\n" % (i, i) for i in range(n))
    elif shape == "env":
        role_env = "".join(", ROLE_%d: \"r%d\"" % (i, i) for i in range(n))
        out.append("environment:\n")
        out.extend("  ROLE_%d: \"e%d\"\n" % (i, i) for i in range(0, n, 2))
        out.extend("  ENV_%d: \"e%d\"\n" % (i, i) for i in range(n - (n + 1) // 2))
    elif shape == "storecfg":
        store = "".join("        x_key_%d: %d\n" % (i, i) for i in range(n))
    elif shape == "anchors":
        out.append("x_values:\n")
        out.extend("  - &a%d value %d\n" % (i, i) for i in range(n))
        out.append("x_uses:\n")
        out.extend("  - *a%d\n" % i for i in range(n))
    elif shape == "aliases":
        out.append("x_values:\n  - &a value\n")
        out.append("x_uses:\n")
        out.extend("  - *a\n" for _ in range(n))
    elif shape == "merges":
        out.append("x_base: &b\n" if n else "x_base: &b {}\n")
        out.extend("  k%d: %d\n" % (i, i) for i in range(n))
        out.append("x_users:\n")
        out.extend("  - {<<: *b, own: %d}\n" % i for i in range(5))
    elif shape == "sequences":
        out.append("x_list:\n")
        out.extend("  - %d\n" % i for i in range(n))
    elif shape == "services":
        extra_services = "".join("  - {name: svc%d, type: generic}\n" % i for i in range(n))
    elif shape == "nested":
        out.append("x_nested: " + "[" * n + "1" + "]" * n + "\n")
    else:
        sys.exit("shapes.py: unknown shape %r" % shape)
    out.append(ROLES % role_env)
    out.append(SERVICES % store + extra_services)
    return "".join(out)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    text = recipe(sys.argv[1], int(sys.argv[2]))
    if len(sys.argv) == 3 or sys.argv[3] == "-":
        sys.stdout.write(text)
    else:
        with open(sys.argv[3], "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
