# summary, check and diff on an Ascend rank directory that has only the
# CSV summaries (issue 17, item 10): what kernels, steps and memory read
# there.  msinsight_gpt3_rank0_ascend_pt is such a directory (its
# trace_view.json was not published: tests/data/ascend/SOURCE.md).  The
# figures were computed apart from vprof, in Python with exact decimals,
# from its kernel_details.csv (21 tasks, µs rounded half up to ns as
# vprof's CSV reader does): kernels.total 37,370,966 ns = the sum of
# SOURCE.md's per-core totals; the four HCCL rows do not overlap one
# another, comm.total 10,238,538 ns; two compute tasks run inside the
# all-reduce (trans_Cast_5, 72,161 ns, and a DSA_SQE task, 83,278 ns), so
# 155,439 ns of it overlap and comm.exposed is 10,083,099 ns; the tasks
# span 267,849,918 ns, of which 37,215,527 ns are busy.
R0=$DATA/ascend/msinsight_gpt3_rank0_ascend_pt
cd "$DATA/ascend"

case_ "summary on a CSV-only rank: the device metrics from kernel_details.csv, exact"
vp summary -f json "$R0"
expect_status 0
expect_stdout_has '["ranks",1,"count"],["steps",1,"count"],["gpu.span",267849918,"ns"]'
expect_stdout_has '["comm.total",10238538,"ns"],["comm.exposed",10083099,"ns"]'
expect_stdout_has '["kernels.count",21,"count"],["kernels.total",37370966,"ns"]'
expect_stdout_has '["attention.flash",1,"count"]'
if grep -q '"step.median"\|"sync.count"\|"dataloader.pct"\|"comm.exposed_step_pct"' "$OUT_STDOUT"; then
    fail "a metric that needs trace_view.json is there"; else pass; fi

case_ "summary table: the run table says why there is no step time"
vp summary --table run msinsight_gpt3_rank0_ascend_pt
expect_status 0
expect_stdout <<'END'
Accelerator  GPUs  Ranks  Steps  Step Median  Step Min  Step Max
-----------  ----  -----  -----  -----------  --------  --------
Ascend NPU      -      1      1            -         -         -
note: no step time: msinsight_gpt3_rank0_ascend_pt has no trace_view.json, whose ProfilerStep windows and CPU tracks give step times, dataloader.pct and sync.* (its kernel_details.csv gives the device metrics)
END
expect_stderr_empty

case_ "check: a gate on a device metric judges; one on the step time fails naming the file"
vp check --expect 'comm.total < 20ms' --expect 'kernels.count == 21' "$R0"
expect_status 0
vp check --expect 'step.median < 1s' msinsight_gpt3_rank0_ascend_pt
expect_status 1
expect_stderr <<'END'
vprof: check: gate failed: step.median < 1s: step.median is not available in the run: msinsight_gpt3_rank0_ascend_pt has no trace_view.json, whose ProfilerStep windows and CPU tracks give step times, dataloader.pct and sync.* (its kernel_details.csv gives the device metrics)
END

case_ "summary --model: MFU needs the step time, and the message says which directory lacks it"
vp summary --model "$DATA/models/llama-3-8b.json" --tokens-per-step 1024 --seq-len 512 --peak-tflops 300 msinsight_gpt3_rank0_ascend_pt
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: MFU needs the step time: msinsight_gpt3_rank0_ascend_pt has no trace_view.json, whose ProfilerStep windows and CPU tracks give step times, dataloader.pct and sync.* (its kernel_details.csv gives the device metrics)
END

case_ "--steps selects by Step Id, as kernels does"
vp summary -f json --steps 2 "$R0"
expect_status 0
expect_stdout_has '["kernels.count",21,"count"]'
vp summary --steps 5 -f csv --table run msinsight_gpt3_rank0_ascend_pt
expect_status 0
expect_stdout <<'END'
Accelerator,GPUs,Ranks,Steps,Step Median (ns),Step Min (ns),Step Max (ns)
Ascend NPU,,1,0,,,
END
expect_stderr <<'END'
vprof: warning: msinsight_gpt3_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv: --steps selects none of the steps present (Step Id 2 to 2)
END

case_ "diff: the other header generation (op_summary) reads the same: no kernel changed"
mkdir -p "$WORK/op/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"
cp "$DATA/ascend/msinsight_op_summary/op_summary_1.csv" "$WORK/op/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
vp diff -f csv --table metrics "$R0" "$WORK/op/rank0_ascend_pt"
expect_status 0
expect_stdout_has "kernels.total,37370966.000000,37370966.000000,0.000000,0.0,ns"
expect_stdout_has "comm.exposed,10083099.000000,10083099.000000,0.000000,0.0,ns"

case_ "two CSV-only ranks; -j 2 and partials give -j 1's output"
for r in 0 1; do
    mkdir -p "$WORK/run/rank${r}_ascend_pt"
    cp -r "$R0/ASCEND_PROFILER_OUTPUT" "$WORK/run/rank${r}_ascend_pt/"
    printf '{"rank_id": %s}\n' $r > "$WORK/run/rank${r}_ascend_pt/profiler_info_$r.json"
done
vp summary -f json "$WORK/run"
expect_status 0
expect_stdout_has '["ranks",2,"count"]'
expect_stdout_has '["kernels.count",42,"count"],["kernels.total",74741932,"ns"]'
cp "$OUT_STDOUT" "$WORK/j1.json"
vp summary -j 2 -f json "$WORK"/run/rank0_ascend_pt "$WORK"/run/rank1_ascend_pt
expect_stdout_file "$WORK/j1.json"
vp summary --save-part "$WORK/s.vpart" "$WORK/run"
vp reduce -f json "$WORK/s.vpart"
expect_stdout_file "$WORK/j1.json"

case_ "a rank with neither a trace, a DB nor kernel_details.csv: exit 3 naming them"
mkdir -p "$WORK/mem/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"
cp "$R0/ASCEND_PROFILER_OUTPUT/memory_record.csv" "$WORK/mem/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
cd "$WORK/mem"
vp summary rank0_ascend_pt
expect_status 3
expect_stderr <<'END'
vprof: rank0_ascend_pt: no trace_view.json (msprof_*.json), DB export nor kernel_details.csv (op_summary_*.csv): a run's metrics are read from the device tasks
END
