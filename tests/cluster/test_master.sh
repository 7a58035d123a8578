#!/bin/bash
# The master under concurrency and faults (issue #4): one master for any
# number of concurrent sruns; a dead starter's lock does not block; a
# foreign listener is not taken for the master; a master that exits during
# start-up fails every waiting srun at once with its status and log; the
# timeout names the port that never answered; an srun that comes while a
# slow master starts joins it at once and its task waits for ready; a
# master that was ready and died fails the next srun with a message that
# says so.
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
trtllm_test_recipe r.yaml

# --- A: six sruns at once, then a later one
cat >many.sh <<'EOS'
#!/bin/bash
for i in 1 2 3; do
	srun -N1 -n1 --exact -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill sleep 3 >many-p$i.out 2>&1 &
	srun -N1 -n1 --exact -w n3 --mooncake-recipe=r.yaml --mooncake-role=decode sleep 3 >many-d$i.out 2>&1 &
done
sleep 2
squeue --steps -h -j $SLURM_JOB_ID -o '%j %N' >many-steps.out
wait
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >many-later.out 2>&1
squeue --steps -h -j $SLURM_JOB_ID -o '%j %N' >>many-steps.out
EOS
jid=$(run_job many -N3 -w n1,n2,n3 -n6)
log=$W/outputs/$jid/logs/mooncake_master.log
check "six concurrent sruns: all succeeded" not grep -q error many-[pd]*.out
check "six concurrent sruns: exactly one of them started the master" \
	test "$(cat many-[pd]*.out | grep -c 'starting mooncake_master')" = 1
check "six concurrent sruns: one mooncake-master step, on n1 (twice listed: during and after)" \
	test "$(grep -c '^mooncake-master n1$' many-steps.out)" = 2
check "six concurrent sruns: one master process ran (one start in its log)" \
	test "$(grep -c 'Master service started' "$log")" = 1
check "a later srun reuses the running master quietly" \
	has_line many-later.out "$MCK_ADDR_n1:8700" --and lacks many-later.out starting

# --- B: a starter that died before the master came up leaves a lock behind
cat >stale.sh <<'EOS'
#!/bin/bash
mkdir -p outputs/$SLURM_JOB_ID/logs
echo "2147480000 $(hostname)" >outputs/$SLURM_JOB_ID/logs/mooncake_master.1.lock
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >stale.out 2>&1
EOS
jid=$(run_job stale -N3 -w n1,n2,n3)
check "a dead starter's lock does not block: the next srun takes over" \
	has stale.out 'taking over' --and has_line stale.out "$MCK_ADDR_n1:8700"

# --- C: a foreign listener on 8701 of the infra node: never taken for the
# master. With ports=auto (the default) the master takes other ports; with
# ports=fixed the srun fails at once, saying why.
"$CLUSTER" exec n1 python3 -c 'import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 8701)); s.listen(); time.sleep(120)' &
squatter=$!
sleep 1
cat >foreign.sh <<'EOS'
#!/bin/bash
SECONDS=0
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER MOONCAKE_TE_META_DATA_SERVER >foreign.out 2>&1
echo "rc=$? after=$SECONDS" >>foreign.out
EOS
jid=$(run_job foreign -N3 -w n1,n2,n3)
check "ports=auto: a foreign listener on 8701 makes the master take other ports: $(grep -o 'starting mooncake_master.*ports [0-9, ]*' foreign.out)" \
	has_re foreign.out "starting mooncake_master on n1 \\($MCK_ADDR_n1, ports 8[789][0-9][0-9], " \
	--and lacks foreign.out 'ports 8700, 8701, 8702' --and has foreign.out rc=0
p=$(sed -n "s/^$MCK_ADDR_n1:\([0-9]*\)\$/\1/p" foreign.out)
meta=none
[[ $p =~ ^[0-9]+$ ]] && meta=http://$MCK_ADDR_n1:$((p + 1))/metadata
check "... and the task's MOONCAKE_MASTER and metadata server carry them: $(grep -v '^srun' foreign.out | head -2 | tr '\n' ' ')" \
	test -n "$p" --and test "$p" != 8700 --and has_line foreign.out "$meta"
with_plugin_args ports=fixed
jid=$(run_job foreign -N3 -w n1,n2,n3)
with_plugin_args ""
kill "$squatter"
wait "$squatter" 2>/dev/null
check "ports=fixed: the foreign listener is named: $(grep mooncake: foreign.out | head -c 250)" \
	grep -q "port 8701 on the infra node n1 ($MCK_ADDR_n1) is already in use by another process" foreign.out
check "... the srun fails (non-zero, no task ran) within seconds: $(tail -1 foreign.out)" \
	lacks_re foreign.out "^$MCK_ADDR_n1" --and has_re foreign.out 'rc=[1-9][0-9]* after=[0-9]$'

# --- C2: ports=fixed, two jobs whose infra node is the same node: the
# second is told why
cat >hold.sh <<'EOS'
#!/bin/bash
srun -N1 -n1 --mooncake-recipe=r.yaml --mooncake-role=prefill sleep 20
EOS
cat >second.sh <<'EOS'
#!/bin/bash
srun -N1 -n1 --mooncake-recipe=r.yaml --mooncake-role=prefill echo TASK-RAN >second.out 2>&1
EOS
with_plugin_args ports=fixed
first=$(sbatch --parsable -N1 -w n1 -n1 -o "$W/hold.job.out" hold.sh)
wait_master n1
sleep 2
jid=$(run_job second -N1 -w n1 -n1)
scancel "$first"
wait_job "$first" 60
with_plugin_args ""
check "ports=fixed: a second job on the same infra node is told why: $(grep -m1 -o 'port 870[0-2] on the infra node.*' second.out | cut -c1-160)" \
	has second.out 'Only one job at a time can use a node as its infra node' --and lacks second.out TASK-RAN

# --- D: a master that exits during start-up (an unknown flag in args)
sed 's/^    type: mooncake-master$/    type: mooncake-master\n    args: ["--no_such_flag=1"]/' r.yaml >badflag.yaml
cat >badflag.sh <<'EOS'
#!/bin/bash
SECONDS=0
srun -N1 -n1 --exact -w n2 --mooncake-recipe=badflag.yaml --mooncake-role=prefill echo TASK-RAN >badflag-p.out 2>&1 &
srun -N1 -n1 --exact -w n3 --mooncake-recipe=badflag.yaml --mooncake-role=decode echo TASK-RAN >badflag-d.out 2>&1 &
wait
echo "after=$SECONDS" >badflag.time
# the user fixes the recipe: a later srun of the same job tries again
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >badflag-retry.out 2>&1
EOS
jid=$(run_job badflag -N3 -w n1,n2,n3)
cat badflag-p.out badflag-d.out >badflag-both.out
check "startup failure: both sruns failed, no task ran" \
	lacks badflag-both.out TASK-RAN --and has badflag-p.out mooncake: --and has badflag-d.out mooncake:
check "startup failure: reported with the exit status and the log's last lines" \
	has badflag-both.out 'ended during start-up (exit status 1)' \
	--and has_re badflag-both.out 'unknown command line flag .no_such_flag'
check "startup failure: the other srun failed at once with the same cause" \
	has badflag-both.out 'could not be started (another srun of this job tried)'
check "startup failure: both failed long before the 120 s timeout ($(cat badflag.time))" \
	test "$(sed 's/after=//' badflag.time)" -lt 30
check "startup failure: a later srun with a fixed recipe starts the master" \
	has badflag-retry.out 'earlier attempt to start the master failed; trying again' \
	--and has_line badflag-retry.out "$MCK_ADDR_n1:8700"

# --- E: the timeout names the port that never answered
sed 's/^    type: mooncake-master$/    type: mooncake-master\n    command: [sleep, "60"]\n    readiness: {port: 8700, timeout_seconds: 3}/' r.yaml >slow.yaml
cat >slow.sh <<'EOS'
#!/bin/bash
SECONDS=0
srun -N1 -n1 -w n2 --mooncake-recipe=slow.yaml --mooncake-role=prefill echo TASK-RAN >slow.out 2>&1
echo "after=$SECONDS" >slow.time
squeue --steps -h -j $SLURM_JOB_ID -o '%j %N' >slow-steps.out
EOS
jid=$(run_job slow -N3 -w n1,n2,n3)
check "timeout: says which port never answered: $(grep -o 'was not ready.*answered\|was not ready[^;]*' slow.out | head -1)" \
	grep -q "was not ready after 3 s: port 8700 (RPC) does not accept: Connection refused; it was stopped" slow.out
check "timeout: the half-started master step was stopped" lacks slow-steps.out mooncake-master
check "timeout: bounded ($(cat slow.time))" test "$(sed 's/after=//' slow.time)" -lt 20

# --- E2: a master slow to start (master= a wrapper that waits 3 s): an
# srun that comes once its step is launched joins it at once, its step is
# created meanwhile, and its task starts only when the master is ready; a
# master that then fails fails that task with the starter's cause
cat >slow-master <<'EOS'
#!/bin/bash
sleep 3
[ -e "$(dirname "$0")/slow-master.fails" ] && { echo "slow-master: gave up" >&2; exit 3; }
exec mooncake_master "$@"
EOS
chmod 755 slow-master
cat >early.sh <<'EOS'
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill true >early-1.out 2>&1 &
await 60 grep -Eqs '"srun_pid": [1-9]' outputs/$SLURM_JOB_ID/logs/mooncake_master.json
srun -v -N1 -n1 -w n3 --mooncake-recipe=r.yaml --mooncake-role=decode \
	bash -c '(exec 3<>/dev/tcp/${MOONCAKE_MASTER%:*}/${MOONCAKE_MASTER##*:}) && echo TASK-RAN, THE MASTER ACCEPTS' >early-2.out 2>&1
echo "rc=$?" >>early-2.out
wait
EOS
with_plugin_args "master=$W/slow-master"
jid=$(run_job early -N3 -w n1,n2,n3)
check "a master slow to start: an srun that came meanwhile joined it before it was ready: $(grep -o 'mooncake: joined.*' early-2.out | head -c 160)" \
	has early-2.out "mooncake: joined job $jid's mooncake_master while it starts on n1 ($MCK_ADDR_n1)" \
	--and lacks early-2.out 'waiting for mooncake_master'
check "... its task started once the master accepted: $(grep -v '^srun' early-2.out | head -3 | tr '\n' ' ')" \
	has early-2.out 'TASK-RAN, THE MASTER ACCEPTS' rc=0 --and has early-1.out 'mooncake_master ready on n1'
touch slow-master.fails
jid=$(run_job early -N3 -w n1,n2,n3)
rm -f slow-master.fails
with_plugin_args ""
check "... a master that then fails fails the joined step's task with the cause: $(grep -o 'mooncake: the job.*' early-2.out | head -c 200)" \
	has early-2.out "mooncake: joined job $jid's" \
	"mooncake: the job's mooncake_master could not be started (another srun of this job tried): the master step (mooncake_master on n1) ended during start-up (exit status 3)" \
	'slow-master: gave up' --and lacks early-2.out TASK-RAN --and lacks early-2.out rc=0

# --- F: a master that was ready and died
cat >died.sh <<'EOS'
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill true
step=$(squeue --steps -h -j $SLURM_JOB_ID -o '%i %j' | awk '$2 == "mooncake-master" {print $1}')
scancel "$step"
sleep 3
srun -N1 -n1 -w n3 --mooncake-recipe=r.yaml --mooncake-role=decode echo TASK-RAN >died.out 2>&1
echo "rc=$?" >>died.out
EOS
jid=$(run_job died -N3 -w n1,n2,n3)
check "a master that was ready and died fails the next srun: $(grep -o 'was ready, but.*' died.out | head -c 200)" \
	has died.out 'was ready, but has stopped' "outputs/$jid/logs/mooncake_master.log" rc=1 --and lacks died.out TASK-RAN
check "no mooncake_master process is left" test "$(masters_left)" = 0
