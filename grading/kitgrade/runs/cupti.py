"""GPU activity records of a run: parsed, put on the grader's clock, given to a repetition.

See DESIGN.md, "GPU activity records". The grader's clock is CLOCK_MONOTONIC, reached through
the calibration lines; a record goes to the timed repetition whose launch window holds it.
Reads every format:

    # kitcupti 3                         (common/cupti_trace.c)
    K  START  END  STREAM  0      -     NAME   STATIC+DYNAMIC   (shared memory per block)
    C  START  END  STREAM  BYTES  KIND  -      SRC>DST          (the memories' kinds)
    M  TIME   TIME 0       BYTES  MEM   alloc|free  ADDRESS     (memory taken, given back)
    # kitcupti 2: the same without the last column and without M lines
    # kitcupti 1                         (common/cupti_count.c: kernels only)
    NAME<TAB>START<TAB>END<TAB>DURATION
and `# calib CUPTI_NS MONOTONIC_NS` (at start and at the end), `# end ...` written last.
"""
from contextlib import suppress
from dataclasses import dataclass, field
from typing import List

# clock mapping error allowed at the ends of a launch window: none for copies at its start (the
# kit's own upload is queued just before it opens), a little for kernels
SLACK_NS = 2000
# a copy from the device of the output's size that starts within this of a window's end and ends
# more than this after it is the kit's download of the output, issued once the window closed
# (taken as the student's, lab 05's 16 MB download to pageable memory failed a correct copies
# v2, and it would add its milliseconds to a total span). Only such a copy: the kit reads l1
# after waiting for the legacy stream, which a student's non-blocking stream does not join, so
# another copy there is the student's
NEAR_NS = 50000


@dataclass
class Rec:
    kind: str          # K (kernel) or C (copy)
    start: float       # CLOCK_MONOTONIC ns
    end: float
    stream: str = ""
    bytes: int = 0
    copy: str = ""     # HtoD DtoH DtoD HtoH PtoP other
    name: str = ""
    smem: int = -1     # K: shared memory per block, bytes (-1: not recorded)
    src: str = ""      # C: the memory kinds read and written ("" not recorded); M: the kind
    dst: str = ""
    op: str = ""       # M: alloc or free
    addr: int = 0      # M: where


@dataclass
class Trace:
    version: int = 0           # 0: no header seen
    complete: bool = False     # the `# end` line was there
    records: List[Rec] = field(default_factory=list)
    copies_recorded: bool = False
    memory_recorded: bool = False  # version 3: M lines, memory kinds, shared memory


def parse(text):
    """A Trace from a records file's text (mapped to CLOCK_MONOTONIC)."""
    tr = Trace()
    cal = []
    raw = []
    for line in text.splitlines():
        if line.startswith("#"):
            t = line[1:].split()
            if len(t) >= 2 and t[0] == "kitcupti":
                with suppress(ValueError):
                    tr.version = int(t[1])
            elif len(t) >= 3 and t[0] == "calib":
                with suppress(ValueError):
                    cal.append((int(t[1]), int(t[2])))
            elif t and t[0] == "end":
                tr.complete = True
            continue
        f = line.split("\t") if "\t" in line else line.split()
        try:
            if f and f[0] in ("K", "C") and len(f) >= 7:
                r = Rec(f[0], int(f[1]), int(f[2]), f[3], int(f[4] or 0),
                        f[5] if f[0] == "C" else "", f[6] if f[0] == "K" else "")
                if len(f) >= 8 and f[0] == "K" and "+" in f[7]:
                    a, _, b = f[7].partition("+")
                    r.smem = int(a) + int(b)
                elif len(f) >= 8 and f[0] == "C" and ">" in f[7]:
                    r.src, _, r.dst = f[7].partition(">")
                raw.append(r)
            elif f and f[0] == "M" and len(f) >= 8 and f[6] in ("alloc", "free"):
                raw.append(Rec("M", int(f[1]), int(f[1]), "", int(f[4] or 0), src=f[5],
                               op=f[6], addr=int(f[7], 16)))
            elif len(f) >= 4 and tr.version <= 1:
                raw.append(Rec("K", int(f[1]), int(f[2]), name=f[0]))
        except ValueError:
            continue
    tr.copies_recorded = tr.version >= 2
    tr.memory_recorded = tr.version >= 3
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


def in_window(tr, l0, l1, slack=SLACK_NS, near=NEAR_NS, download=0):
    """The kernels and the copies that started within [l0, l1] (ns, CLOCK_MONOTONIC), less
    the kit's download (NEAR_NS): a DtoH copy of DOWNLOAD bytes (the output's size; 0: none
    left out) that starts within NEAR of l1 and ends more than NEAR after it."""
    ks, cs = [], []
    for r in tr.records:
        if r.kind == "K" and l0 - slack <= r.start <= l1 + slack:
            ks.append(r)
        elif r.kind == "C" and l0 <= r.start <= l1 + slack and \
                not (download and r.copy == "DtoH" and r.bytes == download and
                     r.start > l1 - near and r.end > l1 + near):
            cs.append(r)
    return ks, cs


# the kinds of memory that live on the GPU (pinned and pageable are the host's)
DEVICE_MEMORY = ("device", "array", "managed", "static", "managed-static", "unknown")


def device_peak(tr, l0, l1, since=None):
    """The most device memory (bytes) held at once within [l0, l1] by allocations made since
    SINCE (default l0), whatever API made them (the runtime, the driver, a pool): what a launch
    window took for itself, and with an earlier SINCE what was taken before it and kept.
    M records only (version 3)."""
    since = l0 if since is None else min(since, l0)
    live, held, peak, inside = {}, 0, 0, False
    for r in tr.records:
        if r.kind != "M" or r.start > l1:
            continue
        if r.start >= l0 and not inside:
            inside, peak = True, held       # what the window starts with, whatever comes next
        if r.op == "alloc" and r.start >= since and r.src in DEVICE_MEMORY:
            held += r.bytes - live.get(r.addr, 0)
            live[r.addr] = r.bytes
        elif r.op == "free" and r.addr in live:
            held -= live.pop(r.addr)
        if inside:
            peak = max(peak, held)
    return max(peak, held)


def held_at(tr, since, l0):
    """Device memory (bytes) taken within [SINCE, L0) and still held at L0."""
    return device_peak(tr, l0 - 1, l0 - 1, since) if since is not None and since < l0 else 0


def managed_live(tr, l0, l1):
    """Bytes of managed memory live at some point of [l0, l1] (taken before l1, not given
    back before l0). M records only."""
    live = {}
    seen = 0
    for r in tr.records:
        if r.kind != "M" or r.start > l1:
            continue
        if r.op == "alloc" and r.src == "managed":
            live[r.addr] = r.bytes
        elif r.op == "free" and r.addr in live:
            b = live.pop(r.addr)
            if r.start >= l0:
                seen += b
    return seen + sum(live.values())


def covered(spans):
    """The length the (start, end) SPANS cover together, overlaps counted once."""
    total, cur_s, cur_e = 0.0, None, None
    for s, e in sorted(spans, key=lambda p: p[0]):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def union_ns(recs):
    """The time covered by the records' intervals, overlaps counted once."""
    return covered((r.start, r.end) for r in recs)


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
