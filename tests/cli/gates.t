# vprof diff and vprof check on the bundled traces: deltas, gates that pass
# and fail, the CI formats, malformed expressions (exit 2, with a caret).

case_ 'diff rank 0 -> rank 1, csv'
cd "$DATA/hta"
vp_tables "runs kernels classes metrics" diff -f csv --top 4 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Property,Base,New,Differs
device,-,-,no
GPUs,1,1,no
compute capability,-,-,no
world size,128,128,no
ranks,1,1,no
steps,2,2,no
trace schema,1,1,no

Base Total (ns),New Total (ns),Delta (ns),Relative (%),Base Instances,New Instances,Status,Name
23469000,57240000,33771000,143.9,2,2,,"void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<c10::Half, float, c10::Half, 2ul, 32>(at::GenericPackedTensorAccessor<float, 2ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 2ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, bool, at::PhiloxCudaState, fbgemm_gpu::FixedDivisor, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<at::AccumulateType<c10::Half, true>::type, 2ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, int, bool, at::GenericPackedTensorAccessor<at::AccumulateType<c10::Half, true>::type, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<at::AccumulateType<c10::Half, true>::type, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, float, float, float, long)"
15167000,37873000,22706000,149.7,2,2,,"void split_embedding_codegen_forward_unweighted_kernel<c10::Half, c10::Half, float, false, long, 2ul, 32ul>(at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 2ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, fbgemm_gpu::FixedDivisor, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, long, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<float, 2ul, at::RestrictPtrTraits, long>)"
9309000,29190000,19881000,213.6,2,2,,"void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_warp_per_row_1<c10::Half, float, c10::Half, 2ul, 32>(at::GenericPackedTensorAccessor<float, 2ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 2ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, int, bool, at::PhiloxCudaState, fbgemm_gpu::FixedDivisor, at::GenericPackedTensorAccessor<at::AccumulateType<c10::Half, true>::type, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<at::AccumulateType<c10::Half, true>::type, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, float, float, float, long)"
396199000,379053000,-17146000,-4.3,10,10,,"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"

Class,Base Total (ns),New Total (ns),Delta (ns),Relative (%)
compute,210320000,271973000,61653000,29.3
communication,396199000,379053000,-17146000,-4.3

Metric,Base,New,Delta,Relative (%),Unit
ranks,1.000000,1.000000,0.000000,0.0,count
gpus,1.000000,1.000000,0.000000,0.0,count
steps,2.000000,2.000000,0.000000,0.0,count
step.median,615120000.000000,619271500.000000,4151500.000000,0.7,ns
step.mean,615120000.000000,619271500.000000,4151500.000000,0.7,ns
step.min,607312000.000000,607904000.000000,592000.000000,0.1,ns
step.max,622928000.000000,630639000.000000,7711000.000000,1.2,ns
step.spread_pct,2.538692,3.671249,1.132558,,percent (Delta: points)
gpu.span,1222847000.000000,1231186000.000000,8339000.000000,0.7,ns
gpu.busy_pct,44.785325,47.113109,2.327784,,percent (Delta: points)
gpu.compute_pct,17.199208,22.090326,4.891118,,percent (Delta: points)
gpu.idle_pct,55.214675,52.886891,-2.327784,,percent (Delta: points)
memcpy.pct,0.108354,1.340496,1.232142,,percent (Delta: points)
comm.total,396199000.000000,379053000.000000,-17146000.000000,-4.3,ns
comm.exposed,336983000.000000,303523000.000000,-33460000.000000,-9.9,ns
comm.exposed_pct,61.531874,52.327041,-9.204833,,percent (Delta: points)
comm.exposed_step_pct,27.391647,24.506456,-2.885191,,percent (Delta: points)
comm.overlap_pct,14.946025,19.925973,4.979949,,percent (Delta: points)
kernels.count,1154.000000,1104.000000,-50.000000,-4.3,count
kernels.total,606519000.000000,651026000.000000,44507000.000000,7.3,ns
kernels.short_pct,21.663778,22.192029,0.528251,,percent (Delta: points)
dataloader.pct,0.000000,0.000000,0.000000,,percent (Delta: points)
sync.count,0.000000,0.000000,0.000000,,count
sync.time,0.000000,0.000000,0.000000,,ns
sync.step_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
gemm.fp32_pct,43.110650,31.559816,-11.550834,,percent (Delta: points)
attention.pct,0.004946,0.005069,0.000123,,percent (Delta: points)
attention.flash,0.000000,0.000000,0.000000,,count
launches.bound_pct,13.372093,14.124783,0.752690,,percent (Delta: points)
api.top_pct,13.457014,5.780046,-7.676968,,percent (Delta: points)
END
expect_stderr <<'END'
END

case_ 'diff, table, --min-delta hides small changes'
cd "$DATA/hta"
vp diff --min-delta 5ms trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
== runs ==
Property            Base  New  Differs
------------------  ----  ---  -------
device              -     -    no
GPUs                1     1    no
compute capability  -     -    no
world size          128   128  no
ranks               1     1    no
steps               2     2    no
trace schema        1     1    no

== kernels ==
Base Total  New Total     Delta  Relative  Base Instances  New Instances  Status  Name
----------  ---------  --------  --------  --------------  -------------  ------  --------------------
   23.5 ms    57.2 ms   33.8 ms    143.9%               2              2          spl…d_unwei…el_cta_…
   15.2 ms    37.9 ms   22.7 ms    149.7%               2              2          spl…g_codeg…en_forw…
   9.31 ms    29.2 ms   19.9 ms    213.6%               2              2          spl…d_unwei…el_warp…
    396 ms     379 ms  -17.1 ms     -4.3%              10             10          ncclKernel_SendRecv…
   9.20 ms       0 ns  -9.20 ms   -100.0%               2              0  gone    spl…g_backw…ad_weig…
   7.95 ms       0 ns  -7.95 ms   -100.0%               2              0  gone    spl…g_codeg…en_grad…
   3.97 ms    11.8 ms   7.81 ms    196.8%               8              8          DeviceRadixSortOnes…
note: 187 kernels with smaller changes not shown (--min-delta, --top)

== classes ==
Class          Base Total  New Total     Delta  Relative
-------------  ----------  ---------  --------  --------
compute            210 ms     272 ms   61.7 ms     29.3%
communication      396 ms     379 ms  -17.1 ms     -4.3%
note: kernels only (memcpy, memset and sync are in the metrics)

== metrics ==
Metric                 Base    New     Delta      Relative
---------------------  ------  ------  ---------  --------
ranks                  1       1       0              0.0%
gpus                   1       1       0              0.0%
steps                  2       2       0              0.0%
step.median            615 ms  619 ms  +4.15 ms       0.7%
step.mean              615 ms  619 ms  +4.15 ms       0.7%
step.min               607 ms  608 ms  +592 us        0.1%
step.max               623 ms  631 ms  +7.71 ms       1.2%
step.spread_pct        2.54%   3.67%   +1.13 pp          -
gpu.span               1.22 s  1.23 s  +8.34 ms       0.7%
gpu.busy_pct           44.79%  47.11%  +2.33 pp          -
gpu.compute_pct        17.20%  22.09%  +4.89 pp          -
gpu.idle_pct           55.21%  52.89%  -2.33 pp          -
memcpy.pct             0.11%   1.34%   +1.23 pp          -
comm.total             396 ms  379 ms  -17.1 ms      -4.3%
comm.exposed           337 ms  304 ms  -33.5 ms      -9.9%
comm.exposed_pct       61.53%  52.33%  -9.20 pp          -
comm.exposed_step_pct  27.39%  24.51%  -2.89 pp          -
comm.overlap_pct       14.95%  19.93%  +4.98 pp          -
kernels.count          1154    1104    -50           -4.3%
kernels.total          607 ms  651 ms  +44.5 ms       7.3%
kernels.short_pct      21.66%  22.19%  +0.53 pp          -
dataloader.pct         0.00%   0.00%   0.00 pp           -
sync.count             0       0       0                 -
sync.time              0 ns    0 ns    0 ns              -
sync.step_pct          0.00%   0.00%   0.00 pp           -
gemm.fp32_pct          43.11%  31.56%  -11.55 pp         -
attention.pct          0.00%   0.01%   0.00 pp           -
attention.flash        0       0       0                 -
launches.bound_pct     13.37%  14.12%  +0.75 pp          -
api.top_pct            13.46%  5.78%   -7.68 pp          -
note: Delta: new - base, in percentage points (pp) for a percentage; Relative: of the base value, none for a percentage
END
expect_stderr <<'END'
END

case_ 'a gate that passes and one that fails: exit 1'
cd "$DATA/hta"
vp diff -f github --fail-if 'step.median > +5%' --fail-if 'kernels.total > +5%' trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 1
expect_stdout <<'END'
::notice title=vprof diff fail-if passed::step.median > +5%25: step.median 615 ms -> 619 ms (+0.67 %25; > +5 %25 is false)
::error title=vprof diff fail-if failed::kernels.total > +5%25: kernels.total 607 ms -> 651 ms (+7.34 %25; > +5 %25 is true)
END
expect_stderr <<'END'
vprof: diff: gate failed: kernels.total > +5%: kernels.total 607 ms -> 651 ms (+7.34 %; > +5 % is true)
END

case_ junit
cd "$DATA/hta"
vp diff -f junit --fail-if 'kernel:^ncclKernel_SendRecv > +2ms' trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" failures="0">
  <testsuite name="vprof diff" tests="1" failures="0" errors="0" skipped="0">
    <testcase classname="vprof diff.fail-if" name="kernel:^ncclKernel_SendRecv &gt; +2ms">
      <system-out>kernel:^ncclKernel_SendRecv 396 ms -&gt; 379 ms (change -17.1 ms; &gt; +2.00 ms is false)</system-out>
    </testcase>
  </testsuite>
</testsuites>
END
expect_stderr <<'END'
END

case_ 'malformed: no operator'
cd "$DATA/hta"
vp diff --fail-if 'step.median +5%' trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: diff: --fail-if: expected an operator: > >= < <= == !=
  step.median +5%
              ^
END

case_ 'malformed: unknown unit'
cd "$DATA/hta"
vp diff --fail-if 'step.median > 5parsecs' trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: diff: --fail-if: unknown unit (ns us ms s, B KiB MiB GiB TiB KB MB GB TB, %)
  step.median > 5parsecs
                 ^
END

case_ 'malformed: a unit that does not fit'
cd "$DATA/hta"
vp diff --fail-if 'gpu.idle_pct > 5ms' trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: diff: --fail-if: this unit does not fit the metric's
  gpu.idle_pct > 5ms
                  ^
END

case_ 'diff needs two runs'
cd "$DATA/hta"
vp diff trace_filter_rank-0.json.gz
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: diff: expected BASE and NEW (a trace or a directory of rank traces each), found 1 argument
Try 'vprof help diff'.
END

case_ 'directories of rank traces'
mkdir -p "$WORK/base" "$WORK/new"
cp "$DATA"/hta/trace_filter_rank-*.json.gz "$WORK/base/"
cp "$DATA"/hta/trace_filter_rank-1.json.gz "$WORK/new/a.json.gz"
cp "$DATA"/hta/trace_filter_rank-0.json.gz "$WORK/new/b.json.gz"

case_ '--by rank pairs the ranks (distributedInfo): both runs hold ranks 0 and 1'
cd "$WORK"
vp_tables "runs kernels classes metrics" diff --by rank --top 1 -f csv base new
expect_status 0
expect_stdout <<'END'
Property,Base,New,Differs
device,-,-,no
GPUs,2,2,no
compute capability,-,-,no
world size,128,128,no
ranks,2,2,no
steps,2,2,no
trace schema,1,1,no

Rank,Base Total (ns),New Total (ns),Delta (ns),Relative (%),Base Instances,New Instances,Status,Name
0,2666000,2666000,0,0.0,2,2,,ampere_sgemm_128x128_tn
1,2708000,2708000,0,0.0,2,2,,ampere_sgemm_128x128_tn

Rank,Class,Base Total (ns),New Total (ns),Delta (ns),Relative (%)
0,compute,210320000,210320000,0,0.0
0,communication,396199000,396199000,0,0.0
1,compute,271973000,271973000,0,0.0
1,communication,379053000,379053000,0,0.0

Rank,Metric,Base,New,Delta,Relative (%),Unit
0,ranks,1.000000,1.000000,0.000000,0.0,count
0,gpus,1.000000,1.000000,0.000000,0.0,count
0,steps,2.000000,2.000000,0.000000,0.0,count
0,step.median,615120000.000000,615120000.000000,0.000000,0.0,ns
0,step.mean,615120000.000000,615120000.000000,0.000000,0.0,ns
0,step.min,607312000.000000,607312000.000000,0.000000,0.0,ns
0,step.max,622928000.000000,622928000.000000,0.000000,0.0,ns
0,step.spread_pct,2.538692,2.538692,0.000000,,percent (Delta: points)
0,gpu.span,1222847000.000000,1222847000.000000,0.000000,0.0,ns
0,gpu.busy_pct,44.785325,44.785325,0.000000,,percent (Delta: points)
0,gpu.compute_pct,17.199208,17.199208,0.000000,,percent (Delta: points)
0,gpu.idle_pct,55.214675,55.214675,0.000000,,percent (Delta: points)
0,memcpy.pct,0.108354,0.108354,0.000000,,percent (Delta: points)
0,comm.total,396199000.000000,396199000.000000,0.000000,0.0,ns
0,comm.exposed,336983000.000000,336983000.000000,0.000000,0.0,ns
0,comm.exposed_pct,61.531874,61.531874,0.000000,,percent (Delta: points)
0,comm.exposed_step_pct,27.391647,27.391647,0.000000,,percent (Delta: points)
0,comm.overlap_pct,14.946025,14.946025,0.000000,,percent (Delta: points)
0,kernels.count,1154.000000,1154.000000,0.000000,0.0,count
0,kernels.total,606519000.000000,606519000.000000,0.000000,0.0,ns
0,kernels.short_pct,21.663778,21.663778,0.000000,,percent (Delta: points)
0,dataloader.pct,0.000000,0.000000,0.000000,,percent (Delta: points)
0,sync.count,0.000000,0.000000,0.000000,,count
0,sync.time,0.000000,0.000000,0.000000,,ns
0,sync.step_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
0,gemm.fp32_pct,43.110650,43.110650,0.000000,,percent (Delta: points)
0,attention.pct,0.004946,0.004946,0.000000,,percent (Delta: points)
0,attention.flash,0.000000,0.000000,0.000000,,count
0,launches.bound_pct,13.372093,13.372093,0.000000,,percent (Delta: points)
0,api.top_pct,13.457014,13.457014,0.000000,,percent (Delta: points)
1,ranks,1.000000,1.000000,0.000000,0.0,count
1,gpus,1.000000,1.000000,0.000000,0.0,count
1,steps,2.000000,2.000000,0.000000,0.0,count
1,step.median,619271500.000000,619271500.000000,0.000000,0.0,ns
1,step.mean,619271500.000000,619271500.000000,0.000000,0.0,ns
1,step.min,607904000.000000,607904000.000000,0.000000,0.0,ns
1,step.max,630639000.000000,630639000.000000,0.000000,0.0,ns
1,step.spread_pct,3.671249,3.671249,0.000000,,percent (Delta: points)
1,gpu.span,1231186000.000000,1231186000.000000,0.000000,0.0,ns
1,gpu.busy_pct,47.113109,47.113109,0.000000,,percent (Delta: points)
1,gpu.compute_pct,22.090326,22.090326,0.000000,,percent (Delta: points)
1,gpu.idle_pct,52.886891,52.886891,0.000000,,percent (Delta: points)
1,memcpy.pct,1.340496,1.340496,0.000000,,percent (Delta: points)
1,comm.total,379053000.000000,379053000.000000,0.000000,0.0,ns
1,comm.exposed,303523000.000000,303523000.000000,0.000000,0.0,ns
1,comm.exposed_pct,52.327041,52.327041,0.000000,,percent (Delta: points)
1,comm.exposed_step_pct,24.506456,24.506456,0.000000,,percent (Delta: points)
1,comm.overlap_pct,19.925973,19.925973,0.000000,,percent (Delta: points)
1,kernels.count,1104.000000,1104.000000,0.000000,0.0,count
1,kernels.total,651026000.000000,651026000.000000,0.000000,0.0,ns
1,kernels.short_pct,22.192029,22.192029,0.000000,,percent (Delta: points)
1,dataloader.pct,0.000000,0.000000,0.000000,,percent (Delta: points)
1,sync.count,0.000000,0.000000,0.000000,,count
1,sync.time,0.000000,0.000000,0.000000,,ns
1,sync.step_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
1,gemm.fp32_pct,31.559816,31.559816,0.000000,,percent (Delta: points)
1,attention.pct,0.005069,0.005069,0.000000,,percent (Delta: points)
1,attention.flash,0.000000,0.000000,0.000000,,count
1,launches.bound_pct,14.124783,14.124783,0.000000,,percent (Delta: points)
1,api.top_pct,5.780046,5.780046,0.000000,,percent (Delta: points)
END
expect_stderr <<'END'
END

case_ '--by rank: a bad value'
cd "$WORK"
vp diff --by stream base new
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: diff: --by: only 'rank' (pairs the runs' rank traces), found 'stream'
Try 'vprof help diff'.
END

case_ 'check: expectations'
cd "$DATA/hta"
vp check --expect 'comm.exposed_pct <= 30' --expect 'step.median < 700ms' --fail-if 'kernel:^ncclKernel > 1s' --expect 'mfu >= 40%' trace_filter_rank-0.json.gz
expect_status 1
expect_stdout <<'END'
Gate                     Kind     Result  Detail
-----------------------  -------  ------  -----------------------------------------------
comm.exposed_pct <= 30   expect   FAIL    comm.exposed_pct = 61.53% (<= 30.00% is false)
step.median < 700ms      expect   pass    step.median = 615 ms (< 700 ms is true)
kernel:^ncclKernel > 1s  fail-if  pass    kernel:^ncclKernel = 396 ms (> 1.00 s is false)
mfu >= 40%               expect   FAIL    mfu is not available in the run (…)
END
expect_stderr <<'END'
vprof: check: gate failed: comm.exposed_pct <= 30: comm.exposed_pct = 61.53% (<= 30.00% is false)
vprof: check: gate failed: mfu >= 40%: mfu is not available in the run (see vprof check --list-metrics for what it needs)
END

case_ 'check: all hold: exit 0'
cd "$DATA/hta"
vp check -f csv --expect 'gemm.fp32_pct > 10' --expect 'sync.count == 0' trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Gate,Kind,Result,Detail
gemm.fp32_pct > 10,expect,pass,gemm.fp32_pct = 43.11% (> 10.00% is true)
sync.count == 0,expect,pass,sync.count = 0 (== 0 is true)
END
expect_stderr <<'END'
END

case_ 'check: a change needs a base'
cd "$DATA/hta"
vp check --expect 'step.median < +5%' trace_filter_rank-0.json.gz
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: check: 'step.median < +5%' compares a change, which needs a base run (vprof diff, or vprof check --baseline)
Try 'vprof help check'.
END

case_ 'check: unknown metric'
cd "$DATA/hta"
vp check --expect 'comm.exposd_pct <= 30' trace_filter_rank-0.json.gz
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: check: --expect: unknown metric (vprof check --list-metrics lists them)
  comm.exposd_pct <= 30
  ^
END

case_ 'check: a time compared with a bare number is refused (was: 700 ns)'
cd "$DATA/hta"
vp check --expect 'step.median < 700' trace_filter_rank-0.json.gz
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: check: --expect: '700' is a time without a unit: write 700ms, 700us, 700ns or 700s
  step.median < 700
                ^
END
vp check --fail-if 'memory.peak_allocated > +80' trace_filter_rank-0.json.gz
expect_status 2
expect_stderr <<'END'
vprof: check: --fail-if: '+80' is a size without a unit: write +80GiB, +80MiB, +80KiB or +80B
  memory.peak_allocated > +80
                          ^
END

case_ 'diff: a percent metric changes in points (pp); a signed % is relative'
cd "$DATA/hta"
vp_tables "kernels classes metrics gates" diff -f csv --fail-if 'gpu.idle_pct > +2pp' --fail-if 'gpu.idle_pct > +3' --fail-if 'gpu.idle_pct > +4%' trace_filter_rank-1.json.gz trace_filter_rank-0.json.gz
expect_status 1
expect_stdout_has "gpu.idle_pct > +2pp,fail-if,FAIL,gpu.idle_pct 52.89% -> 55.21% (change +2.33 pp; > +2.00 pp is true)"
expect_stdout_has "gpu.idle_pct > +3,fail-if,pass,gpu.idle_pct 52.89% -> 55.21% (change +2.33 pp; > +3.00 pp is false)"
expect_stdout_has "gpu.idle_pct > +4%,fail-if,FAIL,gpu.idle_pct 52.89% -> 55.21% (+4.40 %; > +4 % is true)"

case_ 'check: nothing to check'
cd "$DATA/hta"
vp check trace_filter_rank-0.json.gz
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: check: nothing to check: give --expect, --fail-if or --baseline
Try 'vprof help check'.
END

case_ 'check: not a baseline'
cd "$DATA/hta"
vp check --baseline event_sync_trace.json.gz trace_filter_rank-0.json.gz
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: event_sync_trace.json.gz: not a baseline: expected the output of vprof summary -f json (schema vprof.summary/1 with a metrics table)
END

case_ "check: baseline from summary -f json, within tolerance"
cd "$DATA/hta"
"$VPROF" summary -f json trace_filter_rank-0.json.gz > "$WORK/base.json"
vp check --baseline "$WORK/base.json" --tolerance 5% -f github trace_filter_rank-0.json.gz
expect_status 0
if [ "$(grep -c '^::notice' "$OUT_STDOUT")" = 24 ] && ! grep -q '^::error' "$OUT_STDOUT"; then pass; else fail "expected 24 notices and no error"; fi

case_ "check: baseline, the other rank is worse on some metrics"
cd "$DATA/hta"
vp check --baseline "$WORK/base.json" --tolerance 5% trace_filter_rank-1.json.gz
expect_status 1
if grep -Eq '^kernels.total within 5% of the baseline +baseline +FAIL ' "$OUT_STDOUT"; then pass; else fail "kernels.total should fail"; fi
expect_stderr_has "vprof: check: gate failed: kernels.total within 5% of the baseline: baseline 607 ms, now 651 ms (+7.34 %)"

case_ "list metrics"
vp check --list-metrics
expect_status 0
expect_stdout_has "comm.exposed_pct       percent  lower  exposed communication / GPU busy time"
expect_stdout_has "kernel:REGEX           ns       lower  total time of the kernels whose name matches REGEX (POSIX extended)"
