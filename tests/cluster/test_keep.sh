#!/bin/bash
# The pool outlives its master (issue #19): a master that dies while the
# job runs (kill -9, as an OOM kill or a crash does) is started again by its
# master step, on the same node and ports. A worker that put before puts
# again after it (its client mounts its segment again by itself), a role
# srun started during the restart waits for it and reads that value,
# status and the pool's report show the restart; with restart=0 the next
# srun fails as before. Nothing is left after the job.
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
MCR=$TOP/build/mooncake-recipe
vllm_test_recipe r.yaml # metadata_server: P2PHANDSHAKE
sglang_test_recipe sg.yaml # the master's HTTP metadata server

# keep RECIPE TAG: a job on n1 (the infra node) and n2. A prefill worker
# puts k1 and holds its segment; the test kills the master with kill -9
# while its keeper is held still (so that the decode srun arrives while
# the master is down, whatever the machine's speed), then lets the keeper
# go; the decode srun joins the pool and reads what the worker put after
# the restart. Checks prefixed with TAG.
# the pid the master step's proof in DIR holds: its task's
proof_pid() {
	sed -n 's/^  "pid": \([0-9]*\),$/\1/p' "$1/mooncake_master.proof.json"
}

keep() {
	local recipe=$1 tag=$2 jid dir before keeper after
	cat >"$tag.sh" <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 --mooncake-recipe=$recipe --mooncake-role=prefill \\
	python3 $CLIENT reput k1 @65536 $W/$tag.go $W/$tag.done >$tag-put.out 2>&1 &
await 600 test -e $tag.go || exit 1
srun -N1 -n1 -w n1 --mooncake-recipe=$recipe --mooncake-role=decode \\
	python3 $CLIENT get k1-after @65536 $W/$tag.done >$tag-get.out 2>&1
echo "rc=\$?" >>$tag-get.out
$MCR status --job \$SLURM_JOB_ID >$tag-status.out 2>&1
squeue --steps -h -j \$SLURM_JOB_ID -o '%j %N' >$tag-steps.out
touch $tag.done
wait
EOS
	jid=$(sbatch --parsable -N2 -w n1,n2 -o "$W/$tag.job.out" "$tag.sh")
	dir=$W/outputs/$jid/logs
	# the worker has put, and the sampler has seen its key: then kill -9
	# (each step waits for its event; one that does not come fails the
	# case, which then checks nothing of what depended on it)
	if ! await 300 has "$tag-put.out" "PUT k1 rc=0" ||
		! await 120 has "$dir/mooncake_pool_samples.jsonl" '"keys":1'; then
		fail "$tag: the worker put k1 and the sampler saw it before the master was killed ($(tail -3 "$tag-put.out" 2>/dev/null))"
		scancel "$jid"
		return
	fi
	# this job's master: the child of its keeper, whose pid the proof
	# holds (another job's master may still be ending on n1)
	keeper=$(proof_pid "$dir")
	before=$(pgrep -P "$keeper" -x mooncake_master)
	kill -STOP "$keeper"
	kill -9 "$before"
	touch "$tag.go"
	await 300 has "$tag-get.out" 'waiting for mooncake_master'
	kill -CONT "$keeper"
	after=
	await 60 eval 'after=$(pgrep -P "$keeper" -x mooncake_master | grep -vx "$before")'
	wait_job "$jid" 300

	check "$tag: the killed master ($before) was started again on n1, on the same ports ($(grep -o 'mooncake: mooncake_master ended.*' "$dir/mooncake_master.log" | head -c 200))" \
		has "$dir/mooncake_master.log" "mooncake: mooncake_master ended with signal 9 (Killed) after " \
		"; starting it again on ports 8700, 8701, 8702 in 1 s (restart 1 of at most 3)" \
		--and test -n "$before" -a -n "$after" -a "$before" != "$after"
	check "$tag: the worker that put before the restart puts again after it ($(grep -o 'PUT k1-after.*' "$tag-put.out"))" \
		has_re "$tag-put.out" '^n2 PUT k1-after rc=0 after [0-9.]+ s$'
	check "$tag: a role srun started while the master was down waited for it ($(grep -o 'waiting for mooncake_master.*' "$tag-get.out" | head -1 | head -c 240))" \
		has "$tag-get.out" ': its master step is starting it again (it does not accept on port 8700, and its master step starts it again when it has ended (restart=3))'
	check "$tag: ... and read what the worker put after the restart ($(grep -o 'GOT.*' "$tag-get.out" | head -c 80))" \
		has_line "$tag-get.out" 'n1 GOT k1-after=@65536' 'rc=0' --and lacks "$tag-get.out" 'has stopped'
	check "$tag: one master step throughout: it was the step that started the master again" \
		test "$(grep -c '^mooncake-master n1$' "$tag-steps.out")" = 1
	check "$tag: status shows the restart ($(grep restarts "$tag-status.out"))" \
		has_re "$tag-status.out" '^restarts 1 of at most 3 \(restart=\); the last after it ended at .* \(signal 9 \(Killed\)\): the keys it held were lost$'
	check "$tag: the pool's report records the restart, its cause and the key it lost" python3 - "$dir/mooncake_pool_report.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["master"]
r = m["restart"]
ok = m["restarts"] == 1 and m["restart_limit"] == 3 and len(r) == 1 and r[0]["cause"] == "signal 9 (Killed)" and r[0]["keys_lost"] == 1
sys.exit(0 if ok else print(m) or 1)
PY
	check "$tag: the job's end (Slurm's signals to the step) started nothing again: one restart in the log" \
		test "$(grep -c 'starting it again' "$dir/mooncake_master.log")" = 1
	check "$tag: no mooncake_master process is left after the job" test "$(masters_left)" = 0
}

keep r.yaml vllm
keep sg.yaml sglang

# --- restart=0: the master stays dead, and the next srun says so
with_plugin_args restart=0
cat >off.sh <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill true
await 600 test -e off.go || exit 1
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=decode echo TASK-RAN >off.out 2>&1
echo "rc=\$?" >>off.out
EOS
jid=$(sbatch --parsable -N2 -w n1,n2 -o "$W/off.job.out" off.sh)
wait_master n1
await 300 has "$W/outputs/$jid/logs/mooncake_master.json" '"ready"'
kill -9 "$(proof_pid "$W/outputs/$jid/logs")" # with restart=0 the task is the master
touch off.go
wait_job "$jid" 120
check "restart=0: the killed master is not started again, the next srun fails ($(grep -o 'was ready, but.*' off.out | head -c 160))" \
	has off.out 'was ready, but has stopped' rc=1 --and lacks off.out TASK-RAN \
	--and lacks "$W/outputs/$jid/logs/mooncake_master.log" 'starting it again'
check "no mooncake_master process is left" test "$(masters_left)" = 0
