#!/bin/bash
# cluster.sh - a throwaway Slurm cluster whose nodes are separate network
# hosts, on this one machine, for the tests and the demo.
#
# Every host is a network namespace plus a UTS namespace (its own hostname)
# with one link into a bridge ("the switch", itself in a namespace of its
# own). Nothing is added to the root network namespace: no interface, no
# address, no listener, so another cluster or another mooncake_master on
# the machine cannot collide with this one, nor this one with them.
#
#   10.213.0.1    ctl    munged (unix socket on the file system), slurmctld :6817
#   10.213.0.2    login  no daemon: client commands (sbatch, srun, squeue) run here
#   10.213.0.1K   nK     slurmd :6818 (K = 1..MCK_NODES)
#   10.213.1.1K   nK     eth1, a second NIC on a second switch (the "data network")
#
# Slurm's OCI containers (srun --container=BUNDLE, crun), where they can run
# (oci_support below; `cluster.sh env` says MCK_OCI=on, else why not): the
# cluster is written with etc/oci.conf.off, and a test that wants them renames
# it to etc/oci.conf (slurmstepd reads it per step, the plugin per srun). By
# default the cluster has no container support, so the example recipes, whose
# model.container is srtctl's alias "trtllm", run with the host's master.
#
#   cluster.sh up                 namespaces, links, configs, daemons; waits until idle
#   cluster.sh down               cancel jobs, stop daemons and whatever else runs in
#                                 our namespaces (by PID), delete the namespaces
#   cluster.sh status             hosts, addresses, links, daemons, processes per host
#   cluster.sh exec HOST CMD...   run CMD on HOST (SLURM_CONF and the venv on PATH)
#   cluster.sh link HOST up|down  plug or pull HOST's cable (eth0's switch port)
#   cluster.sh pids HOST [COMM]   PIDs of processes in HOST's network namespace
#   cluster.sh count COMM         processes named COMM per host
#   cluster.sh traffic HOST [data]  bytes through HOST's port on the switch (eth0, or eth1)
#   cluster.sh env                shell lines for the tests (SLURM_CONF, addresses)
#
# Settings (environment):
#   MCK_CLUSTER_DIR  state, configs, logs, munge socket (${TMPDIR:-/tmp}/mck-cluster);
#                    namespaces are named after it, so two directories are two clusters
#   MCK_NODES        compute nodes (4)
#   MCK_PLUGIN       the plugin in plugstack.conf (build/spank_mooncake.so)
#   MCK_PLUGIN_ARGS  its plugstack arguments (after sampler=$MCK_SAMPLER)
#   MCK_PLUGSTACK_ORDER  pyxis-first (default): plugstack.conf includes
#                    plugstack.conf.d/*.conf (a test's pyxis stand-in) before
#                    the plugin's line; plugin-first: after it. Each `up`
#                    writes it (sruns and steps read it as they start)
#   MCK_SAMPLER      the pool sampler, sampler= (build/mooncake-recipe)
#   MCK_GPUS         dummy GRES gpus per node (4)
#   MCK_OCI          0: no oci.conf even where Slurm's OCI containers can run
#   MOONCAKE_VENV    the venv with the wheel's mooncake_master (/opt/spank-mooncake/venv)
#
# Names resolve nowhere inside the namespaces (there is no resolver on the
# bridge): slurm.conf and the tests use numeric addresses; slurmctld alone
# reads the hosts' names from $D/etc/hosts.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
D=${MCK_CLUSTER_DIR:-${TMPDIR:-/tmp}/mck-cluster}
N=${MCK_NODES:-4}
GPUS=${MCK_GPUS:-4}
PLUGIN=${MCK_PLUGIN:-$TOP/build/spank_mooncake.so}
ORDER=${MCK_PLUGSTACK_ORDER:-pyxis-first}
case $ORDER in pyxis-first | plugin-first) ;; *)
	echo "cluster.sh: MCK_PLUGSTACK_ORDER=$ORDER: pyxis-first or plugin-first" >&2
	exit 2
	;;
esac
VENV=${MOONCAKE_VENV:-/opt/spank-mooncake/venv}
CONF=$D/etc/slurm.conf
NET=10.213.0
DATA=10.213.1
# a short tag of the directory: namespace names are global to the machine
TAG=$(printf '%s' "$D" | cksum | awk '{printf "%05x", $1 % 1048576}')
PFX=mck$TAG
SW=$PFX-sw

log() { printf '[cluster %s] %s\n' "$(date +%T)" "$*" >&2; }
die() {
	log "ERROR: $*"
	exit 1
}

nodes() { local k; for ((k = 1; k <= N; k++)); do echo "n$k"; done; }
# the nodes of the cluster as it was brought up (down must find them all)
known_nodes() { if [ -s "$D/nodes" ]; then cat "$D/nodes"; else nodes; fi; }
hosts() {
	echo ctl
	echo login
	known_nodes
}
addr_of() {
	case $1 in
	ctl) echo "$NET.1" ;;
	login) echo "$NET.2" ;;
	n*) echo "$NET.$((10 + ${1#n}))" ;;
	*) return 1 ;;
	esac
}
netns_of() { echo "$PFX-$1"; }
have_ns() { [ -e "/run/netns/$1" ]; }

# enter HOST: NS, the command prefix that enters HOST's network and UTS
# namespaces, and SHELL_ENV, what a shell on HOST has (SLURM_CONF, the venv
# on PATH)
enter() {
	NS=(nsenter --net="/run/netns/$(netns_of "$1")" --uts="$D/ns/uts-$1" --)
	SHELL_ENV=(env SLURM_CONF="$CONF" PATH="$VENV/bin:$PATH")
}
# nsx HOST CMD...: CMD in HOST's namespaces
nsx() {
	enter "$1"
	shift
	"${NS[@]}" "$@"
}
# on HOST CMD...: CMD as a shell on HOST runs it
on() {
	enter "$1"
	shift
	"${NS[@]}" "${SHELL_ENV[@]}" "$@"
}

# ns_inode HOST: the inode that names HOST's network namespace
ns_inode() { stat -L -c %i "/run/netns/$(netns_of "$1")" 2>/dev/null; }

# host_pids HOST [COMM]: processes inside HOST's network namespace
host_pids() {
	local ino p
	ino=$(ns_inode "$1") || return 0
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/net" 2>/dev/null)" = "net:[$ino]" ] || continue
		[ -z "${2:-}" ] || [ "$(cat "$p/comm" 2>/dev/null)" = "$2" ] || continue
		echo "${p#/proc/}"
	done
}

# pid_of PIDFILE COMM HOST: the PID in PIDFILE if it is a live COMM process
# inside HOST's namespace (never another cluster's daemon)
pid_of() {
	local pid
	[ -s "$1" ] || return 1
	pid=$(tr -dc 0-9 <"$1")
	[ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] || return 1
	[ "$(readlink "/proc/$pid/ns/net" 2>/dev/null)" = "net:[$(ns_inode "$3")]" ] || return 1
	echo "$pid"
}

# link_host HOST IFACE SWITCHPORT ADDR BRIDGE: a veth from HOST to the switch
link_host() {
	ip -n "$SW" link add "$3" type veth peer name "$2" netns "$(netns_of "$1")"
	ip -n "$SW" link set "$3" master "$5" up
	ip -n "$(netns_of "$1")" addr add "$4/24" dev "$2"
	ip -n "$(netns_of "$1")" link set "$2" up
}

net_up() {
	local h
	mkdir -p "$D/ns"
	ip netns add "$SW"
	ip -n "$SW" link set lo up
	for br in br0 br1; do
		ip -n "$SW" link add "$br" type bridge
		ip -n "$SW" link set "$br" up
	done
	for h in $(hosts); do
		ip netns add "$(netns_of "$h")"
		ip -n "$(netns_of "$h")" link set lo up
		link_host "$h" eth0 "$h" "$(addr_of "$h")" br0
		case $h in n*) link_host "$h" eth1 "$h-data" "$DATA.$((10 + ${h#n}))" br1 ;; esac
		: >"$D/ns/uts-$h"
		unshare --uts="$D/ns/uts-$h" hostname "$h"
	done
}

net_down() {
	local h f
	for h in $(hosts); do
		if have_ns "$(netns_of "$h")"; then ip netns del "$(netns_of "$h")"; fi
	done
	if have_ns "$SW"; then ip netns del "$SW"; fi
	for f in "$D"/ns/uts-*; do
		[ -e "$f" ] || continue
		while umount "$f" 2>/dev/null; do :; done
		rm -f "$f"
	done
}

slurm_major() { slurmd -V 2>/dev/null | awk '{split($2, v, "."); print v[1] + 0}'; }

# plugstack.conf: the plugin's line, and the snippets of plugstack.conf.d
# (where a test puts the pyxis stand-in, as pyxis.conf) before it
# (pyxis-first, the order the README's snippet name gives) or after it
write_plugstack() {
	local plugin include="include $D/etc/plugstack.conf.d/*.conf"
	plugin="required $PLUGIN sampler=${MCK_SAMPLER:-$TOP/build/mooncake-recipe} ${MCK_PLUGIN_ARGS:-}"
	{
		echo "# written by tests/cluster/cluster.sh (MCK_PLUGSTACK_ORDER=$ORDER)"
		case $ORDER in
		pyxis-first) printf '%s\n' "$include" "$plugin" ;;
		plugin-first) printf '%s\n' "$plugin" "$include" ;;
		esac
	} >"$D/etc/plugstack.conf"
}

# Can Slurm's OCI containers run here? "on", or "off: why". Slurm 23.02 or
# later (the keys of the oci.conf below), crun, and a cgroup tree crun
# accepts with --cgroup-manager=disabled: it refuses a hybrid (v1 + v2) one,
# which the matrix chroots cover with a tmpfs (tests/matrix/run.sh).
oci_support() {
	if [ "${MCK_OCI:-1}" = 0 ]; then
		echo "off (MCK_OCI=0)"
	elif [ "$(slurm_major)" -lt 23 ]; then
		echo "off: Slurm $(slurmd -V 2>/dev/null | awk '{print $2}') (the test's oci.conf needs 23.02 or later; tests/setup.sh installs crun there)"
	elif ! command -v crun >/dev/null; then
		echo "off: no crun (tests/setup.sh installs it with Slurm 23.02 or later)"
	elif [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = tmpfs ] && mountpoint -q /sys/fs/cgroup/unified; then
		echo "off: crun refuses this machine's hybrid cgroup tree (the matrix chroots have a tmpfs there)"
	else
		echo on
	fi
}

# oci.conf (as etc/oci.conf.off): crun with the node's cgroups left alone, one
# container per step and node (no %t: Slurm fills it with -1 at the step's
# end), `exec` so that slurmstepd tracks crun itself
write_oci_conf() {
	local crun="crun --cgroup-manager=disabled --root=$D/run/crun"
	mkdir -p "$D/run/crun"
	cat >"$D/etc/oci.conf.off" <<OCI
EnvExclude="^(SLURM_CONF|SLURM_CONF_SERVER)="
RunTimeEnvExclude="^(SLURM_CONF|SLURM_CONF_SERVER)="
RunTimeQuery="$crun state %n.%u.%j.%s"
RunTimeKill="$crun kill -a %n.%u.%j.%s"
RunTimeDelete="$crun delete --force %n.%u.%j.%s"
RunTimeRun="exec $crun run --keep --bundle %b %n.%u.%j.%s"
OCI
}

write_configs() {
	local n i
	rm -rf "${D:?}/state" "${D:?}/spool" "${D:?}/etc" "${D:?}/log"
	mkdir -p "$D/etc/plugstack.conf.d" "$D/state" "$D/log" "$D/run" "$D/munge" "$D/dev"
	for n in $(nodes); do mkdir -p "$D/spool/$n"; done
	chmod 755 "$D" "$D/munge"
	[ -s "$D/munge/munge.key" ] || mungekey --create --keyfile="$D/munge/munge.key" --force
	chmod 600 "$D/munge/munge.key"
	for ((i = 0; i < GPUS; i++)); do
		[ -c "$D/dev/gpu$i" ] || mknod "$D/dev/gpu$i" c 1 3 # /dev/null's numbers
	done
	cat >"$CONF" <<CONF
ClusterName=mck$TAG
SlurmctldHost=ctl($(addr_of ctl))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.sock
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$D/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
InactiveLimit=0
KillWait=5
MinJobAge=300
SlurmctldTimeout=30
# test_ha.sh pulls a node's cable for about a minute: no node is set DOWN meanwhile
SlurmdTimeout=300
CONF
	# slurmd 23.02 and later load a cgroup plugin even with task/none and
	# proctrack/linuxproc; the test cluster needs none (22.05 refuses the line)
	if [ "$(slurm_major)" -ge 23 ]; then echo "CgroupPlugin=disabled" >"$D/etc/cgroup.conf"; fi
	if [ "$GPUS" -gt 0 ]; then
		echo "GresTypes=gpu" >>"$CONF"
		echo "Name=gpu File=$D/dev/gpu[0-$((GPUS - 1))]" >"$D/etc/gres.conf"
	fi
	for n in $(nodes); do
		# NodeHostname: the UTS hostname slurmd finds itself by; NodeAddr:
		# where everyone else reaches it
		echo "NodeName=$n NodeHostname=$n NodeAddr=$(addr_of "$n") CPUs=4$([ "$GPUS" -gt 0 ] && echo " Gres=gpu:$GPUS") State=UNKNOWN" >>"$CONF"
	done
	echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$CONF"
	write_plugstack
	oci_support >"$D/oci"
	if [ "$(cat "$D/oci")" = on ]; then write_oci_conf; fi
	nodes >"$D/nodes"
}

idle_count() { on login sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | wc -l; }

# wait_idle S: every node idle within S seconds (a node still completing the
# last test's job on a loaded machine takes a while)
wait_idle() {
	local deadline=$((SECONDS + $1))
	while ((SECONDS < deadline)); do
		[ "$(idle_count)" -ge "$N" ] && return 0
		sleep 0.2
	done
	on login sinfo -N >&2 || true
	return 1
}

all_up() {
	local n
	have_ns "$SW" || return 1
	[ "$(known_nodes | wc -l)" = "$N" ] || return 1
	pid_of "$D/munge/munged.pid" munged ctl >/dev/null || return 1
	pid_of "$D/run/slurmctld.pid" slurmctld ctl >/dev/null || return 1
	for n in $(known_nodes); do pid_of "$D/run/slurmd-$n.pid" slurmd "$n" >/dev/null || return 1; done
}

cmd_up() {
	local n i t0=$SECONDS
	[ "$(id -u)" = 0 ] || die "run as root (namespaces, and the daemons run as root)"
	[ -f "$PLUGIN" ] || die "no plugin at $PLUGIN: run make first"
	[ -x "$VENV/bin/mooncake_master" ] || die "no $VENV/bin/mooncake_master: run tests/setup.sh"
	if [ -f "$CONF" ] && all_up; then
		# plugstack.conf is read at every srun and step: rewriting it
		# is enough to change the plugin or its arguments
		write_plugstack
		wait_idle 120 || die "the cluster is up but its nodes are not idle"
		log "already up ($D)"
		return 0
	fi
	cmd_down >/dev/null 2>&1 || true
	mkdir -p "$D"
	write_configs
	net_up
	# munged has no network side (a unix socket every host reaches); it
	# runs on ctl all the same
	nsx ctl munged --key-file="$D/munge/munge.key" --socket="$D/munge/munge.sock" \
		--pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" \
		--seed-file="$D/munge/munged.seed" --origin="$(addr_of ctl)"
	for i in $(seq 50); do
		munge -n -S "$D/munge/munge.sock" 2>/dev/null | unmunge -S "$D/munge/munge.sock" >/dev/null 2>&1 && break
		sleep 0.1
	done
	# MCK_DAEMON_ENV marks the daemons' environment: tests check that it
	# never reaches a job's processes
	# slurmctld 23.11 and later look up the name of the host an srun or
	# salloc runs on (login) to answer it, retrying for 10 s while no
	# resolver answers, and time out every client meanwhile: it reads the
	# cluster's names from a hosts file of its own (its own mount namespace)
	{
		echo "127.0.0.1 localhost"
		for h in $(hosts); do echo "$(addr_of "$h") $h"; done
	} >"$D/etc/hosts"
	nsx ctl unshare --mount sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$D/etc/hosts" \
		env MCK_DAEMON_ENV=slurm-daemon SLURM_CONF="$CONF" slurmctld -i
	for i in $(seq 100); do pid_of "$D/run/slurmctld.pid" slurmctld ctl >/dev/null && break; sleep 0.1; done
	pid_of "$D/run/slurmctld.pid" slurmctld ctl >/dev/null || {
		tail -n 20 "$D/log/slurmctld.log" >&2
		die "slurmctld did not start"
	}
	for n in $(nodes); do
		nsx "$n" env MCK_DAEMON_ENV=slurm-daemon SLURM_CONF="$CONF" slurmd
	done
	wait_idle 60 || {
		tail -n 20 "$D"/log/*.log >&2
		die "the nodes did not become idle"
	}
	log "up in $((SECONDS - t0)) s: $(for h in $(hosts); do printf '%s=%s ' "$h" "$(addr_of "$h")"; done)($D)"
}

# is_ancestor PID: PID is this process or one of its ancestors
is_ancestor() {
	local p=$$
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		[ "$p" = "$1" ] && return 0
		p=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null)
	done
	return 1
}

# stop_pids GRACE PID...: SIGTERM, then SIGKILL after GRACE seconds
stop_pids() {
	local p left=() deadline grace=$1
	shift
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null || true
	deadline=$((SECONDS + grace))
	while ((SECONDS < deadline)); do
		left=()
		for p in "$@"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
		[ ${#left[@]} -eq 0 ] && return 0
		sleep 0.1
	done
	kill -KILL "${left[@]}" 2>/dev/null || true
}

cmd_down() {
	local n p h ids pids=() deadline t0=$SECONDS
	if have_ns "$(netns_of login)" && pid_of "$D/run/slurmctld.pid" slurmctld ctl >/dev/null; then
		ids=$(on login squeue -h -o %i 2>/dev/null || true)
		if [ -n "$ids" ]; then
			# shellcheck disable=SC2086
			on login scancel $ids 2>/dev/null || true
			deadline=$((SECONDS + 30))
			while ((SECONDS < deadline)) && [ -n "$(on login squeue -h -o %i 2>/dev/null)" ]; do sleep 0.2; done
		fi
	fi
	for n in $(known_nodes); do p=$(pid_of "$D/run/slurmd-$n.pid" slurmd "$n") && pids+=("$p"); done
	p=$(pid_of "$D/run/slurmctld.pid" slurmctld ctl) && pids+=("$p")
	p=$(pid_of "$D/munge/munged.pid" munged ctl) && pids+=("$p")
	stop_pids 20 "${pids[@]}"
	rm -f "$D"/run/*.pid "$D/munge/munged.pid"
	# whatever still runs on our hosts (slurmstepd, tasks, masters) is ours,
	# but for the caller itself (down may be run from the login host)
	pids=()
	for h in $(hosts); do
		while read -r p; do
			[ -n "$p" ] && ! is_ancestor "$p" && pids+=("$p")
		done < <(host_pids "$h")
	done
	[ ${#pids[@]} -eq 0 ] || { log "stopping leftovers: ${pids[*]}"; stop_pids 5 "${pids[@]}"; }
	# containers of steps that did not end cleanly
	if [ -d "$D/run/crun" ] && command -v crun >/dev/null; then
		crun --root="$D/run/crun" list -q 2>/dev/null | while read -r p; do
			crun --cgroup-manager=disabled --root="$D/run/crun" delete --force "$p" 2>/dev/null || true
		done
	fi
	net_down
	log "down in $((SECONDS - t0)) s ($D)"
}

cmd_status() {
	local h
	for h in $(hosts); do
		if have_ns "$(netns_of "$h")"; then
			printf '%-6s %-15s hostname=%s link=%s procs=%s\n' "$h" \
				"$(ip -n "$(netns_of "$h")" -4 -o addr show dev eth0 2>/dev/null | awk '{print $4}')" \
				"$(nsx "$h" hostname 2>/dev/null)" \
				"$(ip -n "$SW" -br link show dev "$h" 2>/dev/null | awk '{print $2}')" \
				"$(for p in $(host_pids "$h"); do cat "/proc/$p/comm" 2>/dev/null; done | sort | uniq -c | awk '{printf "%s:%s,", $2, $1}')"
		else
			printf '%-6s (no namespace)\n' "$h"
		fi
	done
	printf 'munged %s slurmctld %s\n' "$(pid_of "$D/munge/munged.pid" munged ctl || echo -)" \
		"$(pid_of "$D/run/slurmctld.pid" slurmctld ctl || echo -)"
	if have_ns "$(netns_of login)"; then on login sinfo -N 2>/dev/null || true; fi
}

case "${1:-}" in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
exec)
	[ $# -ge 3 ] || die "usage: $0 exec HOST CMD..."
	h=$2
	shift 2
	have_ns "$(netns_of "$h")" || die "no host $h (is the cluster up?)"
	# exec: the caller's PID is CMD's (kill reaches it)
	enter "$h"
	exec "${NS[@]}" "${SHELL_ENV[@]}" "$@"
	;;
link)
	[ $# -eq 3 ] && { [ "$3" = up ] || [ "$3" = down ]; } || die "usage: $0 link HOST up|down"
	ip -n "$SW" link set dev "$2" "$3"
	;;
pids)
	[ $# -ge 2 ] || die "usage: $0 pids HOST [COMM]"
	host_pids "$2" "${3:-}"
	;;
traffic)
	# bytes through HOST's switch port (eth0) or its data port (eth1)
	[ $# -ge 2 ] || die "usage: $0 traffic HOST [data]"
	port=$2${3:+-$3}
	ip -n "$SW" -s link show dev "$port" | awk '/^ *[RT]X:/ { getline; n += $1 } END { print n + 0 }'
	;;
count)
	[ $# -eq 2 ] || die "usage: $0 count COMM"
	for h in $(hosts); do echo "$h $(host_pids "$h" "$2" | wc -l)"; done
	;;
env)
	echo "export SLURM_CONF=$CONF"
	echo "MCK_LOGIN_NS=/run/netns/$(netns_of login)"
	echo "MCK_ORDER=$(sed -n 's/^# written by .*MCK_PLUGSTACK_ORDER=\([a-z-]*\).*/\1/p' "$D/etc/plugstack.conf" 2>/dev/null)"
	printf 'MCK_OCI=%q\n' "$(cat "$D/oci" 2>/dev/null || echo "off: the cluster is not up")"
	for h in $(hosts); do echo "MCK_ADDR_$h=$(addr_of "$h")"; done
	for h in $(known_nodes); do echo "MCK_DATA_ADDR_$h=$DATA.$((10 + ${h#n}))"; done
	;;
*)
	echo "usage: $0 up|down|status|exec HOST CMD...|link HOST up|down|pids HOST [COMM]|count COMM|traffic HOST [data]|env" >&2
	exit 2
	;;
esac
