"""A run's time limit on a shared GPU (Limits.share, runwatch._ShareClock): a second among N
runs counts 1/N, up to wall_most_s; alone, the wall clock as before. On a 64-core host, 64
correctness runs on one GPU each ran past a 10 s limit that one of them alone met in 0.7 s."""
import time
import unittest

from test_sandbox import Base, Limits
from kitgrade.box.runwatch import _ShareClock


class Clock(unittest.TestCase):
    def test_alone_is_the_wall_clock(self):
        c = _ShareClock(Limits(wall_s=2.0), 100.0)
        self.assertFalse(c.past(101.9))
        self.assertAlmostEqual(c.left(101.9), 0.1)
        self.assertTrue(c.past(102.0))
        self.assertIn("(wall clock)", c.why(102.0))

    def test_shared_seconds_count_a_share(self):
        n = [4]
        c = _ShareClock(Limits(wall_s=2.0, share=lambda: n[0], wall_most_s=100.0), 0.0)
        self.assertFalse(c.past(6.0))           # 6 s among 4: 1.5 s of the limit
        n[0] = 1                                # the others ended (a timed run drains the GPU)
        self.assertFalse(c.past(6.4))
        self.assertTrue(c.past(6.5))            # 1.5 + 0.5 alone
        why = c.why(6.5)
        self.assertIn("up to 4 runs shared", why)
        self.assertIn("6.5 s of wall clock", why)

    def test_at_most_wall_most_s(self):
        c = _ShareClock(Limits(wall_s=2.0, share=lambda: 64, wall_most_s=10.0), 0.0)
        self.assertFalse(c.past(9.9))
        self.assertTrue(c.past(10.0))

    def test_a_busy_core_is_not_waiting(self):
        """A run that spins on its cores is not waiting for the GPU: the clock never lags its
        CPU time over its cores, so a spinning hang is a timeout at the limit, not a CPU limit
        breach later."""
        c = _ShareClock(Limits(wall_s=2.0, share=lambda: 8, wall_most_s=100.0), 0.0, cores=1)
        self.assertFalse(c.past(1.0, cpu_s=0.1))
        self.assertTrue(c.past(2.05, cpu_s=2.0))
        c = _ShareClock(Limits(wall_s=2.0, share=lambda: 8, wall_most_s=100.0), 0.0, cores=4)
        self.assertFalse(c.past(2.05, cpu_s=4.0))      # 1 s over four cores

    def test_a_broken_or_empty_count_is_the_wall_clock(self):
        def broken():
            raise RuntimeError("no count")
        for share in (broken, lambda: 0):
            c = _ShareClock(Limits(wall_s=1.0, share=share, wall_most_s=50.0), 0.0)
            self.assertTrue(c.past(1.0), share)


class SharedRun(Base):
    """In a real box: a run of 1.5 s under a 0.5 s limit ends on its own when four runs
    share its GPU, and is stopped at the limit when it runs alone."""

    def sleeper(self, share):
        lim = dict(wall_s=0.5)
        if share:
            lim.update(share=lambda: 4, wall_most_s=20.0)
        t0 = time.monotonic()
        r, out = self.run_sh("sleep 1.5; echo DONE", **lim)
        return r, out, time.monotonic() - t0

    def test_shared_run_ends_on_its_own(self):
        r, out, took = self.sleeper(True)
        self.assertIsNone(r.breach, (r, out))
        self.assertIn("DONE", out)
        self.assertGreaterEqual(took, 1.5)

    def test_a_spinning_shared_run_is_stopped(self):
        """On one core, a run that spins ends as a timeout about its limit, shared or not."""
        log = self.out / "spin.log"
        r = self.box.run(["sh", "-c", "while :; do :; done"], cwd=self.box.root, env=self.env(),
                         limits=Limits(wall_s=0.5, share=lambda: 4, wall_most_s=20.0),
                         stdout=log, stderr=log, cpus=[0])
        self.assertEqual(r.breach, "timeout", r)
        self.assertLess(r.wall_ms, 5000)

    def test_alone_it_is_stopped(self):
        r, out, took = self.sleeper(False)
        self.assertEqual(r.breach, "timeout", (r, out))
        self.assertNotIn("DONE", out)
        self.assertLess(took, 1.4)


if __name__ == "__main__":
    unittest.main()
