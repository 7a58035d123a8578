#!/bin/bash
# TRT-LLM's memory donor (issue 38): the seed's TRT-LLM example with a
# mooncake-donor service on its decode node. `trtllm-serve mooncake_donor`
# cannot run here: a stand-in of it (tests/cluster/trtllm_serve_standin.py,
# named trtllm-serve on the job's PATH) lends a real segment through the
# wheel's client and writes its ready file, as the donor does. Its command
# line and environment are srtctl's, the decode task waits for its ready
# file, and one that fails or is never ready fails the decode task with its
# own cause and log (or, with critical: false, does not).
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
mkdir bin
ln -s "$TOP/tests/cluster/trtllm_serve_standin.py" bin/trtllm-serve
MCR=$TOP/build/mooncake-recipe

# donor_recipe OUT [ENV] [EXTRA]: the example, for this cluster, with a donor
# of 64 MiB on its decode node
donor_recipe() {
	trtllm_test_recipe "$1.base"
	cat >"$1.donor" <<EOF
  - name: donor
    type: mooncake-donor
    placement: {node: decode}
    options: {size: 64MiB, protocol: tcp}
    env: {${2:-}}
$3
EOF
	# the services list ends where benchmark: begins
	awk -v f="$1.donor" '/^benchmark:/ { while ((getline l < f) > 0) print l } { print }' "$1.base" >"$1"
}
donor_recipe ok.yaml
donor_recipe broken.yaml 'MCK_STANDIN_FAIL: "1"'
donor_recipe hung.yaml 'MCK_STANDIN_NO_READY: "1"' '    readiness: {timeout_seconds: 5}'
donor_recipe spare.yaml 'MCK_STANDIN_FAIL: "1"' '    critical: false'

# job NAME RECIPE: decode on n3 (whose srun starts the donor there) gets
# what prefill on n2 puts; the pool's status meanwhile
job() {
	local p=$1 recipe=$2
	cat >"$p.sh" <<EOS
#!/bin/bash
. "$MCK_AWAIT"
export PATH=$W/bin:\$PATH
srun -N1 -n1 -w n3 --mooncake-recipe=$recipe --mooncake-role=decode \\
	bash -c 'echo DECODE-RUNS; python3 $CLIENT get k-$p v-$p $W/$p.got' >$p-decode.out 2>&1 &
await 60 eval 'grep -qs DECODE-RUNS $p-decode.out || ! kill -0 \$!'
srun -N1 -n1 -w n2 --mooncake-recipe=$recipe --mooncake-role=prefill \\
	bash -c 'python3 $CLIENT put k-$p v-$p $W/$p.done' >$p-prefill.out 2>&1 &
await 60 eval 'test -e $W/$p.got || ! grep -qs DECODE-RUNS $p-decode.out'
$MCR status --job \$SLURM_JOB_ID --json >$p-status.json 2>$p-status.err
touch $W/$p.done
wait
EOS
	run_job "$p" -N3 -w n1,n2,n3
}

jid=$(job ok ok.yaml)
d=$W/outputs/$jid/logs
check "the donor: trtllm-serve mooncake_donor with srtctl's command line" \
	has_line "$d/mooncake/donor-n3/standin.args" "$W/bin/trtllm-serve mooncake_donor --master_server_address $MCK_ADDR_n1:8700 --segment_size 64MiB --protocol tcp --ready_file $d/mooncake/donor-n3.ready"
check "... and srtctl's environment" \
	has_line "$d/mooncake/donor-n3/standin.args" "TRTLLM_MOONCAKE_RUN_DIR=$d/mooncake/donor-n3" "TRTLLM_MOONCAKE_MASTER_TIMEOUT=120" "TLLM_LOG_LEVEL=INFO"
check "its ready file is there, and the decode task ran after it" \
	test -s "$d/mooncake/donor-n3.ready" --and has ok-decode.out DECODE-RUNS
check "the pool's capacity grew by the donor's 64 MiB (prefill 32, decode 64, donor 64)" \
	python3 - ok-status.json "$MCK_ADDR_n3" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["capacity_bytes"] == 160 << 20, s
roles = sorted(x["role"] or "" for x in s["segments"])
assert any("mooncake-donor donor" in r for r in roles), roles
PY
check "the prefill's put and the decode's get worked" grep -qx "n3 GOT k-ok=v-ok" ok-decode.out

jid=$(job broken broken.yaml)
d=$W/outputs/$jid/logs
check "a donor that fails: the decode task fails with its cause and its log, its command never runs" \
	has broken-decode.out "needs the lender donor on n3 (critical: true): the donor donor on n3 ended before it was ready (exit status 1)" \
	"failing as told (MCK_STANDIN_FAIL)" --and lacks broken-decode.out DECODE-RUNS
check "... and srun said so" has broken-decode.out "srun: error: mooncake: the donor donor on n3 ended before it was ready"

jid=$(job hung hung.yaml)
check "a donor that never writes its ready file: the decode task fails after its readiness.timeout_seconds (5 s)" \
	has hung-decode.out "the donor donor on n3 was not ready within 5 s" "raise readiness.timeout_seconds of services[donor]" \
	--and lacks hung-decode.out DECODE-RUNS

jid=$(job spare spare.yaml)
check "critical: false: a donor that fails is said, and the decode task runs all the same" \
	has spare-decode.out "services[donor] has critical: false, so this" --and has spare-decode.out DECODE-RUNS \
	--and grep -qx "n3 GOT k-spare=v-spare" spare-decode.out
if [ -n "${MCK_VERBOSE:-}" ]; then tail -n +1 "$W"/*.out; fi
check "no donor is left" test "$(masters_left)" = 0
