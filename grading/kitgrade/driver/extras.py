"""The optional runs: --sanitize and --profile.

--sanitize: compute-sanitizer memcheck on GPU labs; on CPU labs an AddressSanitizer and UBSan
build of the student's files under the kit's own rules. --profile: the profiler metrics of
every passing GPU variant, through grading/metrics in the box."""
import os
import re

from ..base import fsutil
from ..lab import build
from ..lab.rubric import vname
from ..runs.run import Outcome

_SAN_ERR = re.compile(r"^==[0-9]+==ERROR|runtime error:|========= (Invalid|Program hit)")
_SAN_MSG = re.compile(r"========= (Invalid|Program hit|[A-Z][a-z]+ (read|write))|"
                      r"==[0-9]+==ERROR|runtime error:")


def _case(ctx):
    cs = [c for c in ctx.cases if c.kind == "case"]
    for c in cs:
        if c.name == ctx.rub.sanitize_case:
            return c
    return cs[0] if cs else None


def _tool():
    for d in os.environ.get("PATH", "").split(":") + [
            os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin")]:
        p = os.path.join(d, "compute-sanitizer")
        if d and os.access(p, os.X_OK):
            return p
    return None


def sanitize(ctx, r, cores):
    """Sanitizer runs of every implemented variant of the sanitize case (Outcomes of kind
    'sanitize' appended to the runner's); a note when they could not run."""
    case = _case(ctx)
    if case is None:
        return "no hidden case to run the sanitizer on"
    binary = r.binary
    pre = []
    if ctx.lab.gpu:
        tool = _tool()
        if not tool:
            return "compute-sanitizer not found: sanitizer runs skipped"
        # padding after every allocation: a kernel writing past its output lands there, not
        # in the next buffer, where memcheck sees nothing (whether it does depends on the
        # picture's size, which the secret seed draws: one run in two missed it)
        pre = [tool, "--tool", "memcheck", "--padding", "4096", "--error-exitcode", "99"]
    else:
        argv = build.build_argv(ctx.lab, ctx.pristine, r.box.root, out="asan", extra=[
            "LAB_CFLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer"], kit_objects=False)
        log = os.path.join(r.sd, "logs", "asan-build.log")
        res = r.box.run(argv, cwd=r.box.root, env=ctx.env(extra={"HOME": str(r.box.root)}),
                        limits=ctx.limits("build", cpus=cores), stdout=log, stderr=log, cpus=cores)
        if res.rc != 0 or res.breach:
            return "the AddressSanitizer build failed (logs/asan-build.log)"
        binary = os.path.join(r.box.root, "asan", ctx.lab.binary)
    skip = {o.variant for o in r.outcomes if o.case == case.name and
            o.status in ("not-implemented", "n/a")}
    env = ctx.env(r.slot, {"KIT_SYNC_CHECK": "1",
                           "ASAN_OPTIONS": "exitcode=99:detect_leaks=0",
                           "UBSAN_OPTIONS": "halt_on_error=1:exitcode=99"})
    for v in case.variants:
        if v in skip:
            continue
        rel = "sanitize/v%d" % v
        dump = r.dump_dir(rel)
        name = "sanitize-v%d" % v
        res, err = r.run(pre + [binary, "--quiet"] + r.case_argv(case, dump, str(v)), name,
                         scale=4.0, env=env)
        text = b""
        for ext in (".out", ".err"):
            text += fsutil.read_regular(os.path.join(r.sd, "logs", name + ext), 8 << 20) or b""
        lines = text.decode("utf-8", "replace").splitlines()
        if res.rc == 77 and res.breach is None:
            continue
        if res.rc == 99 or any(_SAN_ERR.search(ln) for ln in lines):
            msg = " ".join(" ".join(ln.split()) for ln in lines if _SAN_MSG.search(ln))[:240]
            r.outcomes.append(Outcome("sanitize", case.part, v, "sanitizer-error",
                                      msg or "the sanitizer reported an error", "sanitize"))
        else:
            r.outcomes.append(Outcome("sanitize", case.part, v, "pass", "", "sanitize"))
    return ""


def profile(ctx, r, slot):
    """Profiler metrics of every passing variant on the timing inputs (GPU labs) into
    profile.tsv; a note when there is no permission or no Nsight Compute."""
    if not ctx.lab.gpu or not ctx.rub.metrics:
        return ""
    tool = os.path.join(ctx.pristine, "grading", "metrics")
    if not os.path.isfile(tool):
        return "the profiler-metrics tool is not in the kit"
    failed = {o.vname for o in r.outcomes if o.status not in ("pass", "n/a")}
    note = []
    out = os.path.join(r.sd, "profile.tsv")
    for case in [c for c in ctx.cases if c.kind == "perf"]:
        for v in case.variants:
            if vname(case.part, v) in failed or ctx.output_of(case, v).na:
                continue
            dump = r.dump_dir("profile/%s-v%d" % (case.name, v))
            name = "profile-v%d" % v
            res, err = r.run([tool, "run", "--set", ctx.rub.metrics, "--label", "v%d" % v,
                              "--", r.binary, "--quiet"] + r.case_argv(case, dump, str(v)),
                             name, scale=10.0,
                             env=ctx.env(slot))
            tsv = os.path.join(r.sd, "logs", name + ".out")
            if res.rc == 0:
                lines = fsutil.read_text(tsv, 16 << 20).splitlines()
                if os.path.isfile(out):
                    lines = lines[1:]
                with open(out, "a", encoding="utf-8") as f:
                    f.write("".join(ln + "\n" for ln in lines))
            elif res.rc == 6:
                return "no permission to read the GPU's performance counters (submissions " \
                       "never run as root; see grading/README.md)"
            elif res.rc == 5:
                return "Nsight Compute (ncu) not found"
            else:
                note.append("v%d: the profiler failed (exit %s); see logs/%s.err" % (
                    v, res.rc, name))
    return "; ".join(note)
