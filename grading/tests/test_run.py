"""run.py: the run's own account read (never believed for a verdict), and each variant's
outcome in plain words from what the grader saw."""
import os
import unittest
from unittest import mock

import util
from kitgrade.lab.labinfo import Output
from kitgrade.runs.desc import case_seed, parse_desc, rep_key
from kitgrade.runs.run import Runner, signame

INFO = {"lab": "99", "parts": [{"name": "", "variants": [{"id": 1}, {"id": 2}, {"id": 3}]}]}
RUB = "points 1 1 0\npoints 2 1 0\npoints 3 1 0\nlimits run=7 nproc=5\ncase a all --size 4x4\n"
CHECKER = "#!/bin/sh\nd=$(cat)\n[ \"$d\" = good ] && { echo pass; exit 0; }\n" \
          "[ \"$d\" = frst ] && [ \"$7\" = 0 ] && { echo pass; exit 0; }\necho 'fail 1 16 1 1'\n" \
          "exit 1\n"


class Res:
    def __init__(self, rc=0, signal=None, breach=None):
        self.rc, self.signal, self.breach = rc, signal, breach
        self.wall_ms = self.cpu_ms = 1.0
        self.extra_processes = 0


class Desc(unittest.TestCase):
    def test_new_form(self):
        d = parse_desc(b"status ok\ntype f32\nshape 9 7 4 0\nspan 10 20\n"
                       b"rep 1 00000000000000ab 11 12 0.5 0.75\nrep 2 CD 13 14 0.5 0.75\n")
        self.assertEqual((d.status, d.type, d.shape, d.span), ("ok", "f32", (9, 7, 4, 0),
                                                               (10, 20)))
        self.assertEqual([(r.k, r.key, r.l0, r.l1) for r in d.reps],
                         [(1, "00000000000000ab", 11, 12), (2, "cd", 13, 14)])

    def test_old_form_and_garbage(self):
        d = parse_desc(b"ok f32 9 7 4 0 100 200\n")
        self.assertEqual((d.status, d.shape), ("ok", (9, 7, 4, 0)))
        self.assertTrue(parse_desc(b"\x00\xff garbage").bad)
        self.assertIn("cannot be read", parse_desc(b"status ok\nrep 1 2 x y z w\n").bad)
        self.assertEqual(signame(11), "SIGSEGV, a bad memory access")


class CpuTime(unittest.TestCase):
    def test_cpu_time_grows_with_the_cores(self):
        """Without the rubric's cpu_s a run may spend its wall-clock limit on each of its cores
        (an OpenMP run on 16 cores, timed alone); the rubric's figure stays as it is."""
        ctx = util.make_ctx(RUB, INFO)
        ctx.run_timeout = 7
        self.assertEqual(ctx.limits("run", cpus=[3]).cpu_s, 7 + 5)
        self.assertEqual(ctx.limits("run", scale=2.0, cpus=list(range(16))).cpu_s, 14 * 16 + 5)
        self.assertEqual(ctx.limits("run").cpu_s, 7 * (os.cpu_count() or 1) + 5)
        ctx = util.make_ctx(RUB.replace("nproc=5", "nproc=5 cpu_s=9"), INFO)
        self.assertEqual(ctx.limits("run", scale=2.0, cpus=list(range(16))).cpu_s, 18)


class TogetherLimit(unittest.TestCase):
    """The run of every case: the reference has a limit for each case and its time is kept;
    a student's limit is one run's plus twice the reference's time, so that a lab whose cases
    add up to seconds does not blame the case it was in when one limit ran out."""

    def limit_of(self, ctx, is_ref, wall_ms=5000.0):
        seen = []

        class R(Runner):
            def dump_dir(self, rel, fresh=True):
                return rel

            def run(self, argv, name, scale=1.0, env=None, pass_fds=(), cpus=None):
                seen.append(self.ctx.limits("run", scale=scale, cpus=cpus).wall_s)
                res = Res(rc=1)
                res.wall_ms = wall_ms
                return res, "err"

            def done_with(self, rel):
                pass

        r = R(ctx, util.DictBox({}), "/nonexistent", is_ref=is_ref)
        with mock.patch("kitgrade.runs.run.fsutil.bwrite"):
            r.together(list(ctx.cases) * 3)
        return seen[0]

    def test_limits(self):
        ctx = util.make_ctx(RUB, INFO)
        ctx.run_timeout = 10
        self.assertEqual(self.limit_of(ctx, False), 10)         # no reference time yet
        self.assertEqual(self.limit_of(ctx, True, 6000.0), 30)  # three cases
        self.assertAlmostEqual(ctx.ref_together_s, 6.0)
        self.assertAlmostEqual(self.limit_of(ctx, False), 22)


class SharedLimit(util.TempCase):
    def test_a_shared_run_gets_the_share_clock(self):
        """A correctness run on a shared GPU hands the sandbox its share count and a wall
        clock of at most SHARE_STRETCH (4) times its limit; a run with no share, neither."""
        seen = []

        class Box(util.DictBox):
            def run(self, argv, **kw):
                seen.append(kw["limits"])
                return Res()

        ctx = util.make_ctx(RUB, INFO)
        ctx.run_timeout = 7
        r = Runner(ctx, Box({}), os.path.join(self.tmp, "sd"), slot="0", cpus=[0])
        r.run(["x"], "plain")
        r.share, r.share_most = (lambda: 3), 16
        r.run(["x"], "shared", scale=2.0)
        self.assertEqual((seen[0].share, seen[0].wall_most_s), (None, None))
        self.assertEqual((seen[1].share(), seen[1].wall_s, seen[1].wall_most_s), (3, 14, 56))


class Classify(util.TempCase):
    def setUp(self):
        super().setUp()
        chk = self.write("check", CHECKER, 0o755)
        outs = {"a": {1: Output(type="u8", w=2, h=2, c=1), 2: Output(type="u8", w=2, h=2, c=1),
                      3: Output(na="a filter it does not take")}}
        self.ctx = util.make_ctx(RUB, INFO, outputs=outs, checker=chk, tmp=self.tmp)
        self.ctx.run_timeout = 7
        self.err = self.write("err", "fake: something broke\nmore\n")

    def outcome(self, files, res, alone=False, v=1, is_ref=False):
        box = util.DictBox(files)
        r = Runner(self.ctx, box, os.path.join(self.tmp, "sd"), is_ref=is_ref)
        return r.classify(self.ctx.cases[0], v, "run/a", res, self.err, alone)[:2]

    def ok(self, v=1, key=None):
        k = rep_key(case_seed(self.ctx.cases[0].args), "", v, 1) if key is None else key
        return ("status ok\nrep 1 %016x 1 2 0.1 0.1\n" % k).encode()

    def test_gpu_runs_wait_asleep(self):
        """A correctness run on a GPU is told to sleep while it waits for it (the GPU is
        shared); without a GPU slot nothing is added."""
        box = util.DictBox({})
        on_gpu = Runner(self.ctx, box, os.path.join(self.tmp, "sd"), slot="0").run_env()
        self.assertEqual((on_gpu["KIT_GPU_WAIT"], on_gpu["CUDA_VISIBLE_DEVICES"]), ("block", "0"))
        self.assertNotIn("KIT_GPU_WAIT", Runner(self.ctx, box, os.path.join(self.tmp, "sd2"))
                         .run_env())

    def test_hang_or_crowded(self):
        """A run of several that ran out of time: one that spent half its time or more on a
        core is V's timeout; one that spent less (asleep waiting for the GPU, or a loop that
        others' work kept off its cores) runs alone from then on, and its run there decides."""
        def hung(cpu, wall=2000.0):
            res = Res()
            res.cpu_ms, res.wall_ms = cpu, wall
            r = Runner(self.ctx, util.DictBox({}), os.path.join(self.tmp, "h"))
            alone = r.hung(self.ctx.cases[0], 2, res)
            return alone, [o.status for o in r.outcomes], sorted(r.barred), sorted(r.loners)
        self.assertEqual(hung(1900.0), (False, ["timeout"], ["2"], []))
        self.assertEqual(hung(700.0), (True, [], [], ["2"]))
        self.assertEqual(hung(None), (True, [], [], ["2"]))

    def test_statuses(self):
        ok = self.ok()
        good = {"run/a/v1.txt": ok, "run/a/v1.bin": b"good", "run/a/v1.r1.bin": b"good"}
        self.assertEqual(self.outcome(good, Res()), ("pass", ""))
        self.assertEqual(self.outcome({"run/a/v1.txt": ok, "run/a/v1.bin": b"baad"}, Res())[0],
                         "wrong")
        self.assertEqual(self.outcome({"run/a/v1.txt": ok}, Res())[0], "no-output")
        self.assertEqual(self.outcome({"run/a/v1.txt": ok, "run/a/v1.bin": b"x" * 5}, Res())[0],
                         "no-output")      # larger than the output it must be: not read
        self.assertEqual(self.outcome({"run/a/v1.txt": b"status not-implemented\n"}, Res()),
                         ("not-implemented", "returned KIT_NOT_IMPLEMENTED"))
        self.assertEqual(self.outcome({}, Res(), v=3), ("n/a", "a filter it does not take"))
        st, why = self.outcome({"run/a/v1.txt": b"status error\n"}, Res(rc=3))
        self.assertEqual((st, why), ("runtime-error", "exit 3: fake: something broke"))
        self.assertEqual(self.outcome({}, Res(rc=0)), ("no-output", "the program exited 0 "
                                                       "without running the variant (a fake "
                                                       "verdict?)"))
        self.assertEqual(self.outcome({}, Res(rc=None, signal=11))[0], "crash")
        self.assertEqual(self.outcome({}, Res(rc=None, breach="timeout")),
                         ("timeout", "ran past the 7 s time limit (killed)"))
        self.assertEqual(self.outcome({}, Res(rc=None, breach="memory-limit"))[0],
                         "memory-limit")
        self.assertEqual(self.outcome({}, Res(rc=77)), ("skipped", "no CUDA device here"))
        self.assertEqual(self.outcome({"run/a/v1.txt": b"what\n"}, Res())[0], "no-output")
        st, _ = self.outcome(good, Res(signal=6), alone=True)
        self.assertEqual(st, "crash")

    def test_fresh_content_checked_too(self):
        files = {"run/a/v1.txt": self.ok(), "run/a/v1.bin": b"good", "run/a/v1.r1.bin": b"old"}
        st, why = self.outcome(files, Res())
        self.assertEqual(st, "wrong")           # another wrong output: a bug the first missed
        self.assertIn("output for fresh content (repetition 1) is wrong", why)
        # the first result (right for the first content) handed back again: a kept result
        files = {"run/a/v1.txt": self.ok(), "run/a/v1.bin": b"frst", "run/a/v1.r1.bin": b"frst"}
        st, why = self.outcome(files, Res())
        self.assertEqual(st, "replayed")
        self.assertIn("same bytes again", why)
        files = {"run/a/v1.txt": self.ok(), "run/a/v1.bin": b"good", "run/a/v1.r1.bin": b"good"}
        files = {"run/a/v1.txt": self.ok(key=5), "run/a/v1.bin": b"good",
                 "run/a/v1.r1.bin": b"good"}
        self.assertIn("content it was not given", self.outcome(files, Res())[1])
        self.assertEqual(self.outcome({"run/a/v1.txt": b"status ok\n", "run/a/v1.bin": b"good"},
                                      Res())[0], "replayed")
        self.assertEqual("%016x" % rep_key(5, "", 2, 1), "83767722415c39c9")   # lab01-ref's

    def test_unsupported_is_the_references_call(self):
        un = {"run/a/v2.txt": b"status unsupported\n"}
        self.assertEqual(self.outcome(un, Res(), v=2)[0], "runtime-error")
        self.assertEqual(self.outcome(un, Res(), v=2, is_ref=True)[0], "n/a")
        self.assertEqual(self.outcome(un, Res(), v=2)[0], "n/a")

    def test_process_limit_from_the_message(self):
        self.err = self.write("err2", "fork: Resource temporarily unavailable\n")
        self.assertEqual(self.outcome({"run/a/v1.txt": b"status error\n"}, Res(rc=3))[0],
                         "process-limit")


if __name__ == "__main__":
    unittest.main()
