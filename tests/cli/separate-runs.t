# Traces of separate runs given together are not ranks of one run: summary,
# check, comm and steps warn, naming the files and the evidence
# (vprof/origin.h: when each was recorded, on which device), and stay quiet
# on the ranks of one run, with distributedInfo or without (issue 32, 6).

cd "$DATA"
MSG="the 2 traces look like separate runs, not ranks of one: hta/event_sync_trace.json.gz recorded from 2024-02-08 18:38:45 UTC, hta/amd_trace.json.gz from 2025-02-17 23:47:09 UTC (the ranks of one run record at the same time); hta/amd_trace.json.gz has no distributedInfo.rank; yet they are read as the 2 ranks of one run"

case_ 'summary: an MI trace of 2025 without distributedInfo and an A100 trace of 2024 (HTA) are two runs'
vp summary -f csv --table run hta/amd_trace.json.gz hta/event_sync_trace.json.gz
expect_status 0
expect_stderr <<END
vprof: warning: summary: $MSG
END

case_ 'the same with -j 2: the partial results carry each trace origin'
vp summary -j 2 -f csv --table run hta/amd_trace.json.gz hta/event_sync_trace.json.gz
expect_status 0
expect_stderr <<END
vprof: warning: summary: $MSG
END

case_ 'comm and steps say the same'
vp comm -f csv --table comm hta/amd_trace.json.gz hta/event_sync_trace.json.gz
expect_status 0
expect_stderr <<END
vprof: warning: hta/amd_trace.json.gz and hta/event_sync_trace.json.gz both are rank 0
vprof: warning: comm: $MSG
END
vp steps -f csv --table summary hta/amd_trace.json.gz hta/event_sync_trace.json.gz
expect_status 0
expect_stderr <<END
vprof: warning: steps: $MSG
END

case_ 'check and report read the run as summary does'
vp check --fail-if 'step.median > 100s' -f csv hta/amd_trace.json.gz hta/event_sync_trace.json.gz
expect_status 0
expect_stderr <<END
vprof: warning: check: $MSG
END
vp report -o "$WORK/report.html" hta/amd_trace.json.gz hta/event_sync_trace.json.gz
expect_status 0
expect_stderr_has "vprof: warning: report: $MSG"

case_ 'two traces on different devices, without times on the wall clock'
sed 's/NVIDIA H100 80GB HBM3/NVIDIA A100-SXM4-80GB/' synthetic/roofline.json >"$WORK/a100.json"
vp summary -f csv --table run synthetic/roofline.json "$WORK/a100.json"
expect_status 0
expect_stderr <<END
vprof: warning: summary: the 2 traces look like separate runs, not ranks of one: synthetic/roofline.json ran on NVIDIA H100 80GB HBM3, $WORK/a100.json on NVIDIA A100-SXM4-80GB; none has distributedInfo.rank; yet they are read as the 2 ranks of one run
END

case_ 'no word on two ranks of one run (HTA trace_filter, distributedInfo rank 0 and 1)'
for cmd in summary comm steps; do
    vp $cmd -q -f csv hta/trace_filter_rank-0.json.gz hta/trace_filter_rank-1.json.gz
    expect_status 0
    expect_stderr_empty
done

case_ 'nor on the same two ranks without distributedInfo: their windows overlap'
for r in 0 1; do
    gzip -dc <hta/trace_filter_rank-$r.json.gz | sed 's/"distributedInfo": {[^}]*}, //' >"$WORK/run_rank$r.json"
done
if grep -q distributedInfo "$WORK/run_rank0.json"; then fail "distributedInfo left in the copy"; else pass; fi
vp summary -f csv --table run "$WORK/run_rank0.json" "$WORK/run_rank1.json"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Accelerator,GPUs,Ranks,Steps,Step Median (ns),Step Min (ns),Step Max (ns)
-,2,2,2,619271500.0,607904000.0,630639000.0
END
