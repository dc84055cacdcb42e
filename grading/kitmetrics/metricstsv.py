# metricstsv - reading back a TSV that `parse` or `run` wrote (for `table` and `pivot`): its header
# names the columns, comment and blank lines are skipped, rows are read by column name.
from .failure import Failure, USAGE
from .inputs import lines_of


class MetricsTsv(object):
    """header: column names; rows: lists of fields; has(name); get(row, name)."""

    def __init__(self, text, required, source):
        self.header = None
        self.rows = []
        for line in lines_of(text):
            if line.startswith("#") or line.strip(" \t") == "":
                continue
            fields = line.split("\t")
            if self.header is None:
                self.header = fields
            else:
                self.rows.append(fields)
        self.index = {}
        for i, name in enumerate(self.header or []):
            self.index[name] = i
        if self.header is None or any(name not in self.index for name in required):
            raise Failure(USAGE, "%s: not a metrics TSV (needs the columns %s)"
                          % (source, " ".join(required)))

    def has(self, name):
        return name in self.index

    def get(self, row, name):
        """The field `name` of a row; "" when the row is shorter than the header."""
        i = self.index[name]
        return row[i] if i < len(row) else ""
