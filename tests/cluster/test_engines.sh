#!/bin/bash
# vLLM and SGLang on the cluster (issue #3): every vLLM task gets the one
# shared file (and, with device_names_by_gpu, the file of its own GPUs);
# SGLang tasks get the variables and no MOONCAKE_CONFIG_PATH and share a
# pool through them; an external master (vLLM) is used, never started.
. "$(dirname "$0")/lib.sh"
W=$(workdir)
cd "$W" || exit 1
vllm_test_recipe vllm.yaml
sed 's/^      store_config:/      device_names_by_gpu: [mlx5_0, mlx5_0, mlx5_1, mlx5_1]\n      store_config:/' vllm.yaml >vllm-gpu.yaml
sglang_test_recipe sglang.yaml
# an external master, and no metadata_server: vLLM's reader would pass ""
# to Mooncake's setup(); the plugin writes P2PHANDSHAKE
vllm_test_recipe vllm-ext.yaml "        # no metadata_server"
sed -i -e 's/^    type: mooncake-master$/    type: mooncake-master\n    external: '"$MCK_ADDR_login"':8700/' vllm-ext.yaml

# pair RECIPE PREFIX [SRUN OPTIONS]: prefill on n2 puts, decode on n3 gets
pair() {
	local recipe=$1 p=$2
	shift 2
	cat >"$p.sh" <<EOS
#!/bin/bash
. "$MCK_AWAIT"
srun -N1 -n1 -w n2 $* --mooncake-recipe=$recipe --mooncake-role=prefill \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT put k-$p v-$p $W/$p.done' >$p-prefill.out 2>&1 &
srun -N1 -n1 -w n3 $* --mooncake-recipe=$recipe --mooncake-role=decode \\
	bash -c 'python3 $CLIENT env && python3 $CLIENT get k-$p v-$p $W/$p.done' >$p-decode.out 2>&1 &
await 60 grep -qs PUT $p-prefill.out
squeue --steps -h -j \$SLURM_JOB_ID -o '%j %N' >$p-steps.out
wait
EOS
	jid=$(run_job "$p" -N3 -w n1,n2,n3)
	echo "$jid"
}

jid=$(pair vllm.yaml vllm)
f=$W/outputs/$jid/logs/mooncake_store_config.json
check "vLLM: prefill and decode tasks both point at the shared $f" \
	has_line vllm-prefill.out "n2 MOONCAKE_CONFIG_PATH=$f" --and has_line vllm-decode.out "n3 MOONCAKE_CONFIG_PATH=$f"
check "vLLM: the shared file is the service's store_config plus master_server_address" \
	test "$(cat "$f")" = '{
  "protocol": "tcp",
  "metadata_server": "P2PHANDSHAKE",
  "global_segment_size": 33554432,
  "local_buffer_size": 16777216,
  "master_server_address": "'"$MCK_ADDR_n1"':8700"
}'
check "vLLM: no per-role files" test "$(ls "$W/outputs/$jid/logs/" | grep -c 'mooncake_store_config')" = 1
check "vLLM: vLLM's own reader (the wheel's MooncakeStoreConfig) takes each task's file and announces the node's address (MOONCAKE_REQUESTER_LOCAL_HOSTNAME)" \
	has_line vllm-prefill.out 'n2 ENGINE=vllm' "n2 ENGINE_LOCAL_HOSTNAME=$MCK_ADDR_n2" --and has_line vllm-decode.out "n3 ENGINE_LOCAL_HOSTNAME=$MCK_ADDR_n3"
check "vLLM: put by prefill, read by decode, each configured by vLLM's reader" grep -qx "n3 GOT k-vllm=v-vllm" vllm-decode.out
check "vLLM: one mooncake-master step on n1" test "$(grep -c '^mooncake-master n1$' vllm-steps.out)" = 1

jid=$(pair sglang.yaml sglang)
check "SGLang: the tasks got Mooncake variables but no MOONCAKE_CONFIG_PATH" \
	has sglang-prefill.out MOONCAKE_MASTER --and has sglang-decode.out MOONCAKE_MASTER \
	--and lacks sglang-prefill.out MOONCAKE_CONFIG_PATH --and lacks sglang-decode.out MOONCAKE_CONFIG_PATH
check "SGLang: MOONCAKE_MASTER and the metadata server set" \
	has_line sglang-prefill.out "n2 MOONCAKE_MASTER=$MCK_ADDR_n1:8700" --and has_line sglang-decode.out "n3 MOONCAKE_TE_META_DATA_SERVER=http://$MCK_ADDR_n1:8701/metadata"
check "SGLang: each role's MOONCAKE_* env reached its tasks" \
	has_line sglang-prefill.out 'n2 MOONCAKE_GLOBAL_SEGMENT_SIZE=33554432' --and has_line sglang-decode.out 'n3 MOONCAKE_GLOBAL_SEGMENT_SIZE=67108864'
check "SGLang: no client-config file written (only the pool's own files: $(ls "$W/outputs/$jid/logs/" | xargs))" \
	lacks - mooncake_store_config < <(ls "$W/outputs/$jid/logs/") --and test -s "$W/outputs/$jid/logs/mooncake_master.json"
check "SGLang: SGLang's own reader (the wheel's MooncakeStoreConfig.load_from_env) takes each task's variables, with the node's address" \
	has_line sglang-prefill.out 'n2 ENGINE=sglang' "n2 ENGINE_LOCAL_HOSTNAME=$MCK_ADDR_n2" --and has_line sglang-decode.out "n3 ENGINE_MASTER=$MCK_ADDR_n1:8700"
check "SGLang: put by prefill, read by decode, each configured by SGLang's reader" grep -qx "n3 GOT k-sglang=v-sglang" sglang-decode.out

# an external master: started on the login host, as another team's master would be
"$MOONCAKE_VENV/bin/mooncake_master" --port=8700 --enable_http_metadata_server=true \
	--http_metadata_server_port=8701 --metrics_port=8702 >ext-master.log 2>&1 &
ext=$!
for i in $(seq 50); do curl -fs $MCK_ADDR_login:8702/health >/dev/null 2>&1 && break; sleep 0.2; done
jid=$(pair vllm-ext.yaml ext)
check "external vLLM master: no mooncake-master step started" test "$(grep -c '^mooncake-master' ext-steps.out)" = 0
check "external vLLM master: tasks point at it" grep -qx "n2 MOONCAKE_MASTER=$MCK_ADDR_login:8700" ext-prefill.out
check "external vLLM master: the shared file names it" grep -q "\"master_server_address\": \"$MCK_ADDR_login:8700\"" "$W/outputs/$jid/logs/mooncake_store_config.json"
check "external vLLM master, no metadata_server in the recipe: the file gets P2PHANDSHAKE" \
	grep -q '"metadata_server": "P2PHANDSHAKE"' "$W/outputs/$jid/logs/mooncake_store_config.json"
check "external vLLM master: the pool works through it, configured by vLLM's reader" grep -qx "n3 GOT k-ext=v-ext" ext-decode.out
kill "$ext"; wait "$ext" 2>/dev/null

# device_names_by_gpu: two steps of two GPUs each on one node, at the same
# time (each holds its GPUs a while), so they get GPUs 0,1 and 2,3
cat >gpu.sh <<EOS
#!/bin/bash
srun -N1 -n1 --exact --gres=gpu:2 --mooncake-recipe=vllm-gpu.yaml --mooncake-role=prefill bash -c "python3 $CLIENT env; sleep 4" >gpu-a.out 2>&1 &
srun -N1 -n1 --exact --gres=gpu:2 --mooncake-recipe=vllm-gpu.yaml --mooncake-role=decode bash -c "python3 $CLIENT env; sleep 4" >gpu-b.out 2>&1 &
wait
EOS
jid=$(run_job gpu -N1 -w n1 -n2 --gres=gpu:4)
d=$W/outputs/$jid/logs
paths=$(sed -n 's/^n[0-9] MOONCAKE_CONFIG_PATH=//p' gpu-a.out gpu-b.out | sort | xargs)
check "per-GPU: the two steps got the files of their own GPUs ($paths)" \
	test "$paths" = "$d/mooncake_store_config_gpu0-1.json $d/mooncake_store_config_gpu2-3.json"
check "per-GPU: GPUs 0-1 use mlx5_0, GPUs 2-3 mlx5_1" \
	has "$d/mooncake_store_config_gpu0-1.json" '"device_name": "mlx5_0"' --and has "$d/mooncake_store_config_gpu2-3.json" '"device_name": "mlx5_1"'
check "no mooncake_master process is left" test "$(masters_left)" = 0
