# vprof critical-path: HTA's lightweight critical path.  The expected
# numbers are HTA's own (hta_oracle/<set>/critical_path_summary.csv and
# critical_path_breakdown.csv, HTA f4d0062c): event_sync_trace is HTA's
# critical_path/cuda_event_sync trace, called as critical_path_analysis(
# annotation='ProfilerStep', instance_id=0); amd_trace with instance_id=1.

case_ 'summary in csv: HTA duration_us per bound_by (cuda_event_sync)'
cd "$DATA/hta"
vp critical-path -f csv --table summary event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Bound By,Time (ns),Time (%)
,0,0.00
cpu_bound,2365000,98.09
gpu_compute_bound,36000,1.49
gpu_kernel_launch_overhead,10000,0.41
END
expect_stderr_empty

case_ 'the path in order: HTA breakdown rows (event_idx, duration, type, bound_by)'
vp critical-path -f csv --table path event_sync_trace.json.gz
expect_status 0
expect_stdout_has "0,1,aten::ones,critical_path_operator,4000,cpu_bound,1707417525509905,1707417525509909"
expect_stdout_has "1,2,aten::empty,critical_path_operator,2187000,cpu_bound,"
expect_stdout_has "4,13,cudaLaunchKernel,critical_path_operator,36000,cpu_bound,"
expect_stdout_has "32,,,critical_path_kernel_launch_delay,10000,gpu_kernel_launch_overhead,"
expect_stdout_has "33,33,at::cuda::(anonymous namespace)::spin_kernel(long),critical_path_operator,36000,gpu_compute_bound,"
expect_stdout_has "38,47,cudaEventElapsedTime,critical_path_operator,4000,cpu_bound,"
if [ "$(wc -l <"$OUT_STDOUT")" = 40 ]; then pass; else fail "expected 39 path edges"; fi

case_ 'table format: the window and graph sizes HTA reports (54 nodes, 57 edges)'
vp critical-path --top 2 event_sync_trace.json.gz
expect_status 0
expect_stdout_has "cpu_bound                   2.37 ms  98.1%"
expect_stdout_has "graph 54 nodes, 57 edges; path 40 nodes, 39 edges, 21 events, 2411 us"
expect_stdout_has "aten::empty       cpu_bound      1  2.19 ms  90.7%"
expect_stdout_has "note: the top 2 of 16 names"

case_ 'amd_trace, instance 1 (HTA drops the last ProfilerStep when loading): 741 us cpu_bound'
vp critical-path --instance 1 -f csv --table summary amd_trace.json.gz
expect_status 0
expect_stdout <<'END'
Bound By,Time (ns),Time (%)
,0,0.00
cpu_bound,741000,100.00
END

case_ '-o: the path marked as HTA overlays it (21 events critical, 18 flow events)'
vp critical-path -f csv --table summary -o "$WORK/cp.json.gz" event_sync_trace.json.gz
expect_status 0
expect_stdout_has "cpu_bound,2365000,98.09"
n=$(gzip -dc "$WORK/cp.json.gz" | grep -o '"critical": 1' | wc -l)
[ "$n" = 21 ] && pass || fail "$n events marked critical, HTA marks 21"
n=$(gzip -dc "$WORK/cp.json.gz" | grep -o '"cat": "critical_path"' | wc -l)
[ "$n" = 18 ] && pass || fail "$n critical_path flow events, HTA writes 18"
gzip -dc "$WORK/cp.json.gz" | python3 -c 'import json,sys; json.load(sys.stdin)' && pass || fail "overlaid trace is not JSON"
# --trace-out is the option's name in every command that writes a trace; -o
# its first name here, kept: the same bytes
vp critical-path -f csv --table summary --trace-out "$WORK/cp2.json.gz" event_sync_trace.json.gz
expect_status 0
expect_stdout_has "cpu_bound,2365000,98.09"
cmp -s <(gzip -dc "$WORK/cp.json.gz") <(gzip -dc "$WORK/cp2.json.gz") && pass || fail "--trace-out and -o differ"
vp critical-path --trace-out "$WORK/a.json" -o "$WORK/b.json" event_sync_trace.json.gz
expect_status 2
expect_stderr_has "--trace-out and -o name the same file: give one of them"

case_ 'no such instance, no such annotation: exit 3, saying how many there are'
vp critical-path --instance 2 amd_trace.json.gz
expect_status 3
expect_stderr <<'END'
vprof: amd_trace.json.gz: 2 events are named like 'ProfilerStep'; instance 2 (counted from 0) is not one
END
vp critical-path --annotation Nope amd_trace.json.gz
expect_status 3
expect_stderr <<'END'
vprof: amd_trace.json.gz: no event named like 'Nope' (the annotation): no window to analyse
END

case_ 'bad input: exit 3 naming the file and the offset; usage errors: exit 2'
printf '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1' >"$WORK/cut.json"
vp critical-path "$WORK/cut.json"
expect_status 3
expect_stderr_has "cut.json: byte "
vp critical-path --instance x event_sync_trace.json.gz
expect_status 2
expect_stderr_has "--instance: 'x' is not a count >= 0"
vp critical-path event_sync_trace.json.gz amd_trace.json.gz
expect_status 2
expect_stderr_has "one trace at a time"
vp critical-path -o "$WORK/x.json" - <event_sync_trace.json.gz
expect_status 2
expect_stderr_has "--trace-out (-o) reads the trace a second time: give a file, not standard input"
