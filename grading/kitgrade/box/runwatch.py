"""One run in a box, start to end: its first process, the watch, the kill, the Result.

The watch covers wall and CPU time, memory, processes, disk, and GPU memory through
nvidia-smi; every process is killed at the end. Part of sandbox.py: Box.run makes a _Run."""
import json
import math
import os
import re
import resource
import select
import signal
import subprocess
import threading
import time
from contextlib import suppress
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple

from .boxfiles import _under
from .cgroups import _RunCgroup
from .procfs import (_descendants, _kill, _owner, _pids_of_uid, _proc_stats, _proc_table,
                     _read_or, _running, parse_gpu_apps, parse_nspid)
from .sbtypes import MB, Limits, Result, SandboxError


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


class _ShareClock:
    """A run's time limit (Limits.wall_s) on a clock that, on a GPU shared with others
    (Limits.share), counts each second as 1/N of one while N runs hold the GPU, up to
    wall_most_s of wall clock however shared; alone, or without SHARE, the wall clock. A run
    that keeps its cores busy is not waiting for the GPU: the clock is never behind the CPU
    time it used (CPU seconds over its CORES), so a spinning hang still ends at the limit, as a
    timeout, before its CPU limit."""

    def __init__(self, lim, t0, cores=1):
        self.lim, self.t0, self.last, self.used, self.most = lim, t0, t0, 0.0, 1
        self.cores, self.cpu = max(1, cores), 0.0

    def _tick(self, now, cpu_s=None):
        n = 1
        if self.lim.share is not None:
            try:
                n = max(1, int(self.lim.share()))
            except Exception:           # unknown: the wall clock
                n = 1
        self.most = max(self.most, n)
        self.used += max(0.0, now - self.last) / n
        self.last = now
        if cpu_s is not None:
            self.cpu = max(self.cpu, cpu_s / self.cores)
        self.used = max(self.used, self.cpu)

    def left(self, now):
        """Seconds of wall clock before the limit could be reached (at the rate of a run alone)."""
        self._tick(now)
        return max(0.0, self.lim.wall_s - self.used)

    def past(self, now, cpu_s=None):
        """The limit is reached (CPU_S: the run's CPU seconds so far, when known)."""
        self._tick(now, cpu_s)
        most = self.lim.wall_most_s
        return self.used >= self.lim.wall_s or (self.lim.share is not None and most is not None
                                                 and now - self.t0 >= most)

    def why(self, now):
        if self.most <= 1:
            return f"still running after {self.lim.wall_s:g} s (wall clock)"
        return (f"still running after {self.lim.wall_s:g} s of its share of a GPU that up to "
                f"{self.most} runs shared ({now - self.t0:.1f} s of wall clock)")


class _GpuWatch:
    """The GPU memory of one run's processes, from the sandbox's one nvidia-smi poller (a
    poller per run ran nvidia-smi five times a second for each, which with 16 runs at once
    kept the CPUs and the driver busy); calls on_breach once the sum passes the cap."""

    def __init__(self, poller: "_GpuPoller", cap_mb: Optional[int],
                 pids: Callable[[], FrozenSet[int]], on_breach: Callable[[float], None]):
        self.poller, self.cap, self.pids, self.on_breach = poller, cap_mb, pids, on_breach
        self.peak: Optional[float] = None
        self.foreign = False  # nvidia-smi lists pids this machine's /proc does not know
        self.breached = False

    def start(self) -> None:
        self.poller.add(self)

    def close(self) -> None:
        self.poller.remove(self)

    def take(self, apps: Dict[int, float], foreign: bool) -> None:
        """One sample: APPS, nvidia-smi's pid -> MiB."""
        mine = self.pids()
        used = sum(m for pid, m in apps.items() if pid in mine)
        self.foreign = self.foreign or foreign
        self.peak = used if self.peak is None else max(self.peak, used)
        if self.cap is not None and used > self.cap and not self.breached:
            self.breached = True        # once: the kill (up to 2 s) holds up the other runs' samples
            self.on_breach(used)


class _GpuPoller:
    """One thread per sandbox that runs nvidia-smi every INTERVAL_S while a GPU run is being
    watched, and hands each sample to every watch."""

    def __init__(self, smi: str, interval_s: float = 0.2):
        self.smi, self.interval = smi, interval_s
        self.cv = threading.Condition()
        self.watches: List[_GpuWatch] = []
        self.thread: Optional[threading.Thread] = None

    def add(self, w: _GpuWatch) -> None:
        with self.cv:
            self.watches.append(w)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, daemon=True)
                self.thread.start()
            self.cv.notify_all()

    def remove(self, w: _GpuWatch) -> None:
        with self.cv:
            if w in self.watches:
                self.watches.remove(w)

    def sample(self) -> Optional[Tuple[Dict[int, float], bool]]:
        try:
            p = subprocess.run([self.smi, "--query-compute-apps=pid,used_memory",
                                "--format=csv,noheader,nounits"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, timeout=10, env=_CLEAN_ENV)
        except (OSError, subprocess.SubprocessError):
            return None
        if p.returncode != 0:
            return None
        apps = parse_gpu_apps(p.stdout.decode(errors="replace"))
        return apps, any(not os.path.exists(f"/proc/{pid}") for pid in apps)

    def _run(self) -> None:
        while True:
            with self.cv:
                while not self.watches:
                    self.cv.wait()
            time.sleep(self.interval)   # as each run's own poller did: a first sample after it
            with self.cv:
                if not self.watches:
                    continue
            got = self.sample()
            if got is None:
                continue
            with self.cv:
                ws = list(self.watches)
            for w in ws:
                w.take(*got)


class _Run:
    """One command in a box, from start to the last process killed."""

    def __init__(self, box, argv: List[str], cwd: str, env: Dict[str, str], limits: Limits,
                 stdout: str, stderr: str, pass_fds: Tuple[int, ...], cpus: Optional[List[int]]):
        # BOX: a sandbox.Box (not imported here: sandbox imports this module)
        self.box, self.sb = box, box._sb
        self.argv, self.cwd, self.env, self.lim = argv, cwd, env, limits
        self.stdout, self.stderr, self.pass_fds, self.cpus = stdout, stderr, pass_fds, cpus
        self.breach: Optional[str] = None
        self.detail = ""
        self.cpu_now: Optional[float] = None    # CPU seconds at the last sample (_ShareClock)
        self.pid = 0
        self.pids: FrozenSet[int] = frozenset()
        self.seen: Set[int] = set()
        self.starts: Dict[int, int] = {}
        self.extra: Set[int] = set()
        self.mem_peak = 0
        self.cpu_seen_ticks = 0
        self.nproc_seen = False
        self.cg: Optional[_RunCgroup] = None
        self.on_cgroup = None       # called with its cpu.stat's path before the run starts
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
        else:
            env.update(sb.mps_env())    # as root, no daemon's pipes: CUDA goes without MPS
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
            if self.on_cgroup is not None:
                self.on_cgroup(self.cg.cpu_stat() if self.cg else None)
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
        clock = _ShareClock(lim, t0, len(self.cpus) if self.cpus else (os.cpu_count() or 1))
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
            gpu = _GpuWatch(sb.gpu_poller(), cap, lambda: self.pids, self._gpu_breach)
            gpu.start()
        self.gpu = gpu
        tick, last_disk = 0.002, 0.0
        try:
            while True:
                now = time.monotonic()
                wait = max(0.0, min(tick, clock.left(now)))
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
                if self.breach is None and clock.past(now, self.cpu_now):
                    self._set_breach("timeout", clock.why(now))
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
                gpu.close()
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
            # the run's own processes (its cgroup names them): a scan of all of /proc from
            # every run's watcher, many times a second, holds the grader's one interpreter
            # (without a pids controller, 16 runs at once made gradings 8x slower)
            table = _proc_stats(pids) if self.cg else _proc_table()
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
        self.cpu_now = cpu / 1e9 if cpu is not None else None
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
                with suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.pid, signal.SIGKILL)
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
        if ru is not None and "memory" not in self.sb._cg.has:
            # measured, not enforced: a run that ended between two samples still shows its
            # largest process's peak (the kernel's, at the wait), where the run is our child's
            # child; under bwrap's PID namespace the wait sees bwrap's own peak only (a 141 MB
            # hog showed 13.6 MB), and only the samples see the run
            self.mem_peak = max(self.mem_peak, ru.ru_maxrss * 1024)
        mem = cg.mem_bytes(True) if cg else None
        mem_mb = (max(mem or 0, self.mem_peak) / MB) if (mem is not None or self.mem_peak) else None
        gpu_peak = self.gpu.peak if self.gpu else None
        if self.gpu and self.gpu.foreign and self.sb.enforcement.get("gpu_memory_mb") == "measured":
            with self.sb._lock:
                note = "GPU memory: nvidia-smi lists processes of another pid namespace; the run's device memory cannot be matched to it"
                if note not in self.sb.notes:
                    self.sb.notes.append(note)
        # breaches the kernel enforced: found in the cgroup's counters, the signal, the disk
        # A run that hit the process limit is named for it even where memory ran out
        # too: processes that fork in a loop each hold their own copy of a CUDA
        # context, so whether memory or the process count runs out first depends on
        # the machine's load, while the count is the student's doing either way.
        resource_breach = None
        if cg and cg.pids_hits() > 0 and lim.nproc is not None:
            resource_breach = ("process-limit", f"tried to have more than {lim.nproc} processes and threads")
        elif self.nproc_seen:
            resource_breach = ("process-limit", f"reached the limit of {lim.nproc} processes and threads")
        elif cg and cg.oom_kills() > 0 and lim.memory_mb is not None:
            resource_breach = ("memory-limit", f"went past the {lim.memory_mb} MB memory limit and was killed")
        if resource_breach and self.breach in (None, "timeout", "cpu-limit"):
            self.breach, self.detail = resource_breach
        if self.breach is None and lim.memory_mb is not None and "memory" not in self.sb._cg.has \
                and self.mem_peak > lim.memory_mb * MB:
            self._set_breach("memory-limit", f"used {self.mem_peak / MB:.0f} MB of memory at its "
                                             f"peak, the limit is {lim.memory_mb} MB")
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


def _data_pipe(text: str) -> int:
    """The read end of a pipe that holds text (small: it fits the pipe's buffer)."""
    r, w = os.pipe()
    try:
        os.write(w, text.encode())
    finally:
        os.close(w)
    return r
