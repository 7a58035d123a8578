#!/bin/bash
# wave_bench.sh [ROUNDS [WAVES]] - what starting a job's pool costs on the
# test cluster (make bench), side by side in one allocation, ROUNDS times
# (3) in turn, medians and ratios:
#   - the first role srun of a pool (its master not running) against the
#     floor: mooncake_master started by hand as a step until its RPC port
#     accepts, then a plain srun;
#   - the first wave of N role sruns started together, for each N of WAVES
#     ("32 128 256"), against the
#     same plain wave, and against the floor (the master by hand, then the
#     plain wave);
#   - mooncake-recipe status --job against fetching the master's two
#     metrics pages by hand (curl).
# Each round's pool has a directory (output.log_dir) and master of its own.
# Run as root (it brings the test cluster up, and down if it did).
set -eu
ROUNDS=${1:-3}
WAVES=${2:-32 128 256}
[ "$(id -u)" = 0 ] || { echo "wave_bench.sh: run as root (the test cluster)"; exit 0; }
. "$(dirname "$0")/lib.sh"
bench_start wave
VENV=${MOONCAKE_VENV:-/opt/spank-mooncake/venv}
bench_recipe "$W/base.yaml"
for i in $(seq "$ROUNDS"); do
	for kind in first $(for n in $WAVES; do echo wave$n; done); do
		sed "s|^name: |output:\n  log_dir: $W/$kind-$i\nname: |" "$W/base.yaml" >"$W/$kind-$i.yaml"
	done
done
cat >"$W/bench.sh" <<EOS
#!/bin/bash
cd $W
export PATH=$VENV/bin:\$PATH
ms() { echo \$(( (\$(date +%s%N) - \$1) / 1000 )); }
# the floor: a master started by hand as a step, until its port accepts
by_hand() {
	local port=\$1
	srun --overlap -N1 -n1 -w n1 mooncake_master --port=\$port --enable_http_metadata_server=true \
		--http_metadata_server_port=\$((port + 1)) --metrics_port=\$((port + 2)) >/dev/null 2>&1 &
	until (exec 3<>/dev/tcp/$MCK_ADDR_n1/\$port) 2>/dev/null; do sleep 0.005; done
}
stop_by_hand() { kill %1 2>/dev/null; wait 2>/dev/null; }
# a wave of \$1 sruns at once over the four nodes, waited for by pid (the
# master started by hand runs on meanwhile)
plain_wave() {
	local pids=
	for k in \$(seq \$1); do srun --overlap -N1 -n1 -w n\$(( k % 4 + 1 )) true & pids="\$pids \$!"; done
	wait \$pids
}
role_wave() {
	local pids=
	for k in \$(seq \$2); do
		srun --overlap -N1 -n1 -w n\$(( k % 4 + 1 )) --mooncake-recipe=\$1 --mooncake-role=prefill true &
		pids="\$pids \$!"
	done
	wait \$pids
}
for i in \$(seq $ROUNDS); do
	p=\$((8900 + 6 * i))
	t=\$(date +%s%N); by_hand \$p; srun --overlap -N1 -n1 -w n2 true; echo "floor \$(ms \$t)"; stop_by_hand
	t=\$(date +%s%N); srun --overlap -N1 -n1 -w n2 --mooncake-recipe=first-\$i.yaml --mooncake-role=prefill true; echo "first \$(ms \$t)"
	for n in $WAVES; do
		t=\$(date +%s%N); plain_wave \$n; echo "plainwave\$n \$(ms \$t)"
		t=\$(date +%s%N); by_hand \$((p + 3)); plain_wave \$n; echo "floorwave\$n \$(ms \$t)"; stop_by_hand
		t=\$(date +%s%N); role_wave wave\$n-\$i.yaml \$n 2>>$W/wave-errors; echo "rolewave\$n \$(ms \$t)"
	done
done
# status against the two metrics pages, the pool of the first round
st=$W/first-1/mooncake_master.json
mport=\$(sed -n 's/.*"metrics_port": \([0-9]*\).*/\1/p' \$st)
for i in \$(seq 10); do
	t=\$(date +%s%N); $TOP/build/mooncake-recipe status --dir $W/first-1 >/dev/null; echo "status \$(ms \$t)"
	t=\$(date +%s%N); curl -s http://$MCK_ADDR_n1:\$mport/metrics >/dev/null; curl -s http://$MCK_ADDR_n1:\$mport/metrics/summary >/dev/null; echo "fetch \$(ms \$t)"
done
EOS
(cd "$W" && "$CLUSTER" exec login salloc -N4 -w n1,n2,n3,n4 bash "$W/bench.sh") 2>"$W/errors" >"$W/times" || true
if grep -qi 'error' "$W/wave-errors" 2>/dev/null; then
	echo "wave_bench.sh: a role srun of a first wave failed: $(grep -i error "$W/wave-errors" | sort | uniq -c | head -3)"
	exit 1
fi
median() { grep "^$1 " "$W/times" | awk '{ print $2 }' | sort -n | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
f=$(median floor) r=$(median first) s=$(median status) x=$(median fetch)
awk -v f="$f" -v r="$r" -v s="$s" -v x="$x" -v n="$ROUNDS" 'BEGIN {
	printf "first role srun of a pool (%d rounds): %.1f ms; the floor (master by hand until its port accepts, then a plain srun) %.1f ms: %.3fx\n", n, r / 1000, f / 1000, r / f
	printf "mooncake-recipe status: %.1f ms; fetching /metrics and /metrics/summary by hand %.1f ms: %.3fx\n", s / 1000, x / 1000, s / x }'
for n in $WAVES; do
	pw=$(median "plainwave$n") fw=$(median "floorwave$n") rw=$(median "rolewave$n")
	awk -v pw="$pw" -v fw="$fw" -v rw="$rw" -v w="$n" 'BEGIN {
		printf "first wave of %d role sruns: %.1f ms; the same plain wave %.1f ms: %.3fx; the floor (master by hand, then the plain wave) %.1f ms: %.3fx\n", w, rw / 1000, pw / 1000, rw / pw, fw / 1000, rw / fw }'
done
