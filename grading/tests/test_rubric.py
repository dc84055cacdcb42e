"""rubric.py: both case syntaxes, the draws (the older form as the C checker drew them), parts,
quick mode, errors with FILE:LINE, and the smooth speed curve."""
import unittest

import util  # noqa: F401
from kitgrade.lab import rubric

OLD = """\
lab 01_cpu_conv
variants 1 2 3
points 1 10 0
points 2 10 10   # a comment
points 3 10 10
tolerance all 1e-2 1e-5
perf_scale 0.8:1 0.6:0.6 0.4:0.3
case  one     all    1x1                  gauss5,box:2
case  small   all    2..4x2..4            gauss5,gaussian:3
case  tiny    1,2    1..4x1..3            laplace5
case  odd     all    17..63x9..41         gauss5,box:3,gaussian:4
case  edges   1,2    31..97x19..61        edge3,sharpen3,laplace5
case  large   all    1000..1100x700..800  gauss5              quick=150..230x100..170
perf  1,2     1024x768   laplace5   quick=480x360
perf  3       1024x768   gauss5     quick=480x360
"""

# what grading/build/check cases printed for this rubric and seed 11 (the bash grader's checker)
C_SEED11 = """\
case\tone\t1,2,3\t--size 1x1 --filter box --radius 2 --seed 36889209
case\tsmall\t1,2,3\t--size 4x2 --filter gaussian --radius 3 --seed 866065875
case\ttiny\t1,2\t--size 1x3 --filter laplace5 --seed 365512147
case\todd\t1,2,3\t--size 51x23 --filter gaussian --radius 4 --seed 301194520
case\tedges\t1,2\t--size 83x30 --filter laplace5 --seed 638614921
case\tlarge\t1,2,3\t--size 1033x704 --filter gauss5 --seed 380240817
perf\tperf1\t1,2\t--size 1024x768 --filter laplace5 --seed 78077935
perf\tperf2\t3\t--size 1024x768 --filter gauss5 --seed 45272743
"""

MATRIX = """\
shape matrix
variants 1 2 3 4
points 1 8 4
points 2 8 6
points 3 8 4
points 4 8 10
tolerance all auto
case one all 1x1 -
case row all 1x2000..9000 -
perf all 5000x8000 - quick=700x900
"""

NEW = """\
lab 05_streams_tiles
points strip:1 4 0
points strip:3 8 4
points batch:1 5 5
tolerance strip:all 1e-9 1e-12
case  tiny  strip:all  --size 1..4x1..3 {--filter gauss5|--filter gaussian --radius 3}
case  odd   strip:1    --size 17..63x9..41 --streams 2..4
case  many  batch:1    --count 3..9 --size 16x16 quick=skip
perf  strip:3 --size 1024x768 --filter laplace5 quick=--size 64x48
"""


class OldForm(unittest.TestCase):
    def test_draws_as_the_c_checker(self):
        r = rubric.parse("lab01.rubric", OLD)
        self.assertEqual(rubric.cases_tsv(r.draw(11)), C_SEED11)

    def test_quick_keeps_the_draw_order(self):
        r = rubric.parse("lab01.rubric", OLD)
        q = {c.name: c.args for c in r.draw(11, quick=True)}
        self.assertEqual(q["one"], ["--size", "1x1", "--filter", "box", "--radius", "2",
                                    "--seed", "36889209"])
        self.assertEqual(q["perf1"][:2], ["--size", "480x360"])
        w, h = (int(x) for x in q["large"][1].split("x"))
        self.assertTrue(150 <= w <= 230 and 100 <= h <= 170)

    def test_matrix_shape(self):
        r = rubric.parse("lab06.rubric", MATRIX)
        cs = r.draw(11)
        self.assertEqual(cs[0].args, ["--rows", "1", "--cols", "1", "--seed", "882264189"])
        self.assertEqual(cs[0].variants, [1, 2, 3, 4])
        self.assertEqual(r.draw(11, quick=True)[-1].args[:4], ["--rows", "700", "--cols", "900"])
        self.assertNotIn("1", r.tolerance)      # auto: the lab's own

    def test_points_and_tolerance(self):
        r = rubric.parse("x", OLD)
        self.assertEqual(r.points["2"], (10.0, 10.0))
        self.assertEqual(r.max_points(), 50)
        self.assertEqual(r.tolerance["3"], (1e-2, 1e-5))

    def test_bad_size_and_filter(self):
        with self.assertRaisesRegex(rubric.RubricError, r"x:3: bad size '0x4'"):
            rubric.parse("x", "points 1 1 0\nvariants 1\ncase x all 0x4 gauss5\n")
        with self.assertRaisesRegex(rubric.RubricError, "bad filter"):
            rubric.parse("x", "points 1 1 0\ncase x all 4x4 gau$s\n")


class NewForm(unittest.TestCase):
    def test_parts_ranges_alternatives(self):
        r = rubric.parse("lab05.rubric", NEW)
        cs = {c.name: c for c in r.draw(5)}
        self.assertEqual(cs["tiny"].part, "strip")
        self.assertEqual(cs["tiny"].variants, [1, 3])
        self.assertEqual(cs["tiny"].vnames, ["strip:1", "strip:3"])
        a = cs["tiny"].args
        self.assertEqual(a[0], "--size")
        self.assertIn(a[2:4], (["--filter", "gauss5"], ["--filter", "gaussian"]))
        if a[3] == "gaussian":
            self.assertEqual(a[4:6], ["--radius", "3"])
        self.assertEqual(a[-2], "--seed")
        s = int(cs["odd"].args[3])
        self.assertTrue(2 <= s <= 4)
        self.assertEqual(cs["perf1"].part, "strip")

    def test_every_alternative_and_range_value_is_drawn(self):
        r = rubric.parse("lab05.rubric", NEW)
        seen, sizes = set(), set()
        for seed in range(200):
            c = r.draw(seed)[0]
            seen.add(c.args[3])
            sizes.add(c.args[1])
        self.assertEqual(seen, {"gauss5", "gaussian"})
        self.assertEqual(len(sizes), 12)      # 4 x 3 sizes

    def test_same_seed_same_cases_other_seed_others(self):
        r = rubric.parse("x", NEW)
        self.assertEqual(rubric.cases_tsv(r.draw(9)), rubric.cases_tsv(r.draw(9)))
        self.assertNotEqual(rubric.cases_tsv(r.draw(9)), rubric.cases_tsv(r.draw(10)))

    def test_quick(self):
        r = rubric.parse("x", NEW)
        q = {c.name: c.args for c in r.draw(3, quick=True)}
        self.assertNotIn("many", q)
        self.assertEqual(q["perf1"][:4], ["--size", "64x48", "--filter", "laplace5"])

    def test_all_needs_a_part_in_a_lab_of_parts(self):
        with self.assertRaisesRegex(rubric.RubricError, "PART:all"):
            rubric.parse("x", NEW + "case bad all --size 4x4\n")

    def test_errors_name_the_line(self):
        for text, msg in (("points 1 1 0\ncase x all --size {4x4\n", "x:2: an unclosed"),
                          ("points 1 1 0\ncase x all --size 4x4}\n", "without its"),
                          ("points 1 1 0\nwhatever 3\ncase x all --a\n", "x:2: unknown key"),
                          ("points 1 1 0\nlimits run=3 swap=9\ncase x all --a\n", "unknown limit"),
                          ("points 1 1 0\nperf_reps 2\ncase x all --a\n", "3 or more"),
                          ("points 1 1 0\npenalty replayed=none\ncase x all --a\n", "penalty"),
                          ("points 1 1 0\n", "no case lines"),
                          ("case x all --a\n", "no 'points'")):
            with self.assertRaisesRegex(rubric.RubricError, msg):
                rubric.parse("x", text)

    def test_limits_penalty_pairs(self):
        r = rubric.parse("x", "points 1 1 1\nlimits build=300 run=30 memory_mb=512 "
                              "gpu_memory_mb=64\npenalty copies-in-launcher=lab\n"
                              "perf_pairs 3..6\ncase x all --a\n")
        self.assertEqual(r.limits["memory_mb"], 512)
        self.assertEqual(r.limits["gpu_memory_mb"], 64)
        self.assertEqual(r.limits_given["build"], 300)
        self.assertEqual(r.penalty["copies-in-launcher"], "lab")
        self.assertEqual(r.penalty["replayed"], "variant")
        self.assertEqual(r.perf_pairs, (3, 6))
        self.assertEqual(r.perf_ref_every, 0.0)                 # by default: after every student
        self.assertEqual(rubric.parse("x", "points 1 1 1\nperf_ref_every 10s\ncase x all --a\n")
                         .perf_ref_every, 10.0)
        with self.assertRaisesRegex(rubric.RubricError, "perf_ref_every is seconds"):
            rubric.parse("x", "points 1 1 1\nperf_ref_every 99\ncase x all --a\n")
        self.assertFalse(r.perf_one_process)                    # by default: by number
        self.assertTrue(rubric.parse("x", "points 1 1 1\nperf_one_process yes\ncase x all --a\n")
                        .perf_one_process)
        with self.assertRaisesRegex(rubric.RubricError, "perf_one_process is yes or no"):
            rubric.parse("x", "points 1 1 1\nperf_one_process 1\ncase x all --a\n")


class Late(unittest.TestCase):
    def test_mechanism_lines(self):
        text = ("points strip:3 1 1\npoints strip:4 1 1\npoints strip:5 1 1\npoints sum:2 1 1\n"
                "mechanism strip:4,5 streams=2\nmechanism sum:2 no-copies\n"
                "case a strip:all --size 4x4\n")
        r = rubric.parse("lab.rubric", text)
        self.assertEqual(r.mechanism, {"strip:4": {"streams": 2}, "strip:5": {"streams": 2},
                                       "sum:2": {"no-copies": 1}})
        self.assertEqual(r.penalty["no-mechanism"], "perf")     # correctness points stay
        self.assertEqual(r.penalty["over-budget"], "variant")
        r = rubric.parse("lab.rubric", text + "mechanism strip:3 pinned shared\n"
                         "mechanism sum:2 managed\nmechanism strip:4 pageable\n")
        self.assertEqual(r.mechanism["strip:3"], {"pinned": 1, "shared": 1})
        self.assertEqual(r.mechanism["sum:2"], {"no-copies": 1, "managed": 1})
        self.assertEqual(r.mechanism["strip:4"], {"streams": 2, "pageable": 1})
        for bad, said in (("streams=1", "streams=N (N 2 or more)"), ("streams", "not 'streams'"),
                          ("no-copies=2", "not 'no-copies=2'"), ("smem", "not 'smem'"),
                          ("pinned=2", "not 'pinned=2'")):
            with self.assertRaises(rubric.RubricError) as e:
                rubric.parse("lab.rubric", text + "mechanism strip:4 %s\n" % bad)
            self.assertIn(said, str(e.exception))
            self.assertIn("lab.rubric:8:", str(e.exception))
        # one-thread: read from the CPU readings a wall-clock lab's runs have
        r = rubric.parse("lab.rubric", "perf_clock wall\n" + text + "mechanism strip:3 one-thread\n")
        self.assertEqual(r.mechanism["strip:3"], {"one-thread": 1})
        with self.assertRaisesRegex(rubric.RubricError, "one-thread needs perf_clock wall"):
            rubric.parse("lab.rubric", text + "mechanism strip:3 one-thread\n")
        with self.assertRaises(rubric.RubricError) as e:
            rubric.parse("lab.rubric", text + "mechanism strip:9 no-copies\n")
        self.assertIn("strip:9, which has no 'points' line", str(e.exception))

    def test_late_line_read_by_late_py(self):
        r = rubric.parse("x", "points 1 1 1\ncase x all --a\n"
                              "late penalty=10%/day grace=15m last=7d extension=ext  # note\n")
        self.assertEqual((r.late.penalty_pct, r.late.grace.total_seconds(),
                          r.late.last.days, r.late.extension_column), (10.0, 900.0, 7, "ext"))
        self.assertEqual(r.other["late"], "penalty=10%/day grace=15m last=7d extension=ext")
        self.assertIsNone(rubric.parse("x", "points 1 1 1\ncase x all --a\n").late)
        with self.assertRaisesRegex(rubric.RubricError, r"^x:3: late: penalty=10: write it"):
            rubric.parse("x", "points 1 1 1\ncase x all --a\nlate penalty=10\n")

    def test_the_labs_example_late_lines(self):
        import os
        for nn in ("01", "03"):
            p = os.path.join(util.GRADING, "rubrics", "lab%s.rubric" % nn)
            self.assertIsNone(rubric.parse(p).late, p)      # commented out: an example
            line = next(ln for ln in util.read(p).splitlines() if ln.startswith("# late "))
            self.assertEqual(rubric.parse("x", "points 1 1 1\ncase x all --a\n" + line[2:])
                             .late.penalty_pct, 10.0)


class Overlay(util.TempCase):
    def test_limits_laid_over_the_labs(self):
        base = self.write("lab.rubric", OLD + "limits build=120 run=20 nproc=128\n")
        over = self.write("small", "# small limits\nlimits run=10 memory_mb=384\n")
        r = rubric.load(base, over)
        self.assertEqual(r.limits["run"], 10)
        self.assertEqual(r.limits["memory_mb"], 384)
        self.assertEqual(r.limits["nproc"], 256)      # the lab's line is gone: the default
        self.assertEqual(r.max_points(), 50)
        self.assertEqual(len(r.templates), 8)
        self.assertIn(" + ", r.path)
        whole = self.write("whole", "points 1 1 0\ncase x all --a\n")
        self.assertEqual(rubric.load(base, whole).max_points(), 1)


class SpeedCurve(unittest.TestCase):
    def setUp(self):
        self.r = rubric.parse("x", "points 1 1 1\nperf_scale 0.8:1 0.6:0.6 0.4:0.3\n"
                                   "case x all --a\n")

    def test_points_of_the_scale(self):
        s = self.r.perf_share
        self.assertEqual(s(0.8), 1.0)
        self.assertAlmostEqual(s(0.6), 0.6)
        self.assertAlmostEqual(s(0.4), 0.3)
        self.assertEqual(s(5.0), 1.0)
        self.assertEqual(s(0.0), 0.0)
        self.assertEqual(s(None), 0.0)

    def test_smooth_not_steps(self):
        s = self.r.perf_share
        self.assertAlmostEqual(s(0.7), 0.8)
        self.assertAlmostEqual(s(0.2), 0.15)
        xs = [i / 1000.0 for i in range(1, 1200)]
        ys = [s(x) for x in xs]
        self.assertTrue(all(b >= a for a, b in zip(ys, ys[1:])))
        # no jump anywhere: neighbours 0.001 apart differ by at most the steepest slope's step
        self.assertLess(max(b - a for a, b in zip(ys, ys[1:])), 0.0021)

    def test_identical_code_within_noise_gets_the_same_share(self):
        s = self.r.perf_share
        self.assertEqual({s(1.0 + d) for d in (-0.15, -0.05, 0.0, 0.07, 0.2)}, {1.0})


if __name__ == "__main__":
    unittest.main()
