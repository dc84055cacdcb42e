"""Tests of kitgrade.box.uidpool: ids never shared by two holders at once, across processes too;
given back when the holder lets go or dies; unsafe lock folders refused.

Run from grading/: python3 -m unittest discover -s tests -p 'test_uidpool*.py'
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

GRADING = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(GRADING))

from kitgrade.box import uidpool  # noqa: E402
from kitgrade.box.uidpool import UidPool, UidPoolError  # noqa: E402

BASE = 62000  # away from the default range, so that a real grading running here is not disturbed

# a holder in its own process: takes N ids, prints them, keeps them until its stdin closes
HOLDER = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    from pathlib import Path
    from kitgrade.box.uidpool import UidPool
    pool = UidPool(Path(sys.argv[2]), base=int(sys.argv[3]), count=int(sys.argv[4]))
    leases = [pool.acquire() for _ in range(int(sys.argv[5]))]
    print(" ".join(str(l.uid) for l in leases), flush=True)
    sys.stdin.read()
""")


class UidPoolTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="kituid-"))
        os.chmod(self.tmp, 0o755)
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.locks = self.tmp / "locks"

    def holder(self, n, count=50):
        p = subprocess.Popen([sys.executable, "-c", HOLDER, str(GRADING), str(self.locks), str(BASE),
                              str(count), str(n)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
        self.addCleanup(lambda: (p.kill(), p.wait()))
        line = p.stdout.readline()
        self.assertTrue(line.strip(), "the holder printed no ids")
        return p, {int(x) for x in line.split()}

    def test_ids_are_distinct_in_one_process(self):
        pool = UidPool(self.locks, base=BASE, count=50)
        leases = [pool.acquire() for _ in range(5)]
        self.assertEqual(len({l.uid for l in leases}), 5)
        for l in leases:
            self.assertTrue(BASE <= l.uid < BASE + 50)
            self.assertEqual(l.uid, l.gid)

    def test_two_processes_get_disjoint_ids(self):
        _, a = self.holder(4)
        _, b = self.holder(4)
        self.assertEqual(len(a), 4)
        self.assertEqual(len(b), 4)
        self.assertFalse(a & b, f"both processes hold {sorted(a & b)}")

    def test_an_id_comes_back_when_its_holder_dies(self):
        p, a = self.holder(3, count=3)
        pool = UidPool(self.locks, base=BASE, count=3)
        with self.assertRaises(UidPoolError):
            pool.acquire()  # all three held by the other process
        p.send_signal(signal.SIGKILL)
        p.wait()
        got = {pool.acquire().uid for _ in range(3)}
        self.assertEqual(got, a)

    def test_release_gives_the_id_back(self):
        pool = UidPool(self.locks, base=BASE, count=1)
        lease = pool.acquire()
        with self.assertRaises(UidPoolError):
            pool.acquire()
        lease.release()
        lease.release()  # twice is harmless
        self.assertEqual(pool.acquire().uid, lease.uid)

    def test_an_id_in_use_by_a_process_is_skipped(self):
        if os.geteuid() != 0:
            self.skipTest("starting a process under another user id needs root")
        setpriv = shutil.which("setpriv")
        if not setpriv:
            self.skipTest("setpriv (util-linux) is not installed")
        p = subprocess.Popen([setpriv, f"--reuid={BASE}", f"--regid={BASE}", "--clear-groups",
                              "sleep", "30"])
        self.addCleanup(lambda: (p.kill(), p.wait()))
        for _ in range(100):  # until it runs as that user
            if BASE in uidpool.uids_in_use():
                break
            import time
            time.sleep(0.01)
        lease = UidPool(self.locks, base=BASE, count=5).acquire()
        self.assertNotEqual(lease.uid, BASE)

    def test_a_lock_folder_others_can_write_is_refused(self):
        self.locks.mkdir(mode=0o700)
        os.chmod(self.locks, 0o777)
        with self.assertRaises(UidPoolError):
            UidPool(self.locks, base=BASE, count=5).acquire()

    def test_a_lock_folder_that_is_a_link_is_refused(self):
        real = self.tmp / "real"
        real.mkdir(mode=0o700)
        self.locks.symlink_to(real)
        with self.assertRaises(UidPoolError):
            UidPool(self.locks, base=BASE, count=5).acquire()

    def test_a_planted_lock_file_link_is_not_followed(self):
        self.locks.mkdir(mode=0o700)
        victim = self.tmp / "victim"
        victim.write_text("keep me\n")
        (self.locks / f"{BASE}.lock").symlink_to(victim)
        lease = UidPool(self.locks, base=BASE, count=5).acquire()
        self.assertNotEqual(lease.uid, BASE)
        self.assertEqual(victim.read_text(), "keep me\n")

    def test_a_range_outside_the_user_ids_is_refused(self):
        with self.assertRaises(UidPoolError):
            UidPool(self.locks, base=0, count=10)
        with self.assertRaises(UidPoolError):
            UidPool(self.locks, base=65530, count=10)


if __name__ == "__main__":
    unittest.main()
