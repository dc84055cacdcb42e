"""Shared by the grader's unit tests: the package on the path, the stand-in sandbox where the
real one is not there, temporary folders, and small stand-ins for a box and a grading."""
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GRADING = os.path.dirname(HERE)
sys.path.insert(0, GRADING)
sys.path.insert(0, HERE)

import fakesandbox  # noqa: E402

fakesandbox.install()

from kitgrade.lab import labinfo, rubric  # noqa: E402
from kitgrade.driver.context import Ctx  # noqa: E402


class TempCase(unittest.TestCase):
    """A test with its own temporary folder, self.tmp."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kitgrade-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, rel, data, mode=0o644):
        p = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        os.chmod(p, mode)
        return p


class DictBox:
    """A box whose files are a dict (rel path -> bytes), for read_file."""

    def __init__(self, files=None, root="/nonexistent-box"):
        self.files = dict(files or {})
        self.root = root
        self.uid = None

    def read_file(self, rel, max_bytes):
        if rel not in self.files:
            return None, "No such file or directory"
        d = self.files[rel]
        if len(d) > max_bytes:
            return None, "larger than %d bytes" % max_bytes
        return d, ""


class Opts:
    quick = False
    keep_work = False
    timeout = None
    sanitize = False
    profile = False


def make_ctx(rub_text, info_json, outputs=None, gpu=False, checker="/bin/false", tmp="/tmp",
             clock=None):
    """A Ctx for unit tests: a rubric from text, the lab from describe-like JSON."""
    rub = rubric.parse("test.rubric", rub_text)
    info = labinfo.from_json(info_json)

    class Lab:
        nn = "99"
        name = "99_fake"
        binary = "lab99"
        srcs = ["fake.c"]
    Lab.gpu = gpu
    ctx = Ctx(opts=Opts(), lab=Lab(), rub=rub, info=info, cases=rub.draw(1), outputs=outputs or {},
              seed=1, out=tmp, home=tmp, pristine=tmp, checker=checker, cache=tmp, tmp=tmp)
    ctx.clock = clock or rub.perf_clock or ("gpu" if gpu else "cpu")
    return ctx


def fake_kit(dest):
    """A copy of the fake kit (grading/tests/fakekit) at DEST, with the kit's own skeleton
    maker (common/scripts/mkskel.awk) in it."""
    shutil.copytree(os.path.join(HERE, "fakekit"), dest)
    os.makedirs(os.path.join(dest, "common", "scripts"), exist_ok=True)
    shutil.copy2(os.path.join(os.path.dirname(GRADING), "common", "scripts", "mkskel.awk"),
                 os.path.join(dest, "common", "scripts", "mkskel.awk"))
    # the real key server (its Makefile builds it): CPU pairs are timed in its lockstep
    shutil.copy2(os.path.join(GRADING, "keyserve.c"), os.path.join(dest, "grading", "keyserve.c"))
    return dest


def read(path, mode="r"):
    """A file's text (or bytes, with mode "rb")."""
    with open(path, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
        return f.read()


def put(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def nest(path, depth, name="d"):
    """DEPTH folders NAME, one in the other, below PATH (made one level at a time from a
    descriptor: deeper than a path may be long); the descriptor of the deepest, open."""
    fd = os.open(path, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir(name, dir_fd=fd)
        sub = os.open(name, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = sub
    return fd
