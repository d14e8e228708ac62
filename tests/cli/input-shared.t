# A trace with no GPU activity (HTA's rank_non_gpu, a CPU-only Kineto
# trace, passed as HTA's users pass it: its directory) is a finding of its
# own, never "every rule's threshold holds"; gates on device metrics fail
# there, saying why, while gates on CPU metrics still judge.
need_shared fixtures/real/hta/tests/data/rank_non_gpu/rank_non_gpu.json.gz
NG=$SHARED/fixtures/real/hta/tests/data/rank_non_gpu
K0=$DATA/hta/trace_filter_rank-0.json.gz
cd "$WORK"

case_ 'summary: no GPU activity is the finding, not an all-clear'
vp summary "$NG"
expect_status 0
expect_stdout <<'END'
== run ==
Accelerator  GPUs  Ranks  Steps  Step Median  Step Min  Step Max
-----------  ----  -----  -----  -----------  --------  --------
-               0      1      1      75.5 ms   75.5 ms   75.5 ms

== gpu_time ==
GPU Span  Busy  Compute  Comm Exposed  Memory Copies  Idle  Comm Overlap
--------  ----  -------  ------------  -------------  ----  ------------
    0 ns  0.0%     0.0%          0.0%           0.0%  0.0%             -
note: shares of the GPU span (all ranks); Comm Exposed: of the GPU's busy time; Comm Overlap: of the communication time (HTA's overlap %)

== top_kernels ==
Time  Total Time  Instances  Class  Name
----  ----------  ---------  -----  ----
note: no GPU kernels in the counted steps

== findings ==
1. no GPU activity: nothing on a device to judge [no_device]
   evidence: no kernel, memory copy or collective in the counted events of 1 trace file: the GPU
             metrics are zeros that measure nothing
   try: profile the GPU too (torch.profiler with ProfilerActivity.CUDA), check that the model runs
        on the GPU, or count other steps
END
expect_stderr_empty
vp summary -f json "$NG"
expect_stdout_has '"findings":{"columns":[{"name":"Rule","type":"text"},{"name":"Finding","type":"text"},{"name":"Evidence","type":"text"},{"name":"Suggestion","type":"text"}],"rows":[["no_device","no GPU activity: nothing on a device to judge",'
expect_stdout_has '["gpu.span",0,"ns"]'

case_ 'check: gates on device metrics fail on it, saying why; a CPU metric still passes'
vp check --expect 'gpu.idle_pct < 20' --expect 'kernel:nccl.* < 1ms' --expect 'step.median < 100ms' "$NG"
expect_status 1
expect_stdout <<'END'
Gate                 Kind    Result  Detail
-------------------  ------  ------  ---------------------------------------------------------------
gpu.idle_pct < 20    expect  FAIL    gpu.idle_pct: the run has no GPU/NPU activity (no kernel, memo…
kernel:nccl.* < 1ms  expect  FAIL    kernel:nccl.*: the run has no GPU/NPU activity (no kernel, mem…
step.median < 100ms  expect  pass    step.median = 75.5 ms (< 100 ms is true)
END
expect_stderr <<'END'
vprof: check: gate failed: gpu.idle_pct < 20: gpu.idle_pct: the run has no GPU/NPU activity (no kernel, memory copy or collective in the counted events): nothing to judge
vprof: check: gate failed: kernel:nccl.* < 1ms: kernel:nccl.*: the run has no GPU/NPU activity (no kernel, memory copy or collective in the counted events): nothing to judge
END

case_ 'check --baseline: device metrics of 0 never pass as an improvement'
vp summary -f json -o base.json "$K0"
vp check -f csv --baseline base.json --tolerance 5% "$NG"
expect_status 1
expect_stdout_has 'gpu.idle_pct within 5% of the baseline,baseline,FAIL,"gpu.idle_pct: the run has no GPU/NPU activity (no kernel, memory copy or collective in the counted events): nothing to judge"'
expect_stdout_has 'step.median within 5% of the baseline,baseline,pass,"baseline 615 ms, now 75.5 ms (-87.73 %)"'

case_ 'diff --fail-if on a device metric fails when a run has no device work'
vp diff --fail-if 'gpu.idle_pct > +5' "$K0" "$NG"
expect_status 1
expect_stderr <<'END'
vprof: warning: diff: the runs differ in GPUs 1 -> 0, world size 128 -> -, steps 2 -> 1, trace schema 1 -> -
vprof: diff: gate failed: gpu.idle_pct > +5: gpu.idle_pct: the run has no GPU/NPU activity (no kernel, memory copy or collective in the counted events): nothing to judge
END
