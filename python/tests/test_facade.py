"""vprof.hta.TraceAnalysis on the bundled traces (no ../shared needed):
HTA's numbers from peers.md 1.5, its defaults, what it cannot serve."""
import os
import sys
import warnings

import pytest

from conftest import DATA
from vprof.hta import TraceAnalysis, kernel_type

T = {0: os.path.join(DATA, "trace_filter_rank-0.json.gz"), 1: os.path.join(DATA, "trace_filter_rank-1.json.gz")}


def test_last_step_dropped_by_default(vprof_bin):
    assert TraceAnalysis(trace_files=T).get_profiler_steps() == [551]
    assert TraceAnalysis(trace_files=T, include_last_profiler_step=True).get_profiler_steps() == [551, 552]


def test_hta_numbers_on_trace_filter(vprof_bin):
    a = TraceAnalysis(trace_files=T)
    assert a.get_comm_comp_overlap(visualize=False)["comp_comm_overlap_pctg"].tolist() == [11.81, 20.05]
    t = a.get_temporal_breakdown(visualize=False)
    assert t["kernel_time(us)"].tolist() == [600058.0, 600674.0]
    assert t["idle_time(us)"].tolist() == [321378.0, 328671.0]
    assert t["idle_time_pctg"].tolist() == [53.56, 54.72]
    # with the last step: HTA's 14.95 and 19.93
    b = TraceAnalysis(trace_files=T, include_last_profiler_step=True)
    assert b.get_comm_comp_overlap(visualize=False)["comp_comm_overlap_pctg"].tolist() == [14.95, 19.93]


def test_kernel_types_by_name():
    assert kernel_type("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)") == "COMMUNICATION"
    assert kernel_type("hipMemcpyAsync") == "COMMUNICATION"      # HTA's ^hip rule comes first
    assert kernel_type("Memcpy HtoD (Pageable -> Device)") == "MEMORY"
    assert kernel_type("Memset (Device)") == "MEMORY"
    assert kernel_type("sm90_xmma_gemm_f16f16") == "COMPUTATION"
    assert kernel_type("Event Sync") == "OTHER"


def test_kernel_type_table_with_memory(vprof_bin):
    a = TraceAnalysis(trace_files=T)
    kt, kd = a.get_gpu_kernel_breakdown(visualize=False)
    # HTA's table on trace_filter, both ranks (peers.md 1.5): the time of
    # each combination of compute, communication and memory, whole us
    assert list(zip(kt["kernel_type"], kt["sum"], kt["percentage"])) == [
        ("COMMUNICATION", 305584, 55.5), ("COMPUTATION", 185023, 33.6),
        ("COMPUTATION overlapping COMMUNICATION", 56747, 10.3), ("MEMORY", 2288, 0.4),
        ("COMMUNICATION overlapping MEMORY", 1011, 0.2), ("COMPUTATION overlapping MEMORY", 18, 0.0),
        ("COMPUTATION overlapping COMMUNICATION overlapping MEMORY", 12, 0.0)]
    assert set(kd["kernel_type"]) == {"COMMUNICATION", "COMPUTATION", "MEMORY"}
    # without memory in the sweep, its overlaps fall to the other types
    kt, kd = a.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=False)
    assert list(zip(kt["kernel_type"], kt["sum"])) == [
        ("COMMUNICATION", 305584 + 1011), ("COMPUTATION", 185023 + 18),
        ("COMPUTATION overlapping COMMUNICATION", 56747 + 12)]
    assert set(kd["kernel_type"]) == {"COMMUNICATION", "COMPUTATION"}
    # num_kernels=10: at most 10 names and "others" per rank and type
    assert kd.groupby(["rank", "kernel_type"]).size().tolist() == [1, 11, 1, 11]
    assert (kd[kd["kernel_type"] == "COMPUTATION"]["name"] == "others").sum() == 2


def test_methods_vprof_cannot_serve(vprof_bin):
    a = TraceAnalysis(trace_files=T)
    for name in ("get_potential_stragglers", "get_gpu_user_annotation_breakdown",
                 "get_time_spent_blocked_on_full_queue"):
        with pytest.raises(NotImplementedError, match=name):
            getattr(a, name)()
    with pytest.raises(NotImplementedError, match="show_idle_interval_stats"):
        a.get_idle_time_breakdown(show_idle_interval_stats=True)
    with pytest.raises(AttributeError):
        a.no_such_method


def test_visualize_without_plotly_says_so(vprof_bin, monkeypatch):
    monkeypatch.setitem(sys.modules, "plotly", None)
    monkeypatch.setitem(sys.modules, "plotly.express", None)
    a = TraceAnalysis(trace_files=T)
    with pytest.warns(UserWarning, match="plotly is not installed"):
        df = a.get_comm_comp_overlap(visualize=True)
    assert len(df) == 2


def test_bad_inputs(vprof_bin, tmp_path):
    with pytest.raises(ValueError, match="not a directory"):
        TraceAnalysis(trace_dir=str(tmp_path / "absent"))
    with pytest.raises(ValueError, match="no trace files"):
        TraceAnalysis(trace_dir=str(tmp_path))
    with pytest.raises(ValueError, match="no rank 7"):
        TraceAnalysis(trace_files=T).get_cuda_kernel_launch_stats(ranks=[7], visualize=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TraceAnalysis(trace_files=T).get_profiler_steps()
