# What the hardware of a real trace changes: HTA's V100 trace
# (ns_resolution_trace: deviceProperties name "Tesla V100-SXM2-32GB",
# computeMajor 7, computeMinor 0, eight devices, world_size 1, five steps,
# every GEMM a volta_sgemm_* kernel) against its A100 one (cuda_event_sync:
# "NVIDIA A100-PG509-200", 8.0, no world_size, one step).

need_shared fixtures/real/hta/tests/data/ns_resolution_trace
V100=ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz
A100=critical_path/cuda_event_sync/event_sync_trace.json.gz

case_ 'summary on a V100: FP32 GEMMs suggest FP16 with AMP, never BF16'
cd "$SHARED/fixtures/real/hta/tests/data"
vp summary $V100
expect_status 0
sed -n '/^== findings ==/,$p' "$OUT_STDOUT" > "$WORK/findings" && cp "$WORK/findings" "$OUT_STDOUT"
expect_stdout <<'END'
== findings ==
1. FP32 GEMMs where FP16 (AMP) is expected [fp32_gemm]
   evidence: 100.0% of GEMM time is in FP32 kernels (sgemm) on Tesla V100-SXM2-32GB (compute
             capability 7.0: no BF16 tensor cores)
   try: use AMP with FP16 (autocast float16 and a gradient scaler): FP16 tensor-core GEMMs are
        several times faster than FP32 ones; this device has no BF16 tensor cores
2. no Input Dims: how close the operators run to their roof is not known [no_shapes]
   evidence: no operator of the 1 trace file has Input Dims: the FLOPs and bytes of the operators'
             472 ms of GPU time are unknown
   try: record with record_shapes=True (torch.profiler.profile) to see how close each operator runs
        to its roof (vprof roofline)
END

case_ 'diff V100 -> A100: the runs table says what differs, and a warning'
cd "$SHARED/fixtures/real/hta/tests/data"
vp diff -f csv --table runs $V100 $A100
expect_status 0
expect_stdout_has 'device,Tesla V100-SXM2-32GB,NVIDIA A100-PG509-200,yes'
expect_stdout_has 'compute capability,7.0,8.0,yes'
expect_stdout_has 'GPUs,1,1,no'   # both list 8 GPUs in deviceProperties; each ran on one
expect_stdout_has 'world size,1,-,yes'
expect_stdout_has 'steps,5,1,yes'
expect_stdout_has 'trace schema,1,1,no'
expect_stderr <<'END'
vprof: warning: diff: the runs differ in device Tesla V100-SXM2-32GB -> NVIDIA A100-PG509-200, compute capability 7.0 -> 8.0, world size 1 -> -, steps 5 -> 1
END

case_ 'diff -q: no warning'
cd "$SHARED/fixtures/real/hta/tests/data"
vp diff -q -f csv $V100 $A100
expect_status 0
expect_stderr <<'END'
END
