#!/bin/sh
# netns-run.sh CMD...: run CMD in a network namespace of its own, with only
# lo up, so that the ports it binds or probes (8700-8702 among them) are its
# own: another mooncake_master or test run on the machine changes nothing.
# As root a plain new namespace; otherwise one inside a user namespace.
# Where neither can be made (a build chroot without user namespaces), CMD
# runs here, with a note.
set -eu
if [ "$(id -u)" = 0 ]; then userns=""; else userns="--map-root-user"; fi
# shellcheck disable=SC2086
if unshare $userns --net true 2>/dev/null; then
	exec unshare $userns --net -- sh -c 'ip link set lo up && exec "$@"' sh "$@"
fi
echo "netns-run.sh: cannot make a network namespace here; running $1 in this one" >&2
exec "$@"
