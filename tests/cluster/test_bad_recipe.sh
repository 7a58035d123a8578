#!/bin/bash
# A bad recipe given to srun fails that srun before any task or master
# starts, with the mooncake: message on the terminal and a non-zero exit
# (issue #2, done-when 4); sbatch and salloc refuse it at submission, and
# no job is queued (issue #3).
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
trtllm_test_recipe good.yaml
sed 's/global_segment_size: 64MiB/global_segment_size: 16GB/' good.yaml >bad.yaml
line=$(grep -n 'global_segment_size: 16GB' bad.yaml | cut -d: -f1)

jobs_before=$(squeue -h | wc -l)
srun -N1 --mooncake-recipe=bad.yaml --mooncake-role=decode echo TASK-RAN >out 2>err
rc=$?
check "srun with a bad recipe exits non-zero (rc=$rc)" test "$rc" -ne 0
check "the message names file, line, key path, value and fix: $(grep -m1 mooncake: err)" \
	grep -q "mooncake: bad.yaml:$line:[0-9]*: Mooncake client config for roles.decode: global_segment_size '16GB' must be a byte count or use a binary unit (KiB, MiB, GiB, TiB); 'GB' is refused; write '16GiB' (binary) or a byte count (set at roles.decode.mooncake_store_config.global_segment_size)" err
check "no task ran" test ! -s out
check "no job directory was created (nothing written)" test ! -e outputs
check "no mooncake_master started" test "$(masters_left)" = 0

srun -N1 --mooncake-recipe=good.yaml echo TASK-RAN >out 2>err
check "a recipe with two roles and no --mooncake-role is refused with the roles: $(grep -m1 mooncake: err)" \
	grep -q "the recipe has several roles (prefill, decode): say which one this srun runs with --mooncake-role=ROLE" err
check "... and no task ran" test ! -s out

out=$(sbatch --parsable --mooncake-recipe=bad.yaml --wrap true 2>&1)
rc=$?
check "sbatch --mooncake-recipe=bad.yaml is refused (rc=$rc): $(grep -m1 mooncake: <<<"$out")" test "$rc" -ne 0
check "sbatch shows the mooncake: message" grep -q "mooncake: bad.yaml:$line:.*'GB' is refused" <<<"$out"
out=$(salloc --mooncake-recipe=bad.yaml true 2>&1)
rc=$?
check "salloc --mooncake-recipe=bad.yaml is refused (rc=$rc)" test "$rc" -ne 0
check "salloc shows the mooncake: message" grep -q "mooncake: bad.yaml:$line:.*'GB' is refused" <<<"$out"
cat >job.sh <<'EOS'
#!/bin/bash
#SBATCH --mooncake-recipe=bad.yaml
true
EOS
out=$(sbatch --parsable job.sh 2>&1)
rc=$?
check "#SBATCH --mooncake-recipe=bad.yaml is refused too (rc=$rc)" test "$rc" -ne 0
check "no job was queued by the refused submissions" test "$(squeue -h | wc -l)" = "$jobs_before"
check "sbatch --help lists --mooncake-recipe" has - '--mooncake-recipe=PATH' < <(sbatch --help 2>&1)
check "srun --help lists --mooncake-role" has - '--mooncake-role=ROLE' < <(srun --help 2>&1)
