#!/bin/bash
# The master in the job's container (issue 13): the recipe's container
# (model.container in the TRT-LLM example), plugstack container=.
#
# A. No container support (no oci.conf, srun has no --container-image): the
#    example, whose model.container is srtctl's alias "trtllm", runs as
#    today with the host's mooncake_master, and one line says the recipe's
#    container is not used.
# B. A STAND-IN for pyxis (tests/cluster/pyxis_standin.c: pyxis's options
#    under pyxis's SPANK name, taken as pyxis takes them, from the command
#    line, from what Slurm passes in the environment, PYXIS_CONTAINER_*
#    defaults, and recorded per step; it is not pyxis, and it runs no
#    container for an image it does not hold, as here, so every step still
#    runs on the host; test_pyxis.sh runs its containers): workers whose
#    sruns have --container-image of their own start the pool, and the master
#    and sampler steps get exactly the container the plugin chose, in every
#    mode (auto with and without a recipe container, pyxis, none); an alias
#    and a directory are refused before any step starts; a srtslurm.yaml
#    another user planted above the job's working directory chooses
#    nothing, and the srun that starts the master names it and its owner.
# C. Slurm's OCI containers (srun --container, crun; where the cluster has
#    them: Slurm 23.02 or later, i.e. the trixie and sid chroots of
#    `make check-matrix`): the example with model.container = an OCI bundle
#    built from Debian packages and the wheel (tests/cluster/bundle.sh); the
#    master runs inside it on n1, and so do the workers (prefill on n2,
#    decode on n3, srun --container), whose real Mooncake clients move a
#    value through the pool; the recipe names the bundle by an srtctl alias
#    (srtslurm.yaml); the sampler runs on the host; a worker in a bundle
#    that does not mount the job's directory fails in task_init with the
#    mount to add; values the cluster cannot use are refused before any
#    step starts; container=none, and a recipe without a container, keep
#    the host's master and sampler even when the workers' sruns (the one
#    that starts the pool among them) run in the bundle (--container,
#    SRUN_CONTAINER).
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
ETC=$(dirname "$SLURM_CONF")
STANDIN=$TOP/build/tests/pyxis_standin.so
# whatever this test changes in the cluster's configuration, it puts back
# (the plugin's arguments: with_plugin_args)
# (the cluster keeps its oci.conf as oci.conf.off: no container support by default)
MCK_EXIT_HOOKS+=("rm -f '$ETC/plugstack.conf.d/pyxis.conf'; [ ! -e '$ETC/oci.conf' ] || mv '$ETC/oci.conf' '$ETC/oci.conf.off'")

oci_conf() { # on | off: Slurm's OCI containers (the plugin looks for oci.conf next to slurm.conf)
	if [ "$1" = off ] && [ -e "$ETC/oci.conf" ]; then mv "$ETC/oci.conf" "$ETC/oci.conf.off"; fi
	if [ "$1" = on ] && [ -e "$ETC/oci.conf.off" ]; then mv "$ETC/oci.conf.off" "$ETC/oci.conf"; fi
}
standin() { # on | off
	if [ "$1" = on ]; then
		mkdir -p "$W/standin" && chmod 1777 "$W/standin"
		echo "optional $STANDIN record=$W/standin" >"$ETC/plugstack.conf.d/pyxis.conf"
	else
		rm -f "$ETC/plugstack.conf.d/pyxis.conf"
	fi
}
# recipe FILE CONTAINER: the example with model.container set to CONTAINER
recipe() {
	trtllm_test_recipe "$1"
	sed -i "s|^  container: \"trtllm\"|  container: \"$2\"|" "$1"
}
# where the job's master runs: "exe=... mnt=..." of the mooncake_master on n1
master_seen() { proc_seen mooncake_master; }
# ... and its sampler (mooncake-recipe sample), once it runs (20 s)
sampler_seen() {
	local i
	for i in $(seq 100); do
		[ -n "$("$CLUSTER" pids n1 mooncake-recipe)" ] && break
		sleep 0.2
	done
	proc_seen mooncake-recipe
}
# proc_seen COMM: "exe=... mnt=..." of the COMM process on n1, once it runs
# the program of that name (a console script's python execs it) (20 s)
proc_seen() {
	local pid exe i
	for i in $(seq 100); do
		pid=$("$CLUSTER" pids n1 "$1" | head -1)
		exe=$(readlink "/proc/$pid/exe" 2>/dev/null)
		[ -n "$pid" ] && [ "${exe##*/}" = "$1" ] && break
		sleep 0.2
	done
	[ -n "$pid" ] && echo "exe=$exe mnt=$(readlink "/proc/$pid/ns/mnt")"
}
HOST_MNT=$(readlink /proc/self/ns/mnt)
# what each worker prints first: its node and its Python's prefix
cat >"$W/where.py" <<'EOF'
import socket, sys
print(socket.gethostname(), "PREFIX=" + sys.prefix, flush=True)
EOF

# move_job NAME RECIPE [SRUN OPTIONS]: an sbatch -N3 job in $W/NAME: prefill
# on n2 puts a value, decode on n3 reads it (each srun with the options);
# $EXTRA runs in the job once the value is in the pool. The master is looked
# at while the job runs (NAME/master.txt), and the sampler (sampler.txt).
# Sets JID and J.
move_job() {
	local name=$1 r=$2 opts=${3:-}
	J=$W/$name
	mkdir -p "$J"
	cat >"$J/job.sh" <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 $opts --mooncake-recipe=$r --mooncake-role=prefill \\
	bash -c 'python3 $W/where.py && python3 $CLIENT env && python3 $CLIENT put pool-key hello-$name $J/done' >$J/prefill.out 2>&1 &
srun -N1 -n1 -w n3 $opts --mooncake-recipe=$r --mooncake-role=decode \\
	bash -c 'python3 $W/where.py && python3 $CLIENT env && python3 $CLIENT get pool-key hello-$name $J/done' >$J/decode.out 2>&1 &
await 60 grep -qs PUT $J/prefill.out
squeue --steps -h -j \$SLURM_JOB_ID -o '%j %N' >$J/steps.out
${EXTRA:-}
await 60 test -e $J/seen
wait
EOS
	JID=$(sbatch --parsable -N3 -w n1,n2,n3 -o "$J/job.out" "$J/job.sh")
	if wait_master n1; then master_seen >"$J/master.txt"; fi
	sampler_seen >"$J/sampler.txt"
	touch "$J/seen"
	wait_job "$JID" 240
}
# the value went through the pool, from n2 to n3
moved() {
	check "[$1] the prefill client on n2 put the value (rc=0)" grep -q "^n2 PUT pool-key rc=0" "$J/prefill.out"
	check "[$1] the decode client on n3 read back what prefill put" grep -qx "n3 GOT pool-key=hello-$1" "$J/decode.out"
}
# refused WHAT NAME CONTAINER: a standalone srun of a role of the example
# with model.container CONTAINER (in $W/rf/NAME.yaml) is refused before any
# job or step exists: no task ran, nothing was written; ERR is its message
mkdir -p "$W/rf"
refused() {
	local what=$1 before rc
	recipe "$W/rf/$2.yaml" "$3"
	# the jobs before have left the queue: a new one would show
	for i in $(seq 300); do [ -z "$(squeue -h)" ] && break; sleep 0.2; done
	before=$(squeue -h | wc -l)
	(cd "$W/rf" && srun -N1 --mooncake-recipe="$2.yaml" --mooncake-role=prefill echo TASK-RAN \
		>"$W/rf/$2.out" 2>"$W/rf/$2.err")
	rc=$?
	ERR=$(grep -m1 'mooncake:' "$W/rf/$2.err")
	check "$what is refused before any step (rc=$rc): $ERR" \
		test "$rc" -ne 0 -a ! -s "$W/rf/$2.out" -a "$(squeue -h | wc -l)" = "$before" -a ! -e "$W/rf/outputs"
}

# --- A: no container support -------------------------------------------
oci_conf off
standin off
trtllm_test_recipe "$W/plain.yaml"
move_job plain plain.yaml
moved plain
check "[A] the master ran from the host's PATH ($(cat "$J/master.txt" 2>/dev/null))" \
	grep -q "^exe=$MOONCAKE_VENV/" "$J/master.txt"
check "[A] exactly one line says the recipe's container is not used: $(grep -h -m1 'is not used' "$J"/*.out)" \
	test "$(grep -h "mooncake: plain.yaml:26:14: model.container: 'trtllm' is not used: this cluster has no container support for the master step" "$J"/*.out | wc -l)" = 1
check "[A] squeue --steps shows one mooncake-master step, on n1" test "$(grep -c '^mooncake-master n1$' "$J/steps.out")" = 1
# srun --jobid from outside the allocation: the srun that starts the pool
# decides the container (it asks srun --help whether pyxis is there), one
# that joins it decides nothing again (issue #20); srun= is a wrapper that
# logs how the plugin runs srun
cat >"$W/srun-log" <<EOS
#!/bin/bash
echo "\$*" >>$W/srun-log.calls
exec $(command -v srun) "\$@"
EOS
chmod 755 "$W/srun-log"
with_plugin_args "srun=$W/srun-log"
aj=$(alloc n1,n2 -N2)
srun --jobid="$aj" -N1 -n1 -w n2 --mooncake-recipe=plain.yaml --mooncake-role=prefill printenv MOONCAKE_MASTER >"$W/join-1.out" 2>&1
cp "$W/srun-log.calls" "$W/join-1.calls"
srun --jobid="$aj" -N1 -n1 -w n2 --mooncake-recipe=plain.yaml --mooncake-role=decode printenv MOONCAKE_MASTER >"$W/join-2.out" 2>&1
scancel "$aj"
wait_job "$aj" 60
with_plugin_args ""
check "[A] srun --jobid from outside the allocation starts the pool, and asks srun --help once ($(tr '\n' ';' <"$W/join-1.calls"))" \
	has_line "$W/join-1.out" "$MCK_ADDR_n1:8700" --and test "$(grep -cx -- --help "$W/join-1.calls")" = 1
check "[A] ... a second one joins it and decides nothing again: no srun --help ($(tail -1 "$W/join-2.out"))" \
	has_line "$W/join-2.out" "$MCK_ADDR_n1:8700" --and test "$(grep -cx -- --help "$W/srun-log.calls")" = 1

# --- B: the pyxis stand-in (not pyxis) ----------------------------------
# Workers run as NVIDIA's clusters run them, each srun with a
# --container-image of its own (WIMG), and the srun that starts the pool
# is one of them: every step the plugin starts (the master, the sampler)
# gets exactly the container the plugin chose, and nothing of the
# worker's (srun hands its options on in its environment).
WIMG='nvcr.io#nvidia/worker/image:2'
# seen JID NAME: what the stand-in recorded for the step NAME of job JID
seen() { cat "$W/standin/$1".* 2>/dev/null | grep "^name=$2 " | head -1; }
# the stand-in's line for a step that got no container option
NOTHING='container-image= container-mounts= container-workdir= container-name= container-save= container-env= container-mount-home= container-remap-root= container-entrypoint= container-writable='
# pyxis_master IMAGE DIR: the stand-in's line for a master step in IMAGE
# with the job's directory DIR: the image, the directory mounted and the
# step's working directory, the variables srun sets for its task named in
# --container-env (pyxis keeps their values over the image's)
pyxis_master() {
	echo "container-image=$1 container-mounts=$2:$2 container-workdir=$2 container-name= container-save= container-env=SLURM_MOONCAKE_MASTER_PORTS,SLURM_MOONCAKE_MASTER_GUARD container-mount-home= container-remap-root= container-entrypoint= container-writable="
}
# pool_job NAME RECIPE: an sbatch -N2 job whose one worker srun, on n2, has
# pyxis options of its own and starts the pool; the job ends once the
# sampler step has started. Sets JID and J.
pool_job() {
	J=$W/$1
	mkdir -p "$J"
	cat >"$J/job.sh" <<EOS
#!/bin/bash
srun -N1 -n1 -w n2 --container-image=$WIMG --container-mounts=$W:$W --no-container-mount-home --mooncake-recipe=$2 --mooncake-role=prefill true >$J/worker.out 2>&1
for i in \$(seq 300); do grep -qs '^name=mooncake-pool ' $W/standin/\$SLURM_JOB_ID.*.n1 && break; sleep 0.2; done
EOS
	JID=$(sbatch --parsable -N2 -w n1,n2 -o "$J/job.out" "$J/job.sh")
	wait_job "$JID" 120
}
# steps_got WHAT MASTER: the master step got MASTER (its options as the
# stand-in's line shows them), the sampler nothing, the worker its own
steps_got() {
	local m p w
	m=$(seen "$JID" mooncake-master) p=$(seen "$JID" mooncake-pool) w=$(seen "$JID" job.sh)
	echo "   [$1] master: $m"
	echo "   [$1] sampler: $p"
	check "[$1] the master step got exactly the plugin's choice: $2" test "$m" = "name=mooncake-master $2"
	check "[$1] the sampler step got no container option (it runs on the host)" test "$p" = "name=mooncake-pool $NOTHING"
	check "[$1] (the stand-in saw the worker's own options: $w)" \
		has - " container-image=$WIMG " ' container-mount-home=0 ' <<<"$w"
}
if [ -f "$STANDIN" ]; then
	standin on
	IMAGE='nvcr.io#nvidia/tensorrt-llm/release:1.0.0'
	recipe "$W/pyxis.yaml" "$IMAGE"
	# a job-wide pyxis default must not reach the plugin's steps either
	PYXIS_CONTAINER_IMAGE=docker.io#library/other:1 PYXIS_CONTAINER_MOUNTS=/srv:/srv \
		move_job pyxis pyxis.yaml "--container-image=$WIMG --container-mounts=$W:$W --no-container-mount-home"
	moved pyxis
	dir=$W/outputs/$JID/logs
	steps_got "B, pyxis stand-in, container=auto" \
		"$(pyxis_master "$IMAGE" "$dir")"
	check "[B, pyxis stand-in] no line says the container is not used" not grep -q 'is not used' "$J"/*.out
	# a recipe without a container: the host's master
	trtllm_test_recipe "$W/nocontainer.yaml"
	sed -i '/^  container: "trtllm"/d' "$W/nocontainer.yaml"
	pool_job nocontainer nocontainer.yaml
	steps_got "B, pyxis stand-in, no recipe container" "$NOTHING"
	# container=pyxis, and container=none (the host, whatever the recipe says)
	with_plugin_args container=pyxis
	pool_job forced pyxis.yaml
	dir=$W/outputs/$JID/logs
	steps_got "B, pyxis stand-in, container=pyxis" \
		"$(pyxis_master "$IMAGE" "$dir")"
	with_plugin_args container=none
	pool_job none pyxis.yaml
	steps_got "B, pyxis stand-in, container=none" "$NOTHING"
	with_plugin_args ""
	# srtctl's alias, through the srtslurm.yaml of the job's directory (as
	# srtctl finds it: the working directory, its parent, its grandparent)
	recipe "$W/alias.yaml" trtllm
	printf 'cluster: {account: test}\ncontainers:\n  trtllm: "%s"\n' "$IMAGE" >"$W/srtslurm.yaml"
	pool_job alias alias.yaml
	dir=$W/outputs/$JID/logs
	steps_got "B, pyxis stand-in, srtctl's alias" \
		"$(pyxis_master "$IMAGE" "$dir")"
	rm "$W/srtslurm.yaml"
	# another user's srtslurm.yaml (issue 34): OTHER plants one in a sticky
	# world-writable directory (as /tmp) two levels above the job's working
	# directory, mapping the recipe's alias to an image of theirs; the
	# cluster's (srtslurm=) maps it to the real one. The job's user's srun
	# skips OTHER's file, names it with its owner, and the master step gets
	# the cluster's image, which the srun that starts it names with its file
	VICTIM=mckvictim OTHER=mckother
	test_user "$VICTIM" >/dev/null
	ouid=$(test_user "$OTHER")
	mkdir -m 1777 "$W/scratch"
	P=$W/scratch/proj/run
	as "$VICTIM" "mkdir -p $P"
	as "$OTHER" "printf '%s\n' 'containers: {trtllm: \"nvcr.io#evil/theirs:6\"}' >$W/scratch/srtslurm.yaml"
	printf 'containers: {trtllm: "%s"}\n' "$IMAGE" >"$W/cluster-srtslurm.yaml"
	with_plugin_args "srtslurm=$W/cluster-srtslurm.yaml"
	recipe "$P/r.yaml" trtllm
	cat >"$P/job.sh" <<EOS
#!/bin/bash
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill true >$P/worker.out 2>&1
for i in \$(seq 300); do grep -qs '^name=mooncake-pool ' $W/standin/\$SLURM_JOB_ID.*.n1 && break; sleep 0.2; done
EOS
	chown "$VICTIM:" "$P/r.yaml" "$P/job.sh"
	JID=$(cd "$P" && as "$VICTIM" sbatch --parsable -N2 -w n1,n2 -o "$P/job.out" job.sh)
	wait_job "$JID" 120
	with_plugin_args ""
	dir=$P/outputs/$JID/logs
	check "[B, pyxis stand-in, another user's srtslurm.yaml two levels up] the master step got the cluster's image, not theirs: $(seen "$JID" mooncake-master)" \
		test "$(seen "$JID" mooncake-master)" = "name=mooncake-master $(pyxis_master "$IMAGE" "$dir")"
	check "[B] ... and the srun that started it says it skipped that file, naming its owner, and which image it resolved from which file ($(grep -m1 'skipped' "$P/worker.out" | head -c 400))" \
		has "$P/worker.out" "skipped $W/scratch/srtslurm.yaml (it belongs to uid $ouid ($OTHER))" \
		"model.container ('trtllm' is containers.trtllm of $W/cluster-srtslurm.yaml:1:" "the master step runs in $IMAGE (pyxis)"
	# an alias no srtslurm.yaml maps: refused, naming what was read
	refused "[B, pyxis stand-in] an srtctl alias no srtslurm.yaml maps" alias-pyxis trtllm
	check "[B] ... saying where it looked and what to write instead" grep -q "mooncake: alias-pyxis.yaml:26:14: model.container: 'trtllm' looks like an srtctl alias (srtslurm.yaml's containers:), and no srtslurm.yaml maps it (no srtslurm.yaml in $W/rf, $W, $MCK_TMP (and SRTSLURM_CONFIG is not set); plugstack.conf names no cluster-wide file (srtslurm=)); with pyxis on this cluster (srun has --container-image), the master step runs as srun --container-image=IMAGE: map it in containers: of srtslurm.yaml, or write the image itself" "$W/rf/alias-pyxis.err"
	printf 'containers: {vllm: "nvcr.io#nvidia/vllm:1"}\n' >"$W/cluster-srtslurm.yaml"
	with_plugin_args "srtslurm=$W/cluster-srtslurm.yaml"
	refused "[B, pyxis stand-in, srtslurm= in plugstack.conf] an srtctl alias no srtslurm.yaml maps" alias-cluster trtllm
	check "[B] ... naming the cluster's file" grep -q "and no srtslurm.yaml maps it ($W/cluster-srtslurm.yaml (srtslurm= in plugstack.conf); no srtslurm.yaml in $W/rf, $W, $MCK_TMP (and SRTSLURM_CONFIG is not set)); with pyxis" "$W/rf/alias-cluster.err"
	with_plugin_args ""
	refused "[B, pyxis stand-in] a directory" dir-pyxis "$W"
	standin off
else
	fail "[B] no pyxis stand-in at $STANDIN: run make $STANDIN (make check-cluster builds it)"
fi

# --- C: Slurm's OCI containers ----------------------------------------------
# container=oci says so even where the cluster has no OCI support: a value
# that is no bundle is refused on every release
with_plugin_args container=oci
refused "[container=oci] an srtctl alias" alias-oci trtllm
check "[container=oci] ... saying what to write instead" grep -q "mooncake: alias-oci.yaml:26:14: model.container: 'trtllm' is not an OCI bundle directory. With container=oci in plugstack.conf, the master step runs as srun --container=BUNDLE" "$W/rf/alias-oci.err"
with_plugin_args ""
slurm_major=$(slurmd -V | awk '{ split($2, v, "."); print v[1] + 0 }')
if [ "$MCK_OCI" != on ] && [ "$slurm_major" -ge 23 ]; then
	# where it can run, it must: a missing piece is a failure, not a skip
	fail "[C, OCI] Slurm $slurm_major has OCI support, but the test cluster has none: $MCK_OCI"
	exit 1
fi
if [ "$MCK_OCI" != on ]; then
	echo "NOTE: the master in an OCI bundle (Slurm's --container with crun) is not tested on this cluster ($MCK_OCI); it runs in the trixie (Slurm 24.11) and sid (Slurm 26.05) chroots of make check-matrix"
	exit 0
fi
oci_conf on
ROOTFS=$("$TOP/tests/cluster/bundle.sh" path)
# the job's bundle: the job's files ($W) and the tests' client ($TOP) at
# their own paths; and one without the job's directory
"$TOP/tests/cluster/bundle.sh" config "$W/bundle" "$W" "$TOP" ||
	{ fail "[C] could not write the bundle's config.json (tests/setup.sh builds its root file system)"; exit 1; }
"$TOP/tests/cluster/bundle.sh" config "$W/bundle-nomount" "$TOP"
recipe "$W/oci.yaml" "$W/bundle"
# the example as srtctl users write it: model.container is the alias
# trtllm, which the srtslurm.yaml of the job's directory maps to the bundle
recipe "$W/oci-alias.yaml" trtllm
printf 'containers:\n  trtllm: %s\n' "$W/bundle" >"$W/srtslurm.yaml"
EXTRA="srun --overlap -N1 -n1 -w n3 --container=$W/bundle-nomount --mooncake-recipe=oci-alias.yaml --mooncake-role=decode python3 -c 'print(\"TASK-RAN\")' >$W/oci/nomount.out 2>&1; echo rc=\$? >>$W/oci/nomount.out" \
	move_job oci oci-alias.yaml "--container=$W/bundle"
rm "$W/srtslurm.yaml"
moved oci
dir=$W/outputs/$JID/logs
seen=$(cat "$J/master.txt" 2>/dev/null)
echo "   the master on n1: $seen (this shell's mount namespace: $HOST_MNT)"
# (the kernel shows a path of another mount namespace from its own root:
# .../rootfs/opt/mooncake/..., or only /opt/mooncake/... )
check "[C, OCI] the master ran the bundle's mooncake_master (its /opt/mooncake, which this host does not have)" \
	has_re "$J/master.txt" '^exe=[^ ]*/opt/mooncake/lib/python[^ ]*/mooncake/mooncake_master ' --and test ! -e /opt/mooncake
check "[C, OCI] ... in a mount namespace of its own (the container)" \
	has "$J/master.txt" ' mnt=mnt:' --and lacks "$J/master.txt" " mnt=$HOST_MNT"
# the sampler: the host's mooncake-recipe, whatever the master and the
# workers run in
on_host() { [ "$(cat "$1" 2>/dev/null)" = "exe=$SAMPLER mnt=$HOST_MNT" ]; }
# the master ran the host's mooncake_master, in the host's mount namespace
host_master() { has_re "$J/master.txt" "^exe=$MOONCAKE_VENV/" && has "$J/master.txt" " mnt=$HOST_MNT"; }
# the workers' Python was the bundle's /opt/mooncake
workers_in_bundle() {
	has_line "$J/prefill.out" 'n2 PREFIX=/opt/mooncake' && has_line "$J/decode.out" 'n3 PREFIX=/opt/mooncake'
}
SAMPLER=$(readlink -f "${MCK_SAMPLER:-$TOP/build/mooncake-recipe}")
check "[C, OCI] the sampler ran on the host ($(cat "$J/sampler.txt" 2>/dev/null))" on_host "$J/sampler.txt"
check "[C, OCI] squeue --steps shows one mooncake-master step, on n1" test "$(grep -c '^mooncake-master n1$' "$J/steps.out")" = 1
check "[C, OCI] the master's log is in the job's directory" grep -q "Master service started" "$dir/mooncake_master.log"
check "[C, OCI] the workers ran in the bundle too (their Python is the bundle's /opt/mooncake)" \
	workers_in_bundle
check "[C, OCI] ... and read their client config at the job directory's own path" \
	grep -qx "n3 MOONCAKE_CONFIG_PATH=$dir/mooncake_store_config_decode.$MCK_ADDR_n3.json" "$J/decode.out"
check "[C, OCI] a worker in a bundle without the job's directory fails in task_init: $(grep -m1 'mooncake:' "$J/nomount.out")" \
	has "$J/nomount.out" "mooncake: this task on n3 runs in the OCI bundle $W/bundle-nomount (srun --container), which does not mount $dir, so the task cannot read its client config $dir/mooncake_store_config_decode.$MCK_ADDR_n3.json (MOONCAKE_CONFIG_PATH) there. Mount the job's directory at the same path: add {\"destination\": \"$dir\", \"type\": \"bind\", \"source\": \"$dir\", \"options\": [\"rbind\"]}" \
	--and lacks "$J/nomount.out" TASK-RAN --and not has_line "$J/nomount.out" rc=0
check "[C, OCI] no mooncake_master is left after the job" test "$(masters_left)" = 0
# what Slurm's --container cannot run is refused before any step
refused "[C, OCI] an srtctl alias" alias-auto trtllm
check "[C, OCI] ... naming this cluster's oci.conf and what to write" grep -q "model.container: 'trtllm' is not an OCI bundle directory. With Slurm's OCI containers on this cluster ($ETC/oci.conf)" "$W/rf/alias-auto.err"
mkdir -p "$W/empty"
refused "[C, OCI] a directory without config.json" empty "$W/empty"
# container=none: the host's master, bundle or not, and even when the srun
# that starts it runs its own tasks in the bundle (srun 24.11 and 26.05 do
# not hand --container on in their environment, so this passes without the
# plugin's rule too; SRUN_CONTAINER, below, is what a child srun inherits)
with_plugin_args container=none
move_job none oci.yaml "--container=$W/bundle"
moved none
check "[C, container=none, workers --container] the master ran from the host's PATH ($(cat "$J/master.txt" 2>/dev/null))" \
	host_master
check "[C, container=none, workers --container] the sampler ran on the host" on_host "$J/sampler.txt"
check "[C, container=none, workers --container] (the workers ran in the bundle)" \
	workers_in_bundle
with_plugin_args ""
# a recipe without a container, and every srun of the job in the bundle
# through srun's own variable (SRUN_CONTAINER, as --container)
trtllm_test_recipe "$W/oci-nocontainer.yaml"
sed -i '/^  container: "trtllm"/d' "$W/oci-nocontainer.yaml"
SRUN_CONTAINER=$W/bundle move_job srun-container oci-nocontainer.yaml
moved srun-container
check "[C, no recipe container, SRUN_CONTAINER] the master ran on the host ($(cat "$J/master.txt" 2>/dev/null))" \
	host_master
check "[C, no recipe container, SRUN_CONTAINER] the sampler ran on the host" on_host "$J/sampler.txt"
check "[C, no recipe container, SRUN_CONTAINER] (the workers ran in the bundle)" \
	workers_in_bundle
check "[C, OCI] no mooncake_master is left after the jobs" test "$(masters_left)" = 0
