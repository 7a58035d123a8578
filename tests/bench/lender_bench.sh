#!/bin/bash
# lender_bench.sh [ROUNDS [WAVES]] - what memory lenders cost a job's first
# wave (make bench), side by side in one allocation, ROUNDS times (3) in
# turn, medians and ratio (goal: at most 1.10x):
#   - the first wave of N role sruns started together (for each N of
#     WAVES, "32 128"), over the four nodes, with a mooncake-store on each
#     of their nodes (placement: workers: the first srun on a node starts
#     its store and its tasks wait for it), against
#   - the same wave without lenders (the same recipe, its store disabled).
# Each wave's pool has a directory (output.log_dir) and master of its own.
# Run as root (it brings the test cluster up, and down if it did).
set -eu
ROUNDS=${1:-3}
WAVES=${2:-32 128}
[ "$(id -u)" = 0 ] || { echo "lender_bench.sh: run as root (the test cluster)"; exit 0; }
. "$(dirname "$0")/lib.sh"
bench_start lender
VENV=${MOONCAKE_VENV:-/opt/spank-mooncake/venv}
# an SGLang pool whose workers lend nothing and a store on each of their nodes
store_recipe() {
	cat >"$1" <<EOF
schema: 2
output: {log_dir: $2}
model: {path: "hf:Qwen/Qwen3-0.6B"}
engine: {type: sglang, mooncake_kv_store: {}}
roles:
  prefill:
    args: {enable-hierarchical-cache: true, hicache-storage-backend: mooncake}
    env: {MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: "0"}
services:
  - name: store
    type: mooncake-store
    enabled: $3
    placement: {node: ${MCK_LENDER_PLACEMENT:-workers}}
    env: {MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: "32m"}
EOF
}
for i in $(seq "$ROUNDS"); do
	for n in $WAVES; do
		store_recipe "$W/plain$n-$i.yaml" "$W/plain$n-$i" false
		store_recipe "$W/lent$n-$i.yaml" "$W/lent$n-$i" true
	done
done
cat >"$W/bench.sh" <<EOS
#!/bin/bash
cd $W
export PATH=$VENV/bin:\$PATH
ms() { echo \$(( (\$(date +%s%N) - \$1) / 1000 )); }
role_wave() {
	local pids=
	for k in \$(seq \$2); do
		srun --overlap -N1 -n1 -w n\$(( k % 4 + 1 )) --mooncake-recipe=\$1 --mooncake-role=prefill true &
		pids="\$pids \$!"
	done
	wait \$pids
}
for i in \$(seq $ROUNDS); do
	for n in $WAVES; do
		t=\$(date +%s%N); role_wave plain\$n-\$i.yaml \$n 2>>$W/wave-errors; echo "plain\$n \$(ms \$t)"
		t=\$(date +%s%N); role_wave lent\$n-\$i.yaml \$n 2>>$W/wave-errors; echo "lent\$n \$(ms \$t)"
	done
done
EOS
(cd "$W" && "$CLUSTER" exec login salloc -N4 -w n1,n2,n3,n4 bash "$W/bench.sh") 2>"$W/errors" >"$W/times" || true
if grep -qi 'error' "$W/wave-errors" 2>/dev/null; then
	echo "lender_bench.sh: a role srun of a wave failed: $(grep -i error "$W/wave-errors" | sort | uniq -c | head -3)"
	exit 1
fi
stores=$(ls "$W"/lent*/lender_store.*.json 2>/dev/null | wc -l)
[ "$stores" -gt 0 ] || { echo "lender_bench.sh: no store ran"; exit 1; }
median() { grep "^$1 " "$W/times" | awk '{ print $2 }' | sort -n | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
for n in $WAVES; do
	p=$(median "plain$n") l=$(median "lent$n")
	awk -v p="$p" -v l="$l" -v w="$n" -v r="$ROUNDS" 'BEGIN {
		printf "first wave of %d role sruns (%d rounds) with a mooncake-store on each of their 4 nodes: %.1f ms; the same wave without lenders %.1f ms: %.3fx (goal <= 1.10x)\n", w, r, l / 1000, p / 1000, l / p }'
done
