"""A box's folder as the trusted side touches it: its mount, its disk use, no link followed.

Its tmpfs mount (root only) and the disk it uses, walked with no link followed (its files are
reached through base/fsutil.py's walks). Part of sandbox.py (Box's methods use these)."""
import ctypes
import ctypes.util
import os
from contextlib import suppress
from typing import List, Optional, Sequence

from ..base.fsutil import DIR, usage_at as _usage_at  # noqa: F401 (sandbox.py uses it)
from .procfs import _read_or, parse_mountinfo


# --------------------------------------------------------------------------- mounts (root only)

_MS_NOSUID, _MS_NODEV = 2, 4
_MNT_DETACH, _UMOUNT_NOFOLLOW = 2, 8
_libc = None


def _libc_call(name: str, *args) -> None:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    if getattr(_libc, name)(*args) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), args[1] if name == "mount" else args[0])


def _mount_tmpfs(path: str, size_mb: Optional[int], uid: int, gid: int) -> None:
    opts = f"mode=0700,uid={uid},gid={gid}"
    if size_mb is not None:
        opts += f",size={int(size_mb)}m,nr_inodes={max(4096, int(size_mb) * 256)}"
    _libc_call("mount", b"kitbox", os.fsencode(path), b"tmpfs", ctypes.c_ulong(_MS_NOSUID | _MS_NODEV),
               opts.encode())


def _umount(path: str) -> None:
    _libc_call("umount2", os.fsencode(path), _MNT_DETACH | _UMOUNT_NOFOLLOW)


def _mounts_below(root: str) -> List[str]:
    """Mount points strictly below root (deepest first)."""
    root = root.rstrip("/") + "/"
    mps = [mp for mp, _, _, _ in parse_mountinfo(_read_or("/proc/self/mountinfo")) if mp.startswith(root)]
    return sorted(set(mps), key=len, reverse=True)


def release_mounts_below(root: str) -> None:
    """Detach every mount below ROOT, best effort (the boxes' tmpfs of a grading that ended
    without closing them)."""
    for mp in _mounts_below(root):
        with suppress(OSError):
            _umount(mp)


def _is_mount(path: str) -> bool:
    return path in {mp for mp, _, _, _ in parse_mountinfo(_read_or("/proc/self/mountinfo"))}


# ------------------------------------------------------------------- the disk it uses

def _under(path: str, dirs: Sequence[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)
