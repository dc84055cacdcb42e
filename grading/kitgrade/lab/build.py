"""Builds: the pristine kit, the student's files put in, the kit's rules, forbidden symbols.

The pristine kit, which every submission is built against (the kit's
grading/build/pristine/NN-FINGERPRINT, shared by the gradings of the kit; or OUT/pristine, or a
private folder when OUT's path cannot be handed to make) holds common/ and the lab's folder
without ref.c, the skeleton regenerated from the solution, the kit's libraries prebuilt with
GRADED=1 (no reference linked), the skeleton built once (its objects of the lab's own files,
main.c's and the rest, are linked into every student's build) and nothing else: no solutions/,
grading/ (but the profiler-metrics tool), tests/ or rubrics. A box sees it read-only. A student
build runs in the box: `make -C PRISTINE/labs/LAB GRADED=1 O=BOX/out SRC=BOX/src ENTRY=...
LAB_OBJS="PRISTINE/.skeleton/build/main.c.o ..." labNN`: the kit's rules, the student's files
only from BOX/src (no student Makefile exists anywhere), only the skeleton's entry points left
global in them.
"""
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import List

from ..base import fsutil
from ..base.safetext import clean, one_line
from . import devstatic, premain

MAX_SOURCE = 4 << 20           # a student file larger than this is not used
MAX_DEPTH = 16                 # how deep put_files looks into a submission's folders
MAX_LISTED = 10000             # and how many of the files there it counts
MAX_OBJECT = 256 << 20
# static __device__ storage an object may hold: device memory no allocation call makes (and
# no budget sees) is for small tables; anything larger comes from cudaMalloc
MAX_STATIC_DEVICE = 64 << 10
# what a student's object may not define: the kit's own functions, main, the injection
# library's entry, and the clocks, CUDA calls, I/O and memory functions the harness times and
# dumps with (a definition of its own would stand in for them, linked before the libraries)
_FORBIDDEN_DEF = re.compile(
    r"^(kit_.*|main|InitializeInjection|cupti.*|cuda[A-Z].*|cu[A-Z].*|nvtx.*|"
    r"clock_gettime|clock_getres|clock|gettimeofday|time|timespec_get|omp_get_wtime|"
    r"read|write|open|openat|close|fopen|fclose|fread|fwrite|fflush|rename|unlink|"
    r"memcpy|memmove|memset|malloc|calloc|realloc|free|aligned_alloc|posix_memalign|"
    r"dlopen|dlsym|dlvsym|exit|_exit|abort|pthread_create|fork|vfork|clone|execve|"
    r"getenv|setenv|signal|sigaction|raise|kill)$")
_FORBIDDEN_USE = re.compile(r"^(kit_ref_.*|kit_lab_ref)$")
_LAB_SKIP = re.compile(r"^(ref\.c|build|out|lab\d\d(-.*)?|.*\.png|.*\.pdf|.*\.o|.*\.tmp)$")
_COMMON_SKIP = re.compile(r"^(ref\.c|build|.*\.o|.*\.a|.*\.so|.*\.tmp)$")
# the profiler-metrics tool (--profile runs it in the box): its entry, data and package
ENTRY_FILE = ".entry.txt"
METRICS_FILES = ("metrics", "metrics.tsv", "metric_sets.tsv", "plot_metrics.gp", "kitmetrics")
_PY_SKIP = re.compile(r"^(__pycache__|.*\.pyc)$")


class KitError(Exception):
    pass


@dataclass
class Lab:
    """Where a lab of the kit is (the kit as the grader works from it)."""
    kit: str
    nn: str
    name: str                   # 03_global_mem
    srcs: List[str]             # STUDENT_SRCS
    gpu: bool
    own: List[str] = field(default_factory=list)   # LAB_SRCS: the lab's own files (main.c, ...)

    @property
    def dir(self):
        return os.path.join(self.kit, "labs", self.name)

    @property
    def solutions(self):
        return os.path.join(self.kit, "solutions", self.name)

    @property
    def binary(self):
        return "lab" + self.nn


def find_lab(kit, nn):
    """The lab NN of KIT, from its Makefile (STUDENT_SRCS, GPU)."""
    labs = os.path.join(kit, "labs")
    names = sorted(d for d in (os.listdir(labs) if os.path.isdir(labs) else [])
                   if d.startswith(nn + "_") and os.path.isdir(os.path.join(labs, d)))
    if len(names) != 1:
        raise KitError("no lab %s in %s" % (nn, labs))
    with open(os.path.join(labs, names[0], "Makefile"), encoding="utf-8") as f:
        mk = f.read()
    m = re.search(r"^STUDENT_SRCS\s*:?=\s*(.+)$", mk, re.M)
    if not m or not m.group(1).split():
        raise KitError("%s/Makefile names no STUDENT_SRCS" % os.path.join(labs, names[0]))
    g = re.search(r"^GPU\s*:?=\s*(\S+)", mk, re.M)
    # the lab's own files on one line; a list continued over lines (\) is not read, and then
    # a student's build compiles them all, as without this list
    own = re.search(r"^LAB_SRCS\s*:?=\s*(.+)$", mk, re.M)
    own = own.group(1).split() if own and not own.group(1).rstrip().endswith("\\") else []
    lab = Lab(kit, nn, names[0], m.group(1).split(), bool(g and g.group(1) == "1"), own)
    if not os.path.isdir(lab.solutions):
        raise KitError("no reference solution in %s" % lab.solutions)
    return lab


def _copy_tree(src, dst, skip):
    os.makedirs(dst, exist_ok=True)
    for e in os.scandir(src):
        if skip.match(e.name) or e.name.startswith("."):
            continue
        if e.is_symlink():
            continue
        if e.is_dir():
            _copy_tree(e.path, os.path.join(dst, e.name), skip)
        elif e.is_file():
            shutil.copy2(e.path, os.path.join(dst, e.name))


# what else a pristine kit is made with: the build's settings a caller's environment may hold
_FP_ENV = ("PATH", "CUDA_HOME", "NVCC", "CC", "OPT", "KIT_FAT_ARCH", "NVCC_EXTRA", "CUDA_ARCH")


def fingerprint(lab, extra=""):
    """What the pristine kit is made from: the sizes and times of the files it copies (the
    kit's common/, the lab and its solution, the profiler-metrics tool, the CUPTI library),
    where .deps leads, the build's settings in the environment, and this module (the grader
    that makes it)."""
    h = hashlib.sha256(extra.encode())
    h.update(repr([(k, os.environ.get(k)) for k in _FP_ENV]).encode())
    h.update(os.path.realpath(os.path.join(lab.kit, ".deps")).encode())
    with open(__file__, "rb") as f:
        h.update(f.read())
    g = os.path.join(lab.kit, "grading")
    tops = [(os.path.join(lab.kit, "common"), _COMMON_SKIP), (lab.dir, _LAB_SKIP),
            (lab.solutions, _LAB_SKIP)] + [(os.path.join(g, f), _PY_SKIP) for f in METRICS_FILES]
    for top, skip in tops + [(os.path.join(lab.kit, "common", "build", "libkitcupti.so"), None)]:
        if os.path.isfile(top):
            st = os.stat(top)
            h.update(("%s %d %d\n" % (top, st.st_size, st.st_mtime_ns)).encode())
        for dp, dns, fns in os.walk(top):
            dns[:] = sorted(d for d in dns if not skip.match(d) and not d.startswith("."))
            for f in sorted(fns):
                if skip.match(f):
                    continue
                st = os.stat(os.path.join(dp, f))
                h.update(("%s %d %d\n" % (os.path.relpath(os.path.join(dp, f), lab.kit),
                                          st.st_size, st.st_mtime_ns)).encode())
    return h.hexdigest()


def _make(argv, log, env=None):
    with open(log, "ab") as f:
        f.write(("$ %s\n" % " ".join(argv)).encode())
        f.flush()
        return subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, env=env).returncode


def make_env(extra=None):
    """The environment of the grader's own builds (no MAKEFLAGS of the caller's)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env.update(extra or {})
    return env


def shared_pristine(lab, env=None):
    """Where every grading of LAB from this kit keeps one pristine kit (make_pristine with
    shared=True): the kit's grading/build/pristine/NN-FINGERPRINT, a name that changes with
    what it is made from (fingerprint), so that a grading never finds another's kit there.
    None where this process does not own that folder, or as root where the boxes' users
    could not reach it: then each grading makes its own (the caller also keeps its own where
    a box's user could write the kit's files, or several hosts could build at once)."""
    top = os.path.join(lab.kit, "grading", "build")
    try:
        st = os.stat(top)
    except OSError:
        return None
    if st.st_uid != os.geteuid() or st.st_mode & 0o022 or not os.access(top, os.W_OK) or \
            (os.geteuid() == 0 and not fsutil.others_reach(top)):
        return None
    fp = fingerprint(lab, repr(sorted((env or {}).items())))
    return os.path.join(top, "pristine", "%s-%s" % (lab.nn, fp[:20]))


_IN_USE = []        # the open .ok of each shared pristine kit this process uses (held shared)


def make_pristine(lab, dest, log, env=None, force=False, shared=False):
    """Make (or keep) the pristine kit of LAB in DEST; KitError when it does not build.
    SHARED: DEST is shared_pristine's, which other gradings may use at the same time. Made
    under a lock; while this process lives it holds its .ok locked shared (in use). FORCE
    makes it again beside it, then puts it in its place (a grading using the old one keeps
    it). The lab's others there (another fingerprint, or one put aside) are removed when no
    grading uses them and none has started with them for a day."""
    if not shared:
        return _make_pristine(lab, dest, log, env, force)
    fp = fingerprint(lab, repr(sorted((env or {}).items())))
    if os.path.basename(dest) != "%s-%s" % (lab.nn, fp[:20]):
        raise KitError("the kit changed while this grading started: start it again")
    top = os.path.dirname(dest)
    os.makedirs(top, mode=0o755, exist_ok=True)
    fd = os.open(os.path.join(top, ".lock-%s" % lab.nn), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC |
                 os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        ok = (fsutil.read_regular(os.path.join(dest, ".ok"), 4096) or b"").decode().strip()
        if force or ok != fp:
            new = _make_pristine(lab, dest + ".new", log, env, True, fp)
            if os.path.isdir(dest):
                os.rename(dest, "%s.old-%d-%d" % (dest, os.getpid(), time.time()))
            os.rename(new, dest)
        use = os.open(os.path.join(dest, ".ok"), os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        fcntl.flock(use, fcntl.LOCK_SH)
        _IN_USE.append(use)
        os.utime(os.path.join(dest, ".ok"))
        for n in os.listdir(top):
            old = os.path.join(top, n)
            if n.startswith(lab.nn + "-") and old != dest and not os.path.islink(old) and \
                    _unused(old):
                fsutil.remove_tree(old)
    finally:
        os.close(fd)
    return dest


def _unused(d):
    """No grading uses the shared pristine kit D (none holds its .ok) and none started with it
    for a day (a kit on a folder other hosts share: their locks are not seen here)."""
    try:
        f = os.open(os.path.join(d, ".ok"), os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return True                     # a build that never ended
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(f)
    try:
        return time.time() - os.stat(os.path.join(d, ".ok")).st_mtime >= 86400.0
    except OSError:
        return True


def _make_pristine(lab, dest, log, env, force, fp=None):
    fp = fp or fingerprint(lab, repr(sorted((env or {}).items())))
    ok = os.path.join(dest, ".ok")
    if not force and (fsutil.read_regular(ok, 4096) or b"").decode().strip() == fp:
        return dest
    tmp = dest + ".tmp"
    fsutil.remove_tree(tmp)
    fsutil.remove_tree(dest)
    _copy_tree(os.path.join(lab.kit, "common"), os.path.join(tmp, "common"), _COMMON_SKIP)
    ldir = os.path.join(tmp, "labs", lab.name)
    _copy_tree(lab.dir, ldir, _LAB_SKIP)
    awk = os.path.join(lab.kit, "common", "scripts", "mkskel.awk")
    for s in lab.srcs:       # the skeleton, always fresh from the solution
        with open(os.path.join(ldir, s), "wb") as f:
            r = subprocess.run(["awk", "-f", awk, os.path.join(lab.solutions, s)], stdout=f)
        if r.returncode != 0:
            raise KitError("cannot make the skeleton of %s from the solution" % s)
    gdir = os.path.join(tmp, "grading")
    os.makedirs(gdir)
    for f in METRICS_FILES:
        p = os.path.join(lab.kit, "grading", f)
        if os.path.isfile(p):
            shutil.copy2(p, os.path.join(gdir, f))
        elif os.path.isdir(p):
            _copy_tree(p, os.path.join(gdir, f), _PY_SKIP)
    deps = os.path.join(lab.kit, ".deps")
    if os.path.isdir(deps):
        os.symlink(os.path.realpath(deps), os.path.join(tmp, ".deps"))
    tools = os.path.join(tmp, ".grader")
    os.makedirs(tools)
    so = os.path.join(lab.kit, "common", "build", "libkitcupti.so")
    if os.path.isfile(so):
        shutil.copy2(so, os.path.join(tools, "libkitcupti.so"))
    # the kit's libraries and the lab's own objects, once, here; the skeleton built as a proof
    # that the pristine kit builds on its own
    e = make_env(env)
    libs = ["build/libkit.a"] + (["build/libkitgpu.a"] if lab.gpu else [])
    jobs = "-j%d" % min(len(os.sched_getaffinity(0)) or 1, 8)   # its files at once
    if _make(["make", "--no-print-directory", "-s", jobs, "-C", os.path.join(tmp, "common"),
              "GRADED=1"] + libs, log, e) != 0:
        raise KitError("the kit's library does not build without its reference (see %s)" % log)
    # the skeleton's global symbols: a graded build keeps only these global (ENTRY=), so a
    # function of the C library or the kit a student defines again stays in its own files
    entry = os.path.join(tmp, ENTRY_FILE)
    if _make(["make", "--no-print-directory", "-s", "-C", ldir, "GRADED=1",
              "O=" + os.path.join(tmp, ".entry"), "ENTRY_OUT=" + entry, "entry-list"],
             log, e) != 0 or not os.path.isfile(entry):
        raise KitError("the skeleton's entry points cannot be listed (see %s)" % log)
    skel = os.path.join(tmp, ".skeleton")
    if _make(["make", "--no-print-directory", "-s", jobs, "-C", ldir, "GRADED=1", "O=" + skel,
              "SRC=" + ldir, "ENTRY=" + entry, lab.binary], log, e) != 0 or \
            not os.path.isfile(os.path.join(skel, lab.binary)):
        raise KitError("the lab's skeleton does not build in the pristine kit (see %s)" % log)
    bad = leaks(tmp)
    if bad:
        raise KitError("the pristine kit would hold what no submission may see: %s" % bad)
    with open(os.path.join(tmp, ".ok"), "w") as f:
        f.write(fp + "\n")
    os.rename(tmp, dest)
    return dest


def leaks(pristine):
    """What the pristine kit must not hold: a reference, solutions, rubrics, tests."""
    bad = []
    for dp, dns, fns in os.walk(pristine):
        rel = os.path.relpath(dp, pristine)
        for d in dns:
            if rel == "." and d in ("solutions", "tests"):
                bad.append(d + "/")
            if d == "rubrics":
                bad.append(os.path.join(rel, d))
        for f in fns:
            if f == "ref.c" or f.endswith(".rubric"):
                bad.append(os.path.join(rel, f))
    return ", ".join(sorted(bad))


def put_files(box, srcs, student_dir, pristine_labdir, sources=None):
    """The student's files into BOX/src (read with no link followed, at most 4 MB each; the
    skeleton's file where one is missing or refused). Notes, one line per file; SOURCES (a
    dict), when given, gets each file's bytes as put."""
    notes = []
    fsutil.bmkdir(box, "src")
    for f in srcs:
        p = os.path.join(student_dir, f) if student_dir else None
        data, note = None, ""
        if p and os.path.islink(p):
            note = "%s is a symbolic link: ignored, the skeleton's %s was used" % (f, f)
        elif p and os.path.isfile(p):
            if os.path.getsize(p) > MAX_SOURCE:
                note = "%s is larger than 4 MB: ignored, the skeleton's %s was used" % (f, f)
            else:
                data = fsutil.read_regular(p, MAX_SOURCE)
                note = "%s: used" % f if data is not None else \
                    "%s cannot be read: the skeleton's %s was used" % (f, f)
        elif p:
            note = "%s is missing: the skeleton's %s was used" % (f, f)
        if data is None:
            data = fsutil.read_regular(os.path.join(pristine_labdir, f), MAX_SOURCE) or b""
        fsutil.bwrite(box, "src/" + f, data)
        if sources is not None:
            sources[f] = data
        if note:
            notes.append(note)
    if student_dir:
        extra, deep = [], False
        for dp, dns, fns in os.walk(student_dir):
            dns.sort()
            rel_dp = os.path.relpath(dp, student_dir)
            if rel_dp != "." and rel_dp.count(os.sep) + 1 >= MAX_DEPTH:
                deep = deep or bool(dns)
                dns[:] = []             # (os.walk goes down by recursion: a bound on it)
            for n in sorted(fns + [d for d in dns if os.path.islink(os.path.join(dp, d))]):
                rel = os.path.normpath(os.path.join(rel_dp, n))
                if rel not in srcs:
                    extra.append(rel)
            if len(extra) > MAX_LISTED:
                break
        for rel in extra[:20]:
            notes.append("%s: ignored (only %s %s graded)" % (
                rel, " ".join(srcs), "is" if len(srcs) == 1 else "are"))
        if len(extra) > MAX_LISTED:
            notes.append("and more than %d more files: ignored" % (MAX_LISTED - 20))
        elif len(extra) > 20:
            notes.append("and %d more files: ignored" % (len(extra) - 20))
        if deep:
            notes.append("folders nested more than %d deep: ignored, not looked into" % MAX_DEPTH)
    return notes


@dataclass
class BuildResult:
    status: str = "ok"          # ok | failed | forbidden | timeout | memory-limit | ...
    reason: str = ""
    ms: float = 0.0
    warnings: List[str] = field(default_factory=list)
    early: str = "not checked"  # why its timed runs may not start early ('' when they may)
    sources: dict = field(default_factory=dict)    # {file: the bytes put in the box's src/}
    digest: str = ""            # sha256 of the program built and checked (program_changed)


def program_digest(box, lab):
    """sha256 of the box's out/PROGRAM as it is now (no link followed), or '' unreadable."""
    data, _ = box.read_file("out/" + lab.binary, 1 << 30)
    return hashlib.sha256(data).hexdigest() if data is not None else ""


def program_changed(box, lab, digest):
    """Why the box's program is not the one built and checked (DIGEST), or '': a run may
    write in its box, so one could put another program in its place for the runs after it
    (the forbidden-symbol and early-start checks were made on the first)."""
    if not digest or program_digest(box, lab) == digest:
        return ""
    return ("a run of it replaced its program out/%s: the program built and checked is not "
            "the one its later runs would start" % lab.binary)


def build_argv(lab, pristine, box_root, out="out", extra=(), kit_objects=True):
    """A student's build; KIT_OBJECTS: the lab's own objects (LAB_SRCS: main.c's, spec.c's,
    ...; they hold nothing of the student's, whose files are no header) linked from the
    pristine kit's skeleton build, where they were compiled with the same flags, rather than
    compiled again for each student (not for a build with flags of its own, the sanitizer's)."""
    box_root = str(box_root)
    ldir = os.path.join(pristine, "labs", lab.name)
    entry = os.path.join(pristine, ENTRY_FILE)
    objs = [os.path.join(pristine, ".skeleton", "build", f + ".o") for f in lab.own]
    have = kit_objects and objs and all(os.path.isfile(o) for o in objs)
    # WERROR=1: a warning is an error in a graded build (make presubmit says so beforehand)
    return ["make", "--no-print-directory", "-C", ldir, "GRADED=1", "WERROR=1",
            "O=" + os.path.join(box_root, out), "SRC=" + os.path.join(box_root, "src")] + \
        (["ENTRY=" + entry] if os.path.isfile(entry) else []) + \
        (["LAB_OBJS=" + " ".join(objs)] if have else []) + list(extra) + [lab.binary]


def clean_log(text, box_root, pristine):
    """A build log with the grader's folders taken out of its paths, and no control
    character but tabs (a file name the student chose may hold escape sequences)."""
    box_root, pristine = str(box_root), str(pristine)
    for p in (os.path.join(box_root, "src") + "/", box_root + "/",
              os.path.join(pristine, "labs") + "/", pristine + "/"):
        text = text.replace(p, "")
    return "\n".join(clean(ln, keep="\t") for ln in text.split("\n"))


def compile_reason(log, rc):
    """The first compiler errors of a failed build, quotes kept."""
    errs = [ln for ln in log.splitlines()
            if re.search(r"\b(error|Error)[: ]", ln) and not ln.startswith("make")]
    if errs:
        return one_line("; ".join(errs[:3]), 400)
    tail = [ln for ln in log.splitlines() if ln.strip()][-2:]
    return one_line("the build failed (exit %s): %s" % (rc, " ".join(tail)), 300)


BREACH_WORDS = {
    "timeout": "ran past its %s s limit",
    "memory-limit": "used more than its %s MB memory limit",
    "disk-limit": "wrote more than its %s MB disk limit",
    "process-limit": "started more than its %s processes",
    "file-limit": "wrote a file larger than its %s MB limit",
    "cpu-limit": "used more than its %s s of CPU time",
    "gpu-memory-limit": "used more than its %s MB of GPU memory",
}


def num(x):
    """A limit's figure as written (384, not 384.0)."""
    try:
        return "%g" % float(x)
    except (TypeError, ValueError):
        return str(x)


# a limit with no figure in the rubric (worked out per run)
BREACH_WORDS_NO_FIGURE = {
    "cpu-limit": "used more CPU time than its limit (its wall-clock limit times its cores)",
}


def breach_reason(what, breach, limit):
    if limit in (None, "") and breach in BREACH_WORDS_NO_FIGURE:
        return "%s %s" % (what, BREACH_WORDS_NO_FIGURE[breach])
    return "%s %s" % (what, BREACH_WORDS.get(breach, breach + " (%s)") % num(limit))


def nm_symbols(path):
    """(defined, undefined) global symbols of an object or a binary, by `nm`."""
    p = subprocess.run(["nm", "-g", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        return None
    defined, undefined = set(), set()
    for ln in p.stdout.decode("utf-8", "replace").splitlines():
        t = ln.split()
        if len(t) == 2 and t[0] in ("U", "w", "v"):
            undefined.add(t[1])
        elif len(t) == 3 and t[1] not in ("U", "w", "v"):
            defined.add(t[2])
    return defined, undefined


def forbidden(box, lab, out, tmpdir):
    """Why the build is forbidden ('' when it is not): the student's objects define the kit's
    own functions or main, or call the kit's reference; the graded binary holds a reference.
    Its objects may hold no more than a small table of static __device__ storage.
    Every file is read from the box with no link followed and examined in the grader's TMPDIR."""
    bad, dev = [], []
    items = [("%s/build/skel/%s.o" % (out, s), "obj") for s in lab.srcs]
    items.append(("%s/%s" % (out, lab.binary), "bin"))
    for rel, kind in items:
        data, why = box.read_file(rel, MAX_OBJECT)
        if data is None:
            if kind == "bin":
                return "the graded binary cannot be read (%s)" % why
            continue
        syms = _examined(data, os.path.basename(rel), tmpdir, nm_symbols)
        if syms is None:
            if kind == "obj":
                bad.append("%s is not an object file nm can read" % os.path.basename(rel))
            continue
        defined, undefined = syms
        if kind == "obj":
            bad += ["defines %s" % s for s in sorted(defined) if _FORBIDDEN_DEF.match(s)]
            bad += ["calls %s" % s for s in sorted(undefined) if _FORBIDDEN_USE.match(s)]
            dev += static_device(data, os.path.basename(rel)[:-2])
        else:
            ref = sorted(s for s in defined if _FORBIDDEN_USE.match(s))
            if ref:
                bad.append("the graded binary holds the kit's reference (%s)" % ", ".join(ref[:3]))
    why = []
    if bad:
        why.append("the submission %s (the kit's own functions are off limits)" % "; ".join(bad[:6]))
    if dev:
        why.append("; ".join(dev[:3]))
    return "; ".join(why)


def static_device(data, src):
    """Why the object of SRC holds too much static __device__ storage ([] when it does not)."""
    try:
        n = devstatic.static_device_bytes(data)
    except devstatic.Unreadable as e:
        return ["%s: %s" % (src, e)]
    if n > MAX_STATIC_DEVICE:
        return ["%s declares %d bytes of __device__ variables (at most %d: larger device "
                "memory is taken with cudaMalloc, which the lab counts)" % (src, n, MAX_STATIC_DEVICE)]
    return []


def early_start(box, lab, out, tmpdir):
    """Why the student's timed runs may not be started early and held at their gate while
    another run is timed ('' when they may): one of its objects runs code of its own before
    main (premain.py), or cannot be read. Each object is read from the box with no link
    followed and examined in the grader's TMPDIR."""
    for s in lab.srcs:
        data, why = box.read_file("%s/build/skel/%s.o" % (out, s), MAX_OBJECT)
        if data is None:
            return "%s.o cannot be read (%s)" % (s, why)
        why = _examined(data, s + ".o", tmpdir, premain.early_code)
        if why:
            return why
    return ""


def _examined(data, name, tmpdir, tool):
    """TOOL(path) of DATA (a file read from a box) written to a private file NAME in the
    grader's TMPDIR, removed afterwards."""
    d = tempfile.mkdtemp(dir=tmpdir)
    try:
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(data)
        return tool(path)
    finally:
        shutil.rmtree(d, ignore_errors=True)

