"""Tests of kitgrade.course.gitstore through gitsub.take: a repository is data, down to its .git.

Each repository here is built locally and carries one trick: a link inside .git into another
student's repository (objects/pack, packed-refs, refs/heads/main, HEAD, a loose object's
folder, objects/info), a hard-linked ref, a linked work tree, a `gitdir:` file, alternates
(also behind a link), an included config, submodules, attributes and their filters, an LFS
pointer. Whatever git would run leaves a file in the trap folder; the tests assert none
appears, that the other student's work never lands in the output, and that a refusal names
what it refused.
"""

import os
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import util  # noqa: E402
from kitgrade.base import fsutil  # noqa: E402
from kitgrade.course import gitstore  # noqa: E402
from kitgrade.course.gitsub import GitError, take  # noqa: E402
from test_gitsub import LAB, Base  # noqa: E402


class Store(Base):
    def setUp(self):
        super().setUp()
        self.alice = self.r.new("lab03-alice")
        self.alice_c = self.r.commit(self.alice, {LAB + "/conv.cu": "alice's work\n"},
                                     "2025-03-13T10:00:00Z")
        self.r.git(self.alice, "gc", "-q")          # her objects in a pack, refs packed
        self.bob = self.r.new("lab03-bob")
        self.r.commit(self.bob, {LAB + "/conv.cu": "bob's work\n"}, "2025-03-13T11:00:00Z")

    def take(self, repo):
        d = self.dest()
        s = take(repo, d, files=["conv.cu"], lab_dir=LAB, reader=self.reader)
        self.assertNoTrap()
        return s, d

    def refused(self, repo, *words):
        s, d = self.take(repo)
        self.assertEqual(s.status, "refused", s.reason)
        for w in words:
            self.assertIn(w, s.reason)
        self.assertEqual(os.listdir(d), [])            # nothing of anybody's taken
        self.assertIsNone(s.commit)
        return s

    def replace(self, rel, target):
        p = self.bob / ".git" / rel
        if p.is_dir() and not p.is_symlink():
            import shutil
            shutil.rmtree(p)
        elif os.path.lexists(p):
            p.unlink()
        os.symlink(target, p)

    def test_refs_nested_too_deep(self):
        """A ref folder deeper than git's names go is refused, not walked down to the bottom."""
        os.close(util.nest(self.bob / ".git" / "refs" / "heads", 1500))
        self.refused(self.bob, "refs nested more than %d folders deep" % gitstore.MAX_REF_DEPTH)
        fsutil.remove_tree(self.bob / ".git" / "refs" / "heads" / "d")  # (too deep for rmtree)

    # -- links into another student's repository ----------------------------------------
    def test_linked_pack_and_packed_refs_and_ref(self):
        """The review's repository: bob's .git links to alice's pack, packed-refs and ref."""
        a = self.alice / ".git"
        self.r.git(self.bob, "update-ref", "-d", "refs/heads/main")
        self.replace("objects/pack", a / "objects" / "pack")
        s = self.refused(self.bob, ".git/objects/pack is a symbolic link (to %s)"
                         % (a / "objects" / "pack"))
        self.assertNotIn("alice's work", s.reason)
        (self.bob / ".git" / "objects" / "pack").unlink()
        (self.bob / ".git" / "objects" / "pack").mkdir()
        self.replace("packed-refs", a / "packed-refs")
        self.refused(self.bob, ".git/packed-refs is a symbolic link (to %s)" % (a / "packed-refs"))

    def test_each_link_named(self):
        a = self.alice / ".git"
        for rel, target in (("refs/heads/main", a / "refs" / "heads" / "main"),
                            ("refs/heads", a / "refs" / "heads"),
                            ("refs", a / "refs"),
                            ("HEAD", a / "HEAD"),
                            ("objects", a / "objects"),
                            ("objects/info", a / "objects" / "info")):
            self.tearDown()
            self.setUp()                        # a fresh bob for each link
            self.replace(rel, target)
            self.refused(self.bob, ".git/%s is a symbolic link (to %s)" % (rel, target))

    def test_linked_loose_object_folder_and_object(self):
        oid = self.r.git(self.bob, "rev-parse", "HEAD:" + LAB + "/conv.cu")
        d = self.bob / ".git" / "objects" / oid[:2]
        (d / oid[2:]).unlink()
        os.symlink("/etc/passwd", d / oid[2:])
        self.refused(self.bob, ".git/objects/%s/%s is a symbolic link" % (oid[:2], oid[2:]))
        os.rename(d, self.root / "moved")
        os.symlink(self.root / "moved", d)
        self.refused(self.bob, ".git/objects/%s is a symbolic link" % oid[:2])

    def test_hard_linked_ref(self):
        main = self.bob / ".git" / "refs" / "heads" / "main"
        main.unlink()
        os.link(self.alice / ".git" / "packed-refs", self.root / "x")
        os.link(self.root / "x", main)
        self.refused(self.bob, ".git/refs/heads/main is a hard link")

    def test_contents_checked_not_echoed(self):
        (self.bob / ".git" / "packed-refs").write_text("# pack-refs with: peeled\n"
                                                       "root:SECRET-HASH:19000::\n")
        s = self.refused(self.bob, ".git/packed-refs line 2 is not what git writes there")
        self.assertNotIn("SECRET", s.reason)
        (self.bob / ".git" / "packed-refs").unlink()
        (self.bob / ".git" / "HEAD").write_text("ref: ../../../lab03-alice/.git/HEAD\n")
        self.refused(self.bob, ".git/HEAD line 1")

    def test_borrowed_objects_behind_a_link(self):
        info = self.root / "info"
        info.mkdir()
        (info / "alternates").write_text(str(self.alice / ".git" / "objects") + "\n")
        self.replace("objects/info", info)
        self.refused(self.bob, ".git/objects/info is a symbolic link")

    # -- a .git elsewhere -------------------------------------------------------------
    def test_linked_work_tree(self):
        wt = self.root / "lab03-carol"
        self.r.git(self.alice, "worktree", "add", "-q", str(wt))
        self.refused(wt, ".git is a file")
        # its git folder made a repository's own .git: commondir points at alice's
        (self.root / "lab03-dan").mkdir()
        gd = self.alice / ".git" / "worktrees" / "lab03-carol"
        os.rename(gd, self.root / "lab03-dan" / ".git")
        self.refused(self.root / "lab03-dan", ".git/commondir makes it a linked work tree")

    # -- nothing of the repository's own configuration ------------------------------------
    def test_included_config_and_attributes(self):
        (self.bob / ".gitmodules").write_text(
            '[submodule "x"]\n\tpath = x\n\turl = ext::sh -c "touch %s/sub"\n'
            '\tupdate = !touch %s/update\n' % (self.trap, self.trap))
        self.r.commit(self.bob, {}, "2025-03-13T12:00:00Z")
        (self.bob / ".git" / "info").mkdir(exist_ok=True)
        (self.bob / ".git" / "info" / "attributes").write_text("* filter=evil diff=evil\n")
        inc = self.root / "included.cfg"
        inc.write_text("[core]\n\tfsmonitor = touch %s/included; false\n"
                       "\tpager = touch %s/included-pager; cat\n" % (self.trap, self.trap))
        with open(self.bob / ".git" / "config", "a") as f:   # last: git here would obey it
            f.write('[include]\n\tpath = %s\n[includeIf "gitdir:/"]\n\tpath = %s\n'
                    '[filter "evil"]\n\tsmudge = touch %s/smudge\n'
                    '[diff "evil"]\n\ttextconv = touch %s/textconv\n'
                    '[submodule "x"]\n\turl = ext::sh -c touch%% %s/sub2\n'
                    % (inc, inc, self.trap, self.trap, self.trap))
        s, d = self.take(self.bob)
        self.assertEqual(s.status, "ok", s.reason)
        self.assertEqual((d / "conv.cu").read_text(), "bob's work\n")

    def test_lfs_pointer_not_fetched(self):
        pointer = ("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize 1234\n"
                   % ("ab" * 32))
        (self.bob / ".gitattributes").write_text("*.cu filter=lfs diff=lfs merge=lfs -text\n")
        self.r.commit(self.bob, {LAB + "/conv.cu": pointer}, "2025-03-13T12:00:00Z")
        for key in ("smudge", "process"):
            self.r.git(self.bob, "config", "filter.lfs." + key,
                       "touch %s/lfs-%s; cat" % (self.trap, key))
        self.r.git(self.bob, "config", "lfs.url", "ssh://git.example/x")
        self.r.git(self.bob, "config", "core.sshCommand", "touch %s/ssh" % self.trap)
        s, d = self.take(self.bob)
        self.assertEqual(s.status, "no-files")
        self.assertIn(LAB + "/conv.cu: a Git LFS pointer (the file itself is not in the "
                            "repository), not taken", s.skipped)
        self.assertEqual(os.listdir(d), [])

    # -- what the copy is -------------------------------------------------------------------
    def test_the_copy_is_the_graders(self):
        """Only HEAD, refs, objects and the grader's own config; the student's untouched."""
        self.r.git(self.bob, "config", "core.hooksPath", "/tmp")
        before = sorted(os.listdir(self.bob / ".git"))
        dest = self.root / "copy.git"
        gitstore.copy_store(self.bob, dest)
        self.assertEqual(sorted(os.listdir(dest)), ["HEAD", "config", "logs", "objects", "refs"])
        self.assertNotIn("hooks", (dest / "config").read_text().lower())
        self.assertEqual(sorted(os.listdir(self.bob / ".git")), before)
        with self.assertRaises(FileExistsError):
            gitstore.copy_store(self.bob, dest)
        with self.assertRaises(GitError):
            gitstore.copy_store(self.bob, self.root / "small.git", max_bytes=10)
        self.assertFalse(os.path.exists(self.root / "small.git"))

    def test_local_clone_with_shared_objects(self):
        """A local `git clone` hard-links its objects: they are the repository's own."""
        clone = self.root / "lab03-erin"
        self.r.git(self.root, "clone", "-q", str(self.bob), str(clone))
        s, d = self.take(clone)
        self.assertEqual(s.status, "ok", s.reason)
        self.assertEqual((d / "conv.cu").read_text(), "bob's work\n")


if __name__ == "__main__":
    unittest.main()
