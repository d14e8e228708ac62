# vprof launches: HTA's launch statistics and nsys cuda_kern_exec_sum.
# event_sync_trace is HTA's critical_path/cuda_event_sync trace: its five
# launches are HTA's own rows (hta_oracle/critical_path_cuda_event_sync/
# launch_stats_rank0.csv: correlation 1482 36/1/0 us, 1495 10/11/2,
# 1505 12/1/2, 1511 29/2/0, 1526 9/36/1; 3 short GPU kernels).  The other
# expected outputs are computed by launches_check.py from the traces alone.
CHECK=$(cd "$(dirname "$T")" && pwd)/launches_check.py

case_ 'csv: per-rank counts and the per-name table, HTA numbers'
cd "$DATA/hta"
vp_tables "launch_summary kernel_launches" launches -f csv event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Launches,Long Calls,Long Delays,Short GPU Work,CPU Duration (ns),GPU Duration (ns),Launch Delay (ns),Max Launch Delay (ns),Unlaunched,Launch-Bound
5,0,0,3,96000,51000,5000,2000,0,3

Count,QCount,TAvg (ns),TMed (ns),TMin (ns),TMax (ns),TStdDev (ns),AAvg (ns),AMed (ns),AMin (ns),AMax (ns),AStdDev (ns),QAvg (ns),QMed (ns),QMin (ns),QMax (ns),QStdDev (ns),KAvg (ns),KMed (ns),KMin (ns),KMax (ns),KStdDev (ns),API Name,Kernel Name
1,1,46000.0,46000.0,46000,46000,0.0,9000.0,9000.0,9000,9000,0.0,1000.0,1000.0,1000,1000,0.0,36000.0,36000.0,36000,36000,0.0,cudaLaunchKernel,at::cuda::(anonymous namespace)::spin_kernel(long)
1,1,23000.0,23000.0,23000,23000,0.0,10000.0,10000.0,10000,10000,0.0,2000.0,2000.0,2000,2000,0.0,11000.0,11000.0,11000,11000,0.0,cudaLaunchKernel,"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::Half, at::native::func_wrapper_t<c10::Half, at::native::sum_functor<c10::Half, float, c10::Half>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::Half, 4> >(at::native::ReduceOp<c10::Half, at::native::func_wrapper_t<c10::Half, at::native::sum_functor<c10::Half, float, c10::Half>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::Half, 4>)"
1,0,36000.0,36000.0,36000,36000,0.0,36000.0,36000.0,36000,36000,0.0,,,,,,1000.0,1000.0,1000,1000,0.0,cudaLaunchKernel,"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::Half>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<c10::Half>, at::detail::Array<char*, 1>)"
1,1,15000.0,15000.0,15000,15000,0.0,12000.0,12000.0,12000,12000,0.0,2000.0,2000.0,2000,2000,0.0,1000.0,1000.0,1000,1000,0.0,cudaLaunchKernel,"void at::native::vectorized_elementwise_kernel<4, at::native::compare_scalar_kernel<c10::Half>(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, c10::Half)::{lambda(c10::Half)#1}, at::detail::Array<char*, 2> >(int, at::native::compare_scalar_kernel<c10::Half>(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, c10::Half)::{lambda(c10::Half)#1}, at::detail::Array<char*, 2>)"
END
expect_stderr <<'END'
END

case_ '--list in tsv: one row per launch, by launch delay, as HTA'
vp_tables "launch_summary launches" launches --list -f tsv event_sync_trace.json.gz
expect_status 0
expect_stdout_has "5	0	0	3	96000	51000	5000	2000	0"
expect_stdout_has "1495	10000	11000	2000	kernel	cudaLaunchKernel	void at::native::reduce_kernel<512"
expect_stdout_has "1505	12000	1000	2000	kernel	cudaLaunchKernel	void at::native::vectorized_elementwise_kernel<4, at::native::compare_scalar_kernel"
expect_stdout_has "1526	9000	36000	1000	kernel	cudaLaunchKernel	at::cuda::(anonymous namespace)::spin_kernel(long)"
expect_stdout_has "1482	36000	1000	0	kernel	cudaLaunchKernel	void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor"
expect_stdout_has "1511	29000	2000	0	memcpy	cudaMemcpyAsync	Memcpy DtoH (Device -> Pageable)"

case_ 'cutoffs in microseconds change the counts'
vp_tables "launch_summary kernel_launches" launches --runtime-cutoff 10 --delay-cutoff 1 -f csv event_sync_trace.json.gz
expect_status 0
expect_stdout_has "5,3,2,0,96000,51000,5000,2000,0"
vp launches --runtime-cutoff 36 --delay-cutoff 1.5 event_sync_trace.json.gz
expect_status 0
expect_stdout_has "note: Long Calls: launching calls longer than 36 us; Long Delays: launch delays longer than 1.5 us"
expect_stdout_has "       5           0            2               3"

case_ '--top bounds the launches, said in a note; table and md'
vp launches --list --top 2 event_sync_trace.json.gz
expect_status 0
expect_stdout_has "      1,495       10.0 us       11.0 us       2.00 us  kernel  cudaLaunchKernel  reduce_kernel<…>"
expect_stdout_has "note: 2 of 5 launches shown (--top)"
vp launches --top 1 -f md event_sync_trace.json.gz
expect_status 0
expect_stdout_has "| 1 | 1 | 46.0 us | 46.0 us | 46.0 us | 46.0 us | 0 ns | 9.00 us |"
expect_stdout_has "- note: 3 more kernel names not shown (--top)"

case_ 'json: the schema and HTA numbers'
vp launches --list --sort cpu --top 1 -f json event_sync_trace.json.gz
expect_status 0
expect_stdout_has '"schema":"vprof.launches/1"'
expect_stdout_has '"rows":[[1482,36000,1000,0,"kernel","cudaLaunchKernel",'

case_ 'two ranks: every launch as computed independently (--sort start)'
vp_tables "launch_summary launches" launches --list --sort start -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
python3 "$CHECK" list trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
expect_stdout_has "0,1204,2,937,280,11050000,607844000,20539698000,111018000,0"
expect_stdout_has "1,1154,0,880,278,9602000,667530000,20270258000,120824000,0"

case_ 'two ranks: the per-name table as computed independently'
vp_tables "launch_summary kernel_launches" launches -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
python3 "$CHECK" exec trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"

case_ 'ROCm: hipLaunchKernel and hipMemcpyWithStream calls are launches too'
vp_tables "launch_summary launches" launches --list --sort start -f csv amd_trace.json.gz
expect_status 0
python3 "$CHECK" list amd_trace.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
expect_stdout_has "16,2,0,8,6734333,149042,92319,8177,0"

case_ '--steps :-1 drops the last step as HTA: its 602 and 577 launches'
vp_tables "launch_summary kernel_launches" launches --steps :-1 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout_has "0,602,0,469,140,"
expect_stdout_has "1,577,0,442,140,"

case_ '-j 2, --save-part and reduce print the same bytes'
vp_tables "launch_summary launches" launches --list --top 9 -j 1 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
cp "$OUT_STDOUT" "$WORK/one"
vp_tables "launch_summary launches" launches --list --top 9 -j 2 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_stdout_file "$WORK/one"
vp launches --list --save-part "$WORK/p%i.vpart" trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
vp_tables "launch_summary launches" reduce --top 9 -f csv "$WORK/p0.vpart" "$WORK/p1.vpart"
expect_status 0
expect_stdout_file "$WORK/one"

case_ 'no launches: said so'
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::add","ts":1,"dur":2}]}' >"$WORK/cpu.json"
vp_tables "launch_summary kernel_launches" launches -f csv "$WORK/cpu.json"
expect_status 0
expect_stdout_has "0,0,0,0,0,0,0,0,0"
vp launches "$WORK/cpu.json"
expect_stdout_has "note: no launched GPU work in the input"

case_ 'GPU work without its call is counted as Unlaunched'
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"args":{"correlation":7}},{"ph":"X","cat":"kernel","name":"k","ts":5,"dur":2}]}' >"$WORK/orphan.json"
vp_tables "launch_summary kernel_launches" launches -f csv "$WORK/orphan.json"
expect_status 0
expect_stdout_has "0,0,0,0,0,0,0,0,2"

case_ 'bad input: exit 3 with the offset'
printf '{"traceEvents":[{"ph":"X","cat":"kernel"' >"$WORK/trunc.json"
vp launches "$WORK/trunc.json"
expect_status 3
expect_stderr_has "trunc.json: byte 16"

case_ 'usage errors: exit 2 naming the option'
vp launches --runtime-cutoff -1 event_sync_trace.json.gz
expect_status 2
expect_stderr_has "vprof: launches: --runtime-cutoff: '-1' is not a number of microseconds >= 0"
vp launches --sort delay event_sync_trace.json.gz
expect_status 2
expect_stderr_has "vprof: launches: --sort orders the rows of --list, which is not given"
vp launches --list --sort nope event_sync_trace.json.gz
expect_status 2
expect_stderr_has "vprof: launches: --sort: unknown key 'nope' (delay, cpu, gpu, start)"
vp launches
expect_status 2
expect_stderr_has "vprof: launches: no trace given"
