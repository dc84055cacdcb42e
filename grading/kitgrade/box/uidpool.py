"""User ids for sandbox boxes, never held by two boxes at once on one machine.

Each box of a grading run as root runs under a user id of its own, so that one student's processes
cannot signal, trace or read another's. Gradings started at the same time (two instructors, two
labs) must not hand out the same id either. Like isolate's numbered boxes, every id has a lock
file in a folder only root can write (/run/kitgrade/uids by default); a box holds an exclusive
fcntl.flock on its id's file for as long as it lives. The kernel drops the lock when the file is
closed or its holder dies, so an id comes back by itself even after a grading was killed.

An id is also skipped while any process runs under it (something left over that nobody locks)
and when the system's user database names it (it belongs to a real account).
"""
import errno
import fcntl
import os
import pwd
import stat
import threading
from pathlib import Path
from typing import Optional, Set

DEFAULT_DIR = Path("/run/kitgrade/uids")
DEFAULT_BASE = 61000
DEFAULT_COUNT = 1000


class UidPoolError(Exception):
    """The pool cannot be used here (an unsafe lock folder) or has no free id left."""


def _check_private_dir(path: Path) -> None:
    """Refuse a lock folder that someone else could rewrite: it must be a real folder owned by
    this user, writable by nobody else, and so must every folder above it (a sticky one such as
    /tmp is fine: nobody can rename what they do not own in it)."""
    me = os.geteuid()
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise UidPoolError(f"{path} is not a folder (a link?)")
    if st.st_uid != me or st.st_mode & 0o022:
        raise UidPoolError(f"{path} must belong to user {me} and be writable by nobody else")
    for up in path.parents:
        st = os.stat(up)
        if st.st_uid not in (0, me):
            raise UidPoolError(f"{up} (above the lock folder {path}) belongs to user {st.st_uid}")
        if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
            raise UidPoolError(f"{up} (above the lock folder {path}) is writable by others")


def uids_in_use() -> Set[int]:
    """The real and effective user ids of every process on the machine (this pid namespace)."""
    used: Set[int] = set()
    try:
        names = os.listdir("/proc")
    except OSError:
        return used
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as f:
                for line in f:
                    if line.startswith(b"Uid:"):
                        used.update(int(x) for x in line.split()[1:3])
                        break
        except (OSError, ValueError):
            continue
    return used


class Lease:
    """One id held by one box. release() (or the end of the process) gives it back."""

    def __init__(self, pool: "UidPool", uid: int, fd: int):
        self.uid = uid
        self.gid = uid
        self._pool = pool
        self._fd: Optional[int] = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with self._pool._lock:
            self._pool._mine.discard(self.uid)
        os.close(fd)  # closing the only descriptor of the file drops the flock


class UidPool:
    """Ids base .. base+count-1, each locked through lock_dir/<id>.lock while in use."""

    def __init__(self, lock_dir: Optional[Path] = None, base: int = DEFAULT_BASE,
                 count: int = DEFAULT_COUNT):
        if base < 1000 or count < 1 or base + count > 65534:
            raise UidPoolError(f"ids {base}..{base + count - 1}: choose a range within 1000..65533")
        self.lock_dir = Path(lock_dir) if lock_dir is not None else DEFAULT_DIR
        self.base = base
        self.count = count
        self._lock = threading.Lock()
        self._mine: Set[int] = set()
        self._prepared = False

    def _prepare(self) -> int:
        """The lock folder, made if missing (mode 0700), checked, opened with no link followed."""
        if not self._prepared:
            self.lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            _check_private_dir(self.lock_dir)
            self._prepared = True
        return os.open(self.lock_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)

    def acquire(self) -> Lease:
        """The first free id of the range, locked for the caller; UidPoolError when none is."""
        dfd = self._prepare()
        try:
            busy = uids_in_use()
            for uid in range(self.base, self.base + self.count):
                if uid in busy:
                    continue
                with self._lock:
                    if uid in self._mine:
                        continue
                try:
                    pwd.getpwuid(uid)
                    continue  # a real account
                except KeyError:
                    pass
                try:
                    fd = os.open(f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                                 0o600, dir_fd=dfd)
                except OSError as e:
                    if e.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
                        continue  # not a plain lock file: that id is not used
                    raise
                try:
                    st = os.fstat(fd)
                    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                        raise UidPoolError(f"{self.lock_dir}/{uid}.lock is not this user's file")
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError as e:
                    os.close(fd)
                    if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                        continue  # another box (here or in another grading) holds it
                    raise
                except BaseException:
                    os.close(fd)
                    raise
                with self._lock:
                    self._mine.add(uid)
                return Lease(self, uid, fd)
        finally:
            os.close(dfd)
        raise UidPoolError(f"every id of {self.base}..{self.base + self.count - 1} is in use")
