"""Tests of kitgrade.course.late: the late policy, deadlines and extensions."""

import sys
import unittest
from datetime import timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kitgrade.course.late import (LatePolicy, assess, format_duration, parse_duration,  # noqa: E402
                           parse_policy, parse_time, student_deadline)

CET = timezone(timedelta(hours=1))
DEADLINE = parse_time("2025-03-14T23:59:00+01:00")


class Parsing(unittest.TestCase):
    def test_durations(self):
        self.assertEqual(parse_duration("15m"), timedelta(minutes=15))
        self.assertEqual(parse_duration("1d12h"), timedelta(hours=36))
        self.assertEqual(parse_duration("1w"), timedelta(days=7))
        self.assertEqual(parse_duration("0"), timedelta(0))
        self.assertEqual(parse_duration("1.5h"), timedelta(minutes=90))
        for bad in ("", "15", "m15", "15x", "-1d", "1d 2h"):
            with self.assertRaises(ValueError, msg=bad):
                parse_duration(bad)

    def test_times_need_a_zone(self):
        t = parse_time("2025-03-14T23:59:00+01:00")
        self.assertEqual(t.utcoffset(), timedelta(hours=1))
        self.assertEqual(parse_time("2025-03-14T22:59:00Z"), t)
        self.assertEqual(parse_time("2025-03-14 22:59:00 UTC"), t)
        self.assertEqual(parse_time("2025-03-14T23:59+0100"), t)
        self.assertEqual(parse_time("2025-03-14T17:59:00.250-05:00").microsecond, 250000)
        with self.assertRaises(ValueError):
            parse_time("2025-03-14T23:59:00")
        self.assertEqual(parse_time("2025-03-14T23:59:00", default_tz=CET), t)
        for bad in ("14/03/2025", "2025-02-30T10:00:00Z", "2025-03-14T25:00:00Z",
                    "2025-03-14T10:00:00+25:00", "soon"):
            with self.assertRaises(ValueError, msg=bad):
                parse_time(bad)

    def test_policy_line(self):
        p = parse_policy("late penalty=10%/day grace=15m last=7d   # usual")
        self.assertEqual(p, LatePolicy(penalty_pct=10, grace=timedelta(minutes=15),
                                       last=timedelta(days=7)))
        p = parse_policy("penalty=2.5%/hour cap=50% of=max extension=ext")
        self.assertEqual((p.penalty_pct, p.period, p.cap_pct, p.of, p.extension_column),
                         (2.5, timedelta(hours=1), 50.0, "max", "ext"))
        self.assertIsNone(p.last)
        for bad in ("late", "penalty=10", "penalty=10%/week", "grace=15", "cap=120%",
                    "of=total", "penalty=10%/day penalty=5%/day", "speed=1", "grace"):
            with self.assertRaises(ValueError, msg=bad):
                parse_policy(bad)

    def test_extension(self):
        self.assertEqual(student_deadline(DEADLINE, ""), DEADLINE)
        self.assertEqual(student_deadline(DEADLINE, "2d"), DEADLINE + timedelta(days=2))
        self.assertEqual(student_deadline(DEADLINE, "2025-03-20T12:00:00Z"),
                         parse_time("2025-03-20T12:00:00Z"))
        # A new deadline without a zone is read in the deadline's own zone.
        self.assertEqual(student_deadline(DEADLINE, "2025-03-20T12:00"),
                         parse_time("2025-03-20T12:00:00+01:00"))
        with self.assertRaises(ValueError):
            student_deadline(DEADLINE, "2025-03-01T00:00:00Z")      # before the deadline
        with self.assertRaises(ValueError):
            student_deadline(DEADLINE, "a week")
        # a cell past a datetime's range, or more than a year on, is a ValueError (the
        # grading says which cell), never an OverflowError that stopped the grading
        self.assertEqual(student_deadline(DEADLINE, "366d"), DEADLINE + timedelta(days=366))
        for bad in ("99999999999d", "9999-12-31T00:00:00Z", "367d", "2026-12-31T00:00:00Z"):
            with self.assertRaises(ValueError, msg=bad):
                student_deadline(DEADLINE, bad)

    def test_format_duration(self):
        self.assertEqual(format_duration(timedelta(seconds=40)), "40 s")
        self.assertEqual(format_duration(timedelta(minutes=75)), "1 h 15 min")
        self.assertEqual(format_duration(timedelta(days=1, hours=3, minutes=5)), "1 d 3 h")


class Penalty(unittest.TestCase):
    policy = parse_policy("late penalty=10%/day grace=15m last=7d")

    def late(self, delta, points=8.0, policy=None, extension="", max_points=10.0):
        return assess(policy or self.policy, deadline=DEADLINE, submitted=DEADLINE + delta,
                      points=points, max_points=max_points, extension=extension)

    def test_on_time(self):
        r = self.late(timedelta(seconds=-1))
        self.assertEqual((r.status, r.points_before, r.points_after, r.penalty_pct),
                         ("on-time", 8.0, 8.0, 0.0))
        self.assertEqual(self.late(timedelta(0)).status, "on-time")   # at the deadline

    def test_grace(self):
        r = self.late(timedelta(minutes=15))
        self.assertEqual((r.status, r.points_after), ("grace", 8.0))
        self.assertIn("grace", r.reason)

    def test_part_of_a_day_is_a_day(self):
        r = self.late(timedelta(minutes=16))
        self.assertEqual((r.status, r.periods, r.penalty_pct, r.points_after),
                         ("late", 1, 10.0, 7.2))
        r = self.late(timedelta(days=1))
        self.assertEqual((r.periods, r.points_after), (1, 7.2))
        r = self.late(timedelta(days=1, seconds=1))
        self.assertEqual((r.periods, r.points_after), (2, 6.4))
        self.assertIn("8 -> 6.4", r.reason)

    def test_last_day(self):
        r = self.late(timedelta(days=7))
        self.assertEqual((r.status, r.periods, r.points_after), ("late", 7, 2.4))
        r = self.late(timedelta(days=7, seconds=1))
        self.assertEqual((r.status, r.points_before, r.points_after), ("too-late", 8.0, 0.0))

    def test_cap_and_of_max(self):
        p = parse_policy("penalty=25%/day cap=50% of=max")
        r = self.late(timedelta(days=3), policy=p)
        self.assertEqual((r.penalty_pct, r.points_after), (50.0, 3.0))   # 8 - 50% of 10
        r = self.late(timedelta(days=1), points=1.0, policy=p)
        self.assertEqual(r.points_after, 0.0)                              # never below 0
        p = parse_policy("penalty=30%/day")                                # no cap, no last
        self.assertEqual(self.late(timedelta(days=9), policy=p).points_after, 0.0)

    def test_per_hour(self):
        p = parse_policy("penalty=1%/hour")
        r = self.late(timedelta(hours=2, minutes=1), points=10.0, policy=p)
        self.assertEqual((r.periods, r.points_after), (3, 9.7))

    def test_extension_moves_the_deadline(self):
        # Two days of extension: a day and a half after the deadline is on time...
        r = self.late(timedelta(hours=36), extension="2d")
        self.assertEqual((r.status, r.points_after), ("on-time", 8.0))
        self.assertEqual(r.deadline, "2025-03-16T23:59:00+01:00")
        # ...and two days and an hour after it is one day late, counted from the new one.
        r = self.late(timedelta(days=2, hours=1), extension="2d")
        self.assertEqual((r.status, r.periods, r.points_after), ("late", 1, 7.2))
        self.assertIn("extended", r.reason)

    def test_no_policy_or_no_time(self):
        r = assess(None, deadline=DEADLINE, submitted=DEADLINE + timedelta(days=2), points=5,
                   max_points=10)
        self.assertEqual((r.status, r.points_after), ("late", 5))
        self.assertIn("no late policy", r.reason)
        r = assess(self.policy, deadline=DEADLINE, submitted=None, points=5, max_points=10)
        self.assertEqual((r.status, r.points_after), ("no-time", 5))

    def test_to_dict(self):
        d = self.late(timedelta(hours=30)).to_dict()
        self.assertEqual(d["points_before"], 8.0)
        self.assertEqual(d["points_after"], 6.4)
        self.assertEqual(d["submitted"], "2025-03-16T05:59:00+01:00")


if __name__ == "__main__":
    unittest.main()
