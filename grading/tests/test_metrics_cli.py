# Unit tests of kitmetrics.cli and the entry grading/metrics: options, subcommands, messages and
# the exit codes callers rely on (profile.sh, grade --profile: 5 without ncu, 6 without counter
# permission; 2 for bad usage or input; 3 when the profiled command gave no metrics).
import os
import subprocess
import sys
import unittest

import metrics_support
from metrics_support import fixture, run_cli

LIVE = fixture("live_mixed.csv")


class Usage(unittest.TestCase):
    def one_line_error(self, args, words, code=2):
        status, out, err = run_cli(args, environ={"NCU": "/nonexistent", "PATH": "/nonexistent"})
        self.assertEqual(status, code, args)
        self.assertEqual(out, "", args)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith("metrics: "), err)
        self.assertIn(words, err, args)

    def test_subcommands(self):
        self.one_line_error([], "no subcommand (see grading/metrics --help)")
        self.one_line_error(["frobnicate"], "unknown subcommand 'frobnicate'")

    def test_parse_options(self):
        self.one_line_error(["parse"], "parse: no input file")
        self.one_line_error(["parse", "a", "b"], "parse: one input file only")
        self.one_line_error(["parse", "a", "-"], "parse: one input file only")
        self.one_line_error(["parse", "--bogus", "a"], "parse: unknown option '--bogus'")
        self.one_line_error(["parse", "--", "a"], "parse: unknown option '--'")
        self.one_line_error(["parse", LIVE, "--label"], "parse: --label needs a value")
        self.one_line_error(["parse", "--set", "x", "--metrics", "y", LIVE], "exclude each other")
        self.one_line_error(["parse", "--set", "nosuchset", LIVE], 'unknown metric set "nosuchset"')
        self.one_line_error(["parse", "--metrics", "inst_replay_overhead", LIVE], "no ncu equivalent")

    def test_run_options_come_before_ncu_is_looked_for(self):
        self.one_line_error(["run"], "run: no command to profile")
        self.one_line_error(["run", "--set", "global"], "run: no command to profile")
        self.one_line_error(["run", "--bogus", "x"], "run: unknown option '--bogus'")
        self.one_line_error(["run", "--keep"], "run: --keep needs a file name")
        self.one_line_error(["run", "--set", "a", "--metrics", "b", "--", "x"], "exclude each other")
        for bad in ("many", "0", "-1", "2x", "\u0663"):
            self.one_line_error(["run", "--launch-count", bad, "--", "x"],
                                "positive whole number, not '%s'" % bad)
        self.one_line_error(["run", "--metrics", "gld_efficiency,no_such", "--", "x"], "no_such")
        self.one_line_error(["run", "--", "x"], "NCU=/nonexistent", code=5)

    def test_other_subcommands(self):
        self.one_line_error(["list", "--set"], "list: --set needs a name")
        self.one_line_error(["list", "x"], "list: unexpected argument 'x'")
        self.one_line_error(["table"], "table: no input file")
        self.one_line_error(["table", "-x"], "table: unknown option '-x'")
        self.one_line_error(["table", LIVE], "not a metrics TSV")
        self.one_line_error(["pivot", "a"], "pivot: needs FILE.tsv DIR")
        self.one_line_error(["plot", "a"], "plot: needs FILE.tsv OUTBASE")

    def test_help(self):
        for sub in ("parse", "run", "list", "table", "plot"):
            status, out, err = run_cli([sub, "--help"])
            self.assertEqual((status, err), (0, ""))
            self.assertTrue(out.startswith("Usage: grading/metrics " + sub), out)
        for args in (["--help"], ["-h"], ["help"]):
            self.assertTrue(run_cli(args)[1].startswith("Usage: grading/metrics SUBCOMMAND"))
        # --help is read in order, like any option
        self.assertEqual(run_cli(["parse", LIVE, "--help"])[0], 0)
        self.assertEqual(run_cli(["parse", "--bogus", "--help"])[0], 2)


class Parse(unittest.TestCase):
    def test_file_stdin_and_import_give_the_same_tsv(self):
        status, out, err = run_cli(["parse", LIVE])
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(len(out.splitlines()), 46)
        with open(LIVE, "rb") as f:
            self.assertEqual(run_cli(["parse", "-"], stdin=f.read())[1], out)
        self.assertEqual(run_cli(["parse", fixture("import_raw.csv")])[1], out)

    def test_not_ncu_csv_and_details_page(self):
        status, _, err = run_cli(["parse", fixture("not_csv.txt")])
        self.assertEqual(status, 2)
        self.assertIn('not an ncu CSV (no header row with "ID" and "Kernel Name"', err)
        status, _, err = run_cli(["parse", fixture("details.csv")])
        self.assertEqual(status, 2)
        self.assertIn("rerun ncu with --page raw", err)

    def test_a_header_without_launches_warns_and_succeeds(self):
        status, out, err = run_cli(["parse", "-"], stdin=b'"ID","Kernel Name"\n""," "\n')
        self.assertEqual(status, 0)
        self.assertEqual(out, "kernel\tlaunch\tblock\tgrid\tlegacy\tmetric\tvalue\tunit\n")
        self.assertEqual(err, "metrics: warning: stdin: the CSV holds no profiled launch\n")


class Run(metrics_support.TempDir, unittest.TestCase):
    def test_same_tsv_as_parse_and_the_set_s_metrics_asked_for(self):
        env = self.fake_ncu(LIVE)
        status, out, err = run_cli(["run", "--set", "lab06", "--label", "v1", "--", "./lab06", "a b"],
                                   environ=env)
        self.assertEqual(status, 0)
        self.assertEqual(out, run_cli(["parse", "--set", "lab06", "--label", "v1", LIVE])[1])
        self.assertIn("ncu reported no value for sm_efficiency", err)
        args = self.ncu_args()
        self.assertEqual(args[7:9], ["--metrics", ",".join([
            "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
            "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "dram__bytes_read.sum.per_second",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
            "sm__warps_active.avg.pct_of_peak_sustained_active",
            "smsp__cycles_active.avg.pct_of_peak_sustained_elapsed", "gpu__time_duration.sum"])])
        self.assertEqual(args[-2:], ["./lab06", "a b"])

    def test_without_options_the_command_starts_at_the_first_other_word(self):
        env = self.fake_ncu(LIVE)
        self.assertEqual(run_cli(["run", "./app", "--set", "x"], environ=env)[0], 0)
        self.assertEqual(self.ncu_args()[-3:], ["./app", "--set", "x"])

    def test_exit_6_without_counter_permission(self):
        status, out, err = run_cli(["run", "--", "x"], environ=self.fake_ncu(fixture("perm_denied.txt"), 1))
        self.assertEqual((status, out), (6, ""))
        self.assertIn("ERR_NVGPUCTRPERM", err)
        self.assertEqual(len(err.splitlines()), 1)

    def test_exit_3_when_nothing_was_profiled(self):
        status, out, err = run_cli(["run", "--", "x"], environ=self.fake_ncu(fixture("not_csv.txt"), 1))
        self.assertEqual((status, out), (3, ""))
        self.assertIn("  | variant 1 (global memory)   FAIL", err)
        self.write("nolaunch.csv", '"ID","Kernel Name"\n')
        status, out, err = run_cli(["run", "--", "x"], environ=self.fake_ncu(self.path("nolaunch.csv")))
        self.assertEqual((status, out), (3, ""))
        self.assertIn("holds no profiled launch", err)
        status, _, err = run_cli(["run", "--", "x"], environ=self.fake_ncu(fixture("details.csv")))
        self.assertEqual(status, 3)
        self.assertIn("could not be read as CSV (status 4)", err)

    def test_a_failed_command_with_metrics_still_gives_them_and_warns(self):
        status, out, err = run_cli(["run", "--", "x"], environ=self.fake_ncu(LIVE, 9))
        self.assertEqual(status, 0)
        self.assertEqual(len(out.splitlines()), 46)
        self.assertIn("the profiled command exited with status 9", err)


class List(unittest.TestCase):
    def test_mapping_table_and_sets(self):
        status, out, _ = run_cli(["list"])
        lines = out.splitlines()
        self.assertEqual(status, 0)
        self.assertRegex(lines[0], r"^legacy +expr +unit +note$")
        self.assertEqual(lines[0].index("expr"), len("shared_load_transactions_per_request") + 2)
        status, out, _ = run_cli(["list", "--set", "lab07"])
        self.assertEqual([l.split()[0] for l in out.splitlines()],
                         ["legacy", "gld_efficiency", "gst_efficiency", "shared_ld_bank_conflict",
                          "shared_st_bank_conflict", "dram_read_throughput",
                          "dram_write_throughput", "l2_l1_read_throughput"])
        status, out, _ = run_cli(["list", "--sets", "--set", "lab04"])
        self.assertIn("lab04    shared_ld_bank_conflict shared_st_bank_conflict", out)


class Entry(metrics_support.TempDir, unittest.TestCase):
    """The executable itself, as callers run it."""

    def run_entry(self, *args, **kw):
        return subprocess.run([sys.executable, metrics_support.ENTRY] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)

    def test_bytes_that_are_not_utf8_pass_through(self):
        text = metrics_support.fixture_text("missing_cols.csv").encode("utf-8")
        path = self.write("latin1.csv", text.replace(b"matvec_row", b"matvec_\xe9"))
        done = self.run_entry("parse", path, env=dict(os.environ, LC_ALL="C", PYTHONIOENCODING=""))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(b"\nmatvec_\xe9(const double *", done.stdout)

    def test_exit_status_and_one_line(self):
        done = self.run_entry("parse", self.path("nope"))
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr, b"metrics: %s: no such file\n" % self.path("nope").encode())

    def test_no_bytecode_is_left_in_the_kit(self):
        cache = os.path.join(metrics_support.GRADING, "kitmetrics", "__pycache__")
        if os.path.exists(cache):
            self.skipTest("%s was already there" % cache)
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.pop("PYTHONPYCACHEPREFIX", None)
        self.assertEqual(self.run_entry("list", env=env).returncode, 0)
        self.assertFalse(os.path.exists(cache))


if __name__ == "__main__":
    unittest.main()
