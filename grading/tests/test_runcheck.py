"""runcheck.py alone: the checks of one timed run, without a grading around them (a run, a box
and a checker of the test's own)."""
import types
import unittest
from unittest import mock

import util  # noqa: F401
from kitgrade.runs import runcheck
from kitgrade.runs.check import Verdict


class Box:
    """Outputs by path; a missing one reads as a link (tampered)."""

    def __init__(self, files):
        self.files, self.read = files, []

    def read_file(self, rel, cap):
        self.read.append(rel)
        if rel in self.files:
            return self.files[rel], ""
        return None, "a symbolic link"


class Checks(runcheck.RunChecks):
    def __init__(self, gpu):
        self.ctx = types.SimpleNamespace(lab=types.SimpleNamespace(gpu=gpu), checker="chk",
                                         checks_off={("v2", "impossible-time")},
                                         max_output=lambda c, v: 1 << 20,
                                         tol=lambda n: None)
        self.cpus, self.check_cpus = [3], None


def reps(n):
    return [types.SimpleNamespace(k=k, key="%016x" % (100 + k)) for k in range(1, n + 1)]


CASE = types.SimpleNamespace(name="perf1", part="", args=["--size", "8x8"])


class RunCheck(unittest.TestCase):
    def test_key_int(self):
        self.assertEqual(runcheck._key_int("ff"), 255)
        self.assertEqual(runcheck._key_int("0xFF"), 255)
        self.assertEqual(runcheck._key_int("zz"), -1)

    def test_off(self):
        c = Checks(False)
        self.assertTrue(c.off("v2", "impossible-time"))
        self.assertFalse(c.off("v2", "replayed"))

    def picked(self, gpu, n=10, verdict="pass", files=True):
        c = Checks(gpu)
        box = Box({"d/v2.r%d.bin" % k: b"x" for k in range(1, n + 1)} if files else {})
        run = types.SimpleNamespace(box=box, rel={("perf1", 2): "d"})
        vc = runcheck.VarCheck()
        with mock.patch.object(runcheck.check, "compare",
                               return_value=Verdict(verdict, "3 of 64 values wrong")) as cmp:
            why = c.check_reps(run, CASE, 2, reps(n), vc)
        return why, vc, cmp

    def test_the_last_repetition_and_others_picked_after_the_run(self):
        why, vc, cmp = self.picked(gpu=False)
        self.assertIsNone(why)
        self.assertEqual(len(vc.checked), 3)            # CPU: the last and two others
        self.assertIn(10, vc.checked)
        keys = sorted(call.args[3] for call in cmp.call_args_list)
        self.assertEqual(keys, sorted(100 + k for k in vc.checked))   # each with its own key
        self.assertTrue(all(call.kwargs["cpus"] == [3] for call in cmp.call_args_list))
        why, vc, _ = self.picked(gpu=True)
        self.assertEqual(len(vc.checked), 2)            # GPU: the last and one other
        self.assertIn(10, vc.checked)

    def test_a_wrong_or_missing_output(self):
        why, _vc, _ = self.picked(gpu=False, verdict="wrong")
        self.assertEqual(why[0], "replayed")
        self.assertIn("3 of 64 values wrong", why[1])
        why, _vc, _ = self.picked(gpu=False, files=False)
        self.assertEqual(why[0], "forbidden")

    def test_a_variant_that_reported_an_error_names_the_runs_first_error(self):
        """A timed run's variant with status error: the reason quotes the run's first error
        line from its log (one line, control bytes gone), or none where the log is empty."""
        import os
        import tempfile
        c = Checks(True)
        c.ctx.info = types.SimpleNamespace(variant=lambda part, v: None)
        c.ctx.clock = "gpu"
        c.ctx.rub = types.SimpleNamespace(perf_one_process=False)
        with tempfile.TemporaryDirectory() as tmp:
            err = os.path.join(tmp, "time-student-p1.err")
            with open(err, "w") as f:
                f.write("\nlab07: cudaMallocManaged: out of memory\x1b[2J\nsecond line\n")
            res = types.SimpleNamespace(rc=3, cpu_ms=1.0, wall_ms=1.0, breach=None, signal=None)
            run = types.SimpleNamespace(descs={("perf1", 3): types.SimpleNamespace(status="error")},
                                        res=res, errfile=err, rel={})
            vc = c.verify(run, CASE, 3, False)
            self.assertEqual(vc.status, "runtime-error")
            self.assertIn("exit 3; the run's first error: lab07: cudaMallocManaged: out of memory",
                          vc.reason)
            self.assertNotIn("\x1b", vc.reason)
            self.assertNotIn("second line", vc.reason)
            # one run of several variants: the line naming this variant's outputs, if any
            with open(err, "w") as f:
                f.write("lab07: cannot write time/x-perf1/v2.r1.bin: No space left\n"
                        "lab07: cannot write time/x-perf1/v3.r4.bin: No space left\n")
            run.rel = {("perf1", 3): "time/x-perf1"}
            vc = c.verify(run, CASE, 3, False)
            self.assertIn("first error: lab07: cannot write time/x-perf1/v3.r4.bin", vc.reason)
            # a student's file is named by its name alone, whichever build compiled it
            with open(err, "w") as f:
                f.write("/tmp/o/work/reference/src/conv.cu:240: cudaMemcpy(d, h): invalid "
                        "argument\n")
            vc = c.verify(run, CASE, 3, False)
            self.assertIn("first error: conv.cu:240: cudaMemcpy(d, h): invalid argument", vc.reason)
            with open(err, "w") as f:
                f.write("/k/grading/build/pristine/03-ab/labs/03_global_mem/words.cu:97: "
                        "precondition failed: radius <= 2\n")
            vc = c.verify(run, CASE, 3, False)
            self.assertIn("first error: words.cu:97: precondition failed", vc.reason)
            with open(err, "w") as f:
                f.write("lab07: cannot write time/x-perf1/v2.r1.bin: No space left\n"
                        "lab07: cannot write time/x-perf1/v3.r4.bin: No space left\n")
            run.rel = {("perf1", 3): "time/y"}         # none names it: the first line
            self.assertIn("x-perf1/v2.r1.bin", c.verify(run, CASE, 3, False).reason)
            open(err, "w").close()
            vc = c.verify(run, CASE, 3, False)
            self.assertEqual(vc.reason, "its timed run reported an error (exit 3)")

    @staticmethod
    def said(gpu, *checks):
        """The console lines of ref_check over the reference's checks CHECKS (status, reason)."""
        import io
        c = Checks(gpu)
        c.ctx.ref_failed, c.ctx.checks_off = set(), set()
        err = io.StringIO()
        with mock.patch("sys.stderr", err):
            for st, why in checks:
                vc = runcheck.VarCheck()
                vc.status, vc.reason = st, why
                with mock.patch.object(c, "verify", return_value=vc):
                    assert c.ref_check(None, CASE, 3) is vc
        return err.getvalue().splitlines()

    def test_a_failed_reference_timed_run_is_said_once_on_the_console(self):
        """The reference's own timed run of a variant that failed: one WARNING line a grading
        on standard error (control bytes gone), none for a variant that passed; none for a
        CPU pair's timeout (in lockstep, a student's hang times the reference out too)."""
        failed = ("runtime-error", "exit 3; No space left\x1b]0;x\x07")
        lines = self.said(True, failed, failed, ("ok", ""))
        self.assertEqual(len(lines), 1)
        self.assertIn("WARNING: the reference's own timed run of v3 failed (runtime-error: "
                      "exit 3; No space left", lines[0])
        self.assertIn("the students paired with that run are not timed against it", lines[0])
        self.assertNotIn("\x1b", lines[0])
        self.assertEqual(self.said(False, ("timeout", "ran past its time")), [])
        self.assertEqual(len(self.said(True, ("timeout", "ran past its time"))), 1)

if __name__ == "__main__":
    unittest.main()
