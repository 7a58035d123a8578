#!/bin/bash
# TRT-LLM end to end (issue #2): an sbatch -N3 job starts a prefill srun on
# n2 and a decode srun on n3 at the same time with the PR's example recipe;
# one mooncake-master step runs on n1; each task's MOONCAKE_CONFIG_PATH names
# its role's file whose master_server_address is its MOONCAKE_MASTER, the
# infra node's own address (issue #7), and its MOONCAKE_LOCAL_HOSTNAME is its
# own node's; a real Mooncake client in the prefill task puts a value the
# decode task reads.
. "$(dirname "$0")/lib.sh"
W=$(workdir)
trtllm_test_recipe "$W/recipe.yaml"
cat >"$W/job.sh" <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 --mooncake-recipe=recipe.yaml --mooncake-role=prefill \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT put pool-key hello-from-prefill $W/done' >$W/prefill.out 2>&1 &
srun -N1 -n1 -w n3 --mooncake-recipe=recipe.yaml --mooncake-role=decode \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT get pool-key hello-from-prefill $W/done' >$W/decode.out 2>&1 &
await 60 grep -qs PUT $W/prefill.out
squeue --steps -h -j \$SLURM_JOB_ID -o '%j %N' >$W/steps.out
wait
EOS
cd "$W" || exit 1
jid=$(sbatch --parsable -N3 -w n1,n2,n3 -o "$W/job.out" "$W/job.sh")
wait_job "$jid" 180
dir=$W/outputs/$jid/logs
# the test nodes' names resolve to no address, so TRT-LLM's own guess of
# it would fail: each node reads its role's file plus its local_hostname
check "prefill task ran on n2 with MOONCAKE_CONFIG_PATH=$dir/mooncake_store_config_prefill.$MCK_ADDR_n2.json" \
	grep -qx "n2 MOONCAKE_CONFIG_PATH=$dir/mooncake_store_config_prefill.$MCK_ADDR_n2.json" "$W/prefill.out"
check "decode task ran on n3 with MOONCAKE_CONFIG_PATH=$dir/mooncake_store_config_decode.$MCK_ADDR_n3.json" \
	grep -qx "n3 MOONCAKE_CONFIG_PATH=$dir/mooncake_store_config_decode.$MCK_ADDR_n3.json" "$W/decode.out"
check "... which is the role's file, byte for byte as srtctl writes it, plus the node's local_hostname" \
	diff <(head -c -2 "$dir/mooncake_store_config_decode.json"; printf ',\n  "local_hostname": "%s"\n}' "$MCK_ADDR_n3") \
	"$dir/mooncake_store_config_decode.$MCK_ADDR_n3.json"
check "TRT-LLM's reader announces each node's own address (from that file)" \
	has_line "$W/prefill.out" "n2 ENGINE_LOCAL_HOSTNAME=$MCK_ADDR_n2" --and has_line "$W/decode.out" "n3 ENGINE_LOCAL_HOSTNAME=$MCK_ADDR_n3"
for role in prefill decode; do
	m=$(sed -n 's/^n[0-9] MOONCAKE_MASTER=//p' "$W/$role.out")
	f=$(sed -n 's/^n[0-9] FILE_MASTER=//p' "$W/$role.out")
	check "$role: master_server_address in the file ($f) equals MOONCAKE_MASTER ($m)" \
		test -n "$m" -a "$m" = "$f"
	check "$role: MOONCAKE_MASTER is the infra node n1's own address ($m)" test "$m" = "$MCK_ADDR_n1:8700"
done
check "each task's MOONCAKE_LOCAL_HOSTNAME is its own node's address" \
	has_line "$W/prefill.out" "n2 MOONCAKE_LOCAL_HOSTNAME=$MCK_ADDR_n2" --and has_line "$W/decode.out" "n3 MOONCAKE_LOCAL_HOSTNAME=$MCK_ADDR_n3"
check "the metadata server is the infra node's" grep -qx "n3 MOONCAKE_TE_META_DATA_SERVER=http://$MCK_ADDR_n1:8701/metadata" "$W/decode.out"
check "prefill's file has role both" grep -qx "n2 FILE_ROLE=both" "$W/prefill.out"
check "decode's file has role capacity" grep -qx "n3 FILE_ROLE=capacity" "$W/decode.out"
check "squeue --steps shows exactly one mooncake-master step, on n1 ($(tr '\n' ';' <"$W/steps.out"))" \
	test "$(grep -c '^mooncake-master ' "$W/steps.out")" = 1 -a "$(grep '^mooncake-master ' "$W/steps.out" | cut -d' ' -f2)" = n1
check "the prefill client put the value (rc=0)" grep -q "^n2 PUT pool-key rc=0" "$W/prefill.out"
check "the decode client read back what prefill put" grep -qx "n3 GOT pool-key=hello-from-prefill" "$W/decode.out"
check "the master's log is in the job's directory" grep -q "Master service started" "$dir/mooncake_master.log"
check "no mooncake_master process is left after the job" test "$(masters_left)" = 0
if [ -n "${MCK_VERBOSE:-}" ]; then tail -n +1 "$W"/*.out; fi
