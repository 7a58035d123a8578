#!/bin/bash
# Steps, scripts and cleanup (issue #4): the batch script never gets the
# Mooncake variables; #SBATCH --mooncake-recipe reaches the sruns; a step
# without a role gets nothing; a role the recipe lacks fails; nothing is left
# after scancel, after salloc exits, after the starting srun is killed; a
# recipe broken after submission never fails the batch step or drains a
# node; a bad plugstack argument fails loudly without draining.
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
trtllm_test_recipe r.yaml
drained() { sinfo -h -N -o '%t' | grep -c -E 'drain|drng|down|fail'; }

cat >script.sh <<'EOS'
#!/bin/bash
#SBATCH --mooncake-recipe=r.yaml
env | grep '^MOONCAKE_' >batch-env.out
srun -N1 -n1 -w n2 --mooncake-role=prefill printenv MOONCAKE_CONFIG_PATH >inherit.out 2>&1
srun -N1 -n1 -w n3 env >norole.out 2>&1
srun -N1 -n1 -w n3 --chdir=/ hostname >norole-chdir.out 2>&1
(cd / && srun -N1 -n1 -w n3 hostname) >norole-cd.out 2>&1
srun -N1 -n1 -w n3 --mooncake-role=agg echo TASK-RAN >agg.out 2>&1
echo "rc=$?" >>agg.out
srun -v -N1 -n1 -w n2 --mooncake-role=prefill true >verbose.out 2>&1
srun -N1 -n1 -w n2 --mooncake-role=prefill true >quiet.out 2>&1
EOS
jid=$(run_job script -N3 -w n1,n2,n3)
check "the batch script itself got no MOONCAKE_ variable" test ! -s batch-env.out -a -e batch-env.out
check "#SBATCH --mooncake-recipe reaches an srun that names a role" \
	grep -qx "$W/outputs/$jid/logs/mooncake_store_config_prefill.$MCK_ADDR_n2.json" inherit.out
check "an srun without a role under the inherited recipe gets nothing" \
	has_re norole.out '^SLURMD_NODENAME=n3' --and lacks_re norole.out '^MOONCAKE_'
check "a helper srun without a role runs anywhere (--chdir=/, cd /): the recipe is not even read" \
	has_line norole-chdir.out n3 --and has_line norole-cd.out n3
check "an explicit role the recipe lacks fails that srun: $(grep -o 'mooncake: .*' agg.out | head -1 | head -c 200)" \
	has agg.out '--mooncake-role=agg: the recipe has no roles.agg; its roles are prefill, decode' rc=1 \
	--and lacks agg.out TASK-RAN

check "srun -v inside an allocation shows the role: $(grep -m1 'mooncake: r.yaml' verbose.out)" \
	grep -qx 'srun: mooncake: r.yaml: role prefill' verbose.out
check "... and without -v srun says nothing of it" lacks quiet.out mooncake

# the examples' resource requests: GPUs per node must not reach the master
# step (an invalid TRES request with its --gres=none); a task running in
# another directory reads the recipe srun checked
cat >gpus.sh <<'EOS'
#!/bin/bash
#SBATCH --nodes=3
#SBATCH --nodelist=n1,n2,n3
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=1
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >gpus.out 2>&1
srun -N1 -n1 -w n3 --chdir=/ --mooncake-recipe=r.yaml --mooncake-role=decode printenv MOONCAKE_CONFIG_PATH >chdir.out 2>&1
EOS
jid=$(run_job gpus)
check "a job with --gpus-per-node gets its master: $(grep -m1 'mooncake:' gpus.out)" grep -qx "$MCK_ADDR_n1:8700" gpus.out
check "a task in another directory (--chdir=/) reads the recipe srun checked: $(grep -m1 'mooncake:' chdir.out)" \
	grep -qx "$W/outputs/$jid/logs/mooncake_store_config_decode.$MCK_ADDR_n3.json" chdir.out

# scancel while the master runs
cat >cancel.sh <<'EOS'
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill sleep 120
EOS
jid=$(sbatch --parsable -N3 -w n1,n2,n3 -o "$W/cancel.job.out" cancel.sh)
check "the master runs on n1 while the job runs" wait_master n1
scancel "$jid"
wait_job "$jid" 60
check "no master after scancel" test "$(masters_left)" = 0

# salloc: the master ends when salloc exits
salloc -N3 -w n1,n2,n3 bash -c 'srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER' >salloc.out 2>&1
check "salloc: the step got the master" grep -qx "$MCK_ADDR_n1:8700" salloc.out
check "no master after salloc exits" test "$(masters_left)" = 0

# the srun that started the master is killed: the master stays for the
# job's other steps and goes with the job
cat >killed.sh <<'EOS'
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill sleep 120 >killed-1.out 2>&1 &
starter=$!
await 60 grep -qs 'ready on' killed-1.out
kill -9 $starter
sleep 2
srun -N1 -n1 -w n3 --mooncake-recipe=r.yaml --mooncake-role=decode printenv MOONCAKE_MASTER >killed-2.out 2>&1
EOS
jid=$(run_job killed -N3 -w n1,n2,n3)
check "after its starting srun was killed, the master still serves the job's next step" grep -qx "$MCK_ADDR_n1:8700" killed-2.out
check "no master after that job ended" test "$(masters_left)" = 0

# a recipe that breaks after submission: the batch step runs, the node is
# not drained, the srun that needs the recipe fails with the message
cp r.yaml late.yaml
cat >late.sh <<'EOS'
#!/bin/bash
#SBATCH --mooncake-recipe=late.yaml
echo BATCH-RAN
srun -N1 -n1 -w n2 --mooncake-role=prefill echo TASK-RAN
echo "srun rc=$?"
EOS
jid=$(sbatch --parsable -N3 -w n1,n2,n3 --begin=now+3 -o "$W/late.job.out" late.sh)
echo "schema: 2
roles: [broken" >late.yaml
wait_job "$jid" 120
check "a recipe broken after submission: the batch script ran" grep -q BATCH-RAN late.job.out
check "... the srun failed with the mooncake: message" \
	has late.job.out 'mooncake: late.yaml:3:1: not valid YAML' 'srun rc=1' --and lacks late.job.out TASK-RAN
check "... and no node is drained or down" test "$(drained)" = 0

# a bad plugstack argument: loud in srun/sbatch, no node drained
with_plugin_args colour=blue
srun -N1 true >plugstack.out 2>&1
rc=$?
check "an unknown plugstack argument fails srun with a message (rc=$rc)" \
	grep -q "mooncake: plugstack.conf: unknown argument 'colour=blue'" plugstack.out
with_plugin_args ""
check "... and no node is drained or down" test "$(drained)" = 0
check "no mooncake_master process is left" test "$(masters_left)" = 0
