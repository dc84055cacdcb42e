"""Tests of kitgrade.course.similarity: sim_c over the class and earlier years, skeleton left out."""

import os
import re
import sys
import tempfile
import unittest
from unittest.mock import patch
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kitgrade.course import similarity  # noqa: E402
from kitgrade.course.similarity import SimilarityError, collect, compare, markdown  # noqa: E402

HAVE_SIM = similarity.find_tool() is not None
LAB = "labs/03_global_mem"

SKELETON = """\
/* conv.cu - lab 03: a 2D convolution on the GPU (the student's file). */
#include <cuda_runtime.h>
#include "conv.h"

/* Given: the index of a pixel clamped to the picture, for the borders. */
__device__ static int clamp_index(int v, int lo, int hi)
{
    if (v < lo)
        return lo;
    if (v > hi)
        return hi;
    return v;
}

/* Given: one thread per output pixel, blocks of 16x16. */
void conv_launch(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                 const float *d_filter, int radius, cudaStream_t stream)
{
    dim3 block(16, 16);
    dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
    conv_v1<<<grid, block, 0, stream>>>(d_in, d_out, width, height, d_filter, radius);
    KIT_CHECK_LAUNCH();
}

__global__ void conv_v1(const unsigned char *in, unsigned char *out, int w, int h,
                        const float *f, int r)
{
    /* TODO: your kernel */
}
"""

KERNEL_A = """\
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float acc = 0.0f;
    for (int dy = -r; dy <= r; dy++) {
        for (int dx = -r; dx <= r; dx++) {
            int xx = clamp_index(x + dx, 0, w - 1);
            int yy = clamp_index(y + dy, 0, h - 1);
            acc += f[(dy + r) * (2 * r + 1) + dx + r] * in[yy * w + xx];
        }
    }
    out[y * w + x] = (unsigned char)(acc + 0.5f);
"""

# The same kernel, renamed and re-laid-out, with other comments: a copy all the same.
KERNEL_A_DISGUISED = """\
    // my own work!
    int col = blockIdx.x*blockDim.x + threadIdx.x; int row = blockIdx.y*blockDim.y + threadIdx.y;
    if (col >= w || row >= h) return;
    float total = 0.0f;   /* running sum */
    for (int j = -r; j <= r; j++)
    {
        for (int i = -r; i <= r; i++)
        {
            int cx = clamp_index(col + i, 0, w - 1);
            int cy = clamp_index(row + j, 0, h - 1);
            total += f[(j + r) * (2 * r + 1) + i + r] * in[cy * w + cx];
        }
    }
    out[row * w + col] = (unsigned char)(total + 0.5f);
"""

KERNEL_C = """\
    const int n = 2 * r + 1;
    int gx = threadIdx.x + blockIdx.x * blockDim.x;
    int gy = threadIdx.y + blockIdx.y * blockDim.y;
    if (gx < w && gy < h) {
        float s = 0;
        int k = 0;
        while (k < n * n) {
            int px = gx + k % n - r, py = gy + k / n - r;
            px = px < 0 ? 0 : (px >= w ? w - 1 : px);
            py = py < 0 ? 0 : (py >= h ? h - 1 : py);
            s = fmaf(f[k], (float)in[py * w + px], s);
            ++k;
        }
        out[gy * w + gx] = (unsigned char)__float2int_rn(s);
    }
"""

# Alice's kernel again, with comments meant to break the report: fences, HTML, table bars and
# a right-to-left override.
HOSTILE = ("    /* ``` </pre><script>alert(1)</script> | *bold* \u202e gnp.exe */\n"
           + KERNEL_A.replace("threadIdx.x;\n", "threadIdx.x; /* ```` */\n", 1))


def filled(body):
    return SKELETON.replace("    /* TODO: your kernel */\n", body)


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="kit-sim-test-")
        self.root = Path(self.tmp.name)
        self.skel = self.root / "skeleton.cu"
        self.skel.write_text(SKELETON)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, folder, student, body, lab_dir=False):
        d = self.root / folder / student / (LAB if lab_dir else "")
        d.mkdir(parents=True, exist_ok=True)
        (d / "conv.cu").write_text(filled(body) if body is not None else SKELETON)
        return d / "conv.cu"


class Collect(Base):
    def test_root_and_kit_path(self):
        self.write("subs", "alice", KERNEL_A)
        self.write("subs", "bob", KERNEL_C, lab_dir=True)
        (self.root / "subs" / "empty").mkdir()
        (self.root / "subs" / ".git").mkdir()
        got = collect(self.root / "subs", ["conv.cu"], lab_dir=LAB, label_prefix="2025/")
        self.assertEqual(sorted(got), ["2025/alice", "2025/bob"])
        self.assertEqual(got["2025/bob"]["conv.cu"].parent.name, "03_global_mem")
        # a link on the way (carol/labs -> bob's labs, or the kit's solutions) brings code
        # that is not the student's: not collected
        (self.root / "subs" / "carol").mkdir()
        os.symlink(self.root / "subs" / "bob" / "labs", self.root / "subs" / "carol" / "labs")
        got = collect(self.root / "subs", ["conv.cu"], lab_dir=LAB)
        self.assertEqual(sorted(got), ["alice", "bob"])


@unittest.skipUnless(HAVE_SIM, "sim_c is not installed (Debian package similarity-tester)")
class Compare(Base):
    def cls(self):
        self.write("subs", "alice", KERNEL_A)
        self.write("subs", "bob", KERNEL_A_DISGUISED)
        self.write("subs", "carol", KERNEL_C)
        self.write("subs", "dave", None)              # nothing but the skeleton
        self.write("old", "zed", KERNEL_C)            # last year's student, carol's kernel
        self.write("old", "yan", KERNEL_C)            # and another: old ones never paired
        return (collect(self.root / "subs", ["conv.cu"]),
                collect(self.root / "old", ["conv.cu"], label_prefix="2024/"))

    def pairs(self, report):
        return {(p.a, p.b): p for p in report.pairs}

    def test_copies_found_skeleton_left_out(self):
        cur, old = self.cls()
        rep = compare(cur, skeleton={"conv.cu": self.skel}, earlier=old, threshold=40)
        pairs = self.pairs(rep)
        self.assertEqual(set(pairs), {("alice", "bob"), ("carol", "2024/yan"),
                                      ("carol", "2024/zed")})
        ab = pairs[("alice", "bob")]
        self.assertFalse(ab.earlier)
        self.assertGreaterEqual(ab.share, 80)
        # The shared run is the kernel: it starts in the kernel, never in the given code.
        first = ab.passages[0]
        self.assertGreaterEqual(first.a_lines[0], 26)
        self.assertGreaterEqual(first.b_lines[0], 26)
        self.assertGreater(first.tokens, 100)
        self.assertTrue(pairs[("carol", "2024/zed")].earlier)
        self.assertEqual((rep.students, rep.earlier), (4, 2))

    def test_without_the_skeleton_everybody_looks_alike(self):
        # Proves the exclusion does the work: with no skeleton, dave (who wrote nothing)
        # shares the given code with everyone.
        cur, _ = self.cls()
        rep = compare(cur, skeleton={}, threshold=40)
        self.assertTrue(any("dave" in (p.a, p.b) for p in rep.pairs))
        self.assertIn("conv.cu: no skeleton given; nothing left out", rep.notes)

    def test_threshold(self):
        cur, old = self.cls()
        rep = compare(cur, skeleton={"conv.cu": self.skel}, earlier=old, threshold=101)
        self.assertEqual(rep.pairs, [])
        self.assertIn("No pair reaches the threshold.", markdown(rep))

    def test_report_side_by_side_and_escaped(self):
        self.write("subs", "alice", KERNEL_A)
        self.write("subs", "eve_|*<b>", HOSTILE)
        self.write("subs", "linked", None)
        os.unlink(self.root / "subs" / "linked" / "conv.cu")
        os.symlink(self.root / "subs" / "alice" / "conv.cu",
                   self.root / "subs" / "linked" / "conv.cu")
        rep = compare(collect(self.root / "subs", ["conv.cu"]),
                      skeleton={"conv.cu": self.skel}, threshold=40)
        self.assertEqual([(p.a, p.b) for p in rep.pairs], [("alice", "eve_|*<b>")])
        self.assertTrue(any(n.startswith("linked, conv.cu: cannot be opened") for n in rep.notes),
                        rep.notes)
        md = markdown(rep)
        self.assertIn(r"eve\_\|\*\<b\>", md)
        self.assertNotIn("eve_|*<b>", md)
        self.assertNotIn("\u202e", md)
        # Every passage sits in a fence longer than any run of backticks inside it.
        blocks = re.findall(r"^(`{3,})text\n(.*?)\n\1$", md, re.S | re.M)
        self.assertTrue(blocks)
        for fence, body in blocks:
            self.assertNotIn(fence, body)
            self.assertIn(" | ", body)                # two columns
        self.assertIn("acc += f[(dy + r)", md)
        self.assertEqual(rep.to_dict()["pairs"][0]["share"], rep.pairs[0].share)

    def test_padding_neither_stalls_the_comparison_nor_hides_a_copy_silently(self):
        # bob hands in alice's kernel with 5,000 lines of one declaration after it (sim_c took
        # minutes on two such files): the repeats are left out and the copy found. mallory's
        # padding is 1,500 declarations on one line (two files of 6,000 held sim_c 3 minutes):
        # her file cannot be compared even with itself in time, and is left out, said in the
        # notes; carol's takes turns between two declarations, which sim_c compares at once
        self.write("subs", "alice", KERNEL_A)
        self.write("subs", "bob", KERNEL_A + "    int a;\n" * 5000)
        f = self.write("subs", "mallory", KERNEL_A)
        with open(f, "a") as out:
            out.write(" ".join("int b%d;" % i for i in range(1500)) + "\n")
        self.write("subs", "carol", KERNEL_A + "".join("    int b%d;\n    float c%d;\n"
                                                       % (i, i) for i in range(2500)))
        with patch.object(similarity, "SELF_TIMEOUT", 0.5):
            rep = compare(collect(self.root / "subs", ["conv.cu"]),
                          skeleton={"conv.cu": self.skel}, threshold=40, timeout=30)
        self.assertEqual([(p.a, p.b) for p in rep.pairs],
                         [("alice", "bob"), ("alice", "carol"), ("bob", "carol")])
        self.assertTrue(any(n.startswith("mallory, conv.cu: the similarity tester could not "
                                         "compare it with a copy of itself") for n in rep.notes),
                        rep.notes)
        self.assertEqual(similarity._drop_repeats(["a = 1;", " a=1; ", "b;", ")", ")", "b;"]),
                         ["a = 1;", "", "b;", ")", ")", "b;"])

    def test_a_copy_one_token_a_line_is_found(self):
        self.write("subs", "alice", KERNEL_A)
        self.write("subs", "bob", KERNEL_C)
        self.write("subs", "mallory", "\n".join(re.findall(r"\w+|\S", KERNEL_A)) + "\n")
        rep = compare(collect(self.root / "subs", ["conv.cu"]),
                      skeleton={"conv.cu": self.skel}, threshold=40)
        self.assertIn(("alice", "mallory"), [(p.a, p.b) for p in rep.pairs])

    def test_too_much_left_to_compare_is_left_out_and_said(self):
        self.write("subs", "alice", KERNEL_A)
        self.write("subs", "bob", KERNEL_A)
        # shapes that do not repeat within four lines: all of it is left to compare
        self.write("subs", "carol", KERNEL_A + "".join(
            "    g(%s);\n" % ", ".join(["x"] * (1 + i % 40)) for i in range(4000)))
        rep = compare(collect(self.root / "subs", ["conv.cu"]),
                      skeleton={"conv.cu": self.skel}, threshold=40, timeout=60)
        self.assertEqual([(p.a, p.b) for p in rep.pairs], [("alice", "bob")])
        self.assertTrue(any(n.startswith("carol, conv.cu: more than 256 KB to compare")
                            for n in rep.notes), rep.notes)

    def test_a_comparison_past_its_time_names_the_longest_files(self):
        self.write("subs", "alice", KERNEL_A)
        self.write("subs", "bob", KERNEL_C + "    x = y;\n    y = x;\n" * 20)
        self.write("subs", "carol", KERNEL_C)
        slow = self.root / "slow-sim"       # each file with itself at once, the class slowly
        slow.write_text("#!/bin/sh\n[ \"$(wc -l)\" -le 2 ] || exec sleep 30\n")
        slow.chmod(0o755)
        with self.assertRaises(SimilarityError) as e:
            compare(collect(self.root / "subs", ["conv.cu"]), skeleton={"conv.cu": self.skel},
                    tool=str(slow), timeout=0.5)
        self.assertRegex(str(e.exception), r"took longer than 0\.5 s, on conv\.cu \(the "
                                           r"longest: bob \d+ lines, carol \d+ lines, alice "
                                           r"\d+ lines\)")

    def test_refusals(self):
        cur, old = self.cls()
        with self.assertRaises(SimilarityError):
            compare(cur, skeleton={}, earlier={"alice": cur["alice"]})
        with self.assertRaises(SimilarityError):
            compare(cur, skeleton={}, tool=str(self.root / "no-such-tool"))


class Missing(Base):
    def test_no_tool(self):
        self.write("subs", "alice", KERNEL_A)
        old = os.environ.get("PATH", "")
        os.environ["PATH"] = str(self.root)
        try:
            with self.assertRaises(SimilarityError) as e:
                compare(collect(self.root / "subs", ["conv.cu"]), skeleton={})
        finally:
            os.environ["PATH"] = old
        self.assertIn("similarity-tester", str(e.exception))


if __name__ == "__main__":
    unittest.main()
