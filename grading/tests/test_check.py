"""check.py: the output handed to the checker on stdin, its verdict read."""
import os
import unittest

import util
from kitgrade.runs import check

FAKE = """#!/bin/sh
# echo the arguments, then judge the bytes on stdin: "good" passes
printf '%s\\n' "$@" > "$(dirname "$0")/argv"
data=$(cat)
case $data in
  good) echo pass ;;
  bad) echo "fail 2 12 3 0.5"; echo "  2 of 12 elements wrong"; echo "   first 2: x y ch expected got";
       echo "              1      0    2             12      unwritten"; exit 1 ;;
  short) echo "bad the output has 5 bytes, expected 12"; exit 1 ;;
  *) echo "boom" >&2; exit 2 ;;
esac
"""


class Check(util.TempCase):
    def test_parse(self):
        self.assertEqual(check.parse("pass\n", 0).status, "pass")
        v = check.parse("fail 2 12 3 0.5\n  hdr\n   first 2: x y\n   1 0 2 12 unwritten\n", 1)
        self.assertEqual(v.status, "wrong")
        self.assertEqual(v.detail, "2 of 12 values wrong, first at (1,0) ch 2: expected 12, "
                                   "got unwritten")
        self.assertIn("unwritten", v.listing)
        self.assertEqual(check.parse("fail 2 12 3 0.5\n", 1).detail,
                         "2 of 12 values wrong (max abs error 3, max rel error 0.5)")
        self.assertEqual(check.parse("bad no shape\n", 1).detail, "unusable output: no shape")
        self.assertIn("could not judge", check.parse("", 2).detail)
        self.assertEqual(check.parse("pass\n", 1).status, "wrong")    # exit and line disagree

    def test_compare_hands_the_bytes_over(self):
        chk = self.write("check-01", FAKE, 0o755)
        diff = os.path.join(self.tmp, "d.png")
        v = check.compare(chk, "", 2, 77, ["--size", "a b", "--seed", "$(x)"], b"good",
                          diff=diff, cache=self.tmp, tol=(0.01, 1e-5))
        self.assertEqual(v.status, "pass")
        argv = util.read(os.path.join(self.tmp, "argv")).splitlines()
        self.assertEqual(argv, ["compare", "--part", "", "--variant", "2", "--key", "4d",
                                "--diff", diff, "--cache", self.tmp, "--atol", "0.01",
                                "--rtol", "1e-05", "--", "--size", "a b", "--seed", "$(x)"])
        self.assertEqual(check.compare(chk, "", 2, 0, [], b"bad").status, "wrong")
        self.assertIn("5 bytes", check.compare(chk, "", 2, 0, [], b"short").detail)
        self.assertIn("exit 2", check.compare(chk, "", 2, 0, [], b"?").detail)
        self.assertIn("could not run", check.compare(self.tmp + "/none", "", 1, 0, [], b"").detail)

    def test_warm_asks_for_each_reference_into_the_cache(self):
        """check.warm: one compare of no output per item, with the cache folder, each on the
        cores TAKE lends; none once STOP is set."""
        import threading
        from contextlib import contextmanager
        fake = self.write("check-05", "#!/bin/sh\nprintf '%s ' \"$@\" >> \"$(dirname \"$0\")/calls\"\n"
                          "echo >> \"$(dirname \"$0\")/calls\"; [ -z \"$(cat)\" ] && "
                          "echo 'bad no output'; exit 1\n", 0o755)
        lent = []

        @contextmanager
        def take():
            lent.append(1)
            yield [0]
        items = [("strip", 3, 0, ["--size", "5x4"]), ("strip", 4, 0x2a, ["--size", "5x4"])]
        check.warm(fake, self.tmp, items, take)
        calls = util.read(os.path.join(self.tmp, "calls")).splitlines()
        self.assertEqual(len(calls), 2)
        self.assertIn("--part strip --variant 3 --key 0 --cache %s -- --size 5x4" % self.tmp,
                      calls[0])
        self.assertIn("--variant 4 --key 2a --cache", calls[1])
        self.assertEqual(len(lent), 2)
        stop = threading.Event()
        stop.set()
        check.warm(fake, self.tmp, items, take, stop)
        self.assertEqual(len(util.read(os.path.join(self.tmp, "calls")).splitlines()), 2)

    def test_warm_items_of_a_grading(self):
        """What the grading warms: every variant's output on the case's input (key 0: the
        checker's cache names it by variant) and on its correctness repetition
        (desc.rep_key), none of an n/a."""
        from types import SimpleNamespace as NS
        from kitgrade.driver.schedule import Grading
        from kitgrade.runs.desc import rep_key
        na = {("c1", 4)}
        cases = [NS(name="c1", part="strip", variants=[3, 4, 5], args=["--seed", "9"]),
                 NS(name="c2", part="strip", variants=[4], args=["--seed", "7"])]
        ctx = NS(cases=cases, output_of=lambda c, v: NS(na=(c.name, v) in na))
        items = Grading.warm_items(NS(ctx=ctx))
        self.assertEqual(items, [
            ("strip", 3, 0, cases[0].args),
            ("strip", 3, rep_key(9, "strip", 3, 1), cases[0].args),
            ("strip", 5, 0, cases[0].args),
            ("strip", 5, rep_key(9, "strip", 5, 1), cases[0].args),
            ("strip", 4, 0, cases[1].args),
            ("strip", 4, rep_key(7, "strip", 4, 1), cases[1].args)])

    def test_megabytes_reach_the_checker_whole(self):
        """The output goes in as an in-memory file, not through a pipe: all of it, from its
        first byte, and the descriptor is closed after."""
        fake = self.write("check-03", "#!/bin/sh\n"
                          "[ \"$(wc -c)\" = 3000001 ] && echo pass || echo 'bad size'\n", 0o755)
        before = len(os.listdir("/proc/self/fd"))
        v = check.compare(fake, "", 1, 0, [], b"a" * 3000000 + b"z")
        self.assertEqual(v.status, "pass")
        self.assertEqual(check.compare(fake, "", 1, 0, [], b"a").status, "wrong")
        self.assertEqual(len(os.listdir("/proc/self/fd")), before)

    @unittest.skipUnless(hasattr(os, "sched_setaffinity"), "no CPU affinity here")
    def test_the_checker_runs_on_the_cores_given(self):
        """A checker started for a student runs on the student's core; the calling thread's
        own cores are back after it."""
        mine = sorted(os.sched_getaffinity(0))
        fake = self.write("check-02", "#!/bin/sh\ncat >/dev/null\n"
                          "grep Cpus_allowed_list /proc/self/status > \"$(dirname \"$0\")/cores\"\n"
                          "echo pass\n", 0o755)
        one = mine[-1]
        self.assertEqual(check.compare(fake, "", 1, 0, [], b"x", cpus=[one]).status, "pass")
        self.assertEqual(util.read(os.path.join(self.tmp, "cores")).split()[-1], str(one))
        self.assertEqual(sorted(os.sched_getaffinity(0)), mine)
        check.compare(fake, "", 1, 0, [], b"x")
        if len(mine) > 1:               # without CPUS: wherever the caller may run
            self.assertNotEqual(util.read(os.path.join(self.tmp, "cores")).split()[-1],
                                str(one))


if __name__ == "__main__":
    unittest.main()
