"""objcache.py: a student file with the bytes of the skeleton's or the reference's gets the
object their trusted build made, under its own name only, no link followed, and make then
finds it up to date; any other file is compiled as before."""
import os
import subprocess
import types
import unittest

import util
from kitgrade.lab import objcache


class Box:
    def __init__(self, root):
        self.root = root
        self.uid = None


class ObjectCache(util.TempCase):
    def setUp(self):
        super().setUp()
        self.built = os.path.join(self.tmp, "built")
        os.makedirs(self.built)
        util.put(os.path.join(self.built, "conv.c"), "int conv(void) { return 1; }\n")
        util.put(os.path.join(self.built, "conv.c.o"), "OBJECT OF conv.c")
        self.box = Box(os.path.join(self.tmp, "box"))
        os.makedirs(self.box.root)

    def test_key_is_name_and_bytes(self):
        k = objcache.key("conv.c", b"x")
        self.assertNotEqual(k, objcache.key("words.c", b"x"))
        self.assertNotEqual(k, objcache.key("conv.c", b"x "))
        self.assertEqual(k, objcache.key("conv.c", b"x"))

    def test_same_name_and_bytes_seeded_others_not(self):
        c = objcache.ObjectCache()
        self.assertEqual(c.add_build(["conv.c", "gone.c"], self.built, self.built), ["conv.c"])
        src = util.read(os.path.join(self.built, "conv.c")).encode()
        self.assertTrue(c.has("conv.c", src))
        seeded = c.seed(self.box, {"conv.c": src, "other.c": src, "sep.c": b"mine"})
        self.assertEqual(seeded, ["conv.c"])
        out = os.path.join(self.box.root, "out", "build", "skel")
        self.assertEqual(util.read(os.path.join(out, "conv.c.o")), "OBJECT OF conv.c")
        self.assertEqual(sorted(os.listdir(out)), ["conv.c.o"])
        # one byte more: compiled as a student's file
        self.assertEqual(c.seed(self.box, {"conv.c": src + b" "}), [])

    def test_prime_builds_the_reference_from_a_students_copy(self):
        kit = os.path.join(self.tmp, "kit")
        sol = os.path.join(kit, "solutions", "99_x")
        skel = os.path.join(self.tmp, "pristine", ".skeleton", "build", "skel")
        os.makedirs(sol)
        os.makedirs(skel)
        os.makedirs(os.path.join(self.tmp, "pristine", "labs", "99_x"))
        util.put(os.path.join(sol, "conv.c"),
                 "int f(void)\n{\n    /* >>> SOLUTION */\n    return 1;\n    /* <<< SOLUTION */\n"
                 "    /* >>> STUDENT\n    // TODO: return 1\n    return 0;\n    <<< STUDENT */\n}\n")
        lab = types.SimpleNamespace(srcs=["conv.c"], name="99_x", solutions=sol)
        c = objcache.ObjectCache()
        dest = os.path.join(self.tmp, "ref-src")
        keys = c.prime(lab, os.path.join(self.tmp, "pristine"), dest)
        handed_in = b"int f(void)\n{\n    return 1;\n}\n"
        self.assertEqual(util.read(os.path.join(dest, "conv.c")).encode(), handed_in)
        self.assertEqual(keys, {objcache.key("conv.c", handed_in)})

    def test_a_link_is_no_object(self):
        os.remove(os.path.join(self.built, "conv.c.o"))
        secret = os.path.join(self.tmp, "secret")
        util.put(secret, "SECRET")
        os.symlink(secret, os.path.join(self.built, "conv.c.o"))
        c = objcache.ObjectCache()
        self.assertEqual(c.add_build(["conv.c"], self.built, self.built), [])

    def test_make_finds_a_seeded_object_up_to_date(self):
        # the kit's rule, as lab.mk has it: the object from the source and a header
        util.put(os.path.join(self.tmp, "kit.h"), "/* a header of the kit */\n")
        util.put(os.path.join(self.tmp, "Makefile"),
                 "out/build/skel/%%.c.o: src/%%.c %s\n\t@mkdir -p $(@D)\n"
                 "\t@echo compiled $< > $@\n" % os.path.join(self.tmp, "kit.h"))
        src = b"int conv(void) { return 1; }\n"
        c = objcache.ObjectCache()
        c.add_build(["conv.c"], self.built, self.built)
        # as a build does it: the sources put in the box, then the objects seeded
        os.makedirs(os.path.join(self.box.root, "src"))
        util.put(os.path.join(self.box.root, "src", "conv.c"), src.decode())
        util.put(os.path.join(self.box.root, "src", "other.c"), "int other;\n")
        c.seed(self.box, {"conv.c": src, "other.c": b"int other;\n"})
        for f, want in (("conv.c", "OBJECT OF conv.c"), ("other.c", "compiled src/other.c")):
            subprocess.run(["make", "-s", "-C", self.box.root, "-f",
                            os.path.join(self.tmp, "Makefile"), "out/build/skel/%s.o" % f],
                           check=True)
            self.assertEqual(util.read(os.path.join(self.box.root, "out", "build", "skel",
                                                    f + ".o")).strip(), want)


if __name__ == "__main__":
    unittest.main()
