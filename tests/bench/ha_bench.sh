#!/bin/bash
# ha_bench.sh - how long an HA pool (plugstack ha=etcd) is gone when its
# leader dies (make bench): in one allocation of the test cluster's four
# nodes (masters and etcd members on n1-n3), a worker on n4 puts a key and
# gets it back every 50 ms; the leader's master is killed with kill -9;
# printed: the time from the kill to the worker's first round trip that
# works again (the masters' election, about 10 s, and the client's own
# switch to the new leader). Run as root (it brings the test cluster up,
# and down if it did); the plugstack line is put back as it was.
set -eu
[ "$(id -u)" = 0 ] || { echo "ha_bench.sh: run as root (the test cluster)"; exit 0; }
. "$(dirname "$0")/lib.sh"
bench_start ha
MCK_PLUGIN_ARGS=ha=etcd "$CLUSTER" up >/dev/null 2>&1
trap '"$CLUSTER" up >/dev/null 2>&1; [ "$was_up" = 1 ] || "$CLUSTER" down >/dev/null 2>&1; [ -n "${MCK_KEEP:-}" ] || rm -rf "$W"' EXIT
CLIENT=$TOP/tests/cluster/mc_client.py
MCR=$TOP/build/mooncake-recipe
cat >"$W/r.yaml" <<'YAML'
schema: 2
model: {path: "hf:Qwen/Qwen3-0.6B"}
engine: vllm
roles:
  prefill: {args: {kv-transfer-config: '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'}}
services:
  - name: mooncake-master
    type: mooncake-master
    options:
      store_config: {protocol: tcp, global_segment_size: 33554432, local_buffer_size: 16777216}
YAML
cat >"$W/ha.sh" <<EOS
#!/bin/bash
cd $W
srun --overlap -N1 -n1 -w n4 --mooncake-recipe=r.yaml --mooncake-role=prefill python3 $CLIENT loop $W/done >$W/loop.out 2>$W/loop.err
EOS
(cd "$W" && "$CLUSTER" exec login salloc -N4 -w n1,n2,n3,n4 bash "$W/ha.sh") >/dev/null 2>"$W/salloc.err" &
up() { local n; n=$(grep -c ' UP ' "$W/loop.out" 2>/dev/null); echo "${n:-0}"; }
wait_up() { # until the worker has said UP $1 times (300 s)
	for _ in $(seq 3000); do [ "$(up)" -ge "$1" ] && return 0; sleep 0.1; done
	echo "ha_bench.sh: the worker did not come up (time $1):"; cat "$W/loop.err" "$W/salloc.err"; touch "$W/done"; exit 1
}
wait_up 1
dir=$(ls -d "$W"/outputs/*/logs)
# status, as a user on the login host would run it (the cluster's network)
leader=$("$CLUSTER" exec login "$MCR" status --dir "$dir" 2>/dev/null |
	sed -n 's/^master   n\([0-9]*\) (.*), leader, serving.*/\1/p')
[ -n "$leader" ] || { echo "ha_bench.sh: no leader"; touch "$W/done"; exit 1; }
proof=$dir/mooncake_master.proof.json
[ "$leader" = 1 ] || proof=$dir/mooncake_master.proof.$((leader - 1)).json
keeper=$(sed -n 's/^  "pid": \([0-9]*\),$/\1/p' "$proof")
pid=$(pgrep -P "$keeper" -x mooncake_master)
sleep 1 # a second of steady round trips before the kill
t0=$(date +%s.%N)
kill -9 "$pid"
wait_up 2
touch "$W/done"
wait
t1=$(grep ' UP ' "$W/loop.out" | sed -n 2p | awk '{ print $3 }')
awk -v a="$t0" -v b="$t1" -v n="$leader" 'BEGIN {
	printf "the HA pool after kill -9 of its leader (ha=etcd, n%s of 3 masters): first working put+get after %.2f s\n", n, b - a }'
