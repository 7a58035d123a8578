#!/bin/bash
# keep_bench.sh [ROUNDS] - how long a job's pool is gone when its master
# dies (make bench): in one allocation of the test cluster, a worker on n2
# puts a key and gets it back every 50 ms; the master (on n1) is killed
# with kill -9 ROUNDS times (3, restart='s default); printed: the time from
# each kill to the worker's first round trip that works again (the keeper's
# back-off, 1 s then 2 s then 4 s, is part of it), min/median/max; then
# the master is stopped (SIGSTOP: a hung master) and the time to the next
# working round trip printed (its keeper kills it after hang_timeout=, 10 s
# here, and starts it again). Run as root (it brings the test cluster up,
# and down if it did).
set -eu
ROUNDS=${1:-3}
[ "$(id -u)" = 0 ] || { echo "keep_bench.sh: run as root (the test cluster)"; exit 0; }
. "$(dirname "$0")/lib.sh"
bench_start keep
bench_recipe "$W/r.yaml"
# a hung master is found after hang_timeout= (10 s here, the least it takes)
MCK_PLUGIN_ARGS=hang_timeout=10 "$CLUSTER" up >/dev/null 2>&1
trap '"$CLUSTER" up >/dev/null 2>&1; [ "$was_up" = 1 ] || "$CLUSTER" down >/dev/null 2>&1; [ -n "${MCK_KEEP:-}" ] || rm -rf "$W"' EXIT
CLIENT=$TOP/tests/cluster/mc_client.py
cat >"$W/keep.sh" <<EOS
#!/bin/bash
cd $W
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill python3 $CLIENT loop $W/done >$W/loop.out 2>$W/loop.err
EOS
(cd "$W" && "$CLUSTER" exec login salloc -N2 -w n1,n2 bash "$W/keep.sh") >/dev/null 2>"$W/salloc.err" &
up() { local n; n=$(grep -c ' UP ' "$W/loop.out" 2>/dev/null); echo "${n:-0}"; }
wait_up() { # until the worker has said UP $1 times (120 s)
	for _ in $(seq 1200); do [ "$(up)" -ge "$1" ] && return 0; sleep 0.1; done
	echo "keep_bench.sh: the worker did not come up (round $1):"; cat "$W/loop.err" "$W/salloc.err"; touch "$W/done"; exit 1
}
wait_up 1
: >"$W/kills"
for r in $(seq "$ROUNDS"); do
	sleep 1 # a second of steady round trips before each kill
	pid=$("$CLUSTER" pids n1 mooncake_master | head -1)
	[ -n "$pid" ] || { echo "keep_bench.sh: no master on n1 (round $r)"; touch "$W/done"; exit 1; }
	date +%s.%N >>"$W/kills"
	kill -9 "$pid"
	wait_up $((r + 1))
done
touch "$W/done"
wait
grep ' UP ' "$W/loop.out" | tail -n +2 | awk '{ print $3 }' | paste "$W/kills" - |
	awk '{ printf "%.3f\n", $2 - $1 }' | sort -n | awk '{ d[NR] = $1 } END {
		printf "the pool after kill -9 of its master (restart=, %d kills): first working put+get after %.2f s (min), %.2f s (median), %.2f s (max)\n",
			NR, d[1], NR % 2 ? d[(NR + 1) / 2] : (d[NR / 2] + d[NR / 2 + 1]) / 2, d[NR] }'

# a hung master (SIGSTOP: alive, answering nothing), in a job of its own,
# found by its keeper after hang_timeout= (10 s here, the least it takes)
rm -f "$W/done" "$W/loop.out"
(cd "$W" && "$CLUSTER" exec login salloc -N2 -w n1,n2 bash "$W/keep.sh") >/dev/null 2>"$W/salloc.err" &
wait_up 1
sleep 1
pid=$("$CLUSTER" pids n1 mooncake_master | head -1)
hung=$(date +%s.%N)
kill -STOP "$pid"
wait_up 2
touch "$W/done"
wait
grep ' UP ' "$W/loop.out" | tail -n 1 | awk -v h="$hung" '{
	printf "the pool after its master hung (SIGSTOP, hang_timeout=10): first working put+get after %.2f s\n", $3 - h }'
