# vprof summary --critical-path: each step's verdict is the bound_by
# category with the most time on its critical path, computed by
# critical-path's own functions in summary's single pass; it must equal
# what `vprof critical-path --instance N` says for the same window.

case_ 'the verdict per step (trace_filter, two ranks; HTA: rank 0 cpu_bound 300492 us)'
cd "$DATA/hta"
vp summary -q --critical-path -f csv --table step_bound trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Step,Instance,Bound By,Time (ns),Path (ns),Time (%)
0,551,0,cpu_bound,300492000,301476000,99.67
1,551,0,cpu_bound,302732000,304041000,99.57
END

case_ 'the same with -j 2 (partial results carry the verdicts), and none without the option'
vp summary -q -j 2 --critical-path -f csv --table step_bound trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Step,Instance,Bound By,Time (ns),Path (ns),Time (%)
0,551,0,cpu_bound,300492000,301476000,99.67
1,551,0,cpu_bound,302732000,304041000,99.57
END
vp summary -q -f json trace_filter_rank-0.json.gz
expect_status 0
if grep -q step_bound "$OUT_STDOUT"; then fail "step_bound without --critical-path"; else pass; fi

case_ 'several steps: each verdict equals critical-path --instance N (HTA ns_resolution_trace)'
need_shared fixtures/real/hta/tests/data/ns_resolution_trace
TRACE="$SHARED/fixtures/real/hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
# HTA f4d0062c, instance_id=1 (step 102): gpu_compute_bound 93692 us of
# 95735 (hta_oracle/ns_resolution_trace/critical_path_summary.csv).
vp summary -q --critical-path -f csv --table step_bound "$TRACE"
expect_status 0
expect_stdout <<'END'
Rank,Step,Instance,Bound By,Time (ns),Path (ns),Time (%)
0,101,0,gpu_compute_bound,93533000,97518000,95.91
0,102,1,gpu_compute_bound,93692000,95735000,97.87
0,103,2,gpu_compute_bound,93524000,95569000,97.86
0,104,3,gpu_compute_bound,93671000,95662000,97.92
END
cp "$OUT_STDOUT" "$WORK/verdicts.csv"
# Under memcheck one window is enough to find a leak or a bad read (each
# critical-path run reads the whole trace); the other stages check all four.
instances="0 1 2 3"
[ "${VPROF_VALGRIND:-}" != 1 ] || instances=1
for i in $instances; do
    want=$(awk -F, -v i=$i 'NR > 1 && $3 == i { print $4 "," $5 }' "$WORK/verdicts.csv")
    vp critical-path -q --instance $i -f csv --table summary "$TRACE"
    # the largest Time (ns) of a named category; the first in name order on a tie
    got=$(awk -F, 'NR > 1 && $1 != "" && $2 > best { best = $2; b = $1 } END { print b "," best }' "$OUT_STDOUT")
    if [ "$got" = "$want" ]; then pass; else fail "instance $i: critical-path says $got, summary $want"; fi
done

case_ 'a step boundary: a kernel launched in step 1 runs in step 2, an op of step 2 ends in step 3'
# Worked out by hand from HTA's rules.  Step 1 (0-100 us) launches k1
# (runs 30-50) and k2 (runs 150-180, in step 2's time): k2 belongs to
# step 1's graph through its launch, joined to k1 by a kernel-kernel gap
# of 100 us (the queue on stream 7 is not empty when k2 starts), so
# step 1's path is mm 10 (cpu) + launch delay 10 + k1 20 + gap 100 + k2
# 30 = 170 us.  Step 2 (100-200) holds relu, its launch of k3 and copy_
# (190-230, past the boundary: a window takes the ops starting in it);
# k2 is not in it, so k3 (queue 2 at its launch) has no edge in, and the
# path is relu 5 + launch 5 + relu 10 + copy_ 40 = 60 us of CPU.  Step
# 3 is the last step, which HTA leaves out.  summary computes each step
# from the one reading, freeing the graph after each; critical-path
# --instance N reads the trace for one window: the same numbers.
cat >"$WORK/steps.json" <<'END'
{"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 30},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 10, "args": {"correlation": 1}},
{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 80, "dur": 15},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 85, "dur": 5, "args": {"correlation": 2}},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 110, "dur": 20},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 115, "dur": 5, "args": {"correlation": 3}},
{"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 190, "dur": 40},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 200, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "aten::sum", "pid": 1, "tid": 1, "ts": 240, "dur": 20},
{"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 30, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 150, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 2}},
{"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 185, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 3}}
]}
END
vp summary -q --critical-path -f csv --table step_bound "$WORK/steps.json"
expect_status 0
expect_stdout <<'END'
Rank,Step,Instance,Bound By,Time (ns),Path (ns),Time (%)
0,1,0,gpu_kernel_kernel_overhead,100000,170000,58.82
0,2,1,cpu_bound,60000,60000,100.00
END
vp critical-path -q --instance 0 -f csv --table summary "$WORK/steps.json"
expect_status 0
expect_stdout <<'END'
Bound By,Time (ns),Time (%)
cpu_bound,10000,5.88
gpu_compute_bound,50000,29.41
gpu_kernel_kernel_overhead,100000,58.82
gpu_kernel_launch_overhead,10000,5.88
END
vp critical-path -q --instance 1 -f csv --table path "$WORK/steps.json"
expect_status 0
expect_stdout <<'END'
Step,Event,Name,Type,Duration (ns),Bound By,Begin (us),End (us)
0,6,aten::relu,critical_path_operator,5000,cpu_bound,110,115
1,7,cudaLaunchKernel,critical_path_operator,5000,cpu_bound,115,120
2,6,aten::relu,critical_path_operator,10000,cpu_bound,120,130
3,,,critical_path_dependency,0,,130,190
4,8,aten::copy_,critical_path_operator,40000,cpu_bound,190,230
END

case_ 'a Stream Wait Event in step 1 time holds back a kernel of step 2; one after its kernel holds nothing'
# HTA clips every Stream Wait Event into every window.  Worked out by
# hand: in step 2, opA launches kA (stream 8, 120-170), records event 11,
# makes stream 7 wait on it (the wait's GPU event is at 90 us, in step
# 1's time) and launches kK (stream 7, 171-180).  The wait comes before
# kK in time, so kK waits for kA: path opA 3 (cpu) + launch delay 12 +
# kA 50 + sync 0 + kK 9 = 74 us, gpu_compute_bound 59.  Moved after kK
# (175 us) it holds nothing back: kK's launch delay (119 to 171) is on
# the path instead, 14 us of CPU + 52 + 9 = 75.
cat >"$WORK/wait.json" <<'END'
{"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "op1", "pid": 1, "tid": 1, "ts": 10, "dur": 20},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "opA", "pid": 1, "tid": 1, "ts": 105, "dur": 20},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 108, "dur": 4, "args": {"correlation": 10}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaEventRecord", "pid": 1, "tid": 1, "ts": 113, "dur": 2, "args": {"correlation": 11}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 1, "tid": 1, "ts": 116, "dur": 2, "args": {"correlation": 12}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 119, "dur": 4, "args": {"correlation": 13}},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 200, "dur": 100},
{"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 7, "ts": 90, "dur": 0, "args": {"correlation": 12, "stream": 7, "wait_on_stream": 8, "wait_on_cuda_event_record_corr_id": 11}},
{"ph": "X", "cat": "kernel", "name": "kA", "pid": 0, "tid": 8, "ts": 120, "dur": 50, "args": {"device": 0, "stream": 8, "correlation": 10}},
{"ph": "X", "cat": "kernel", "name": "kK", "pid": 0, "tid": 7, "ts": 171, "dur": 9, "args": {"device": 0, "stream": 7, "correlation": 13}}
]}
END
vp summary -q --critical-path -f csv --table step_bound "$WORK/wait.json"
expect_status 0
expect_stdout <<'END'
Rank,Step,Instance,Bound By,Time (ns),Path (ns),Time (%)
0,1,0,cpu_bound,20000,20000,100.00
0,2,1,gpu_compute_bound,59000,74000,79.73
END
vp critical-path -q --instance 1 -f csv --table path "$WORK/wait.json"
expect_status 0
expect_stdout <<'END'
Step,Event,Name,Type,Duration (ns),Bound By,Begin (us),End (us)
0,3,opA,critical_path_operator,3000,cpu_bound,105,108
1,,,critical_path_kernel_launch_delay,12000,gpu_kernel_launch_overhead,108,120
2,10,kA,critical_path_operator,50000,gpu_compute_bound,120,170
3,,,critical_path_sync_dependency,0,,170,171
4,11,kK,critical_path_operator,9000,gpu_compute_bound,171,180
END
sed 's/"ts": 90, "dur": 0/"ts": 175, "dur": 0/' "$WORK/wait.json" >"$WORK/wait-after.json"
vp summary -q --critical-path -f csv --table step_bound "$WORK/wait-after.json"
expect_status 0
expect_stdout <<'END'
Rank,Step,Instance,Bound By,Time (ns),Path (ns),Time (%)
0,1,0,cpu_bound,20000,20000,100.00
0,2,1,gpu_kernel_launch_overhead,52000,75000,69.33
END
