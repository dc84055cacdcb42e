"""What the kernel says about processes, mounts and cgroups: /proc and command outputs, parsed.

It also holds small file helpers and the table of the machine's processes. Part of sandbox.py
(which exports the parse_* functions); no state of its own."""
import os
import re
import signal
from contextlib import suppress
from typing import Dict, List, Optional, Set, Tuple


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
    with suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def _listdir(path: str) -> List[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


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


# ------------------------------------------------------------------------------ processes


def _proc_table() -> Dict[int, Tuple[int, ...]]:
    return _proc_stats(name for name in _listdir("/proc") if name.isdigit())


def _proc_stats(pids) -> Dict[int, Tuple[int, ...]]:
    """The parsed /proc/PID/stat of each of PIDS still there (_proc_table: all of them)."""
    out = {}
    for pid in pids:
        s = parse_proc_stat(_read_or(f"/proc/{pid}/stat"))
        if s:
            out[int(pid)] = s
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
            with suppress(OSError):
                if os.stat(f"/proc/{name}").st_uid == uid:
                    out.add(int(name))
    return out


def _running(pid: int) -> bool:
    """pid exists and is not a zombie."""
    st = _read_or(f"/proc/{pid}/stat")
    return bool(st) and st[st.rfind(")") + 2:st.rfind(")") + 3] != "Z"


def _owner(pid: int) -> int:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return -1
