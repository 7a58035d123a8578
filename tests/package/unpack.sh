#!/bin/bash
# unpack.sh DEBDIR DEST - unpack the packages `make deb` built (DEBDIR, e.g.
# build/deb; debug-symbol packages skipped) into DEST with dpkg-deb -x, and
# print the path of the packaged plugin, for a test cluster to load:
#     MCK_PLUGIN=$(tests/package/unpack.sh build/deb /tmp/pkgroot)
# Only the path goes to stdout. Exit 1 when a package is missing, or when
# the installed Slurm is outside the release the plugin package depends on
# (Slurm would refuse to load the plugin).
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 DEBDIR DEST" >&2; exit 2; }
debdir=$1 dest=$2
shopt -s nullglob
debs=()
for d in "$debdir"/*.deb; do
	case $d in *-dbgsym_*) ;; *) debs+=("$d") ;; esac
done
plugin_deb=$(printf '%s\n' "${debs[@]}" | grep '/spank-mooncake_[^/]*\.deb$' || true)
[ "$(wc -w <<<"$plugin_deb")" = 1 ] ||
	{ echo "unpack.sh: want one spank-mooncake_*.deb in $debdir (make deb), found: ${plugin_deb:-none}" >&2; exit 1; }
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
for d in "${debs[@]}"; do
	dpkg-deb -x "$d" "$dest"
	echo "unpack.sh: $(basename "$d") -> $dest" >&2
done
plugin=$(dpkg-deb -c "$plugin_deb" | awk '{print $6}' | grep '/slurm-wlm/spank_mooncake\.so$' | sed 's|^\./||')
[ -n "$plugin" ] && [ -f "$dest/$plugin" ] || { echo "unpack.sh: no spank_mooncake.so in $plugin_deb" >&2; exit 1; }

# the Slurm here must be the release the package depends on
deps=$(dpkg-deb -f "$plugin_deb" Depends)
lo=$(sed -n 's/.*slurm-client (>= \([^)]*\)).*/\1/p' <<<"$deps")
hi=$(sed -n 's/.*slurm-client (<< \([^)]*\)).*/\1/p' <<<"$deps")
have=$(dpkg-query -W -f='${Version}' slurm-client 2>/dev/null || true)
if [ -z "$have" ]; then
	echo "unpack.sh: warning: slurm-client is not installed; the plugin needs Slurm $lo..$hi" >&2
elif ! dpkg --compare-versions "$have" ge "$lo" || ! dpkg --compare-versions "$have" lt "$hi"; then
	echo "unpack.sh: the packaged plugin is built for Slurm >= $lo, << $hi; slurm-client here is $have: Slurm would refuse to load it (make deb on this machine)" >&2
	exit 1
fi
echo "$dest/$plugin"
