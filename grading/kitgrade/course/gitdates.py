"""The dates of a git submission: the commit graded at a deadline, dates that cannot be true.

pick_commit and effective_times choose the commit graded (a backdated commit counts at its
parent's date); date_flags finds the dates that cannot be true. Pure functions, no git run; part
of gitsub.py, which exports them."""
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import List, Optional, Sequence, Tuple

from .late import format_time, parse_time


@dataclass
class Commit:
    id: str
    parents: List[str]
    time: datetime              # committer time, with the committer's zone
    author_time: datetime


class BadDate(ValueError):
    """A date git wrote for a commit that is no date (a year past 9999, a zone of 99 hours:
    the commit's author can write any)."""


def _git_time(text: str) -> datetime:
    try:
        epoch, iso = text.split(" ", 1)
        t = parse_time(iso)
        if int(t.timestamp()) != int(epoch):
            t = datetime.fromtimestamp(int(epoch), timezone.utc)
        return t
    except (ValueError, OverflowError, OSError):
        raise BadDate("a commit's date is no date (%s)" % " ".join(text.split())[:80]) from None


# -- choosing the commit ------------------------------------------------------------------
def effective_times(chain: List[Commit]) -> List[datetime]:
    """A commit cannot be older than its parent: each commit's date, or the latest date of
    the commits before it on the line where that is later (a backdated commit)."""
    out: List[datetime] = []
    latest = None
    for c in reversed(chain):
        latest = c.time if latest is None or c.time > latest else latest
        out.append(latest)
    return out[::-1]


def after_copies(chain: List[Commit], times: List[datetime],
                 seen: Sequence[tuple]) -> Tuple[List[datetime], List[str]]:
    """TIMES (effective_times of CHAIN) where earlier copies of the repository saw the line:
    SEEN holds, for each, (the commit graded then, how many commits were newer than it on the
    line, when that copy was made[, the line's newest commit then]). A commit the line has now
    beyond what that copy had was pushed after it, whatever its date says: it counts from the
    copy's time at the earliest. Where the newest commit then is gone, everything after the
    commit graded was pushed again; where the commit graded then is gone, the line was
    rewritten and every commit on it counts from the copy's time. Also the flags that say so."""
    out, flags = list(times), []
    pos = {c.id: i for i, c in enumerate(chain)}
    for cid, newer, when, *rest in seen:
        tip = rest[0] if rest else None
        if cid not in pos:
            late = len(chain)
            flags.append("rewritten: commit %s, graded from the copy of %s, is no longer on the "
                         "line: every commit on it counts from that copy" % (cid[:12],
                                                                             format_time(when)))
        elif tip and tip in pos:
            late = pos[tip]                     # the commits newer than that copy's newest
        elif tip:
            late = pos[cid]                     # that copy's newer commits were replaced
        else:
            late = pos[cid] - max(0, newer)     # (a record without the newest commit)
        moved = [i for i in range(late) if out[i] < when]
        for i in range(late):
            out[i] = max(out[i], when)
        if moved and cid in pos:
            flags.append("after-earlier-copy: commit %s%s was not on the line at the copy of %s "
                         "though dated before it; counted from that copy" % (
                             chain[moved[0]].id[:12], " and %d more" % (len(moved) - 1)
                             if len(moved) > 1 else "", format_time(when)))
    return out, flags


def pick_commit(chain: List[Commit], until: Optional[datetime],
                times: Optional[List[datetime]] = None) -> Optional[Commit]:
    """The newest commit of the line made at or before `until` (the tip without `until`),
    by TIMES (default effective_times: a backdated commit counts at its parent's date)."""
    if until is None:
        return chain[0] if chain else None
    for c, t in zip(chain, times if times is not None else effective_times(chain)):
        if t <= until:
            return c
    return None


def date_flags(chain: List[Commit], clone_time: Optional[datetime],
               most: int = 5) -> List[str]:
    """Dates that cannot be true: after the clone, or before the commit's own parent."""
    after, order = [], []
    for c in chain:
        if clone_time is not None and c.time > clone_time:
            after.append("dated-after-clone: commit %s is dated %s, after the clone was made "
                         "(%s)" % (c.id[:12], format_time(c.time), format_time(clone_time)))
    for child, parent in zip(chain, chain[1:]):
        if child.time < parent.time:
            order.append("out-of-order: commit %s is dated %s, before its parent %s (%s)"
                         % (child.id[:12], format_time(child.time), parent.id[:12],
                            format_time(parent.time)))
    flags = []
    for kind in (after, order):
        flags += kind[:most]
        if len(kind) > most:
            flags.append("%s: and %d more" % (kind[0].split(":", 1)[0], len(kind) - most))
    return flags
