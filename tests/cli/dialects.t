# Traces of torch 1.8-1.10 (Kineto's first dialect: Operator, Runtime,
# Kernel, Memcpy, Memset; [memory] with Bytes only; computeProperties) read
# as fully as today's, and summary's call findings that leave the
# profiler's edges out.  The traces are real: the wild corpus
# (tests/wild/SOURCE.md, in ../shared/fixtures/wild; the file skips without it).
# Expected values: tests/cli/dialects_expect.py computes them from the raw
# JSON without vprof's code (steps: forward/backward per step; memory: the
# replay of Bytes; edges: where each runtime call falls), and a copy of a
# trace with today's category names must give the same output as the
# original (today's names are the ones tests/hta checks against HTA).

cd "$WORK" || exit 1
for f in kineto-gpu-metrics-computeproperties kineto-resnet50-torch1.9-w0 tracelens-mi210-gpu-only \
         tracelens-h100-qwen1.5 hta-simple-add; do
    need_wild $f.json.gz
done
W=$WILD
OLD=$W/kineto-gpu-metrics-computeproperties.json.gz
R50=$W/kineto-resnet50-torch1.9-w0.json.gz

# today's category names for the same events
gzip -dc "$OLD" | sed -e 's/"cat": "Operator"/"cat": "cpu_op"/' \
    -e 's/"cat": "Runtime"/"cat": "cuda_runtime"/' -e 's/"cat": "Kernel"/"cat": "kernel"/' \
    -e 's/"cat": "Memcpy"/"cat": "gpu_memcpy"/' -e 's/"cat": "Memset"/"cat": "gpu_memset"/' \
    -e 's/"computeProperties"/"deviceProperties"/' >new.json

case_ 'critical-path: the old dialect builds the CPU side too (was gpu_compute_bound 100 %)'
vp critical-path --table summary new.json
cp "$OUT_STDOUT" new.out
vp critical-path --table summary "$OLD"
expect_status 0
expect_stdout_file new.out
expect_stdout <<'END'
Bound By      Time    Time
---------  -------  ------
cpu_bound  13.4 ms  100.0%
note: window 1621401187223358..1621401187236768 us (1 annotation instances); graph 496 nodes, 494 edges; path 224 nodes, 223 edges, 112 events, 13395 us. Empty Bound By: dependency and sync edges (0 time)
END

case_ 'summary --critical-path: the old dialect'"'"'s step is CPU-bound, as with today'"'"'s names (was GPU-bound)'
vp summary --critical-path --table step_bound new.json
cp "$OUT_STDOUT" new.out
vp summary --critical-path --table step_bound "$OLD"
expect_status 0
expect_stdout_file new.out
expect_stdout_has 'cpu_bound'

case_ 'summary: computeProperties names the accelerator (was "-")'
vp summary --table run "$OLD"
expect_status 0
expect_stdout_has 'Tesla V100-DGXS-32GB     1      1      1      13.4 ms   13.4 ms   13.4 ms'

case_ 'steps: forward and backward from the autograd nodes of torch 1.9 (was Backward 0 ns)'
# dialects_expect.py steps: forward 50729 50093 51065 50764 52156 49850 us,
# backward 36114 35966 34404 38342 35427 34185 us (339 autograd ops a step)
vp steps -f csv --table steps "$R50"
expect_status 0
expect_stdout <<'END'
Step,CPU Time (ns),GPU Span (ns),GPU Busy (ns),Compute (ns),Comm Exposed (ns),Memory (ns),GPU Idle (ns),Data Loading (ns),Forward (ns),Backward (ns),Optimizer (ns),Kernels,Short Kernels
5,176078000,118872000,100629000,98598000,0,2031000,18243000,68694000,50729000,36114000,20384000,1462,904
6,173992000,117806000,100606000,98570000,0,2036000,17200000,68777000,50093000,35966000,18936000,1462,906
7,176918000,118821000,100618000,98596000,0,2022000,18203000,73418000,51065000,34404000,17822000,1462,909
8,181259000,118402000,100650000,98623000,0,2027000,17752000,71425000,50764000,38342000,20491000,1462,904
9,176468000,119833000,100528000,98504000,0,2024000,19305000,70844000,52156000,35427000,17897000,1462,904
10,164261000,117529000,100527000,98641000,0,1886000,17002000,62633000,49850000,34185000,17457000,1462,902
END

case_ 'steps and ops: the old dialect and today'"'"'s names give the same tables'
vp steps "$OLD"
cp "$OUT_STDOUT" old.out
vp steps new.json
expect_stdout_file old.out
vp ops "$OLD"
cp "$OUT_STDOUT" old.out
vp ops new.json
expect_stdout_file old.out

case_ 'memory: [memory] events with Bytes only are replayed (was "no [memory] events")'
# dialects_expect.py memory: cpu 4618 events, peak 57803264 B at
# 1623142623704921 us, final 19267840 B; cuda:0 8220 events, peak
# 2791636480 B at 1623142623582083 us, final 0 B; the innermost Operator
# of the peak's thread at each peak: aten::empty
vp memory -f csv "$R50"
expect_status 0
expect_stdout <<'END'
Device,Events,Peak Allocated (B),Peak ts (ns),Peak Since Start (ns),Peak Op,Peak Reserved (B),Final Allocated (B),Final Reserved (B)
cpu,4618,57803264,1623142623704921000,244905000,aten::empty,,19267840,
cuda:0,8220,2791636480,1623142623582083000,122067000,aten::empty,,0,
END

case_ 'summary: no api_share for the hipDeviceSynchronize after the last launch'
# dialects_expect.py edges: the one hipDeviceSynchronize (1.33 ms, 58.9 %
# of vprof api's time) starts after the last launch; the program's own
# calls are launches and hipGetDevicePropertiesR0600
vp summary --table findings "$W/tracelens-mi210-gpu-only.json.gz"
expect_status 0
if grep -q 'api_share' "$OUT_STDOUT"; then fail "api_share fired: $(cat "$OUT_STDOUT")"; else pass; fi

case_ 'summary: no api_share for the syncs before the first launch and after the last step'
# dialects_expect.py edges: cudaDeviceSynchronize 14.1 ms before the first
# launch (it waits for work queued before the profiler started) and 2.17 ms
# after the last launch; vprof api: 75.3 %
vp summary --table findings "$W/tracelens-h100-qwen1.5.json.gz"
expect_status 0
if grep -q 'api_share' "$OUT_STDOUT"; then fail "api_share fired: $(cat "$OUT_STDOUT")"; else pass; fi

case_ 'summary: api_share over the program'"'"'s calls says what it left out'
# dialects_expect.py edges: program cudaDeviceSynchronize 3 calls 2404 us;
# before the first launch 4 calls (cudaDeviceGetStreamPriorityRange 19.58 s
# of context start-up, cudaMalloc, 2 cudaStreamIsCapturing); after the last
# 3 (2 cudaDeviceSynchronize 5338 us, cudaFree 347 us)
vp summary --table findings "$W/hta-simple-add.json.gz"
expect_status 0
expect_stdout_has 'cudaDeviceSynchronize: 93.7% of the program'"'"'s runtime API time in the traces, 2.40 ms'
expect_stdout_has '(2404000 ns) in 3 calls; left out as the profiler'"'"'s edges (vprof api counts them): 4'
expect_stdout_has 'calls before the first launch (19.6 s), 3 calls after the last launch (5.68 ms), the'
expect_stdout_has 'most cudaDeviceGetStreamPriorityRange: 1 call, 19.6 s'

case_ 'summary: the replayed peak, and no Reserved it does not know'
# dialects_expect.py memory: cuda:0 peaks at 2791636480 B
vp summary -f csv --table memory "$R50"
expect_status 0
expect_stdout <<'END'
Peak Allocated (B),Peak Reserved (B)
2791636480,
END
