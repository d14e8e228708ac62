# vprof summary: the run in numbers and the findings, on the bundled traces.
# trace_filter has exposed communication and FP32 GEMMs (ampere_sgemm_*,
# cutlass s1688gemm): both findings must show there and not on event_sync.

case_ 'two ranks: table with findings'
cd "$DATA/hta"
vp summary trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
== run ==
Accelerator  GPUs  Ranks  Steps  Step Median  Step Min  Step Max
-----------  ----  -----  -----  -----------  --------  --------
-               2      2      2       619 ms    608 ms    631 ms

== gpu_time ==
GPU Span   Busy  Compute  Comm Exposed  Memory Copies   Idle  Comm Overlap
--------  -----  -------  ------------  -------------  -----  ------------
  2.45 s  46.0%    19.7%         56.8%           0.7%  54.0%         17.4%
note: shares of the GPU span (all ranks); Comm Exposed: of the GPU's busy time; Comm Overlap: of the communication time (HTA's overlap %)

== top_kernels ==
 Time  Total Time  Instances  Class          Name
-----  ----------  ---------  -------------  -------------------------------------------------------
61.6%      775 ms         20  communication  ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(…)
 6.4%     80.7 ms          4  compute        split_emb…g_backward_codegen_row…el_cta_per_row_1<c10:…
 4.2%     53.0 ms          4  compute        split_embedding_codegen_forward_unweighted_kernel<…>
 3.1%     38.5 ms          4  compute        split_emb…g_backward_codegen_row…el_warp_per_row_1<c10…
 1.4%     17.7 ms          8  compute        permute_pooled_embs_kernel<float>(…)

== findings ==
1. communication is exposed: compute does not hide it [exposed_comm]
   evidence: 641 ms of communication not overlapped by compute (all ranks): 56.8% of the GPU's busy
             time, 25.9% of the steps' wall time
   try: overlap communication with compute: FSDP prefetch and reshard settings, DDP bucket sizes,
        async tensor/sequence parallel, fewer or larger collectives
2. the GPU is idle for much of the run [idle]
   evidence: GPU idle 54.0% of its span; 0 blocking syncs in the steps; 21.9% of the kernels ran
             shorter than their launch call
   try: the CPU does not keep the GPU fed: cut launch overhead (CUDA graphs, torch.compile), syncs
        and data-loading stalls
3. FP32 GEMMs where BF16 or FP16 is expected [fp32_gemm]
   evidence: 36.4% of GEMM time is in FP32 kernels (sgemm, TF32 s1688/s16816gemm); the device is
             unknown (no compute capability in deviceProperties)
   try: check dtypes and autocast: BF16 GEMMs on devices with BF16 tensor cores (compute capability
        8.0 and later: A100, H100), FP16 with AMP (autocast float16 and a gradient scaler) on older
        ones (V100, T4)
4. the ranks do uneven amounts of work [rank_spread]
   evidence: compute time differs by 25.6% of its median between the ranks
   try: balance the load: MoE routing and capacity, data sharding, sequence lengths per rank
5. the device's peaks are unknown: how close the operators run to their roof is not known [no_peaks]
   evidence: no device name in deviceProperties; 13.3% of the operators' GPU time is in operators
             with a model
   try: vprof roofline --gpu NAME, or --peak-tflops and --peak-tbs, puts them against the device's
        roofs
END
expect_stderr <<'END'
END

case_ 'csv: the findings as a table'
cd "$DATA/hta"
vp_tables "run gpu_time top_kernels findings" summary -f csv --top 2 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Accelerator,GPUs,Ranks,Steps,Step Median (ns),Step Min (ns),Step Max (ns)
-,2,2,2,619271500.0,607904000.0,630639000.0

GPU Span (ns),Busy (%),Compute (%),Comm Exposed (%),Memory Copies (%),Idle (%),Comm Overlap (%)
2454033000,45.95,19.65,56.80,0.73,54.05,17.38

Time (%),Total Time (ns),Instances,Class,Name
61.6,775252000,20,communication,"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
6.4,80709000,4,compute,"void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<c10::Half, float, c10::Half, 2ul, 32>(at::GenericPackedTensorAccessor<float, 2ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 2ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, bool, at::PhiloxCudaState, fbgemm_gpu::FixedDivisor, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<at::AccumulateType<c10::Half, true>::type, 2ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, int, bool, at::GenericPackedTensorAccessor<at::AccumulateType<c10::Half, true>::type, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<at::AccumulateType<c10::Half, true>::type, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, float, float, float, long)"

Rule,Finding,Evidence,Suggestion
exposed_comm,communication is exposed: compute does not hide it,"641 ms of communication not overlapped by compute (all ranks): 56.8% of the GPU's busy time, 25.9% of the steps' wall time","overlap communication with compute: FSDP prefetch and reshard settings, DDP bucket sizes, async tensor/sequence parallel, fewer or larger collectives"
idle,the GPU is idle for much of the run,GPU idle 54.0% of its span; 0 blocking syncs in the steps; 21.9% of the kernels ran shorter than their launch call,"the CPU does not keep the GPU fed: cut launch overhead (CUDA graphs, torch.compile), syncs and data-loading stalls"
fp32_gemm,FP32 GEMMs where BF16 or FP16 is expected,"36.4% of GEMM time is in FP32 kernels (sgemm, TF32 s1688/s16816gemm); the device is unknown (no compute capability in deviceProperties)","check dtypes and autocast: BF16 GEMMs on devices with BF16 tensor cores (compute capability 8.0 and later: A100, H100), FP16 with AMP (autocast float16 and a gradient scaler) on older ones (V100, T4)"
rank_spread,the ranks do uneven amounts of work,compute time differs by 25.6% of its median between the ranks,"balance the load: MoE routing and capacity, data sharding, sequence lengths per rank"
no_peaks,the device's peaks are unknown: how close the operators run to their roof is not known,no device name in deviceProperties; 13.3% of the operators' GPU time is in operators with a model,"vprof roofline --gpu NAME, or --peak-tflops and --peak-tbs, puts them against the device's roofs"
END
expect_stderr <<'END'
END

case_ 'no finding where none holds (no comm, no GEMM)'
cd "$DATA/hta"
vp summary event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
== run ==
Accelerator            GPUs  Ranks  Steps  Step Median  Step Min  Step Max
---------------------  ----  -----  -----  -----------  --------  --------
NVIDIA A100-PG509-200     1      1      1      3.15 ms   3.15 ms   3.15 ms
note: GPUs: the devices that ran GPU work; the first trace's deviceProperties lists 8

== gpu_time ==
GPU Span   Busy  Compute  Comm Exposed  Memory Copies   Idle  Comm Overlap
--------  -----  -------  ------------  -------------  -----  ------------
  263 us  21.3%    18.6%          0.0%           0.8%  78.7%             -
note: shares of the GPU span (all ranks); Comm Exposed: of the GPU's busy time; Comm Overlap: of the communication time (HTA's overlap %)

== top_kernels ==
 Time  Total Time  Instances  Class    Name
-----  ----------  ---------  -------  -------------------------------------------------------------
73.5%     36.0 us          1  compute  at::cuda::(anonymous namespace)::spin_kernel(long)
22.4%     11.0 us          1  compute  at::native::reduce_kernel<…>
 2.0%     1.00 us          1  compute  vectorized_elementwi…e::FillFunctor<c10::Half>, at::detail::…
 2.0%     1.00 us          1  compute  vectorized_elementwi…e::compare_scalar_kernel<c10::Half>(at:…

== findings ==
1. the GPU is idle for much of the run [idle]
   evidence: GPU idle 78.7% of its span; 3 blocking syncs in the steps; 50.0% of the kernels ran
             shorter than their launch call
   try: the CPU does not keep the GPU fed: cut launch overhead (CUDA graphs, torch.compile), syncs
        and data-loading stalls
2. the host waits for the GPU inside the steps [syncs]
   evidence: 48.0 us blocked in syncs, 1.5% of the steps' wall time: 3 blocking calls
             (cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize, synchronous
             cudaMemcpy) inside the steps
   try: remove .item(), .cpu(), .tolist() and printing of tensors from the training loop; log
        asynchronously
3. launch-bound: the GPU waits for short work to be launched [launch_bound]
   evidence: 3 of 5 launches in the traces (60.0%) ran shorter on the GPU than their call took and
             started within one call's time of it: the GPU had nothing queued (vprof launches:
             Launch-Bound); 3 ran shorter than their call (Short GPU Work)
   try: fewer, larger kernels (fusion, torch.compile) or CUDA graphs, so that launches keep ahead of
        the GPU; and what holds the launching thread (syncs, Python overhead)
4. no Input Dims: how close the operators run to their roof is not known [no_shapes]
   evidence: no operator of the 1 trace file has Input Dims: the FLOPs and bytes of the operators'
             51.0 us of GPU time are unknown
   try: record with record_shapes=True (torch.profiler.profile) to see how close each operator runs
        to its roof (vprof roofline)
END
expect_stderr <<'END'
END

case_ 'a threshold raised switches its finding off'
cd "$DATA/hta"
vp_tables "run gpu_time top_kernels findings" summary -f csv --top 1 --threshold exposed_comm=70 --threshold fp32_gemm=50 trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Accelerator,GPUs,Ranks,Steps,Step Median (ns),Step Min (ns),Step Max (ns)
-,1,1,2,615120000.0,607312000.0,622928000.0

GPU Span (ns),Busy (%),Compute (%),Comm Exposed (%),Memory Copies (%),Idle (%),Comm Overlap (%)
1222847000,44.79,17.20,61.53,0.11,55.21,14.95

Time (%),Total Time (ns),Instances,Class,Name
65.3,396199000,10,communication,"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"

Rule,Finding,Evidence,Suggestion
idle,the GPU is idle for much of the run,GPU idle 55.2% of its span; 0 blocking syncs in the steps; 21.7% of the kernels ran shorter than their launch call,"the CPU does not keep the GPU fed: cut launch overhead (CUDA graphs, torch.compile), syncs and data-loading stalls"
no_peaks,the device's peaks are unknown: how close the operators run to their roof is not known,no device name in deviceProperties; 12.8% of the operators' GPU time is in operators with a model,"vprof roofline --gpu NAME, or --peak-tflops and --peak-tbs, puts them against the device's roofs"
END
expect_stderr <<'END'
END

case_ '--steps: only step 551'
cd "$DATA/hta"
vp_tables "run gpu_time top_kernels findings" summary -f csv --top 1 --steps 551 trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Accelerator,GPUs,Ranks,Steps,Step Median (ns),Step Min (ns),Step Max (ns)
-,1,1,1,607312000.0,607312000.0,607312000.0

GPU Span (ns),Busy (%),Compute (%),Comm Exposed (%),Memory Copies (%),Idle (%),Comm Overlap (%)
600058000,46.44,17.71,61.81,0.11,53.56,11.81

Time (%),Total Time (ns),Instances,Class,Name
64.8,195327000,5,communication,"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"

Rule,Finding,Evidence,Suggestion
exposed_comm,communication is exposed: compute does not hide it,"172 ms of communication not overlapped by compute (all ranks): 61.8% of the GPU's busy time, 28.4% of the steps' wall time","overlap communication with compute: FSDP prefetch and reshard settings, DDP bucket sizes, async tensor/sequence parallel, fewer or larger collectives"
idle,the GPU is idle for much of the run,GPU idle 53.6% of its span; 0 blocking syncs in the steps; 21.3% of the kernels ran shorter than their launch call,"the CPU does not keep the GPU fed: cut launch overhead (CUDA graphs, torch.compile), syncs and data-loading stalls"
fp32_gemm,FP32 GEMMs where BF16 or FP16 is expected,"44.3% of GEMM time is in FP32 kernels (sgemm, TF32 s1688/s16816gemm); the device is unknown (no compute capability in deviceProperties)","check dtypes and autocast: BF16 GEMMs on devices with BF16 tensor cores (compute capability 8.0 and later: A100, H100), FP16 with AMP (autocast float16 and a gradient scaler) on older ones (V100, T4)"
no_peaks,the device's peaks are unknown: how close the operators run to their roof is not known,no device name in deviceProperties; 13.4% of the operators' GPU time is in operators with a model,"vprof roofline --gpu NAME, or --peak-tflops and --peak-tbs, puts them against the device's roofs"
END
expect_stderr <<'END'
END

case_ 'MFU with a model'
cd "$DATA/hta"
vp_tables "run gpu_time top_kernels mfu findings" summary -f csv --top 1 --model ../models/llama-3-8b.json --tokens-per-step 65536 --seq-len 4096 --peak-tflops 312 trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Accelerator,GPUs,Ranks,Steps,Step Median (ns),Step Min (ns),Step Max (ns)
-,1,1,2,615120000.0,607312000.0,622928000.0

GPU Span (ns),Busy (%),Compute (%),Comm Exposed (%),Memory Copies (%),Idle (%),Comm Overlap (%)
1222847000,44.79,17.20,61.53,0.11,55.21,14.95

Time (%),Total Time (ns),Instances,Class,Name
65.3,396199000,10,communication,"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"

MFU (%),MFU Causal (%),TFLOP/s per GPU
13.73,12.87,42.842

Rule,Finding,Evidence,Suggestion
exposed_comm,communication is exposed: compute does not hide it,"337 ms of communication not overlapped by compute (all ranks): 61.5% of the GPU's busy time, 27.4% of the steps' wall time","overlap communication with compute: FSDP prefetch and reshard settings, DDP bucket sizes, async tensor/sequence parallel, fewer or larger collectives"
idle,the GPU is idle for much of the run,GPU idle 55.2% of its span; 0 blocking syncs in the steps; 21.7% of the kernels ran shorter than their launch call,"the CPU does not keep the GPU fed: cut launch overhead (CUDA graphs, torch.compile), syncs and data-loading stalls"
fp32_gemm,FP32 GEMMs where BF16 or FP16 is expected,"43.1% of GEMM time is in FP32 kernels (sgemm, TF32 s1688/s16816gemm); the device is unknown (no compute capability in deviceProperties)","check dtypes and autocast: BF16 GEMMs on devices with BF16 tensor cores (compute capability 8.0 and later: A100, H100), FP16 with AMP (autocast float16 and a gradient scaler) on older ones (V100, T4)"
mfu,low model FLOPs utilization,MFU 13.7% (42.8 TFLOP/s per GPU),"work through the findings above, largest measured cost first"
no_peaks,the device's peaks are unknown: how close the operators run to their roof is not known,no device name in deviceProperties; 12.8% of the operators' GPU time is in operators with a model,"vprof roofline --gpu NAME, or --peak-tflops and --peak-tbs, puts them against the device's roofs"
END
expect_stderr <<'END'
END

case_ 'MFU without a peak for an unknown accelerator: exit 2'
cd "$DATA/hta"
vp summary --model ../models/llama-3-8b.json --tokens-per-step 65536 --seq-len 4096 trace_filter_rank-0.json.gz
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: no dense BF16 peak known for the accelerator '(no deviceProperties)': give --peak-tflops
END

case_ 'list the thresholds'
cd "$DATA/hta"
vp summary --list-thresholds
expect_status 0
expect_stdout <<'END'
attention      20     attention-like kernels above this share of kernel time (%), with no fused attention kernel
exposed_comm   30     exposed communication above this share of GPU busy time (%)
idle           25     GPU idle above this share of its span (%)
dataloader     10     DataLoader time above this share of step time (%)
syncs          1      at least this many blocking host-device syncs inside the steps
fp32_gemm      10     FP32 GEMMs above this share of GEMM time (%)
short_kernels  50     kernels shorter than their launch call above this share (%)
rank_spread    10     compute time of the ranks spread above this share of its median (%)
mfu            0.4    MFU below this (0..1; needs --model)
launch_bound   30     launch-bound launches (short work the GPU waited for) above this share (%)
api_share      40     one non-launch runtime API call above this share of API time (%)
roofline       30     an operator and shape below this Roofline (%), as vprof roofline's
roofline_share 5      ... with at least this share of the operators' GPU time (%)
END
expect_stderr <<'END'
END

case_ 'bad threshold'
cd "$DATA/hta"
vp summary --threshold colour=3 trace_filter_rank-0.json.gz
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: summary: --threshold: expected NAME=NUMBER with a NAME of --list-thresholds, found 'colour=3'
Try 'vprof help summary'.
END

case_ 'json carries every metric'
cd "$DATA/hta"
vp summary -f json --top 1 event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
{"schema":"vprof.summary/1","tables":{"run":{"columns":[{"name":"Accelerator","type":"text"},{"name":"GPUs","type":"int"},{"name":"Ranks","type":"int"},{"name":"Steps","type":"int"},{"name":"Step Median (ns)","type":"ns"},{"name":"Step Min (ns)","type":"ns"},{"name":"Step Max (ns)","type":"ns"}],"rows":[["NVIDIA A100-PG509-200",1,1,1,3154000,3154000,3154000]],"notes":["GPUs: the devices that ran GPU work; the first trace's deviceProperties lists 8"]},"gpu_time":{"columns":[{"name":"GPU Span (ns)","type":"ns"},{"name":"Busy (%)","type":"percent"},{"name":"Compute (%)","type":"percent"},{"name":"Comm Exposed (%)","type":"percent"},{"name":"Memory Copies (%)","type":"percent"},{"name":"Idle (%)","type":"percent"},{"name":"Comm Overlap (%)","type":"percent"}],"rows":[[263000,21.29277566539924,18.631178707224336,0,0.7604562737642585,78.70722433460077,null]],"notes":["shares of the GPU span (all ranks); Comm Exposed: of the GPU's busy time; Comm Overlap: of the communication time (HTA's overlap %)"]},"top_kernels":{"columns":[{"name":"Time (%)","type":"percent"},{"name":"Total Time (ns)","type":"ns"},{"name":"Instances","type":"int"},{"name":"Class","type":"text"},{"name":"Name","type":"text"}],"rows":[[73.46938775510205,36000,1,"compute","at::cuda::(anonymous namespace)::spin_kernel(long)"]],"notes":[]},"findings":{"columns":[{"name":"Rule","type":"text"},{"name":"Finding","type":"text"},{"name":"Evidence","type":"text"},{"name":"Suggestion","type":"text"}],"rows":[["idle","the GPU is idle for much of the run","GPU idle 78.7% of its span; 3 blocking syncs in the steps; 50.0% of the kernels ran shorter than their launch call","the CPU does not keep the GPU fed: cut launch overhead (CUDA graphs, torch.compile), syncs and data-loading stalls"],["syncs","the host waits for the GPU inside the steps","48.0 us blocked in syncs, 1.5% of the steps' wall time: 3 blocking calls (cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize, synchronous cudaMemcpy) inside the steps","remove .item(), .cpu(), .tolist() and printing of tensors from the training loop; log asynchronously"],["launch_bound","launch-bound: the GPU waits for short work to be launched","3 of 5 launches in the traces (60.0%) ran shorter on the GPU than their call took and started within one call's time of it: the GPU had nothing queued (vprof launches: Launch-Bound); 3 ran shorter than their call (Short GPU Work)","fewer, larger kernels (fusion, torch.compile) or CUDA graphs, so that launches keep ahead of the GPU; and what holds the launching thread (syncs, Python overhead)"],["no_shapes","no Input Dims: how close the operators run to their roof is not known","no operator of the 1 trace file has Input Dims: the FLOPs and bytes of the operators' 51.0 us of GPU time are unknown","record with record_shapes=True (torch.profiler.profile) to see how close each operator runs to its roof (vprof roofline)"]],"notes":[]},"metrics":{"columns":[{"name":"Metric","type":"text"},{"name":"Value","type":"ratio"},{"name":"Unit","type":"text"}],"rows":[["ranks",1,"count"],["gpus",1,"count"],["steps",1,"count"],["step.median",3154000,"ns"],["step.mean",3154000,"ns"],["step.min",3154000,"ns"],["step.max",3154000,"ns"],["step.spread_pct",0,"percent"],["gpu.span",263000,"ns"],["gpu.busy_pct",21.29277566539924,"percent"],["gpu.compute_pct",18.631178707224336,"percent"],["gpu.idle_pct",78.70722433460077,"percent"],["memcpy.pct",0.7604562737642585,"percent"],["comm.total",0,"ns"],["comm.exposed",0,"ns"],["comm.exposed_pct",0,"percent"],["comm.exposed_step_pct",0,"percent"],["kernels.count",4,"count"],["kernels.total",49000,"ns"],["kernels.short_pct",50,"percent"],["dataloader.pct",0,"percent"],["sync.count",3,"count"],["sync.time",48000,"ns"],["sync.step_pct",1.5218769816106532,"percent"],["attention.pct",0,"percent"],["attention.flash",0,"count"],["launches.bound_pct",60,"percent"],["api.top_pct",21.656050955414013,"percent"]],"notes":[]}}}
END
expect_stderr <<'END'
END

case_ 'launch_bound and api_share quote vprof launches and vprof api, from the one pass'
cd "$DATA/hta"
for steps in "" "--steps 552"; do
    for f in trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz; do
        # shellcheck disable=SC2086
        vp summary -f csv --table findings --threshold launch_bound=0 --threshold api_share=0 $steps $f
        expect_status 0
        cp "$OUT_STDOUT" "$WORK/findings"
        # shellcheck disable=SC2086
        vp summary -f csv --table metrics $steps $f
        cp "$OUT_STDOUT" "$WORK/metrics"
        # shellcheck disable=SC2086
        vp launches -f csv --table launch_summary $steps $f
        # Launches is column 1, Short GPU Work 4, Launch-Bound 10
        awk -F, 'NR == 2 { printf "%s of %s launches", $10, $1 }' "$OUT_STDOUT" >"$WORK/lb1"
        awk -F, 'NR == 2 { printf "; %s ran shorter than their call", $4 }' "$OUT_STDOUT" >"$WORK/lb2"
        awk -F, 'NR == 2 { printf "launches.bound_pct,%.6f,percent", 100 * $10 / $1 }' "$OUT_STDOUT" >"$WORK/lb3"
        # shellcheck disable=SC2086
        vp api -f csv $steps $f
        awk -F, 'NR > 1 && $9 !~ /Launch/ { printf "%s: %s%% of the runtime API time", $9, $1; exit }' "$OUT_STDOUT" >"$WORK/as1"
        awk -F, 'NR > 1 && $9 !~ /Launch/ { printf "(%s ns) in %s calls", $2, $3; exit }' "$OUT_STDOUT" >"$WORK/as2"
        awk -F, 'NR > 1 { all += $2 } NR > 1 && $9 !~ /Launch/ && !top { top = $2 }
                 END { printf "api.top_pct,%.6f,percent", 100 * top / all }' "$OUT_STDOUT" >"$WORK/as3"
        for x in lb1 lb2 as1 as2; do
            if [ -s "$WORK/$x" ] && grep -qF -- "$(cat "$WORK/$x")" "$WORK/findings"; then pass; else
                fail "$f findings ($steps) lack '$(cat "$WORK/$x")':"; cat "$WORK/findings" >&2; fi
        done
        for x in lb3 as3; do
            if [ -s "$WORK/$x" ] && grep -qxF -- "$(cat "$WORK/$x")" "$WORK/metrics"; then pass; else
                fail "$f metrics ($steps) lack '$(cat "$WORK/$x")':"; cat "$WORK/metrics" >&2; fi
        done
    done
done
grep -qF "inside the counted steps" "$WORK/findings" && pass || fail "no steps in the evidence"
vp summary -f csv --table findings --threshold launch_bound=0 --threshold api_share=0 trace_filter_rank-0.json.gz
expect_stdout_has "161 of 1204 launches in the traces (13.4%) ran shorter on the GPU than their call took"
expect_stdout_has "cudaMemcpyAsync: 13.5% of the runtime API time in the traces, 1.49 ms (1487000 ns) in 40 calls"
vp summary -f csv --table metrics --steps 552 trace_filter_rank-1.json.gz
expect_stdout_has "launches.bound_pct,14.904679,percent"
vp summary --threshold launch_bound=100 --threshold api_share=100 trace_filter_rank-0.json.gz
if grep -qE 'launch_bound|api_share' "$OUT_STDOUT"; then fail "fired at 100%"; else pass; fi
vp check --fail-if 'launches.bound_pct > 13' --fail-if 'api.top_pct > 13.4' trace_filter_rank-0.json.gz
expect_status 1
expect_stdout_has "launches.bound_pct"
expect_stdout_has "api.top_pct"
