"""The cgroups of the sandbox's runs (v1 or v2): the grading's own, and one per run.

_CgroupHost finds and prepares the grading's own cgroup once; _RunCgroup is a run's cgroup,
for its limits, accounting and kill. Part of sandbox.py."""
import errno
import itertools
import os
import re
import time
from contextlib import suppress
from typing import Dict, List, Optional, Set, Tuple

from .procfs import (_descendants, _keyed, _kill, _listdir, _proc_stats, _read, _read_or,
                     _write, parse_mountinfo, parse_proc_cgroup)
from .sbtypes import MB, Limits


# ------------------------------------------------------------------------------------ cgroups

_V1_WANTED = ("memory", "pids", "cpuacct", "freezer", "cpuset")
LEAF = "kitgrade-leaf"      # where v2 processes wait that keep our cgroup from handing on


def grading_base(path: str) -> str:
    """The cgroup a grading makes its runs' cgroups in, from the one it runs in: that one, or
    its parent when it is a leaf an earlier grading made (so that no grading nests one more)."""
    return os.path.dirname(path) if os.path.basename(path) == LEAF else path


class _CgroupHost:
    """The cgroups this grading makes its runs' cgroups in: found and prepared once.
    `has` names what works: memory, pids, cpu (accounting), kill (v2 cgroup.kill), freeze,
    cpuset."""

    def __init__(self, want: str = "auto"):
        self.version = 0
        self.parents: Dict[str, str] = {}   # v1: controller -> our folder; v2: '' -> our folder
        self.has: Set[str] = set()
        self.notes: List[str] = []
        self.moves: List[str] = []          # the processes set-up moved, said by the grader
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
        v2_base = grading_base(self._below(v2, own.get(""))) if v2 and "" in own else None
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
        # the freezer first: its thaw lets the other controllers' kills take
        for ctl, base in sorted(bases.items(), key=lambda kv: kv[0] != "freezer"):
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
        room = 0                # processes moved out of BASE: 0 none, 1 ours, 2 every one
        for c in sorted(want - set(_read_or(os.path.join(base, "cgroup.subtree_control")).split())):
            while True:
                try:
                    _write(os.path.join(base, "cgroup.subtree_control"), "+" + c)
                    break
                except OSError as e:
                    if e.errno == errno.EBUSY and room < 2:
                        room += 1
                        self._make_room(base, everyone=room == 2)
                        continue
                    want.discard(c)
                    if c != "cpuset":
                        self.notes.append(f"cgroup v2: cannot hand the {c} controller to the "
                                          f"runs ({e.strerror})")
                    break
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

    def _make_room(self, base: str, everyone: bool) -> None:
        """cgroup v2 hands controllers down only from a cgroup with no processes of its own:
        move this grader's processes out of BASE into the leaf beside the runs' cgroups (made
        once, and used again by every later grading), and only when that is not enough
        (EVERYONE) the processes it did not start too. Each move is said (self.moves)."""
        leaf = os.path.join(base, LEAF)
        os.makedirs(leaf, exist_ok=True)
        here = _cg_procs(base)
        me = os.getpid()
        pids = sorted(here) if everyone else sorted(_descendants(_proc_stats(here), me) or
                                                     ({me} & here))
        moved = []
        for pid in pids:
            try:
                _write(os.path.join(leaf, "cgroup.procs"), str(pid))
                moved.append(pid)
            except OSError:
                pass
        if moved:
            who = ", ".join("%d (%s)" % (p, "this grader" if p == me else
                                         " ".join(_read_or(f"/proc/{p}/comm").split()) or "?")
                            for p in moved)
            self.moves.append(f"cgroup v2: moved {len(moved)} process{'es' * (len(moved) != 1)}"
                              f"{'' if not everyone else ' the grader did not start'} from "
                              f"{base} into {leaf} (a cgroup with processes of its own hands "
                              f"no controller to the runs' cgroups): {who}")

    def new_run(self) -> "_RunCgroup":
        return _RunCgroup(self, f"run-{next(self._seq)}")

    def close(self) -> None:
        for d in set(self.parents.values()):
            _purge_tree(d)


def _cg_procs(d: str) -> Set[int]:
    return {int(x) for x in _read_or(os.path.join(d, "cgroup.procs")).split()}


def _thaw(d: str) -> None:
    """Thaw the cgroup folder d (v1 freezer.state, v2 cgroup.freeze): a frozen process takes
    no SIGKILL, and a grading that died between freezing and thawing a run leaves one."""
    for f, v in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
        with suppress(OSError):
            _write(os.path.join(d, f), v)


def _purge_tree(d: str) -> None:
    """Kill every process in the cgroup folder d and below (thawed first), and remove the
    folders."""
    _thaw(d)
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

    def cpu_stat(self) -> Optional[str]:
        """The file of the CPU time of all the run ran: v2's cpu.stat (its usage_usec), v1's
        cpuacct.usage (nanoseconds, alone); None where no cgroup counts it."""
        if "cpu" not in self.host.has:
            return None
        return self._f("cpuacct", "cpuacct.usage") if self.v == 1 else self._f("", "cpu.stat")

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
