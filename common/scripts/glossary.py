#!/usr/bin/env python3
"""glossary.py - the course's terms in English and in the handouts' languages (docs/glossary.md).

    glossary.py render [--check]   write docs/glossary.md from docs/glossary/terms.txt and every
                                   docs/glossary/LANG.tsv there is; --check writes nothing and
                                   exits 1 when docs/glossary.md differs from that rendering
    glossary.py langs              the handouts' languages, one a line: its code (el, ru, it,
                                   hu), a tab, its name in English

render's other options: --root DIR (the kit; default the one holding this script), --labs
"labs/01_x labs/02_y" (the labs the page links back to; default every lab), --lang CODE (the
page for a student copy whose labs/NN/README.md is the CODE handout and README.en.md the
English one, as make dist-student LANG=CODE ships them), --out FILE (instead of
docs/glossary.md).

terms.txt: one English term a line, '#' starts a comment line. LANG.tsv: one line per term of
terms.txt, in its order: the term, a tab, its translation; no header, UTF-8. A term missing,
one that terms.txt lacks, one out of order or twice, a line that is not two fields: exit 1 and
a line naming each, nothing written. Bad use: one line and exit 2.
"""
import argparse
import os
import sys

# the handouts' languages: code, the language's own name, its name in English
LANGS = (("el", "Ελληνικά", "Greek"), ("ru", "Русский", "Russian"),
         ("it", "Italiano", "Italian"), ("hu", "Magyar", "Hungarian"))
CODES = tuple(code for code, _, _ in LANGS)
KIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TERMS = os.path.join("docs", "glossary", "terms.txt")
PAGE = os.path.join("docs", "glossary.md")


class Problems(Exception):
    """What is wrong with the glossary's sources, one line each."""


def read_text(root, rel, bad):
    try:
        with open(os.path.join(root, rel), "rb") as f:
            data = f.read()
    except OSError as e:
        bad.append("%s: cannot be read (%s)" % (rel, e.strerror))
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        bad.append("%s: not UTF-8 text (byte %d)" % (rel, e.start))
        return None


def read_terms(root, bad):
    text = read_text(root, TERMS, bad)
    if text is None:
        return []
    terms, seen = [], {}
    for n, line in enumerate(text.split("\n"), 1):
        t = line.strip()
        if not t or t.startswith("#"):
            continue
        if "\t" in t or "|" in t:
            bad.append("%s line %d: a term holds a tab or a '|'" % (TERMS, n))
        elif t in seen:
            bad.append("%s line %d: '%s' a second time (line %d)" % (TERMS, n, t, seen[t]))
        else:
            seen[t] = n
            terms.append(t)
    if not terms and text is not None:
        bad.append("%s: no term" % TERMS)
    return terms


def read_tsv(root, code, terms, bad):
    """{term: translation} of docs/glossary/CODE.tsv, each problem appended to bad."""
    rel = os.path.join("docs", "glossary", code + ".tsv")
    text = read_text(root, rel, bad)
    if text is None:
        return {}
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()     # the newline that ends the last line
    known = set(terms)
    out, where, order = {}, {}, []
    for n, line in enumerate(lines, 1):
        fields = line.split("\t")
        if len(fields) != 2:
            bad.append("%s line %d: not 'term<TAB>translation' (%d tab%s): %s" % (
                rel, n, len(fields) - 1, "" if len(fields) == 2 else "s", short(line)))
            continue
        en, tr = fields
        if "\r" in line:
            bad.append("%s line %d: a carriage return (write the file with plain newlines)" % (rel, n))
            continue
        if not en.strip() or not tr.strip():
            bad.append("%s line %d: an empty field: %s" % (rel, n, short(line)))
            continue
        if en != en.strip() or tr != tr.strip():
            bad.append("%s line %d: spaces around a field: %s" % (rel, n, short(line)))
            continue
        if en not in known:
            bad.append("%s line %d: '%s' is not a term of %s" % (rel, n, short(en), TERMS))
            continue
        if en in out:
            bad.append("%s line %d: '%s' a second time (line %d)" % (rel, n, en, where[en]))
            continue
        out[en], where[en] = tr, n
        order.append(en)
    for t in terms:
        if t not in out:
            bad.append("%s: the term '%s' is missing" % (rel, t))
    # the terms it has, in terms.txt's order
    want = [t for t in terms if t in out]
    for k, (have, should) in enumerate(zip(order, want)):
        if have != should:
            bad.append("%s line %d: '%s' is out of order: %s has '%s' here" % (
                rel, where[have], have, TERMS, should))
            break
    return out


def short(s, n=60):
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3] + "..."


def cell(s):
    return s.replace("|", "\\|")


def label(s):
    """A link's text: a table cell's, with its brackets escaped."""
    return cell(s).replace("[", "\\[").replace("]", "\\]")


def all_labs(root):
    folder = os.path.join(root, "labs")
    names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    return ["labs/" + d for d in names
            if len(d) > 3 and d[:2].isdigit() and d[2] == "_"
            and os.path.isfile(os.path.join(folder, d, "Makefile"))]


def title(root, lab, name, bad):
    path = os.path.join(root, lab, name)
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline().rstrip("\n")
    except (OSError, UnicodeDecodeError):
        bad.append("%s/%s: missing or not UTF-8 text" % (lab, name))
        return lab
    return first.lstrip("#").strip() or os.path.basename(lab)


def rendering(root, labs, lang, bad):
    terms = read_terms(root, bad)
    present = [l for l in LANGS if os.path.isfile(os.path.join(root, "docs", "glossary", l[0] + ".tsv"))]
    extra = sorted(f for f in os.listdir(os.path.join(root, "docs", "glossary"))
                   if f.endswith(".tsv") and f[:-4] not in CODES) \
        if os.path.isdir(os.path.join(root, "docs", "glossary")) else []
    for f in extra:
        bad.append("docs/glossary/%s: %s is not one of the handouts' languages (%s)" % (
            f, f[:-4], ", ".join(CODES)))
    tables = {code: read_tsv(root, code, terms, bad) for code, _, _ in present}
    if lang and lang not in tables:
        bad.append("docs/glossary/%s.tsv: missing (the page for a copy in that language needs it)" % lang)
    out = ["# Glossary: the course's terms", "",
           "<!-- generated from docs/glossary/terms.txt and docs/glossary/LANG.tsv by `make glossary`"
           " (common/scripts/glossary.py); edit those, not this -->", ""]
    names = [english for _, _, english in present]
    langs = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] if names else ""
    if lang:
        own = [english for code, _, english in LANGS if code == lang][0]
        out.append("In this copy of the kit, each lab's handout is its `README.md`, in %s, with the English "
                   "one beside it (`README.en.md`). The handout links here under its title." % own)
    elif present:
        out.append("Each lab's handout is its `README.md`, in English, with its translations beside it: %s. "
                   "Every translation links here under its title." % ", ".join(
                       "`README.%s.md` (%s)" % (c, e) for c, _, e in present))
    else:
        out.append("Each lab's handout is its `README.md`, in English.")
    if present:
        out.append("This page gives each of the course's terms in English and in %s: the words the "
                   "translated handouts use for them, one word for a term throughout, and the English "
                   "word where that language's GPU courses keep it." % langs)
    else:
        out.append("This page lists the course's terms; their translations are not written yet.")
    out += ["", "## The labs", "", "Back to the handouts:", ""]
    for lab in labs:
        if lang:
            out.append("- [%s](../%s/README.md) · [English](../%s/README.en.md)" % (
                label(title(root, lab, "README.%s.md" % lang, bad)), lab, lab))
        else:
            links = ["[%s](../%s/README.md)" % (label(title(root, lab, "README.md", bad)), lab)]
            links += ["[%s](../%s/README.%s.md)" % (own_name, lab, code) for code, own_name, _ in present]
            out.append("- " + " · ".join(links))
    out += ["", "## The terms", ""]
    out.append("| " + " | ".join(["English"] + [own_name for _, own_name, _ in present]) + " |")
    out.append("|---|" + "---|" * len(present))
    for t in terms:
        out.append("| " + " | ".join([cell(t)] + [cell(tables[c].get(t, "")) for c, _, _ in present]) + " |")
    return "\n".join(out) + "\n"


def render(a):
    root = os.path.abspath(a.root)
    if not os.path.isfile(os.path.join(root, TERMS)):
        print("glossary: %s has no %s" % (a.root, TERMS), file=sys.stderr)
        return 2
    if a.lang is not None and a.lang not in CODES:
        print("glossary: --lang %s: not one of the handouts' languages (%s)" % (a.lang, ", ".join(CODES)),
              file=sys.stderr)
        return 2
    labs = a.labs.split() if a.labs is not None else all_labs(root)
    for lab in labs:
        if not os.path.isdir(os.path.join(root, lab)):
            print("glossary: --labs: there is no folder %s" % lab, file=sys.stderr)
            return 2
    bad = []
    text = rendering(root, labs, a.lang, bad)
    if bad:
        for line in bad:
            print("glossary: " + line)
        return 1
    path = a.out or os.path.join(root, PAGE)
    if a.check:
        try:
            with open(path, encoding="utf-8") as f:
                old = f.read()
        except (OSError, UnicodeDecodeError):
            old = None
        if old is None:
            print("glossary: %s is missing (make glossary writes it)" % (a.out or PAGE))
            return 1
        if old != text:
            first = next((k for k, (x, y) in enumerate(zip(old.split("\n"), text.split("\n"))) if x != y),
                         min(old.count("\n"), text.count("\n")))
            print("glossary: %s differs from its rendering from the glossary's sources, first at line %d "
                  "(make glossary writes it)" % (a.out or PAGE, first + 1))
            return 1
        return 0
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return 0


class Parser(argparse.ArgumentParser):
    def error(self, message):
        print("glossary: %s (glossary.py render [--check] | glossary.py langs)" % message, file=sys.stderr)
        sys.exit(2)


def main(argv):
    p = Parser(prog="glossary.py", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=Parser)
    r = sub.add_parser("render")
    r.add_argument("--check", action="store_true")
    r.add_argument("--root", default=KIT)
    r.add_argument("--labs")
    r.add_argument("--lang")
    r.add_argument("--out")
    sub.add_parser("langs")
    a = p.parse_args(argv)
    if a.cmd == "langs":
        print("\n".join("%s\t%s" % (code, english) for code, _, english in LANGS))
        return 0
    return render(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
