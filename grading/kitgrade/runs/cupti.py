"""GPU activity records of a run: parsed, put on the grader's clock, given to a repetition.

GPU activity records of a run (DESIGN.md "GPU activity records"): parsed, mapped to
CLOCK_MONOTONIC through the calibration lines, and attributed to a timed repetition by its
launch window. Reads both formats:

    # kitcupti 2                         (common/cupti_trace.c)
    K  START  END  STREAM  0      -     NAME
    C  START  END  STREAM  BYTES  KIND  -
    # kitcupti 1                         (common/cupti_count.c: kernels only)
    NAME<TAB>START<TAB>END<TAB>DURATION
and `# calib CUPTI_NS MONOTONIC_NS` (at start and at the end), `# end ...` written last.
"""
from dataclasses import dataclass, field
from typing import List

# clock mapping error allowed at the ends of a launch window: none for copies at its start (the
# kit's own upload is queued just before it opens), a little for kernels
SLACK_NS = 2000


@dataclass
class Rec:
    kind: str          # K (kernel) or C (copy)
    start: float       # CLOCK_MONOTONIC ns
    end: float
    stream: str = ""
    bytes: int = 0
    copy: str = ""     # HtoD DtoH DtoD HtoH PtoP other
    name: str = ""


@dataclass
class Trace:
    version: int = 0           # 0: no header seen
    complete: bool = False     # the `# end` line was there
    records: List[Rec] = field(default_factory=list)
    copies_recorded: bool = False


def parse(text):
    """A Trace from a records file's text (mapped to CLOCK_MONOTONIC)."""
    tr = Trace()
    cal = []
    raw = []
    for line in text.splitlines():
        if line.startswith("#"):
            t = line[1:].split()
            if len(t) >= 2 and t[0] == "kitcupti":
                try:
                    tr.version = int(t[1])
                except ValueError:
                    pass
            elif len(t) >= 3 and t[0] == "calib":
                try:
                    cal.append((int(t[1]), int(t[2])))
                except ValueError:
                    pass
            elif t and t[0] == "end":
                tr.complete = True
            continue
        f = line.split("\t") if "\t" in line else line.split()
        try:
            if f and f[0] in ("K", "C") and len(f) >= 7:
                raw.append(Rec(f[0], int(f[1]), int(f[2]), f[3], int(f[4] or 0),
                               f[5] if f[0] == "C" else "", f[6] if f[0] == "K" else ""))
            elif len(f) >= 4 and tr.version <= 1:
                raw.append(Rec("K", int(f[1]), int(f[2]), name=f[0]))
        except ValueError:
            continue
    tr.copies_recorded = tr.version >= 2
    scale, off = 1.0, 0.0
    if len(cal) >= 2 and cal[-1][0] > cal[0][0]:
        scale = (cal[-1][1] - cal[0][1]) / float(cal[-1][0] - cal[0][0])
    if cal:
        off = cal[0][1] - scale * cal[0][0]
    for r in raw:
        if r.end < r.start:
            continue
        r.start = off + scale * r.start
        r.end = off + scale * r.end
        tr.records.append(r)
    tr.records.sort(key=lambda r: r.start)
    return tr


def in_window(tr, l0, l1, slack=SLACK_NS):
    """The kernels and the copies that started within [l0, l1] (ns, CLOCK_MONOTONIC)."""
    ks, cs = [], []
    for r in tr.records:
        if r.kind == "K" and l0 - slack <= r.start <= l1 + slack:
            ks.append(r)
        elif r.kind == "C" and l0 <= r.start <= l1 + slack:
            cs.append(r)
    return ks, cs


def union_ns(recs):
    """The time covered by the records' intervals, overlaps counted once."""
    total, cur_s, cur_e = 0.0, None, None
    for r in sorted(recs, key=lambda r: r.start):
        if cur_e is None or r.start > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = r.start, r.end
        else:
            cur_e = max(cur_e, r.end)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def envelope_ns(recs, since=None):
    """From the first record's start (or SINCE, the host's clock at the variant's call, when it
    is earlier) to the last record's end: a total span, whose host work counts too."""
    if not recs:
        return 0.0
    first = min(r.start for r in recs)
    return max(r.end for r in recs) - (first if since is None else min(first, since))


def streams_overlapping(recs, mixed=True):
    """The streams with a record that ran while a record of another stream ran: the overlap
    that streams are for. MIXED: only a copy beside a kernel counts (records with copies);
    else any two records (kernels only were recorded)."""
    out = set()
    rs = sorted(recs, key=lambda r: r.start)
    for i, a in enumerate(rs):
        for b in rs[i + 1:]:
            if b.start >= a.end:
                break
            if b.stream != a.stream and (not mixed or a.kind != b.kind):
                out.update((a.stream, b.stream))
    return out
