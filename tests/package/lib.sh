# shellcheck shell=bash
# lib.sh - sourced by build.sh (the .debs) and rpm.sh (the RPMs): their
# PASS/FAIL lines and summary, and the check both make of the packages
# they built.

pass=0 fails=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fails=$((fails + 1)); }
summary() {
	local total=$((pass + fails))
	echo "$((total ? 100 * pass / total : 0))%: Checks: $total, Failures: $fails, Errors: 0"
}

# plugin_loads PKGDIR TMP SRC: the packaged plugin of PKGDIR, unpacked as the
# cluster test will (unpack.sh, into TMP/root), loads after this machine's
# libslurmfull like Slurm loads it (SRC's tests/artifact/dlopen_plugin.c,
# built in TMP)
plugin_loads() {
	local pkgdir=$1 tmp=$2 src=$3 libdir libslurmfull plugin loaded
	libdir=$(make -s -C "$src" slurm-plugindir 2>/dev/null)
	libslurmfull=${libdir:+$libdir/libslurmfull.so}
	if [ -n "$libslurmfull" ] && plugin=$("$src/tests/package/unpack.sh" "$pkgdir" "$tmp/root" 2>"$tmp/unpack.log"); then
		if cc -o "$tmp/dlopen_plugin" "$src/tests/artifact/dlopen_plugin.c" -ldl 2>"$tmp/cc.log" &&
			loaded=$("$tmp/dlopen_plugin" "$plugin" "$libslurmfull" 2>&1); then
			ok "unpack.sh + dlopen of the packaged plugin after $libslurmfull: $loaded"
		else
			ko "the packaged plugin does not load: $loaded $(cat "$tmp/cc.log")"
		fi
	elif [ -n "$libslurmfull" ]; then
		ko "unpack.sh: $(cat "$tmp/unpack.log")"
	else
		echo "note: no libslurmfull.so here (Slurm's plugins): the packaged plugin was not loaded"
	fi
}
