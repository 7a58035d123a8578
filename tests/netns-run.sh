#!/bin/sh
# netns-run.sh CMD...: run CMD in network and PID namespaces of its own, with
# only lo up: the ports it binds or probes (8700-8702 among them) are its
# own, so another mooncake_master or test run on the machine changes
# nothing; and every process it starts (fake masters, fake sruns) ends with
# it, even when a test fails half way; root's ports registry is a tmpfs of
# its own, so no reservation of a test outlives it. As root plain new
# namespaces; otherwise inside a user namespace. Where none can be made (a build chroot
# without user namespaces), CMD runs here, with a note.
set -eu
if [ "$(id -u)" = 0 ]; then userns=""; else userns="--map-root-user"; fi
ns="--net --pid --fork --mount --mount-proc"
# shellcheck disable=SC2086
if unshare $userns $ns true 2>/dev/null; then
	# root's ports registry (/run/spank-mooncake, spank/steps/ports.c) is a
	# tmpfs of this mount namespace: nothing the tests reserve stays behind
	exec unshare $userns $ns -- sh -c '
		ip link set lo up || exit
		{ mkdir -p /run/spank-mooncake && mount -t tmpfs -o mode=0700 tmpfs /run/spank-mooncake; } 2>/dev/null
		exec "$@"' sh "$@"
fi
echo "netns-run.sh: cannot make network and PID namespaces here; running $1 in these" >&2
exec "$@"
