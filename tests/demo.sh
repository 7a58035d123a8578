#!/bin/bash
# demo.sh - the main job, shown step by step (make demo): a throwaway Slurm
# cluster whose nodes are separate network hosts on this machine (network
# namespaces with their own addresses), spank_mooncake.so in its
# plugstack.conf, and the PR's TRT-LLM
# example recipe (protocol tcp, segment sizes for a small machine) run as an
# sbatch job. A real Mooncake client stands in for trtllm-serve in each role:
# the prefill task puts a value into the pool, the decode task reads it back.
set -euo pipefail
. "$(dirname "$0")/cluster/lib.sh"
if [ -t 1 ]; then say() { printf "\n\033[1m== %s\033[0m\n" "$*"; }; else say() { printf "\n== %s\n" "$*"; }; fi
[ -n "${MCK_KEEP:-}" ] || MCK_EXIT_HOOKS+=('"$CLUSTER" down >/dev/null 2>&1')

say "1. a Slurm cluster of network hosts: ctl (munged, slurmctld), login (this shell), n1-n4 (slurmd)"
"$CLUSTER" status
sed -n "/spank_mooncake/p" "$(dirname "$SLURM_CONF")/plugstack.conf"

W=$(workdir)
cd "$W"
trtllm_test_recipe recipe.yaml
say "2. the recipe ($W/recipe.yaml), checked with mooncake-recipe"
sed -n '/^engine:/,/^benchmark:/p' recipe.yaml | grep -v '^benchmark:'
"$TOP/build/mooncake-recipe" check recipe.yaml && echo "mooncake-recipe check: OK"

cat >job.sh <<EOS
#!/bin/bash
#SBATCH --nodes=3
#SBATCH --nodelist=n1,n2,n3
#SBATCH --job-name=mooncake-demo
# prefill on n2 and decode on n3, started at the same time; the plugin
# starts mooncake_master on n1 (the infra node) for both
srun -N1 -n1 -w n2 --mooncake-recipe=recipe.yaml --mooncake-role=prefill \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT put demo-key "KV pages from prefill" $W/done' >prefill.out 2>&1 &
srun -N1 -n1 -w n3 --mooncake-recipe=recipe.yaml --mooncake-role=decode \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT get demo-key "KV pages from prefill" $W/done' >decode.out 2>&1 &
for i in \$(seq 300); do grep -q PUT prefill.out 2>/dev/null && break; sleep 0.2; done
squeue --steps -j \$SLURM_JOB_ID -o "%.8i %.16j %.8u %.6M %N" >steps.out
wait
EOS
say "3. the job script ($W/job.sh)"
cat job.sh
jid=$(sbatch --parsable job.sh)
echo "submitted job $jid"
wait_job "$jid" 180

say "4. what srun printed while it started the master"
grep -h '^srun: mooncake' prefill.out decode.out || true
say "5. the steps while the job ran (squeue --steps)"
cat steps.out
dir=$W/outputs/$jid/logs
say "6. the job's Mooncake directory ($dir)"
ls -l "$dir"
for f in "$dir"/mooncake_store_config_*.json; do
	echo "--- $(basename "$f")"
	cat "$f"
	echo
done
say "7. the environment each task got"
grep -h -E '^n[0-9] MOONCAKE_' prefill.out decode.out
say "8. the pool at work: prefill put, decode got"
grep -h -E '^n[0-9] (PUT|GOT)' prefill.out decode.out
say "9. after the job: mooncake_master processes left"
echo "$(masters_left)"
grep -q "^n3 GOT demo-key=KV pages from prefill" decode.out && echo "demo OK"
