"""Tests of kitgrade.course.gitsub: git repositories as submissions, at a deadline, hostile ones too.

Every repository is built here, locally (no network). The hostile ones carry one trick each:
a hook, a link in the tree, a submodule, a huge blob, a config that would run a command
(fsmonitor, sshCommand, pager, alias, a filter driver, a signature program, a lazy fetch), a
.git that points elsewhere, borrowed objects and replace refs. Each trick's command would
leave a file in a folder anybody may write to; the tests assert that none appears and that the
file taken is the blob as committed.
"""

import hashlib
import os
import subprocess
import sys
import tempfile
import unittest
import zlib
from pathlib import Path
from unittest.mock import patch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kitgrade.course import gitsub  # noqa: E402
from kitgrade.course.gitsub import GitError, GitReader, take  # noqa: E402
from kitgrade.course.late import parse_time  # noqa: E402

FIX = Path(__file__).resolve().parent / "fixtures" / "instructors"
LAB = "labs/03_global_mem"
DEADLINE = parse_time("2025-03-14T23:59:00+01:00")
CLONED = parse_time("2025-03-22T12:00:00+01:00")



def latest_times(path, **kw):
    """Each name's latest time in a --submitted file, names of every kind together."""
    out = {}
    for _n, keys, t in gitsub.submitted_rows(path, **kw):
        for key in keys.values():
            if key not in out or t > out[key]:
                out[key] = t
    return out

class Repos:
    """Builds repositories with commits at chosen dates, as the test's own user."""

    def __init__(self, root: Path):
        self.root = root
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root),
                    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "LC_ALL": "C"}

    def git(self, repo, *args, date=None, check=True):
        env = dict(self.env)
        if date:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
        p = subprocess.run(["git", "-C", str(repo), "-c", "user.name=A Student",
                            "-c", "user.email=student@uni.example", "-c", "commit.gpgSign=false",
                            *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if check and p.returncode != 0:
            raise AssertionError("git %s: %s" % (args, p.stderr.decode()))
        return p.stdout.decode().strip()

    def new(self, name, bare=False):
        repo = self.root / name
        subprocess.run(["git", "init", "-q", "-b", "main"] + (["--bare"] if bare else [])
                       + [str(repo)], env=self.env, check=True)
        return repo

    def commit(self, repo, files, date, msg="work"):
        for rel, data in files.items():
            p = repo / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(data, bytes):
                p.write_bytes(data)
            else:
                p.write_text(data)
        self.git(repo, "add", "-A")
        self.git(repo, "commit", "-q", "--allow-empty", "-m", msg, date=date)
        return self.git(repo, "rev-parse", "HEAD")


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="kit-gitsub-")
        self.root = Path(self.tmp.name)
        os.chmod(self.root, 0o755)          # the unprivileged reader must get in
        self.trap = self.root / "trap"      # where a trick's command would leave its mark
        self.trap.mkdir()
        os.chmod(self.trap, 0o777)
        self.r = Repos(self.root)
        self.reader = GitReader()
        self.n = 0

    def tearDown(self):
        self.tmp.cleanup()

    def dest(self):
        self.n += 1
        return self.root / ("out%d" % self.n)

    def assertNoTrap(self):
        self.assertEqual(sorted(os.listdir(self.trap)), [], "a command from the repository ran")


class Deadline(Base):
    def setUp(self):
        super().setUp()
        self.repo = self.r.new("lab03-akim")
        self.c1 = self.r.commit(self.repo, {LAB + "/conv.cu": "v1\n"}, "2025-03-13T10:00:00+01:00")
        self.c2 = self.r.commit(self.repo, {LAB + "/conv.cu": "v2\n"}, "2025-03-14T20:00:00+01:00")
        self.c3 = self.r.commit(self.repo, {LAB + "/conv.cu": "v3\n"}, "2025-03-15T09:00:00+01:00")

    def test_head(self):
        s = take(self.repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader,
                 clone_time=CLONED)
        self.assertEqual((s.status, s.commit, s.newer_commits), ("ok", self.c3, 0))
        self.assertEqual(s.commit_time, "2025-03-15T09:00:00+01:00")
        self.assertEqual((s.submitted_at, s.submitted_from), (s.commit_time, "commit"))
        self.assertEqual(s.files, {"conv.cu": LAB + "/conv.cu"})
        self.assertEqual((self.root / "out1" / "conv.cu").read_text(), "v3\n")
        self.assertEqual(s.flags, [])

    def test_last_commit_at_or_before_the_deadline(self):
        s = take(self.repo, self.dest(), files=["conv.cu"], lab_dir=LAB, until=DEADLINE,
                 reader=self.reader, clone_time=CLONED)
        self.assertEqual((s.commit, s.newer_commits), (self.c2, 1))
        self.assertEqual((self.root / "out1" / "conv.cu").read_text(), "v2\n")
        self.assertEqual(s.until, "2025-03-14T23:59:00+01:00")
        exact = parse_time("2025-03-14T20:00:00+01:00")
        s = take(self.repo, self.dest(), files=["conv.cu"], lab_dir=LAB, until=exact,
                 reader=self.reader)
        self.assertEqual(s.commit, self.c2)            # at the deadline counts
        s = take(self.repo, self.dest(), files=["conv.cu"], lab_dir=LAB,
                 until=parse_time("2025-03-01T00:00:00Z"), reader=self.reader)
        self.assertEqual((s.status, s.commit), ("no-commit", None))
        self.assertEqual(os.listdir(self.root / "out3"), [])

    def test_ref(self):
        self.r.git(self.repo, "branch", "submitted", self.c1)
        s = take(self.repo, self.dest(), files=["conv.cu"], lab_dir=LAB, ref="submitted",
                 reader=self.reader)
        self.assertEqual(s.commit, self.c1)
        for bad in ("nope", "--output=/tmp/x", "HEAD~9"):
            s = take(self.repo, self.dest(), files=["conv.cu"], lab_dir=LAB, ref=bad,
                     reader=self.reader)
            self.assertEqual(s.status, "refused", bad)

    def test_backdated_commit_counts_at_its_parents_date(self):
        # Made after the deadline, but dated before it, on top of a commit dated after it.
        c4 = self.r.commit(self.repo, {LAB + "/conv.cu": "v4\n"}, "2025-03-14T22:00:00+01:00")
        s = take(self.repo, self.dest(), files=["conv.cu"], lab_dir=LAB, until=DEADLINE,
                 reader=self.reader, clone_time=CLONED)
        self.assertEqual(s.commit, self.c2)
        self.assertTrue(any(f.startswith("out-of-order: commit " + c4[:12]) for f in s.flags),
                        s.flags)
        s = take(self.repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader,
                 clone_time=CLONED)
        self.assertEqual((s.commit, s.submitted_at), (c4, "2025-03-15T09:00:00+01:00"))
        self.assertTrue(any(f.startswith("backdated: ") for f in s.flags), s.flags)

    def test_dated_after_the_clone(self):
        self.r.commit(self.repo, {LAB + "/conv.cu": "v5\n"}, "2030-01-01T00:00:00Z")
        s = take(self.repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader,
                 clone_time=CLONED)
        self.assertTrue(any(f.startswith("dated-after-clone: ") for f in s.flags), s.flags)

    def test_platform_time_rules(self):
        sub = parse_time("2025-03-14T21:00:00+01:00")
        s = take(self.repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader,
                 submitted_at=sub, clone_time=CLONED)
        self.assertEqual((s.submitted_at, s.submitted_from),
                         ("2025-03-14T21:00:00+01:00", "platform"))
        self.assertTrue(any(f.startswith("committed-after-submission: ") for f in s.flags))

    def test_root_fallback_and_both(self):
        repo = self.r.new("rootfiles")
        self.r.commit(repo, {"conv.cu": "root\n", "notes.txt": "x"}, "2025-03-13T10:00:00Z")
        s = take(repo, self.dest(), files=["conv.cu", "helper.cuh"], lab_dir=LAB,
                 reader=self.reader)
        self.assertEqual((s.status, s.files), ("ok", {"conv.cu": "conv.cu"}))
        self.r.commit(repo, {LAB + "/conv.cu": "kit\n"}, "2025-03-13T11:00:00Z")
        d = self.dest()
        s = take(repo, d, files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        self.assertEqual(s.files, {"conv.cu": LAB + "/conv.cu"})
        self.assertEqual((d / "conv.cu").read_text(), "kit\n")
        self.assertIn("conv.cu: ignored, %s/conv.cu was taken" % LAB, s.skipped)
        s = take(repo, self.dest(), files=["other.cu"], lab_dir=LAB, reader=self.reader)
        self.assertEqual(s.status, "no-files")

    def test_bare_clone_from_a_url_and_its_clone_time(self):
        bare = self.root / "clones" / "lab03-akim.git"
        made = gitsub.clone("file://" + str(self.repo), bare)
        with self.reader.copy(bare) as gd:
            got = self.reader.clone_time(gd)
        self.assertIsNotNone(got)
        self.assertLess(abs((got - made).total_seconds()), 120)
        self.assertFalse((bare / "conv.cu").exists())     # nothing checked out
        s = take(bare, self.dest(), files=["conv.cu"], lab_dir=LAB, until=DEADLINE,
                 reader=self.reader)
        self.assertEqual(s.commit, self.c2)
        repos, ignored = gitsub.find_repos(self.root / "clones")
        self.assertEqual([(n, p.name) for n, p in repos], [("lab03-akim", "lab03-akim.git")])
        with self.assertRaises(GitError):
            gitsub.clone("ext::sh -c touch% " + str(self.trap / "ext"), self.root / "x")
        with self.assertRaises(GitError):
            gitsub.clone("file://" + str(self.root / "nothing-here"), self.root / "y")
        self.assertNoTrap()
        # a repository past the size limit is not kept (a student's could fill the disk)
        big = self.r.new("big")
        self.r.commit(big, {"blob.bin": os.urandom(3 << 20)}, "2025-03-13T10:00:00Z")
        with self.assertRaisesRegex(GitError, "larger than 1 MiB, not taken"):
            gitsub.clone("file://" + str(big), self.root / "z.git", max_bytes=1 << 20)
        self.assertFalse((self.root / "z.git").exists())

    @unittest.skipUnless(os.geteuid() == 0, "only root switches to another user")
    def test_runs_as_an_unprivileged_user(self):
        self.assertEqual(self.reader.uid, int(os.environ.get("KIT_GRADE_UID_BASE", 61000)) - 1)
        # the grader copies the repository itself: a clone only root can read is read
        os.chmod(self.repo, 0o700)
        s = take(self.repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        self.assertEqual((s.status, s.commit), ("ok", self.c3))
        # and git reads the copy as that user, who reaches nothing of root's
        secret = self.root / "secret"
        secret.write_text("root's\n")
        os.chmod(secret, 0o600)
        with self.reader.copy(self.repo) as gd:
            self.assertEqual(os.stat(gd).st_uid, self.reader.uid)
            with self.assertRaises(GitError):
                self.reader.run(gd, ["hash-object", "--", str(secret)])
            os.chmod(secret, 0o644)
            self.assertRegex(self.reader.run(gd, ["hash-object", "--", str(secret)]),
                             b"^[0-9a-f]{40}")


class Listing(Base):
    def test_find_repos_and_repo_list(self):
        self.r.new("clones/lab03-jdoe")
        self.r.new("clones/lab03-akim.git", bare=True)
        (self.root / "clones" / "notes").mkdir()
        (self.root / "clones" / "README").write_text("x")
        os.symlink("/etc", self.root / "clones" / "lab03-link")
        repos, ignored = gitsub.find_repos(self.root / "clones")
        self.assertEqual([n for n, _ in repos], ["lab03-akim", "lab03-jdoe"])
        self.assertEqual(len(ignored), 3)
        lst = self.root / "repos.txt"
        lst.write_text("# the class\nhttps://git.example/org/lab03-jdoe.git\n"
                       "akim  /srv/clones/lab03-akim\n"
                       "git@git.example:org/lab03-eve.git   # late joiner\n\n")
        self.assertEqual(gitsub.read_repo_list(lst), [
            ("lab03-jdoe", "https://git.example/org/lab03-jdoe.git"),
            ("akim", "/srv/clones/lab03-akim"),
            ("lab03-eve", "git@git.example:org/lab03-eve.git")])
        self.assertTrue(gitsub.is_url("git@git.example:org/x.git"))
        self.assertFalse(gitsub.is_url("/srv/clones/x"))
        lst.write_text("a /x\na /y\n")
        with self.assertRaises(ValueError):
            gitsub.read_repo_list(lst)

    def test_submitted_files(self):
        t = latest_times(FIX / "classroom_grades.csv")
        self.assertEqual(t["janedoe-gh"], parse_time("2025-03-14T21:30:00Z"))
        self.assertEqual(t["s001"], t["janedoe-gh"])
        self.assertNotIn("pnovak", t)                       # no submission
        with self.assertRaises(ValueError):
            latest_times(FIX / "moodle_worksheet.csv")     # needs its zone
        cet = parse_time("2025-01-01T00:00:00+01:00").tzinfo
        t = latest_times(FIX / "moodle_worksheet.csv", default_tz=cet)
        self.assertEqual(t, {"jdoe@uni.example": parse_time("2025-03-14T22:30:00+01:00")})
        p = self.root / "sub.csv"
        p.write_text("login,submitted_at\nakim,2025-03-15T10:00:00Z\nAKIM,2025-03-15T11:00:00Z\n")
        self.assertEqual(latest_times(p), {"akim": parse_time("2025-03-15T11:00:00Z")})
        p.write_text("login,submitted_at\nakim,yesterday\n")
        with self.assertRaises(ValueError):
            latest_times(p)


class Hostile(Base):
    """One trick per repository; none may run, none may change what is taken."""

    def make(self, name, content="good\n"):
        repo = self.r.new(name)
        cid = self.r.commit(repo, {LAB + "/conv.cu": content}, "2025-03-13T10:00:00Z")
        return repo, cid

    def take_ok(self, repo, content="good\n"):
        d = self.dest()
        s = take(repo, d, files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        self.assertEqual(s.status, "ok", s.reason)
        self.assertEqual((d / "conv.cu").read_text(), content)
        self.assertNoTrap()
        return s

    def test_hooks(self):
        repo, _ = self.make("hooks")
        hook = "#!/bin/sh\ntouch %s/$(basename $0)\n" % self.trap
        for h in ("post-checkout", "post-merge", "pre-auto-gc", "reference-transaction",
                  "post-index-change", "fsmonitor-watchman"):
            p = repo / ".git" / "hooks" / h
            p.write_text(hook)
            p.chmod(0o755)
        other = self.root / "hookdir"
        other.mkdir()
        (other / "post-checkout").write_text(hook)
        (other / "post-checkout").chmod(0o755)
        self.r.git(repo, "config", "core.hooksPath", str(other))
        self.take_ok(repo)

    def test_link_in_the_tree(self):
        repo = self.r.new("link")
        (repo / LAB).mkdir(parents=True)
        os.symlink("/etc/passwd", repo / LAB / "conv.cu")
        self.r.commit(repo, {}, "2025-03-13T10:00:00Z")
        d = self.dest()
        s = take(repo, d, files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        self.assertEqual(s.status, "no-files")
        self.assertIn(LAB + "/conv.cu: a symbolic link, not taken", s.skipped)
        self.assertEqual(os.listdir(d), [])
        # A link as a folder on the way (labs -> /) leads nowhere either.
        repo = self.r.new("linkdir")
        os.symlink("/", repo / "labs")
        self.r.commit(repo, {}, "2025-03-13T10:00:00Z")
        s = take(repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        self.assertEqual((s.status, s.files), ("no-files", {}))

    def test_a_commit_dated_past_year_9999_is_refused_not_a_crash(self):
        """A commit object written by hand can carry any date: year 33658, or a zone of 99
        hours. The submission is refused with the reason, and the grading goes on."""
        for when in ("999999999999 +0000", "1700000000 +9959"):
            repo = self.r.new("date%s" % when[-4:])
            self.r.commit(repo, {LAB + "/conv.cu": "x"}, "2025-03-13T10:00:00Z")
            tree = self.r.git(repo, "rev-parse", "HEAD^{tree}")
            obj = ("tree %s\nauthor A <a@b> %s\ncommitter A <a@b> %s\n\nforged\n"
                   % (tree, when, when))
            (self.root / "obj").write_text(obj)
            cid = self.r.git(repo, "hash-object", "-t", "commit", "-w", "--literally",
                             str(self.root / "obj"))
            self.r.git(repo, "update-ref", "refs/heads/main", cid)
            s = take(repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader)
            self.assertEqual(s.status, "refused", when)
            self.assertIn("a commit's date is no date", s.reason)

    def test_an_object_that_inflates_past_the_memory_cap_is_refused(self):
        """A commit object of a few kilobytes that inflates to more than git may take (a "git
        bomb"; 4 GiB took 4.2 GB of memory and a minute): git stops at its address-space cap,
        the submission is refused with the reason. The cap is lowered here to keep it fast."""
        repo, _ = self.make("bomb")
        tree = self.r.git(repo, "rev-parse", "HEAD^{tree}")
        head = ("tree %s\nauthor A <a@b> 1741860000 +0000\ncommitter A <a@b> 1741860000 "
                "+0000\n\n" % tree).encode()
        n, chunk = 512 << 20, b"A" * (1 << 20)
        hdr = b"commit %d\0" % (len(head) + n)
        h, z = hashlib.sha1(hdr + head), zlib.compressobj(9)
        out = [z.compress(hdr + head)]
        for _ in range(n // len(chunk)):
            h.update(chunk)
            out.append(z.compress(chunk))
        out.append(z.flush())
        oid = h.hexdigest()
        (repo / ".git" / "objects" / oid[:2]).mkdir(exist_ok=True)
        (repo / ".git" / "objects" / oid[:2] / oid[2:]).write_bytes(b"".join(out))
        self.r.git(repo, "update-ref", "refs/heads/main", oid)
        with patch.object(gitsub, "GIT_MAX_AS", 256 << 20):
            s = take(repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        self.assertEqual(s.status, "refused")
        self.assertIn("memory", s.reason.lower())

    def test_a_copy_time_that_is_no_time_is_refused_not_a_crash(self):
        """The repository's own record of when it was copied (logs/HEAD) is its file too: a
        zone of 99 hours or a year past 9999 refuses it, with the reason."""
        for stamp in ("1741860000 +9999", "99999999999999999 +0000"):
            repo, _ = self.make("clonetz%s" % stamp[-4:])
            (repo / ".git" / "logs" / "HEAD").write_text(
                "0" * 40 + " " + "1" * 40 + " A <a@b> %s\tclone: from x\n" % stamp)
            s = take(repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader)
            self.assertEqual(s.status, "refused", stamp)
            self.assertIn("is no time", s.reason)

    def test_submodule_and_folder(self):
        repo, cid = self.make("submodule")
        self.r.git(repo, "rm", "-q", "--cached", LAB + "/conv.cu")
        self.r.git(repo, "update-index", "--add", "--cacheinfo",
                   "160000,%s,%s/conv.cu" % (cid, LAB))
        self.r.git(repo, "commit", "-q", "-m", "sub", date="2025-03-13T11:00:00Z")
        s = take(repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        self.assertIn(LAB + "/conv.cu: a submodule, not taken", s.skipped)
        repo = self.r.new("folder")
        self.r.commit(repo, {"conv.cu/x": "x"}, "2025-03-13T10:00:00Z")
        s = take(repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        self.assertTrue(any("not a regular file" in x for x in s.skipped), s.skipped)

    def test_huge_blob(self):
        repo = self.r.new("huge")
        self.r.commit(repo, {LAB + "/conv.cu": b"\0" * (gitsub.MAX_FILE_BYTES + 1),
                             "small.cu": "ok\n"}, "2025-03-13T10:00:00Z")
        d = self.dest()
        s = take(repo, d, files=["conv.cu", "small.cu"], lab_dir=LAB, reader=self.reader)
        self.assertIn("%s/conv.cu: %d bytes, more than the %d allowed: not taken"
                      % (LAB, gitsub.MAX_FILE_BYTES + 1, gitsub.MAX_FILE_BYTES), s.skipped)
        self.assertEqual(sorted(os.listdir(d)), ["small.cu"])
        # The read itself is capped too, whatever the tree said.
        small = GitReader(max_file_bytes=10)
        oid = self.r.git(repo, "rev-parse", "HEAD:" + LAB + "/conv.cu")
        with self.assertRaises(GitError), small.copy(repo) as gd:
            small.blob(gd, oid)

    def test_config_that_runs_commands(self):
        repo, _ = self.make("config")
        (repo / ".gitattributes").write_text("*.cu filter=evil diff=evil\n")
        self.r.commit(repo, {}, "2025-03-13T11:00:00Z")
        t = self.trap
        for key, val in [
                ("core.fsmonitor", "touch %s/fsmonitor; false" % t),
                ("core.sshCommand", "touch %s/ssh" % t),
                ("core.pager", "touch %s/pager; cat" % t),
                ("core.editor", "touch %s/editor" % t),
                ("core.askPass", "touch %s/askpass" % t),
                ("alias.cat-file", "!touch %s/alias" % t),
                ("alias.ls-tree", "!touch %s/alias2" % t),
                ("filter.evil.smudge", "touch %s/smudge; cat" % t),
                ("filter.evil.clean", "touch %s/clean; cat" % t),
                ("filter.evil.process", "touch %s/process" % t),
                ("filter.evil.required", "true"),
                ("diff.evil.textconv", "touch %s/textconv; cat" % t),
                ("diff.external", "touch %s/diff" % t),
                ("log.showSignature", "true"),
                ("gpg.program", "touch %s/gpg" % t),
                ("credential.helper", "!touch %s/credential" % t),
                ("pager.ls-tree", "touch %s/pager2; cat" % t),
                ("include.path", str(t / "included"))]:
            self.r.git(repo, "config", key, val)
        self.take_ok(repo)

    def test_lazy_fetch_would_run_ssh(self):
        # A partial clone's promisor remote: a missing object would be fetched over ssh.
        repo, _ = self.make("promisor")
        self.r.git(repo, "config", "core.repositoryformatversion", "1")
        self.r.git(repo, "config", "extensions.partialClone", "origin")
        self.r.git(repo, "config", "remote.origin.url", "ssh://git.example/x.git")
        self.r.git(repo, "config", "remote.origin.promisor", "true")
        self.r.git(repo, "config", "remote.origin.partialclonefilter", "blob:none")
        self.r.git(repo, "config", "core.sshCommand", "touch %s/ssh" % self.trap)
        missing = "1" * 40
        tree = subprocess.run(["git", "-C", str(repo), "mktree", "--missing"],
                              input=("100644 blob %s\tconv.cu\n" % missing).encode(),
                              stdout=subprocess.PIPE, env=self.r.env, check=True
                              ).stdout.decode().strip()
        commit = self.r.git(repo, "commit-tree", tree, "-m", "x", date="2025-03-13T12:00:00Z")
        self.r.git(repo, "update-ref", "refs/heads/main", commit)
        s = take(repo, self.dest(), files=["conv.cu"], reader=self.reader)
        self.assertEqual(s.status, "no-files")
        self.assertIn("conv.cu: its content is not in the repository (a missing object), "
                      "not taken", s.skipped)
        self.assertNoTrap()

    def test_gitdir_file_pointing_elsewhere(self):
        other, _ = self.make("other-student", content="someone else's\n")
        repo = self.root / "gitfile"
        repo.mkdir()
        (repo / ".git").write_text("gitdir: %s/.git\n" % other)
        s = take(repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        self.assertEqual(s.status, "refused")
        self.assertIn("gitdir", s.reason)
        repo = self.root / "gitlink"
        repo.mkdir()
        os.symlink(other / ".git", repo / ".git")
        s = take(repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        self.assertEqual(s.status, "refused")

    def test_borrowed_objects(self):
        repo, _ = self.make("alternates")
        (repo / ".git" / "objects" / "info" / "alternates").write_text(
            str(self.root / "other" / ".git" / "objects") + "\n")
        s = take(repo, self.dest(), files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        self.assertEqual(s.status, "refused")
        self.assertIn("alternates", s.reason)

    def test_replace_refs_ignored(self):
        repo, first = self.make("replace", content="mine\n")
        fake = self.r.new("donor")
        self.r.commit(fake, {LAB + "/conv.cu": "copied\n"}, "2025-03-13T10:00:00Z")
        self.r.git(repo, "fetch", "-q", str(fake), "main:donor")
        donor = self.r.git(repo, "rev-parse", "donor")
        self.r.git(repo, "replace", first, donor)
        self.assertEqual(self.r.git(repo, "show", "HEAD:" + LAB + "/conv.cu"), "copied")
        s = self.take_ok(repo, content="mine\n")
        self.assertEqual(s.commit, first)

    def test_dest_must_be_new_and_names_plain(self):
        repo, _ = self.make("plain")
        d = self.dest()
        d.mkdir()
        with self.assertRaises(FileExistsError):
            take(repo, d, files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        for bad in ("../conv.cu", "/etc/passwd", ""):
            with self.assertRaises(ValueError):
                take(repo, self.dest(), files=[bad], reader=self.reader)


if __name__ == "__main__":
    unittest.main()
