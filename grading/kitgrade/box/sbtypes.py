"""The sandbox's data: a run's Limits, its Result, the breaches' names, SandboxError.

Part of sandbox.py, which exports all of them."""
from dataclasses import dataclass
from typing import Callable, Optional


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
    # A run on a GPU shared with others: SHARE() says how many runs hold it now (the run
    # included), and a wall-clock second counts as 1/N of one towards wall_s, since the GPU
    # slices its time between the processes' contexts (one of N takes about N times as long
    # as alone), up to wall_most_s however shared.
    share: Optional[Callable[[], int]] = None
    wall_most_s: Optional[float] = None


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
