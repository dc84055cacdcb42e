#!/usr/bin/env python3
"""figrender.py - a lab's figures file (labs/NN_name/figures/MACHINE.tsv) as the tables of its
handout's figures block; figures.py render calls it, and figures.py collect writes numbers
in its format (num, fmt).

A machine's tables are rendered in fewer lines (merged): three or more tables of the
same rows, one an input each, become one table per value column with the inputs
across ("kernel ms, by input"); a size's filters of differing rows, one table of their
kernel and total ms; and a table whose rows "NAME (threads=N ...)" give a parameter
three or more values takes that parameter across ("ms threads=1 ... ms threads=16").
A rate in bytes per second is shown in GB/s.
"""
import collections
import os
import re
import sys


BEGIN = "<!-- figures begin -->"
END = "<!-- figures end -->"
FIELDS = ("table", "row", "column", "value")


# ------------------------------------------------------------------ numbers

def num(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if v == v else None


def fmt(v):
    """Four significant figures, no exponent for the sizes a lab meets."""
    if v is None:
        return "-"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1000:
        return "%.0f" % v
    digits = max(0, 3 - int(f"{a:e}".split("e")[1]))
    return ("%%.%df" % digits) % v


def figure_text(text):
    """A measured value as the figures write it: an integer (a count) keeps its digits as
    written, any other number four significant figures (fmt), anything else as it is."""
    if re.fullmatch(r"-?[0-9]{1,15}", text or ""):
        return text
    v = num(text)
    return fmt(v) if v is not None else (text if text is not None else "-")


# ------------------------------------------------------------------ rendering

def read_figures(path):
    prov, rows = {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# ") and ":" in line:
                k, v = line[2:].split(":", 1)
                prov[k.strip()] = v.strip()
            elif line and not line.startswith("#"):
                fields = line.split("\t")
                if fields == list(FIELDS) or len(fields) != 4:
                    continue
                rows.append(fields)
    return prov, rows


def cell(text):
    return text.replace("|", "\\|")


# a family of tables worth fewer tables: three or more
MERGE_MIN = 3
MERGE_COLS = ("kernel ms", "total ms")
STATUS = "status"
PARAMS = re.compile(r"^(.*\S) \(([^()=\s]+=[^()\s]*(?: [^()=\s]+=[^()\s]*)*)\)$")


def value_cols(tab):
    """A table's value columns and whether its status column folds into them: it does when
    no row has both a status and a value (the status then stands in that row's empty cells);
    a status that does not fold is a value column like the others."""
    cols = [c for c in tab["cols"] if c != STATUS]
    if STATUS not in tab["cols"]:
        return cols, False
    for r in tab["rows"]:
        if tab["cells"].get((r, STATUS)) and any(tab["cells"].get((r, c)) for c in cols):
            return list(tab["cols"]), False
    return cols, True


def shown(tab, r, c, fold):
    """The cell (r, c) of a table, its row's status where it is empty and the status folds."""
    v = tab["cells"].get((r, c), "")
    return v if v or not fold else tab["cells"].get((r, STATUS), "")


def size_families(tables):
    """Families of the first rule: three or more tables named "SIZE, FILTER" of one SIZE with the
    same columns, among them kernel and total ms, whose row lists differ (tables of the same
    rows are left to the second rule, which loses no column)."""
    fams = {}
    for t, tab in tables.items():
        pre, sep, name = t.partition(", ")
        if sep and all(c in tab["cols"] for c in MERGE_COLS):
            fams.setdefault((pre, tuple(tab["cols"])), []).append(t)
    return [f for f in fams.values()
            if len(f) >= MERGE_MIN and len({tuple(tables[t]["rows"]) for t in f}) > 1]


def by_size(tables, fam):
    """A size family as one table "SIZE (each filter: kernel ms, total ms)": each FILTER's kernel
    and total ms a column, a row missing from one of them blank there."""
    m = {"rows": [], "cols": [], "cells": {}}
    for ft in fam:
        f = tables[ft]
        fname = ft.partition(", ")[2]
        for r in f["rows"]:
            if r not in m["rows"]:
                m["rows"].append(r)
        for c in MERGE_COLS:
            col = "%s %s" % (fname, c)
            m["cols"].append(col)
            for r in f["rows"]:
                m["cells"][(r, col)] = f["cells"].get((r, c), "")
    return [(fam[0].partition(", ")[0] + " (each filter: kernel ms, total ms)", m)]


def input_families(tables, taken):
    """Families of the second rule: three or more tables (of those not taken) with the same row
    names in the same order and the same value columns, a folded status aside."""
    fams = {}
    for t, tab in tables.items():
        cols = value_cols(tab)[0]
        if t not in taken and cols and tab["rows"]:
            fams.setdefault((tuple(tab["rows"]), frozenset(cols)), []).append(t)
    return [f for f in fams.values() if len(f) >= MERGE_MIN]


def by_input(tables, fam):
    """An input family as one table per value column C, "C, by input": a row per variant, a
    column per input (the table's name, less the leading ", " parts all of them share, which
    go in the title)."""
    names = [t.split(", ") for t in fam]
    common = 0
    while common < min(len(n) for n in names) - 1 and len({tuple(n[:common + 1]) for n in names}) == 1:
        common += 1
    prefix = ", ".join(names[0][:common]) + ": " if common else ""
    heads = [", ".join(n[common:]) for n in names]
    first = tables[fam[0]]
    out = []
    for c in value_cols(first)[0]:
        m = {"rows": list(first["rows"]), "cols": heads, "cells": {}}
        for t, head in zip(fam, heads):
            tab = tables[t]
            fold = value_cols(tab)[1]
            for r in tab["rows"]:
                m["cells"][(r, head)] = shown(tab, r, c, fold)
        out.append(("%s%s, by input" % (prefix, c), m))
    return out


def params_of(row):
    """A row "BASE (k1=v1 k2=v2 ...)" as (BASE, [(k1, v1), ...]); None for any other row."""
    m = PARAMS.match(row)
    return (m.group(1), [tuple(w.split("=", 1)) for w in m.group(2).split()]) if m else None


def pivoted(tab):
    """A table of at most two value columns whose rows "BASE (... k=v ...)" give one key k three
    or more values for a BASE: those rows become one row "BASE (the other parameters)" with
    columns "COL k=v", each value of k in the order met; the other rows keep their place and
    the plain COL columns (and the status, if any of them has one). The table as it is when no
    key does, or when a new row would meet another's name or a cell be written twice."""
    cols, fold = value_cols(tab)
    if not cols or len(cols) > 2:
        return tab
    parsed = {r: params_of(r) for r in tab["rows"]}
    keys = []
    for p in parsed.values():
        for k, _ in p[1] if p else []:
            if k not in keys:
                keys.append(k)
    for k in keys:
        values = {}
        for p in parsed.values():
            if p and k in dict(p[1]):
                values.setdefault(p[0], set()).add(dict(p[1])[k])
        bases = {b for b, v in values.items() if len(v) >= MERGE_MIN}
        if bases:
            break
    else:
        return tab
    rows, kvals, cells, plain = [], [], {}, []
    for r in tab["rows"]:
        p = parsed[r]
        if not (p and p[0] in bases and k in dict(p[1])):
            if r in rows:
                return tab
            rows.append(r)
            plain.append(r)
            for c in tab["cols"]:
                cells[(r, c)] = tab["cells"].get((r, c), "")
            continue
        others = " ".join("%s=%s" % kv for kv in p[1] if kv[0] != k)
        name = p[0] + (" (%s)" % others if others else "")
        v = dict(p[1])[k]
        if name not in rows:
            rows.append(name)
        elif name in plain:
            return tab
        if v not in kvals:
            kvals.append(v)
        for c in cols:
            col = "%s %s=%s" % (c, k, v)
            if (name, col) in cells:
                return tab
            cells[(name, col)] = shown(tab, r, c, fold)
    out = []
    for c in cols:
        out += ([c] if plain else []) + ["%s %s=%s" % (c, k, v) for v in kvals]
    if fold and any(cells.get((r, STATUS)) for r in plain):
        out.append(STATUS)
    return {"rows": rows, "cols": out, "cells": cells}


def merged(tables):
    """The tables as rendered, a list of (title, table), by three rules in turn:
    1. three or more tables named "SIZE, FILTER" of one size with the same columns, among them
       kernel and total ms, and rows that differ: one table "SIZE (each filter: kernel ms,
       total ms)" (by_size);
    2. of the others, three or more with the same rows (same order) and the same value columns
       (a status folded in): one table "C, by input" for each value column C, the variants
       down, the inputs across (by_input);
    3. each table left, of at most two value columns: a parameter that takes three or more
       values across its rows across the columns (pivoted).
    A family's tables stand where its first table stood; no table is shown twice."""
    fams = [(f, by_size) for f in size_families(tables)]
    taken = {t for f, _ in fams for t in f}
    fams += [(f, by_input) for f in input_families(tables, taken)]
    first = {f[0]: (f, how) for f, how in fams}
    taken = {t for f, _ in fams for t in f}
    out = []
    for t, tab in tables.items():
        if t in first:
            f, how = first[t]
            out += how(tables, f)
        elif t not in taken:
            out.append((t, pivoted(tab)))
    return out


def in_gbps(col, value):
    """A column "NAME (byte/s)" as "NAME (GB/s)", its value divided by 1e9 (a profiler's
    rates: 562408436967 byte/s reads 562.4 GB/s; a value not measured stays as it is); any
    other column as it is."""
    if not col.endswith(" (byte/s)"):
        return col, value
    v = num(value)
    return col[:-len("(byte/s)")] + "(GB/s)", fmt(v / 1e9) if v is not None else value


def render_file(path):
    prov, rows = read_figures(path)
    lines = ["#### Measured on %s" % machine_name(prov), ""]
    where = "host %s; %s (`%s`)." % (prov.get("host", "-"), prov.get("date", "-")[:10],
                                      os.path.join("figures", os.path.basename(path)))
    gpu = prov.get("gpu", "-").split(",")[0] not in ("-", "none used")   # else a CPU lab's
    lines.append("Driver %s, CUDA %s; %s" % (prov.get("driver", "-"), prov.get("cuda", "-")
                                             .split(",")[0], where) if gpu else
                 where[:1].upper() + where[1:])
    # in a profiler table, a row whose columns come again is the variant's next kernel (two
    # launches profiled: a separable filter's row and column passes): "vN, kernel K" each
    seen = collections.Counter((t, r, c) for t, r, c, _v in rows if t.startswith("profiler"))
    many = {(t, r) for (t, r, _c), n in seen.items() if n > 1}
    nth, tables = collections.Counter(), {}
    for t, r, c, v in rows:
        if (t, r) in many:
            nth[(t, r, c)] += 1
            r = "%s, kernel %d" % (r, nth[(t, r, c)])
        c, v = in_gbps(c, v)
        tab = tables.setdefault(t, {"rows": [], "cols": [], "cells": {}})
        if r not in tab["rows"]:
            tab["rows"].append(r)
        if c not in tab["cols"]:
            tab["cols"].append(c)
        tab["cells"][(r, c)] = v
    for t, tab in merged(tables):
        lines += ["", "**%s**" % cell(t), "",
                  "| | " + " | ".join(cell(c) for c in tab["cols"]) + " |",
                  "|---|" + "---:|" * len(tab["cols"])]
        for r in tab["rows"]:
            lines.append("| %s | %s |" % (cell(r), " | ".join(cell(tab["cells"].get((r, c), ""))
                                                          for c in tab["cols"])))
        if any(", kernel " in r for r in tab["rows"]):
            lines += ["", "Kernel K of a variant: the K-th kernel it launches, profiled."]
    return lines


def machine_name(prov):
    gpu = prov.get("gpu", "-").split(",")[0]
    return gpu if gpu not in ("-", "none used") else prov.get("host", "-")


def rendering(folder):
    """The figures block: one machine's tables (the figures measured last, by their date),
    and the other machines measured named in one line, so that a handout holds one table
    however many GPU models the kit was measured on."""
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".tsv")) \
        if os.path.isdir(folder) else []
    lines = [BEGIN,
             "<!-- generated from figures/*.tsv by `make figures-table`; edit the TSV, not this -->"]
    if not files:
        lines.append("No figures have been measured for this lab yet: `make figures` on a GPU machine writes them.")
    provs = {p: read_figures(p)[0] for p in files}
    shown = sorted(files, key=lambda p: (provs[p].get("date", ""), p))[-1:]
    for p in shown:
        lines.append("")
        lines.extend(render_file(p))
    others = [p for p in files if p not in shown]
    if others:
        lines.append("")
        lines.append("Also measured: %s." % "; ".join(
            "%s, %s (`%s`)" % (machine_name(provs[p]), provs[p].get("date", "-")[:10],
                               os.path.join("figures", os.path.basename(p))) for p in others))
    lines.append(END)
    return "\n".join(lines)


def render(args):
    if len(args.paths) < 2:
        print("figures: render needs a handout and a figures folder", file=sys.stderr)
        return 2
    handouts, folder = args.paths[:-1], args.paths[-1]
    block = rendering(folder)
    texts = {}
    for h in handouts:
        try:
            with open(h, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            print("figures: %s cannot be read (%s)" % (h, getattr(e, "strerror", None) or "not UTF-8 text"),
                  file=sys.stderr)
            return 2
        if BEGIN not in text or END not in text[text.find(BEGIN):]:
            print("figures: %s has no %s ... %s block" % (h, BEGIN, END), file=sys.stderr)
            return 2
        texts[h] = text
    rc = 0
    for h in handouts:
        text = texts[h]
        a = text.index(BEGIN)
        b = text.index(END, a) + len(END)
        new = text[:a] + block + text[b:]
        if args.check:
            if new != text:
                print("figures: the figures table of %s differs from %s (make figures-table writes it)"
                      % (h, folder), file=sys.stderr)
                rc = 1
            continue
        if new != text:
            tmp = h + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(new)
            os.replace(tmp, h)
            print("figures: rendered %s" % h)
    return rc
