"""A lab's rubric (grading/rubrics/labNN.rubric) and the hidden cases drawn from a seed.

Plain text, `#` starts a comment (DESIGN.md "Rubrics", grading/README.md "The rubric"). A
variant is `N` in a lab of one part and `PART:N` in a lab of several; a list is `1,2,5`, `all`,
`strip:all` or `strip:1,2`. Case lines come in two forms:

    case NAME VARIANTS ARGS...            harness options; A..B draws a number (also inside
    perf VARIANTS ARGS... [quick=ARGS]    WxH), {a|b c} one of several runs of arguments
    case NAME VARIANTS SIZE FILTERS [quick=SIZE|skip] [extra=--opt=v,...]    (the older form)

A `late` line is the late policy (late.py reads it: penalty=10%/day grace=15m last=7d ...).
A `mechanism VARIANTS CHECK...` line names what the GPU records of those variants' timed runs
must show, the mechanism their step teaches: `streams=N` (N streams or more carry the work of
every repetition, and their copies and kernels overlap in most of them), `no-copies` (no copy
between host and device: a zero-copy kernel reads host memory itself), `pinned` or `pageable`
(every copy between host and device reads or writes host memory of that kind), `shared` (a
kernel of every repetition uses shared memory), `managed` (managed memory is live in every
repetition). A case with `--gpu-mem N` also has its launch windows' own device memory counted
from the records, whatever API took it (status over-budget past N MiB).
Every draw comes from the grading seed and the case's name (splitmix64, as the kit's kit_rng),
so one seed gives the same cases again; the older form draws exactly as the C checker did.
"""
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from ..course import late

MASK = (1 << 64) - 1
SEED_MOD = 1000000007

# statuses that breach the speed rules, and what each costs by default: "perf" (the variant's
# performance points), "variant" (all of the variant's points), "lab" (every point)
DEFAULT_PENALTY = {
    "replayed": "variant",
    "no-kernel": "variant",
    "impossible-time": "variant",
    "copies-in-launcher": "perf",
    "extra-processes": "perf",
    "unverified": "perf",
    "no-mechanism": "perf",
    "over-budget": "variant",
}
# what a `mechanism` line may ask of a variant's timed repetitions (runcheck.mechanism)
MECHANISMS = ("streams", "no-copies", "pinned", "pageable", "shared", "managed", "one-thread")
LIMIT_KEYS = ("build", "run", "memory_mb", "disk_mb", "nproc", "output_mb", "gpu_memory_mb",
              "cpu_s")
DEFAULT_LIMITS = {"build": 120, "run": 20, "memory_mb": 4096, "disk_mb": 2048, "nproc": 256,
                  "output_mb": 256}


class RubricError(Exception):
    pass


class Rng:
    """splitmix64, the kit's kit_rng (common/kit.c)."""

    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def draw(self, lo, hi):
        return lo + self.next() % (hi - lo + 1)


def fnv1a(s):
    h = 1469598103934665603
    for b in s.encode("utf-8"):
        h = ((h ^ b) * 1099511628211) & MASK
    return h


def vname(part, v):
    """A variant's name: `3`, or `strip:3` in a part."""
    return "%s:%d" % (part, v) if part else str(v)


def parse_vname(s):
    """`3` -> ("", 3); `strip:3` -> ("strip", 3)."""
    part, _, num = s.rpartition(":")
    if not re.fullmatch(r"\d+", num):
        raise ValueError("bad variant name %r" % s)
    return part, int(num)


@dataclass
class Template:
    """A case line before the draw."""
    kind: str                  # case | perf
    name: str
    vlist: str                 # as written: all, 1,2, strip:all ...
    items: list                # plain tokens and [alternatives] (each a list of tokens)
    quick: Optional[list]      # the arguments quick mode overrides (None: as graded)
    skip_quick: bool
    line: int
    old: bool


@dataclass
class Case:
    """One hidden case, drawn."""
    kind: str                  # case | perf
    name: str
    part: str
    variants: List[int]
    args: List[str]            # harness options, --seed last

    @property
    def vnames(self):
        return [vname(self.part, v) for v in self.variants]


@dataclass
class Rubric:
    path: str
    lab: str = ""
    old_variants: List[str] = field(default_factory=list)
    points: Dict[str, Tuple[float, float]] = field(default_factory=dict)   # vname -> (c, p)
    tolerance: Dict[str, Tuple[float, float]] = field(default_factory=dict)
    perf_scale: List[Tuple[float, float]] = field(default_factory=list)   # (ratio, share)
    perf_clock: str = ""
    perf_reps: int = 10
    perf_pairs: Tuple[int, int] = (2, 4)
    perf_spread: float = 0.15
    perf_ref_every: float = 0.0    # GPU chains: a fresh reference run at most this often (s)
    perf_one_process: bool = False  # one timed run for every part (the key channel names it)
    perf_margin: float = 1.5
    limits: Dict[str, float] = field(default_factory=lambda: dict(DEFAULT_LIMITS))
    limits_given: Dict[str, float] = field(default_factory=dict)
    metrics: str = ""
    sanitize_case: str = ""
    shape: str = ""
    penalty: Dict[str, str] = field(default_factory=lambda: dict(DEFAULT_PENALTY))
    templates: List[Template] = field(default_factory=list)
    other: Dict[str, str] = field(default_factory=dict)   # keys read by other parts (late)
    late: Optional[object] = None     # late.LatePolicy of a `late` line (None: no penalty)
    mechanism: Dict[str, Dict[str, int]] = field(default_factory=dict)   # vname -> {check: n}

    # ------------------------------------------------------------------ variants
    def graded(self, part=None):
        """The graded variants (those with points), as names, in rubric order."""
        return [n for n in self.points if part is None or parse_vname(n)[0] == part]

    def parts(self):
        seen = []
        for n in self.points:
            p = parse_vname(n)[0]
            if p not in seen:
                seen.append(p)
        return seen

    def expand(self, vlist, line=0):
        """VARIANTS as (part, [numbers])."""
        part, _, rest = vlist.rpartition(":") if ":" in vlist else ("", "", vlist)
        if rest == "all":
            parts = self.parts()
            if not part and len(parts) > 1:
                raise RubricError("%s:%d: 'all' in a lab of several parts: write PART:all"
                                  % (self.path, line))
            part = part if part else (parts[0] if parts else "")
            vs = [parse_vname(n)[1] for n in self.graded(part)]
            if not vs:
                raise RubricError("%s:%d: no graded variant in %r" % (self.path, line, vlist))
            return part, vs
        try:
            vs = [int(x) for x in rest.split(",")]
        except ValueError:
            raise RubricError("%s:%d: bad variant list %r" % (self.path, line, vlist))
        return part, vs

    def max_points(self):
        return sum(c + p for c, p in self.points.values())

    # ------------------------------------------------------------------ cases
    def draw(self, seed, quick=False):
        """The hidden cases of grading seed SEED."""
        cases = []
        for t in self.templates:
            if quick and t.skip_quick:
                continue
            part, vs = self.expand(t.vlist, t.line)
            rng = Rng(seed ^ fnv1a(t.name))
            items = t.items
            if quick and t.quick is not None:
                items = _override(items, t.quick)
            args = []
            for it in items:
                if isinstance(it, list):
                    alt = it[rng.draw(0, len(it) - 1)]
                    args += [_draw_token(tok, rng) for tok in alt]
                else:
                    args.append(_draw_token(it, rng))
            args += ["--seed", str(rng.next() % SEED_MOD)]
            cases.append(Case(t.kind, t.name, part, vs, args))
        return cases

    def perf_share(self, ratio):
        """The share of a variant's performance points at time ratio RATIO (reference time /
        student time): perf_scale's points joined by straight lines, 0 at ratio 0, the top
        share from the first point up (a smooth curve, not steps)."""
        pts = sorted(self.perf_scale)
        if not pts or ratio is None:
            return 0.0
        if ratio >= pts[-1][0]:
            return pts[-1][1]
        x0, y0 = 0.0, 0.0
        for x1, y1 in pts:
            if ratio <= x1:
                return max(0.0, y0 + (y1 - y0) * (ratio - x0) / (x1 - x0)) if x1 > x0 else y1
            x0, y0 = x1, y1
        return pts[-1][1]


def _draw_token(tok, rng):
    return re.sub(r"(\d+)\.\.(\d+)", lambda m: str(rng.draw(int(m.group(1)), int(m.group(2)))),
                  tok)


def _override(items, quick):
    """The case's items with the options QUICK names given QUICK's values, in place (so that
    the draws keep their order); options QUICK adds go last."""
    repl, order, cur = {}, [], None
    for q in quick:
        if q.startswith("--"):
            cur = q
            repl[cur] = []
            order.append(cur)
        elif cur is not None:
            repl[cur].append(q)
    out, i, used = [], 0, set()
    while i < len(items):
        it = items[i]
        if isinstance(it, str) and it in repl:
            out += [it] + repl[it]
            used.add(it)
            i += 1
            while i < len(items) and isinstance(items[i], str) and not items[i].startswith("--"):
                i += 1
            continue
        out.append(it)
        i += 1
    for o in order:
        if o not in used:
            out += [o] + repl[o]
    return out


def _split_items(text, path, line):
    """ARGS text into plain tokens and alternatives: `{a b|c}` -> [["a","b"],["c"]]."""
    items, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "{":
            j = text.find("}", i)
            if j < 0 or "{" in text[i + 1:j]:
                raise RubricError("%s:%d: an unclosed or nested '{'" % (path, line))
            alts = [a.split() for a in text[i + 1:j].split("|")]
            if any(not a for a in alts):
                raise RubricError("%s:%d: an empty alternative in {...}" % (path, line))
            items.append(alts)
            i = j + 1
        elif c == "}":
            raise RubricError("%s:%d: a '}' without its '{'" % (path, line))
        else:
            j = i
            while j < len(text) and not text[j].isspace() and text[j] not in "{}":
                j += 1
            items.append(text[i:j])
            i = j
    return items


_SIZE = re.compile(r"^(\d+)(?:\.\.(\d+))?x(\d+)(?:\.\.(\d+))?$")


def _old_size(s, path, line):
    m = _SIZE.match(s)
    if not m:
        raise RubricError("%s:%d: bad size '%s' (WxH, each side N or A..B)" % (path, line, s))
    wl, wh, hl, hh = m.group(1), m.group(2) or m.group(1), m.group(3), m.group(4) or m.group(3)
    if min(int(wl), int(hl)) < 1 or int(wh) < int(wl) or int(hh) < int(hl) or \
            max(int(wh), int(hh)) > 65535:
        raise RubricError("%s:%d: bad size '%s' (WxH, each side N or A..B)" % (path, line, s))
    return "%s..%s" % (wl, wh), "%s..%s" % (hl, hh)


def _old_items(rub, size, filters, extra, path, line):
    w, h = _old_size(size, path, line)
    if rub.shape == "matrix":
        items = ["--rows", w, "--cols", h]
    else:
        items = ["--size", "%sx%s" % (w, h)]
        alts = []
        for f in filters.split(","):
            name, _, radius = f.partition(":")
            if not re.fullmatch(r"[a-z0-9]+", name) or (radius and not radius.isdigit()):
                raise RubricError("%s:%d: bad filter list '%s'" % (path, line, filters))
            alts.append(["--filter", name] + (["--radius", radius] if radius else []))
        items.append(alts)
    for e in extra:
        k, eq, v = e.partition("=")
        items += [k, v] if eq else [k]
    return items


def _old_quick(rub, size, path, line):
    w, h = _old_size(size, path, line)
    return ["--rows", w, "--cols", h] if rub.shape == "matrix" else ["--size", "%sx%s" % (w, h)]


def parse(path, text=None):
    """Read a rubric; RubricError with FILE:LINE on anything it cannot take."""
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    rub = Rubric(path=str(path))
    lines = []
    for n, raw in enumerate(text.splitlines(), 1):
        s = raw.split("#", 1)[0].strip()
        if s:
            lines.append((n, s))
    # the shape and the variants first: case lines of the older form need them
    for n, s in lines:
        tok = s.split()
        if tok[0] == "shape" and len(tok) > 1:
            rub.shape = tok[1]
    nperf = 0
    mech_lines = []       # (line, VARIANTS, checks): expanded once every points line is read
    for n, s in lines:
        tok = s.split()
        key, rest = tok[0], tok[1:]
        try:
            if key == "lab":
                rub.lab = rest[0]
            elif key == "variants":
                rub.old_variants = rest
            elif key == "points":
                if len(rest) != 3:
                    raise RubricError("%s:%d: points VARIANT CORRECTNESS PERFORMANCE" % (path, n))
                parse_vname(rest[0])
                rub.points[rest[0]] = (float(rest[1]), float(rest[2]))
            elif key == "tolerance":
                rub.tolerance[rest[0]] = ("auto",) if rest[1:] == ["auto"] else \
                    (float(rest[1]), float(rest[2]))
            elif key == "perf_scale":
                rub.perf_scale = [(float(a), float(b)) for a, b in (x.split(":") for x in rest)]
                if any(not 0 <= b <= 1 or a <= 0 for a, b in rub.perf_scale):
                    raise RubricError("%s:%d: perf_scale RATIO:SHARE, a ratio above 0 and a "
                                      "share from 0 to 1" % (path, n))
            elif key == "perf_clock":
                if rest[0] not in ("cpu", "wall", "gpu"):
                    raise RubricError("%s:%d: perf_clock is cpu, wall or gpu" % (path, n))
                rub.perf_clock = rest[0]
            elif key == "perf_reps":
                rub.perf_reps = int(rest[0])
                if rub.perf_reps < 3:
                    raise RubricError("%s:%d: perf_reps must be 3 or more" % (path, n))
            elif key == "perf_pairs":
                lo, _, hi = rest[0].partition("..")
                rub.perf_pairs = (int(lo), int(hi or lo))
                if not 1 <= rub.perf_pairs[0] <= rub.perf_pairs[1]:
                    raise RubricError("%s:%d: perf_pairs N or A..B, 1 or more" % (path, n))
            elif key == "perf_spread":
                rub.perf_spread = float(rest[0])
            elif key == "perf_ref_every":
                rub.perf_ref_every = float(rest[0].rstrip("s"))
                if not 0 <= rub.perf_ref_every <= 60:
                    raise RubricError("%s:%d: perf_ref_every is seconds, 0 to 60" % (path, n))
            elif key == "perf_one_process":
                if rest[:1] not in (["yes"], ["no"]):
                    raise RubricError("%s:%d: perf_one_process is yes or no" % (path, n))
                rub.perf_one_process = rest[0] == "yes"
            elif key == "perf_margin":
                rub.perf_margin = float(rest[0])
            elif key == "late":
                rub.other[key] = " ".join(rest)        # the late policy, as written
                try:
                    rub.late = late.parse_policy(" ".join(rest))
                except ValueError as e:
                    raise RubricError("%s:%d: %s" % (path, n, e))
            elif key in ("perf_runs", "launches_per_run"):
                pass    # the older grader's; repetitions are attributed one by one now
            elif key == "limits":
                for kv in rest:
                    k, _, v = kv.partition("=")
                    if k not in LIMIT_KEYS or not v:
                        raise RubricError("%s:%d: unknown limit '%s' (%s)" % (
                            path, n, kv, " ".join(LIMIT_KEYS)))
                    rub.limits[k] = float(v)
                    rub.limits_given[k] = float(v)
            elif key == "metrics":
                rub.metrics = "" if rest[0] == "-" else rest[0]
            elif key == "mechanism":
                if len(rest) < 2:
                    raise RubricError("%s:%d: mechanism VARIANTS CHECK... (%s)" % (
                        path, n, ", ".join(MECHANISMS)))
                checks = {}
                for kv in rest[1:]:
                    k, eq, v = kv.partition("=")
                    if k not in MECHANISMS or (k == "streams") != bool(eq) or \
                            (eq and not (v.isdigit() and int(v) >= 2)):
                        raise RubricError("%s:%d: a mechanism is streams=N (N 2 or more) or "
                                          "one of %s, not '%s'" % (
                                              path, n, ", ".join(MECHANISMS[1:]), kv))
                    checks[k] = int(v) if eq else 1
                mech_lines.append((n, rest[0], checks))
            elif key == "sanitize_case":
                rub.sanitize_case = rest[0]
            elif key == "shape":
                pass
            elif key == "penalty":
                for kv in rest:
                    k, _, v = kv.partition("=")
                    if k not in DEFAULT_PENALTY or v not in ("perf", "variant", "lab"):
                        raise RubricError("%s:%d: penalty STATUS=perf|variant|lab for %s"
                                          % (path, n, ", ".join(DEFAULT_PENALTY)))
                    rub.penalty[k] = v
            elif key in ("case", "perf"):
                if key == "perf":
                    nperf += 1
                    name, rest2 = "perf%d" % nperf, rest
                else:
                    if not rest:
                        raise RubricError("%s:%d: case NAME VARIANTS ARGS..." % (path, n))
                    name, rest2 = rest[0], rest[1:]
                rub.templates.append(_case_line(rub, key, name, rest2, s, path, n))
            else:
                raise RubricError("%s:%d: unknown key '%s'" % (path, n, key))
        except (IndexError, ValueError) as e:
            raise RubricError("%s:%d: cannot read '%s' (%s)" % (path, n, s, e))
    if rub.old_variants:
        # each token a variant list as DESIGN.md writes them: 3, 1,2,5, strip:3,4,5, strip:all
        for tok in rub.old_variants:
            part, vs = rub.expand(tok)
            for v in vs:
                if vname(part, v) not in rub.points:
                    raise RubricError("%s: variant %s has no 'points' line" % (path, vname(part, v)))
    if not rub.points:
        raise RubricError("%s has no 'points' line" % path)
    for n, vlist, checks in mech_lines:
        part, vs = rub.expand(vlist, n)
        for v in vs:
            if vname(part, v) not in rub.points:
                raise RubricError("%s:%d: mechanism for %s, which has no 'points' line" % (
                    path, n, vname(part, v)))
            rub.mechanism.setdefault(vname(part, v), {}).update(checks)
    if any(c.get("one-thread") for c in rub.mechanism.values()) and rub.perf_clock != "wall":
        raise RubricError("%s: mechanism one-thread needs perf_clock wall (the run's CPU is "
                          "read in its windows only then)" % path)
    if not rub.templates:
        raise RubricError("%s has no case lines" % path)
    # tolerance lists as per-variant entries
    tol = {}
    for vl, t in rub.tolerance.items():
        part, vs = rub.expand(vl)
        for v in vs:
            if t == ("auto",):          # the lab's own bound
                tol.pop(vname(part, v), None)
            else:
                tol[vname(part, v)] = t
    rub.tolerance = tol
    for t in rub.templates:
        rub.expand(t.vlist, t.line)
    if rub.perf_scale == []:
        rub.perf_scale = [(0.8, 1.0), (0.5, 0.6), (0.25, 0.3)]
    return rub


def _case_line(rub, kind, name, rest, text, path, n):
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise RubricError("%s:%d: a case name is letters, digits and ._-" % (path, n))
    if not rest:
        raise RubricError("%s:%d: a %s line needs its variants and arguments" % (path, n, kind))
    vlist = rest[0]
    after = text.split(None, 3 if kind == "case" else 2)[-1]
    first = rest[1] if len(rest) > 1 else ""
    if first and not first.startswith("-") and not first.startswith("{"):
        # the older form: SIZE FILTERS [quick=SIZE|skip] [extra=...]
        if len(rest) < 3:
            raise RubricError("%s:%d: a %s line needs %s" % (
                path, n, kind, "VARIANTS SIZE FILTER" if kind == "perf"
                else "NAME VARIANTS SIZE FILTERS"))
        quick, skip, extra = None, False, []
        for f in rest[3:]:
            if f.startswith("quick="):
                if f[6:] == "skip":
                    skip = True
                else:
                    quick = _old_quick(rub, f[6:], path, n)
            elif f.startswith("extra="):
                extra = [e for e in f[6:].split(",") if e]
            else:
                raise RubricError("%s:%d: unknown field '%s'" % (path, n, f))
        items = _old_items(rub, rest[1], rest[2], extra, path, n)
        return Template(kind, name, vlist, items, quick, skip, n, True)
    args_text = after[len(vlist):].strip() if after.startswith(vlist) else " ".join(rest[1:])
    quick, skip = None, False
    m = re.search(r"(^|\s)quick=", args_text)
    if m:
        qtext = args_text[m.end():].strip()
        args_text = args_text[:m.start()]
        if qtext == "skip":
            skip = True
        else:
            quick = _split_items(qtext, path, n)
            if any(isinstance(q, list) for q in quick):
                raise RubricError("%s:%d: quick= takes plain arguments" % (path, n))
    items = _split_items(args_text, path, n)
    if not items:
        raise RubricError("%s:%d: a %s line needs arguments" % (path, n, kind))
    return Template(kind, name, vlist, items, quick, skip, n, False)


def _keys(text):
    return {ln.split("#", 1)[0].split()[0] for ln in text.splitlines()
            if ln.split("#", 1)[0].split()}


def overlay(base, over):
    """The text of rubric BASE with the keys OVER gives replaced by OVER's lines (a small
    rubric of limits for the examples, say): every line of a key OVER has is dropped from
    BASE."""
    keys = _keys(over)
    kept = [ln for ln in base.splitlines()
            if not ln.split("#", 1)[0].split() or ln.split("#", 1)[0].split()[0] not in keys]
    return "\n".join(kept) + "\n" + over


def load(lab_rubric, extra=None):
    """The rubric of a grading: the lab's, or EXTRA: a whole rubric of its own (with points
    lines) or lines laid over the lab's."""
    if not extra:
        return parse(lab_rubric)
    with open(extra, encoding="utf-8") as f:
        text = f.read()
    if "points" in _keys(text) or not lab_rubric:
        return parse(extra, text)
    with open(lab_rubric, encoding="utf-8") as f:
        base = f.read()
    rub = parse("%s + %s" % (lab_rubric, extra), overlay(base, text))
    return rub


def cases_tsv(cases):
    """The drawn cases as text: kind, name, variants, arguments (one line each)."""
    return "".join("%s\t%s\t%s\t%s\n" % (c.kind, c.name, ",".join(c.vnames), " ".join(c.args))
                   for c in cases)
