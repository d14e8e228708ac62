# vprof ranges: nsys nvtx_sum over user annotations (record_function),
# CPU (user_annotation) and GPU (gpu_user_annotation) apart.  Expected
# outputs are computed by evsum_check.py from the traces alone.
CHECK=$(cd "$(dirname "$T")" && pwd)/evsum_check.py

case_ 'csv on two ranks, as computed independently'
cd "$DATA/hta"
vp ranges -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
python3 "$CHECK" ranges trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
expect_stderr <<'END'
END

case_ 'ROCm trace: CPU and GPU ranges apart'
vp ranges -f csv amd_trace.json.gz
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
vp ranges -f csv "$WORK/r.json"
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
vp ranges -j 1 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
cp "$OUT_STDOUT" "$WORK/one"
vp ranges -j 2 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_stdout_file "$WORK/one"
vp ranges --save-part "$WORK/p%i.vpart" trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
vp reduce -f csv "$WORK/p0.vpart" "$WORK/p1.vpart"
expect_stdout_file "$WORK/one"

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
