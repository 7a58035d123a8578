#!/bin/bash
# Memory lenders (issue 38): srtctl's mooncake-store service, the wheel's
# store service, runs as a step of the job on each decode node before the
# decode tasks there, lends its segment to the job's pool (the pool's
# capacity grows by it), a prefill put lands in it and a decode get reads
# it back; for SGLang (workers lending 0) and vLLM (standalone-store
# workers). A store that is killed is started again by its keeper.
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
MCR=$TOP/build/mooncake-recipe

# sglang_store OUT: SGLang whose workers lend nothing, a store on the
# decode nodes lending 64 MiB
cat >sglang-store.yaml <<'EOF'
schema: 2
model: {path: "hf:Qwen/Qwen3-0.6B"}
engine:
  type: sglang
  mooncake_kv_store: {}
roles:
  prefill:
    args: {disaggregation-transfer-backend: mooncake, enable-hierarchical-cache: true, hicache-storage-backend: mooncake}
    env: {MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: "0"}
  decode:
    args: {disaggregation-transfer-backend: mooncake, enable-hierarchical-cache: true, hicache-storage-backend: mooncake}
    env: {MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: "0"}
services:
  - name: store
    type: mooncake-store
    placement: {node: decode}
    env: {MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: "64m"}
EOF

# pair RECIPE PREFIX: decode on n3 (whose srun starts the store there)
# reads until prefill on n2 has put 1 MiB; the pool's status taken while
# both hold on
pair() {
	local recipe=$1 p=$2
	cat >"$p.sh" <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n3 --mooncake-recipe=$recipe --mooncake-role=decode \\
	bash -c 'echo DECODE-RUNS; python3 $CLIENT get k-$p @1048576 $W/$p.got' >$p-decode.out 2>&1 &
await 60 grep -qs DECODE-RUNS $p-decode.out
srun -N1 -n1 -w n2 --mooncake-recipe=$recipe --mooncake-role=prefill \\
	bash -c 'python3 $CLIENT put k-$p @1048576 $W/$p.done' >$p-prefill.out 2>&1 &
await 60 test -e $W/$p.got
$MCR status --job \$SLURM_JOB_ID --json >$p-status.json 2>$p-status.err
squeue --steps -h -j \$SLURM_JOB_ID -o '%j %N' >$p-steps.out
touch $W/$p.done
wait
EOS
	run_job "$p" -N3 -w n1,n2,n3
}

jid=$(pair sglang-store.yaml sglang)
d=$W/outputs/$jid/logs
check "SGLang: a step 'store' ran on n3 (the decode node) and none elsewhere" \
	test "$(grep -c '^store ' sglang-steps.out)" = 1 --and has_line sglang-steps.out 'store n3'
check "SGLang: the store service's log says it runs" has "$d/service_store.n3.out" "Mooncake Store Service is running"
check "SGLang: the prefill's put (1 MiB) worked, with the workers lending nothing" grep -q 'PUT k-sglang rc=0' sglang-prefill.out
check "SGLang: the decode's get read it back" grep -qx "n3 GOT k-sglang=@1048576" sglang-decode.out
check "SGLang: the pool's capacity is the store's 64 MiB, its segment on n3 holds the 1 MiB put" \
	python3 - sglang-status.json "$MCK_ADDR_n3" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
segs = s["segments"]
assert s["capacity_bytes"] == 64 << 20, s
assert len(segs) == 1 and segs[0]["name"].startswith(sys.argv[2] + ":"), segs
assert segs[0]["node"] == "n3" and segs[0]["role"] == "mooncake-store store" and segs[0]["allocated_bytes"] >= 1 << 20, segs
PY
# vLLM: workers in standalone-store mode (a segment of 0), the store lends
kvt='{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'
cat >vllm-store.yaml <<EOF
schema: 2
model: {path: "hf:Qwen/Qwen3-0.6B"}
engine:
  type: vllm
  mooncake_kv_store:
    store_config: {protocol: tcp, mode: standalone-store, global_segment_size: 0, local_buffer_size: 16777216}
resources: {gpus_per_node: 4}
roles:
  prefill: {args: {kv-transfer-config: '$kvt'}}
  decode: {args: {kv-transfer-config: '$kvt'}}
services:
  - name: store
    type: mooncake-store
    placement: {node: decode}
    env: {MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: "64m"}
EOF
jid=$(pair vllm-store.yaml vllm)
check "vLLM: the prefill's put worked, the workers in standalone-store mode lending nothing" grep -q 'PUT k-vllm rc=0' vllm-prefill.out
check "vLLM: the decode's get read it back" grep -qx "n3 GOT k-vllm=@1048576" vllm-decode.out
check "vLLM: the pool's capacity is the store's 64 MiB, its segment on n3 holds the put" \
	python3 - vllm-status.json "$MCK_ADDR_n3" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
segs = s["segments"]
assert s["capacity_bytes"] == 64 << 20, s
assert len(segs) == 1 and segs[0]["node"] == "n3" and segs[0]["role"] == "mooncake-store store", segs
assert segs[0]["allocated_bytes"] >= 1 << 20, segs
PY

# --- a store that is killed is started again by its keeper, on its port:
# a decode task on n3 puts and gets in a loop (UP at each first working
# round trip), the store is killed with SIGKILL, the loop comes UP again
cat >kill.sh <<EOS
#!/bin/bash
. "$MCK_AWAIT"
d=$W/outputs/\$SLURM_JOB_ID/logs
srun -N1 -n1 -w n3 --mooncake-recipe=sglang-store.yaml --mooncake-role=decode \\
	python3 $CLIENT loop $W/kill.done >kill-decode.out 2>&1 &
await 60 grep -qs ' UP ' kill-decode.out
keeper=\$(sed -n 's/.*"pid": \([0-9]*\),.*/\1/p' \$d/lender_store.n3.proof.json)
store=\$(pgrep -P \$keeper)
echo "keeper \$keeper store \$store" >kill-pids.out
kill -9 \$store
await 60 eval '[ \$(grep -c " UP " kill-decode.out) -ge 2 ]'
cp \$d/lender_store.n3.proof.json kill-proof.json
touch $W/kill.done
wait
EOS
jid=$(run_job kill -N1 -w n3)
d=$W/outputs/$jid/logs
check "restart: the store was killed ($(cat kill-pids.out)) and the decode task's puts and gets work again" \
	test "$(grep -c ' UP ' kill-decode.out)" -ge 2
check "restart: its keeper started it again and says so in its log" \
	has "$d/service_store.n3.out" "mooncake: the store service store on n3 ended with signal 9 (Killed)" "starting it again on the same port" \
	--and has kill-proof.json '"restarts": 1,' --and has kill-proof.json '"verdict": "own"'

# --- two jobs sharing the decode node n3: each its own store, on its own port
for j in a b; do
	sed "s|^schema: 2|output: {log_dir: $W/two-$j}\nschema: 2|" sglang-store.yaml >two-$j.yaml
	cat >two-$j.sh <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n3 --mooncake-recipe=two-$j.yaml --mooncake-role=decode \\
	bash -c 'echo DECODE-RUNS; python3 $CLIENT get k v-$j $W/two-$j.got' >two-$j-decode.out 2>&1 &
await 60 grep -qs DECODE-RUNS two-$j-decode.out
srun -N1 -n1 -w n2 --mooncake-recipe=two-$j.yaml --mooncake-role=prefill \\
	bash -c 'python3 $CLIENT put k v-$j $W/two-$j.got' >two-$j-prefill.out 2>&1 &
await 120 test -e $W/two-$j.got
wait
EOS
done
ja=$(sbatch --parsable -N3 -w n1,n2,n3 -o "$W/two-a.job.out" two-a.sh)
jb=$(sbatch --parsable -N3 -w n1,n2,n3 -o "$W/two-b.job.out" two-b.sh)
wait_job "$ja" 240
wait_job "$jb" 240
pa=$(sed -n 's/.*"rpc_port": \([0-9]*\),.*/\1/p' two-a/lender_store.n3.json)
pb=$(sed -n 's/.*"rpc_port": \([0-9]*\),.*/\1/p' two-b/lender_store.n3.json)
check "two jobs on n3: each its own store, on its own port ($pa, $pb), one of them the store service's 8080" \
	test -n "$pa" --and test -n "$pb" --and test "$pa" != "$pb" --and has_line - 8080 <<<"$pa
$pb"
check "... and each job's pool works through its own store" \
	has_line two-a-decode.out 'n3 GOT k=v-a' --and has_line two-b-decode.out 'n3 GOT k=v-b'

if [ -n "${MCK_VERBOSE:-}" ]; then tail -n +1 "$W"/*.out "$W"/*.json "$d"/*.out "$d"/lender_*; fi
check "no store service is left" test "$("$CLUSTER" count python3 | awk '{ s += $2 } END { print s + 0 }')" = 0
