# vprof kernels: whole outputs on real traces, options, formats, bad input.
# The numbers on trace_filter with --steps :-1 are HTA's (hta_oracle): e.g.
# the NCCL SendRecv kernel on rank 0: 5 instances, 195,327 us in total,
# standard deviation 19,143.608 us (tests/hta/compare_hta.py checks all rows).

case_ 'csv, nsys columns, small real trace'
cd "$DATA/hta"
vp kernels -f csv event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
73.5,36000,1,36000.0,36000.0,36000,36000,0.0,at::cuda::(anonymous namespace)::spin_kernel(long)
22.4,11000,1,11000.0,11000.0,11000,11000,0.0,"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::Half, at::native::func_wrapper_t<c10::Half, at::native::sum_functor<c10::Half, float, c10::Half>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::Half, 4> >(at::native::ReduceOp<c10::Half, at::native::func_wrapper_t<c10::Half, at::native::sum_functor<c10::Half, float, c10::Half>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::Half, 4>)"
2.0,1000,1,1000.0,1000.0,1000,1000,0.0,"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::Half>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<c10::Half>, at::detail::Array<char*, 1>)"
2.0,1000,1,1000.0,1000.0,1000,1000,0.0,"void at::native::vectorized_elementwise_kernel<4, at::native::compare_scalar_kernel<c10::Half>(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, c10::Half)::{lambda(c10::Half)#1}, at::detail::Array<char*, 2> >(int, at::native::compare_scalar_kernel<c10::Half>(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, c10::Half)::{lambda(c10::Half)#1}, at::detail::Array<char*, 2>)"
END
expect_stderr <<'END'
END

case_ 'table, human units, default'
cd "$DATA/hta"
vp kernels event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
 Time  Total Time  Instances      Avg      Med      Min      Max  StdDev  Name
-----  ----------  ---------  -------  -------  -------  -------  ------  --------------------------
73.5%     36.0 us          1  36.0 us  36.0 us  36.0 us  36.0 us    0 ns  at::…spin_kernel
22.4%     11.0 us          1  11.0 us  11.0 us  11.0 us  11.0 us    0 ns  at::…reduce_kernel<…>
 2.0%     1.00 us          1  1.00 us  1.00 us  1.00 us  1.00 us    0 ns  vectoriz…e::FillFunctor<c…
 2.0%     1.00 us          1  1.00 us  1.00 us  1.00 us  1.00 us    0 ns  vectoriz…e::compare_scala…
END
expect_stderr <<'END'
END

case_ 'include memcpy,memset,sync and by class,name (the rows of --by class before it totalled per class), md'
cd "$DATA/hta"
vp kernels --include memcpy,memset,sync --by class,name -f md event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
| Time | Total Time | Instances | Avg | Med | Min | Max | StdDev | Class | Name |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |
| 37.1% | 36.0 us | 1 | 36.0 us | 36.0 us | 36.0 us | 36.0 us | 0 ns | compute | at::cuda::(anonymous namespace)::spin\_kernel(long) |
| 36.1% | 35.0 us | 2 | 17.5 us | 17.5 us | 2.00 us | 33.0 us | 21.9 us | sync | Event Sync |
| 11.3% | 11.0 us | 1 | 11.0 us | 11.0 us | 11.0 us | 11.0 us | 0 ns | compute | void at::native::reduce\_kernel\<512, 1, at::native::ReduceOp\<c10::Half, at::native::func\_wrapper\_t\<c10::Half, at::native::sum\_functor\<c10::Half, float, c10::Half>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::Half, 4> >(at::native::ReduceOp\<c10::Half, at::native::func\_wrapper\_t\<c10::Half, at::native::sum\_functor\<c10::Half, float, c10::Half>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::Half, 4>) |
| 6.2% | 6.00 us | 1 | 6.00 us | 6.00 us | 6.00 us | 6.00 us | 0 ns | sync | Context Sync |
| 5.2% | 5.00 us | 1 | 5.00 us | 5.00 us | 5.00 us | 5.00 us | 0 ns | sync | Stream Sync |
| 2.1% | 2.00 us | 1 | 2.00 us | 2.00 us | 2.00 us | 2.00 us | 0 ns | memory | Memcpy DtoH (Device -> Pageable) |
| 1.0% | 1.00 us | 1 | 1.00 us | 1.00 us | 1.00 us | 1.00 us | 0 ns | compute | void at::native::vectorized\_elementwise\_kernel\<4, at::native::FillFunctor\<c10::Half>, at::detail::Array\<char\*, 1> >(int, at::native::FillFunctor\<c10::Half>, at::detail::Array\<char\*, 1>) |
| 1.0% | 1.00 us | 1 | 1.00 us | 1.00 us | 1.00 us | 1.00 us | 0 ns | compute | void at::native::vectorized\_elementwise\_kernel\<4, at::native::compare\_scalar\_kernel\<c10::Half>(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, c10::Half)::{lambda(c10::Half)#1}, at::detail::Array\<char\*, 2> >(int, at::native::compare\_scalar\_kernel\<c10::Half>(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, c10::Half)::{lambda(c10::Half)#1}, at::detail::Array\<char\*, 2>) |
END
expect_stderr <<'END'
END

case_ 'steps :-1 drops the last step as HTA does'
cd "$DATA/hta"
vp kernels --steps :-1 --top 3 -f csv --filter '^(ncclKernel|ampere)' trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
96.9,195327000,5,39065400.0,42496000.0,11727000,62783000,19143608.0,"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
0.8,1576000,4,394000.0,319500.0,131000,806000,288706.3,ampere_sgemm_128x64_nn
0.8,1547000,3,515666.7,179000.0,179000,1189000,583123.8,ampere_sgemm_128x128_tt
1.6,3141000,9,349000.0,167000.0,49000,1328000,406298.2,(others: 3 rows)
END
expect_stderr <<'END'
vprof: kernels: note: Time (%) is each row's share of the 202 ms of kernel time that --filter keeps, not of all kernel time
END

case_ 'steps by number: only step 552'
cd "$DATA/hta"
vp kernels --steps 552 --top 2 -f csv --filter '^nccl' trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
100.0,200872000,5,40174400.0,36158000.0,12119000,67827000,24908046.3,"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
END
expect_stderr <<'END'
vprof: kernels: note: Time (%) is each row's share of the 201 ms of kernel time that --filter keeps, not of all kernel time
END

case_ 'steps selecting nothing warns'
cd "$DATA/hta"
vp kernels --steps 1000: -f csv trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
END
expect_stderr <<'END'
vprof: warning: trace_filter_rank-0.json.gz: --steps selects none of the steps present (ProfilerStep#551 to #552)
END

case_ 'two ranks by rank and class, table shortened to COLUMNS'
cd "$DATA/hta"
vp kernels --by rank,class,name --top 4 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
 Time  Total Time  Instances      Avg      Med      Min      Max   StdDev  Rank  Class          Name
-----  ----------  ---------  -------  -------  -------  -------  -------  ----  -------------  --------------------
31.5%      396 ms         10  39.6 ms  39.3 ms  11.7 ms  67.8 ms  21.0 ms     0  communication  ncclKernel_SendRecv…
30.1%      379 ms         10  37.9 ms  40.5 ms  4.62 ms  90.8 ms  27.5 ms     1  communication  ncclKernel_SendRecv…
 4.6%     57.2 ms          2  28.6 ms  28.6 ms  28.4 ms  28.8 ms   305 us     1  compute        split_embedding_bac…
 3.0%     37.9 ms          2  18.9 ms  18.9 ms  18.3 ms  19.5 ms   831 us     1  compute        split_embedding_cod…
30.8%      387 ms      2,234   173 us  20.0 us  3.00 us  14.7 ms   711 us     -  -              (others: 373 rows)
END
expect_stderr <<'END'
END

case_ 'top folds the rest: statistics over the folded instances'
cd "$DATA/hta"
vp kernels --top 2 -f csv --exclude '^void' trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
96.6,379053000,10,37905300.0,40502500.0,4624000,90771000,27473914.3,"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
1.0,4111000,8,513875.0,501000.0,134000,820000,266725.3,ampere_sgemm_128x64_nn
2.4,9387000,34,276088.2,127500.0,7000,1359000,390414.6,(others: 6 rows)
END
expect_stderr <<'END'
vprof: kernels: note: Time (%) is each row's share of the 393 ms of kernel time that --exclude keeps, not of all kernel time
END

case_ 'sort by count, tsv, filter'
cd "$DATA/hta"
vp kernels --sort count -f tsv --filter 'Cijk|elementwise' amd_trace.json.gz
expect_status 0
expect_stdout <<'END'
Time (%)	Total Time (ns)	Instances	Avg (ns)	Med (ns)	Min (ns)	Max (ns)	StdDev (ns)	Name
11.7	9120	2	4560.0	4560.0	4160	4960	565.7	void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)
7.2	5600	2	2800.0	2800.0	2240	3360	792.0	void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)
22.6	17600	1	17600.0	17600.0	17600	17600	0.0	Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA8_LPB8_LPM0_LRVW4_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_TLDS1_USFGROn1_VSn1_VWA1_VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1
16.3	12640	1	12640.0	12640.0	12640	12640	0.0	Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA1_GRVWB1_GSUAMB_ISA90a_IU1_K1_LBSPPA0_LBSPPB0_LBSPPM0_LPA0_LPB0_LPM0_LRVW1_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_TLDS0_USFGROn1_VSn1_VWA1_VWB1_WSGRA0_WSGRB0_WS64_WG64_4_1
10.7	8320	1	8320.0	8320.0	8320	8320	0.0	void at::native::vectorized_elementwise_kernel<4, at::native::mse_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float)#1}, at::detail::Array<char*, 3> >(int, at::native::mse_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float)#1}, at::detail::Array<char*, 3>)
8.8	6880	1	6880.0	6880.0	6880	6880	0.0	void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})
8.6	6720	1	6720.0	6720.0	6720	6720	0.0	void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)
7.2	5600	1	5600.0	5600.0	5600	5600	0.0	void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, at::native::(anonymous namespace)::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, float)::{lambda(float, float)#1}>, at::detail::Array<char*, 3> >(int, at::native::BinaryFunctor<float, float, float, at::native::(anonymous namespace)::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, float)::{lambda(float, float)#1}>, at::detail::Array<char*, 3>)
6.8	5280	1	5280.0	5280.0	5280	5280	0.0	void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float, float)#1}>(at::TensorIteratorBase&, at::native::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float, float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float, float)#1}>(at::TensorIteratorBase&, at::native::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float, float)#1} const&)::{lambda(int)#1})
END
expect_stderr <<'END'
vprof: kernels: note: Time (%) is each row's share of the 77.8 us of kernel time that --filter keeps, not of all kernel time
END

case_ 'json with stream and device'
cd "$DATA/hta"
vp kernels -f json --by stream,device,name --top 1 amd_trace.json.gz
expect_status 0
expect_stdout <<'END'
{"schema":"vprof.kernels/1","tables":{"kernels":{"columns":[{"name":"Time (%)","type":"percent"},{"name":"Total Time (ns)","type":"ns"},{"name":"Instances","type":"int"},{"name":"Avg (ns)","type":"ns"},{"name":"Med (ns)","type":"ns"},{"name":"Min (ns)","type":"ns"},{"name":"Max (ns)","type":"ns"},{"name":"StdDev (ns)","type":"ns"},{"name":"Stream","type":"int"},{"name":"Device","type":"int"},{"name":"Name","type":"text"}],"rows":[[15.872872719401881,17600,1,17600,17600,17600,17600,0,0,2,"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA8_LPB8_LPM0_LRVW4_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_TLDS1_USFGROn1_VSn1_VWA1_VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1"],[84.12712728059812,93281,13,7175.461538461538,6720,2240,13600,3516.2993476898555,null,null,"(others: 11 rows)"]],"notes":[]}}}
END
expect_stderr <<'END'
END

case_ 'verbose says where the rank came from'
cd "$DATA/hta"
vp kernels -v -f csv --top 1 --filter '^Cijk_Alik' amd_trace.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
100.0,17600,1,17600.0,17600.0,17600,17600,0.0,Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA8_LPB8_LPM0_LRVW4_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_TLDS1_USFGROn1_VSn1_VWA1_VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1
END
expect_stderr <<'END'
vprof: amd_trace.json.gz: rank 0 (from its position on the command line); read 220 events in 66897 bytes, counted 1 kernels
vprof: trace_filter_rank-1.json.gz: rank 1 (from distributedInfo.rank); read 4720 events in 1690403 bytes, counted 0 kernels
vprof: kernels: note: Time (%) is each row's share of the 17.6 us of kernel time that --filter keeps, not of all kernel time
END

case_ 'standard input, gzip'
cd "$DATA/hta"
vp kernels -f csv - <event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
73.5,36000,1,36000.0,36000.0,36000,36000,0.0,at::cuda::(anonymous namespace)::spin_kernel(long)
22.4,11000,1,11000.0,11000.0,11000,11000,0.0,"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::Half, at::native::func_wrapper_t<c10::Half, at::native::sum_functor<c10::Half, float, c10::Half>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::Half, 4> >(at::native::ReduceOp<c10::Half, at::native::func_wrapper_t<c10::Half, at::native::sum_functor<c10::Half, float, c10::Half>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::Half, 4>)"
2.0,1000,1,1000.0,1000.0,1000,1000,0.0,"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::Half>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<c10::Half>, at::detail::Array<char*, 1>)"
2.0,1000,1,1000.0,1000.0,1000,1000,0.0,"void at::native::vectorized_elementwise_kernel<4, at::native::compare_scalar_kernel<c10::Half>(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, c10::Half)::{lambda(c10::Half)#1}, at::detail::Array<char*, 2> >(int, at::native::compare_scalar_kernel<c10::Half>(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, c10::Half)::{lambda(c10::Half)#1}, at::detail::Array<char*, 2>)"
END
expect_stderr <<'END'
END

case_ 'output file'
cd "$DATA/hta"
vp kernels -f csv -o "$WORK/out.csv" --top 1 event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
END
expect_stderr <<'END'
END
cp "$WORK/out.csv" "$OUT_STDOUT"
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
73.5,36000,1,36000.0,36000.0,36000,36000,0.0,at::cuda::(anonymous namespace)::spin_kernel(long)
26.5,13000,3,4333.3,1000.0,1000,11000,5773.5,(others: 3 rows)
END

case_ 'empty file'
cd "$WORK"
: > empty.json
vp kernels empty.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: empty.json: empty input: expected a trace ('{' or '[')
END

case_ 'not JSON'
cd "$WORK"
echo hello > notjson.json
vp kernels notjson.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: notjson.json: byte 0 (line 1, column 1): expected a trace: '{' (object form) or '[' (array form), found 'h'
END

case_ 'truncated gzip'
cd "$WORK"
printf '[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2},' | gzip -c | head -c 30 > trunc.json.gz
vp kernels trunc.json.gz
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: trunc.json.gz: compressed byte 30: truncated gzip stream: the input ends inside a member (after 20 uncompressed bytes) (a truncated file? events read: 0; --partial uses them)
END

case_ 'truncated gzip with --partial'
cd "$WORK"
vp kernels --partial -f csv trunc.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
END
expect_stderr <<'END'
vprof: warning: trunc.json.gz: compressed byte 30: truncated gzip stream: the input ends inside a member (after 20 uncompressed bytes)
vprof: warning: trunc.json.gz: byte 1: the input ends at byte 20, inside the event that starts here; --partial: using the 0 events before it
END

case_ 'gzip with a bad CRC'
cd "$WORK"
printf '{"traceEvents":[]}' | gzip -c > ok.gz && python3 -c "import sys; d=bytearray(open('ok.gz','rb').read()); d[-6]^=0xff; open('badcrc.json.gz','wb').write(d)"
vp kernels badcrc.json.gz
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: badcrc.json.gz: corrupt gzip stream in the member at compressed byte 0: CRC-32 check failed (after 18 uncompressed bytes)
END

case_ 'JSON cut inside an event'
cd "$WORK"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2},\n{"ph":"X","cat":"ker' > cut.json
vp kernels cut.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: cut.json: byte 69 (line 2, column 1): the input ends at byte 89, inside the event that starts here (a truncated file? events read: 1; --partial uses them)
END

case_ 'JSON cut inside an event, gzip'
cd "$WORK"
gzip -c cut.json > cut.json.gz
vp kernels cut.json.gz
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: cut.json.gz: uncompressed byte 69 (line 2, column 1), compressed byte 92: the input ends at byte 89, inside the event that starts here (a truncated file? events read: 1; --partial uses them)
END

case_ 'JSON cut inside an event with --partial'
cd "$WORK"
vp kernels --partial -f csv cut.json
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
100.0,2000,1,2000.0,2000.0,2000,2000,0.0,k
END
expect_stderr <<'END'
vprof: warning: cut.json: byte 69: the input ends at byte 89, inside the event that starts here; --partial: using the 1 events before it
END

case_ 'object form without its closing bracket'
cd "$WORK"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2},' > noclose.json
vp kernels noclose.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: noclose.json: byte 68 (line 1, column 69): the input ends inside "traceEvents" (no closing ']') (a truncated file? events read: 1; --partial uses them)
END

case_ 'array form unterminated, trailing comma: accepted as the viewer does'
cd "$WORK"
printf '[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2},' > arr.json
vp kernels -f csv arr.json
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
100.0,2000,1,2000.0,2000.0,2000,2000,0.0,k
END
expect_stderr <<'END'
END

case_ 'event that is not an object'
cd "$WORK"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2}, 5]}' > notobj.json
vp kernels notobj.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: notobj.json: byte 69 (line 1, column 70): expected an event object '{', found '5'
END

case_ 'nesting deeper than the bound'
cd "$WORK"
python3 -c "print('{\"traceEvents\":[{\"args\":' + '['*200 + ']'*200 + '}]}')" > deep.json
vp kernels deep.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: deep.json: byte 150 (line 1, column 151): nesting deeper than 128 levels (vprof's limit)
END

case_ 'malformed args in the second chunk of a 2 MB trace: the same error with skip facts'
# 12,000 events; the 11,001st lacks a comma in its args (byte 1867834,
# python's str.find agrees).  The args before it, in both 1 MiB chunks,
# are skipped by the source thread's facts (AVX2, NEON); the bad one gets
# none and the parser's own skip words the error, as with every variant.
cd "$WORK"
python3 -c "
import sys
ev = ('{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d, '
      '\"dur\": 3, \"args\": {\"External id\": %d, \"grid\": [1, 1, 1], \"stream\": 7, '
      '\"note\": \"a\\\\\\\\\\\\\"b{[\"}}')
out = ['{\"traceEvents\": [\n']
for i in range(12000):
    e = ev % (i % 10, i * 5, i)
    if i == 11000:
        e = e.replace('\"stream\": 7,', '\"stream\": 7')
    out.append(e + (',\n' if i < 11999 else '\n'))
out.append(']}\n')
sys.stdout.write(''.join(out))
" > badargs.json
vp kernels badargs.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: badargs.json: byte 1867834 (line 11002, column 149): expected ',' or '}' after an object member, found '"'
END

case_ 'a 100 MB string'
cd "$WORK"
{ printf '[{"name":"'; head -c 100000000 /dev/zero | tr '\\0' a; printf '"}]'; } > bigstr.json
vp kernels bigstr.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: bigstr.json: byte 9 (line 1, column 10): a string longer than 16 MiB (vprof's limit)
END

case_ 'kernel without dur: skipped with a warning'
cd "$WORK"
printf '[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2.5},{"ph":"X","cat":"kernel","name":"k","ts":"7.25"}]' > nodur.json
vp kernels -f csv nodur.json
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
100.0,2500,1,2500.0,2500.0,2500,2500,0.0,k
END
expect_stderr <<'END'
vprof: warning: nodur.json: 1 kernel events without "dur" were skipped
END

case_ 'invalid UTF-8 in a name: replaced and counted'
cd "$WORK"
printf '[{"ph":"X","cat":"kernel","name":"k\xff\\u00e9","ts":1,"dur":2}]' > utf8.json
vp kernels -f csv utf8.json
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
100.0,2000,1,2000.0,2000.0,2000,2000,0.0,k�é
END
expect_stderr <<'END'
vprof: warning: utf8.json: 1 invalid UTF-8 sequences in names were replaced by U+FFFD
END

case_ 'trailing data after the trace'
cd "$WORK"
printf '[]\n[]' > trail.json
vp kernels trail.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: trail.json: byte 3 (line 2, column 1): expected the end of the input after the trace, found '['
END

case_ 'ts that is not a number'
cd "$WORK"
printf '[{"ph":"X","cat":"kernel","name":"k","ts":"soon","dur":2}]' > badts.json
vp kernels badts.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: badts.json: byte 42 (line 1, column 43): expected a number of microseconds for "ts", found "soon"
END

case_ 'missing file'
cd "$WORK"
vp kernels nosuch.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: nosuch.json: cannot open: No such file or directory
END

case_ 'a directory without traces'
cd "$WORK"
mkdir -p notraces && touch notraces/readme.txt
vp kernels notraces
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: notraces: is a directory that holds no trace (*.json, *.json.gz) and no Ascend profile (a *_ascend_pt directory with ASCEND_PROFILER_OUTPUT/, a folder of them, a PROF_* directory, or msprof-analyze's cluster_analysis_output)
END

case_ 'a top-level value that is not JSON is ignored alone, with a warning'
cd "$WORK"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2}],"baseTimeNanoseconds": t7,"distributedInfo":{"rank":5}}' > badmeta.json
vp kernels -v -f csv badmeta.json
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
100.0,2000,1,2000.0,2000.0,2000,2000,0.0,k
END
expect_stderr <<'END'
vprof: warning: badmeta.json: 1 top-level member(s) outside "traceEvents" are not valid JSON and were ignored
vprof: badmeta.json: rank 5 (from distributedInfo.rank); read 1 events in 124 bytes, counted 1 kernels
END

case_ 'no file'
cd "$WORK"
vp kernels
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: kernels: no trace given (a file, or - for standard input)
Try 'vprof help kernels'.
END

case_ 'unknown format'
cd "$WORK"
vp kernels -f xml x
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: kernels: unknown format 'xml' (table, csv, tsv, json, md)
Try 'vprof help kernels'.
END

case_ 'bad --steps'
cd "$WORK"
vp kernels --steps a:b x
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: kernels: --steps: expected A:B, A:, :B or N, found 'a:b'
Try 'vprof help kernels'.
END

case_ 'bad --by'
cd "$WORK"
vp kernels --by colour x
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: kernels: --by: unknown grouping 'colour' (name, class, stream, rank, device, type, core)
Try 'vprof help kernels'.
END

case_ 'bad regex'
cd "$WORK"
vp kernels --filter '(' x
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: kernels: --filter '(': Unmatched ( or \(
Try 'vprof help kernels'.
END

case_ 'unknown command'
cd "$WORK"
vp kernal x
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: 'kernal' is not a vprof command. See 'vprof help'.
END


# One kernel grouping: summary's top kernels are kernels' rows, with the
# same totals and instances (summary/diff/check's metrics use them).
case_ 'kernels and summary agree on the top kernels (trace_filter, two ranks)'
cd "$DATA/hta"
vp kernels -f json --top 5 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
cp "$OUT_STDOUT" "$WORK/kernels.json"
vp summary -f json --top 5 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
cp "$OUT_STDOUT" "$WORK/summary.json"
python3 - "$WORK/kernels.json" "$WORK/summary.json" >"$WORK/agree" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))["tables"]["kernels"]["rows"][:5]
s = json.load(open(sys.argv[2]))["tables"]["top_kernels"]["rows"]
kk = [(r[-1], r[1], r[2]) for r in k]
ss = [(r[-1], r[1], r[2]) for r in s]
print("same" if kk == ss else "differ: %r %r" % (kk, ss))
print(" ".join("%d/%d" % (t, n) for _, t, n in kk))
PY
if [ "$(cat "$WORK/agree")" = "same
775252000/20 80709000/4 53040000/4 38499000/4 17660000/8" ]; then pass; else
    fail "kernels and summary: $(cat "$WORK/agree")"; fi
