# vprof api: nsys cuda_api_sum per runtime/driver API name.  Expected
# outputs are computed by evsum_check.py from the traces alone; the small
# one is also spelled out (event_sync_trace: four cudaLaunchKernel calls of
# 36, 10, 12 and 9 us).
CHECK=$(cd "$(dirname "$T")" && pwd)/evsum_check.py

case_ 'csv: every API name, nsys columns'
cd "$DATA/hta"
vp api -f csv event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
42.7,67000,4,16750.0,11000.0,9000,36000,12893.8,cudaLaunchKernel
21.7,34000,1,34000.0,34000.0,34000,34000,0.0,cudaEventSynchronize
18.5,29000,1,29000.0,29000.0,29000,29000,0.0,cudaMemcpyAsync
5.1,8000,1,8000.0,8000.0,8000,8000,0.0,cudaDeviceSynchronize
3.8,6000,2,3000.0,3000.0,3000,3000,0.0,cudaEventRecord
3.8,6000,1,6000.0,6000.0,6000,6000,0.0,cudaStreamSynchronize
2.5,4000,1,4000.0,4000.0,4000,4000,0.0,cudaEventElapsedTime
1.9,3000,1,3000.0,3000.0,3000,3000,0.0,cudaEventQuery
END
expect_stderr <<'END'
END

case_ 'two ranks and ROCm, as computed independently'
vp api -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
python3 "$CHECK" api trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
expect_stdout_has "89.3,18444000,2258,8168.3,7000.0,4000,49000,3868.7,cudaLaunchKernel"
vp api -f csv amd_trace.json.gz
python3 "$CHECK" api amd_trace.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"

case_ 'api and launches agree: calls and CPU time of the launching calls'
# trace_filter's runtime calls all launch GPU work: 2258 + 80 + 20 calls,
# 20,652,000 ns, the launches' count and CPU Duration (11,050,000 + 9,602,000).
vp_tables "launch_summary kernel_launches" launches -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_stdout_has "0,1204,2,937,280,11050000,"
expect_stdout_has "1,1154,0,880,278,9602000,"
vp api -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_stdout_has "9.9,2042000,80,"
expect_stdout_has "0.8,166000,20,"

case_ 'table, md, tsv, json and --top'
vp api --top 2 event_sync_trace.json.gz
expect_status 0
expect_stdout_has "42.7%     67.0 us          4  16.8 us  11.0 us  9.00 us  36.0 us  12.9 us  cudaLaunchKernel"
expect_stdout_has "note: 6 more rows not shown (--top)"
vp api -f md --top 1 event_sync_trace.json.gz
expect_stdout_has "| 42.7% | 67.0 us | 4 | 16.8 us | 11.0 us | 9.00 us | 36.0 us | 12.9 us | cudaLaunchKernel |"
vp api -f tsv --top 1 event_sync_trace.json.gz
expect_stdout_has "42.7	67000	4	16750.0	11000.0	9000	36000	12893.8	cudaLaunchKernel"
vp api -f json --top 1 event_sync_trace.json.gz
expect_stdout_has '"schema":"vprof.api/1"'
expect_stdout_has '"rows":[[42.67515923566879,67000,4,16750,11000,9000,36000,12893.796958227627,"cudaLaunchKernel"]]'

case_ '-j 2, --save-part and reduce print the same bytes'
vp api -j 1 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
cp "$OUT_STDOUT" "$WORK/one"
vp api -j 2 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_stdout_file "$WORK/one"
vp api --save-part "$WORK/p%i.vpart" trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
vp reduce -f csv "$WORK/p0.vpart" "$WORK/p1.vpart"
expect_stdout_file "$WORK/one"

case_ 'nothing to count, bad input, usage'
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2}]}' >"$WORK/k.json"
vp api "$WORK/k.json"
expect_status 0
expect_stdout_has "note: no runtime or driver API calls (cuda_runtime, cuda_driver, AscendCL) in the input"
printf '{"traceEvents":[{"ph":"X"' >"$WORK/t.json"
vp api "$WORK/t.json"
expect_status 3
expect_stderr_has "t.json: byte 16"
vp api --bogus event_sync_trace.json.gz
expect_status 2
vp api
expect_status 2
expect_stderr_has "vprof: api: no trace given"

case_ '--steps and --by rank, as computed independently'
cd "$DATA/hta"
vp api --steps 552 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
python3 "$CHECK" api --steps 552 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
vp api --by rank -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
python3 "$CHECK" api --by-rank trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
vp api --by name,rank --steps 551 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
python3 "$CHECK" api --steps 551 --by-rank trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
vp api --by name,rank --steps 551 -j 2 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_stdout_file "$WORK/want"
vp api --steps 3 event_sync_trace.json.gz
expect_status 0
expect_stderr_has "--steps selects none of the steps present (ProfilerStep#100 to #100)"
vp api --by device event_sync_trace.json.gz
expect_status 2
expect_stderr_has "--by: unknown grouping 'device' (name, rank)"

case_ 'AscendCL calls of an Ascend trace (trace_view.json), as computed independently'
T0="$DATA/ascend/run2/worker0_20240101000000_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"
vp api -f csv "$T0"
expect_status 0
python3 "$CHECK" api "$T0" >"$WORK/want"
expect_stdout_file "$WORK/want"
expect_stdout_has "28.6,96000,8,12000.0,12000.0,12000,12000,0.0,aclnnMatmul"
A="$SHARED/fixtures/real/ascend/msprof_analyze_advisor_timeline/trace_view.json"
if [ -e "$A" ]; then
    vp api -f csv "$A"
    expect_status 0
    python3 "$CHECK" api "$A" >"$WORK/want"
    expect_stdout_file "$WORK/want"
    expect_stdout_has "61.0,6637096,11,603372.4,790548.0,63061,1099971,366083.6,aclopCompileAndExecute"
else
    echo "SKIP [$T]: $A is absent: the ../shared AscendCL case was not run"
fi
