"""Tests of kitgrade.course.roster: rosters as platforms export them, and submissions to students."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kitgrade.course.roster import (RosterError, link_classroom, match_submissions,  # noqa: E402
                             parse_roster, read_roster)

FIX = Path(__file__).resolve().parent / "fixtures" / "instructors"


def statuses(entries):
    return {(e.login, e.folder): e.status for e in entries}


class Formats(unittest.TestCase):
    def test_canvas_gradebook_export(self):
        r = read_roster(FIX / "canvas_gradebook.csv")
        self.assertEqual(r.kind, "canvas")
        # The Points Possible row and Canvas's test student are not students.
        self.assertEqual([s.login for s in r.students], ["jdoe", "jo-smith", "akim", "pnovak"])
        self.assertEqual(len(r.skipped), 2)
        jane = r.find("JDOE")
        self.assertEqual((jane.name, jane.id, jane.sis_id, jane.section),
                         ("Doe, Jane", "1234", "s001", "CUDA Lab A"))
        self.assertEqual(jane.extra["Lab 3 (56789)"], "")
        self.assertEqual(jane.row["Student"], "Doe, Jane")

    def test_moodle_grade_export(self):
        r = read_roster(FIX / "moodle_grades.csv")
        self.assertEqual(r.kind, "moodle")
        ana = r.find("akim")           # no Username column: the e-mail's local part
        self.assertEqual((ana.name, ana.email, ana.sis_id), ("Ana Kim", "akim@uni.example",
                                                             "s003"))
        self.assertIn("Assignment: Lab 3 (Real)", ana.extra)

    def test_moodle_e_mail_names_two_students_share(self):
        # a student who sets her address to alice@elsewhere.example made "alice" two
        # students' login and stopped the whole grading; now each keeps the whole address
        r = parse_roster("First name,Last name,ID number,Email address\n"
                         "Alice,A,s1,alice@uni.example\nMallory,M,s2,alice@elsewhere.example\n"
                         "Bob,B,s3,bob@uni.example\n")
        self.assertEqual([s.login for s in r.students],
                         ["alice@uni.example", "alice@elsewhere.example", "bob"])
        self.assertEqual(len(r.skipped), 2)
        self.assertIn("two students' e-mail name", r.skipped[0])
        # a login column the instructor gave stays a hard error when two share it
        with self.assertRaises(RosterError):
            parse_roster("login,name\nalice,A\nALICE,B\n")

    def test_moodle_participants_with_username_and_groups(self):
        text = ("First name;Surname;Username;Email address;Groups\n"
                "Ana;Kim;ak17;ana@uni.example;Lab B\n")
        r = parse_roster(text)
        self.assertEqual((r.kind, r.students[0].login, r.students[0].section),
                         ("moodle", "ak17", "Lab B"))

    def test_classroom_roster(self):
        r = read_roster(FIX / "classroom_roster.csv")
        self.assertEqual(r.kind, "classroom")
        self.assertEqual(r.find("janedoe-gh").id, "s001")
        self.assertEqual(r.students[3].login, "")     # a roster entry nobody has linked yet

    def test_plain_keeps_extra_columns_and_aliases(self):
        r = read_roster(FIX / "plain_roster.csv")
        self.assertEqual(r.kind, "plain")
        jane = r.find("janedoe-gh")    # the github column is matched too
        self.assertEqual(jane.login, "jdoe")
        self.assertEqual(jane.extra, {"extension": "", "tutor": "Rossi"})
        self.assertEqual(r.find("jo-smith").extra["extension"], "2d")

    def test_bom_tabs_and_login_column(self):
        text = "\ufeffLogin\tName\tMatrikel\nab1\tA B\t77\n"
        r = parse_roster(text)
        self.assertEqual((r.students[0].login, r.students[0].extra), ("ab1", {"Matrikel": "77"}))
        r = parse_roster(text, login_column="Matrikel")
        self.assertEqual(r.students[0].login, "77")
        with self.assertRaises(RosterError):
            parse_roster(text, login_column="nope")

    def test_refusals(self):
        with self.assertRaises(RosterError):
            parse_roster("name,email\nA,a@x\n")                      # no login anywhere
        with self.assertRaises(RosterError):
            parse_roster("login,name\nab,A\nAB,B\n")                 # one login, two people
        with self.assertRaises(RosterError):
            parse_roster("login,login\nab,cd\n")
        with self.assertRaises(RosterError):
            parse_roster("login\n../etc\n")
        with self.assertRaises(RosterError):
            parse_roster("")
        with self.assertRaises(RosterError):
            read_roster(FIX / "no-such-file.csv")


class Matching(unittest.TestCase):
    def setUp(self):
        self.roster = read_roster(FIX / "plain_roster.csv")

    def test_plain_folders_and_a_missing_student(self):
        e = match_submissions(self.roster, ["jdoe", "akim", "jo-smith", "zz-visitor"])
        self.assertEqual(statuses(e), {
            ("akim", "akim"): "matched", ("jdoe", "jdoe"): "matched",
            ("jo-smith", "jo-smith"): "matched", ("pnovak", None): "missing",
            ("zz-visitor", "zz-visitor"): "not-on-roster"})
        missing = [x for x in e if x.status == "missing"][0]
        self.assertIn("0 points", missing.reason)
        self.assertEqual(missing.student.name, "Petr Novak")

    def test_classroom_prefix_is_inferred(self):
        # lab03-jo-smith could be jo-smith (prefix lab03) or "smith" (prefix lab03-jo):
        # the other folders share the prefix lab03.
        roster = parse_roster("login\njo-smith\nsmith\nakim\njdoe\n")
        e = match_submissions(roster, ["lab03-jo-smith", "lab03-akim", "lab03-jdoe",
                                       "lab03-eve"])
        self.assertEqual(statuses(e), {
            ("akim", "lab03-akim"): "matched", ("jdoe", "lab03-jdoe"): "matched",
            ("jo-smith", "lab03-jo-smith"): "matched", ("smith", None): "missing",
            ("eve", "lab03-eve"): "not-on-roster"})

    def test_alias_and_case(self):
        e = match_submissions(self.roster, ["lab03-JaneDoe-GH"], prefix="lab03")
        jane = [x for x in e if x.folder][0]
        self.assertEqual((jane.login, jane.status), ("jdoe", "matched"))

    def test_given_prefix_settles_an_ambiguous_folder(self):
        roster = parse_roster("login\njo-smith\nsmith\n")
        e = match_submissions(roster, ["lab03-jo-smith"])
        self.assertEqual([x.status for x in e if x.folder], ["ambiguous"])
        e = match_submissions(roster, ["lab03-jo-smith"], prefix="lab03-")
        self.assertEqual(statuses(e)[("jo-smith", "lab03-jo-smith")], "matched")
        self.assertEqual(statuses(e)[("smith", None)], "missing")

    def test_duplicate_folders(self):
        e = match_submissions(self.roster, ["lab03-akim", "akim"])
        self.assertEqual(statuses(e)[("akim", "akim")], "matched")
        self.assertEqual(statuses(e)[("akim", "lab03-akim")], "duplicate")

    def test_a_strangers_prefix_is_not_the_class_s(self):
        # GitHub Classroom names a repository lab01-ACCOUNT; an account named a-alice gets
        # lab01-a-alice, which must not be alice's (it sorted before her own and replaced it)
        roster = parse_roster("login\nalice\nbob\n")
        e = statuses(match_submissions(roster, ["lab01-alice", "lab01-bob", "lab01-a-alice"]))
        self.assertEqual(e[("alice", "lab01-alice")], "matched")
        self.assertEqual(e[("bob", "lab01-bob")], "matched")
        self.assertEqual(e[("a-alice", "lab01-a-alice")], "not-on-roster")
        # alice without a repository of her own: the stranger's is still not hers
        e = statuses(match_submissions(roster, ["lab01-bob", "lab01-carol", "lab01-a-alice"]))
        self.assertEqual(e[("alice", None)], "missing")
        self.assertEqual(e[("a-alice", "lab01-a-alice")], "not-on-roster")
        # two folders alone: lab01-a-alice begins with lab01- too, so lab01 is the class's
        e = statuses(match_submissions(roster, ["lab01-bob", "lab01-a-alice"]))
        self.assertEqual((e[("bob", "lab01-bob")], e[("a-alice", "lab01-a-alice")]),
                         ("matched", "not-on-roster"))
        # a class of folders named LOGIN: a stray zz-alice is nobody's
        e = statuses(match_submissions(roster, ["bob", "carol", "dave", "zz-alice"]))
        self.assertEqual((e[("bob", "bob")], e[("alice", None)]), ("matched", "missing"))
        # two prefixes as common as each other: neither is taken as the class's
        with self.assertRaisesRegex(RosterError, "share no one prefix .*: give the prefix"):
            match_submissions(roster, ["lab01-bob", "hw1-alice"])
        e = statuses(match_submissions(roster, ["lab01-bob", "hw1-alice"], prefix="lab01"))
        self.assertEqual((e[("bob", "lab01-bob")], e[("alice", None)]), ("matched", "missing"))

    def test_canvas_roster_linked_to_github_classroom(self):
        # Canvas knows SIS ids, GitHub Classroom links them to GitHub accounts.
        roster = read_roster(FIX / "canvas_gradebook.csv")
        notes = link_classroom(roster, read_roster(FIX / "classroom_roster.csv"))
        self.assertEqual(notes, [])
        self.assertEqual(roster.find("janedoe-gh").login, "jdoe")
        e = match_submissions(roster, ["lab03-janedoe-gh", "lab03-akim", "lab03-ghost"])
        st = statuses(e)
        self.assertEqual(st[("jdoe", "lab03-janedoe-gh")], "matched")
        self.assertEqual(st[("akim", "lab03-akim")], "matched")
        self.assertEqual(st[("ghost", "lab03-ghost")], "not-on-roster")
        bad = parse_roster("identifier,github_username\ns999,stranger\ns001,akim\n")
        notes = link_classroom(read_roster(FIX / "canvas_gradebook.csv"), bad)
        self.assertEqual(len(notes), 2)
        self.assertIn("stranger (identifier s999): nobody on the roster", notes[0])
        self.assertIn("GitHub account akim is jdoe's by the classroom roster (identifier s001) "
                      "and akim's login on the roster", notes[1])
        with self.assertRaises(RosterError):
            link_classroom(roster, roster)

    def test_canvas_roster_by_sis_login(self):
        roster = read_roster(FIX / "canvas_gradebook.csv")
        e = match_submissions(roster, ["lab03-jdoe", "lab03-pnovak"])
        st = statuses(e)
        self.assertEqual(st[("jdoe", "lab03-jdoe")], "matched")
        self.assertEqual(st[("akim", None)], "missing")
        self.assertEqual(st[("jo-smith", None)], "missing")


class Clashes(unittest.TestCase):
    """A name that could be two students' is refused, never given to one of them."""

    ROSTER = "login,name,email\nalice,Alice A,alice@uni.edu\neve,Eve E,eve@uni.edu\n"

    def test_github_name_that_is_another_students_login_takes_nothing_over(self):
        # eve links a GitHub account named "alice" to herself: lab01-alice fits alice (her
        # login) and eve (her GitHub name); alice's own GitHub name, alicegh, decides for her.
        roster = parse_roster(self.ROSTER)
        notes = link_classroom(roster, parse_roster(
            "identifier,github_username,github_id,name\n"
            "alice@uni.edu,alicegh,1,\neve@uni.edu,alice,2,\n"))
        self.assertEqual(len(notes), 1)
        self.assertIn("GitHub account alice is eve's by the classroom roster "
                      "(identifier eve@uni.edu) and alice's login on the roster", notes[0])
        e = match_submissions(roster, ["lab01-alicegh", "lab01-alice"])
        self.assertEqual(statuses(e), {("alice", "lab01-alicegh"): "matched",
                                       ("lab01-alice", "lab01-alice"): "ambiguous",
                                       ("eve", None): "missing"})
        refused = [x for x in e if x.status == "ambiguous"][0]
        self.assertIn("folder 'lab01-alice' is matched to nobody: GitHub account alice",
                      refused.reason)
        self.assertEqual(roster.find("alice").github, ("alicegh",))
        self.assertEqual(roster.find("eve").github, ("alice",))     # not an alias: no folder

    def test_the_linked_github_name_wins_over_another_folder_of_the_login(self):
        # nobody links "alice" (an account anyone may make): alicegh is alice's by the link
        roster = parse_roster(self.ROSTER)
        link_classroom(roster, parse_roster("identifier,github_username\nalice@uni.edu,alicegh\n"))
        e = match_submissions(roster, ["lab01-alice", "lab01-alicegh"])
        self.assertEqual(statuses(e)[("alice", "lab01-alicegh")], "matched")
        self.assertEqual(statuses(e)[("alice", "lab01-alice")], "duplicate")

    def test_a_bare_clone_and_a_folder_of_one_name_are_duplicates(self):
        e = match_submissions(parse_roster(self.ROSTER), ["alice", "alice.git"],
                              names={"alice.git": "alice"})
        self.assertEqual(statuses(e), {("alice", "alice"): "matched",
                                       ("alice", "alice.git"): "duplicate",
                                       ("eve", None): "missing"})
        dup = [x for x in e if x.status == "duplicate"][0]
        self.assertEqual(dup.reason, "a second folder of alice; 'alice' is graded")

    def test_the_exact_letter_case_wins(self):
        e = match_submissions(parse_roster(self.ROSTER), ["ALICE", "alice"])
        self.assertEqual(statuses(e)[("alice", "alice")], "matched")
        self.assertEqual(statuses(e)[("alice", "ALICE")], "duplicate")

    def test_names_in_messages_are_cleaned(self):
        roster = parse_roster("login,email\nal\x1b]0;x\x07ice,a@uni.edu\neve,eve@uni.edu\n")
        notes = link_classroom(roster, parse_roster(
            "identifier,github_username\neve@uni.edu,al\x1b]0;x\x07ice\n"))
        e = match_submissions(roster, ["lab01-al\x1b]0;x\x07ice"])
        said = notes + [x.reason for x in e if x.folder]
        self.assertEqual(len(said), 2)
        for n in said:
            self.assertIn("al ]0;x ice", n)
            self.assertNotIn("\x1b", n)
            self.assertNotIn("\x07", n)


if __name__ == "__main__":
    unittest.main()
