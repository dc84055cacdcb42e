"""pools.py: cores one task each (or all for one), GPUs shared by correctness runs and alone
for a timed run; first come, first served."""
import threading
import time
import unittest

import util  # noqa: F401
from kitgrade.pools import Cores, Gpus


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
