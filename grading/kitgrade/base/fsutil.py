"""File operations of the grader that follow no link.

A box's folder is written by untrusted code: anything in it may have been replaced by a link
between two of the grader's steps. Everything the grader does there goes through a directory
file descriptor opened with O_NOFOLLOW at every step (mkdir, write, remove, chown), so that a
link never takes it anywhere else. Its own files (under OUT) are written atomically.
"""
import errno
import os
import re
import stat
import tempfile

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)

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
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _parts(rel):
    parts = [p for p in str(rel).split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise ValueError("a box path may not hold '..': %r" % rel)
    return parts


def _open_root(root):
    return os.open(str(root), _DIR_FLAGS)


def _walk(root, parts, create=False, uid=None, mode=0o755):
    """A descriptor of ROOT/PARTS..., each step opened with no link followed (and made when
    CREATE, in place of whatever else had that name: a link or a file; given to UID when
    made). The caller closes it."""
    fd = _open_root(root)
    try:
        for p in parts:
            made = False
            if create:
                st = None
                try:
                    st = os.stat(p, dir_fd=fd, follow_symlinks=False)
                except FileNotFoundError:
                    pass
                if st is not None and not stat.S_ISDIR(st.st_mode):
                    os.unlink(p, dir_fd=fd)
                    st = None
                if st is None:
                    os.mkdir(p, mode, dir_fd=fd)
                    made = True
            nfd = os.open(p, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
            if create and made:
                os.fchmod(fd, mode)
                if uid is not None:
                    os.fchown(fd, uid, uid)
        return fd
    except BaseException:
        os.close(fd)
        raise


def box_mkdir(root, rel, uid=None, fresh=False, mode=0o755):
    """Make ROOT/REL (and the folders above it) with no link followed; FRESH removes what was
    there first. The folders made are given to UID (the box's user) when it is set."""
    parts = _parts(rel)
    if fresh and parts:
        box_remove(root, rel)
    fd = _walk(root, parts, create=True, uid=uid, mode=mode)
    os.close(fd)


def box_write(root, rel, data, uid=None, mode=0o644):
    """Write a new file ROOT/REL (replacing whatever entry had that name, a link included)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    parts = _parts(rel)
    fd = _walk(root, parts[:-1], create=True, uid=uid)
    try:
        remove_at(fd, parts[-1])
        f = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                    getattr(os, "O_CLOEXEC", 0), mode, dir_fd=fd)
        try:
            os.fchmod(f, mode)
            if uid is not None:
                os.fchown(f, uid, uid)
            view = memoryview(data)
            while view:
                n = os.write(f, view)
                view = view[n:]
        finally:
            os.close(f)
    finally:
        os.close(fd)


def box_remove(root, rel):
    """Remove ROOT/REL whatever it is (a folder with all it holds), following no link."""
    parts = _parts(rel)
    if not parts:
        raise ValueError("box_remove needs a path inside the box")
    try:
        fd = _walk(root, parts[:-1])
    except (FileNotFoundError, NotADirectoryError, OSError):
        return
    try:
        remove_at(fd, parts[-1])
    finally:
        os.close(fd)


def remove_at(dfd, name):
    """Remove NAME (a file, a link, or a folder and all it holds) inside the folder open as
    DFD, following no link; one descriptor per level of depth. A folder the grader's own
    user cannot read (a run made it so) is made readable first."""
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=dfd)
        return
    try:
        sub = os.open(name, _DIR_FLAGS, dir_fd=dfd)
    except PermissionError:
        os.chmod(name, 0o700, dir_fd=dfd)  # just seen to be a folder, not a link
        sub = os.open(name, _DIR_FLAGS, dir_fd=dfd)
    try:
        for entry in os.listdir(sub):
            remove_at(sub, entry)
    finally:
        os.close(sub)
    os.rmdir(name, dir_fd=dfd)


def remove_tree(path):
    """Remove a folder of the grader's (or one a box wrote in) without following links."""
    path = os.path.abspath(str(path))
    parent, name = os.path.split(path)
    try:
        fd = os.open(parent, _DIR_FLAGS)
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
        fd = os.open(str(path), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK |
                     getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        return None, ("it is a symbolic link" if e.errno == errno.ELOOP else
                      "it does not exist" if e.errno == errno.ENOENT else
                      e.strerror or str(e))
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


def read_regular(path, max_bytes):
    """A grader-owned file's bytes (no link followed, regular files only), or None."""
    return read_plain(path, max_bytes)[0]


# ---------------------------------------------------------------------------------------
# A box's files through the box: its own methods (sandbox.py's Box.mkdir, write_file, remove:
# no link followed, owned by the box's user), else the functions above.

def bmkdir(box, rel, fresh=False):
    """Make folder REL in BOX (FRESH: empty); whatever stands in the way on its path (a link,
    a file the run left) is removed first, never followed. Its path."""
    parts = _parts(rel)
    if fresh:
        bremove(box, rel)
    if not hasattr(box, "mkdir"):
        box_mkdir(box.root, rel, uid=box.uid)
        return os.path.join(str(box.root), *parts)
    for i in range(1, len(parts) + 1):
        sub = "/".join(parts[:i])
        try:
            box.mkdir(sub)
        except OSError:
            box.remove(sub)        # a link or a file in its place: the link itself goes
            box.mkdir(sub)
    return os.path.join(str(box.root), *parts)


def bwrite(box, rel, data, mode=0o644):
    """A new file REL in BOX (the box's user reads it; whatever had its name is removed)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    parts = _parts(rel)
    if len(parts) > 1:
        bmkdir(box, "/".join(parts[:-1]))
    if hasattr(box, "write_file"):
        box.write_file(rel, data, mode)
    else:
        box_write(box.root, rel, data, uid=box.uid, mode=mode)


def bremove(box, rel):
    """Remove REL from BOX (a folder with all it holds; a link itself), following no link."""
    if hasattr(box, "remove"):
        try:
            box.remove(rel)
        except (FileNotFoundError, NotADirectoryError):
            pass
        except OSError:
            # a part of the path above REL is a link: what REL names is not the box's to reach
            pass
    else:
        box_remove(box.root, rel)


def tampered(why):
    """Does a failed read's reason say the run put a link (or a second name) in the grader's
    way?"""
    w = why or ""
    return "symbolic link" in w or "(a link?)" in w or "hard link" in w or \
        "Too many levels" in w or "Not a directory" in w


def bexists(box, rel):
    """Is REL a regular file of BOX (no link followed)?"""
    parts = _parts(rel)
    if hasattr(box, "listdir"):
        names = box.listdir("/".join(parts[:-1]))
        if names is None or parts[-1] not in names:
            return False
    data, why = box.read_file(rel, 0)
    return data is not None or "more than" in why or "larger than" in why
