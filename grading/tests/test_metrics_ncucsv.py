# Unit tests of kitmetrics.ncucsv: reading `ncu --csv --page raw` output as it really comes.
import unittest

import metrics_support
from kitmetrics.ncucsv import Scan, split_line

HEAD = '"ID","Process ID","Kernel Name","Block Size","m__x.sum"'


class SplitLine(unittest.TestCase):
    def test_quoted_fields_keep_their_commas(self):
        self.assertEqual(split_line('"0","k(int, float *)","(32, 16, 1)","6,159.5"'),
                         ["0", "k(int, float *)", "(32, 16, 1)", "6,159.5"])

    def test_empty_fields(self):
        self.assertEqual(split_line('""'), [""])
        self.assertEqual(split_line('"","",""'), ["", "", ""])

    def test_a_field_with_a_quote_needs_the_full_reader(self):
        self.assertEqual(split_line('"0","say ""hi"", then","x"'), ["0", 'say "hi", then', "x"])
        self.assertEqual(split_line('"a",b,"c"'), ["a", "b", "c"])
        self.assertEqual(split_line('"a","unterminated'), ["a", "unterminated"])
        self.assertEqual(split_line('"a",'), ["a", ""])


class ScanOutput(unittest.TestCase):
    def test_the_h100_capture(self):
        s = Scan(metrics_support.fixture_text("transpose_h100_page_raw.csv"))
        self.assertEqual((s.blocks, s.details, s.skipped), (1, False, 0))
        self.assertEqual(len(s.launches), 3)
        launch = s.launches[2]
        self.assertEqual(len(launch.block.header), 295)
        self.assertEqual(launch.fields[0], "2")
        self.assertEqual(launch.block.column(launch.fields, "Block Size"), "(32, 16, 1)")
        i = launch.block.index["dram__bytes_read.sum.per_second"]
        self.assertEqual((launch.fields[i], launch.units[i]), ("244,467,091,295.12", "byte/s"))

    def test_prof_lines_program_output_and_early_quoted_lines_are_not_csv(self):
        s = Scan(metrics_support.fixture_text("live_mixed.csv"))
        self.assertEqual((s.blocks, s.skipped, len(s.launches)), (1, 0, 5))
        self.assertEqual([l.fields[0] for l in s.launches], ["0", "1", "2", "3", "4"])

    def test_a_quoted_line_after_the_header_that_does_not_fit_is_counted(self):
        text = HEAD + '\n"said, ""hello"""\n"0","1","k","(1, 1, 1)","5"\n'
        s = Scan(text)
        self.assertEqual((s.skipped, len(s.launches)), (1, 1))

    def test_units_row_applies_to_the_launches_after_it(self):
        text = HEAD + '\n"0","1","k","(1, 1, 1)","5"\n"","","","","sector"\n"1","1","k","(1, 1, 1)","6"\n'
        s = Scan(text)
        self.assertEqual([l.units[4] for l in s.launches], ["", "sector"])

    def test_details_page_and_headers_without_a_kernel_name(self):
        s = Scan(metrics_support.fixture_text("details.csv"))
        self.assertEqual((s.blocks, s.details, len(s.launches)), (0, True, 0))
        s = Scan('"ID","Something"\n"0","1"\n')
        self.assertEqual((s.blocks, s.details, len(s.launches)), (0, False, 0))

    def test_two_blocks_each_with_its_own_columns(self):
        text = (HEAD + '\n"0","1","k","(1, 1, 1)","5"\n'
                '"ID","Kernel Name","m__y.pct"\n"","","%"\n"0","j","50"\n')
        s = Scan(text)
        self.assertEqual(s.blocks, 2)
        self.assertEqual([l.block.column(l.fields, "Kernel Name") for l in s.launches], ["k", "j"])
        self.assertIsNone(s.launches[1].block.column(s.launches[1].fields, "m__x.sum"))

    def test_crlf(self):
        s = Scan((HEAD + '\r\n"0","1","k","(1, 1, 1)","5"\r\n'))
        self.assertEqual(s.launches[0].fields[4], "5")


if __name__ == "__main__":
    unittest.main()
