"""kitgrade.sandbox - run one untrusted command (a student's build or run) with only what it needs.

The grader runs code it does not trust through this module alone (grader-design.md, "The sandbox
interface"). A Sandbox is made once per grading; each student gets a Box (one writable folder and,
as root, a user id of its own); Box.run runs one command and returns how it ended.

- What a run sees is an allow-list (bubblewrap): /usr and the /bin, /lib links, a few /etc files,
  a fresh /proc, a minimal /dev, a private /tmp, the paths the grader names read-only, the box's
  own folder read-write, and for GPU labs the GPU device nodes, /sys and the driver's libraries.
  No network, no other processes, nothing else of the machine.
- As root every box has its own user (uidpool.py) and its folder is a tmpfs of the box's disk
  size mounted by the grader, so that the trusted side never walks a tree the student made: it
  unmounts it. The folder's parent belongs to root and the box user cannot write it.
- Limits of one run: memory, processes and CPU time through a cgroup (v1 or v2) where one can be
  made, wall time, file size (RLIMIT_FSIZE), disk (the tmpfs, or measured), GPU memory (an MPS
  client limit where an MPS daemon runs, else measured with nvidia-smi). Each breach has its own
  name in Result.breach; every process of the run is killed at its end.
- The trusted side reads and changes the box's files only through Box methods that follow no
  link at any step (openat with O_NOFOLLOW from the box's root).
What a machine cannot enforce is said in Sandbox.notes and Sandbox.enforcement.
"""
from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import errno
import glob
import itertools
import json
import math
import os
import re
import resource
import select
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from . import uidpool

BREACHES = ("timeout", "cpu-limit", "memory-limit", "disk-limit", "process-limit", "file-limit",
            "gpu-memory-limit")
MB = 1 << 20


class SandboxError(Exception):
    """The sandbox cannot do what it was asked (a grader or machine problem, never a student's)."""


@dataclass
class Limits:
    wall_s: float                        # wall-clock limit
    cpu_s: Optional[float] = None        # CPU time of every process of the run
    memory_mb: Optional[int] = None      # cgroup memory.max (v2) / memory.limit_in_bytes (v1)
    disk_mb: Optional[int] = None        # the box's folder (checked after the run when not a tmpfs)
    nproc: Optional[int] = None          # processes and threads (pids.max; else RLIMIT_NPROC)
    file_mb: Optional[int] = None        # largest file (RLIMIT_FSIZE)
    gpu_memory_mb: Optional[int] = None  # MPS client limit where MPS runs, else measured


@dataclass
class Result:
    """How a run ended. When several limits were passed, a memory or process limit the kernel
    enforced wins over timeout and cpu-limit (often its consequence); otherwise the first seen."""
    rc: Optional[int]                 # exit status (None when killed by a signal)
    signal: Optional[int]
    wall_ms: float
    cpu_ms: float                     # every process of the run (cgroup), else waited-for children
    mem_peak_mb: Optional[float]
    gpu_mem_peak_mb: Optional[float]
    breach: Optional[str]             # None or one of BREACHES
    extra_processes: int              # processes the run started besides its main one (seen
                                      # every few ms: a very short one can be missed)
    detail: str = ""                  # a plain sentence on the breach, or why it did not start
    started: bool = True              # False: the command never ran (detail says why)


# ------------------------------------------------------------------------------ small helpers

def _read(path: str) -> str:
    with open(path, "r") as f:
        return f.read()


def _read_or(path: str, default: str = "") -> str:
    try:
        return _read(path)
    except OSError:
        return default


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _keyed(text: str) -> Dict[str, str]:
    """'key value' lines (cgroup .stat/.events files) as a dict."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            out[parts[0]] = parts[1]
    return out


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# ------------------------------------------------------------------------- parsing (tested)

def parse_mountinfo(text: str) -> List[Tuple[str, str, str, List[str]]]:
    """(mount point, root within its filesystem, fs type, super options) per /proc/PID/mountinfo
    line; octal escapes (\\040 for a space) undone."""
    unesc = lambda s: re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), s)  # noqa: E731
    out = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        f, r = left.split(), right.split()
        if not sep or len(f) < 5 or len(r) < 3:
            continue
        out.append((unesc(f[4]), unesc(f[3]), r[0], r[2].split(",")))
    return out


def parse_proc_cgroup(text: str) -> Dict[str, str]:
    """/proc/PID/cgroup: controller -> path; the cgroup v2 entry is under ''."""
    out: Dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[1] == "":
            out[""] = parts[2]
        for ctl in parts[1].split(","):
            if ctl:
                out[ctl] = parts[2]
    return out


def parse_gpu_apps(text: str) -> Dict[int, float]:
    """`nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits`: pid -> MiB
    (summed when a process holds several GPUs); lines that are not two numbers are left out
    ('[N/A]', '[Not Supported]', messages)."""
    out: Dict[int, float] = {}
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 2:
            continue
        try:
            pid, mib = int(parts[0]), float(parts[1])
        except ValueError:
            continue
        out[pid] = out.get(pid, 0.0) + mib
    return out


def parse_ldconfig(text: str) -> List[str]:
    """`ldconfig -p`: the paths of the NVIDIA driver's libraries (libcuda, libnvidia-*)."""
    out = []
    for line in text.splitlines():
        name, arrow, path = line.strip().partition(" => ")
        if arrow and re.match(r"lib(cuda|nvidia-[\w.-]+|cudadebugger)\.so", name):
            out.append(path.strip())
    return out


def parse_nspid(status_text: str) -> List[int]:
    """The NSpid line of /proc/PID/status: the process's pid in each pid namespace, outermost
    first (as seen from the namespace of the /proc that was read)."""
    for line in status_text.splitlines():
        if line.startswith("NSpid:"):
            return [int(x) for x in line.split()[1:]]
    return []


def parse_proc_stat(text: str) -> Optional[Tuple[int, int, int, int, int, int]]:
    """/proc/PID/stat: (ppid, session, CPU ticks of it and its waited-for children, threads,
    resident pages, start time); None when it cannot be read."""
    rest = text[text.rfind(")") + 2:].split()
    if len(rest) < 22:
        return None
    v = [int(x) if x.lstrip("-").isdigit() else 0 for x in rest]
    # fields 3.. of proc(5): state ppid pgrp session tty tpgid flags minflt cminflt majflt
    # cmajflt utime stime cutime cstime priority nice num_threads itrealvalue starttime vsize rss
    return v[1], v[3], v[11] + v[12] + v[13] + v[14], v[17], v[21], v[19]


# ------------------------------------------------------------------------------------ cgroups

_V1_WANTED = ("memory", "pids", "cpuacct", "freezer", "cpuset")


class _CgroupHost:
    """The cgroups this grading makes its runs' cgroups in: found and prepared once.
    `has` names what works: memory, pids, cpu (accounting), kill (v2 cgroup.kill), freeze,
    cpuset."""

    def __init__(self, want: str = "auto"):
        self.version = 0
        self.parents: Dict[str, str] = {}   # v1: controller -> our folder; v2: '' -> our folder
        self.has: Set[str] = set()
        self.notes: List[str] = []
        self._seq = itertools.count(1)
        st = _read_or("/proc/self/stat")
        self.name = f"kitgrade-{os.getpid()}-{st[st.rfind(')') + 2:].split()[19] if st else 0}"
        if want == "none":
            return
        mounts = parse_mountinfo(_read_or("/proc/self/mountinfo"))
        own = parse_proc_cgroup(_read_or("/proc/self/cgroup"))
        v2 = next(((mp, root) for mp, root, fs, _ in mounts if fs == "cgroup2"), None)
        v1: Dict[str, Tuple[str, str]] = {}
        for mp, root, fs, opts in mounts:
            if fs == "cgroup":
                for ctl in opts:
                    if ctl in _V1_WANTED and ctl in own:
                        v1.setdefault(ctl, (mp, root))
        v2_base = self._below(v2, own.get("")) if v2 and "" in own else None
        v2_ctls = set(_read_or(os.path.join(v2_base, "cgroup.controllers")).split()) if v2_base else set()
        try:
            if want in ("auto", "v2") and v2_base and ("memory" in v2_ctls or want == "v2" or not v1):
                self._setup_v2(v2_base, v2_ctls)
            elif want in ("auto", "v1") and v1:
                self._setup_v1({c: self._below(m, own[c]) for c, m in v1.items()})
            elif want != "auto":
                self.notes.append(f"no cgroup {want} hierarchy here")
        except OSError as e:
            self.close()
            self.version, self.parents, self.has = 0, {}, set()
            self.notes.append(f"cannot make cgroups here ({e.strerror}: {e.filename})")

    @staticmethod
    def _below(mount: Tuple[str, str], path: Optional[str]) -> str:
        mp, root = mount
        path = path or "/"
        if root != "/" and (path + "/").startswith(root.rstrip("/") + "/"):
            path = path[len(root.rstrip("/")):] or "/"
        return os.path.normpath(mp + "/" + path)

    def _purge_stale(self, base: str) -> None:
        """Remove the cgroups of gradings that died (kitgrade-PID-START whose process is gone),
        killing what still runs in them."""
        for name in _listdir(base):
            m = re.fullmatch(r"kitgrade-(\d+)-(\d+)", name)
            if not m or name == self.name:
                continue
            st = _read_or(f"/proc/{m.group(1)}/stat")
            if st and st[st.rfind(")") + 2:].split()[19] == m.group(2):
                continue  # that grading still runs
            _purge_tree(os.path.join(base, name))

    def _setup_v1(self, bases: Dict[str, str]) -> None:
        self.version = 1
        for ctl, base in bases.items():
            self._purge_stale(base)
            mine = os.path.join(base, self.name)
            os.makedirs(mine, exist_ok=True)
            self.parents[ctl] = mine
            if ctl == "cpuset":  # a v1 cpuset starts empty: give ours its parent's cpus and mems
                for f in ("cpuset.cpus", "cpuset.mems"):
                    _write(os.path.join(mine, f), _read(os.path.join(base, f)).strip() or "\n")
        self.has = {{"cpuacct": "cpu", "freezer": "freeze"}.get(c, c) for c in bases}

    def _setup_v2(self, base: str, ctls: Set[str]) -> None:
        self.version = 2
        self._purge_stale(base)
        want = ctls & {"memory", "pids", "cpuset"}
        moved = False
        for c in sorted(want - set(_read_or(os.path.join(base, "cgroup.subtree_control")).split())):
            try:
                try:
                    _write(os.path.join(base, "cgroup.subtree_control"), "+" + c)
                except OSError as e:
                    if e.errno != errno.EBUSY or moved:
                        raise
                    self._make_room(base)
                    moved = True
                    _write(os.path.join(base, "cgroup.subtree_control"), "+" + c)
            except OSError as e:
                want.discard(c)
                if c != "cpuset":
                    self.notes.append(f"cgroup v2: cannot hand the {c} controller to the runs "
                                      f"({e.strerror})")
        mine = os.path.join(base, self.name)
        os.makedirs(mine, exist_ok=True)
        self.parents[""] = mine
        have = set()
        for c in sorted(set(_read_or(os.path.join(mine, "cgroup.controllers")).split()) & want):
            try:
                _write(os.path.join(mine, "cgroup.subtree_control"), "+" + c)
                have.add(c)
            except OSError:
                pass
        self.has = have | {"cpu"}  # cpu.stat is there with or without the cpu controller
        if os.path.exists(os.path.join(mine, "cgroup.kill")):
            self.has.add("kill")
        if os.path.exists(os.path.join(mine, "cgroup.freeze")):
            self.has.add("freeze")

    def _make_room(self, base: str) -> None:
        """cgroup v2 hands controllers down only from a cgroup with no processes of its own:
        move those of ours (this grader, and what started it) into a leaf beside the runs'."""
        leaf = os.path.join(base, "kitgrade-leaf")
        os.makedirs(leaf, exist_ok=True)
        moved = 0
        for pid in _read_or(os.path.join(base, "cgroup.procs")).split():
            try:
                _write(os.path.join(leaf, "cgroup.procs"), pid)
                moved += 1
            except OSError:
                pass
        self.notes.append(f"cgroup v2: moved {moved} processes of {base} into {leaf}, so that it "
                          f"can hand its controllers to the runs' cgroups")

    def new_run(self) -> "_RunCgroup":
        return _RunCgroup(self, f"run-{next(self._seq)}")

    def close(self) -> None:
        for d in set(self.parents.values()):
            _purge_tree(d)


def _listdir(path: str) -> List[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def _cg_procs(d: str) -> Set[int]:
    return {int(x) for x in _read_or(os.path.join(d, "cgroup.procs")).split()}


def _purge_tree(d: str) -> None:
    """Kill every process in the cgroup folder d and below, and remove the folders."""
    for name in _listdir(d):
        if os.path.isdir(os.path.join(d, name)):
            _purge_tree(os.path.join(d, name))
    for _ in range(200):
        pids = _cg_procs(d)
        for p in pids:
            _kill(p)
        try:
            os.rmdir(d)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)


class _RunCgroup:
    """The cgroup(s) of one run: limits, accounting, kill, removal."""

    def __init__(self, host: _CgroupHost, name: str):
        self.host = host
        self.v = host.version
        self.dirs = {c: os.path.join(p, name) for c, p in host.parents.items()}
        made = []
        try:
            for d in self.dirs.values():
                os.mkdir(d)
                made.append(d)
        except OSError:
            for d in made:
                os.rmdir(d)
            raise

    def _f(self, ctl: str, name: str) -> str:
        return os.path.join(self.dirs["" if self.v == 2 else ctl], name)

    def procs_files(self, cpuset: bool) -> List[str]:
        return [os.path.join(d, "cgroup.procs") for c, d in self.dirs.items() if cpuset or c != "cpuset"]

    def set_limits(self, limits: Limits, cpus: Optional[List[int]]) -> None:
        has = self.host.has
        if limits.memory_mb is not None and "memory" in has:
            b = str(int(limits.memory_mb) * MB)
            if self.v == 1:
                _write(self._f("memory", "memory.limit_in_bytes"), b)
                if os.path.exists(self._f("memory", "memory.memsw.limit_in_bytes")):
                    _write(self._f("memory", "memory.memsw.limit_in_bytes"), b)
            else:
                _write(self._f("memory", "memory.max"), b)
                for f, v in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
                    if os.path.exists(self._f("memory", f)):
                        _write(self._f("memory", f), v)
        if limits.nproc is not None and "pids" in has:
            _write(self._f("pids", "pids.max"), str(int(limits.nproc)))
        if "cpuset" in has:
            parent = os.path.dirname(self.dirs["" if self.v == 2 else "cpuset"])
            if self.v == 1:
                _write(self._f("cpuset", "cpuset.mems"), _read(os.path.join(parent, "cpuset.mems")).strip())
            if cpus:
                _write(self._f("cpuset", "cpuset.cpus"), ",".join(str(c) for c in cpus))
            elif self.v == 1:
                _write(self._f("cpuset", "cpuset.cpus"), _read(os.path.join(parent, "cpuset.cpus")).strip())

    def procs(self) -> Set[int]:
        # a cpuset is joined only when the run is pinned: read a hierarchy every run joins
        return _cg_procs(next(d for c, d in sorted(self.dirs.items(), key=lambda i: i[0] == "cpuset")))

    def cpu_ns(self) -> Optional[int]:
        if "cpu" not in self.host.has:
            return None
        try:
            if self.v == 1:
                return int(_read(self._f("cpuacct", "cpuacct.usage")))
            return int(_keyed(_read(self._f("", "cpu.stat")))["usage_usec"]) * 1000
        except (OSError, KeyError, ValueError):
            return None

    def mem_bytes(self, peak: bool) -> Optional[int]:
        if "memory" not in self.host.has:
            return None
        name = ("memory.max_usage_in_bytes" if peak else "memory.usage_in_bytes") if self.v == 1 \
            else ("memory.peak" if peak else "memory.current")
        try:
            return int(_read(self._f("memory", name)))
        except (OSError, ValueError):
            return None

    def oom_kills(self) -> int:
        if "memory" not in self.host.has:
            return 0
        if self.v == 1:
            kv = _keyed(_read_or(self._f("memory", "memory.oom_control")))
            if "oom_kill" in kv:
                return int(kv["oom_kill"])
            return 1 if _read_or(self._f("memory", "memory.failcnt"), "0").strip() != "0" else 0
        kv = _keyed(_read_or(self._f("memory", "memory.events")))
        return int(kv.get("oom_kill", 0)) + int(kv.get("oom_group_kill", 0))

    def pids_hits(self) -> int:
        if "pids" not in self.host.has:
            return 0
        return int(_keyed(_read_or(self._f("pids", "pids.events"))).get("max", 0))

    def kill(self, patience_s: float = 10.0) -> bool:
        """SIGKILL every process of the run: cgroup.kill (v2), or freeze, kill each, thaw; True
        once the cgroup is empty."""
        end = time.monotonic() + patience_s
        while True:
            pids = self.procs()
            if not pids:
                return True
            if time.monotonic() > end:
                return False
            if "kill" in self.host.has:
                _write(self._f("", "cgroup.kill"), "1")
            else:
                frozen = self._freeze(True)
                for p in pids | self.procs():
                    _kill(p)
                if frozen:
                    self._freeze(False)
            time.sleep(0.002)

    def _freeze(self, on: bool) -> bool:
        if "freeze" not in self.host.has:
            return False
        try:
            if self.v == 1:
                f = self._f("freezer", "freezer.state")
                _write(f, "FROZEN" if on else "THAWED")
                for _ in range(100 if on else 0):
                    if _read(f).strip() == "FROZEN":
                        break
                    time.sleep(0.001)
            else:
                _write(self._f("", "cgroup.freeze"), "1" if on else "0")
                for _ in range(100 if on else 0):
                    if _keyed(_read(self._f("", "cgroup.events"))).get("frozen") == "1":
                        break
                    time.sleep(0.001)
            return True
        except OSError:
            return False

    def remove(self) -> None:
        for d in self.dirs.values():
            _purge_tree(d)


# ------------------------------------------------------------------ the run's first process

# Runs (as the grader's user, in a clean environment) between the grader and the sandbox: joins
# the run's cgroups, sets the limits the kernel keeps per process, then becomes the sandbox. A
# failure is written to the status pipe (closed on a successful exec, so the grader reads EOF).
_TRAMPOLINE = r"""
import json, os, resource, signal, sys
c = json.loads(sys.argv[1])
st = c["status"]
os.set_inheritable(st, False)
try:
    for p in c["cg"]:
        fd = os.open(p, os.O_WRONLY)
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
    for r, s, h in c["rl"]:
        resource.setrlimit(r, (s, h))
    if c["cpus"]:
        os.sched_setaffinity(0, c["cpus"])
    os.umask(0o022)
    for n in ("SIGPIPE", "SIGXFSZ"):  # Python ignores them; the run must not inherit that
        signal.signal(getattr(signal, n), signal.SIG_DFL)
    os.execv(c["argv"][0], c["argv"])
except BaseException as e:
    os.write(st, ("%s: %s" % (type(e).__name__, e)).encode())
    os._exit(125)
"""
_CLEAN_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}


# --------------------------------------------------------------------------- mounts (root only)

_MS_NOSUID, _MS_NODEV = 2, 4
_MNT_DETACH, _UMOUNT_NOFOLLOW = 2, 8
_libc = None


def _libc_call(name: str, *args) -> None:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    if getattr(_libc, name)(*args) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), args[1] if name == "mount" else args[0])


def _mount_tmpfs(path: str, size_mb: Optional[int], uid: int, gid: int) -> None:
    opts = f"mode=0700,uid={uid},gid={gid}"
    if size_mb is not None:
        opts += f",size={int(size_mb)}m,nr_inodes={max(4096, int(size_mb) * 256)}"
    _libc_call("mount", b"kitbox", os.fsencode(path), b"tmpfs", ctypes.c_ulong(_MS_NOSUID | _MS_NODEV),
               opts.encode())


def _umount(path: str) -> None:
    _libc_call("umount2", os.fsencode(path), _MNT_DETACH | _UMOUNT_NOFOLLOW)


def _mounts_below(root: str) -> List[str]:
    """Mount points strictly below root (deepest first)."""
    root = root.rstrip("/") + "/"
    mps = [mp for mp, _, _, _ in parse_mountinfo(_read_or("/proc/self/mountinfo")) if mp.startswith(root)]
    return sorted(set(mps), key=len, reverse=True)


def _is_mount(path: str) -> bool:
    return path in {mp for mp, _, _, _ in parse_mountinfo(_read_or("/proc/self/mountinfo"))}


# ------------------------------------------------------------------- files with no link followed

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _split_rel(rel: str) -> List[str]:
    parts = [p for p in str(rel).split("/") if p not in ("", ".")]
    if str(rel).startswith("/") or "\0" in str(rel) or ".." in parts:
        raise ValueError(f"'{rel}' is not a plain path inside the box")
    return parts


def _why(e: OSError) -> str:
    if e.errno == errno.ELOOP:
        return "it is a symbolic link"
    if e.errno == errno.ENOTDIR:
        return "a part of its path is not a folder (a link?)"
    if e.errno == errno.ENOENT:
        return "it does not exist"
    return e.strerror or str(e)


def _remove_at(dfd: int, name: str) -> None:
    """Remove name (a file, link, or folder and all it holds) inside the folder open as dfd,
    following no link; one descriptor per level of depth."""
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=dfd)
        return
    try:
        cfd = os.open(name, _DIR, dir_fd=dfd)
    except PermissionError:  # the grader's own user, a folder its run made unreadable
        os.chmod(name, 0o700, dir_fd=dfd)  # just seen to be a folder, and nothing of the run lives on
        cfd = os.open(name, _DIR, dir_fd=dfd)
    try:
        for entry in os.listdir(cfd):
            _remove_at(cfd, entry)
    finally:
        os.close(cfd)
    os.rmdir(name, dir_fd=dfd)


def _usage_at(dfd: int) -> int:
    """Bytes used under the folder open as dfd (allocated blocks), following no link."""
    total = 0
    for entry in os.listdir(dfd):
        try:
            st = os.stat(entry, dir_fd=dfd, follow_symlinks=False)
        except OSError:
            continue
        total += st.st_blocks * 512
        if stat.S_ISDIR(st.st_mode):
            try:
                cfd = os.open(entry, _DIR, dir_fd=dfd)
            except OSError:
                continue
            try:
                total += _usage_at(cfd)
            finally:
                os.close(cfd)
    return total


# ------------------------------------------------------------------------------ processes

def _proc_table() -> Dict[int, Tuple[int, ...]]:
    out = {}
    for name in _listdir("/proc"):
        if name.isdigit():
            s = parse_proc_stat(_read_or(f"/proc/{name}/stat"))
            if s:
                out[int(name)] = s
    return out


def _descendants(table: Dict[int, Tuple[int, ...]], root: int) -> Set[int]:
    kids: Dict[int, List[int]] = {}
    for pid, s in table.items():
        kids.setdefault(s[0], []).append(pid)
    out, todo = set(), [root]
    while todo:
        p = todo.pop()
        if p in table and p not in out:
            out.add(p)
            todo.extend(kids.get(p, ()))
    return out


def _pids_of_uid(uid: int) -> Set[int]:
    out = set()
    for name in _listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    out.add(int(name))
            except OSError:
                pass
    return out


class _GpuWatch(threading.Thread):
    """Polls nvidia-smi for the GPU memory of the run's processes; calls on_breach once the sum
    passes the cap."""

    def __init__(self, smi: str, cap_mb: Optional[int], pids: Callable[[], FrozenSet[int]],
                 on_breach: Callable[[float], None], interval_s: float = 0.2):
        super().__init__(daemon=True)
        self.smi, self.cap, self.pids, self.on_breach = smi, cap_mb, pids, on_breach
        self.interval = interval_s
        self.stop = threading.Event()
        self.peak: Optional[float] = None
        self.foreign = False  # nvidia-smi lists pids this machine's /proc does not know

    def sample(self) -> None:
        try:
            p = subprocess.run([self.smi, "--query-compute-apps=pid,used_memory",
                                "--format=csv,noheader,nounits"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, timeout=10, env=_CLEAN_ENV)
        except (OSError, subprocess.SubprocessError):
            return
        if p.returncode != 0:
            return
        apps = parse_gpu_apps(p.stdout.decode(errors="replace"))
        mine = self.pids()
        used = sum(m for pid, m in apps.items() if pid in mine)
        if any(not os.path.exists(f"/proc/{pid}") for pid in apps):
            self.foreign = True
        self.peak = used if self.peak is None else max(self.peak, used)
        if self.cap is not None and used > self.cap:
            self.on_breach(used)

    def run(self) -> None:
        while not self.stop.wait(self.interval):
            self.sample()


# ------------------------------------------------------------------------------------ Sandbox

_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
        "/etc/nsswitch.conf", "/etc/localtime", "/etc/timezone", "/etc/os-release")
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def _under(path: str, dirs: Sequence[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


class Sandbox:
    """One per grading (and per workroot): finds what this machine offers, and makes boxes.
    kind: 'bwrap' or 'none'; notes: what is not enforced here and why; enforcement: for each
    Limits field, 'kernel' (a hard limit), 'measured' (watched from outside, the run stopped
    when past it) or 'none'. uid_pool: the ids of the boxes when root (default: UidPool(), ids
    61000-61999 locked in /run/kitgrade/uids); cgroup: 'auto', 'v1', 'v2' or 'none'."""

    def __init__(self, mode: str, *, ro_paths: Sequence[Path], gpu: bool, as_root: bool,
                 workroot: Path, uid_pool: Optional[uidpool.UidPool] = None, cgroup: str = "auto"):
        if mode not in ("auto", "bwrap", "none"):
            raise SandboxError(f"sandbox mode must be auto, bwrap or none, not '{mode}'")
        if as_root != (os.geteuid() == 0):
            raise SandboxError("as_root needs the grader to run as root" if as_root else
                               "as root, boxes need users of their own: pass as_root=True")
        self.as_root = as_root
        self.gpu = gpu
        self.notes: List[str] = []
        self.enforcement: Dict[str, str] = {}
        self._lock = threading.Lock()
        self._boxes: Dict[str, "Box"] = {}
        self._closed = False
        self.ro_paths = [os.path.abspath(str(p)) for p in ro_paths]
        for p in self.ro_paths:
            if not os.path.exists(p):
                raise SandboxError(f"{p} (to be shown read-only to the runs) does not exist")
        self._bwrap_size = False
        self.workroot = os.path.realpath(str(workroot))
        self._python = sys.executable or shutil.which("python3") or "/usr/bin/python3"
        self._my_nspid_depth = len(parse_nspid(_read_or("/proc/self/status"))) or 1
        self._check_workroot()
        # the view: bubblewrap when it works
        self.kind = "none"
        self._bwrap = shutil.which("bwrap")
        if mode != "none":
            why = self._probe_bwrap()
            if not why:
                self.kind = "bwrap"
            elif mode == "bwrap":
                raise SandboxError(f"--sandbox bwrap: {why}")
            else:
                self.notes.append(f"no sandbox ({why}): a run sees every file this user can read "
                                  f"(solutions included), can reach the network and write outside "
                                  f"its folder")
        else:
            self.notes.append("no sandbox (--sandbox none): a run sees every file this user can read, "
                              "can reach the network and write outside its folder")
        self._env = shutil.which("env", path=_CLEAN_ENV["PATH"]) or "/usr/bin/env"
        self._setpriv = shutil.which("setpriv", path=_CLEAN_ENV["PATH"])
        if as_root and not self._setpriv:
            raise SandboxError("running as root needs setpriv (util-linux) to give each box its own user")
        self._pool = uid_pool if uid_pool is not None else (uidpool.UidPool() if as_root else None)
        self._tmpfs = False
        if as_root:
            self._tmpfs = self._probe_tmpfs()
        self._cg = _CgroupHost(cgroup)
        self.notes.extend(self._cg.notes)
        self._gpu_setup()
        self._decide_enforcement()
        # a grader that ends on an exception still unmounts and frees its boxes (not a forked
        # copy of it, which shares them)
        self._owner_pid = os.getpid()
        atexit.register(self._at_exit)

    def _at_exit(self) -> None:
        if os.getpid() == self._owner_pid:
            self.close()

    # ---- what the machine offers
    def _check_workroot(self) -> None:
        os.makedirs(self.workroot, mode=0o755, exist_ok=True)
        me = os.geteuid()
        for d in [self.workroot] + [str(p) for p in Path(self.workroot).parents]:
            st = os.lstat(d)
            if not stat.S_ISDIR(st.st_mode):
                raise SandboxError(f"{d} (the box folders' parent or above) is not a folder")
            if st.st_uid not in (0, me) or (st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX):
                raise SandboxError(f"{d} (the box folders' parent or above) can be changed by "
                                   f"another user: boxes need a parent only the grader can write")
        if os.stat(self.workroot).st_mode & 0o022:
            raise SandboxError(f"{self.workroot} must be writable by the grader alone")
        # mounts left by a grading of this folder that died
        for mp in _mounts_below(self.workroot):
            try:
                _umount(mp)
            except OSError:
                pass

    def _probe_bwrap(self) -> str:
        if not self._bwrap:
            return "bubblewrap (bwrap) is not installed"
        help_text = subprocess.run([self._bwrap, "--help"], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, env=_CLEAN_ENV).stdout.decode(errors="replace")
        self._bwrap_size = "--size" in help_text
        for opt in ("--perms", "--ro-bind-data", "--clearenv", "--unshare-cgroup-try"):
            if opt not in help_text:
                return f"this bubblewrap is too old (no {opt})"
        argv = self._bwrap_base() + ["--proc", "/proc", "--dev", "/dev", "--", "/bin/true"]
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_CLEAN_ENV)
        if p.returncode != 0:
            return "bubblewrap cannot make a sandbox here (%s)" % p.stdout.decode(errors="replace").strip()[:200]
        return ""

    def _probe_tmpfs(self) -> bool:
        probe = os.path.join(self.workroot, f".probe-{os.getpid()}-{threading.get_ident()}")
        os.mkdir(probe, 0o700)
        try:
            _mount_tmpfs(probe, 1, 0, 0)
            _umount(probe)
            return True
        except OSError as e:
            self.notes.append(f"disk: cannot mount a tmpfs ({e.strerror}): a box's disk use is "
                              f"measured after each run instead of capped")
            return False
        finally:
            os.rmdir(probe)

    def _gpu_setup(self) -> None:
        self._gpu_nodes: List[str] = []
        self._gpu_dirs: List[str] = []
        self._mps_dir: Optional[str] = None
        self._smi = shutil.which("nvidia-smi") if self.gpu else None
        if not self.gpu:
            return
        self._gpu_nodes = sorted(glob.glob("/dev/nvidia*"))
        libs = []
        try:
            libs = parse_ldconfig(subprocess.run(["ldconfig", "-p"], stdout=subprocess.PIPE,
                                                 stderr=subprocess.DEVNULL, env=_CLEAN_ENV).stdout.decode(errors="replace"))
        except OSError:
            pass
        for d in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
            if d and glob.glob(os.path.join(d, "libcuda.so*")):
                libs.append(os.path.join(d, "libcuda.so"))
        dirs = {os.path.dirname(os.path.realpath(p)) for p in libs} | {os.path.dirname(p) for p in libs}
        if self._smi:  # e.g. /usr/local/nvidia/bin/nvidia-smi: the driver's folder in a container
            prefix = os.path.dirname(os.path.dirname(os.path.realpath(self._smi)))
            if prefix not in ("/", "/usr"):
                dirs.add(prefix)
        nvcc = shutil.which("nvcc") or shutil.which("nvcc", path="/usr/local/cuda/bin")
        for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"),
                     os.path.dirname(os.path.dirname(os.path.realpath(nvcc))) if nvcc else None):
            if home and os.path.isdir(home):
                dirs.add(os.path.realpath(home))
                dirs.add(os.path.abspath(home))
        self._gpu_dirs = sorted(d for d in dirs if d and not _under(d, _SYSTEM))
        if not self._gpu_nodes:
            self.notes.append("GPU: no /dev/nvidia* device nodes here")
        # an MPS daemon that already runs gives a per-client device memory limit
        pipe = os.environ.get("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps")
        daemon = any(_read_or(f"/proc/{n}/comm").startswith("nvidia-cuda-mps")
                     for n in _listdir("/proc") if n.isdigit())
        if daemon and os.path.exists(os.path.join(pipe, "control")):
            self._mps_dir = pipe

    def _decide_enforcement(self) -> None:
        e, has, n = self.enforcement, self._cg.has, self.notes
        e["wall_s"] = "kernel"
        e["file_mb"] = "kernel"
        if "memory" in has:
            e["memory_mb"] = "kernel"
        else:
            e["memory_mb"] = "measured"
            n.append("memory: no memory cgroup here; the resident memory of a run's processes is "
                     "measured every few milliseconds and the run stopped past the limit (a fast "
                     "allocation can pass it briefly; memory the kernel holds for a run is not seen)")
        if "pids" in has:
            e["nproc"] = "kernel"
        else:
            e["nproc"] = "kernel"
            n.append("processes: no pids cgroup here; RLIMIT_NPROC limits them" +
                     ("" if self.as_root else ", counted over every process of the grader's user "
                      "(the runs share it)") + ", and a breach is reported only when seen")
        if "cpu" in has:
            e["cpu_s"] = "kernel"
        else:
            e["cpu_s"] = "measured"
            n.append("CPU time: no CPU accounting cgroup here; a run's CPU time is read from its "
                     "processes every 50 ms (the last moments of a process can be missed, and one "
                     "that leaves the run unseen is not counted)")
        if self._tmpfs:
            e["disk_mb"] = "kernel"
        else:
            e["disk_mb"] = "measured"
            if not self.as_root:
                n.append("disk: not root, so a box is a plain folder; its use is measured during "
                         "and after each run, not capped")
        if not self.gpu:
            e["gpu_memory_mb"] = "none"
        elif self._mps_dir:
            e["gpu_memory_mb"] = "kernel"
        elif self._smi:
            e["gpu_memory_mb"] = "measured"
            n.append("GPU memory: no MPS daemon runs; the device memory of a run's processes is "
                     "measured with nvidia-smi every 0.2 s and the run stopped past the limit")
        else:
            e["gpu_memory_mb"] = "none"
            n.append("GPU memory: neither MPS nor nvidia-smi here; device memory is not limited")
        if not self.as_root:
            n.append("not root: every box runs as the grader's own user")
        if self.kind == "none" and self.as_root:
            n.append("no sandbox: a box user can leave files in world-writable folders (/tmp, "
                     "/dev/shm) that a later box with the same id could read")

    # ---- the sandbox's command line
    def _bwrap_base(self) -> List[str]:
        a = [self._bwrap, "--die-with-parent", "--new-session", "--unshare-ipc", "--unshare-pid",
             "--unshare-net", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "kitbox",
             "--clearenv", "--setenv", "PATH", _CLEAN_ENV["PATH"]]
        if os.geteuid() != 0:
            a.append("--unshare-user")
        elif self.as_root:
            a += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        for d in _SYSTEM:
            if os.path.islink(d):
                a += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                a += ["--ro-bind", d, d]
        a += ["--perms", "0755", "--dir", "/etc"]
        for f in _ETC:
            a += ["--ro-bind-try", f, f]
        return a

    def _bwrap_argv(self, box: "Box", cwd: str, tmp_mb: Optional[int], passwd_fd: int,
                    group_fd: int) -> List[str]:
        a = self._bwrap_base()
        a += ["--perms", "0644", "--ro-bind-data", str(passwd_fd), "/etc/passwd",
              "--perms", "0644", "--ro-bind-data", str(group_fd), "/etc/group",
              "--proc", "/proc", "--dev", "/dev"]
        size = ["--size", str(tmp_mb * MB)] if tmp_mb and self._bwrap_size else []
        a += ["--perms", "1777"] + size + ["--tmpfs", "/dev/shm"]
        a += ["--perms", "1777"] + size + ["--tmpfs", "/tmp"]
        if self.gpu:
            for n in self._gpu_nodes:
                a += ["--dev-bind", n, n]
            a += ["--ro-bind", "/sys", "/sys"]
        elif os.path.isdir("/sys/devices/system/cpu"):  # CPU count and topology (OpenMP)
            a += ["--perms", "0755", "--dir", "/sys", "--perms", "0755", "--dir", "/sys/devices",
                  "--perms", "0755", "--dir", "/sys/devices/system",
                  "--ro-bind", "/sys/devices/system/cpu", "/sys/devices/system/cpu"]
        binds = [(p, "--ro-bind") for p in self.ro_paths + (self._gpu_dirs if self.gpu else [])]
        if self.gpu and self._mps_dir:
            binds.append((self._mps_dir, "--ro-bind"))
        binds.append((str(box.root), "--bind"))
        done = ["/usr", "/etc", "/proc", "/dev", "/sys"]  # whatever is below these exists already
        made: Set[str] = {"/tmp"}
        for p, how in sorted(binds, key=lambda b: (b[0].count("/"), b[0])):
            # the folders leading to it, readable by the box user (bubblewrap may make them 0700)
            for up in reversed(Path(p).parents[:-1] if sys.version_info >= (3, 10) else list(Path(p).parents)[:-1]):
                u = str(up)
                if u not in made and not _under(u, done):
                    a += ["--perms", "0755", "--dir", u]
                    made.add(u)
            a += [how, p, p]
            done.append(p)
        return a + ["--chdir", cwd, "--"]

    # ---- boxes
    def box(self, name: str, disk_mb: Optional[int]) -> "Box":
        if self._closed:
            raise SandboxError("the sandbox is closed")
        if not name or "/" in name or "\0" in name or name in (".", "..") or name.startswith(".") or len(name) > 200:
            raise SandboxError(f"'{name}' cannot name a box")
        with self._lock:
            if name in self._boxes and not self._boxes[name].closed:
                raise SandboxError(f"box '{name}' is open already")
        b = Box(self, name, disk_mb)
        with self._lock:
            self._boxes[name] = b
        return b

    def close(self) -> None:
        with self._lock:
            boxes, self._closed = list(self._boxes.values()), True
        for b in boxes:
            b.close()
        self._cg.close()
        if hasattr(self, "_owner_pid"):
            atexit.unregister(self._at_exit)

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---------------------------------------------------------------------------------------- Box

class Box:
    """One student's folder and user; commands run in it one at a time."""

    def __init__(self, sandbox: Sandbox, name: str, disk_mb: Optional[int]):
        self._sb = sandbox
        self.name = name
        self.disk_mb = disk_mb
        self.root = Path(sandbox.workroot) / name
        self.uid: Optional[int] = None
        self.gid: Optional[int] = None
        self.closed = False
        self._mounted = False
        self._lease: Optional[uidpool.Lease] = None
        self._run_lock = threading.Lock()
        if sandbox._pool is not None:
            try:
                self._lease = sandbox._pool.acquire()
            except uidpool.UidPoolError as e:
                raise SandboxError(f"no user id for box '{name}': {e}")
            self.uid, self.gid = self._lease.uid, self._lease.gid
        try:
            self._clear()
            os.mkdir(self.root, 0o700)
            if sandbox._tmpfs:
                _mount_tmpfs(str(self.root), disk_mb, self.uid, self.gid)
                self._mounted = True
            elif self.uid is not None:
                os.chown(self.root, self.uid, self.gid, follow_symlinks=False)
        except BaseException:
            self.close()
            raise

    # ---- safe file access
    def _open_parent(self, rel: str, create: bool) -> Tuple[int, str]:
        """A descriptor of the folder that holds rel's last part, reached with no link followed
        (folders made on the way when create), and that last part."""
        parts = _split_rel(rel)
        if not parts:
            raise ValueError("an empty path names the box itself")
        fd = os.open(self.root, _DIR)
        try:
            for p in parts[:-1]:
                try:
                    nfd = os.open(p, _DIR, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise
                    os.mkdir(p, 0o755, dir_fd=fd)
                    nfd = os.open(p, _DIR, dir_fd=fd)
                    self._own(nfd)
                os.close(fd)
                fd = nfd
            return fd, parts[-1]
        except BaseException:
            os.close(fd)
            raise

    def _own(self, fd: int) -> None:
        if self.uid is not None:
            os.fchown(fd, self.uid, self.gid)

    def read_file(self, rel: str, max_bytes: int) -> Tuple[Optional[bytes], str]:
        """The content of the regular file rel (no link followed at any step, at most max_bytes),
        or (None, why)."""
        try:
            dfd, name = self._open_parent(rel, False)
        except ValueError as e:
            return None, str(e)
        except OSError as e:
            return None, f"{rel}: {_why(e)}"
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, dir_fd=dfd)
        except OSError as e:
            return None, f"{rel}: {_why(e)}"
        finally:
            os.close(dfd)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return None, f"{rel}: not a regular file"
            if st.st_nlink != 1:
                return None, f"{rel}: has other names (a hard link)"
            if st.st_size > max_bytes:
                return None, f"{rel}: {st.st_size} bytes, more than {max_bytes}"
            chunks, n = [], 0
            while n <= max_bytes:
                c = os.read(fd, min(1 << 20, max_bytes + 1 - n))
                if not c:
                    break
                chunks.append(c)
                n += len(c)
            if n > max_bytes:
                return None, f"{rel}: more than {max_bytes} bytes"
            return b"".join(chunks), ""
        finally:
            os.close(fd)

    def listdir(self, rel: str = "") -> Optional[List[str]]:
        """The names in folder rel ('' the box itself), reached with no link followed; None when
        it is not a folder."""
        try:
            if not _split_rel(rel):
                fd = os.open(self.root, _DIR)
            else:
                dfd, name = self._open_parent(rel, False)
                try:
                    fd = os.open(name, _DIR, dir_fd=dfd)
                finally:
                    os.close(dfd)
        except (OSError, ValueError):
            return None
        try:
            return sorted(os.listdir(fd))
        finally:
            os.close(fd)

    def mkdir(self, rel: str) -> Path:
        """Make folder rel (and those above it) for the box user, following no link; its path."""
        dfd, name = self._open_parent(rel, True)
        try:
            try:
                os.mkdir(name, 0o755, dir_fd=dfd)
            except FileExistsError:
                pass
            fd = os.open(name, _DIR, dir_fd=dfd)  # fails on a link or a file in its place
            try:
                self._own(fd)
            finally:
                os.close(fd)
        finally:
            os.close(dfd)
        return self.root.joinpath(*_split_rel(rel))

    def write_file(self, rel: str, data: bytes, mode: int = 0o644) -> Path:
        """Put a file in the box (whatever had its name is removed first, links not followed).
        It stays the grader's: the box user can read it, not change it."""
        dfd, name = self._open_parent(rel, True)
        try:
            _remove_at(dfd, name)
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dfd)
            try:
                os.fchmod(fd, mode)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
        finally:
            os.close(dfd)
        return self.root.joinpath(*_split_rel(rel))

    def remove(self, rel: str) -> None:
        """Remove rel and everything under it, following no link (a link is removed itself)."""
        dfd, name = self._open_parent(rel, False)
        try:
            _remove_at(dfd, name)
        finally:
            os.close(dfd)

    def disk_used_mb(self) -> float:
        if self._mounted:
            s = os.statvfs(self.root)
            return (s.f_blocks - s.f_bfree) * s.f_frsize / MB
        fd = os.open(self.root, _DIR)
        try:
            return _usage_at(fd) / MB
        finally:
            os.close(fd)

    def _disk_full(self) -> bool:
        if not self._mounted or self.disk_mb is None:
            return False
        s = os.statvfs(self.root)
        return s.f_bavail * s.f_frsize < 64 * 1024 or (s.f_files and s.f_favail == 0)

    # ---- running
    def run(self, argv: Sequence[str], *, cwd: Path, env: Dict[str, str], limits: Limits,
            stdout: Path, stderr: Path, pass_fds: Sequence[int] = (),
            cpus: Optional[List[int]] = None) -> Result:
        """Run argv in the box: working folder cwd (as seen inside), exactly the environment
        env, stdin /dev/null, stdout and stderr appended to the grader's files (the same path
        twice: one file), the descriptors pass_fds inherited, pinned to cpus when given. Every
        process of the run is gone when it returns."""
        if self.closed:
            raise SandboxError(f"box '{self.name}' is closed")
        with self._run_lock:
            return _Run(self, [str(a) for a in argv], str(cwd), dict(env), limits, str(stdout),
                        str(stderr), tuple(pass_fds), cpus).go()

    # ---- the end
    def _kill_user(self) -> None:
        if self.uid is None:
            return
        for _ in range(100):
            pids = _pids_of_uid(self.uid)
            if not pids:
                return
            for p in pids:
                _kill(p)
            time.sleep(0.01)

    def _clear(self) -> None:
        """Remove what is at the box's place: an old mount of it, an old folder."""
        path = str(self.root)
        for mp in _mounts_below(path) + ([path] if _is_mount(path) else []):
            _umount(mp)
        wfd = os.open(self._sb.workroot, _DIR)
        try:
            _remove_at(wfd, self.name)
        finally:
            os.close(wfd)

    def close(self) -> None:
        """Kill what is left of the box's processes, unmount or remove its folder (no link
        followed, as root only on paths the grader made), give its user id back."""
        if self.closed:
            return
        self.closed = True
        with self._run_lock:
            try:
                self._kill_user()
                if self._mounted:
                    _umount(str(self.root))
                    self._mounted = False
                self._clear()
            finally:
                if self._lease is not None:
                    self._lease.release()
                    self._lease = None

    def __enter__(self) -> "Box":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Run:
    """One command in a box, from start to the last process killed."""

    def __init__(self, box: Box, argv: List[str], cwd: str, env: Dict[str, str], limits: Limits,
                 stdout: str, stderr: str, pass_fds: Tuple[int, ...], cpus: Optional[List[int]]):
        self.box, self.sb = box, box._sb
        self.argv, self.cwd, self.env, self.lim = argv, cwd, env, limits
        self.stdout, self.stderr, self.pass_fds, self.cpus = stdout, stderr, pass_fds, cpus
        self.breach: Optional[str] = None
        self.detail = ""
        self.pid = 0
        self.pids: FrozenSet[int] = frozenset()
        self.seen: Set[int] = set()
        self.starts: Dict[int, int] = {}
        self.extra: Set[int] = set()
        self.mem_peak = 0
        self.cpu_seen_ticks = 0
        self.nproc_seen = False
        self.cg: Optional[_RunCgroup] = None
        self._kill_lock = threading.Lock()

    def _not_started(self, why: str) -> Result:
        return Result(None, None, 0.0, 0.0, None, None, None, 0, why, False)

    def _set_breach(self, what: str, detail: str) -> None:
        if self.breach is None:
            self.breach, self.detail = what, detail

    def go(self) -> Result:
        sb, lim = self.sb, self.lim
        # the working folder, when inside the box, must be a folder reached with no link
        root = str(self.box.root)
        if _under(self.cwd, [root]) and self.cwd != root:
            if self.box.listdir(os.path.relpath(self.cwd, root)) is None:
                return self._not_started(f"the working folder {self.cwd} is missing (or a link)")
        env = dict(self.env)
        if sb.gpu and sb._mps_dir and lim.gpu_memory_mb is not None:
            n = max(1, len([x for x in sb._gpu_nodes if re.fullmatch(r"/dev/nvidia\d+", x)]))
            env["CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"] = ",".join(f"{i}={int(lim.gpu_memory_mb)}M" for i in range(n))
            env["CUDA_MPS_PIPE_DIRECTORY"] = sb._mps_dir
        inner = [sb._env, "-i", "--"] + [f"{k}={v}" for k, v in env.items() if k and "=" not in k] + self.argv
        if self.box.uid is not None:
            inner = [sb._setpriv, f"--reuid={self.box.uid}", f"--regid={self.box.gid}", "--clear-groups",
                     "--inh-caps=-all", "--"] + inner
        rl = [[resource.RLIMIT_CORE, 0, 0]]
        if lim.file_mb is not None:
            b = int(lim.file_mb) * MB
            rl.append([resource.RLIMIT_FSIZE, b, b])
        if lim.cpu_s is not None:
            s = int(math.ceil(lim.cpu_s)) + 1
            rl.append([resource.RLIMIT_CPU, s, s + 1])
        try:
            self.cg = sb._cg.new_run() if sb._cg.version else None
            if self.cg:
                self.cg.set_limits(lim, self.cpus)
        except OSError as e:
            if self.cg:
                self.cg.remove()
            raise SandboxError(f"cannot set up the run's cgroup: {e}")
        if lim.nproc is not None and "pids" not in sb._cg.has:
            n = int(lim.nproc)
            if self.box.uid is None:  # RLIMIT_NPROC counts every task of the user
                n += sum(s[3] for s in _proc_table().values()) if os.geteuid() == 0 else \
                    sum(s[3] for p, s in _proc_table().items() if _owner(p) == os.geteuid())
            rl.append([resource.RLIMIT_NPROC, n, n])
        data_fds: List[int] = []
        try:
            if sb.kind == "bwrap":
                uid = self.box.uid if self.box.uid is not None else os.geteuid()
                gid = self.box.gid if self.box.gid is not None else os.getegid()
                pw = f"root:x:0:0:root:/root:/usr/sbin/nologin\nkitbox:x:{uid}:{gid}:box:{root}:/usr/sbin/nologin\n"
                gr = f"root:x:0:\nkitbox:x:{gid}:\n"
                data_fds = [_data_pipe(pw), _data_pipe(gr)]
                tmp_mb = lim.disk_mb if lim.disk_mb is not None else self.box.disk_mb
                full = sb._bwrap_argv(self.box, self.cwd, tmp_mb, data_fds[0], data_fds[1]) + inner
                popen_cwd = "/"
            else:
                full, popen_cwd = inner, self.cwd
            return self._start(full, popen_cwd, rl, data_fds)
        finally:
            for fd in data_fds:
                os.close(fd)
            if self.cg:
                self.cg.remove()

    def _start(self, full: List[str], popen_cwd: str, rl: list, data_fds: List[int]) -> Result:
        status_r, status_w = os.pipe()
        conf = {"cg": self.cg.procs_files(bool(self.cpus)) if self.cg else [], "rl": rl,
                "cpus": self.cpus, "argv": full, "status": status_w}
        # appended to (a grader may log several commands into one file); never through a link
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
        out = err = -1
        try:
            out = os.open(self.stdout, flags, 0o644)
            err = out if os.path.abspath(self.stderr) == os.path.abspath(self.stdout) else os.open(self.stderr, flags, 0o644)
            t0 = time.monotonic()
            proc = subprocess.Popen([self.sb._python, "-I", "-S", "-c", _TRAMPOLINE, json.dumps(conf)],
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=_CLEAN_ENV,
                                    cwd=popen_cwd, pass_fds=tuple(self.pass_fds) + (status_w,) + tuple(data_fds),
                                    close_fds=True, start_new_session=True)
        finally:
            os.close(status_w)
            for fd in {out, err} - {-1}:
                os.close(fd)
        self.pid = proc.pid
        with os.fdopen(status_r, "rb") as f:
            msg = f.read().decode(errors="replace")
        if msg:
            _, status, _ = os.wait4(proc.pid, 0)
            proc.returncode = status
            raise SandboxError(f"the sandbox could not start a run: {msg}")
        status, ru = self._watch(proc, t0)
        wall_ms = (time.monotonic() - t0) * 1000
        proc.returncode = status
        return self._finish(status, ru, wall_ms)

    # ---- while it runs
    def _watch(self, proc: subprocess.Popen, t0: float):
        lim, sb = self.lim, self.sb
        deadline = t0 + lim.wall_s
        pidfd = -1
        if hasattr(os, "pidfd_open"):
            try:
                pidfd = os.pidfd_open(proc.pid)
            except OSError:
                pidfd = -1
        poller = select.poll()
        if pidfd >= 0:
            poller.register(pidfd, select.POLLIN)
        gpu = None
        if sb.gpu and sb._smi:
            cap = lim.gpu_memory_mb if not sb._mps_dir else None
            gpu = _GpuWatch(sb._smi, cap, lambda: self.pids, self._gpu_breach)
            gpu.start()
        self.gpu = gpu
        tick, last_disk = 0.002, 0.0
        try:
            while True:
                now = time.monotonic()
                wait = max(0.0, min(tick, deadline - now))
                if pidfd >= 0:
                    poller.poll(wait * 1000)
                pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    return status, ru
                if pidfd < 0:
                    time.sleep(wait)
                now = time.monotonic()
                self._sample()
                if not self.box._mounted and now - last_disk >= 1.0:
                    last_disk = now
                    self._check_disk()
                if self.breach is None and now >= deadline:
                    self._set_breach("timeout", f"still running after {lim.wall_s:g} s (wall clock)")
                if self.breach is not None:
                    self._kill_all()
                    break
                tick = min(tick * 1.5, 0.05)
            # killed: wait for it, patiently (a GPU context can take a while to go)
            end = time.monotonic() + 60
            while True:
                pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    return status, ru
                if time.monotonic() > end:
                    threading.Thread(target=os.waitpid, args=(proc.pid, 0), daemon=True).start()
                    self.detail += " (its first process did not end after SIGKILL)"
                    return 0x9, None
                self._kill_all()
                time.sleep(0.01)
        finally:
            if gpu:
                gpu.stop.set()
            if pidfd >= 0:
                os.close(pidfd)

    def _gpu_breach(self, used: float) -> None:
        self._set_breach("gpu-memory-limit", f"used {used:.0f} MiB of GPU memory, the limit is "
                                             f"{self.lim.gpu_memory_mb} MiB")
        self._kill_all()

    def _run_pids(self) -> Set[int]:
        if self.cg:
            return self.cg.procs()
        table = _proc_table()
        self._table = table
        # its descendants, those of processes seen before (an orphan keeps its start time), its
        # session (without bubblewrap)
        pids: Set[int] = set()
        for root in [self.pid] + [p for p, t in self.starts.items() if p in table and table[p][5] == t]:
            if root not in pids:
                pids |= _descendants(table, root)
        pids |= {p for p, s in table.items() if s[1] == self.pid}
        for p in pids:
            self.starts.setdefault(p, table[p][5])
        if self.box.uid is not None:
            pids |= _pids_of_uid(self.box.uid)
        return pids

    def _sample(self) -> None:
        lim = self.lim
        pids = self._run_pids()
        self.pids = frozenset(pids)
        for p in pids - self.seen:
            if not self._is_chain(p):
                self.extra.add(p)
        self.seen |= pids
        if self.cg:
            cpu = self.cg.cpu_ns()
            if "memory" in self.sb._cg.has and self.cg.v == 2 and not os.path.exists(self.cg._f("memory", "memory.peak")):
                self.mem_peak = max(self.mem_peak, self.cg.mem_bytes(False) or 0)
        else:
            cpu = None
        table = getattr(self, "_table", None) if not self.cg else None
        if table is None and ("memory" not in self.sb._cg.has or "cpu" not in self.sb._cg.has
                              or "pids" not in self.sb._cg.has):
            table = _proc_table()
        if table is not None:
            live = [table[p] for p in pids if p in table]
            if "memory" not in self.sb._cg.has:
                rss = sum(s[4] for s in live) * os.sysconf("SC_PAGE_SIZE")
                self.mem_peak = max(self.mem_peak, rss)
                if lim.memory_mb is not None and rss > lim.memory_mb * MB:
                    self._set_breach("memory-limit", f"used {rss / MB:.0f} MB of memory, the limit is {lim.memory_mb} MB")
            if cpu is None:
                ticks = sum(s[2] for s in live)
                self.cpu_seen_ticks = max(self.cpu_seen_ticks, ticks)
                cpu = ticks * 1e9 / os.sysconf("SC_CLK_TCK")
            if lim.nproc is not None and "pids" not in self.sb._cg.has and sum(s[3] for s in live) >= lim.nproc:
                self.nproc_seen = True
        if cpu is not None and lim.cpu_s is not None and cpu > lim.cpu_s * 1e9:
            self._set_breach("cpu-limit", f"used {cpu / 1e9:.1f} s of CPU time, the limit is {lim.cpu_s:g} s")

    def _is_chain(self, pid: int) -> bool:
        """The sandbox's own processes and the command's main one (not counted as extra)."""
        if pid == self.pid:
            return True
        if self.sb.kind != "bwrap":
            return False
        ns = parse_nspid(_read_or(f"/proc/{pid}/status"))
        if not ns:
            return True  # gone before it could be looked at: not counted
        # bubblewrap's pid 1 in the run's pid namespace, and the command as pid 2
        return len(ns) == self.sb._my_nspid_depth + 1 and ns[-1] in (1, 2)

    def _check_disk(self) -> None:
        limit = self.lim.disk_mb if self.lim.disk_mb is not None else self.box.disk_mb
        if limit is None:
            return
        try:
            used = self.box.disk_used_mb()
        except OSError:
            return
        if used > limit:
            self._set_breach("disk-limit", f"its folder holds {used:.0f} MB, the limit is {limit} MB")

    def _kill_all(self) -> None:
        with self._kill_lock:
            if self.cg:
                self.cg.kill(patience_s=2.0)
            else:
                try:
                    os.killpg(self.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                pids = self._run_pids()
                for p in pids:
                    _kill(p)
                end = time.monotonic() + 2
                while time.monotonic() < end and any(_running(p) for p in pids - {self.pid}):
                    time.sleep(0.002)
            _kill(self.pid)

    # ---- after it ended
    def _finish(self, status: int, ru, wall_ms: float) -> Result:
        lim, cg = self.lim, self.cg
        # whatever the run left behind: seen, counted, killed
        if cg:
            left = cg.procs()
        else:
            left = self._run_pids() - {self.pid}
        for p in left:
            if not self._is_chain(p):
                self.extra.add(p)
        if left:
            self._kill_all()
            if cg:
                cg.kill()
        rc: Optional[int] = None
        sig: Optional[int] = None
        if os.WIFEXITED(status):
            rc = os.WEXITSTATUS(status)
            if self.sb.kind == "bwrap" and 128 < rc <= 128 + 64:  # bubblewrap's way of saying "signal"
                rc, sig = None, rc - 128
        elif os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
        cpu_ms = None
        if cg:
            ns = cg.cpu_ns()
            cpu_ms = ns / 1e6 if ns is not None else None
        if cpu_ms is None:
            waited = (ru.ru_utime + ru.ru_stime) * 1000 if ru is not None else 0.0
            cpu_ms = max(waited, self.cpu_seen_ticks * 1000 / os.sysconf("SC_CLK_TCK"))
        mem = cg.mem_bytes(True) if cg else None
        mem_mb = (max(mem or 0, self.mem_peak) / MB) if (mem is not None or self.mem_peak) else None
        gpu_peak = self.gpu.peak if self.gpu else None
        if self.gpu and self.gpu.foreign and self.sb.enforcement.get("gpu_memory_mb") == "measured":
            with self.sb._lock:
                note = "GPU memory: nvidia-smi lists processes of another pid namespace; the run's device memory cannot be matched to it"
                if note not in self.sb.notes:
                    self.sb.notes.append(note)
        # breaches the kernel enforced: found in the cgroup's counters, the signal, the disk
        resource_breach = None
        if cg and cg.oom_kills() > 0 and lim.memory_mb is not None:
            resource_breach = ("memory-limit", f"went past the {lim.memory_mb} MB memory limit and was killed")
        elif cg and cg.pids_hits() > 0 and lim.nproc is not None:
            resource_breach = ("process-limit", f"tried to have more than {lim.nproc} processes and threads")
        elif self.nproc_seen:
            resource_breach = ("process-limit", f"reached the limit of {lim.nproc} processes and threads")
        if resource_breach and self.breach in (None, "timeout", "cpu-limit"):
            self.breach, self.detail = resource_breach
        if self.breach is None:
            if sig == signal.SIGXFSZ and lim.file_mb is not None:
                self._set_breach("file-limit", f"wrote a file past the {lim.file_mb} MB limit")
            elif sig in (signal.SIGXCPU,) and lim.cpu_s is not None:
                self._set_breach("cpu-limit", f"used more than {lim.cpu_s:g} s of CPU time")
            elif lim.cpu_s is not None and cpu_ms > lim.cpu_s * 1000:
                self._set_breach("cpu-limit", f"used {cpu_ms / 1000:.1f} s of CPU time, the limit is {lim.cpu_s:g} s")
            elif self.box._disk_full():
                self._set_breach("disk-limit", f"filled its {self.box.disk_mb} MB folder")
            elif lim.disk_mb is not None or self.box.disk_mb is not None:
                if not self.box._mounted:
                    self._check_disk()
        return Result(rc, sig, wall_ms, cpu_ms, mem_mb, gpu_peak, self.breach, len(self.extra), self.detail, True)


def _running(pid: int) -> bool:
    """pid exists and is not a zombie."""
    st = _read_or(f"/proc/{pid}/stat")
    return bool(st) and st[st.rfind(")") + 2:st.rfind(")") + 3] != "Z"


def _owner(pid: int) -> int:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return -1


def _data_pipe(text: str) -> int:
    """The read end of a pipe that holds text (small: it fits the pipe's buffer)."""
    r, w = os.pipe()
    try:
        os.write(w, text.encode())
    finally:
        os.close(w)
    return r


