"""pools.py: cores one task each (or all for one), GPUs shared by correctness runs and alone
for a timed run; first come, first served."""
import threading
import time
import unittest

import util  # noqa: F401
from kitgrade.pools import Cores, Gpus, TimingLine


class Pools(unittest.TestCase):
    def test_cores(self):
        c = Cores([0, 1, 2])
        with c.take(1) as a, c.take(2) as b:
            self.assertEqual(sorted(a + b), [0, 1, 2])
        with c.take(0) as every:
            self.assertEqual(sorted(every), [0, 1, 2])
        got = []

        def want_all():
            with c.take(0) as x:
                got.append(("all", len(x)))

        def want_one():
            with c.take(1):
                got.append(("one", 1))
        with c.take(1):
            t1 = threading.Thread(target=want_all)
            t1.start()
            time.sleep(0.05)
            t2 = threading.Thread(target=want_one)
            t2.start()
            time.sleep(0.05)
            self.assertEqual(got, [])        # the one waits behind the one that wants all
        t1.join()
        t2.join()
        self.assertEqual(got, [("all", 3), ("one", 1)])

    def test_gpus(self):
        g = Gpus(["0", "1"], share=2)
        log = []
        with g.shared_use("0"), g.shared_use("0"):
            with g.alone() as s:
                self.assertEqual(s, "1")
                log.append("alone on 1")

        def timed():
            with g.alone("0"):
                log.append("alone on 0")
                time.sleep(0.05)
                log.append("alone done")

        def shared():
            with g.shared_use("0"):
                log.append("shared")
        with g.shared_use("0"):
            t = threading.Thread(target=timed)
            t.start()
            time.sleep(0.05)
            s = threading.Thread(target=shared)
            s.start()
            time.sleep(0.05)
            self.assertEqual(log, ["alone on 1"])
        t.join()
        s.join()
        self.assertEqual(log, ["alone on 1", "alone on 0", "alone done", "shared"])


if __name__ == "__main__":
    unittest.main()


class Line(unittest.TestCase):
    def test_batch_under_one_hold(self):
        """Students who queue while the GPU is taken are timed in the same hold: the
        correctness run that waits for the GPU gets it once, after all of them."""
        g, c = Gpus(["0"], share=4), Cores([0, 1])
        line = TimingLine(g, c, ["0"])
        order, gate = [], threading.Event()

        def job(name):
            def f(slot, cs):
                self.assertEqual((slot, len(cs)), ("0", 1))
                self.assertTrue(g.excl["0"])
                if name == "a":
                    gate.wait(2)
                order.append(name)
                return name.upper()
            return f
        res = {}
        ts = [threading.Thread(target=lambda n=n: res.__setitem__(n, line.submit(job(n))))
              for n in "abc"]
        ts[0].start()
        time.sleep(0.1)                 # a holds the GPU; b and c queue behind it

        def correctness():
            with g.shared_use("0"):
                order.append("run")
        r = threading.Thread(target=correctness)
        r.start()
        ts[1].start()
        ts[2].start()
        time.sleep(0.1)
        gate.set()
        for t in ts + [r]:
            t.join(5)
        self.assertEqual(res, {"a": "A", "b": "B", "c": "C"})
        self.assertEqual(order[-1], "run")
        self.assertEqual(sorted(order[:3]), ["a", "b", "c"])
        # one hold for the three, at least as long as a's wait
        self.assertEqual(line.batches, 1)
        self.assertGreaterEqual(line.held, 0.1)
        line.close()

    def test_error_reaches_the_student(self):
        line = TimingLine(Gpus(["0"]), Cores([0]), ["0"])

        def bad(slot, cs):
            raise ValueError("boom")
        with self.assertRaises(ValueError):
            line.submit(bad)
        self.assertEqual(line.submit(lambda s, c: 7), 7)
        line.close()

