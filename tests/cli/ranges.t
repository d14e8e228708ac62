# vprof ranges: nsys nvtx_sum over user annotations (record_function),
# CPU (user_annotation) and GPU (gpu_user_annotation) apart.  Expected
# outputs are computed by evsum_check.py from the traces alone.
CHECK=$(cd "$(dirname "$T")" && pwd)/evsum_check.py
PROJ=$(cd "$(dirname "$T")" && pwd)/rangeproj_check.py

case_ 'csv on two ranks, as computed independently'
cd "$DATA/hta"
vp ranges --table ranges -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
python3 "$CHECK" ranges trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
expect_stderr <<'END'
END
vp ranges -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_stdout_file "$WORK/want"
expect_stderr_has "gpu_proj"

case_ 'ROCm trace: CPU and GPU ranges apart'
vp ranges --table ranges -f csv amd_trace.json.gz
python3 "$CHECK" ranges amd_trace.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"

case_ 'a small trace spelled out; --top'
printf '{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"fwd","ts":0,"dur":10},
{"ph":"X","cat":"user_annotation","name":"fwd","ts":20,"dur":30},
{"ph":"X","cat":"user_annotation","name":"fwd","ts":60,"dur":20},
{"ph":"X","cat":"gpu_user_annotation","name":"fwd","ts":5,"dur":40},
{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1,"dur":3},
{"ph":"X","cat":"user_annotation","name":"bwd","ts":100,"dur":1.5}]}' >"$WORK/r.json"
vp ranges --table ranges -f csv "$WORK/r.json"
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Category,Range
59.1,60000,3,20000.0,20000.0,10000,30000,10000.0,user_annotation,fwd
39.4,40000,1,40000.0,40000.0,40000,40000,0.0,gpu_user_annotation,fwd
1.5,1500,1,1500.0,1500.0,1500,1500,0.0,user_annotation,bwd
END
vp ranges --top 1 "$WORK/r.json"
expect_stdout_has "note: 2 more rows not shown (--top)"

case_ 'json, -j 2, reduce'
vp ranges -f json --top 1 trace_filter_rank-0.json.gz
expect_stdout_has '"schema":"vprof.ranges/1"'
vp ranges -j 1 -f json trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
cp "$OUT_STDOUT" "$WORK/one"
vp ranges -j 2 -f json trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_stdout_file "$WORK/one"
vp ranges --save-part "$WORK/p%i.vpart" trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
vp reduce -f json "$WORK/p0.vpart" "$WORK/p1.vpart"
expect_stdout_file "$WORK/one"
vp ranges --table gpu_proj -f csv --by rank trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
cp "$OUT_STDOUT" "$WORK/one"
vp ranges --by rank --save-part "$WORK/r%i.vpart" trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
vp reduce --table gpu_proj -f csv "$WORK/r0.vpart" "$WORK/r1.vpart"
expect_stdout_file "$WORK/one"
vp reduce --table ranges -f csv "$WORK/r0.vpart" "$WORK/r1.vpart"
expect_status 0
python3 "$CHECK" ranges --by-rank trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"

case_ 'gpu_proj (nsys nvtx_gpu_proj_sum) on two ranks, as computed independently'
vp ranges --table gpu_proj -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
python3 "$PROJ" trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
expect_stdout_has 'ProfilerStep#552,PushPop,1238887000,1253567000,2,619443500.0,619443500.0,615601000,623286000,5434115.6,658,329.0,0.0,8.0,349737000'
vp ranges --table gpu_proj -f csv --by rank trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
python3 "$PROJ" --by-rank trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
vp ranges --table gpu_proj -f csv amd_trace.json.gz
python3 "$PROJ" amd_trace.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"

case_ 'gpu_proj spelled out: nesting, a graph launch, calls across a range end, threads'
# Thread 1: outer [0,100] holds inner [10,30], inner [50,60] and idle
# [70,75].  Call 1 (in inner#1) -> kernel [40,50]; call 2 (in inner#2), a
# graph launch -> kernels [60,65] and [70,80]: one GPU op; call 3
# [58,63] outlasts inner#2, so only outer has its memcpy [90,92]; call 4
# [95,105] outlasts outer: no range.  Thread 2: other [0,100], call 5 ->
# memset [30,34]; call 1 lies inside other's time but on thread 1.
printf '{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"outer","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"user_annotation","name":"inner","pid":1,"tid":1,"ts":10,"dur":20},
{"ph":"X","cat":"user_annotation","name":"inner","pid":1,"tid":1,"ts":50,"dur":10},
{"ph":"X","cat":"user_annotation","name":"idle","pid":1,"tid":1,"ts":70,"dur":5},
{"ph":"X","cat":"user_annotation","name":"other","pid":1,"tid":2,"ts":0,"dur":100},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":3,"args":{"correlation":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":52,"dur":4,"args":{"correlation":2}},
{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":58,"dur":5,"args":{"correlation":3}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":95,"dur":10,"args":{"correlation":4}},
{"ph":"X","cat":"cuda_runtime","name":"cudaMemsetAsync","pid":1,"tid":2,"ts":20,"dur":2,"args":{"correlation":5}},
{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":40,"dur":10,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"k2a","pid":0,"tid":7,"ts":60,"dur":5,"args":{"correlation":2}},
{"ph":"X","cat":"kernel","name":"k2b","pid":0,"tid":7,"ts":70,"dur":10,"args":{"correlation":2}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD","pid":0,"tid":7,"ts":90,"dur":2,"args":{"correlation":3}},
{"ph":"X","cat":"kernel","name":"k4","pid":0,"tid":7,"ts":110,"dur":1,"args":{"correlation":4}},
{"ph":"X","cat":"gpu_memset","name":"Memset","pid":0,"tid":7,"ts":30,"dur":4,"args":{"correlation":5}}]}' >"$WORK/p.json"
vp ranges --table gpu_proj -f csv "$WORK/p.json"
expect_status 0
expect_stdout <<'END'
Range,Style,Total Proj Time (ns),Total Range Time (ns),Range Instances,Proj Avg (ns),Proj Med (ns),Proj Min (ns),Proj Max (ns),Proj StdDev (ns),Total GPU Ops,Avg GPU Ops,Avg Range Lvl,Avg Num Child,Total GPU Time (ns)
outer,PushPop,52000,100000,1,52000.0,52000.0,52000,52000,0.0,3,3.0,0.0,2.0,27000
inner,PushPop,30000,30000,2,15000.0,15000.0,10000,20000,7071.1,2,1.0,1.0,0.0,25000
other,PushPop,4000,100000,1,4000.0,4000.0,4000,4000,0.0,1,1.0,0.0,0.0,4000
END
gzip -c "$WORK/p.json" >"$WORK/p.json.gz"
python3 "$PROJ" "$WORK/p.json.gz" >"$WORK/want"
expect_stdout_file "$WORK/want"
vp ranges --table gpu_proj "$WORK/r.json"
expect_status 0
expect_stdout_has "note: no GPU work launched inside a user annotation"

case_ '--steps: the ranges that start inside step 552'
vp ranges --table ranges --steps 552 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
python3 "$CHECK" ranges --steps 552 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
expect_stdout_has '38.5,1253567000,2,626783500.0,626783500.0,622928000,630639000,5452500.4,user_annotation,ProfilerStep#552'
vp ranges --table gpu_proj --steps 552 -f csv trace_filter_rank-0.json.gz
expect_stdout_has 'ProfilerStep#552,PushPop,615601000,'
if grep -qF 'ProfilerStep#551' "$OUT_STDOUT"; then fail "step 551 kept"; else pass; fi
vp ranges --steps 9 trace_filter_rank-0.json.gz
expect_status 0
expect_stderr_has "--steps selects none of the steps present"
expect_stdout_has "note: no user annotations (user_annotation, gpu_user_annotation) in the input (with --steps)"

case_ 'nothing to count, bad input, usage'
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2}]}' >"$WORK/k.json"
vp ranges "$WORK/k.json"
expect_status 0
expect_stdout_has "note: no user annotations (user_annotation, gpu_user_annotation) in the input"
printf '{"traceEvents":[{"ph":"X"' >"$WORK/t.json"
vp ranges "$WORK/t.json"
expect_status 3
vp ranges --top x "$WORK/k.json"
expect_status 2
vp ranges --by stream "$WORK/k.json"
expect_status 2
expect_stderr_has "--by: unknown grouping 'stream' (name, rank)"
vp ranges --steps x:y "$WORK/k.json"
expect_status 2
