#!/bin/bash
# takeover_bench.sh [ROUNDS] - what a starter that died costs the next srun
# (make bench, issue 33): in a new allocation each round, a role srun
# starts the job's pool, once in a fresh job directory and once in one
# where a starter that died left an empty lock (a kill at the wrong moment,
# a full disk); printed: how much later the second srun's task ran than the
# first's, min/median/max over ROUNDS (3) rounds. Its lock, held by no
# process, is taken over once it has been untouched for 3 s
# (MCRI_LOCK_QUIET_S): the goal is at most 5 s. Run as root.
set -eu
ROUNDS=${1:-3}
[ "$(id -u)" = 0 ] || { echo "takeover_bench.sh: run as root (the test cluster)"; exit 0; }
. "$(dirname "$0")/lib.sh"
bench_start takeover
bench_recipe "$W/r.yaml"
cat >"$W/round.sh" <<EOS
#!/bin/bash
cd $W
[ "\$1" = lock ] && mkdir -p outputs/\$SLURM_JOB_ID/logs && : >outputs/\$SLURM_JOB_ID/logs/mooncake_master.1.lock
t0=\$(date +%s.%N)
srun -N1 -n1 -w n2 --mooncake-recipe=r.yaml --mooncake-role=prefill true 2>>$W/srun.err
echo "\$1 \$(awk -v a=\$t0 -v b=\$(date +%s.%N) 'BEGIN { print b - a }')" >>$W/times
EOS
for r in $(seq "$ROUNDS"); do
	for how in fresh lock; do
		(cd "$W" && "$CLUSTER" exec login salloc -N2 -w n1,n2 bash "$W/round.sh" "$how") >/dev/null 2>>"$W/salloc.err"
	done
done
grep -c '^lock' "$W/times" >/dev/null || { echo "takeover_bench.sh: no round ran:"; cat "$W/salloc.err" "$W/srun.err"; exit 1; }
paste <(awk '$1 == "fresh" { print $2 }' "$W/times") <(awk '$1 == "lock" { print $2 }' "$W/times") |
	awk '{ printf "%.3f %.3f\n", $2 - $1, $2 }' | sort -n | awk '{ d[NR] = $1; t[NR] = $2 } END {
		printf "a starter that died leaving an empty lock (%d rounds): the next srun ran its task %.2f s (min), %.2f s (median), %.2f s (max) later than in a fresh directory (goal: at most 5 s)\n",
			NR, d[1], NR % 2 ? d[(NR + 1) / 2] : (d[NR / 2] + d[NR / 2 + 1]) / 2, d[NR] }'
