"""Tests of kitgrade.box.sandbox's limits beyond one run (test_sandbox.py has the runs and files):
cgroup v2 accounting, the GPU-memory cap (faked nvidia-smi, and a real CUDA program where there
is a GPU), a stale frozen run of a dead grading, two gradings at once, and the process limit
where no pids controller is. A test whose mechanism this machine lacks skips and says why."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest
from pathlib import Path

import test_sandbox
from test_sandbox import (GRADING, NO_BWRAP, PY, ROOT, UID_BASE, UID_LOCKS, Base, Limits,  # noqa: F401
                          Sandbox, SandboxError, UidPool, box_users, sbx)


def v2_unified():
    """A cgroup v2 hierarchy this test may make cgroups in (this machine: the hybrid one)."""
    if not ROOT:
        return "cgroup v2 here needs root"
    for mp, _, fs, _ in sbx.parse_mountinfo(sbx._read_or("/proc/self/mountinfo")):
        if fs == "cgroup2":
            return "" if os.path.exists(os.path.join(mp, "cgroup.procs")) else f"{mp} has no cgroup.procs"
    return "no cgroup v2 hierarchy is mounted here"


@unittest.skipIf(v2_unified(), v2_unified())
class CgroupV2Test(Base):
    """The cgroup v2 code on whatever v2 hierarchy this machine has: kill (cgroup.kill or freeze),
    CPU accounting (cpu.stat); memory and pids where its controllers are."""
    mode = "none" if NO_BWRAP else "bwrap"
    cgroup = "v2"

    def test_cpu_of_every_process_and_kill(self):
        self.assertEqual(self.sb._cg.version, 2)
        token = f"kitsb-v2-{os.getpid()}-{time.monotonic_ns()}"
        r, out = self.run_sh(f"(setsid sh -c 'sleep 30; echo {token}' &); "
                             f"(while :; do :; done) & while :; do :; done", cpu_s=0.8, wall_s=60)
        self.assertEqual(r.breach, "cpu-limit", (r, out))
        self.assertGreaterEqual(r.cpu_ms, 700)
        time.sleep(0.1)
        self.assertNothingLeft(token)

    def test_memory(self):
        """128 MB under a 64 MB limit: killed where the kernel enforces it, caught by the
        watcher's samples where memory is only measured (this machine's v2 hierarchy has no
        memory controller). Held for a second: a hog that exits within one sample, on a
        machine busy with the other test files, was seen at 55 MB (a clean clone's make test)."""
        self.need("memory_mb")
        r, out = self.run_py("""
            import time
            chunks = [b"x" * (4 << 20) for i in range(32)]
            print("ALLOCATED", flush=True)
            time.sleep(1.5)
        """, memory_mb=64)
        self.assertEqual(r.breach, "memory-limit", (r, out))

    def test_run_cgroups_are_removed(self):
        self.run_sh("true")
        parent = self.sb._cg.parents[""]
        self.assertEqual([d for d in os.listdir(parent) if d.startswith("run-")], [])
        self.sb.close()
        self.assertFalse(os.path.exists(parent))


FAKE_SMI = """#!/bin/sh
# nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits, as a GPU machine
# would print it: every shell whose command line holds the token uses 2048 MiB
for f in $(grep -l -a kitsb-gpu-hog /proc/[0-9]*/cmdline 2>/dev/null); do
    if [ "$(head -c 2 "$f")" = sh ]; then d=${f%/cmdline}; echo "${d#/proc/}, 2048"; fi
done
echo "1, [N/A]"
"""


class GpuBase(Base):
    """Base's test with a GPU sandbox instead (its box "gpu", of gpu_disk_mb)."""
    mode = "none" if NO_BWRAP else "bwrap"
    gpu_disk_mb = 16

    def setUp(self):
        super().setUp()
        self.sb.close()
        self.sb = Sandbox(self.mode, ro_paths=[], gpu=True, as_root=ROOT, workroot=self.tmp / "work2",
                          uid_pool=box_users())
        self.addCleanup(self.sb.close)
        self.box = self.sb.box("gpu", self.gpu_disk_mb)


class GpuMemoryTest(GpuBase):
    """The GPU memory paths without a GPU: nvidia-smi is a script that reports 2048 MiB for the
    run's process; with MPS the client limit reaches the run."""

    def setUp(self):
        super().setUp()
        smi = self.tmp / "nvidia-smi"
        smi.write_text(FAKE_SMI)
        os.chmod(smi, 0o755)
        self.sb._smi = str(smi)
        self.sb._mps_dir = None

    def test_measured_past_the_cap(self):
        t0 = time.monotonic()
        r, out = self.run_sh("sleep 20; echo kitsb-gpu-hog", gpu_memory_mb=1024, wall_s=30)
        self.assertEqual(r.breach, "gpu-memory-limit", r)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertGreaterEqual(r.gpu_mem_peak_mb, 2048)
        self.assertIn("2048 MiB", r.detail)

    def test_measured_under_the_cap(self):
        r, out = self.run_sh("sleep 2; echo kitsb-gpu-hog", gpu_memory_mb=4096)
        self.assertIsNone(r.breach, r)
        self.assertEqual(r.gpu_mem_peak_mb, 2048)

    def test_one_poller_for_runs_at_once(self):
        """Two GPU runs at once share the sandbox's one nvidia-smi poller: both see their
        processes' memory, and nvidia-smi runs about as often as for one run (five times a
        second), not twice as often."""
        count = self.tmp / "smi-calls"
        smi = self.tmp / "nvidia-smi"
        smi.write_text(FAKE_SMI.replace("#!/bin/sh\n", "#!/bin/sh\necho >>%s\n" % count, 1))
        self.sb._smi = str(smi)
        box2 = self.sb.box("gpu2", self.gpu_disk_mb)
        res = {}

        def run(name, box):
            log = self.out / ("%s.log" % name)
            res[name] = box.run(["sh", "-c", "sleep 3; echo kitsb-gpu-hog"], cwd=box.root,
                                env=self.env(), limits=Limits(wall_s=20, gpu_memory_mb=4096),
                                stdout=log, stderr=log)
        ts = [threading.Thread(target=run, args=(n, b)) for n, b in (("a", self.box), ("b", box2))]
        for t in ts:
            t.start()
        for t in ts:
            t.join(30)
        for n in "ab":
            self.assertIsNone(res[n].breach, res[n])
            self.assertEqual(res[n].gpu_mem_peak_mb, 2048)
        calls = len(count.read_text().splitlines())
        self.assertGreaterEqual(calls, 2)
        self.assertLessEqual(calls, 20)     # a poller each: about 30

    def test_mps_client_limit_is_handed_to_the_run(self):
        mps = self.tmp / "mps"
        mps.mkdir()
        (mps / "control").write_text("")
        os.chmod(mps, 0o755)
        self.sb._mps_dir = str(mps)
        r, out = self.run_sh("echo L=$CUDA_MPS_PINNED_DEVICE_MEM_LIMIT D=$CUDA_MPS_PIPE_DIRECTORY; ls $CUDA_MPS_PIPE_DIRECTORY",
                             gpu_memory_mb=512)
        self.assertIn(f"L=0=512M D={mps}", out)
        self.assertIn("control", out)

    def test_runs_kept_off_a_daemon_they_must_not_use(self):
        """As root each box has its own user, and an MPS server serves one user at a time: the
        runs are pointed at no pipe folder, so CUDA goes without MPS, and get no client limit."""
        self.sb._mps_dir, self.sb._mps_off = None, True
        r, out = self.run_sh("echo L=$CUDA_MPS_PINNED_DEVICE_MEM_LIMIT D=$CUDA_MPS_PIPE_DIRECTORY; "
                             "ls $CUDA_MPS_PIPE_DIRECTORY || echo none", gpu_memory_mb=512)
        self.assertIn("L= D=/nonexistent/kitgrade-no-mps", out)
        self.assertIn("none", out)

    def test_the_graders_own_gpu_programs_kept_off_too(self):
        """The copy ceilings and the holds run as the grader: as root they keep off MPS too (a
        root client would keep every other user's off it for the whole grading)."""
        self.sb._mps_off = True
        self.assertEqual(self.sb.mps_env(), {"CUDA_MPS_PIPE_DIRECTORY": "/nonexistent/kitgrade-no-mps"})
        self.sb._mps_off = False
        self.assertEqual(self.sb.mps_env(), {})

    def test_exclusive_process_gpus_refused_in_one_line(self):
        """Beside an MPS daemon whose GPUs are in exclusive-process mode no run could use the
        GPU outside MPS: the grading is refused, the GPUs named; the default mode passes."""
        smi = self.tmp / "nvidia-smi-mode"
        smi.write_text("#!/bin/sh\necho '0, Default'\necho '1, Exclusive_Process'\n")
        os.chmod(smi, 0o755)
        self.sb._smi = str(smi)
        with self.assertRaisesRegex(SandboxError, r"^GPU 1 in exclusive-process mode .*nvidia-smi -c DEFAULT"):
            self.sb._check_compute_mode()
        smi.write_text("#!/bin/sh\necho '0, Default'\n")
        self.sb._check_compute_mode()

    def test_the_note_names_a_daemon_the_runs_keep_off(self):
        self.sb._mps_off, self.sb._mps_seen, self.sb._mps_dir = True, True, None
        self.sb.notes = []
        self.sb._decide_enforcement()
        self.assertEqual(self.sb.enforcement["gpu_memory_mb"], "measured")
        self.assertTrue(any("an MPS daemon runs, but its server serves one user at a time" in n
                            and "measured with nvidia-smi" in n for n in self.sb.notes), self.sb.notes)
        self.sb._mps_seen, self.sb.notes = False, []
        self.sb._decide_enforcement()
        self.assertTrue(any(n.startswith("GPU memory: no MPS daemon runs") for n in self.sb.notes))


CUDA_PROG = r"""
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cuda_runtime.h>

__device__ int d_flag; /* nobody sets it */

__global__ void spin(void)
{
    while (*(volatile int *)&d_flag == 0) {
    }
}

__global__ void fill(int *p, size_t n)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = 1;
}

/* gpu-test MIB [spin]: holds MIB MiB of device memory for a second, or spins for ever */
int main(int argc, char **argv)
{
    const size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
    const size_t n = (mib << 20) / sizeof(int);
    int *d = NULL;
    cudaError_t e = cudaMalloc(&d, n ? n * sizeof(int) : sizeof(int));
    if (e != cudaSuccess) {
        printf("cudaMalloc: %s\n", cudaGetErrorString(e));
        return 3;
    }
    if (n)
        fill<<<(unsigned)((n + 255) / 256), 256>>>(d, n);
    if (argc > 2)
        spin<<<1, 1>>>();
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("kernel: %s\n", cudaGetErrorString(e));
        return 3;
    }
    printf("gpu ok\n");
    fflush(stdout);
    if (mib)
        sleep(1);
    return 0;
}
"""


def gpu_here():
    smi, nvcc = shutil.which("nvidia-smi"), shutil.which("nvcc", path=os.environ.get("PATH", "") + ":/usr/local/cuda/bin")
    if not smi or not nvcc:
        return "no nvidia-smi or nvcc here"
    p = subprocess.run([smi, "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return "" if "GPU " in p.stdout else "no GPU here (nvidia-smi -L lists none)"


@unittest.skipIf(gpu_here(), gpu_here())
class RealGpuTest(GpuBase):
    """On a GPU machine: a CUDA program runs in the sandbox, a device memory hog is stopped, an
    endless kernel is killed at the wall limit and the GPU serves the next run."""
    gpu_disk_mb = 64

    def setUp(self):
        super().setUp()
        src = self.tmp / "gpu-test.cu"
        src.write_text(CUDA_PROG)
        nvcc = shutil.which("nvcc", path=os.environ.get("PATH", "") + ":/usr/local/cuda/bin")
        exe = self.tmp / "gpu-test"
        p = subprocess.run([nvcc, "-arch=native", "-o", str(exe), str(src)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.exe = str(self.box.write_file("gpu-test", exe.read_bytes(), mode=0o755))

    def env(self):
        e = super().env()
        e["CUDA_VISIBLE_DEVICES"] = "0"
        return e

    def test_a_cuda_program_runs(self):
        r, out = self.run_argv([self.exe, "64"], wall_s=60)
        self.assertEqual((r.rc, r.breach), (0, None), (r, out))
        self.assertIn("gpu ok", out)
        if self.sb.enforcement["gpu_memory_mb"] == "measured":
            self.assertGreaterEqual(r.gpu_mem_peak_mb or 0, 64)

    def test_device_memory_past_the_cap(self):
        self.need("gpu_memory_mb")
        r, out = self.run_argv([self.exe, "2048"], gpu_memory_mb=1024, wall_s=60)
        if self.sb._mps_dir:  # the MPS client limit: the allocation itself fails
            self.assertIn("cudaMalloc", out)
        else:
            self.assertEqual(r.breach, "gpu-memory-limit", (r, out))
            self.assertGreater(r.gpu_mem_peak_mb, 1024)

    def test_endless_kernel_then_the_next_run(self):
        t0 = time.monotonic()
        r, out = self.run_argv([self.exe, "0", "spin"], wall_s=5)
        self.assertEqual(r.breach, "timeout", (r, out))
        self.assertLess(time.monotonic() - t0, 60)
        r, out = self.run_argv([self.exe, "0"], wall_s=60)
        self.assertEqual((r.rc, r.breach), (0, None), (r, out))
        self.assertIn("gpu ok", out)


V1_FREEZER = "/sys/fs/cgroup/freezer"


@unittest.skipUnless(ROOT and os.path.isfile(os.path.join(V1_FREEZER, "cgroup.procs")),
                     "needs root and a cgroup v1 freezer")
class StaleFrozenRunTest(unittest.TestCase):
    """A grading killed between freezing a run and thawing it (scancel, kill -9) leaves a frozen
    process, which takes no SIGKILL: the next grading thaws it, kills it and removes its
    cgroups, at once."""

    def test_thawed_killed_removed(self):
        from kitgrade.box import cgroups
        name = "kitgrade-%d-1" % (2 ** 22 + 7)        # a pid past pid_max: a dead grading
        dirs = [os.path.join("/sys/fs/cgroup", c, name) for c in ("freezer", "pids")]
        p = subprocess.Popen(["sleep", "60"])
        self.addCleanup(p.kill)
        for d in dirs:
            os.makedirs(os.path.join(d, "run-1"))
            with open(os.path.join(d, "run-1", "cgroup.procs"), "w") as f:
                f.write(str(p.pid))
        with open(os.path.join(dirs[0], "run-1", "freezer.state"), "w") as f:
            f.write("FROZEN")
        t0 = time.monotonic()
        host = cgroups._CgroupHost("v1")
        host.close()
        self.assertLess(time.monotonic() - t0, 1.5)
        self.assertEqual(p.wait(timeout=5), -signal.SIGKILL)
        for d in dirs:
            self.assertFalse(os.path.exists(d), d)


@unittest.skipUnless(ROOT, "starting processes as another user needs root")
class TwoGradingsTest(unittest.TestCase):
    """Two gradings (two processes, one machine) give their boxes different users."""

    def test_disjoint_uids(self):
        tmp = Path(tempfile.mkdtemp(prefix="kitsb2-"))
        os.chmod(tmp, 0o755)
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        code = textwrap.dedent("""
            import sys
            sys.path.insert(0, sys.argv[1])
            from pathlib import Path
            from kitgrade.box.sandbox import Sandbox
            from kitgrade.box.uidpool import UidPool
            sb = Sandbox("none", ro_paths=[], gpu=False, as_root=True, workroot=Path(sys.argv[2]),
                         uid_pool=UidPool(Path(sys.argv[3]), base=int(sys.argv[4])))
            boxes = [sb.box("s%d" % i, 1) for i in range(3)]
            print(" ".join(str(b.uid) for b in boxes), flush=True)
            sys.stdin.read()
            sb.close()
        """)
        procs, seen = [], []
        for k in range(2):
            p = subprocess.Popen([sys.executable, "-c", code, str(GRADING), str(tmp / f"work{k}"),
                                  str(UID_LOCKS), str(UID_BASE)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
            procs.append(p)
            seen.append({int(x) for x in p.stdout.readline().split()})
        for p in procs:
            p.stdin.close()
            p.wait(timeout=20)
        self.assertEqual([len(s) for s in seen], [3, 3])
        self.assertFalse(seen[0] & seen[1])
        self.assertEqual(os.listdir(tmp / "work0"), [])


class NoPidsControllerTest(Base):
    """As on a machine whose cgroups have no pids controller (the H100's and H200's): the
    process limit is RLIMIT_NPROC's, and the grader counts the run's processes itself."""
    mode = "bwrap"

    def setUp(self):
        super().setUp()
        self.need("nproc")
        self.need_cgroup("pids")
        self.sb._cg.has.discard("pids")
        self.addCleanup(self.sb._cg.has.add, "pids")

    def test_fork_bomb(self):
        """The processes are counted from the run's cgroup's list, and the limit still holds."""
        test_sandbox.RunTest.test_fork_bomb(self)

    def test_forks_then_runs_out_of_memory(self):
        """A run that reaches the process limit, then is killed for its memory (lab 03's
        fork-loop example on the H200: each fork holds a copy of a CUDA context): the breach is
        the process limit's, the student's doing either way."""
        self.need("memory_mb")
        if self.sb.enforcement.get("memory_mb") != "kernel":
            self.skipTest("memory is measured here, not enforced by the kernel")
        r, out = self.run_py("""
            import os, time
            for i in range(200):
                try:
                    if os.fork() == 0:
                        time.sleep(30)
                        os._exit(0)
                except OSError:
                    break
            time.sleep(0.3)
            chunks = [b"x" * (4 << 20) for i in range(64)]
            time.sleep(1)
        """, nproc=32, memory_mb=128)
        self.assertEqual(r.breach, "process-limit", (r, out))
        self.assertNothingLeft("time.sleep(30)")


class NoPidsControllerNoSandboxTest(NoPidsControllerTest):
    """The same without bubblewrap (--sandbox none)."""
    mode = "none"
