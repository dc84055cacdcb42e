"""What every part of one grading shares (Ctx): options, lab, rubric, cases, paths, limits.

It also holds each variant's output on the drawn cases and the sandbox. One object, built
once by setup.prepare and read by every task."""
import os
import threading
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ..box.sandbox import Limits
from ..lab.labinfo import Output

MB = 1 << 20


@dataclass
class Ctx:
    opts: object                      # cli.Options
    lab: object                       # build.Lab (as the grader works from it)
    rub: object                       # rubric.Rubric
    info: object                      # labinfo.LabInfo
    cases: list                       # [rubric.Case]
    outputs: Dict[str, dict]          # case name -> {variant: labinfo.Output}
    seed: int
    out: str                          # OUT (absolute)
    home: str                         # a make-safe private folder (work, pristine, stage)
    pristine: str
    checker: str
    cache: str                        # the checker's reference cache (OUT/.cache)
    tmp: str                          # the grader's scratch folder (never seen by a box)
    tools: str = ""                   # the grader's programs (grading/build)
    sandbox: object = None
    clock: str = "cpu"                # cpu | wall | gpu
    cupti_lib: Optional[str] = None   # the injection library, inside the pristine kit
    cuda_arch: str = ""
    slots: List[str] = field(default_factory=list)      # GPU ids (GPU labs)
    ceilings: Dict[str, Dict[str, float]] = field(default_factory=dict)  # slot -> kind -> GB/s
    notes: List[str] = field(default_factory=list)      # limits not enforced, and why
    run_timeout: float = 20.0
    ref_together_s: float = 0.0       # the reference's run of every case took this (seconds)
    stop: threading.Event = field(default_factory=threading.Event)
    ref_na: Dict[tuple, str] = field(default_factory=dict)   # (case, v) the reference refuses
    checks_off: set = field(default_factory=set)   # (variant, status) the reference breaks
    kit_kept: Dict[tuple, int] = field(default_factory=dict)  # (case, v, the process's
    #   items) and (case, v): device bytes the reference's timed runs held at a window from
    #   before it (the kit's; runcheck, over-budget)
    ref_failed: set = field(default_factory=set)   # variants whose reference timed run failed
    wf: object = None                 # workflow.Workflow: roster, git, lateness, exports
    t0: Optional[float] = None        # the grading's start (time.monotonic()), set by schedule
    setup_s: List[tuple] = field(default_factory=list)  # (step, seconds) of the set-up (setup)
    runlog: object = None             # speedloss.RunLog: every run, where and when (schedule)

    def since_start(self, t):
        """Monotonic time T in seconds from the grading's start, for a run's record (None
        before a grading has started)."""
        return round(t - self.t0, 3) if self.t0 is not None else None

    # ---------------------------------------------------------------- limits
    def limits(self, kind, scale=1.0, cpus=None):
        """sandbox.Limits of a build ('build') or a run ('run') on the cores CPUS (a list;
        None: every core of the machine). Without the rubric's cpu_s, the CPU time allowed is
        the wall-clock limit times those cores: an OpenMP run on 16 cores spends 16 CPU
        seconds a second."""
        L = self.rub.limits
        wall = float(L["build"]) if kind == "build" else self.run_timeout * scale
        cpu = L.get("cpu_s")
        cores = len(cpus) if cpus else (os.cpu_count() or 1)
        return Limits(
            wall_s=wall,
            cpu_s=float(cpu) * scale if cpu else wall * max(1, cores) + 5,
            memory_mb=int_or_none(L.get("memory_mb")),
            disk_mb=int_or_none(L.get("disk_mb")),
            nproc=int_or_none(L.get("nproc")),
            file_mb=int_or_none(L.get("output_mb")),
            gpu_memory_mb=int_or_none(L.get("gpu_memory_mb")) if self.lab.gpu else None)

    def limit_value(self, breach):
        """The figure of a limit, for a reason's words."""
        L = self.rub.limits
        return {"timeout": self.run_timeout, "memory-limit": L.get("memory_mb"),
                "disk-limit": L.get("disk_mb"), "process-limit": L.get("nproc"),
                "file-limit": L.get("output_mb"), "cpu-limit": L.get("cpu_s"),
                "gpu-memory-limit": L.get("gpu_memory_mb")}.get(breach, "")

    # ---------------------------------------------------------------- environments
    def env(self, gpu_slot=None, extra=None):
        """The environment of a run in a box."""
        path = "/usr/local/bin:/usr/bin:/bin"
        cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
        if self.lab.gpu:
            path = os.path.join(cuda, "bin") + ":" + path
        env = {"PATH": path, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp"}
        if gpu_slot is not None:
            env["CUDA_VISIBLE_DEVICES"] = str(gpu_slot)
            env["KIT_COPY_CEILING"] = "0"
        if self.cuda_arch:
            env["CUDA_ARCH"] = self.cuda_arch
        env.update(extra or {})
        return env

    def output_of(self, case, v):
        """labinfo.Output of variant V on CASE (an empty one when unknown)."""
        return self.outputs.get(case.name, {}).get(v) or Output()

    def max_output(self, case, v):
        o = self.output_of(case, v)
        return o.size if o.size > 0 else int(self.rub.limits.get("output_mb", 256)) * MB

    def tol(self, vname):
        t = self.rub.tolerance.get(vname)
        return t if t and len(t) == 2 else None


def int_or_none(x):
    """X as an int, None staying None (a record's optional numbers)."""
    return int(x) if x is not None else None
