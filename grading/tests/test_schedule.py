"""The driver's flow control (schedule.Grading.run_all), with the students' work stubbed:
a student waiting in the GPU timing line gives its place to the next one, so the builds and
correctness runs go on while the GPU times; the cap on students in flight still holds."""
import os
import sys
import threading
import time
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kitgrade.driver import schedule  # noqa: E402


def fake_ctx(slots):
    return types.SimpleNamespace(
        slots=slots, stop=threading.Event(), wf=object(), out="/nonexistent",
        cases=[], opts=types.SimpleNamespace(quiet=True, gpu_share=0),
        rub=types.SimpleNamespace(perf_one_process=False))


class Flight(schedule.Grading):
    """run_all with student() replaced: every student 'builds' at once, then waits in the
    line (giving its place back) until the test opens it."""

    def __init__(self, slots, jobs):
        super().__init__(fake_ctx(slots), [], [], jobs)
        self.started, self.open = [], threading.Event()
        self.most = 0
        self.inside = 0

    def know_objects(self):
        pass

    def reference(self):
        self.ref_ready.set()

    def student(self, st, i, give_back=None):
        with self.lock:
            self.started.append(st)
            self.inside += 1
            self.most = max(self.most, self.inside)
        if self.ctx.slots:
            give_back()                     # as timed() does on entering the line
        self.open.wait(10)
        with self.lock:
            self.inside -= 1


class RunAll(unittest.TestCase):
    def run_class(self, g, n):
        t = threading.Thread(target=g.run_all, args=(list(range(n)),), daemon=True)
        t.start()
        time.sleep(0.5)
        seen = len(g.started)
        g.open.set()
        t.join(20)
        self.assertFalse(t.is_alive())
        self.assertEqual(sorted(g.started), list(range(n)))
        return seen

    def test_line_gives_places_back(self):
        """With a GPU, 40 students all waiting in the line: every one of them has started
        (the 2 x jobs + 2 places are given back), up to the cap of 8 x jobs."""
        g = Flight(["0"], 2)
        self.assertEqual(self.run_class(g, 40), 16)
        self.assertEqual(g.most, 16)

    def test_no_line_no_give_back(self):
        """Without a GPU (no line) a student holds its place to the end: 2 x jobs + 2."""
        g = Flight([], 2)
        self.assertEqual(self.run_class(g, 40), 6)
        self.assertEqual(g.most, 6)


class Crash(Flight):
    """A student on whom the grader fails (its student() raises)."""

    def student(self, st, i, give_back=None):
        super().student(st, i, give_back)
        if st.name.startswith("bad"):
            raise RecursionError("maximum recursion depth exceeded \x1b]0;title\x07")


class OneStudentsFailure(unittest.TestCase):
    def test_the_class_goes_on(self):
        """The grader failing on one student stops no one else: that student is named, its
        traceback kept (no control byte), the grading not failed as a whole."""
        import io
        import tempfile
        from contextlib import redirect_stderr
        with tempfile.TemporaryDirectory() as out:
            g = Crash([], 2)
            g.ctx.out = out
            g.open.set()
            sts = [types.SimpleNamespace(name=n, id=n + "-id") for n in
                   ("ann", "bad\x1b[2Jbob", "cy", "dee")]
            err = io.StringIO()
            with redirect_stderr(err):
                g.run_all(sts)
            self.assertEqual(sorted(st.name for st in g.started), sorted(st.name for st in sts))
            self.assertIsNone(g.fatal)
            self.assertFalse(g.ctx.stop.is_set())
            self.assertEqual([st.id for st in g.crashed], ["bad\x1b[2Jbob-id"])
            with open(os.path.join(out, "internal-errors.txt"), encoding="utf-8") as f:
                text = f.read()
            self.assertIn("RecursionError", text)
            self.assertNotIn("\x1b", text)
            self.assertIn("internal error grading bad", err.getvalue())
            self.assertNotIn("\x1b", err.getvalue())


class GpuShare(unittest.TestCase):
    def test_default_share_is_the_jobs_at_most_16(self):
        """Correctness runs at once on one GPU: the --jobs count, at most 16 unless --gpu-share
        says (64 on one GPU each ran past the time limit on a 64-core host); each run's time
        limit counts its share of the GPU, up to that many times the limit."""
        self.assertEqual(Flight(["0"], 64).gpus.share, 16)
        self.assertEqual(Flight(["0"], 6).gpus.share, 6)
        ctx = fake_ctx(["0"])
        ctx.opts.gpu_share = 40
        g = schedule.Grading(ctx, [], [], 64)
        self.assertEqual(g.gpus.share, 40)
        r = types.SimpleNamespace(share=None, share_most=1)
        g._share_clock(r, "0")
        self.assertEqual((r.share(), r.share_most), (0, 40))
        with g.gpus.shared_use("0"):
            self.assertEqual(r.share(), 1)
        r = types.SimpleNamespace(share=None, share_most=1)
        g._share_clock(r, None)                 # no GPU: the wall clock
        self.assertIsNone(r.share)


if __name__ == "__main__":
    unittest.main()
