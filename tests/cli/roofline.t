# vprof roofline: FLOPs and bytes per operator and shape against the
# device's roofs.  synthetic/roofline.json (an H100, every figure worked
# out here) has one operator of each kind that matters: aten::addmm under
# aten::linear (1024x4096 @ 4096x4096 + bias, bf16, 100 us); causal SDPA
# (B 2, H 16, N 2048, d 128, bf16, 200 us) over aten::_flash_attention_forward,
# which it owns; a broadcasting add (8,1024,4096) + (1,1024,4096), 50 us;
# aten::layer_norm over aten::native_layer_norm, 60 us; an NCCL op (no
# model), 40 us; an aten::mm whose dims do not fit its model, 10 us.
#
# addmm: 2MNK + MN = 34363932672 FLOPs; (MK + KN + MN)x2 + Nx2 = 50339840 B;
#   34.3639 GFLOP / 100 us = 343.639 TFLOP/s; ideal 34.36e9/989e12 s = 34.75 %.
# SDPA: 2BH N^2 (128+128) / 2 = 34359738368; Q, K, V, O = 4 x 8388608 x 2 B;
#   171.799 TFLOP/s, 17.37 % of 989.
# add: 33554432 FLOPs; (33554432 + 4194304 + 33554432) x 2 = 142606336 B;
#   2.852 TB/s, 85.14 % of 3.35 TB/s.
# layer_norm (TraceLens's formula): 6 x 4096 + 5N = 167796736;
#   2N x 2 + 6 x 4096 x 2 = 134266880 B.
RL="$DATA/synthetic/roofline.json"

case_ 'synthetic: every family, owned children, no-model rows, exact figures'
vp roofline -f csv "$RL"
expect_status 0
expect_stdout <<'END'
Name,Category,Input Dims,Input Type,Calls,Kernel Time (ns),GFLOP,Bytes (B),FLOP/Byte,TFLOP/s,TB/s,Peak TFLOP/s,Peak TB/s,Roofline (%),Bound
aten::_scaled_dot_product_flash_attention,attention fwd,"[[2, 16, 2048, 128], [2, 16, 2048, 128], [2, 16, 2048, 128], [], [], [], []]","[""c10::BFloat16"", ""c10::BFloat16"", ""c10::BFloat16"", ""Scalar"", ""bool"", ""bool"", """"]",1,200000,34.359738368,67108864,512.000,171.798692,0.335544,989.00,3.350,17.37,compute
aten::addmm,GEMM,"[[4096], [1024, 4096], [4096, 4096], [], []]","[""c10::BFloat16"", ""c10::BFloat16"", ""c10::BFloat16"", ""Scalar"", ""Scalar""]",1,100000,34.363932672,50339840,682.639,343.639327,0.503398,989.00,3.350,34.75,compute
aten::layer_norm,norm fwd,"[[8, 1024, 4096], [], [4096], [4096], [], []]","[""c10::BFloat16"", """", ""c10::BFloat16"", ""c10::BFloat16"", ""Scalar"", ""Scalar""]",1,60000,0.167796736,134266880,1.250,2.796612,2.237781,67.00,3.350,66.80,memory
aten::add,elementwise,"[[8, 1024, 4096], [1, 1024, 4096], []]","[""c10::BFloat16"", ""c10::BFloat16"", ""Scalar""]",1,50000,0.033554432,142606336,0.235,0.671089,2.852127,67.00,3.350,85.14,memory
nccl:all_reduce,no model,[[1024]],"[""float""]",1,40000,,,,,,,,,no model
aten::mm,no model,"[[1024, 4096]]","[""c10::BFloat16""]",1,10000,,,,,,,,,not two 2-D matrices
END
expect_stderr_empty

# One number, one function: the Kernel Time of a modelled operator is vprof
# ops' GPU Total of the same operator and dims (100000 and 200000 above).
case_ 'Kernel Time is ops --by shape GPU Total'
vp ops --by shape -f csv "$RL"
expect_status 0
expect_stdout_has 'aten::addmm,"[[4096], [1024, 4096], [4096, 4096], [], []]",1,40000,35000,40000.0,100000,100000'
expect_stdout_has 'aten::_scaled_dot_product_flash_attention,"[[2, 16, 2048, 128], [2, 16, 2048, 128], [2, 16, 2048, 128], [], [], [], []]",1,70000,10000,70000.0,0,200000'

case_ 'table: the notes say the coverage and whose peaks'
vp roofline --sort roofline --top 2 "$RL"
expect_status 0
expect_stdout_has 'note: 89.1% of the operators'"'"' kernel time is in operators with a model'
expect_stdout_has 'note: peaks: H100 SXM ("H100" matched in "NVIDIA H100 80GB HBM3"), dense'
expect_stdout_has '(others: 4 rows)'
expect_stdout_has 'note: roofline, weighted by kernel time: GEMM 34.75%, attention 17.37%'

case_ '--sort roofline: furthest from the roof first; --peak-tflops, --peak-tbs override'
vp roofline -f csv --sort roofline --top 2 --peak-tflops 500 --peak-tbs 2 "$RL"
expect_status 0
expect_stdout <<'END'
Name,Category,Input Dims,Input Type,Calls,Kernel Time (ns),GFLOP,Bytes (B),FLOP/Byte,TFLOP/s,TB/s,Peak TFLOP/s,Peak TB/s,Roofline (%),Bound
aten::_scaled_dot_product_flash_attention,attention fwd,"[[2, 16, 2048, 128], [2, 16, 2048, 128], [2, 16, 2048, 128], [], [], [], []]","[""c10::BFloat16"", ""c10::BFloat16"", ""c10::BFloat16"", ""Scalar"", ""bool"", ""bool"", """"]",1,200000,34.359738368,67108864,512.000,171.798692,0.335544,500.00,2.000,34.36,compute
aten::addmm,GEMM,"[[4096], [1024, 4096], [4096, 4096], [], []]","[""c10::BFloat16"", ""c10::BFloat16"", ""c10::BFloat16"", ""Scalar"", ""Scalar""]",1,100000,34.363932672,50339840,682.639,343.639327,0.503398,500.00,2.000,68.73,compute
(others: 4 rows),,,,4,160000,,,,,,,,,
END

case_ 'a device not in the table: rates, no roof, a note'
vp roofline --gpu 'Imaginary X1' --top 1 "$RL"
expect_status 0
expect_stdout_has 'note: device "Imaginary X1" is not in the peak table: give --gpu NAME, or --peak-tflops and --peak-tbs, for the roofline columns'

case_ 'a trace without Input Dims: the note, never an empty table alone'
vp roofline "$DATA/synthetic/single.json"
expect_status 0
expect_stdout <<'END'
Name  Category  Input Dims  Input Type  Calls  Kernel Time  GFLOP  Bytes  FLOP/Byte  TFLOP/s  TB/s  Peak TFLOP/s  Peak TB/s  Roofline  Bound
----  --------  ----------  ----------  -----  -----------  -----  -----  ---------  -------  ----  ------------  ---------  --------  -----
note: no Input Dims: record with record_shapes=True (torch.profiler.profile(record_shapes=True)); no operator can be costed
END

# trace_filter_rank-0/1 (no deviceProperties; FP32 GEMMs at 111 TFLOP/s,
# so TF32): mm 512x8192 @ 8192x8192 = 68719476736 FLOPs, (2 x 512 x 8192 +
# 8192^2) x 4 = 301989888 B; rank 0's two calls in 1.234 ms: 111.377
# TFLOP/s, 71.40 % of the A100's 156 (TF32).
case_ 'bundled traces: --by rank, --sort tflops, --gpu, --tf32'
vp roofline -f csv --by rank --top 2 --sort tflops --gpu A100-SXM4-80GB --tf32 "$DATA/hta/trace_filter_rank-0.json.gz" "$DATA/hta/trace_filter_rank-1.json.gz"
expect_status 0
expect_stdout <<'END'
Name,Category,Input Dims,Input Type,Rank,Calls,Kernel Time (ns),GFLOP,Bytes (B),FLOP/Byte,TFLOP/s,TB/s,Peak TFLOP/s,Peak TB/s,Roofline (%),Bound
aten::mm,GEMM,"[[512, 8192], [8192, 8192]]","[""float"", ""float""]",0,2,1234000,68.719476736,301989888,227.556,111.376786,0.489449,156.00,2.039,71.40,compute
aten::mm,GEMM,"[[512, 8192], [8192, 8192]]","[""float"", ""float""]",1,2,1264000,68.719476736,301989888,227.556,108.733349,0.477832,156.00,2.039,69.70,compute
(others: 879 rows),,,,,2120,1272876000,,,,,,,,,
END

case_ 'without --tf32 the FP32 GEMMs are above the FP32 roof: the note says why'
vp roofline --gpu A100 --top 1 "$DATA/hta/trace_filter_rank-0.json.gz"
expect_status 0
expect_stdout_has 'note: FP32 matrix work above the FP32 peak ran on TF32 tensor cores (allow_tf32): give --tf32'
expect_stdout_has 'note: some rows are above 100% of the roof'

case_ '--steps: the operators of the steps kept'
vp roofline -f csv --steps 1 --top 1 "$RL"
expect_status 0
expect_stdout_has 'aten::_scaled_dot_product_flash_attention,attention fwd,'
expect_stdout_has '(others: 5 rows),,,,5,260000,'
vp roofline --steps 2 "$RL"
expect_status 0
expect_stdout_has 'note: no operator launched GPU work in the input (with --steps)'
expect_stderr_has 'roofline.json: --steps selects none of the steps present (ProfilerStep#1 to #1)'

case_ '--save-part and reduce give the same bytes as one run'
vp roofline -f csv --by rank "$DATA/hta/trace_filter_rank-0.json.gz" "$DATA/hta/trace_filter_rank-1.json.gz"
cp "$OUT_STDOUT" "$WORK/rl-one.csv"
vp roofline --by rank --save-part "$WORK/rl0.vpart" "$DATA/hta/trace_filter_rank-0.json.gz"
vp roofline --by rank --save-part "$WORK/rl1.vpart" "$DATA/hta/trace_filter_rank-1.json.gz"
vp reduce -f csv "$WORK/rl0.vpart" "$WORK/rl1.vpart"
expect_status 0
cp "$OUT_STDOUT" "$WORK/rl-reduced.csv"
expect_same_files 'reduce' "$WORK/rl-one.csv" "$WORK/rl-reduced.csv"
vp roofline -f csv --by rank -j 2 "$DATA/hta/trace_filter_rank-0.json.gz" "$DATA/hta/trace_filter_rank-1.json.gz"
cp "$OUT_STDOUT" "$WORK/rl-j2.csv"
expect_same_files '-j 2' "$WORK/rl-one.csv" "$WORK/rl-j2.csv"

case_ 'a partial carries the device name: reduce prints the same peaks'
vp roofline -f csv "$RL"
cp "$OUT_STDOUT" "$WORK/rl-synth.csv"
vp roofline --save-part "$WORK/rl-synth.vpart" "$RL"
vp reduce -f csv "$WORK/rl-synth.vpart"
expect_status 0
expect_stdout_has ',989.00,3.350,34.75,compute'
cp "$OUT_STDOUT" "$WORK/rl-synth-reduced.csv"
expect_same_files 'reduce keeps the device' "$WORK/rl-synth.csv" "$WORK/rl-synth-reduced.csv"

# One number, one function: check's and diff's roofline.* metrics are the
# weighted roofline of vprof roofline's note (34.75 % and 17.37 % above).
case_ 'check: roofline.gemm_pct and roofline.attention_pct gates'
vp check -f csv --fail-if 'roofline.gemm_pct < 40' --expect 'roofline.attention_pct >= 10' "$RL"
expect_status 1
expect_stdout_has 'roofline.gemm_pct < 40,fail-if,FAIL,roofline.gemm_pct = 34.75% (< 40.00% is true)'
expect_stdout_has 'roofline.attention_pct >= 10,expect,pass,roofline.attention_pct = 17.37% (>= 10.00% is true)'
expect_stderr_has 'vprof: check: gate failed: roofline.gemm_pct < 40'

# The run's one pass reads the operators too: a trace on stdin can be read
# only once, and gives the same metrics; so does a summary partial reduced.
case_ 'check: the roofline gates from the run'"'"'s one pass (stdin)'
vp check -f csv --fail-if 'roofline.gemm_pct < 40' - <"$RL"
expect_status 1
expect_stdout_has 'roofline.gemm_pct < 40,fail-if,FAIL,roofline.gemm_pct = 34.75% (< 40.00% is true)'

case_ 'summary: the roofline metrics survive a partial'
vp summary --save-part "$WORK/rl-run.vpart" "$RL"
expect_status 0
vp reduce -f csv "$WORK/rl-run.vpart"
expect_status 0
expect_stdout_has 'roofline.gemm_pct,34.746140,percent'
expect_stdout_has 'roofline.attention_pct,17.370950,percent'
# two files read apart by the worker pool, merged: the same rows twice
cp "$RL" "$WORK/rl-copy.json"
vp summary -j 2 -f csv "$RL" "$WORK/rl-copy.json"
expect_status 0
expect_stdout_has 'roofline.gemm_pct,34.746140,percent'
expect_stdout_has 'roofline.attention_pct,17.370950,percent'

case_ 'diff: a roofline gate reads both runs'"'"' operators'
vp diff --fail-if 'roofline.gemm_pct < -5%' "$RL" "$RL"
expect_status 0
expect_stdout_has 'roofline.gemm_pct       34.75%   34.75%   0.00 pp'

# summary's far_under_roof: the rows of the table above (SDPA 17.37 % of its
# roof, 200 of the operators' 460 us = 43.5 %), by the figures it shows: a
# threshold the shown Roofline (17.4 %) reaches does not fire.
case_ 'summary: far_under_roof from the roofline rows'
vp summary -f csv --table findings "$RL"
expect_status 0
expect_stdout <<'END'
Rule,Finding,Evidence,Suggestion
idle,the GPU is idle for much of the run,GPU idle 43.2% of its span; 0 blocking syncs in the steps; 0.0% of the kernels ran shorter than their launch call,"the CPU does not keep the GPU fed: cut launch overhead (CUDA graphs, torch.compile), syncs and data-loading stalls"
far_under_roof,1 operator shape far under its roof: 43.5% of the operators' GPU time below 30% of the roofline,"aten::_scaled_dot_product_flash_attention [[2, 16, 2048, 128], [2, 16, 2048, 128], [2, 16,...: 171.8 TFLOP/s, 17.4% of its roofline (compute-bound), 43.5% of the operators' GPU time","vprof roofline lists every operator and shape: fuse memory-bound ones (torch.compile) and drop needless dtype conversions; give compute-bound ones shapes that tile well (multiples of 64), BF16 or FP8, fused kernels (FlashAttention)"
END

case_ 'summary: far_under_roof lists the most time first, then a count'
vp summary -f csv --table findings --threshold roofline=90 --threshold roofline_share=1 "$RL"
expect_status 0
expect_stdout_has 'far_under_roof,4 operator shapes far under their roof: 89.1% of the operators'"'"' GPU time below 90% of the roofline,"aten::_scaled_dot_product_flash_attention [[2, 16, 2048, 128], [2, 16, 2048, 128], [2, 16,...: 171.8 TFLOP/s, 17.4% of its roofline (compute-bound), 43.5% of the operators'"'"' GPU time; aten::addmm [[4096], [1024, 4096], [4096, 4096], [], []]: 343.6 TFLOP/s, 34.7% of its roofline (compute-bound), 21.7% of the operators'"'"' GPU time; 2 more"'

case_ 'summary: no far_under_roof where the shown figures are not below the thresholds'
IDLE_ONLY=$(cat <<'END'
Rule,Finding,Evidence,Suggestion
idle,the GPU is idle for much of the run,GPU idle 43.2% of its span; 0 blocking syncs in the steps; 0.0% of the kernels ran shorter than their launch call,"the CPU does not keep the GPU fed: cut launch overhead (CUDA graphs, torch.compile), syncs and data-loading stalls"
END
)
vp summary -f csv --table findings --threshold roofline=17.4 "$RL"
expect_status 0
expect_stdout <<<"$IDLE_ONLY"
vp summary -f csv --table findings --threshold roofline_share=43.6 "$RL"
expect_status 0
expect_stdout <<<"$IDLE_ONLY"
vp summary -f csv --table findings --threshold roofline=17.5 --threshold roofline_share=43.5 "$RL"
expect_status 0
expect_stdout_has 'far_under_roof,1 operator shape far under its roof: 43.5% of the operators'"'"' GPU time below 17.5% of the roofline'

case_ 'usage errors'
vp roofline --sort speed "$RL"
expect_status 2
expect_stderr_has "vprof: roofline: --sort: unknown key 'speed' (time, roofline, tflops, calls, name)"
vp roofline --peak-tbs -3 "$RL"
expect_status 2
expect_stderr_has "vprof: roofline: --peak-tbs: expected a positive number, found '-3'"
vp roofline --by module "$RL"
expect_status 2
expect_stderr_has "vprof: roofline: --by: unknown grouping 'module' (name, shape, rank)"
