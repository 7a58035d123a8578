#!/bin/sh
# netns-run.sh CMD...: run CMD in a network namespace of its own, with only
# lo up, so that the ports it binds or probes (8700-8702 among them) are its
# own: another mooncake_master or test run on the machine changes nothing.
# As root a plain new namespace; otherwise one inside a user namespace.
set -eu
if [ "$(id -u)" = 0 ]; then
	exec unshare --net -- sh -c 'ip link set lo up && exec "$@"' sh "$@"
fi
exec unshare --map-root-user --net -- sh -c 'ip link set lo up && exec "$@"' sh "$@"
