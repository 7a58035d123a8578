#!/bin/bash
# Every job's pool starts, whatever its neighbours do (issue 33):
#   A. two jobs whose infra node is the same start together, each with a
#      prefill and a decode srun at once, MCK_RACE_ROUNDS times in a row (10;
#      1 in the matrix chroots): one job's master takes the ports the other
#      job's starter chose, that starter tries the next ones, and an srun of
#      its job that joined the master while it was starting on the first
#      ones follows it to where it became ready. Every srun succeeds, every
#      task is handed the address its job's master is ready at, and the
#      decode task reads what its job's prefill task put.
#   B. a starter that died and left an empty lock (a full disk, a kill at
#      the wrong moment): the next srun takes over
#   C. a starter that is merely stopped (SIGSTOP, then SIGCONT) holds its
#      lock all along: an srun from another host joins its master and is
#      never taken for a takeover
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
trtllm_test_recipe r.yaml
ROUNDS=${MCK_RACE_ROUNDS:-10}

# a master slow to start (its step claims its ports at once, then 2 s
# pass before it binds them): the window in which the other job's starter
# finds the ports taken, and a second srun of its job joins it
cat >slow-master <<'EOS'
#!/bin/sh
sleep 2
exec mooncake_master "$@"
EOS
chmod 755 slow-master
with_plugin_args "master=$W/slow-master"

# ready_master DIR: the address the job's state says its master is ready at
ready_master() {
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("%s:%d" % (s["infra_addr"], s["rpc_port"]) if s["state"] == "ready" else "")' \
		"$1/mooncake_master.json" 2>/dev/null
}

# --- A: the ports race, ROUNDS rounds of two jobs
for j in a b; do
	case $j in a) p=n2 ;; b) p=n3 ;; esac
	cat >"race-$j.sh" <<EOS
#!/bin/bash
r=\$1
srun -v -N1 -n1 -w $p --mooncake-recipe=r.yaml --mooncake-role=prefill \\
	bash -c "python3 $CLIENT env && python3 $CLIENT put race-key v-$j-\$r $W/race-$j-\$r.done" >race-$j-\$r-prefill.out 2>&1 &
sleep 0.3
srun -v -N1 -n1 -w n1 --mooncake-recipe=r.yaml --mooncake-role=decode \\
	bash -c "python3 $CLIENT env && python3 $CLIENT get race-key v-$j-\$r $W/race-$j-\$r.done" >race-$j-\$r-decode.out 2>&1
echo "rc=\$?" >>race-$j-\$r-decode.out
wait %1
echo "rc=\$?" >>race-$j-\$r-prefill.out
EOS
done
ok=0 moved=0 followed=0 bad=""
for r in $(seq "$ROUNDS"); do
	await 120 nodes_idle n1,n2,n3 || true
	ja=$(sbatch --parsable -N2 -n2 -w n1,n2 -o "$W/race-a-$r.job.out" race-a.sh "$r")
	jb=$(sbatch --parsable -N2 -n2 -w n1,n3 -o "$W/race-b-$r.job.out" race-b.sh "$r")
	wait_job "$ja" 240
	wait_job "$jb" 240
	round_ok=true
	for j in a b; do
		case $j in a) jid=$ja ;; b) jid=$jb ;; esac
		m=$(ready_master "outputs/$jid/logs")
		for role in prefill decode; do
			f=race-$j-$r-$role.out
			if ! has_line "$f" rc=0 || [ -z "$m" ] || ! has_re "$f" "^n[0-9] MOONCAKE_MASTER=${m//./\\.}\$"; then
				round_ok=false
				bad="$bad $f"
			fi
		done
		has_re "race-$j-$r-decode.out" "^n1 GOT race-key=v-$j-$r$" || { round_ok=false; bad="$bad race-$j-$r-decode.out"; }
		# the race happened: this job's starter found its first ports taken
		if grep -qh 'are taken on n1.*trying others' race-$j-$r-*.out; then
			moved=$((moved + 1))
			grep -qh 'while it starts on n1' race-$j-$r-*.out && followed=$((followed + 1))
		fi
	done
	$round_ok && ok=$((ok + 1))
done
check "two jobs started together on one infra node, $ROUNDS rounds in a row: every srun succeeded, every task got the address its job's master became ready at, every decode read its job's value ($ok of $ROUNDS rounds; a starter moved to other ports in $moved pools, $followed of them with an srun that had joined it on the ports it left)${bad:+; failed:$bad}" \
	test "$ok" = "$ROUNDS"
with_plugin_args ""

# --- B: an empty lock of a starter that died: the next srun takes over
cat >empty.sh <<'EOS'
#!/bin/bash
mkdir -p outputs/$SLURM_JOB_ID/logs
: >outputs/$SLURM_JOB_ID/logs/mooncake_master.1.lock
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >empty.out 2>&1
echo "rc=$?" >>empty.out
EOS
jid=$(run_job empty -N3 -w n1,n2,n3)
check "an empty lock a starter that died left: the next srun takes over and its task gets the master" \
	has empty.out 'taking over' --and has_line empty.out rc=0 --and has_line empty.out "$MCK_ADDR_n1:8700" \
	--and test -e "outputs/$jid/logs/mooncake_master.2.lock"

# --- C: a starter stopped for 8 s (longer than a dead one's lock is given)
# while its master starts: an srun from the login host (another host than
# the starter's, n1) joins, nobody takes over, and both steps run
cat >slow-master <<'EOS'
#!/bin/sh
sleep 4
exec mooncake_master "$@"
EOS
with_plugin_args "master=$W/slow-master"
cat >stopped.sh <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >stopped-starter.out 2>&1 &
starter=\$!
await 60 grep -q '"srun_pid": [1-9]' outputs/\$SLURM_JOB_ID/logs/mooncake_master.json
kill -STOP \$starter
touch $W/stopped.now
await 120 test -e $W/stopped.go
kill -CONT \$starter
wait \$starter
echo "rc=\$?" >>stopped-starter.out
EOS
jid=$(sbatch --parsable -N3 -w n1,n2,n3 -o "$W/stopped.job.out" stopped.sh)
await 90 test -e stopped.now
srun --jobid="$jid" -N1 -n1 -w n3 --mooncake-recipe=r.yaml --mooncake-role=decode printenv MOONCAKE_MASTER >stopped-joiner.out 2>&1 &
joiner=$!
sleep 8
touch stopped.go
wait $joiner
echo "rc=$?" >>stopped-joiner.out
wait_job "$jid" 120
check "a starter stopped for 8 s while its master starts is not taken over: no second attempt" \
	test ! -e "outputs/$jid/logs/mooncake_master.2.lock" --and lacks stopped-joiner.out 'taking over'
check "... the srun from another host and the stopped starter both got the master" \
	has_line stopped-joiner.out rc=0 --and has_line stopped-joiner.out "$MCK_ADDR_n1:8700" \
	--and has_line stopped-starter.out rc=0 --and has_line stopped-starter.out "$MCK_ADDR_n1:8700"
with_plugin_args ""
exit 0
