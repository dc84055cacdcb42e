#!/usr/bin/env python3
"""handout_sync.py - is a translated handout in step with the English one?

    handout_sync.py check README.md README.el.md [...]   exit 1 and one line per
                                                         missing or changed item
    handout_sync.py items README.md                      what would be compared

A translation keeps, from its English handout:
  - the headings: as many, at the same levels, in the same order, and the
    numbers in each (a step's number, a variant's v3) the same;
  - the questions: as many numbered items in the questions section (the
    second-level section at the same place as the English "Questions");
  - every fenced code block byte for byte, in the same order (commands);
  - every inline code span (`make check`, variant names, options), as often;
  - every number written in digits outside code (sizes, times, counts), as
    often, written the same way (a decimal point stays a point);
  - the generated figures block (between its markers) byte for byte;
  - a link to the glossary (docs/glossary.md) and to the English handout.
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
    """Numbered top-level items in the section_index-th second-level section."""
    count, n = 0, -1
    for line in prose:
        if line.startswith("## "):
            n += 1
            continue
        if n == section_index and re.match(r"^\d+\.\s", line):
            count += 1
    return count


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
    for line in prose:
        for m in SPAN.finditer(line):
            c[m.group(2).strip()] += 1
    return c


def numbers(prose):
    c = collections.Counter()
    for line in prose:
        if re.match(r"^#{1,6}\s", line):
            continue  # headings are compared on their own
        line = SPAN.sub(" ", line)
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
    }


def short(s, n=60):
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3] + "..."


def check(english, translated):
    """The lines that say what the translation lacks (empty: in step)."""
    en, tr = items(english), items(translated)
    name = translated
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
        if qe != qt:
            bad.append("%s: %d numbered questions, the English has %d" % (name, qt, qe))
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
    text = "\n".join(tr["prose"])
    if "docs/glossary.md" not in text:
        bad.append("%s: no link to the glossary (docs/glossary.md)" % name)
    if "(README.md)" not in text:
        bad.append("%s: no link to the English handout (README.md)" % name)
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
        print("questions", questions(it["prose"], qs) if qs is not None else 0)
        print("code spans", sum(it["spans"].values()), "numbers", sum(it["numbers"].values()))
        return 0
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
