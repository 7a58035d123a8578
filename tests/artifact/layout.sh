#!/bin/bash
# layout.sh OBJECTS... - the shape of lib/, runtime/ (lib/README.md,
# runtime/README.md) and spank/ (spank/README.md): no call cycle between
# the files of lib/ and runtime/, no file of lib/ calling into runtime/;
# spank/'s folders use only the folders below them, by their calls and
# by their includes, each header compiles on its own, and spank/README.md
# says what each folder is; no static error buffer. A file's length
# follows its concept: no line limit.
set -u
pass=0 fails=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fails=$((fails + 1)); }

found=$(python3 - "$@" <<'PY'
import glob, os, re, subprocess, sys
# each object's defined and undefined symbols (nm)
defs, uses = {}, {}
for o in sys.argv[1:]:
    uses[o] = set()
    for line in subprocess.run(["nm", o], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBR":
            defs[f[2]] = o
        elif len(f) == 2 and f[0] == "U":
            uses[o].add(f[1])
# lib/ and runtime/: no call cycle, lib/ never calls runtime/
objs = [o for o in sys.argv[1:] if "/spank/" not in o]
graph = {o: {defs[s] for s in uses[o] if s in defs and defs[s] != o and defs[s] in uses} for o in objs}
graph = {o: {w for w in ws if "/spank/" not in w} for o, ws in graph.items()}
for o in objs:
    if "/lib/" in o:
        for w in sorted(graph[o]):
            if "/runtime/" in w:
                print("cycle: lib calls the runtime: %s -> %s" % (o, w))
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
            print("cycle: " + " ".join(sorted(comp)))
for v in objs:
    if v not in index:
        visit(v)
# spank/: which folder may use which (spank/README.md), on the objects'
# calls and on the sources' includes; dispatch.c uses them all
may = {"plugin": {"plugin"},
       "container": {"plugin", "container"},
       "steps": {"plugin", "container", "steps"},
       "srun": {"plugin", "container", "steps", "srun"},
       "stepd": {"plugin", "container", "steps", "stepd"}}
def folder(path):
    m = re.search(r"spank/(\w+)/\w+\.[cho]$", path)
    return m.group(1) if m else None
for o in [o for o in sys.argv[1:] if "/spank/" in o]:
    a = folder(o)
    for s in sorted(uses[o]):
        b = folder(defs.get(s, ""))
        if a and b and b not in may.get(a, set()):
            print("spank: %s calls %s of %s/" % (o.split("spank/")[1], s, b))
for src in sorted(glob.glob("spank/*/*.[ch]")):
    a = folder(src)
    for inc in re.findall(r'^#include "(\w+)/\w+\.h"', open(src).read(), re.M):
        if inc in may and inc not in may[a]:
            print("spank: %s includes %s/" % (src[len("spank/"):], inc))
if set(may) != {d for d in os.listdir("spank") if os.path.isdir("spank/" + d)}:
    print("spank: spank/'s folders are not %s" % sorted(may))
readme = open("spank/README.md").read() if os.path.exists("spank/README.md") else ""
for d in may:
    if not re.search(r"^- `%s/`: \S" % d, readme, re.M):
        print("spank: spank/README.md says nothing of %s/ (a line '- `%s/`: what it is')" % (d, d))
PY
)
cycles=$(printf '%s\n' "$found" | sed -n 's/^cycle: //p')
spank=$(printf '%s\n' "$found" | sed -n 's/^spank: //p')
nlr=$(printf '%s\n' "$@" | grep -vc /spank/)
[ -z "$cycles" ] && ok "no call cycle between the $nlr files of lib/ and runtime/, and lib/ never calls runtime/" ||
	ko "files of lib/ and runtime/ that call each other in a cycle, or lib/ calling runtime/: $cycles"
[ -z "$spank" ] && ok "spank/'s folders use only those below them (calls and includes), and spank/README.md says what each is" ||
	ko "spank/'s layout: $spank"
alone=""
for h in spank/*/*.h; do
	echo "#include \"${h#spank/}\"" | ${CC:-cc} -fsyntax-only -Werror -Wall -Ilib -Iruntime -Ispank ${SLURM_CFLAGS:-} -x c - 2>/dev/null ||
		alone="$alone $h"
done
[ -z "$alone" ] && ok "each header of spank/ compiles on its own" || ko "headers that need another included first:$alone"
# an error buffer that outlives its call: the plugin's live on the heap
# (MCP_ERROR), the tool's on main's stack
kept=$(grep -n 'static struct mcr_error' lib/*/*.c runtime/*/*.c spank/*.c spank/*/*.c tools/*.c)
[ -z "$kept" ] && ok "no static struct mcr_error" || ko "static error buffers: $kept"
total=$((pass + fails))
echo "$((100 * pass / total))%: Checks: $total, Failures: $fails, Errors: 0"
[ "$fails" = 0 ]
