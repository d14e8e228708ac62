# Output that a spreadsheet and a reader take as meant (issue 17, items 2,
# 8 and 9): csv/tsv print one table and --table picks it; kernels --by
# class/stream total per class/stream; --filter says what Time (%) is of.
# The per-stream figures were computed independently from the trace's
# events (Python's statistics over the kernel durations of both ranks):
# stream 84: 16 kernels, 564205000 ns, median 33413500, stdev 24988321.1.

case_ 'comm -f csv: the main table alone, the others named on stderr with --table'
cd "$DATA/hta"
vp comm -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)
0,1222847000,210320000,396199000,59216000,336983000,675544000,675191000,14.95,27.39
1,1231186000,271973000,379053000,75530000,303523000,655690000,651136000,19.93,24.51
END
expect_stderr <<'END'
vprof: comm: csv prints one table, comm; --table NAME prints one of the others: collectives, spread, stragglers
END

case_ '-q: no line about the other tables'
vp comm -q -f tsv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stderr_empty
if [ "$(grep -c . "$OUT_STDOUT")" = 3 ]; then pass; else fail "not one table of 2 rows"; fi

case_ 'summary -f csv: the metrics table (every number, one header)'
vp summary -f csv trace_filter_rank-0.json.gz
expect_status 0
if [ "$(grep -c '^Metric,Value,Unit$' "$OUT_STDOUT")" = 1 ] && ! grep -q '^$' "$OUT_STDOUT"; then pass; else fail "not one table"; fi
expect_stdout_has 'step.median,615120000.000000,ns'
expect_stderr <<'END'
vprof: summary: csv prints one table, metrics; --table NAME prints one of the others: run, gpu_time, top_kernels, findings
END

case_ 'summary --table run -f csv: that table, nothing on stderr'
vp summary -f csv --table run trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Accelerator,GPUs,Ranks,Steps,Step Median (ns),Step Min (ns),Step Max (ns)
-,1,1,2,615120000.0,607312000.0,622928000.0
END
expect_stderr_empty

case_ '--table in json: only that table'
vp comm -f json --table spread trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(list(d["tables"]) != ["spread"])' "$OUT_STDOUT"; then pass; else fail "not the spread table alone"; fi

case_ '--table list: the names and what each holds, exit 0, no input read'
vp steps --table list
expect_status 0
expect_stdout <<'END'
steps            per step (and rank): GPU compute, communication, idle, CPU phases
summary          the step columns over the steps
temporal         with --idle: HTA's temporal breakdown per rank
idle             with --idle: HTA's idle time breakdown
step_trace_time  msprof-analyze's step_trace_time columns (Ascend)
END

case_ '--table with an unknown name: exit 2, the valid names'
vp diff --table kernel x y
expect_status 2
expect_stderr <<'END'
vprof: diff: --table: no table 'kernel' (diff's tables: kernels, runs, classes, metrics, gates; list says what each holds)
Try 'vprof help diff'.
END

case_ '--table of a table this input does not give: exit 2, the ones it gives'
vp comm -f csv --table spread trace_filter_rank-0.json.gz
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: comm: --table spread: this input and these options give no spread table (they give: comm, collectives)
Try 'vprof help comm'.
END

case_ 'a command with one table has no --table'
vp kernels --table kernels trace_filter_rank-0.json.gz
expect_status 2

case_ 'kernels --by stream: one row per stream, exact medians (both ranks)'
vp kernels -f csv --by stream trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Stream
44.9,564205000,16,35262812.5,33413500.0,4624000,90771000,24988321.1,84
37.1,465997000,2022,230463.4,23000.0,3000,28836000,1303263.9,7
16.8,211047000,4,52761750.0,52453500.0,42496000,63644000,11726718.8,203
1.3,16296000,216,75444.4,5000.0,3000,1232000,230371.8,23
END
expect_stderr_empty

case_ 'kernels --by class: one row per class'
vp kernels -f csv --by class --include memcpy,memset,sync event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Class
50.5,49000,4,12250.0,6000.0,1000,36000,16520.2,compute
47.4,46000,4,11500.0,5500.0,2000,33000,14433.8,sync
2.1,2000,1,2000.0,2000.0,2000,2000,0.0,memory
END

case_ 'kernels --by class,name: a row per kernel name and its class (the rows --by class gave before)'
vp kernels -f csv --by class,name --top 2 trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Class,Name
65.3,396199000,10,39619900.0,39327000.0,11727000,67827000,20951342.3,communication,"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
3.9,23469000,2,11734500.0,11734500.0,11696000,11773000,54447.2,compute,"void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<c10::Half, float, c10::Half, 2ul, 32>(at::GenericPackedTensorAccessor<float, 2ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<c10::Half, 2ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, bool, at::PhiloxCudaState, fbgemm_gpu::FixedDivisor, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<at::AccumulateType<c10::Half, true>::type, 2ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, int, bool, at::GenericPackedTensorAccessor<at::AccumulateType<c10::Half, true>::type, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<at::AccumulateType<c10::Half, true>::type, 1ul, at::RestrictPtrTraits, long>, at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, float, float, float, long)"
30.8,186851000,1142,163617.3,20500.0,3000,7801000,536750.2,,(others: 192 rows)
END

case_ 'kernels --by stream --top 1: the folded row keeps json types (no label in the int column); a note says which row it is'
vp kernels --by stream --top 1 trace_filter_rank-0.json.gz
expect_status 0
expect_stdout_has 'note: the last row, with no stream, folds the other 3 rows (--top)'

case_ 'kernels --filter: a note says what Time (%) is a share of (table), stderr for csv'
vp kernels --filter '^nccl' trace_filter_rank-0.json.gz
expect_status 0
expect_stdout_has "note: Time (%) is each row's share of the 396 ms of kernel time that --filter keeps, not of all kernel time"
vp kernels -f csv --exclude '^nccl' --top 1 trace_filter_rank-0.json.gz
expect_status 0
expect_stderr <<'END'
vprof: kernels: note: Time (%) is each row's share of the 210 ms of kernel time that --exclude keeps, not of all kernel time
END

case_ 'mfu -f csv: its first table (mfu), one "vprof: " on the note (issue 34)'
# mfu has a getopt loop of its own: the note once read "vprof: vprof: csv
# prints one table, model" and printed the model table
vp mfu --model "$DATA/models/llama-3-8b.json" --seq-len 8192 --global-batch 4 --step-time 1s \
    --world-size 8 --peak-tflops 989 -f csv
expect_status 0
expect_stdout <<'END'
Convention,Step Time (ns),Tokens/s/GPU,GFLOP/token,TFLOP/s/GPU,Peak TFLOP/s,MFU (%)
full,1000000000,4096,57.913,237.2,989.00,24.0
causal,1000000000,4096,51.470,210.8,989.00,21.3
END
expect_stderr <<'END'
vprof: mfu: csv prints one table, mfu; --table NAME prints one of the others: model, flops
END

case_ 'launches --list -f csv: the list, the table --list asks for (issue 34)'
vp launches --list --top 2 -f csv trace_filter_rank-0.json.gz
expect_status 0
if [ "$(head -1 "$OUT_STDOUT")" = 'Correlation,CPU Duration (ns),GPU Duration (ns),Launch Delay (ns),Kind,API Name,Name' ] &&
    [ "$(wc -l <"$OUT_STDOUT")" = 3 ]; then pass; else fail "not the list: $(head -1 "$OUT_STDOUT")"; fi
expect_stdout_has '7173944,5000,12000,111018000,kernel,cudaLaunchKernel,"void at::native::elementwise_kernel<128, 2,'
expect_stderr <<'END'
vprof: launches: csv prints one table, launches; --table NAME prints one of the others: launch_summary
END

case_ 'steps --idle, counters --time-series, memory --leaks: csv prints the table the option asks for'
vp steps --idle -f csv trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Idle (ns),Compute (ns),Non-Compute (ns),Span (ns),Idle (%),Compute (%),Non-Compute (%)
0,675191000,210320000,337336000,1222847000,55.21,17.20,27.59
END
vp counters --time-series -f tsv trace_filter_rank-0.json.gz
expect_status 0
if [ "$(head -1 "$OUT_STDOUT")" = "$(printf 'Rank\tStream\tTime (ns)\tQueue Length')" ]; then pass; else
    fail "not queue_series: $(head -1 "$OUT_STDOUT")"; fi
expect_stderr <<'END'
vprof: counters: tsv prints one table, queue_series; --table NAME prints one of the others: queue, bandwidth, bandwidth_series
END
vp memory --leaks -f csv "$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
if [ "$(head -1 "$OUT_STDOUT")" = 'Device,Bytes (B),Allocations,Site' ]; then pass; else
    fail "not leaks: $(head -1 "$OUT_STDOUT")"; fi

# Last: need_shared skips the rest of the file when ../shared is absent.
case_ 'real fixture nccl_data: kernels --by stream, one row per stream (counts and medians as Python computes them from the events: 2679 and 21, 16.064 us and 2368.513 us); comm csv is the per-rank table alone'
need_shared fixtures/real/hta/tests/data/nccl_parser_config/nccl_data.json.gz
cd "$SHARED/fixtures/real/hta/tests/data/nccl_parser_config"
vp kernels -f csv --by stream nccl_data.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Stream
71.2,115655847,2679,43171.3,16064.0,1344,804565,66801.3,7
28.8,46876493,21,2232214.0,2368513.0,7648,5993392,1904988.6,40
END
vp comm -f csv nccl_data.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)
0,660551005,115655847,46876493,7317025,39559468,505335690,503050991,15.61,5.93
END
expect_stderr <<'END'
vprof: comm: csv prints one table, comm; --table NAME prints one of the others: collectives
END
