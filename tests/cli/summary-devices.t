# vprof summary's GPUs (issue 17, item 9): the devices that ran GPU work
# (a kernel, memory copy or set in the counted work), a device of each rank
# counting once, never the entries of deviceProperties, which list every
# GPU of the machine.  HTA's event_sync trace lists 8 GPUs and runs
# everything on device 0 (its 9 GPU events all have pid 0, args.device 0);
# trace_filter's ranks 0 and 1 run on devices 0 and 1 and list none;
# HTA's AMD trace lists 4 and runs on device 2.

DP8='"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB","computeMajor":8,"computeMinor":0},{"id":1},{"id":2},{"id":3},{"id":4},{"id":5},{"id":6},{"id":7}]'
k() { # k PID DEVICE TS CORR: a kernel
    printf '{"ph":"X","cat":"kernel","name":"k%s","pid":%s,"tid":7,"ts":%s,"dur":5,"args":{"device":%s,"stream":7,"correlation":%s}}' "$2" "$1" "$3" "$2" "$4"
}
mk() { # mk FILE RANK EVENTS...
    local f=$1 r=$2
    shift 2
    local IFS=,
    printf '{%s,"distributedInfo":{"rank":%s,"world_size":2},"traceEvents":[%s]}\n' "$DP8" "$r" "$*" > "$WORK/$f"
}

case_ "event_sync: 8 GPUs listed, one ran kernels: GPUs 1, and a note gives the 8"
cd "$DATA/hta"
vp summary --table run event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Accelerator            GPUs  Ranks  Steps  Step Median  Step Min  Step Max
---------------------  ----  -----  -----  -----------  --------  --------
NVIDIA A100-PG509-200     1      1      1      3.15 ms   3.15 ms   3.15 ms
note: GPUs: the devices that ran GPU work; the first trace's deviceProperties lists 8
END
expect_stderr_empty

case_ "the gpus metric and check agree with the table"
cd "$DATA/hta"
vp check --expect 'gpus == 1' --expect 'ranks == 1' event_sync_trace.json.gz
expect_status 0
vp check --expect 'gpus > 1' event_sync_trace.json.gz
expect_status 1
expect_stdout_has "gpus = 1 (> 1 is false)"

case_ "AMD: 4 listed, device 2 ran the work"
cd "$DATA/hta"
vp summary --table run -f csv amd_trace.json.gz
expect_status 0
expect_stdout_has ",1,1,"
vp summary -f json amd_trace.json.gz
expect_stdout_has '["gpus",1,"count"]'

case_ "two ranks on devices 0 and 1 (no deviceProperties): GPUs 2, no note"
cd "$DATA/hta"
vp summary --table run trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Accelerator  GPUs  Ranks  Steps  Step Median  Step Min  Step Max
-----------  ----  -----  -----  -----------  --------  --------
-               2      2      2       619 ms    608 ms    631 ms
END

case_ "-j 2 and partials: reduce unions the devices of the ranks"
cd "$DATA/hta"
vp summary -j 2 --table run -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout_has "-,2,2,2,"
vp summary --save-part "$WORK/a.vpart" trace_filter_rank-0.json.gz
vp summary --save-part "$WORK/b.vpart" trace_filter_rank-1.json.gz
vp reduce --table run -f csv "$WORK/a.vpart" "$WORK/b.vpart"
expect_status 0
expect_stdout_has "-,2,2,2,"
vp reduce --table run -f csv "$WORK/a.vpart"
expect_stdout_has "-,1,1,2,"

case_ "constructed: one rank, kernels on devices 0 and 3 and a copy on 3: GPUs 2"
mk one.json 0 "$(k 0 0 10 1)" "$(k 3 3 20 2)" \
   '{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":3,"tid":7,"ts":30,"dur":5,"args":{"device":3,"stream":7}}'
vp summary --table run -f csv "$WORK/one.json"
expect_status 0
expect_stdout <<'END'
Accelerator,GPUs,Ranks,Steps,Step Median (ns),Step Min (ns),Step Max (ns)
NVIDIA A100-SXM4-80GB,2,1,0,,,
END

case_ "constructed: two ranks, each on its device 0: two devices (a device of each rank counts)"
mk r0.json 0 "$(k 0 0 10 1)"
mk r1.json 1 "$(k 0 0 10 1)"
vp summary --table run -f csv "$WORK/r0.json" "$WORK/r1.json"
expect_status 0
expect_stdout_has "NVIDIA A100-SXM4-80GB,2,2,0,,,"
vp summary --save-part "$WORK/r0.vpart" "$WORK/r0.json"
vp summary --save-part "$WORK/r1.vpart" "$WORK/r1.json"
vp reduce --table run -f csv "$WORK/r0.vpart" "$WORK/r1.vpart"
expect_stdout_has "NVIDIA A100-SXM4-80GB,2,2,0,,,"

case_ "constructed: --steps counts the devices of the counted work only"
L='{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":9,"tid":9,"ts":%s,"dur":2,"args":{"correlation":%s}}'
S='{"ph":"X","cat":"cpu_op","name":"ProfilerStep#%s","pid":9,"tid":9,"ts":%s,"dur":100}'
# shellcheck disable=SC2059
mk steps.json 0 "$(printf "$S" 1 0)" "$(printf "$L" 10 1)" "$(k 0 0 20 1)" \
   "$(printf "$S" 2 100)" "$(printf "$L" 110 2)" "$(k 1 1 120 2)"
vp summary --table run -f csv "$WORK/steps.json"
expect_stdout_has "NVIDIA A100-SXM4-80GB,2,1,2,"
vp summary --steps 2 --table run -f csv "$WORK/steps.json"
expect_status 0
expect_stdout_has "NVIDIA A100-SXM4-80GB,1,1,1,"
