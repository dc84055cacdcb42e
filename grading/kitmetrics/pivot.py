# pivot - a labelled metrics TSV reshaped for gnuplot (grading/plot_metrics.gp), which cannot pivot
# the long format itself: one table per panel (rows: legacy metrics; columns: variants, the mean
# over their launches) and meta.gp with the counts and names the script lays the panels out by.
#
# Panels, in this order and only those with data: pct (percentages), cnt (sectors, wavefronts,
# bank conflicts), thr (byte rates, in GB/s), mem (shared memory per block, in bytes: launch
# attributes), oth (the rest: durations in us, ratios, other units shown in brackets after the
# metric's name). A series is a label (the variant); a label with several kernels gets one series
# per kernel ("label: kernel").
import os

from . import units
from .failure import Failure, USAGE
from .inputs import encode
from .metricstsv import MetricsTsv

REQUIRED = ("kernel", "legacy", "value", "unit")
PANELS = ("pct", "cnt", "thr", "mem", "oth")
COUNT_UNITS = ("sector", "wavefront", "count")
RATE_UNITS = ("byte/s", "byte/second")
SIZE_UNITS = ("byte/block",)
TIME_UNITS = ("ns", "nsecond")


def _short(kernel):
    """"void tiled<float, 16>(const float *, ...)" -> "tiled<float, 16>"."""
    kernel = kernel.split("(", 1)[0]
    return kernel[5:] if kernel.startswith("void ") else kernel


def panel_of(metric, unit, value):
    """(panel, metric as shown, value as plotted) of one TSV value."""
    if unit == "%":
        return "pct", metric, value
    if unit in COUNT_UNITS:
        return "cnt", metric, value
    if unit in RATE_UNITS:
        return "thr", metric, value / 1e9
    if unit in SIZE_UNITS:
        return "mem", metric, value
    if unit in TIME_UNITS:
        value, unit = value / 1e3, "us"
    if unit not in ("", "ratio"):
        metric = "%s [%s]" % (metric, unit)
    return "oth", metric, value


class Pivot(object):
    """series: names in order of appearance; panels: {panel: [metric names in order]};
    mean(panel, metric, series) -> the mean value, or None."""

    def __init__(self, text, source):
        tsv = MetricsTsv(text, REQUIRED, source)
        labelled = tsv.has("label")
        rows = []
        kernels_of = {}
        for row in tsv.rows:
            value = tsv.get(row, "value")
            if not units.is_number(value):
                continue
            kernel = _short(tsv.get(row, "kernel"))
            label = tsv.get(row, "label") if labelled else kernel
            legacy = tsv.get(row, "legacy")
            metric = legacy
            if legacy == "-":
                metric = tsv.get(row, "metric") if tsv.has("metric") else ""
            rows.append((label, kernel, metric, float(value), tsv.get(row, "unit")))
            kernels_of.setdefault(label, [])
            if kernel not in kernels_of[label]:
                kernels_of[label].append(kernel)
        if not rows:
            raise Failure(USAGE, "%s: no numeric metric values to plot" % source)
        self.series = []
        self.panels = {}
        self._sum = {}
        self._count = {}
        for label, kernel, metric, value, unit in rows:
            name = label
            if labelled and len(kernels_of[label]) > 1:
                name = "%s: %s" % (label, kernel)
            panel, metric, value = panel_of(metric, unit, value)
            if name not in self.series:
                self.series.append(name)
            metrics = self.panels.setdefault(panel, [])
            if metric not in metrics:
                metrics.append(metric)
            key = (panel, metric, name)
            self._sum[key] = self._sum.get(key, 0.0) + value
            self._count[key] = self._count.get(key, 0) + 1

    def mean(self, panel, metric, series):
        key = (panel, metric, series)
        if key not in self._count:
            return None
        return self._sum[key] / self._count[key]

    def panel_names(self):
        return [p for p in PANELS if p in self.panels]

    def data_file(self, panel):
        """(text of PANEL.dat, the largest mean (at least 0), the gnuplot columns with data)."""
        lines = ["\t".join(["metric"] + self.series)]
        largest = 0.0
        for metric in self.panels[panel]:
            cells = [metric]
            for name in self.series:
                m = self.mean(panel, metric, name)
                if m is not None and m > largest:
                    largest = m
                cells.append("NaN" if m is None else "%.6g" % m)
            lines.append("\t".join(cells))
        columns = [str(i + 2) for i, name in enumerate(self.series)
                   if any(self.mean(panel, m, name) is not None for m in self.panels[panel])]
        return "\n".join(lines) + "\n", largest, " ".join(columns)

    def write(self, folder):
        """PANEL.dat for each panel with data and meta.gp, into an existing folder."""
        meta = []
        for panel in self.panel_names():
            text, largest, columns = self.data_file(panel)
            with open(os.path.join(folder, panel + ".dat"), "wb") as f:
                f.write(encode(text))
            meta.append("nmet_%s = %d" % (panel, len(self.panels[panel])))
            meta.append("max_%s = %.6g" % (panel, largest))
            meta.append('cols_%s = "%s"' % (panel, columns))
        meta.append("nser = %d" % len(self.series))
        meta.append('panels = "%s"' % " ".join(self.panel_names()))
        meta.append("maxlen = %d" % max(len(s) for s in self.series))
        for i, name in enumerate(self.series, 1):
            meta.append("ser_%d = '%s'" % (i, name.replace("'", "''")))
        with open(os.path.join(folder, "meta.gp"), "wb") as f:
            f.write(encode("\n".join(meta) + "\n"))


def pivot(tsv_text, source, folder):
    """Write the pivot of a metrics TSV into `folder` (which must exist)."""
    if not os.path.isdir(folder):
        raise Failure(USAGE, "pivot: %s is not a folder" % folder)
    Pivot(tsv_text, source).write(folder)
