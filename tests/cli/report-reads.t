# vprof report reads each input once (docs/report.md, "One reading of
# each trace"): strace counts every file it opens.  A directory is listed
# once, by the one scan of it (the operands' resolution and the reading
# share it; a folder of ranks is opened twice by it: for msprof-analyze's
# cluster files beside the ranks, then for the ranks); each file in it is
# opened once by that scan, which looks at its first bytes to know what it
# is, and the files the report uses once more, to read them.  Skips (77)
# without strace.
if ! command -v strace >/dev/null 2>&1; then
    echo "SKIP [$T]: strace is not installed (scripts/setup-deps --test installs it)"
    exit 77
fi
# Containers often refuse ptrace (seccomp, no CAP_SYS_PTRACE): strace then
# exists but cannot trace, which is the machine's limit, not vprof's.
if ! strace -f -qq -e trace=openat -o /dev/null true >/dev/null 2>&1; then
    echo "SKIP [$T]: strace cannot trace here (ptrace refused)"
    exit 77
fi

# opens DIR ARGS...: vprof ARGS under strace (forks followed, vprof alone:
# not valgrind), which must succeed; stdout: "COUNT PATH" of each file or
# directory under DIR it opened, PATH relative to DIR.
opens() {
    local dir=$1
    shift
    # LeakSanitizer cannot run under ptrace: off here (the other tests run it)
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        strace -f -qq -e trace=openat -o "$WORK/opens.log" "$VPROF" "$@" >/dev/null 2>"$OUT_STDERR"
    STATUS=$?
    expect_status 0
    grep -v ' = -1 ' "$WORK/opens.log" | grep -o "\"$dir[^\"]*\"" | tr -d '"' |
        sed "s|^$dir/*||; s|^$|.|" | sort | uniq -c | awk '{print $1, $2}' >"$OUT_STDOUT"
}

case_ 'a rank without a trace: kernel_details.csv read once for the operators, the classes and the run'
mkdir -p asc
cp -r "$DATA/ascend/msinsight_gpt3_rank0_ascend_pt" asc/r0_ascend_pt
opens "$PWD/asc" report -q -o a.html "$PWD/asc/r0_ascend_pt"
expect_stdout <<'END'
1 r0_ascend_pt
1 r0_ascend_pt/ASCEND_PROFILER_OUTPUT
2 r0_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json
2 r0_ascend_pt/ASCEND_PROFILER_OUTPUT/communication_matrix.json
2 r0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv
2 r0_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv
2 r0_ascend_pt/ASCEND_PROFILER_OUTPUT/npu_module_mem.csv
1 r0_ascend_pt/ASCEND_PROFILER_OUTPUT/operator_details.csv
2 r0_ascend_pt/ASCEND_PROFILER_OUTPUT/operator_memory.csv
2 r0_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv
1 r0_ascend_pt/profiler_info_0.json
END

case_ 'a DB-only rank: its DB opened once for the operators, the classes, the run and step_trace_time'
mkdir -p db/r0_ascend_pt/ASCEND_PROFILER_OUTPUT
cp "$DATA/ascend/msinsight_msprof_db/msprof_0.db" db/r0_ascend_pt/ASCEND_PROFILER_OUTPUT/
opens "$PWD/db" report -q -o d.html "$PWD/db/r0_ascend_pt"
expect_stdout <<'END'
1 r0_ascend_pt
1 r0_ascend_pt/ASCEND_PROFILER_OUTPUT
2 r0_ascend_pt/ASCEND_PROFILER_OUTPUT/msprof_0.db
END
# what that one reading gave: vprof kernels' figures (663872 ns in 11
# AI_VECTOR_CORE tasks) and vprof steps' own table
vp report -q -f csv --table op_cores db/r0_ascend_pt
expect_stdout <<'END'
Accelerator Core,Time (%),Total Time (ns),Instances
AI_VECTOR_CORE,100.0,663872,11
END
vp kernels -q -f csv --by core --include memcpy,memset,sync db/r0_ascend_pt
expect_stdout_has '100.0,663872,11,'
vp report -q -f csv --table kernel_classes db/r0_ascend_pt
expect_stdout <<'END'
Rank,Compute (ns),Communication (ns),Memory (ns),Sync (ns),Total (ns)
0,663872,0,0,0,663872
END
vp report -q -f csv --table step_trace_time db/r0_ascend_pt
cp "$OUT_STDOUT" stt.csv
vp steps -q -f csv --table step_trace_time db/r0_ascend_pt
expect_stdout_file stt.csv

case_ 'a run of traces: the directory scanned once, each trace_view.json read once'
cp -r "$DATA/ascend/run2" run2
opens "$PWD/run2" report -q -o r.html "$PWD/run2"
expect_stdout <<'END'
2 .
1 expected_step_trace_time.csv
1 worker0_20240101000000_ascend_pt
1 worker0_20240101000000_ascend_pt/ASCEND_PROFILER_OUTPUT
2 worker0_20240101000000_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json
1 worker0_20240101000000_ascend_pt/profiler_info_0.json
1 worker1_20240101000001_ascend_pt
1 worker1_20240101000001_ascend_pt/ASCEND_PROFILER_OUTPUT
2 worker1_20240101000001_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json
1 worker1_20240101000001_ascend_pt/profiler_info_1.json
END
