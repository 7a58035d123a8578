#!/bin/bash
# What only a network of separate hosts shows (issue #7): a value moved by
# real clients crosses the switch between two hosts; interface= puts the
# workers on a second NIC and the data over it; two jobs with different
# first nodes run at the same time, each with its own master and pool; a
# cable pull on the infra node for a few seconds does not fail a new srun,
# and a permanent one fails it within the readiness bound, saying the master
# is unreachable (not that it stopped).
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
trtllm_test_recipe r.yaml
vllm_test_recipe vllm.yaml
sglang_test_recipe sglang.yaml
MIB4=@4194304

# pair NAME PREFILL_NODE DECODE_NODE [sbatch options]: a job whose prefill
# task puts 4 MiB that its decode task reads back (the recipe: $RECIPE,
# default r.yaml)
pair() {
	local name=$1 p=$2 d=$3 jid
	shift 3
	cat >"$name.sh" <<EOS
#!/bin/bash
srun -N1 -n1 -w $p --mooncake-recipe=${RECIPE:-r.yaml} --mooncake-role=prefill \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT put big $MIB4 $W/$name.done' >$name-prefill.out 2>&1 &
srun -N1 -n1 -w $d --mooncake-recipe=${RECIPE:-r.yaml} --mooncake-role=decode \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT get big $MIB4 $W/$name.done' >$name-decode.out 2>&1 &
wait
EOS
	jid=$(sbatch --parsable -o "$W/$name.job.out" "$@" "$name.sh")
	echo "$jid"
}

# --- a real client moves a value between two hosts, over the switch
before=$(($("$CLUSTER" traffic n2) + $("$CLUSTER" traffic n3)))
jid=$(pair cross n2 n3 -N3 -w n1,n2,n3)
wait_job "$jid" 180
after=$(($("$CLUSTER" traffic n2) + $("$CLUSTER" traffic n3)))
check "a real client on n2 put 4 MiB that a real client on n3 read back" grep -qx "n3 GOT big=$MIB4" cross-decode.out
check "... and the 4 MiB crossed the switch between the hosts ($((after - before)) bytes through n2's and n3's ports)" \
	test $((after - before)) -ge 4194304

# --- interface=: the workers' address is the one of that NIC, and the
# data goes over it (the master stays on the node's NodeAddr)
with_plugin_args interface=eth1
before=$(($("$CLUSTER" traffic n2 data) + $("$CLUSTER" traffic n3 data)))
jid=$(pair nic n2 n3 -N3 -w n1,n2,n3)
wait_job "$jid" 180
after=$(($("$CLUSTER" traffic n2 data) + $("$CLUSTER" traffic n3 data)))
nic_dir=$W/outputs/$jid/logs
# the other engines, each read by its own reader
jid=$(RECIPE=vllm.yaml pair nic-vllm n2 n3 -N3 -w n1,n2,n3)
wait_job "$jid" 180
jid=$(RECIPE=sglang.yaml pair nic-sglang n2 n3 -N3 -w n1,n2,n3)
wait_job "$jid" 180
with_plugin_args ""
check "interface=eth1: each task's MOONCAKE_LOCAL_HOSTNAME is its node's eth1 address" \
	has_line nic-prefill.out "n2 MOONCAKE_LOCAL_HOSTNAME=$MCK_DATA_ADDR_n2" --and has_line nic-decode.out "n3 MOONCAKE_LOCAL_HOSTNAME=$MCK_DATA_ADDR_n3"
for e in nic nic-vllm nic-sglang; do
	check "interface=eth1: $e: the engine's own reader announces each node's eth1 address ($(grep -h ENGINE_LOCAL_HOSTNAME $e-prefill.out $e-decode.out | xargs))" \
		has_line "$e-prefill.out" "n2 ENGINE_LOCAL_HOSTNAME=$MCK_DATA_ADDR_n2" --and has_line "$e-decode.out" "n3 ENGINE_LOCAL_HOSTNAME=$MCK_DATA_ADDR_n3"
	check "interface=eth1: $e: the value went n2 -> n3 ($(grep -h GOT $e-decode.out))" grep -qx "n3 GOT big=$MIB4" $e-decode.out
done
check "interface=eth1: TRT-LLM, which reads the address only from its file, gets a file per node with local_hostname" \
	has "$nic_dir/mooncake_store_config_prefill.$MCK_DATA_ADDR_n2.json" "\"local_hostname\": \"$MCK_DATA_ADDR_n2\"" \
	--and has_line nic-decode.out "n3 MOONCAKE_CONFIG_PATH=$nic_dir/mooncake_store_config_decode.$MCK_DATA_ADDR_n3.json"
check "interface=eth1: the master is still reached at the infra node's NodeAddr" grep -qx "n3 MOONCAKE_MASTER=$MCK_ADDR_n1:8700" nic-decode.out
check "interface=eth1: ... over the second network ($((after - before)) bytes through n2's and n3's eth1 ports)" \
	test $((after - before)) -ge 4194304

# --- two jobs at once with different first nodes: two masters, two pools.
# Both put the same key; each reads back its own value, and each waits for
# the other's put, so both pools are up at the same time.
for j in a b; do
	case $j in a) p=n2 d=n1 ;; b) p=n4 d=n3 ;; esac
	cat >"two-$j.sh" <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w $p --mooncake-recipe=r.yaml --mooncake-role=prefill \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT put same-key value-of-$j $W/two-$j.done' >two-$j-prefill.out 2>&1 &
await 120 eval '[ \$(grep -l PUT two-[ab]-prefill.out 2>/dev/null | wc -l) = 2 ]'
$NSPGREP -x mooncake_master | wc -l >two-$j-masters.out
srun -N1 -n1 -w $d --mooncake-recipe=r.yaml --mooncake-role=decode \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT get same-key value-of-$j $W/two-$j.done' >two-$j-decode.out 2>&1
wait
EOS
done
ja=$(sbatch --parsable -N2 -w n1,n2 -o "$W/two-a.job.out" two-a.sh)
jb=$(sbatch --parsable -N2 -w n3,n4 -o "$W/two-b.job.out" two-b.sh)
wait_job "$ja" 180
wait_job "$jb" 180
check "two jobs at once: job A's tasks use the master on its first node n1 ($MCK_ADDR_n1:8700)" \
	has_line two-a-prefill.out "n2 MOONCAKE_MASTER=$MCK_ADDR_n1:8700" --and has_line two-a-decode.out "n1 MOONCAKE_MASTER=$MCK_ADDR_n1:8700"
check "two jobs at once: job B's tasks use the master on its first node n3 ($MCK_ADDR_n3:8700)" \
	has_line two-b-prefill.out "n4 MOONCAKE_MASTER=$MCK_ADDR_n3:8700" --and has_line two-b-decode.out "n3 MOONCAKE_MASTER=$MCK_ADDR_n3:8700"
check "two jobs at once: both masters ran at the same time, one on each first node" \
	test "$(cat two-a-masters.out)" = 1 --and test "$(cat two-b-masters.out)" = 1 \
	--and has two-a-prefill.out PUT --and has two-b-prefill.out PUT
check "two jobs at once: each pool holds its own job's value under the same key" \
	has_line two-a-decode.out 'n1 GOT same-key=value-of-a' --and has_line two-b-decode.out 'n3 GOT same-key=value-of-b'

# --- a cable pull on the infra node. The job's sruns run on the login
# host (salloc), so every probe of the master crosses the switch.
sed 's/^    type: mooncake-master$/    type: mooncake-master\n    readiness: {port: 8700, timeout_seconds: 8}/' r.yaml >r8.yaml
cat >cable.sh <<EOS
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=r8.yaml --mooncake-role=prefill true >cable-start.out 2>&1
# a blip: 3 s without a cable, while a new srun joins the master
$CLUSTER link n1 down
(sleep 3; $CLUSTER link n1 up) &
SECONDS=0
srun -N1 -n1 -w n3 --mooncake-recipe=r8.yaml --mooncake-role=decode printenv MOONCAKE_MASTER >cable-blip.out 2>&1
echo "rc=\$? after=\$SECONDS" >>cable-blip.out
wait
# a cut: the cable stays out
$CLUSTER link n1 down
SECONDS=0
srun -N1 -n1 -w n3 --mooncake-recipe=r8.yaml --mooncake-role=decode echo TASK-RAN >cable-cut.out 2>&1
echo "rc=\$? after=\$SECONDS" >>cable-cut.out
$CLUSTER link n1 up
EOS
salloc -N3 -w n1,n2,n3 bash cable.sh >cable.out 2>&1
"$CLUSTER" link n1 up
check "a 3 s cable pull on the infra node does not fail a new srun: $(tr '\n' ' ' <cable-blip.out | cut -c1-200)" \
	has_line cable-blip.out "$MCK_ADDR_n1:8700" --and has cable-blip.out rc=0
check "... it says it is asking again, and when the master answers again" \
	has_re cable-blip.out "mooncake: waiting for mooncake_master on n1 \\($MCK_ADDR_n1\\), [0-9] s of at most 8 s: it does not answer from this node, asking again" \
	--and has cable-blip.out "mooncake: mooncake_master on n1 ($MCK_ADDR_n1) answers again after"
check "a permanent cut fails the srun, no task ran: $(grep -o 'mooncake: the job.*' cable-cut.out | cut -c1-200)" \
	has cable-cut.out rc=1 --and lacks cable-cut.out TASK-RAN
check "... saying the master is unreachable from this node, not that it stopped" \
	has cable-cut.out "mooncake: the job's mooncake_master on n1 ($MCK_ADDR_n1) was ready, but this node (login) cannot reach it: no answer within 8 s" \
	--and lacks cable-cut.out 'has stopped'
check "... within the readiness bound (8 s): $(grep -o 'after=.*' cable-cut.out)" \
	test "$(sed -n 's/.*after=//p' cable-cut.out)" -le 12
check "no mooncake_master process is left" test "$(masters_left)" = 0
