"""vprof.hta.TraceAnalysis against HTA's own DataFrames on the real traces
(../shared/fixtures/real/hta/hta_oracle/<set>/, how HTA was called: the
set's README.md). Skips without ../shared.

Tolerances, per method (HTA's rounding):
- get_gpu_kernel_breakdown (per-kernel table), get_temporal_breakdown,
  get_comm_comp_overlap, get_queue_length_summary, get_memory_bw_summary,
  get_cuda_kernel_launch_stats, get_frequent_cuda_kernel_sequences,
  summary(): rtol 1e-9 on the floats of HTA's CSV (sums, means and
  deviations of whole microseconds: only the last bits of a mean or a std
  may differ; percentages are rounded as HTA rounds them, 1 or 2 decimals).
- Exact where HTA's numbers are whole microseconds (sums, counts).
- dtypes as HTA's (float64 µs, int64 ranks, streams, counts, object
  names), but on the traces whose JSON times are all integers (INT_DTYPES),
  where HTA's µs columns are int64 and vprof.hta's float64.
On the traces with fractional microsecond timestamps (amd_trace, mtia,
nccl_parser_config, ns_resolution_trace) HTA rounds every event's start up
and end down (peers.md 1.1); vprof.hta runs vprof with VPROF_HTA_TIMES=1,
which rounds them the same way in the reader, so every method is compared
on every set with the tolerances above.
"""
import os

import pandas as pd
import pytest

from conftest import HTA

ORACLE = os.path.join(HTA, "hta_oracle")
DIRS = {"amd_trace": "amd_trace", "cpu_only": "cpu_only", "critical_path_alexnet": "critical_path/alexnet",
        "critical_path_cuda_event_sync": "critical_path/cuda_event_sync",
        "df_index_resolver": "df_index_resolver", "mtia_inference_trace": "mtia_inference_trace",
        "nccl_parser_config": "nccl_parser_config", "ns_resolution_trace": "ns_resolution_trace",
        "rank_non_gpu": "rank_non_gpu", "trace_compare_base": "trace_compare/base",
        "trace_compare_test": "trace_compare/test", "trace_filter": "trace_filter"}

pytestmark = pytest.mark.skipif(not os.path.isdir(ORACLE), reason=f"{ORACLE} is absent (no ../shared)")

_cache = {}


def analyzer(s):
    from vprof.hta import TraceAnalysis
    if s not in _cache:
        _cache[s] = TraceAnalysis(trace_dir=os.path.join(HTA, "tests", "data", DIRS[s]))
    return _cache[s]


def oracle(s, name, **kw):
    path = os.path.join(ORACLE, s, name)
    if not os.path.exists(path):
        pytest.skip(f"HTA produced no {name} on {s}")
    return pd.read_csv(path, **kw)


# Traces whose JSON ts and dur are all integers: HTA's µs columns are int64
# there, float64 elsewhere; vprof.hta's are always float64.
INT_DTYPES = {"trace_compare_base", "trace_compare_test"}


def equal(mine, want, s=None):
    mine = mine.reset_index(drop=True)
    if want.empty:
        assert mine.empty and list(mine.columns) == list(want.columns)
        return
    pd.testing.assert_frame_equal(mine, want, check_exact=False, rtol=1e-9,
                                  check_dtype=s not in INT_DTYPES)


# On mtia_inference_trace the union methods differ for two reasons of
# HTA's (docs/python.md): its COMPUTATION excludes MTIA's pe_exe (107.7 ms
# of kernels; vprof's classes count it as compute), and its rounding leaves
# 207 events ending 1 us before they start, which its interval merge counts
# as -1 us of busy time and its type sweep as a negative count (its 1 us
# "COMPUTATION overlapping COMMUNICATION" on a trace without communication);
# vprof's unions drop an interval that ends before it starts.  Strict: an
# equal result fails here, to be counted.
NEGATIVE_UNIONS = {"test_kernel_type_df", "test_temporal_breakdown", "test_idle_time_breakdown"}


def exact_sets(method=None):
    if method in NEGATIVE_UNIONS:
        return [pytest.param(s, marks=pytest.mark.xfail(
            strict=True, reason="HTA: pe_exe is OTHER; -1 us events in its unions")) if s == "mtia_inference_trace"
                else s for s in DIRS]
    return list(DIRS)


@pytest.mark.parametrize("s", exact_sets())
@pytest.mark.parametrize("which", ["kernel_breakdown_top10.csv", "kernel_breakdown_full.csv"])
def test_kernel_df(vprof_bin, s, which):
    want = oracle(s, which)
    n = 10 if "top10" in which else 10 ** 9
    _, mine = analyzer(s).get_gpu_kernel_breakdown(visualize=False, num_kernels=n,
                                                   include_memory_kernels=True)
    equal(mine, want, s)
    if not mine.empty:
        assert mine["sum (us)"].dtype == "float64" and mine["rank"].dtype == "int64"


@pytest.mark.parametrize("s", exact_sets("test_kernel_type_df"))
def test_kernel_type_df(vprof_bin, s):
    mine, _ = analyzer(s).get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True)
    equal(mine, oracle(s, "kernel_type_breakdown.csv"), s)


@pytest.mark.parametrize("s", exact_sets("get_comm_comp_overlap"))
def test_comm_comp_overlap(vprof_bin, s):
    equal(analyzer(s).get_comm_comp_overlap(visualize=False), oracle(s, "comm_comp_overlap.csv"), s)


@pytest.mark.parametrize("s", exact_sets("test_temporal_breakdown"))
def test_temporal_breakdown(vprof_bin, s):
    equal(analyzer(s).get_temporal_breakdown(visualize=False), oracle(s, "temporal_breakdown.csv"), s)


@pytest.mark.parametrize("s", exact_sets("test_idle_time_breakdown"))
def test_idle_time_breakdown(vprof_bin, s):
    want = oracle(s, "idle_time_breakdown.csv")
    ta = analyzer(s)
    mine, stats = ta.get_idle_time_breakdown(ranks=sorted(ta.ranks), visualize=False)
    assert stats is None
    key = ["rank", "stream", "idle_category"]
    equal(mine.sort_values(key, ignore_index=True), want.sort_values(key, ignore_index=True), s)


@pytest.mark.parametrize("s", list(DIRS))
@pytest.mark.parametrize("which", ["queue_length_summary.csv", "memory_bw_summary.csv"])
def test_counters(vprof_bin, s, which):
    lines = open(os.path.join(ORACLE, s, which)).read().splitlines() \
        if os.path.exists(os.path.join(ORACLE, s, which)) else []
    if len(lines) == 2:   # HTA's frame without rows (copies, none with a bandwidth)
        cols = list(zip(lines[0].split(",")[1:], lines[1].split(",")[1:]))
        mine = analyzer(s).get_memory_bw_summary()
        assert mine is not None and mine.empty and list(mine.columns) == cols
        return
    want = oracle(s, which, header=[0, 1], index_col=[0, 1])
    ta = analyzer(s)
    mine = ta.get_queue_length_summary() if which.startswith("queue") else ta.get_memory_bw_summary()
    assert list(mine.index.names) == list(want.index.names)
    assert list(mine.columns) == list(want.columns)
    pd.testing.assert_frame_equal(mine, want, check_index_type=False, check_exact=False, rtol=1e-12)


@pytest.mark.parametrize("s", exact_sets("get_cuda_kernel_launch_stats"))
def test_cuda_kernel_launch_stats(vprof_bin, s):
    ta = analyzer(s)
    got = ta.get_cuda_kernel_launch_stats(ranks=sorted(ta.ranks), visualize=False)
    for rank, mine in got.items():
        want = oracle(s, f"launch_stats_rank{rank}.csv")
        # rows in correlation order (HTA's are in the order of its join)
        equal(mine, want.sort_values("correlation", kind="stable", ignore_index=True), s)


# The overlaid trace vprof writes for these two patterns of df_index_resolver
# (53 MB) takes over a minute on a loaded 2-core machine: VPROF_TEST_SLOW=1
# includes them (ctest hta.sequences compares their tables every run).
SLOW = {"CompiledFunction", "autograd::engine::evaluate_function: CompiledFunctionBackward"}


def sequence_cases():
    out = []
    for s in exact_sets():
        ops = os.path.join(ORACLE, s, "frequent_sequences_ops.csv")
        if os.path.exists(ops):
            for r in pd.read_csv(ops).itertuples():
                if r.operator_name in SLOW and os.environ.get("VPROF_TEST_SLOW") != "1":
                    continue
                if r.file.endswith("_ERROR.txt"):   # HTA raised: no DataFrame to compare
                    continue
                out.append((s, r.file, r.operator_name, int(r.rank)))
    return out or [pytest.param(None, None, None, None, marks=pytest.mark.skip("no ../shared"))]


@pytest.mark.parametrize("s,file,op,rank", sequence_cases())
def test_frequent_cuda_kernel_sequences(vprof_bin, tmp_path, s, file, op, rank):
    import csv
    csv.field_size_limit(1 << 30)
    want = oracle(s, file, engine="python")
    mine = analyzer(s).get_frequent_cuda_kernel_sequences(op, str(tmp_path), min_pattern_len=3, rank=rank)
    equal(mine, want, s)
    assert os.listdir(tmp_path)


def critical_cases():
    out = []
    for s in DIRS:
        readme = os.path.join(ORACLE, s, "README.md")
        if os.path.exists(os.path.join(ORACLE, s, "critical_path_summary.csv")):
            import re
            m = re.search(r"critical_path_analysis\(rank=(\d+), annotation='(.*?)', instance_id=(\d+)",
                          open(readme).read())
            out.append((s, int(m.group(1)), m.group(2), int(m.group(3))))
    return out or [pytest.param(None, None, None, None, marks=pytest.mark.skip("no ../shared"))]


@pytest.mark.parametrize("s,rank,annotation,instance", critical_cases())
def test_critical_path(vprof_bin, s, rank, annotation, instance):
    cp, ok = analyzer(s).critical_path_analysis(rank, annotation, instance)
    assert ok
    want = oracle(s, "critical_path_summary.csv", keep_default_na=False)
    summary = cp.summary()
    assert summary.index.tolist() == want["bound_by"].tolist()
    assert summary.values == pytest.approx(want["pct"].astype(float).values, rel=1e-9, abs=1e-12)
    path = cp.get_critical_path_breakdown()
    wpath = oracle(s, "critical_path_breakdown.csv", keep_default_na=False)
    assert path["duration"].tolist() == wpath["duration"].tolist()
    assert path["type"].tolist() == wpath["type"].tolist()
    assert path["bound_by"].tolist() == wpath["bound_by"].tolist()
    assert [("" if pd.isna(x) else int(x)) for x in path["event_idx"]] == \
        [("" if x == "" else int(x)) for x in wpath["event_idx"]]


@pytest.mark.parametrize("s", list(DIRS))
def test_profiler_steps(vprof_bin, s):
    import re
    text = open(os.path.join(ORACLE, s, "hta_stdout.txt")).read()
    m = re.search(r"^## profiler_steps (\[.*?\])", text, re.M)
    if not m:
        pytest.skip(f"HTA's log of {s} has no profiler_steps")
    assert analyzer(s).get_profiler_steps() == eval(m.group(1))


def test_not_implemented_names_the_method(vprof_bin):
    ta = analyzer("trace_filter")
    with pytest.raises(NotImplementedError, match="get_potential_stragglers"):
        ta.get_potential_stragglers()
