#!/bin/bash
# bundle.sh - an OCI bundle that holds the Mooncake wheel, for Slurm's
# `srun --container=BUNDLE` on the test cluster (tests/cluster/test_container.sh).
#
#   bundle.sh rootfs               build the root file system once (cached):
#                                  a debootstrap of this machine's Debian suite
#                                  with python3.13 and the libraries the wheel
#                                  needs, the wheel in a venv at /opt/mooncake,
#                                  mooncake_master and python3 in /usr/local/bin
#   bundle.sh config DIR [MOUNT...]  DIR/config.json (from `crun spec`) over that
#                                  root file system: the node's network, hostname
#                                  and cgroups (no network, UTS or cgroup
#                                  namespace), writable root, each MOUNT (a host
#                                  directory) bind-mounted at its own path
#   bundle.sh path                 print the root file system's path
#
# Settings: MCK_BUNDLE_CACHE (/var/cache/spank-mooncake/bundle), MOONCAKE_WHEEL,
# MCK_DEBIAN_MIRROR, PIP_CERT (a CA bundle for pip, copied into the root).
# Downloads are retried; run as root.
set -euo pipefail
CACHE=${MCK_BUNDLE_CACHE:-/var/cache/spank-mooncake/bundle}
WHEEL=${MOONCAKE_WHEEL:-mooncake-transfer-engine-non-cuda==0.3.13.post1}
# this machine's suite (sid's os-release names testing's codename)
case $(cat /etc/debian_version 2>/dev/null) in
*/sid) SUITE=sid ;;
*) SUITE=$(. /etc/os-release && echo "${VERSION_CODENAME:-sid}") ;;
esac
ROOT=$CACHE/$SUITE/rootfs

log() { printf '[bundle %s] %s\n' "$(date +%T)" "$*" >&2; }
# retry N CMD...: a download, retried
. "$(dirname "$0")/../retry.sh"
# the Debian archive of this machine's apt (empty: debootstrap's default)
MIRROR=$(debian_mirror)

build_rootfs() {
	local curl=libcurl4t64 ca
	[ -f "$ROOT/.mck-ready" ] && return 0
	command -v debootstrap >/dev/null || { log "debootstrap is missing (tests/setup.sh installs it)"; return 1; }
	mkdir -p "$CACHE/$SUITE"
	apt-cache show libcurl4t64 >/dev/null 2>&1 || curl=libcurl4
	log "debootstrap $SUITE into $ROOT (python3.13, the wheel's libraries)"
	deboot() {
		rm -rf "$ROOT"
		debootstrap --variant=minbase \
			--include=ca-certificates,python3.13,python3.13-venv,libibverbs1,libnuma1,$curl \
			"$SUITE" "$ROOT" ${MIRROR:+"$MIRROR"} >"$CACHE/$SUITE/debootstrap.log" 2>&1
	}
	retry 3 deboot || { tail -5 "$CACHE/$SUITE/debootstrap.log" >&2; return 1; }
	cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
	ca=
	for f in "${PIP_CERT:-}" "${SSL_CERT_FILE:-}"; do
		[ -n "$f" ] && [ -s "$f" ] && { cp "$f" "$ROOT/etc/mck-ca.crt"; ca=/etc/mck-ca.crt; break; }
	done
	log "the wheel ($WHEEL) into $ROOT/opt/mooncake"
	# /proc for pip and for the loader ($ORIGIN in the wheel's binaries)
	mount -t proc proc "$ROOT/proc"
	trap 'umount "$ROOT/proc" 2>/dev/null || true' EXIT
	chroot "$ROOT" python3.13 -m venv /opt/mooncake
	retry 3 chroot "$ROOT" env ${ca:+PIP_CERT=$ca} PIP_DEFAULT_TIMEOUT=60 \
		/opt/mooncake/bin/pip install -q --disable-pip-version-check "$WHEEL" ||
		{ log "pip could not install $WHEEL in the bundle"; return 1; }
	rm -f "$ROOT/etc/mck-ca.crt"
	# on the job's PATH inside the bundle (/usr/local/bin): the master, and
	# the venv's python for the test's Mooncake client
	ln -sf /opt/mooncake/bin/mooncake_master "$ROOT/usr/local/bin/mooncake_master"
	printf '#!/bin/sh\nexec /opt/mooncake/bin/python3 "$@"\n' >"$ROOT/usr/local/bin/python3"
	chmod 755 "$ROOT/usr/local/bin/python3"
	chroot "$ROOT" /usr/local/bin/mooncake_master --version >/dev/null 2>&1 ||
		{ log "the bundle's mooncake_master does not run"; chroot "$ROOT" /usr/local/bin/mooncake_master --version; return 1; }
	chroot "$ROOT" /usr/local/bin/python3 -c 'import mooncake.store' ||
		{ log "the bundle's python cannot import mooncake.store"; return 1; }
	umount "$ROOT/proc"
	trap - EXIT
	touch "$ROOT/.mck-ready"
	log "ready: $ROOT ($(du -sh "$ROOT" | cut -f1))"
}

write_config() {
	local dir=$1
	shift
	[ -f "$ROOT/.mck-ready" ] || { log "no root file system at $ROOT: run $0 rootfs (tests/setup.sh does)"; return 1; }
	mkdir -p "$dir"
	(cd "$dir" && rm -f config.json && crun spec)
	python3 - "$dir/config.json" "$ROOT" "$@" <<'EOF'
import json, sys
path, root, mounts = sys.argv[1], sys.argv[2], sys.argv[3:]
c = json.load(open(path))
c["process"]["terminal"] = False
c["process"]["args"] = ["/bin/true"]
c["root"] = {"path": root, "readonly": False}
# the node's network (other nodes reach the master), hostname and cgroups
c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"]
                            if n["type"] not in ("network", "uts", "cgroup")]
c.pop("hostname", None)
c["mounts"] = [m for m in c["mounts"] if m["destination"] != "/sys/fs/cgroup"]
for m in mounts:
    c["mounts"].append({"destination": m, "type": "bind", "source": m,
                        "options": ["rbind", "rw"]})
json.dump(c, open(path, "w"), indent=1)
EOF
}

case "${1:-}" in
rootfs) build_rootfs ;;
config)
	[ $# -ge 2 ] || { echo "usage: $0 config DIR [MOUNT...]" >&2; exit 2; }
	shift
	write_config "$@"
	;;
path) echo "$ROOT" ;;
*)
	echo "usage: $0 rootfs | config DIR [MOUNT...] | path" >&2
	exit 2
	;;
esac
