#!/bin/bash
# layout.sh OBJECTS... - the shape of lib/ and runtime/ (lib/README.md,
# runtime/README.md): no call cycle between their files, no file of lib/
# calling into runtime/, and no static error buffer. A file's length
# follows its concept: no line limit.
set -u
pass=0 fails=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fails=$((fails + 1)); }

cycles=$(python3 - "$@" <<'PY'
import subprocess, sys
objs = sys.argv[1:]
defs, uses = {}, {}
for o in objs:
    uses[o] = set()
    for line in subprocess.run(["nm", o], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBR":
            defs[f[2]] = o
        elif len(f) == 2 and f[0] == "U":
            uses[o].add(f[1])
graph = {o: {defs[s] for s in uses[o] if s in defs and defs[s] != o} for o in objs}
for o in objs:
    if "/lib/" in o:
        for w in sorted(graph[o]):
            if "/runtime/" in w:
                print("lib calls the runtime: %s -> %s" % (o, w))
index, low, stack, on, n = {}, {}, [], set(), [0]
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in graph[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            print(" ".join(sorted(comp)))
for v in objs:
    if v not in index:
        visit(v)
PY
)
[ -z "$cycles" ] && ok "no call cycle between the $# files of lib/ and runtime/, and lib/ never calls runtime/" ||
	ko "files of lib/ and runtime/ that call each other in a cycle, or lib/ calling runtime/: $cycles"
# an error buffer that outlives its call: the plugin's live on the heap
# (MCP_ERROR), the tool's on main's stack
kept=$(grep -n 'static struct mcr_error' lib/*/*.c runtime/*/*.c spank/*.c tools/*.c)
[ -z "$kept" ] && ok "no static struct mcr_error" || ko "static error buffers: $kept"
total=$((pass + fails))
echo "$((100 * pass / total))%: Checks: $total, Failures: $fails, Errors: 0"
[ "$fails" = 0 ]
