"""optwords.py: the one walk over the command line that the grader's option groups share."""
import unittest

import util  # noqa: F401  (puts kitgrade on the path)
from kitgrade.base import optwords
from kitgrade.cmdline import cli


def scan(*argv):
    return list(optwords.scan(list(argv), valued={"--x", "--y"}, flags={"--f"},
                              listed={"--only"}))


class Scan(unittest.TestCase):
    def test_every_form_and_the_other_words_in_order(self):
        self.assertEqual(scan("a", "--x", "1", "--y=2", "--f", "--only", "p", "q", "--z", "b"),
                         [(None, "a"), ("--x", "1"), ("--y", "2"), ("--f", True),
                          ("--only", ["p", "q"]), (None, "--z"), (None, "b")])
        self.assertEqual(scan("--only=p,,q", "r"), [("--only", ["p", "q"]), (None, "r")])
        self.assertEqual(scan("--only", "--f"), [("--only", []), ("--f", True)])

    def test_a_flag_with_a_value_is_not_the_flag(self):
        self.assertEqual(scan("--f=1"), [(None, "--f=1")])

    def test_a_missing_or_empty_value_is_a_usage_error(self):
        for argv in (["--x"], ["--x="], ["a", "--y"]):
            with self.assertRaisesRegex(cli.UsageError, "needs a value"):
                scan(*argv)

    def test_a_value_may_look_like_an_option(self):
        self.assertEqual(scan("--x", "--f"), [("--x", "--f")])


if __name__ == "__main__":
    unittest.main()
