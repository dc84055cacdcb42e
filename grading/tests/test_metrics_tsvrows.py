# Unit tests of kitmetrics.tsvrows: ncu launches -> the TSV under the legacy names.
import unittest

import metrics_support
from kitmetrics import tsvrows
from kitmetrics.mapping import Mapping
from kitmetrics.ncucsv import Scan

HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
        '"Block Size","Grid Size","Device","CC"')
IDENT = '"0","1","app","h","k\tx(int)","1","7","(8, 4, 1)","(2, 1, 1)","0","9.0"'


def table(result):
    """{(launch, legacy or metric): row as a dict} of a Result."""
    lines = [l.split("\t") for l in result.lines]
    head = lines[0]
    rows = {}
    for fields in lines[1:]:
        row = dict(zip(head, fields))
        key = row["legacy"] if row["legacy"] != "-" else row["metric"]
        rows[(row["launch"], key)] = row
    return rows


class Build(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = Mapping()

    def build(self, text, **kw):
        return tsvrows.build(Scan(text), self.m, source="t", **kw)

    def test_h100_capture_gives_the_figures_nvprof_gave(self):
        r = self.build(metrics_support.fixture_text("transpose_h100_page_raw.csv"))
        rows = table(r)
        self.assertEqual(r.status, tsvrows.OK)
        self.assertEqual(r.warnings, [])
        self.assertEqual(rows[("0", "gld_efficiency")]["value"], "100")
        self.assertEqual(rows[("0", "gst_efficiency")]["value"], "12.50")
        self.assertEqual(rows[("1", "dram_read_throughput")]["value"], "245956724649.98")
        self.assertEqual(rows[("2", "duration")]["value"], "75360")
        self.assertEqual(rows[("2", "duration")]["block"], "32x16x1")
        self.assertEqual(rows[("2", "duration")]["grid"], "64x64x1")
        # the launch attributes: transposeNaive declares no shared memory
        self.assertEqual(rows[("0", "static_shared_mem_per_block")]["value"], "0")
        self.assertEqual(rows[("0", "dynamic_shared_mem_per_block")]["unit"], "byte/block")
        # 10 mapped names present, 3 launches, a header
        self.assertEqual(len(r.lines), 1 + 3 * 10)

    def test_lab04_capture_with_the_lab04_set(self):
        # hand-made in the shape of a live capture: part rgb's six kernels
        want = self.m.resolve("lab04")
        r = self.build(metrics_support.fixture_text("lab04_rgb_shared.csv"), want=want)
        rows = table(r)
        self.assertEqual(r.warnings, [])
        self.assertEqual(len(r.lines), 1 + 6 * 16)
        static = [rows[(str(i), "static_shared_mem_per_block")]["value"] for i in range(6)]
        dynamic = [rows[(str(i), "dynamic_shared_mem_per_block")]["value"] for i in range(6)]
        self.assertEqual(static, ["1200", "1200", "4800", "0", "0", "0"])
        self.assertEqual(dynamic, ["0", "0", "0", "6400", "5184", "6528"])
        self.assertEqual(rows[("2", "l2_read_transactions")]["value"], "2962336")
        self.assertEqual(rows[("2", "l2_write_transactions")]["unit"], "sector")
        self.assertEqual(rows[("5", "gld_throughput")]["value"], "1742009113800.5")
        self.assertEqual(rows[("5", "gst_throughput")]["unit"], "byte/s")
        self.assertEqual(rows[("4", "gld_transactions")]["value"], "9112064")
        self.assertEqual(rows[("3", "dram_write_throughput")]["value"], "140268221870.75")

    def test_a_sum_adds_its_members_with_the_most_decimals(self):
        text = (HEAD + ',"lts__t_sectors_op_atom.sum","lts__t_sectors_op_read.sum",'
                '"lts__t_sectors_op_red.sum","lts__t_sectors_op_write.sum"\n'
                + IDENT + ',"1.5","1,000","0.25","n/a"\n')
        rows = table(self.build(text))
        self.assertEqual(rows[("0", "l2_read_transactions")]["value"], "1001.75")
        self.assertEqual(rows[("0", "l2_write_transactions")]["value"], "NA")

    def test_a_sum_with_an_absent_member_gets_no_row_and_a_warning_when_asked_for(self):
        text = (HEAD + ',"lts__t_sectors_op_read.sum","lts__t_sectors_op_atom.sum"\n'
                + IDENT + ',"5","6"\n')
        r = self.build(text, want=["l2_read_transactions", "duration"])
        self.assertEqual(len(r.lines), 1)
        self.assertEqual(r.warnings, [
            "t: ncu reported no value for l2_read_transactions (missing: lts__t_sectors_op_red.sum)",
            "t: ncu reported no value for duration (gpu__time_duration.sum)"])
        self.assertEqual(self.build(text).warnings, [])

    def test_label_and_tabs_become_spaces(self):
        text = HEAD + ',"gpu__time_duration.sum"\n"","","","","","","","","","","","ns"\n' + IDENT + ',"7"\n'
        r = self.build(text, label="v\t1")
        self.assertEqual(r.lines[0].split("\t")[0], "label")
        self.assertEqual(r.lines[1].split("\t"),
                         ["v 1", "k x(int)", "0", "8x4x1", "2x1x1", "duration",
                          "gpu__time_duration.sum", "7", "ns"])
        self.assertEqual(self.build(text, label="").lines[1].split("\t")[0], "")

    def test_an_unconvertible_unit_is_kept_and_warned_about_once(self):
        text = (HEAD + ',"gpu__time_duration.sum"\n"","","","","","","","","","","","cycle"\n'
                + IDENT + ',"7"\n' + IDENT + ',"8"\n')
        r = self.build(text)
        self.assertEqual([l.split("\t")[-1] for l in r.lines[1:]], ["cycle", "cycle"])
        self.assertEqual(r.warnings, ['t: gpu__time_duration.sum is in "cycle", not "ns"; value kept as ncu printed it'])

    def test_all_columns_add_what_the_mapping_does_not_know(self):
        text = (HEAD + ',"gpu__time_duration.sum","launch__grid_size","device__name"\n'
                '"","","","","","","","","","","","ns","",""\n' + IDENT + ',"1,024","2,048","H 100"\n')
        rows = table(self.build(text, all_columns=True))
        self.assertEqual(set(rows), {("0", "duration"), ("0", "launch__grid_size"), ("0", "device__name")})
        self.assertEqual(rows[("0", "launch__grid_size")]["value"], "2048")
        self.assertEqual(rows[("0", "device__name")]["value"], "H 100")
        self.assertEqual(rows[("0", "duration")]["value"], "1024")

    def test_missing_block_size_is_a_dash(self):
        text = '"ID","Kernel Name","gpu__time_duration.sum"\n"3","k","5"\n'
        row = table(self.build(text))[("3", "duration")]
        self.assertEqual((row["block"], row["grid"]), ("-", "-"))

    def test_statuses(self):
        self.assertEqual(self.build("hello\n").status, tsvrows.NOT_CSV)
        self.assertEqual(self.build("hello\n").lines, [])
        self.assertEqual(self.build(metrics_support.fixture_text("details.csv")).status, tsvrows.DETAILS)
        r = self.build(HEAD + '\n"x, y"\n')
        self.assertEqual(r.status, tsvrows.NO_LAUNCH)
        self.assertEqual(len(r.lines), 1)
        self.assertEqual(r.warnings, ["t: skipped 1 quoted line(s) that do not fit the CSV header"])


if __name__ == "__main__":
    unittest.main()
