# Unit tests of kitmetrics.units: ncu's numbers and the conversion of units.
import unittest

import metrics_support  # noqa: F401  (puts grading/ on the import path)
from kitmetrics import units


class CleanNumber(unittest.TestCase):
    def test_grouped_digits_lose_their_commas_and_keep_their_decimals(self):
        self.assertEqual(units.clean_number("6,159,777,967.55"), "6159777967.55")
        self.assertEqual(units.clean_number("80.50"), "80.50")
        self.assertEqual(units.clean_number("1,280,448"), "1280448")

    def test_signs_exponents_and_bare_points_are_numbers(self):
        for text in ("-3", "+4.5", ".5", "5.", "1e9", "2.5E-3"):
            self.assertEqual(units.clean_number(text), text)

    def test_what_is_not_a_number_is_NA(self):
        for text in ("n/a", "", "-", "12abc", "1.2.3", "NaN", "inf", "(32, 16, 1)x"):
            self.assertEqual(units.clean_number(text), units.NA, text)


class Plain(unittest.TestCase):
    def test_fifteen_digits_hide_the_noise_of_a_multiplication(self):
        self.assertEqual(units.plain(246.39 * 1e9), "246390000000")
        self.assertEqual(units.plain(2048.5 * 1e3), "2048500")

    def test_never_an_exponent(self):
        self.assertEqual(units.plain(1.5e20), "150000000000000000000")
        self.assertEqual(units.plain(2.5e-7), "0")
        self.assertEqual(units.plain(1.25e-5), "0.000013")

    def test_decimals_counts_the_places_shown(self):
        self.assertEqual(units.decimals("12"), 0)
        self.assertEqual(units.decimals("12.50"), 2)
        self.assertEqual(units.decimals("1e5"), 6)


class Convert(unittest.TestCase):
    def test_same_unit_or_no_unit_keeps_the_string_as_printed(self):
        self.assertEqual(units.convert("12.50", "%", "%"), ("12.50", "%"))
        self.assertEqual(units.convert("100", "", "byte/s"), ("100", "byte/s"))
        self.assertEqual(units.convert("3.0", "byte/second", "byte/s"), ("3.0", "byte/s"))
        self.assertEqual(units.convert(units.NA, "Gbyte/s", "byte/s"), (units.NA, "byte/s"))

    def test_prefixes_and_time_units_scale_to_base_units(self):
        self.assertEqual(units.convert("246.39", "Gbyte/second", "byte/s"), ("246390000000", "byte/s"))
        self.assertEqual(units.convert("74.94", "usecond", "ns"), ("74940", "ns"))
        self.assertEqual(units.convert("1.5", "msecond", "ns"), ("1500000", "ns"))
        self.assertEqual(units.convert("2", "Ksector", "sector"), ("2000", "sector"))
        self.assertEqual(units.convert("2", "ksector", "sector"), ("2000", "sector"))
        # shared memory per block without --print-units base (ncu's K is 1000)
        self.assertEqual(units.convert("24.58", "Kbyte/block", "byte/block"), ("24580", "byte/block"))

    def test_a_sector_is_32_bytes(self):
        self.assertEqual(units.convert("10", "sector/s", "byte/s"), ("320", "byte/s"))
        self.assertEqual(units.convert("7.7", "Gsector/second", "byte/s"), ("246400000000", "byte/s"))
        self.assertEqual(units.factor("sector", "byte"), 32.0)

    def test_an_unknown_or_other_quantity_keeps_ncu_s_unit(self):
        self.assertEqual(units.convert("5", "warp", "%"), ("5", "warp"))
        self.assertEqual(units.convert("5", "Xbyte/s", "byte/s"), ("5", "Xbyte/s"))
        self.assertEqual(units.convert("5", "byte/s", "sector/s"), ("5", "byte/s"))
        self.assertEqual(units.convert("5", "cycle", "ns"), ("5", "cycle"))
        self.assertEqual(units.factor("s", "ns"), 1e9)
        self.assertEqual(units.factor("byte", "%"), 0.0)


if __name__ == "__main__":
    unittest.main()
