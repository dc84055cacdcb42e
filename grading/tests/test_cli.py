"""cli.py: the options of the bash grader it replaced, their checks and their messages."""
import unittest

import util
from kitgrade.cmdline import cli


class Cli(unittest.TestCase):
    def setUp(self):
        self.d = util.tempfile.mkdtemp()

    def tearDown(self):
        util.shutil.rmtree(self.d)

    def parse(self, *a):
        return cli.parse(list(a))

    def bad(self, msg, *a):
        with self.assertRaisesRegex(cli.UsageError, msg):
            self.parse(*a)

    def test_full_command_line(self):
        o = self.parse("--lab", "3", "--submissions", self.d, "--out", "/tmp/g0,1", "--jobs",
                       "4", "--gpu-share", "3", "--gpus", "0,1", "--timeout", "10", "--seed", "4242", "--quick",
                       "--sanitize", "--profile", "--force", "--keep-work", "--quiet",
                       "--sandbox", "none", "--rubric", "r.rubric")
        self.assertEqual((o.lab, o.out, o.jobs, o.gpus, o.timeout, o.seed, o.sandbox),
                         ("03", "/tmp/g0,1", 4, ["0", "1"], 10, 4242, "none"))
        self.assertTrue(o.quick and o.sanitize and o.profile and o.force and o.keep_work)
        self.assertEqual((o.rubric, o.gpu_share), ("r.rubric", 3))

    def test_equals_form_and_lab_folder_names(self):
        o = self.parse("--lab=01_cpu_conv", "--submissions=" + self.d, "--out=x")
        self.assertEqual((o.lab, o.submissions), ("01", self.d))

    def test_required_and_bad_values(self):
        self.bad("--lab is required", "--submissions", self.d, "--out", "o")
        self.bad("--submissions is required", "--lab", "01", "--out", "o")
        self.bad("--out is required", "--lab", "01", "--submissions", self.d)
        self.bad("not a folder", "--lab", "01", "--submissions", self.d + "/no", "--out", "o")
        base = ["--lab", "01", "--submissions", self.d, "--out", "o"]
        self.bad("lab number", "--lab", "x1", "--submissions", self.d, "--out", "o")
        self.bad("--jobs must be", *base, "--jobs", "0")
        self.bad("--gpu-share must be", *base, "--gpu-share", "0")
        self.bad("--timeout must be", *base, "--timeout", "1.5")
        self.bad("--seed must be", *base, "--seed", "-3")
        self.bad("--gpus must be", *base, "--gpus", "0,,1")
        self.bad("--sandbox must be", *base, "--sandbox", "maybe")
        self.bad("unknown option '--fast'", *base, "--fast")
        self.bad("needs a value", *base, "--seed")
        self.bad("takes no value", *base, "--quick=1")

    def test_words(self):
        """How words are read (once grading/kitgrade/base/optwords.py's walk): a value is the
        next word whatever it looks like, --only takes the words up to the next option or
        those of --only=a,b, a flag given a value is a mistake, a missing value is said."""
        base = ["--lab", "01", "--submissions", self.d]
        o = self.parse(*base, "--out", "--force", "--only=p,,q", "--quick")
        self.assertEqual((o.out, o.force, o.wf.only, o.quick), ("--force", False, ["p", "q"],
                                                               True))
        o = self.parse(*base, "--out=o", "--only", "p", "q", "--gpus=0", "--rubric", "-r")
        self.assertEqual((o.out, o.wf.only, o.gpus, o.rubric), ("o", ["p", "q"], ["0"], "-r"))
        for missing in (["--tasks"], ["--partition="], ["--roster"], ["--roster="]):
            self.bad("needs a value", *base, "--out", "o", *missing)
        self.bad("needs at least one login", *base, "--out", "o", "--only", "--quick")
        self.bad("unknown option '--z'", *base, "--out", "o", "--z", "b")
        self.bad("unknown option 'b'", *base, "--out", "o", "b")
        self.bad("option --wait takes no value", *base, "--out", "o", "--wait=1")

    def test_help_and_print_cases(self):
        self.assertTrue(self.parse("--help").help)
        self.assertIn("--submissions DIR", cli.USAGE)
        o = self.parse("--lab", "1", "--print-cases", "--seed", "3")
        self.assertTrue(o.print_cases)


if __name__ == "__main__":
    unittest.main()
