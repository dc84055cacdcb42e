"""Every text a student or a roster controls, made safe where it is read.

Such a text is a folder name, a login, a compiler message, a file's content. A character
that is not printable (str.isprintable) is a control character (C0, DEL, C1) or an invisible
format character such as a bidirectional override. cell follows OWASP's advice on CSV
injection.
"""
import json
import re

_MD_SPECIAL = re.compile(r"([\\`*_\[\]#~!|{}])")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z")
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def clean(s, repl=" ", keep=""):
    """S as text with every character that is not printable (tabs and newlines too, but
    those in KEEP) replaced by REPL."""
    return "".join(c if c.isprintable() or c in keep else repl for c in str(s))


def one_line(s, n=600):
    """S cleaned, its runs of spaces made one, cut to N characters."""
    s = " ".join(clean(s).split())
    return s if len(s) <= n else s[:n - 3] + "..."


def term(msg):
    """A message for the terminal: each of its lines cleaned (no escape sequence, no
    carriage return, no bell), the lines kept."""
    return "\n".join(clean(ln) for ln in str(msg).split("\n"))


def cell(x):
    """A CSV or TSV cell: a number as it is; a text cleaned, and with an apostrophe before
    it when a spreadsheet would take it as a formula."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return str(x)
    s = str(x)
    if _NUMBER.match(s):
        return s
    formula = s.startswith(FORMULA) or clean(s).lstrip().startswith(FORMULA)
    s = clean(s)
    return "'" + s if formula else s


def json_text(obj, **kw):
    """json.dumps(OBJ, ensure_ascii=False, **KW) with every character that is not printable,
    but the layout's newlines, written as its \\u escape."""
    text = json.dumps(obj, ensure_ascii=False, **kw)
    return "".join(c if c.isprintable() or c == "\n" else json.dumps(c)[1:-1] for c in text)


def md(s, limit=None):
    """Inline text for Markdown that renders as written and never as HTML, a link or a
    table cell's end."""
    s = clean(s)
    if limit and len(s) > limit:
        s = s[:limit - 3] + "..."
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    s = s.replace("://", ":\\/\\/").replace("www.", "www\\.")
    return s


def block(text, max_lines=20, max_chars=4000):
    """A fenced code block no content can close (its fence is longer than any run of
    backticks in it); control characters other than tabs go."""
    text = text[:max_chars]
    lines = [clean(ln, keep="\t") for ln in text.splitlines()[:max_lines]]
    f = fence("\n".join(lines))
    return "%s text\n%s\n%s\n" % (f, "\n".join(lines), f)


def fence(text):
    """A Markdown code fence TEXT cannot close: more backticks than its longest run (3 at
    least)."""
    return "`" * max(3, max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)


def gp_string(s):
    """A gnuplot single-quoted string (nothing in it is interpreted but '')."""
    return "'" + clean(s).replace("'", "''") + "'"


# where a student's file is named in a message (__FILE__: "FILE:LINE:"): in a box's src/ (its
# own, or the reference's for a file with the reference's bytes: lab/objcache.py) or in a lab
# folder. A match starts only where a path does (after a space, a quote, a bracket, = or a
# comma), so that the search stays linear in the line whatever a student prints.
_SOURCE_AT = re.compile(r"(?<![^\s'\"(\[=,])/(?:[^/\s:'\"]+/)*?(?:src|labs/\d\d_[A-Za-z0-9_]+)/"
                        r"(?=[^/\s:'\"]+:\d)")


def source_names(line):
    """LINE with each path to a student's file cut to the file's name (conv.cu:240), so that
    a message reads the same whichever build compiled the file and wherever its box was."""
    return _SOURCE_AT.sub("", line)
