#!/bin/bash
# rpm.sh TARBALL [OUTDIR] - the RPMs of a release tarball (make dist), built
# the way a Slurm site builds them: `rpmbuild -ta TARBALL` with a _topdir of
# its own under ${TMPDIR:-/tmp}, against the Slurm headers installed here;
# with --nodeps where rpm is not the system's package manager (Debian: its
# Slurm is no RPM). Then what each package holds, what the plugin requires,
# the plugin unpacked and loaded after this machine's libslurmfull, and
# rpmlint. The RPMs go to OUTDIR (default build/rpm), replacing the previous
# ones. Exit 1 when the build fails, a package is missing or wrong, or
# rpmlint reports an error. MCK_KEEP=1 keeps the temporary directory.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 TARBALL [OUTDIR]" >&2; exit 2; }
tarball=$1 out=${2:-$top/build/rpm}
case $out in /*) ;; *) out=$PWD/$out ;; esac
# ok, ko, summary, plugin_loads
. "$top/tests/package/lib.sh"

for t in rpmbuild rpm rpm2cpio cpio rpmlint; do
	command -v "$t" >/dev/null || { ko "$t is not installed (tests/setup.sh rpm installs it)"; summary; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mck-rpm.XXXXXX") || exit 2
[ "${MCK_KEEP:-0}" = 1 ] && echo "keeping $tmp" || trap 'rm -rf "$tmp"' EXIT
# the tree the RPMs are built from, for the checks' own use
mkdir -p "$tmp/src" && tar -xzf "$tarball" -C "$tmp/src" --strip-components=1 ||
	{ ko "cannot unpack $tarball"; summary; exit 1; }
src=$tmp/src

nodeps=
rpm -q rpm >/dev/null 2>&1 || nodeps=--nodeps
t0=$(date +%s)
if rpmbuild -ta $nodeps --define "_topdir $tmp/rpmbuild" "$tarball" >"$tmp/build.log" 2>&1; then
	ok "rpmbuild -ta ${nodeps:+$nodeps }$(basename "$tarball") in $(($(date +%s) - t0)) s ($(rpmbuild --version))"
else
	ko "rpmbuild -ta ${nodeps:+$nodeps }$(basename "$tarball") failed; last lines of its log:"
	tail -25 "$tmp/build.log" | sed 's/^/    /'
	summary
	exit 1
fi
mkdir -p "$out" && rm -f "$out"/*.rpm
cp "$tmp"/rpmbuild/RPMS/*/*.rpm "$tmp"/rpmbuild/SRPMS/*.src.rpm "$out"/

# the packages and what they hold
version=$(sed -n 's/^Version:[[:space:]]*//p' "$src/spank-mooncake.spec")
plugindir=$(make -s -C "$src" slurm-plugindir)
# (man pages compressed as the system's rpm does it, or not: Debian's does not)
declare -A want=(
	[spank-mooncake]="$plugindir/spank_mooncake.so /usr/share/spank-mooncake/mooncake.conf /usr/share/man/man8/spank_mooncake.8"
	[mooncake-recipe]="/usr/bin/mooncake-recipe /usr/share/man/man1/mooncake-recipe.1"
)
# binary_rpm NAME: the binary package NAME in OUTDIR
binary_rpm() {
	local f
	for f in "$out/$1-$version"-*.rpm; do
		case $f in *.src.rpm) ;; *) [ -f "$f" ] && echo "$f" && return ;; esac
	done
}
for p in spank-mooncake mooncake-recipe; do
	f=$(binary_rpm "$p")
	if [ -z "$f" ]; then ko "no $p-$version-*.rpm"; continue; fi
	files=$(rpm -qlp "$f")
	missing=""
	for w in ${want[$p]}; do
		grep -qxE "$(sed 's/[.]/[.]/g' <<<"$w")([.](gz|bz2|xz|zst))?" <<<"$files" || missing="$missing $w"
	done
	[ -z "$missing" ] && ok "$(basename "$f") ($(du -k "$f" | cut -f1) KiB): ${want[$p]}" ||
		ko "$(basename "$f") lacks$missing (it holds: $(echo $files))"
	echo "      Requires: $(rpm -qp --requires "$f" | grep -v '^rpmlib(' | sort -u | paste -sd, | sed 's/,/, /g')"
done
# the two packages and nothing else: no library package (the recipe
# library is inside the plugin and the tool, doc/libmooncake_recipe.md)
built=$(for f in "$out"/*.rpm; do
	case $f in *.src.rpm | *-debuginfo-* | *-debugsource-*) ;; *) rpm -qp --qf '%{NAME}\n' "$f" ;; esac
done | sort | xargs)
[ "$built" = "mooncake-recipe spank-mooncake" ] && ok "the packages are spank-mooncake and mooncake-recipe, no library package" ||
	ko "the packages built are '$built', not spank-mooncake and mooncake-recipe"
plugin_rpm=$(binary_rpm spank-mooncake)
# an upgrade from 0.5 removes the library packages of then
obsoletes=$(rpm -qp --obsoletes "$plugin_rpm" | sort | xargs)
[ "$obsoletes" = "libmooncake-recipe-devel < 0.6.0 libmooncake-recipe0 < 0.6.0" ] &&
	ok "spank-mooncake obsoletes the library packages of 0.5 and before: $obsoletes" ||
	ko "spank-mooncake obsoletes '$obsoletes', not libmooncake-recipe0 < 0.6.0 and libmooncake-recipe-devel < 0.6.0"
# nothing in the plugin package enables the plugin behind the admin's back
if rpm -qlp "$plugin_rpm" 2>/dev/null | grep -q '^/etc/slurm/'; then
	ko "spank-mooncake ships a file under /etc/slurm (that would enable the plugin on install)"
else
	ok "spank-mooncake ships nothing under /etc/slurm: enabling it is the admin's"
fi
# the snippet names the plugin where the package puts it
snippet=$(rpm2cpio "$plugin_rpm" | cpio -i --to-stdout --quiet ./usr/share/spank-mooncake/mooncake.conf | grep -v '^#')
[ "$snippet" = "required $plugindir/spank_mooncake.so" ] && ok "the plugstack snippet says: $snippet" ||
	ko "the plugstack snippet says '$snippet', not 'required $plugindir/spank_mooncake.so'"
# it requires the Slurm release of the headers, the one the .deb depends
# on (debian/slurm-depends: slurm-client (>= YY.MM~), (<< YY.MM+1~))
deb_dep=$("$src/debian/slurm-depends")
lo=$(sed -n 's/^slurm-client (>= \([0-9.]*\)~).*/\1/p' <<<"$deb_dep")
hi=$(sed -n 's/^slurm-client (>= [^)]*), slurm-client (<< \([0-9.]*\)~).*/\1/p' <<<"$deb_dep")
requires=$(rpm -qp --requires "$plugin_rpm")
grep -qxF "slurm >= $lo" <<<"$requires" && grep -qxF "slurm < $hi" <<<"$requires" &&
	ok "spank-mooncake requires the Slurm release of the headers: slurm >= $lo, slurm < $hi" ||
	ko "spank-mooncake does not require 'slurm >= $lo' and 'slurm < $hi' (the headers' release): $(echo $requires)"

# the packaged plugin, unpacked as the cluster test will, loads after this
# machine's libslurmfull
plugin_loads "$out" "$tmp" "$src"

# rpmlint on the binary and source RPMs, with the spec's rpmlintrc (what of
# rpmlint's defaults does not apply): errors fail, the rest is shown
rpmlint -r "$src/spank-mooncake.rpmlintrc" "$out"/*.rpm >"$tmp/rpmlint.log" 2>&1
sed 's/^/    rpmlint: /' "$tmp/rpmlint.log"
e=$(grep -c ': E: ' "$tmp/rpmlint.log") w=$(grep -c ': W: ' "$tmp/rpmlint.log")
[ "$e" = 0 ] && ok "rpmlint $(rpmlint --version 2>&1 | head -1): $e errors, $w warnings" ||
	ko "rpmlint: $e errors, $w warnings"
echo "packages in $out"
summary
[ "$fails" = 0 ]
