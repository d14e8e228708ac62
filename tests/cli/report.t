# vprof report: the page's sections, charts and tables on the bundled
# traces, its self-containment and validity (html_check.py: well formed,
# nothing fetched, under 2 MB), its tables equal to the commands' own
# (summary, steps --per-rank, comm, diff), bad input and usage errors.
# tests/browser/report-browser opens the page in headless chromium.
CHECK=$(dirname "$T")/html_check.py
R0=$DATA/hta/trace_filter_rank-0.json.gz
R1=$DATA/hta/trace_filter_rank-1.json.gz
SNAP=$DATA/memsnap/t24_cs336_small_from_start.pickle

# same_tables A.json B.json:NAME[=NAME_IN_B]...: each table NAME of A
# equals table NAME_IN_B (default NAME) of B, columns and rows (diff adds
# a note of its own to its metrics table, in the command, not the view).
# One python3 for all: its start is most of this test's time.
same_tables() {
    if python3 - "$@" <<'P'; then pass; else fail "tables differ"; fi
import json, sys
a = json.load(open(sys.argv[1]))["tables"]
bad = 0
for spec in sys.argv[2:]:
    path, names = spec.split(":")
    mine, theirs = (names.split("=") + [names])[:2]
    b = json.load(open(path))["tables"][theirs]
    x, y = [{k: t[k] for k in ("columns", "rows")} for t in (a[mine], b)]
    if x != y:
        print("  %s: %s\n  vs %s %s: %s" % (mine, json.dumps(x)[:300], path, theirs, json.dumps(y)[:300]),
              file=sys.stderr)
        bad = 1
sys.exit(bad)
P
}

case_ 'two ranks: every section, its charts and tables; valid, self-contained'
vp report -q -o page.html "$R0" "$R1"
expect_status 0
expect_stdout </dev/null
[ -f page.html ] && pass || fail "no page.html"
ls -A | grep -c 'page.html.tmp' | grep -qx 0 && pass || fail "a temporary file is left"
python3 "$CHECK" page.html >"$OUT_STDOUT"
expect_stdout <<'END'
sections: overview kernels distributed memory
overview: charts 3, figures 3, findings 1, tables 3
kernels: charts 1, figures 1, tables 1
distributed: charts 2, figures 2, tables 4
memory: 
rows with a rank: 6
END

case_ 'the page: findings with evidence, step bars with hover titles, sortable tables'
grep -o '<strong>[^<]*</strong>' page.html >"$OUT_STDOUT"
expect_stdout <<'END'
<strong>communication is exposed: compute does not hide it</strong>
<strong>the GPU is idle for much of the run</strong>
<strong>FP32 GEMMs where BF16 or FP16 is expected</strong>
<strong>the ranks do uneven amounts of work</strong>
END
cp page.html "$OUT_STDOUT"
expect_stdout_has 'Evidence: 641 ms of communication not overlapped by compute (all ranks)'
# vprof steps' 106 ms, 172 ms, 169 us, 321 ms for rank 0's step 551
grep -o '<title>Rank 0 · Step 551: [^<]*</title>' page.html >"$OUT_STDOUT"
expect_stdout <<'END'
<title>Rank 0 · Step 551: Compute 106 ms</title>
<title>Rank 0 · Step 551: Comm Exposed 172 ms</title>
<title>Rank 0 · Step 551: Memory 169 us</title>
<title>Rank 0 · Step 551: GPU Idle 321 ms</title>
<title>Rank 0 · Step 551: Forward 157 ms</title>
<title>Rank 0 · Step 551: Backward 223 ms</title>
<title>Rank 0 · Step 551: Optimizer 204 ms</title>
END
grep -c '<table class="sortable"' page.html >"$OUT_STDOUT"
expect_stdout <<'END'
8
END

case_ '-f json: the tables of summary, steps --per-rank and comm, equal to theirs'
vp report -q -f json "$R0" "$R1"
expect_status 0
cp "$OUT_STDOUT" report.json
expect_stdout_has '"schema":"vprof.report/1"'
vp summary -q --top 20 -f json "$R0" "$R1"
cp "$OUT_STDOUT" summary.json
vp steps -q --per-rank -f json "$R0" "$R1"
cp "$OUT_STDOUT" steps.json
vp comm -q -f json "$R0" "$R1"
cp "$OUT_STDOUT" comm.json
same_tables report.json summary.json:run summary.json:gpu_time summary.json:top_kernels \
    summary.json:findings summary.json:metrics steps.json:steps comm.json:comm comm.json:spread \
    comm.json:stragglers

case_ '--baseline: the Baseline section, diff metrics and kernels as a diverging chart'
vp report -q -o cmp.html --baseline "$R1" "$R0"
expect_status 0
python3 "$CHECK" cmp.html >"$OUT_STDOUT"
expect_stdout <<'END'
sections: overview kernels memory baseline
overview: charts 3, figures 3, findings 1, tables 3
kernels: charts 1, figures 1, tables 1
memory: 
baseline: charts 1, figures 1, tables 3
rows with a rank: 0
END
# vprof diff's kernels: -33.8 ms the largest gain (green), +17.1 ms the
# NCCL loss (red); 10 of the 20 (--top) each way
sed -n '/id="baseline"/,$p' cmp.html | grep -o 'fill="#[0-9a-f]*"><title>' | sort | uniq -c >"$OUT_STDOUT"
expect_stdout <<'END'
     10 fill="#2ca02c"><title>
     10 fill="#d62728"><title>
END
sed -n '/id="baseline"/,$p' cmp.html >"$OUT_STDOUT"
expect_stdout_has 'fill="#d62728"><title>ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*) 17.1 ms</title>'
expect_stdout_has 'fill="#2ca02c"><title>void split_embedding_codegen_forward_unweighted_kernel&lt;c10::Half'
vp report -q -f json --baseline "$R1" "$R0"
cp "$OUT_STDOUT" rb.json
vp diff -q -f json "$R1" "$R0"
cp "$OUT_STDOUT" diff.json
same_tables rb.json diff.json:baseline_metrics=metrics diff.json:baseline_runs=runs

case_ 'a memory snapshot: the memory page, the chart of memory --plot inlined'
vp report -q -o mem.html "$SNAP"
expect_status 0
python3 "$CHECK" mem.html >"$OUT_STDOUT"
expect_stdout <<'END'
sections: memory
memory: charts 1, figures 1, tables 3
rows with a rank: 0
END
cp mem.html "$OUT_STDOUT"
expect_stdout_has '<h3>The largest live allocations at the peak</h3>'
vp memory -q -f json --top 20 "$SNAP"
cp "$OUT_STDOUT" memory.json
vp report -q -f json "$SNAP"
cp "$OUT_STDOUT" mr.json
same_tables mr.json memory.json:peak memory.json:top_at_peak memory.json:state

case_ 'standard input: read once, as summary reads it'
vp report -q -f json --table run - <"$R0"
expect_status 0
cp "$OUT_STDOUT" stdin.json
vp summary -q -f json --table run - <"$R0"
cp "$OUT_STDOUT" stdin-summary.json
same_tables stdin.json stdin-summary.json:run

case_ 'bad input: exit 3 naming the file, no page left'
printf '{"traceEvents": [{"ph": "X", "name": ' >bad.json
vp report -o bad.html bad.json
expect_status 3
expect_stderr_has 'bad.json'
ls -A | grep -c '^bad.html' >"$OUT_STDOUT"
expect_stdout <<'END'
0
END

case_ 'an output that cannot be written: exit 3, nothing left'
cat >one.json <<'J'
[{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5, "dur": 8, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 4, "args": {"stream": 7, "correlation": 1}}]
J
vp report -q -o nodir/page.html one.json
expect_status 3
expect_stderr_has 'cannot write nodir/page.html'

case_ 'usage errors'
vp report
expect_status 2
expect_stderr_has 'no trace given'
vp report -f table "$R0"
expect_status 2
expect_stderr_has '-f table'
vp report --table steps "$R0"
expect_status 2
expect_stderr_has '--table'
