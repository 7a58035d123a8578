#!/bin/bash
# An HA pool (issue #19, plugstack ha=etcd): a job of four nodes gets one
# master step whose tasks run a master in Mooncake's HA mode on each of
# its first three nodes, with an etcd member each. A worker on n4 puts a
# key; the leader's master is killed with kill -9 and, later, the next
# leader's node loses its cable for good: each time a key put before is
# read after, within a bound the test prints, by a role srun started
# during the failover; status shows leader and standbys. Then a two-node
# job (one etcd member), another user's attacks on a pool's etcd and a
# standby's port (issue 35), and the refusals. Nothing is left after a
# job: no master, no etcd, no etcd data.
#
# The sruns run on the login host (srun --jobid into an allocation of
# salloc --no-shell --no-kill), as a user attached to a running job does:
# a pulled cable on the batch host would take a job script's sruns with it.
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
# the job's TMPDIR, where each etcd member keeps its data: this test's
# own, so that what another cluster on the machine left under /tmp (a job
# of the same id, killed) is never taken for this job's
mkdir -m 1777 "$W/tmp"
export TMPDIR=$W/tmp
MCR=$TOP/build/mooncake-recipe
vllm_test_recipe r.yaml # P2PHANDSHAKE: what an HA pool's clients use
with_plugin_args ha=etcd

# the node whose master leads the pool of DIR, by status ("" none)
leader() {
	"$MCR" status --dir "$1" 2>/dev/null | sed -n 's/^master   \(n[0-9]*\) (.*), leader, serving.*/\1/p'
}
# the mooncake_master of member K of DIR's pool: the child of its keeper,
# whose pid its proof holds
master_pid() {
	local proof=$1/mooncake_master.proof.json keeper
	[ "$2" = 0 ] || proof=$1/mooncake_master.proof.$2.json
	keeper=$(sed -n 's/^  "pid": \([0-9]*\),$/\1/p' "$proof")
	[ -n "$keeper" ] && pgrep -P "$keeper" -x mooncake_master
}
etcds() { "$CLUSTER" count etcd | awk '{ s += $2 } END { print s + 0 }'; }
no_etcd() { [ "$(etcds)" = 0 ]; }
# the etcd members' data of job $1, in the job's TMPDIR
etcd_data() { ls -d "$TMPDIR"/mooncake-etcd.mooncake-"$1"-* 2>/dev/null; }
no_etcd_data() { [ -z "$(etcd_data "$1")" ]; }
# get TAG KEY: a decode srun on n4 reads KEY (as the prefill worker put
# it); the seconds from the event the test noted (T0) to its answer
get() {
	srun --jobid="$J" --overlap -N1 -n1 -w n4 --mooncake-recipe="$W/r.yaml" --mooncake-role=decode \
		python3 "$CLIENT" get "$2" @65536 "$W/$1.got" >"$W/$1.out" 2>&1
	echo "rc=$?" >>"$W/$1.out"
	echo "$(($(date +%s%N) / 1000000 - T0))" >"$W/$1.ms"
}
secs() { awk '{ printf "%.1f", $1 / 1000 }' "$W/$1.ms"; }

J=$(alloc n1,n2,n3,n4 --no-kill -N4) || { fail "salloc gave no allocation"; exit 1; }
MCK_EXIT_HOOKS+=("scancel $J 2>/dev/null; for h in n1 n2 n3 n4; do \"\$CLUSTER\" link \$h up; done")
dir=$W/outputs/$J/logs
srun --jobid="$J" --overlap -N1 -n1 -w n4 --mooncake-recipe="$W/r.yaml" --mooncake-role=prefill \
	python3 "$CLIENT" put k1 @65536 "$W/end" >put.out 2>&1 &
if ! await 300 has put.out "PUT k1 rc=0"; then
	fail "the worker on n4 put k1 into the HA pool ($(tail -3 put.out))"
	exit 1
fi
"$MCR" status --dir "$dir" >status-1.out 2>&1
L1=$(leader "$dir")
check "the pool has three masters, one leading, and etcd on each of n1, n2, n3 ($(tr '\n' ' ' <status-1.out | head -c 400))" \
	test -n "$L1" --and has_re status-1.out '^HA pool  rpc 8700, metadata 8701, metrics 8702 on each master; etcd on n1, n2, n3 \(client 8703, peer 8704\)$' \
	'^master   n1 \(10\.213\.0\.11\), (leader, serving|standby)' '^master   n2 ' '^master   n3 '
check "... all of it one step, mooncake-master on n[1-3]" \
	has_line <(squeue --steps -h -j "$J" -o '%j %N') 'mooncake-master n[1-3]'
check "... the clients are given the etcd:// address and P2PHANDSHAKE" \
	has "$dir/mooncake_store_config.json" "\"master_server_address\": \"etcd://$MCK_ADDR_n1:8703;$MCK_ADDR_n2:8703;$MCK_ADDR_n3:8703\"" \
	'"metadata_server": "P2PHANDSHAKE"'
check "... each etcd member keeps its data in the job's TMPDIR, a directory of its own ($(etcd_data "$J" | wc -l) of 3)" \
	test "$(etcd_data "$J" | wc -l)" = 3

# --- kill -9 of the leader's master: a standby takes over, the key stays
k=$((${L1#n} - 1))
victim=$(master_pid "$dir" "$k")
T0=$(($(date +%s%N) / 1000000))
kill -9 "$victim"
get after-kill k1
check "after kill -9 of the leader on $L1, a decode srun started at once reads k1, put before, after $(secs after-kill) s ($(grep -o 'GOT.*' after-kill.out | head -c 60))" \
	has_line after-kill.out 'n4 GOT k1=@65536' rc=0
check "... it waited for a leader instead of failing ($(grep -o 'waiting for the job.s HA pool.*' after-kill.out | head -1 | head -c 200))" \
	lacks after-kill.out 'has stopped' 'error'
await 60 eval 'L2=$(leader "$dir"); [ -n "$L2" ]'
"$MCR" status --dir "$dir" >status-2.out 2>&1
check "... a master leads again ($L2), and the killed one was started again on $L1" \
	test -n "$L2" --and has "$dir/mooncake_master.log" "mooncake: mooncake_master ended with signal 9 (Killed)" \
	"another master of the job's HA pool takes over meanwhile, and this one joins the pool again"

# --- the leader's node loses its cable for good: the others carry on
T0=$(($(date +%s%N) / 1000000))
"$CLUSTER" link "$L2" down
get after-pull k1
check "after the cable of $L2 (the leader) was pulled, a decode srun started at once reads k1, put before, after $(secs after-pull) s ($(grep -o 'GOT.*' after-pull.out | head -c 60))" \
	has_line after-pull.out 'n4 GOT k1=@65536' rc=0
T0=$(($(date +%s%N) / 1000000))
srun --jobid="$J" --overlap -N1 -n1 -w n4 --mooncake-recipe="$W/r.yaml" --mooncake-role=prefill \
	python3 "$CLIENT" put k2 @65536 "$W/k2.done" >put2.out 2>&1 &
await 120 has put2.out "PUT k2 rc=0"
get k2 k2
check "... and a new worker puts a new key that another reads ($(grep -o 'GOT.*' k2.out | head -c 60))" \
	has put2.out "PUT k2 rc=0" --and has_line k2.out 'n4 GOT k2=@65536' rc=0
"$MCR" status --dir "$dir" >status-3.out 2>&1
check "... status shows the new leader, and $L2 does not answer ($(grep "^master   $L2" status-3.out))" \
	has_re status-3.out '^master   n[1-3] .*, leader, serving' "^master   $L2 .*, does not answer$"
"$CLUSTER" link "$L2" up
touch "$W/end" "$W/k2.done"
scancel "$J"
wait
check "no mooncake_master and no etcd is left after the job" test "$(masters_left)" = 0 --and await 20 no_etcd
check "the pool's report records the failover after the kill, and each master's role" python3 - "$dir/mooncake_pool_report.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["ha"]
ok = h["failovers"] >= 1 and len(h["failover"]) >= 1 and len(h["masters"]) == 3 and h["etcd_members"] == 3
sys.exit(0 if ok else print(h) or 1)
PY
check "... nor an etcd member's data ($(etcd_data "$J"))" await 20 no_etcd_data "$J"

# --- two nodes: two masters, one etcd member on the infra node
J=$(alloc n1,n2 -N2)
srun --jobid="$J" --overlap -N1 -n1 -w n2 --mooncake-recipe="$W/r.yaml" --mooncake-role=prefill \
	python3 "$CLIENT" env >two.out 2>&1
"$MCR" status --dir "$W/outputs/$J/logs" >status-two.out 2>&1
check "a job of two nodes: masters on n1 and n2, etcd on n1 alone ($(grep -o 'MOONCAKE_MASTER=.*' two.out))" \
	has_line two.out "n2 MOONCAKE_MASTER=etcd://$MCK_ADDR_n1:8703" "n2 MOONCAKE_TE_META_DATA_SERVER=P2PHANDSHAKE" \
	--and has_re status-two.out '; etcd on n1 \(client 8703, peer 8704\)$' '^master   n2 '
scancel "$J"
# --- one node: one master, as without ha=etcd
J=$(alloc n3 -N1)
srun --jobid="$J" --overlap -N1 -n1 -w n3 --mooncake-recipe="$W/r.yaml" --mooncake-role=prefill \
	python3 "$CLIENT" env >one.out 2>&1
check "a job of one node: one master, its address as without ha=etcd" \
	has_line one.out "n3 MOONCAKE_MASTER=$MCK_ADDR_n3:8700"
scancel "$J"

# --- another user on another node steers the pool through its etcd
# (issue 35). Mooncake's masters and clients cannot authenticate to etcd,
# so its keepers watch it: a master_view rewritten to a listener of the
# other user's, or an etcd member added that never comes, ends the pool,
# and the job's next srun fails naming what was written; a standby's RPC
# port taken by the other user stops that master, and the pool goes on.
OTHER=mckother
test_user "$OTHER" >/dev/null
mkdir -m 1777 -p "$W/other" # the other user's files
# etcd_port DIR: the client port of the pool's etcd, from its state file
etcd_port() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ha"]["etcd_client_port"])' "$1/mooncake_master.json"; }
b64() { printf %s "$1" | base64 -w0; }
# steered TAG PATH BODY: a two-node HA pool whose etcd OTHER posts BODY
# to PATH of from n3; then an srun of the job's
steered() {
	local tag=$1 J d
	J=$(alloc n1,n2 -N2) || { fail "$tag: salloc gave no allocation"; return; }
	d=$W/outputs/$J/logs
	srun --jobid="$J" --overlap -N1 -n1 -w n2 --mooncake-recipe="$W/r.yaml" --mooncake-role=prefill \
		python3 "$CLIENT" env >"$tag-1.out" 2>&1
	on_node n3 "$OTHER" "curl -s -m 5 -X POST http://$MCK_ADDR_n1:$(etcd_port "$d")$2 -d '$3'" >"$tag-attack.out" 2>&1
	await 30 has "$d/mooncake_master.log" "the job's HA pool's etcd " || true
	srun --jobid="$J" --overlap -N1 -n1 -w n2 --mooncake-recipe="$W/r.yaml" --mooncake-role=decode \
		printenv MOONCAKE_MASTER >"$tag-2.out" 2>&1
	echo "rc=$?" >>"$tag-2.out"
	scancel "$J"
}
steered view /v3/kv/put "{\"key\": \"$(b64 mooncake-store/mooncake_cluster/master_view)\", \"value\": \"$(b64 "$MCK_ADDR_n4:9999")\"}"
check "another user who rewrites the pool's master_view in its etcd ends the pool: the job's next srun fails, naming the address written ($(grep -o 'ended the pool: .*' view-2.out | head -c 250))" \
	has view-1.out "MOONCAKE_MASTER=etcd://" --and has view-2.out rc=1 "names $MCK_ADDR_n4:9999 as the leader its clients follow"
steered member /v3/cluster/member/add "{\"peerURLs\": [\"http://$MCK_ADDR_n4:2380\"]}"
check "another user who adds an etcd member ends the pool: the job's next srun fails, naming the member's peer URL ($(grep -o 'ended the pool: .*' member-2.out | head -c 250))" \
	has member-2.out rc=1 "has a member at http://$MCK_ADDR_n4:2380"
# the pool's etcd filled by the other user: its backend quota
# (etcd_quota=, 32 MiB here) bounds what they make it keep; beyond it etcd
# refuses every write, and the keepers say so
with_plugin_args "ha=etcd etcd_quota=32MiB"
J=$(alloc n1,n2 -N2)
srun --jobid="$J" --overlap -N1 -n1 -w n2 --mooncake-recipe="$W/r.yaml" --mooncake-role=prefill \
	python3 "$CLIENT" env >fill-1.out 2>&1
on_node n3 "$OTHER" "for i in \$(seq 60); do printf '{\"key\": \"%s\", \"value\": \"%s\"}' \$(printf junk\$i | base64 -w0) \$(head -c 786432 /dev/urandom | base64 -w0) >$W/other/put.json; curl -s -m 10 -X POST http://$MCK_ADDR_n1:$(etcd_port "$W/outputs/$J/logs")/v3/kv/put -d @$W/other/put.json; echo; done" >fill-attack.out 2>&1
await 30 has "$W/outputs/$J/logs/mooncake_master.log" "has reached its backend quota (NOSPACE)" || true
scancel "$J"
check "another user who fills the pool's etcd is stopped at its quota: etcd refuses their writes past it, and the keepers say so ($(grep -c '"revision"' fill-attack.out) of 60 puts of 768 KiB taken)" \
	has fill-attack.out "database space exceeded" \
	--and has "$W/outputs/$J/logs/mooncake_master.log" "has reached its backend quota (NOSPACE)"
with_plugin_args ha=etcd
# a standby's RPC port, taken: that master is stopped, the pool goes on
J=$(alloc n1,n2 -N2)
srun --jobid="$J" --overlap -N1 -n1 -w n2 --mooncake-recipe="$W/r.yaml" --mooncake-role=prefill \
	python3 "$CLIENT" env >standby-1.out 2>&1
"$MCR" status --dir "$W/outputs/$J/logs" >standby-status.out 2>&1
S=$(sed -n 's/^master   \(n[0-9]*\) (.*), standby.*/\1/p' standby-status.out | head -1)
on_node "${S:-n2}" "$OTHER" "python3 -c 'import os,socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((\"0.0.0.0\", 8700)); s.listen(); open(\"$W/other/squatter.pid\", \"w\").write(str(os.getpid())); time.sleep(60)'" >/dev/null 2>&1 &
await 10 test -s "$W/other/squatter.pid" || true
squatter=$(cat "$W/other/squatter.pid" 2>/dev/null)
MCK_EXIT_HOOKS+=("kill $squatter 2>/dev/null")
await 30 has "$W/outputs/$J/logs/mooncake_master.log" "port 8700 on this node is another process's" || true
srun --jobid="$J" --overlap -N1 -n1 -w n2 --mooncake-recipe="$W/r.yaml" --mooncake-role=decode \
	printenv MOONCAKE_MASTER >standby-2.out 2>&1
echo "rc=$?" >>standby-2.out
kill "$squatter" 2>/dev/null
await 10 eval '! kill -0 "$squatter" 2>/dev/null' || true
scancel "$J"
check "a standby whose RPC port another user takes is stopped, saying so, and the pool goes on (standby ${S:-none}: $(grep -o 'port 8700 on this node is another.*could not lead' "$W/outputs/$J/logs/mooncake_master.log" | head -1))" \
	test -n "$S" --and has "$W/outputs/$J/logs/mooncake_master.log" "port 8700 on this node is another process's" \
	--and has standby-2.out rc=0 "etcd://"
await 30 test "$(masters_left)" = 0 || true

# --- what an HA pool's clients cannot use is refused before any step
vllm_test_recipe own-md.yaml "        metadata_server: http://$MCK_ADDR_n1:8080/metadata"
J=$(alloc n1,n2 -N2)
srun --jobid="$J" --overlap -N1 -n1 -w n2 --mooncake-recipe="$W/own-md.yaml" --mooncake-role=prefill echo TASK-RAN >md.out 2>&1
echo "rc=$?" >>md.out
check "a recipe with its own metadata_server is refused in an HA pool, and no master is started ($(grep -o 'mooncake:.*' md.out | head -1 | head -c 200))" \
	has md.out 'own-md.yaml:' 'metadata_server' 'HA pool (ha=etcd in plugstack.conf)' 'write metadata_server: P2PHANDSHAKE' rc=1 \
	--and lacks md.out TASK-RAN --and test "$(squeue --steps -h -j "$J" -o %j | grep -c mooncake-master)" = 0
scancel "$J"
check "no mooncake_master and no etcd is left" test "$(masters_left)" = 0 --and await 20 no_etcd
