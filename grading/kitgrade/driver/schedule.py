"""The driver: the reference, then every student's build, runs, timing and report.

The reference first, then every student through build, correctness runs, timed runs and
report, as many at once as the cores allow, with the progress. Each student's results.json is
written last: a student with one is graded, anything half done is done again by the next run.
The command line around it (the class, resume, locking, a clean stop, the outputs) is entry.py."""
import os
import sys
import threading
import time
import traceback
from contextlib import contextmanager, nullcontext

from ..base import fsutil
from ..base.safetext import clean
from ..base.tell import say
from ..lab import build, names, objcache, rubric
from ..runs import check
from ..runs.desc import case_seed, rep_key
from ..runs.run import Runner
from ..runs.speedloss import RunLog, explain, running
from ..runs.timing import Timer, groups_of, item_key
from ..scoring import report
from ..scoring.score import result
from . import extras
from .context import int_or_none
from .outputs import internal_error
from .pools import Cores, Gpus, Held, TimingLine
from .workflow import Workflow

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # kitgrade/


# correctness runs at once on one GPU unless --gpu-share says: the --jobs count, at most this
# (16 graded every copy of the reference alike; 64 took over 10 s each, 0.7 s alone).
SHARE_MOST = 16


def _yes():
    """The reference's urgency: its build and correctness run go before the students' builds
    (Cores.acquire), since every student waits for them."""
    return True


class Grading:
    def __init__(self, ctx, students, skipped, jobs):
        self.ctx = ctx
        self.students = students
        self.skipped = skipped
        self.jobs = jobs
        cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
            list(range(os.cpu_count() or 1))
        self.cores = Cores(cores[:max(jobs, 1)] if jobs < len(cores) else cores)
        self.gpus = Gpus(ctx.slots, share=ctx.opts.gpu_share or max(2, min(jobs, SHARE_MOST)))
        self.line = TimingLine(self.gpus, self.cores, ctx.slots) if ctx.slots else None
        self.ref_ready = threading.Event()
        self.ref_built = threading.Event()  # the reference's build ended (its objects known)
        self.objects = objcache.ObjectCache()   # the reference build's objects (objcache)
        self.ref_keys = set()       # the reference solution's files (objcache.key)
        self.ref_src = None         # where the reference is built from (know_objects)
        self.ref_box = None
        self.ref_boxes = {}         # timing slot -> a box holding a copy of the reference
        self.all_items = timed_items(ctx, None)
        # [(items, label)]: one process each
        self.groups = groups_of(self.all_items, ctx.rub.perf_one_process)
        # GPU -> group -> the group's last reference timed run
        self.chains = {s: {} for s in ctx.slots}
        self.fatal = None
        self.crashed = []           # [student]: the grader failed on them (internal-errors.txt)
        self.lock = threading.Lock()
        self.ref_lock = threading.Lock()    # ref_box_for: making a slot's box
        self.boxes = set()
        self.active = {"building": 0, "running": 0, "timing": 0}
        self.done = 0
        self.graded_now = 0
        self.t0 = time.monotonic()
        ctx.t0 = self.t0            # runs' records say when they started (ctx.since_start)
        ctx.runlog = RunLog()       # and where: why a student lost speed points (speedloss)
        self.gnuplot = _which("gnuplot")
        self.gp = os.path.join(os.path.dirname(HERE), "plot_grades.gp")
        self.nodev = False
        self.wf = ctx.wf if ctx.wf is not None else Workflow(ctx.opts)
        self.ref_dir = os.path.join(ctx.out, "reference")
        self.shard = None           # a Slurm array task's claims and facts (shard.Shard)

    # ---------------------------------------------------------------- helpers
    def open_box(self, name):
        box = self.ctx.sandbox.box(name, int_or_none(self.ctx.rub.limits.get("disk_mb")))
        with self.lock:
            self.boxes.add(box)
        return box

    def close_box(self, box):
        with self.lock:
            self.boxes.discard(box)
        if not self.ctx.opts.keep_work:
            box.close()

    def count(self, what, d):
        with self.lock:
            self.active[what] += d

    def mark(self, phases, name, i):
        """PHASES[NAME][I] = now (s from the grading's start): results.json "phases"."""
        phases.setdefault(name, [None, None])[i] = round(time.monotonic() - self.t0, 3)

    @contextmanager
    def _phase(self, what, ph, name):
        """WHAT counted active (the progress line) and PH[NAME] marked, start and end, around
        the block."""
        self.count(what, 1)
        self.mark(ph, name, 0)
        try:
            yield
        finally:
            self.count(what, -1)
            self.mark(ph, name, 1)

    def fail(self, msg):
        with self.lock:
            if self.fatal is None:
                self.fatal = msg
        self.ctx.stop.set()
        self.ref_built.set()
        self.ref_ready.set()

    def slot_of(self, i):
        return self.ctx.slots[i % len(self.ctx.slots)] if self.ctx.slots else None

    # ---------------------------------------------------------------- build
    def put(self, box, src_dir):
        """The submission's files into BOX/src: (file notes, {file: the bytes put there})."""
        sources = {}
        notes = build.put_files(box, self.ctx.lab.srcs, src_dir,
                                os.path.join(self.ctx.pristine, "labs", self.ctx.lab.name), sources)
        return notes, sources

    def know_objects(self):
        """Before any build: the reference's files as a copy holds them (objcache.prime)."""
        self.ref_src = os.path.join(self.ctx.tmp, "reference-src")
        self.ref_keys = self.objects.prime(self.ctx.lab, self.ref_src)

    def build(self, box, src_dir, sd, cores, put=None):
        """(BuildResult, file notes) of one submission (or of the reference), its files
        compiled side by side on CORES where there are several (make -j), but for a file of
        the reference's bytes (objcache). PUT: what self.put returned, the files in BOX."""
        ctx = self.ctx
        notes, sources = put or self.put(box, src_dir)
        seeded = self.objects.seed(box, sources)
        log = os.path.join(sd, "build.log")
        t0 = time.monotonic()
        with running(ctx, os.path.basename(sd), "build", None, cores):
            jobs = ["-j%d" % len(cores)] if len(cores) > 1 else []
            res = box.run(build.build_argv(ctx.lab, ctx.pristine, box.root, extra=jobs),
                          cwd=box.root,
                          env=ctx.env(extra={"HOME": str(box.root)}),
                          limits=ctx.limits("build", cpus=cores), stdout=log, stderr=log, cpus=cores)
        br = build.BuildResult(ms=(time.monotonic() - t0) * 1000.0)
        text = "".join("%s: not compiled: its bytes are the reference's, whose build's object "
                       "was used\n" % f for f in seeded) + build.clean_log(
            fsutil.read_text(log, 16 << 20), str(box.root), ctx.pristine)
        fsutil.atomic_write(log, text)
        br.warnings = [ln for ln in text.splitlines() if "warning" in ln][:5]
        if res.breach:
            lim = ctx.rub.limits["build"] if res.breach == "timeout" else ctx.limit_value(res.breach)
            br.status, br.reason = res.breach, build.breach_reason("the build", res.breach, lim)
        elif res.rc != 0 or not fsutil.bexists(box, "out/" + ctx.lab.binary):
            br.status, br.reason = "failed", build.compile_reason(text, res.rc)
        else:
            why = build.forbidden(box, ctx.lab, "out", ctx.tmp)
            if why:
                br.status, br.reason = "forbidden", why
            elif ctx.lab.gpu and ctx.slots:
                br.early = build.early_start(box, ctx.lab, "out", ctx.tmp)
            br.digest = build.program_digest(box, ctx.lab)
        br.sources = sources
        return br, notes

    # ---------------------------------------------------------------- the reference
    def warm_items(self):
        """What the correctness runs' compares will need of the checker: each variant's
        output on the case's own input (key 0; the cache names a reference by its variant
        unless the lab gives variants one class) and on its repetition (rep_key: the
        correctness runs' --reps 1), the n/a left out."""
        ctx = self.ctx
        items = []
        for c in ctx.cases:
            for v in c.variants:
                if not ctx.output_of(c, v).na:
                    items += [(c.part, v, 0, c.args),
                              (c.part, v, rep_key(case_seed(c.args), c.part, v, 1), c.args)]
        return items

    def warm_checker(self):
        """While the reference builds and runs, half the cores (8 or more here) compute the
        checker's references into its cache: every student waits for the reference's
        compares, which take seconds one after the other (9 to 13 s in lab 05)."""
        ctx = self.ctx
        n = len(self.cores.all) // 2
        if n < 4 or not ctx.cache:
            return []
        items = self.warm_items()
        threads = [threading.Thread(target=check.warm, daemon=True, args=(
            ctx.checker, ctx.cache, items[i::n], lambda: self.cores.take(1), ctx.stop))
            for i in range(n)]
        for t in threads:
            t.start()
        return threads

    def reference(self):
        ctx = self.ctx
        sd = self.ref_dir
        try:
            self.warm_checker()
            fsutil.remove_tree(sd)
            os.makedirs(os.path.join(sd, "logs"))
            box = self.open_box(names.REF_BOX)
            self.ref_box = box
            # every student waits for the reference: its files built side by side on a quarter
            # of the cores, up to 4 (lab 05's took 13 s on one core)
            with self.cores.take(max(1, min(4, len(self.cores.all) // 4)), urgent=_yes) as cs:
                self.count("building", 1)
                try:
                    br, _ = self.build(box, self.ref_src, sd, cs)
                    if br.status != "ok" and len(cs) > 1:    # as a student's: one at a time
                        br, _ = self.build(box, self.ref_src, sd, cs[:1])
                    if br.status == "ok":   # before anything runs in its box
                        self.objects.add_box(box, br.sources)
                finally:
                    self.count("building", -1)
                    self.ref_built.set()
            if br.status != "ok":
                log = fsutil.read_text(os.path.join(sd, "build.log"), 1 << 20)
                return self.fail("the reference solution does not build (%s: %s):\n%s" % (
                    br.status, br.reason, log[-2000:]))
            slot = self.slot_of(0)
            with self.cores.take(1, urgent=_yes) as cs, self._gpu_shared(slot):
                r = Runner(ctx, box, sd, slot, cs, is_ref=True)
                self._share_clock(r, slot)
                r.correctness(ctx.cases)
            if r.nodev:
                self.nodev = True
                say("no CUDA device here: submissions are built, not run (status skipped)")
            # the reference's own record, as a student's (its timed runs are in every
            # student's pairs)
            rec = result(ctx.rub, names.Student("reference", "reference", ctx.lab.solutions),
                         ctx.lab.nn, {"status": br.status, "ms": round(br.ms)}, [], r.outcomes,
                         runs=r.runs)
            report.write_views(sd, rec)
            report.write_results(sd, rec)
            bad = [o for o in r.outcomes if o.status not in ("pass", "n/a", "skipped")]
            if bad:
                lines = "\n".join("  v%s %s %s: %s" % (o.vname, o.case, o.status, o.reason)
                                  for o in bad[:5])
                return self.fail("the reference solution fails its own hidden tests; the "
                                 "rubric or the kit is wrong:\n" + lines)
            self.ref_ready.set()
        except Exception:
            self.fail("internal error with the reference:\n" + traceback.format_exc())
        finally:
            self.ref_built.set()                # no student waits on it for ever

    def _gpu_shared(self, slot):
        if slot is None:
            return nullcontext()
        return self.gpus.shared_use(slot)

    def _share_clock(self, r, slot):
        """R's correctness runs share GPU SLOT: each one's time limit counts its share of the
        GPU (Limits.share), so that a run among many others is not called a hang (at most
        run.SHARE_STRETCH limits of wall clock)."""
        if slot is not None:
            r.share = lambda: self.gpus.sharers(slot)
            r.share_most = self.gpus.share

    @contextmanager
    def _run_gate(self, slot, held, r):
        """Around each correctness run of a student: the GPU shared for that run only; while
        the timing line keeps the GPU, the student's core goes back to the pool."""
        with self.gpus.shared_run(slot, held):
            r.cpus = held.cs
            yield

    # ---------------------------------------------------------------- a student
    def student(self, st, index, give_back=None):
        ctx = self.ctx
        sd = os.path.join(ctx.out, "students", st.id)
        self.wf.before_wipe(st)                 # --only: the earlier result kept
        fsutil.remove_tree(sd)
        os.makedirs(os.path.join(sd, "logs"))
        extra = {"sandbox": self.sandbox_line}
        ph = {}
        self.mark(ph, "total", 0)
        if self.shard is not None:
            extra.update(self.shard.facts)      # the machine, the round and task
        src, fixed = self.wf.source(st, sd, extra)     # a git commit's files, or a status
        if fixed:
            return self.finish(sd, result(ctx.rub, st, ctx.lab.nn, {"status": ""}, [],
                                          fixed=fixed, extra=extra))
        if st.refused:
            rec = result(ctx.rub, st, ctx.lab.nn, {"status": "refused", "reason": st.refused},
                         [], fixed=("refused", st.refused), extra=extra)
            return self.finish(sd, rec)
        box = None
        try:
            box = self.open_box(st.id)
            put = self.put(box, src)
            # a file of the reference's: its object is known once the reference has built
            # (objcache), so wait for that, holding no core, rather than compile it again
            if any(objcache.key(f, d) in self.ref_keys for f, d in put[1].items()):
                while not self.ref_built.wait(1):
                    if ctx.stop.is_set():
                        return None
            with self.cores.take(1) as cs:
                if ctx.stop.is_set():
                    return None
                with self._phase("building", ph, "build"):
                    br, files = self.build(box, src, sd, cs, put)
            extra["phases"] = ph
            b = {"status": br.status, "reason": br.reason, "ms": round(br.ms),
                 "warnings": br.warnings}
            if br.status != "ok":
                st_name = {"failed": "compile-error"}.get(br.status, br.status)
                return self.finish(sd, result(ctx.rub, st, ctx.lab.nn, b, files,
                                              fixed=(st_name, br.reason), extra=extra))
            self.ref_ready.wait()
            if ctx.stop.is_set():
                return None
            if self.nodev:
                return self.finish(sd, result(ctx.rub, st, ctx.lab.nn, b, files, fixed=(
                    "skipped", "built; not run: no CUDA device here (a later grading on a GPU "
                               "machine grades it)"), extra=extra))
            slot = self.slot_of(index)
            with Held(self.cores) as held:
                with self._phase("running", ph, "run"):
                    r = Runner(ctx, box, sd, slot, held.cs)
                    r.digest = br.digest
                    if slot is not None:
                        r.gate = lambda: self._run_gate(slot, held, r)
                        self._share_clock(r, slot)
                    r.correctness(ctx.cases)
                    r.gate = None
                    r.share = None              # a sanitizer's run: the wall clock, as before
                    if ctx.opts.sanitize and not r.nodev and not ctx.stop.is_set():
                        with self._gpu_shared(slot):
                            extra["sanitize_note"] = extras.sanitize(ctx, r, held.cs)
            if ctx.stop.is_set():
                return None
            swapped = r.swapped or build.program_changed(box, ctx.lab, br.digest)
            if swapped:                 # (checked again after the timed runs)
                return self.finish(sd, result(ctx.rub, st, ctx.lab.nn, b, files,
                                              fixed=("forbidden", swapped), extra=extra))
            if ctx.lab.gpu and ctx.slots:
                extra["early_start"] = br.early or "yes"
            timings = self.timed(r, st.id, ph, give_back, early=br.early)
            if ctx.opts.profile and not ctx.stop.is_set():
                with self.gpus.alone() if ctx.slots else nullcontext() as s:
                    extra["profile_note"] = extras.profile(ctx, r, s)
            if ctx.stop.is_set():
                return None
            swapped = r.swapped or build.program_changed(box, ctx.lab, br.digest)
            if swapped:
                return self.finish(sd, result(ctx.rub, st, ctx.lab.nn, b, files,
                                              fixed=("forbidden", swapped), extra=extra))
            extra["run_ms"] = round(sum(x["wall_ms"] or 0 for x in r.runs))
            # the correctness phase's seconds: waiting for the GPU, in runs, in the checker
            extra["run_parts"] = {k: round(x, 3) for k, x in r.spent.items()}
            rec = result(ctx.rub, st, ctx.lab.nn, b, files, r.outcomes, timings,
                         runs=r.runs, extra=extra)
            for v in rec["variants"]:
                why = explain(ctx.rub, v, ctx.runlog, st.id)
                if why:
                    v["speed_loss"] = why
            return self.finish(sd, rec)
        except Exception:
            if ctx.stop.is_set():
                return None
            raise
        finally:
            if box is not None:
                self.close_box(box)

    def ref_box_for(self, slot):
        """The reference's box for one timing slot (a box runs one command at a time, and the
        slots time at once): a copy of the reference's binary in a box of its own."""
        key = "-".join(str(x) for x in slot) if isinstance(slot, (list, tuple)) else str(slot)
        with self.ref_lock:                 # one box a slot, however many ask at once
            box = self.ref_boxes.get(key)
            if box is not None:
                return box
            data, why = self.ref_box.read_file("out/" + self.ctx.lab.binary, 1 << 30)
            if data is None:
                raise RuntimeError("the reference's binary cannot be read: " + why)
            box = self.open_box(names.REF_BOX + "-" + key)
            fsutil.bwrite(box, "out/" + self.ctx.lab.binary, data, mode=0o755)
            with self.lock:
                self.ref_boxes[key] = box
            return box

    def timed(self, r, tag, ph, give_back=None, early="not checked"):
        """{variant name: VarTiming} of the variants that earned a timed run: those that
        passed every case (GPU variants all, CPU ones with speed points), timed together in
        one process per pair, on a core (or the machine, or a GPU) of their own. On a GPU the
        runs wait in the timing line (GIVE_BACK, called on entering it, hands the student's
        place in flight to the next); their outputs are checked after it, on a core. PH: the
        student's phases ("wait": for the GPU or core; "timed"; "check"). EARLY: why the
        student's timed run may not start early, while the student ahead of it in the line is
        timed ('' when it may: build.early_start)."""
        ctx = self.ctx
        items = timed_items(ctx, r.outcomes)
        if not items or ctx.stop.is_set():
            return {}
        if ctx.slots:
            timers = {}
            # one process per group of the lab's timed variants (a variant number twice, as
            # lab 04's rgb:2 and sep:2, needs two), each group with its own chain
            mine = {item_key(it) for it in items}
            groups = [(gi, [it for it in g if item_key(it) in mine], g, label)
                      for gi, (g, label) in enumerate(self.groups)]
            groups = [x for x in groups if x[1]]

            def timer(slot, cs):
                if slot not in timers:
                    timers[slot] = Timer(ctx, r, self.ref_box_for(slot), tag, slot=slot, cpus=cs)
                return timers[slot]

            def ahead(slot, cs):
                timer(slot, cs).prestart(groups[0][1], label=groups[0][3])

            def job(slot, cs):
                self.count("timing", 1)
                self.mark(ph, "wait", 1)
                self.mark(ph, "timed", 0)
                t = timer(slot, cs)
                try:
                    out, pending, runs = {}, [], []
                    for k, (gi, its, g, label) in enumerate(groups):
                        if ctx.stop.is_set():
                            break
                        if k and early == "":
                            # the next group's run is made while its reference runs (a box
                            # runs one command at a time: one run held at its gate)
                            t.prestart(its, label=label)
                        o, p, rr = t.chain_runs(its, self.chains[slot].setdefault(gi, {}), g,
                                                label)
                        out.update(o)
                        pending += p
                        runs += rr
                    return t, (out, pending, runs)
                finally:
                    t.drop_ahead()
                    self.count("timing", -1)
                    self.mark(ph, "timed", 1)
            self.mark(ph, "wait", 0)
            if give_back is not None:
                give_back()                     # the next student may start building
            try:
                t, done = self.line.submit(job, ahead if early == "" else None)
            finally:                            # a grading stopped: no run left at its gate
                for tm in list(timers.values()):
                    tm.drop_ahead()
            with self.cores.take(1) as ccs:
                self.mark(ph, "check", 0)
                t.check_cpus = ccs
                try:
                    return t.chain_checks(*done, items)
                finally:
                    self.mark(ph, "check", 1)
        n = 0 if ctx.clock == "wall" else 1
        self.mark(ph, "wait", 0)
        # CPU time: a whole physical core, its SMT siblings idle (Cores)
        with self.cores.take_whole() if ctx.clock == "cpu" else self.cores.take(n) as cs:
            with (self.gpus.alone() if ctx.slots else nullcontext()) as slot:
                self.mark(ph, "wait", 1)
                with self._phase("timing", ph, "timed"):
                    key = slot if slot is not None else (cs if ctx.clock != "wall" else "all")
                    t = Timer(ctx, r, self.ref_box_for(key), tag, slot=slot,
                              cpus=cs if ctx.clock != "wall" else None)
                    return t.time_all(items)

    def finish(self, sd, rec):
        ph = rec.get("phases")
        if ph is not None:
            self.mark(ph, "total", 1)
        self.wf.finish(rec)                     # the late penalty
        report.write_views(sd, rec)
        report.plot_student(sd, rec, self.gnuplot, self.gp)
        report.write_report(sd, rec, self.report_facts)
        report.write_results(sd, rec)
        if self.shard is not None:
            self.shard.done(rec)
        with self.lock:
            self.done += 1
            self.graded_now += 1
        self.progress("%s: %s, %.1f/%g" % (rec["student"], rec["status"],
                                           rec["points"]["total"], rec["points"]["max"]))
        return rec

    # ---------------------------------------------------------------- progress
    def progress(self, note=""):
        if self.ctx.opts.quiet:
            return
        with self.lock:
            el = time.monotonic() - self.t0
            left = self.total - self.done
            eta = "--:--"
            if self.graded_now:
                s = int(el * left / self.graded_now)
                eta = "%d:%02d" % (s // 60, s % 60)
            line = "graded %d/%d, %d building, %d running, %d timing, ETA %s" % (
                self.done, self.total, self.active["building"], self.active["running"],
                self.active["timing"], eta)
        if sys.stderr.isatty():
            sys.stderr.write("\r\033[K" + line)
        elif note:
            sys.stderr.write("%s (%s)\n" % (line, clean(note)))
        sys.stderr.flush()

    def run_all(self, todo):
        threads = []
        # twice as many students building or running as cores keeps the cores busy; those
        # waiting in the timing line hold no core, and give their place to the next student
        # (so the builds and correctness runs go on while the GPUs time), up to CAP in all
        sem = threading.Semaphore(max(2, 2 * self.jobs + 2 * max(1, len(self.ctx.slots))))
        cap = threading.Semaphore(max(4, 8 * self.jobs))

        def work(st, i):
            held = [True]

            def give_back():
                if held[0]:
                    held[0] = False
                    sem.release()
            try:
                self.student(st, i, give_back)
            except Exception:   # this student's alone: the others go on (internal_error)
                with self.lock:
                    self.crashed.append(st)
                    internal_error(self.ctx.out, st, traceback.format_exc())
            finally:
                give_back()
                cap.release()

        self.know_objects()
        ref = threading.Thread(target=self.reference, daemon=True)
        ref.start()
        for i, st in enumerate(todo):
            cap.acquire()
            sem.acquire()
            if self.ctx.stop.is_set():
                sem.release()
                cap.release()
                break
            if self.shard is not None and not self.shard.claim(st):
                sem.release()           # another task's, or graded in this round
                cap.release()
                continue
            t = threading.Thread(target=work, args=(st, i), daemon=True)
            t.start()
            threads.append(t)
        for t in threads:
            while t.is_alive():
                t.join(0.5)
                if sys.stderr.isatty():
                    self.progress()
        ref.join()
        if self.line is not None:
            self.line.close()


def timed_items(ctx, outcomes):
    """The (perf case, variant)s to time: those that passed every case (OUTCOMES; None: every
    graded one), GPU variants all, CPU ones with speed points; each variant once."""
    failed = {o.vname for o in outcomes or [] if o.status not in ("pass", "n/a")}
    passed = {o.vname for o in outcomes or [] if o.status == "pass"}
    items, seen = [], set()
    for case in [c for c in ctx.cases if c.kind == "perf"]:
        for v in case.variants:
            n = rubric.vname(case.part, v)
            if outcomes is not None and (n not in passed or n in failed):
                continue
            if n not in seen and not ctx.output_of(case, v).na and \
                    (ctx.lab.gpu or ctx.rub.points[n][1] > 0):
                items.append((case, v))
                seen.add(n)
    return items


def _which(prog):
    for d in os.environ.get("PATH", "").split(":"):
        p = os.path.join(d, prog)
        if d and os.access(p, os.X_OK):
            return p
    return None
