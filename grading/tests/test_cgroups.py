"""cgroups.py's set-up of a cgroup v2 grading on a fake cgroup tree (a temporary folder whose
cgroup.procs and cgroup.subtree_control files behave as the kernel's: a cgroup with processes
of its own refuses to hand a controller on, EBUSY): the same at every grading (no leaf inside
the leaf), only the grader's own processes moved where that is enough, and every move said."""
import errno
import os
import shutil
import tempfile
import unittest

import util  # noqa: F401 (the package on the path)
from kitgrade.box import cgroups

ME = os.getpid()


class FakeTree(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kitgrade-cg-")
        self.root = os.path.join(self.tmp, "cg")
        os.makedirs(self.root)
        self.put(self.root, "cgroup.controllers", "cpuset memory pids")
        self.put(self.root, "cgroup.subtree_control", "")
        self.old = cgroups._write
        cgroups._write = self.write

    def tearDown(self):
        cgroups._write = self.old
        shutil.rmtree(self.tmp, ignore_errors=True)

    def put(self, d, name, text):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)

    def procs(self, d):
        try:
            with open(os.path.join(d, "cgroup.procs")) as f:
                return [int(x) for x in f.read().split()]
        except FileNotFoundError:
            return []

    def write(self, path, text):
        """The kernel's rules, as far as set-up meets them."""
        d, name = os.path.split(path)
        if name == "cgroup.procs":
            for sub, _dirs, files in os.walk(self.root):
                if "cgroup.procs" in files:
                    self.put(sub, "cgroup.procs", "".join(
                        "%d\n" % p for p in self.procs(sub) if p != int(text)))
            self.put(d, "cgroup.procs", "".join("%d\n" % p for p in
                                                self.procs(d) + [int(text)]))
        elif name == "cgroup.subtree_control":
            if self.procs(d):
                raise OSError(errno.EBUSY, "Device or resource busy", path)
            with open(path) as f:
                have = f.read().split()
            self.put(d, name, " ".join(have + [text[1:]]))
        elif os.path.exists(path):
            self.put(d, name, text)
        else:                                   # as os.open without O_CREAT
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)

    def grading(self, own):
        """One grading's set-up, the grader in cgroup OWN (a path below the tree's root)."""
        host = cgroups._CgroupHost("none")
        host._setup_v2(cgroups.grading_base(own), {"cpuset", "memory", "pids"})
        return host

    def leaves(self):
        return [d for d, _s, _f in os.walk(self.root) if os.path.basename(d) == cgroups.LEAF]

    def test_the_grader_alone_is_moved(self):
        self.put(self.root, "cgroup.procs", "%d\n" % ME)
        h = self.grading(self.root)
        leaf = os.path.join(self.root, cgroups.LEAF)
        self.assertEqual(self.procs(leaf), [ME])
        self.assertEqual(len(h.moves), 1)
        self.assertIn("moved 1 process from %s into %s" % (self.root, leaf), h.moves[0])
        self.assertIn("%d (this grader)" % ME, h.moves[0])
        self.assertEqual(h.parents[""], os.path.join(self.root, h.name))
        self.assertEqual(h.notes, [])
        h.close()

    def test_others_moved_only_when_needed_and_said(self):
        self.put(self.root, "cgroup.procs", "4000001\n%d\n4000002\n" % ME)
        h = self.grading(self.root)
        leaf = os.path.join(self.root, cgroups.LEAF)
        self.assertEqual(sorted(self.procs(leaf)), sorted([ME, 4000001, 4000002]))
        self.assertEqual(len(h.moves), 2)
        self.assertIn("%d (this grader)" % ME, h.moves[0])
        self.assertIn("moved 2 processes the grader did not start", h.moves[1])
        self.assertIn("4000001", h.moves[1])
        self.assertIn("4000002", h.moves[1])
        self.assertEqual(self.procs(self.root), [])
        h.close()

    def test_every_grading_the_same(self):
        self.put(self.root, "cgroup.procs", "%d\n4000001\n" % ME)
        self.grading(self.root).close()
        leaf = os.path.join(self.root, cgroups.LEAF)
        # the next gradings start inside the leaf: its parent is their base again, nothing
        # moves, and no leaf is made inside the leaf
        for _ in range(3):
            h = self.grading(leaf)
            self.assertEqual(h.moves, [])
            self.assertEqual(h.parents[""], os.path.join(self.root, h.name))
            h.close()
        self.assertEqual(self.leaves(), [leaf])
        self.assertEqual(sorted(self.procs(leaf)), sorted([ME, 4000001]))

    def test_grading_base(self):
        self.assertEqual(cgroups.grading_base("/sys/fs/cgroup/a/kitgrade-leaf"),
                         "/sys/fs/cgroup/a")
        self.assertEqual(cgroups.grading_base("/sys/fs/cgroup/a"), "/sys/fs/cgroup/a")


if __name__ == "__main__":
    unittest.main()
