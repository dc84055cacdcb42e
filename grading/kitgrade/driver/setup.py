"""Everything a grading needs before its first student: kit, tools, OUT, seed, sandbox.

The kit is staged at a make-safe path when its own path is not. It also prepares the lab and
its rubric, OUT's lock, the secret seed (kept in OUT/grading.txt), the hidden cases and each
variant's output on them, the pristine kit, the GPUs, the copy ceilings and grading.txt."""
import fcntl
import hashlib
import os
import re
import secrets
import shutil
import socket
import stat
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress

from ..base import fsutil
from ..base.tell import say
from ..box.boxfiles import release_mounts_below
from ..box.sandbox import Sandbox
from ..lab import build, labinfo, rubric
from .context import Ctx

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # kitgrade/


class Fatal(Exception):
    """The grading cannot go on: MESSAGE, exit CODE (2: usage or input, 1: the grader)."""

    def __init__(self, message, code=2):
        Exception.__init__(self, message)
        self.code = code


def lock(out):
    """Hold OUT/.lock for the grader's life (released when it ends, however it ends)."""
    fd = os.open(os.path.join(out, ".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        say("another grading is still running in %s; waiting" % out)
        fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def choose_seed(opts, state, nn):
    """The grading seed: kept from an earlier run of this OUT, else --seed, else random."""
    if state.get("lab") and state["lab"] != nn and not opts.force:
        raise Fatal("%s holds a grading of lab %s; use another --out (or --force)"
                    % (opts.out, state["lab"]))
    old = state.get("seed")
    if old and not opts.force:
        if opts.seed is not None and str(opts.seed) != old:
            raise Fatal("%s was graded with seed %s; resuming needs the same seed (or --force)"
                        % (opts.out, old))
        if state.get("quick", "0") != ("1" if opts.quick else "0"):
            raise Fatal("%s was graded %s --quick; resume the same way (or --force)" % (
                opts.out, "with" if state.get("quick") == "1" else "without"))
        return int(old), True
    if opts.seed is not None:
        return opts.seed, False
    return secrets.randbits(63), False


def stage_kit(kit, nn, dest):
    """A copy of what grading lab NN needs, at a path make can take (KIT's own cannot)."""
    lab = build.find_lab(kit, nn)
    fsutil.remove_tree(dest)
    skip = re.compile(r"^(build|out|examples|tests|lab\d\d(-.*)?)$")
    build._copy_tree(os.path.join(kit, "common"), os.path.join(dest, "common"), skip)
    build._copy_tree(lab.dir, os.path.join(dest, "labs", lab.name), skip)
    build._copy_tree(lab.solutions, os.path.join(dest, "solutions", lab.name), skip)
    build._copy_tree(os.path.join(kit, "grading"), os.path.join(dest, "grading"),
                     re.compile(r"^(build|examples|tests|kitgrade|__pycache__)$"))
    for f in ("Makefile",):
        if os.path.isfile(os.path.join(kit, f)):
            shutil.copy2(os.path.join(kit, f), os.path.join(dest, f))
    if os.path.isdir(os.path.join(kit, ".deps")):
        os.symlink(os.path.realpath(os.path.join(kit, ".deps")), os.path.join(dest, ".deps"))
    return dest


def build_tools(kit, log, env):
    argv = ["make", "--no-print-directory", "-s", "-C", os.path.join(kit, "grading")]
    with open(log, "wb") as f:
        rc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, env=env).returncode
    if rc != 0:
        text = fsutil.read_text(log, 1 << 20)
        raise Fatal("cannot build the grader's checker (%s):\n%s" % (log, text[-3000:]), 1)


def gpu_slots(opts):
    if opts.gpus:
        return list(opts.gpus)
    vis = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    if getattr(getattr(opts, "slurm", None), "shard", None) is not None and \
            re.fullmatch(r"[0-9]+(,[0-9]+)*", vis):
        return vis.split(",")           # a Slurm task: the GPUs Slurm gave it, no others
    try:
        out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=30).stdout.decode()
        n = sum(1 for ln in out.splitlines() if ln.startswith("GPU "))
    except (OSError, subprocess.TimeoutExpired):
        n = 0
    return [str(i) for i in range(n)] or ["0"]


def gpu_query(field):
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=" + field, "--format=csv,noheader"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             timeout=30).stdout.decode().splitlines()
        return out[0].strip() if out else ""
    except (OSError, subprocess.TimeoutExpired):
        return ""


def measure(argv, env=None):
    """{name: GB/s} from a ceiling program's lines ({} when it cannot measure)."""
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                           timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    res = {}
    for ln in p.stdout.decode().splitlines():
        t = ln.split()
        if len(t) == 2:
            with suppress(ValueError):
                res[t[0]] = float(t[1])
    return res if p.returncode == 0 else {}


def start_holds(ctx, tools):
    procs = []
    hold = os.path.join(tools, "hold")
    if not ctx.lab.gpu or os.environ.get("KIT_GRADE_HOLD", "1") != "1" or not os.path.isfile(hold):
        return procs
    for s in ctx.slots:
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=s, **ctx.sandbox.mps_env())
        log = open(os.path.join(ctx.out, "hold-%s.log" % s), "wb")
        procs.append(subprocess.Popen([hold, str(os.getpid())], stdout=log, stderr=log,
                                      stdin=subprocess.DEVNULL, env=env))
        log.close()
    return procs


def describe_cases(ctx):
    def one(c):
        try:
            return c.name, labinfo.describe_case(ctx.checker, c.part, c.args)
        except labinfo.LabError as e:
            raise Fatal("%s: the case '%s' is not valid: %s" % (ctx.rub.path, c.name, e))
    with ThreadPoolExecutor(max_workers=8) as ex:
        return dict(ex.map(one, ctx.cases))


def grading_txt(ctx, state, subs, sandbox_line, started):
    q = ctx.opts
    lines = [
        "lab: %s" % ctx.lab.nn, "seed: %d" % ctx.seed, "quick: %d" % (1 if q.quick else 0),
        "rubric: %s" % ctx.rub.path,
        "rubric-sha256: %s" % _sha(ctx.rub.path.split(" + ")),
        "kit-commit: %s" % _commit(ctx.lab.kit),
        "pristine: %s" % ctx.pristine,
        "started: %s" % (state.get("started") or started),
        "last-run: %s" % time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "host: %s, %d cores" % (socket.gethostname(), os.cpu_count() or 1),
    ]
    if ctx.lab.gpu:
        lines.append("gpus: %s (%s)" % (" ".join(ctx.slots), gpu_query("name") or
                                        "no CUDA device"))
    lines.append("sandbox: %s" % sandbox_line)
    L = ctx.rub.limits
    lines.append("limits: build %gs, run %gs, memory %s MB, disk %s MB, %s processes, "
                 "%s MB files%s" % (L["build"], ctx.run_timeout, _g(L.get("memory_mb")),
                                    _g(L.get("disk_mb")), _g(L.get("nproc")),
                                    _g(L.get("output_mb")),
                                    ", GPU memory %s MB" % _g(L["gpu_memory_mb"])
                                    if L.get("gpu_memory_mb") else ""))
    lines.append("not-enforced: %s" % ("; ".join(ctx.notes) or "nothing"))
    moves = getattr(ctx.sandbox, "moves", None) or []
    if moves:
        lines.append("cgroup-moves: %s" % "; ".join(moves))
    lo, hi = ctx.rub.perf_pairs
    lines.append("timing: %s clock, %d reps, %d..%d interleaved pairs with the reference, "
                 "spread %g, margin %g" % (ctx.clock, ctx.rub.perf_reps, lo, hi,
                                           ctx.rub.perf_spread, ctx.rub.perf_margin))
    ce = ["%s %s" % (k, " ".join("%s %.1f GB/s" % kv for kv in sorted(v.items())))
          for k, v in sorted(ctx.ceilings.items())]
    lines.append("ceilings: %s" % ("; ".join(ce) or "not measured"))
    if ctx.setup_s:
        lines.append(setup_line(ctx.setup_s))
    wf = ctx.wf.words() if ctx.wf is not None else []
    lines.append("command: grading/grade --lab %s%s --out %s --seed %d%s%s%s" % (
        ctx.lab.nn, " --submissions " + _shq(subs) if subs else "", _shq(ctx.out), ctx.seed,
        " --quick" if q.quick else "", " --timeout %d" % q.timeout if q.timeout else "",
        "".join(" " + _shq(w) for w in wf)))
    return "\n".join(lines) + "\n"


def _g(x):
    return "%g" % x if x is not None else "-"


def _shq(s):
    return "'" + s.replace("'", "'\\''") + "'" if not re.fullmatch(r"[A-Za-z0-9._/@+=:-]+", s) \
        else s


def _sha(paths):
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def _commit(kit):
    """The kit's commit: $KIT_COMMIT where it is set (a copy of a tree, whose .git may be
    another commit's or none, says which, as figures.sh reads it), else git's HEAD."""
    given = os.environ.get("KIT_COMMIT", "")
    if given and all(c in "0123456789abcdef" for c in given.lower()) and len(given) <= 40:
        return given.lower()
    try:
        p = subprocess.run(["git", "-C", kit, "rev-parse", "--short", "HEAD"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
        return p.stdout.decode().strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def prepare(opts):
    """(ctx, state, start time, lock fd, private folder or None, submissions, tools folder)
    of a grading, or the drawn cases under --print-cases; Fatal on failure (the lock is let
    go then)."""
    kit = os.path.abspath(opts.kit) if opts.kit else os.path.dirname(os.path.dirname(HERE))
    try:
        lab = build.find_lab(kit, opts.lab)
    except (build.KitError, OSError) as e:
        raise Fatal(str(e))
    rpath = os.path.join(kit, "grading", "rubrics", "lab%s.rubric" % lab.nn)
    extra = os.path.abspath(opts.rubric) if opts.rubric else None
    if extra and not os.path.isfile(extra):
        raise Fatal("no rubric %s" % extra)
    if not os.path.isfile(rpath):
        if not extra:
            raise Fatal("lab %s has no rubric (%s)" % (lab.nn, rpath))
        rpath = None
    try:
        rub = rubric.load(rpath, extra)
    except (rubric.RubricError, OSError, UnicodeDecodeError) as e:
        raise Fatal(str(e))
    rpath = rub.path
    if opts.print_cases:
        if opts.seed is None:
            raise Fatal("--print-cases needs --seed")
        return rub.draw(opts.seed, opts.quick)
    out = os.path.abspath(opts.out)
    subs = os.path.realpath(opts.submissions) if opts.submissions else ""   # "": --repos only
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        raise Fatal("cannot create %s: %s" % (out, e.strerror))
    if subs and (os.path.realpath(out) + "/").startswith(subs + "/"):
        raise Fatal("--out must not be inside --submissions")
    lockfd = lock(own_folder(opts, out))
    try:
        return _prepare_locked(opts, kit, lab, rub, rpath, out, subs, lockfd)
    except BaseException:
        os.close(lockfd)
        raise


def own_folder(opts, out):
    """The folder a grading locks and works in: OUT, or a Slurm array task's own folder
    (OUT/slurm/ROUND/tasks/I: the tasks of a round never wait for each other)."""
    sh = getattr(getattr(opts, "slurm", None), "shard", None)
    if sh is None:
        return out
    d = os.path.join(out, "slurm", "%d" % sh[0], "tasks", "%d" % sh[1])
    if not os.path.isdir(d):
        raise Fatal("no task folder %s (was round %d submitted to this OUT?)" % (d, sh[0]))
    return d


# in OUT (or a Slurm task's folder): the private work folder of the grading that made it, so
# that the next grading of the folder removes it when that one was killed before it could
WORK_NOTE = ".grader-work"
ALIVE = ".alive"    # in the work folder: locked while its grading lives
_HELD = []          # the open, locked ALIVE of this process's work folder


def clear_stale_work(own):
    """The private work folder that the last grading of OWN named in its WORK_NOTE, when it is
    still there (that grading was killed: this one holds the folder's lock, so it has ended):
    its boxes' mounts detached, the folder removed. Only a folder of the grader's own, in the
    temporary folder, with the name mkdtemp gave it."""
    data, _why = fsutil.read_plain(os.path.join(own, WORK_NOTE), 4096)
    if not data:
        return
    p = data.decode("utf-8", "replace").strip()
    if os.path.dirname(p) != os.path.abspath(tempfile.gettempdir()) or \
            not re.fullmatch(r"kitgrade-[A-Za-z0-9_]+", os.path.basename(p)):
        return
    try:
        st = os.lstat(p)
    except OSError:
        return
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        return
    # a grading that still lives holds its folder's ALIVE locked (a copy of OUT names it too)
    try:
        fd = os.open(os.path.join(p, ALIVE), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return
    finally:
        os.close(fd)
    release_mounts_below(p)
    fsutil.remove_tree(p)


def hold_work(priv):
    """PRIV's ALIVE, locked for as long as this process lives (clear_stale_work)."""
    fd = os.open(os.path.join(priv, ALIVE), os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW |
                 os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    _HELD.append(fd)


def _prepare_locked(opts, kit, lab, rub, rpath, out, subs, lockfd):
    state = fsutil.key_values(os.path.join(out, "grading.txt"))
    seed, resumed = choose_seed(opts, state, lab.nn)
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    priv = None
    own = own_folder(opts, out)
    if fsutil.make_safe(own) and (os.geteuid() != 0 or fsutil.others_reach(own)):
        base = own
    else:
        clear_stale_work(own)
        priv = tempfile.mkdtemp(prefix="kitgrade-")
        os.chmod(priv, 0o755)
        base = priv
    try:
        if priv:
            hold_work(priv)
            if not opts.keep_work:      # a folder kept on purpose stays for the next grading
                fsutil.atomic_write(os.path.join(own, WORK_NOTE), priv + "\n")
        return _prepare_work(opts, kit, lab, rub, rpath, out, subs, lockfd, state, seed,
                             started, priv, base)
    except BaseException:
        if priv:
            fsutil.remove_tree(priv)
        raise


class Steps:
    """The seconds each step of the set-up took, for grading.txt's set-up line (where the time
    before the first student goes): `with steps("the pristine kit"): ...`."""

    def __init__(self):
        self.done = []

    @contextmanager
    def __call__(self, name):
        t = time.monotonic()
        try:
            yield
        finally:
            self.done.append((name, time.monotonic() - t))


def setup_line(done):
    """grading.txt's set-up line: the steps' seconds and their sum."""
    return "set-up: %.1f s (%s)" % (sum(s for _, s in done), ", ".join(
        "%s %.1f" % (n, s) for n, s in done) or "nothing")


def _prepare_work(opts, kit, lab, rub, rpath, out, subs, lockfd, state, seed, started, priv,
                  base):
    steps = Steps()
    staged = not fsutil.make_safe(kit)
    if staged:
        kit = stage_kit(kit, lab.nn, os.path.join(base, ".stage"))
        lab = build.find_lab(kit, lab.nn)
    tmp = os.path.join(base, ".grader-tmp")
    fsutil.remove_tree(tmp)
    os.makedirs(tmp, mode=0o700)
    env = build.make_env()
    arch = os.environ.get("CUDA_ARCH")
    if lab.gpu and arch is None:
        arch = gpu_query("compute_cap").replace(".", "")
    if arch:
        env["CUDA_ARCH"] = arch
    with steps("grader's programs"):
        build_tools(kit, os.path.join(own_folder(opts, out), "tools.log"), env)
    tools = os.path.join(kit, "grading", "build")
    checker = os.path.join(tools, "check-%s" % lab.nn)
    if not os.path.isfile(checker):
        raise Fatal("the checker of lab %s (%s) was not built" % (lab.nn, checker), 1)
    try:
        with steps("lab's description"):
            info = labinfo.describe(checker, lab.nn)
    except labinfo.LabError as e:
        raise Fatal(str(e), 1)
    bad = labinfo.check_rubric(info, rub)
    if bad:
        raise Fatal("%s: %s" % (rpath, "; ".join(bad)))
    ctx = Ctx(opts=opts, lab=lab, rub=rub, info=info, cases=rub.draw(seed, opts.quick),
              outputs={}, seed=seed, out=out, home=base,
              pristine=_shared(opts, lab, arch, staged) or os.path.join(base, "pristine"),
              checker=checker,
              cache=os.path.join(own_folder(opts, out), ".cache"), tmp=tmp, cuda_arch=arch or "")
    ctx.clock = rub.perf_clock or ("gpu" if lab.gpu else "cpu")
    ctx.tools = tools
    ctx.run_timeout = float(opts.timeout or rub.limits["run"])
    with steps("cases' outputs"):
        ctx.outputs = describe_cases(ctx)
    ctx.setup_s = steps.done
    if opts.force:
        fsutil.remove_tree(ctx.cache)
    os.makedirs(ctx.cache, exist_ok=True)
    ctx.slots = gpu_slots(opts) if lab.gpu else []
    return ctx, state, started, lockfd, priv, subs, tools


def _pristine_env(arch):
    return {"CUDA_ARCH": arch} if arch else None


def _shared(opts, lab, arch, staged):
    """The kit's shared pristine kit (build.shared_pristine), or None where this grading makes
    its own: where the grader is not root (a box's user may be the grader's own, who could
    write its files), without a sandbox, in a Slurm task (tasks on several hosts would build
    it at once: a lock is one host's), or for a kit staged in OUT (made again on every run)."""
    if os.geteuid() != 0 or opts.sandbox == "none" or staged or \
            getattr(getattr(opts, "slurm", None), "shard", None) is not None:
        return None
    return build.shared_pristine(lab, _pristine_env(arch))


def finish_setup(ctx, tools, mode):
    """The sandbox, the pristine kit, the ceilings and the holds (after prepare)."""
    steps = Steps()
    try:
        with steps("pristine kit"):
            build.make_pristine(ctx.lab, ctx.pristine, os.path.join(ctx.out, "pristine.log"),
                                env=_pristine_env(ctx.cuda_arch), force=ctx.opts.force,
                                shared=ctx.pristine != os.path.join(ctx.home, "pristine"))
    except build.KitError as e:
        log = fsutil.read_text(os.path.join(ctx.out, "pristine.log"), 1 << 20)
        raise Fatal("%s\n%s" % (e, log[-3000:]), 1)
    ro = [ctx.pristine]
    deps = os.path.join(ctx.lab.kit, ".deps")
    if os.path.isdir(deps):
        ro.append(os.path.realpath(deps))
    cuda = os.path.realpath(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    if os.path.isdir(cuda):
        ro.append(cuda)
    workroot = os.path.join(ctx.home, "work")
    os.makedirs(workroot, exist_ok=True)
    try:
        with steps("sandbox"):
            sb = Sandbox(mode, ro_paths=ro, gpu=ctx.lab.gpu, as_root=os.geteuid() == 0,
                         workroot=workroot)
    except Exception as e:      # the sandbox says what it cannot do here
        raise Fatal(str(e))
    ctx.sandbox = sb
    ctx.notes += list(getattr(sb, "notes", []) or [])
    for m in getattr(sb, "moves", None) or []:
        say(m)
    lib = os.path.join(ctx.pristine, "common", "build", "libkitcupti.so")
    if not os.path.isfile(lib):
        lib = os.path.join(ctx.pristine, ".grader", "libkitcupti.so")
    ctx.cupti_lib = lib if ctx.lab.gpu and os.path.isfile(lib) else None
    if ctx.lab.gpu and not ctx.cupti_lib:
        ctx.notes.append("no GPU activity records (libkitcupti.so is not built): GPU speed "
                         "cannot be verified, so no performance points are given")
    with steps("host ceiling"):
        host = measure([os.path.join(tools, "ceiling-host")])
    if host:
        ctx.ceilings["host"] = {"host-mem": host.get("host-mem", 0.0)}
    for s in ctx.slots:
        with steps("GPU %s ceiling" % s):
            g = measure([os.path.join(tools, "ceiling-gpu")],
                        env=dict(os.environ, CUDA_VISIBLE_DEVICES=s, **sb.mps_env()))
        if g:
            ctx.ceilings[s] = g
    with steps("holds"):
        holds = start_holds(ctx, tools)
    ctx.setup_s = list(ctx.setup_s) + steps.done
    return holds
