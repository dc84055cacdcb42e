"""labinfo.py: the lab as its checker's describe says, names and shapes read, rubric checked."""
import json
import unittest

import util
from kitgrade.lab import labinfo, rubric

DESC = {"lab": "05", "title": "streams", "gpu": True, "parts": [
    {"name": "strip", "variants": [
        {"v": 1, "name": "copy", "span": "total", "ceiling": "pcie", "min_launches": 2},
        {"id": 2, "name": "k", "span": "kernel", "ceiling": "device-copy", "given": True}]},
    {"name": "batch", "variants": {"1": {"span": "host", "ceiling": "host-mem",
                                         "min_launches": 0}}}]}


class LabInfo(util.TempCase):
    def test_from_json(self):
        i = labinfo.from_json(DESC)
        self.assertTrue(i.gpu)
        v = i.variant("strip", 1)
        self.assertEqual((v.span, v.ceiling, v.min_launches, v.given), ("total", "pcie", 2, False))
        self.assertEqual(i.variant("strip", 2).min_launches, 1)     # a GPU lab's default
        self.assertTrue(i.variant("strip", 2).given)
        self.assertEqual(i.variant("batch", 1).span, "host")
        self.assertEqual(i.part_variants("strip"), [1, 2])
        self.assertIsNone(i.variant("strip", 9))

    def test_outputs(self):
        o = labinfo.outputs_from_json({"part": "", "variants": [
            {"id": 1, "na": None, "output": {"type": "f32", "w": 7, "h": 3, "c": 4,
                                             "planar": 0, "atol": 0.01, "rtol": 1e-5},
             "bytes": 672},
            {"variant": 2, "n/a": "a filter it does not take"},
            {"id": 3, "type": "f64", "width": 5, "height": 1, "bytes": 80}]})
        self.assertEqual(o[1].size, 7 * 3 * 4 * 4)
        self.assertEqual(o[1].bytes, 672)
        self.assertEqual(o[2].na, "a filter it does not take")
        self.assertEqual(o[3].size, 40)

    def test_describe_runs_the_checker(self):
        case = dict(DESC, case={"part": "strip", "variants": [
            {"v": 1, "supported": True, "type": "u8", "w": 2, "h": 2, "c": 2, "bytes": 8},
            {"v": 2, "supported": False, "why": "no"}]})
        chk = self.write("check-05", "#!/bin/sh\nif [ $# = 1 ]; then echo '%s'; "
                         "elif [ \"$2 $3 $4\" = '--part strip --' ]; then echo '%s'; "
                         "else echo '{\"case\": {\"error\": \"bad size\"}}'; exit 1; fi\n"
                         % (json.dumps(DESC), json.dumps(case)), 0o755)
        i = labinfo.describe(chk)
        self.assertEqual(sorted(i.parts), ["batch", "strip"])
        o = labinfo.describe_case(chk, "strip", ["--size", "2x2"])
        self.assertEqual(o[1].size, 8)
        self.assertEqual(o[2].na, "no")
        with self.assertRaisesRegex(labinfo.LabError, "^bad size$"):
            labinfo.describe_case(chk, "tile", ["--size", "0x2"])
        bad = self.write("bad", "#!/bin/sh\necho nope >&2\nexit 2\n", 0o755)
        with self.assertRaisesRegex(labinfo.LabError, r"exit 2\): nope"):
            labinfo.describe(bad)
        garbage = self.write("garbage", "#!/bin/sh\necho '{'\n", 0o755)
        with self.assertRaisesRegex(labinfo.LabError, "JSON"):
            labinfo.describe(garbage)

    def test_check_rubric(self):
        i = labinfo.from_json(DESC)
        r = rubric.parse("x", "points strip:1 1 1\npoints strip:7 1 1\npoints tile:1 1 1\n"
                              "case x strip:1 --a\n")
        bad = labinfo.check_rubric(i, r)
        self.assertEqual(len(bad), 2)
        self.assertIn("strip:7", bad[0])
        self.assertIn("part 'tile'", bad[1])


if __name__ == "__main__":
    unittest.main()
