# Unit tests of kitmetrics.mapping: the data files grading/metrics.tsv and metric_sets.tsv, and
# resolving sets and name lists into legacy names and ncu metrics.
import re
import unittest

import metrics_support
from kitmetrics.failure import Failure
from kitmetrics.mapping import Mapping

# every ncu metric name the mapping may use: unit__counter[.rollup][.submetric], checked names
NCU_NAME = re.compile(r"[a-z0-9]+__[a-z0-9_]+(\.(sum|avg|max|min))?(\.[a-z_]+)?\Z")


class RealFiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = Mapping()

    def test_every_set_resolves(self):
        for name in self.m.set_order:
            self.assertTrue(self.m.resolve(name), name)

    def test_lab_sets(self):
        self.assertEqual(self.m.resolve("lab04"), [
            "shared_ld_bank_conflict", "shared_st_bank_conflict", "shared_efficiency",
            "shared_load_transactions", "gld_efficiency", "achieved_occupancy",
            "gld_throughput", "gst_throughput", "dram_read_throughput", "dram_write_throughput",
            "gld_transactions", "gst_transactions", "l2_read_transactions", "l2_write_transactions",
            "static_shared_mem_per_block", "dynamic_shared_mem_per_block"])
        self.assertEqual(self.m.resolve("lab07"), [
            "gld_efficiency", "gst_efficiency", "shared_ld_bank_conflict",
            "shared_st_bank_conflict", "dram_read_throughput", "dram_write_throughput",
            "l2_l1_read_throughput"])
        self.assertEqual(self.m.resolve("lab03"), self.m.resolve("global") + self.m.resolve("mix"))
        self.assertEqual(self.m.resolve("lab06"), self.m.resolve("matvec"))

    def test_l2_l1_read_throughput_is_a_sector_rate_shown_in_bytes(self):
        e = self.m.by_name["l2_l1_read_throughput"]
        self.assertEqual(e.members, ["lts__t_sectors_srcunit_tex_op_read.sum.per_second"])
        self.assertEqual(e.unit, "byte/s")

    def test_all_is_every_name_with_an_equivalent(self):
        names = [e.legacy for e in self.m.entries if e.available]
        self.assertEqual(self.m.resolve("all"), names)
        self.assertEqual(len(names), 31)

    def test_lab04_asks_ncu_for_18_metrics_each_once(self):
        # 16 legacy names; the two L2 sums share their atomics and reductions
        wanted = self.m.ncu_metrics(self.m.resolve("lab04"))
        self.assertEqual(len(wanted), 18)
        self.assertEqual(len(set(wanted)), 18)

    def test_shared_memory_per_block_is_a_launch_attribute_in_bytes(self):
        for legacy, name in (("static_shared_mem_per_block", "launch__shared_mem_per_block_static"),
                             ("dynamic_shared_mem_per_block",
                              "launch__shared_mem_per_block_dynamic")):
            e = self.m.by_name[legacy]
            self.assertEqual(e.members, [name])
            self.assertEqual(e.unit, "byte/block")
            self.assertTrue(e.note.startswith("launch attribute"), legacy)

    def test_every_ncu_name_is_well_formed(self):
        for e in self.m.entries:
            for member in e.members:
                self.assertRegex(member, NCU_NAME)

    def test_the_names_checked_on_the_h100_are_the_ones_mapped(self):
        # the real capture's columns, for the names it carries
        header = metrics_support.fixture_text("transpose_h100_page_raw.csv")
        for legacy in ("gld_efficiency", "gst_efficiency", "achieved_occupancy", "duration",
                       "dram_read_throughput", "dram_write_throughput",
                       "shared_ld_bank_conflict", "shared_st_bank_conflict",
                       "static_shared_mem_per_block", "dynamic_shared_mem_per_block"):
            self.assertIn('"%s"' % self.m.by_name[legacy].members[0], header, legacy)


class Resolve(metrics_support.TempDir, unittest.TestCase):
    MAP = ("# comment\n\nlegacy\texpr\tunit\tnote\n"
           "a\tx__a.sum\tcount\tone\n"
           "b\tx__b.sum + x__a.sum\tcount\ttwo\n"
           "c\tx__c.pct\t%\tthree\n"
           "gone\t-\tratio\tuse a instead\n")
    SETS = ("set\tlegacy\n"
            "s1\tb\ns1\ta\ns1\tb\n"
            "s2\t@s1\ns2\tc\n"
            "every\t*\n"
            "loop\t@loop\n"
            "badref\tnope\n")

    def mapping(self, map_text=None, sets_text=None):
        return Mapping(self.write("m.tsv", map_text or self.MAP),
                       self.write("s.tsv", sets_text or self.SETS))

    def fails(self, words, *args):
        with self.assertRaises(Failure) as c:
            self.mapping().resolve(*args)
        self.assertEqual(c.exception.code, 2)
        self.assertIn(words, c.exception.line)
        self.assertTrue(c.exception.line.endswith("(see grading/metrics list)"))

    def test_sets_keep_order_once_each_and_include_each_other(self):
        m = self.mapping()
        self.assertEqual(m.resolve("s1"), ["b", "a"])
        self.assertEqual(m.resolve("s2"), ["b", "a", "c"])
        self.assertEqual(m.resolve("every"), ["a", "b", "c"])
        self.assertEqual(m.set_order, ["s1", "s2", "every", "loop", "badref"])

    def test_a_list_ignores_spaces_and_empty_items(self):
        self.assertEqual(self.mapping().resolve("", " c, a ,,c"), ["c", "a"])

    def test_ncu_metrics_of_sums_are_listed_once(self):
        m = self.mapping()
        self.assertEqual(m.ncu_metrics(["b", "a", "c"]), ["x__b.sum", "x__a.sum", "x__c.pct"])

    def test_errors(self):
        self.fails('unknown legacy metric "zz"', "", "a,zz")
        self.fails("gone: use a instead", "", "gone")
        self.fails('unknown metric set "nope"', "nope")
        self.fails('set "loop" includes itself', "loop")
        self.fails('unknown legacy metric "nope"', "badref")
        self.fails("no metrics selected", "", " , ")

    def test_a_broken_mapping_line_is_named(self):
        for bad in ("a\tx__a.sum\n", "a\t\tcount\tnote\n", "a\tx__a + \tcount\tnote\n",
                    "a\tx\tcount\tn\na\ty\tcount\tn\n"):
            with self.assertRaises(Failure) as c:
                self.mapping(map_text=bad)
            self.assertIn("m.tsv line", c.exception.line)
        with self.assertRaises(Failure) as c:
            self.mapping(sets_text="lonely\n")
        self.assertIn("s.tsv line 1", c.exception.line)

    def test_a_missing_data_file_is_exit_2(self):
        with self.assertRaises(Failure) as c:
            Mapping(self.path("none.tsv"), self.path("none2.tsv"))
        self.assertEqual(c.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
