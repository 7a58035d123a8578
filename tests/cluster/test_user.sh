#!/bin/bash
# The master's process as a user's job sees it (issue #4): it runs as the
# job's user, with the job's environment (not the daemons'), without
# descriptors inherited from srun, its output in <job dir>/mooncake_master.log;
# the job directory is created with the user's permissions, and a directory
# the user cannot write is refused with a clear message. mooncake-recipe
# status finds a job's user, state and directory in Slurm's job record: a
# job name that forges them in scontrol's text changes nothing.
. "$(dirname "$0")/lib.sh"
U=mcktest
if ! id "$U" >/dev/null 2>&1; then
	useradd -M -d /nonexistent -s /bin/bash "$U"
	# the user exists for this test only
	MCK_EXIT_HOOKS+=("userdel $U")
fi
uid=$(id -u "$U")
W=$(workdir)
chown "$U:" "$W"
cd "$W" || exit 1
trtllm_test_recipe r.yaml
mkdir -p "$W/readonly" && chmod 755 "$W/readonly"
sed 's|^name: |output:\n  log_dir: '"$W"'/readonly/logs\nname: |' r.yaml >ro.yaml
chown "$U:" r.yaml ro.yaml
cat >job.sh <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill sleep 15 >user.out 2>&1 &
await 60 grep -qs 'ready on' user.out
pid=\$($NSPGREP -x -u $uid mooncake_master)
grep '^Uid:' /proc/\$pid/status >master-uid.out
tr '\0' '\n' </proc/\$pid/environ >master-env.out
ls -l /proc/\$pid/fd | awk '{print \$9, \$10, \$11}' >master-fd.out
# the srun that runs the master step: started by the plugin in its own session
spid=\$($NSPGREP -u $uid -f -- '--job-name=mooncake-master' | head -1)
ls -l /proc/\$spid/fd | awk '{print \$9, \$10, \$11}' >srun-fd.out
ps -o pid=,sid=,args= -p \$spid >srun-ps.out
wait
srun -N1 -n1 -w n3 --mooncake-recipe=ro.yaml --mooncake-role=decode echo TASK-RAN >ro.out 2>&1
echo "rc=\$?" >>ro.out
EOS
chown "$U:" job.sh
jid=$(su -s /bin/bash "$U" -c "cd $W && export SLURM_CONF=$SLURM_CONF PATH=$PATH MCK_JOB_MARKER=from-the-job && sbatch --parsable -N3 -w n1,n2,n3 -o $W/job.out job.sh")
wait_job "$jid" 120
dir=$W/outputs/$jid/logs
read -r _ a b c _ <master-uid.out
check "the master ran as the job's user ($(cat master-uid.out))" \
	test "$a" = "$uid" --and test "$b" = "$uid" --and test "$c" = "$uid"
check "the master has the job's environment" grep -qx 'MCK_JOB_MARKER=from-the-job' master-env.out
check "the master has none of the daemons' environment" lacks_re master-env.out '^MCK_DAEMON_ENV='
check "the --mooncake-* options do not reach the master step's environment" \
	lacks master-env.out SPANK_OPTION_mooncake
check "the master step's srun: stdin /dev/null, stdout and stderr the log ($(head -3 srun-fd.out | xargs))" \
	has_line srun-fd.out '0 -> /dev/null' "1 -> $dir/mooncake_master.log" "2 -> $dir/mooncake_master.log"
read -r pid sid _ <srun-ps.out
check "the master step's srun runs in a session of its own ($(cut -c1-60 srun-ps.out))" \
	test -n "$pid" --and test "$pid" = "$sid"
check "neither the master nor its srun holds a descriptor of the srun that started them" \
	lacks master-fd.out "$W/user.out" --and lacks srun-fd.out "$W/user.out"
check "the job directory and its files belong to the user" \
	test "$(stat -c %U "$dir")" = "$U" --and test "$(stat -c %U "$dir/mooncake_master.log")" = "$U" \
	--and test "$(stat -c %U "$dir/mooncake_store_config_prefill.json")" = "$U"
check "the master's output is in its log" grep -q 'Master service started' "$dir/mooncake_master.log"
check "a job directory the user cannot write is refused: $(grep -o 'mooncake: .*' ro.out | head -1)" \
	has ro.out "mooncake: cannot create the directory $W/readonly/logs: Permission denied" rc=1 --and lacks ro.out TASK-RAN

# --- status believes Slurm's job record, not the job's name (issue 34):
# the user names a job so that `scontrol show job`'s text shows another
# user, an ended state and another directory first; status, asked by the
# user and by root, still finds the job's pool and shows it
O=mckother
ouid=$(test_user "$O")
FORGED="x UserId=$O($ouid) JobState=COMPLETED WorkDir=/nonexistent"
cat >forged.sh <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill \
	bash -c 'touch $W/forged.running; while [ ! -e $W/forged.release ]; do sleep 0.2; done' >forged.out 2>&1
EOS
chown "$U:" forged.sh
jid=$(su -s /bin/bash "$U" -c "cd $W && export SLURM_CONF=$SLURM_CONF PATH=$PATH && sbatch --parsable -N2 -w n1,n2 -J '$FORGED' -o $W/forged.job.out forged.sh")
MCR=$TOP/build/mooncake-recipe
await 60 test -e forged.running
scontrol show job -o "$jid" >forged.scontrol
as "$U" "$MCR status --job $jid" >forged-user.txt 2>&1
rc_user=$?
"$MCR" status --job "$jid" --json >forged-root.json 2>forged-root.err
rc_root=$?
as "$U" "$MCR status --dir $W/outputs/$jid/logs" >forged-dir.txt 2>&1
rc_dir=$?
touch forged.release
wait_job "$jid" 120
check "(the job's name puts a forged UserId, JobState and WorkDir first in scontrol's text: $(grep -o ' UserId=[^ ]*\| JobState=[^ ]*' forged.scontrol | head -2 | tr '\n' ' '))" \
	test "$(grep -o ' UserId=[^ ]*' forged.scontrol | head -1)" = " UserId=$O($ouid)"
check "status --job of a job named '$FORGED', asked by its user: the user's pool, exit 0 ($(head -c 300 forged-user.txt))" \
	test "$rc_user" = 0 --and has_re forged-user.txt "^Mooncake pool of job $jid \\($W/outputs/$jid/logs\\)" \
	"^master +n1 \\($MCK_ADDR_n1\\)" --and lacks forged-user.txt "not yours" "has ended"
check "... asked by root: the same pool, as the job's user ($(head -c 200 forged-root.err))" \
	test "$rc_root" = 0 --and python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if s["job_id"] == sys.argv[2] and s["master"]["node"] == "n1" else 1)' forged-root.json "$jid"
check "... and status --dir: the job runs (JobState from Slurm's record: $(head -c 200 forged-dir.txt))" \
	test "$rc_dir" = 0 --and lacks forged-dir.txt "has ended"
check "no mooncake_master process is left" test "$(masters_left)" = 0
