#!/bin/bash
# pyxis as sites install it (issue 36), with the STAND-IN of pyxis 0.24
# (tests/cluster/pyxis_standin.c: one container per step, started by the
# step's first task and joined by the others, a second start refused; the
# image's environment, /etc/environment, set over the task's but for the
# --container-env names; the image's login shell's PATH; it is not pyxis),
# in both plugstack orders: the cluster's (pyxis's line first unless the
# run says otherwise, MCK_PLUGSTACK_ORDER) and then the other one. In each,
# as a user other than root (enroot's user namespace):
#   - the job's image sets MOONCAKE_MASTER and MOONCAKE_CONFIG_PATH in its
#     /etc/environment: the workers in it get the plugin's values, and a
#     variable the plugin does not set stays the image's; the master runs in
#     the recipe's image, and a kill -9'd master is started again in it (the
#     same mount namespace), after which the worker puts again and another
#     worker reads it;
#   - a worker whose container does not mount the job's directory fails
#     with the --container-mounts to add;
#   - a worker with a --container-env of its own: the plugin's values
#     (pyxis first), or the names to add (pyxis after the plugin);
#   - a recipe whose image has mooncake_master only on the PATH of its
#     /etc/environment, which Debian's /etc/profile replaces: the srun says
#     so, with the fix.
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
ETC=$(dirname "$SLURM_CONF")
STANDIN=$TOP/build/tests/pyxis_standin.so
if [ ! -f "$STANDIN" ]; then
	fail "no pyxis stand-in at $STANDIN: run make $STANDIN (make check-cluster builds it)"
	exit 1
fi
U=mckpyxis
test_user "$U" >/dev/null
HOST_MNT=$(readlink /proc/self/ns/mnt)
PY=$MOONCAKE_VENV/bin/python3

# The stand-in's images (its images= directory): a root file system as
# enroot unpacks one, made of this host's /usr and the wheel's venv (its
# /etc/fstab binds them) and files of its own. GOOD has mooncake_master in
# /usr/local/bin, on the PATH of its login shell; BAD in /opt/mooncake/bin,
# which only its /etc/environment's PATH names (as a Dockerfile's ENV
# does): Debian's /etc/profile sets PATH anew. Both set the plugin's
# variables themselves, and one the plugin does not set.
GOOD='standin.test#mooncake/good:1'
BAD='standin.test#mooncake/bad:1'
image_dir() { echo "$W/images/$(tr '/#:' '+++' <<<"$1")"; }
make_image() { # NAME KIND
	local i l
	i=$(image_dir "$1")
	mkdir -p "$i"/{.root,etc,usr,proc,sys,dev,tmp,run,root,home,opt} "$i$MOONCAKE_VENV"
	for l in bin lib lib64 sbin; do
		if [ -L "/$l" ]; then ln -s "$(readlink "/$l")" "$i/$l"; fi
	done
	for l in passwd group profile hosts nsswitch.conf host.conf ld.so.cache ld.so.conf ld.so.conf.d bash.bashrc; do
		if [ -e "/etc/$l" ]; then cp -a "/etc/$l" "$i/etc/"; fi
	done
	echo "$2" >"$i/etc/mck-image"
	printf '%s\n' "/usr /usr none bind" "$MOONCAKE_VENV $MOONCAKE_VENV none bind" >"$i/etc/fstab"
	printf '%s\n' "MOONCAKE_MASTER=1.2.3.4:9999" "MOONCAKE_CONFIG_PATH=/nonexistent" \
		"MCK_IMAGE_VAR=\"from the $2 image\"" >"$i/etc/environment"
	if [ "$2" = good ]; then
		mkdir -p "$i/usr-local-bin"
		ln -s "$MOONCAKE_VENV/bin/mooncake_master" "$i/usr-local-bin/mooncake_master"
		echo "$i/usr-local-bin /usr/local/bin none bind" >>"$i/etc/fstab"
	else
		mkdir -p "$i/opt/mooncake/bin"
		ln -s "$MOONCAKE_VENV/bin/mooncake_master" "$i/opt/mooncake/bin/mooncake_master"
		echo 'PATH="/opt/mooncake/bin:/usr/local/bin:/usr/bin:/bin"' >>"$i/etc/environment"
	fi
}
make_image "$GOOD" good
make_image "$BAD" bad
mkdir -m 1777 "$W/standin"
echo "required $STANDIN record=$W/standin images=$W/images" >"$ETC/plugstack.conf.d/pyxis.conf"
MCK_EXIT_HOOKS+=("rm -f '$ETC/plugstack.conf.d/pyxis.conf'")

# the example with model.container the image $2
recipe() {
	trtllm_test_recipe "$1"
	sed -i "s|^  container: \"trtllm\"|  container: \"$2\"|" "$1"
}
proof_pid() { sed -n 's/^  "pid": \([0-9]*\),$/\1/p' "$1/mooncake_master.proof.json"; }
# seen PID: "mnt=<its mount namespace> image=<MCK_IMAGE_VAR of its environment>"
seen() {
	[ -n "$1" ] || return 0
	echo "mnt=$(readlink "/proc/$1/ns/mnt") image=$(tr '\0' '\n' <"/proc/$1/environ" | sed -n 's/^MCK_IMAGE_VAR=//p')"
}

# in_image SEEN: what seen printed is a process in the good image: another
# mount namespace than the host's, the image's environment
in_image() {
	[[ $1 =~ ^mnt=mnt:[^\ ]+\ image=from\ the\ good\ image$ ]] && [[ $1 != *"$HOST_MNT"* ]]
}

# cases ORDER: every case, with pyxis's line before (pyxis-first) or after
# the plugin's in plugstack.conf
cases() {
	local o=$1 J dir keeper before after seen_before seen_after want
	J=$W/$o
	mkdir -p "$J"
	chown "$U:" "$J"
	check "[$o] plugstack.conf loads the stand-in's snippets $([ "$o" = pyxis-first ] && echo before || echo after) the plugin" \
		test "$(grep -m1 -o '^include\|^required' "$ETC/plugstack.conf")" = "$([ "$o" = pyxis-first ] && echo include || echo required)"
	recipe "$J/r.yaml" "$GOOD"
	recipe "$J/bad.yaml" "$BAD"
	local M="--container-image=$GOOD --container-mounts=$W:$W,$TOP:$TOP"
	cat >"$J/job.sh" <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 $M --mooncake-recipe=r.yaml --mooncake-role=prefill bash -c '
	echo "IMAGE=\$(cat /etc/mck-image) MNT=\$(readlink /proc/self/ns/mnt)"
	env | grep -E "^(MOONCAKE_MASTER|MOONCAKE_CONFIG_PATH|MCK_IMAGE_VAR)=" | sort
	echo "PYXIS_CONTAINER_ENV=\${PYXIS_CONTAINER_ENV-unset}"
	exec $PY $CLIENT reput k1 @65536 $J/go $J/done' >$J/prefill.out 2>&1 &
await 600 test -e $J/go || exit 1
srun -N1 -n1 -w n3 $M --mooncake-recipe=r.yaml --mooncake-role=decode $PY $CLIENT get k1-after @65536 $J/done >$J/decode.out 2>&1
srun -N1 -n1 -w n3 --container-image=$GOOD --container-mounts=$TOP:$TOP --mooncake-recipe=r.yaml --mooncake-role=decode echo TASK-RAN >$J/nomount.out 2>&1
echo "rc=\$?" >>$J/nomount.out
srun -N1 -n1 -w n3 $M --container-env=MCK_OWN --mooncake-recipe=r.yaml --mooncake-role=decode printenv MOONCAKE_MASTER >$J/ownenv.out 2>&1
echo "rc=\$?" >>$J/ownenv.out
touch $J/done
wait
EOS
	chown "$U:" "$J/job.sh" "$J/r.yaml" "$J/bad.yaml"
	JID=$(cd "$J" && as "$U" sbatch --parsable -N3 -w n1,n2,n3 -o "$J/job.out" job.sh)
	dir=$J/outputs/$JID/logs
	# the worker has put through the pool: the master is killed (-9)
	if ! await 300 has "$J/prefill.out" "PUT k1 rc=0"; then
		fail "[$o] the worker in the image put k1 ($(tail -5 "$J/prefill.out" "$J/job.out" "$dir/mooncake_master.log" 2>/dev/null | tr '\n' ' ' | head -c 2000))"
		scancel "$JID"
		wait_job "$JID" 60
		return
	fi
	keeper=$(proof_pid "$dir")
	before=$(pgrep -P "$keeper" -x mooncake_master)
	seen_before=$(seen "$before")
	kill -9 "$before"
	touch "$J/go"
	after=
	await 60 eval 'after=$(pgrep -P "$keeper" -x mooncake_master | grep -vx "$before")' || true
	seen_after=$(seen "$after")
	wait_job "$JID" 300
	want="MOONCAKE_MASTER=$MCK_ADDR_n1:8700"
	echo "   [$o] the prefill worker: $(head -c 600 "$J/prefill.out" | tr '\n' ' ')"
	check "[$o] the worker ran in the image (its files, another mount namespace than the host's)" \
		has_re "$J/prefill.out" '^IMAGE=good MNT=mnt:' --and lacks "$J/prefill.out" "MNT=$HOST_MNT"
	check "[$o] ... with the plugin's MOONCAKE_MASTER and MOONCAKE_CONFIG_PATH, not the image's" \
		has_line "$J/prefill.out" "$want" --and has_re "$J/prefill.out" "^MOONCAKE_CONFIG_PATH=$dir/[^ ]*\.json$" \
		--and lacks "$J/prefill.out" 1.2.3.4:9999 /nonexistent
	check "[$o] ... and the image's own variable, which the plugin does not set" \
		has_line "$J/prefill.out" "MCK_IMAGE_VAR=from the good image"
	check "[$o] ... and PYXIS_CONTAINER_ENV as the user left it (unset)" has_line "$J/prefill.out" "PYXIS_CONTAINER_ENV=unset"
	check "[$o] the master ran in the recipe's image ($seen_before; the host: $HOST_MNT)" \
		in_image "$seen_before"
	check "[$o] the kill -9'd master ($before) was started again, in the image, in the same mount namespace ($after: $seen_after)" \
		test -n "$after" -a "$seen_after" = "$seen_before" \
		--and has "$dir/mooncake_master.log" "mooncake: mooncake_master ended with signal 9 (Killed)" \
		--and lacks "$dir/mooncake_master.log" "not started successfully" "cannot start mooncake_master again"
	check "[$o] ... the worker put again after it ($(grep -o 'PUT k1-after.*' "$J/prefill.out"))" \
		has_re "$J/prefill.out" '^n2 PUT k1-after rc=0 after [0-9.]+ s$'
	check "[$o] ... and another worker in the image read it ($(grep -o 'GOT.*' "$J/decode.out" | head -c 60))" \
		has_line "$J/decode.out" 'n3 GOT k1-after=@65536'
	check "[$o] the stand-in's record: the prefill step named the plugin's variables in --container-env (PYXIS_CONTAINER_ENV)" \
		grep -q "^name=job.sh .*container-env=[^ ]*MOONCAKE_CONFIG_PATH" "$W/standin/$JID".*.n2
	# a worker whose container does not mount the job's directory
	if [ "$o" = pyxis-first ]; then
		want="runs in pyxis's container of $GOOD, which does not mount the job's directory $dir (it does not exist there: No such file or directory), where the task's client config and the pool's record of its workers are. Mount it at its own path: add --container-mounts=$dir:$dir to this srun"
	else
		want="runs in pyxis's container of $GOOD, which pyxis enters after this plugin's task_init (pyxis's line comes after spank_mooncake.so's in plugstack.conf), and none of its --container-mounts ($TOP:$TOP) mounts the job's directory $dir at its own path, so the task could not read its client config there. Add --container-mounts=$dir:$dir to this srun"
	fi
	check "[$o] a worker whose container does not mount the job's directory fails with the mount to add ($(grep -m1 -o 'mooncake: .*' "$J/nomount.out" | head -c 400))" \
		has "$J/nomount.out" "mooncake: this task on n3 $want" --and lacks "$J/nomount.out" TASK-RAN rc=0 \
		"cannot open the job's directory"
	# a worker with --container-env of its own
	if [ "$o" = pyxis-first ]; then
		check "[$o] a worker with --container-env=MCK_OWN of its own gets the plugin's values (the plugin sets them after pyxis)" \
			has_line "$J/ownenv.out" "$MCK_ADDR_n1:8700" rc=0
	else
		check "[$o] a worker with --container-env=MCK_OWN of its own fails, naming what to add ($(grep -m1 -o 'mooncake: .*' "$J/ownenv.out" | head -c 300))" \
			has "$J/ownenv.out" "and this srun's --container-env=MCK_OWN lacks " "MOONCAKE_MASTER," \
			"MOONCAKE_CONFIG_PATH, which the plugin sets. Add them (--container-env=MCK_OWN," \
			--and lacks "$J/ownenv.out" rc=0 1.2.3.4
	fi
	# the image whose login shell does not find mooncake_master
	(cd "$J" && as "$U" srun -N1 -n1 -w n2 --mooncake-recipe=bad.yaml --mooncake-role=prefill echo TASK-RAN) >"$J/bad.out" 2>&1
	check "[$o] a recipe image without mooncake_master on its login PATH: srun says so, with the fix ($(grep -m1 -o 'mooncake_master is not on the PATH.*' "$J/bad.out" | head -c 300))" \
		has "$J/bad.out" "before it was ready. mooncake_master is not on the PATH in pyxis's container of $BAD on n2: pyxis gives the step the PATH of the image's login shell, which Debian's and Ubuntu's /etc/profile set anew, dropping what the image's /etc/environment (a Dockerfile's ENV) adds. Install the Mooncake wheel in the image, link its mooncake_master into /usr/local/bin there, or name its path in the image with master= in plugstack.conf; container=none runs the host's mooncake_master. Last lines of " \
		--and lacks "$J/bad.out" TASK-RAN "[...]"
	check "[$o] no mooncake_master is left after the jobs" test "$(masters_left)" = 0
}

RUN=${MCK_ORDER:-pyxis-first}
if [ "$RUN" = pyxis-first ]; then OTHER=plugin-first; else OTHER=pyxis-first; fi
cases "$RUN"
with_plugstack_order "$OTHER"
cases "$OTHER"
