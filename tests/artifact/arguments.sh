#!/bin/bash
# arguments.sh MOONCAKE_RECIPE MANPAGE - spank_mooncake(8) documents the
# plugin's plugstack.conf arguments, and the parser has one table of them
# (runtime/plugstack/plugstack.c): the two agree on every name, every
# default and every name a value may take. `mooncake-recipe plugstack`
# prints the parser's side (key=default, and a tab and the names, a|b).
# The sampler's default is the build's BINDIR: its name alone is compared.
set -u
cli=$1 man=$2
python3 - "$man" <(LC_ALL=C "$cli" plugstack) <<'PY'
import re, sys

man = open(sys.argv[1]).read()
section = man[man.index(".SH PLUGSTACK ARGUMENTS"):man.index(".SH THE RECIPE")]
def plain(text):
    return re.sub(r"\\[-]", "-", re.sub(r'^\.[A-Z]+ ', "", text.strip())).strip()
documented = {}
for entry in section.split("\n.TP\n")[1:]:
    lines = entry.split("\n")
    m = re.match(r"\.B[IR] ([a-z_]+)=(.*)", lines[0])
    if not m:
        continue
    key, rest = m.group(1), m.group(2)
    names = re.findall(r"[a-z]+", rest) if "{" in rest else None
    default = None
    for i, line in enumerate(lines):
        if line.startswith("Default:"):
            tail = line[len("Default:"):].strip()
            default = tail if tail else plain(lines[i + 1])
            default = re.split(r"[;]", default)[0].strip().rstrip(" .,")
            break
    documented[key] = (default, names)
parsed = {}
for line in open(sys.argv[2]):
    key, value = line.rstrip("\n").split("=", 1)
    value, _, names = value.partition("\t")
    parsed[key] = (value, names.split("|") if names else None)
fails = 0
def fail(msg):
    global fails
    fails += 1
    print("FAIL: " + msg)
for key in parsed:
    if key not in documented:
        fail("plugstack argument %s= is in the parser's table, not in spank_mooncake(8)" % key)
for key in documented:
    if key not in parsed:
        fail("spank_mooncake(8) documents %s=, which the parser does not take" % key)
for key in sorted(set(parsed) & set(documented)):
    (value, names), (default, doc_names) = parsed[key], documented[key]
    if default is None:
        fail("spank_mooncake(8) gives %s= no Default:" % key)
    elif key != "sampler" and default != value and not (default == "none" and value == ""):
        fail("%s=: spank_mooncake(8) says the default is '%s', the parser's is '%s'" % (key, default, value))
    if (names or doc_names) and names != doc_names:
        fail("%s=: spank_mooncake(8) names the values %s, the parser %s" % (key, doc_names, names))
total = len(set(parsed) | set(documented))
if not fails:
    print("PASS: spank_mooncake(8) and the parser agree on the %d plugstack arguments, their defaults and their values" % total)
print("%d%%: Checks: 1, Failures: %d, Errors: 0" % (0 if fails else 100, 1 if fails else 0))
sys.exit(1 if fails else 0)
PY
