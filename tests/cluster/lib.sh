# shellcheck shell=bash disable=SC2034
# lib.sh - helpers for the integration tests (sourced by run.sh and each
# test_*.sh). Each check prints one line and counts; run.sh prints the
# summary in Check's format.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MOONCAKE_VENV=${MOONCAKE_VENV:-/opt/spank-mooncake/venv}
CLUSTER=$TOP/tests/cluster/cluster.sh
CLIENT=$TOP/tests/cluster/mc_client.py
eval "$("$CLUSTER" env)"
# the tasks find the wheel's mooncake_master and its Python on the job's PATH
export PATH=$MOONCAKE_VENV/bin:$PATH
MCK_RESULTS=${MCK_RESULTS:-/dev/null}

_record() { echo "$1 $2" >>"$MCK_RESULTS"; }
MCK_FAILED=0
pass() { echo "PASS: $*"; _record P "$*"; }
fail() { echo "FAIL: $*"; _record F "$*"; MCK_FAILED=1; }
# check DESCRIPTION COMMAND...: pass when the command succeeds
check() { local d=$1; shift; if "$@"; then pass "$d"; else fail "$d"; fi; }

MCK_TEST=$(basename "$0" .sh)
MCK_TEST=${MCK_TEST#test_}
# a fresh work directory (the job's submit directory) per test; removed when
# the test script ends without a failure (kept, and named, otherwise, or
# always with MCK_KEEP=1)
workdir() {
	local w
	w=$(mktemp -d "/tmp/mck-$MCK_TEST.XXXXXX")
	chmod 755 "$w"
	echo "$w"
}
_cleanup_workdirs() {
	local w
	for w in /tmp/mck-"$MCK_TEST".*; do
		[ -d "$w" ] || continue
		if [ "$MCK_FAILED" = 0 ] && [ -z "${MCK_KEEP:-}" ]; then
			rm -rf "$w"
		else
			echo "(kept $w)"
		fi
	done
}
trap _cleanup_workdirs EXIT

# wait_job JOBID [SECONDS]: until the job has left the queue
wait_job() {
	local i
	for i in $(seq $((${2:-180} * 5))); do
		[ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	echo "job $1 still in the queue after ${2:-180} s; cancelling" >&2
	scancel "$1" 2>/dev/null
	return 1
}

# masters_left: mooncake_master processes still running (none expected
# between tests); waits up to 20 s for Slurm to finish killing steps
masters_left() {
	local i
	for i in $(seq 100); do
		pgrep -x mooncake_master >/dev/null || { echo 0; return; }
		sleep 0.2
	done
	pgrep -x mooncake_master | wc -l
}

# test_recipe OUT: the PR's trtllm-serve example with protocol tcp and
# segment sizes that fit a test machine (8GiB -> 32MiB, 16GiB -> 64MiB)
trtllm_test_recipe() {
	sed -e 's/protocol: rdma/protocol: tcp/' -e 's/global_segment_size: 8GiB /global_segment_size: 32MiB/' \
		-e 's/global_segment_size: 16GiB /global_segment_size: 64MiB/' \
		"$TOP/examples/trtllm-serve-disagg-mooncake.yaml" >"$1"
	# local_buffer_size (1 GiB by default in TRT-LLM) is too large here too
	awk '{print} /stage_through_host: true/ && !done {print "        local_buffer_size: 16MiB"; done=1}' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}
