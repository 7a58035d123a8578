#!/bin/bash
# The pool, seen (issue 11): an sbatch -N3 job whose prefill task on n2 puts
# 3 MiB and whose decode task on n3 mounts its segment; while it runs,
# mooncake-recipe status --job (table and --json) shows the keys, the bytes
# and one segment per worker with its node and role; the mooncake-pool step
# samples every second (pool_interval=1) and, when the job ends (normally;
# then a second job, by scancel), the job's directory holds the report with
# the peak and the samples, and an SVG that parses as SVG. Refusals: no such
# job, a job that is not yours, a directory without a pool, a master that is
# gone.
. "$(dirname "$0")/lib.sh"
MCR=$TOP/build/mooncake-recipe
W=$(workdir)
trtllm_test_recipe "$W/recipe.yaml"
# plugstack.conf is read at every srun: a sample a second for this test only
with_plugin_args pool_interval=1
BYTES=3145728
cat >"$W/job.sh" <<EOS
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=recipe.yaml --mooncake-role=prefill \\
	python3 $CLIENT put pool-key @$BYTES $W/release >$W/prefill.out 2>&1 &
srun -N1 -n1 -w n3 --mooncake-recipe=recipe.yaml --mooncake-role=decode \\
	python3 $CLIENT hold $W/release >$W/decode.out 2>&1 &
# the first snapshot with both steps is kept; each is renamed into place whole
# (the test reads steps.out while this loop runs)
for i in \$(seq 300); do
	[ -f $W/release ] && break
	squeue --steps -h -j \$SLURM_JOB_ID -o '%j %N' >$W/steps.tmp && mv -f $W/steps.tmp $W/steps.out
	grep -qx 'mooncake-pool n1' $W/steps.out && grep -qx 'mooncake-master n1' $W/steps.out && break
	sleep 0.2
done
wait
sleep 2
EOS
cd "$W" || exit 1
jid=$(sbatch --parsable -N3 -w n1,n2,n3 -o "$W/job.out" "$W/job.sh")
dir=$W/outputs/$jid/logs
for _ in $(seq 600); do
	grep -q "PUT pool-key rc=0" "$W/prefill.out" 2>/dev/null && grep -q MOUNTED "$W/decode.out" 2>/dev/null && break
	sleep 0.2
done
sleep 2.5 # a sample or two of the full pool
"$MCR" status --job "$jid" --json >"$W/status.json" 2>"$W/status.err"
rc_json=$?
"$MCR" status --job "$jid" >"$W/status.txt" 2>&1
rc_table=$?
su -s /bin/sh nobody -c "$MCR status --job $jid" >"$W/notyours.txt" 2>&1
rc_notyours=$?
cp "$W/steps.out" "$W/steps.seen" 2>/dev/null
touch "$W/release"
wait_job "$jid" 120

check "status --job $jid --json exits 0 while the job runs ($(cat "$W/status.err"))" test "$rc_json" = 0
check "status --json: keys 1, allocated_bytes >= $BYTES, clients 2, capacity 96 MiB" python3 - "$W/status.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
ok = s["keys"] == 1 and s["allocated_bytes"] >= 3145728 and s["clients"] == 2 and s["capacity_bytes"] == 96 << 20
sys.exit(0 if ok else print(s) or 1)
PY
check "status --json: one segment per worker, n2 prefill (32 MiB) and n3 decode (64 MiB), holding the $BYTES bytes between them" python3 - "$W/status.json" "$MCK_ADDR_n2" "$MCK_ADDR_n3" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
seg = sorted(s["segments"], key=lambda x: x["node"] or "")
ok = [(x["node"], x["role"], x["capacity_bytes"]) for x in seg] == [("n2", "prefill", 32 << 20), ("n3", "decode", 64 << 20)]
ok = ok and seg[0]["name"].startswith(sys.argv[2] + ":") and seg[1]["name"].startswith(sys.argv[3] + ":")
ok = ok and sum(x["allocated_bytes"] for x in seg) == s["allocated_bytes"] >= 3145728
sys.exit(0 if ok else print(seg) or 1)
PY
check "status --json: the master on n1, its ports and uptime" python3 - "$W/status.json" "$MCK_ADDR_n1" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["master"]
sys.exit(0 if (m["node"], m["address"], m["rpc_port"], m["metrics_port"]) == ("n1", sys.argv[2], 8700, 8702) and m["uptime_seconds"] >= 0 else print(m) or 1)
PY
# (the master puts the value in either segment: the total holds it)
check "status (table) exits 0 and shows n2 prefill and n3 decode rows and the totals" \
	test "$rc_table" = 0 --and has_re "$W/status.txt" "^n2 +prefill +$MCK_ADDR_n2:[0-9]+ +32.0 MiB " \
	"^n3 +decode +$MCK_ADDR_n3:[0-9]+ +64.0 MiB " '^total +2 segments +96.0 MiB +3.0 MiB +3.1%' '^keys 1, clients 2'
check "status as another user: 'job $jid is not yours', exit 1 ($(head -c 200 "$W/notyours.txt"))" \
	test "$rc_notyours" = 1 --and has_re "$W/notyours.txt" "^mooncake: job $jid is not yours \(it belongs to root\)"
check "squeue --steps showed a mooncake-pool step on n1 next to mooncake-master ($(tr '\n' ';' <"$W/steps.seen" 2>/dev/null))" \
	has_line "$W/steps.seen" 'mooncake-pool n1' 'mooncake-master n1'
check "after the job: mooncake_pool_report.json with peak_allocated_bytes >= $BYTES, samples with time, allocated bytes, keys and clients, ended by SIGTERM" python3 - "$dir/mooncake_pool_report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["samples"]
ok = r["peak_allocated_bytes"] >= 3145728 and len(s) >= 3 and r["ended_by"] == "SIGTERM"
ok = ok and all(set(x) >= {"time", "allocated_bytes", "keys", "clients"} for x in s)
ok = ok and max(x["keys"] for x in s) == 1 and max(x["allocated_bytes"] for x in s) == r["peak_allocated_bytes"]
ok = ok and sorted((x["node"], x["role"]) for x in r["segments"]) == [("n2", "prefill"), ("n3", "decode")]
ok = ok and all(k in r for k in ("capacity_bytes", "allocated_bytes", "keys", "clients"))
sys.exit(0 if ok else print({k: v for k, v in r.items() if k != "samples"}, len(s)) or 1)
PY
check "mooncake_pool_samples.jsonl holds one line per sample" \
	test "$(wc -l <"$dir/mooncake_pool_samples.jsonl")" -ge 3
check "mooncake_pool.svg parses as SVG with its three lines" python3 -c '
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
sys.exit(0 if r.tag == "{http://www.w3.org/2000/svg}svg" and len(r.findall("{http://www.w3.org/2000/svg}polyline")) == 3 else 1)' "$dir/mooncake_pool.svg"
"$MCR" status --dir "$dir" >"$W/ended.txt" 2>&1
rc_ended=$?
"$MCR" status --job 999999 >"$W/nojob.txt" 2>&1
rc_nojob=$?
"$MCR" status --dir "$W" >"$W/nopool.txt" 2>&1
rc_nopool=$?
check "status after the job: the job has ended, the report named, exit 1 ($(head -c 300 "$W/ended.txt"))" \
	test "$rc_ended" = 1 --and has_re "$W/ended.txt" \
	"^mooncake: job $jid has ended \(JobState=COMPLETED\): its pool is gone; its report is $dir/mooncake_pool_report\.json"
check "status of a job that does not exist: a mooncake: message, exit 1" \
	test "$rc_nojob" = 1 --and has_re "$W/nojob.txt" '^mooncake: job 999999 is not known to Slurm; a job that ended more than MinJobAge ago is gone from it: run mooncake-recipe status --dir'
check "status --dir of a directory without a pool: a mooncake: message, exit 1" \
	test "$rc_nopool" = 1 --and has_re "$W/nopool.txt" "^mooncake: no Mooncake pool found in $W"

# scancel: the report is written all the same
cat >"$W/job2.sh" <<EOS
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=recipe.yaml --mooncake-role=prefill \\
	python3 $CLIENT put k2 @1048576 $W/never >$W/prefill2.out 2>&1
EOS
jid2=$(sbatch --parsable -N2 -w n1,n2 -o "$W/job2.out" "$W/job2.sh")
dir2=$W/outputs/$jid2/logs
for _ in $(seq 600); do
	grep -q "PUT k2 rc=0" "$W/prefill2.out" 2>/dev/null && [ "$(wc -l <"$dir2/mooncake_pool_samples.jsonl" 2>/dev/null)" -ge 2 ] && break
	sleep 0.2
done
scancel "$jid2"
wait_job "$jid2" 60
check "a job ended by scancel: its report holds the peak ($(grep -o '"peak_allocated_bytes": [0-9]*' "$dir2/mooncake_pool_report.json" 2>/dev/null | tail -1)) and its picture is there" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["peak_allocated_bytes"] >= 1048576 and r["ended_by"] == "SIGTERM" else 1)' \
	"$dir2/mooncake_pool_report.json" --and test -s "$dir2/mooncake_pool.svg"
samplers=$("$CLUSTER" count mooncake-recipe | awk '{ s += $2 } END { print s + 0 }')
check "no mooncake_master and no sampler ($samplers) is left after the jobs" \
	test "$(masters_left)" = 0 -a "$samplers" = 0
if [ -n "${MCK_VERBOSE:-}" ]; then tail -n +1 "$W"/*.out "$W"/status.*; fi
