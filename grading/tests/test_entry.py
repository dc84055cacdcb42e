"""grading/grade's entry (entry.py) without a class: --help, bad usage, --merge-only on an OUT
with no grading, and the words for the sandbox (the whole grading runs in test_e2e.py)."""
import contextlib
import io
import os
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kitgrade.cmdline import entry  # noqa: E402


def call(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = entry.main(argv)
    return rc, out.getvalue(), err.getvalue()


class Entry(unittest.TestCase):
    def test_help(self):
        rc, out, err = call(["--help"])
        self.assertEqual(rc, 0)
        self.assertIn("--submissions", out)
        self.assertEqual(err, "")

    def test_bad_usage_one_line(self):
        rc, out, err = call(["--no-such-option"])
        self.assertEqual(rc, 2)
        self.assertEqual(out, "")
        self.assertEqual(len(err.splitlines()), 1)

    def test_merge_only_needs_a_grading(self):
        with tempfile.TemporaryDirectory() as d:
            rc, _out, err = call(["--lab", "01", "--submissions", d, "--out",
                                  os.path.join(d, "out"), "--merge-only"])
        self.assertEqual(rc, 2)
        self.assertIn("holds no grading", err)

    def test_sandbox_words(self):
        ctx = types.SimpleNamespace(sandbox=types.SimpleNamespace(kind="bwrap"), notes=["x"])
        self.assertEqual(entry.sandbox_words(ctx, "auto"), ("bwrap", ""))
        none = types.SimpleNamespace(kind="none")
        ctx = types.SimpleNamespace(sandbox=none, notes=["no sandbox here: why", "y"])
        self.assertEqual(entry.sandbox_words(ctx, "auto"), ("none", "no sandbox here: why"))
        self.assertEqual(ctx.notes, ["y"])      # the warning leaves the notes
        kind, note = entry.sandbox_words(types.SimpleNamespace(sandbox=none, notes=[]), "none")
        self.assertEqual(kind, "none")
        self.assertTrue(note.startswith("no sandbox (--sandbox none): "))



class KitCommit(unittest.TestCase):
    """summary.md's kit-commit: $KIT_COMMIT where set (a copied tree whose .git is another
    commit's), a hash only; else git's HEAD of the kit."""

    def test_given_or_git(self):
        from kitgrade.driver import setup
        old = os.environ.pop("KIT_COMMIT", None)
        try:
            with tempfile.TemporaryDirectory() as d:
                self.assertEqual(setup._commit(d), "unknown")          # no git there
                os.environ["KIT_COMMIT"] = "C68B76C"
                self.assertEqual(setup._commit(d), "c68b76c")
                os.environ["KIT_COMMIT"] = "c68b76c; rm -rf /\x1b[2J"
                self.assertEqual(setup._commit(d), "unknown")          # not a hash: ignored
        finally:
            os.environ.pop("KIT_COMMIT", None)
            if old is not None:
                os.environ["KIT_COMMIT"] = old

class TheClass(unittest.TestCase):
    def test_a_record_under_an_id_another_folder_took_is_not_kept(self):
        """Resuming: a folder named like another student's earlier id (Zoë's Zo_-c6a12698)
        takes that id; the record there is Zoë's, so the folder is graded anew and Zoë's
        record (her report) is not left in its place; a record of the same name is kept."""
        import json
        from kitgrade.driver import outputs
        from kitgrade.lab.names import Student
        out = tempfile.mkdtemp()
        for sid, name in (("Zo_-c6a12698", "Zo\u00eb"), ("bob", "bob")):
            os.makedirs(os.path.join(out, "students", sid))
            with open(os.path.join(out, "students", sid, "results.json"), "w") as f:
                json.dump({"student": name, "status": "ok"}, f)
        impostor, bob = Student("Zo_-c6a12698", "Zo_-c6a12698", "/x"), Student("bob", "bob", "/y")
        wf = types.SimpleNamespace(scan=lambda subs: ([impostor, bob], []), only=None,
                                   select=lambda students, todo: todo)
        ctx = types.SimpleNamespace(opts=types.SimpleNamespace(force=False, slurm=types.SimpleNamespace(shard=None)),
                                    wf=wf, out=out)
        _students, _skipped, todo = outputs.the_class(ctx, "/subs")
        self.assertEqual([s.name for s in todo], ["Zo_-c6a12698"])
        self.assertFalse(os.path.exists(os.path.join(out, "students", "Zo_-c6a12698")))
        self.assertTrue(os.path.exists(os.path.join(out, "students", "bob", "results.json")))

if __name__ == "__main__":
    unittest.main()


class StaleWork(unittest.TestCase):
    """The work folder a killed grading left in the temporary folder (setup.clear_stale_work):
    removed by the next grading of its OUT, unless a grading still holds it."""

    def test_removed_only_when_no_grading_holds_it(self):
        from kitgrade.driver import setup
        with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as out:
            old = tempfile.tempdir
            tempfile.tempdir = tmp
            try:
                def left(live):
                    priv = tempfile.mkdtemp(prefix="kitgrade-")
                    with open(os.path.join(priv, setup.ALIVE), "w"):
                        pass
                    with open(os.path.join(out, setup.WORK_NOTE), "w") as f:
                        f.write(priv + "\n")
                    if live:
                        setup.hold_work(priv)
                    return priv
                live = left(True)
                setup.clear_stale_work(out)
                self.assertTrue(os.path.isdir(live))          # its grading holds it
                dead = left(False)
                setup.clear_stale_work(out)
                self.assertFalse(os.path.exists(dead))
                # a note naming a folder outside the temporary folder, or not the grader's name
                for p in ("/etc", os.path.join(tmp, "other")):
                    os.makedirs(p, exist_ok=True)
                    with open(os.path.join(out, setup.WORK_NOTE), "w") as f:
                        f.write(p + "\n")
                    setup.clear_stale_work(out)
                    self.assertTrue(os.path.isdir(p))
            finally:
                tempfile.tempdir = old
                for fd in setup._HELD:
                    os.close(fd)
                del setup._HELD[:]
