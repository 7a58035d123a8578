#!/bin/bash
# Jobs share nodes (issue #10): with ports=auto (the default) two jobs whose
# first node is the same each get a master and a working pool, on different
# ports; so do the tasks of an array job on shared nodes; a heterogeneous
# job has one pool, on its first node, for role sruns in any component; a
# second, different recipe in a running job is refused naming both recipes
# and never rewrites the first one's files, while a recipe with an
# output.log_dir of its own gets its own master and directory; a standalone
# srun (no allocation) prepares its job too.
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
trtllm_test_recipe r.yaml

# ports_of OUT: the port of MOONCAKE_MASTER in a task's output
ports_of() { sed -n 's/^n[0-9] MOONCAKE_MASTER=.*:\([0-9]*\)$/\1/p' "$1" | head -1; }

# --- two jobs, one first node, started together
for j in a b; do
	case $j in a) p=n2 ;; b) p=n3 ;; esac
	cat >"same-$j.sh" <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w $p --mooncake-recipe=r.yaml --mooncake-role=prefill \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT put same-key value-of-$j $W/same-$j.done' >same-$j-prefill.out 2>&1 &
await 120 eval '[ \$(grep -l PUT same-[ab]-prefill.out 2>/dev/null | wc -l) = 2 ]'
srun -N1 -n1 -w n1 --mooncake-recipe=r.yaml --mooncake-role=decode \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT get same-key value-of-$j $W/same-$j.done' >same-$j-decode.out 2>&1
wait
EOS
done
ja=$(sbatch --parsable -N2 -n2 -w n1,n2 -o "$W/same-a.job.out" same-a.sh)
jb=$(sbatch --parsable -N2 -n2 -w n1,n3 -o "$W/same-b.job.out" same-b.sh)
wait_job "$ja" 180
wait_job "$jb" 180
pa=$(ports_of same-a-prefill.out)
pb=$(ports_of same-b-prefill.out)
check "two jobs with first node n1: each master on n1, on different ports ($pa, $pb)" \
	test -n "$pa" --and test -n "$pb" --and test "$pa" != "$pb" \
	--and has same-a-prefill.out "MOONCAKE_MASTER=$MCK_ADDR_n1:" --and has same-b-prefill.out "MOONCAKE_MASTER=$MCK_ADDR_n1:"
check "... one of them on srtctl's 8700" has_line - 8700 <<<"$pa
$pb"
check "... both pools worked at the same time, each with its own value" \
	has_line same-a-decode.out 'n1 GOT same-key=value-of-a' --and has_line same-b-decode.out 'n1 GOT same-key=value-of-b'
check "... the client configs carry the ports the masters really have" \
	has "outputs/$ja/logs/mooncake_store_config_prefill.json" "\"master_server_address\": \"$MCK_ADDR_n1:$pa\"" \
	--and has "outputs/$jb/logs/mooncake_store_config_prefill.json" "\"master_server_address\": \"$MCK_ADDR_n1:$pb\""
check "... and so do the state files" \
	has "outputs/$ja/logs/mooncake_master.json" "\"rpc_port\": $pa," --and has "outputs/$jb/logs/mooncake_master.json" "\"rpc_port\": $pb,"

# --- an array job of 3 tasks on the same nodes, running at once
cat >array.sh <<EOS
#!/bin/bash
. "$MCK_AWAIT"
t=\$SLURM_ARRAY_TASK_ID
srun -N1 -n1 -w n3 --mooncake-recipe=r.yaml --mooncake-role=prefill \\
	bash -c "python3 $CLIENT env && python3 $CLIENT put k v-\$t $W/array-\$t.done" >array-\$t-prefill.out 2>&1 &
await 120 eval '[ \$(grep -l PUT array-[123]-prefill.out 2>/dev/null | wc -l) = 3 ]'
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=decode \\
	bash -c "python3 $CLIENT env && python3 $CLIENT get k v-\$t $W/array-\$t.done" >array-\$t-decode.out 2>&1
wait
EOS
jid=$(sbatch --parsable --array=1-3 -N2 -n2 -w n2,n3 -o "$W/array-%a.job.out" array.sh)
wait_job "$jid" 240
ports=$(for t in 1 2 3; do ports_of array-$t-prefill.out; done | sort -u | xargs)
check "an array job of 3 tasks on n2,n3: three masters on n2, on three ports ($ports)" \
	test "$(wc -w <<<"$ports")" = 3
check "... each task's pool holds its own value" \
	has_line array-1-decode.out 'n2 GOT k=v-1' --and has_line array-2-decode.out 'n2 GOT k=v-2' \
	--and has_line array-3-decode.out 'n2 GOT k=v-3'

# --- a heterogeneous job: one pool, on the job's first node (component 0's)
cat >het.sh <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun --het-group=1 --mooncake-recipe=r.yaml --mooncake-role=prefill \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT put het-key het-value $W/het.done' >het-prefill.out 2>&1 &
await 60 grep -qs PUT het-prefill.out
srun --het-group=0 --mooncake-recipe=r.yaml --mooncake-role=decode \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT get het-key het-value $W/het.done' >het-decode.out 2>&1
wait
timeout 60 srun --het-group=1 hostname >het-plain.out 2>&1
echo "rc=\$?" >>het-plain.out
squeue --steps -h -o '%i %j %N' >het-steps.out
EOS
timeout 200 salloc -N1 -w n1 : -N1 -w n2 bash het.sh >het.out 2>&1
check "heterogeneous job: a role srun in component 1 (n2) gets the pool on the job's first node n1" \
	has_line het-prefill.out "n2 MOONCAKE_MASTER=$MCK_ADDR_n1:8700" --and has_re het-prefill.out '^n2 PUT het-key rc=0'
check "... and one in component 0 (n1) the same pool" grep -qx "n1 GOT het-key=het-value" het-decode.out
check "... one master for the whole job ($(grep -c 'starting mooncake_master' het-prefill.out het-decode.out | tr '\n' ' '))" \
	test "$(cat het-prefill.out het-decode.out | grep -c 'starting mooncake_master')" = 1
check "... a later plain srun in the job neither hangs nor fails; no failed step left ($(tr '\n' ';' <het-steps.out))" \
	has_line het-plain.out n2 --and has het-plain.out rc=0 --and test "$(grep -Evc 'mooncake-(master|pool)' het-steps.out)" = 0

# --- the same from outside the allocation (srun --jobid from another
# shell): the component's srun joins the leader's one pool on n1, and the
# job's other sruns are not broken by it
salloc --no-shell -N1 -w n1 : -N1 -w n2 >het-out.alloc 2>&1
hj=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' het-out.alloc | head -1)
timeout 120 srun --jobid="$hj" --het-group=1 --mooncake-recipe=r.yaml --mooncake-role=prefill \
	python3 "$CLIENT" env >het-out-prefill.out 2>&1
echo "rc=$?" >>het-out-prefill.out
timeout 60 srun --jobid="$hj" --het-group=1 hostname >het-out-plain.out 2>&1
echo "rc=$?" >>het-out-plain.out
squeue --steps -h -j "$hj" -o '%i %j %N' >het-out-steps.out
scancel "$hj"
wait_job "$hj" 60
check "heterogeneous job, srun --jobid=J --het-group=1 from outside the allocation: it joins the pool on the job's first node n1 ($(grep -h 'MOONCAKE_MASTER=\|rc=\|mooncake:' het-out-prefill.out | tr '\n' ' '))" \
	has_line het-out-prefill.out "n2 MOONCAKE_MASTER=$MCK_ADDR_n1:8700" rc=0
check "... the master is a step of the job's leader, on n1 ($(tr '\n' ';' <het-out-steps.out))" \
	grep -Eq "^${hj}\+0\.[0-9]+ mooncake-master n1\$|^${hj}\.[0-9]+ mooncake-master n1\$" het-out-steps.out
check "... and a plain srun in that component still runs ($(tr '\n' ' ' <het-out-plain.out))" \
	has_line het-out-plain.out n2 rc=0

# --- a second recipe in a running job
cp r.yaml r2.yaml
sed -i 's/^name: .*/name: "second recipe"/' r2.yaml
sed 's|^name: |output:\n  log_dir: '"$W"'/own/{job_id}\nname: |' r.yaml >r3.yaml
cat >second.sh <<EOS
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill true >second-1.out 2>&1
sha256sum outputs/\$SLURM_JOB_ID/logs/*.json >second-sums.before
srun -N1 -n1 -w n2 --mooncake-recipe=r2.yaml --mooncake-role=prefill echo TASK-RAN >second-2.out 2>&1
echo "rc=\$?" >>second-2.out
sha256sum outputs/\$SLURM_JOB_ID/logs/*.json >second-sums.after
srun -N1 -n1 -w n3 --mooncake-recipe=r3.yaml --mooncake-role=decode printenv MOONCAKE_MASTER MOONCAKE_CONFIG_PATH >second-3.out 2>&1
echo "rc=\$?" >>second-3.out
EOS
jid=$(run_job second -N3 -w n1,n2,n3)
check "a second, different recipe in a running job is refused, naming both: $(grep -o 'mooncake: the job.*' second-2.out | cut -c1-220)" \
	has second-2.out "mooncake: the job's Mooncake pool in $W/outputs/$jid/logs comes from the recipe $W/r.yaml, and this srun names $W/r2.yaml" rc=1 \
	--and lacks second-2.out TASK-RAN
check "... and the first recipe's files are untouched" cmp -s second-sums.before second-sums.after
port=$(sed -n "s/^$MCK_ADDR_n1:\([0-9]*\)\$/\1/p" second-3.out)
check "a recipe with an output.log_dir of its own gets its own master (other ports) and directory: $(grep -v '^srun' second-3.out | tr '\n' ' ')" \
	test "$port" -ge 8703 --and test "$port" -le 8999 \
	--and has_line second-3.out "$W/own/$jid/mooncake_store_config_decode.$MCK_ADDR_n3.json" --and has second-3.out rc=0

# --- a standalone srun (no allocation) prepares its own job
srun -N1 -w n3 --mooncake-recipe=r.yaml --mooncake-role=decode printenv MOONCAKE_MASTER MOONCAKE_LOCAL_HOSTNAME >alone.out 2>&1
check "a standalone srun gets its pool: $(grep -v '^srun' alone.out | tr '\n' ' ')" \
	has_line alone.out "$MCK_ADDR_n3:8700" "$MCK_ADDR_n3"
check "no mooncake_master process is left" test "$(masters_left)" = 0
