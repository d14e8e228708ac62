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
expect_stderr_has "--by: unknown grouping 'device' (name, rank, level)"

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

case_ 'Ascend api_statistic.csv: totals merged over devices, ranks and directories, as computed from the calls'
# constructed_api_statistic (its README.md): two *_ascend_pt ranks under run/
# and an msprof PROF_* directory whose rows are per Device_id, written from
# calls.csv's single calls.  evsum_check.py api-calls computes the table from
# those calls, not from the totals vprof reads.  By hand: aclnnMatmul's 9
# calls of 10, 20, 30, 40 (rank 0), 50, 60 (rank 1), 5.5, 6.5 (device 0) and
# 12.345 us (device 1) total 234,345 ns, mean 26,038.3, sample StdDev
# 20,071.6; HcclAllReduce's 800 and 1,200 us: StdDev 200,000 * sqrt(2).
cd "$DATA/ascend/constructed_api_statistic"
P=PROF_000002_20240101000002000_ABCDEFGHIJKLMNOP
S="run/worker0_20240101000000_ascend_pt run/worker1_20240101000001_ascend_pt $P"
vp api -f csv run $P
expect_status 0
python3 "$CHECK" api-calls calls.csv $S >"$WORK/want"
expect_stdout_file "$WORK/want"
expect_stdout_has "5.9,234345,9,26038.3,,5500,60000,20071.6,aclnnMatmul"
expect_stdout_has "50.6,2000000,2,1000000.0,,800000,1200000,282842.7,HcclAllReduce"
for by in level rank level,rank; do
    vp api -f csv --by $by run $P
    expect_status 0
    flags=
    case $by in *level*) flags="$flags --by-level" ;; esac
    case $by in *rank*) flags="$flags --by-rank" ;; esac
    python3 "$CHECK" api-calls $flags calls.csv $S >"$WORK/want"
    expect_stdout_file "$WORK/want"
done
vp api -f csv --by level run/worker0_20240101000000_ascend_pt/ASCEND_PROFILER_OUTPUT/api_statistic.csv
python3 "$CHECK" api-calls --by-level calls.csv run/worker0_20240101000000_ascend_pt >"$WORK/want"
expect_stdout_file "$WORK/want"
expect_stdout_has "1.8,10000,2,5000.0,,4000,6000,1414.2,node,aclnnAdd"

case_ 'Ascend api_statistic.csv: every format (no median: - , empty, null)'
vp api --top 1 run $P
expect_stdout_has "50.6%     2.00 ms          2  1.00 ms    -  800 us  1.20 ms  283 us  HcclAllReduce"
expect_stdout_has "note: 6 rows hold calls the profiler totalled (api_statistic.csv): they have no median; StdDev is from its Variance"
vp api -f md --top 1 run $P
expect_stdout_has "| 50.6% | 2.00 ms | 2 | 1.00 ms | - | 800 us | 1.20 ms | 283 us | HcclAllReduce |"
vp api -f tsv --top 1 run $P
expect_stdout_has "50.6	2000000	2	1000000.0		800000	1200000	282842.7	HcclAllReduce"
vp api -f json --top 1 --by level run $P
expect_stdout_has '"rows":[[50.602869941768745,2000000,2,1000000,null,800000,1200000,282842.71247461904,"hccl","HcclAllReduce"]]'

case_ 'Ascend api_statistic.csv: -j, --save-part and reduce print the same bytes'
vp api -j 1 -f csv --by level,rank run $P
cp "$OUT_STDOUT" "$WORK/one"
vp api -j 2 -f csv --by level,rank run $P
expect_stdout_file "$WORK/one"
vp api --by level,rank --save-part "$WORK/a%i.vpart" run $P
expect_status 0
vp reduce -f csv "$WORK/a0.vpart" "$WORK/a1.vpart"
expect_stdout_file "$WORK/one"

case_ 'Ascend directories: the trace when there is no api_statistic.csv; bad rows; nothing to read'
R="$DATA/ascend/run2/worker0_20240101000000_ascend_pt"
vp api -f csv "$R/ASCEND_PROFILER_OUTPUT/trace_view.json"
cp "$OUT_STDOUT" "$WORK/trace"
vp api -f csv "$R"
expect_status 0
expect_stdout_file "$WORK/trace"
vp api --steps 1 run
expect_status 0
expect_stderr_has "api_statistic.csv: --steps: api_statistic.csv has no steps, so none of its rows is kept"
mkdir -p "$WORK/bad_ascend_pt/ASCEND_PROFILER_OUTPUT"
printf 'Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\nacl,a,1,1,1,1,1,0\nacl,b,2,x,1,1,1,0\n' \
    >"$WORK/bad_ascend_pt/ASCEND_PROFILER_OUTPUT/api_statistic.csv"
vp api "$WORK/bad_ascend_pt"
expect_status 3
expect_stderr_has "bad_ascend_pt/ASCEND_PROFILER_OUTPUT/api_statistic.csv: line 3: Count is not a number: 'x'"
printf 'Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\nacl,a,1,2,1,3,1,0\n' \
    >"$WORK/bad_ascend_pt/ASCEND_PROFILER_OUTPUT/api_statistic.csv"
vp api "$WORK/bad_ascend_pt"
expect_status 3
expect_stderr_has "api_statistic.csv: line 2: Min(us) is above Max(us): '3'"
vp api "$DATA/ascend/msinsight_gpt3_rank0_ascend_pt"
expect_status 3
expect_stderr_has "msinsight_gpt3_rank0_ascend_pt: neither api_statistic.csv nor a trace (trace_view.json, msprof_*.json) found: api has no API calls to read"
