#!/bin/bash
# srun_bench.sh [ROUNDS] - what a role srun costs on a real cluster (make
# bench): in one allocation of the test cluster, with the job's master
# running, `srun true` and `srun --mooncake-recipe=... --mooncake-role=prefill
# true` alternate ROUNDS times (15), inside the allocation and from outside
# it (srun --jobid, from another directory); prints the median of each and
# their ratio. Run as root (it brings the test cluster up, and down if it did).
set -eu
ROUNDS=${1:-15}
[ "$(id -u)" = 0 ] || { echo "srun_bench.sh: run as root (the test cluster)"; exit 0; }
. "$(dirname "$0")/lib.sh"
bench_start bench
bench_recipe "$W/r.yaml"
cat >"$W/bench.sh" <<EOS
#!/bin/bash
cd $W
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill true 2>/dev/null
ms() { echo \$(( (\$(date +%s%N) - \$1) / 1000 )); }
for i in \$(seq $ROUNDS); do
	t=\$(date +%s%N); srun -N1 -n1 -w n2 true; echo "plain \$(ms \$t)"
	t=\$(date +%s%N); srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill true; echo "role \$(ms \$t)"
done
EOS
# the job's directory is under its submit directory: the bench's own
(cd "$W" && "$CLUSTER" exec login salloc -N2 -w n1,n2 bash "$W/bench.sh") 2>"$W/errors" >"$W/times" || true
grep -i error "$W/errors" && exit 1
# the same from outside the allocation (srun --jobid from another shell,
# in another directory): the job's directory and pool are still the job's
mkdir -p "$W/elsewhere"
cat >"$W/outside.sh" <<EOS
#!/bin/bash
cd $W/elsewhere
j=\$1
srun --jobid=\$j -N1 -n1 -w n2 --mooncake-recipe=$W/r.yaml --mooncake-role=prefill true 2>/dev/null
ms() { echo \$(( (\$(date +%s%N) - \$1) / 1000 )); }
for i in \$(seq $ROUNDS); do
	t=\$(date +%s%N); srun --jobid=\$j -N1 -n1 -w n2 true; echo "outplain \$(ms \$t)"
	t=\$(date +%s%N); srun --jobid=\$j -N1 -n1 -w n2 --mooncake-recipe=$W/r.yaml --mooncake-role=prefill true; echo "outrole \$(ms \$t)"
done
EOS
j=$(cd "$W" && "$CLUSTER" exec login salloc --no-shell -N2 -w n1,n2 2>&1 | sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
[ -n "$j" ] || { echo "srun_bench.sh: no allocation"; exit 1; }
"$CLUSTER" exec login bash "$W/outside.sh" "$j" 2>>"$W/errors" >>"$W/times" || true
"$CLUSTER" exec login scancel "$j"
grep -i error "$W/errors" && exit 1
[ -d "$W/elsewhere/outputs" ] && { echo "srun_bench.sh: an srun from outside made its own job directory"; exit 1; }
median() { grep "^$1 " "$W/times" | awk '{ print $2 }' | sort -n | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
for w in in out; do
	p=$(median "${w/in/}plain")
	r=$(median "${w/in/}role")
	awk -v p="$p" -v r="$r" -v n="$ROUNDS" -v w="$w" 'BEGIN {
		printf "srun on the test cluster, %sside the allocation (%d rounds, alternating): plain %.1f ms, with a role and a running master %.1f ms: %.3fx\n", w, n, p / 1000, r / 1000, r / p }'
done
