# vprof diff on HTA's trace_compare pair (base vs test): the exact deltas.
# base has 3 instances of the add<int> kernel (4 us each), test 2; the
# other kernels are unchanged.

need_shared fixtures/real/hta/tests/data/trace_compare

case_ 'trace_compare: kernel deltas'
cd "$SHARED/fixtures/real/hta/tests/data"
vp_tables "runs kernels classes metrics" diff -f csv trace_compare/base/base.json.gz trace_compare/test/test.json.gz
expect_status 0
expect_stdout <<'END'
Property,Base,New,Differs
device,-,-,no
GPUs,1,1,no
compute capability,-,-,no
world size,-,-,no
ranks,1,1,no
steps,2,2,no
trace schema,-,-,no

Base Total (ns),New Total (ns),Delta (ns),Relative (%),Base Instances,New Instances,Status,Name
12000,8000,-4000,-33.3,3,2,,"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<int>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<int>, at::detail::Array<char*, 3>)"
5000,5000,0,0.0,1,1,,"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"
415000,415000,0,0.0,2,2,,"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"

Class,Base Total (ns),New Total (ns),Delta (ns),Relative (%)
compute,432000,428000,-4000,-0.9

Metric,Base,New,Delta,Relative (%),Unit
ranks,1.000000,1.000000,0.000000,0.0,count
gpus,1.000000,1.000000,0.000000,0.0,count
steps,2.000000,2.000000,0.000000,0.0,count
step.median,111223500.000000,111223500.000000,0.000000,0.0,ns
step.mean,111223500.000000,111223500.000000,0.000000,0.0,ns
step.min,100298000.000000,100298000.000000,0.000000,0.0,ns
step.max,122149000.000000,122149000.000000,0.000000,0.0,ns
step.spread_pct,19.646028,19.646028,0.000000,,percent (Delta: points)
gpu.span,274498000.000000,274353000.000000,-145000.000000,-0.1,ns
gpu.busy_pct,0.617127,0.615995,-0.001132,,percent (Delta: points)
gpu.compute_pct,0.157378,0.156003,-0.001375,,percent (Delta: points)
gpu.idle_pct,99.382873,99.384005,0.001132,,percent (Delta: points)
memcpy.pct,0.459748,0.459991,0.000243,,percent (Delta: points)
comm.total,0.000000,0.000000,0.000000,,ns
comm.exposed,0.000000,0.000000,0.000000,,ns
comm.exposed_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
comm.exposed_step_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
kernels.count,6.000000,5.000000,-1.000000,-16.7,count
kernels.total,432000.000000,428000.000000,-4000.000000,-0.9,ns
kernels.short_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
dataloader.pct,0.000000,0.000000,0.000000,,percent (Delta: points)
sync.count,0.000000,0.000000,0.000000,,count
sync.time,0.000000,0.000000,0.000000,,ns
sync.step_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
attention.pct,0.000000,0.000000,0.000000,,percent (Delta: points)
attention.flash,0.000000,0.000000,0.000000,,count
launches.bound_pct,0.000000,0.000000,0.000000,,percent (Delta: points)
api.top_pct,96.357616,96.357616,0.000000,,percent (Delta: points)
END
expect_stderr <<'END'
END

case_ 'trace_compare: a gate that fails on the drop and one that passes'
cd "$SHARED/fixtures/real/hta/tests/data"
vp diff -f github --fail-if 'kernel:CUDAFunctor_add<int> < -20%' --fail-if 'kernel:FillFunctor != +0%' trace_compare/base/base.json.gz trace_compare/test/test.json.gz
expect_status 1
expect_stdout <<'END'
::error title=vprof diff fail-if failed::kernel:CUDAFunctor_add<int> < -20%25: kernel:CUDAFunctor_add<int> 12.0 us -> 8.00 us (-33.33 %25; < -20 %25 is true)
::notice title=vprof diff fail-if passed::kernel:FillFunctor != +0%25: kernel:FillFunctor 415 us -> 415 us (+0.00 %25; != +0 %25 is false)
END
expect_stderr <<'END'
vprof: diff: gate failed: kernel:CUDAFunctor_add<int> < -20%: kernel:CUDAFunctor_add<int> 12.0 us -> 8.00 us (-33.33 %; < -20 % is true)
END

