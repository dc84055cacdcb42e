"""A student's repository copied, link-free, before git reads it.

A repository is data the student controls, down to its `.git`: a link there (objects/pack,
packed-refs, refs/heads/main pointing into another student's repository) would have git read
someone else's commit. So git never reads the student's folder. The grader reads it itself,
every step opened with O_NOFOLLOW from the folder above, and copies into a bare repository of
its own only what git needs to read a commit:

- HEAD, refs/**, packed-refs and shallow, each line checked to be an object id or a
  `ref: refs/...` line (a hard link among them, or any other content, is refused);
- the objects of the repository's own store: loose objects (objects/XX/...) and packs
  (objects/pack/pack-*.pack and .idx); a hard-linked object is taken (a local `git clone`
  shares its objects that way, and an object's name is its content's hash);
- logs/HEAD and FETCH_HEAD (when they are plain files) for the time the clone was made, and
  their modification times.

Nothing else is copied: not the config (the copy has one of the grader's: no include, filter,
hook, fsmonitor, ssh, pager or promisor remote reaches git), not hooks, info/attributes,
info/grafts, commit-graph or worktrees. A link, a FIFO or a folder of the wrong kind where the
copy needs one is refused with the link's name (status `refused`), and so are borrowed objects
(objects/info/alternates), a `.git` that is a link or a `gitdir:` file, and a linked work tree
(commondir). The copy is capped in bytes and files, and given to the unprivileged user git runs
as. copy_store takes a work tree with .git, or a bare repository, and makes the copy a new bare
repository in dest, which must not exist; a refusal raises GitError.
"""
import errno
import os
import re
import stat
from typing import Optional

from ..base.fsutil import DIR as _DIR
from ..base.fsutil import remove_tree, write_all

MAX_BYTES = 1 << 30
MAX_FILES = 200000
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_OID = rb"[0-9a-f]{40}(?:[0-9a-f]{24})?"
_REF = re.compile(rb"^(?:(" + _OID + rb")|ref: (?:refs/[!-~]+|HEAD))\n?$")
_PACKED = re.compile(rb"^(?:# pack-refs with:[ -~]*|(" + _OID + rb") refs/[!-~]+|\^(" + _OID +
                     rb"))$")
_SHALLOW = re.compile(rb"^(" + _OID + rb")$")
_FETCHED = re.compile(rb"^(" + _OID + rb")\t")
_LOOSE = re.compile(r"^[0-9a-f]{38}(?:[0-9a-f]{24})?$")
_PACK = re.compile(r"^pack-[0-9a-f]{40,64}\.(?:pack|idx)$")


class GitError(Exception):
    pass


def copy_store(repo, dest, *, uid: Optional[int] = None, max_bytes: int = MAX_BYTES,
               max_files: int = MAX_FILES) -> None:
    """Copy the repository at REPO link-free into DEST, a new bare repository (module doc)."""
    _Copy(os.path.abspath(os.fspath(repo)), os.fspath(dest), uid, max_bytes, max_files).run()


MAX_REF_DEPTH = 32      # folders under refs/ (refs/heads/a/b/... : a branch name's slashes)


class _Copy:
    def __init__(self, repo, dest, uid, max_bytes, max_files):
        self.repo, self.dest, self.uid = repo, dest, uid
        self.left_bytes, self.left_files = max_bytes, max_files
        self.limits = (max_bytes, max_files)
        self.oid_lens = set()

    # -- refusing ---------------------------------------------------------------------
    def refuse(self, rel, why):
        raise GitError("%s: %s %s: refused (the grader follows no link and reads no other "
                       "repository)" % (self.repo, rel, why))

    @staticmethod
    def _kind(dfd, name):
        """What the entry NAME of DFD is, when it is not what was wanted: a link (and its
        target), a file, something else."""
        try:
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except OSError:
            return "cannot be read"
        if stat.S_ISLNK(st.st_mode):
            try:
                to = os.readlink(name, dir_fd=dfd)
            except OSError:
                to = "?"
            return "is a symbolic link (to %s)" % to[:200]
        return "is not a %s" % ("folder" if stat.S_ISREG(st.st_mode) else "regular file")

    # -- reading the student's folder (the caller closes each descriptor) ---------------
    def _open(self, dfd, name, rel, flags, need):
        """os.open of NAME in DFD with FLAGS (no link followed); None when it is missing and
        not NEED; a missing needed one is no repository; anything else is refused."""
        try:
            return os.open(name, flags, dir_fd=dfd)
        except OSError as e:
            if e.errno == errno.ENOENT and not need:
                return None
            if e.errno == errno.ENOENT:
                raise GitError("%s: no %s: not a git repository" % (self.repo, rel)) from None
            self.refuse(rel, self._kind(dfd, name))

    def opendir(self, dfd, name, rel, need=True):
        """A descriptor of the folder NAME in DFD (no link followed), None when it is
        missing and not NEED; refused when it is anything but a folder."""
        return self._open(dfd, name, rel, _DIR, need)

    def openfile(self, dfd, name, rel, need=True, single=True):
        """(descriptor, stat) of the regular file NAME in DFD, or None when it is missing and
        not NEED. SINGLE: a hard link (a second name, maybe in another repository) refused."""
        fd = self._open(dfd, name, rel, _FILE, need)
        if fd is None:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                self.refuse(rel, "is not a regular file")
            if single and st.st_nlink > 1:
                self.refuse(rel, "is a hard link (%d names)" % st.st_nlink)
            self.left_files -= 1
            self.left_bytes -= st.st_size
            if self.left_files < 0 or self.left_bytes < 0:
                raise GitError("%s: larger than the grader copies (%d MB or %d files in its "
                               "git folder): refused" % (self.repo, self.limits[0] >> 20,
                                                         self.limits[1]))
        except BaseException:
            os.close(fd)
            raise
        return fd, st

    def read(self, dfd, name, rel, limit, pattern, need=True):
        """(bytes, stat) of a small file whose every line matches PATTERN (or None)."""
        got = self.openfile(dfd, name, rel, need)
        if got is None:
            return None
        fd, st = got
        try:
            if st.st_size > limit:
                self.refuse(rel, "is larger than %d bytes" % limit)
            data = os.read(fd, limit + 1)
        finally:
            os.close(fd)
        for n, line in enumerate(data.splitlines(), 1):
            m = pattern.match(line)
            if not m:
                self.refuse(rel, "line %d is not what git writes there" % n)
            self.oid_lens.update(len(g) for g in m.groups() if g)
        return data, st

    # -- writing the copy -------------------------------------------------------------
    def mkdir(self, dfd, name):
        os.mkdir(name, 0o700, dir_fd=dfd)
        fd = os.open(name, _DIR, dir_fd=dfd)
        if self.uid is not None:
            os.fchown(fd, self.uid, self.uid)
        return fd

    def write(self, dfd, name, data=None, src=None, st=None):
        """A new file NAME in DFD: DATA, or the content of descriptor SRC; ST's times."""
        fd = os.open(name, _NEW, 0o600, dir_fd=dfd)
        try:
            if self.uid is not None:
                os.fchown(fd, self.uid, self.uid)
            while src is not None:
                chunk = os.read(src, 1 << 20)
                if not chunk:
                    break
                write_all(fd, chunk)
            if data:
                write_all(fd, data)
            if st is not None:
                os.utime(fd, ns=(st.st_atime_ns, st.st_mtime_ns))
        finally:
            os.close(fd)

    # -- the copy -----------------------------------------------------------------------
    def run(self):
        try:
            top = os.open(self.repo, _DIR)
        except OSError as e:
            raise GitError("%s: %s" % (self.repo, "not a folder (a link or a file)"
                                       if e.errno in (errno.ELOOP, errno.ENOTDIR) else
                                       "no such folder")) from None
        made = False
        try:
            fd, pre = self.git_dir(top)
            with _Fd(fd) as g:
                os.mkdir(self.dest, 0o700)
                made = True
                with _Fd(os.open(self.dest, _DIR)) as out:
                    if self.uid is not None:
                        os.fchown(out, self.uid, self.uid)
                    self.copy(g, pre, out)
        except BaseException:
            if made:
                remove_tree(self.dest)
            raise
        finally:
            os.close(top)

    def git_dir(self, top):
        """(a descriptor of the git folder, its path in the repository): .git, or the
        repository itself when it is bare."""
        try:
            st = os.stat(".git", dir_fd=top, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None:
            if stat.S_ISLNK(st.st_mode):
                self.refuse(".git", self._kind(top, ".git"))
            if not stat.S_ISDIR(st.st_mode):
                self.refuse(".git", "is a file (a `gitdir:` file points at another "
                                    "repository or work tree)")
            return self.opendir(top, ".git", ".git"), ".git/"
        try:
            head = os.stat("HEAD", dir_fd=top, follow_symlinks=False)
            objs = os.stat("objects", dir_fd=top, follow_symlinks=False)
        except OSError:
            raise GitError("%s: not a git repository" % self.repo) from None
        if stat.S_ISDIR(head.st_mode) or stat.S_ISREG(objs.st_mode):
            raise GitError("%s: not a git repository" % self.repo)
        return os.dup(top), ""

    def copy(self, g, pre, out):
        for rel, why in (("objects/info/alternates", "borrows objects from elsewhere"),
                         ("objects/info/http-alternates", "borrows objects from elsewhere"),
                         ("commondir", "makes it a linked work tree of another repository")):
            if _lexists(g, rel):
                self.refuse(pre + rel, why + "; clone it without --reference, --shared or "
                                             "worktree")
        data, st = self.read(g, "HEAD", pre + "HEAD", 4096, _REF)
        self.write(out, "HEAD", data, st=st)
        with _Fd(self.opendir(g, "refs", pre + "refs")) as src, _Fd(self.mkdir(out, "refs")) as d:
            self.copy_refs(src, pre + "refs", d)
        for name, limit, pattern in (("packed-refs", 256 << 20, _PACKED),
                                     ("shallow", 64 << 20, _SHALLOW)):
            got = self.read(g, name, pre + name, limit, pattern, need=False)
            if got is not None:
                self.write(out, name, got[0], st=got[1])
        with _Fd(self.opendir(g, "objects", pre + "objects")) as src, \
                _Fd(self.mkdir(out, "objects")) as d:
            self.copy_objects(src, pre + "objects/", d)
        self.copy_records(g, pre, out)
        if len(self.oid_lens) > 1:
            self.refuse(pre + "refs", "mix SHA-1 and SHA-256 object ids")
        sha256 = self.oid_lens == {64}
        self.write(out, "config", ("[core]\n\trepositoryformatversion = %d\n\tbare = true\n"
                                   % (1 if sha256 else 0) +
                                   ("[extensions]\n\tobjectformat = sha256\n" if sha256
                                    else "")).encode())

    def copy_refs(self, src, rel, out, depth=0):
        for e in sorted(os.listdir(src)):
            r = rel + "/" + e
            if stat.S_ISDIR(os.stat(e, dir_fd=src, follow_symlinks=False).st_mode):
                if depth >= MAX_REF_DEPTH:      # git names no ref so deep: no repository of work
                    raise GitError("%s: %s: refs nested more than %d folders deep: refused"
                                   % (self.repo, rel, MAX_REF_DEPTH))
                with _Fd(self.opendir(src, e, r)) as s, _Fd(self.mkdir(out, e)) as d:
                    self.copy_refs(s, r, d, depth + 1)
            else:
                data, st = self.read(src, e, r, 4096, _REF)
                self.write(out, e, data, st=st)

    def copy_objects(self, src, rel, out):
        """Loose objects and packs; a link among them refused, anything else left out."""
        for e in sorted(os.listdir(src)):
            if not (re.fullmatch(r"[0-9a-f]{2}", e) or e == "pack"):
                if _islink(src, e):
                    self.refuse(rel + e, self._kind(src, e))
                continue
            want = _PACK if e == "pack" else _LOOSE
            with _Fd(self.opendir(src, e, rel + e)) as s, _Fd(self.mkdir(out, e)) as d:
                for f in sorted(os.listdir(s)):
                    if want.match(f):
                        fd, st = self.openfile(s, f, rel + e + "/" + f, single=False)
                        with _Fd(fd):
                            self.write(d, f, src=fd, st=st)
                    elif _islink(s, f):
                        self.refuse(rel + e + "/" + f, self._kind(s, f))

    def copy_records(self, g, pre, out):
        """logs/HEAD and FETCH_HEAD, when they are plain files: when the clone was made or
        last fetched (gitsub's clone_time). Not needed to read a commit: a link there is
        left alone, not followed."""
        try:
            got = self.read(g, "FETCH_HEAD", pre + "FETCH_HEAD", 16 << 20, _FETCHED,
                            need=False)
            if got is not None:
                self.write(out, "FETCH_HEAD", got[0], st=got[1])
            with _Fd(self.opendir(g, "logs", pre + "logs", need=False)) as logs:
                got = self.openfile(logs, "HEAD", pre + "logs/HEAD", need=False) \
                    if logs is not None else None
                if got is not None:
                    with _Fd(got[0]), _Fd(self.mkdir(out, "logs")) as d:
                        self.write(d, "HEAD", src=got[0], st=got[1])
        except GitError:
            pass


class _Fd:
    """A descriptor closed at the end of a with block (None: nothing)."""

    def __init__(self, fd):
        self.fd = fd

    def __enter__(self):
        return self.fd

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)


def _lexists(dfd, rel):
    """Is there an entry at REL below DFD (a link on the way: no, it is refused itself)?"""
    head, _, rest = rel.partition("/")
    if not rest:
        try:
            os.stat(head, dir_fd=dfd, follow_symlinks=False)
            return True
        except OSError:
            return False
    try:
        sub = os.open(head, _DIR, dir_fd=dfd)
    except OSError:
        return False
    with _Fd(sub):
        return _lexists(sub, rest)


def _islink(dfd, name):
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dfd, follow_symlinks=False).st_mode)
    except OSError:
        return False
