#!/bin/bash
# glibc.sh FLOOR FILE... - the glibc floor of what is shipped (README,
# "Requirements"): no FILE (the plugin, the tool) imports
# a glibc symbol of a version newer than FLOOR (e.g. 2.28, RHEL 8's). Read
# from the dynamic symbol table (objdump -T), so it holds for objects built
# against the glibc of the machine: on a newer glibc, binaries import newer
# versions of old calls by construction (stat at 2.33, __libc_start_main at
# 2.34), which is why make check-oldest runs this on Debian 11 (glibc 2.31).
# One PASS or FAIL line per file, with the newest version it imports.
set -u
[ $# -ge 2 ] || { echo "usage: $0 FLOOR FILE..." >&2; exit 2; }
floor=$1
shift
pass=0 fails=0
# newer A B: version A is newer than B
newer() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -1)" = "$1" ]; }
for f in "$@"; do
	if ! syms=$(objdump -T "$f" 2>&1); then
		echo "FAIL: objdump -T $f: $syms"
		fails=$((fails + 1))
		continue
	fi
	# "0000 DF *UND* 0000 (GLIBC_2.34) name" (binutils 2.35 on: no parentheses)
	imports=$(awk '$0 ~ /\*UND\*/ && match($0, /GLIBC_[0-9.]+/) {
		print substr($0, RSTART + 6, RLENGTH - 6), $NF }' <<<"$syms" | sort -V -u)
	newest=$(awk '{print $1}' <<<"$imports" | sort -V | tail -1)
	over=$(while read -r v s; do [ -n "$v" ] && newer "$v" "$floor" && echo "$s@GLIBC_$v"; done <<<"$imports")
	if [ -z "$imports" ]; then
		echo "FAIL: $f imports no glibc symbol (not a dynamic object of this machine?)"
		fails=$((fails + 1))
	elif [ -z "$over" ]; then
		echo "PASS: $(basename "$f"): $(wc -l <<<"$imports") glibc imports, the newest GLIBC_$newest (floor $floor)"
		pass=$((pass + 1))
	else
		echo "FAIL: $(basename "$f") imports glibc symbols newer than $floor: $(echo $over)"
		fails=$((fails + 1))
	fi
done
total=$((pass + fails))
echo "$((total ? 100 * pass / total : 0))%: Checks: $total, Failures: $fails, Errors: 0"
[ "$fails" = 0 ]
