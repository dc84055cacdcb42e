#!/usr/bin/env python3
"""figures.py - a lab's reference figures: measured into a TSV, rendered into its handout.

  figures.py collect --lab-dir labs/NN_name --machine NAME [--commit C] FILE...
      read the TSV files a lab's `make figures` wrote (the kit's results files, the
      profiler's metric rows, peers, and any other table with a header line) and write
      labs/NN_name/figures/NAME.tsv: provenance lines, then one line per figure
      (table, row, column, value), in the order the tables were measured
  figures.py render HANDOUT [HANDOUT...] FIGURES-DIR [--check]
      put the tables of every FIGURES-DIR/*.tsv into each HANDOUT (a lab's README.md
      and its translations README.LANG.md: the same block, byte for byte, in English)
      between the lines <!-- figures begin --> and <!-- figures end -->; --check
      writes nothing and exits 1 when a handout's block differs from it (the CPU test)

How the tables are laid out in a handout is figrender.py's job.

The figures file is the only place a handout's measured numbers come from: nothing in
a handout's figures block is typed by hand.
"""
import argparse
import os
import re
import statistics
import sys

from figrender import FIELDS, figure_text, fmt, num, read_figures, render  # noqa: F401 (read_figures: for its callers)


# ------------------------------------------------------------------ reading

class Source(object):
    """One input file: its '#' lines in order, and its tables (header, rows, the '#' lines
    in force before each row)."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.splitext(os.path.basename(path))[0]
        self.comments = []
        self.header = None
        self.rows = []          # (fields, comments seen before it)
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line.strip():
                    continue
                if line.startswith("#"):
                    self.comments.append(line)
                    continue
                fields = line.split("\t")
                if self.header is None or fields == self.header:
                    self.header = fields
                    continue
                self.rows.append((dict(zip(self.header, fields)), list(self.comments)))

    @property
    def kind(self):
        h = self.header or []
        if h[:3] == ["lab", "variant", "name"]:
            return "results"
        if "legacy" in h and "value" in h:
            return "profile"
        if h[:1] == ["peer"] and "median_ms" in h:
            return "peers"
        return "table"


def last_line(comments, prefix):
    for c in reversed(comments):
        if c.startswith(prefix):
            return c[len(prefix):].strip()
    return ""


def ceiling_of(comments):
    m = re.match(r"([0-9.]+) GB/s", last_line(comments, "# copy ceiling:"))
    return float(m.group(1)) if m else 0.0


# ------------------------------------------------------------------ collecting

def group_name(r, one_part, lab):
    size = "%sx%s" % (r["width"], r["height"]) if r.get("height", "1") != "1" else "n=%s" % r["width"]
    if r.get("lab") != lab:     # another lab's variant run beside this one's (a peer)
        bits = ["lab " + r.get("lab", "?")]
    else:
        bits = [] if one_part else ["part " + r.get("part", "-")]
    bits.append(size)
    if r.get("param", "-") not in ("-", ""):
        bits.append(r["param"])
    return ", ".join(bits)


def differing(configs):
    """The config words that tell apart rows of the same variant."""
    split = [set(c.split()) for c in configs]
    common = set.intersection(*split) if split else set()
    return [" ".join(w for w in c.split() if w not in common) for c in configs]


def results_figures(sources, out):
    rows = [(r, c) for s in sources for (r, c) in s.rows]
    labs = [r.get("lab") for r, _ in rows]
    lab = max(set(labs), key=labs.count)
    parts = {r.get("part", "-") for r, _ in rows if r.get("lab") == lab}
    one_part = parts <= {"-", ""}
    gpu = any(last_line(c, "# gpu:") not in ("", "none used") for _, c in rows)
    groups = {}
    for r, c in rows:
        groups.setdefault(group_name(r, one_part, lab), []).append((r, c))
    for table, members in groups.items():
        # a variant measured more than once in a table is told apart by its config
        keys = {}
        for r, c in members:
            cfg = r.get("config", "-")
            if "threads=" not in cfg and (r.get("threads") not in (None, "", "-", "1") or r["variant"] == "peer"):
                cfg = ("threads=%s " % r.get("threads")) + cfg
            keys.setdefault((r["variant"], r["name"]), []).append(cfg)
        told = {k: differing(v) if len(v) > 1 else [""] * len(v) for k, v in keys.items()}
        seen = {}
        for r, c in members:
            k = (r["variant"], r["name"])
            i = seen.get(k, 0)
            seen[k] = i + 1
            extra = told[k][i]
            label = ("%s %s" % (r["variant"], r["name"]) if r["variant"] == "peer"
                     else "v%s %s" % (r["variant"], r["name"]))
            if extra:
                label += " (%s)" % extra
            status = r.get("status", "")
            if status not in ("pass", "peer"):
                out.append((table, label, "status", status))
                continue
            kms, tms = num(r.get("kernel_ms_median")), num(r.get("total_ms_median"))
            if gpu:
                out.append((table, label, "kernel ms", fmt(kms)))
                if tms is not None and r.get("span", "") == "total" or (tms and kms and tms > kms * 1.0001):
                    out.append((table, label, "total ms", fmt(tms)))
            else:
                out.append((table, label, "ms", fmt(kms)))
            g = num(r.get("gbps"))
            if g is not None:
                out.append((table, label, "GB/s", fmt(g)))
                ceil = ceiling_of(c)
                if ceil > 0 and gpu:
                    out.append((table, label, "% of copy ceiling", fmt(100.0 * g / ceil)))
    ceilings = [ceiling_of(c) for _, c in rows if ceiling_of(c) > 0]
    if ceilings:
        out.append(("ceilings", "device-to-device copy (read + written), median of the runs",
                    "GB/s", fmt(statistics.median(ceilings))))
        out.append(("ceilings", "device-to-device copy (read + written), median of the runs",
                    "runs", str(len(ceilings))))
    return rows


def peers_figures(src, result_rows, out):
    for r, _ in src.rows:
        ms = num(r.get("median_ms"))
        label = "%s (%s, %sx%s %s)" % (r["peer"], r.get("part", "-"), r.get("width", "?"),
                                       r.get("height", "?"), r.get("param", ""))
        out.append(("peers", label, "ms", fmt(ms)))
        best = [num(x.get("kernel_ms_median")) for x, _ in result_rows
                if x.get("status") == "pass" and x.get("width") == r.get("width")
                and x.get("height") == r.get("height")
                and x.get("part", "-") in (r.get("part", "-"), "-")]
        best = [b for b in best if b]
        if ms and best:
            out.append(("peers", label, "x the kit's fastest", fmt(ms / min(best))))


def profile_figures(src, out):
    table = "profiler metrics" + ("" if src.name == "profile" else ", " + src.name.replace("profile-", ""))
    for r, _ in src.rows:
        label = r.get("label") or r.get("kernel", "?")
        unit = r.get("unit", "")
        column = r["legacy"] + (" (%s)" % unit if unit and unit not in ("-", "") else "")
        out.append((table, label, column, figure_text(r.get("value", "-"))))


def table_figures(src, out):
    """Any other table: its leading columns name a row (as many as make every row's name
    its own, at most three; a 'variant' and 'name' pair reads "vN name"), the rest are figures."""
    h = src.header or []
    keys = 1
    while keys < min(3, len(h) - 1) and \
            len({tuple(r.get(c) for c in h[:keys]) for r, _ in src.rows}) < len(src.rows):
        keys += 1
    for r, _ in src.rows:
        names = [r.get(c, "?") for c in h[:keys]]
        if h[:2] == ["variant", "name"] and keys >= 2:
            names[:2] = ["v%s %s" % (names[0], names[1])]
        label = " ".join(names[:1]) + "".join(", %s %s" % (c, r.get(c, "?")) for c in h[2 if h[:2] == ["variant", "name"] and keys >= 2 else 1:keys])
        cols = h[keys:]
        for col in cols:
            out.append((src.name, label, col, figure_text(r.get(col, "-"))))


def collect(args):
    sources = [Source(p) for p in args.files if os.path.exists(p)]
    missing = [p for p in args.files if not os.path.exists(p)]
    for p in missing:
        print("figures: no %s (skipped)" % p, file=sys.stderr)
    out = []
    results = [s for s in sources if s.kind == "results"]
    result_rows = results_figures(results, out) if results else []
    for s in sources:
        if s.kind == "peers":
            peers_figures(s, result_rows, out)
        elif s.kind == "profile":
            profile_figures(s, out)
        elif s.kind == "table":
            table_figures(s, out)
    if not out:
        print("figures: nothing measured in %s" % " ".join(args.files), file=sys.stderr)
        return 1
    comments = [c for s in results for c in s.comments] or [c for s in sources for c in s.comments]
    lab = os.path.basename(os.path.abspath(args.lab_dir))
    prov = [
        "# figures of %s, written by common/scripts/figures.py (make figures); do not edit" % lab,
        "# machine: %s" % args.machine,
        "# gpu: %s" % (last_line(comments, "# gpu:") or "none used"),
        "# driver: %s" % (args.driver or "-"),
        "# cuda: %s" % (last_line(comments, "# cuda:") or "-"),
        "# host: %s" % (last_line(comments, "# host:") or "-"),
        "# date: %s" % (last_line(comments, "# date:") or "-"),
        "# commit: %s" % (args.commit or "-"),
    ]
    if args.sources:                    # what figures.sh compares to say up to date
        prov.append("# sources: %s" % args.sources)
    folder = os.path.join(args.lab_dir, "figures")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, args.machine + ".tsv")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(prov) + "\n")
        f.write("\t".join(FIELDS) + "\n")
        for t in out:
            f.write("\t".join(str(x).replace("\t", " ") for x in t) + "\n")
    os.replace(tmp, path)
    print("figures: wrote %s (%d figures)" % (path, len(out)))
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="figures.py", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--lab-dir", required=True)
    c.add_argument("--machine", required=True)
    c.add_argument("--commit", default="")
    c.add_argument("--driver", default="")
    c.add_argument("--sources", default="", help="the hash of the sources measured (figures.sh)")
    c.add_argument("files", nargs="+")
    r = sub.add_parser("render")
    r.add_argument("paths", nargs="+", metavar="HANDOUT... FIGURES-DIR")
    r.add_argument("--check", action="store_true")
    a = p.parse_args(argv)
    return collect(a) if a.cmd == "collect" else render(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
