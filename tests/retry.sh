# shellcheck shell=bash
# retry.sh - sourced by the scripts that download (tests/setup.sh,
# tests/matrix/run.sh, tests/cluster/bundle.sh): a flaky download must not
# fail a run.
#
# retry N CMD...: CMD until it succeeds, at most N times, 10 s, 20 s, ...
# apart; each failure but the last is said on stderr.
retry() {
	local n=$1 i
	shift
	for ((i = 1; i <= n; i++)); do
		"$@" && return 0
		[ "$i" -lt "$n" ] && {
			printf '[retry %s] failed (attempt %d of %d), again in %d s: %s\n' "$(date +%T)" "$i" "$n" $((i * 10)) "$*" >&2
			sleep $((i * 10))
		}
	done
	return 1
}

# debian_mirror: the Debian archive this machine's apt uses (the first
# URIs: of its deb822 sources, else the first deb line of sources.list,
# whose suites are not -security), or MCK_DEBIAN_MIRROR when set; empty
# when neither says (debootstrap then uses its own default). No host is
# named here: the machine's own sources decide.
debian_mirror() {
	local m="${MCK_DEBIAN_MIRROR:-}" f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -z "$m" ] && [ -f "$f" ] || continue
		m=$(awk 'BEGIN { RS = ""; FS = "\n" }
		     { uri = ""; suites = ""
		       for (i = 1; i <= NF; i++) {
			       if ($i ~ /^URIs:/) { uri = $i; sub(/^URIs:[ \t]*/, "", uri); sub(/[ \t].*/, "", uri) }
			       if ($i ~ /^Suites:/) suites = $i }
		       if (uri != "" && suites !~ /-security/) { print uri; exit } }' "$f")
	done
	if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
		m=$(awk '$1 == "deb" && $0 !~ /-security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' /etc/apt/sources.list)
	fi
	echo "$m"
}
