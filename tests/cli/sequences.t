# vprof sequences: HTA's get_frequent_cuda_kernel_sequences.  trace_filter
# rank 0 is HTA's trace_filter/sampled_rank-0 trace: the expected rows are
# HTA's own (hta_oracle/trace_filter/frequent_sequences_*.csv, us there, ns
# here).

case_ 'one pattern, HTA numbers (AddmmBackward0, --steps :-1 as HTA loads it)'
cd "$DATA/hta"
vp sequences -f csv --steps :-1 --op "autograd::engine::evaluate_function: AddmmBackward0" trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Pattern,Count,GPU Kernel Duration (ns),CPU Op Duration (ns)
"autograd::engine::evaluate_function: AddmmBackward0|void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align1>(cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align1::Params)|void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align1>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align1::Params)|void at::native::reduce_kernel<256, 2, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)",1,400000,200000
END
expect_stderr <<'END'
END

case_ 'a substring match, several patterns in HTA order, and --top'
vp sequences -f csv --steps :-1 --op "DifferentiableGraphBackward" trace_filter_rank-0.json.gz
expect_status 0
expect_stdout_has ",1,34000,236000"
expect_stdout_has ",1,784000,844000"
expect_stdout_has ",1,391000,1094000"
expect_stdout_has ",1,1540000,1282000"
vp sequences --steps :-1 --top 2 --op "DifferentiableGraphBackward" trace_filter_rank-0.json.gz
expect_status 0
expect_stdout_has "note: the top 2 of 5 patterns (--top)"

case_ '--trace-out: the top patterns marked as HTA overlays them (args Patterns)'
vp sequences -f csv --steps :-1 --top 2 --op DifferentiableGraphBackward --trace-out "$WORK/ov.json.gz" trace_filter_rank-0.json.gz
expect_status 0
cp "$OUT_STDOUT" "$WORK/top2.csv"
# every event the same but for args.Patterns; each pattern of the table
# marks its count times its kernels (names and durations: HTA's GPU time)
python3 - "$WORK/ov.json.gz" trace_filter_rank-0.json.gz "$WORK/top2.csv" >"$WORK/ov.out" <<'PY' && pass || fail "overlay: $(cat "$WORK/ov.out")"
import csv, gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
orig = json.load(gzip.open(sys.argv[2]))["traceEvents"]
rows = list(csv.DictReader(open(sys.argv[3])))
assert len(ev) == len(orig) == 4855, len(ev)
marked = {}
for e, o in zip(ev, orig):
    args = dict(e.get("args") or {})
    for p in args.pop("Patterns", {}):
        marked.setdefault(p, []).append(e)
    assert args == (o.get("args") or {}) and \
        {k: v for k, v in e.items() if k != "args"} == {k: v for k, v in o.items() if k != "args"}
assert len(rows) == 2 and sorted(marked) == sorted(r["Pattern"] for r in rows), sorted(marked)
for r in rows:
    parts, n = r["Pattern"].split("|"), int(r["Count"])
    gpu = [e for e in marked[r["Pattern"]] if "stream" in e.get("args", {})]
    assert sorted(e["name"] for e in gpu) == sorted(parts[1:] * n)
    assert sum(e["dur"] for e in gpu) * 1000 == int(r["GPU Kernel Duration (ns)"])
    print(n, len(gpu), len(marked[r["Pattern"]]))
PY
cat >"$WORK/want" <<'END'
1 4 15
1 8 33
END
cmp -s "$WORK/want" "$WORK/ov.out" && pass || fail "marked events: $(cat "$WORK/ov.out")"
vp sequences --op x --trace-out "$WORK/x.json" - <trace_filter_rank-0.json.gz
expect_status 2
expect_stderr_has "vprof: sequences: --trace-out reads the trace a second time"

case_ 'no instance long enough: said so'
vp sequences --op "aten::" --min-len 100000 trace_filter_rank-0.json.gz
expect_status 0
expect_stdout_has "note: no instance of 'aten::' with at least 100000 GPU events under it"

case_ 'usage errors: exit 2 naming the option'
vp sequences trace_filter_rank-0.json.gz
expect_status 2
expect_stderr_has "vprof: sequences: --op NAME is required"
vp sequences --op x --min-len -1 trace_filter_rank-0.json.gz
expect_status 2
expect_stderr_has "vprof: sequences: --min-len: '-1' is not a whole number >= 0"
vp sequences --op x trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 2
expect_stderr_has "vprof: sequences: one trace at a time"
printf '{"traceEvents":[{"ph":"X",' >"$WORK/bad.json"
vp sequences --op x "$WORK/bad.json"
expect_status 3
