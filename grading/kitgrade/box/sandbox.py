"""Run one untrusted command (a student's build or run) with only what it needs.

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
  link at any step (openat with O_NOFOLLOW from the box's root: base/fsutil.py's walks).
What a machine cannot enforce is said in Sandbox.notes and Sandbox.enforcement.
This file is the interface (Sandbox, Box, and the names below); the work is done in its parts,
the modules of box/ that say "Part of sandbox.py".
"""
import atexit
import glob
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from contextlib import suppress
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from ..base.fsutil import (DIR, _walk, box_mkdir, box_remove, box_write, cap_log, parts,
                           remove_at, why_not)
from . import uidpool
from .boxfiles import (_is_mount, _mount_tmpfs, _mounts_below, _umount, _under, _usage_at,
                       release_mounts_below)
from .bwrapview import _SYSTEM, _BwrapView
from .cgroups import _CgroupHost
from .procfs import (_kill, _listdir, _pids_of_uid, _read_or, parse_gpu_apps, parse_ldconfig,
                     parse_mountinfo, parse_nspid, parse_proc_cgroup, parse_proc_stat)
from .runwatch import _CLEAN_ENV, _GpuPoller, _Run
from .sbtypes import BREACHES, MB, Limits, Result, SandboxError

# the MPS pipe folder the runs and the grader's own GPU programs are given as root, to keep
# them off any daemon (Sandbox._mps_off): none
NO_MPS_DIR = "/nonexistent/kitgrade-no-mps"
# why the runs do not use an MPS daemon that runs, as root
_MPS_OFF_NOTE = ("an MPS daemon runs, but its server serves one user at a time and each box "
                 "has its own, so the runs do not use it")

__all__ = ["Sandbox", "Box", "Limits", "Result", "SandboxError", "BREACHES", "MB",
           "parse_mountinfo", "parse_proc_cgroup", "parse_gpu_apps", "parse_ldconfig", "parse_nspid",
           "parse_proc_stat"]


# ------------------------------------------------------------------------------------ Sandbox

class Sandbox(_BwrapView):
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
        self.moves = list(self._cg.moves)   # processes the cgroup set-up moved (said)
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
        release_mounts_below(self.workroot)
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

    def gpu_poller(self) -> _GpuPoller:
        """The one nvidia-smi poller of this sandbox's GPU runs (made at first use)."""
        with self._poller_lock:
            p = getattr(self, "_poller", None)
            if p is None or p.smi != self._smi:
                p = self._poller = _GpuPoller(self._smi)
            return p

    def _gpu_setup(self) -> None:
        self._poller_lock = threading.Lock()
        self._gpu_nodes: List[str] = []
        self._gpu_dirs: List[str] = []
        self._mps_dir: Optional[str] = None   # the MPS daemon's pipes, where the runs use it
        self._mps_off = False                  # as root: runs and tools kept off any daemon
        self._mps_seen = False                 # a daemon was seen running
        self._smi = shutil.which("nvidia-smi") if self.gpu else None
        if not self.gpu:
            return
        self._gpu_nodes = sorted(glob.glob("/dev/nvidia*"))
        libs = []
        with suppress(OSError):
            libs = parse_ldconfig(subprocess.run(["ldconfig", "-p"], stdout=subprocess.PIPE,
                                                 stderr=subprocess.DEVNULL, env=_CLEAN_ENV).stdout.decode(errors="replace"))
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
        # An MPS daemon that already runs gives a per-client device memory limit, but its server
        # serves one user at a time: a client of another user waits until that server has no
        # client left (a class graded as root beside a daemon had no run end in 300 s). So it
        # is used only where every run has the grader's own user. As root (a user a box) the
        # runs and the grader's own GPU programs (mps_env) are kept off any daemon, seen or
        # not: one in another namespace is not seen in /proc.
        pipe = os.environ.get("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps")
        daemon = any(_read_or(f"/proc/{n}/comm").startswith("nvidia-cuda-mps")
                     for n in _listdir("/proc") if n.isdigit())
        self._mps_seen = daemon and os.path.exists(os.path.join(pipe, "control"))
        if self.as_root:
            self._mps_off = True
            if self._mps_seen:
                self._check_compute_mode()
        elif self._mps_seen:
            self._mps_dir = pipe

    def _check_compute_mode(self) -> None:
        """A GPU kept for the MPS server alone (exclusive-process mode) takes no run that
        keeps off it: said in one line, not seen as every student's runtime error."""
        if not self._smi:
            return
        try:
            p = subprocess.run([self._smi, "--query-gpu=index,compute_mode", "--format=csv,noheader"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=20,
                               env=_CLEAN_ENV)
        except (OSError, subprocess.TimeoutExpired):
            return
        excl = [ln.split(",")[0].strip() for ln in p.stdout.decode(errors="replace").splitlines()
                if "exclusive_process" in ln.lower().replace(" ", "_")]
        if excl:
            raise SandboxError("GPU %s in exclusive-process mode for the MPS daemon that runs, and "
                               "as root the runs keep off MPS (its server serves one user at a "
                               "time): set the default mode (nvidia-smi -c DEFAULT) or stop the "
                               "daemon" % ", ".join(x for x in excl if x.isdigit()))

    def mps_env(self) -> Dict[str, str]:
        """What the grader's own GPU programs (the copy ceilings, the holds) add to their
        environment: as root, no MPS (a root client would keep every other user's off it)."""
        return {"CUDA_MPS_PIPE_DIRECTORY": NO_MPS_DIR} if self.gpu and self._mps_off else {}

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
        e["nproc"] = "kernel"  # the pids cgroup, or else RLIMIT_NPROC
        if "pids" not in has:
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
            why = _MPS_OFF_NOTE if self._mps_seen and self._mps_off else "no MPS daemon runs"
            n.append("GPU memory: %s; the device memory of a run's processes is measured with "
                     "nvidia-smi every 0.2 s and the run stopped past the limit" % why)
        else:
            e["gpu_memory_mb"] = "none"
            why = (_MPS_OFF_NOTE + ", and no nvidia-smi here" if self._mps_seen and self._mps_off
                   else "neither MPS nor nvidia-smi here")
            n.append("GPU memory: %s; device memory is not limited" % why)
        if not self.as_root:
            n.append("not root: every box runs as the grader's own user")
        if self.kind == "none" and self.as_root:
            n.append("no sandbox: a box user can leave files in world-writable folders (/tmp, "
                     "/dev/shm) that a later box with the same id could read")

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
            closed = self._closed
            if not closed:
                self._boxes[name] = b
        if closed:                      # closed or let go while it was made (release_mounts)
            b.close()
            raise SandboxError("the sandbox is closed")
        return b

    def close(self) -> None:
        with self._lock:
            boxes, self._closed = list(self._boxes.values()), True
        for b in boxes:
            b.close()
        self._cg.close()
        if hasattr(self, "_owner_pid"):
            atexit.unregister(self._at_exit)

    def release_mounts(self) -> None:
        """Detach every mount below the box folders, best effort: what a grading that ends at
        once (interrupted, its boxes not closed) would leave until the next grading of the
        folder. No box is made after it: one made meanwhile closes itself."""
        with self._lock:
            self._closed = True
        release_mounts_below(self.workroot)


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

    # ---- safe file access (base/fsutil.py's walks: no link followed at any step; a link or
    # a file where a folder should be is an OSError here, never replaced)
    def read_file(self, rel: str, max_bytes: int) -> Tuple[Optional[bytes], str]:
        """The content of the regular file rel (no link followed at any step, at most max_bytes),
        or (None, why)."""
        try:
            names = parts(rel)
            if not names:
                raise ValueError("an empty path names the box itself")
            dfd = _walk(self.root, names[:-1])
        except ValueError as e:
            return None, str(e)
        except OSError as e:
            return None, f"{rel}: {why_not(e)}"
        try:
            fd = os.open(names[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, dir_fd=dfd)
        except OSError as e:
            return None, f"{rel}: {why_not(e)}"
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
            fd = _walk(self.root, parts(rel))
        except (OSError, ValueError):
            return None
        try:
            return sorted(os.listdir(fd))
        finally:
            os.close(fd)

    def mkdir(self, rel: str) -> Path:
        """Make folder rel (and those above it) for the box user, following no link; its path."""
        box_mkdir(self.root, rel, uid=self.uid, replace=False)
        return self.root.joinpath(*parts(rel))

    def write_file(self, rel: str, data: bytes, mode: int = 0o644) -> Path:
        """Put a file in the box (whatever had its name is removed first, links not followed).
        It stays the grader's: the box user can read it, not change it."""
        box_write(self.root, rel, data, uid=self.uid, mode=mode, replace=False)
        return self.root.joinpath(*parts(rel))

    def remove(self, rel: str) -> None:
        """Remove rel and everything under it, following no link (a link is removed itself)."""
        box_remove(self.root, rel)

    def disk_used_mb(self) -> float:
        if self._mounted:
            s = os.statvfs(self.root)
            return (s.f_blocks - s.f_bfree) * s.f_frsize / MB
        fd = os.open(self.root, DIR)
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
            cpus: Optional[List[int]] = None, on_cgroup=None) -> Result:
        """Run argv in the box: working folder cwd (as seen inside), exactly the environment
        env, stdin /dev/null, stdout and stderr appended to the grader's files (the same path
        twice: one file; cut to their first and last 512 KB after it: fsutil.cap_log), the
        descriptors pass_fds inherited, pinned to cpus when given. Every
        process of the run is gone when it returns. ON_CGROUP, when given, is called before
        the run starts with the path of its cgroup's cpu.stat (None without a v2 cgroup)."""
        if self.closed:
            raise SandboxError(f"box '{self.name}' is closed")
        with self._run_lock:
            r = _Run(self, [str(a) for a in argv], str(cwd), dict(env), limits, str(stdout),
                     str(stderr), tuple(pass_fds), cpus)
            r.on_cgroup = on_cgroup
            try:
                return r.go()
            finally:                    # what it wrote there: a few MB, not output_mb a file
                for f in {str(stdout), str(stderr)}:
                    cap_log(f)

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
        wfd = os.open(self._sb.workroot, DIR)
        try:
            remove_at(wfd, self.name)
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
