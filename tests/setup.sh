#!/bin/bash
# setup.sh - install what building and testing spank-mooncake needs on a
# Debian 12 machine, when it is missing (run as root; idempotent):
#   Debian: build tools, libyaml, jansson, Check, Slurm 22.05 (slurmctld,
#           slurmd, client, headers), munge, python3-venv/python3-yaml,
#           and the libraries the Mooncake wheel needs from the OS
#   PyPI:   mooncake-transfer-engine-non-cuda (pinned) in $MOONCAKE_VENV
#
#   tests/setup.sh coverage   only gcovr, for `make coverage`
set -euo pipefail
MOONCAKE_VENV=${MOONCAKE_VENV:-/opt/spank-mooncake/venv}
MOONCAKE_WHEEL=${MOONCAKE_WHEEL:-mooncake-transfer-engine-non-cuda==0.3.13.post1}

log() { printf '[setup %s] %s\n' "$(date +%T)" "$*" >&2; }

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
if [ "${1:-}" = coverage ]; then
	packages=(gcovr)
else
	packages=(gcc make pkg-config libc6-dev libyaml-dev libjansson-dev check libsubunit-dev
		slurmctld slurmd slurm-client libslurm-dev munge util-linux iproute2 procps
		python3 python3-venv python3-yaml libibverbs1 libnuma1 libcurl4 curl gcovr)
fi
for p in "${packages[@]}"; do
	have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || { log "missing Debian packages: ${need[*]} (run as root)"; exit 1; }
	log "installing: ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y --no-install-recommends "${need[@]}" >/tmp/spank-mooncake-apt.log 2>&1; then
		apt-get update >>/tmp/spank-mooncake-apt.log 2>&1 || true
		apt-get install -y --no-install-recommends "${need[@]}" >>/tmp/spank-mooncake-apt.log 2>&1 ||
			{ tail -20 /tmp/spank-mooncake-apt.log >&2; exit 1; }
	fi
fi
[ "${1:-}" = coverage ] && exit 0
if ! "$MOONCAKE_VENV/bin/python" -c 'import mooncake.store' 2>/dev/null ||
	[ ! -x "$MOONCAKE_VENV/bin/mooncake_master" ]; then
	log "installing $MOONCAKE_WHEEL into $MOONCAKE_VENV"
	/usr/bin/python3 -m venv "$MOONCAKE_VENV"
	"$MOONCAKE_VENV/bin/pip" install -q --disable-pip-version-check "$MOONCAKE_WHEEL"
fi
"$MOONCAKE_VENV/bin/mooncake_master" --version >/dev/null 2>&1 ||
	{ log "the wheel's mooncake_master does not run:"; "$MOONCAKE_VENV/bin/mooncake_master" --version; exit 1; }
log "ready: $("$MOONCAKE_VENV/bin/mooncake_master" --version 2>&1 | head -1)"
