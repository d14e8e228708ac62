"""vprof's functions: one per command, DataFrames typed from the JSON
output, equal to the command line's CSV on the bundled traces; errors."""
import csv
import io
import os
import re
import subprocess

import pandas as pd
import pytest

import vprof
from conftest import DATA

R0 = os.path.join(DATA, "trace_filter_rank-0.json.gz")
R1 = os.path.join(DATA, "trace_filter_rank-1.json.gz")
SYNC = os.path.join(DATA, "event_sync_trace.json.gz")
AMD = os.path.join(DATA, "amd_trace.json.gz")
MEMSNAP = os.path.join(DATA, "..", "memsnap", "t24_cs336_small_from_start.pickle")
LLAMA = os.path.join(DATA, "..", "models", "llama-3-8b.json")

# (function, paths, options, table): each compared with `vprof ... -f csv --table`.
CASES = [
    ("kernels", [R0, R1], {"by": "rank,class", "include": ["memcpy", "memset"], "top": 5}, None),
    ("kernels", [AMD], {"steps": ":-1"}, None),
    ("ops", [SYNC], {}, None),
    ("launches", [R0, R1], {"list": True, "top": 20}, "launches"),
    ("launches", [SYNC], {}, "launch_summary"),
    ("critical_path", [SYNC], {"table": None}, "path"),
    ("counters", [R0], {}, "queue"),
    ("counters", [R1], {}, "bandwidth"),
    ("sequences", [R0], {"op": "aten::", "min_len": 1}, None),
    ("api", [SYNC], {}, None),
    ("copies", [R0, R1], {}, "copy_size"),
    ("ranges", [R0], {"top": 5}, "ranges"),
    ("comm", [R0, R1], {"steps": ":-1"}, "comm"),
    ("comm", [R0, R1], {}, "collectives"),
    ("steps", [R0], {"idle": True}, "idle"),
    ("steps", [R0, R1], {"per_rank": True}, "steps"),
    ("summary", [R0, R1], {}, "gpu_time"),
    ("memory", [MEMSNAP], {}, "peak"),
    ("mfu", [], {"model": LLAMA, "seq_len": 8192}, "flops"),
    ("diff", [R0, R1], {}, "kernels"),
]


def cli_csv(vprof_bin, cmd, paths, opts, table):
    args = [vprof_bin, cmd] + vprof.options({k: v for k, v in opts.items() if k != "table"}) + ["-f", "csv"]
    if table:
        args += ["--table", table]
    res = subprocess.run(args + paths, capture_output=True, text=True, check=True)
    return list(csv.reader(io.StringIO(res.stdout)))


def close(text, value):
    """A csv cell against a DataFrame value: equal text, or the number the
    csv printed rounded to its decimals (csv rounds percentages and means)."""
    if text == "":
        return value == "" if isinstance(value, str) else pd.isna(value)
    if isinstance(value, str):
        return text == value
    if pd.isna(value):
        return False
    m = re.fullmatch(r"-?\d+(?:\.(\d+))?", text)
    if not m:
        return float(text) == pytest.approx(float(value), rel=1e-9)
    decimals = len(m.group(1) or "")
    return abs(float(text) - float(value)) <= 0.5 * 10 ** -decimals + 1e-9 * abs(float(value))


@pytest.mark.parametrize("fn,paths,opts,table", CASES,
                         ids=[f"{c[0]}-{c[3] or 'one'}-{i}" for i, c in enumerate(CASES)])
def test_equal_to_cli_csv(vprof_bin, fn, paths, opts, table):
    cmd = vprof.COMMANDS[fn][0]
    rows = cli_csv(vprof_bin, cmd, paths, opts, table)
    kw = {k: v for k, v in opts.items() if k != "table"}
    df = getattr(vprof, fn)(paths, table=table, **kw)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == rows[0]
    assert len(df) == len(rows) - 1 > 0
    for i, row in enumerate(rows[1:]):
        for col, text in zip(rows[0], row):
            assert close(text, df.iloc[i][col]), (i, col, text, df.iloc[i][col])


def test_dtypes_from_the_json_types(vprof_bin):
    df = vprof.kernels([R0, R1], by="rank,class,name", top=4)
    assert df["Total Time (ns)"].dtype == "int64"       # ns, whole
    assert df["StdDev (ns)"].dtype == "float64"          # ns with fractions
    assert df["Time (%)"].dtype == "float64"
    assert df["Instances"].dtype == "int64"
    # the (others) row has no rank, class or name: NA, and Rank is Int64
    assert df["Rank"].dtype == "Int64" and df["Rank"].isna().tolist() == [False] * 4 + [True]
    assert df["Class"][:4].map(type).eq(str).all() and df["Class"][4] is pd.NA
    assert df.iloc[-1]["Name"].startswith("(others: ")
    assert df.attrs["schema"] == "vprof.kernels/1"


def test_missing_values_are_na(vprof_bin):
    t = vprof.comm([R0, R1])
    assert isinstance(t, vprof.Tables) and list(t) == ["comm", "collectives", "spread", "stragglers"]
    c = t["collectives"]
    assert c["Bytes (B)"].dtype == "Int64" and c["Bytes (B)"].isna().all()   # no sizes in these traces
    assert c["Algbw (GB/s)"].isna().all()
    assert t.notes["collectives"][0].startswith("20 kernels carry no message size")


def test_several_tables_and_one(vprof_bin):
    t = vprof.steps(R0, idle=True)
    assert list(t) == ["temporal", "idle"] and t.schema == "vprof.steps/1"
    temporal = vprof.steps(R0, idle=True, table="temporal")
    assert temporal["Span (ns)"].tolist() == [1222847000]
    with pytest.raises(ValueError, match="no table 'nope'.*temporal, idle"):
        vprof.steps(R0, idle=True, table="nope")


def test_errors_carry_message_and_status(vprof_bin, tmp_path):
    with pytest.raises(vprof.VprofError) as e:
        vprof.kernels(str(tmp_path / "absent.json"))
    assert e.value.returncode == 3 and "cannot open" in e.value.message
    with pytest.raises(vprof.VprofError) as e:
        vprof.kernels(R0, no_such_option=1)
    assert e.value.returncode == 2 and "--no-such-option" in e.value.message
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [{"ph": "X", ')
    with pytest.raises(vprof.VprofError) as e:
        vprof.kernels(str(bad))
    assert e.value.returncode == 3 and "bad.json" in e.value.message
    with pytest.raises(TypeError):
        vprof.kernels(R0, output="x.csv")


def test_a_gate_that_fails_is_a_result(vprof_bin):
    with pytest.warns(vprof.VprofWarning, match="gate failed: step.median > 1ms"):
        df = vprof.check(R0, fail_if=["step.median > 1ms", "step.median > 1000s"])
    assert df.attrs["exit_status"] == 1
    assert df["Result"].tolist() == ["FAIL", "pass"]


def test_every_table_command_has_a_function(vprof_bin):
    text = subprocess.run([vprof_bin, "help"], capture_output=True, text=True).stdout
    listed = set(re.findall(r"^  ([a-z][a-z-]+)\s", text.split("examples:")[0], re.M))
    without_tables = {"merge", "record"}
    mine = {cli for cli, _ in vprof.COMMANDS.values()}
    assert listed - without_tables <= mine, listed - without_tables - mine
    for py, (cli, _) in vprof.COMMANDS.items():
        assert callable(getattr(vprof, py))
        # roofline is built in parallel: its function exists before the command may
        assert cli in listed or cli == "roofline", cli


def test_binary_lookup(vprof_bin, monkeypatch, tmp_path):
    monkeypatch.setenv("VPROF_BIN", str(tmp_path / "none"))
    with pytest.raises(FileNotFoundError, match="VPROF_BIN"):
        vprof.binary()
