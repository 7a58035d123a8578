#!/bin/bash
# setup.sh - install what building and testing spank-mooncake needs, when it
# is missing (run as root; idempotent), on Debian 12 (bookworm, Slurm 22.05),
# 13 (trixie, Slurm 24.11) and sid (Slurm 26.05):
#   Debian: build tools, libyaml, jansson, Check, Slurm (slurmctld, slurmd,
#           client, headers), munge, iproute2 and util-linux (the test
#           cluster's network hosts), debootstrap (make check-matrix),
#           python3-yaml, a Python the wheel supports (3.10-3.13) with venv,
#           the libraries the Mooncake wheel needs from the OS, and what
#           `make deb` needs (git, build-essential, dpkg-dev, debhelper,
#           fakeroot, lintian), gcovr (`make coverage`), clang and its
#           sanitizer and libFuzzer runtime (`make fuzz`), etcd-server (an
#           HA pool's etcd, tests/cluster/test_ha.sh; its package may start
#           a system etcd on 127.0.0.1:2379, which the test cluster's
#           hosts, network namespaces of their own, never see)
#   PyPI:   mooncake-transfer-engine-non-cuda (pinned) in $MOONCAKE_VENV, with
#           regex and PyYAML (the engines' readers, tests/contract/)
#   with Slurm 23.02 or later (Slurm's OCI containers, as the test cluster
#   configures them): crun, and the root file system of the test's OCI
#   bundle (tests/cluster/bundle.sh: a debootstrap with the wheel, cached in
#   /var/cache/spank-mooncake/bundle)
# Downloads are retried; a failed one fails setup with the tool's last lines.
#
#   tests/setup.sh coverage   only gcovr, for `make coverage`
#   tests/setup.sh build      only what make all, check-unit and check-plugin
#                             need (the Debian 11 chroot of make check-oldest:
#                             no Slurm daemons, no wheel)
#   tests/setup.sh rpm        only rpm (rpmbuild), rpm2cpio and rpmlint, for
#                             `make rpm`
set -euo pipefail
MOONCAKE_VENV=${MOONCAKE_VENV:-/opt/spank-mooncake/venv}
MOONCAKE_WHEEL=${MOONCAKE_WHEEL:-mooncake-transfer-engine-non-cuda==0.3.13.post1}
APT_LOG=${TMPDIR:-/tmp}/spank-mooncake-apt.log

log() { printf '[setup %s] %s\n' "$(date +%T)" "$*" >&2; }

# retry N CMD...: a download, retried
. "$(dirname "$0")/retry.sh"

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# known PKG: the archive has PKG (names differ between releases)
known() { apt-cache show "$1" >/dev/null 2>&1; }
# the wheel has cp310-cp313 builds: python3 when it is one of those, else
# Debian's python3.13 (sid's python3 is 3.14)
wheel_python() {
	case $(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) in
	3.10 | 3.11 | 3.12 | 3.13) echo python3 ;;
	*) echo python3.13 ;;
	esac
}
apt_update() { apt-get -o Acquire::Check-Valid-Until=false update >>"$APT_LOG" 2>&1; }
apt_install() { apt-get install -y --no-install-recommends "$@" >>"$APT_LOG" 2>&1; }

[ "$(id -u)" = 0 ] || { log "run as root (it installs Debian packages)"; exit 1; }
export DEBIAN_FRONTEND=noninteractive
: >"$APT_LOG"
known libslurm-dev || retry 3 apt_update || { tail -20 "$APT_LOG" >&2; exit 1; }
command -v python3 >/dev/null || retry 3 apt_install python3 || { tail -20 "$APT_LOG" >&2; exit 1; }
py=$(wheel_python)
curl_pkg=libcurl4
known libcurl4t64 && curl_pkg=libcurl4t64
# install_missing PKG...: those of PKG not installed yet
install_missing() {
	local p need=()
	for p in "$@"; do have_pkg "$p" || need+=("$p"); done
	[ ${#need[@]} -gt 0 ] || return 0
	log "installing: ${need[*]}"
	# a stale package list is refreshed once before the retries
	if ! apt_install "${need[@]}"; then
		retry 3 apt_update || true
		retry 3 apt_install "${need[@]}" || { tail -20 "$APT_LOG" >&2; exit 1; }
	fi
}
# building and the fast tests: the library, the tool, the plugin (Slurm's
# headers), the unit and plugin suites (Check; PyYAML for the typing corpus;
# unshare and ip for their namespaces; srun, which two plugin tests start
# as the master step's and which fails there)
build=(gcc make pkg-config libc6-dev binutils libyaml-dev libjansson-dev check libsubunit-dev
	libslurm-dev slurm-client python3 python3-yaml util-linux iproute2 procps)
case ${1:-} in
coverage) install_missing gcovr; exit 0 ;;
build)
	install_missing "${build[@]}"
	log "ready to build: $(gcc --version | head -1), $(ldd --version | head -1), Slurm headers of libslurm-dev $(dpkg-query -W -f='${Version}' libslurm-dev)"
	exit 0
	;;
rpm) install_missing rpm rpm2cpio cpio rpmlint; log "ready: $(rpmbuild --version), $(rpmlint --version 2>&1 | head -1)"; exit 0 ;;
esac
install_missing "${build[@]}" slurmctld slurmd slurm-client munge \
	debootstrap "$py" "$py-venv" libibverbs1 libnuma1 "$curl_pkg" curl \
	git build-essential dpkg-dev debhelper fakeroot lintian gcovr clang clang-format libclang-rt-dev etcd-server
if ! "$MOONCAKE_VENV/bin/python" -c 'import mooncake.store' 2>/dev/null ||
	[ ! -x "$MOONCAKE_VENV/bin/mooncake_master" ]; then
	log "installing $MOONCAKE_WHEEL into $MOONCAKE_VENV ($py)"
	"/usr/bin/$py" -m venv "$MOONCAKE_VENV"
	retry 3 "$MOONCAKE_VENV/bin/pip" install -q --disable-pip-version-check "$MOONCAKE_WHEEL" ||
		{ log "pip could not install $MOONCAKE_WHEEL"; exit 1; }
fi
# what the engines' own readers import (tests/contract/engines.py): vLLM's
# config module uses regex, the contract test reads its cases with PyYAML
if ! "$MOONCAKE_VENV/bin/python" -c 'import regex, yaml' 2>/dev/null; then
	log "installing regex and PyYAML into $MOONCAKE_VENV (the engines' readers)"
	retry 3 "$MOONCAKE_VENV/bin/pip" install -q --disable-pip-version-check regex PyYAML ||
		{ log "pip could not install regex and PyYAML"; exit 1; }
fi
"$MOONCAKE_VENV/bin/mooncake_master" --version >/dev/null 2>&1 || {
	log "the wheel's mooncake_master does not run:"
	"$MOONCAKE_VENV/bin/mooncake_master" --version
	exit 1
}
# Slurm's OCI containers (srun --container, tests/cluster/test_container.sh)
slurm_major=$(slurmd -V | awk '{split($2, v, "."); print v[1] + 0}')
if [ "$slurm_major" -ge 23 ]; then
	if ! have_pkg crun; then
		log "installing crun (Slurm $slurm_major: OCI containers)"
		retry 3 apt_install crun || { tail -20 "$APT_LOG" >&2; exit 1; }
	fi
	"$(dirname "$0")/cluster/bundle.sh" rootfs || { log "the test's OCI bundle could not be built"; exit 1; }
fi
log "ready: $(slurmd -V), $("$MOONCAKE_VENV/bin/python" --version), $("$MOONCAKE_VENV/bin/mooncake_master" --version 2>&1 | head -1), $(etcd --version | head -1)"
