"""keys.py: a key per request, just in time, recorded; anything else on the channel refused."""
import os
import subprocess
import threading
import time
import unittest

import util
from kitgrade.runs.keys import SPLIT, HelperKeyServer, KeyServer, Lockstep

HELPER = os.path.join(util.GRADING, "build", "keyserve")
if not os.path.isfile(HELPER):          # make test runs these before the grader is built
    subprocess.run(["make", "-s", "-C", util.GRADING, "build/keyserve"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def ask(srv, lines):
    os.write(srv.req_w, lines.encode())


def read_line(fd, timeout=2.0):
    t0, buf = time.time(), b""
    os.set_blocking(fd, False)
    while time.time() - t0 < timeout:
        try:
            c = os.read(fd, 1)
            if not c:
                return buf.decode()
            buf += c
            if c == b"\n":
                return buf.decode()
        except BlockingIOError:
            time.sleep(0.005)
    return buf.decode()


class Keys(unittest.TestCase):
    helper = None

    def server(self, n, gate=None):
        return KeyServer(n, helper=self.helper, tmp=util.tempfile.gettempdir(), gate=gate)

    def test_gate_open_at_once_without_a_pipe(self):
        s = self.server(2)
        s.start()
        try:
            ask(s, "gate 0 0\n")
            line = read_line(s.key_r)
            ask(s, "rep 1 1\n")
            key = read_line(s.key_r)
        finally:
            s.finish()
        self.assertEqual((line, s.broken), ("open\n", ""))
        self.assertTrue(key.startswith("key "), key)
        self.assertLessEqual(s.gated_ns, s.opened_ns)

    def test_a_variant_named_with_its_part(self):
        """rep PART:V K (KIT_CTL_PARTS=1): a variant of each part on its own, the same number
        twice; a malformed name breaks the channel."""
        s = self.server(4)
        s.start()
        try:
            for line in ("rep rgb:2 1\n", "rep sep:2 1\n", "go sep:2 1\n", "done sep:2 1\n"):
                ask(s, line)
                if line.startswith("rep"):
                    read_line(s.key_r)
        finally:
            s.finish()
        self.assertEqual(s.broken, "")
        self.assertEqual(sorted(s.keys), [("rgb:2", 1), ("sep:2", 1)])
        self.assertIsNotNone(s.window("sep:2", 1))
        for bad in ("rep RGB:2 1\n", "rep :2 1\n", "rep rgb: 1\n", "rep a:b:1 1\n",
                    "rep rgb:2x 1\n"):
            s = self.server(2)
            s.start()
            try:
                ask(s, bad)
                read_line(s.key_r)
            finally:
                s.finish()
            self.assertIn("on the key channel", s.broken, bad)

    def test_gate_held_until_the_grader_opens_it(self):
        r, w = os.pipe()
        s = self.server(2, gate=r)
        s.start()
        try:
            ask(s, "gate 0 0\n")
            early = read_line(s.key_r, timeout=0.3)   # held: nothing yet
            t_open = time.monotonic_ns()
            os.write(w, b"o")
            os.close(w)
            line = read_line(s.key_r)
            ask(s, "gate 0 0\n")                 # the next case's gate: open at once
            again = read_line(s.key_r, timeout=0.5)
        finally:
            s.finish()
        self.assertEqual((early, line, again, s.broken), ("", "open\n", "open\n", ""))
        self.assertLess(s.gated_ns, t_open)
        self.assertGreaterEqual(s.opened_ns, t_open)

    def test_gate_refused_at_the_pipes_end(self):
        r, w = os.pipe()
        s = self.server(2, gate=r)
        s.start()
        ask(s, "gate 0 0\n")
        os.close(w)                        # the grader went on without this run
        line = read_line(s.key_r)
        s.finish()
        self.assertEqual(line, "")         # the end of the channel, no "open"
        self.assertIn("was not let start", s.broken)

    def test_serves_fresh_keys(self):
        s = self.server(4)
        s.start()
        try:
            ask(s, "rep 2 1\n")
            k1 = read_line(s.key_r)
            ask(s, "rep 2 2\n")
            k2 = read_line(s.key_r)
        finally:
            s.finish()
        self.assertRegex(k1, r"^key [0-9a-f]{16}\n$")
        self.assertNotEqual(k1, k2)
        self.assertEqual(s.keys[("2", 1)][0], k1.split()[1])
        self.assertEqual([r[:2] for r in s.requests], [("2", 1), ("2", 2)])
        self.assertLessEqual(s.requests[0][2], s.keys[("2", 1)][1])
        self.assertEqual(s.next_request_after("2", 1), s.requests[1][2])
        self.assertIsNone(s.next_request_after("2", 2))
        self.assertEqual(s.broken, "")
        self.assertEqual(s.ctl_arg, "%d,%d" % (s.key_r, s.req_w))

    def test_go_and_done_notes(self):
        s = self.server(4)
        s.start()
        try:
            ask(s, "rep 3 1\n")
            read_line(s.key_r)
            ask(s, "go 3 1\n")
            time.sleep(0.01)
            ask(s, "done 3 1\n")
            time.sleep(0.05)
        finally:
            s.finish()
        self.assertEqual(s.broken, "")
        go, done = s.window("3", 1)
        self.assertGreaterEqual(done - go, 5000000)       # 10 ms apart, give or take
        self.assertLessEqual(s.requests[0][2], go)
        self.assertIsNone(s.window("3", 2))

    def test_the_runs_cpu_time_at_each_request_and_note(self):
        """Given the run's cgroup CPU file (v2's usage_usec; v1's bare nanoseconds), each
        request and note is stamped with it, and cpu_outside gives the CPU beyond one thread's
        outside each window but the last: here 100 ms of CPU in a content step of a few ms."""
        for text, scale in (("usage_usec %d\nuser_usec 1\n", 1), ("%d\n", 1000)):
            stat = os.path.join(util.tempfile.mkdtemp(), "cpu.stat")
            util.put(stat, text % (1000 * scale))
            s = self.server(4)
            s.start(stat)
            try:
                ask(s, "rep 3 1\n")
                read_line(s.key_r)
                util.put(stat, text % (101000 * scale))     # another thread's 100 ms
                ask(s, "go 3 1\ndone 3 1\nrep 3 2\n")
                read_line(s.key_r)
            finally:
                s.finish()
            self.assertEqual(s.broken, "")
            self.assertEqual(s.cpu[("3", 1)], {"rep": 1000, "go": 101000, "done": 101000})
            self.assertEqual(s.cpu[("3", 2)], {"rep": 101000})
            out = s.cpu_outside("3")
            self.assertEqual(len(out), 1)
            self.assertGreater(out[0], 50.0)        # 100 ms of CPU less the steps' wall time
            self.assertLessEqual(out[0], 100.0)
            self.assertEqual(s.cpu_outside("4"), [])
            # inside repetition 1's window (go to done) no CPU went by
            inside = s.cpu_inside("3")
            self.assertEqual(len(inside), 1)
            self.assertEqual(inside[0][0], 0.0)
            self.assertGreaterEqual(inside[0][1], 0.0)
            self.assertEqual(s.cpu_inside("4"), [])

    def test_the_runs_last_lines_are_read_after_it_ends(self):
        # the run said everything and ended before the server read a line (a loaded machine):
        # finish still reads it all, and the repetition has its window
        s = self.server(4)
        ask(s, "rep 4 1\ngo 4 1\ndone 4 1\n")
        s.start()
        s.finish()
        self.assertEqual(s.broken, "")
        self.assertIsNotNone(s.window("4", 1))

    def test_refuses(self):
        for lines, why in (("rep 1 1\nrep 1 1\n", "twice"), ("hello\n", "wrote "),
                           ("rep 1 1\nrep 1 2\nrep 1 3\n", "more keys"),
                           ("go 1 1\n", "started a repetition out of turn"),
                           ("rep 1 1\ndone 1 1\n", "ended a repetition out of turn"),
                           ("rep 1 1\ngo 1 1\ngo 1 1\n", "out of turn"),
                           ("gate 1 0\n", "start out of turn"),
                           ("gate 0 2\n", "start out of turn")):
            s = self.server(2)
            s.start()
            ask(s, lines)
            time.sleep(0.2)
            s.finish()
            self.assertIn(why, s.broken)


    def test_split_of_a_runs_time(self):
        """split: a run's time parted from its records (ns): start to the gate, the gate's
        hold, the set-up to the first key; per repetition key to go (content), go to done (the
        variant), done to the next key of the same variant (output) or of another (between);
        the last done to the end. Nothing without every repetition's go and done."""
        s = KeyServer(8)
        try:
            ms = 1000000
            s.gated_ns, s.opened_ns = 10 * ms, 30 * ms
            for (v, k, asked, sent, go, done) in (("1", 1, 40, 41, 45, 46), ("1", 2, 50, 50, 52, 53),
                                                  ("2", 1, 60, 60, 61, 63)):
                s.requests.append((v, k, asked * ms))
                s.keys[(v, k)] = ("%016x" % k, sent * ms)
                s.notes[(v, k)] = [go * ms, done * ms]
            self.assertEqual(s.split(0, 70 * ms), {
                "start": 0.01, "gate": 0.02, "setup": 0.01, "key": 0.001, "content": 0.007, "variant": 0.004,
                "output": 0.004, "between": 0.007, "end": 0.007})
            self.assertEqual(list(s.split(0, 70 * ms)), list(SPLIT))
            self.assertAlmostEqual(sum(s.split(0, 70 * ms).values()), 0.07)  # the whole run
            s.notes[("2", 1)] = [61 * ms]               # a repetition that never said done
            self.assertEqual(s.split(0, 70 * ms), {})
        finally:
            for fd in (s.key_r, s.key_w, s.req_r, s.req_w):   # never started: its pipes only
                os.close(fd)


@unittest.skipUnless(os.path.isfile(HELPER), "build/keyserve is not built (make -C grading)")
class HelperKeys(Keys):
    """The same with build/keyserve answering."""
    helper = HELPER

    def test_it_is_the_helper(self):
        s = self.server(1)
        self.assertIsInstance(s, HelperKeyServer)
        s.start()
        s.finish()
        self.assertEqual(s.requests, [])


if __name__ == "__main__":
    unittest.main()


@unittest.skipUnless(os.path.isfile(HELPER), "build/keyserve is not built (make -C grading)")
class LockstepKeys(unittest.TestCase):
    """Two runs timed as a pair: their repetitions alternate, each alone, from the moment both
    have started; when one ends, the other runs free."""

    def pair_run(self, reps, delays=(0.0, 0.0), work=0.02):
        pair = Lockstep(wait_s=5)
        log, lock = [], threading.Lock()
        servers = [KeyServer(r, helper=HELPER, tmp=util.tempfile.gettempdir(),
                             baton=pair.side(i)) for i, r in enumerate(reps)]

        def note(*x):
            with lock:
                log.append(x + (time.monotonic(),))

        def harness(i):
            s = servers[i]
            time.sleep(delays[i])           # its start-up
            for k in range(1, reps[i] + 1):
                note(i, "ask", k)
                ask(s, "rep 1 %d\n" % k)
                line = read_line(s.key_r, timeout=5)
                self.assertTrue(line.startswith("key "), line)
                ask(s, "go 1 %d\n" % k)
                note(i, "go", k)
                time.sleep(work)
                note(i, "done", k)
                ask(s, "done 1 %d\n" % k)
            os.close(s.req_w)               # the run ends: the server reads the end
            s.req_w = -1
        for s in servers:
            s.start()
        ts = [threading.Thread(target=harness, args=(i,)) for i in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(20)
        for s in servers:
            s.finish()
        pair.close()
        for s in servers:
            self.assertEqual(s.broken, "")
        return log

    def test_repetitions_alternate(self):
        log = self.pair_run((3, 3))
        gos = [(i, k) for i, what, k, _t in log if what == "go"]
        self.assertEqual(gos, [(0, 1), (1, 1), (0, 2), (1, 2), (0, 3), (1, 3)])
        # never two repetitions at once
        spans = {}
        for i, what, k, t in log:
            spans.setdefault((i, k), {})[what] = t
        ws = sorted((x["go"], x["done"]) for x in spans.values())
        for (a0, a1), (b0, b1) in zip(ws, ws[1:]):
            self.assertLessEqual(a1, b0)

    def test_the_first_baton_waits_for_both_starts(self):
        log = self.pair_run((2, 2), delays=(0.0, 0.3))
        first_go = min(t for i, what, k, t in log if what == "go")
        b_asks = min(t for i, what, k, t in log if i == 1 and what == "ask")
        self.assertGreaterEqual(first_go, b_asks)

    def test_one_run_ends_the_other_runs_free(self):
        log = self.pair_run((1, 4))
        gos = [(i, k) for i, what, k, _t in log if what == "go"]
        self.assertEqual(gos, [(0, 1), (1, 1), (1, 2), (1, 3), (1, 4)])
