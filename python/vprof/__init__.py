"""vprof from Python: every table-printing command of the vprof binary as a
function returning pandas DataFrames.

    import vprof
    df = vprof.kernels("rank0.json.gz", by="rank,class", steps=":-1", top=20)
    t = vprof.comm(["rank0.json.gz", "rank1.json.gz"])   # several tables
    t["comm"], t.notes["comm"]

Options keep the command line's names (docs/<command>.md): `--min-len 3` is
`min_len=3`, a flag is `True`, a list is a comma list (`by=["rank",
"class"]`), and a repeatable option (`fail_if`, `expect`, `threshold`) takes
a list of its values. One table gives a DataFrame, several a `Tables`
dict (name -> DataFrame, with `.notes`); `table="NAME"` picks one. Failures
raise `VprofError` with vprof's message and exit status. See docs/python.md.

`from vprof.hta import TraceAnalysis` is a drop-in for Holistic Trace
Analysis' TraceAnalysis over the same numbers.
"""
import os

from ._run import BUNDLED, Tables, VprofError, VprofWarning, binary, frame, run_json, tables

__all__ = ["Tables", "VprofError", "VprofWarning", "binary", "run", "COMMANDS"]

# The table-printing commands: Python name -> (vprof command, options that
# may be given several times). A new command is one entry here.
COMMANDS = {
    "summary": ("summary", ("threshold",)),
    "kernels": ("kernels", ()),
    "ops": ("ops", ()),
    "launches": ("launches", ()),
    "critical_path": ("critical-path", ()),
    "counters": ("counters", ()),
    "sequences": ("sequences", ()),
    "api": ("api", ()),
    "copies": ("copies", ()),
    "ranges": ("ranges", ()),
    "comm": ("comm", ()),
    "steps": ("steps", ()),
    "memory": ("memory", ()),
    "mfu": ("mfu", ()),
    "roofline": ("roofline", ()),
    "diff": ("diff", ("fail_if",)),
    "check": ("check", ("fail_if", "expect")),
    "report": ("report", ()),
    "reduce": ("reduce", ()),
}

# Options that would break the JSON on standard output.
_RESERVED = {"format", "f", "output", "o", "save_part", "help", "h"}


def _paths(paths):
    out = []
    for p in paths:
        if isinstance(p, (list, tuple)):
            out += [os.fspath(x) for x in p]
        else:
            out.append(os.fspath(p))
    return out


def options(opts, repeatable=()):
    """Keyword options as command-line words: name_x=V -> --name-x V;
    True -> the flag alone; False or None -> left out; a list -> a comma list,
    or the option once per value where it is repeatable. A trailing _
    (`from_`) is dropped, for names that are Python keywords."""
    words = []
    for key, value in opts.items():
        if key in _RESERVED:
            raise TypeError(f"option {key!r} is not available from Python: the output is always "
                            "DataFrames (use vprof on the command line for files)")
        if value is None or value is False:
            continue
        flag = ("-" + key if len(key) == 1 else "--" + key.rstrip("_").replace("_", "-"))
        if value is True:
            words.append(flag)
        elif isinstance(value, (list, tuple, set)):
            if key in repeatable:
                for v in value:
                    words += [flag, str(v)]
            else:
                words += [flag, ",".join(str(v) for v in value)]
        else:
            words += [flag, str(value)]
    return words


def run(command, *paths, table=None, _repeatable=(), **opts):
    """Runs any table-printing vprof command (its command-line name) on the
    paths with the options, and returns its tables (see the module's help)."""
    args = options(opts, _repeatable) + ["--"] + _paths(paths) if paths else options(opts, _repeatable)
    doc, status = run_json(command, args)
    return tables(doc, status, table)


def _make(pyname, cli, repeatable):
    def command(*paths, table=None, **opts):
        return run(cli, *paths, table=table, _repeatable=repeatable, **opts)
    command.__name__ = command.__qualname__ = pyname
    command.__doc__ = (f"vprof {cli}: its tables as DataFrames (one table: a DataFrame; several: "
                       f"a Tables dict; table='NAME' picks one). Paths are trace files or "
                       f"directories (one argument, or a list); options keep `vprof {cli}`'s names "
                       f"(`vprof help {cli}`, docs/{cli}.md).")
    return command


for _py, (_cli, _rep) in COMMANDS.items():
    globals()[_py] = _make(_py, _cli, _rep)
    __all__.append(_py)
del _py, _cli, _rep
