"""slurm.py and slurmopts.py: the sbatch options the rubric's limits map to, the default array
size, the job scripts (every path quoted: a path is data, never code), a task's command line
(less the submission's own options), and the options' checks."""
import os
import subprocess
import unittest

import util
from kitgrade.cluster import slurm
from kitgrade.cmdline import cli

LIMITS = {"build": 120, "run": 10, "memory_mb": 384}


class Options(unittest.TestCase):
    def test_mem_cpus_time(self):
        o = slurm.sbatch_options(LIMITS, 10, 12, 3, 2)
        self.assertIn("--cpus-per-task=2", o)
        # 384 MB per student at once (2), one more for a build, a margin of 1024
        self.assertIn("--mem=%dM" % (384 * 2 + 384 + 1024), o)
        # 4 students a task, 2 at once: 2 waves and the reference; (120 + 3 x 10) s each,
        # doubled, plus 10 minutes
        self.assertIn("--time=%d" % -(-(2 * 3 * 150 + 600) // 60), o)
        self.assertFalse([x for x in o if x.startswith(("--partition", "--gres", "--account"))])

    def test_time_grows_with_the_share(self):
        def t(n, tasks, jobs=1, lim=None):
            o = slurm.sbatch_options(lim or {"build": 300, "run": 60, "memory_mb": 4096}, 60, n,
                                     tasks, jobs)
            return int([x for x in o if x.startswith("--time=")][0][7:])
        self.assertLess(t(10, 10), t(100, 10))
        self.assertLess(t(100, 10, 4), t(100, 10, 1))
        self.assertGreaterEqual(t(1, 1, lim={"build": 1, "run": 1}), slurm.MIN_MINUTES)

    def test_given_values(self):
        o = slurm.sbatch_options(LIMITS, 10, 100, 10, 1, time_text="2:00:00", partition="gpu",
                                 gres="gpu:1", account="cs101")
        for x in ("--time=2:00:00", "--partition=gpu", "--gres=gpu:1", "--account=cs101"):
            self.assertIn(x, o)
        m = slurm.merge_options("gpu", "cs101", "2:00:00")
        self.assertIn("--time=120", m)
        self.assertFalse([x for x in m if x.startswith("--gres")])     # no GPU to merge

    def test_minutes(self):
        self.assertEqual(slurm.minutes("90"), 90)
        self.assertEqual(slurm.minutes("1:30:00"), 90)
        self.assertEqual(slurm.minutes("1-00:00:00"), 1440)
        self.assertEqual(slurm.minutes("10:30"), 11)

    def test_default_tasks(self):
        self.assertEqual(slurm.default_tasks(0), 0)
        self.assertEqual(slurm.default_tasks(12, 3), 3)
        self.assertEqual(slurm.default_tasks(2, 5), 2)       # never more than the students
        self.assertEqual(slurm.default_tasks(17), 3)
        self.assertEqual(slurm.default_tasks(10000), slurm.MAX_DEFAULT_TASKS)


class Script(util.TempCase):
    NASTY = "/tmp/a b/it's $(touch PWNED) `x`;\"q\"\n"

    def test_paths_are_quoted(self):
        words = ["--lab", "01", "--out", self.NASTY, "--submissions", "--x $HOME"]
        for kind in ("array", "merge"):
            text = slurm.job_script("/kit dir/grading/grade", words, 3, kind)
            self.assertTrue(text.startswith("#!/bin/bash\n"))
            # bash reads the words back exactly: print them instead of running the grader
            p = self.write("s.sh", text.replace("--merge-only\n", "--merge-only\nexit 0\n",
                                                1).replace("'/kit dir/grading/grade' ",
                                                           "printf '%s\\0' ", 1))
            env = dict(os.environ, SLURM_ARRAY_TASK_ID="2")
            out = subprocess.run(["bash", p], cwd=self.tmp, stdout=subprocess.PIPE, env=env,
                                 check=True).stdout.decode()
            got = out.split("\0")[:-1]
            tail = ["--shard", "3:2"] if kind == "array" else ["--merge-only"]
            self.assertEqual(got, words + tail)
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "PWNED")))

    def test_task_words(self):
        argv = ["--lab", "01", "--submissions", "subs", "--out=o u t", "--slurm", "--tasks",
                "3", "--seed", "7", "--force", "--partition=cpu", "--wait", "--slurm-user",
                "nobody", "--jobs", "2", "--quick", "--only", "ann", "bob"]
        w = cli.task_words(argv)
        self.assertEqual(w, ["--lab", "01", "--submissions", os.path.abspath("subs"),
                             "--out=" + os.path.abspath("o u t"), "--jobs", "2", "--quick",
                             "--only", "ann", "bob"])
        # a value that looks like an option stays a value
        self.assertEqual(cli.task_words(["--out", "--force"]),
                         ["--out", os.path.abspath("--force")])


class Parse(util.TempCase):
    def base(self):
        return ["--lab", "01", "--submissions", self.tmp, "--out", self.tmp + "/o"]

    def test_options(self):
        o = cli.parse(self.base() + ["--slurm", "--tasks", "4", "--gres", "gpu:1", "--wait"])
        self.assertTrue(o.slurm.submit and o.slurm.wait)
        self.assertEqual((o.slurm.tasks, o.slurm.gres), (4, "gpu:1"))
        o = cli.parse(self.base() + ["--shard", "2:5"])
        self.assertEqual(o.slurm.shard, (2, 5))
        self.assertFalse(cli.parse(self.base()).slurm.active)

    def test_bad(self):
        for bad in (["--slurm", "--tasks", "0"], ["--shard", "x"], ["--tasks", "3"],
                    ["--slurm", "--time", "soon"], ["--slurm", "--merge-only"],
                    ["--slurm", "--partition", "a b"], ["--wait"]):
            with self.assertRaises(cli.UsageError, msg=bad):
                cli.parse(self.base() + bad)

    def test_help_lists_them(self):
        for opt in ("--slurm", "--partition", "--gres", "--tasks", "--account", "--time",
                    "--wait", "--slurm-user", "--status", "--merge-only", "--shard"):
            self.assertIn("  " + opt, cli.USAGE)


if __name__ == "__main__":
    unittest.main()
