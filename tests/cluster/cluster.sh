#!/bin/bash
# cluster.sh - a throwaway Slurm cluster on this one machine for the tests
# and the demo: munged, slurmctld and three slurmd (n1, n2, n3, each in its
# own UTS namespace so `hostname` tells them apart), Debian's slurm-wlm
# 22.05, spank_mooncake.so in plugstack.conf as `required`. Everything it
# starts is stopped by PID from its pid files.
#
#   cluster.sh up      write the configs, start the daemons, wait for idle
#   cluster.sh down    cancel jobs, stop the daemons (SIGTERM, then SIGKILL)
#   cluster.sh status  daemons and sinfo
#   cluster.sh env     the export line clients need (SLURM_CONF)
#
# Settings (environment): MCK_CLUSTER_DIR (default /tmp/spank-mooncake-cluster;
# short: it holds the munge socket), MCK_PLUGIN (default build/spank_mooncake.so),
# MCK_PLUGIN_ARGS (plugstack arguments), MCK_GPUS (dummy GRES gpus per node,
# default 4), MCK_PORT (slurmctld port, default 16817; slurmd nK uses
# MCK_PORT+100+K).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
D=${MCK_CLUSTER_DIR:-/tmp/spank-mooncake-cluster}
PLUGIN=${MCK_PLUGIN:-$TOP/build/spank_mooncake.so}
GPUS=${MCK_GPUS:-4}
PORT=${MCK_PORT:-16817}
NODES="n1 n2 n3"
CONF=$D/etc/slurm.conf
export SLURM_CONF=$CONF

log() { printf '[cluster %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# pid_of PIDFILE COMM: the pid, if it is a live COMM process of this cluster
pid_of() {
	local pid
	[ -s "$1" ] || return 1
	pid=$(tr -dc 0-9 <"$1")
	[ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] || return 1
	tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$CONF" ||
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$D/" || return 1
	echo "$pid"
}

write_configs() {
	local host i
	host=$(hostname -s)
	rm -rf "${D:?}/state" "${D:?}/spool" "${D:?}/etc"
	mkdir -p "$D/etc" "$D/state" "$D/log" "$D/run" "$D/munge" "$D/dev"
	for i in $NODES; do mkdir -p "$D/spool/$i"; done
	chmod 755 "$D" "$D/munge"
	[ -s "$D/munge/munge.key" ] || mungekey --create --keyfile="$D/munge/munge.key" --force
	chmod 600 "$D/munge/munge.key"
	for ((i = 0; i < GPUS; i++)); do
		[ -c "$D/dev/gpu$i" ] || mknod "$D/dev/gpu$i" c 1 3 # /dev/null's numbers
	done
	cat >"$CONF" <<CONF
ClusterName=mooncaketest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT
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
SlurmdTimeout=60
CONF
	if [ "$GPUS" -gt 0 ]; then
		echo "GresTypes=gpu" >>"$CONF"
		echo "Name=gpu File=$D/dev/gpu[0-$((GPUS - 1))]" >"$D/etc/gres.conf"
	fi
	i=0
	for n in $NODES; do
		i=$((i + 1))
		echo "NodeName=$n NodeHostname=$host NodeAddr=127.0.0.1 Port=$((PORT + 100 + i)) CPUs=4$([ "$GPUS" -gt 0 ] && echo " Gres=gpu:$GPUS") State=UNKNOWN" >>"$CONF"
	done
	echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$CONF"
	mkdir -p "$D/etc/plugstack.conf.d"
	{
		echo "# written by tests/cluster/cluster.sh"
		echo "required $PLUGIN ${MCK_PLUGIN_ARGS:-}"
		echo "include $D/etc/plugstack.conf.d/*.conf"
	} >"$D/etc/plugstack.conf"
}

wait_idle() {
	local deadline=$((SECONDS + $1)) ok
	while ((SECONDS < deadline)); do
		ok=$(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | wc -l)
		[ "$ok" -ge 3 ] && return 0
		sleep 0.2
	done
	sinfo -N >&2 || true
	return 1
}

all_up() {
	local n
	pid_of "$D/munge/munged.pid" munged >/dev/null || return 1
	pid_of "$D/run/slurmctld.pid" slurmctld >/dev/null || return 1
	for n in $NODES; do pid_of "$D/run/slurmd-$n.pid" slurmd >/dev/null || return 1; done
}

cmd_up() {
	local n i
	[ "$(id -u)" = 0 ] || die "run as root (the test cluster runs its daemons as root)"
	[ -f "$PLUGIN" ] || die "no plugin at $PLUGIN: run make first"
	if [ -f "$CONF" ] && all_up; then
		# the plugin path or its arguments may differ: plugstack.conf is
		# read at every srun and step, so rewriting it is enough
		{
			echo "# written by tests/cluster/cluster.sh"
			echo "required $PLUGIN ${MCK_PLUGIN_ARGS:-}"
			echo "include $D/etc/plugstack.conf.d/*.conf"
		} >"$D/etc/plugstack.conf"
		wait_idle 30 || die "cluster is up but nodes are not idle"
		log "already up ($D)"
		return 0
	fi
	cmd_down >/dev/null 2>&1 || true
	write_configs
	munged --key-file="$D/munge/munge.key" --socket="$D/munge/munge.sock" \
		--pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" \
		--seed-file="$D/munge/munged.seed"
	for i in $(seq 50); do
		munge -n -S "$D/munge/munge.sock" 2>/dev/null | unmunge -S "$D/munge/munge.sock" >/dev/null 2>&1 && break
		sleep 0.1
	done
	# MCK_DAEMON_ENV marks the daemons' own environment: tests check that it
	# never reaches a job's processes
	export MCK_DAEMON_ENV=slurm-daemon
	slurmctld -i
	for i in $(seq 50); do pid_of "$D/run/slurmctld.pid" slurmctld >/dev/null && break; sleep 0.1; done
	pid_of "$D/run/slurmctld.pid" slurmctld >/dev/null || { tail -n 20 "$D/log/slurmctld.log" >&2; die "slurmctld did not start"; }
	for n in $NODES; do
		unshare --uts /bin/sh -c "hostname $n && exec slurmd -N $n"
	done
	wait_idle 60 || { tail -n 20 "$D"/log/*.log >&2; die "nodes did not become idle"; }
	log "up: n1 n2 n3 ($D)"
}

stop_pids() {
	local p left deadline
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null || true
	deadline=$((SECONDS + 20))
	while ((SECONDS < deadline)); do
		left=()
		for p in "$@"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
		[ ${#left[@]} -eq 0 ] && return 0
		sleep 0.1
	done
	kill -KILL "${left[@]}" 2>/dev/null || true
}

cmd_down() {
	local f p pids=() deadline inodes fds
	[ -d "$D/run" ] || return 0
	if pid_of "$D/run/slurmctld.pid" slurmctld >/dev/null; then
		squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null || true
		deadline=$((SECONDS + 30))
		while ((SECONDS < deadline)) && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do sleep 0.2; done
	fi
	for f in "$D"/run/slurmd-*.pid; do p=$(pid_of "$f" slurmd) && pids+=("$p"); done
	p=$(pid_of "$D/run/slurmctld.pid" slurmctld) && pids+=("$p")
	p=$(pid_of "$D/munge/munged.pid" munged) && pids+=("$p")
	stop_pids "${pids[@]}"
	rm -f "$D"/run/*.pid "$D/munge/munged.pid"
	# a slurmstepd still holding a socket in our spool directory is ours
	inodes=$(awk -v d="$D/spool/" 'index($8, d) == 1 { print "socket:[" $7 "]" }' /proc/net/unix)
	if [ -n "$inodes" ]; then
		for p in $(pgrep -x slurmstepd 2>/dev/null || true); do
			fds=$(ls -l "/proc/$p/fd" 2>/dev/null) || true
			grep -qF "$inodes" <<<"$fds" && kill -KILL "$p" 2>/dev/null || true
		done
	fi
	log "down ($D)"
}

case "${1:-}" in
up) cmd_up ;;
down) cmd_down ;;
status)
	printf 'munged %s\nslurmctld %s\n' "$(pid_of "$D/munge/munged.pid" munged || echo -)" "$(pid_of "$D/run/slurmctld.pid" slurmctld || echo -)"
	for n in $NODES; do printf 'slurmd %s %s\n' "$n" "$(pid_of "$D/run/slurmd-$n.pid" slurmd || echo -)"; done
	sinfo -N 2>/dev/null || true
	;;
env) echo "export SLURM_CONF=$CONF" ;;
*) echo "usage: $0 up|down|status|env" >&2; exit 2 ;;
esac
