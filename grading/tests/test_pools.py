"""pools.py: cores one task each (or all for one), GPUs shared by correctness runs and alone
for a timed run; first come, first served."""
import os
import threading
import time
import unittest

import util  # noqa: F401
from kitgrade.driver.pools import Cores, Gpus, Held, TimingLine, idle_for


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

    def test_urgent_goes_first_once_it_says_so(self):
        """A task with an urgency (the timing worker: its GPU runs nothing) waits in line
        like any other while it is not urgent, and goes before the tasks waiting that are
        not once it is (FIFO among the urgent)."""
        for urgent_now, order in ((False, ["a", "w", "b"]), (True, ["w", "a", "b"])):
            c = Cores([0, 1])
            flag = [False]
            got = []
            held = c.acquire(2)

            def want(name, n, urgent=None):
                with c.take(n, urgent=urgent):
                    got.append(name)
            ts = [threading.Thread(target=want, args=("a", 1)),
                  threading.Thread(target=want, args=("w", 2, lambda: flag[0])),
                  threading.Thread(target=want, args=("b", 1))]
            for t in ts:
                t.start()
                time.sleep(0.05)
            flag[0] = urgent_now
            time.sleep(0.4)                  # the urgency asked again (URGENT_S)
            self.assertEqual(got, [])
            c.release(held)
            for t in ts:
                t.join(5)
            self.assertEqual(got, order, urgent_now)
            self.assertEqual(sorted(c.free), [0, 1])
            self.assertEqual(c.urgent, set())

    def test_an_urgency_that_fails_keeps_the_line_moving(self):
        """An urgency that raises is a no: the task keeps its place and gets its cores."""
        c = Cores([0])
        held = c.acquire(1)
        got = []

        def boom():
            raise RuntimeError("no answer")
        t = threading.Thread(target=lambda: got.append(c.acquire(1, urgent=boom)))
        t.start()
        time.sleep(0.3)
        c.release(held)
        t.join(5)
        self.assertEqual(got, [[0]])
        self.assertEqual((c.queue, c.urgent), ([], set()))

    def test_idle_for_wants_a_gpu_idle_a_while(self):
        """idle_for: yes once the GPU ran nothing at every asking for SECS; a run in between
        starts the count again."""
        g = Gpus(["0"])
        now = [100.0]
        u = idle_for(g, "0", secs=1.0, clock=lambda: now[0])
        self.assertFalse(u())                # idle from now on
        now[0] += 0.6
        self.assertFalse(u())
        g.shared["0"] = 1                    # a correctness run came and went
        self.assertFalse(u())
        g.shared["0"] = 0
        now[0] += 0.6
        self.assertFalse(u())
        now[0] += 1.0
        self.assertTrue(u())
        g.excl["0"] = True                   # held alone: not idle
        self.assertFalse(u())

    def test_a_whole_physical_core(self):
        """With SMT siblings (0,2) and (1,3): a timed run takes both CPUs of one physical
        core, and waits while every physical core has a busy CPU."""
        sib = {0: [0, 2], 2: [0, 2], 1: [1, 3], 3: [1, 3]}
        c = Cores([0, 1, 2, 3], siblings=lambda x: sib[x])
        self.assertEqual(c.groups, [(0, 2), (1, 3)])
        with c.take(1) as a:
            self.assertEqual(a, [0])
            with c.take_whole() as w:
                self.assertEqual(w, [1, 3])
                self.assertEqual(c.free, [2])
                got = []
                t = threading.Thread(target=lambda: got.append(c.acquire_whole()))
                t.start()
                time.sleep(0.05)
                self.assertEqual(got, [])        # 2 is free, its sibling 0 is not
        t.join(2)
        self.assertEqual(got, [[0, 2]])
        c.release(got[0])
        self.assertEqual(sorted(c.free), [0, 1, 2, 3])
        # no topology known: each CPU is its own core
        self.assertEqual(Cores([5, 6], siblings=lambda x: [x]).groups, [(5,), (6,)])

    def test_sysfs_siblings(self):
        import tempfile
        from kitgrade.driver.pools import _cpu_list, thread_siblings
        self.assertEqual(_cpu_list("0-2,8"), [0, 1, 2, 8])
        self.assertIsNone(_cpu_list("x"))
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(d + "/cpu3/topology")
            with open(d + "/cpu3/topology/thread_siblings_list", "w") as f:
                f.write("3,11\n")
            self.assertEqual(thread_siblings(3, d), [3, 11])
            self.assertEqual(thread_siblings(4, d), [4])

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

    def test_the_next_student_starts_early_on_the_other_core(self):
        """While a student is timed, the next one in the line that may start early has its
        ahead() called first (on the worker's other core), then its job on that same core;
        one that may not (no ahead) is never started early; two GPUs' workers never take a
        student that the other started early."""
        g, c = Gpus(["0", "1"], share=4), Cores([0, 1, 2, 3])
        line = TimingLine(g, c, ["0"])
        log, lock, gate = [], threading.Lock(), threading.Event()

        def note(*x):
            with lock:
                log.append(x)

        def job(name):
            def f(slot, cs):
                note("job", name, slot, tuple(cs))
                if name == "a":
                    gate.wait(2)
                return name
            return f

        def ahead(name):
            return lambda slot, cs: note("ahead", name, slot, tuple(cs))
        ts = [threading.Thread(target=line.submit, args=(job("a"),))]
        ts[0].start()
        time.sleep(0.1)                 # a is timed; b (may start early) and c (may not) queue
        ts.append(threading.Thread(target=line.submit, args=(job("b"), ahead("b"))))
        ts[1].start()
        time.sleep(0.05)
        ts.append(threading.Thread(target=line.submit, args=(job("c"),)))
        ts[2].start()
        time.sleep(0.05)
        gate.set()
        for t in ts:
            t.join(5)
        line.close()
        names = [(w, n) for w, n, _s, _c in log]
        # b queued while a was timed: it starts early at once, c never does
        self.assertEqual(names, [("job", "a"), ("ahead", "b"), ("job", "b"), ("job", "c")])
        cores = {(w, n): cs for w, n, _s, cs in log}
        self.assertEqual(cores[("ahead", "b")], cores[("job", "b")])
        self.assertNotEqual(cores[("job", "a")], cores[("job", "b")])
        self.assertEqual(len(cores[("job", "b")]), 1)

    def test_a_student_queued_behind_another_starts_early_before_that_ones_job(self):
        g, c = Gpus(["0"], share=4), Cores([0, 1])
        line = TimingLine(g, c, ["0"])
        log, hold = [], threading.Event()

        def correctness():              # the GPU shared: the worker waits for it
            with g.shared_use("0"):
                hold.wait(2)
        r = threading.Thread(target=correctness)
        r.start()
        time.sleep(0.05)
        ts = [threading.Thread(target=line.submit, args=(
            lambda s, cs, n=n: log.append(("job", n, tuple(cs))),
            (lambda s, cs, n=n: log.append(("ahead", n, tuple(cs)))) if n != "a" else None))
            for n in "ab"]
        for t in ts:
            t.start()
            time.sleep(0.05)
        hold.set()
        for t in ts + [r]:
            t.join(5)
        line.close()
        self.assertEqual([x[:2] for x in log], [("ahead", "b"), ("job", "a"), ("job", "b")])
        self.assertEqual(log[0][2], log[2][2])
        self.assertNotEqual(log[1][2], log[2][2])

    def test_a_student_started_early_is_timed_by_that_worker(self):
        line = TimingLine(Gpus(["0", "1"]), Cores([0, 1, 2, 3]), ["0", "1"])
        item = {"job": None, "ahead": None, "slot": "0", "done": None}
        with line.cv:
            line.queue.append(item)
            self.assertIsNone(line._take("1", keep=True))
            self.assertIs(line._take("0", keep=True), item)
            line.queue.remove(item)
        line.close()

    def test_error_reaches_the_student(self):
        line = TimingLine(Gpus(["0"]), Cores([0]), ["0"])

        def bad(slot, cs):
            raise ValueError("boom")
        with self.assertRaises(ValueError):
            line.submit(bad)
        self.assertEqual(line.submit(lambda s, c: 7), 7)
        line.close()



class SharedRun(unittest.TestCase):
    def test_a_timed_run_waits_for_one_run_not_a_student(self):
        """A timed run that queues during a student's first correctness run goes before its
        second; the student waiting meanwhile gives its core back, so a build takes it."""
        g, c = Gpus(["0"], share=4), Cores([0, 1])
        log, first_in, go = [], threading.Event(), threading.Event()
        cores_seen = []

        def student(name, runs, hold):
            with Held(c) as h:
                for i in range(runs):
                    with g.shared_run("0", h):
                        cores_seen.append((name, list(h.cs)))
                        log.append("%s run %d" % (name, i + 1))
                        if hold and i == 0:
                            first_in.set()
                            go.wait(5)

        def timed():
            with g.alone("0"):
                log.append("timed")

        def build():
            with c.take(1):
                log.append("build")
        s1 = threading.Thread(target=student, args=("s1", 2, True))
        s1.start()
        self.assertTrue(first_in.wait(5))
        t = threading.Thread(target=timed)
        t.start()
        time.sleep(0.05)
        s2 = threading.Thread(target=student, args=("s2", 1, False))
        s2.start()
        time.sleep(0.1)                 # s2 waits for the GPU without a core
        self.assertEqual(len(c.free), 1)   # s1 holds one core; s2 gave its own back
        b = threading.Thread(target=build)
        b.start()
        b.join(2)
        self.assertFalse(b.is_alive(), "a build must get the core of a student waiting for the GPU")
        go.set()
        for x in (s1, t, s2):
            x.join(5)
        self.assertEqual(log[:3], ["s1 run 1", "build", "timed"])
        self.assertLess(log.index("timed"), log.index("s1 run 2"))
        self.assertLess(log.index("timed"), log.index("s2 run 1"))
        self.assertTrue(all(len(cs) == 1 for _n, cs in cores_seen))
        self.assertEqual(sorted(c.free), [0, 1])    # every core back

    def test_a_full_gpu_keeps_the_core(self):
        """Full of other runs (not kept for a timed run): the task waits with its core, and
        runs on it once a place is free."""
        g, c = Gpus(["0"], share=1), Cores([0, 1])
        inside, go, log = threading.Event(), threading.Event(), []

        def first():
            with Held(c) as h, g.shared_run("0", h):
                inside.set()
                go.wait(5)

        def second():
            with Held(c) as h:
                mine = list(h.cs)
                with g.shared_run("0", h):
                    log.append(h.cs == mine)
        a = threading.Thread(target=first)
        a.start()
        self.assertTrue(inside.wait(5))
        b = threading.Thread(target=second)
        b.start()
        time.sleep(0.1)
        self.assertEqual((c.free, log), ([], []))     # b waits, its core kept
        go.set()
        a.join(5)
        b.join(5)
        self.assertEqual(log, [True])
        self.assertEqual(sorted(c.free), [0, 1])

    def test_no_place_on_the_gpu_while_waiting_for_a_core(self):
        g, c = Gpus(["0"], share=2), Cores([0])
        log, build_go, build_in = [], threading.Event(), threading.Event()

        def student():
            with Held(c) as h, g.shared_run("0", h):
                log.append("run")

        def build():
            with c.take(1):
                build_in.set()
                build_go.wait(5)
        with g.alone("0"):              # a timed run: the student gives its core back
            s = threading.Thread(target=student)
            s.start()
            time.sleep(0.1)
            b = threading.Thread(target=build)
            b.start()
            self.assertTrue(build_in.wait(5))
        time.sleep(0.1)                 # the GPU is open; the student waits for the core
        self.assertEqual((g.shared["0"], log), (0, []))
        with g.alone("0"):              # so a second timed run gets the GPU at once
            log.append("timed")
        build_go.set()
        s.join(5)
        b.join(5)
        self.assertEqual(log, ["timed", "run"])

    def test_an_open_gpu_keeps_the_core(self):
        g, c = Gpus(["0"], share=2), Cores([0, 1, 2])
        with Held(c) as h:
            before = list(h.cs)
            for _ in range(3):
                with g.shared_run("0", h):
                    self.assertEqual(h.cs, before)
        self.assertEqual(sorted(c.free), [0, 1, 2])


if __name__ == "__main__":
    unittest.main()
