#!/bin/bash
# installed.sh DESTDIR PREFIX SLURM_PLUGINDIR [KEPT...] - what `make install`
# put under DESTDIR for that layout: the tool, the plugin, the two man pages
# and the plugstack snippet, and nothing else (no library, header or
# pkg-config file: the recipe library is inside the plugin and the tool,
# doc/libmooncake_recipe.md). KEPT are the files that were there before the
# install, relative to DESTDIR.
set -u
D=$1 P=$2 SP=$3
shift 3
pass=0 fails=0
ok() { pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fails=$((fails + 1)); }
want=$(for f in "$P/bin/mooncake-recipe" "$SP/spank_mooncake.so" \
	"$P/share/man/man1/mooncake-recipe.1" "$P/share/man/man8/spank_mooncake.8" \
	"$P/share/spank-mooncake/mooncake.conf"; do echo "${f#/}"; done
	for k in "$@"; do echo "$k"; done)
got=$(cd "$D" && find . -mindepth 1 ! -type d | sed 's|^\./||')
if [ "$(sort <<<"$got")" = "$(sort <<<"$want")" ]; then
	ok
else
	ko "make install wrote other files than the tool, the plugin, the man pages and the snippet (< missing, > not expected):
$(diff <(sort <<<"$want") <(sort <<<"$got") | sed -n 's/^\([<>]\) /    \1 /p')"
fi
[ -x "$D$P/bin/mooncake-recipe" ] && [ -x "$D$SP/spank_mooncake.so" ] && ok ||
	ko "the tool or the plugin is not installed executable"
want="required $SP/spank_mooncake.so"
got=$(grep -v '^#' "$D$P/share/spank-mooncake/mooncake.conf" 2>/dev/null)
[ "$got" = "$want" ] && ok || ko "the plugstack snippet says '$got', not '$want'"
version=$(sed -n 's/^VERSION := //p' Makefile)
out=$("$D$P/bin/mooncake-recipe" --version 2>&1)
[[ $out == *"$version"* ]] && ok || ko "the installed tool's --version says '$out', not $version"
for m in man1/mooncake-recipe.1 man8/spank_mooncake.8; do
	th=$(grep -m1 '^\.TH ' "$D$P/share/man/$m")
	[[ $th == *"\"spank-mooncake $version\""* ]] && ok || ko "the installed $m says '$th', not spank-mooncake $version"
done
[ "$fails" = 0 ] && echo "PASS: make install ($P, $SP) puts exactly the tool, the plugin, the man pages and the plugstack snippet in place"
total=$((pass + fails))
echo "$((100 * pass / total))%: Checks: $total, Failures: $fails, Errors: 0"
[ "$fails" = 0 ]
