# vprof record without a GPU: the environment it sets (--print-env,
# --dry-run), running commands and forwarding their exit status and
# signals, the msprof commands it builds and runs (a fake msprof on PATH),
# and its usage errors. The capture itself needs a GPU: scripts/gpu-check.sh.
touch fake-shim.so
export VPROF_CUPTI_LIB=$WORK/fake-shim.so
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH RANK OMPI_COMM_WORLD_RANK PMI_RANK SLURM_PROCID
# Paths under the temporary directory read as WORK.
norm() { sed "s|$WORK|WORK|g" "$OUT_STDOUT" >"$WORK/norm" && cp "$WORK/norm" "$OUT_STDOUT"
         sed "s|$WORK|WORK|g" "$OUT_STDERR" >"$WORK/norm" && cp "$WORK/norm" "$OUT_STDERR"; }

case_ '--print-env: the injection variable and the output directory, absolute'
vp record --print-env -o prof
norm
expect_status 0
expect_stdout <<'END'
CUDA_INJECTION64_PATH=WORK/fake-shim.so
VPROF_OUTPUT_DIR=WORK/prof
END
if [ ! -e prof ]; then pass; else fail "--print-env created the directory"; fi

case_ '--print-env: every option, NVTX injection with --nvtx, quoting'
vp record --print-env -o 'my prof' --capture-range nvtx:train --delay 1.5 --duration 500ms --ranks 0,3-4 \
   --kinds kernel,memcpy --nvtx --buffer-size 8M --buffer-pool 256M --no-gzip -q
norm
expect_status 0
expect_stdout <<'END'
CUDA_INJECTION64_PATH=WORK/fake-shim.so
NVTX_INJECTION64_PATH=WORK/fake-shim.so
VPROF_OUTPUT_DIR='WORK/my prof'
VPROF_KINDS=kernel,memcpy,nvtx
VPROF_CAPTURE_RANGE=nvtx:train
VPROF_DELAY=1.5
VPROF_DURATION=0.5
VPROF_RANKS=0,3-4
VPROF_BUFFER_SIZE=8M
VPROF_BUFFER_POOL=256M
VPROF_GZIP=0
VPROF_QUIET=1
END

case_ '--dry-run: the environment, then the command, shell-quoted'
vp record --dry-run -o "$WORK/prof" --capture-range cudaProfilerApi -- python3 -c 'print("hi")'
norm
expect_status 0
expect_stdout <<'END'
CUDA_INJECTION64_PATH=WORK/fake-shim.so
VPROF_OUTPUT_DIR=WORK/prof
VPROF_CAPTURE_RANGE=cudaProfilerApi
python3 -c 'print("hi")'
END

case_ 'the command gets the variables; a non-CUDA program writes no trace'
vp record -o out -- sh -c 'echo "$CUDA_INJECTION64_PATH $VPROF_OUTPUT_DIR"'
norm
expect_status 0
expect_stdout <<'END'
WORK/fake-shim.so WORK/out
END
expect_stderr <<'END'
vprof: record: no trace written to WORK/out (the command made no CUDA call, or not from a selected rank)
END

case_ 'exit status forwarded; -q silences vprof only'
vp record -q -- sh -c 'echo to-stderr >&2; exit 3'
expect_status 3
expect_stderr <<'END'
to-stderr
END
vp record -q -- true
expect_status 0

case_ 'a command that cannot run: 127, as a shell says'
vp record -q -- ./no-such-program
expect_status 127
expect_stderr_has "vprof: record: cannot run command './no-such-program': No such file or directory"

case_ 'a command killed by a signal: vprof dies of the same signal'
vp record -q -- sh -c 'kill -TERM $$'
expect_status 143

case_ 'SIGTERM to vprof is forwarded to the command, whose status comes back'
"$VPROF" record -q -- sh -c 'trap "echo got TERM; exit 7" TERM; echo ready; while :; do sleep 0.05; done' \
    >fw.out 2>fw.err &
pid=$!
for _ in $(seq 100); do grep -q ready fw.out 2>/dev/null && break; sleep 0.05; done
kill -TERM $pid
wait $pid
STATUS=$?
expect_status 7
if grep -q 'got TERM' fw.out; then pass; else fail "the command did not get SIGTERM: $(cat fw.out fw.err)"; fi

case_ 'traces written during the run are listed (a stand-in for the shim)'
vp record -o out2 -- sh -c 'mkdir -p "$VPROF_OUTPUT_DIR"; echo "{}" > "$VPROF_OUTPUT_DIR/vprof_rank1_42.pt.trace.json"; touch "$VPROF_OUTPUT_DIR/other.json"'
norm
expect_status 0
expect_stderr <<'END'
vprof: record: 1 trace written:
  WORK/out2/vprof_rank1_42.pt.trace.json
END

case_ 'usage errors'
vp record
expect_status 2
expect_stderr_has 'vprof: record: no command to run'
vp record --capture-range nvtx -- true
expect_status 2
expect_stderr_has "vprof: record: --capture-range: 'nvtx' is not a capture range (all, cudaProfilerApi, nvtx:NAME)"
vp record --delay soon -- true
expect_status 2
expect_stderr_has "--delay: 'soon' is not a time in seconds"
vp record --ranks 3-1 -- true
expect_status 2
vp record --kinds gpu -- true
expect_status 2
expect_stderr_has "--kinds: unknown kind 'gpu'"
vp record --buffer-size 32M --buffer-pool 32M -- true
expect_status 2
expect_stderr_has '--buffer-pool must hold at least two buffers'
vp record --level 1 -- true
expect_status 2
expect_stderr_has 'need --backend ascend'
vp record --print-env -- true
expect_status 2
vp record --backend rocm -- true
expect_status 2
expect_stderr_has "unknown backend 'rocm'"
vp record --bogus -- true
expect_status 2

case_ 'the shim is missing: exit 2, saying where it looked'
VPROF_CUPTI_LIB=$WORK/none.so vp record -- true
norm
expect_status 2
expect_stderr <<'END'
vprof: record: VPROF_CUPTI_LIB=WORK/none.so is not a file
END

case_ 'ascend: the msprof commands for each option (--dry-run)'
vp record --backend ascend --dry-run -o asc --level 2 --aic-metrics MemoryUB --task-time l0 --cpu --memory \
   --msprof-arg=--l2=on -- python3 train.py --lr 0.1
norm
expect_status 0
expect_stdout <<'END'
msprof --output=WORK/asc --task-time=l0 --ascendcl=on --runtime-api=on --aicpu=on --ai-core=on --aic-metrics=MemoryUB --sys-cpu-profiling=on --sys-hardware-mem=on --host-sys=cpu,mem --l2=on '--application=python3 train.py --lr 0.1'
# then, for each new WORK/asc/PROF_* without mindstudio_profiler_output/:
msprof --export=on --output=WORK/asc/PROF_...
END
vp record --backend ascend --dry-run --aic-metrics Pipe -- true
expect_status 2
expect_stderr_has "--aic-metrics: 'Pipe' is not one of"
vp record --backend ascend --print-env
expect_status 2

case_ 'ascend without msprof on PATH: exit 2, naming set_env.sh and the command'
PATH=/usr/bin:/bin vp record --backend ascend -o asc -- python3 train.py
norm
expect_status 2
expect_stderr <<'END'
vprof: record: msprof not found on PATH: load the CANN toolkit's environment first,
  e.g. source /usr/local/Ascend/ascend-toolkit/set_env.sh (or $ASCEND_TOOLKIT_HOME/set_env.sh)
The command would be:
  msprof --output=WORK/asc '--application=python3 train.py'
END

case_ 'ascend with a (fake) msprof: runs it, exports what is not exported, says where'
mkdir -p bin
cat >bin/msprof <<'SH'
#!/bin/sh
echo "msprof $*" >>"$MSPROF_LOG"
case "$*" in
*--export=on*) out=${2#--output=}; mkdir -p "$out/mindstudio_profiler_output"; exit 0 ;;
esac
out=${1#--output=}
mkdir -p "$out/PROF_000001_20260101000000000_ABC"
exit 5
SH
chmod +x bin/msprof
MSPROF_LOG=$WORK/msprof.log PATH=$WORK/bin:$PATH vp record --backend ascend -o asc --level 0 -- python3 train.py
norm
expect_status 5
sed "s|$WORK|WORK|g" msprof.log >msprof.norm
if diff -u - msprof.norm <<'END'; then pass; else fail "msprof calls"; fi
msprof --output=WORK/asc --task-time=l0 --application=python3 train.py
msprof --export=on --output=WORK/asc/PROF_000001_20260101000000000_ABC
END
expect_stderr <<'END'
vprof: record: exporting: WORK/bin/msprof --export=on --output=WORK/asc/PROF_000001_20260101000000000_ABC
vprof: record: msprof results:
  WORK/asc/PROF_000001_20260101000000000_ABC/mindstudio_profiler_output/
read them with:
  vprof kernels WORK/asc/PROF_000001_20260101000000000_ABC/mindstudio_profiler_output/msprof_*.json
  vprof comm WORK/asc/PROF_000001_20260101000000000_ABC/mindstudio_profiler_output/msprof_*.json
END

case_ 'help'
vp record --help
expect_status 0
expect_stdout_has 'usage: vprof record [options] [--] COMMAND [ARG...]'
