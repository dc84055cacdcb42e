"""File operations of the grader that follow no link.

A box's folder is written by untrusted code: anything in it may have been replaced by a link
between two of the grader's steps. Everything the grader does there goes through a directory
file descriptor opened with O_NOFOLLOW at every step (mkdir, write, remove, chown), so that a
link never takes it anywhere else. Its own files (under OUT) are written atomically.
"""
import errno
import itertools
import os
import re
import stat
import tempfile
from contextlib import suppress

# a folder opened with no link followed (every step of every walk below)
DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

# characters make, the shell-less compilers and the kit's Makefiles take in a path as is
_MAKE_SAFE = re.compile(r"^[A-Za-z0-9._/+@=-]+$")


def make_safe(path):
    """True when PATH can be handed to make (no space, comma, quote, $ or non-ASCII)."""
    return bool(_MAKE_SAFE.match(str(path))) and "/../" not in str(path)


def others_reach(path):
    """Can any user reach PATH (every folder above it searchable by others)? A box's user must,
    where no sandbox mounts the grader's folders for it."""
    p = os.path.abspath(str(path))
    while True:
        try:
            if not os.stat(p).st_mode & 0o001:
                return False
        except OSError:
            return False
        if p == "/":
            return True
        p = os.path.dirname(p)


def atomic_write(path, data, mode=0o644):
    """Write DATA (str or bytes) to PATH in the grader's own folders: a temporary file in the
    same folder, then a rename, so that a reader sees the old file or the new one."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


# what a run's standard output or error keeps in OUT: its first and last halves of this
# (a run may write up to the rubric's output_mb to each, and a student's runs are many)
MAX_LOG_BYTES = 1 << 20


def cap_log(path, max_bytes=MAX_LOG_BYTES):
    """Cut the grader's log file PATH (a run's stdout or stderr, which the grader opened) to
    its first and last max_bytes / 2, with a line between that says how much was left out."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return
    if size <= max_bytes:
        return
    half = max_bytes // 2
    with open(path, "rb") as f:
        head = f.read(half)
        f.seek(size - half)
        tail = f.read(half)
    atomic_write(path, head + b"\n[... the grader left out %d bytes here ...]\n" % (
        size - 2 * half) + tail)


def parts(rel):
    """The names of REL, a plain path inside a box: no '..', not absolute, no NUL."""
    names = [p for p in str(rel).split("/") if p not in ("", ".")]
    if str(rel).startswith("/") or "\0" in str(rel) or ".." in names:
        raise ValueError("'%s' is not a plain path inside the box" % rel)
    return names


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _walk(root, names, create=False, uid=None, mode=0o755, replace=True):
    """A descriptor of ROOT/NAMES..., each step opened with no link followed; the caller
    closes it. CREATE: a missing folder is made (given to UID), and with REPLACE whatever
    else has its name (a link, a file) is removed first; without REPLACE that is an
    OSError."""
    fd = os.open(str(root), DIR)
    try:
        for p in names:
            made = False
            if create:
                st = None
                with suppress(FileNotFoundError):
                    st = os.stat(p, dir_fd=fd, follow_symlinks=False)
                if st is not None and not stat.S_ISDIR(st.st_mode) and replace:
                    os.unlink(p, dir_fd=fd)
                    st = None
                if st is None:
                    os.mkdir(p, mode, dir_fd=fd)
                    made = True
            nfd = os.open(p, DIR, dir_fd=fd)
            os.close(fd)
            fd = nfd
            if made:
                os.fchmod(fd, mode)
                if uid is not None:
                    os.fchown(fd, uid, uid)
        return fd
    except BaseException:
        os.close(fd)
        raise


def usage_at(dfd: int) -> int:
    """Bytes used under the folder open as dfd (allocated blocks), following no link; folders
    gone down one after another (a stack of descriptors, not of calls: any depth a run made,
    as far as the grader's descriptors go)."""
    total, todo = 0, [(os.dup(dfd), None)]
    try:
        while todo:
            fd, names = todo[-1]
            if names is None:
                names = iter(os.listdir(fd))
                todo[-1] = (fd, names)
            entry = next(names, None)
            if entry is None:
                os.close(todo.pop()[0])
                continue
            try:
                st = os.stat(entry, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            total += st.st_blocks * 512
            if stat.S_ISDIR(st.st_mode):
                try:
                    todo.append((os.open(entry, DIR, dir_fd=fd), None))
                except OSError:
                    continue
    finally:
        for fd, _names in todo:
            os.close(fd)
    return total


def usage(path) -> int:
    """Bytes used below PATH (usage_at), 0 where it cannot be opened as a folder."""
    try:
        fd = os.open(str(path), DIR)
    except OSError:
        return 0
    try:
        return usage_at(fd)
    finally:
        os.close(fd)


def plain_folder(root, names) -> bool:
    """Whether ROOT/NAMES... is a folder reached with no link followed on the way."""
    try:
        os.close(_walk(root, list(names)))
        return True
    except OSError:
        return False


def box_mkdir(root, rel, uid=None, fresh=False, mode=0o755, replace=True):
    """Make ROOT/REL (and the folders above it) with no link followed; FRESH removes what was
    there first. The folders made are given to UID (the box's user) when it is set."""
    names = parts(rel)
    if fresh and names:
        box_remove(root, rel)
    os.close(_walk(root, names, create=True, uid=uid, mode=mode, replace=replace))


def box_write(root, rel, data, uid=None, mode=0o644, replace=True, give=False):
    """Write a new file ROOT/REL (replacing whatever entry had that name, a link included).
    The folders made on the way are UID's; the file stays the grader's (the box's user
    reads it, and cannot change it), or with GIVE is UID's too."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    names = parts(rel)
    if not names:
        raise ValueError("an empty path names the box itself")
    fd = _walk(root, names[:-1], create=True, uid=uid, replace=replace)
    try:
        remove_at(fd, names[-1])
        f = os.open(names[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                    os.O_CLOEXEC, mode, dir_fd=fd)
        try:
            os.fchmod(f, mode)
            if give and uid is not None:
                os.fchown(f, uid, uid)
            write_all(f, data)
        finally:
            os.close(f)
    finally:
        os.close(fd)


def box_remove(root, rel):
    """Remove ROOT/REL whatever it is (a folder with all it holds), following no link."""
    names = parts(rel)
    if not names:
        raise ValueError("box_remove needs a path inside the box")
    try:
        fd = _walk(root, names[:-1])
    except OSError:
        return
    try:
        remove_at(fd, names[-1])
    finally:
        os.close(fd)


REMOVE_DEPTH = 32       # remove_at's descent: folders deeper are moved up, then removed


def remove_at(dfd, name):
    """Remove NAME (a file, a link, or a folder and all it holds) inside the folder open as
    DFD, following no link. A folder the grader's own user cannot read (a run made it so) is
    made readable first. It goes down at most REMOVE_DEPTH folders at a time (a descriptor
    each): a folder deeper than that is moved up beside NAME, under a name of its own, and
    removed in its turn, so that no nesting a run or a submission made exhausts the stack or
    the descriptors."""
    if not _is_folder_else_unlink(dfd, name):
        return
    todo, moved = [name], itertools.count(1)
    while todo:
        n = todo.pop()
        _empty_at(dfd, n, 0, dfd, todo, moved)
        os.rmdir(n, dir_fd=dfd)


def _is_folder_else_unlink(dfd, name):
    """True when NAME in DFD is a folder (no link followed); anything else is unlinked."""
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(st.st_mode):
        return True
    os.unlink(name, dir_fd=dfd)
    return False


def _empty_at(dfd, name, depth, top, todo, moved):
    """Empty the folder NAME of DFD; a folder REMOVE_DEPTH below is moved into TOP (the
    folder remove_at works in) under a name of its own (MOVED counts them) and put on TODO."""
    try:
        sub = os.open(name, DIR, dir_fd=dfd)
    except PermissionError:
        os.chmod(name, 0o700, dir_fd=dfd)  # just seen to be a folder, not a link
        sub = os.open(name, DIR, dir_fd=dfd)
    try:
        for entry in os.listdir(sub):
            if not _is_folder_else_unlink(sub, entry):
                continue
            if depth + 1 < REMOVE_DEPTH:
                _empty_at(sub, entry, depth + 1, top, todo, moved)
                os.rmdir(entry, dir_fd=sub)
            else:
                up = ".kit-removing-%d-%d" % (os.getpid(), next(moved))
                os.rename(entry, up, src_dir_fd=sub, dst_dir_fd=top)
                todo.append(up)
    finally:
        os.close(sub)


def remove_tree(path):
    """Remove a folder of the grader's (or one a box wrote in) without following links."""
    path = os.path.abspath(str(path))
    parent, name = os.path.split(path)
    try:
        fd = os.open(parent, DIR)
    except OSError:
        return
    try:
        remove_at(fd, name)
    finally:
        os.close(fd)


def read_plain(path, max_bytes):
    """(bytes, "") of a file no link leads to, or (None, why not): a link, not a regular file
    (a FIFO is not even waited on), missing, or larger than MAX_BYTES. For the grader's own
    files and for the files of a folder it does not trust (a submission, a clone)."""
    try:
        fd = os.open(str(path), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        return None, why_not(e)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, "not a regular file"
        if st.st_size > max_bytes:
            return None, "larger than %d bytes" % max_bytes
        chunks, left = [], max_bytes + 1
        while left > 0:
            b = os.read(fd, min(left, 1 << 20))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        data = b"".join(chunks)
        if len(data) > max_bytes:
            return None, "larger than %d bytes" % max_bytes
        return data, ""
    finally:
        os.close(fd)


def why_not(e):
    """Why an open with no link followed failed (OSError E), in words."""
    if e.errno == errno.ELOOP:
        return "it is a symbolic link"
    if e.errno == errno.ENOTDIR:
        return "a part of its path is not a folder (a link?)"
    if e.errno == errno.ENOENT:
        return "it does not exist"
    return e.strerror or str(e)


def read_regular(path, max_bytes):
    """A grader-owned file's bytes (no link followed, regular files only), or None."""
    return read_plain(path, max_bytes)[0]


def read_text(path, max_bytes):
    """A grader-owned file's text (read_regular, decoded as UTF-8, bad bytes replaced); "" when
    it cannot be read."""
    return (read_regular(path, max_bytes) or b"").decode("utf-8", "replace")


def key_values(path, head_only=False):
    """{KEY: VALUE} of a grader-owned file's `KEY: VALUE` lines, the first line of a key
    standing; HEAD_ONLY: only those before its first empty line."""
    st = {}
    for ln in read_text(path, 1 << 20).splitlines():
        if head_only and not ln:
            break
        k, sep, v = ln.partition(": ")
        if sep:
            st.setdefault(k.strip(), v)
    return st


# ---------------------------------------------------------------------------------------
# A box's files (a sandbox.Box's, or its tests' stand-in's): the functions above, the folders
# made given to the box's user.

def bmkdir(box, rel, fresh=False):
    """Make folder REL in BOX (FRESH: empty); whatever stands in the way on its path (a link,
    a file the run left) is removed first, never followed. Its path."""
    box_mkdir(box.root, rel, uid=box.uid, fresh=fresh)
    return os.path.join(str(box.root), *parts(rel))


def bwrite(box, rel, data, mode=0o644, give=False):
    """A new file REL in BOX (the box's user reads it; whatever had its name is removed;
    GIVE: the file is the box user's, who may replace it)."""
    box_write(box.root, rel, data, uid=box.uid, mode=mode, give=give)


def bremove(box, rel):
    """Remove REL from BOX (a folder with all it holds; a link itself), following no link."""
    box_remove(box.root, rel)


def tampered(why):
    """Does a failed read's reason say the run put a link (or a second name) in the grader's
    way?"""
    w = why or ""
    return "symbolic link" in w or "(a link?)" in w or "hard link" in w or \
        "Too many levels" in w or "Not a directory" in w


def bexists(box, rel):
    """Is REL a regular file of BOX, of one name (no link followed)?"""
    names = parts(rel)
    try:
        fd = _walk(box.root, names[:-1])
    except OSError:
        return False
    try:
        st = os.stat(names[-1], dir_fd=fd, follow_symlinks=False)
    except OSError:
        return False
    finally:
        os.close(fd)
    return stat.S_ISREG(st.st_mode) and st.st_nlink == 1
