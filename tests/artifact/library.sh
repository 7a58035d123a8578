#!/bin/bash
# library.sh LIB_SO HEADER MAP PUBLIC_API_PROGRAM - the built
# libmooncake_recipe.so against its contract (doc/libmooncake_recipe.md):
# it exports exactly the functions the public header declares, all under
# the version node of the map, with the soname of the major version, and a
# program that includes only the public header links and runs against it.
set -u
so=$1 header=$2 map=$3 program=$4
pass=0 fails=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fails=$((fails + 1)); }

declared=$(${CC:-cc} -E -P -x c "$(dirname "$header")/$(basename "$header")" |
	grep -o '\bmcr_[a-z_0-9]*[[:space:]]*(' | sed 's/[[:space:]]*($//' | sort -u)
exported=$(nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | grep -v '^MOONCAKE_RECIPE_' | sort -u)
listed=$(sed -n '/global:/,/local:/p' "$map" | grep -o '\bmcr_[a-z_0-9]*' | sort -u)

if [ "$exported" = "$declared" ]; then
	ok "the .so exports exactly the $(wc -w <<<"$declared") functions the header declares"
else
	ko "exports and header differ (< exported only, > declared only):
$(diff <(echo "$exported") <(echo "$declared") | grep '^[<>]')"
fi
if [ "$listed" = "$declared" ]; then
	ok "the version script lists exactly the header's functions"
else
	ko "version script and header differ (< listed only, > declared only):
$(diff <(echo "$listed") <(echo "$declared") | grep '^[<>]')"
fi
# each function's version node is the one the map lists it under
want=$(awk '/^[A-Z_0-9.]* {/ {node = $1} /^\t\tmcr_/ {sub(";", "", $1); print $1 "@" node}' "$map" | sort)
got=$(objdump -T "$so" | awk '$2 != "l" && / mcr_/ {print $NF "@" $(NF-1)}' | sort)
nodes=$(sed -n 's/^\([A-Z_0-9.]*\) {.*/\1/p' "$map" | xargs)
[ -n "$want" ] && [ "$got" = "$want" ] && ok "every export carries the version node the map gives it ($nodes)" ||
	ko "exports and their version nodes differ from the map (< the .so, > the map):
$(diff <(echo "$got") <(echo "$want") | grep '^[<>]')"
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
major=$(basename "$so" | sed -n 's/^libmooncake_recipe\.so\.\([0-9]*\)\..*/\1/p')
[ -n "$major" ] && [ "$soname" = "libmooncake_recipe.so.$major" ] &&
	ok "soname $soname, real name $(basename "$so")" ||
	ko "soname '$soname' does not match the real name $(basename "$so")"
if out=$(LD_LIBRARY_PATH=$(dirname "$so") "$program" 2>&1); then
	ok "a program that includes only the public header links and runs: $out"
else
	ko "public-API program: $out"
fi
total=$((pass + fails))
echo "$((100 * pass / total))%: Checks: $total, Failures: $fails, Errors: 0"
[ "$fails" = 0 ]
