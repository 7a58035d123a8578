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
await 30 test -s "$d/mooncake_pool.svg"
check "SGLang: the pool's report and picture name the store's segment and node" \
	python3 - "$d/mooncake_pool_report.json" <<'PY' --and has "$d/mooncake_pool.svg" "lent by mooncake-store store on n3 (64.0 MiB)"
import json, sys
r = json.load(open(sys.argv[1]))
segs = [s for s in r["segments"] if s["role"] == "mooncake-store store"]
assert len(segs) == 1 and segs[0]["node"] == "n3" and segs[0]["peak_allocated_bytes"] >= 1 << 20, r["segments"]
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

# --- the store's container, as srtctl picks it: the kind's fallback image
# (engine.mooncake_kv_store.container) unless the service names its own,
# run as the master's (a STAND-IN for pyxis, tests/cluster/pyxis_standin.c,
# records each step's container options and, holding no image, runs the
# step on the host: test_container.sh)
ETC=$(dirname "$SLURM_CONF")
STANDIN=$TOP/build/tests/pyxis_standin.so
if [ -f "$STANDIN" ]; then
	mkdir -p standin && chmod 1777 standin
	echo "optional $STANDIN record=$W/standin" >"$ETC/plugstack.conf.d/pyxis.conf"
	MCK_EXIT_HOOKS+=("rm -f '$ETC/plugstack.conf.d/pyxis.conf'")
	KIMG='nvcr.io#nvidia/sglang:1' SIMG='nvcr.io#lmcache/store:2'
	for c in kind own; do
		sed -e "s|^schema: 2|output: {log_dir: $W/img-$c}\nschema: 2|" \
			-e "s|  mooncake_kv_store: {}|  mooncake_kv_store: {container: \"$KIMG\"}|" sglang-store.yaml >img-$c.yaml
	done
	sed -i "s|    placement: {node: decode}|    placement: {node: decode}\n    container: \"$SIMG\"|" img-own.yaml
	for c in kind own; do
		cat >img-$c.sh <<EOS
#!/bin/bash
srun -N1 -n1 -w n3 --mooncake-recipe=img-$c.yaml --mooncake-role=decode true >img-$c.out 2>&1
EOS
		jid=$(run_job img-$c -N3 -w n1,n2,n3)
		img=$KIMG
		[ $c = own ] && img=$SIMG
		line=$(cat standin/"$jid".* 2>/dev/null | grep '^name=store ' | head -1)
		check "the store step runs in $([ $c = own ] && echo "its own container" || echo "the kind's fallback image") ($img), the job's directory mounted: $line" \
			has - "container-image=$img container-mounts=$W/img-$c:$W/img-$c container-workdir=$W/img-$c " <<<"$line" \
			--and has img-$c.out "the lender step store runs in $img (pyxis)"
	done
	rm -f "$ETC/plugstack.conf.d/pyxis.conf"
else
	fail "no pyxis stand-in at $STANDIN: run make $STANDIN (make check-cluster builds it)"
fi

# --- a second user (OTHER) and the store's unauthenticated REST API:
# OTHER holds 8080 on n3 before the job (the store takes another port,
# its own, proved); from another node it cannot reach the store's API
# (the plugin binds it to the loopback address); on n3 itself it can,
# and reads the job's keys there (what remains open: spank_mooncake(8),
# SECURITY)
OTHER=mckother
ouid=$(test_user "$OTHER")
on_node n3 "$OTHER" "exec python3 -m http.server 8080 --bind 0.0.0.0" >other-8080.out 2>&1 &
await 10 eval "\"\$CLUSTER\" exec n3 ss -ltn | grep -q ':8080 '"
# its pid: OTHER's python3 on n3
squatter=$(for p in $("$CLUSTER" pids n3 python3); do [ "$(ps -o user= -p "$p")" = "$OTHER" ] && echo "$p"; done)
MCK_EXIT_HOOKS+=("kill $squatter 2>/dev/null")
cat >hostile.sh <<EOS
#!/bin/bash
. "$MCK_AWAIT"
d=$W/outputs/\$SLURM_JOB_ID/logs
srun -N1 -n1 -w n3 --mooncake-recipe=sglang-store.yaml --mooncake-role=decode \\
	bash -c 'echo DECODE-RUNS; python3 $CLIENT get k secret-of-the-job $W/hostile.got' >hostile-decode.out 2>&1 &
await 60 grep -qs DECODE-RUNS hostile-decode.out
srun -N1 -n1 -w n2 --mooncake-recipe=sglang-store.yaml --mooncake-role=prefill \\
	bash -c 'python3 $CLIENT put k secret-of-the-job $W/hostile.done' >hostile-prefill.out 2>&1 &
await 60 test -e $W/hostile.got
cp \$d/lender_store.n3.json hostile-state.json
touch $W/hostile.held
await 60 test -e $W/hostile.done
wait
EOS
jid=$(sbatch --parsable -N3 -w n1,n2,n3 -o "$W/hostile.job.out" hostile.sh)
await 120 test -e hostile.held
port=$(sed -n 's/.*"rpc_port": \([0-9]*\),.*/\1/p' hostile-state.json)
on_node n2 "$OTHER" "curl -s -m 5 -o /dev/null -w '%{http_code}' http://$MCK_ADDR_n3:$port/api/get/k; echo \" rc=\$?\"" >remote.out 2>&1
on_node n3 "$OTHER" "curl -s -m 5 http://127.0.0.1:$port/api/get/k; echo" >local.out 2>&1
touch hostile.done
wait_job "$jid" 120
kill "$squatter" 2>/dev/null
await 10 not kill -0 "$squatter" 2>/dev/null
check "another user's listener on 8080 of n3: the job's store took another port ($port), its own, and lent" \
	test -n "$port" --and test "$port" != 8080 --and grep -qx "n3 GOT k=secret-of-the-job" hostile-decode.out
check "from another node, another user cannot reach the store's REST API ($(cat remote.out))" \
	has remote.out "rc=7"
check "on the store's node, another user reaches it on 127.0.0.1 and reads the job's keys (open: documented in spank_mooncake(8))" \
	has_line local.out secret-of-the-job

if [ -n "${MCK_VERBOSE:-}" ]; then tail -n +1 "$W"/*.out "$W"/*.json "$d"/*.out "$d"/lender_*; fi
check "no store service is left" test "$("$CLUSTER" count python3 | awk '{ s += $2 } END { print s + 0 }')" = 0
