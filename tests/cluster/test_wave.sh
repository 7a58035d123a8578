#!/bin/bash
# The first wave of a big job (issue 20): a 16-node job whose master is not
# running yet starts MCK_WAVE (256) role sruns at once, in MCK_WAVE_ROUNDS
# (2) jobs one after the other; every srun succeeds (no "differs", no "cannot keep the
# previous"), each job has one master step, and every task got its own
# node's client config with the job's master in it. Then an srun from
# outside the allocation, in another directory, joins the job's master
# instead of starting a second one.
MCK_NODES=16
export MCK_NODES
. "$(dirname "$0")/lib.sh"
WAVE=${MCK_WAVE:-256}
W=$(workdir)
cd "$W" || exit 1
trtllm_test_recipe r.yaml
nodes=$(seq -s, -f 'n%g' 1 16)

cat >wave.sh <<EOS
#!/bin/bash
# every srun of the wave at once, spread over the job's 16 nodes
for i in \$(seq $WAVE); do
	n=\$(( (i - 1) % 16 + 1 ))
	srun --overlap -N1 -n1 -w n\$n --mooncake-recipe=r.yaml --mooncake-role=prefill \
		bash -c 'echo "\$SLURMD_NODENAME \$MOONCAKE_CONFIG_PATH"; grep -o "\"master_server_address\": \"[^\"]*\"" "\$MOONCAKE_CONFIG_PATH"' \
		>wave-\$SLURM_JOB_ID-\$i.out 2>&1 &
done
fails=0
for p in \$(jobs -p); do wait \$p || fails=\$((fails + 1)); done
echo "fails=\$fails" >wave-\$SLURM_JOB_ID.rc
squeue --steps -h -j \$SLURM_JOB_ID -o '%i %j' >wave-\$SLURM_JOB_ID.steps
EOS
# every srun of the wave of job $1 printed its node's client config
configs_per_node() {
	local i
	for i in $(seq "$WAVE"); do
		has_re "wave-$1-$i.out" "^n$(((i - 1) % 16 + 1)) $W/outputs/$1/logs/mooncake_store_config_prefill" || return 1
	done
}
for round in $(seq "${MCK_WAVE_ROUNDS:-2}"); do
	jid=$(sbatch --parsable -N16 -w "$nodes" -o "$W/wave-$round.job.out" wave.sh)
	wait_job "$jid" 900
	ok=$(grep -l '"master_server_address": "' wave-"$jid"-*.out 2>/dev/null | wc -l)
	bad=$(grep -l 'mooncake: ' wave-"$jid"-*.out 2>/dev/null | xargs -r grep -h 'error: mooncake: ' | sort | uniq -c | sort -rn | head -3 | tr '\n' ' ')
	check "round $round: all $WAVE sruns of a first wave succeed ($(cat wave-"$jid".rc 2>/dev/null); $ok with a config; ${bad:-no mooncake error})" \
		has_line "wave-$jid.rc" fails=0 --and test "$ok" = "$WAVE"
	check "... with one master step ($(grep -c mooncake-master wave-"$jid".steps 2>/dev/null))" \
		test "$(grep -c mooncake-master wave-"$jid".steps 2>/dev/null)" = 1
	masters_addr=$(cat wave-"$jid"-*.out | sed -n 's/.*"master_server_address": "\([^"]*\)".*/\1/p' | sort -u | tr '\n' ' ')
	check "... and every task has its node's config naming that one master ($masters_addr)" \
		test "$(wc -w <<<"$masters_addr")" = 1 --and configs_per_node "$jid"
done

# --- an srun from outside the allocation, in another directory
oj=$(alloc n1,n2 -N2)
srun --jobid="$oj" -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >out-1.out 2>&1
mkdir elsewhere
(cd elsewhere && srun --jobid="$oj" -N1 -n1 -w n2 --mooncake-recipe="$W/r.yaml" --mooncake-role=prefill printenv MOONCAKE_MASTER) >out-2.out 2>&1
squeue --steps -h -j "$oj" -o '%i %j' >out.steps
scancel "$oj"
wait_job "$oj" 60
check "an srun from outside the allocation in another directory joins the job's master ($(tail -1 out-2.out); $(grep -c mooncake-master out.steps) master step)" \
	test "$(tail -1 out-1.out)" = "$(tail -1 out-2.out)" --and has_re out-2.out "^$MCK_ADDR_n1:" \
	--and test "$(grep -c mooncake-master out.steps)" = 1 --and test ! -e elsewhere/outputs
check "no mooncake_master process is left" test "$(masters_left)" = 0
