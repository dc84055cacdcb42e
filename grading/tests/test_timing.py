"""timing.py with injected runs and timings (no timed test): what each breach looks like and
what it is called, the CPU-time formula. The pairs, early stopping and the spread:
test_pairs.py, with the fakes of this file."""
import os
import unittest

import util
from kitgrade.runs import cupti, runcheck, timing
from kitgrade.runs.desc import Desc, Rep
from kitgrade.runs.runcheck import gpu_mem_budget as timing_budget

INFO_GPU = {"lab": "98", "gpu": True, "parts": [{"name": "", "variants": [
    {"id": 1, "span": "kernel", "ceiling": "device-copy", "min_launches": 2},
    {"id": 2, "span": "total", "ceiling": "pcie", "min_launches": 1}]}]}
INFO_CPU = {"lab": "99", "gpu": False, "parts": [{"name": "", "variants": [
    {"id": 1, "span": "host", "ceiling": "host-mem"}, {"id": 2, "span": "host"}]}]}
RUB = "points 1 8 4\npoints 2 8 4\nperf_reps 3\nperf_pairs 2..4\nperf_spread 0.1\n" \
      "case a all --size 4x4\nperf all --size 64x64\n"
CHECKER = """#!/usr/bin/env python3
import sys
a = sys.argv
key = str(int(a[a.index("--key") + 1], 16))
data = sys.stdin.buffer.read()
if data == ("ok-" + key).encode():
    print("pass")
    sys.exit(0)
print("fail 1 4 1 1")
sys.exit(1)
"""


class Srv:
    def __init__(self, keys, requests, broken="", notes=None):
        self.keys, self.requests, self.broken = keys, requests, broken
        self.notes = notes or {}

    def window(self, v, k):
        return self.notes.get((v, k))

    def next_request_after(self, v, k):
        for i, (rv, rk, t) in enumerate(self.requests):
            if (rv, rk) == (v, k) and i + 1 < len(self.requests):
                return self.requests[i + 1][2]
        return None


class Res:
    def __init__(self, rc=0, cpu_ms=0.0, wall_ms=0.0, breach=None, signal=None, extra=0):
        self.rc, self.cpu_ms, self.wall_ms = rc, cpu_ms, wall_ms
        self.breach, self.signal, self.extra_processes = breach, signal, extra


class Stu:
    def __init__(self, box, sd):
        self.box, self.sd, self.runs = box, sd, []

    def breach_reason(self, b, after=""):
        return "went past a limit (%s)" % b


def run_of(v, reps=3, keys=None, kernels=(2, 30000), copies=False, outputs=True,
           key_ok=True, window_ok=True, gpu=True, extra=0, cpu_ms=0.0, self_ms=1.0,
           gap=1000000):
    """A TimedRun of variant V: repetition k's window [k*gap, k*gap + 1e5], its key asked at
    k*gap - 1100 and handed at k*gap - 1000."""
    keys_d, reqs, lines, files = {}, [], [], {}
    recs = []
    for k in range(1, reps + 1):
        key = "%016x" % (0x1000 + k)
        t = k * gap
        keys_d[(str(v), k)] = (key, t - 1000)
        reqs.append((str(v), k, t - 1100))
        l0, l1 = (t, t + 100000) if window_ok else (t - 500000, t + 100000)
        lines.append(Rep(k, key if key_ok else "%016x" % 7, l0, l1, self_ms, self_ms))
        n, dur = kernels
        for j in range(n):
            recs.append(cupti.Rec("K", l0 + 1000 + j * dur, l0 + 1000 + (j + 1) * dur))
        if copies:
            recs.append(cupti.Rec("C", l0 + 90000, l0 + 95000, bytes=4096, copy="DtoH"))
        files["time/r/v%d.r%d.bin" % (v, k)] = ("ok-%d" % int(key, 16)).encode() if outputs \
            else b"stale"
    d = Desc(status="ok", reps=lines)
    case = "perf1"
    tr = cupti.Trace(version=2, complete=True, records=sorted(recs, key=lambda r: r.start),
                     copies_recorded=True) if gpu else None
    box = util.DictBox(files)
    return timing.TimedRun("student", box, {(case, v): "time/r"},
                           Res(cpu_ms=cpu_ms, wall_ms=cpu_ms, extra=extra),
                           Srv(keys_d, reqs), tr, {(case, v): d}, (reps + 2) * gap)


class HiddenWork(unittest.TestCase):
    """A CPU pair: time a student's repetitions take beyond their windows, more than the
    reference's and the noise, counts as the student's."""

    def pair(self, s_self, s_interval):
        t = timing.Timer.__new__(timing.Timer)
        t.ctx = util.make_ctx(RUB, INFO_CPU, gpu=False)
        rv, sv = timing.VarCheck(), timing.VarCheck()
        rv.self_ms, rv.intervals = [8.0] * 5, [10.0] * 5          # the rest: 2 ms
        sv.self_ms, sv.intervals = [s_self] * 5, [s_interval] * 5
        return t.pair(None, 1, rv, sv)

    def test_counted(self):
        self.assertAlmostEqual(self.pair(8.2, 10.3)["student_ms"], 8.2)    # 0.1 ms: noise
        out = self.pair(4.0, 10.0)              # a window 4 ms short of its repetition's work
        self.assertAlmostEqual(out["hidden_ms"], 4.0)
        self.assertAlmostEqual(out["student_ms"], 4.0 + 4.0 - 0.8)        # all but the noise
        self.assertEqual(out["hidden_why"], "")         # within the breach's allowance

    def test_cpu_outside_the_windows_counted(self):
        """Another thread's CPU outside the windows (beside the harness's content step)."""
        t = timing.Timer.__new__(timing.Timer)
        t.ctx = util.make_ctx(RUB, INFO_CPU, gpu=False)
        rv, sv = timing.VarCheck(), timing.VarCheck()
        rv.self_ms = sv.self_ms = [8.0] * 5
        rv.intervals = sv.intervals = [10.0] * 5
        rv.outside, sv.outside = [-0.2] * 4, [3.0] * 4
        out = t.pair(None, 1, rv, sv)
        self.assertAlmostEqual(out["outside_cpu_ms"], 3.0)
        self.assertAlmostEqual(out["student_ms"], 8.0 + 3.0 - 0.8)
        sv.outside = [-0.2, 0.3, -0.1, 0.0]                 # one thread's, as the reference's
        self.assertAlmostEqual(t.pair(None, 1, rv, sv)["student_ms"], 8.0)


class Verify(util.TempCase):
    def ctx(self, gpu=True, outputs=None):
        chk = self.write("check", CHECKER, 0o755)
        c = util.make_ctx(RUB, INFO_GPU if gpu else INFO_CPU, gpu=gpu, checker=chk, tmp=self.tmp)
        c.outputs = outputs or {}
        c.ceilings = {"0": {"device-copy": 100.0, "pcie": 10.0}, "host": {"host-mem": 10.0}}
        return c

    def timer(self, ctx):
        os.makedirs(os.path.join(self.tmp, "logs"), exist_ok=True)
        return timing.Timer(ctx, Stu(None, self.tmp), None, "t", slot="0")

    def check(self, run, v=1, check_outputs=True, **kw):
        ctx = self.ctx(**kw)
        t = self.timer(ctx)
        return t.verify(run, ctx.cases[-1], v, check_outputs)

    def test_honest_gpu_run(self):
        vc = self.check(run_of(1))
        self.assertEqual((vc.status, vc.reason), ("ok", ""))
        self.assertEqual(len(vc.times), 3)
        self.assertAlmostEqual(vc.times[0], 0.06)       # two kernels of 30 us
        self.assertEqual(len(vc.checked), 2)
        self.assertIn(3, vc.checked)                    # the last one always

    def test_replayed(self):
        vc = self.check(run_of(1, outputs=False))
        self.assertEqual(vc.status, "replayed")
        self.assertIn("wrong for the content the grader handed it", vc.reason)
        self.assertEqual(self.check(run_of(1, key_ok=False)).status, "replayed")
        r = run_of(1)
        r.srv.broken = "asked twice for the key of repetition 1 of v1"
        self.assertIn("asked twice", self.check(r).reason)
        r = run_of(1)
        r.descs[("perf1", 1)].reps = r.descs[("perf1", 1)].reps[:2]
        self.assertIn("instead of 1..3", self.check(r).reason)

    def test_a_run_of_every_part_names_the_part_on_the_key_channel(self):
        """perf_one_process: the keys of variant 1 of part p are asked as p:1."""
        import copy
        ctx = self.ctx()
        case = copy.copy(ctx.cases[-1])
        case.part = "p"
        r = run_of(1)
        r.srv.keys = {("p:" + v, k): x for (v, k), x in r.srv.keys.items()}
        r.srv.requests = [("p:" + v, k, t) for v, k, t in r.srv.requests]
        ctx.rub.perf_one_process = True
        t = self.timer(ctx)
        vc = t.verify(r, case, 1, False)
        self.assertEqual((vc.status, vc.reason), ("ok", ""))
        ctx.rub.perf_one_process = False             # the same run, read by number: no keys
        vc = t.verify(r, case, 1, False)
        self.assertEqual(vc.status, "replayed")
        self.assertIn("asked for 0 keys", vc.reason)
        self.assertEqual(runcheck.vtag(ctx, case, 3), "3")
        ctx.rub.perf_one_process = True
        self.assertEqual(runcheck.vtag(ctx, case, 3), "p:3")
        self.assertEqual(runcheck.vtag(ctx, ctx.cases[-1], 3), "3")   # a part without a name

    def test_a_chain_checks_outputs_after_the_gpu(self):
        """chain_runs (the GPU held) verifies records only; chain_checks catches the replay."""
        ctx = self.ctx()
        t = self.timer(ctx)

        def process(who, items, pair, when="", label=""):
            r = run_of(1, outputs=(who == "reference"))
            r.who = who
            return r
        t.process, t.discard = process, lambda r: None
        items = [(ctx.cases[-1], 1)]
        out, pending, runs = t.chain_runs(items, {}, items)
        self.assertEqual(out[("perf1", 1)].status, "ok")
        self.assertEqual(len(pending), len(runs))
        res = t.chain_checks(out, pending, runs, items)["1"]
        self.assertEqual(res.status, "replayed")
        self.assertIn("wrong for the content", res.reason)

    def test_launches_copies_windows(self):
        vc = self.check(run_of(1, kernels=(1, 30000)))
        self.assertEqual(vc.status, "no-kernel")
        self.assertIn("launched 1 kernel;", vc.reason)
        self.assertEqual(self.check(run_of(1, copies=True)).status, "copies-in-launcher")
        # v2's span is total: its copies are its lesson
        self.assertEqual(self.check(run_of(2, copies=True), v=2).status, "ok")
        self.assertEqual(self.check(run_of(1, window_ok=False)).status, "impossible-time")
        self.assertEqual(self.check(run_of(1, extra=2)).status, "extra-processes")

    def test_a_run_in_lockstep_that_runs_while_it_waits_takes_the_others_time(self):
        """In lockstep the waiting run leaves the core to the other's repetition: a run whose
        CPU time passes what its time not waiting allows (a thread spinning meanwhile) is
        impossible-time; one blocked while it waits is not, nor one timed alone."""
        def lockstep_run(cpu_ms, lockstep=True):
            r = run_of(1, gpu=False, gap=100000000)
            for (v, k, t) in list(r.srv.requests):          # each key waited for 50 ms
                r.srv.requests[r.srv.requests.index((v, k, t))] = (v, k, t - 50000000 + 1100)
            r.res = Res(cpu_ms=cpu_ms, wall_ms=350.0)
            r.lockstep = lockstep
            return r
        self.assertEqual(self.check(lockstep_run(195.0), gpu=False).status, "ok")
        vc = self.check(lockstep_run(230.0), gpu=False)
        self.assertEqual(vc.status, "impossible-time")
        self.assertIn("230.0 ms of CPU in 350.0 ms, 150.0 ms of which it waited", vc.reason)
        self.assertEqual(self.check(lockstep_run(230.0, lockstep=False), gpu=False).status, "ok")

    def test_a_total_span_starts_at_the_call(self):
        """Host work before a total-span variant's first GPU record counts (decoding every
        picture first, page-locking buffers); a kernel span stays its kernels' own time."""
        r = run_of(2)
        for rec in r.trace.records:      # the GPU starts 50 us after the call: host work first
            rec.start += 50000
            rec.end += 50000
        vc = self.check(r, v=2)
        self.assertEqual(vc.status, "ok")
        self.assertAlmostEqual(vc.times[0], 0.111)      # 1 + 50 us on the host, 60 us of GPU
        vc = self.check(run_of(1))
        self.assertAlmostEqual(vc.times[0], 0.06)       # v1's span is its kernels

    def test_mechanism_streams_and_zero_copy(self):
        """A rubric's `mechanism` line: the records must show the streams that overlap, or no
        host copy; a variant that skips its step's mechanism loses its speed points only."""
        def streams(run, n_streams, overlap=True):
            for r in run.trace.records:         # repetition k's two kernels on streams 7, 8...
                r.stream = str(7 + (int(r.start) // 30000) % n_streams)
            if not overlap:
                return run
            for d in run.descs.values():         # a copy on another stream, over each kernel
                for rep in d.reps:
                    run.trace.records.append(cupti.Rec("C", rep.l0 + 2000, rep.l0 + 20000,
                                                       "99", 4096, "HtoD"))
            run.trace.records.sort(key=lambda r: r.start)
            return run
        ctx = self.ctx()
        ctx.rub.mechanism = {"2": {"streams": 2}}
        t = self.timer(ctx)
        ok = t.verify(streams(run_of(2), 2), ctx.cases[-1], 2, True)
        self.assertEqual((ok.status, ok.reason), ("ok", ""))
        one = t.verify(streams(run_of(2), 1, overlap=False), ctx.cases[-1], 2, True)
        self.assertEqual(one.status, "no-mechanism")
        self.assertIn("repetition 1 ran its kernels and copies on 1 stream;", one.reason)
        apart = t.verify(streams(run_of(2), 2, overlap=False), ctx.cases[-1], 2, True)
        self.assertEqual(apart.status, "no-mechanism")     # two streams used, never at once
        self.assertIn("overlapped in only 0 of its 3 repetitions", apart.reason)
        ctx.rub.mechanism = {"2": {"no-copies": 1}}
        self.assertEqual(t.verify(run_of(2), ctx.cases[-1], 2, True).status, "ok")
        zc = t.verify(run_of(2, copies=True), ctx.cases[-1], 2, True)
        self.assertEqual(zc.status, "no-mechanism")
        self.assertIn("repetition 1 copied 4096 bytes between host and device (DtoH)", zc.reason)
        ctx.checks_off.add(("2", "no-mechanism"))         # the reference broke it: off
        self.assertEqual(t.verify(run_of(2, copies=True), ctx.cases[-1], 2, True).status, "ok")

    def test_mechanism_memories_and_shared(self):
        """pinned/pageable: every host copy's host side of that kind; shared: a kernel of every
        repetition with shared memory; managed: managed memory live in every repetition. What
        an older records format does not hold is not held against the variant."""
        ctx = self.ctx()
        t = self.timer(ctx)
        case = ctx.cases[-1]

        def v3(run, src="pinned", smem=0, managed=False):
            run.trace.version, run.trace.memory_recorded = 3, True
            for r in run.trace.records:
                if r.kind == "C":
                    r.src, r.dst = "device", src      # DtoH: the host side is dst
                else:
                    r.smem = smem
            if managed:
                run.trace.records.insert(0, cupti.Rec("M", 10, 10, "", 1 << 20, src="managed",
                                                      op="alloc", addr=0x1000))
            return run
        ctx.rub.mechanism = {"2": {"pinned": 1}}
        self.assertEqual(t.verify(v3(run_of(2, copies=True)), case, 2, True).status, "ok")
        pg = t.verify(v3(run_of(2, copies=True), src="pageable"), case, 2, True)
        self.assertEqual(pg.status, "no-mechanism")
        self.assertIn("repetition 1 copied 4096 bytes to pageable host memory; its step asks "
                      "for page-locked (pinned) host buffers", pg.reason)
        none = t.verify(v3(run_of(2)), case, 2, True)
        self.assertIn("repetition 1 made no copy between host and device", none.reason)
        old = run_of(2, copies=True)                      # version 2: no memory kinds known
        self.assertEqual(t.verify(old, case, 2, True).status, "ok")
        kernels_only = run_of(2)                          # version 1: no copies recorded
        kernels_only.trace.version, kernels_only.trace.copies_recorded = 1, False
        self.assertEqual(t.verify(kernels_only, case, 2, True).status, "ok")
        ctx.rub.mechanism = {"2": {"pageable": 1}}
        self.assertEqual(t.verify(v3(run_of(2, copies=True), src="pageable"), case, 2,
                                  True).status, "ok")
        self.assertEqual(t.verify(v3(run_of(2, copies=True)), case, 2, True).status,
                         "no-mechanism")
        ctx.rub.mechanism = {"2": {"shared": 1}}
        self.assertEqual(t.verify(v3(run_of(2), smem=4096), case, 2, True).status, "ok")
        ns = t.verify(v3(run_of(2), smem=0), case, 2, True)
        self.assertEqual(ns.status, "no-mechanism")
        self.assertIn("repetition 1 ran 2 kernels and none used shared memory", ns.reason)
        self.assertEqual(t.verify(run_of(2), case, 2, True).status, "ok")   # smem not recorded
        ctx.rub.mechanism = {"2": {"managed": 1}}
        self.assertEqual(t.verify(v3(run_of(2), managed=True), case, 2, True).status, "ok")
        nm = t.verify(v3(run_of(2)), case, 2, True)
        self.assertEqual(nm.status, "no-mechanism")
        self.assertIn("repetition 1 used no managed memory", nm.reason)
        # managed memory given back before a repetition is not live in it
        r = v3(run_of(2), managed=True)
        r.trace.records.insert(1, cupti.Rec("M", 20, 20, "", 1 << 20, src="managed", op="free",
                                            addr=0x1000))
        self.assertEqual(t.verify(r, case, 2, True).status, "no-mechanism")

    def test_device_memory_budget_from_the_records(self):
        """A case with --gpu-mem N: what a launch window takes, by any API, is counted from the
        M records; memory taken before the window or given back within it is not its peak."""
        ctx = self.ctx()
        t = self.timer(ctx)
        case = ctx.cases[-1]
        case.args[:0] = ["--gpu-mem", "16"]
        MIB = 1 << 20

        def with_mem(run, sizes, before=0):
            run.trace.version, run.trace.memory_recorded = 3, True
            for d in run.descs.values():
                for rep in d.reps:
                    for j, b in enumerate(sizes):
                        a = (rep.k << 20) + j
                        run.trace.records.append(cupti.Rec("M", rep.l0 + 100 + j, rep.l0 + 100 + j,
                                                           "", b, src="device", op="alloc",
                                                           addr=a))
                        run.trace.records.append(cupti.Rec("M", rep.l0 + 90000 + j,
                                                           rep.l0 + 90000 + j, "", b,
                                                           src="device", op="free", addr=a))
            if before:
                run.trace.records.append(cupti.Rec("M", 5, 5, "", before, src="device",
                                                   op="alloc", addr=0x77))
            run.trace.records.sort(key=lambda r: r.start)
            return run
        self.assertEqual(t.verify(with_mem(run_of(2), [8 * MIB, 8 * MIB], before=512 * MIB),
                                  case, 2, True).status, "ok")
        ob = t.verify(with_mem(run_of(2), [20 * MIB, 10 * MIB]), case, 2, True)
        self.assertEqual(ob.status, "over-budget")
        self.assertIn("repetition 1 held 30.0 MiB of device memory in its launch window; its "
                      "--gpu-mem budget is 16 MiB", ob.reason)
        # memory the run's process took before a window and still holds (a warm-up's, by any
        # API) counts in every window, less what the reference's run of the same variants
        # holds there (the kit's); the run's own account of when it began is not asked
        def kept(allocs, span0=500000, who="student"):
            run = with_mem(run_of(2), [4 * MIB])
            run.who = who
            for i, (at, size) in enumerate(allocs):
                run.trace.records.append(cupti.Rec("M", at, at, "", size, src="device",
                                                   op="alloc", addr=0x90 + i))
            run.trace.records.sort(key=lambda r: r.start)
            for d in run.descs.values():
                d.span = (span0, 10 ** 7)
            return t.verify(run, case, 2, True)
        self.assertEqual(kept([(600000, 30 * MIB)]).status, "ok")   # no reference seen yet
        self.assertEqual(kept([(550000, 3 * MIB)], who="reference").status, "ok")
        self.assertEqual(ctx.kit_kept[(case.name, 2, frozenset([(case.name, 2)]))], 3 * MIB)
        self.assertEqual(ctx.kit_kept[(case.name, 2)], 3 * MIB)
        ob = kept([(550000, 3 * MIB), (600000, 30 * MIB)])
        self.assertEqual(ob.status, "over-budget")
        self.assertIn("repetition 1 held 34.0 MiB", ob.reason)
        self.assertEqual(kept([(550000, 3 * MIB), (600000, 6 * MIB)]).status, "ok")
        # a span the run wrote (before the first call, after it, none) changes nothing
        for span0 in (0, 400000, 1500000):
            self.assertEqual(kept([(550000, 3 * MIB), (100, 30 * MIB)], span0).status,
                             "over-budget")
        # pinned host memory is not the GPU's
        r = with_mem(run_of(2), [64 * MIB])
        for x in r.trace.records:
            x.src = "pinned" if x.kind == "M" else x.src
        self.assertEqual(t.verify(r, case, 2, True).status, "ok")
        ctx.checks_off.add(("2", "over-budget"))          # the reference broke it: off
        self.assertEqual(t.verify(with_mem(run_of(2), [40 * MIB]), case, 2, True).status, "ok")
        self.assertEqual(timing_budget(["--size", "8x8", "--gpu-mem=12"]), 12)
        self.assertEqual(timing_budget(["--size", "8x8"]), 0)

    def test_kernels_outside_the_windows(self):
        r = run_of(1)
        r.trace.records.append(cupti.Rec("K", 1500000, 1600000))   # between reps 1 and 2
        vc = self.check(r)
        self.assertEqual(vc.status, "impossible-time")
        self.assertIn("between repetitions 1 and 2", vc.reason)

    def test_impossible_time_and_unverified(self):
        from kitgrade.lab.labinfo import Output
        big = {"perf1": {1: Output(type="u8", w=64, h=64, c=1, bytes=1e7)}}
        vc = self.check(run_of(1), outputs=big)
        self.assertEqual(vc.status, "impossible-time")     # 1e7 bytes in 60 us: 166 GB/s
        self.assertIn("above the 100 GB/s", vc.reason)
        ok = {"perf1": {1: Output(type="u8", w=64, h=64, c=1, bytes=1e6)}}
        self.assertEqual(self.check(run_of(1), outputs=ok).status, "ok")
        r = run_of(1)
        r.trace.complete = False
        self.assertEqual(self.check(r).status, "unverified")
        r = run_of(1, self_ms=0.001)
        self.assertEqual(self.check(r).status, "impossible-time")   # it says 1 us, CUPTI 60

    def test_failed_timed_run(self):
        r = run_of(1)
        r.descs[("perf1", 1)] = None
        r.res.breach = "timeout"
        self.assertEqual(self.check(r).status, "timeout")
        r.res.breach, r.res.signal = None, 11
        self.assertEqual(self.check(r).status, "crash")

    def test_reference_breach_turns_the_check_off(self):
        ctx = self.ctx()
        t = self.timer(ctx)
        vc = t.ref_check(run_of(1, kernels=(1, 30000)), ctx.cases[-1], 1)
        self.assertEqual(vc.status, "ok")
        self.assertIn(("1", "no-kernel"), ctx.checks_off)
        self.assertIn("that check is off for 1", ctx.notes[0])
        self.assertEqual(t.verify(run_of(1, kernels=(1, 30000)), ctx.cases[-1], 1, True).status,
                         "ok")

    def test_a_one_thread_step_that_runs_on_several_threads_keeps_no_speed_points(self):
        """`mechanism N one-thread` (perf_clock wall): the windows' CPU, read from the run's
        cgroup at each go and done, may pass their wall time by the clock's lag, not by the
        work of a second thread; without the readings nothing is held against the variant."""
        def run(inside):
            r = run_of(1, reps=5, gpu=False)
            r.srv.cpu_inside = lambda tag: inside if tag == "1" else []
            return r

        def verify(r):
            ctx = self.ctx(gpu=False)
            ctx.rub.mechanism = {"1": {"one-thread": 1}}
            t = self.timer(ctx)
            t.reps = 5
            return t.verify(r, ctx.cases[-1], 1, False)
        self.assertEqual(verify(run([(6.0 + d, 6.0) for d in (3, -2, 1, 0, 2)])).status, "ok")
        self.assertEqual(verify(run([])).status, "ok")
        vc = verify(run([(12.0, 6.0)] * 5))             # two threads
        self.assertEqual(vc.status, "no-mechanism")
        self.assertIn("used 60.0 ms of CPU in 30.0 ms of their windows, the work of 2.0 "
                      "threads", vc.reason)
        self.assertEqual(verify(run([(6.0, 0.4)] * 5)).status, "no-mechanism")   # 16 threads
        # short windows: the lag of a tick each is allowed
        self.assertEqual(verify(run([(2.5, 0.5)] * 5)).status, "ok")

    def test_cpu_windows_held_to_the_graders_clock(self):
        ctx = self.ctx(gpu=False)
        t = self.timer(ctx)
        t.reps = 5
        case = ctx.cases[-1]
        # the reference: 1 ms between its requests, 0.4 of it its variant's window
        rv = t.verify(run_of(1, reps=5, gpu=False, self_ms=0.4), case, 1, False)
        # from each key's answer (0.1 us after its request) to the next request
        self.assertEqual([round(x, 3) for x in rv.intervals], [1.0, 1.0, 1.0, 1.0])
        self.assertEqual(rv.self_ms, [0.4] * 5)
        # a student twice as slow: 0.8 ms windows in 1.4 ms repetitions
        sv = t.verify(run_of(1, reps=5, gpu=False, self_ms=0.8, gap=1400000), case, 1, True)
        self.assertEqual(sv.status, "ok")
        p = t.pair(case, 1, rv, sv, {})
        self.assertAlmostEqual(p["student_ms"], 0.8)
        self.assertAlmostEqual(p["ratio"], 0.5)
        self.assertAlmostEqual(p["student_cycle_ms"], 1.4, places=3)
        self.assertEqual(p["hidden_why"], "")
        # windows of 0.1 ms in 4 ms repetitions: the work is elsewhere
        sv = t.verify(run_of(1, reps=5, gpu=False, self_ms=0.1, gap=4000000), case, 1, True)
        p = t.pair(case, 1, rv, sv, {})
        self.assertAlmostEqual(p["hidden_ms"], 3.3)
        self.assertIn("grader's clock", p["hidden_why"])
        # checked: the last repetition and two others
        self.assertEqual(len(sv.checked), 3)
        self.assertIn(5, sv.checked)


if __name__ == "__main__":
    unittest.main()
