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
