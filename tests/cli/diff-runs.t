# vprof diff on two small runs made for the purpose: what the runs were
# (device, compute capability, world size, steps, schema), kernels whose
# names differ only in literals paired into one row (and --exact-names),
# percent metrics changing in points; summary's GEMM advice by device.

cd "$WORK" || exit 1
# Base: one step on a V100 (compute capability 7.0), world size 2.  New:
# two steps on an A100 (8.0), world size 4, no schemaVersion.  Kernels
# (us, base -> new): gemm_kernel<128, 64> 100 -> gemm_kernel<256, 64> 80;
# reduce<2ul> 10 -> reduce<5ul> 12 (pairs); volta_sgemm_128x64_nn 50 ->
# ampere_sgemm_128x64_nn 40 (digits inside a name: another kernel);
# fill<1>, fill<2> 5 each -> fill<3>, fill<4> 5 each (ambiguous: unpaired);
# copy_kernel 20 -> 20 (exact).
python3 - <<'PY'
import json
def trace(path, device, major, world, steps, kernels, schema):
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (i + 1), "pid": 1,
           "tid": 1, "ts": 1000 * i, "dur": 1000} for i in range(steps)]
    ts = 10
    for i, (name, dur) in enumerate(kernels):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": ts, "dur": 2, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts + 5,
                   "dur": dur, "args": {"stream": 7, "correlation": i + 1, "device": 0}})
        ts += dur + 10
    doc = {"deviceProperties": [{"id": 0, "name": device, "computeMajor": major, "computeMinor": 0}],
           "distributedInfo": {"rank": 0, "world_size": world}, "traceEvents": ev}
    if schema:
        doc = dict({"schemaVersion": schema}, **doc)
    json.dump(doc, open(path, "w"))
trace("base.json", "Tesla V100-SXM2-32GB", 7, 2, 1,
      [("void gemm_kernel<128, 64>(float*, int)", 100), ("void reduce<2ul>(float*)", 10),
       ("volta_sgemm_128x64_nn", 50), ("fill<1>(int)", 5), ("fill<2>(int)", 5),
       ("copy_kernel", 20)], 1)
trace("new.json", "NVIDIA A100-SXM4-80GB", 8, 4, 2,
      [("void gemm_kernel<256, 64>(float*, int)", 80), ("void reduce<5ul>(float*)", 12),
       ("ampere_sgemm_128x64_nn", 40), ("fill<3>(int)", 5), ("fill<4>(int)", 5),
       ("copy_kernel", 20)], 0)
PY

case_ 'diff: the runs table, paired names, points; a warning names what differs'
vp diff --full-names base.json new.json
expect_status 0
expect_stdout <<'END'
== runs ==
Property            Base                  New                    Differs
------------------  --------------------  ---------------------  -------
device              Tesla V100-SXM2-32GB  NVIDIA A100-SXM4-80GB  yes
GPUs                1                     1                      no
compute capability  7.0                   8.0                    yes
world size          2                     4                      yes
ranks               1                     1                      no
steps               1                     2                      yes
trace schema        1                     -                      yes
note: the runs differ in: device Tesla V100-SXM2-32GB -> NVIDIA A100-SXM4-80GB, compute capability 7.0 -> 8.0, world size 2 -> 4, steps 1 -> 2, trace schema 1 -> -

== kernels ==
Base Total  New Total     Delta  Relative  Base Instances  New Instances  Status  Name
----------  ---------  --------  --------  --------------  -------------  ------  -------------------------------------------
   50.0 us       0 ns  -50.0 us   -100.0%               1              0  gone    volta_sgemm_128x64_nn
      0 ns    40.0 us   40.0 us         -               0              1  new     ampere_sgemm_128x64_nn
    100 us    80.0 us  -20.0 us    -20.0%               1              1  paired  void gemm_kernel<128->256, 64>(float*, int)
   5.00 us       0 ns  -5.00 us   -100.0%               1              0  gone    fill<1>(int)
   5.00 us       0 ns  -5.00 us   -100.0%               1              0  gone    fill<2>(int)
      0 ns    5.00 us   5.00 us         -               0              1  new     fill<3>(int)
      0 ns    5.00 us   5.00 us         -               0              1  new     fill<4>(int)
   10.0 us    12.0 us   2.00 us     20.0%               1              1  paired  void reduce<2ul->5ul>(float*)
   20.0 us    20.0 us      0 ns      0.0%               1              1          copy_kernel
note: 4 kernels not paired: their names differ only in literals but several of one run share that form (docs/ci.md)

== classes ==
Class    Base Total  New Total     Delta  Relative
-------  ----------  ---------  --------  --------
compute      190 us     162 us  -28.0 us    -14.7%
note: kernels only (memcpy, memset and sync are in the metrics)

== metrics ==
Metric              Base     New      Delta     Relative
------------------  -------  -------  --------  --------
ranks               1        1        0             0.0%
gpus                1        1        0             0.0%
steps               1        2        +1          100.0%
step.median         1.00 ms  1.00 ms  0 ns          0.0%
step.mean           1.00 ms  1.00 ms  0 ns          0.0%
step.min            1.00 ms  1.00 ms  0 ns          0.0%
step.max            1.00 ms  1.00 ms  0 ns          0.0%
step.spread_pct     0.00%    0.00%    0.00 pp          -
gpu.span            240 us   212 us   -28.0 us    -11.7%
gpu.busy_pct        79.17%   76.42%   -2.75 pp         -
gpu.compute_pct     79.17%   76.42%   -2.75 pp         -
gpu.idle_pct        20.83%   23.58%   +2.75 pp         -
memcpy.pct          0.00%    0.00%    0.00 pp          -
kernels.count       6        6        0             0.0%
kernels.total       190 us   162 us   -28.0 us    -14.7%
kernels.short_pct   0.00%    0.00%    0.00 pp          -
dataloader.pct      0.00%    0.00%    0.00 pp          -
sync.count          0        0        0                -
sync.time           0 ns     0 ns     0 ns             -
sync.step_pct       0.00%    0.00%    0.00 pp          -
gemm.fp32_pct       33.33%   33.33%   0.00 pp          -
attention.pct       0.00%    0.00%    0.00 pp          -
attention.flash     0        0        0                -
launches.bound_pct  0.00%    0.00%    0.00 pp          -
note: Delta: new - base, in percentage points (pp) for a percentage; Relative: of the base value, none for a percentage
END
expect_stderr <<'END'
vprof: warning: diff: the runs differ in device Tesla V100-SXM2-32GB -> NVIDIA A100-SXM4-80GB, compute capability 7.0 -> 8.0, world size 2 -> 4, steps 1 -> 2, trace schema 1 -> -
END

case_ 'diff --exact-names: no pairing, csv'
vp_tables "runs kernels classes metrics" diff -f csv --exact-names base.json new.json
expect_status 0
expect_stdout <<'END'
Property,Base,New,Differs
device,Tesla V100-SXM2-32GB,NVIDIA A100-SXM4-80GB,yes
GPUs,1,1,no
compute capability,7.0,8.0,yes
world size,2,4,yes
ranks,1,1,no
steps,1,2,yes
trace schema,1,-,yes

Base Total (ns),New Total (ns),Delta (ns),Relative (%),Base Instances,New Instances,Status,Name
100000,0,-100000,-100.0,1,0,gone,"void gemm_kernel<128, 64>(float*, int)"
0,80000,80000,,0,1,new,"void gemm_kernel<256, 64>(float*, int)"
50000,0,-50000,-100.0,1,0,gone,volta_sgemm_128x64_nn
0,40000,40000,,0,1,new,ampere_sgemm_128x64_nn
0,12000,12000,,0,1,new,void reduce<5ul>(float*)
10000,0,-10000,-100.0,1,0,gone,void reduce<2ul>(float*)
5000,0,-5000,-100.0,1,0,gone,fill<1>(int)
5000,0,-5000,-100.0,1,0,gone,fill<2>(int)
0,5000,5000,,0,1,new,fill<3>(int)
0,5000,5000,,0,1,new,fill<4>(int)
20000,20000,0,0.0,1,1,,copy_kernel

Class,Base Total (ns),New Total (ns),Delta (ns),Relative (%)
compute,190000,162000,-28000,-14.7

Metric,Base,New,Delta,Relative (%),Unit
ranks,1.000000,1.000000,0.000000,0.0,count
gpus,1.000000,1.000000,0.000000,0.0,count
steps,1.000000,2.000000,1.000000,100.0,count
step.median,1000000.000000,1000000.000000,0.000000,0.0,ns
step.mean,1000000.000000,1000000.000000,0.000000,0.0,ns
step.min,1000000.000000,1000000.000000,0.000000,0.0,ns
step.max,1000000.000000,1000000.000000,0.000000,0.0,ns
step.spread_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
gpu.span,240000.000000,212000.000000,-28000.000000,-11.7,ns
gpu.busy_pct,79.166667,76.415094,-2.751572,,percent (Delta: points)
gpu.compute_pct,79.166667,76.415094,-2.751572,,percent (Delta: points)
gpu.idle_pct,20.833333,23.584906,2.751572,,percent (Delta: points)
memcpy.pct,0.000000,0.000000,0.000000,,percent (Delta: points)
kernels.count,6.000000,6.000000,0.000000,0.0,count
kernels.total,190000.000000,162000.000000,-28000.000000,-14.7,ns
kernels.short_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
dataloader.pct,0.000000,0.000000,0.000000,,percent (Delta: points)
sync.count,0.000000,0.000000,0.000000,,count
sync.time,0.000000,0.000000,0.000000,,ns
sync.step_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
gemm.fp32_pct,33.333333,33.333333,0.000000,,percent (Delta: points)
attention.pct,0.000000,0.000000,0.000000,,percent (Delta: points)
attention.flash,0.000000,0.000000,0.000000,,count
launches.bound_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
END

case_ 'diff: the same run twice differs in nothing and warns of nothing'
vp_tables "runs kernels classes metrics" diff -f csv base.json base.json
expect_status 0
expect_stderr <<'END'
END

# gemm.fp32_pct: volta_sgemm 50 us of 150 us of GEMMs (gemm_kernel 100 us); ampere_sgemm 40 of 120
case_ 'summary: FP32 GEMMs on a V100 suggest FP16 with AMP, not BF16'
vp summary -f csv --table findings base.json
expect_status 0
expect_stdout_has 'fp32_gemm,FP32 GEMMs where FP16 (AMP) is expected,33.3% of GEMM time is in FP32 kernels (sgemm) on Tesla V100-SXM2-32GB (compute capability 7.0: no BF16 tensor cores),use AMP with FP16 (autocast float16 and a gradient scaler): FP16 tensor-core GEMMs are several times faster than FP32 ones; this device has no BF16 tensor cores'

case_ 'summary: FP32 GEMMs on an A100 suggest BF16'
vp summary -f csv --table findings new.json
expect_status 0
expect_stdout_has 'fp32_gemm,FP32 GEMMs where BF16 is expected,"33.3% of GEMM time is in FP32 kernels (sgemm, TF32 s1688/s16816gemm) on NVIDIA A100-SXM4-80GB (compute capability 8.0, BF16 tensor cores)",check dtypes and autocast: bf16 GEMMs are several times faster than FP32 or TF32 ones'

case_ 'diff -j 2 on directories of two ranks each: the facts cross the partials'
mkdir -p b n && cp base.json b/r0.json && cp base.json b/r1.json && cp new.json n/r0.json && cp new.json n/r1.json
vp_tables "runs kernels classes metrics" diff -j 2 -q -f csv --top 1 b n
expect_status 0
expect_stdout <<'END'
Property,Base,New,Differs
device,Tesla V100-SXM2-32GB,NVIDIA A100-SXM4-80GB,yes
GPUs,1,1,no
compute capability,7.0,8.0,yes
world size,2,4,yes
ranks,2,2,no
steps,1,2,yes
trace schema,1,-,yes

Base Total (ns),New Total (ns),Delta (ns),Relative (%),Base Instances,New Instances,Status,Name
100000,0,-100000,-100.0,2,0,gone,volta_sgemm_128x64_nn

Class,Base Total (ns),New Total (ns),Delta (ns),Relative (%)
compute,380000,324000,-56000,-14.7

Metric,Base,New,Delta,Relative (%),Unit
ranks,2.000000,2.000000,0.000000,0.0,count
gpus,1.000000,1.000000,0.000000,0.0,count
steps,1.000000,2.000000,1.000000,100.0,count
step.median,1000000.000000,1000000.000000,0.000000,0.0,ns
step.mean,1000000.000000,1000000.000000,0.000000,0.0,ns
step.min,1000000.000000,1000000.000000,0.000000,0.0,ns
step.max,1000000.000000,1000000.000000,0.000000,0.0,ns
step.spread_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
gpu.span,480000.000000,424000.000000,-56000.000000,-11.7,ns
gpu.busy_pct,79.166667,76.415094,-2.751572,,percent (Delta: points)
gpu.compute_pct,79.166667,76.415094,-2.751572,,percent (Delta: points)
gpu.idle_pct,20.833333,23.584906,2.751572,,percent (Delta: points)
memcpy.pct,0.000000,0.000000,0.000000,,percent (Delta: points)
kernels.count,12.000000,12.000000,0.000000,0.0,count
kernels.total,380000.000000,324000.000000,-56000.000000,-14.7,ns
kernels.short_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
dataloader.pct,0.000000,0.000000,0.000000,,percent (Delta: points)
sync.count,0.000000,0.000000,0.000000,,count
sync.time,0.000000,0.000000,0.000000,,ns
sync.step_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
gemm.fp32_pct,33.333333,33.333333,0.000000,,percent (Delta: points)
attention.pct,0.000000,0.000000,0.000000,,percent (Delta: points)
attention.flash,0.000000,0.000000,0.000000,,count
rank.spread_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
launches.bound_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
END

case_ 'summary partials keep the compute capability: reduce gives the same advice'
vp summary --save-part 'p%i.vpart' b/r0.json b/r1.json
expect_status 0
vp reduce -f csv --table findings p0.vpart p1.vpart
expect_status 0
expect_stdout_has 'fp32_gemm,FP32 GEMMs where FP16 (AMP) is expected,33.3% of GEMM time is in FP32 kernels (sgemm) on Tesla V100-SXM2-32GB (compute capability 7.0: no BF16 tensor cores),'
