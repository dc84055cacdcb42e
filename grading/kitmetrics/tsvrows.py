# tsvrows - the launches of an ncu output as the tool's TSV: one row per profiled launch per
# legacy metric, under the course's names, with values in the mapping's units.
#
# Columns: [label] kernel launch block grid legacy metric value unit. A legacy name mapped to one
# ncu metric gets a row when ncu printed that column (value NA when ncu printed no number); a sum
# (l2_read_transactions, ...) gets a row only when every member column is there. With `want` (the
# legacy names asked for), names that got no row are named in a warning. With `all_columns`,
# the columns the mapping does not use come out too, with legacy "-".
from . import units
from .ncucsv import KERNEL

HEADER = ["kernel", "launch", "block", "grid", "legacy", "metric", "value", "unit"]
STANDARD = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
            "Block Size", "Grid Size", "Device", "CC")

OK = "ok"
NOT_CSV = "not-csv"          # no --page raw header at all
DETAILS = "details"          # --page details output
NO_LAUNCH = "no-launch"      # a header but no launch row


def _flat(text):
    return text.replace("\t", " ")


def _dims(launch, name):
    """Block Size "(32, 16, 1)" -> "32x16x1"; "-" when absent or empty."""
    s = launch.block.column(launch.fields, name)
    if s is None:
        return "-"
    for c in "() ":
        s = s.replace(c, "")
    s = s.replace(",", "x")
    return s if s else "-"


class Result(object):
    """lines: the TSV (header first, when there was a CSV header); warnings: lines for stderr,
    without the "metrics: " prefix; status: OK, NOT_CSV, DETAILS or NO_LAUNCH."""

    def __init__(self):
        self.lines = []
        self.warnings = []
        self.status = OK


class _Builder(object):
    def __init__(self, mapping, want, all_columns, label, source):
        self.mapping = mapping
        self.want = None if want is None else set(want)
        self.all_columns = all_columns
        self.label = label
        self.source = source
        self.result = Result()
        self.warned = set()
        self.got = set()
        self.missing = {}

    def convert(self, launch, column, name, want_unit):
        """(value, unit) of one column in the mapping's unit; warns once per ncu metric whose
        unit cannot be converted (the value then stays in ncu's unit)."""
        value = units.clean_number(launch.fields[column])
        given = launch.units[column]
        value, unit = units.convert(value, given, want_unit)
        if unit != want_unit and name not in self.warned:
            self.warned.add(name)
            self.result.warnings.append(
                '%s: %s is in "%s", not "%s"; value kept as ncu printed it'
                % (self.source, name, given, want_unit))
        return value, unit

    def sum_row(self, launch, entry):
        """The value of a sum, NA when a member is not a number; None when a member is absent."""
        index = launch.block.index
        present = True
        na = False
        total = 0.0
        places = 0
        for name in entry.members:
            if name not in index:
                present = False
                names = self.missing.setdefault(entry.legacy, [])
                if name not in names:
                    names.append(name)
                continue
            value, unit = self.convert(launch, index[name], name, entry.unit)
            if value == units.NA or unit != entry.unit:
                na = True
                continue
            total += float(value)
            places = max(places, units.decimals(value))
        if not present:
            return None
        return units.NA if na else "%.*f" % (places, total)

    def launch_rows(self, launch):
        fields = launch.fields
        index = launch.block.index
        pre = [] if self.label is None else [_flat(self.label)]
        pre += [_flat(launch.block.column(fields, KERNEL)), fields[0],
                _dims(launch, "Block Size"), _dims(launch, "Grid Size")]
        shown = set()
        for entry in self.mapping.entries:
            if not entry.available or (self.want is not None and entry.legacy not in self.want):
                continue
            if len(entry.members) == 1:
                name = entry.members[0]
                if name not in index:
                    continue
                shown.add(index[name])
                value, unit = self.convert(launch, index[name], name, entry.unit)
            else:
                value = self.sum_row(launch, entry)
                if value is None:
                    continue
                unit = entry.unit
            self.result.lines.append("\t".join(pre + [entry.legacy, entry.expr, value, unit]))
            self.got.add(entry.legacy)
        if not self.all_columns:
            return
        for i, name in enumerate(launch.block.header):
            if name in STANDARD or i in shown:
                continue
            value = _flat(fields[i])
            number = units.clean_number(value)
            if number != units.NA:
                value = number
            self.result.lines.append("\t".join(pre + ["-", name, value, launch.units[i]]))

    def finish(self, scan):
        result = self.result
        if scan.skipped:
            result.warnings.append("%s: skipped %d quoted line(s) that do not fit the CSV header"
                                   % (self.source, scan.skipped))
        if not scan.launches:
            result.status = NO_LAUNCH
            return
        if self.want is None:
            return
        for entry in self.mapping.entries:
            if entry.legacy not in self.want or entry.legacy in self.got:
                continue
            if entry.legacy in self.missing:
                why = "missing: " + " ".join(self.missing[entry.legacy])
            else:
                why = entry.expr
            result.warnings.append("%s: ncu reported no value for %s (%s)"
                                   % (self.source, entry.legacy, why))


def build(scan, mapping, want=None, all_columns=False, label=None, source="input"):
    """The TSV of a Scan. `want`: the legacy names to keep (None: every mapped name);
    `label`: the text of a first column `label` (None: no such column)."""
    b = _Builder(mapping, want, all_columns, label, source)
    if not scan.blocks:
        b.result.status = DETAILS if scan.details else NOT_CSV
        return b.result
    b.result.lines.append("\t".join(([] if label is None else ["label"]) + HEADER))
    for launch in scan.launches:
        b.launch_rows(launch)
    b.finish(scan)
    return b.result
