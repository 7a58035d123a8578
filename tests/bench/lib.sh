# shellcheck shell=bash
# lib.sh - what the cluster benches (srun_bench.sh, wave_bench.sh) share,
# sourced after `set -eu`: bench_start NAME brings the test cluster up (and
# down again at exit, when it was not up before), makes the work directory
# $W (removed at exit unless MCK_KEEP is set) and loads the cluster's
# environment; bench_recipe FILE writes the TRT-LLM example there, over tcp
# with 32 and 64 MiB segments.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLUSTER=$TOP/tests/cluster/cluster.sh

bench_start() {
	W=$(mktemp -d "${TMPDIR:-/tmp}/mck-$1.XXXXXX")
	chmod 755 "$W"
	was_up=$("$CLUSTER" status 2>/dev/null | grep -q 'slurmctld:[1-9]' && echo 1 || echo 0)
	"$CLUSTER" up >/dev/null 2>&1
	trap '[ "$was_up" = 1 ] || "$CLUSTER" down >/dev/null 2>&1; [ -n "${MCK_KEEP:-}" ] || rm -rf "$W"' EXIT
	eval "$("$CLUSTER" env)"
}

bench_recipe() {
	sed -e 's/protocol: rdma/protocol: tcp/' -e 's/global_segment_size: 8GiB /global_segment_size: 32MiB/' \
		-e 's/global_segment_size: 16GiB /global_segment_size: 64MiB/' \
		"$TOP/examples/trtllm-serve-disagg-mooncake.yaml" >"$1"
}
