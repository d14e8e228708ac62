# What every command that reads traces does with its operands (one
# resolver, src/cli/inputs.c; the reader, src/trace/reader.c): JSON that is
# not a trace, directories, one file named twice, a pickle, a truncated
# .gz, and options that exclude each other.  Small constructed files, and
# the bundled HTA traces.

H=$DATA/hta
K0=$H/trace_filter_rank-0.json.gz
K1=$H/trace_filter_rank-1.json.gz
SNAP=$DATA/memsnap/t24_no_trace_minimal.pickle
cd "$WORK"
printf '{"foo":[1]}' > notrace.json

case_ 'valid JSON that is not a trace: exit 3, "not a Chrome trace", in every command'
for cmd in kernels summary comm steps "check --expect kernels.count>0" "merge -o m.json" memory; do
    vp $cmd notrace.json
    expect_status 3
    expect_stdout <<'END'
END
    expect_stderr <<'END'
vprof: notrace.json: not a Chrome trace: a JSON object without "traceEvents" (a trace is {"traceEvents": [...]} or an array of events)
END
done
vp diff notrace.json "$K0"
expect_status 3
expect_stderr_has 'vprof: notrace.json: not a Chrome trace'
if [ ! -e m.json ]; then pass; else fail "merge wrote m.json"; fi

case_ 'an empty trace object is still a trace (no events, not an error)'
printf '{"traceEvents":[]}' > empty.json
vp kernels -f csv empty.json
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
END

case_ 'a directory: its *.json and *.gz traces in rank order; dot files and others skipped'
mkdir -p ranks
for r in 10 2 1; do
    printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k%s","ts":1,"dur":%s,"pid":0,"tid":7}]}' $r $r >ranks/rank$r.json
done
printf '[{"ph":"X","cat":"kernel","name":"knorank","ts":1,"dur":5}]' | gzip -c >ranks/extra.json.gz
printf '{}' >ranks/.hidden.json
echo notes >ranks/notes.txt
vp kernels -v -f csv --by rank,name ranks
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Rank,Name
55.6,10000,1,10000.0,10000.0,10000,10000,0.0,10,k10
27.8,5000,1,5000.0,5000.0,5000,5000,0.0,3,knorank
11.1,2000,1,2000.0,2000.0,2000,2000,0.0,2,k2
5.6,1000,1,1000.0,1000.0,1000,1000,0.0,1,k1
END
expect_stderr <<'END'
vprof: ranks/rank1.json: rank 1 (from the file name); read 1 events in 86 bytes, counted 1 kernels
vprof: ranks/rank2.json: rank 2 (from the file name); read 1 events in 86 bytes, counted 1 kernels
vprof: ranks/rank10.json: rank 10 (from the file name); read 1 events in 88 bytes, counted 1 kernels
vprof: ranks/extra.json.gz: rank 3 (from its position on the command line); read 1 events in 59 bytes, counted 1 kernels
END

case_ 'a directory reads as its files named one by one, in every command'
mkdir -p run
cp "$K1" "$K0" run/
same() {  # same <args...>: the directory run/ and its two files give the same bytes
    vp "$@" run
    local st=$STATUS
    cp "$OUT_STDOUT" dir.out
    vp "$@" run/trace_filter_rank-0.json.gz run/trace_filter_rank-1.json.gz
    if [ "$st" = 0 ] && [ "$STATUS" = 0 ] && cmp -s dir.out "$OUT_STDOUT" && [ -s dir.out ]; then
        pass; else fail "$*: the directory differs from its files (status $st, $STATUS)"; fi
}
same kernels -f csv
same comm -f csv
same steps -f csv
same summary -f json
same check -f csv --expect 'kernels.count > 0'
same memory -f csv
same mfu --model "$DATA/models/llama-3-8b.json" --tokens-per-step 8192 --seq-len 2048 --peak-tflops 312
# the totals summary.t and kernels.t pin for the two files named
vp kernels -f csv --top 1 run
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
61.6,775252000,20,38762600.0,40502500.0,4624000,90771000,23795921.4,"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
38.4,482293000,2238,215501.8,20000.0,3000,28836000,1241648.4,(others: 193 rows)
END
vp merge -q -o dir.json run
cp dir.json dir-merge.json
vp merge -q -o dir.json run/trace_filter_rank-0.json.gz run/trace_filter_rank-1.json.gz
if cmp -s dir.json dir-merge.json; then pass; else fail "merge: the directory differs from its files"; fi
vp diff -f csv run run
expect_status 0

case_ 'a directory whose subfolders hold traces: read without them, and warned, in every command'
# Two runs filed in subfolders beside a trace: the directory stands for its
# own trace only; the subfolders are named (they used to go unsaid).
mkdir -p runs/runB runs/runA runs/.hidden runs/nothing
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":5,"pid":0,"tid":7}]}' >runs/top.json
cp runs/top.json runs/runA/rank0.json
cp runs/top.json runs/runB/rank0.json
cp runs/top.json runs/.hidden/rank0.json
echo x >runs/nothing/readme.txt
for cmd in kernels summary comm steps; do
    vp $cmd -f json runs
    expect_status 0
    expect_stderr <<'END'
vprof: warning: runs: runA/, runB/ hold traces too, not read (a directory stands for the traces directly in it): give them as operands, or each run alone
END
done
rm runs/top.json
vp kernels runs
expect_status 3
expect_stderr_has 'vprof: warning: runs: runA/, runB/ hold traces too, not read'
expect_stderr_has 'vprof: runs: is a directory that holds no trace'
vp kernels -f csv runs/runA runs/runB
expect_status 0
expect_stderr_empty

case_ 'a directory without traces and without an Ascend profile'
mkdir -p none && echo x >none/readme.txt
vp summary none
expect_status 3
expect_stderr <<'END'
vprof: none: is a directory that holds no trace (*.json, *.json.gz) and no Ascend profile (a *_ascend_pt directory with ASCEND_PROFILER_OUTPUT/, a folder of them, a PROF_* directory, or msprof-analyze's cluster_analysis_output)
END

case_ 'one file given twice: a usage error naming both, in every command'
for cmd in kernels summary comm steps "check --expect kernels.count>0" "merge -o m.json" memory; do
    vp $cmd "$K0" "$K0"
    expect_status 2
    expect_stdout <<'END'
END
    expect_stderr <<END
vprof: ${cmd%% *}: $K0 and $K0 are the same file: read twice, its events would be counted twice
Try 'vprof help ${cmd%% *}'.
END
done
vp mfu --model "$DATA/models/llama-3-8b.json" --tokens-per-step 8192 --seq-len 2048 "$K0" "$K0"
expect_status 2
expect_stderr_has "vprof: mfu: $K0 and $K0 are the same file"

case_ 'one file twice: through a symbolic link, and a directory with a file in it'
ln -sf "$K0" link.json.gz
vp kernels "$K0" "$K1" link.json.gz
expect_status 2
expect_stderr <<END
vprof: kernels: $K0 and link.json.gz are the same file: read twice, its events would be counted twice
Try 'vprof help kernels'.
END
vp summary run run/trace_filter_rank-1.json.gz
expect_status 2
expect_stderr <<'END'
vprof: summary: run (its run/trace_filter_rank-1.json.gz) and run/trace_filter_rank-1.json.gz are the same file: read twice, its events would be counted twice
Try 'vprof help summary'.
END
vp kernels - - <"$K0"
expect_status 2
expect_stderr <<'END'
vprof: kernels: standard input (-) is given twice
Try 'vprof help kernels'.
END

case_ 'diff: BASE and NEW may be the same run (each side is checked on its own)'
vp diff -f csv --table metrics "$K0" "$K0"
expect_status 0
expect_stderr_empty

case_ 'a copy (another inode) of one rank is not the same file: the rank rules speak'
cp "$K0" copy0.json.gz
vp kernels -f csv --top 1 "$K0" copy0.json.gz
expect_status 0

case_ 'a CUDA memory snapshot where a trace is read: exit 3, pointing to vprof memory'
for cmd in kernels summary comm steps "merge -o m.json"; do
    vp $cmd "$SNAP"
    expect_status 3
    expect_stderr <<END
vprof: $SNAP: byte 0 (line 1, column 1): this is a CUDA memory snapshot (a Python pickle), not a trace: try \`vprof memory\`
END
done
vp diff "$SNAP" "$K0"
expect_status 3
expect_stderr_has 'this is a CUDA memory snapshot (a Python pickle), not a trace: try `vprof memory`'
vp memory -f csv "$SNAP"
expect_status 0

case_ 'a Git LFS pointer in place of the file: says so, exit 3, for traces and snapshots'
printf 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 2966212\n' >lfs.json.gz
cp lfs.json.gz lfs.pickle
gzip -c lfs.pickle >lfsz.json.gz
for cmd in kernels summary comm steps; do
    vp $cmd lfs.json.gz
    expect_status 3
    expect_stderr <<'END'
vprof: lfs.json.gz: byte 0 (line 1, column 1): a Git LFS pointer, not the file: run git lfs pull
END
done
vp memory lfs.pickle
expect_status 3
expect_stderr <<'END'
vprof: lfs.pickle: byte 0 (line 1, column 1): a Git LFS pointer, not the file: run git lfs pull
END
vp kernels lfsz.json.gz
expect_status 3
expect_stderr_has 'a Git LFS pointer, not the file: run git lfs pull'

case_ 'a truncated .gz suggests --partial, in every command'
gzip -dc "$K0" | head -c 300000 | gzip -c | head -c 20000 >cut.json.gz
for cmd in summary comm; do
    vp $cmd cut.json.gz
    expect_status 3
    expect_stderr_has "truncated gzip stream: the input ends inside a member"
    expect_stderr_has "(a truncated file? events read:"
    expect_stderr_has "; --partial uses them)"
done
vp summary --partial -f csv cut.json.gz
expect_status 0

case_ 'options that exclude each other: exit 2 naming both'
vp steps --idle --per-rank "$K0" "$K1"
expect_status 2
expect_stderr <<'END'
vprof: steps: --idle and --per-rank cannot be given together: --idle's breakdowns are per rank already
Try 'vprof help steps'.
END
vp steps --kernel-wait 5 "$K0"
expect_status 2
expect_stderr <<'END'
vprof: steps: --kernel-wait needs --idle (it sets the idle-time breakdown's kernel wait)
Try 'vprof help steps'.
END
vp memory --timeline --by site "$SNAP"
expect_status 2
expect_stderr <<'END'
vprof: memory: --timeline and --by site cannot be given together: --timeline prints the bytes after every event instead of the summary that these shape
Try 'vprof help memory'.
END
vp memory --timeline --leaks "$SNAP"
expect_status 2
expect_stderr_has 'vprof: memory: --timeline and --leaks cannot be given together'
vp check --tolerance 5% --expect 'kernels.count > 0' "$K0"
expect_status 2
expect_stderr <<'END'
vprof: check: --tolerance needs --baseline (it is how much worse than the baseline a metric may be)
Try 'vprof help check'.
END
