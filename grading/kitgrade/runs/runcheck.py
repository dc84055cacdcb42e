"""The checks of one timed run: its keys, its launch windows, its GPU activity records.

This is timing.Timer's part that judges a run, not the one that makes it. It checks the keys the
run asked for against the ones it reports, its launch windows against the grader's clock, its GPU
activity records (the launches it needs, no copy inside a kernel-span launcher, a time the measured
ceiling allows, the mechanism the rubric asks of it), and the outputs of repetitions picked after
the run, with their keys. A check the reference itself breaks is turned off for that variant in
that grading (ref_check)."""
import secrets
import threading
from dataclasses import dataclass, field
from typing import List, Optional

from ..base import fsutil
from ..base.tell import say
from ..lab.rubric import vname
from . import check, cupti
from .run import first_error, signame

_lock = threading.Lock()


@dataclass
class VarCheck:
    status: str = "ok"
    reason: str = ""
    times: List[float] = field(default_factory=list)   # ms per repetition (GPU)
    self_ms: List[float] = field(default_factory=list)   # the run's own ms per repetition
    intervals: List[float] = field(default_factory=list)  # ms, a key's answer to the next request
    outside: List[float] = field(default_factory=list)    # ms of CPU beyond one thread's
                                                          # outside the windows (keys.cpu_outside)
    x_ms: float = 0.0                                 # the process's CPU or wall ms (shown)
    checked: List[int] = field(default_factory=list)
    run_seq: Optional[int] = None                     # the run's entry in the grading's RunLog


MIB = 1 << 20
# what a launch window may take past its --gpu-mem budget in CUPTI's count: the allocator's
# rounding of a few buffers to its 2 MiB pages
BUDGET_SLACK = 8 * MIB
# CPU a run in lockstep may use beyond the time it did not wait for its turn (a tenth of the
# waits, at least 5 ms: the run's own start in the sandbox, the clock's grain)
WAIT_CPU_SLACK, WAIT_CPU_SLACK_MS = 0.1, 5.0
# CPU a one-thread variant's windows may use beyond their wall time (keys' readings lag by up
# to a scheduler tick): half of it, at least 2 ms a repetition
ONE_THREAD_SLACK, ONE_THREAD_SLACK_MS = 0.5, 2.0


def gpu_mem_budget(args):
    """The --gpu-mem budget (MiB) among a case's harness options, or 0."""
    for i, a in enumerate(args):
        v = a[len("--gpu-mem="):] if a.startswith("--gpu-mem=") else \
            (args[i + 1] if a == "--gpu-mem" and i + 1 < len(args) else None)
        if v is not None:
            try:
                return float(v)
            except ValueError:
                return 0
    return 0


def _key_int(s):
    try:
        return int(s[2:] if s.lower().startswith("0x") else s, 16)
    except ValueError:
        return -1


def one_thread(inside):
    """Why repetitions whose windows took INSIDE [(cpu ms, wall ms)] ran on more than one
    thread, or "". The run's CPU clock lags by up to a scheduler tick at each reading, so the
    windows are added up and some CPU beyond their wall time is allowed (ONE_THREAD_SLACK of
    it, at least ONE_THREAD_SLACK_MS a repetition): two threads sharing the work use about
    twice the wall time."""
    if not inside:
        return ""
    cpu, wall = sum(c for c, _w in inside), sum(w for _c, w in inside)
    if cpu <= wall + max(ONE_THREAD_SLACK * wall, ONE_THREAD_SLACK_MS * len(inside)):
        return ""
    return ("its %d repetitions used %.1f ms of CPU in %.1f ms of their windows, the work of "
            "%.1f threads; its step is timed on one thread" % (
                len(inside), cpu, wall, cpu / wall if wall > 0 else float("inf")))


def vtag(ctx, case, v):
    """Variant V of CASE as a timed run names it on the key channel: PART:V where the rubric's
    perf_one_process has the harness name the part (KIT_CTL_PARTS=1), else V."""
    if getattr(ctx.rub, "perf_one_process", False) and case.part:
        return "%s:%d" % (case.part, v)
    return str(v)


class RunChecks:
    """Mixed into timing.Timer: uses its ctx, stu (the student's Runner) and reps."""

    # ---------------------------------------------------------------- checks
    def verify(self, run, case, v, check_outputs):
        """A VarCheck of variant V in RUN."""
        ctx, vc = self.ctx, VarCheck()
        n = vname(case.part, v)
        info = ctx.info.variant(case.part, v)
        span = info.span if info else ("kernel" if ctx.lab.gpu else "host")
        d, res = run.descs.get((case.name, v)), run.res
        tag = vtag(ctx, case, v)        # the variant's word on the key channel
        vc.x_ms = res.cpu_ms if ctx.clock == "cpu" else res.wall_ms
        vc.run_seq = getattr(run, "seq", None)

        def bad(st, why):
            vc.status, vc.reason = st, why
            return vc

        why = getattr(run, "whys", {}).get((case.name, v), "")
        if d is None and fsutil.tampered(why):
            return bad("forbidden", "its timed run put a link where the grader reads its "
                                    "results, which the grader does not follow (%s)" % why)
        if d is None or d.status != "ok":
            if res.breach:
                return bad(res.breach, "in its timed run: " + self.stu.breach_reason(res.breach))
            if res.signal:
                return bad("crash", "crashed in its timed run (%s)" % signame(res.signal))
            if d is not None and d.status == "error":
                # the run's first error, its line naming this variant's outputs if one does
                rel = getattr(run, "rel", {}).get((case.name, v))
                line = first_error(run.errfile, "%s/v%d." % (rel, v) if rel else None) \
                    if getattr(run, "errfile", None) else ""
                return bad("runtime-error", "its timed run reported an error (exit %s%s)" % (
                    res.rc, "; the run's first error: " + line if line else ""))
            return bad("no-output", "its timed run wrote no account of the variant")
        if run.srv.broken:
            return bad("replayed", "its timed run " + run.srv.broken)
        reps = sorted(d.reps, key=lambda r: r.k)
        if [r.k for r in reps] != list(range(1, self.reps + 1)):
            return bad("replayed", "its timed run reported repetitions %s instead of 1..%d" % (
                ",".join(str(r.k) for r in reps[:8]) or "none", self.reps))
        asked = sum(1 for (rv, _k) in run.srv.keys if rv == tag)
        if asked != self.reps:
            return bad("replayed", "it asked for %d keys for %d repetitions" % (asked, self.reps))
        for r in reps:
            handed = run.srv.keys.get((tag, r.k))
            if handed is None or _key_int(handed[0]) != _key_int(r.key):
                return bad("replayed", "repetition %d ran on content the grader did not hand "
                                       "out (key %s)" % (r.k, r.key[:16]))
            nxt = run.srv.next_request_after(tag, r.k) or run.end_ns
            asked = next((t for (rv, rk, t) in run.srv.requests if (rv, rk) == (tag, r.k)),
                         handed[1])
            # the key did not exist before it was asked for: the window starts after that
            if r.l1 < r.l0 or r.l0 < asked - 5e4 or r.l1 > nxt + 5e4:
                if not self.off(n, "impossible-time"):
                    return bad("impossible-time", "repetition %d's launch window lies outside "
                                                  "the time the grader saw it run" % r.k)
        if res.extra_processes and not self.off(n, "extra-processes"):
            return bad("extra-processes", "its timed run left %d process%s it did not wait for "
                                          "(their time is not the variant's)" % (
                                              res.extra_processes,
                                              "" if res.extra_processes == 1 else "es"))
        wins = [run.srv.window(tag, r.k) if hasattr(run.srv, "window") else None
                for r in reps]
        if any(wins) and not all(wins):
            return bad("impossible-time", "its repetitions did not all say on the key channel "
                                          "when they ran")
        if span == "host" and getattr(run, "lockstep", False):
            why = self.waited_idle(run, res)
            if why and not self.off(n, "impossible-time"):
                return bad("impossible-time", why)
        if span == "host":
            # from a key's answer to the next request: the run's own time (in lockstep a
            # request also waits for the other run's repetition)
            asks = sorted((t, k) for (rv, k, t) in run.srv.requests if rv == tag)
            vc.intervals = [(b - run.srv.keys.get((tag, k), (None, a))[1]) / 1e6
                            for (a, k), (b, _k) in zip(asks, asks[1:])]
            # the grader's own clock between the run's go and done notes; the run's own
            # windows where the harness writes no notes
            vc.self_ms = [(w[1] - w[0]) / 1e6 for w in wins] if all(wins) else \
                [r.kernel_ms for r in reps]
            if hasattr(run.srv, "cpu_outside"):
                vc.outside = run.srv.cpu_outside(tag)
            if ctx.rub.mechanism.get(n, {}).get("one-thread") and hasattr(run.srv, "cpu_inside"):
                why = one_thread(run.srv.cpu_inside(tag))
                if why and not self.off(n, "no-mechanism"):
                    return bad("no-mechanism", why)
        else:
            why = self.gpu_times(run, case, v, info, span, reps, vc)
            if why:
                return bad(*why)
        if check_outputs:
            why = self.check_reps(run, case, v, reps, vc)
            if why:
                return bad(*why)
        return vc

    @staticmethod
    def waited_idle(run, res):
        """'' when a run in lockstep used no more CPU than the time it was not waiting for
        its turn allows: while it waits, the other run's repetition has the core, and CPU
        taken from it then (a thread that spins) slows what it is compared with. Else why."""
        if res.cpu_ms is None or not res.wall_ms:
            return ""
        waited = sum(run.srv.keys[(v, k)][1] - t for (v, k, t) in run.srv.requests
                     if (v, k) in run.srv.keys) / 1e6
        spare = res.wall_ms - waited
        if res.cpu_ms <= spare + max(WAIT_CPU_SLACK * waited, WAIT_CPU_SLACK_MS):
            return ""
        return ("its timed run used %.1f ms of CPU in %.1f ms, %.1f ms of which it waited for "
                "its turn while the run it is compared with had the core: it ran (a thread, a "
                "process) when it should have waited, taking that run's time" % (
                    res.cpu_ms, res.wall_ms, waited))

    def off(self, n, what):
        return (n, what) in self.ctx.checks_off

    def gpu_times(self, run, case, v, info, span, reps, vc):
        ctx, n = self.ctx, vname(case.part, v)
        tr = run.trace
        if tr is None or not tr.complete:
            if not self.off(n, "unverified"):
                return ("unverified", "no complete GPU activity records of its timed run "
                                      "(the speed cannot be verified)")
            return None
        need = info.min_launches if info else 1
        out = ctx.output_of(case, v)
        # no kernel of the run between two repetitions' windows (the kit runs none there): a
        # window that leaves some of the variant's kernels out is not its window
        for a, b in zip(reps, reps[1:]):
            hidden = [x for x in tr.records if x.kind == "K" and
                      a.l1 + cupti.SLACK_NS < x.start < b.l0 - cupti.SLACK_NS]
            if hidden and not self.off(n, "impossible-time"):
                return ("impossible-time", "%d kernel%s ran between repetitions %d and %d, "
                                           "outside its launch windows" % (
                                               len(hidden), "" if len(hidden) == 1 else "s",
                                               a.k, b.k))
        ceil = ctx.ceilings.get(str(self.slot), {}).get(info.ceiling if info else "", 0.0)
        windows = []
        for r in reps:
            ks, cs = cupti.in_window(tr, r.l0, r.l1, download=out.size)
            windows.append((r.k, ks, cs, r.l0, r.l1))
            if len(ks) < need and not self.off(n, "no-kernel"):
                return ("no-kernel", "repetition %d launched %d kernel%s; the variant needs at "
                                     "least %d" % (r.k, len(ks), "" if len(ks) == 1 else "s",
                                                   need))
            if span == "kernel" and cs and tr.copies_recorded and \
                    not self.off(n, "copies-in-launcher"):
                c = cs[0]
                return ("copies-in-launcher", "repetition %d copied %d bytes (%s) inside its "
                                              "launcher, whose time must be its kernels alone"
                        % (r.k, sum(x.bytes for x in cs), c.copy or "a copy"))
            # a kernel span: the kernels' own time; a total span: from the variant's call, on
            # the host's clock, to the end of its last GPU work (host work before it counts)
            t = cupti.union_ns(ks) if span == "kernel" else cupti.envelope_ns(ks + cs, r.l0)
            if t <= 0:
                if not self.off(n, "no-kernel"):
                    return ("no-kernel", "repetition %d ran no GPU work" % r.k)
                continue
            if r.kernel_ms * 1e6 + 5000 < 0.5 * cupti.union_ns(ks) and \
                    not self.off(n, "impossible-time"):
                return ("impossible-time", "repetition %d reported %.4f ms for kernels the GPU "
                                           "ran for %.4f ms" % (r.k, r.kernel_ms,
                                                                cupti.union_ns(ks) / 1e6))
            if out.bytes and ceil > 0 and out.bytes / t > ceil * ctx.rub.perf_margin and \
                    not self.off(n, "impossible-time"):
                return ("impossible-time", "repetition %d moved %.0f bytes in %.4f ms (%.0f GB/s), "
                                           "above the %.0f GB/s this GPU can copy" % (
                                               r.k, out.bytes, t / 1e6, out.bytes / t, ceil))
            vc.times.append(t / 1e6)
        budget = gpu_mem_budget(case.args)
        if budget and tr.memory_recorded and not self.off(n, "over-budget"):
            # memory taken before a window and kept (in the variant's warm-up, or by a variant
            # run before it in the same process) is held in the window too: everything the
            # run's process took and still holds there counts (the run's own accounts, which
            # its code could rewrite, are not asked when it took it), less what the kit holds
            # there: as much as the reference's timed runs of the same variants hold at their
            # windows (where the student's process ran other variants than the reference's,
            # the most any reference run held there). With no reference count, the window's own.
            kept = [cupti.held_at(tr, 0, l0) for _k, _ks, _cs, l0, _l1 in windows]
            keys = ((case.name, v, frozenset(run.descs)), (case.name, v))
            if run.who == "reference":
                with _lock:
                    for key in keys:
                        ctx.kit_kept[key] = max([ctx.kit_kept.get(key, 0)] + kept)
            kit = next((ctx.kit_kept[key] for key in keys if key in ctx.kit_kept), None)
            for (k, _ks, _cs, l0, l1), held in zip(windows, kept):
                took = cupti.device_peak(tr, l0, l1, 0) - min(held, held if kit is None else kit)
                if took > budget * MIB + BUDGET_SLACK:
                    return ("over-budget", "repetition %d held %.1f MiB of device memory in its "
                                           "launch window; its --gpu-mem budget is %g MiB" % (
                                               k, took / MIB, budget))
        why = self.mechanism(ctx.rub.mechanism.get(n, {}), windows, tr)
        if why and not self.off(n, "no-mechanism"):
            return ("no-mechanism", why)
        return None

    @staticmethod
    def mechanism(want, windows, tr):
        """Why the repetitions' records (k, kernels, copies, l0, l1) do not show the mechanism
        the rubric asks of the variant (its `mechanism` line), or "" when they do. What the
        records do not hold (an older format) is not held against it."""
        copies_recorded = tr.copies_recorded
        n = want.get("streams", 0)
        if n:
            overlapped = 0
            for k, ks, cs, _l0, _l1 in windows:
                used = {x.stream for x in ks + cs}
                if len(used) < n:
                    return ("repetition %d ran its kernels and copies on %d stream%s; its step "
                            "asks for %d streams whose copies and kernels overlap" % (
                                k, len(used), "" if len(used) == 1 else "s", n))
                overlapped += len(cupti.streams_overlapping(ks + cs, copies_recorded)) >= n
            # overlap is up to the GPU's scheduler: most repetitions must show it, not all
            if 2 * overlapped < len(windows):
                return ("the work of %d streams overlapped in only %d of its %d repetitions; its "
                        "step asks for copies and kernels that overlap" % (
                            n, overlapped, len(windows)))
        if want.get("no-copies") and copies_recorded:
            for k, _ks, cs, _l0, _l1 in windows:
                host = [x for x in cs if x.copy in ("HtoD", "DtoH")]
                if host:
                    return ("repetition %d copied %d bytes between host and device (%s); its "
                            "step's kernel reads host memory itself (zero-copy)" % (
                                k, sum(x.bytes for x in host), host[0].copy))
        for kind in ("pinned", "pageable"):
            if not want.get(kind) or not copies_recorded:
                continue
            for k, _ks, cs, _l0, _l1 in windows:
                host = [(x, x.src if x.copy == "HtoD" else x.dst) for x in cs
                        if x.copy in ("HtoD", "DtoH")]
                other = [(x, m) for x, m in host if m and m != kind]
                if other:
                    x, m = other[0]
                    return ("repetition %d copied %d bytes %s %s host memory; its step asks "
                            "for %s host buffers" % (
                                k, sum(y.bytes for y, _m in other),
                                "from" if x.copy == "HtoD" else "to", m,
                                "page-locked (pinned)" if kind == "pinned" else "pageable"))
                if not host:
                    return ("repetition %d made no copy between host and device; its step "
                            "times copies from %s host buffers" % (k, kind))
        if want.get("shared"):
            for k, ks, _cs, _l0, _l1 in windows:
                if ks and all(x.smem == 0 for x in ks):
                    return ("repetition %d ran %d kernel%s and none used shared memory; its "
                            "step is a shared-memory kernel" % (
                                k, len(ks), "" if len(ks) == 1 else "s"))
        if want.get("managed") and tr.memory_recorded:
            for k, _ks, _cs, l0, l1 in windows:
                if not cupti.managed_live(tr, l0, l1):
                    return ("repetition %d used no managed memory (cudaMallocManaged); its step "
                            "is about managed memory" % k)
        return ""

    def check_reps(self, run, case, v, reps, vc):
        """The last repetition and others picked now (one on a GPU, two on a CPU), checked
        with their keys, on the cores of check_cpus (else the timed run's)."""
        ks = [reps[-1].k]
        others = [r.k for r in reps[:-1]]
        # GPU repetitions are each verified by their records: two checked are enough. A CPU
        # repetition has only its output to show: three a pair, picked after the run, and a
        # variant has at least two pairs (a run that fakes 3 of its 10 repetitions escapes
        # six picks about one time in eight). Half of them cost a grading of lab 01 on 16
        # cores most of its timed minutes (the checker recomputes each one).
        want = 1 if self.ctx.lab.gpu else 2
        while others and len(ks) < 1 + want:
            ks.append(others.pop(secrets.randbelow(len(others))))
        for k in sorted(ks):
            r = reps[k - 1]
            data, why = run.box.read_file("%s/v%d.r%d.bin" % (run.rel[(case.name, v)], v, k),
                                          self.ctx.max_output(case, v))
            vc.checked.append(k)
            if data is None:
                if fsutil.tampered(why):
                    return ("forbidden", "the output of repetition %d is a link, which the "
                                         "grader does not follow (%s)" % (k, why))
                return ("no-output", "the output of repetition %d cannot be read (%s)" % (k, why))
            verd = check.compare(self.ctx.checker, case.part, v, _key_int(r.key), case.args,
                                 data, cache=None, tol=self.ctx.tol(vname(case.part, v)),
                                 cpus=self.check_cpus if self.check_cpus is not None
                                 else self.cpus)
            if verd.status != "pass":
                return ("replayed", "repetition %d's output is wrong for the content the grader "
                                    "handed it (%s): a result kept from another input?" % (
                                        k, verd.detail))
        return None

    def say_ref_failed(self, n, vc):
        """The reference's own timed run of variant N failed (VC): said once a grading on the
        console, since the students paired with that run cannot be timed against it (a box
        too small for one process's repetitions, a GPU out of memory, ...); a student left
        with no pair says so in its report (not-timed, add_pairs)."""
        with _lock:
            if n in self.ctx.ref_failed:
                return
            self.ctx.ref_failed.add(n)
        n = n if ":" in n else "v" + n
        say("WARNING: the reference's own timed run of %s failed (%s: %s): the students paired "
            "with that run are not timed against it" % (n, vc.status, vc.reason))

    def ref_check(self, run, case, v):
        """Verify the reference's run; a check the reference itself fails is turned off for
        that variant (a note says so), as the reference must get full points."""
        for _ in range(6):
            vc = self.verify(run, case, v, False)
            if vc.status in ("ok", "crash", "runtime-error", "no-output", "timeout") or \
                    vc.status.endswith("-limit"):
                # a CPU pair runs in lockstep: a student's hang times the reference out too
                if vc.status != "ok" and (self.ctx.lab.gpu or vc.status != "timeout"):
                    self.say_ref_failed(vname(case.part, v), vc)
                return vc
            n = vname(case.part, v)
            with _lock:
                if (n, vc.status) not in self.ctx.checks_off:
                    self.ctx.checks_off.add((n, vc.status))
                    self.ctx.notes.append("the reference's own timed run of %s breaks the %s "
                                          "check (%s): that check is off for %s" % (
                                              n, vc.status, vc.reason, n))
        return vc
