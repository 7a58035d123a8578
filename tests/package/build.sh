#!/bin/bash
# build.sh [OUTDIR] - the Debian packages of the committed HEAD, built the way
# an admin or a build host would: `git clone` of this tree into a temporary
# directory under ${TMPDIR:-/tmp} (never the source tree itself),
# `dpkg-buildpackage -us -uc -b` there, lintian on the result. The .debs,
# .changes and .buildinfo go to OUTDIR (default build/deb), replacing the
# previous ones. Exit 1 when the build fails, a package is missing, or lintian
# reports an error. MCK_KEEP=1 keeps the temporary directory.
set -uo pipefail
top=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel) || exit 2
out=${1:-$top/build/deb}
case $out in /*) ;; *) out=$PWD/$out ;; esac
# ok, ko, summary, plugin_loads
. "$top/tests/package/lib.sh"

for t in git dpkg-buildpackage dpkg-checkbuilddeps lintian fakeroot dh; do
	command -v "$t" >/dev/null || { ko "$t is not installed (tests/setup.sh installs it)"; summary; exit 1; }
done
sha=$(git -C "$top" rev-parse HEAD)
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
	echo "note: uncommitted changes in $top are not in the packages (they are built from HEAD, $(git -C "$top" log -1 --format='%h %s' | cut -c1-72))"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mck-deb.XXXXXX") || exit 2
[ "${MCK_KEEP:-0}" = 1 ] && echo "keeping $tmp" || trap 'rm -rf "$tmp"' EXIT
src=$tmp/spank-mooncake
git clone -q "$top" "$src" >"$tmp/clone.log" 2>&1 && git -C "$src" checkout -q --detach "$sha" >>"$tmp/clone.log" 2>&1 ||
	{ ko "git clone $top $src: $(tr '\n' ' ' <"$tmp/clone.log")(free: $(df -h --output=avail "$tmp" | tail -1 | tr -d ' '))"; summary; exit 1; }

(cd "$src" && dpkg-checkbuilddeps) >"$tmp/checkbuilddeps.log" 2>&1 ||
	{ ko "build dependencies missing: $(sed 's/^dpkg-checkbuilddeps: error: //' "$tmp/checkbuilddeps.log") (tests/setup.sh installs them)"; summary; exit 1; }
t0=$(date +%s)
if (cd "$src" && dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b of $(git -C "$src" log -1 --format=%h) in $(($(date +%s) - t0)) s"
else
	ko "dpkg-buildpackage -us -uc -b failed; last lines of its log:"
	tail -25 "$tmp/build.log" | sed 's/^/    /'
	summary
	exit 1
fi
changes=$(ls "$tmp"/*.changes)
mkdir -p "$out" && rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
cp "$tmp"/*.deb "$tmp"/*.changes "$tmp"/*.buildinfo "$out"/

# the packages and what they hold
arch=$(dpkg-architecture -qDEB_HOST_ARCH) multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
version=$(cd "$src" && dpkg-parsechangelog -SVersion)
declare -A want=(
	[spank-mooncake]="usr/lib/$multiarch/slurm-wlm/spank_mooncake.so usr/share/spank-mooncake/mooncake.conf usr/share/man/man8/spank_mooncake.8.gz"
	[mooncake-recipe]="usr/bin/mooncake-recipe usr/share/man/man1/mooncake-recipe.1.gz"
)
for p in spank-mooncake mooncake-recipe; do
	deb=$out/${p}_${version}_$arch.deb
	if [ ! -f "$deb" ]; then ko "no $(basename "$deb")"; continue; fi
	files=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./||')
	missing=""
	for f in ${want[$p]}; do grep -qxF "$f" <<<"$files" || missing="$missing $f"; done
	[ -z "$missing" ] && ok "$(basename "$deb") ($(du -k "$deb" | cut -f1) KiB): ${want[$p]}" ||
		ko "$(basename "$deb") lacks$missing"
	echo "      Depends: $(dpkg-deb -f "$deb" Depends)"
done
# the two packages and nothing else: no library package (the recipe
# library is inside the plugin and the tool, doc/libmooncake_recipe.md)
built=$(cd "$out" && ls *.deb | grep -v -- '-dbgsym_' | sed 's/_.*//' | sort | xargs)
[ "$built" = "mooncake-recipe spank-mooncake" ] && ok "the packages are spank-mooncake and mooncake-recipe, no library package" ||
	ko "the packages built are '$built', not spank-mooncake and mooncake-recipe"
# nothing in the plugin package enables the plugin behind the admin's back
if dpkg-deb -c "$out/spank-mooncake_${version}_$arch.deb" 2>/dev/null | grep -q '\./etc/slurm/'; then
	ko "spank-mooncake ships a file under /etc/slurm (that would enable the plugin on install)"
else
	ok "spank-mooncake ships nothing under /etc/slurm: enabling it is the admin's link"
fi
slurm_dep=$("$src/debian/slurm-depends")
dpkg-deb -f "$out/spank-mooncake_${version}_$arch.deb" Depends 2>/dev/null | grep -qF "$slurm_dep" &&
	ok "spank-mooncake depends on the Slurm release of the headers: $slurm_dep" ||
	ko "spank-mooncake does not depend on '$slurm_dep'"

# the packaged plugin, unpacked as the cluster test will, loads after this
# machine's libslurmfull
plugin_loads "$out" "$tmp" "$src"

# lintian: errors fail, warnings and the rest are shown
lintian --display-info --display-experimental --pedantic --show-overrides --tag-display-limit 0 "$changes" >"$tmp/lintian.log" 2>&1
grep -v '^running with root privileges' "$tmp/lintian.log" | sed 's/^/    lintian: /'
e=$(grep -c '^E: ' "$tmp/lintian.log") w=$(grep -c '^W: ' "$tmp/lintian.log")
i=$(grep -c '^[IPX]: ' "$tmp/lintian.log") o=$(grep -c '^O: ' "$tmp/lintian.log")
[ "$e" = 0 ] && ok "lintian $(lintian --print-version): $e errors, $w warnings, $i info/pedantic/experimental, $o overridden" ||
	ko "lintian: $e errors, $w warnings, $i info/pedantic/experimental, $o overridden"
echo "packages in $out"
summary
[ "$fails" = 0 ]
