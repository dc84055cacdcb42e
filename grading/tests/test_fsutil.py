"""fsutil.py: what the grader does in a box's folder follows no link, whatever the box did."""
import os
import unittest

import util
from kitgrade.base import fsutil


class CapLog(util.TempCase):
    def test_a_long_log_keeps_its_ends(self):
        p = os.path.join(self.tmp, "run.err")
        with open(p, "wb") as f:
            f.write(b"start\n" + b"x" * 10000 + b"\nend\n")
        fsutil.cap_log(p, 1000)
        with open(p, "rb") as f:
            data = f.read()
        self.assertTrue(data.startswith(b"start\n") and data.endswith(b"\nend\n"))
        self.assertIn(b"[... the grader left out 9011 bytes here ...]", data)
        self.assertLess(len(data), 1100)
        fsutil.cap_log(p, 2000)             # short enough: kept as it is
        with open(p, "rb") as f:
            self.assertEqual(f.read(), data)
        fsutil.cap_log(os.path.join(self.tmp, "none"), 10)     # no file: nothing to do


class BoxFiles(util.TempCase):
    def setUp(self):
        super().setUp()
        self.box = os.path.join(self.tmp, "box")
        self.outside = os.path.join(self.tmp, "outside")
        os.makedirs(self.box)
        os.makedirs(self.outside)
        self.secret = self.write("outside/secret", "keep me")

    def test_mkdir_replaces_a_linked_folder(self):
        os.symlink(self.outside, os.path.join(self.box, "run"))
        fsutil.box_mkdir(self.box, "run/case1")
        self.assertFalse(os.path.exists(os.path.join(self.outside, "case1")))
        os.symlink(self.outside, os.path.join(self.box, "run", "case1", "x"))
        fsutil.box_mkdir(self.box, "run/case1/x/y", fresh=True)
        self.assertFalse(os.path.islink(os.path.join(self.box, "run")))
        self.assertTrue(os.path.isdir(os.path.join(self.box, "run", "case1", "x", "y")))
        self.assertEqual(os.listdir(self.outside), ["secret"])
        # walking (not making) a linked folder fails
        os.symlink(self.outside, os.path.join(self.box, "l"))
        with self.assertRaises(OSError):
            fsutil._walk(self.box, ["l"]).close()

    def test_write_replaces_a_link(self):
        os.symlink(self.secret, os.path.join(self.box, "cases.txt"))
        fsutil.box_write(self.box, "cases.txt", "lines\n")
        self.assertEqual(util.read(self.secret), "keep me")
        self.assertFalse(os.path.islink(os.path.join(self.box, "cases.txt")))
        self.assertEqual(util.read(os.path.join(self.box, "cases.txt")), "lines\n")

    def test_remove_follows_no_link(self):
        os.makedirs(os.path.join(self.box, "t", "deep"))
        os.symlink(self.outside, os.path.join(self.box, "t", "deep", "out"))
        os.symlink(self.secret, os.path.join(self.box, "t", "file"))
        fsutil.box_remove(self.box, "t")
        self.assertFalse(os.path.exists(os.path.join(self.box, "t")))
        self.assertEqual(util.read(self.secret), "keep me")
        fsutil.box_remove(self.box, "nothing/there")
        with self.assertRaises(ValueError):
            fsutil.box_remove(self.box, "../outside")

    def test_remove_tree_and_read_regular(self):
        os.makedirs(os.path.join(self.tmp, "g", "h"))
        os.symlink(self.outside, os.path.join(self.tmp, "g", "h", "l"))
        fsutil.remove_tree(os.path.join(self.tmp, "g"))
        self.assertTrue(os.path.exists(self.secret))
        self.assertEqual(fsutil.read_regular(self.secret, 100), b"keep me")
        self.assertIsNone(fsutil.read_regular(self.secret, 3))
        os.symlink(self.secret, os.path.join(self.tmp, "l"))
        self.assertIsNone(fsutil.read_regular(os.path.join(self.tmp, "l"), 100))

    def test_remove_tree_of_any_depth(self):
        """Folders nested far past the stack and the descriptors a level each would take
        (a run or a submission can make them), a link and an unreadable folder among them."""
        top = os.path.join(self.tmp, "deep")
        os.makedirs(top)
        fd = os.open(top, os.O_RDONLY)
        for i in range(3000):
            os.mkdir("d", dir_fd=fd)
            if i == 1500:
                os.symlink(self.outside, "l", dir_fd=fd)
                os.chmod("d", 0o000, dir_fd=fd)
            sub = os.open("d", os.O_RDONLY, dir_fd=fd) if i != 1500 else None
            if sub is None:
                os.chmod("d", 0o700, dir_fd=fd)
                sub = os.open("d", os.O_RDONLY, dir_fd=fd)
                os.chmod("d", 0o000, dir_fd=fd)
            os.close(fd)
            fd = sub
        os.close(fd)
        fsutil.remove_tree(top)
        self.assertEqual(os.listdir(self.tmp).count("deep"), 0)
        self.assertEqual([n for n in os.listdir(self.tmp) if n.startswith(".kit-")], [])
        self.assertEqual(util.read(self.secret), "keep me")

    def test_disk_usage_of_any_depth(self):
        """A box's disk use (where no tmpfs counts it) is summed below any nesting a run made."""
        from kitgrade.box.boxfiles import _usage_at
        top = os.path.join(self.tmp, "use")
        os.makedirs(top)
        fd = util.nest(top, 2500)
        with open("/proc/self/fd/%d/f" % fd, "wb") as f:
            f.write(b"x" * (1 << 20))
        os.close(fd)
        fd = os.open(top, os.O_RDONLY)
        try:
            self.assertGreaterEqual(_usage_at(fd), 1 << 20)
        finally:
            os.close(fd)
        fsutil.remove_tree(top)

    def test_read_plain_says_why_and_waits_on_no_fifo(self):
        self.assertEqual(fsutil.read_plain(self.secret, 100), (b"keep me", ""))
        self.assertEqual(fsutil.read_plain(self.secret, 3), (None, "larger than 3 bytes"))
        os.symlink(self.secret, os.path.join(self.tmp, "l2"))
        self.assertEqual(fsutil.read_plain(os.path.join(self.tmp, "l2"), 100),
                         (None, "it is a symbolic link"))
        self.assertEqual(fsutil.read_plain(os.path.join(self.tmp, "none"), 100),
                         (None, "it does not exist"))
        os.mkfifo(os.path.join(self.tmp, "fifo"))      # no writer: an open without
        self.assertEqual(fsutil.read_plain(os.path.join(self.tmp, "fifo"), 100),  # O_NONBLOCK
                         (None, "not a regular file"))                            # would hang
        self.assertIsNone(fsutil.read_regular(os.path.join(self.tmp, "fifo"), 100))

    def test_atomic_write(self):
        p = os.path.join(self.tmp, "a.txt")
        fsutil.atomic_write(p, "one")
        fsutil.atomic_write(p, b"two")
        self.assertEqual(util.read(p), "two")
        self.assertEqual([f for f in os.listdir(self.tmp) if f.startswith(".tmp")], [])

    def test_make_safe(self):
        self.assertTrue(fsutil.make_safe("/tmp/kit/out_1.x"))
        for p in ("/tmp/g0,1", "/tmp/a b", "/tmp/it's", "/tmp/$(x)", "/tmp/é", "/tmp/a/../b"):
            self.assertFalse(fsutil.make_safe(p), p)


if __name__ == "__main__":
    unittest.main()
