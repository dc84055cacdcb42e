"""Regrading some students (--only LOGIN...) without losing what they had.

Before a student is graded again, archive() keeps the result they had: the whole results.json is
copied to OUT/history/NAME/N-results.json and one line is appended to OUT/history/NAME/history.jsonl
with the time it was graded, the seed, the commit and its time, the points (before and after the
late penalty), the status and why it was regraded. The history lives beside OUT/students/, so the
driver may wipe a student's folder before grading it again. A regrade reuses the seed the grading
recorded (OUT/grading.json "seed", or the `seed: S` line of OUT/grading.txt): regrade_seed() gives
it back, and refuses a different --seed, so that the student meets the same hidden inputs as the
class.

select_only(available, only): available maps a login to a NAME (the folder under
OUT/students), as a mapping or as (login, NAME) pairs (a login of several NAMEs is several
pairs); only holds the logins of --only (a folder name works too). It returns the NAMEs to
regrade, in the order given, and the logins that match nobody. A name is a NAME exactly, else a
login exactly, else either in another letter case; where one of these fits several NAMEs the
name is ambiguous: HistoryError, naming them. archive() returns None when the student has no
result yet (nothing to keep); load() gives the entries oldest first.

summary() reads these keys of results.json, each optional: graded_at (or time), seed, commit and
commit_time (or git: {commit, commit_time}), total_pts and max_pts (or the grader's points:
{total, max}), late: {points_before, points_after, status}, status, reason.
"""
import errno
import fcntl
import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Tuple

from ..base.fsutil import read_plain
from ..base.safetext import clean, one_line

MAX_RESULT_BYTES = 64 << 20


class HistoryError(ValueError):
    pass


def _check_name(name: str) -> str:
    if not name or "/" in name or "\0" in name or name.startswith("."):
        raise HistoryError("'%s' cannot be a student's folder name" % name)
    return name


def _read(path: Path, limit: int) -> Optional[bytes]:
    """The file's bytes (no link followed), None when it does not exist; HistoryError when it
    is something else than a regular file of at most LIMIT bytes."""
    data, why = read_plain(path, limit)
    if data is not None or why == "it does not exist":
        return data
    if why in ("not a regular file",) or why.startswith("larger than"):
        raise HistoryError("%s is not a regular file of at most %d bytes" % (path, limit))
    raise OSError(errno.ELOOP if "link" in why else errno.EIO, "%s: %s" % (path, why))


def recorded_seed(out) -> Optional[str]:
    out = Path(out)
    data = _read(out / "grading.json", 1 << 20)
    if data is not None:
        try:
            seed = json.loads(data.decode("utf-8")).get("seed")
        except (ValueError, AttributeError):
            raise HistoryError("%s is not valid JSON" % (out / "grading.json")) from None
        if seed is not None:
            return str(seed)
    data = _read(out / "grading.txt", 1 << 20)
    if data is not None:
        m = re.search(r"^seed: *(\S+) *$", data.decode("utf-8", "replace"), re.MULTILINE)
        if m:
            return m.group(1)
    return None


def regrade_seed(out, requested: Optional[str] = None) -> str:
    seed = recorded_seed(out)
    if seed is None:
        raise HistoryError("%s holds no grading yet (no seed recorded): grade the class "
                           "first, then regrade with --only" % out)
    if requested is not None and str(requested) != seed:
        raise HistoryError("%s was graded with seed %s; a regrade uses the same seed "
                           "(leave out --seed)" % (out, seed))
    return seed


def select_only(available, only: Iterable[str]) -> Tuple[List[str], List[str]]:
    pairs = list(available.items()) if isinstance(available, Mapping) else list(available)
    # exactly a NAME; exactly a login; either, in any letter case
    tiers: List[Dict[str, List[str]]] = [{}, {}, {}]

    def put(tier, key, name):
        got = tiers[tier].setdefault(key, [])
        if name not in got:
            got.append(name)

    for login, name in pairs:
        put(0, name, name)
        put(1, login, name)
        put(2, name.lower(), name)
        put(2, login.lower(), name)
    names: List[str] = []
    unknown: List[str] = []
    for x in only:
        for part in x.split(","):
            part = part.strip()
            if not part:
                continue
            for tier, key in enumerate((part, part, part.lower())):
                fits = tiers[tier].get(key)
                if fits:
                    break
            if not fits:
                unknown.append(part)
                continue
            if len(fits) > 1:
                raise HistoryError("--only: %s fits %d students%s: %s; name one of them "
                                   "exactly" % (_say(part), len(fits),
                                                " in another letter case" if tier == 2 else "",
                                                ", ".join(sorted(_say(n) for n in fits))))
            if fits[0] not in names:
                names.append(fits[0])
    return names, unknown


def _say(x) -> str:
    return "'%s'" % one_line(x, 120)


def _now() -> datetime:
    return datetime.now(timezone.utc).astimezone()


def summary(result: dict, *, seed=None, time=None) -> dict:
    git = result.get("git") if isinstance(result.get("git"), dict) else {}
    late = result.get("late") if isinstance(result.get("late"), dict) else {}
    pts = result.get("points") if isinstance(result.get("points"), dict) else {}
    total = result.get("total_pts", pts.get("total"))
    return {
        "graded_at": result.get("graded_at") or result.get("time") or time,
        "seed": str(result.get("seed", seed)) if result.get("seed", seed) is not None else None,
        "commit": result.get("commit") or git.get("commit"),
        "commit_time": result.get("commit_time") or git.get("commit_time"),
        "points_before": late.get("points_before", total),
        "points": late.get("points_after", total),
        "max_pts": result.get("max_pts", pts.get("max")),
        "late": late.get("status"),
        "status": result.get("status"),
        "reason": result.get("reason"),
    }


def _lock(d: Path):
    fd = os.open(d / ".lock", os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def archive(out, name, *, seed=None, why: str = "regrade",
            now: Optional[datetime] = None) -> Optional[dict]:
    out = Path(out)
    _check_name(name)
    data = _read(out / "students" / name / "results.json", MAX_RESULT_BYTES)
    if data is None:
        return None
    try:
        result = json.loads(data.decode("utf-8"))
    except ValueError:
        result = {"status": "unreadable", "reason": "results.json was not valid JSON"}
    if not isinstance(result, dict):
        result = {"status": "unreadable", "reason": "results.json was not an object"}
    hist = out / "history" / name
    hist.mkdir(parents=True, exist_ok=True)
    when = (now or _now()).isoformat(timespec="seconds")
    entry = summary(result, seed=seed, time=None)
    entry["archived_at"] = when
    entry["why"] = why
    fd = _lock(hist)
    try:
        taken = [int(m.group(1)) for m in (re.match(r"^(\d+)-results\.json$", f)
                                           for f in os.listdir(hist)) if m]
        n = max(taken, default=0) + 1
        entry["result"] = "%d-results.json" % n
        tmp = hist / (".%d-results.json.tmp" % n)
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, hist / entry["result"])
        line = (json.dumps(entry, sort_keys=True) + "\n").encode("utf-8")
        hfd = os.open(hist / "history.jsonl",
                      os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            end = os.lseek(hfd, 0, os.SEEK_END)
            if end > 0 and os.pread(hfd, 1, end - 1) != b"\n":
                line = b"\n" + line            # after a line a crash cut short
            os.write(hfd, line)
            os.fsync(hfd)
        finally:
            os.close(hfd)
    finally:
        os.close(fd)
    return entry


def copies_seen(out, name) -> List[tuple]:
    """What the earlier gradings of NAME from git saw (gitdates.after_copies): for each archived
    result with a commit and its copy's time, (the commit graded, how many commits were newer
    than it on the line, when that copy was made, the line's newest commit then or None).
    Unreadable results are passed over."""
    _check_name(name)
    hist = Path(out) / "history" / name
    seen = []
    try:
        files = sorted(f for f in os.listdir(hist) if re.match(r"^\d+-results\.json$", f))
    except OSError:
        return []
    for f in files:
        data = _read(hist / f, MAX_RESULT_BYTES)
        try:
            git = json.loads(data.decode("utf-8")).get("git") if data else None
            if isinstance(git, dict) and git.get("commit") and git.get("clone_time"):
                seen.append((str(git["commit"]), int(git.get("newer_commits") or 0),
                             datetime.fromisoformat(str(git["clone_time"])),
                             str(git["tip"]) if git.get("tip") else None))
        except (ValueError, TypeError, AttributeError, OverflowError):
            continue
    return seen


def load(out, name) -> List[dict]:
    _check_name(name)
    data = _read(Path(out) / "history" / name / "history.jsonl", MAX_RESULT_BYTES)
    if not data:
        return []
    entries = []
    for line in data.decode("utf-8", "replace").splitlines():
        if line.strip():
            try:
                entries.append(json.loads(line))
            except ValueError:
                continue            # a line cut short by a crash: the others stand
    return entries


def _cell(x) -> str:
    s = "" if x is None else clean(x)
    return "".join("&#%d;" % ord(c) if c in "|\\`*_[]<>&#" else c for c in s)


def markdown(entries: List[dict], *, show_seed: bool = True) -> str:
    """The history as a table; show_seed=False leaves the seed out (a report a student reads:
    the grading seed is the instructor's)."""
    if not entries:
        return ""
    lines = ["| graded | seed | commit | points | status | replaced |",
             "|---|---|---|---|---|---|"]
    if not show_seed:
        lines = [ln.replace(" seed |", "", 1).replace("|---|", "|", 1) for ln in lines]
    for e in entries:
        pts = e.get("points")
        if e.get("points_before") not in (None, pts):
            pts = "%s (%s before the penalty)" % (pts, e.get("points_before"))
        if e.get("max_pts") is not None and pts is not None:
            pts = "%s of %s" % (pts, e.get("max_pts"))
        commit = (e.get("commit") or "")[:12]
        if e.get("commit_time"):
            commit += " (%s)" % e["commit_time"]
        cells = [e.get("graded_at"), e.get("seed"), commit, pts, e.get("status"),
                 "%s: %s" % (e.get("archived_at"), e.get("why"))]
        if not show_seed:
            del cells[1]
        lines.append("| %s |" % " | ".join(_cell(x) for x in cells))
    return "\n".join(lines) + "\n"
