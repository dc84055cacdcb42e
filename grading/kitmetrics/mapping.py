# mapping - the one mapping from the course's legacy nvprof names to Nsight Compute metrics
# (grading/metrics.tsv) and the named sets of them (grading/metric_sets.tsv): loading, checking,
# and resolving a set or a list of names into the legacy names and the ncu metrics to collect.
import os
import re

from .failure import Failure, USAGE, bad_selection
from .inputs import decode, lines_of

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAP_FILE = os.path.join(HERE, "metrics.tsv")
SETS_FILE = os.path.join(HERE, "metric_sets.tsv")

NONE = "-"          # expr of a legacy name without an ncu equivalent
ALL_MEMBERS = "*"   # set member: every legacy name that has an equivalent
INCLUDE = "@"       # set member prefix: every member of another set
_PLUS = re.compile(r" *\+ *")
_MAX_DEPTH = 10


class Entry(object):
    """One legacy name: its ncu expression, the members summed by it, its unit and note."""

    def __init__(self, legacy, expr, unit, note):
        self.legacy = legacy
        self.expr = expr
        self.unit = unit
        self.note = note
        self.members = [] if expr == NONE else _PLUS.split(expr)

    @property
    def available(self):
        return self.expr != NONE


def _data_lines(path):
    """(line number, tab-split fields) of the lines that are not comments or blank."""
    try:
        with open(path, "rb") as f:
            text = decode(f.read())
    except OSError as e:
        raise Failure(USAGE, "cannot read %s: %s" % (path, e.strerror or e))
    out = []
    for number, line in enumerate(lines_of(text), 1):
        if line.startswith("#") or line.strip(" \t") == "":
            continue
        out.append((number, line.split("\t")))
    return out


class Mapping(object):
    """metrics.tsv and metric_sets.tsv, loaded and checked."""

    def __init__(self, map_file=MAP_FILE, sets_file=SETS_FILE):
        self.entries = []       # in file order: the order rows are printed in
        self.by_name = {}
        self.listing = []       # every data line as 4 fields, the header first (for `list`)
        self.sets = {}          # name -> members as written
        self.set_order = []
        for number, f in _data_lines(map_file):
            f = (f + ["", "", "", ""])[:4]
            self.listing.append(f)
            if f[0] == "legacy":
                continue
            if not f[0] or not f[1] or not f[2] or any(m == "" for m in _PLUS.split(f[1])):
                raise Failure(USAGE, "%s line %d: needs legacy, expr and unit (and a note), "
                              "separated by tabs" % (map_file, number))
            if f[0] in self.by_name:
                raise Failure(USAGE, "%s line %d: %s is mapped twice" % (map_file, number, f[0]))
            entry = Entry(f[0], f[1], f[2], f[3])
            self.entries.append(entry)
            self.by_name[entry.legacy] = entry
        for number, f in _data_lines(sets_file):
            if f[0] == "set":
                continue
            if len(f) < 2 or not f[0] or not f[1]:
                raise Failure(USAGE, "%s line %d: needs a set name and a member, separated by "
                              "a tab" % (sets_file, number))
            if f[0] not in self.sets:
                self.sets[f[0]] = []
                self.set_order.append(f[0])
            self.sets[f[0]].append(f[1])

    # --- resolving -------------------------------------------------------------------------

    def _add(self, legacy, out):
        entry = self.by_name.get(legacy)
        if entry is None:
            raise bad_selection('unknown legacy metric "%s"' % legacy)
        if not entry.available:
            raise bad_selection("%s: %s" % (legacy, entry.note))
        if legacy not in out:
            out.append(legacy)

    def _add_set(self, name, depth, out):
        if depth > _MAX_DEPTH:
            raise bad_selection('set "%s" includes itself' % name)
        if name not in self.sets:
            raise bad_selection('unknown metric set "%s"' % name)
        for member in self.sets[name]:
            if member == ALL_MEMBERS:
                for entry in self.entries:
                    if entry.available:
                        self._add(entry.legacy, out)
            elif member.startswith(INCLUDE):
                self._add_set(member[len(INCLUDE):], depth + 1, out)
            else:
                self._add(member, out)

    def resolve(self, set_name="", names=""):
        """The legacy names of a set, or of a comma list `names` (spaces ignored), in order and
        once each. Raises Failure (exit 2) for an unknown name, a name without an ncu
        equivalent (its note says what to do instead), a set that includes itself, or nothing."""
        out = []
        if names:
            for word in names.split(","):
                word = word.replace(" ", "")
                if word:
                    self._add(word, out)
        else:
            self._add_set(set_name, 0, out)
        if not out:
            raise bad_selection("no metrics selected")
        return out

    def ncu_metrics(self, legacy_names):
        """The ncu metrics the legacy names need, each once, in order."""
        out = []
        for legacy in legacy_names:
            for member in self.by_name[legacy].members:
                if member not in out:
                    out.append(member)
        return out
