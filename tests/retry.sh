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
