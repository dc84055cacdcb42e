# ncucsv - splitting `ncu --csv --page raw` output (live stdout, or `ncu -i REPORT --csv --page
# raw`) into CSV blocks: a header row, an optional units row, and one row per profiled launch.
#
# What real output looks like (/work/shared/REFERENCE.md, and tests/cli/fixtures/ncu/):
# - live stdout mixes ==PROF== lines and the program's own output with the CSV: only lines that
#   start with a double quote can be CSV, and only after a header row;
# - the header starts "ID","Process ID",...,"Kernel Name",... then the metric columns (a live run
#   adds hundreds of device__/launch__ columns); `--page details` output has "Metric Name" and
#   "Metric Value" columns instead and is refused by the caller;
# - the units row has an empty ID field; every field is quoted; numbers group their digits with
#   commas ("6,159,777,967.55") and Block Size / Grid Size hold commas ("(32, 16, 1)");
# - a quoted line that does not have as many fields as the header (a program printing a quoted
#   sentence after the header) is skipped and counted.
from .inputs import lines_of

KERNEL = "Kernel Name"
DETAILS_COLUMNS = ("Metric Name", "Metric Value")


def _split_slow(s):
    """A full CSV reader for one line: quoted fields with "" for a quote, unquoted fields, an
    unterminated quote running to the end of the line."""
    fields = []
    n = len(s)
    i = 0
    while i <= n:
        if i < n and s[i] == '"':
            i += 1
            parts = []
            while True:
                j = s.find('"', i)
                if j < 0:
                    parts.append(s[i:])
                    i = n + 1
                    break
                parts.append(s[i:j])
                i = j + 1
                if i < n and s[i] == '"':
                    parts.append('"')
                    i += 1
                else:
                    break
            if i <= n:
                j = s.find(",", i)
                i = n + 1 if j < 0 else j + 1
            fields.append("".join(parts))
        else:
            j = s.find(",", i)
            if j < 0:
                fields.append(s[i:])
                i = n + 1
            else:
                fields.append(s[i:j])
                i = j + 1
    return fields


def split_line(s):
    """The fields of one CSV line. ncu quotes every field, so the quick way is to split between
    the outer quotes at '","'; a field that holds a quote itself needs the full reader."""
    if len(s) >= 2 and s[0] == '"' and s[-1] == '"':
        inner = s[1:-1]
        if inner == "":
            return [""]
        fields = inner.split('","')
        if not any('"' in f for f in fields):
            return fields
    return _split_slow(s)


class Block(object):
    """One CSV header: its column names and where each name is (the last one, if repeated)."""

    def __init__(self, header):
        self.header = header
        self.index = {}
        for i, name in enumerate(header):
            self.index[name] = i

    def column(self, fields, name, default=None):
        i = self.index.get(name)
        return default if i is None else fields[i]


class Launch(object):
    """One profiled launch: its block (header), its fields, and the units in force for it."""

    def __init__(self, block, fields, units):
        self.block = block
        self.fields = fields
        self.units = units


class Scan(object):
    """Everything found in one ncu output.

    blocks    headers of --page raw CSV found (0: not ncu CSV)
    details   a --page details header was seen
    launches  the launch rows, in order
    skipped   quoted lines after a header that did not fit it"""

    def __init__(self, text):
        self.blocks = 0
        self.details = False
        self.launches = []
        self.skipped = 0
        block = None
        units = None
        for line in lines_of(text):
            if not line.startswith('"'):
                continue
            fields = split_line(line)
            if fields[0] == "ID" and len(fields) > 1:
                block = Block(fields)
                units = [""] * len(fields)
                if KERNEL not in block.index:
                    block = None
                elif any(c in block.index for c in DETAILS_COLUMNS):
                    self.details = True
                    block = None
                else:
                    self.blocks += 1
                continue
            if block is None:
                continue
            if len(fields) != len(block.header):
                self.skipped += 1
                continue
            if fields[0] == "":
                units = fields
                continue
            self.launches.append(Launch(block, fields, units))
