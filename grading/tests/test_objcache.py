"""objcache.py: a student file with the bytes of the reference's (as a student's copy holds
them) gets the object the reference's build made, under its own name only, read from the
reference's box with no link followed, and make then finds it up to date; any other file is
compiled as before."""
import os
import shutil
import subprocess
import types
import unittest

import util
from kitgrade.base import fsutil
from kitgrade.lab import objcache

SRC = b"int conv(void) { return 1; }\n"


class Box:
    """A box as the cache reads and writes it (sandbox.Box: root, uid, read_file)."""

    def __init__(self, root):
        self.root = root
        self.uid = None

    def read_file(self, rel, most):
        return fsutil.read_plain(os.path.join(self.root, rel), most)


class ObjectCache(util.TempCase):
    def setUp(self):
        super().setUp()
        self.ref = Box(os.path.join(self.tmp, "reference"))
        os.makedirs(os.path.join(self.ref.root, "out", "build", "skel"))
        util.put(os.path.join(self.ref.root, "out", "build", "skel", "conv.c.o"), "OBJECT OF conv.c")
        self.box = Box(os.path.join(self.tmp, "box"))
        os.makedirs(self.box.root)

    def test_key_is_name_and_bytes(self):
        k = objcache.key("conv.c", b"x")
        self.assertNotEqual(k, objcache.key("words.c", b"x"))
        self.assertNotEqual(k, objcache.key("conv.c", b"x "))
        self.assertEqual(k, objcache.key("conv.c", b"x"))

    def test_same_name_and_bytes_seeded_others_not(self):
        c = objcache.ObjectCache()
        self.assertEqual(c.add_box(self.ref, {"conv.c": SRC, "gone.c": b"x"}), ["conv.c"])
        seeded = c.seed(self.box, {"conv.c": SRC, "other.c": SRC, "sep.c": b"mine"})
        self.assertEqual(seeded, ["conv.c"])
        out = os.path.join(self.box.root, "out", "build", "skel")
        self.assertEqual(util.read(os.path.join(out, "conv.c.o")), "OBJECT OF conv.c")
        self.assertEqual(sorted(os.listdir(out)), ["conv.c.o"])
        # one byte more: compiled as a student's file
        self.assertEqual(c.seed(self.box, {"conv.c": SRC + b" "}), [])

    def test_prime_builds_the_reference_from_a_students_copy(self):
        sol = os.path.join(self.tmp, "kit", "solutions", "99_x")
        os.makedirs(sol)
        util.put(os.path.join(sol, "conv.c"),
                 "int f(void)\n{\n    /* >>> SOLUTION */\n    return 1;\n    /* <<< SOLUTION */\n"
                 "    /* >>> STUDENT\n    // TODO: return 1\n    return 0;\n    <<< STUDENT */\n}\n")
        kit = os.path.join(self.tmp, "kit")
        os.makedirs(os.path.join(kit, "common", "scripts"))
        shutil.copy2(os.path.join(os.path.dirname(util.GRADING), "common", "scripts", "mkskel.awk"),
                     os.path.join(kit, "common", "scripts", "mkskel.awk"))
        lab = types.SimpleNamespace(srcs=["conv.c"], name="99_x", solutions=sol, kit=kit)
        dest = os.path.join(self.tmp, "ref-src")
        keys = objcache.ObjectCache.prime(lab, dest)
        handed_in = b"int f(void)\n{\n    return 1;\n}\n"
        self.assertEqual(util.read(os.path.join(dest, "conv.c")).encode(), handed_in)
        self.assertEqual(keys, {objcache.key("conv.c", handed_in)})

    def test_a_link_is_no_object(self):
        obj = os.path.join(self.ref.root, "out", "build", "skel", "conv.c.o")
        os.remove(obj)
        secret = os.path.join(self.tmp, "secret")
        util.put(secret, "SECRET")
        os.symlink(secret, obj)
        c = objcache.ObjectCache()
        self.assertEqual(c.add_box(self.ref, {"conv.c": SRC}), [])

    def test_make_finds_a_seeded_object_up_to_date(self):
        # the kit's rule, as lab.mk has it: the object from the source and a header
        util.put(os.path.join(self.tmp, "kit.h"), "/* a header of the kit */\n")
        util.put(os.path.join(self.tmp, "Makefile"),
                 "out/build/skel/%%.c.o: src/%%.c %s\n\t@mkdir -p $(@D)\n"
                 "\t@echo compiled $< > $@\n" % os.path.join(self.tmp, "kit.h"))
        c = objcache.ObjectCache()
        c.add_box(self.ref, {"conv.c": SRC})
        # as a build does it: the sources put in the box, then the objects seeded
        os.makedirs(os.path.join(self.box.root, "src"))
        util.put(os.path.join(self.box.root, "src", "conv.c"), SRC.decode())
        util.put(os.path.join(self.box.root, "src", "other.c"), "int other;\n")
        c.seed(self.box, {"conv.c": SRC, "other.c": b"int other;\n"})
        for f, want in (("conv.c", "OBJECT OF conv.c"), ("other.c", "compiled src/other.c")):
            subprocess.run(["make", "-s", "-C", self.box.root, "-f",
                            os.path.join(self.tmp, "Makefile"), "out/build/skel/%s.o" % f],
                           check=True)
            self.assertEqual(util.read(os.path.join(self.box.root, "out", "build", "skel",
                                                    f + ".o")).strip(), want)


if __name__ == "__main__":
    unittest.main()
