"""A drop-in for Holistic Trace Analysis' TraceAnalysis, computed by vprof.

    from vprof.hta import TraceAnalysis
    analyzer = TraceAnalysis(trace_dir="traces/")
    kernel_type_df, kernel_df = analyzer.get_gpu_kernel_breakdown(visualize=False)

The methods have HTA's names, arguments and defaults, and return HTA's
DataFrames: its column names, index, dtypes, units (microseconds) and
rounding; the last ProfilerStep is dropped unless
include_last_profiler_step=True, as HTA does (only where a trace has two
steps or more). The numbers come from vprof's commands (kernels, comm,
steps --idle, counters, launches, critical-path, sequences) run with
`--steps :-1`, and with VPROF_HTA_TIMES=1: vprof then reads every event's
times as HTA does, its start rounded up and its end rounded down to the
microsecond (on traces with fractional microseconds; integer traces are
unchanged), so that the numbers are HTA's. docs/python.md lists the
comparisons with HTA's own DataFrames.

A method of HTA's that vprof does not compute raises NotImplementedError
naming it.
"""
import os
import re
import warnings

import pandas as pd

from ._run import run_json, tables

# HTA's kernel classification by name (peers.md 1.2), tried in this order.
_COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
_MEMORY = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
_NOT_COMPUTE = re.compile(
    r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)"
    r"|(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)"
    r"|(^collective_subgraph_execution)")

# The runtime calls whose launches HTA's get_cuda_kernel_launch_stats joins.
_LAUNCH_APIS = {"cudaLaunchKernel", "cudaLaunchKernelExC",
                "runFunction - job_prep_and_submit_for_execution"}
_MEMORY_APIS = {"cudaMemcpyAsync", "cudaMemsetAsync"}

_FILE_LINE = re.compile(r"^vprof: (.*): rank (-?\d+) \(.*; (\d+) steps?, ")


def kernel_type(name):
    """HTA's kernel type of a GPU event's name: COMMUNICATION, MEMORY,
    COMPUTATION or OTHER."""
    if _COMM.match(name):
        return "COMMUNICATION"
    if _MEMORY.match(name):
        return "MEMORY"
    if not _NOT_COMPUTE.match(name):
        return "COMPUTATION"
    return "OTHER"


def _plotly():
    try:
        import plotly.express as px  # noqa: F401
        return px
    except ImportError:
        warnings.warn("visualize=True: plotly is not installed, so no chart is drawn "
                      "(Debian: apt-get install python3-plotly)", stacklevel=3)
        return None


def _us(series):
    """ns to HTA's microseconds, as float64."""
    return series.astype("float64") / 1000.0


class TraceAnalysis:
    """HTA's TraceAnalysis(trace_files=None, trace_dir=..., include_last_profiler_step=False)
    over vprof. trace_files maps rank -> file (relative to trace_dir where
    not absolute); without it every file of trace_dir ending in .json or
    .gz is a trace, as in HTA."""

    def __init__(self, trace_files=None, trace_dir="", include_last_profiler_step=False):
        if trace_files:
            files = [f if os.path.isabs(f) else os.path.join(trace_dir, f)
                     for _, f in sorted(trace_files.items())]
        else:
            if not os.path.isdir(trace_dir):
                raise ValueError(f"trace_dir {trace_dir!r} is not a directory")
            files = [os.path.join(trace_dir, f) for f in sorted(os.listdir(trace_dir))
                     if f.endswith((".json", ".gz"))]
        if not files:
            raise ValueError(f"no trace files (.json, .gz) in {trace_dir!r}")
        self.include_last_profiler_step = include_last_profiler_step
        self._runs = {}     # vprof's output per command line
        # One pass over every file: its rank and its steps (vprof -v says both).
        doc, _, err = run_json("steps", ["--per-rank", "-v", "--"] + files, keep_stderr=True,
                               hta_times=True)
        self.ranks = {}     # rank -> file
        nsteps = {}
        for line in err.splitlines():
            m = _FILE_LINE.match(line)
            if m:
                self.ranks[int(m.group(2))] = m.group(1)
                nsteps[m.group(1)] = int(m.group(3))
        if len(self.ranks) != len(files):
            raise RuntimeError(f"vprof did not say the rank of every file: {err}")
        self._steps = tables(doc, 0, "steps") if "steps" in doc.get("tables", {}) else None
        if self._steps is not None and "Rank" not in self._steps.columns:
            self._steps.insert(0, "Rank", next(iter(self.ranks)))   # one file: no Rank column
        # HTA drops the last step of a rank with two steps or more.
        drop = {f: (not include_last_profiler_step and nsteps[f] >= 2) for f in files}
        self._groups = [(d, [f for f in files if drop[f] == d]) for d in (True, False)]
        self._groups = [(d, fs) for d, fs in self._groups if fs]
        self._drop = {r: drop[f] for r, f in self.ranks.items()}

    # -- running vprof --------------------------------------------------------

    def _frames(self, command, which, files=None, cache=True, **opts):
        """Table `which` of `vprof COMMAND` over the trace files, the last step
        dropped where HTA drops it: one DataFrame, files run in groups."""
        out = []
        groups = self._groups if files is None else [
            (d, [f for f in fs if f in files]) for d, fs in self._groups]
        for drop, fs in groups:
            if not fs:
                continue
            args = []
            for k, v in opts.items():
                if v is True:
                    args.append("--" + k.replace("_", "-"))
                elif v is not None:
                    args += ["--" + k.replace("_", "-"), str(v)]
            if drop:
                args += ["--steps", ":-1"]
            # One run per command line: HTA too reads the traces once.
            key = (command,) + tuple(args) + ("--",) + tuple(fs)
            if key not in self._runs or not cache:
                self._runs[key] = run_json(command, args + ["--"] + fs, hta_times=True)
            doc, status = self._runs[key]
            if which in doc.get("tables", {}):
                df = tables(doc, status, which)
                if "Rank" not in df.columns and len(fs) == 1:
                    df.insert(0, "Rank", self._rank_of(fs[0]))
                out.append(df)
        if not out:
            return None
        return pd.concat(out, ignore_index=True)

    def _rank_of(self, path):
        return next(r for r, f in self.ranks.items() if f == path)

    # -- HTA's methods --------------------------------------------------------

    def get_profiler_steps(self):
        """The ProfilerStep numbers HTA keeps (the last one dropped as it drops it)."""
        if self._steps is None or self._steps.empty:
            return []
        kept = set()
        for rank, f in self.ranks.items():
            st = sorted(int(x) for x in self._steps.loc[self._steps["Rank"] == rank, "Step"].dropna().unique())
            kept.update(st[:-1] if self._drop[rank] else st)
        return sorted(int(s) for s in kept)

    def get_gpu_kernel_breakdown(self, visualize=True, duration_ratio=0.8, num_kernels=10,
                                 include_memory_kernels=True, image_renderer=""):
        """(kernel_type_df, kernel_df) as HTA's: the kernel-type table (union
        time of each type and of their overlaps, summed over ranks, us, and
        its percentage rounded to 0.1) and the per-kernel table (sum, max,
        min, stddev, mean in us per rank, type and name; the names past
        num_kernels or past the duration_ratio quantile of the running sum
        folded into "others", whose statistics are over the folded names'
        sums)."""
        types = ["COMPUTATION", "COMMUNICATION"] + (["MEMORY"] if include_memory_kernels else [])
        k = self._frames("kernels", "kernels", include="memcpy,memset", by="rank")
        rows = []
        if k is not None:
            k = k.assign(kernel_type=pd.Series([kernel_type(n) for n in k["Name"]], dtype=object))
            for rank in sorted(self.ranks):
                for kt in types:
                    part = k[(k["Rank"] == rank) & (k["kernel_type"] == kt)]
                    rows.append(self._aggregate(part, kt, rank, num_kernels, duration_ratio))
        columns = ["name", "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)",
                   "kernel_type", "rank"]
        kernel_df = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=columns)
        kernel_df = kernel_df[columns].sort_values(by=["kernel_type", "name", "rank"],
                                                   ignore_index=True)
        kernel_df["rank"] = kernel_df["rank"].astype("int64")
        for c in columns[1:6]:
            kernel_df[c] = kernel_df[c].astype("float64")
        kernel_type_df = self._kernel_type_table(k, include_memory_kernels)
        if visualize:
            px = _plotly()
            if px is not None:
                nz = kernel_type_df[kernel_type_df["percentage"] > 0]
                px.pie(nz, values="percentage", names="kernel_type", height=500,
                       title="Kernel Type Percentage Across All Ranks").show(renderer=image_renderer or None)
                for kt in kernel_df["kernel_type"].unique():
                    sub = kernel_df[kernel_df["kernel_type"] == kt]
                    px.bar(sub, x="name", y="sum (us)", color="rank",
                           title=f'Kernel type "{kt}": time per kernel and rank').show(
                               renderer=image_renderer or None)
        return kernel_type_df, kernel_df

    @staticmethod
    def _aggregate(part, kt, rank, num_kernels, duration_ratio):
        """One rank's and type's kernels as HTA's rows, folding the tail into "others"."""
        n = part["Instances"].astype("float64")
        df = pd.DataFrame({
            "name": part["Name"].astype(object).values,
            "sum": _us(part["Total Time (ns)"]).values,
            "max": _us(part["Max (ns)"]).values,
            "min": _us(part["Min (ns)"]).values,
            "mean": (_us(part["Total Time (ns)"]) / n).values,
            "std": _us(part["StdDev (ns)"]).values,
        })
        df = df.sort_values(by=["sum"], ascending=False, ignore_index=True)
        if len(df) > num_kernels:
            cumsum = df["sum"].cumsum()
            q = cumsum.quantile(duration_ratio)
            df.loc[cumsum > q, "name"] = "others"
            df.loc[df.index >= num_kernels, "name"] = "others"
            g = df.groupby(by=["name"])["sum"].agg(["sum", "max", "min", "mean", "std"])
            df = g.reset_index().fillna({"std": 0})
        df = df.rename(columns={"sum": "sum (us)", "max": "max (us)", "min": "min (us)",
                                "std": "stddev", "mean": "mean (us)"})
        df["kernel_type"] = kt
        df["rank"] = int(rank)
        return df

    def _kernel_type_table(self, k, include_memory_kernels):
        """HTA's kernel-type table from vprof comm's overlaps table: per rank
        the time of each combination of compute, communication and memory
        work (memory left out of the combinations without
        include_memory_kernels), in whole microseconds, summed over ranks;
        a combination held at an instant only is listed with 0 us, as HTA
        lists it."""
        c = self._frames("comm", "overlaps", table="overlaps")
        sums = {}
        if c is not None:
            for _, r in c.iterrows():
                name = r["Kernel Type"]
                if not include_memory_kernels:
                    if name == "MEMORY":
                        continue
                    name = name.replace(" overlapping MEMORY", "")
                # HTA's union times are whole microseconds (VPROF_HTA_TIMES: so are vprof's).
                sums[name] = sums.get(name, 0) + int(r["Time (ns)"]) // 1000
        # HTA's groupby orders the types by name before its sort by time
        # (numpy's quicksort is an insertion sort at this size: stable).
        names = sorted(sums)
        df = pd.DataFrame({"kernel_type": pd.Series(names, dtype=object),
                           "sum": pd.Series([sums[n] for n in names], dtype="int64")})
        df = df.sort_values(by=["sum"], ignore_index=True, ascending=False, kind="stable")
        total = df["sum"].sum()
        df["percentage"] = (df["sum"] / total) * 100 if total else float("nan")
        return df.round({"percentage": 1})

    def get_comm_comp_overlap(self, visualize=True):
        """HTA's rank, comp_comm_overlap_pctg: the share of each rank's
        communication time hidden behind compute kernels, %, 2 decimals; NaN
        where a rank has no communication."""
        c = self._frames("comm", "comm")
        ranks = sorted(self.ranks)
        pct = {} if c is None else dict(zip(c["Rank"], c["Overlap (%)"]))
        df = pd.DataFrame({"rank": pd.Series(ranks, dtype="int64"),
                           "comp_comm_overlap_pctg": pd.Series(
                               [pct.get(r, float("nan")) for r in ranks], dtype="float64").round(2)})
        if visualize:
            px = _plotly()
            if px is not None:
                px.bar(df, x="rank", y="comp_comm_overlap_pctg",
                       title="Computation-Communication Overlap").show()
        return df

    def get_temporal_breakdown(self, visualize=True):
        """HTA's per-rank idle, compute and non-compute time and GPU span
        (us) and their percentages of the span (2 decimals)."""
        t = self._frames("steps", "temporal", idle=True)
        if t is None or t.empty:
            raise ValueError("get_temporal_breakdown: no GPU kernels in the traces "
                             "(HTA raises IndexError there)")
        t = t.sort_values("Rank", ignore_index=True)
        df = pd.DataFrame({
            "rank": t["Rank"].astype("int64"),
            "idle_time(us)": _us(t["Idle (ns)"]) // 1,
            "compute_time(us)": _us(t["Compute (ns)"]) // 1,
            "non_compute_time(us)": _us(t["Non-Compute (ns)"]) // 1,
            "kernel_time(us)": _us(t["Span (ns)"]) // 1,
        })
        df["idle_time_pctg"] = (100 * (df["idle_time(us)"] / df["kernel_time(us)"])).round(2)
        df["compute_time_pctg"] = (100 * (df["compute_time(us)"] / df["kernel_time(us)"])).round(2)
        df["non_compute_time_pctg"] = (100 * (df["non_compute_time(us)"] / df["kernel_time(us)"])).round(2)
        if visualize:
            px = _plotly()
            if px is not None:
                px.bar(df, x="rank", y=["idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"],
                       title="Temporal breakdown across ranks").show()
        return df

    def get_idle_time_breakdown(self, ranks=None, streams=None, visualize=True, visualize_pctg=True,
                                show_idle_interval_stats=False, consecutive_kernel_delay=30):
        """(idle_time_df, None) as HTA's: per rank (default [0]) and stream,
        idle time (us) in host_wait, kernel_wait and other, and each one's
        ratio of the stream's idle time (2 decimals)."""
        if show_idle_interval_stats:
            raise NotImplementedError("get_idle_time_breakdown(show_idle_interval_stats=True): "
                                      "vprof does not keep the idle intervals' statistics")
        ranks = ranks or [0]
        out = []
        for rank in ranks:
            if rank not in self.ranks:
                raise ValueError(f"get_idle_time_breakdown: no rank {rank} (ranks: {sorted(self.ranks)})")
            t = self._frames("steps", "idle", files=[self.ranks[rank]], idle=True,
                             kernel_wait=consecutive_kernel_delay)
            rows = []
            if t is not None:
                for _, r in t.iterrows():
                    if streams and int(r["Stream"]) not in streams:
                        continue
                    idle = r["Idle (ns)"]
                    # HTA lists a category where a gap fell in it, and always
                    # "other" (a stream's first kernel has no gap: other).
                    # vprof gives the times, not which gaps were empty, so a
                    # category of 0 us is left out except "other".
                    for cat, col in (("host_wait", "Host Wait (ns)"), ("kernel_wait", "Kernel Wait (ns)"),
                                     ("other", "Other (ns)")):
                        if cat != "other" and not r[col]:
                            continue
                        rows.append((int(r["Rank"]), int(r["Stream"]), cat, r[col] / 1000.0,
                                     r[col] / idle if idle else float("nan")))
            df = pd.DataFrame(rows, columns=["rank", "stream", "idle_category", "idle_time",
                                             "idle_time_ratio"]).round(2)
            out.append(df)
        result = pd.concat(out)
        if visualize:
            px = _plotly()
            if px is not None:
                px.bar(result.assign(stream=result["stream"].astype(str)), x="stream",
                       y="idle_time_ratio" if visualize_pctg else "idle_time", color="idle_category",
                       title="Idle time breakdown per stream").show()
        return result, None

    def _describe(self, table, key, value):
        """A vprof counters summary as HTA's groupby().describe() frame."""
        t = self._frames("counters", table)
        stats = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]
        if t is None or t.empty:
            # HTA: None without the events (no launches, no copies); an
            # empty frame where copies exist but none has a bandwidth.
            if value != "memory_bw_gbps" or not self._has_memory_kernels():
                return None
            index = pd.MultiIndex.from_arrays([[], []], names=["rank", key])
            return pd.DataFrame({(value, s): pd.Series([], dtype="float64") for s in stats}, index=index)
        mine = ["Count", "Mean", "Std", "Min", "25%", "50%", "75%", "Max"]
        keycol = "Stream" if key == "stream" else "Name"
        index = pd.MultiIndex.from_arrays([t["Rank"].astype("int64"), t[keycol]], names=["rank", key])
        data = {(value, s): t[m].astype("float64").values for s, m in zip(stats, mine)}
        return pd.DataFrame(data, index=index)

    def _has_memory_kernels(self):
        k = self._frames("kernels", "kernels", include="memcpy,memset")
        return k is not None and any(kernel_type(n) == "MEMORY" for n in k["Name"])

    def get_queue_length_summary(self, ranks=None):
        """HTA's describe() of the queue length per rank and stream (None when empty)."""
        df = self._describe("queue", "stream", "queue_length")
        if df is not None and ranks:
            df = df[df.index.get_level_values("rank").isin(ranks)]
        return df

    def get_memory_bw_summary(self, ranks=None):
        """HTA's describe() of the copy bandwidth (GB/s) per rank and copy kind (None when empty)."""
        df = self._describe("bandwidth", "name", "memory_bw_gbps")
        if df is not None and ranks:
            df = df[df.index.get_level_values("rank").isin(ranks)]
        return df

    def get_cuda_kernel_launch_stats(self, ranks=None, runtime_cutoff=50, launch_delay_cutoff=100,
                                     include_memory_events=True, visualize=True):
        """{rank: DataFrame(correlation, cpu_duration, gpu_duration,
        launch_delay)} in us, for the launches HTA joins (cudaLaunchKernel,
        cudaLaunchKernelExC, MTIA's runFunction, and with
        include_memory_events cudaMemcpyAsync and cudaMemsetAsync). The
        cutoffs only change HTA's plots."""
        apis = _LAUNCH_APIS | (_MEMORY_APIS if include_memory_events else set())
        out = {}
        for rank in ranks or [0]:
            if rank not in self.ranks:
                raise ValueError(f"get_cuda_kernel_launch_stats: no rank {rank} (ranks: {sorted(self.ranks)})")
            t = self._frames("launches", "launches", files=[self.ranks[rank]], list=True)
            if t is None:
                t = pd.DataFrame(columns=["Correlation", "CPU Duration (ns)", "GPU Duration (ns)",
                                          "Launch Delay (ns)", "API Name"])
            t = t[t["API Name"].isin(apis)].sort_values("Correlation", kind="stable")
            df = pd.DataFrame({
                "correlation": t["Correlation"].astype("int64").values,
                "cpu_duration": _us(t["CPU Duration (ns)"]).values,
                "gpu_duration": _us(t["GPU Duration (ns)"]).values,
                "launch_delay": _us(t["Launch Delay (ns)"]).values,
            })
            out[rank] = df
            if visualize:
                px = _plotly()
                if px is not None:
                    px.histogram(df, x="launch_delay", title=f"Launch delay on rank {rank} (us)").show()
        return out

    def critical_path_analysis(self, rank, annotation, instance_id, data_load_events=None):
        """(CriticalPath, True): HTA's critical path of the instance_id-th
        event named like annotation on rank; its get_critical_path_breakdown()
        and summary() as HTA's."""
        if rank not in self.ranks:
            raise ValueError(f"critical_path_analysis: no rank {rank} (ranks: {sorted(self.ranks)})")
        args = ["--annotation", annotation, "--instance", str(instance_id), "--top", "0"]
        if data_load_events:
            args += ["--data-load", ",".join(data_load_events)]
        doc, status = run_json("critical-path", args + ["--", self.ranks[rank]], hta_times=True)
        return CriticalPath(tables(doc, status)), True

    def get_frequent_cuda_kernel_sequences(self, operator_name, output_dir, min_pattern_len=3, rank=0,
                                           top_k=5, visualize=False, compress_other_kernels=True):
        """HTA's table of the kernel sequences launched under operator_name
        (pattern, count, GPU kernel duration (us), CPU op duration (us));
        the trace with the top_k patterns marked is written to output_dir
        as overlaid_<trace file name>."""
        if rank not in self.ranks:
            raise ValueError(f"get_frequent_cuda_kernel_sequences: no rank {rank}")
        f = self.ranks[rank]
        os.makedirs(output_dir, exist_ok=True)
        out = os.path.join(output_dir, "overlaid_" + os.path.basename(f))
        # HTA's table lists every pattern; its overlay marks the top_k.
        self._frames("sequences", "sequences", files=[f], cache=False, op=operator_name,
                     min_len=min_pattern_len, top=top_k, trace_out=out)
        t = self._frames("sequences", "sequences", files=[f], op=operator_name,
                         min_len=min_pattern_len)
        if t is None:
            t = pd.DataFrame(columns=["Pattern", "Count", "GPU Kernel Duration (ns)", "CPU Op Duration (ns)"])
        return pd.DataFrame({
            "pattern": t["Pattern"].astype(object).values,
            "count": t["Count"].astype("int64").values,
            "GPU kernel duration (us)": _us(t["GPU Kernel Duration (ns)"]).values,
            "CPU op duration (us)": _us(t["CPU Op Duration (ns)"]).values,
        })

    def __getattr__(self, name):
        if not name.startswith("_") and name in _HTA_ONLY:
            raise NotImplementedError(f"TraceAnalysis.{name}: HTA's {name} is not computed by vprof "
                                      f"({_HTA_ONLY[name]})")
        raise AttributeError(name)


_HTA_ONLY = {
    "get_potential_stragglers": "vprof comm's stragglers table names the rank others wait for, by another rule",
    "get_gpu_kernels_with_user_annotations": "vprof ranges gives time per annotation, not per kernel row",
    "get_gpu_user_annotation_breakdown": "vprof ranges gives nsys' nvtx_sum per annotation",
    "get_aten_op_kernels_and_delay": "no per-aten-op launch delay table",
    "generate_trace_with_counters": "use `vprof counters --trace-out FILE`",
    "get_queue_length_summary_from_time_series": "use get_queue_length_summary",
    "get_queue_length_time_series": "vprof.counters(..., time_series=True) has the points, in ns",
    "get_time_spent_blocked_on_full_queue": "not computed",
    "get_memory_bw_time_series": "vprof.counters(..., time_series=True) has the points, in ns",
    "get_cupti_counter_data_with_operators": "CUPTI counters are not read",
    "overlay_critical_path_analysis": "use `vprof critical-path --trace-out FILE`",
}


class CriticalPath:
    """What critical_path_analysis returns in place of HTA's CPGraph: its
    get_critical_path_breakdown() and summary()."""

    def __init__(self, t):
        self._t = t

    def get_critical_path_breakdown(self):
        """One row per edge of the path, in order: event_idx (the event's
        index in traceEvents; NA for dependency edges), duration (us), type,
        bound_by ('' for dependency edges) and s_name. HTA's cat, pid, tid,
        stream and index columns are not given."""
        p = self._t["path"]
        return pd.DataFrame({
            "event_idx": p["Event"].astype("Int64").values,
            "duration": (p["Duration (ns)"] // 1000).astype("int64").values,
            "type": p["Type"].astype(object).values,
            "s_name": p["Name"].fillna("").astype(object).values,
            "bound_by": p["Bound By"].fillna("").astype(object).values,
        })

    def summary(self):
        """HTA's summary(): % of the path's duration per bound_by, a Series
        indexed by bound_by."""
        s = self._t["summary"]
        total = s["Time (ns)"].sum()
        pct = s["Time (ns)"].astype("float64") / total * 100 if total else s["Time (ns)"] * float("nan")
        out = pd.Series(pct.values, index=pd.Index(s["Bound By"].fillna("").astype(object).values,
                                                   name="bound_by"), name="duration")
        return out.sort_index()


__all__ = ["TraceAnalysis", "CriticalPath", "kernel_type"]
