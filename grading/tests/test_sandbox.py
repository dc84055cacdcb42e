"""Tests of kitgrade.box.sandbox: what a run sees, its limits, and the trusted side's file access.

Run from grading/: python3 -m unittest discover -s tests -p 'test_sandbox*.py'
As root, NormalUserTest also runs the tests below as an unprivileged user (nobody). A test whose
mechanism this machine lacks skips and says why. Every hog exceeds a small limit (64 MB memory,
16 MB disk, 32 processes, a second or two) about twice, so a broken limit costs little.
"""
import errno
import json
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

GRADING = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(GRADING))

from kitgrade.box import sandbox as sbx  # noqa: E402
from kitgrade.box.sandbox import Limits, Sandbox, SandboxError  # noqa: E402
from kitgrade.box.uidpool import UidPool  # noqa: E402

ROOT = os.geteuid() == 0
UID_BASE = 62100  # away from a real grading's ids
# one lock folder for every run of these tests on the machine, so that two at once (or a test
# and the grader's own tests) never hand out the same id
UID_LOCKS = Path(tempfile.gettempdir()) / "kitgrade-test-uids"


def box_users():
    return UidPool(UID_LOCKS, base=UID_BASE) if ROOT else None
# a Python every box can run (the one running the tests may live in a home folder)
PY = shutil.which("python3", path="/usr/bin:/bin")
# set when NormalUserTest runs this file again as nobody
AS_NOBODY = os.environ.get("KITGRADE_TEST_AS_NOBODY") == "1"


def has_bwrap():
    if not shutil.which("bwrap"):
        return "bubblewrap (bwrap) is not installed"
    try:
        with tempfile.TemporaryDirectory() as t:
            os.chmod(t, 0o755)
            Sandbox("bwrap", ro_paths=[], gpu=False, as_root=ROOT, workroot=Path(t) / "w",
                    uid_pool=box_users()).close()
    except SandboxError as e:
        return str(e)
    return ""


NO_BWRAP = has_bwrap()


class Base(unittest.TestCase):
    """A fresh sandbox and one box of 16 MB per test."""
    mode = "auto"
    cgroup = "auto"
    disk_mb = 16

    def setUp(self):
        if self.mode == "bwrap" and NO_BWRAP:
            self.skipTest(NO_BWRAP)
        self.tmp = Path(tempfile.mkdtemp(prefix="kitsb-"))
        os.chmod(self.tmp, 0o755)
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.out = self.tmp / "OUT"  # the grader's side: logs, the pristine kit, results
        (self.out / "pristine").mkdir(parents=True)
        (self.out / "pristine" / "kit.txt").write_text("the pristine kit\n")
        (self.out / "grades.csv").write_text("alice,100\n")
        self.subs = self.tmp / "submissions"
        (self.subs / "bob").mkdir(parents=True)
        (self.subs / "bob" / "conv.c").write_text("bob's work\n")
        self.sb = Sandbox(self.mode, ro_paths=[self.out / "pristine"], gpu=False, as_root=ROOT,
                          workroot=self.tmp / "work", cgroup=self.cgroup,
                          uid_pool=box_users())
        self.addCleanup(self.sb.close)
        self.box = self.sb.box("alice", self.disk_mb)
        self.n = 0

    def env(self):
        return {"PATH": "/usr/bin:/bin", "HOME": str(self.box.root), "LANG": "C.UTF-8",
                "TMPDIR": "/tmp"}

    def run_sh(self, script, pass_fds=(), cwd=None, **limits):
        """Runs sh -c SCRIPT in the box; (Result, what it printed)."""
        return self.run_argv(["sh", "-c", script], pass_fds=pass_fds, cwd=cwd, **limits)

    def run_py(self, code, **limits):
        if not PY:
            self.skipTest("no python3 in /usr/bin or /bin for the box to run")
        return self.run_argv([PY, "-c", textwrap.dedent(code)], **limits)

    def run_argv(self, argv, pass_fds=(), cwd=None, **limits):
        limits.setdefault("wall_s", 10)
        self.n += 1
        log = self.out / f"run{self.n}.log"
        r = self.box.run(argv, cwd=cwd or self.box.root, env=self.env(), limits=Limits(**limits),
                         stdout=log, stderr=log, pass_fds=pass_fds)
        return r, log.read_text(errors="replace") if log.exists() else ""

    def need(self, limit, how=("kernel", "measured")):
        if self.sb.enforcement.get(limit) not in how:
            self.skipTest(f"{limit} is not enforced here: " + " ".join(self.sb.notes))

    def need_cgroup(self, what):
        if what not in self.sb._cg.has:
            self.skipTest(f"no {what} cgroup here: " + " ".join(self.sb._cg.notes or ["not root?"]))

    def assertNothingLeft(self, token):
        """No process whose command line holds token runs any more."""
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/cmdline", "rb") as f:
                        self.assertNotIn(token.encode(), f.read(), f"process {name} is still running")
                except OSError:
                    pass


def kill_token(token):
    """Kill the processes of this test whose command line holds token."""
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    if token.encode() in f.read():
                        os.killpg(os.getpgid(int(name)), signal.SIGKILL)
            except OSError:
                pass


# ------------------------------------------------------------------------ parsing, no processes

class ParseTest(unittest.TestCase):
    def test_nvidia_smi_compute_apps(self):
        # captured from `nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits`
        text = "1834, 517\n2210, 81920\n2210, 12\n99, [N/A]\nNo running processes found\n\n"
        self.assertEqual(sbx.parse_gpu_apps(text), {1834: 517.0, 2210: 81932.0})
        self.assertEqual(sbx.parse_gpu_apps(""), {})

    def test_gpu_watch_samples(self):
        """A run's GPU memory from the shared poller's samples: only its own processes count,
        the peak is kept, a pid /proc does not know is noted, and a breach is called once."""
        from kitgrade.box.runwatch import _GpuWatch
        calls = []
        w = _GpuWatch(None, 1000, lambda: frozenset({10, 11}), calls.append)
        w.take({10: 300.0, 11: 200.0, 12: 5000.0}, False)
        self.assertEqual((w.peak, w.foreign, calls), (500.0, False, []))
        w.take({10: 900.0, 11: 200.0}, True)
        w.take({10: 1500.0}, False)
        self.assertEqual((w.peak, w.foreign, calls), (1500.0, True, [1100.0]))

    def test_ldconfig_driver_libraries(self):
        text = ("1234 libs found in cache `/etc/ld.so.cache'\n"
                "\tlibcuda.so.1 (libc6,x86-64) => /usr/local/nvidia/lib64/libcuda.so.1\n"
                "\tlibcudart.so.13 (libc6,x86-64) => /usr/local/cuda/lib64/libcudart.so.13\n"
                "\tlibnvidia-ml.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1\n"
                "\tlibc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6\n")
        self.assertEqual(sbx.parse_ldconfig(text), ["/usr/local/nvidia/lib64/libcuda.so.1",
                                                    "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"])

    def test_proc_cgroup_v1_and_v2(self):
        text = "9:name=systemd:/\n4:memory:/grading/x\n2:cpu,cpuacct:/c\n0::/user.slice/a.scope\n"
        got = sbx.parse_proc_cgroup(text)
        self.assertEqual(got["memory"], "/grading/x")
        self.assertEqual(got["cpuacct"], "/c")
        self.assertEqual(got["cpu"], "/c")
        self.assertEqual(got[""], "/user.slice/a.scope")

    def test_mountinfo(self):
        text = ("35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
                "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
                "90 23 0:50 / /srv/with\\040space rw shared:5 - tmpfs kitbox rw,size=16384k\n")
        got = sbx.parse_mountinfo(text)
        self.assertEqual(got[0], ("/sys/fs/cgroup/memory", "/", "cgroup", ["rw", "memory"]))
        self.assertEqual(got[1][2], "cgroup2")
        self.assertEqual(got[2][0], "/srv/with space")

    def test_nspid_and_stat(self):
        self.assertEqual(sbx.parse_nspid("Name:\tsh\nNSpid:\t4242\t2\n"), [4242, 2])
        stat_line = ("77 (a (weird) name) S 70 77 77 0 -1 4194560 100 0 0 0 30 12 5 3 20 0 3 0 "
                     "12345 1000000 250 18446744073709551615")
        self.assertEqual(sbx.parse_proc_stat(stat_line), (70, 77, 50, 3, 250, 12345))


# ------------------------------------------------------------- the trusted side's file access

class FileTest(Base):
    """Box.read_file, mkdir, write_file, remove and close never follow what the run made."""
    mode = "none" if NO_BWRAP else "auto"

    def test_reads_a_regular_file(self):
        self.box.write_file("d/v1.bin", b"\x01\x02\x03")
        self.assertEqual(self.box.read_file("d/v1.bin", 10), (b"\x01\x02\x03", ""))
        self.assertEqual(self.box.read_file("./d//v1.bin", 10)[0], b"\x01\x02\x03")

    def test_refuses_links_fifos_folders_big_files_and_escapes(self):
        secret = self.tmp / "reference.bin"
        secret.write_bytes(b"the reference's output")
        r, out = self.run_sh(f"mkdir -p run/c && ln -s {secret} run/c/v1.bin && ln -s /tmp up && "
                             f"ln -s {self.tmp} run/link && mkfifo run/c/fifo && "
                             f"head -c 100 /dev/zero > run/c/big && mkdir run/c/v2.bin && echo done")
        self.assertIn("done", out)
        data, why = self.box.read_file("run/c/v1.bin", 100)
        self.assertIsNone(data)
        self.assertIn("symbolic link", why)
        self.assertIsNone(self.box.read_file("run/link/reference.bin", 100)[0])
        self.assertIsNone(self.box.read_file("up/x", 100)[0])
        t0 = time.monotonic()
        self.assertIsNone(self.box.read_file("run/c/fifo", 100)[0])  # and does not wait for a writer
        self.assertLess(time.monotonic() - t0, 2)
        self.assertIn("more than", self.box.read_file("run/c/big", 99)[1])
        self.assertEqual(len(self.box.read_file("run/c/big", 100)[0]), 100)
        self.assertIn("not a regular file", self.box.read_file("run/c/v2.bin", 100)[1])
        for bad in ("../alice/x", "/etc/passwd", "run/../../x", ""):
            self.assertIsNone(self.box.read_file(bad, 100)[0], bad)

    def test_refuses_a_hard_link(self):
        self.box.write_file("a", b"x")
        fd = os.open(self.box.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.link("a", "b", src_dir_fd=fd, dst_dir_fd=fd)
        finally:
            os.close(fd)
        self.assertIn("hard link", self.box.read_file("b", 10)[1])

    def test_a_folder_swapped_for_a_link_is_not_followed(self):
        """The run replaces its run folder with a link to a folder it does not own: the grader's
        mkdir, write_file, remove and close act on the link, never on what it points to."""
        victim = self.tmp / "victim"
        (victim / "keep").mkdir(parents=True)
        (victim / "keep" / "file").write_text("precious\n")
        before = os.stat(victim)
        self.box.mkdir("run/case1")
        r, out = self.run_sh(f"rm -rf run && ln -s {victim} run && ln -s {victim}/keep/file v1.bin && echo swapped")
        self.assertIn("swapped", out)
        with self.assertRaises(OSError):
            self.box.mkdir("run/case2")
        with self.assertRaises(OSError):
            self.box.write_file("run/case2/cases.txt", b"x")
        self.assertIsNone(self.box.listdir("run"))
        self.box.remove("run")  # the link goes, what it named stays
        self.box.write_file("v1.bin", b"new")  # replaces the link itself
        self.assertEqual((victim / "keep" / "file").read_text(), "precious\n")
        self.box.run(["sh", "-c", f"ln -s {victim} run2; ln -s {victim}/keep deep"], cwd=self.box.root,
                     env=self.env(), limits=Limits(wall_s=10), stdout=self.out / "l", stderr=self.out / "l")
        self.box.close()
        self.assertEqual((victim / "keep" / "file").read_text(), "precious\n")
        after = os.stat(victim)
        self.assertEqual((after.st_uid, after.st_gid, after.st_mode), (before.st_uid, before.st_gid, before.st_mode))
        self.assertEqual(os.stat(victim / "keep" / "file").st_uid, os.geteuid())
        self.assertFalse(self.box.root.exists())

    def test_the_box_root_itself_swapped_for_a_link(self):
        """A box user cannot rename its root (the parent is the grader's), but if the root were a
        link, reads, writes and close would refuse it and leave what it names alone."""
        self.sb._tmpfs = False  # a plain folder can be renamed; a mount point cannot
        box = self.sb.box("dave", 16)
        victim = self.tmp / "victim3"
        victim.mkdir()
        (victim / "f").write_text("precious\n")
        os.rename(box.root, str(box.root) + ".old")
        os.symlink(victim, box.root)
        self.assertIsNone(box.read_file("f", 100)[0])
        self.assertIsNone(box.listdir(""))
        with self.assertRaises(OSError):
            box.write_file("g", b"x")
        with self.assertRaises(OSError):
            box.mkdir("d")
        box.close()
        self.assertEqual(sorted(os.listdir(victim)), ["f"])
        self.assertEqual((victim / "f").read_text(), "precious\n")
        self.assertFalse(os.path.lexists(box.root))

    def test_close_removes_a_tree_the_run_made_unreadable(self):
        r, out = self.run_sh("mkdir -p a/b/c && echo x > a/b/c/f && chmod 000 a/b a && echo ok")
        self.assertIn("ok", out)
        self.box.close()
        self.assertFalse(self.box.root.exists())
        self.assertEqual(os.listdir(self.tmp / "work"), [])

    @unittest.skipUnless(ROOT, "the box's tmpfs and its own user need root")
    def test_close_without_tmpfs_walks_with_no_link_followed(self):
        self.sb._tmpfs = False  # as on a machine where mount is refused
        box = self.sb.box("carol", 16)
        victim = self.tmp / "victim2"
        victim.mkdir()
        (victim / "f").write_text("precious\n")
        box.run(["sh", "-c", f"mkdir sub && ln -s {victim} sub/v && ln -s {victim}/f g"], cwd=box.root,
                env=self.env(), limits=Limits(wall_s=10), stdout=self.out / "l", stderr=self.out / "l")
        self.assertEqual(os.stat(box.root).st_uid, box.uid)
        box.close()
        self.assertEqual((victim / "f").read_text(), "precious\n")
        self.assertEqual(os.stat(victim).st_uid, 0)
        self.assertFalse(box.root.exists())

    @unittest.skipUnless(ROOT, "the box's own user needs root")
    def test_box_root_is_the_box_users_and_its_parent_is_not(self):
        self.assertEqual(os.stat(self.box.root).st_uid, self.box.uid)
        parent = os.stat(self.box.root.parent)
        self.assertEqual(parent.st_uid, 0)
        self.assertFalse(parent.st_mode & 0o022)
        made = self.box.mkdir("run/c")
        self.assertEqual(os.stat(made).st_uid, self.box.uid)
        f = self.box.write_file("src/conv.c", b"int x;\n")
        self.assertEqual(os.stat(f).st_uid, 0)  # the grader's file: readable, not writable, by the box
        self.assertEqual(os.stat(f).st_mode & 0o777, 0o644)

    def test_a_workroot_others_can_write_is_refused(self):
        bad = self.tmp / "open"
        bad.mkdir()
        os.chmod(bad, 0o777)
        with self.assertRaises(SandboxError):
            Sandbox("none", ro_paths=[], gpu=False, as_root=ROOT, workroot=bad / "w",
                    uid_pool=box_users())


# ------------------------------------------------------------------------------ runs in a box

class RunTest(Base):
    """A run through bubblewrap: what it sees and what stops it."""
    mode = "bwrap"

    def test_status_output_and_env(self):
        r, out = self.run_sh("echo to-out; echo to-err >&2; echo HOME=$HOME; echo X=${X-unset}; exit 3")
        self.assertTrue(r.started)
        self.assertEqual((r.rc, r.signal, r.breach), (3, None, None))
        self.assertIn("to-out", out)
        self.assertIn("to-err", out)
        self.assertIn(f"HOME={self.box.root}", out)
        self.assertIn("X=unset", out)  # only the environment the grader gave
        self.assertGreater(r.wall_ms, 0)

    def test_stdin_is_empty(self):
        r, out = self.run_sh("cat; echo end")
        self.assertEqual(out.strip(), "end")

    def test_signal(self):
        r, out = self.run_sh("kill -SEGV $$")
        self.assertEqual((r.rc, r.signal), (None, signal.SIGSEGV))

    def test_sees_only_the_allow_list(self):
        """A folder under /srv, OUT (except the pristine kit bound read-only), the submissions and
        the grader's home are not there; the system, the kit and the box are."""
        if not ROOT:
            srv = Path(tempfile.mkdtemp(prefix="kitsb-srv-", dir="/tmp"))
        else:
            srv = Path(tempfile.mkdtemp(prefix="kitsb-srv-", dir="/srv"))
        self.addCleanup(shutil.rmtree, srv, ignore_errors=True)
        (srv / "secret").write_text("last year's solutions\n")
        os.chmod(srv, 0o755)
        os.chmod(srv / "secret", 0o644)
        script = (f"cat {srv}/secret; cat {self.out}/grades.csv; echo LS: $(ls {self.out}); "
                  f"cat {self.subs}/bob/conv.c; ls {self.tmp}/locks; ls /root /home; "
                  f"cat {self.out}/pristine/kit.txt; echo probe > {self.out}/pristine/w; "
                  f"ls /usr/bin/sh && echo box > mine && cat mine; id -u")
        r, out = self.run_sh(script)
        self.assertNotIn("last year's", out)
        self.assertNotIn("alice,100", out)
        self.assertIn("LS: pristine\n", out)
        self.assertNotIn("bob's work", out)
        self.assertIn("the pristine kit", out)
        self.assertIn("Read-only file system", out)
        self.assertIn("box", out)
        self.assertFalse((self.out / "pristine" / "w").exists())
        if ROOT:
            self.assertIn(str(self.box.uid), out.split())

    def test_no_network(self):
        if not PY:
            self.skipTest("no python3 in /usr/bin for the box to run")
        r, out = self.run_py("""
            import socket
            print(socket.if_nameindex())
            s = socket.socket()
            try:
                s.connect(("1.1.1.1", 80))
                print("CONNECTED")
            except OSError as e:
                print("refused", e)
        """)
        self.assertNotIn("CONNECTED", out)
        self.assertIn("refused", out)

    def test_pass_fds_reach_the_command_and_nothing_else_does(self):
        r_key, w_key = os.pipe()
        r_rep, w_rep = os.pipe()
        stray = os.open("/dev/null", os.O_RDONLY)  # inheritable, but not passed
        os.set_inheritable(stray, True)
        try:
            os.write(w_key, b"key 1234abcd\n")
            os.close(w_key)
            r, out = self.run_sh(f"read line <&{r_key}; echo \"rep 1 $line\" >&{w_rep}; "
                                 f"ls /proc/self/fd | tr '\\n' ' '", pass_fds=(r_key, w_rep))
            os.close(w_rep)
            w_rep = -1
            with os.fdopen(r_rep, "rb") as f:
                r_rep = -1
                self.assertEqual(f.read(), b"rep 1 key 1234abcd\n")
            fds = set(out.split())
            self.assertIn(str(r_key), fds)
            self.assertIn(str(w_rep if w_rep >= 0 else 0), fds | {"0"})
            self.assertNotIn(str(stray), fds - {"0", "1", "2", "3", str(r_key)})
        finally:
            for fd in (r_key, w_rep, r_rep, stray):
                if fd >= 0:
                    os.close(fd)

    def test_memory_hog(self):
        """Allocates and touches 128 MB with a 64 MB limit. Enforced by the kernel (a memory
        cgroup), the allocation never ends; measured (sampled), it is held 1.5 s, so that a
        sample sees it on a busy machine (under bwrap the wait's peak misses it)."""
        self.need("memory_mb")
        r, out = self.run_py("""
            import time
            chunks = []
            for i in range(32):
                chunks.append(b"x" * (4 << 20))
            print("ALLOCATED", flush=True)
            time.sleep(1.5)
        """, memory_mb=64)
        self.assertEqual(r.breach, "memory-limit", (r, out))
        if self.sb.enforcement.get("memory_mb") == "kernel":
            self.assertNotIn("ALLOCATED", out)
        self.assertIn("memory", r.detail)

    def test_fork_bomb(self):
        """Keeps forking (at most 200 children, each sleeping) with a limit of 32 processes."""
        self.need("nproc")
        r, out = self.run_py("""
            import os, time
            kids = 0
            for i in range(200):
                try:
                    if os.fork() == 0:
                        time.sleep(30)
                        os._exit(0)
                    kids += 1
                except OSError as e:
                    print("fork failed after", kids, e, flush=True)
                    break
            time.sleep(0.3)
        """, nproc=32)
        self.assertEqual(r.breach, "process-limit", (r, out))
        self.assertGreaterEqual(r.extra_processes, 10)
        self.assertNothingLeft("time.sleep(30)")

    def test_disk_filler(self):
        """40 files of 1 MB each (under the 4 MB file limit) in a 16 MB box."""
        self.need("disk_mb")
        r, out = self.run_sh("for i in $(seq 40); do head -c 1048576 /dev/zero > f$i || exit 1; done; echo FILLED",
                             file_mb=4)
        self.assertEqual(r.breach, "disk-limit", (r, out))
        if self.sb.enforcement["disk_mb"] == "kernel":
            self.assertNotIn("FILLED", out)  # a tmpfs: the writes failed

    def test_file_limit(self):
        r, out = self.run_sh("exec head -c 8388608 /dev/zero > big", file_mb=2)
        self.assertEqual(r.breach, "file-limit", (r, out))
        self.assertEqual(r.signal, signal.SIGXFSZ)

    def test_sleeper_past_the_wall_limit(self):
        """The run and a child that left its session are killed at the limit; nothing is left."""
        token = f"kitsb-sleeper-{os.getpid()}-{time.monotonic_ns()}"
        t0 = time.monotonic()
        r, out = self.run_sh(f"(setsid sh -c 'sleep 30; echo {token}' &); sh -c 'sleep 31; echo {token}'",
                             wall_s=1)
        self.assertEqual(r.breach, "timeout")
        self.assertLess(time.monotonic() - t0, 8)
        self.assertGreaterEqual(r.wall_ms, 1000)
        time.sleep(0.1)
        if self.sb.kind == "none" and not self.sb._cg.version:
            kill_token(token)  # may have escaped: no cgroup and no pid namespace to hold it
            self.skipTest("without a cgroup or bubblewrap a process that leaves the run's session "
                          "and parent can outlive it")
        self.assertNothingLeft(token)

    def test_cpu_limit_counts_every_process(self):
        """Two processes burn CPU: the limit is on their sum."""
        self.need("cpu_s")
        r, out = self.run_sh("(while :; do :; done) & while :; do :; done", cpu_s=1, wall_s=60)
        self.assertEqual(r.breach, "cpu-limit", (r, out))
        self.assertGreaterEqual(r.cpu_ms, 900)

    def test_grandchild_work_is_counted(self):
        """A grandchild (its parent gone at once) burns CPU while the main process waits on a
        pipe, not with wait(): its time is in cpu_ms and it counts as an extra process."""
        self.need_cgroup("cpu")
        r, out = self.run_py("""
            import os, time
            r, w = os.pipe()
            if os.fork() == 0:
                if os.fork() == 0:
                    os.close(r)
                    t = time.process_time()
                    while time.process_time() - t < 0.5:
                        pass
                    os._exit(0)
                os._exit(0)
            os.close(w)
            os.read(r, 1)  # EOF when the grandchild is done
            print("main done", flush=True)
        """, wall_s=60)
        self.assertIn("main done", out)
        self.assertGreaterEqual(r.cpu_ms, 450, r)
        self.assertGreaterEqual(r.extra_processes, 1, r)

    def test_grandchild_left_running_is_flagged_and_killed(self):
        """The grandchild keeps burning after the main process ends: it is flagged and killed."""
        token = f"kitsb-orphan-{os.getpid()}-{time.monotonic_ns()}"
        r, out = self.run_sh(f"(sh -c 'while :; do :; done; echo {token}' &); sleep 0.3; echo main-exits")
        self.assertIn("main-exits", out)
        self.assertGreaterEqual(r.extra_processes, 1, r)
        time.sleep(0.1)
        self.assertNothingLeft(token)

    def test_cpus_pin_the_run(self):
        if len(os.sched_getaffinity(0)) < 2 or 1 not in os.sched_getaffinity(0):
            self.skipTest("needs CPU 1 and another")
        self.n += 1
        log = self.out / "cpus.log"
        r = self.box.run(["sh", "-c", "grep Cpus_allowed_list /proc/self/status"], cwd=self.box.root,
                         env=self.env(), limits=Limits(wall_s=10), stdout=log, stderr=log, cpus=[1])
        self.assertEqual(r.rc, 0)
        self.assertEqual(log.read_text().split(), ["Cpus_allowed_list:", "1"])

    def test_missing_working_folder(self):
        r, out = self.run_sh("true", cwd=self.box.root / "nothing")
        self.assertFalse(r.started)
        self.assertIn("missing", r.detail)

    def test_cpu_time_and_memory_are_reported(self):
        if not PY:
            self.skipTest("no python3 in /usr/bin")
        r, out = self.run_py("""
            import time
            b = b"y" * (20 << 20)
            t = time.process_time()
            while time.process_time() - t < 0.3:
                pass
        """, wall_s=60)
        self.assertIsNone(r.breach, r)
        # without a cgroup, CPU time is sampled: the last 50 ms can be missed
        self.assertGreaterEqual(r.cpu_ms, 250 if self.sb.enforcement["cpu_s"] == "kernel" else 180)
        self.assertIsNotNone(r.mem_peak_mb)
        self.assertGreaterEqual(r.mem_peak_mb, 15)


class NoSandboxTest(RunTest):
    """The same runs without bubblewrap (--sandbox none): the limits still hold; the view tests
    do not apply."""
    mode = "none"

    def test_sees_only_the_allow_list(self):
        self.skipTest("without bubblewrap a run sees what its user can read")

    def test_no_network(self):
        self.skipTest("without bubblewrap a run can reach the network")

    def test_signal(self):
        r, out = self.run_sh("kill -SEGV $$")
        self.assertEqual((r.rc, r.signal), (None, signal.SIGSEGV))


@unittest.skipUnless(ROOT and not AS_NOBODY, "runs the tests again as an unprivileged user (from root)")
class NormalUserTest(unittest.TestCase):
    """The file and run tests as user nobody: what works without root, and the skips say why."""

    def test_as_nobody(self):
        setpriv = shutil.which("setpriv")
        if not setpriv or not PY:
            self.skipTest("needs setpriv and /usr/bin/python3")
        env = {"PATH": "/usr/bin:/bin", "KITGRADE_TEST_AS_NOBODY": "1", "LANG": "C.UTF-8", "HOME": "/tmp",
               "PYTHONDONTWRITEBYTECODE": "1"}
        p = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", PY, "-m",
                            "unittest", "-v", "test_sandbox.FileTest", "test_sandbox.RunTest",
                            "test_sandbox.NoSandboxTest"],
                           cwd=str(Path(__file__).parent), env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout[-6000:])
        self.assertRegex(p.stdout, r"\nOK")


if __name__ == "__main__":
    unittest.main()
