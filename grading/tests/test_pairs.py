"""timing.py's pairs with every run and check injected (no timed test): ratios, spread,
early stopping, the order of the runs in a GPU chain, a loss of points confirmed by a second
student run, and hidden work found only when every pair shows it. The fakes are
test_timing.py's."""
import os
import unittest

import util
from kitgrade.runs import timing
from kitgrade.runs.desc import Desc
from test_timing import INFO_CPU, INFO_GPU, RUB, Res, Stu, run_of


def time_chain(t, items, chain):
    """A student's whole turn in a GPU chain: the runs, then the checks (the scheduler calls
    them apart, the checks after the GPU is handed on)."""
    return t.chain_checks(*t.chain_runs(items, chain, items), items)


class Pairs(util.TempCase):
    """time_group with every run and check injected: ratios, spread, early stop, order, and
    hidden work found only when every pair shows it."""

    def setUp(self):
        super().setUp()
        os.makedirs(os.path.join(self.tmp, "logs"))
        self.ctx = util.make_ctx(RUB, INFO_GPU, gpu=True, tmp=self.tmp)
        self.t = timing.Timer(self.ctx, Stu(None, self.tmp), None, "t", slot="0")
        self.order = []

    def inject(self, ref_ms, stu_ms, stu_status=None):
        it = {"reference": iter(ref_ms), "student": iter(stu_ms)}

        def process(who, items, pair, when="", label=""):
            self.order.append(who)
            return timing.TimedRun(who, None, {}, Res(), None, None,
                                   {(c.name, v): Desc(status="ok") for c, v in items}, 0)

        def verify(run, case, v, outputs):
            vc = timing.VarCheck()
            if run.who == "student" and stu_status:
                vc.status, vc.reason = stu_status, "injected"
                return vc
            vc.times = [next(it[run.who])]
            return vc
        self.t.process = process
        self.t.verify = verify
        self.t.discard = lambda r: None
        self.t.check_reps = lambda *a: None

    def test_stops_when_pairs_agree(self):
        self.inject([1.0, 1.0, 1.0, 1.0], [2.0, 2.02, 9.0, 9.0])
        out = self.t.time_group([(self.ctx.cases[-1], 1)])["1"]
        self.assertEqual(out.status, "ok")
        self.assertEqual(len(out.pairs), 2)
        self.assertAlmostEqual(out.ratio, (0.5 + 1 / 2.02) / 2)
        self.assertAlmostEqual(out.spread[0], 1 / 2.02)
        self.assertEqual(self.order, ["reference", "student", "student", "reference"])

    def test_goes_on_while_noisy_up_to_the_most(self):
        self.inject([1.0] * 4, [1.0, 1.5, 1.0, 1.1])
        out = self.t.time_group([(self.ctx.cases[-1], 1)])["1"]
        self.assertEqual(len(out.pairs), 4)
        self.assertAlmostEqual(out.ratio, (1 / 1.1 + 1.0) / 2)
        self.assertAlmostEqual(out.spread[1], 1.0)
        self.assertAlmostEqual(out.student_ms, 1.05)

    def one_pair_rubric(self):
        """A GPU lab's: one pair is enough, three at most; full points from a ratio of 0.8."""
        self.ctx.rub.perf_pairs = (1, 3)
        self.ctx.rub.perf_scale = [(0.8, 1.0), (0.5, 0.6), (0.25, 0.3)]

    def one_pair_group(self, stu_ms):
        """time_group under one_pair_rubric, the reference at 1 ms, the student at STU_MS."""
        self.one_pair_rubric()
        self.inject([1.0] * 6, stu_ms)
        return self.t.time_group([(self.ctx.cases[-1], 1)])["1"]

    def one_pair_chain(self, stu_ms):
        """A GPU chain under one_pair_rubric, the reference timed after every student run."""
        self.one_pair_rubric()
        self.ctx.rub.perf_ref_every = 0.0
        self.inject([1.0] * 9, stu_ms)
        self.t.ref_check = lambda run, case, v: self.t.verify(run, case, v, False)
        return time_chain(self.t, [(self.ctx.cases[-1], 1)], {})["1"]

    def test_a_loss_of_points_needs_a_second_pair(self):
        # the student as fast as the reference, but its first pair disturbed (ratio 0.73):
        # the second and third pairs outvote it, full points
        out = self.one_pair_group([1.37, 1.0, 1.0])
        self.assertEqual(len(out.pairs), 3)
        self.assertAlmostEqual(out.ratio, 1.0)
        self.assertGreaterEqual(self.ctx.rub.perf_share(out.ratio), 1.0)

    def test_a_slow_student_confirmed_by_a_second_pair_then_no_more(self):
        out = self.one_pair_group([3.0, 3.03, 1.0])
        self.assertEqual(len(out.pairs), 2)
        self.assertLess(out.ratio, 0.34)
        self.assertEqual(self.order.count("student"), 2)

    def test_a_fast_student_needs_one_pair(self):
        out = self.one_pair_group([0.9, 3.0, 3.0])
        self.assertEqual(len(out.pairs), 1)
        self.assertEqual(self.order.count("student"), 1)

    def test_a_gpu_chain_confirms_a_loss_with_another_student_run_not_another_reference(self):
        # the reference timed again after every student run (perf_ref_every 0): one disturbed
        # student run gives two pairs with the same times; they agree, yet they are one run
        first = self.one_pair_chain([1.37, 1.0, 1.0])
        self.assertEqual(self.order.count("student"), 3)
        self.assertAlmostEqual(first.ratio, 1.0)

    def test_a_gpu_chain_slow_student_stops_at_its_second_run(self):
        first = self.one_pair_chain([3.0, 3.0, 3.0])
        self.assertEqual(self.order, ["reference", "student", "reference", "student", "reference"])
        self.assertAlmostEqual(first.ratio, 1 / 3.0)

    def test_a_shared_reference_run_that_was_fast_is_outvoted_by_fresh_ones(self):
        # lab 07 on the H200: one shared reference run at 0.73 of its usual time cost six of
        # 25 identical copies a point's tenth; each copy's second run was paired with the same
        # fast reference run, so the two pairs agreed on the loss
        self.one_pair_rubric()
        self.ctx.rub.perf_ref_every = 30.0
        self.inject([0.73, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0])
        self.t.ref_check = lambda run, case, v: self.t.verify(run, case, v, False)
        chain = {}
        first = time_chain(self.t, [(self.ctx.cases[-1], 1)], chain)["1"]
        self.assertEqual(self.order, ["reference", "student"] * 3)
        self.assertAlmostEqual(first.ratio, 1.0)
        self.assertGreaterEqual(self.ctx.rub.perf_share(first.ratio), 1.0)
        self.assertEqual(chain["last"][0][("%s" % self.ctx.cases[-1].name, 1)].times, [1.0])
        # the next student is paired with the newest reference run, not the fast one
        self.order.clear()
        self.assertAlmostEqual(time_chain(self.t, [(self.ctx.cases[-1], 1)], chain)["1"].ratio,
                               1.0)
        self.assertEqual(self.order, ["student"])

    def test_a_slow_student_with_a_shared_reference_is_confirmed_against_a_fresh_one(self):
        self.one_pair_rubric()
        self.ctx.rub.perf_ref_every = 30.0
        self.inject([1.0] * 4, [3.0, 3.0, 3.0])
        self.t.ref_check = lambda run, case, v: self.t.verify(run, case, v, False)
        first = time_chain(self.t, [(self.ctx.cases[-1], 1)], {})["1"]
        self.assertEqual(self.order, ["reference", "student"] * 2)
        self.assertAlmostEqual(first.ratio, 1 / 3.0)

    def test_one_pair_at_most_is_taken_as_it_is(self):
        # perf_pairs 1..1: no second pair to confirm a loss with
        self.one_pair_rubric()
        self.ctx.rub.perf_pairs = (1, 1)
        self.inject([1.0] * 6, [3.0, 1.0])
        out = self.t.time_group([(self.ctx.cases[-1], 1)])["1"]
        self.assertEqual(len(out.pairs), 1)
        self.assertAlmostEqual(out.ratio, 1 / 3.0)

    def cpu_inject(self, hidden_gaps):
        """CPU runs: the reference 1 ms repetitions with 0.4 ms windows; the student's
        repetitions GAP ns apart, one gap per pair, with 0.4 ms windows."""
        self.ctx = util.make_ctx(RUB, INFO_CPU, gpu=False, tmp=self.tmp)
        self.t = timing.Timer(self.ctx, Stu(None, self.tmp), None, "t", slot="0")
        gaps = iter(hidden_gaps)

        def process(who, items, pair, when="", label=""):
            g = 1000000 if who == "reference" else next(gaps)
            r = run_of(1, gpu=False, self_ms=0.4, gap=g)
            r.who = who
            return r
        self.t.process = process
        self.t.discard = lambda r: None
        self.t.check_reps = lambda *a: None

    def test_hidden_work_in_every_pair(self):
        self.cpu_inject([4000000] * 4)
        out = self.t.time_group([(self.ctx.cases[-1], 1)])["1"]
        self.assertEqual(out.status, "impossible-time")
        self.cpu_inject([4000000, 1000000, 4000000, 4000000])
        self.assertEqual(self.t.time_group([(self.ctx.cases[-1], 1)])["1"].status, "ok")
        self.cpu_inject([4000000] * 4)
        self.ctx.opts.quick = True
        self.assertEqual(self.t.time_group([(self.ctx.cases[-1], 1)])["1"].status, "ok")
        self.ctx.opts.quick = False

    def test_a_gpu_chain_shares_the_references_runs(self):
        self.inject([1.0] * 9, [2.0, 1.0, 1.0])
        self.t.ref_check = lambda run, case, v: self.t.verify(run, case, v, False)
        self.ctx.rub.perf_scale = []    # one student run settles, whatever its ratio
        chain = {}
        items = [(self.ctx.cases[-1], 1)]
        first = time_chain(self.t, items, chain)["1"]
        self.assertEqual(self.order, ["reference", "student", "reference"])
        self.assertEqual(len(first.pairs), 2)           # the runs before and after it
        self.assertAlmostEqual(first.ratio, 0.5)
        self.order.clear()
        second = time_chain(self.t, items, chain)["1"]
        self.assertEqual(self.order, ["student", "reference"])    # the last one's "after"
        self.assertAlmostEqual(second.ratio, 1.0)

    def test_perf_ref_every_times_the_reference_again_only_when_it_is_old(self):
        self.inject([1.0] * 9, [2.0, 1.0, 4.0, 1.0])
        self.t.ref_check = lambda run, case, v: self.t.verify(run, case, v, False)
        self.ctx.rub.perf_ref_every = 10.0
        self.ctx.rub.perf_pairs = (1, 3)
        self.ctx.rub.perf_scale = []    # one pair settles, whatever its ratio (no loss to confirm)
        chain = {}
        items = [(self.ctx.cases[-1], 1)]
        first = time_chain(self.t, items, chain)["1"]
        self.assertEqual(self.order, ["reference", "student"])     # the "before" is fresh
        self.assertEqual(len(first.pairs), 1)
        self.assertAlmostEqual(first.ratio, 0.5)
        self.order.clear()
        second = time_chain(self.t, items, chain)["1"]
        self.assertEqual(self.order, ["student"])                  # R S1 S2: no reference
        self.assertAlmostEqual(second.ratio, 1.0)
        chain["last"] = (chain["last"][0], chain["last"][1] - 11)  # 11 s later
        self.order.clear()
        third = time_chain(self.t, items, chain)["1"]
        self.assertEqual(self.order, ["student", "reference"])     # old: timed again
        self.assertEqual(len(third.pairs), 2)
        self.assertAlmostEqual(third.ratio, 0.25)
        self.ctx.rub.perf_ref_every = 0.0
        self.order.clear()
        time_chain(self.t, items, chain)
        self.assertEqual(self.order, ["student", "reference"])     # the default: every time

    def test_extra_processes_of_a_shared_run_are_sorted_out_one_variant_a_run(self):
        ctx = util.make_ctx(RUB, INFO_CPU, gpu=False, tmp=self.tmp)
        t = timing.Timer(ctx, Stu(None, self.tmp), None, "t", slot="0")
        runs = []

        def process(who, items, pair, when="", label=""):
            runs.append((who, [v for _c, v in items]))
            r = run_of(items[0][1], gpu=False, self_ms=0.4)
            r.who = who
            r.descs = {(c.name, v): r.descs[("perf1", items[0][1])] for c, v in items}
            r.rel = {(c.name, v): "time/r" for c, v in items}
            # v2's own run leaves a process behind; v1's does not
            r.res.extra_processes = 1 if who == "student" and 2 in [v for _c, v in items] else 0
            return r
        t.process = process
        t.discard = lambda r: None
        t.check_reps = lambda *a: None
        case = ctx.cases[-1]
        out = t.time_all([(case, 1), (case, 2)])
        self.assertEqual(runs[:2], [("reference", [1, 2]), ("student", [1, 2])])
        self.assertEqual(out["1"].status, "ok")
        self.assertEqual(out["2"].status, "extra-processes")

    def test_groups_one_process_each_no_variant_number_twice(self):
        class C:
            def __init__(self, name, part):
                self.name, self.part = name, part
        rgb, sep, one = C("perf1", "rgb"), C("perf2", "sep"), C("perf", "")
        groups = timing.groups_of([(rgb, v) for v in range(1, 7)] + [(sep, v) for v in (2, 3, 4)])
        self.assertEqual([([v for _c, v in g], label) for g, label in groups],
                         [([1, 2, 3, 4, 5, 6], "-rgb"), ([2, 3, 4], "-sep")])
        self.assertEqual([label for _g, label in timing.groups_of([(one, 1), (one, 2)])], [""])
        # the key channel naming the part (perf_one_process): one process for both parts
        self.assertEqual([(len(g), label) for g, label in timing.groups_of(
            [(rgb, v) for v in range(1, 7)] + [(sep, v) for v in (2, 3, 4)], by_part=True)],
            [(9, "")])
        # lab 07's three parts: sum 2,3,4; soa 2,4; transpose 2..5
        s, o, t = C("a", "sum"), C("b", "soa"), C("c", "transpose")
        groups = timing.groups_of([(s, 2), (s, 3), (s, 4), (o, 2), (o, 4)] +
                                  [(t, v) for v in (2, 3, 4, 5)])
        self.assertEqual([label for _g, label in groups], ["-sum", "-soa", "-transpose"])

    def test_a_run_started_early_goes_on_only_as_its_own_group(self):
        """process() lets on the run held at its gate only for its items, pair and label;
        another is refused there."""
        got = []

        class Early:
            def __init__(self, spec):
                self.spec = spec

            def go(self):
                got.append(("go", self.spec[2]))
                return "run" + self.spec[2]

            def cancel(self):
                got.append(("cancel", self.spec[2]))
        a = [(self.ctx.cases[-1], 1)]
        self.t.ahead = Early(timing.Ahead.key(a, 1, "-y"))
        self.assertEqual(self.t.process("student", a, 1, label="-y"), "run-y")
        self.assertEqual(got, [("go", "-y")])
        self.assertIsNone(self.t.ahead)
        self.t.ahead = Early(timing.Ahead.key(a, 1, "-x"))
        self.t._args = lambda *x: (_ for _ in ()).throw(RuntimeError("not this run"))
        with self.assertRaises(RuntimeError):
            self.t.process("student", a, 1, label="-y")
        self.assertEqual(got, [("go", "-y"), ("cancel", "-x")])
        self.assertIsNone(self.t.ahead)

    def test_a_breach_stops_at_once(self):
        self.inject([1.0] * 4, [1.0] * 4, stu_status="replayed")
        out = self.t.time_group([(self.ctx.cases[-1], 1)])["1"]
        self.assertEqual((out.status, out.reason, out.ratio), ("replayed", "injected", None))
        self.assertEqual(len(self.order), 2)


if __name__ == "__main__":
    unittest.main()
