"""build.py: the lab found from its Makefile, the pristine kit (no reference, no solutions),
the student's files put in with no link followed, compiler errors with their quotes, and the
forbidden-symbol check on real objects."""
import os
import shutil
import subprocess
import unittest
from unittest import mock

import util
from kitgrade.base import fsutil
from kitgrade.lab import build, devstatic

NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK)
                                else None)



def gcc_object(path, src):
    c = path + ".c"
    with open(c, "w") as f:
        f.write(src)
    subprocess.run(["gcc", "-c", c, "-o", path], check=True)
    with open(path, "rb") as f:
        return f.read()


class Lab(util.TempCase):
    def setUp(self):
        super().setUp()
        self.kit = os.path.join(self.tmp, "kit")
        util.fake_kit(self.kit)

    def test_find_lab(self):
        lab = build.find_lab(self.kit, "98")
        self.assertEqual((lab.name, lab.srcs, lab.gpu, lab.binary),
                         ("98_fakegpu", ["fake.c"], True, "lab98"))
        self.assertFalse(build.find_lab(self.kit, "99").gpu)
        with self.assertRaisesRegex(build.KitError, "no lab 42"):
            build.find_lab(self.kit, "42")

    def test_the_labs_own_objects_are_linked_from_the_pristine_kit(self):
        lab = build.find_lab(os.path.dirname(util.GRADING), "01")
        self.assertEqual(lab.own, ["main.c", "spec.c"])
        p = os.path.join(self.tmp, "pristine")
        objs = [os.path.join(p, ".skeleton", "build", f) for f in ("main.c.o", "spec.c.o")]
        box = os.path.join(self.tmp, "box")
        # not built (yet): every object is compiled in the student's build
        self.assertFalse([a for a in build.build_argv(lab, p, box) if a.startswith("LAB_OBJS=")])
        os.makedirs(os.path.dirname(objs[0]))
        for o in objs:
            open(o, "w").close()
        argv = build.build_argv(lab, p, box)
        self.assertIn("LAB_OBJS=" + " ".join(objs), argv)
        self.assertEqual(argv[-1], "lab01")
        # a build with flags of its own (the sanitizer's) compiles them again
        self.assertFalse([a for a in build.build_argv(lab, p, box, kit_objects=False)
                          if a.startswith("LAB_OBJS=")])
        os.remove(objs[1])
        self.assertFalse([a for a in build.build_argv(lab, p, box) if a.startswith("LAB_OBJS=")])

    def test_pristine(self):
        lab = build.find_lab(self.kit, "99")
        util.put(os.path.join(lab.dir, "ref.c"), "int kit_ref(void);\n")
        util.put(os.path.join(self.kit, "common", "ref.c"), "int kit_ref(void);\n")
        os.makedirs(os.path.join(self.kit, "tests"))
        dest = os.path.join(self.tmp, "pristine")
        build.make_pristine(lab, dest, os.path.join(self.tmp, "log"))
        self.assertEqual(build.leaks(dest), "")
        self.assertFalse(os.path.exists(os.path.join(dest, "labs", lab.name, "ref.c")))
        self.assertFalse(os.path.exists(os.path.join(dest, "common", "ref.c")))
        self.assertFalse(os.path.exists(os.path.join(dest, "solutions")))
        skel = util.read(os.path.join(dest, "labs", lab.name, "fake.c"))
        self.assertNotIn("SOLUTION", skel)
        self.assertIn("// v1 notimpl", skel)
        self.assertTrue(os.path.isfile(os.path.join(dest, ".skeleton", "lab99")))
        # kept while nothing changed; made again when the kit changes
        mark = os.path.join(dest, "marker")
        open(mark, "w").close()
        build.make_pristine(lab, dest, os.path.join(self.tmp, "log"))
        self.assertTrue(os.path.exists(mark))
        os.utime(os.path.join(lab.solutions, "fake.c"), (1, 1))
        build.make_pristine(lab, dest, os.path.join(self.tmp, "log"))
        self.assertFalse(os.path.exists(mark))
        os.makedirs(os.path.join(dest, "solutions"))
        self.assertIn("solutions/", build.leaks(dest))

    def test_shared_pristine(self):
        """One pristine kit for every grading of the kit: in its grading/build, named by what
        it is made from (the metrics tool and the build's settings too); made once, held while
        in use; --force makes it again beside the one in use; an old one is removed when no
        grading holds it and none started with it for a day; none where this process does not
        own the folder."""
        lab = build.find_lab(self.kit, "99")
        top = os.path.join(self.kit, "grading", "build")
        log = os.path.join(self.tmp, "log")
        self.assertIsNone(build.shared_pristine(lab))               # no grading/build yet
        os.makedirs(top)
        os.chmod(top, 0o777)
        self.assertIsNone(build.shared_pristine(lab))               # others could write there
        os.chmod(top, 0o755)
        if os.geteuid() == 0:
            self.assertIsNone(build.shared_pristine(lab))           # the boxes' users: no way in
            os.chmod(self.tmp, 0o755)
        dest = build.shared_pristine(lab)
        self.assertEqual(os.path.dirname(dest), os.path.join(top, "pristine"))
        self.assertNotEqual(build.shared_pristine(lab, {"CUDA_ARCH": "90"}), dest)
        with mock.patch.dict(os.environ, {"NVCC": "/opt/cuda-12/bin/nvcc"}):
            self.assertNotEqual(build.shared_pristine(lab), dest)
        build.make_pristine(lab, dest, log, shared=True)
        mark = os.path.join(dest, "marker")
        open(mark, "w").close()
        build.make_pristine(lab, dest, log, shared=True)
        self.assertTrue(os.path.exists(mark))                       # kept
        build.make_pristine(lab, dest, log, force=True, shared=True)
        self.assertFalse(os.path.exists(mark))                      # made again
        aside = [n for n in os.listdir(os.path.dirname(dest)) if ".old-" in n]
        self.assertEqual(len(aside), 1)                             # the one in use, kept
        # the kit changes: a new name; the old ones stay while in use, or for a day
        util.put(os.path.join(self.kit, "grading", "metrics.tsv"), "a metric\n")
        new = build.shared_pristine(lab)
        self.assertNotEqual(new, dest)
        with self.assertRaises(build.KitError):                     # changed since it was named
            build.make_pristine(lab, dest, log, shared=True)
        build.make_pristine(lab, new, log, shared=True)
        self.assertTrue(os.path.isfile(os.path.join(new, ".skeleton", "lab99")))
        self.assertTrue(os.path.isdir(dest))
        for d in (dest, os.path.join(os.path.dirname(dest), aside[0])):
            os.utime(os.path.join(d, ".ok"), (1, 1))
        build.make_pristine(lab, new, log, shared=True)
        self.assertTrue(os.path.isdir(dest))                        # this process holds it
        for fd in build._IN_USE:                                    # as when it ends
            os.close(fd)
        build._IN_USE.clear()
        build.make_pristine(lab, new, log, shared=True)
        self.assertEqual(sorted(os.listdir(os.path.dirname(new))),
                         [".lock-99", os.path.basename(new)])

    def test_put_files(self):
        box = os.path.join(self.tmp, "box")
        os.makedirs(box)
        stu = os.path.join(self.tmp, "stu")
        os.makedirs(os.path.join(stu, "sub"))
        open(os.path.join(stu, "sub", "notes.txt"), "w").close()
        secret = os.path.join(self.tmp, "secret.c")
        util.put(secret, "SECRET")
        skel = os.path.join(self.tmp, "skel")
        os.makedirs(skel)
        util.put(os.path.join(skel, "a.c"), "skeleton a")
        util.put(os.path.join(skel, "b.c"), "skeleton b")
        util.put(os.path.join(skel, "c.c"), "skeleton c")
        util.put(os.path.join(stu, "a.c"), "mine")
        os.symlink(secret, os.path.join(stu, "b.c"))
        class Box:
            root = box
            uid = None
        notes = build.put_files(Box, ["a.c", "b.c", "c.c"], stu, skel)
        rd = lambda f: util.read(os.path.join(box, "src", f))  # noqa: E731
        self.assertEqual((rd("a.c"), rd("b.c"), rd("c.c")), ("mine", "skeleton b", "skeleton c"))
        self.assertEqual(notes[:3], ["a.c: used",
                                     "b.c is a symbolic link: ignored, the skeleton's b.c was used",
                                     "c.c is missing: the skeleton's c.c was used"])
        self.assertIn("sub/notes.txt: ignored (only a.c b.c c.c are graded)", notes)
        with open(os.path.join(stu, "a.c"), "wb") as f:
            f.write(b"x" * (build.MAX_SOURCE + 1))
        self.assertIn("larger than 4 MB", build.put_files(Box, ["a.c"], stu, skel)[0])
        # folders nested deeper than os.walk's recursion could go: not looked into, said
        os.unlink(os.path.join(stu, "a.c"))
        os.close(util.nest(stu, 1205))
        notes = build.put_files(Box, ["a.c"], stu, skel)
        self.assertEqual(notes[-1], "folders nested more than %d deep: ignored, not looked into"
                         % build.MAX_DEPTH)
        self.assertIn("sub/notes.txt: ignored (only a.c is graded)", notes)
        fsutil.remove_tree(stu)

    def test_compile_reason_keeps_quotes(self):
        log = ("make: Entering\nconv.c:12:5: error: ‘ext_row’ undeclared (first use)\n"
               "conv.c:13:1: error: expected ‘;’ before ‘}’ token\nmake: *** Error 1\n")
        self.assertEqual(build.compile_reason(log, 2),
                         "conv.c:12:5: error: ‘ext_row’ undeclared (first use); conv.c:13:1: "
                         "error: expected ‘;’ before ‘}’ token")
        self.assertIn("exit 2", build.compile_reason("ld: nothing\n", 2))
        self.assertEqual(build.clean_log("/b/x/src/conv.c: e /p/labs/01/m.c", "/b/x", "/p"),
                         "conv.c: e 01/m.c")


class Forbidden(util.TempCase):
    def check(self, src, binary=b"#!/bin/sh\n"):
        obj = gcc_object(os.path.join(self.tmp, "o.o"), src)
        box = util.DictBox({"out/build/skel/fake.c.o": obj, "out/lab99": binary})

        class Lab:
            srcs = ["fake.c"]
            binary = "lab99"
        return build.forbidden(box, Lab, "out", self.tmp)

    def test_clean(self):
        self.assertEqual(self.check("int conv(int x) { return x + 1; }\n"), "")

    def test_defines_and_calls(self):
        why = self.check("int kit_clamp(int x) { return x; }\nint main(void) { return 0; }\n")
        self.assertIn("defines kit_clamp", why)
        self.assertIn("defines main", why)
        why = self.check("int kit_ref_corr(int);\nint f(int x) { return kit_ref_corr(x); }\n")
        self.assertIn("calls kit_ref_corr", why)
        self.assertIn("the submission", why)
        # a clock or a CUDA call of its own would stand in for the one the harness times with
        why = self.check("struct timespec;\nint clock_gettime(int c, struct timespec *t) "
                         "{ (void)c; (void)t; return 0; }\nint cudaEventElapsedTime(float *m, "
                         "void *a, void *b) { (void)a; (void)b; *m = 0; return 0; }\n")
        self.assertIn("defines clock_gettime", why)
        self.assertIn("defines cudaEventElapsedTime", why)
        # its own names are its own
        self.assertEqual(self.check("static int cudaish(void) { return 1; }\n"
                                    "int timer_read(void) { return cudaish(); }\n"), "")

    def test_binary_with_a_reference(self):
        exe = os.path.join(self.tmp, "exe")
        gcc_object(exe + ".o", "int kit_ref_x(int a) { return a; }\nint main(void) "
                               "{ return kit_ref_x(0); }\n")
        subprocess.run(["gcc", exe + ".o", "-o", exe], check=True)
        why = self.check("int conv(void) { return 1; }\n", util.read(exe, "rb"))
        self.assertIn("the graded binary holds the kit's reference (kit_ref_x)", why)

    def test_garbage_object(self):
        box = util.DictBox({"out/build/skel/fake.c.o": b"not an object", "out/lab99": b"x"})

        class Lab:
            srcs = ["fake.c"]
            binary = "lab99"
        self.assertIn("not an object file", build.forbidden(box, Lab, "out", self.tmp))
        self.assertIn("cannot be read", build.forbidden(util.DictBox({}), Lab, "out", self.tmp))



@unittest.skipIf(NVCC is None, "no nvcc")
class StaticDevice(util.TempCase):
    """__device__ variables are device memory no allocation makes: a large one is refused at
    build time, read from the cubins in the object (nvcc's own count, ptxas' "bytes gmem",
    agrees: 64 MiB + 72,000 bytes here)."""

    def nvcc_object(self, name, src):
        cu = os.path.join(self.tmp, name + ".cu")
        with open(cu, "w") as f:
            f.write(src)
        o = cu + ".o"
        subprocess.run([NVCC, "-c", "-O2", "-gencode", "arch=compute_90,code=sm_90",
                        "-gencode", "arch=compute_80,code=[sm_80,compute_80]", cu, "-o", o], check=True)
        return util.read(o, "rb")

    def forbidden(self, obj):
        box = util.DictBox({"out/build/skel/strip.cu.o": obj, "out/lab99": b"#!/bin/sh\n"})

        class Lab:
            srcs = ["strip.cu"]
            binary = "lab99"
        return build.forbidden(box, Lab, "out", self.tmp)

    def test_large_static_device_storage_is_refused(self):
        obj = self.nvcc_object("big", "__device__ char stash[64 << 20];\n"
                               "static __device__ double rows[9000];\n"
                               "__global__ void k(float *o) { o[0] = stash[threadIdx.x] + rows[1]; }\n")
        self.assertEqual(devstatic.static_device_bytes(obj), (64 << 20) + 72000)
        why = self.forbidden(obj)
        self.assertIn("strip.cu declares %d bytes of __device__ variables" % ((64 << 20) + 72000), why)
        self.assertIn("cudaMalloc", why)
        self.assertNotIn("kit's own functions", why)

    def test_small_tables_and_constant_memory_are_allowed(self):
        obj = self.nvcc_object("small", "__device__ float table[1024];\n__constant__ float taps[8192];\n"
                               "__global__ void k(float *o) { o[0] = table[threadIdx.x] + taps[1]; }\n")
        self.assertEqual(devstatic.static_device_bytes(obj), 4096)
        self.assertEqual(self.forbidden(obj), "")

    def test_unreadable_device_code_is_refused(self):
        obj = bytearray(self.nvcc_object("plain", "__global__ void k(float *o) { o[0] = 1; }\n"))
        self.assertEqual(devstatic.static_device_bytes(bytes(obj)), 0)
        # every cubin in it made unreadable (as a compressed one would be)
        at = obj.find(b"\x7fELF", 4)
        while at >= 0:
            obj[at:at + 4] = b"\x7fXLF"
            at = obj.find(b"\x7fELF", at + 4)
        with self.assertRaises(devstatic.Unreadable):
            devstatic.static_device_bytes(bytes(obj))
        self.assertIn("strip.cu: its device code holds no cubin the grader can read",
                      self.forbidden(bytes(obj)))

    def test_an_object_without_device_code_has_none(self):
        self.assertEqual(devstatic.static_device_bytes(gcc_object(os.path.join(self.tmp, "c.o"),
                                                                  "int f(void) { return 1; }\n")), 0)


class BreachWords(unittest.TestCase):
    def test_a_limit_without_a_figure_is_named_not_left_blank(self):
        """The CPU-time limit a rubric does not give is worked out per run: the reason says
        what it is, not 'its its s' (seen on a busy GPU machine)."""
        self.assertEqual(build.breach_reason("its timed run", "cpu-limit", None),
                         "its timed run used more CPU time than its limit (its wall-clock limit "
                         "times its cores)")
        self.assertEqual(build.breach_reason("it", "cpu-limit", 30.0),
                         "it used more than its 30 s of CPU time")
        self.assertEqual(build.breach_reason("it", "timeout", 20.0), "it ran past its 20 s limit")


if __name__ == "__main__":
    unittest.main()
