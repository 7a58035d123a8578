#!/bin/bash
# unpack.sh PKGDIR DEST - unpack the packages `make deb` or `make rpm` built
# (PKGDIR, e.g. build/deb or build/rpm; debug-symbol and source packages
# skipped) into DEST, with dpkg-deb -x or rpm2cpio and cpio, and print the
# path of the packaged plugin, for a test cluster to load:
#     MCK_PLUGIN=$(tests/package/unpack.sh build/deb /tmp/pkgroot)
# Only the path goes to stdout. Exit 1 when a package is missing, or when
# the installed Slurm is outside the release the plugin package depends on
# (Slurm would refuse to load the plugin).
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 PKGDIR DEST" >&2; exit 2; }
pkgdir=$1 dest=$2
shopt -s nullglob
pkgs=()
for d in "$pkgdir"/*.deb "$pkgdir"/*.rpm; do
	case $d in *-dbgsym_*.deb | *.src.rpm | */*-debuginfo-*.rpm | */*-debugsource-*.rpm) ;; *) pkgs+=("$d") ;; esac
done
plugin_pkg=$(printf '%s\n' "${pkgs[@]}" | grep -E '/spank-mooncake(_[^/]*\.deb|-[0-9][^/]*\.rpm)$' || true)
[ "$(wc -w <<<"$plugin_pkg")" = 1 ] ||
	{ echo "unpack.sh: want one spank-mooncake_*.deb (make deb) or spank-mooncake-*.rpm (make rpm) in $pkgdir, found: ${plugin_pkg:-none}" >&2; exit 1; }
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
for d in "${pkgs[@]}"; do
	case $d in
	*.deb) dpkg-deb -x "$d" "$dest" ;;
	*.rpm) rpm2cpio "$d" | (cd "$dest" && cpio -idm --quiet) ;;
	esac
	echo "unpack.sh: $(basename "$d") -> $dest" >&2
done
case $plugin_pkg in
*.deb) plugin=$(dpkg-deb -c "$plugin_pkg" | awk '{print $6}' | grep '/slurm-wlm/spank_mooncake\.so$' | sed 's|^\./||') ;;
*.rpm) plugin=$(rpm -qlp "$plugin_pkg" | grep '/spank_mooncake\.so$' | sed 's|^/||') ;;
esac
[ -n "$plugin" ] && [ -f "$dest/$plugin" ] || { echo "unpack.sh: no spank_mooncake.so in $plugin_pkg" >&2; exit 1; }

# the Slurm here must be the release the package depends on
case $plugin_pkg in
*.deb)
	deps=$(dpkg-deb -f "$plugin_pkg" Depends)
	lo=$(sed -n 's/.*slurm-client (>= \([^)]*\)).*/\1/p' <<<"$deps")
	hi=$(sed -n 's/.*slurm-client (<< \([^)]*\)).*/\1/p' <<<"$deps")
	have=$(dpkg-query -W -f='${Version}' slurm-client 2>/dev/null || true)
	within() { dpkg --compare-versions "$have" ge "$lo" && dpkg --compare-versions "$have" lt "$hi"; }
	;;
*.rpm)
	deps=$(rpm -qp --requires "$plugin_pkg")
	lo=$(sed -n 's/^slurm >= //p' <<<"$deps")
	hi=$(sed -n 's/^slurm < //p' <<<"$deps")
	# Slurm's RPM (slurm), else Debian's package (slurm-client)
	if rpm -q slurm >/dev/null 2>&1; then
		have=$(rpm -q --qf '%{VERSION}' slurm)
	else
		have=$(dpkg-query -W -f='${Version}' slurm-client 2>/dev/null || true)
	fi
	first() { printf '%s\n' "$@" | sort -V | head -1; }
	within() { [ -n "$lo" ] && [ -n "$hi" ] && [ "$(first "$have" "$lo")" = "$lo" ] &&
		[ "$(first "$have" "$hi")" = "$have" ] && [ "$have" != "$hi" ]; }
	;;
esac
if [ -z "$have" ]; then
	echo "unpack.sh: warning: Slurm is not installed; the plugin needs Slurm $lo..$hi" >&2
elif ! within; then
	echo "unpack.sh: the packaged plugin is built for Slurm >= $lo, < $hi; the Slurm here is $have: Slurm would refuse to load it (build the packages on this machine)" >&2
	exit 1
fi
echo "$dest/$plugin"
