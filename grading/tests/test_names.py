"""names.py: every entry graded or listed with why not, links refused, safe ids that never
collide (Zoë and Zoé), names that are data."""
import os
import unittest

import util
from kitgrade.lab import names


class Names(util.TempCase):
    def test_safe_ids(self):
        self.assertEqual(names.safe_id("alice"), "alice")
        self.assertEqual(names.safe_id("a.b@c+d-e_f"), "a.b@c+d-e_f")
        a, b = names.safe_id("Zoë"), names.safe_id("Zoé")
        self.assertNotEqual(a, b)
        self.assertTrue(a.startswith("Zo_-") and b.startswith("Zo_-"))
        for raw in ("$(rm -rf x)", "a b,c", "it's", '"q"', "../up", "-rf", ".x", "ümlaut"):
            sid = names.safe_id(raw)
            self.assertRegex(sid, r"^[A-Za-z0-9][A-Za-z0-9._@+-]*$")
            self.assertNotIn("/", sid)
            self.assertNotEqual(sid, raw)

    def test_scan(self):
        d = os.path.join(self.tmp, "subs")
        for n in ("bob", "Zoë", "Zoé", "a b,c'$(x)", ".git", "Zo_-x"):
            os.makedirs(os.path.join(d, n))
        open(os.path.join(d, "notes.txt"), "w").close()
        os.symlink(os.path.join(d, "bob"), os.path.join(d, "mallory"))
        os.symlink("/etc", os.path.join(d, "eve"))
        sts, skipped = names.scan(d)
        by = {s.name: s for s in sts}
        self.assertEqual(set(by), {"bob", "Zoë", "Zoé", "a b,c'$(x)", "Zo_-x", "mallory", "eve"})
        self.assertEqual(len({s.id for s in sts}), len(sts))
        self.assertIn("symbolic link", by["mallory"].refused)
        self.assertIsNone(by["eve"].path)
        self.assertEqual(by["bob"].refused, "")
        self.assertEqual(by["bob"].path, os.path.join(d, "bob"))
        sk = dict(skipped)
        self.assertIn("dot", sk[".git"])
        self.assertIn("not a folder", sk["notes.txt"])
        # sorted by name
        self.assertEqual([s.name for s in sts],
                         sorted((s.name for s in sts), key=lambda n: n.encode()))

    def test_undecodable_name(self):
        d = os.path.join(self.tmp, "subs")
        os.makedirs(os.fsencode(os.path.join(d, "x")) + b"\xff")
        sts, _ = names.scan(d)
        self.assertEqual(len(sts), 1)
        self.assertIn("\ufffd", sts[0].name)
        self.assertTrue(os.path.isdir(sts[0].path))


if __name__ == "__main__":
    unittest.main()
