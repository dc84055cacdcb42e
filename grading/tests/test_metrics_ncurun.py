# Unit tests of kitmetrics.ncurun: finding ncu, its command line, and why a run gave no metrics.
import os
import unittest

import metrics_support
from kitmetrics import ncurun
from kitmetrics.failure import Failure


class FindNcu(metrics_support.TempDir, unittest.TestCase):
    def find(self, environ, **kw):
        kw.setdefault("cuda_ncu", self.path("cuda", "bin", "ncu"))
        kw.setdefault("nsight_root", self.path("opt"))
        return ncurun.find_ncu(environ, **kw)

    def code_of(self, environ, **kw):
        with self.assertRaises(Failure) as c:
            self.find(environ, **kw)
        return c.exception

    def test_NCU_as_a_path_or_a_name_on_PATH(self):
        os.mkdir(self.path("bin"))
        ncu = metrics_support.write_program(self.path("bin"), "my-ncu", "")
        self.assertEqual(self.find({"NCU": ncu, "PATH": "/nonexistent"}), ncu)
        self.assertEqual(self.find({"NCU": "my-ncu", "PATH": self.path("bin")}), ncu)

    def test_NCU_that_is_not_a_program_is_exit_5_and_named(self):
        self.write("plain", "not executable")
        for wanted in (self.path("plain"), "/nonexistent/ncu", "no-such-ncu"):
            e = self.code_of({"NCU": wanted, "PATH": self.tmp})
            self.assertEqual(e.code, 5)
            self.assertIn("NCU=" + wanted, e.line)

    def test_search_order_path_then_cuda_then_newest_nsight(self):
        for d in ("bin", "cuda/bin", "opt/2025.3.1", "opt/2025.10.0", "opt/2024.9.9"):
            os.makedirs(self.path(d))
        for d in ("opt/2025.3.1", "opt/2025.10.0", "opt/2024.9.9"):
            metrics_support.write_program(self.path(d), "ncu", "")
        self.assertEqual(self.find({"PATH": self.path("bin")}), self.path("opt/2025.10.0/ncu"))
        cuda = metrics_support.write_program(self.path("cuda/bin"), "ncu", "")
        self.assertEqual(self.find({"PATH": self.path("bin")}), cuda)
        on_path = metrics_support.write_program(self.path("bin"), "ncu", "")
        self.assertEqual(self.find({"PATH": self.path("bin")}), on_path)

    def test_nowhere_is_exit_5_with_how_to_get_it(self):
        e = self.code_of({"PATH": self.tmp})
        self.assertEqual(e.code, 5)
        self.assertIn("not found", e.line)
        self.assertIn("NCU=", e.line)


class Arguments(unittest.TestCase):
    def test_the_ncu_command_line(self):
        self.assertEqual(ncurun.ncu_arguments(["a.sum", "b.pct"]),
                         ["--csv", "--page", "raw", "--print-units", "base", "--clock-control",
                          "none", "--metrics", "a.sum,b.pct"])
        self.assertEqual(ncurun.ncu_arguments(["a"], "conv|tiled", "2")[-4:],
                         ["-k", "regex:conv|tiled", "-c", "2"])


class CheckOutput(unittest.TestCase):
    def failure(self, status, text, kernel=""):
        with self.assertRaises(Failure) as c:
            ncurun.check_output(status, text, kernel)
        return c.exception

    def test_no_counter_permission_is_exit_6_even_beside_a_csv(self):
        e = self.failure(1, metrics_support.fixture_text("perm_denied.txt"))
        self.assertEqual(e.code, 6)
        self.assertIn("NVreg_RestrictProfilingToAdminUsers=0", e.line)
        self.assertNotIn("\n", e.line)
        self.assertEqual(self.failure(0, '"ID","Kernel Name"\nERR_NVGPUCTRPERM\n').code, 6)

    def test_no_csv_is_exit_3_with_the_last_twelve_lines(self):
        text = "".join("line %d\n" % i for i in range(20))
        e = self.failure(1, text)
        lines = e.line.split("\n")
        self.assertEqual(e.code, 3)
        self.assertIn("ncu exit status 1", lines[0])
        self.assertEqual(lines[1:], ["  | line %d" % i for i in range(8, 20)])
        e = self.failure(0, "", "conv")
        self.assertIn("no kernel launched or none matched --kernel conv?", e.line)

    def test_a_csv_header_passes(self):
        self.assertIsNone(ncurun.check_output(0, "==PROF== x\n\"ID\",\"Kernel Name\"\n"))


class Profile(metrics_support.TempDir, unittest.TestCase):
    def test_runs_the_command_under_ncu_and_keeps_the_raw_output(self):
        env = self.fake_ncu(metrics_support.fixture("live_mixed.csv"), status=3)
        status, text = ncurun.profile(env["NCU"], ["m.sum"], ["./app", "a b"], "k", "4",
                                      keep=self.path("raw.csv"))
        self.assertEqual(status, 3)
        self.assertEqual(text, metrics_support.fixture_text("live_mixed.csv"))
        self.assertEqual(self.ncu_args()[-6:], ["-k", "regex:k", "-c", "4", "./app", "a b"])
        with open(self.path("raw.csv")) as f:
            self.assertEqual(f.read(), text)

    def test_keep_into_a_missing_folder_is_exit_2(self):
        ncu = metrics_support.write_program(self.tmp, "ncu", "echo hi\n")
        with self.assertRaises(Failure) as c:
            ncurun.profile(ncu, ["m"], ["x"], keep=self.path("no", "raw.csv"))
        self.assertEqual(c.exception.code, 2)

    def test_an_ncu_that_cannot_start_is_reported_like_a_shell(self):
        self.write("ncu", "not a program")
        os.chmod(self.path("ncu"), 0o755)
        status, raw = ncurun.run_ncu(self.path("ncu"), [], ["x"])
        self.assertEqual(status, 126)
        self.assertIn(b"ncu", raw)
        status, raw = ncurun.run_ncu(self.path("none"), [], ["x"])
        self.assertEqual(status, 127)

    def test_killed_by_a_signal_is_128_plus_the_signal(self):
        ncu = metrics_support.write_program(self.tmp, "ncu", "kill -TERM $$\n")
        status, _ = ncurun.run_ncu(ncu, [], [])
        self.assertEqual(status, 128 + 15)


if __name__ == "__main__":
    unittest.main()
