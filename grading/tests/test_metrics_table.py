# Unit tests of kitmetrics.table: the aligned table students read after `make profile`.
import unittest

import metrics_support
from kitmetrics.failure import Failure
from kitmetrics.table import render, show

HEAD = "label\tkernel\tlaunch\tblock\tgrid\tlegacy\tmetric\tvalue\tunit\n"


class Show(unittest.TestCase):
    def test_each_unit_as_the_course_reads_it(self):
        self.assertEqual(show("12.5", "%"), ("12.5", "%"))
        self.assertEqual(show("79.834", "%"), ("79.8", "%"))
        self.assertEqual(show("246391118701.96", "byte/s"), ("246.4", "GB/s"))
        self.assertEqual(show("0", "byte/s"), ("0.0", "GB/s"))
        self.assertEqual(show("3000000", "byte/second"), ("3.0", "MB/s"))
        self.assertEqual(show("1280448", "ns"), ("1.280", "ms"))
        self.assertEqual(show("74944", "ns"), ("74.94", "us"))
        self.assertEqual(show("16", "thread"), ("16.0", "threads (50.0 % of a warp)"))
        self.assertEqual(show("14017536", "sector"), ("14,017,536", "sector"))
        self.assertEqual(show("-1234", "count"), ("-1,234", "count"))
        self.assertEqual(show("1234567.5", "wavefront/s"), ("1.235e+06", "wavefront/s"))
        self.assertEqual(show("4.125", "ratio"), ("4.12", "ratio"))

    def test_shared_memory_per_block_in_bytes_with_kib_beside(self):
        self.assertEqual(show("24576", "byte/block"), ("24,576", "byte/block (24.0 KiB)"))
        self.assertEqual(show("49152", "byte/block"), ("49,152", "byte/block (48.0 KiB)"))
        self.assertEqual(show("1000", "byte/block"), ("1,000", "byte/block"))
        self.assertEqual(show("0", "byte/block"), ("0", "byte/block"))
        self.assertEqual(show("2962304", "sector"), ("2,962,304", "sector"))

    def test_missing_and_text_values(self):
        self.assertEqual(show("NA", "%"), ("n/a", ""))
        self.assertEqual(show("", "%"), ("n/a", ""))
        self.assertEqual(show("NVIDIA H100", ""), ("NVIDIA H100", ""))


class Render(unittest.TestCase):
    def test_the_h100_capture(self):
        status, tsv, _ = metrics_support.run_cli(
            ["parse", "--label", "naive", metrics_support.fixture("transpose_h100_page_raw.csv")])
        self.assertEqual(status, 0)
        lines = render(tsv, "t")
        self.assertRegex(lines[0], r"^label +kernel +launch +metric +value +unit$")
        self.assertEqual(lines[1].split("  ")[0], "naive")
        self.assertIn("transposeNaive(float *, float *, int,...", lines[1])
        self.assertRegex(lines[2], r"^ +gst_efficiency +12\.5  %$")
        self.assertRegex(lines[4], r"^ +dram_read_throughput +246\.4  GB/s$")
        # one block per launch: the label, kernel and launch only on its first line
        self.assertEqual(sum(1 for l in lines if l.startswith("naive")), 3)

    def test_values_are_right_aligned_units_left(self):
        tsv = HEAD + "v\tk\t0\t-\t-\tgld_efficiency\tm\t100\t%\nv\tk\t0\t-\t-\tduration\tm\t5000000\tns\n"
        lines = render(tsv, "t")
        self.assertEqual(lines[1], "v      k       0       gld_efficiency  100.0  %")
        self.assertEqual(lines[2], "                       duration        5.000  ms")

    def test_without_label_and_unknown_columns_by_their_ncu_name(self):
        tsv = "kernel\tlaunch\tlegacy\tmetric\tvalue\tunit\n# note\n\nk\t3\t-\tlaunch__x\t7\t\n"
        self.assertEqual(render(tsv, "t"), ["kernel  launch  metric     value  unit", "k       3       launch__x      7"])

    def test_no_rows_and_not_a_tsv(self):
        self.assertEqual(render(HEAD, "t")[-1], "(no metrics)")
        with self.assertRaises(Failure) as c:
            render('"ID","Kernel Name"\n', "x.csv")
        self.assertEqual(c.exception.code, 2)
        self.assertIn("x.csv: not a metrics TSV", c.exception.line)


if __name__ == "__main__":
    unittest.main()
