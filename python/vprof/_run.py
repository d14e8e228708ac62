"""Finding the vprof binary, running it, and its JSON as DataFrames.

Every function of the package runs `vprof COMMAND -f json ...` and turns
the typed JSON output (docs/json.md) into pandas DataFrames; nothing here
knows a command's tables or columns, so a new command or column needs no
change here.
"""
import json
import os
import shutil
import subprocess
import warnings

import pandas as pd

_HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLED = os.path.join(_HERE, "bin", "vprof")


class VprofError(RuntimeError):
    """vprof exited with an error: `returncode` is its exit status (2 usage
    error, 3 unreadable or invalid input, ...), `message` what it printed on
    standard error, `command` the command line that was run."""

    def __init__(self, message, returncode, command):
        super().__init__(f"{message} (vprof exit status {returncode})")
        self.message = message
        self.returncode = returncode
        self.command = command


class VprofWarning(UserWarning):
    """A warning vprof printed on standard error while it succeeded."""


def binary():
    """The vprof binary to run: $VPROF_BIN, else the one installed with the
    package (copied or built from the repository at install time), else
    `vprof` on PATH."""
    env = os.environ.get("VPROF_BIN")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise FileNotFoundError(f"VPROF_BIN={env} is not an executable file")
        return env
    if os.access(BUNDLED, os.X_OK):
        return BUNDLED
    found = shutil.which("vprof")
    if found:
        return found
    raise FileNotFoundError(
        "no vprof binary: set VPROF_BIN to one, put vprof on PATH, or reinstall this "
        "package from the vprof repository (it then builds or copies build/vprof)")


def run_json(command, args, keep_stderr=False, hta_times=False):
    """Runs `vprof COMMAND -f json ARGS...`: the parsed JSON document and
    the exit status (0, or 1 where a gate failed and the tables were still
    printed), and with keep_stderr its standard error's text instead of
    warnings. hta_times: with VPROF_HTA_TIMES=1, so that vprof reads every
    event's times as HTA rounds them (docs/trace-input.md). Any other
    failure raises VprofError."""
    cmd = [binary(), command, "-f", "json"] + [str(a) for a in args]
    env = dict(os.environ, VPROF_HTA_TIMES="1") if hta_times else None
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    err = res.stderr.decode("utf-8", "replace").strip()
    if res.returncode not in (0, 1) or (res.returncode == 1 and not res.stdout.strip()):
        raise VprofError(err or "vprof failed without a message", res.returncode, cmd)
    if err and not keep_stderr:
        for line in err.splitlines():
            warnings.warn(line, VprofWarning, stacklevel=3)
    try:
        doc = json.loads(res.stdout)
    except ValueError as e:
        raise VprofError(f"vprof's output is not JSON: {e}", res.returncode, cmd) from None
    return (doc, res.returncode, err) if keep_stderr else (doc, res.returncode)


def _column(values, kind):
    """One column as a Series of the dtype its JSON type says: text as str
    (missing: NA), percent and ratio as float64 (missing: NaN), int and bytes
    as int64 (Int64 when a value is missing), ns as int64 where every value
    is a whole number (times, totals) and float64 where one is a fraction
    (averages, medians, deviations)."""
    missing = any(v is None for v in values)
    if kind == "text":
        return pd.Series([pd.NA if v is None else str(v) for v in values], dtype=object)
    if kind in ("percent", "ratio"):
        return pd.Series([float("nan") if v is None else float(v) for v in values], dtype="float64")
    whole = all(v is None or isinstance(v, int) or (isinstance(v, float) and v.is_integer())
                for v in values)
    if kind in ("int", "bytes") or (kind == "ns" and whole):
        if missing:
            return pd.Series([pd.NA if v is None else int(v) for v in values], dtype="Int64")
        return pd.Series([int(v) for v in values], dtype="int64")
    return pd.Series([float("nan") if v is None else float(v) for v in values], dtype="float64")


def frame(table, schema=None):
    """A table of vprof's JSON output as a DataFrame; its notes and column
    types in df.attrs["notes"] and df.attrs["types"]."""
    columns = table.get("columns", [])
    rows = table.get("rows", [])
    data = {}
    for i, col in enumerate(columns):
        data[col["name"]] = _column([r[i] for r in rows], col.get("type", "text"))
    df = pd.DataFrame(data, columns=[c["name"] for c in columns])
    df.attrs["notes"] = list(table.get("notes", []))
    df.attrs["types"] = {c["name"]: c.get("type", "text") for c in columns}
    if schema:
        df.attrs["schema"] = schema
    return df


class Tables(dict):
    """Several tables of one command: a dict from the table's name (as in
    `--table`) to its DataFrame, in vprof's order; `notes` maps each table's
    name to the lines printed under it, `schema` is vprof's schema name
    (`vprof.comm/1`), `exit_status` 0, or 1 where a gate failed."""

    def __init__(self, tables, notes, schema, exit_status):
        super().__init__(tables)
        self.notes = notes
        self.schema = schema
        self.exit_status = exit_status

    def __repr__(self):
        return f"Tables({self.schema}: {', '.join(self)})"


def tables(doc, exit_status=0, table=None):
    """The JSON document as one DataFrame (one table, or the one `table`
    names) or as Tables (several)."""
    schema = doc.get("schema")
    raw = doc.get("tables", {})
    if table is not None:
        if table not in raw:
            raise ValueError(f"no table {table!r} in this output of {schema}; "
                             f"it has: {', '.join(raw) or 'none'}")
        df = frame(raw[table], schema)
        df.attrs["exit_status"] = exit_status
        return df
    frames = {name: frame(t, schema) for name, t in raw.items()}
    if len(frames) == 1:
        df = next(iter(frames.values()))
        df.attrs["exit_status"] = exit_status
        return df
    return Tables(frames, {n: f.attrs["notes"] for n, f in frames.items()}, schema, exit_status)
