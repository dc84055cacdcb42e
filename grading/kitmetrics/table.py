# table - a metrics TSV (from `parse` or `run`) as an aligned table for students (`make profile`):
# label, kernel (at most 40 characters), launch, metric (the legacy name), value, unit. Values are
# shown the way the course reads them: percentages with one decimal, rates in GB/s or MB/s,
# durations in us or ms, counts with grouped digits, sizes in bytes with KiB beside them.
import math

from . import units
from .metricstsv import MetricsTsv

REQUIRED = ("kernel", "launch", "legacy", "value", "unit")
BYTE_UNITS = ("byte", "byte/block")  # sizes (shared memory per block): bytes, and KiB beside them
KERNEL_WIDTH = 40


def _group(digits):
    """"1234567" -> "1,234,567" (a sign kept in front)."""
    sign = ""
    if digits.startswith("-"):
        sign, digits = "-", digits[1:]
    groups = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    return sign + ",".join([digits] + groups)


def show(value, unit):
    """(value, unit) as displayed for one TSV value in one unit."""
    if value in (units.NA, ""):
        return "n/a", ""
    if not units.is_number(value):
        return value, unit
    x = float(value)
    if unit == "%":
        return "%.1f" % x, "%"
    if unit in ("byte/s", "byte/second"):
        if x >= 1e9 or x == 0:
            return "%.1f" % (x / 1e9), "GB/s"
        return "%.1f" % (x / 1e6), "MB/s"
    if unit in ("ns", "nsecond"):
        if x >= 1e6:
            return "%.3f" % (x / 1e6), "ms"
        return "%.2f" % (x / 1e3), "us"
    if unit == "thread":
        return "%.1f" % x, "threads (%.1f %% of a warp)" % (x / 32 * 100)
    if unit in BYTE_UNITS and math.isfinite(x) and x == int(x) and x >= 1024:
        return _group("%.0f" % x), "%s (%.1f KiB)" % (unit, x / 1024)
    if math.isfinite(x) and x == int(x) and -1e15 < x < 1e15:
        return _group("%.0f" % x), unit
    if x >= 1e6 or x <= -1e6:
        return "%.4g" % x, unit
    return "%.2f" % x, unit


def _short(kernel):
    if len(kernel) > KERNEL_WIDTH:
        return kernel[:KERNEL_WIDTH - 3] + "..."
    return kernel


def render(text, source):
    """The table of a metrics TSV, as a list of lines. Failure (exit 2) when it is not one."""
    tsv = MetricsTsv(text, REQUIRED, source)
    labelled = tsv.has("label")
    cells = [["label", "kernel", "launch", "metric", "value", "unit"]]
    last = None
    for row in tsv.rows:
        label = tsv.get(row, "label") if labelled else ""
        kernel = tsv.get(row, "kernel")
        launch = tsv.get(row, "launch")
        key = (label, kernel, launch)
        first = key != last
        last = key
        legacy = tsv.get(row, "legacy")
        name = legacy
        if legacy == "-":  # a column the mapping does not know (--all): its ncu name
            name = tsv.get(row, "metric") if tsv.has("metric") else ""
        value, unit = show(tsv.get(row, "value"), tsv.get(row, "unit"))
        cells.append([label if first and labelled else "", _short(kernel) if first else "",
                      launch if first else "", name, value, unit])
    first_column = 0 if labelled else 1
    columns = range(first_column, 6)
    width = dict((c, max(len(r[c]) for r in cells)) for c in columns)
    lines = []
    for r, row in enumerate(cells):
        out = []
        for c in columns:
            cell = row[c]
            if c == 4 and r > 0:
                cell = cell.rjust(width[c])
            elif c < 5:
                cell = cell.ljust(width[c])
            out.append(cell)
        lines.append("  ".join(out).rstrip(" "))
    if len(cells) == 1:
        lines.append("(no metrics)")
    return lines
