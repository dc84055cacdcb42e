"""grading/README.md's package map is the one grading/tools/packagemap.py makes from the
docstrings: every subpackage of kitgrade and every module in it, in the layer order, each with
the first line of its docstring."""
import os
import shutil
import subprocess
import sys
import unittest

import util

GRADING = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(GRADING, "tools", "packagemap.py")
sys.path.insert(0, os.path.dirname(TOOL))
import packagemap  # noqa: E402


def tool(*args):
    return subprocess.run([sys.executable, TOOL] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)


class PackageMap(util.TempCase):
    def test_readme_is_current(self):
        p = tool("--check")
        self.assertEqual((p.returncode, p.stderr), (0, ""))

    def test_every_module_has_a_row_and_a_job(self):
        rows = packagemap.table().splitlines()[2:]
        kit = os.path.join(GRADING, "kitgrade")
        mods = sorted(os.path.relpath(os.path.join(d, f), kit) for d, _, fs in os.walk(kit)
                      for f in fs if f.endswith(".py") and f != "__init__.py" and d != kit)
        self.assertEqual(sorted(r.split("`")[1] for r in rows if not r.startswith("| **")), mods)
        for r in rows:
            self.assertRegex(r, r"[.)]\**\s*\|$", r)     # a job, in a whole sentence

    def test_a_stale_map_is_found_and_made_again(self):
        readme = os.path.join(self.tmp, "README.md")
        shutil.copy(os.path.join(GRADING, "README.md"), readme)
        with open(readme) as f:
            text = f.read()
        with open(readme, "w") as f:
            f.write(text.replace("| `box/sandbox.py` |", "| `box/sandbox.py` | old words", 1))
        p = tool("--check", readme)
        self.assertEqual(p.returncode, 1)
        self.assertIn("the package map differs from the docstrings", p.stderr)
        self.assertEqual(tool(readme).returncode, 0)
        with open(readme) as f:
            self.assertEqual(f.read(), text)
        self.assertEqual(tool("--check", readme).returncode, 0)

    def test_bad_use(self):
        readme = os.path.join(self.tmp, "README.md")
        with open(readme, "w") as f:
            f.write("# no markers\n")
        p = tool("--check", readme)
        self.assertEqual(p.returncode, 2)
        self.assertIn("needs the lines", p.stderr)
        self.assertEqual(tool("--bogus").returncode, 2)


if __name__ == "__main__":
    unittest.main()
