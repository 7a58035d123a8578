#!/bin/bash
# Jobs restart, disks fill (issue 17): a requeued job (scontrol requeue,
# as after a node failure) gets a new pool in the same directory, never
# the first run's; a srun that failed on a full file system leaves nothing
# that makes the next one wait once space is freed; a directory left by
# another job of the same id does not block a new job (issue 33.4).
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
trtllm_test_recipe r.yaml

# --- requeue: run 0 puts a value and requeues itself; run 1 starts a new
# pool (the value is gone with run 0's master) and moves a value of its own
cat >rq.sh <<EOS
#!/bin/bash
run=\${SLURM_RESTART_COUNT:-0}
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill \\
	bash -c "python3 $CLIENT put k v\$run $W/rq-\$run.done" >rq-\$run-prefill.out 2>&1 &
srun -N1 -n1 -w n3 --mooncake-recipe=r.yaml --mooncake-role=decode \\
	bash -c "python3 $CLIENT get k v\$run $W/rq-\$run.done" >rq-\$run-decode.out 2>&1
wait
[ "\$run" = 0 ] && scontrol requeue \$SLURM_JOB_ID && sleep 60
exit 0
EOS
jid=$(sbatch --parsable --requeue -N3 -w n1,n2,n3 -o "$W/rq.job.out" --open-mode=append rq.sh)
# Slurm holds a requeued job back (BeginTime): start it again at once
for _ in $(seq 600); do
	[ "$(scontrol show job -o "$jid" 2>/dev/null | grep -o 'Restarts=[0-9]*')" = Restarts=1 ] &&
		squeue -h -j "$jid" -o %T | grep -q PENDING && break
	sleep 0.2
done
scontrol update JobId="$jid" StartTime=now
wait_job "$jid" 180
check "run 0 of the job moved its value through its pool" grep -qx "n3 GOT k=v0" rq-0-decode.out
check "the requeued run says it starts a new pool ($(grep -ho 'mooncake: job .*requeued.*' rq-1-*.out | head -1))" \
	has - "mooncake: job $jid was requeued (run 1): the pool of its earlier run (0) in $W/outputs/$jid/logs is not reused; starting a new one there" \
	< <(cat rq-1-prefill.out rq-1-decode.out)
check "... and its value goes through the new pool (never 'was ready, but has stopped')" \
	has_line rq-1-decode.out 'n3 GOT k=v1' --and lacks rq-1-prefill.out 'has stopped' --and lacks rq-1-decode.out 'has stopped'
check "... one master started in each run ($(grep -c 'starting mooncake_master' rq-*.out | tr '\n' ' '))" \
	test "$(cat rq-0-*.out | grep -c 'starting mooncake_master')" = 1 -a "$(cat rq-1-*.out | grep -c 'starting mooncake_master')" = 1

# --- a full disk: the job's directory on a small file system that is
# full; the srun fails with its message, space is freed, and the next srun
# starts the pool at once
mkdir small
mount -t tmpfs -o size=256k tmpfs small || exit 1
MCK_EXIT_HOOKS+=("umount '$W/small'")
sed 's|^name: |output:\n  log_dir: '"$W"'/small/{job_id}\nname: |' r.yaml >full.yaml
cat >full.sh <<EOS
#!/bin/bash
dd if=/dev/zero of=$W/small/filler bs=4k 2>/dev/null
srun -N1 -n1 -w n2 --mooncake-recipe=full.yaml --mooncake-role=prefill true >full-1.out 2>&1
echo "rc=\$?" >>full-1.out
rm -f $W/small/filler
t0=\$(date +%s)
srun -N1 -n1 -w n2 --mooncake-recipe=full.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >full-2.out 2>&1
echo "rc=\$? took=\$((\$(date +%s) - t0))" >>full-2.out
EOS
jid=$(run_job full -N3 -w n1,n2,n3)
check "on a full file system the srun fails with a mooncake: message ($(grep -o 'mooncake: .*' full-1.out | head -1 | head -c 200))" \
	has full-1.out rc=1 --and has_re full-1.out 'mooncake: .*No space left on device'
check "... and once space is freed the next srun starts the pool, without waiting for the first one's lock ($(tail -1 full-2.out))" \
	has_re full-2.out "^$MCK_ADDR_n1:[0-9]*\$" --and has full-2.out rc=0 \
	--and test "$(sed -n 's/.*took=//p' full-2.out)" -lt 30 --and lacks full-2.out 'waiting for'

# --- a directory left by another job of the same id (issue 33.4): a
# cluster whose job ids began again, and the same submit directory. Job B
# finds, in its directory, the ready pool of an earlier job A that got B's
# id (A's directory, its state made to name B's id): B starts its own
# pool there, keeps A's log, and says so
cat >first.sh <<'EOS'
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >first.out 2>&1
EOS
ja=$(run_job first -N3 -w n1,n2,n3)
cat >again.sh <<'EOS'
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >again.out 2>&1
echo "rc=$?" >>again.out
EOS
jb=$(sbatch --parsable --hold -N3 -w n1,n2,n3 -o "$W/again.job.out" again.sh)
mkdir -p "outputs/$jb" && cp -a "outputs/$ja/logs" "outputs/$jb/logs"
sed -i "s/\"job_id\": \"$ja\"/\"job_id\": \"$jb\"/" "outputs/$jb/logs/mooncake_master.json"
astart=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job_start"])' "outputs/$jb/logs/mooncake_master.json")
scontrol release "$jb"
wait_job "$jb" 120
check "a directory holding the pool of another job of the same id: the new job starts its own pool there and says so, keeping the old job's log ($(grep -o 'mooncake: .*held the pool of another job.*' again.out | head -c 250))" \
	has again.out rc=0 "held the pool of another job $jb (cluster " "which has ended: this job's pool starts afresh there" \
	--and has_line again.out "$MCK_ADDR_n1:8700" --and lacks again.out "has stopped" \
	--and test -s "outputs/$jb/logs/mooncake_master.log.job$jb-$astart"
check "no mooncake_master process is left" test "$(masters_left)" = 0
