#!/bin/bash
# run.sh [TEST...] - integration tests on a real Slurm cluster of network
# hosts on this machine (tests/cluster/cluster.sh): brings the cluster up,
# runs each test_*.sh (or the ones named) on its login host, stops the
# cluster by PID, prints Check's summary line.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
export MCK_RESULTS
MCK_RESULTS=$(mktemp "${TMPDIR:-/tmp}/mck-results.XXXXXX")
errors=0
trap '"$HERE/cluster.sh" down >/dev/null 2>&1; rm -f "$MCK_RESULTS"' EXIT
"$HERE/cluster.sh" up || {
	echo "0%: Checks: 1, Failures: 0, Errors: 1 (the test cluster did not start)"
	exit 1
}
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=("$HERE"/test_*.sh)
for t in "${tests[@]}"; do
	[ -f "$t" ] || t=$HERE/$t
	echo "== $(basename "$t")"
	before=$(grep -c '^F' "$MCK_RESULTS")
	timeout 600 bash "$t"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(grep -c '^F' "$MCK_RESULTS")" = "$before" ]; then
		echo "ERROR: $(basename "$t") exited with $rc"
		errors=$((errors + 1))
	fi
done
total=$(($(wc -l <"$MCK_RESULTS") + errors))
fails=$(grep -c '^F' "$MCK_RESULTS")
passed=$((total - fails - errors))
[ "$total" -gt 0 ] || total=1
echo "$((100 * passed / total))%: Checks: $total, Failures: $fails, Errors: $errors"
[ "$fails" = 0 ] && [ "$errors" = 0 ]
