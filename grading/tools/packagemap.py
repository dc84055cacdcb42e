#!/usr/bin/env python3
"""packagemap - grading/README.md's map of the grader's package, made from its docstrings.

  grading/tools/packagemap.py [--check] [README]

Writes, between README's two marker lines, one table row per subpackage of grading/kitgrade (in
the layer order of kitgrade/__init__.py's LAYERS) and per module in it, each with the first line
of its docstring. --check writes nothing: exit 1, with one line, when README's map differs.
Python 3.8+, standard library only; kitgrade is read with ast, never imported."""
import ast
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KITGRADE = os.path.join(os.path.dirname(HERE), "kitgrade")
README = os.path.join(os.path.dirname(HERE), "README.md")
BEGIN = "<!-- package map: made by grading/tools/packagemap.py from the docstrings -->"
END = "<!-- end of the package map -->"


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def first_line(path):
    """The first line of PATH's docstring ('' when it has none)."""
    doc = ast.get_docstring(ast.parse(_read(path), path)) or ""
    return doc.strip().split("\n")[0].strip()


def layers(root):
    for n in ast.parse(_read(os.path.join(root, "__init__.py"))).body:
        if isinstance(n, ast.Assign) and [getattr(t, "id", None) for t in n.targets] == ["LAYERS"]:
            return tuple(ast.literal_eval(n.value))
    raise ValueError("%s/__init__.py has no LAYERS" % root)


def cell(text):
    return text.replace("|", "\\|")


def table(root=KITGRADE):
    """The map: a Markdown table, top layer first, a subpackage's modules after it."""
    rows = ["| part | job |", "|---|---|"]
    for sub in layers(root):
        d = os.path.join(root, sub)
        job = first_line(os.path.join(d, "__init__.py"))
        rows.append("| **`%s/`** | **%s** |" % (sub, cell(job)))
        for f in sorted(os.listdir(d)):
            if f.endswith(".py") and f != "__init__.py":
                rows.append("| `%s/%s` | %s |" % (sub, f, cell(first_line(os.path.join(d, f)))))
    return "\n".join(rows) + "\n"


def with_map(text, root=KITGRADE):
    """TEXT (a README) with its map made again; ValueError when the markers are not there once
    each, in order."""
    if text.count(BEGIN + "\n") != 1 or text.count(END + "\n") != 1:
        raise ValueError("needs the lines %s and %s once each" % (BEGIN, END))
    head, rest = text.split(BEGIN + "\n")
    if END + "\n" not in rest:
        raise ValueError("the end marker comes before the start marker")
    return head + BEGIN + "\n" + table(root) + END + "\n" + rest.split(END + "\n")[1]


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        sys.stderr.write("usage: packagemap.py [--check] [README]\n")
        return 2
    path = args[0] if args else README
    try:
        text = _read(path)
        new = with_map(text)
    except (OSError, ValueError, SyntaxError) as e:
        sys.stderr.write("packagemap: %s: %s\n" % (path, e))
        return 2
    if check:
        if new != text:
            sys.stderr.write("packagemap: %s: the package map differs from the docstrings "
                             "(run grading/tools/packagemap.py)\n" % path)
            return 1
        return 0
    if new != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
