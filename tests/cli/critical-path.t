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
# The trace has three steps (#0-#2): HTA's rule leaves out the last, and
# the message counts it and says so (it used to say 2).
vp critical-path --instance 2 amd_trace.json.gz
expect_status 3
expect_stderr <<'END'
vprof: amd_trace.json.gz: 3 events are named like 'ProfilerStep', 1 of them from the last step (ProfilerStep#2), which HTA's rule leaves out (it drops a trace's last ProfilerStep); instance 2 (counted from 0) is not one of the 2 left
END
vp critical-path --instance 1 event_sync_trace.json.gz
expect_status 3
expect_stderr <<'END'
vprof: event_sync_trace.json.gz: 1 event is named like 'ProfilerStep'; instance 1 (counted from 0) is not one
END
vp critical-path --annotation Nope amd_trace.json.gz
expect_status 3
expect_stderr <<'END'
vprof: amd_trace.json.gz: no event named like 'Nope' (the annotation): no window to analyse
END

case_ 'a window of a multi-step trace: CPU ops outside it are dropped as read, same path as HTA'
# HTA f4d0062c (Debian pandas 1.5.3, networkx 2.8.8) on trace_filter rank 0:
# critical_path_analysis(rank=0, annotation='ProfilerStep', instance_id=0),
# get_critical_path_breakdown() summed by bound_by: cpu_bound 300492 us,
# gpu_compute_bound 948, gpu_kernel_kernel_overhead 30,
# gpu_kernel_launch_overhead 6; 3527 edges.  vprof keeps 2403 of the
# trace's 4810 events with a duration (-v says so).
vp critical-path -v -f csv --table summary trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Bound By,Time (ns),Time (%)
,0,0.00
cpu_bound,300492000,99.67
gpu_compute_bound,948000,0.31
gpu_kernel_kernel_overhead,30000,0.01
gpu_kernel_launch_overhead,6000,0.00
END
expect_stderr_has "4810 events with a duration, 2403 kept for the window"
vp critical-path -f csv --table path trace_filter_rank-0.json.gz
expect_status 0
n=$(wc -l <"$OUT_STDOUT")
if [ "$n" = 3528 ]; then pass; else fail "path: $n lines, expected 3528 (3527 edges and the header)"; fi

case_ 'the window assumed while streaming is not the one after HTA last-step rule: read again whole'
# ProfilerStep#2 comes first in the file but is the last step, which HTA
# leaves out: instance 0 is ProfilerStep#1, whose ops were dropped while
# #2 was assumed; the second read keeps them.
cat >"$WORK/reorder.json" <<'END'
{"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 1000, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "late_op", "pid": 1, "tid": 1, "ts": 1010, "dur": 20},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "early_op", "pid": 1, "tid": 1, "ts": 10, "dur": 50},
{"ph": "X", "cat": "cpu_op", "name": "early_child", "pid": 1, "tid": 1, "ts": 20, "dur": 30}
]}
END
vp critical-path -f csv --table path "$WORK/reorder.json"
expect_status 0
expect_stdout <<'END'
Step,Event,Name,Type,Duration (ns),Bound By,Begin (us),End (us)
0,3,early_op,critical_path_operator,10000,cpu_bound,10,20
1,4,early_child,critical_path_operator,30000,cpu_bound,20,50
2,3,early_op,critical_path_operator,10000,cpu_bound,50,60
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
