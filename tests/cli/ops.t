# vprof ops: torch's key_averages columns per operator. The numbers on
# the bundled Kineto traces equal the Python reference of torch's tree
# (tests/torch/ops-reference checks every row); those on the two small
# traces written here are worked out by hand in the comments; the torch
# fixtures' own key_averages() are compared row by row by
# tests/torch/compare-ops.

# torch's legacy trace (no Kineto): a bare array, pid "CPU functions",
# integer us, no cat.  aten::relu [40,60] outlasts aten::linear [0,50], so
# it is ProfilerStep#1's child: #1's self = 60 - 50 - 20 = -10 us, #2's
# 12 us, so ProfilerStep* 2 calls, 72 us, self 2 us.  aten::to [100,150]
# has one child, aten::to [110,140]: torch folds it into its parent
# (_remove_dup_nodes), so aten::to is 1 call, self 50 - 20 (_to_copy).
cat >"$WORK/legacy.json" <<'END'
[{"name": "ProfilerStep#1", "ph": "X", "ts": 0, "dur": 60, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::linear", "ph": "X", "ts": 0, "dur": 50, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::relu", "ph": "X", "ts": 40, "dur": 20, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::to", "ph": "X", "ts": 100, "dur": 50, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::to", "ph": "X", "ts": 110, "dur": 30, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::_to_copy", "ph": "X", "ts": 115, "dur": 20, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "ProfilerStep#2", "ph": "X", "ts": 200, "dur": 12, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::empty", "ph": "X", "ts": 200, "dur": 0, "tid": 1, "pid": "CPU functions", "args": {}}
]
END
# A Kineto trace, runtime calls after the operators as Kineto writes them.
# Step 5: linear 50 us, its cudaLaunchKernel 10 us launches gemm 25 us;
# step 6: linear 20 us, launch 5 us, gemm 3.5 us.  ProfilerStep* self =
# (100 - 50) + (30 - 20) = 60 us; linear self = 40 + 15 = 55 us, Self GPU
# 28.5 us; with --python the module frame [5,85] sits between step 5 and
# linear: its self 80 - 50 = 30 us, step 5's 100 - 80.
cat >"$WORK/kineto.json" <<'END'
{"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 1, "tid": 1, "ts": 5, "dur": 80},
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10, "dur": 50, "args": {"Input Dims": [[4, 8], [16, 8], [16]]}},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#6", "pid": 1, "tid": 1, "ts": 200, "dur": 30},
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 205, "dur": 20, "args": {"Input Dims": [[2,8],[16,8],[16]]}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 10, "args": {"correlation": 7}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 210, "dur": 5, "args": {"correlation": 9}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 40, "dur": 25, "args": {"correlation": 7}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 215, "dur": 3.5, "args": {"correlation": 9}}
]}
END

# with_modules=True frames: Net_0 [2,92] holds Linear_0 twice ([5,45] and
# [50,70], launching 25 and 4 us of GPU work) and aten::relu (3 us), with a
# non-module python frame between: Net_0 self 90 - 60 = 30 us, GPU Total
# 32 us, Self GPU 32 - 29 = 3 us; Linear_0 (path Net_0.Linear_0) 2 calls.
cat >"$WORK/modules.json" <<'END'
{"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "python_function", "name": "nn.Module: Net_0", "pid": 1, "tid": 1, "ts": 2, "dur": 90},
{"ph": "X", "cat": "python_function", "name": "torch/nn/modules/module.py(1500): _call_impl", "pid": 1, "tid": 1, "ts": 4, "dur": 85},
{"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 1, "tid": 1, "ts": 5, "dur": 40},
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10, "dur": 30},
{"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 1, "tid": 1, "ts": 50, "dur": 20},
{"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 75, "dur": 10},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 10, "args": {"correlation": 7}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 55, "dur": 5, "args": {"correlation": 8}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 78, "dur": 5, "args": {"correlation": 9}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 40, "dur": 25, "args": {"correlation": 7}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 65, "dur": 4, "args": {"correlation": 8}},
{"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 80, "dur": 3, "args": {"correlation": 9}}
]}
END

case_ 'legacy trace: steps folded, negative self time, an only child of its name folded'
vp ops -f csv "$WORK/legacy.json"
expect_status 0
expect_stdout <<'END'
Name,Calls,CPU Total (ns),Self CPU (ns),CPU Avg (ns)
ProfilerStep*,2,72000,2000,36000.0
aten::linear,1,50000,50000,50000.0
aten::to,1,50000,30000,50000.0
aten::_to_copy,1,20000,20000,20000.0
aten::relu,1,20000,20000,20000.0
aten::empty,1,0,0,0.0
END
expect_stderr_empty

case_ 'legacy trace, table, sorted by self CPU'
vp ops --sort self_cpu "$WORK/legacy.json"
expect_status 0
expect_stdout <<'END'
Name            Calls  CPU Total  Self CPU  CPU Avg
--------------  -----  ---------  --------  -------
aten::linear        1    50.0 us   50.0 us  50.0 us
aten::to            1    50.0 us   30.0 us  50.0 us
aten::_to_copy      1    20.0 us   20.0 us  20.0 us
aten::relu          1    20.0 us   20.0 us  20.0 us
ProfilerStep*       2    72.0 us   2.00 us  36.0 us
aten::empty         1       0 ns      0 ns     0 ns
END

case_ 'kineto: GPU columns through correlation ids'
vp ops -f csv "$WORK/kineto.json"
expect_status 0
expect_stdout <<'END'
Name,Calls,CPU Total (ns),Self CPU (ns),CPU Avg (ns),Self GPU (ns),GPU Total (ns)
ProfilerStep*,2,130000,60000,65000.0,0,28500
aten::linear,2,70000,55000,35000.0,28500,28500
END

case_ 'kineto: --python makes the module frame an operator'
vp ops -f csv --python "$WORK/kineto.json"
expect_status 0
expect_stdout <<'END'
Name,Calls,CPU Total (ns),Self CPU (ns),CPU Avg (ns),Self GPU (ns),GPU Total (ns)
ProfilerStep*,2,130000,30000,65000.0,0,28500
nn.Module: Linear_0,1,80000,30000,80000.0,0,25000
aten::linear,2,70000,55000,35000.0,28500,28500
END

case_ 'kineto: --by shape, Input Dims as torch prints them'
vp ops -f csv --by shape "$WORK/kineto.json"
expect_status 0
expect_stdout <<'END'
Name,Input Dims,Calls,CPU Total (ns),Self CPU (ns),CPU Avg (ns),Self GPU (ns),GPU Total (ns)
ProfilerStep*,[],2,130000,60000,65000.0,0,28500
aten::linear,"[[4, 8], [16, 8], [16]]",1,50000,40000,50000.0,25000,25000
aten::linear,"[[2, 8], [16, 8], [16]]",1,20000,15000,20000.0,3500,3500
END

case_ 'kineto: --steps 6 and --runtime rows'
vp ops -f csv --steps 6 --runtime "$WORK/kineto.json"
expect_status 0
expect_stdout <<'END'
Name,Calls,CPU Total (ns),Self CPU (ns),CPU Avg (ns),Self GPU (ns),GPU Total (ns)
ProfilerStep*,1,30000,10000,30000.0,0,3500
aten::linear,1,20000,15000,20000.0,3500,3500
cudaLaunchKernel,1,5000,5000,5000.0,0,0
END

case_ '--by module: nn.Module paths, self = outside child modules'
vp ops --by module -f csv "$WORK/modules.json"
expect_status 0
expect_stdout <<'END'
Module,Calls,CPU Total (ns),Self CPU (ns),CPU Avg (ns),Self GPU (ns),GPU Total (ns)
Net_0,1,90000,30000,90000.0,3000,32000
Net_0.Linear_0,2,60000,60000,30000.0,29000,29000
END

case_ '--by module on a trace without module frames: a note says so'
vp ops --by module "$DATA/hta/event_sync_trace.json.gz"
expect_status 0
expect_stdout <<'END'
Module  Calls  CPU Total  Self CPU  CPU Avg  Self GPU  GPU Total
------  -----  ---------  --------  -------  --------  ---------
note: no nn.Module frames in the input (the profiler records them with with_stack=True and with_modules=True)
END

case_ 'real trace, csv: Self GPU of the ops whose own launches ran kernels'
cd "$DATA/hta"
vp ops -f csv event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Name,Calls,CPU Total (ns),Self CPU (ns),CPU Avg (ns),Self GPU (ns),GPU Total (ns)
ProfilerStep*,1,3154000,726000,3154000.0,36000,51000
aten::ones,1,2245000,8000,2245000.0,0,1000
aten::empty,1,2187000,2187000,2187000.0,0,0
aten::fill_,1,50000,14000,50000.0,1000,1000
aten::is_nonzero,1,47000,2000,47000.0,0,2000
aten::item,1,45000,3000,45000.0,0,2000
aten::_local_scalar_dense,1,42000,7000,42000.0,2000,2000
aten::sum,1,39000,28000,39000.0,11000,11000
aten::gt,1,33000,21000,33000.0,1000,1000
aten::as_strided,1,1000,1000,1000.0,0,0
END
expect_stderr_empty

case_ 'real trace, table with --top'
cd "$DATA/hta"
vp ops --top 3 event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Name              Calls  CPU Total  Self CPU  CPU Avg  Self GPU  GPU Total
----------------  -----  ---------  --------  -------  --------  ---------
ProfilerStep*         1    3.15 ms    726 us  3.15 ms   36.0 us    51.0 us
aten::ones            1    2.25 ms   8.00 us  2.25 ms      0 ns    1.00 us
aten::empty           1    2.19 ms   2.19 ms  2.19 ms      0 ns       0 ns
(others: 7 rows)      7     257 us   76.0 us  36.7 us   15.0 us    19.0 us
END

case_ 'tsv, sorted by self CPU'
cd "$DATA/hta"
vp ops -f tsv --sort self_cpu --top 2 event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Name	Calls	CPU Total (ns)	Self CPU (ns)	CPU Avg (ns)	Self GPU (ns)	GPU Total (ns)
aten::empty	1	2187000	2187000	2187000.0	0	0
ProfilerStep*	1	3154000	726000	3154000.0	36000	51000
(others: 8 rows)	8	2502000	84000	312750.0	15000	20000
END

case_ 'md, sorted by Self GPU (torch sort_by name)'
cd "$DATA/hta"
vp ops -f md --sort self_cuda_time_total --top 3 amd_trace.json.gz
expect_status 0
expect_stdout <<'END'
| Name | Calls | CPU Total | Self CPU | CPU Avg | Self GPU | GPU Total |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
| aten::copy\_ | 2 | 137 us | 40.9 us | 68.4 us | 38.2 us | 38.2 us |
| aten::addmm | 1 | 182 us | 133 us | 182 us | 24.5 us | 24.5 us |
| aten::sum | 1 | 32.8 us | 27.6 us | 32.8 us | 13.6 us | 13.6 us |
| (others: 41 rows) | 69 | 34.2 ms | 9.85 ms | 495 us | 72.8 us | 399 us |
END

case_ 'json, by shape on a trace without Input Dims: a note says so'
cd "$DATA/hta"
vp ops -f json --top 2 --by shape event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
{"schema":"vprof.ops/1","tables":{"ops":{"columns":[{"name":"Name","type":"text"},{"name":"Input Dims","type":"text"},{"name":"Calls","type":"int"},{"name":"CPU Total (ns)","type":"ns"},{"name":"Self CPU (ns)","type":"ns"},{"name":"CPU Avg (ns)","type":"ns"},{"name":"Self GPU (ns)","type":"ns"},{"name":"GPU Total (ns)","type":"ns"}],"rows":[["ProfilerStep*","[]",1,3154000,726000,3154000,36000,51000],["aten::ones","[]",1,2245000,8000,2245000,0,1000],["(others: 8 rows)",null,8,2444000,2263000,305500,15000,19000]],"notes":["no operator has \"Input Dims\" (Kineto traces recorded with record_shapes=True have them; torch's legacy trace never does)"]}}}
END

case_ 'two ranks, --by rank, sorted by Self GPU'
cd "$DATA/hta"
vp ops --by rank --sort self_gpu --top 4 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Name,Rank,Calls,CPU Total (ns),Self CPU (ns),CPU Avg (ns),Self GPU (ns),GPU Total (ns)
nccl:all_to_all,1,4,1075000,1010000,268750.0,229700000,229700000
nccl:all_to_all,0,4,929000,846000,232250.0,182403000,182403000
nccl:all_reduce,0,4,385000,332000,96250.0,107656000,107656000
torch::autograd::CppNode<SplitLookupFunction_rowwise_adagrad_Op>,1,2,1182000,799000,591000.0,106365000,106570000
(others: 374 rows),,4688,7903190000,2572730000,1685834.0,649250000,5765667000
END

# The two steps of rank 0 add up to the whole (every operator of this
# trace is in a step): calls 1,187 + 1,181 = 2,368; CPU total 2,002,563 us
# + 1,927,482 us = 3,930,045 us; Self GPU 305,603 us + 302,241 us =
# 607,844 us.
case_ '--steps: one step at a time'
cd "$DATA/hta"
vp ops --steps 552 --top 3 -f csv trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Name,Calls,CPU Total (ns),Self CPU (ns),CPU Avg (ns),Self GPU (ns),GPU Total (ns)
ProfilerStep*,1,622928000,8721000,622928000.0,0,189042000
## backward ##,1,229175000,229124000,229175000.0,0,6000
## optimizer ##,1,212752000,229000,212752000.0,0,66745000
(others: 187 rows),1184,937708000,410566000,791983.1,305603000,1343147000
END
vp ops --steps 551 --top 1 -f csv trace_filter_rank-0.json.gz
expect_stdout <<'END'
Name,Calls,CPU Total (ns),Self CPU (ns),CPU Avg (ns),Self GPU (ns),GPU Total (ns)
ProfilerStep*,1,607312000,8611000,607312000.0,0,172896000
(others: 191 rows),1180,1320170000,627209000,1118788.1,302241000,1347797000
END
vp ops --top 1 -f csv trace_filter_rank-0.json.gz
expect_stdout <<'END'
Name,Calls,CPU Total (ns),Self CPU (ns),CPU Avg (ns),Self GPU (ns),GPU Total (ns)
ProfilerStep*,2,1230240000,17332000,615120000.0,0,361938000
(others: 194 rows),2366,2699805000,1267128000,1141084.1,607844000,2757695000
END

case_ '--steps selecting no step warns'
cd "$DATA/hta"
vp ops --steps 1 -f csv trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Name,Calls,CPU Total (ns),Self CPU (ns),CPU Avg (ns),Self GPU (ns),GPU Total (ns)
END
expect_stderr <<'END'
vprof: warning: trace_filter_rank-0.json.gz: --steps selects none of the steps present (ProfilerStep#551 to #552)
END

case_ '-j 1 = -j 2, and --save-part then reduce gives the same table'
cd "$DATA/hta"
vp ops --by rank,shape -f csv -j 1 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz amd_trace.json.gz
expect_status 0
cp "$OUT_STDOUT" "$WORK/j1.csv"
vp ops --by rank,shape -f csv -j 2 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz amd_trace.json.gz
expect_stdout_file "$WORK/j1.csv"
vp ops --by rank,shape --save-part "$WORK/part%i.vpart" trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz amd_trace.json.gz
expect_status 0
vp reduce -f csv "$WORK/part0.vpart" "$WORK/part1.vpart" "$WORK/part2.vpart"
expect_status 0
expect_stdout_file "$WORK/j1.csv"

case_ 'a truncated trace: exit 3 with the offset'
head -c 700 "$WORK/kineto.json" >"$WORK/cut.json"
vp ops "$WORK/cut.json"
expect_status 3
expect_stderr_has 'cut.json: byte 626 (line 7, column 1): the input ends at byte 700'

case_ 'usage errors: exit 2 naming the option'
vp ops --by stream x.json
expect_status 2
expect_stderr_has "vprof: ops: --by: unknown grouping 'stream' (name, shape, rank, module)"
vp ops --by module,shape x.json
expect_status 2
expect_stderr_has "vprof: ops: --by: module and shape do not go together"
vp ops --sort med x.json
expect_status 2
expect_stderr_has "vprof: ops: --sort: unknown key 'med'"
vp ops
expect_status 2
expect_stderr_has 'vprof: ops: no trace given'
