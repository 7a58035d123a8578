# shellcheck shell=bash disable=SC2034
# lib.sh - helpers for the integration tests (sourced by each test_*.sh and
# the demo). A test runs on the cluster's login host, as a user's shell
# there would: sourcing this file from anywhere brings the cluster up (when
# it is not) and re-runs the script on the login host. Each check prints one
# line and counts; run.sh prints the summary in Check's format.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MOONCAKE_VENV=${MOONCAKE_VENV:-/opt/spank-mooncake/venv}
CLUSTER=$TOP/tests/cluster/cluster.sh
CLIENT=$TOP/tests/cluster/mc_client.py
NSPGREP=$TOP/tests/cluster/nspgrep
MCK_RESULTS=${MCK_RESULTS:-/dev/null}
# the cluster, fixed once: a test that changes TMPDIR for its jobs still
# talks to the same cluster (cluster.sh's default follows TMPDIR)
MCK_CLUSTER_DIR=${MCK_CLUSTER_DIR:-${TMPDIR:-/tmp}/mck-cluster}
export MCK_RESULTS MCK_CLUSTER_DIR
eval "$("$CLUSTER" env)"
if [ "$(readlink /proc/self/ns/net)" != "net:[$(stat -L -c %i "$MCK_LOGIN_NS" 2>/dev/null)]" ]; then
	"$CLUSTER" up >&2 || exit 1
	exec "$CLUSTER" exec login bash "$0" "$@"
fi
# the tasks find the wheel's mooncake_master and its Python on the job's PATH
export PATH=$MOONCAKE_VENV/bin:$PATH
# await SECONDS CMD...: waiting on an event, with one bound (a job script
# the test writes sources "$MCK_AWAIT")
export MCK_AWAIT=$TOP/tests/cluster/await.sh
. "$MCK_AWAIT"

_record() { echo "$1 $2" >>"$MCK_RESULTS"; }
MCK_FAILED=0
# MCK_LABEL names the variant a test runs in (e.g. the packaged plugin)
pass() {
	echo "PASS: ${MCK_LABEL:+[$MCK_LABEL] }$*"
	_record P "$*"
}
fail() {
	echo "FAIL: ${MCK_LABEL:+[$MCK_LABEL] }$*"
	_record F "$*"
	MCK_FAILED=1
}
# check DESCRIPTION COMMAND... [--and COMMAND...]...: pass when every
# command succeeds (each a plain command with its arguments, run in turn
# until one fails: no shell string to quote twice). The predicates below
# are what most checks are made of:
#   check "the task ran on n2" has_line task.out 'n2 TASK-RAN' --and lacks task.out 'mooncake:'
check() {
	local d=$1 ok=true
	local -a cmd=()
	shift
	while $ok; do
		if [ $# -eq 0 ] || [ "$1" = --and ]; then
			[ ${#cmd[@]} -eq 0 ] || "${cmd[@]}" || ok=false
			cmd=()
			[ $# -eq 0 ] && break
		else
			cmd+=("$1")
		fi
		shift
	done
	if $ok; then pass "$d"; else fail "$d"; fi
}

# _grep_all GREP_OPTIONS FILE PATTERN...: FILE (- is standard input, read
# once) has a line matching each PATTERN
_grep_all() {
	local o=$1 f=$2 text p
	shift 2
	if [ "$f" = - ]; then text=$(cat); else text=$(cat -- "$f" 2>/dev/null) || return 1; fi
	for p; do grep -q "$o" -- "$p" <<<"$text" || return 1; done
}
# _grep_none GREP_OPTIONS FILE PATTERN...: no line of FILE matches any
# PATTERN (a missing file matches none)
_grep_none() {
	local o=$1 f=$2 text p
	shift 2
	if [ "$f" = - ]; then text=$(cat); else text=$(cat -- "$f" 2>/dev/null); fi
	for p; do ! grep -q "$o" -- "$p" <<<"$text" || return 1; done
}
# has FILE STRING...: FILE has a line containing each STRING (fixed text;
# FILE - is standard input)
has() { _grep_all -F "$@"; }
# has_line FILE LINE...: FILE has each LINE, whole
has_line() { _grep_all -xF "$@"; }
# has_re FILE ERE...: FILE has a line matching each extended regex
has_re() { _grep_all -E "$@"; }
# lacks FILE STRING...: no line of FILE contains any STRING
lacks() { _grep_none -F "$@"; }
# lacks_re FILE ERE...: no line of FILE matches any extended regex
lacks_re() { _grep_none -E "$@"; }
# not COMMAND...: COMMAND fails (check "no error" not grep -q error *.out)
not() { ! "$@"; }

MCK_TEST=$(basename "$0" .sh)
MCK_TEST=${MCK_TEST#test_}
MCK_TMP=${TMPDIR:-/tmp}
# a fresh work directory (the job's submit directory) per test, under
# TMPDIR; removed when the test script ends without a failure (kept, and
# named, otherwise, or always with MCK_KEEP=1)
workdir() {
	local w
	w=$(mktemp -d "$MCK_TMP/mck-$MCK_TEST.XXXXXX")
	chmod 755 "$w"
	echo "$w" >>"$MCK_TMP/.mck-workdirs.$$"
	echo "$w"
}
_cleanup() {
	local w
	[ -f "$MCK_TMP/.mck-workdirs.$$" ] || return 0
	while read -r w; do
		[ -d "$w" ] || continue
		if [ "$MCK_FAILED" = 0 ] && [ -z "${MCK_KEEP:-}" ]; then
			rm -rf "$w"
		else
			echo "(kept $w)"
		fi
	done <"$MCK_TMP/.mck-workdirs.$$"
	rm -f "$MCK_TMP/.mck-workdirs.$$"
}
MCK_EXIT_HOOKS=()
_on_exit() {
	local h
	for h in "${MCK_EXIT_HOOKS[@]}"; do eval "$h"; done
	_cleanup
}
trap _on_exit EXIT

# wait_job JOBID [SECONDS]: until the job has left the queue
wait_job() {
	local i
	for i in $(seq $((${2:-180} * 5))); do
		[ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	echo "job $1 still in the queue after ${2:-180} s; cancelling" >&2
	scancel "$1" 2>/dev/null
	return 1
}

# run_job NAME [SBATCH OPTIONS]: submit $W/NAME.sh (a job script the test
# wrote as a file), its output in $W/NAME.job.out; wait until it has left the
# queue (240 s at most); print its job id
run_job() {
	local name=$1 jid
	shift
	jid=$(sbatch --parsable -o "$W/$name.job.out" "$@" "$W/$name.sh") || return 1
	wait_job "$jid" 240
	echo "$jid"
}

# nodes_idle NODES: every node of NODES (n1,n2) is idle
nodes_idle() { ! sinfo -h -N -n "$1" -o '%t' | grep -qvx idle; }
# alloc NODES [SALLOC_ARGS...]: the id of a new allocation of the nodes
# NODES (salloc --no-shell -w NODES), on stdout, once they are idle: a
# job of the test before may still be completing there, and a salloc that
# pends learns of its grant from slurmctld calling back to its host, which
# no resolver names in the matrix chroots. When salloc gives none: 1, and
# what it said on stderr.
alloc() {
	local nodes=$1 out id
	shift
	await 120 nodes_idle "$nodes" || true
	out=$(salloc --no-shell -w "$nodes" "$@" 2>&1)
	id=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' <<<"$out")
	[ -n "$id" ] || { echo "salloc --no-shell -w $nodes $*: no allocation: $out" >&2; return 1; }
	echo "$id"
}

# masters: mooncake_master processes on this cluster's hosts (by network
# namespace: another cluster's or the machine's own masters never count)
masters() { "$CLUSTER" count mooncake_master | awk '{ s += $2 } END { print s + 0 }'; }
# masters_on HOST: the same, on one host
masters_on() { "$CLUSTER" pids "$1" mooncake_master | wc -l; }
# masters_left: masters still running (none expected between tests); waits
# up to 20 s for Slurm to finish killing steps
masters_left() {
	local i
	for i in $(seq 100); do
		[ "$(masters)" = 0 ] && { echo 0; return; }
		sleep 0.2
	done
	masters
}
# wait_master HOST: until a master runs on HOST (20 s)
wait_master() {
	local i
	for i in $(seq 100); do
		[ "$(masters_on "$1")" -gt 0 ] && return 0
		sleep 0.2
	done
	return 1
}

# trtllm_test_recipe OUT: the PR's trtllm-serve example with protocol tcp and
# segment sizes that fit a test machine (8GiB -> 32MiB, 16GiB -> 64MiB)
trtllm_test_recipe() {
	sed -e 's/protocol: rdma/protocol: tcp/' -e 's/global_segment_size: 8GiB /global_segment_size: 32MiB/' \
		-e 's/global_segment_size: 16GiB /global_segment_size: 64MiB/' \
		"$TOP/examples/trtllm-serve-disagg-mooncake.yaml" >"$1"
	# local_buffer_size (1 GiB by default in TRT-LLM) is too large here too
	awk '{print} /stage_through_host: true/ && !done {print "        local_buffer_size: 16MiB"; done=1}' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

# vllm_test_recipe OUT [STORE_CONFIG_LINE]: a vLLM recipe, prefill and
# decode, whose shared file holds protocol tcp, segments that fit a test
# machine, and the given line (default: metadata_server: P2PHANDSHAKE)
vllm_test_recipe() {
	local kvt='{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'
	cat >"$1" <<EOF
schema: 2
model: {path: "hf:Qwen/Qwen3-0.6B"}
engine: vllm
resources: {gpus_per_node: 4}
roles:
  prefill: {args: {kv-transfer-config: '$kvt'}}
  decode: {args: {kv-transfer-config: '$kvt'}, env: {VLLM_ROLE_HINT: decode}}
services:
  - name: mooncake-master
    type: mooncake-master
    options:
      store_config:
        protocol: tcp
${2:-        metadata_server: P2PHANDSHAKE}
        global_segment_size: 33554432
        local_buffer_size: 16777216
EOF
}

# sglang_test_recipe OUT: an SGLang recipe whose prefill and decode workers
# join the pool through HiCache's mooncake backend, over tcp
sglang_test_recipe() {
	cat >"$1" <<'EOF'
schema: 2
model: {path: "hf:Qwen/Qwen3-0.6B"}
engine: sglang
roles:
  prefill:
    args: {disaggregation-transfer-backend: mooncake, enable-hierarchical-cache: true, hicache-storage-backend: mooncake}
    env: {MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: "33554432"}
  decode:
    args: {disaggregation-transfer-backend: mooncake, enable-hierarchical-cache: true, hicache-storage-backend: mooncake}
    env: {MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: "67108864"}
services:
  - name: mooncake-master
    type: mooncake-master
EOF
}

# with_plugin_args ARGS: the cluster's plugstack line gets ARGS (after
# sampler=) until the test ends or the next call; the test's exit puts the
# default line back
with_plugin_args() {
	MCK_PLUGIN_ARGS="$*" "$CLUSTER" up >/dev/null 2>&1 || { echo "cluster up with '$*' failed" >&2; exit 1; }
	if [ -z "${_MCK_ARGS_HOOK:-}" ]; then
		_MCK_ARGS_HOOK=1
		MCK_EXIT_HOOKS+=("\"\$CLUSTER\" up >/dev/null 2>&1")
	fi
}

# with_plugstack_order ORDER: plugstack.conf orders the pyxis stand-in
# (plugstack.conf.d) and the plugin as ORDER says (pyxis-first or
# plugin-first, cluster.sh's MCK_PLUGSTACK_ORDER) until the next call; the
# test's exit puts the order it started with back
with_plugstack_order() {
	if [ -z "${_MCK_ORDER_HOOK:-}" ]; then
		_MCK_ORDER_HOOK=${MCK_ORDER:-pyxis-first}
		MCK_EXIT_HOOKS+=("export MCK_PLUGSTACK_ORDER=$_MCK_ORDER_HOOK; \"\$CLUSTER\" up >/dev/null 2>&1")
	fi
	export MCK_PLUGSTACK_ORDER=$1
	"$CLUSTER" up >/dev/null 2>&1 || { echo "cluster up with MCK_PLUGSTACK_ORDER=$1 failed" >&2; exit 1; }
	MCK_ORDER=$1
}

# test_user NAME: a non-root user for this test (made when missing, removed
# at the test's end); its uid on stdout
test_user() {
	if ! id "$1" >/dev/null 2>&1; then
		useradd -M -d /nonexistent -s /bin/bash "$1" || exit 1
		MCK_EXIT_HOOKS+=("userdel $1")
	fi
	id -u "$1"
}

# as USER CMD...: CMD as USER on the login host, in the current directory,
# with the cluster's SLURM_CONF and PATH
as() {
	local u=$1
	shift
	su -s /bin/bash "$u" -c "cd '$PWD' && export SLURM_CONF='$SLURM_CONF' PATH='$PATH' && $*"
}

# on_node HOST USER CMD...: CMD as USER on HOST (its network namespace)
on_node() {
	local h=$1 u=$2
	shift 2
	"$CLUSTER" exec "$h" su -s /bin/bash "$u" -c "export PATH='$PATH' && $*"
}

