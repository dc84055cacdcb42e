"""cupti.py: both record formats, the clock mapping, and records by launch window."""
import unittest

import util  # noqa: F401
from kitgrade.runs import cupti

V2 = """# kitcupti 2
# calib 1000 2000
K\t1100\t1300\t7\t0\t-\tconv_v1(float*, int)
C\t1350\t1400\t7\t4096\tHtoD\t-
K\t1500\t1600\t8\t0\t-\tconv_v1(float*, int)
K\t1550\t1700\t9\t0\t-\tother
# calib 3000 4000
# end
"""
V1 = """# kitcupti 1
# calib 500 500
conv_v2_kernel\t600\t650\t50
garbage line
# end kernels=1 dropped=0
"""


V3 = """# kitcupti 3
# calib 0 0
M\t50\t50\t0\t1048576\tdevice\talloc\t0x7f0000
K\t100\t200\t7\t0\t-\ttile_kernel\t4352+1024
C\t210\t260\t7\t4096\tDtoH\t-\tdevice>pinned
M\t300\t300\t0\t1048576\tdevice\tfree\t0x7f0000
M\t310\t310\t0\t64\tmanaged\talloc\t0xabc
# calib 1 1
# end kernels=1 copies=1 memory=3 dropped=0
"""


class Cupti(unittest.TestCase):
    def test_v3(self):
        t = cupti.parse(V3)
        self.assertTrue(t.complete and t.copies_recorded and t.memory_recorded)
        k = [r for r in t.records if r.kind == "K"][0]
        self.assertEqual((k.name, k.smem), ("tile_kernel", 5376))
        c = [r for r in t.records if r.kind == "C"][0]
        self.assertEqual((c.copy, c.src, c.dst), ("DtoH", "device", "pinned"))
        m = [r for r in t.records if r.kind == "M"]
        self.assertEqual([(r.op, r.src, r.bytes, r.addr) for r in m],
                         [("alloc", "device", 1 << 20, 0x7f0000), ("free", "device", 1 << 20,
                                                                   0x7f0000),
                          ("alloc", "managed", 64, 0xabc)])
        # memory records are no engine's work: a window holds its kernels and copies only
        self.assertEqual([len(x) for x in cupti.in_window(t, 0, 1000)], [1, 1])
        self.assertEqual(cupti.device_peak(t, 0, 1000), 1 << 20)
        self.assertEqual(cupti.device_peak(t, 60, 305), 0)      # taken before the window
        self.assertEqual(cupti.device_peak(t, 60, 1000), 64)    # managed memory is the GPU's
        self.assertEqual(cupti.managed_live(t, 0, 1000), 64)
        # taken since a first call and still held at a window's start; given back before it
        self.assertEqual(cupti.held_at(t, 0, 100), 1 << 20)
        self.assertEqual(cupti.held_at(t, 60, 100), 0)
        self.assertEqual(cupti.held_at(t, 0, 305), 0)
        self.assertEqual(cupti.device_peak(t, 100, 200, since=0), 1 << 20)
        # held when the window starts, though its first record gives some of it back
        f = cupti.parse(V3.replace("M\t300\t300\t0\t1048576\tdevice\tfree\t0x7f0000",
                                   "M\t300\t300\t0\t1048576\tdevice\tfree\t0x7f0000\n"
                                   "M\t40\t40\t0\t2097152\tdevice\talloc\t0x600000\n"
                                   "M\t305\t305\t0\t2097152\tdevice\tfree\t0x600000"))
        self.assertEqual(cupti.device_peak(f, 302, 1000, since=0), 2 << 20)
        self.assertEqual(cupti.managed_live(t, 0, 305), 0)       # taken after it
        v2 = cupti.parse(V2)
        self.assertFalse(v2.memory_recorded)
        self.assertEqual(v2.records[0].smem, -1)


    def test_v2(self):
        t = cupti.parse(V2)
        self.assertTrue(t.complete)
        self.assertTrue(t.copies_recorded)
        self.assertEqual(len(t.records), 4)
        k = t.records[0]
        self.assertEqual((k.kind, k.start, k.end, k.name), ("K", 2100, 2300, "conv_v1(float*, int)"))
        c = t.records[1]
        self.assertEqual((c.kind, c.bytes, c.copy), ("C", 4096, "HtoD"))

    def test_v1_and_incomplete(self):
        t = cupti.parse(V1)
        self.assertTrue(t.complete)
        self.assertFalse(t.copies_recorded)
        self.assertEqual([(r.kind, r.start, r.end) for r in t.records], [("K", 600, 650)])
        self.assertFalse(cupti.parse(V2.replace("# end\n", "")).complete)

    def test_clock_scale(self):
        t = cupti.parse("# kitcupti 2\n# calib 0 100\n# calib 1000 2100\nK\t500\t600\t1\t0\t-\tk\n")
        self.assertAlmostEqual(t.records[0].start, 100 + 2 * 500)

    def test_windows_union_envelope(self):
        t = cupti.parse(V2)
        ks, cs = cupti.in_window(t, 2100, 2400, slack=0)
        self.assertEqual(len(ks), 1)
        self.assertEqual(len(cs), 1)
        ks, cs = cupti.in_window(t, 2450, 2800, slack=0)
        self.assertEqual(len(ks), 2)
        self.assertEqual(cupti.union_ns(ks), 200)        # 2500..2700, overlapping
        self.assertEqual(cupti.envelope_ns(ks), 200)
        self.assertEqual(cupti.union_ns(t.records[:1] + ks), 400)
        self.assertEqual(cupti.envelope_ns([]), 0.0)
        # a total span starts at the call when that is earlier (host work before the GPU's)
        self.assertEqual(cupti.envelope_ns(ks, since=ks[0].start - 500), 700)
        self.assertEqual(cupti.envelope_ns(ks, since=ks[0].start + 50), 200)
        self.assertEqual(cupti.in_window(t, 90000, 91000), ([], []))

    def test_the_kits_download_is_not_the_windows(self):
        """A copy from the device of the output's size that starts at the window's end (2 us
        after it on the grader's clock) and runs on for milliseconds is the kit's download:
        a correct lab 05 copies v2 (pinned) was failed for the kit's 16 MB download to
        pageable memory. Any other copy there is the student's (a non-blocking stream's copy
        started as the window closes is not waited for): still counted, as is a copy that
        ends by the window's end or starts well before it."""
        R = cupti.Rec
        t = cupti.Trace()
        own = R("C", 1000, 900000, "7", 1 << 24, "DtoH", src="device", dst="pinned")
        late_small = R("C", 905000, 940000, "7", 4096, "DtoH", src="device", dst="pinned")
        download = R("C", 1002000, 4000000, "7", 1 << 24, "DtoH", src="device", dst="pageable")
        t.records = [own, late_small, download]
        self.assertEqual(cupti.in_window(t, 0, 1000000, download=1 << 24)[1], [own, late_small])
        self.assertEqual(cupti.in_window(t, 0, 1000000)[1], [own, late_small, download])
        hidden = [R("C", 1001000, 3000000, "21", 12 << 20, "DtoH", src="device", dst="pinned"),
                  R("C", 1001000, 3000000, "21", 1 << 24, "HtoD", src="pinned", dst="device"),
                  R("C", 800000, 3000000, "9", 1 << 24, "DtoH", src="device", dst="pinned")]
        t.records = hidden
        self.assertEqual(cupti.in_window(t, 0, 1000000, download=1 << 24)[1], hidden)

    def test_streams_overlapping(self):
        R = cupti.Rec
        k1, k2 = R("K", 0, 100, "1"), R("K", 50, 150, "2")
        c2, c3 = R("C", 60, 90, "2", 8, "HtoD"), R("C", 200, 300, "3", 8, "DtoH")
        # two kernels side by side are no copy beside a kernel
        self.assertEqual(cupti.streams_overlapping([k1, k2]), set())
        self.assertEqual(cupti.streams_overlapping([k1, k2], mixed=False), {"1", "2"})
        self.assertEqual(cupti.streams_overlapping([k1, c2, c3]), {"1", "2"})
        self.assertEqual(cupti.streams_overlapping([R("K", 0, 100, "1"), R("C", 10, 20, "1")]),
                         set())                      # one stream: no overlap between streams


if __name__ == "__main__":
    unittest.main()
