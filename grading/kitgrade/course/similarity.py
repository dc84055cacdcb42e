"""A similarity report across the class and against earlier years (--compare-with DIR).

The comparison is Dick Grune's similarity tester, `sim_c` (Debian package similarity-tester;
common/scripts/setup.sh installs it): it reads C (and CUDA C, whose extra tokens it takes as
they come) as tokens, so renamed identifiers, changed comments, layout, numbers and strings do
not hide a copy. Nothing here measures similarity itself; this module prepares the files, runs
the tool and writes its findings for a person to judge:

- the kit's skeleton is left out: in a private copy of every file, each run of lines that is
  also in the skeleton (in the same order, blanks and indentation ignored; a run of braces
  alone is kept) is blanked, so line numbers stay those of the student's own file and code the
  whole class was given matches nobody;
- files are read without following links, regular files only, at most max_bytes each, and
  copied under names of the grader's own, so that no student's file name reaches the tool or
  the report unescaped;
- `sim_c -p -a -e` gives, for every pair, the share of each file found in the other; pairs at
  or above the threshold (the larger of the two shares) are compared again with `sim_c -n` for
  their shared runs, and the report shows each run side by side from the students' own files;
- earlier years' folders are "old" files to sim_c: compared with this year's class, never with
  each other.

collect() maps each student's label to {kit file name: path}; a student's file is
FOLDER/STUDENT/NAME or FOLDER/STUDENT/LAB_DIR/NAME (an extracted repository's tree). compare()
raises SimilarityError; Report.to_dict() is OUT/similarity.json. A typical call:
compare(collect(SUBS, ["conv.cu"]), skeleton={"conv.cu": KIT/labs/03_global_mem/conv.cu},
earlier=collect(OLD, ["conv.cu"], label_prefix="2024/")).
"""
import difflib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from ..base.fsutil import plain_folder, read_plain
from ..base.safetext import clean, fence

TOOL = "sim_c"
MAX_BYTES = 1 << 20
# a file whose lines left to compare (the skeleton's and the repeated shapes out) are more than
# this is left out, said in the report (a lab file is tens of KB; sim_c took 8 s on two files
# of 512 KB of a five-line pattern)
MAX_COMPARED = 256 << 10
_PCT = re.compile(r"^(\S+) consists for (\d+) % of (\S+) material$")
_RUN = re.compile(r"^(\S+): line (\d+)-(\d+)\s*\|(\S+): line (\d+)-(\d+)\s*\[(\d+)\]\s*$")


class SimilarityError(Exception):
    pass


class SimilarityTimeout(SimilarityError):
    """sim_c ran past its time limit."""


@dataclass
class Passage:
    a_lines: Tuple[int, int]
    b_lines: Tuple[int, int]
    tokens: int


@dataclass
class Pair:
    a: str
    b: str
    file: str
    a_in_b: int                 # % of a's file found in b's
    b_in_a: int
    earlier: bool               # b is from an earlier year
    passages: List[Passage] = field(default_factory=list)

    @property
    def share(self) -> int:
        return max(self.a_in_b, self.b_in_a)


@dataclass
class Report:
    tool: str
    threshold: float
    min_run: int
    files: List[str]
    students: int
    earlier: int
    pairs: List[Pair] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    texts: Dict[str, Dict[str, List[str]]] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("texts")
        for p, q in zip(d["pairs"], self.pairs):
            p["share"] = q.share
        return d


def find_tool() -> Optional[str]:
    return shutil.which(TOOL)


def _read(path: Path, limit: int) -> Tuple[Optional[bytes], str]:
    data, why = read_plain(path, limit)
    return data, ("cannot be opened (a link)" if why == "it is a symbolic link" else why)


def collect(folder, files: Sequence[str], *, lab_dir: Optional[str] = None,
            label_prefix: str = "") -> Dict[str, Dict[str, Path]]:
    out: Dict[str, Dict[str, Path]] = {}
    folder = Path(folder)
    for student in sorted(os.listdir(folder)):
        sd = folder / student
        if student.startswith(".") or os.path.islink(sd) or not sd.is_dir():
            continue
        found = {}
        for name in files:
            for rel in ([Path(lab_dir) / name] if lab_dir else []) + [Path(name)]:
                if os.path.lexists(sd / rel) and plain_folder(sd, rel.parts[:-1]):
                    found[name] = sd / rel
                    break
        if found:
            out[label_prefix + student] = found
    return out


def _norm(line: str) -> str:
    return "".join(line.split())


def _strip_skeleton(lines: List[str], skel: List[str]) -> List[str]:
    """Blank the runs of lines the skeleton has too (line numbers kept)."""
    a = [_norm(x) for x in skel]
    b = [_norm(x) for x in lines]
    out = list(lines)
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, _, _, j1, j2 in sm.get_opcodes():
        if tag != "equal":
            continue
        if not any(len(x.strip("{}();")) >= 4 for x in b[j1:j2]):
            continue            # braces and blank lines alone: not the skeleton's code
        for j in range(j1, j2):
            out[j] = ""
    return out


def _drop_repeats(lines: List[str]) -> List[str]:
    """Blank each line that is the line before it again (spaces aside, at least three
    characters of it; line numbers kept): a run of one line over and over is no one's work,
    and sim_c's time grows with the square of such runs (two files of 2,000 lines of `int a;`
    took it 27 s). Other padding is found by selfcheck."""
    out, prev = list(lines), None
    for i, ln in enumerate(lines):
        n = _norm(ln)
        if len(n) >= 3 and n == prev:
            out[i] = ""
        prev = n
    return out


# the seconds sim_c may take to compare one file with a copy of itself (a lab file takes a few
# milliseconds; one long run of a pattern, on one line or many, takes minutes)
SELF_TIMEOUT = 5.0


def _selfcheck(tool: str, path: str, min_run: int, timeout: float) -> str:
    """'' when sim_c compares PATH with a copy of itself within TIMEOUT; else why not: a file
    of long repeated runs, which would hold up the class's comparison (sim_c's time grows with
    the square of them) and is left out of it, said in the report."""
    twin = path + ".twin"
    shutil.copyfile(path, twin)
    try:
        _run([tool, "-p", "-a", "-e", "-T", "-i", "-r", str(min_run), "-t", "1"],
             "%s\n%s\n" % (path, twin), timeout)
    except SimilarityTimeout:
        return ("the similarity tester could not compare it with a copy of itself within %g s "
                "(long runs of one pattern)" % timeout)
    finally:
        os.unlink(twin)
    return ""


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _run(argv: List[str], stdin: Optional[str], timeout: float) -> str:
    try:
        p = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, universal_newlines=True, errors="replace")
    except subprocess.TimeoutExpired:
        raise SimilarityTimeout("%s took longer than %g s" % (argv[0], timeout)) from None
    except OSError as e:
        raise SimilarityError("cannot run %s: %s" % (argv[0], e.strerror)) from None
    if p.returncode != 0:
        raise SimilarityError("%s failed: %s" % (argv[0], p.stderr.strip()[-300:]))
    return p.stdout


def compare(current: Dict[str, Dict[str, Path]], *, skeleton: Dict[str, Path],
            earlier: Optional[Dict[str, Dict[str, Path]]] = None, threshold: float = 40.0,
            min_run: int = 24, max_bytes: int = MAX_BYTES, timeout: float = 180,
            tool: Optional[str] = None) -> Report:
    tool = tool or find_tool()
    if not tool:
        raise SimilarityError("sim_c is not installed (Debian package similarity-tester; "
                              "common/scripts/setup.sh installs it)")
    earlier = earlier or {}
    overlap = set(current) & set(earlier)
    if overlap:
        raise SimilarityError("labels used both this year and earlier: %s"
                              % ", ".join(sorted(overlap)))
    names = sorted({n for d in (current, earlier) for files in d.values() for n in files})
    report = Report(tool=TOOL, threshold=threshold, min_run=min_run, files=names,
                    students=len(current), earlier=len(earlier))
    with tempfile.TemporaryDirectory(prefix="kit-sim-") as tmp:
        for name in names:
            skel_lines: List[str] = []
            if name in skeleton:
                data, why = _read(Path(skeleton[name]), max_bytes)
                if data is None:
                    raise SimilarityError("the skeleton %s %s" % (skeleton[name], why))
                skel_lines = _decode(data).splitlines()
            else:
                report.notes.append("%s: no skeleton given; nothing left out" % name)
            sub = Path(tmp) / ("f%d" % names.index(name))
            sub.mkdir()
            alias: Dict[str, Tuple[str, bool]] = {}
            new_paths, old_paths = [], []
            for group, is_old in ((current, False), (earlier, True)):
                for label in sorted(group):
                    path = group[label].get(name)
                    if path is None:
                        continue
                    data, why = _read(Path(path), max_bytes)
                    if data is None:
                        report.notes.append("%s, %s: %s; left out" % (label, name, why))
                        continue
                    lines = _decode(data).splitlines()
                    text = "\n".join(_drop_repeats(_strip_skeleton(lines, skel_lines))) + "\n"
                    if len(text) - text.count("\n") > MAX_COMPARED:
                        report.notes.append("%s, %s: more than %d KB to compare once the "
                                            "skeleton and repeated lines are out; left out"
                                            % (label, name, MAX_COMPARED >> 10))
                        continue
                    report.texts.setdefault(label, {})[name] = lines
                    p = sub / ("%s%04d" % ("o" if is_old else "n", len(alias)))
                    p.write_text(text, encoding="utf-8")
                    alias[str(p)] = (label, is_old)
                    (old_paths if is_old else new_paths).append(str(p))
            for paths in (new_paths, old_paths):
                for p in list(paths):
                    why = _selfcheck(tool, p, min_run, SELF_TIMEOUT)
                    if why:
                        label = alias.pop(p)[0]
                        paths.remove(p)
                        report.notes.append("%s, %s: %s; left out" % (label, name, why))
            if len(new_paths) + min(len(old_paths), 1) < 2 or not new_paths:
                continue
            listing = "\n".join(new_paths + (["/"] + old_paths if old_paths else [])) + "\n"
            try:
                out = _run([tool, "-p", "-a", "-e", "-T", "-i", "-r", str(min_run), "-t", "1"],
                           listing, timeout)
            except SimilarityError as e:
                # the files most likely to blame: the longest
                longest = sorted(((len(report.texts[a[0]][name]), a[0]) for a in alias.values()),
                                 reverse=True)[:3]
                raise SimilarityError("%s, on %s (the longest: %s)" % (
                    e, name, ", ".join("%s %d lines" % (who, n) for n, who in longest))) from None
            share: Dict[Tuple[str, str], int] = {}
            for line in out.splitlines():
                m = _PCT.match(line.strip())
                if m and m.group(1) in alias and m.group(3) in alias:
                    share[(m.group(1), m.group(3))] = int(m.group(2))
            seen = set()
            for (pa, pb) in sorted(share):
                key = tuple(sorted((pa, pb)))
                if key in seen or pa == pb:
                    continue
                seen.add(key)
                (la, old_a), (lb, old_b) = alias[key[0]], alias[key[1]]
                if old_a and old_b:
                    continue
                if old_a:                   # this year's student first
                    key = (key[1], key[0])
                    (la, old_a), (lb, old_b) = (lb, old_b), (la, old_a)
                pair = Pair(a=la, b=lb, file=name, a_in_b=share.get(key, 0),
                            b_in_a=share.get((key[1], key[0]), 0), earlier=old_b)
                if pair.share < threshold:
                    continue
                runs = _run([tool, "-s", "-n", "-T", "-w", "300", "-r", str(min_run),
                             key[0], key[1]], None, timeout)
                for line in runs.splitlines():
                    m = _RUN.match(line.strip())
                    if not m:
                        continue
                    fa, a0, a1, fb, b0, b1, tok = m.groups()
                    if {fa, fb} != {key[0], key[1]}:
                        continue
                    ra, rb = (int(a0), int(a1)), (int(b0), int(b1))
                    if fa != key[0]:
                        ra, rb = rb, ra
                    pair.passages.append(Passage(a_lines=ra, b_lines=rb, tokens=int(tok)))
                pair.passages.sort(key=lambda p: -p.tokens)
                report.pairs.append(pair)
    report.pairs.sort(key=lambda p: (-p.share, p.a, p.b, p.file))
    return report


# -- the report ---------------------------------------------------------------------------


def _inline(text: str) -> str:
    """Text a student chose, safe inside a Markdown line (no markup, no HTML)."""
    text = clean(text.replace("\n", " "), "?")
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>&~])", r"\\\1", text)


def _clean(line: str, width: int) -> str:
    line = clean(line.expandtabs(4), "?")
    return line[:width - 1] + "\u2026" if len(line) > width else line


def markdown(report: Report, *, max_pairs: int = 100, max_passages: int = 6,
             max_lines: int = 40, width: int = 60) -> str:
    out = ["# Similarity", "",
           "Compared with `sim_c` (Dick Grune's similarity tester): %d students of this year%s, "
           "file%s %s; runs of at least %d tokens. The kit's skeleton is left out, so a share "
           "counts the students' own code only. Pairs where at least %g%% of one file is "
           "found in the other are listed, largest first. A high share is a reason to look, "
           "not a verdict: read the passages."
           % (report.students, " and %d from earlier years" % report.earlier
              if report.earlier else "", "s" if len(report.files) != 1 else "",
              ", ".join(_inline(f) for f in report.files) or "none", report.min_run,
              report.threshold), ""]
    if not report.pairs:
        out += ["No pair reaches the threshold.", ""]
    else:
        out += ["| # | student | other | file | share of the student's file | share of "
                "the other's | passages |", "|---|---|---|---|---|---|---|"]
        for i, p in enumerate(report.pairs[:max_pairs], 1):
            out.append("| %d | %s | %s%s | %s | %d %% | %d %% | %d |" % (
                i, _inline(p.a), _inline(p.b), " (earlier)" if p.earlier else "",
                _inline(p.file), p.a_in_b, p.b_in_a, len(p.passages)))
        if len(report.pairs) > max_pairs:
            out.append("")
            out.append("%d more pairs are in similarity.json." % (len(report.pairs) - max_pairs))
        out.append("")
    for i, p in enumerate(report.pairs[:max_pairs], 1):
        out += ["## %d. %s and %s: %s, %d %%"
                % (i, _inline(p.a), _inline(p.b), _inline(p.file), p.share), ""]
        ta = report.texts.get(p.a, {}).get(p.file, [])
        tb = report.texts.get(p.b, {}).get(p.file, [])
        for ps in p.passages[:max_passages]:
            out.append("%s lines %d-%d and %s lines %d-%d, %d tokens in common:" % (
                _inline(p.a), ps.a_lines[0], ps.a_lines[1], _inline(p.b), ps.b_lines[0],
                ps.b_lines[1], ps.tokens))
            out.append("")
            la = ta[ps.a_lines[0] - 1:ps.a_lines[1]]
            lb = tb[ps.b_lines[0] - 1:ps.b_lines[1]]
            n = max(len(la), len(lb))
            rows = []
            for k in range(min(n, max_lines)):
                left = "%4d %s" % (ps.a_lines[0] + k, _clean(la[k], width)) if k < len(la) else ""
                right = "%4d %s" % (ps.b_lines[0] + k, _clean(lb[k], width)) if k < len(lb) \
                    else ""
                rows.append("%-*s | %s" % (width + 5, left, right))
            if n > max_lines:
                rows.append("... %d more lines" % (n - max_lines))
            block = "\n".join(rows)
            f = fence(block)
            out += [f + "text", block, f, ""]
        if len(p.passages) > max_passages:
            out += ["%d smaller passages are left out." % (len(p.passages) - max_passages), ""]
    if report.notes:
        out += ["## Notes", ""] + ["- " + _inline(n) for n in report.notes] + [""]
    return "\n".join(out)
