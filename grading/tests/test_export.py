"""Tests of kitgrade.course.export: the gradebook in Canvas's and Moodle's import formats."""

import csv
import io
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kitgrade.course.export import ExportError, export, export_canvas, export_moodle  # noqa: E402
from kitgrade.course.roster import parse_roster, read_roster  # noqa: E402

FIX = Path(__file__).resolve().parent / "fixtures" / "instructors"
# jdoe on time, jo-smith late (after the penalty), akim graded, pnovak missing.
POINTS = {"jdoe": 27.5, "JO-SMITH": 21.6, "akim": 30.0, "pnovak": None, "visitor": 12.0}


def rows(text):
    return list(csv.reader(io.StringIO(text)))


class Canvas(unittest.TestCase):
    def test_from_canvas_roster(self):
        roster = read_roster(FIX / "canvas_gradebook.csv")
        ex = export_canvas(roster, POINTS, assignment="Lab 3", max_points=30)
        r = rows(ex.text)
        # The header Canvas's import reads: the five student columns, then the roster's own
        # column of the assignment (with its id, so the grades land on that assignment).
        self.assertEqual(r[0], ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                                "Lab 3 (56789)"])
        self.assertEqual(r[1], ["    Points Possible", "", "", "", "", "30"])
        self.assertEqual(r[2:], [
            ["Doe, Jane", "1234", "s001", "jdoe", "CUDA Lab A", "27.5"],
            ["Smith, Jo", "1235", "s002", "jo-smith", "CUDA Lab A", "21.6"],
            ["Kim, Ana", "1236", "s003", "akim", "CUDA Lab B", "30"],
            ["Novak, Petr", "1237", "s004", "pnovak", "CUDA Lab B", "0"]])   # missing: 0
        self.assertTrue(ex.text.endswith("\r\n"))
        self.assertEqual(ex.skipped, ["visitor: not on the roster, not exported"])

    def test_from_plain_roster_and_named_id(self):
        roster = read_roster(FIX / "plain_roster.csv")
        ex = export("canvas", roster, {"jdoe": 10, "janedoe-gh": 10, "akim": 3.456},
                    assignment="Lab 3 (56789)", max_points=30)
        r = rows(ex.text)
        self.assertEqual(r[0][5], "Lab 3 (56789)")
        self.assertEqual(r[2], ["Jane Doe", "1234", "", "jdoe", "A", "10"])
        self.assertEqual(r[4][5], "3.46")
        self.assertEqual(r[3][5], "")          # jo-smith has no grade: left blank, listed
        self.assertIn("jo-smith: no grade, left blank", ex.skipped)

    def test_quoting(self):
        roster = parse_roster('login,name\nx1,"O\'Neil, ""Bo"""\n')
        ex = export_canvas(roster, {"x1": 1}, assignment="Lab, 3", max_points=2)
        r = rows(ex.text)
        self.assertEqual(r[0][5], "Lab, 3")
        self.assertEqual(r[2][0], 'O\'Neil, "Bo"')

    def test_refusals(self):
        roster = read_roster(FIX / "plain_roster.csv")
        with self.assertRaises(ExportError):
            export("blackboard", roster, {}, assignment="x", max_points=1)
        with self.assertRaises(ExportError):
            export("canvas", roster, {}, assignment=" ", max_points=1)


class Moodle(unittest.TestCase):
    def test_from_moodle_roster(self):
        roster = read_roster(FIX / "moodle_grades.csv")
        ex = export_moodle(roster, {"jdoe": 27.5, "jo-smith": 21.6, "akim": 30,
                                    "pnovak": None}, assignment="Lab 3")
        r = rows(ex.text)
        # Moodle's own export headers; the grade item's column as Moodle named it.
        self.assertEqual(r[0], ["First name", "Last name", "Email address",
                                "Assignment: Lab 3 (Real)"])
        self.assertEqual(r[1:], [["Jane", "Doe", "jdoe@uni.example", "27.5"],
                                 ["Jo", "Smith", "jo-smith@uni.example", "21.6"],
                                 ["Ana", "Kim", "akim@uni.example", "30"],
                                 ["Petr", "Novak", "pnovak@uni.example", "0"]])
        self.assertEqual(ex.skipped, [])

    def test_identifiers(self):
        roster = read_roster(FIX / "moodle_grades.csv")
        r = rows(export_moodle(roster, POINTS, assignment="Lab 3", identifier="idnumber").text)
        self.assertEqual(r[0][2], "ID number")
        self.assertEqual(r[1][2:], ["s001", "27.5"])
        roster = read_roster(FIX / "canvas_gradebook.csv")
        ex = export_moodle(roster, POINTS, assignment="Lab 3", identifier="username")
        r = rows(ex.text)
        self.assertEqual(r[0], ["First name", "Last name", "Username", "Lab 3"])
        self.assertEqual(r[1], ["Jane", "Doe", "jdoe", "27.5"])
        # A Canvas roster has no e-mail addresses: nobody can be exported by e-mail.
        ex = export_moodle(roster, POINTS, assignment="Lab 3")
        self.assertEqual(len(rows(ex.text)), 1)
        self.assertEqual(len(ex.skipped), 5)
        with self.assertRaises(ExportError):
            export_moodle(roster, POINTS, assignment="Lab 3", identifier="userid")

    def test_write_is_atomic_and_complete(self):
        roster = read_roster(FIX / "moodle_grades.csv")
        ex = export("moodle", roster, POINTS, assignment="Lab 3", max_points=30)
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "moodle.csv"
            ex.write(p)
            self.assertEqual(p.read_bytes().decode(), ex.text)
            self.assertEqual(sorted(x.name for x in Path(d).iterdir()), ["moodle.csv"])


if __name__ == "__main__":
    unittest.main()
