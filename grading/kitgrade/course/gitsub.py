"""Git repositories as submissions (a folder of clones, or --repos LIST of paths or URLs).

A student's repository is hostile data. Nothing here checks anything out, and nothing the
repository says is obeyed:
- git runs as an unprivileged user when the grader is root (setpriv, user `uid`, by default
  KIT_GRADE_UID_BASE - 1, one below the sandbox boxes' users; the lead may hand one from
  uidpool), with no capabilities, no supplementary groups and no new privileges, in an
  environment of its own: no system or global configuration (GIT_CONFIG_NOSYSTEM=1,
  GIT_CONFIG_GLOBAL=/dev/null), replace refs ignored (GIT_NO_REPLACE_OBJECTS), no lazy fetch,
  no locks taken, literal pathspecs, every transport forbidden (protocol.allow=never), and
  hooks, fsmonitor, ssh, pagers, credential helpers, signature checks and automatic gc
  switched off on the command line, where they beat anything in the repository's own config;
- only plumbing commands run (rev-parse, rev-list, ls-tree, cat-file): no checkout, no
  `git archive` (it would run the filter drivers .gitattributes asks for), so filter drivers,
  aliases, pagers and hooks named in the repository's config are never reached;
- git never reads the student's folder, only gitstore.copy_store's link-free copy (gitstore.py
  says what is copied and what is refused);
- files are taken from the tree with `git cat-file blob`: regular files only (a link, a
  submodule or a folder at a student file's path is skipped with a reason, and so is a Git
  LFS pointer, whose content is not in the repository), at most max_file_bytes each (the size
  is read from the tree first, and the read is cut at it too);
- every git command has a time limit, its output is capped, and so is its memory (prlimit
  --as, GIT_MAX_AS; pack windows kept small to fit): an object that inflates to gigabytes
  from a few megabytes (a "git bomb") makes the command fail, not the machine swap.

The lab's student files are taken from their kit path (the student tarball's tree, e.g.
labs/03_global_mem/conv.cu) or, failing that, from the repository's root. The commit graded is
the tip of `ref` (HEAD by default), or with `until` the last commit on its first-parent line
dated at or before `until` (the caller passes the deadline, or the deadline plus the student's
extension and the late policy's last day: the late work then counts, and its lateness comes from
its time). A commit cannot be older than its parent, so a backdated commit counts at the date of
the latest commit before it on the line (flag `backdated`). Commit times are set by the
student's machine: a platform's submission time (`submitted_at`, from --submitted) rules over
them for lateness, and the result flags `dated-after-clone` (a commit dated after the clone was
made, which cannot be), `out-of-order` (a commit dated before its parent) and
`committed-after-submission`; with SEEN (a student graded again), `after-earlier-copy` (a
commit an earlier copy did not have counts from that copy's time) and `rewritten`.

Commit dates and the choice of the commit live in gitdates.py; gitsub exports them.
GitSubmission.to_dict() is results.json's "git"; its commit and commit_time also go into
grades.csv and the report. --submitted (submitted_rows) reads three formats: a CSV
`login,submitted_at` (ISO 8601; Canvas's API field name), GitHub Classroom's grades download
(github_username, roster_identifier, submission_timestamp) and Moodle's grading worksheet
(Email address, "Last modified (submission)", in Moodle's English date form, read in
default_tz); the keys are logins, identifiers or e-mail addresses in lower case.
"""
import csv
import io
import os
import re
import selectors
import shutil
import signal
import stat
import subprocess
import tempfile
import time as _time
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from ..base.fsutil import others_reach, read_text, remove_tree, usage
from .gitdates import (BadDate, Commit, _git_time, after_copies, date_flags, effective_times,
                       pick_commit)
from .gitstore import MAX_BYTES as STORE_MAX_BYTES, GitError, copy_store
from .late import format_time, parse_time
from .roster import delimiter

MAX_FILE_BYTES = 4 << 20
MAX_HISTORY = 20000
_OID = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_LFS = b"version https://git-lfs.github.com/spec/"


@dataclass
class GitSubmission:
    login: str
    repo: str
    ref: str
    status: str = "ok"          # 'ok', 'no-commit', 'no-files', 'refused'
    reason: str = ""
    commit: Optional[str] = None
    commit_time: Optional[str] = None
    until: Optional[str] = None
    newer_commits: int = 0      # commits after `until` on the line, not graded
    submitted_at: Optional[str] = None
    submitted_from: str = ""    # 'platform' (--submitted) or 'commit'
    clone_time: Optional[str] = None
    tip: Optional[str] = None   # the line's newest commit in this copy (gitdates.after_copies)
    files: Dict[str, str] = field(default_factory=dict)   # kit name -> path in the repository
    skipped: List[str] = field(default_factory=list)
    flags: List[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


# the address space one git command may take: git's pack windows and delta cache are set
# below it on its command line (a repository of up to gitstore.MAX_BYTES reads within it)
GIT_MAX_AS = 3 << 30


class GitReader:
    def __init__(self, *, uid="auto", max_file_bytes: int = MAX_FILE_BYTES,
                 timeout: float = 60.0, git: Optional[str] = None, tmp: Optional[str] = None):
        if uid == "auto":
            uid = int(os.environ.get("KIT_GRADE_UID_BASE", "61000")) - 1 \
                if os.geteuid() == 0 else None
        self.uid: Optional[int] = uid
        self.max_file_bytes = max_file_bytes
        self.timeout = timeout
        self.tmp = tmp
        self.git = git or shutil.which("git", path="/usr/local/bin:/usr/bin:/bin") or "git"
        self.prlimit = shutil.which("prlimit", path="/usr/bin:/bin")
        if uid is not None and not shutil.which("setpriv"):
            raise GitError("running as root without setpriv: cannot read repositories as an "
                           "unprivileged user (install util-linux)")

    # -- running git ------------------------------------------------------------------
    def _env(self) -> Dict[str, str]:
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/nonexistent", "LC_ALL": "C",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_ATTR_NOSYSTEM": "1", "GIT_NO_REPLACE_OBJECTS": "1", "GIT_NO_LAZY_FETCH": "1",
            "GIT_OPTIONAL_LOCKS": "0", "GIT_LITERAL_PATHSPECS": "1", "GIT_TERMINAL_PROMPT": "0",
            "GIT_PROTOCOL_FROM_USER": "0", "GIT_SSH_COMMAND": "false", "GIT_SSH": "false",
            "GIT_ASKPASS": "false", "SSH_ASKPASS": "false", "GIT_PAGER": "cat", "PAGER": "cat",
            "GIT_EDITOR": "false",
        }

    def _argv(self, git_dir: Path, args: Sequence[str]) -> List[str]:
        cfg = ["core.fsmonitor=false", "core.hooksPath=/dev/null", "core.sshCommand=false",
               "core.pager=cat", "core.askPass=false", "credential.helper=",
               "protocol.allow=never", "log.showSignature=false", "gc.auto=0",
               "maintenance.auto=false", "core.untrackedCache=false", "color.ui=never",
               "core.packedGitWindowSize=32m", "core.packedGitLimit=256m",
               "core.deltaBaseCacheLimit=96m", "core.bigFileThreshold=64m",
               "safe.directory=%s" % git_dir]
        argv = [self.git, "--no-pager", "--git-dir=%s" % git_dir]
        for c in cfg:
            argv += ["-c", c]
        argv += list(args)
        if self.uid is not None:
            argv = ["setpriv", "--reuid=%d" % self.uid, "--regid=%d" % self.uid,
                    "--clear-groups", "--inh-caps=-all", "--no-new-privs", "--"] + argv
        if self.prlimit:
            argv = [self.prlimit, "--as=%d" % GIT_MAX_AS, "--"] + argv
        return argv

    def run(self, git_dir: Path, args: Sequence[str], *, max_out: int = 1 << 20) -> bytes:
        """Run one git command; its standard output (GitError past max_out or the limit)."""
        proc = subprocess.Popen(self._argv(git_dir, args), cwd="/", env=self._env(),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, close_fds=True, start_new_session=True)
        out, err = bytearray(), bytearray()
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ, out)
        sel.register(proc.stderr, selectors.EVENT_READ, err)
        deadline = _time.monotonic() + self.timeout
        why = None
        try:
            while sel.get_map():
                left = deadline - _time.monotonic()
                if left <= 0:
                    why = "took longer than %g s" % self.timeout
                    break
                for key, _ in sel.select(left):
                    chunk = os.read(key.fileobj.fileno(), 65536)
                    if not chunk:
                        sel.unregister(key.fileobj)
                        continue
                    key.data.extend(chunk)
                    if len(out) > max_out:
                        why = "wrote more than %d bytes" % max_out
                        break
                    if len(err) > 65536:
                        del err[65536:]
                if why:
                    break
        finally:
            sel.close()
            if why:
                with suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)
            proc.stdout.close()
            proc.stderr.close()
            rc = proc.wait()
        if why:
            raise GitError("git %s %s" % (args[0], why))
        if rc != 0:
            msg = err.decode("utf-8", "replace").strip().splitlines()
            msg = msg[-1] if msg else "exit status %d" % rc
            raise GitError("git %s: %s" % (args[0], msg))
        return bytes(out)

    # -- what the repository is -------------------------------------------------------
    @contextmanager
    def copy(self, repo):
        """The git folder of a link-free copy of REPO (gitstore.copy_store), which git reads
        instead of the student's folder; the copy is removed afterwards."""
        base = self.tmp or tempfile.gettempdir()
        if self.uid is not None and not others_reach(base):
            base = "/tmp"                   # git's user must reach the copy
        tmp = tempfile.mkdtemp(prefix="kitgrade-git-", dir=base)
        try:
            os.chmod(tmp, 0o711)            # git's user reaches its own copy, nothing else
            gd = Path(tmp) / "store.git"
            copy_store(repo, gd, uid=self.uid)
            yield gd
        finally:
            remove_tree(tmp)

    def resolve(self, git_dir: Path, ref: str) -> str:
        if not ref or ref.startswith("-") or any(c in ref for c in " \t\n\0"):
            raise GitError("--ref '%s' is not a revision" % ref)
        out = self.run(git_dir, ["rev-parse", "--verify", "--quiet", "--end-of-options",
                                 ref + "^{commit}"], max_out=4096).decode().strip()
        if not _OID.match(out):
            raise GitError("%s is not a commit here" % ref)
        return out

    def first_parents(self, git_dir: Path, commit: str, limit: int = MAX_HISTORY) -> List[Commit]:
        """The commit and its first parents, newest first."""
        out = self.run(git_dir, ["rev-list", "--first-parent", "--max-count=%d" % limit,
                                 "--format=%H %P%x09%ct %cI%x09%at %aI", commit, "--"],
                       max_out=limit * 400).decode("utf-8", "replace")
        chain = []
        for line in out.splitlines():
            if line.startswith("commit ") or not line.strip():
                continue
            ids, cdate, adate = line.split("\t")
            ids = ids.split()
            chain.append(Commit(id=ids[0], parents=ids[1:], time=_git_time(cdate),
                                author_time=_git_time(adate)))
        if not chain or chain[0].id != commit:
            raise GitError("cannot read the history of %s" % commit)
        return chain

    def clone_time(self, git_dir: Path) -> Optional[datetime]:
        """When the clone was made or last fetched, from the grader's own records in it."""
        text = read_text(git_dir / "logs" / "HEAD", 4 << 20)
        if text:
            last = None
            for line in text.splitlines():
                m = re.search(r"> (\d+) ([+-]\d{4})\t", line)
                if m:
                    last = m
            if last:
                off = last.group(2)
                sign = -1 if off[0] == "-" else 1
                try:
                    tz = timezone(sign * timedelta(hours=int(off[1:3]), minutes=int(off[3:5])))
                    return datetime.fromtimestamp(int(last.group(1)), tz)
                except (ValueError, OverflowError, OSError):
                    # no time (a zone of 99 hours, a year past 9999): refused, not a crash
                    raise GitError("the copy's own record of when it was made is no time "
                                   "(%s)" % " ".join(last.group(0).split())[:60]) from None
        times = []
        for name in ("FETCH_HEAD", "packed-refs"):
            try:
                st = os.lstat(git_dir / name)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                times.append(st.st_mtime)
        if times:
            return datetime.fromtimestamp(max(times), timezone.utc).astimezone()
        return None

    def entry(self, git_dir: Path, commit: str, path: str):
        """(mode, type, oid, size) of the tree entry at path, or None."""
        out = self.run(git_dir, ["ls-tree", "-l", "-z", "--full-tree", commit, "--", path],
                       max_out=1 << 16)
        for rec in out.split(b"\0"):
            if not rec:
                continue
            meta, _, name = rec.partition(b"\t")
            if name.decode("utf-8", "surrogateescape") != path:
                continue
            mode, typ, oid, size = meta.decode().split()
            return mode, typ, oid, (int(size) if size.isdigit() else None)
        return None

    def blob(self, git_dir: Path, oid: str) -> bytes:
        if not _OID.match(oid):
            raise GitError("bad object id %r" % oid)
        return self.run(git_dir, ["cat-file", "blob", oid], max_out=self.max_file_bytes)


def _write_new(dest: Path, rel: str, data: bytes) -> None:
    target = dest / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def take(repo, dest, *, files: Sequence[str], lab_dir: Optional[str] = None, login: str = "",
         ref: str = "HEAD", until: Optional[datetime] = None,
         submitted_at: Optional[datetime] = None, clone_time: Optional[datetime] = None,
         reader: Optional[GitReader] = None,
         seen: Sequence[Tuple[str, int, datetime]] = ()) -> GitSubmission:
    """Take the lab's files out of one repository into dest (a new folder). SEEN: what
    earlier copies of it saw (gitdates.after_copies), for a student graded again."""
    reader = reader or GitReader()
    sub = GitSubmission(login=login, repo=os.fspath(repo), ref=ref,
                        until=format_time(until) if until else None)
    if submitted_at is not None:
        sub.submitted_at, sub.submitted_from = format_time(submitted_at), "platform"
    for f in files:
        if f.startswith("/") or ".." in f.split("/") or not f:
            raise ValueError("student file name %r" % f)
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=False)
    try:
        with reader.copy(repo) as gd:
            tip = reader.resolve(gd, ref)
            chain = reader.first_parents(gd, tip)
            sub.tip = chain[0].id if chain else None
            if clone_time is None:
                clone_time = reader.clone_time(gd)
            chosen = _choose(sub, chain, until, clone_time, submitted_at, seen)
            if chosen is not None:
                _take_files(reader, gd, chosen.id, files, lab_dir, dest, sub)
    except (GitError, BadDate) as e:
        sub.status, sub.reason = "refused", str(e)
    return sub


def _choose(sub, chain, until, clone_time, submitted_at, seen=()):
    """The commit graded (None: no-commit), its dates and flags into SUB."""
    sub.clone_time = format_time(clone_time) if clone_time else None
    sub.flags = date_flags(chain, clone_time)
    dated = effective_times(chain)
    times, more = after_copies(chain, dated, seen)
    sub.flags += more
    chosen = pick_commit(chain, until, times)
    if chosen is None:
        sub.status = "no-commit"
        sub.reason = "no commit on %s is dated at or before %s" % (sub.ref, format_time(until))
        return None
    pos = next(i for i, c in enumerate(chain) if c.id == chosen.id)
    sub.newer_commits = pos
    sub.commit, sub.commit_time = chosen.id, format_time(chosen.time)
    if submitted_at is None:
        made = times[pos]
        sub.submitted_at, sub.submitted_from = format_time(made), "commit"
        if dated[pos] != chosen.time:
            sub.flags.append("backdated: commit %s is dated %s, before a commit it follows; "
                             "counted at %s" % (chosen.id[:12], sub.commit_time, sub.submitted_at))
    elif chosen.time > submitted_at:
        sub.flags.append("committed-after-submission: commit %s is dated %s, after the "
                         "submission on the platform (%s)"
                         % (chosen.id[:12], sub.commit_time, sub.submitted_at))
    return chosen


def _take_files(reader, gd, commit, files, lab_dir, dest, sub):
    """Each of FILES from its kit path or the root of COMMIT's tree into DEST, what was not
    taken into SUB.skipped."""
    for name in files:
        where = ([lab_dir.strip("/") + "/" + name] if lab_dir else []) + [name]
        for path in where:
            try:
                ent = reader.entry(gd, commit, path)
            except GitError as e:
                sub.skipped.append("%s: %s" % (path, e))
                continue
            if ent is None:
                continue
            if name in sub.files:
                sub.skipped.append("%s: ignored, %s was taken" % (path, sub.files[name]))
                continue
            why, data = _blob_of(reader, gd, ent)
            if why:
                sub.skipped.append("%s: %s" % (path, why))
                continue
            _write_new(dest, name, data)
            sub.files[name] = path
    if not sub.files:
        sub.status = "no-files"
        sub.reason = "none of %s in commit %s (looked in %s)" % (
            ", ".join(files), commit[:12], (lab_dir + "/ and " if lab_dir else "") + "the root")


def _blob_of(reader, gd, ent):
    """(why the tree entry ENT is not taken, or ''; its content)."""
    mode, typ, oid, size = ent
    if mode == "120000":
        return "a symbolic link, not taken", None
    if mode == "160000" or typ == "commit":
        return "a submodule, not taken", None
    if typ != "blob" or mode not in ("100644", "100755"):
        return "not a regular file (%s), not taken" % typ, None
    if size is None:
        return "its content is not in the repository (a missing object), not taken", None
    if size > reader.max_file_bytes:
        return "%s bytes, more than the %d allowed: not taken" % (size,
                                                                  reader.max_file_bytes), None
    try:
        data = reader.blob(gd, oid)
    except GitError as e:
        return str(e), None
    if data.startswith(_LFS) and len(data) < 1024:
        return "a Git LFS pointer (the file itself is not in the repository), not taken", None
    return "", data


# -- where the repositories are ---------------------------------------------------------
def find_repos(folder) -> Tuple[List[Tuple[str, Path]], List[str]]:
    """Each clone in folder (NAME or NAME.git, a work tree or bare), and what was left out."""
    repos, ignored = [], []
    folder = Path(folder)
    for name in sorted(os.listdir(folder)):
        p = folder / name
        st = os.lstat(p)
        if name.startswith("."):
            continue
        if not stat.S_ISDIR(st.st_mode):
            ignored.append("%s: not a folder" % name)
            continue
        bare = os.path.isfile(p / "HEAD") and os.path.isdir(p / "objects")
        if os.path.lexists(p / ".git") or bare:
            repos.append((name[:-4] if name.endswith(".git") else name, p))
        else:
            ignored.append("%s: not a git repository" % name)
    return repos, ignored


def is_url(location: str) -> bool:
    return "://" in location or bool(re.match(r"^[\w.-]+@[\w.-]+:", location))


def read_repo_list(path) -> List[Tuple[str, str]]:
    """--repos LIST: one repository a line, `LOCATION` or `NAME LOCATION` (# comments)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.replace(",", " ").split()
            if len(parts) > 2:
                raise ValueError("%s:%d: `LOCATION` or `NAME LOCATION`, not %d words"
                                 % (path, n, len(parts)))
            loc = parts[-1]
            name = parts[0] if len(parts) == 2 else \
                re.sub(r"\.git$", "", loc.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1])
            if not name or name.startswith(".") or "/" in name:
                raise ValueError("%s:%d: no usable name in %s" % (path, n, loc))
            out.append((name, loc))
    names = [n for n, _ in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError("%s: %s listed twice" % (path, ", ".join(dup)))
    return out


def clone(url: str, dest, *, timeout: float = 600,
          max_bytes: int = STORE_MAX_BYTES) -> datetime:
    """A bare clone of url into dest (nothing checked out, no submodules, hooks off). Runs as
    the grader's user, whose own credentials reach private repositories; GitReader reads its
    link-free copy, as any repository's. Stopped, and nothing kept, once dest holds more than
    max_bytes (the copy's own limit: a student's repository could fill the grader's disk).
    Returns the time it was made."""
    dest = os.fspath(dest)
    if url.startswith("-") or url.lower().startswith("ext::"):
        raise GitError("%s: not a repository address" % url)
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_NO_REPLACE_OBJECTS="1")
    argv = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
            "-c", "protocol.ext.allow=never", "-c", "transfer.fsckObjects=true",
            "clone", "--bare", "--quiet", "--no-recurse-submodules", "--", url, dest]
    p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, cwd="/")
    end, why = _time.monotonic() + timeout, None
    while True:
        try:
            _out, err = p.communicate(timeout=0.5)
            break
        except subprocess.TimeoutExpired:
            if _time.monotonic() > end:
                why = "took longer than %g s" % timeout
            elif usage(dest) > max_bytes:
                why = "is larger than %d MiB" % (max_bytes >> 20)
            if why:
                p.kill()
                p.communicate()
                shutil.rmtree(dest, ignore_errors=True)
                raise GitError("cloning %s: the repository %s, not taken" % (url, why)) from None
    if p.returncode != 0:
        msg = err.decode("utf-8", "replace").strip().splitlines()
        raise GitError("cloning %s: %s" % (url, msg[-1] if msg else "failed"))
    if usage(dest) > max_bytes:               # it ended between two looks
        shutil.rmtree(dest, ignore_errors=True)
        raise GitError("cloning %s: the repository is larger than %d MiB, not taken"
                       % (url, max_bytes >> 20))
    return datetime.now(timezone.utc).astimezone()


_MOODLE_TIME = "%A, %d %B %Y, %I:%M %p"


def submitted_rows(path, *, default_tz: Optional[tzinfo] = None
                   ) -> List[Tuple[int, Dict[str, str], datetime]]:
    """--submitted FILE as its rows: (line, {kind: name in lower case}, time), a name's kind
    its column's: 'github' and 'identifier' (GitHub Classroom's grades download), 'email'
    (Moodle's grading worksheet) or 'login' (login,submitted_at). A name is matched to a
    student's name of its own kind only (classlist)."""
    with open(path, "rb") as f:
        text = f.read(16 << 20).decode("utf-8-sig", "replace")
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter(text)))
    if not rows:
        raise ValueError("%s: empty" % path)
    head = {h.strip().lower(): i for i, h in enumerate(rows[0])}
    if "github_username" in head and "submission_timestamp" in head:
        kinds, tcol, fmt = {"github": head["github_username"],
                            "identifier": head.get("roster_identifier")}, \
            head["submission_timestamp"], "iso"
    elif "email address" in head and "last modified (submission)" in head:
        kinds, tcol, fmt = {"email": head["email address"]}, \
            head["last modified (submission)"], "moodle"
    elif "login" in head and "submitted_at" in head:
        kinds, tcol, fmt = {"login": head["login"]}, head["submitted_at"], "iso"
    else:
        raise ValueError("%s: give columns login,submitted_at (or GitHub Classroom's grades "
                         "download, or Moodle's grading worksheet)" % path)
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if tcol >= len(row):
            continue
        raw = row[tcol].strip()
        if not raw or raw == "-":
            continue
        try:
            if fmt == "moodle":
                if default_tz is None:
                    raise ValueError("Moodle's worksheet has no time zone: give it "
                                     "(--submitted-tz +01:00)")
                t = datetime.strptime(raw, _MOODLE_TIME).replace(tzinfo=default_tz)
            else:
                t = parse_time(raw, default_tz=default_tz)
        except ValueError as e:
            raise ValueError("%s:%d: %s" % (path, n, e)) from None
        keys = {k: row[c].strip().lower() for k, c in kinds.items()
                if c is not None and c < len(row) and row[c].strip()}
        if keys:
            out.append((n, keys, t))
    return out
