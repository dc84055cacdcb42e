"""claims.py, shard.py and slurmstatus.py: static shares cover every student exactly once;
a claim is won by exactly one of many claimants (threads and processes), a requeued task takes
its own back, a new round ignores an older round's; grading.txt's task section; the status
line read from OUT alone."""
import json
import multiprocessing
import os
import threading
import unittest

import util
from kitgrade.cluster import claims, shard, slurmstatus
from kitgrade.cmdline import entry


def owner(job, task):
    return {"job": job, "task": str(task), "host": "h", "pid": os.getpid(), "time": "t"}


def _claim_in_process(args):
    cdir, sid, k = args
    return claims.claim(cdir, sid, owner("9", k))


class Shares(unittest.TestCase):
    def test_cover_once(self):
        for n in (0, 1, 5, 12, 13, 100):
            ids = ["s%03d" % i for i in range(n)]
            for tasks in (1, 2, 3, 7, 12):
                got = [s for i in range(tasks) for s in claims.share(ids, tasks, i)]
                self.assertEqual(sorted(got), ids)
                sizes = [len(claims.share(ids, tasks, i)) for i in range(tasks)]
                self.assertLessEqual(max(sizes) - min(sizes), 1)

    def test_order_own_share_first_then_everyone(self):
        ids = ["a", "b", "c", "d", "e", "f", "g"]
        o = claims.order(ids, 3, 1)
        self.assertEqual(o[:2], ["b", "e"])
        self.assertEqual(sorted(o), ids)


class Claims(util.TempCase):
    def test_excl_and_retake(self):
        cdir = os.path.join(self.tmp, "claims")
        os.makedirs(cdir)
        self.assertTrue(claims.claim(cdir, "ann", owner("7", 0)))
        self.assertFalse(claims.claim(cdir, "ann", owner("7", 1)))      # another task
        self.assertFalse(claims.claim(cdir, "ann", owner("8", 0)))      # another job
        self.assertTrue(claims.claim(cdir, "ann", owner("7", 0)))       # requeued: its own
        self.assertEqual(claims.read(cdir, "ann")["task"], "0")
        self.assertEqual(set(claims.all_claims(cdir)), {"ann"})
        # a claim with no job id is nobody's to take back
        self.assertTrue(claims.claim(cdir, "bob", owner("", 0)))
        self.assertFalse(claims.claim(cdir, "bob", owner("", 0)))

    def test_no_link_followed(self):
        cdir = os.path.join(self.tmp, "claims")
        os.makedirs(cdir)
        target = self.write("elsewhere", "x")
        os.symlink(target, os.path.join(cdir, "eve"))
        self.assertFalse(claims.claim(cdir, "eve", owner("7", 0)))
        with open(target) as f:
            self.assertEqual(f.read(), "x")

    def test_new_round_ignores_old_claims(self):
        from kitgrade.cluster.slurm import round_dir
        old = os.path.join(round_dir(self.tmp, 1), "claims")
        new = os.path.join(round_dir(self.tmp, 2), "claims")
        os.makedirs(old)
        os.makedirs(new)
        self.assertTrue(claims.claim(old, "ann", owner("7", 0)))
        self.assertTrue(claims.claim(new, "ann", owner("9", 2)))

    def test_one_winner_threads(self):
        cdir = os.path.join(self.tmp, "claims")
        os.makedirs(cdir)
        for sid in ("s%d" % i for i in range(20)):
            wins = []
            barrier = threading.Barrier(8)

            def go(k, sid=sid):
                barrier.wait()
                if claims.claim(cdir, sid, owner("5", k)):
                    wins.append(k)
            ts = [threading.Thread(target=go, args=(k,)) for k in range(8)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            self.assertEqual(len(wins), 1, sid)
            self.assertEqual(claims.read(cdir, sid)["task"], str(wins[0]))

    def test_one_winner_processes(self):
        cdir = os.path.join(self.tmp, "claims")
        os.makedirs(cdir)
        with multiprocessing.get_context("fork").Pool(4) as pool:
            for sid in ("p%d" % i for i in range(10)):
                res = pool.map(_claim_in_process, [(cdir, sid, k) for k in range(8)])
                self.assertEqual(sum(res), 1, (sid, res))


class Status(util.TempCase):
    def out(self):
        o = os.path.join(self.tmp, "out")
        rd = os.path.join(o, "slurm", "1")
        for i in range(3):
            os.makedirs(os.path.join(rd, "tasks", str(i)))
        os.makedirs(os.path.join(rd, "claims"))
        self.write("out/grading.txt", "lab: 01\n")
        self.write("out/slurm/1/students.txt", "a\nb\nc\nd\n")
        self.write("out/slurm/1/round.txt", "round: 1\ntasks: 3\narray-job: 41\nmerge-job: 42\n")
        for sid, task in (("a", 0), ("b", 1), ("c", 0)):
            claims.claim(os.path.join(rd, "claims"), sid, owner("41", task))
        for sid in ("a", "b", "old"):     # "old" graded in an earlier round
            self.write("out/students/%s/results.json" % sid,
                       json.dumps({"id": sid, "status": "ok"}))
        self.write("out/slurm/1/tasks/0/task.txt", "state: running\n")
        self.write("out/slurm/1/tasks/1/task.txt", "state: finished\n")
        return o

    def test_line_from_out(self):
        o = self.out()
        line = slurmstatus.status_line(o, queue={})
        self.assertIn("graded 3 of 5", line)
        self.assertIn("round 1: 2 of 4", line)
        self.assertIn("claimed-not-done 1", line)      # c
        self.assertIn("tasks: 0 running (1), 1 finished (1), 2 pending (0)", line)
        self.assertIn("array job 41, merge job 42", line)
        self.assertEqual(line.count("\n"), 0)

    def test_line_with_squeue(self):
        o = self.out()
        line = slurmstatus.status_line(o, queue={"41_0": "RUNNING", "41_2": "PENDING",
                                                 "42": "PENDING"})
        self.assertIn("0 running (1), 1 finished (1), 2 pending (0)", line)
        self.assertIn("merge job 42 (pending)", line)
        # a task Slurm no longer knows that never said it finished
        line = slurmstatus.status_line(o, queue={"41_2": "PENDING"})
        self.assertIn("0 gone (1)", line)

    def test_no_round(self):
        self.write("o2/grading.txt", "lab: 01\n")
        self.assertIn("no Slurm round", slurmstatus.status_line(os.path.join(self.tmp, "o2"),
                                                               queue={}))
        self.assertEqual(entry.main(["--status", os.path.join(self.tmp, "no")]), 2)


class TaskSection(unittest.TestCase):
    def test_replaced_not_added_twice(self):
        t = shard.with_tasks("lab: 01\nseed: 5\n", ["round 1 task 0: n1 (GPU), job 4"])
        t2 = shard.with_tasks(t, ["round 1 task 0: n1 (GPU), job 4", "round 2 task 0: n2"])
        self.assertEqual(t2.count(shard.MARK), 1)
        self.assertTrue(t2.startswith("lab: 01\nseed: 5\n"))
        self.assertIn("task: round 2 task 0: n2\n", t2)
        self.assertEqual(shard.with_tasks(t2, []), "lab: 01\nseed: 5\n")

    def test_machine_words(self):
        m = shard.machine(False)
        self.assertIn("(CPU ", m)


if __name__ == "__main__":
    unittest.main()
