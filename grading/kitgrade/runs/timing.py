"""Verified speed: the reference and the student timed in pairs on the same slot.

A slot is a core or a GPU. Every repetition runs on content the grader chose at that moment,
the outputs of repetitions picked after the run are checked, and what the run claims is
measured against what it could have done.

One timed process per (who, variant) on a CPU (its CPU or wall time is the trusted measure),
per (who, case) on a GPU (CUPTI records give each repetition's kernels and copies by its launch
window). A pair is one reference run and one student run: on a GPU back to back, in turns of
order; under perf_clock cpu at once on the same core, in lockstep repetition by repetition
(keys.Lockstep), the first repetition to each in turns; pairs go on until their time ratios
agree within the rubric's perf_spread, or perf_pairs runs out, and a ratio that would lose
performance points is taken from two timed runs of the student's at least. The checks of a
run are runcheck.py's; the speed statuses (score.SPEED) are in grading/README.md, "Statuses".

A variant of a CPU lab is timed on the grader's own clock, between the notes `go V K` and
`done V K` the harness writes around each repetition (its own windows where it writes none),
the run alone on its core (every process and thread of it shares that core: threads add no
speed under perf_clock cpu) or on the machine (perf_clock wall). The time from a key's answer
to the next request holds one whole repetition (fresh content, poisoning, the variant, its dump); what
is not the variant is the same code in the reference and the student, so a run whose
repetitions take clearly more than their windows, beyond the reference's, in every pair (work
done outside the windows), is impossible-time; less, beyond the noise (HIDDEN_NOISE), is added
to the student's time (a window its notes make short buys nothing), as is a perf_clock wall
run's CPU beyond one thread's outside its windows (keys.cpu_outside: a thread working beside
the harness; idle OpenMP threads sleep, OMP_WAIT_POLICY=passive); not under --quick. A run in
lockstep (perf_clock cpu) that used more CPU than its time not waiting for its turn allows
took the other run's core meanwhile: impossible-time (runcheck).
"""
import os
import statistics
import threading
import time
from dataclasses import dataclass, field
from typing import List, Optional

from ..base import fsutil
from ..lab.rubric import vname
from . import cupti
from .keys import KeyServer, Lockstep
from .desc import parse_desc
from .run import run_record
from .runcheck import RunChecks, VarCheck  # noqa: F401 (VarCheck: part of this module's interface)
from .speedloss import full_ratio, running

# time outside a CPU variant's windows taken as noise (pair): a tenth of the reference's
HIDDEN_NOISE, HIDDEN_NOISE_MS = 0.1, 0.5        # repetition, at least 0.5 ms


@dataclass
class VarTiming:
    """What a student's variant got from its timed runs."""
    vname: str
    case: str
    status: str = "ok"
    reason: str = ""
    clock: str = ""
    reps: int = 0
    pairs: List[dict] = field(default_factory=list)   # ref_ms, student_ms, ratio, checked
    ratio: Optional[float] = None
    spread: Optional[List[float]] = None
    ref_ms: Optional[float] = None
    student_ms: Optional[float] = None
    breach_run: Optional[int] = None      # the RunLog entry of the run that broke a check

    def as_json(self):
        return dict(self.__dict__)


@dataclass
class TimedRun:
    who: str
    box: object
    rel: dict                      # (case, variant) -> its dump folder in the box
    res: object
    srv: KeyServer
    trace: Optional[cupti.Trace]
    descs: dict                    # (case, variant) -> desc.Desc or None
    end_ns: int


class Timer(RunChecks):
    """The timed runs of one student against the reference, on one slot."""

    def __init__(self, ctx, stu, ref_box, tag, slot=None, cpus=None):
        self.ctx, self.stu, self.ref_box, self.tag = ctx, stu, ref_box, tag
        self.slot, self.cpus = slot, cpus
        self.check_cpus = None      # where the output checks run, when not on CPUS
        self.reps = ctx.rub.perf_reps if not ctx.opts.quick else min(ctx.rub.perf_reps, 5)
        self.ahead = None           # the student's run started early (Ahead), if any

    # ---------------------------------------------------------------- one process
    def prestart(self, items, pair=1, label=""):
        """Start the student's timed run of ITEMS (LABEL: its group, process()) now and hold
        it at its gate (the harness waits there once its CUDA context is made, before it
        calls the student's code), so that its sandbox, process and context are made while
        another run is timed; the process() call of the same run lets it go on. Only for a
        student whose objects run nothing before main (premain.py): nothing of the student's
        runs while it waits. One at a time: a box runs one command at a time, so a run held
        at its gate holds the student's box."""
        self.drop_ahead()
        self.ahead = Ahead(self, items, pair, label)

    def drop_ahead(self):
        """The run started early and never let go on is refused at its gate and forgotten."""
        ahead, self.ahead = self.ahead, None
        if ahead is not None:
            ahead.cancel()

    def process(self, who, items, pair, when="", baton=None, gate=None, label=""):
        """One timed run of ITEMS ([(case, variant)], no variant number twice): one line of
        the harness's --cases each (so a GPU lab starts CUDA once), every repetition's key
        from the key server, the GPU records in a file of the grader's. BATON: its side of a
        keys.Lockstep (the run then waits for the other's repetitions: twice the time limit).
        GATE: the read end of the pipe that lets the run past its gate (Ahead; owned by the
        key server from here), else the gate is open; the student's run started early, when
        it is this one, goes on instead of a new one, and any other is dropped. LABEL: the
        run's group ('-rgb'), where a lab's timed variants need more than one process (a
        variant number twice: groups_of), so that its files and records are its own."""
        if gate is None and who == "student" and self.ahead is not None:
            ahead, self.ahead = self.ahead, None
            if baton is None and when == "" and ahead.spec == Ahead.key(items, pair, label):
                return ahead.go()
            ahead.cancel()
        try:
            args, rels = self._args(who, items, pair, label)
        except BaseException:
            if gate is not None:
                os.close(gate)
            raise
        return self._run(who, items, pair, when, baton, gate, args, rels, label)

    def _args(self, who, items, pair, label=""):
        """The timed run's arguments after --ctl (its dump folders made afresh; its --cases
        file written where it has more than one case), and the folder of each item."""
        box = self.stu.box if who == "student" else self.ref_box
        rels, lines = {}, []
        by_case = {}                   # one line per case, its variants as a list
        for case, v in items:
            by_case.setdefault(case.name, (case, []))[1].append(v)
        for case, vs in by_case.values():
            vs.sort()                  # the harness runs a list in ascending order
            rel = "time/%s-%s-v%s-%s-p%d" % (self.tag, case.name, "_".join(map(str, vs)),
                                             who, pair)
            dump = fsutil.bmkdir(box, rel, fresh=True)
            for v in vs:
                rels[(case.name, v)] = rel
            lines.append(self.stu.case_argv(case, dump, ",".join(map(str, vs)), self.reps))
        if len(lines) == 1:
            return lines[0], rels
        cases = "time/%s-%s-p%d%s.cases" % (self.tag, who, pair, label)
        fsutil.bwrite(box, cases, "".join("\t".join(ln) + "\n" for ln in lines))
        return ["--cases", os.path.join(box.root, cases)], rels

    def _run(self, who, items, pair, when, baton, gate, args, rels, label):
        ctx = self.ctx
        box = self.stu.box if who == "student" else self.ref_box
        srv = KeyServer(len(items) * self.reps, helper=os.path.join(ctx.tools, "keyserve"),
                        tmp=ctx.tmp, baton=baton, gate=gate)
        env = ctx.env(self.slot)
        if ctx.rub.perf_one_process:
            env["KIT_CTL_PARTS"] = "1"     # the key channel names each variant's part
        fds = list(srv.child_fds)
        cfd, cpath = None, None
        if ctx.lab.gpu and ctx.cupti_lib:
            cpath = os.path.join(ctx.tmp, "cupti-%s-%s-p%d%s" % (self.tag, who, pair, label))
            cfd = os.open(cpath, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            os.fchmod(cfd, 0o666)      # the older library reopens it through /proc/self/fd
            fds.append(cfd)
            env.update({"CUDA_INJECTION64_PATH": ctx.cupti_lib, "KIT_CUPTI_FD": str(cfd),
                        "KIT_CUPTI_OUT": "/proc/self/fd/%d" % cfd})
        binary = os.path.join(box.root, "out", ctx.lab.binary)
        argv = [binary, "--quiet", "--ctl", srv.ctl_arg] + args
        name = "time-%s%s-p%d%s" % (who, when, pair, label) + ("" if len(items) > 1 else
                                                     "-%s-v%d" % (items[0][0].name, items[0][1]))
        # a wall-clock run's key server reads its cgroup's CPU at each line, once it is made
        hook = {"on_cgroup": srv.start} if ctx.clock == "wall" else {}
        if hook:                                # idle OpenMP threads sleep, not spin
            env["OMP_WAIT_POLICY"] = "passive"
        else:
            srv.start()
        start_ns = _now_ns()
        try:
            with running(ctx, os.path.basename(self.stu.sd), name, self.slot, self.cpus) as e:
                res = box.run(argv, cwd=box.root, env=env,
                              limits=ctx.limits("run", scale=2.0 * max(1, len(items) / 2.0) *
                                                (2 if baton is not None or gate is not None
                                                 else 1), cpus=self.cpus),
                              stdout=os.path.join(self.stu.sd, "logs", name + ".out"),
                              stderr=os.path.join(self.stu.sd, "logs", name + ".err"),
                              pass_fds=fds, cpus=self.cpus, **hook)
        finally:
            end_ns = _now_ns()
            if who == "student":
                self.stu.check_program()
            if not srv.started:         # the run never began
                srv.start()
            srv.finish()
            if cfd is not None:
                os.close(cfd)
        gated = None
        if gate is not None and srv.gated_ns is not None and srv.opened_ns is not None:
            gated = (srv.opened_ns - srv.gated_ns) / 1e9
            if e.get("at") is not None:    # what ran beside it counts from here (speedloss)
                e["held"] = ctx.since_start(srv.opened_ns / 1e9)
        record = run_record(ctx, name, res, time.monotonic() - res.wall_ms / 1000.0, gated,
                            gpu=self.slot, cores=self.cpus)
        split = srv.split(start_ns, end_ns)
        if split:
            record["split_s"] = split          # where its time went (summary.md sums them)
        self.stu.runs.append(record)
        trace = None
        if cpath:
            text = fsutil.read_text(cpath, 512 << 20)
            os.unlink(cpath)
            trace = cupti.parse(text) if text else cupti.Trace()
        descs, whys = {}, {}
        for (cname, v), rel in rels.items():
            data, whys[(cname, v)] = box.read_file("%s/v%d.txt" % (rel, v), 1 << 20)
            descs[(cname, v)] = parse_desc(data) if data is not None else None
        run = TimedRun(who, box, rels, res, srv, trace, descs, end_ns)
        run.whys, run.record, run.seq = whys, record, e.get("seq")
        run.lockstep = baton is not None        # its repetitions took turns with another run's
        run.errfile = os.path.join(self.stu.sd, "logs", name + ".err")
        return run

    def discard(self, run):
        """A timed run's outputs go once judged, --keep-work or not (the next pair's disk)."""
        for rel in set(run.rel.values()):
            fsutil.bremove(run.box, rel)

    # ---------------------------------------------------------------- pairs
    def time_all(self, items):
        """{variant name: VarTiming} of ITEMS [(case, variant)], each passed every case: one
        process per pair for all of them (no variant number twice in one process)."""
        groups = [g for g, _label in groups_of(items, self.ctx.rub.perf_one_process)]
        res = {}
        while groups:
            res.update(self.time_group(groups.pop(0), groups))
        return res

    def chain_runs(self, items, chain, all_items, label=""):
        """GPU labs, the part that needs the GPU alone: the reference's timed runs shared along
        the students timed on one GPU (R S1 R S2 R ...): each student run is paired with the
        reference run before it and the one after it, so a student costs one student run and
        one reference run of the GPU's time (with the rubric's perf_ref_every, the reference
        runs again only once its last run is that many seconds old: R S1 S2 S3 R ...). CHAIN
        holds the last reference run of the GPU (ALL_ITEMS: what it runs). More student runs
        while the pairs disagree, up to perf_pairs of them; with perf_ref_every each of them
        after the first has a fresh reference run before it. The records are verified here; the
        outputs are checked by chain_checks, after the GPU is handed on: (timings,
        [(run, item, check)], runs). A lab whose timed variants need several processes (a
        variant number twice: groups_of) has a chain per group, LABEL its name."""
        ctx = self.ctx
        lo, hi = ctx.rub.perf_pairs
        if ctx.opts.quick:
            hi = min(hi, 2)
        ref_items = list(all_items)

        def fresh_ref(p, when):
            run = self.process("reference", ref_items, p, when, label=label)
            checks = {item_key(it): self.ref_check(run, it[0], it[1]) for it in ref_items}
            self.discard(run)
            chain["last"] = (checks, time.monotonic())
            return checks

        out = self.timings(items)
        live, pending, runs = list(items), [], []
        for p in range(1, hi + 1):
            if not live or ctx.stop.is_set():
                break
            # a later student run (a loss to confirm, or pairs that disagree) has a reference
            # run of its own just before it: a shared reference run that happened to be fast
            # is then outvoted too, not paired with every one of the student's runs
            last = chain.get("last")
            shared = ctx.rub.perf_ref_every > 0
            before = last[0] if last and time.monotonic() - last[1] < 60 and \
                not (shared and p > 1) else fresh_ref(p, "-before")
            stu = self.process("student", live, p, label=label)
            if stu.res.extra_processes and len(live) > 1:
                # whose processes they are is not known: each variant's run of its own says
                self.discard(stu)
                done = {k: t for k, t in out.items() if k not in {item_key(it) for it in live}}
                for it in live:
                    o2, p2, r2 = self.chain_runs([it], chain, all_items, label)
                    done.update(o2)
                    pending += p2
                    runs += r2
                return done, pending, runs
            # the reference again after the student: always, or with perf_ref_every only
            # once the chain's last reference run is that old (the student then has one pair)
            every, last = ctx.rub.perf_ref_every, chain.get("last")
            after = {} if every > 0 and last and time.monotonic() - last[1] < every else \
                fresh_ref(p, "-after")
            runs.append(stu)
            for it in list(live):
                case, v = it
                sv = self.verify(stu, case, v, False)
                k = item_key(it)
                self.add_pairs(out[k], it, sv, (before.get(k), after.get(k)), live)
                if sv.status == "ok":
                    pending.append((stu, it, sv))
            self.settled(out, live, lo, p)
        return out, pending, runs

    def timings(self, items):
        """{(case name, variant): a VarTiming to fill} of ITEMS."""
        return {item_key(it): VarTiming(vname(it[0].part, it[1]), it[0].name, clock=self.ctx.clock,
                                   reps=self.reps) for it in items}

    def chain_checks(self, out, pending, runs, items):
        """The outputs of the student's timed runs checked (repetitions picked now), its runs'
        folders removed, each variant's timing finished."""
        for run, (case, v), sv in pending:
            t = out.get((case.name, v))
            if t is None or t.status != "ok" or self.ctx.stop.is_set():
                continue
            reps = sorted(run.descs[(case.name, v)].reps, key=lambda r: r.k)
            why = self.check_reps(run, case, v, reps, sv)
            if why:
                t.status, t.reason = why
                t.breach_run = getattr(run, "seq", None)
        for run in runs:
            self.discard(run)
        return self.finish_timings(out, items)

    def add_pairs(self, t, it, sv, refs, live):
        """The pairs of student check SV with the reference's checks REFS into T; a breach,
        or no reference run to pair with, ends the item (out of LIVE)."""
        case, v = it
        if sv.status != "ok":
            t.status, t.reason, t.breach_run = sv.status, sv.reason, sv.run_seq
            live.remove(it)
            return
        good = [rv for rv in refs if rv is not None and rv.status == "ok"]
        if not good and not t.pairs:
            bad = next((rv.reason for rv in refs if rv is not None), "it did not run")
            t.status, t.reason = "not-timed", "the reference's timed run failed (%s)" % bad
            live.remove(it)
            return
        for rv in good:
            pair = self.pair(case, v, rv, sv, None)
            if pair.get("breach"):
                (t.status, t.reason), t.breach_run = pair["breach"], sv.run_seq
                live.remove(it)
                return
            t.pairs.append(pair)

    def settled(self, out, live, lo, runs):
        """Take out of LIVE the items whose pairs (at least LO) agree within perf_spread. No
        performance point is lost on one timed run of the student's alone: an item whose ratio
        is below the one that earns the full share waits for a second run (perf_pairs
        permitting), so that a run disturbed by something outside it (a slow page migration,
        a noisy repetition) is outvoted rather than taken as the student's speed. RUNS: the
        student's timed runs so far, which every item still in LIVE took part in (the pairs
        of one run with the reference before and after it share its times)."""
        full = full_ratio(self.ctx.rub)
        for it in list(live):
            rs = [q["ratio"] for q in out[(it[0].name, it[1])].pairs]
            if full is not None and rs and statistics.median(rs) < full and runs < 2:
                continue
            if len(rs) >= lo and (max(rs) - min(rs)) <= \
                    self.ctx.rub.perf_spread * statistics.median(rs):
                live.remove(it)

    def finish_timings(self, out, items):
        """Each variant's ratio (the median of its pairs'), spread and times."""
        ctx = self.ctx
        parts = {it[0].name: it[0].part for it in items}
        for (cname, v), t in out.items():
            whys = [q.get("hidden_why") for q in t.pairs]
            if t.status == "ok" and whys and all(whys) and not ctx.opts.quick and \
                    not self.off(vname(parts[cname], v), "impossible-time"):
                t.status, t.reason = "impossible-time", whys[-1]
        for t in out.values():
            if t.status == "ok" and t.pairs:
                rs = [q["ratio"] for q in t.pairs]
                t.ratio = statistics.median(rs)
                t.spread = [min(rs), max(rs)]
                t.ref_ms = statistics.median(q["ref_ms"] for q in t.pairs)
                t.student_ms = statistics.median(q["student_ms"] for q in t.pairs)
            elif t.status == "ok":
                t.status, t.reason = "not-timed", "no timed run finished"
        return {t.vname: t for t in out.values()}

    def time_group(self, items, later=None):
        """The pairs of ITEMS; an item its run did not reach (a crash or a hang before it, in
        the same process) goes to LATER, to be timed on its own."""
        ctx = self.ctx
        lo, hi = ctx.rub.perf_pairs
        if ctx.opts.quick:
            lo, hi = min(2, hi), min(hi, 2)
        out = self.timings(items)
        live = list(items)
        for p in range(1, hi + 1):
            if not live or ctx.stop.is_set():
                break
            order = ("reference", "student") if p % 2 else ("student", "reference")
            runs = self.pair_runs(order, live, p)
            stu = runs["student"]
            if stu.res.extra_processes and len(live) > 1 and later is not None:
                # whose processes they are is not known: each variant's run of its own says
                for r in runs.values():
                    self.discard(r)
                for it in live:
                    later.append([it])
                    out.pop(item_key(it))
                return self.finish_timings(out, items)
            failed = stu.res.breach or stu.res.signal is not None or \
                stu.res.rc not in (0, 1, 4)
            missing = [item_key(it) for it in live if stu.descs.get(item_key(it)) is None]
            for it in list(live):
                case, v = it
                t = out[item_key(it)]
                if failed and item_key(it) in missing[1:] and later is not None:
                    # another item's crash or hang ended the run before this one: its own
                    later.append([it])
                    out.pop(item_key(it))
                    live.remove(it)
                    continue
                # the reference's run first: what it holds from before a window is the kit's
                rc = self.ref_check(runs["reference"], case, v)
                self.add_pairs(t, it, self.verify(stu, case, v, True), (rc,), live)
            for r in runs.values():
                self.discard(r)
            self.settled(out, live, lo, p)
        return self.finish_timings(out, items)

    def pair_runs(self, order, live, p):
        """{who: TimedRun} of one pair. CPU time: the two runs at once on the same core, in
        lockstep (keys.Lockstep: repetition by repetition, each alone, ORDER[0] first), so a
        change of the machine's load falls on both; otherwise one after the other."""
        ctx = self.ctx
        runs = {}
        if ctx.clock != "cpu" or not os.path.isfile(os.path.join(ctx.tools, "keyserve")):
            for who in order:
                runs[who] = self.process(who, live, p)
            return runs
        pair = Lockstep(wait_s=ctx.limits("run").wall_s or 60.0)
        errors = []

        def second():
            try:
                runs[order[1]] = self.process(order[1], live, p, baton=pair.side(1))
            except BaseException as e:      # handed to the caller's thread
                errors.append(e)
        t = threading.Thread(target=second, daemon=True)
        t.start()
        try:
            runs[order[0]] = self.process(order[0], live, p, baton=pair.side(0))
        except BaseException:
            pair.close()                    # the other run goes on free, not waiting
            raise
        finally:
            t.join()
            pair.close()
        if errors:
            raise errors[0]
        return runs

    def hidden_work(self, rv, sv, r_ms, s_ms):
        """(ms of a repetition beyond its window, more than the reference's; why that is too
        much, or '' when it is within what noise does)."""
        if not rv.intervals or not sv.intervals:
            return None, ""
        rest_ref = statistics.median(i - t for i, t in zip(rv.intervals, rv.self_ms))
        rest_stu = statistics.median(i - t for i, t in zip(sv.intervals, sv.self_ms))
        hidden = rest_stu - rest_ref
        if hidden <= max(r_ms, 2.0):
            return hidden, ""
        return hidden, ("its repetitions took %.3f ms each by the grader's clock, of which its "
                        "windows hold %.3f ms: %.3f ms more than the rest of a repetition takes "
                        "(the reference's), in every pair (work outside the timed windows, in "
                        "other threads or processes, or windows that are not true)" % (
                            statistics.median(sv.intervals), s_ms, hidden))

    def pair(self, case, v, rv, sv, runs=None):
        ctx = self.ctx
        gpu = ctx.clock == "gpu" and rv.times and sv.times
        if not gpu and (not rv.self_ms or not sv.self_ms):
            return {"breach": ("not-timed", "its timed run had too few repetitions to be timed")}
        rt, st = (rv.times, sv.times) if gpu else (rv.self_ms, sv.self_ms)
        r_ms, s_ms = statistics.median(rt), statistics.median(st)
        # each repetition's time and the two runs (speedloss: why points were lost)
        out = {"ref_reps_ms": [round(x, 5) for x in rt], "student_reps_ms":
               [round(x, 5) for x in st], "ref_run": rv.run_seq, "student_run": sv.run_seq}
        if not gpu:
            hidden, why = self.hidden_work(rv, sv, r_ms, s_ms)
            out.update({"hidden_ms": hidden, "hidden_why": why})
            if rv.outside and sv.outside:   # CPU beyond one thread's outside the windows
                out["ref_outside_cpu_ms"] = statistics.median(rv.outside)
                out["outside_cpu_ms"] = statistics.median(sv.outside)
            # beyond the noise, the time a repetition takes outside its windows (more than
            # the reference's: a window its own notes make short) and another thread's CPU
            # there (work beside the harness's content or output) are the student's
            noise = max(HIDDEN_NOISE * r_ms, HIDDEN_NOISE_MS)
            if not ctx.opts.quick:
                s_ms += sum(max(0.0, x - noise) for x in (hidden, out.get("outside_cpu_ms"))
                            if x is not None)
            s_ms = max(s_ms, r_ms * 0.02, 1e-4)
        out.update({"ref_ms": r_ms, "student_ms": s_ms,
                    "ratio": r_ms / s_ms if s_ms > 0 else 0.0,
                    "checked": sv.checked, "ref_x_ms": rv.x_ms, "student_x_ms": sv.x_ms,
                    "ref_cycle_ms": _med(rv.intervals), "student_cycle_ms": _med(sv.intervals)})
        return out


def groups_of(items, by_part=False):
    """ITEMS [(case, variant)] parted into the fewest processes the harness takes in their
    order (no variant number twice in one; BY_PART: no part's variant twice, the key channel
    naming the part, the rubric's perf_one_process): [(items, label)], LABEL '' for one
    group, else '-' and the first item's part (or case) name, e.g. '-rgb', '-sep'."""
    def word(it):
        return (it[0].part, it[1]) if by_part else it[1]
    groups = []
    for it in items:
        g = next((g for g in groups if all(word(x) != word(it) for x in g)), None)
        if g is None:
            groups.append([it])
        else:
            g.append(it)
    if len(groups) < 2:
        return [(g, "") for g in groups]
    out, seen = [], set()
    for g in groups:
        label = "-" + (g[0][0].part or g[0][0].name)
        while label in seen:
            label += "x"
        seen.add(label)
        out.append((g, label))
    return out


class Ahead:
    """A student's timed run started early (Timer.prestart), held at its gate by its key
    server until go() lets it on or cancel() refuses it."""

    @staticmethod
    def key(items, pair, label=""):
        return tuple((c.name, v) for c, v in items), pair, label

    def __init__(self, timer, items, pair, label=""):
        self.timer, self.spec = timer, self.key(items, pair, label)
        gate, self.gate_w = os.pipe()
        self.value = self.error = None
        self.thread = threading.Thread(target=self._run, args=(items, pair, gate, label),
                                       daemon=True)
        self.thread.start()

    def _run(self, items, pair, gate, label):
        try:
            self.value = self.timer.process("student", items, pair, gate=gate, label=label)
        except BaseException as e:      # handed to the thread that lets it go
            self.error = e

    def _release(self, byte):
        if self.gate_w >= 0:
            try:
                if byte:
                    os.write(self.gate_w, byte)
            finally:
                os.close(self.gate_w)
                self.gate_w = -1

    def go(self):
        """Open the gate; the run's TimedRun once it is over."""
        self._release(b"o")
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.value

    def cancel(self):
        """Refuse the run at its gate (the harness stops there) and forget it."""
        self._release(b"")
        self.thread.join()
        run = self.value
        if run is not None:
            self.timer.discard(run)
            if run.record in self.timer.stu.runs:
                self.timer.stu.runs.remove(run.record)


def item_key(item):
    """An item's key: (its case's name, the variant)."""
    return item[0].name, item[1]


def _med(xs):
    return statistics.median(xs) if xs else None


def _now_ns():
    return time.monotonic_ns()
