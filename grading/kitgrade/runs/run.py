"""The harness on the hidden cases, in the box, and each variant's outcome in plain words.

Every case of a student runs in one process first (the harness's `--cases FILE`, one line of
arguments per case, each with its own `--dump DIR`), so that a GPU lab starts CUDA once. When
that process runs past its time limit, the cases it finished stand, the case it was in runs
one process per variant (the hang is not met twice more) and the others one process each;
when it dies or leaves a variant without its description, every case runs in a
process of its own, and a case that ends badly again runs one process per variant, so that a
crash or a hang is charged to the variant that caused it (DESIGN.md "The grading mode of the
harness"). Nothing the run wrote is trusted: descriptions and outputs are read with
Box.read_file, and the verdict is the checker's.
"""
import contextlib
import os
import re
import signal as _signal
import time
from dataclasses import dataclass

from ..base import fsutil
from ..base.safetext import one_line, source_names
from ..lab import build
from ..lab.build import BREACH_WORDS, num
from ..lab.rubric import vname
from . import check
from .desc import MAX_DESC, case_seed, parse_desc, rep_key
from .speedloss import running

OK_RCS = (0, 1, 4)
# a limit a variant breaks whatever its input (forks): after it, the variant is not run again
BREACHES = ("process-limit",)
# a correctness run on a shared GPU lasts at most this many times its limit, however many
# share it (a hang holds its place and core that long, and a timing line's drain waits for it)
SHARE_STRETCH = 4


SIGNAMES = {
    "SIGSEGV": "SIGSEGV, a bad memory access",
    "SIGABRT": "SIGABRT, aborted (often heap corruption found by free)",
    "SIGBUS": "SIGBUS, a bad memory access",
    "SIGFPE": "SIGFPE, an arithmetic error",
    "SIGILL": "SIGILL, an illegal instruction",
    "SIGKILL": "SIGKILL, killed",
    "SIGXFSZ": "SIGXFSZ, wrote a file past the output limit",
}


def signame(n):
    try:
        name = _signal.Signals(n).name
    except ValueError:
        return "signal %d" % n
    return SIGNAMES.get(name, name)


def first_error(path, prefer=None):
    """The first meaningful line of a run's standard error, its paths to a student's files
    cut to their names (source_names); with PREFER (a string), the first such line that holds
    it if one does (one run of several variants: the variant's own)."""
    lines = []
    for ln in fsutil.read_text(path, 8 << 20).splitlines():
        s = one_line(ln, 1 << 20)
        if s and not s.startswith("bash: line") and \
                not re.search(r"Segmentation fault|Aborted|core dumped", s):
            if prefer is None or prefer in s:
                return source_names(s[:2000])[:160]
            lines.append(s)
    return source_names(lines[0][:2000])[:160] if lines else ""


def runtime_status(errfile, rc, ctx):
    """A variant that reported an error (or a run that ended with one), in plain words."""
    data = fsutil.read_text(errfile, 8 << 20)
    line = first_error(errfile)
    if "Resource temporarily unavailable" in data:
        return "process-limit", "hit the limit of %s processes: %s" % (
            num(ctx.limit_value("process-limit")), line)
    if re.search(r"illegal memory access|misaligned address|unspecified launch failure|"
                 r"illegal address", data, re.I):
        return "crash", "a GPU memory fault: %s" % line
    if re.search(r"out of memory", data, re.I) and ctx.rub.limits.get("gpu_memory_mb"):
        return "gpu-memory-limit", "ran out of GPU memory (limit %s MB): %s" % (
            num(ctx.limit_value("gpu-memory-limit")), line)
    return "runtime-error", "exit %s: %s" % (rc, line or "no message")


@dataclass
class Outcome:
    """One test: a variant on a case."""
    case: str
    part: str
    variant: int
    status: str
    reason: str = ""
    kind: str = "case"
    listing: str = ""
    diff: str = ""

    @property
    def vname(self):
        return vname(self.part, self.variant)


def run_record(ctx, name, res, started, gated_s=None, gpu=None, cores=None):
    """A run's entry in results.json "runs": name, wall ms, exit status (or 128 + the signal),
    CPU ms, its start in seconds from the grading's start, the seconds it was held at its
    gate (a timed run started early), the GPU and cores it ran on; RES: the sandbox's Result,
    STARTED: time.monotonic() at its start."""
    rec = {"name": name, "wall_ms": _r(res.wall_ms), "rc": res.rc if res.rc is not None
           else 128 + (res.signal or 0), "cpu_ms": _r(res.cpu_ms)}
    at = ctx.since_start(started)
    for k, x in (("at", at), ("gated_s", None if gated_s is None else round(gated_s, 3)),
                 ("gpu", None if gpu is None else str(gpu)),
                 ("cores", sorted(cores) if cores else None)):
        if x is not None:
            rec[k] = x
    return rec


def _r(x):
    return None if x is None else round(float(x), 1)


class Runner:
    """The runs of one student (or of the reference) in its box."""

    def __init__(self, ctx, box, sd, slot=None, cpus=None, is_ref=False):
        self.ctx, self.box, self.sd, self.is_ref = ctx, box, sd, is_ref
        self.slot, self.cpus = slot, cpus
        self.binary = os.path.join(box.root, "out", ctx.lab.binary)
        self.barred = {}            # variant name -> (status, why) of one not run again: it
        #                             ran past the time limit or broke a limit in a case
        self.rounds = 0             # runs of every case left so far
        self.loners = set()         # variant names whose run of their own crashed, broke a
        #                             limit or failed: in later cases they run alone
        self.cut_case = None        # the case the run of every case was in when it timed out
        self.tampered = ""          # why: the run put a link where the grader reads
        self.digest = ""            # the program's as built and checked (schedule sets it)
        self.swapped = ""           # why: a run put another program in its place
        self.nodev = False
        self.outcomes = []          # [Outcome]
        self.runs = []              # run_record()s
        self.gate = None            # () -> a context manager each run is made inside
        self.share = None           # () -> how many runs share its GPU now (Limits.share)
        self.share_most = 1         # and how many may (a run's wall clock is at most this
        #                             many times its limit, and SHARE_STRETCH)
        self.spent = {"gate": 0.0, "runs": 0.0, "checks": 0.0}   # seconds, where they went
        os.makedirs(os.path.join(sd, "logs"), exist_ok=True)

    @property
    def clean(self):
        """No variant crashed, hung, broke a limit or an error in the correctness runs (so
        one process may run them all)."""
        return not any(o.status not in ("pass", "wrong", "not-implemented", "n/a")
                       for o in self.outcomes)

    # ---------------------------------------------------------------- one process
    def run(self, argv, name, scale=1.0, env=None, pass_fds=(), cpus=None):
        """ARGV in the box under the run's limits times SCALE, on CPUS (default the
        student's): (sandbox Result, its stderr file)."""
        so = os.path.join(self.sd, "logs", name + ".out")
        se = os.path.join(self.sd, "logs", name + ".err")
        t0 = time.monotonic()
        cpus = cpus if cpus is not None else self.cpus
        with self.gate() if self.gate is not None else contextlib.nullcontext():
            t1 = time.monotonic()
            lim = self.ctx.limits("run", scale=scale, cpus=cpus)
            if self.share is not None:
                lim.share = self.share
                lim.wall_most_s = lim.wall_s * max(1, min(self.share_most, SHARE_STRETCH))
            with running(self.ctx, os.path.basename(self.sd), name, self.slot, cpus):
                res = self.box.run(argv, cwd=self.box.root,
                                   env=env or self.run_env(),
                                   limits=lim,
                                   stdout=so, stderr=se,
                                   pass_fds=pass_fds, cpus=cpus)
        self.check_program()
        t2 = time.monotonic()
        self.spent["gate"] += t1 - t0
        self.spent["runs"] += t2 - t1
        self.runs.append(run_record(self.ctx, name, res, t1, gpu=self.slot, cores=cpus))
        return res, se

    def check_program(self):
        """After each run: the program is still the one built and checked, else SWAPPED says
        why (a run that put another in its place and back before a later check is caught)."""
        if self.digest and not self.swapped:
            self.swapped = build.program_changed(self.box, self.ctx.lab, self.digest)

    def run_env(self):
        """A correctness run's environment: on a GPU, waits for it sleep (KIT_GPU_WAIT=block)
        instead of spinning, so that the runs sharing it leave the cores to builds and
        checks while the GPU serves one of them."""
        return self.ctx.env(self.slot, {"KIT_GPU_WAIT": "block"} if self.slot is not None
                            else None)

    def compare(self, case, v, key, data, diff=None):
        """The checker's verdict on DATA, on the cores the student holds (timed in SPENT)."""
        t0 = time.monotonic()
        try:
            return check.compare(self.ctx.checker, case.part, v, key, case.args, data,
                                 diff=diff, cache=self.ctx.cache,
                                 tol=self.ctx.tol(vname(case.part, v)), cpus=self.cpus)
        finally:
            self.spent["checks"] += time.monotonic() - t0

    def dump_dir(self, rel, fresh=True):
        return fsutil.bmkdir(self.box, rel, fresh=fresh)

    def done_with(self, rel):
        """A run folder whose outputs are judged: it goes (the box's disk is the student's
        whole allowance), unless --keep-work."""
        if not self.ctx.opts.keep_work:
            fsutil.bremove(self.box, rel)

    def desc(self, rel, v):
        data, why = self.box.read_file("%s/v%d.txt" % (rel, v), MAX_DESC)
        if data is None and fsutil.tampered(why):
            self.tampered = why
        return parse_desc(data) if data is not None else None

    def case_argv(self, case, dump, variants, reps=1):
        a = ["--dump", dump]
        if case.part:
            a += ["--part", case.part]
        return a + ["--variant", variants] + list(case.args) + ["--reps", str(reps)]

    # ---------------------------------------------------------------- verdicts
    def verdict(self, case, v, rel):
        """The checker's verdict on DIR/vV.bin (key 0)."""
        data, why = self.box.read_file("%s/v%d.bin" % (rel, v), self.ctx.max_output(case, v))
        if data is None:
            if fsutil.tampered(why):
                self.tampered = why
            return None, why
        tag = "v%d-%s" % (v, case.name) if not case.part else "%s-v%d-%s" % (case.part, v,
                                                                             case.name)
        diff = os.path.join(self.sd, "diff", tag + ".png")
        os.makedirs(os.path.dirname(diff), exist_ok=True)
        verd = self.compare(case, v, 0, data, diff=diff)
        if verd.status == "wrong" and verd.listing:
            mdir = os.path.join(self.sd, "mismatch")
            os.makedirs(mdir, exist_ok=True)
            fsutil.atomic_write(os.path.join(mdir, tag + ".txt"), verd.listing + "\n")
        return verd, ""

    def check_rep(self, case, v, rel, d):
        """The run's last repetition (fresh content, its key the harness's own) checked too:
        (status, why it fails), or ("", ""). A wrong output that is byte for byte the first
        one is a kept result (replayed); another wrong one is a plain wrong result (a bug that
        the first content did not show)."""
        if not d.reps:
            return "replayed", "its run reported no repetition"
        r = d.reps[-1]
        key = rep_key(case_seed(case.args), case.part, v, r.k)
        try:
            said = int(r.key, 16)
        except ValueError:
            said = -1
        if said != key:
            return "replayed", "repetition %d ran on content it was not given (key %s)" % (
                r.k, r.key[:16])
        cap = self.ctx.max_output(case, v)
        data, why = self.box.read_file("%s/v%d.r%d.bin" % (rel, v, r.k), cap)
        if data is None:
            return "replayed", "the output of repetition %d cannot be read (%s)" % (r.k, why)
        verd = self.compare(case, v, key, data)
        if verd.status == "pass":
            return "", ""
        first, _ = self.box.read_file("%s/v%d.bin" % (rel, v), cap)
        if first is not None and first == data:
            return "replayed", "its first output passed, but for fresh content (repetition " \
                               "%d) it gave the same bytes again, which are wrong (%s): a " \
                               "result kept from an earlier input" % (r.k, verd.detail)
        return "wrong", "its first output passed, but its output for fresh content " \
                        "(repetition %d) is wrong: %s" % (r.k, verd.detail)

    def classify(self, case, v, rel, res, errfile, alone):
        """(status, reason, verdict) of variant V of CASE from the run that wrote REL."""
        o = self.ctx.output_of(case, v)
        if o.na:
            return "n/a", o.na, None
        d = self.desc(rel, v)
        sig = res.signal if res is not None and res.breach is None else None
        breach = res.breach if res is not None else None
        if d is None and self.tampered:
            return "forbidden", "its run put a link where the grader reads its results, " \
                                "which the grader does not follow (%s)" % self.tampered, None
        if d is not None and d.status == "ok":
            verd, why = self.verdict(case, v, rel)
            if verd is None:
                if fsutil.tampered(why):
                    return "forbidden", "its output is a link, which the grader does not " \
                                        "follow (%s)" % why, None
                return "no-output", "its output cannot be read (%s)" % why, None
            if alone and sig:
                return "crash", "crashed (%s) after its output (%s)" % (signame(sig),
                                                                       verd.status), verd
            if alone and breach:
                return breach, self.breach_reason(breach, "after its output"), verd
            if verd.status != "pass":
                return "wrong", verd.detail, verd
            st, why = self.check_rep(case, v, rel, d)
            if st:
                return st, why, verd
            return "pass", "", verd
        if d is not None and d.status == "not-implemented":
            return "not-implemented", "returned KIT_NOT_IMPLEMENTED", None
        if d is not None and d.status == "unsupported":
            if self.is_ref:
                self.ctx.ref_na[(case.name, v)] = "the reference does not run it on this input"
            if (case.name, v) in self.ctx.ref_na:
                return "n/a", self.ctx.ref_na[(case.name, v)], None
            return "runtime-error", "reported that it cannot take this input, which it must " \
                                    "(the reference takes it)", None
        if d is not None and d.status == "error":
            if alone and breach:
                return breach, self.breach_reason(breach), None
            st, why = runtime_status(errfile, res.rc if res else "?", self.ctx)
            return st, why, None
        if d is not None:
            return "no-output", "its output description is unreadable (%s)" % (
                d.bad or "status '%s'" % d.status), None
        if res is None:
            return "no-output", "it did not run", None
        if breach:
            return breach, self.breach_reason(breach), None
        if res.rc == 77:
            return "skipped", "no CUDA device here", None
        if sig:
            return "crash", "crashed (%s)" % signame(sig), None
        if res.rc == 0:
            return "no-output", "the program exited 0 without running the variant (a fake " \
                                "verdict?)", None
        return runtime_status(errfile, res.rc, self.ctx) + (None,)

    def breach_reason(self, breach, after=""):
        lim = self.ctx.limit_value(breach)
        words = BREACH_WORDS.get(breach, breach + " (%s)") % num(lim)
        if breach == "timeout":
            words = "ran past the %s s time limit (killed)" % num(lim)
        return words + (" " + after if after else "")

    def settle(self, case, v, rel, res, errfile, alone, kind=None):
        st, why, verd = self.classify(case, v, rel, res, errfile, alone)
        oc = Outcome(case.name, case.part, v, st, why, kind or case.kind,
                     verd.listing if verd else "", verd.diff if verd else "")
        self.outcomes.append(oc)
        if st == "timeout":
            self.bar(case, v, "timeout")
        elif alone and st in BREACHES:
            self.bar(case, v, st)
        elif alone and st not in ("pass", "wrong", "not-implemented", "n/a", "skipped"):
            self.loners.add(vname(case.part, v))
        return oc

    def bar(self, case, v, breach):
        """Variant V broke a limit (BREACH) in CASE: it is not run again."""
        words = "ran past the time limit" if breach == "timeout" else self.breach_reason(breach)
        self.barred[vname(case.part, v)] = (breach, "not run: it %s in an earlier case" % words)

    def barred_outcome(self, c, v):
        """Variant V barred in an earlier case (bar): its outcome in case C, not run. True
        when so (a variant with no output in C is not barred there)."""
        n = vname(c.part, v)
        if n not in self.barred or self.ctx.output_of(c, v).na:
            return False
        st, why = self.barred[n]
        self.outcomes.append(Outcome(c.name, c.part, v, st, why, c.kind))
        return True

    def no_device(self, c, variants):
        """The harness found no CUDA device (exit 77): VARIANTS of case C are skipped."""
        self.nodev = True
        for v in variants:
            self.outcomes.append(Outcome(c.name, c.part, v, "skipped", "no CUDA device here",
                                         c.kind))

    def hung(self, case, v, res):
        """Variant V of CASE was the one running when a run of several (RES) ran out of time.
        A run that spent most of its time on a core (a loop, or a wait for a kernel that never
        ends, spinning) hung: V's outcome, and it is not run again. One that mostly waited
        (a run slowed by the students it shared the GPU with: 3.4 s on a core in 17 s) is not
        called a hang yet: V runs alone from now on, with a limit of its own (its outcome
        there; past that limit it is barred, settle). True: V is left to run alone."""
        if res.cpu_ms is not None and res.wall_ms and res.cpu_ms >= 0.5 * res.wall_ms:
            self.outcomes.append(Outcome(case.name, case.part, v, "timeout",
                                         self.breach_reason("timeout"), case.kind))
            self.bar(case, v, "timeout")
            return False
        self.loners.add(vname(case.part, v))
        return True

    # ---------------------------------------------------------------- correctness
    def correctness(self, cases):
        """Every case, every variant it names: Outcomes. Each case's dump folder is
        run/CASE. Every case in one run; what a failure leaves, case by case (one_case). Once
        a run finds a variant that hangs or must run alone, the cases left go in one run
        again without it."""
        todo, known = list(cases), None
        while todo and not (self.ctx.stop.is_set() or self.nodev):
            now = (len(self.barred), len(self.loners))
            if len(todo) > 1 and now != known:
                known = now
                got = self.together(todo)
                todo = [c for c in todo if c.name not in got]
                continue
            self.one_case(todo.pop(0))
        return self.outcomes

    def split(self, c):
        """(the variants of case C that run with the others, those that run alone): those
        barred in an earlier case get their outcome here, and one already settled in this case
        is left out."""
        settled = {o.variant for o in self.outcomes if o.case == c.name}
        run, lone = [], []
        for v in c.variants:
            if v in settled or self.barred_outcome(c, v):
                continue
            (lone if vname(c.part, v) in self.loners else run).append(v)
        return run, lone

    def which(self, c, run):
        """--variant for RUN of case C: all where no variant of it is left out, else the list
        (the harness runs it in order); and the order the harness runs them in."""
        allv = list(self.ctx.info.part_variants(c.part))   # what "all" runs
        if set(run) == set(c.variants) and not any(vname(c.part, v) in self.barred or
                                                   vname(c.part, v) in self.loners
                                                   for v in allv):
            return "all", allv
        return ",".join(map(str, sorted(run))), sorted(run)

    def together(self, cases):
        """The cases in one run (their variants that may run together); the names of the
        cases settled."""
        lines, plan = [], {}
        for c in cases:
            run, lone = self.split(c)
            plan[c.name] = (run, lone) + self.which(c, run)
            if run:
                dump = self.dump_dir("run/" + c.name)
                lines.append("\t".join(self.case_argv(c, dump, plan[c.name][2])))
        if not lines:
            for c in cases:
                self.run_alone(c, plan[c.name][1])
            return {c.name for c in cases}
        fsutil.bwrite(self.box, "run/cases.txt", "\n".join(lines) + "\n")
        # one run's time limit for every case together, plus twice what the reference's run of
        # every case took: a hang then costs about one limit here (the cases it finished
        # stand), and a lab whose cases add up to seconds (lab 05) does not blame the case a
        # run of every case was in when one limit ran out. The reference itself (run first)
        # has a limit for each case.
        self.rounds += 1
        ctx = self.ctx
        scale = float(len(lines)) if self.is_ref else \
            1.0 + 2.0 * ctx.ref_together_s / max(ctx.run_timeout, 1e-3)
        res, err = self.run([self.binary, "--quiet", "--cases",
                             os.path.join(self.box.root, "run/cases.txt")],
                            "together" + ("-%d" % self.rounds if self.rounds > 1 else ""),
                            scale=scale)
        if self.is_ref and self.rounds == 1 and res.breach is None:
            ctx.ref_together_s = max(ctx.ref_together_s, res.wall_ms / 1000.0)
        if res.rc == 77 and res.breach is None:
            for c in cases:
                self.no_device(c, c.variants)
            return {c.name for c in cases}
        stop = None
        for c in cases:
            if any(self.desc("run/" + c.name, v) is None for v in plan[c.name][0]
                   if not self.ctx.output_of(c, v).na):
                stop = c.name
                break
        ok = res.rc in OK_RCS and res.breach is None and res.signal is None and stop is None
        timed_out = res.breach == "timeout"
        if timed_out and stop is not None:
            # the case it was running then: where an earlier variant of it has its description,
            # the first one without hung (the harness runs them in order, each writes one); it
            # is not run again, and the case's others run together. Else (it hung before the
            # case's first variant ended: there, or between cases) the case's variants run alone
            sc = next(c for c in cases if c.name == stop)
            order = plan[stop][3]
            culprit = next((v for v in order if self.desc("run/" + stop, v) is None), None)
            if culprit not in plan[stop][0] or culprit == order[0] or \
                    self.ctx.output_of(sc, culprit).na:
                self.cut_case = stop    # which one is not known: its variants run alone
            else:
                self.hung(sc, culprit, res)
        if not ok and not timed_out:
            for c in cases:
                self.done_with("run/" + c.name)
            return set()
        done = set()
        for c in cases:
            if c.name == stop:
                break
            run, lone = plan[c.name][:2]
            for v in run:
                self.settle(c, v, "run/" + c.name, res, err, False)
            self.done_with("run/" + c.name)
            self.run_alone(c, lone)
            done.add(c.name)
        for c in cases:
            if c.name not in done:
                self.done_with("run/" + c.name)
        return done

    def one_case(self, c):
        """One case in one run, the variants barred in an earlier case left out and those
        whose own run failed there (loners) run alone; after a failure, what stands stands
        and the rest runs again, one variant a run."""
        run, lone = self.split(c)
        rel = "run/" + c.name
        alone = run
        if len(run) > 1 and c.name != self.cut_case:
            which, allv = self.which(c, run)
            dump = self.dump_dir(rel)
            res, err = self.run([self.binary, "--quiet"] + self.case_argv(c, dump, which),
                                c.name)
            if res.rc == 77 and res.breach is None and res.signal is None:
                self.no_device(c, run)
                return
            descs = {v: self.desc(rel, v) for v in run}
            ok = res.rc in OK_RCS and res.breach is None and res.signal is None and \
                all(descs[v] is not None or self.ctx.output_of(c, v).na for v in run)
            if ok:
                for v in run:
                    self.settle(c, v, rel, res, err, False)
                self.done_with(rel)
                return self.run_alone(c, lone)
            # After a hang, what finished before it stands and the first variant without its
            # description is the one that hung. After an error or a crash, a variant whose
            # output passed stands (unless the crash came after every variant). Anything else
            # runs again alone.
            timed_out = res.breach == "timeout"
            missing = [v for v in allv if self.desc(rel, v) is None]
            culprit = missing[0] if (timed_out and missing) else None
            all_done = not missing
            crashed = res.signal is not None or (res.breach not in (None, "timeout"))
            alone = []
            for v in run:
                if v == culprit:
                    if self.hung(c, v, res):
                        alone.append(v)
                    continue
                if descs[v] is not None and (timed_out or not crashed or not all_done):
                    st, why, verd = self.classify(c, v, rel, res, err, False)
                    if timed_out or st == "pass":
                        self.outcomes.append(Outcome(c.name, c.part, v, st, why, c.kind,
                                                     verd.listing if verd else "",
                                                     verd.diff if verd else ""))
                        continue
                alone.append(v)
            self.done_with(rel)
        self.run_alone(c, alone + lone)

    def run_alone(self, c, variants):
        """Each of VARIANTS of case C in a run of its own (one barred since they were picked:
        its outcome, not run)."""
        for v in sorted(variants):
            if self.barred_outcome(c, v):
                continue
            r2 = "run/%s-v%d" % (c.name, v)
            dump = self.dump_dir(r2)
            res, err = self.run([self.binary, "--quiet"] + self.case_argv(c, dump, str(v)),
                                "%s-v%d" % (c.name, v))
            if res.rc == 77 and res.breach is None and self.desc(r2, v) is None:
                self.nodev = True
            self.settle(c, v, r2, res, err, True)
            self.done_with(r2)

