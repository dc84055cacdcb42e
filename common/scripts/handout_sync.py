#!/usr/bin/env python3
"""handout_sync.py - is a translated handout in step with the English one?

    handout_sync.py check README.md README.el.md [...]   exit 1 and one line per
                                                         missing or changed item
    handout_sync.py items README.md                      what would be compared

A translation keeps, from its English handout:
  - the headings: as many, at the same levels, in the same order, and the
    numbers in each (a step's number, a variant's v3) the same;
  - the questions: the same numbered items (1., 2., ...) in the questions
    section (the second-level section at the same place as the English
    "Questions");
  - every fenced code block byte for byte, in the same order (commands);
  - every inline code span (`make check`, variant names, options), as often
    (a span may go on over a line's end, and end its lines elsewhere than
    the English one: its spaces and line ends count as one space);
  - every number written in digits outside code (sizes, times, counts), as
    often, written the same way (a decimal point stays a point);
  - the generated figures block (between its markers) byte for byte;
  - the tables outside the figures block: as many, with as many rows, and
    each row as many cells;
  - the English handout's link targets, and on the first line under the
    title (the first that is not blank) a link to the English handout
    (README.md) and one to the glossary (../../docs/glossary.md).
Exit 0 when every file is in step, 1 when one is not, 2 on bad use.
"""
import collections
import os
import re
import sys

FIG_BEGIN = "<!-- figures begin -->"
FIG_END = "<!-- figures end -->"
NUMBER = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)?(?:x\d+)*")
SPAN = re.compile(r"(`+)(.+?)\1")
# a code span in a paragraph may go on over a line's end (the translation's
# lines end elsewhere than the English ones)
PARA_SPAN = re.compile(r"(`+)([\s\S]+?)\1")
LINK = re.compile(r"\]\(([^)\s]*)\)")
TO_ENGLISH = "README.md"
TO_GLOSSARY = "../../docs/glossary.md"


def split_parts(text):
    """(prose lines, fenced code blocks, figures block) of a handout."""
    prose, blocks, figures = [], [], None
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == FIG_BEGIN:
            j = i
            while j < len(lines) and lines[j].strip() != FIG_END:
                j += 1
            figures = "\n".join(lines[i:j + 1])
            i = j + 1
            continue
        if line.lstrip().startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith("```"):
                j += 1
            blocks.append("\n".join(lines[i:j + 1]))
            i = j + 1
            continue
        prose.append(line)
        i += 1
    return prose, blocks, figures


def headings(prose):
    out = []
    for line in prose:
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        if m:
            text = SPAN.sub(" ", m.group(2))
            out.append((len(m.group(1)), tuple(NUMBER.findall(text)), m.group(2)))
    return out


def questions(prose, section_index):
    """The numbers of the top-level numbered items in the section_index-th
    second-level section."""
    found, n = [], -1
    for line in prose:
        if line.startswith("## "):
            n += 1
            continue
        m = re.match(r"^(\d+)\.\s", line)
        if n == section_index and m:
            found.append(int(m.group(1)))
    return found


def tables(prose):
    """The tables: for each, the number of cells of each row."""
    out, cur = [], None
    for line in prose + [""]:
        if line.startswith("|"):
            cells = len(re.findall(r"(?<!\\)\|", SPAN.sub(" ", line))) - 1
            cur = (cur or []) + [cells]
        elif cur is not None:
            out.append(cur)
            cur = None
    return out


def paragraphs(prose):
    """The text of each paragraph (lines up to a blank one; a heading and a
    table row are each one of their own), its lines joined by newlines."""
    out, cur = [], []
    for line in prose + [""]:
        alone = re.match(r"^#{1,6}\s", line) or line.startswith("|")
        if not line.strip() or alone:
            if cur:
                out.append("\n".join(cur))
                cur = []
            if alone:
                out.append(line)
            continue
        cur.append(line)
    return out


def without_spans(prose):
    """The prose's lines with every code span (one that goes on over a line's
    end too) made a space."""
    return [line for p in paragraphs(prose) for line in PARA_SPAN.sub(" ", p).split("\n")]


def links(prose):
    c = collections.Counter()
    for p in paragraphs(prose):
        for m in LINK.finditer(PARA_SPAN.sub(" ", p)):
            c[m.group(1)] += 1
    return c


def under_title(prose):
    """The first line after the title that is not blank."""
    for line in prose[1:]:
        if line.strip():
            return line
    return ""


def questions_section(prose):
    n = -1
    for line in prose:
        if line.startswith("## "):
            n += 1
            if line[3:].strip().lower().startswith("questions"):
                return n
    return None


def spans(prose):
    c = collections.Counter()
    for p in paragraphs(prose):
        for m in PARA_SPAN.finditer(p):
            c[" ".join(m.group(2).split())] += 1
    return c


def numbers(prose):
    c = collections.Counter()
    for line in without_spans(prose):
        if re.match(r"^#{1,6}\s", line):
            continue  # headings are compared on their own
        line = re.sub(r"\]\([^)]*\)", "]", line)  # link targets
        line = re.sub(r"^\s*\d+\.\s", " ", line)  # a numbered item's own number
        for tok in NUMBER.findall(line):
            c[tok] += 1
    return c


def items(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    prose, blocks, figures = split_parts(text)
    return {
        "prose": prose,
        "headings": headings(prose),
        "blocks": blocks,
        "figures": figures,
        "spans": spans(prose),
        "numbers": numbers(prose),
        "tables": tables(prose),
        "links": links(prose),
    }


def short(s, n=60):
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3] + "..."


def check(english, translated):
    """The lines that say what the translation lacks (empty: in step)."""
    name = translated
    try:
        en, tr = items(english), items(translated)
    except UnicodeDecodeError:
        return ["%s or %s: not UTF-8 text" % (english, translated)]
    bad = []
    eh, th = en["headings"], tr["headings"]
    if [h[0] for h in eh] != [h[0] for h in th]:
        bad.append("%s: headings differ in number or level (English %d, here %d); first English heading "
                   "without its match: %s" % (name, len(eh), len(th), first_unmatched(eh, th)))
    else:
        for k, (a, b) in enumerate(zip(eh, th)):
            if a[1] != b[1]:
                bad.append("%s: heading %d (%s) has the numbers %s, the English %s" % (
                    name, k + 1, short(b[2]), list(b[1]) or "none", list(a[1]) or "none"))
    qs = questions_section(en["prose"])
    if qs is not None:
        qe, qt = questions(en["prose"], qs), questions(tr["prose"], qs)
        if len(qe) != len(qt):
            bad.append("%s: %d numbered questions, the English has %d" % (name, len(qt), len(qe)))
        elif qe != qt:
            bad.append("%s: the questions are numbered %s, the English %s" % (
                name, " ".join(map(str, qt)), " ".join(map(str, qe))))
    if len(en["blocks"]) != len(tr["blocks"]):
        bad.append("%s: %d code blocks, the English has %d" % (name, len(tr["blocks"]), len(en["blocks"])))
    for k, (a, b) in enumerate(zip(en["blocks"], tr["blocks"])):
        if a != b:
            bad.append("%s: code block %d differs from the English (%s)" % (name, k + 1, short(a)))
    if en["figures"] != tr["figures"]:
        bad.append("%s: the figures block differs from the English one (make figures-table renders both)" % name)
    for what in ("spans", "numbers"):
        missing = en[what] - tr[what]
        extra = tr[what] - en[what]
        label = "code span" if what == "spans" else "number"
        for tok, n in sorted(missing.items()):
            bad.append("%s: %s %s missing (%d of %d)" % (name, label, short(tok), n, en[what][tok]))
        for tok, n in sorted(extra.items()):
            bad.append("%s: %s %s not in the English (%d more)" % (name, label, short(tok), n))
    et, tt = en["tables"], tr["tables"]
    if len(et) != len(tt):
        bad.append("%s: %d tables, the English has %d" % (name, len(tt), len(et)))
    else:
        for k, (a, b) in enumerate(zip(et, tt)):
            if a != b:
                bad.append("%s: table %d has %d rows of %s cells, the English %d rows of %s" % (
                    name, k + 1, len(b), "/".join(map(str, sorted(set(b)))),
                    len(a), "/".join(map(str, sorted(set(a))))))
    own = collections.Counter({TO_ENGLISH: 1, TO_GLOSSARY: 1})
    for target, n in sorted(((en["links"] + own) - tr["links"]).items()):
        if target == TO_GLOSSARY:
            bad.append("%s: no link to the glossary (%s)" % (name, TO_GLOSSARY))
        elif target == TO_ENGLISH:
            bad.append("%s: no link to the English handout (%s)" % (name, TO_ENGLISH))
        else:
            bad.append("%s: link target %s missing (%d of %d)" % (name, short(target), n, en["links"][target]))
    for target, n in sorted((tr["links"] - (en["links"] + own)).items()):
        bad.append("%s: link target %s not in the English (%d more)" % (name, short(target), n))
    line = SPAN.sub(" ", under_title(tr["prose"]))
    if tr["links"][TO_ENGLISH] and tr["links"][TO_GLOSSARY] and \
            not ("](%s)" % TO_ENGLISH in line and "](%s)" % TO_GLOSSARY in line):
        bad.append("%s: the links to the English handout and the glossary are not on the line under the title"
                   % name)
    return bad


def first_unmatched(eh, th):
    for k, a in enumerate(eh):
        if k >= len(th) or th[k][0] != a[0]:
            return short(a[2])
    return "(none: the translation has more)"


def main(argv):
    if len(argv) >= 3 and argv[1] == "check":
        english, rest = argv[2], argv[3:]
        if not rest or not os.path.isfile(english):
            print("handout_sync: usage: check README.md README.LANG.md...", file=sys.stderr)
            return 2
        bad = []
        for t in rest:
            if not os.path.isfile(t):
                bad.append("%s: missing" % t)
                continue
            bad += check(english, t)
        for line in bad:
            print(line)
        return 1 if bad else 0
    if len(argv) == 3 and argv[1] == "items":
        it = items(argv[2])
        for h in it["headings"]:
            print("heading", "#" * h[0], list(h[1]), short(h[2]))
        print("code blocks", len(it["blocks"]))
        qs = questions_section(it["prose"])
        print("questions", len(questions(it["prose"], qs)) if qs is not None else 0)
        print("tables", len(it["tables"]), "links", sum(it["links"].values()))
        print("code spans", sum(it["spans"].values()), "numbers", sum(it["numbers"].values()))
        return 0
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
