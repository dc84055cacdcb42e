"""kitgrade's imports go one way (grading/README.md, "Why Python, and the parts"): read with ast,
every import of the package is checked against the layer order that kitgrade/__init__.py writes
once (LAYERS, the command line first, the mechanisms last). A module may import its own
subpackage's modules and those of the layers below; no import runs back up, no two modules or
subpackages import each other round a loop, and no import hides inside a function body (where
it would dodge a loop instead of breaking it)."""
import ast
import os
import shutil
import tempfile
import unittest

KITGRADE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kitgrade")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def layers(root):
    """The LAYERS tuple of ROOT/__init__.py, read without importing it."""
    tree = ast.parse(read(os.path.join(root, "__init__.py")))
    for n in tree.body:
        if isinstance(n, ast.Assign) and [getattr(t, "id", None) for t in n.targets] == ["LAYERS"]:
            return tuple(ast.literal_eval(n.value))
    raise AssertionError("%s/__init__.py has no LAYERS" % root)


def modules(root, name="kitgrade"):
    """{dotted module name: file} of the package at ROOT (a package's own name is its
    __init__.py)."""
    found = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        rel = os.path.relpath(d, root)
        pkg = name if rel == "." else name + "." + rel.replace(os.sep, ".")
        for f in sorted(files):
            if f.endswith(".py"):
                found[pkg if f == "__init__.py" else pkg + "." + f[:-3]] = os.path.join(d, f)
    return found


def _in_function(tree):
    """{id(node)} of every node inside a function or lambda body."""
    inside = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for m in ast.walk(n):
                if m is not n:
                    inside.add(id(m))
    return inside


def imports(mods, name="kitgrade"):
    """(edges, problems): edges {module: set of the package's modules it imports}; problems:
    the imports inside a function body and the dynamic ones (__import__, importlib)."""
    edges, problems = {}, []
    for mod, path in mods.items():
        tree = ast.parse(read(path), path)
        inside = _in_function(tree)
        is_pkg = path.endswith("__init__.py")
        here = mod.split(".") if is_pkg else mod.split(".")[:-1]
        out = edges.setdefault(mod, set())
        for n in ast.walk(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) in inside:
                problems.append("%s:%d: an import inside a function" % (mod, n.lineno))
            if isinstance(n, ast.Call):
                f = n.func
                fname = getattr(f, "id", None) or getattr(f, "attr", None)
                if fname in ("__import__", "import_module"):
                    problems.append("%s:%d: a dynamic import (%s)" % (mod, n.lineno, fname))
            targets = []
            if isinstance(n, ast.Import):
                targets = [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = here[:len(here) - (n.level - 1)]
                    src = ".".join(base + ([n.module] if n.module else []))
                else:
                    src = n.module or ""
                # `from PKG import mod`: an edge to the module; else to what it comes from
                for a in n.names:
                    sub = src + "." + a.name
                    targets.append(sub if sub in mods else src)
            for t in targets:
                if t == name or t.startswith(name + "."):
                    while t not in mods and "." in t:    # `import kitgrade.x.y` names y's module
                        t = t.rsplit(".", 1)[0]
                    if t != mod:
                        out.add(t)
    return edges, problems


def cycles(edges):
    """The strongly connected groups of more than one node (Tarjan), each sorted."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1 or v in edges.get(v, ()):
                found.append(sorted(group))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def subpackage(mod, mods):
    """The subpackage MOD is in or is ('' for the package itself and its top-level modules)."""
    parts = mod.split(".")
    if len(parts) >= 3 or (len(parts) == 2 and mods[mod].endswith("__init__.py")):
        return parts[1]
    return ""


def check(root, name="kitgrade"):
    """Every breach of the rules in the package at ROOT, one line each (empty: none)."""
    order = layers(root)
    mods = modules(root, name)
    edges, problems = imports(mods, name)
    rank = {s: i for i, s in enumerate(order)}
    subs = {subpackage(m, mods) for m in mods} - {""}
    for s in sorted(subs - set(rank)):
        problems.append("subpackage %s is not in LAYERS" % s)
    for s in sorted(set(rank) - subs):
        problems.append("LAYERS names %s, which is not a subpackage" % s)
    for a in sorted(edges):
        for b in sorted(edges[a]):
            sa, sb = subpackage(a, mods), subpackage(b, mods)
            if sa == "":
                continue                                # __main__: above every layer
            if sb == "":
                problems.append("%s imports %s, the package's top" % (a, b))
            elif sa in rank and sb in rank and rank[sb] < rank[sa]:
                problems.append("%s (layer %s) imports %s of a higher layer (%s)" % (a, sa, b, sb))
    for group in cycles(edges):
        problems.append("an import loop between modules: %s" % " -> ".join(group))
    pkg_edges = {}
    for a, bs in edges.items():
        for b in bs:
            sa, sb = subpackage(a, mods), subpackage(b, mods)
            if sa and sb and sa != sb:
                pkg_edges.setdefault(sa, set()).add(sb)
    for group in cycles(pkg_edges):
        problems.append("an import loop between subpackages: %s" % " -> ".join(group))
    return problems


class Layers(unittest.TestCase):
    def test_kitgrade_imports_go_one_way(self):
        self.assertEqual(check(KITGRADE), [])

    def test_every_module_is_found(self):
        mods = modules(KITGRADE)
        self.assertIn("kitgrade.box.sandbox", mods)
        self.assertIn("kitgrade.cmdline.entry", mods)
        self.assertGreater(len(mods), 50)
        edges, _ = imports(mods)
        self.assertIn("kitgrade.box.sandbox", edges["kitgrade.driver.setup"])   # `from ..box.sandbox`
        self.assertIn("kitgrade.base.fsutil", edges["kitgrade.driver.setup"])   # `from ..base import`

    def test_every_subpackage_has_a_layer_and_a_docstring(self):
        for s in layers(KITGRADE):
            init = os.path.join(KITGRADE, s, "__init__.py")
            self.assertTrue(os.path.isfile(init), s)
            self.assertTrue(ast.get_docstring(ast.parse(read(init))), s)


class Breaches(unittest.TestCase):
    """The check finds each breach in a made-up package."""

    def package(self, files):
        root = tempfile.mkdtemp(prefix="kitgrade-layers-")
        self.addCleanup(shutil.rmtree, root)
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return root

    def files(self, **extra):
        base = {"__init__.py": 'LAYERS = ("top", "low")\n', "top/__init__.py": '"""t"""\n',
                "low/__init__.py": '"""l"""\n', "top/a.py": "from ..low import b\n",
                "low/b.py": "import os\n", "low/c.py": "from . import b\n"}
        base.update(extra)
        return base

    def test_a_clean_package(self):
        self.assertEqual(check(self.package(self.files())), [])

    def test_an_import_back_up(self):
        got = check(self.package(self.files(**{"low/c.py": "from ..top import a\n",
                                                "top/a.py": "import os\n"})))
        self.assertEqual(got, ["kitgrade.low.c (layer low) imports kitgrade.top.a of a higher "
                               "layer (top)"])

    def test_a_loop_in_one_subpackage(self):
        got = check(self.package(self.files(**{"low/b.py": "from .c import x\n"})))
        self.assertEqual(got, ["an import loop between modules: kitgrade.low.b -> kitgrade.low.c"])

    def test_an_import_in_a_function(self):
        got = check(self.package(self.files(**{"low/b.py": "def f():\n    import os\n"})))
        self.assertEqual(got, ["kitgrade.low.b:2: an import inside a function"])

    def test_a_dynamic_import(self):
        got = check(self.package(self.files(**{"low/b.py": "m = __import__('os')\n"})))
        self.assertEqual(got, ["kitgrade.low.b:1: a dynamic import (__import__)"])

    def test_a_subpackage_without_a_layer(self):
        got = check(self.package(self.files(**{"mid/__init__.py": ""})))
        self.assertEqual(got, ["subpackage mid is not in LAYERS"])

    def test_a_loop_between_subpackages(self):
        # both subpackages in one layer would hide it from the layer rule; the loop still shows
        got = check(self.package(self.files(**{
            "__init__.py": 'LAYERS = ("top", "low")\n', "low/c.py": "from ..top import a\n",
            "top/a.py": "from ..low import b\n"})))
        self.assertIn("an import loop between subpackages: low -> top", got)


if __name__ == "__main__":
    unittest.main()
