#!/usr/bin/env python3
"""Which file calls which, read from the symbols of the built objects.

    calls.py [--nm NM] [--report] [--plant SRC DST] OBJ...

Every OBJ is an object file built from src/ (its path holds "src/<folder>/<file>.c.o"
or "src/<file>.c.o"). A file calls another when it has an undefined symbol that the
other defines (functions and data alike: reading another module's table is a
dependency too). From those edges the checker reports, and fails (exit 1) on:

  - a cycle between folders (src/analysis -> src/flops -> src/analysis),
  - a pair of files in different folders that call each other,

and prints the folder sizes. --report prints the folder graph and every edge that
takes part in a cycle, whether or not it fails. --plant SRC DST adds one edge
from file SRC to file DST (paths like src/trace/reader.c) before checking, so a
test can show that the checker sees an upward call: with --plant the exit
status is 0 when every planted call closes a folder cycle, 1 when one
does not.

Why symbols and not #include lines: an include says what a file may use, the
symbol table what it does use; a cycle of calls is what makes two folders one
module in fact, whatever the headers say. Static functions and symbols of
the C library are not in the graph (nm reports neither as defined by src/).
"""
import os
import re
import subprocess
import sys


def source_of(obj):
    """src/analysis/kernels.c for .../CMakeFiles/x.dir/src/analysis/kernels.c.o"""
    m = re.search(r"(?:^|/)(src/.+\.c)\.o(?:bj)?$", obj.replace(os.sep, "/"))
    return m.group(1) if m else None


def folder_of(src):
    """The folder is the file's directory: src/analysis/kernels and
    src/analysis/core are two folders, as src/trace and src/util are."""
    return os.path.dirname(src)


def run_nm(nm, flags, objs):
    """nm over every object at once (one process, not one per object):
    lines "OBJ: SYMBOL TYPE ..." with -A."""
    out = subprocess.run([nm, "-A", "-P"] + flags + objs, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("calls.py: %s: %s" % (nm, out.stderr.strip()))
    for line in out.stdout.splitlines():
        obj, sep, rest = line.rpartition(": ")
        f = rest.split()
        if sep and f:
            yield obj, f


def read_symbols(nm, objs):
    srcs = {}
    for obj in objs:
        src = source_of(obj)
        if src is None:
            sys.exit("calls.py: %s: not an object built from src/" % obj)
        srcs[obj] = src
    defined = {}      # symbol -> file
    undefined = {src: set() for src in srcs.values()}   # file -> symbols it needs
    for obj, f in run_nm(nm, ["--defined-only", "-g"], objs):
        if len(f) >= 2 and f[1] not in ("U", "w", "v"):
            # The same symbol in two objects would be a link error; the
            # first wins so that a duplicate does not hide an edge.
            defined.setdefault(f[0], srcs[obj])
    for obj, f in run_nm(nm, ["--undefined-only"], objs):
        undefined[srcs[obj]].add(f[0])
    return defined, undefined


def file_edges(defined, undefined):
    edges = {}
    for src, syms in undefined.items():
        for s in syms:
            dst = defined.get(s)
            if dst and dst != src:
                edges.setdefault((src, dst), set()).add(s)
    return edges


def strongly_connected(nodes, succ):
    """Tarjan's components; iterative, the graph is small but recursion is not needed."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(succ.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(succ.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(sorted(comp))
    return comps


def main(argv):
    nm = "nm"
    report = False
    plants = []
    objs = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--nm":
            nm = argv[i + 1]
            i += 2
        elif a == "--report":
            report = True
            i += 1
        elif a == "--plant":
            plants.append((argv[i + 1], argv[i + 2]))
            i += 3
        else:
            objs.append(a)
            i += 1
    if not objs:
        sys.exit(__doc__.strip().splitlines()[2].strip())

    defined, undefined = read_symbols(nm, objs)
    edges = file_edges(defined, undefined)
    for src, dst in plants:
        edges.setdefault((src, dst), set()).add("(planted)")

    files = set(undefined)
    sizes = {}
    for f in files:
        sizes[folder_of(f)] = sizes.get(folder_of(f), 0) + 1

    fsucc = {}
    fedges = {}
    for (a, b), syms in edges.items():
        fa, fb = folder_of(a), folder_of(b)
        if fa != fb:
            fsucc.setdefault(fa, set()).add(fb)
            fedges.setdefault((fa, fb), []).append((a, b, sorted(syms)))

    cycles = [c for c in strongly_connected(set(sizes) | set(fsucc), fsucc) if len(c) > 1]
    mutual = sorted((a, b) for (a, b) in edges
                    if a < b and (b, a) in edges and folder_of(a) != folder_of(b))

    print("folders: %d, files: %d, largest folder: %s (%d files)" % (
        len(sizes), len(files), max(sizes, key=lambda k: (sizes[k], k)), max(sizes.values())))
    print("folder cycles: %d" % len(cycles))
    for c in cycles:
        print("  cycle: %s" % " <-> ".join(c))
        if report:
            members = set(c)
            for (fa, fb), lst in sorted(fedges.items()):
                if fa in members and fb in members:
                    for a, b, syms in sorted(lst):
                        print("    %s -> %s (%s)" % (a, b, ", ".join(syms[:4])))
    print("mutual cross-folder pairs: %d" % len(mutual))
    for a, b in mutual:
        print("  %s <-> %s (%s / %s)" % (a, b, ", ".join(sorted(edges[(a, b)])[:3]),
                                         ", ".join(sorted(edges[(b, a)])[:3])))
    if report:
        print("folder order (calls go from left to right):")
        for f in sorted(sizes):
            print("  %-14s %3d files -> %s" % (f, sizes[f], " ".join(sorted(fsucc.get(f, ())))))
    if plants:
        seen = True
        for src, dst in plants:
            cyc = [c for c in cycles if folder_of(src) in c and folder_of(dst) in c]
            print("planted call %s -> %s: %s" % (
                src, dst, "in the cycle of %s" % ", ".join(cyc[0]) if cyc else "NOT seen"))
            seen = seen and bool(cyc)
        return 0 if seen else 1
    return 1 if cycles or mutual else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
