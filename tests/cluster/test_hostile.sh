#!/bin/bash
# A shared node is a hostile place (issue 17): a second, non-root user on
# the job's infra node tries to steer or stall the job's pool, and fails
# each time with the pool intact:
#   - it races a listener (answering /health and the metadata server, as a
#     master would) into the window between the choice of the ports and
#     the master's bind: the job is never told it is ready, and no task is
#     handed that listener's address; the message names it
#   - it overwrites what the job kept in the (unauthenticated) metadata
#     server: the job's next sruns still join their master
#   - it plants a job directory, with a lock and a "ready" state pointing
#     at its own listener, in a shared directory: the job refuses it
#   - it owns a parent of the job's directory (it could swap the job's
#     directory for its own): the job refuses it
#   - it poisons the ports registry with reservations for the job's ports:
#     it cannot write root's registry, and the old world-writable one is
#     not read; a step of its own that sets the master's ports variable
#     fails, and one shaped as a master step reserves within its share,
#     named with its job and user when the job's master moves off them
#   - it takes the master's ports once the master has died (restart=0), or
#     once its keeper was killed (the master dies with it): the pool's
#     record says it has ended, and the job's next srun fails
. "$(dirname "$0")/lib.sh"
VICTIM=mckvictim
OTHER=mckother
vuid=$(test_user "$VICTIM")
ouid=$(test_user "$OTHER")
W=$(workdir)
chown "$VICTIM:" "$W"
cd "$W" || exit 1
trtllm_test_recipe r.yaml
chown "$VICTIM:" r.yaml
IMPOSTOR=$TOP/tests/cluster/impostor.py
mkdir "$W/other" && chown "$OTHER:" "$W/other" # OTHER's own files
IMPOSTORS=()
MCK_EXIT_HOOKS+=('for p in "${IMPOSTORS[@]}"; do kill "$p" 2>/dev/null; done')

# impostor NAME RPC METADATA METRICS: OTHER's listener on n1, in the
# background; its pid into IMPOSTORS when it listens
impostor() {
	local out=$W/$1.impostor pid=$W/other/$1.pid
	on_node n1 "$OTHER" "python3 $IMPOSTOR $2 $3 $4 $pid" >"$out" 2>&1 &
	await 10 has "$out" LISTENING
	IMPOSTORS+=("$(cat "$pid")")
}

# --- a listener raced into the ports window. The master binds 5 s after
# its step starts (a slow node: master= a script that waits first), and
# OTHER takes the ports as soon as the step shows in squeue.
cat >slow-master <<'EOS'
#!/bin/sh
sleep 5
exec mooncake_master "$@"
EOS
chmod 755 slow-master
with_plugin_args "ports=fixed master=$W/slow-master"
cat >race.sh <<EOS
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >race.out 2>&1
echo "rc=\$?" >>race.out
EOS
chown "$VICTIM:" race.sh slow-master
jid=$(as "$VICTIM" sbatch --parsable -N3 -w n1,n2,n3 -o "$W/race.job.out" race.sh)
await 30 eval 'squeue -h -s -j "$jid" -o %j 2>/dev/null | grep -q mooncake-master'
impostor race 8700 8701 8702
wait_job "$jid" 120
kill "${IMPOSTORS[-1]}" 2>/dev/null
check "a listener of another user raced into the ports window is never taken for the master: the srun fails and names it ($(grep -o 'It could not take.*mooncake_master)' race.out | head -1))" \
	has race.out rc=1 --and has_re race.out "listens for another process there, of uid $ouid, not for this job.s mooncake_master"
check "... and no task was handed its address" not has_line race.out "$MCK_ADDR_n1:8700"
with_plugin_args ""

# --- the metadata server overwritten: the next srun still joins
cat >meta.sh <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >meta-1.out 2>&1
touch $W/meta.ready
await 60 test -e $W/meta.done
srun -N1 -n1 -w n3 --mooncake-recipe=r.yaml --mooncake-role=decode printenv MOONCAKE_MASTER >meta-2.out 2>&1
echo "rc=\$?" >>meta-2.out
EOS
chown "$VICTIM:" meta.sh
jid=$(as "$VICTIM" sbatch --parsable -N3 -w n1,n2,n3 -o "$W/meta.job.out" meta.sh)
await 60 test -e meta.ready
for key in "spank_mooncake/job/$jid" "spank_mooncake/pool/$jid"; do
	on_node n1 "$OTHER" "curl -s -X PUT --data forged 'http://127.0.0.1:8701/metadata?key=$key' >/dev/null"
done
touch meta.done
wait_job "$jid" 120
check "another user's PUTs on the job's metadata server change nothing: the next srun joins its master ($(tr '\n' ' ' <meta-2.out | head -c 300))" \
	has_line meta-2.out "$MCK_ADDR_n1:8700" rc=0

# --- a job directory planted in a shared directory (output.log_dir
# without {user}): OTHER makes it first, with a lock and a ready state
# that point at its own listener
mkdir -m 1777 shared
sed 's|^name: |output:\n  log_dir: '"$W"'/shared/{job_id}\nname: |' r.yaml >shared.yaml
chown "$VICTIM:" shared.yaml
cat >plant.sh <<EOS
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=shared.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >plant.out 2>&1
echo "rc=\$?" >>plant.out
EOS
chown "$VICTIM:" plant.sh
jid=$(as "$VICTIM" sbatch --parsable --hold -N3 -w n1,n2,n3 -o "$W/plant.job.out" plant.sh)
impostor plant 8700 8701 8702
as "$OTHER" "mkdir -p shared/$jid && echo '1 n1' >shared/$jid/mooncake_master.1.lock && printf '%s' '{\"state\": \"ready\", \"attempt\": 1, \"infra_node\": \"n1\", \"infra_addr\": \"$MCK_ADDR_n1\", \"rpc_port\": 8700, \"metadata_port\": 8701, \"metrics_port\": 8702, \"recipe\": \"$W/shared.yaml\"}' >shared/$jid/mooncake_master.json"
scontrol release "$jid"
wait_job "$jid" 120
kill "${IMPOSTORS[-1]}" 2>/dev/null
check "a job directory another user made, with a planted lock and ready state, is refused ($(grep -o 'mooncake: .*' plant.out | head -1 | head -c 300))" \
	has plant.out rc=1 "the job's directory $W/shared/$jid belongs to uid $ouid ($OTHER), not to the job's user, uid $vuid ($VICTIM)"
check "... and no task was handed the planted address" not has_line plant.out "$MCK_ADDR_n1:8700"

# --- a parent of the job's directory that another user owns (a project
# directory of theirs): they could move the job's directory away between
# srun's checks and the engine's open and put theirs in its place; the
# job refuses it before anything is written
mkdir -m 0755 proj && chown "$OTHER:" proj
mkdir -m 0700 proj/v && chown "$VICTIM:" proj/v
sed 's|^name: |output:\n  log_dir: '"$W"'/proj/v/{job_id}\nname: |' r.yaml >proj.yaml
chown "$VICTIM:" proj.yaml
cat >parent.sh <<EOS
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=proj.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >parent.out 2>&1
echo "rc=\$?" >>parent.out
EOS
chown "$VICTIM:" parent.sh
jid=$(as "$VICTIM" sbatch --parsable -N3 -w n1,n2,n3 -o "$W/parent.job.out" parent.sh)
wait_job "$jid" 120
check "a job directory inside another user's directory is refused ($(grep -o 'mooncake: .*' parent.out | head -1 | head -c 300))" \
	has parent.out rc=1 "the job's directory $W/proj/v/$jid is inside $W/proj, which belongs to uid $ouid ($OTHER): that user could move it" \
	--and test ! -e "proj/v/$jid"

# --- the ports registry poisoned: reservations for 8700-8702 held by a
# live process of OTHER's, in root's registry (refused) and in the
# world-writable one of earlier releases (not read)
ns=$("$CLUSTER" exec n1 readlink /proc/self/ns/net | tr -dc 0-9)
on_node n1 "$OTHER" "sleep 120 >/dev/null 2>&1 & echo \$! >$W/other/holder.pid"
holder=$(cat other/holder.pid)
IMPOSTORS+=("$holder")
start=$(awk '{print $22}' "/proc/$holder/stat")
entries="8700 $holder $start 1
8701 $holder $start 1
8702 $holder $start 1"
as "$OTHER" "printf '%s\n' '$entries' >>/run/spank-mooncake/ports.$ns" 2>registry.err
rc=$?
as "$OTHER" "printf '%s\n' '$entries' >/dev/shm/spank-mooncake-ports.$ns; chmod 666 /dev/shm/spank-mooncake-ports.$ns" 2>/dev/null
MCK_EXIT_HOOKS+=("rm -f /dev/shm/spank-mooncake-ports.$ns")
check "another user cannot write root's ports registry (rc=$rc: $(head -c 200 registry.err))" test "$rc" -ne 0
# a lock held on it would stall every claim on the node: it cannot open it
on_node n1 "$OTHER" "flock -n /run/spank-mooncake/ports.$ns true" 2>flock.err
rc=$?
check "... nor open it to hold its lock (rc=$rc: $(head -c 200 flock.err))" test "$rc" -ne 0
cat >poison.sh <<EOS
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >poison.out 2>&1
EOS
chown "$VICTIM:" poison.sh
jid=$(as "$VICTIM" sbatch --parsable -N3 -w n1,n2,n3 -o "$W/poison.job.out" poison.sh)
wait_job "$jid" 120
kill "$holder" 2>/dev/null
check "... and reservations another user planted do not move the job's master off 8700 ($(tr '\n' ' ' <poison.out | head -c 200))" \
	grep -qx "$MCK_ADDR_n1:8700" poison.out

# --- the ports variable set by another user on a step of their own
# (issue 34.4): a step the plugin did not launch as a master step fails,
# and root reserves nothing for it; one shaped as a master step (its guard
# names the same ports) reserves them, within the user's share, and the
# job's master, which moves to other ports, names the reserving job and
# user in its log
on_node n1 "$OTHER" "cd $W/other && SLURM_MOONCAKE_MASTER_PORTS=8700,8701,8702 srun -N1 -n1 -w n1 true" >unshaped.out 2>&1
rc=$?
check "another user's ordinary step that sets the master's ports variable fails, saying it is the plugin's alone (rc=$rc: $(grep -o 'mooncake: .*' unshaped.out | head -1 | head -c 200))" \
	test "$rc" -ne 0 --and has unshaped.out "is set on a step the plugin did not launch as a job's master step"
on_node n1 "$OTHER" "cd $W/other && SLURM_MOONCAKE_MASTER_PORTS=8700,8701,8702 SLURM_MOONCAKE_MASTER_GUARD=1,10,0,8700,8701,8702:$W/other srun -N1 -n1 -w n1 sleep 60" >shaped.out 2>&1 &
IMPOSTORS+=($!)
reserved() { grep -q '^8700 ' "/run/spank-mooncake/ports.$ns" 2>/dev/null; }
await 30 reserved || true
cat >shaped.sh <<EOS
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >shaped-job.out 2>&1
echo "rc=\$?" >>shaped-job.out
EOS
chown "$VICTIM:" shaped.sh
jid=$(as "$VICTIM" sbatch --parsable -N3 -w n1,n2,n3 -o "$W/shaped.job.out" shaped.sh)
wait_job "$jid" 120
kill "${IMPOSTORS[-1]}" 2>/dev/null
check "... a step of theirs shaped as a master step reserves the ports: the job's master moves off them, and srun names their job and user ($(grep -o 'are taken on n1: [^;]*' shaped-job.out | head -1))" \
	has shaped-job.out rc=0 --and lacks shaped-job.out "$MCK_ADDR_n1:8700" \
	--and has_re shaped-job.out "are taken on n1: port 8700 \(RPC\) on n1 is taken: job [0-9]+ of uid $ouid \($OTHER\) reserved it"

# --- the master's end (issue 34.2, 34.3): with restart=0 the master is
# killed, or with the default restart=3 its keeper is; another user's
# listener takes its ports; the job's next srun is not handed its address
# (victim_end TAG: a job whose prefill srun starts the pool, then waits for
# $W/TAG.go before its decode srun)
victim_end() {
	cat >"$1.sh" <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >$1-1.out 2>&1
touch $W/$1.ready
await 120 test -e $W/$1.go
srun -N1 -n1 -w n3 --mooncake-recipe=r.yaml --mooncake-role=decode printenv MOONCAKE_MASTER >$1-2.out 2>&1
echo "rc=\$?" >>$1-2.out
EOS
	chown "$VICTIM:" "$1.sh"
	as "$VICTIM" sbatch --parsable -N3 -w n1,n2,n3 -o "$W/$1.job.out" "$1.sh"
}
# the pid the master step's proof in job JID's directory holds: its keeper
keeper_of() { sed -n 's/^  "pid": \([0-9]*\),$/\1/p' "outputs/$1/logs/mooncake_master.proof.json"; }

with_plugin_args restart=0
jid=$(victim_end ended)
await 120 test -e ended.ready
kill -9 "$(pgrep -P "$(keeper_of "$jid")" -x mooncake_master)"
await 30 eval 'grep -q "\"ended\": true" "outputs/$jid/logs/mooncake_master.proof.json"'
impostor ended 8700 8701 8702
touch ended.go
wait_job "$jid" 120
kill "${IMPOSTORS[-1]}" 2>/dev/null
check "restart=0: after the master died, another user's listener on its ports is not taken for it: the next srun fails, saying the pool has ended ($(grep -o 'mooncake: .*' ended-2.out | head -1 | head -c 250))" \
	has ended-2.out rc=1 "has stopped" --and not has_line ended-2.out "$MCK_ADDR_n1:8700"
with_plugin_args ""

jid=$(victim_end keeper)
await 120 test -e keeper.ready
keeper=$(keeper_of "$jid")
master=$(pgrep -P "$keeper" -x mooncake_master)
kill -9 "$keeper"
await 30 eval '! kill -0 "$master" 2>/dev/null'
gone=$?
await 30 eval 'grep -q "\"ended\": true" "outputs/$jid/logs/mooncake_master.proof.json"'
recorded=$?
impostor keeper 8700 8701 8702
touch keeper.go
wait_job "$jid" 120
kill "${IMPOSTORS[-1]}" 2>/dev/null
check "the keeper killed (kill -9): its master dies with it, and the pool's record says it has ended" \
	test "$gone" = 0 --and test "$recorded" = 0
check "... another user's listener on its ports is not taken for the master: the next srun fails ($(grep -o 'mooncake: .*' keeper-2.out | head -1 | head -c 250))" \
	has keeper-2.out rc=1 "has stopped" --and not has_line keeper-2.out "$MCK_ADDR_n1:8700"
check "no mooncake_master process is left" test "$(masters_left)" = 0
