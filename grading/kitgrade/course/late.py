"""Late work: deadlines, extensions and the rubric's late policy.

The rubric line (grading/rubrics/labNN.rubric; rubric.py hands everything after the key to
parse_policy):

    late  penalty=10%/day  grace=15m  last=7d  [cap=100%]  [of=points|max]  [extension=COLUMN]

- penalty=P%/day (or P%/hour): taken off for every day (hour) or part of one that the work is
  late, counted from the student's own deadline.
- grace=DURATION: work at most this late counts as on time (status `grace`); later work is
  charged from the deadline itself, not from the end of the grace period. Default 0.
- last=DURATION: the latest work accepted, after the student's deadline; later work gets 0 points
  (status `too-late`). Without it every late commit is accepted (the penalty stops at `cap`).
- cap=P%: the largest penalty (default 100%).
- of=points (default): P% of the points the work earned (8 points, 10% off: 7.2);
  of=max: P% of the assignment's maximum (8 of 10 points, 10% off: 7).
- extension=COLUMN: the roster column holding each student's extension, either a duration
  added to the deadline (`2d`, `36h`, `1d12h`) or a new deadline (ISO 8601 with its zone);
  empty means none.

DURATION is a number with a unit, or several: `30s`, `15m`, `2h`, `3d`, `1w`, `1d12h`, `0`.
Times are ISO 8601 with a zone (`2025-03-14T23:59:00+01:00`, `...Z`); a time without a zone is
refused unless the caller gives default_tz.

Interface:
    parse_policy(text: str) -> LatePolicy                  (ValueError with a plain reason)
    parse_duration(text: str) -> timedelta
    parse_time(text: str, default_tz: Optional[tzinfo] = None) -> datetime   (aware)
    format_time(t: datetime) -> str                        (ISO 8601, seconds, with zone)
    format_duration(d: timedelta) -> str                   ("1 d 3 h 5 min")
    student_deadline(deadline: datetime, extension: str = "") -> datetime
    assess(policy: Optional[LatePolicy], *, deadline: datetime, submitted: Optional[datetime],
           points: float, max_points: float, extension: str = "") -> Lateness
Lateness.to_dict() is what goes into results.json ("late": {...}); points_before and
points_after are the points before and after the penalty, both shown in the report.
Standard library only; Python 3.8+.
"""
import math
import re
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Optional

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DUR_PART = re.compile(r"(\d+(?:\.\d+)?)([smhdw])")


def parse_duration(text: str) -> timedelta:
    """`15m`, `2h`, `1d12h`, `0` -> timedelta; ValueError otherwise."""
    t = text.strip().lower()
    if t in ("0", "0s", "none"):
        return timedelta(0)
    if not t or _DUR_PART.sub("", t) != "":
        raise ValueError("'%s' is not a duration (a number and a unit s, m, h, d or w: 15m, "
                         "2h, 1d12h)" % text)
    seconds = sum(float(n) * _UNITS[u] for n, u in _DUR_PART.findall(t))
    return timedelta(seconds=seconds)


_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?"
                  r"\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$", re.IGNORECASE)


def parse_time(text: str, default_tz: Optional[tzinfo] = None) -> datetime:
    """An ISO 8601 time with its zone -> an aware datetime.

    Accepts `2025-03-14T23:59:00+01:00`, `2025-03-14T22:59:00Z`, `2025-03-14 22:59:00 UTC`
    (GitHub Classroom's form) and `2025-03-14T23:59+0100`; a date alone is midnight. Without a
    zone it needs default_tz, so that no time is silently read in the grader's own zone.
    """
    m = _ISO.match(text.strip())
    if not m:
        raise ValueError("'%s' is not an ISO 8601 time (2025-03-14T23:59:00+01:00)" % text)
    y, mo, d, hh, mm, ss, frac, zone = m.groups()
    micro = int((frac or "0")[:6].ljust(6, "0"))
    if zone is None:
        if default_tz is None:
            raise ValueError("'%s' has no time zone: write it as 2025-03-14T23:59:00+01:00 "
                             "or ...Z" % text)
        tz = default_tz
    elif zone.upper() in ("Z", "UTC", "GMT"):
        tz = timezone.utc
    else:
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
        if hours > 23 or minutes > 59:
            raise ValueError("'%s' has an impossible zone offset" % text)
        tz = timezone(sign * timedelta(hours=hours, minutes=minutes))
    try:
        return datetime(int(y), int(mo), int(d), int(hh or 0), int(mm or 0), int(ss or 0),
                        micro, tzinfo=tz)
    except ValueError as e:
        raise ValueError("'%s' is not a valid time: %s" % (text, e)) from None


def format_time(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


def format_duration(d: timedelta) -> str:
    """A lateness in words an instructor reads at a glance: `1 d 3 h 5 min`, `40 s`."""
    s = int(round(d.total_seconds()))
    if s < 60:
        return "%d s" % s
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes = s // 60
    parts = []
    if days:
        parts.append("%d d" % days)
    if hours:
        parts.append("%d h" % hours)
    if minutes and not days:
        parts.append("%d min" % minutes)
    return " ".join(parts) or "0 s"


@dataclass(frozen=True)
class LatePolicy:
    penalty_pct: float = 0.0            # per period
    period: timedelta = timedelta(days=1)
    period_name: str = "day"
    grace: timedelta = timedelta(0)
    last: Optional[timedelta] = None    # None: no limit
    cap_pct: float = 100.0
    of: str = "points"                  # 'points' or 'max'
    extension_column: Optional[str] = None


def parse_policy(text: str) -> LatePolicy:
    """The rubric's `late` line (with or without the leading key) -> LatePolicy."""
    words = text.split("#", 1)[0].split()
    if words and words[0] == "late":
        words = words[1:]
    if not words:
        raise ValueError("late: give at least penalty=P%/day")
    fields = {}
    for w in words:
        key, eq, val = w.partition("=")
        if not eq or not val:
            raise ValueError("late: '%s' is not KEY=VALUE" % w)
        if key in fields:
            raise ValueError("late: %s given twice" % key)
        fields[key] = val
    unknown = set(fields) - {"penalty", "grace", "last", "cap", "of", "extension"}
    if unknown:
        raise ValueError("late: unknown key %s (penalty, grace, last, cap, of, extension)"
                         % ", ".join(sorted(unknown)))
    kw = {}
    if "penalty" in fields:
        m = re.match(r"^(\d+(?:\.\d+)?)%/(day|d|hour|h)$", fields["penalty"])
        if not m:
            raise ValueError("late: penalty=%s: write it as 10%%/day or 2%%/hour"
                             % fields["penalty"])
        kw["penalty_pct"] = float(m.group(1))
        if m.group(2) in ("hour", "h"):
            kw["period"], kw["period_name"] = timedelta(hours=1), "hour"
    if "grace" in fields:
        kw["grace"] = parse_duration(fields["grace"])
    if "last" in fields:
        kw["last"] = parse_duration(fields["last"])
    if "cap" in fields:
        m = re.match(r"^(\d+(?:\.\d+)?)%$", fields["cap"])
        if not m or float(m.group(1)) > 100:
            raise ValueError("late: cap=%s: a percentage up to 100%%" % fields["cap"])
        kw["cap_pct"] = float(m.group(1))
    if "of" in fields:
        if fields["of"] not in ("points", "max"):
            raise ValueError("late: of=%s: points or max" % fields["of"])
        kw["of"] = fields["of"]
    if "extension" in fields:
        kw["extension_column"] = fields["extension"]
    return LatePolicy(**kw)


# the longest extension a roster may give (a cell of 9999-12-31 or 99999999999d is a typo or
# a prank, and the dates after it would not fit a datetime)
MAX_EXTENSION = timedelta(days=366)


def student_deadline(deadline: datetime, extension: str = "") -> datetime:
    """The deadline of one student: an extension is a duration added to it or a new time, at
    most MAX_EXTENSION after the deadline; ValueError otherwise."""
    ext = (extension or "").strip()
    if not ext:
        return deadline
    try:
        if re.match(r"^\d{4}-\d{2}-\d{2}", ext):
            new = parse_time(ext, default_tz=deadline.tzinfo)
            if new < deadline:
                raise ValueError("extension '%s' ends before the deadline" % extension)
        else:
            try:
                new = deadline + parse_duration(ext)
            except ValueError:
                raise ValueError("extension '%s' is neither a duration (2d, 36h) nor a time "
                                 "(2025-03-16T23:59:00+01:00)" % extension) from None
    except OverflowError:
        new = None
    if new is None or new - deadline > MAX_EXTENSION:
        raise ValueError("extension '%s' is longer than %d days" % (extension,
                                                                    MAX_EXTENSION.days))
    return new


@dataclass
class Lateness:
    status: str                 # 'on-time', 'grace', 'late', 'too-late', 'no-time'
    deadline: str               # the student's own deadline (ISO 8601)
    submitted: Optional[str]    # the time lateness was measured from
    late_s: float               # seconds after the deadline (0 when on time)
    periods: int                # days (hours) charged
    penalty_pct: float          # share taken off
    points_before: float
    points_after: float
    reason: str                 # one sentence for the report; "" when on time

    def to_dict(self) -> dict:
        return asdict(self)


def _round(x: float) -> float:
    return float("%.4g" % x) if x else 0.0


def assess(policy: Optional[LatePolicy], *, deadline: datetime, submitted: Optional[datetime],
           points: float, max_points: float, extension: str = "") -> Lateness:
    """The penalty for work of `points` submitted at `submitted` (None: unknown, no penalty)."""
    own = student_deadline(deadline, extension)
    note = " (extended to %s)" % format_time(own) if own != deadline else ""
    base = dict(deadline=format_time(own), submitted=None, points_before=points)

    def out(status, reason, late_s=0.0, periods=0, pct=0.0, after=points):
        """The Lateness of STATUS; what is not given is as for work on time."""
        return Lateness(status, late_s=late_s, periods=periods, penalty_pct=pct,
                        points_after=after, reason=reason, **base)
    if submitted is None:
        return out("no-time", "no submission time known: no late policy applied")
    late = submitted - own
    base["submitted"] = format_time(submitted)
    if late <= timedelta(0):
        return out("on-time", "")
    late_s = late.total_seconds()
    if policy is None:
        return out("late", "late by %s%s; the rubric has no late policy"
                   % (format_duration(late), note), late_s)
    if late <= policy.grace:
        return out("grace", "late by %s%s, within the grace period of %s"
                   % (format_duration(late), note, format_duration(policy.grace)), late_s)
    if policy.last is not None and late > policy.last:
        return out("too-late", "late by %s%s, past the last day accepted (%s after the deadline): "
                   "0 points" % (format_duration(late), note, format_duration(policy.last)),
                   late_s, 0, 100.0, 0.0)
    periods = int(math.ceil(late / policy.period))
    pct = min(policy.cap_pct, periods * policy.penalty_pct)
    if policy.of == "max":
        after = max(0.0, points - max_points * pct / 100.0)
    else:
        after = points * (1.0 - pct / 100.0)
    after = _round(after)
    unit = policy.period_name + ("s" if periods != 1 else "")
    return out("late", "late by %s%s: %d %s counted, %g%% off (%g -> %g points)"
               % (format_duration(late), note, periods, unit, pct, round(points, 2),
                  round(after, 2)), late_s, periods, pct, after)
