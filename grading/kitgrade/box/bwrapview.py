"""What a run sees: whether bubblewrap works here, and the allow-list view it gives a run.

The view is made by bubblewrap's command line. Part of sandbox.py: Sandbox gets these methods
from _BwrapView."""
import os
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Set

from .boxfiles import _under
from .runwatch import _CLEAN_ENV
from .sbtypes import MB


_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
        "/etc/nsswitch.conf", "/etc/localtime", "/etc/timezone", "/etc/os-release")
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


class _BwrapView:
    """Sandbox's bubblewrap methods (self is the Sandbox: _bwrap, _bwrap_size, as_root, gpu,
    ro_paths and the GPU paths come from it)."""

    def _probe_bwrap(self) -> str:
        if not self._bwrap:
            return "bubblewrap (bwrap) is not installed"
        help_text = subprocess.run([self._bwrap, "--help"], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, env=_CLEAN_ENV).stdout.decode(errors="replace")
        self._bwrap_size = "--size" in help_text
        for opt in ("--perms", "--ro-bind-data", "--clearenv", "--unshare-cgroup-try"):
            if opt not in help_text:
                return f"this bubblewrap is too old (no {opt})"
        argv = self._bwrap_base() + ["--proc", "/proc", "--dev", "/dev", "--", "/bin/true"]
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_CLEAN_ENV)
        if p.returncode != 0:
            return "bubblewrap cannot make a sandbox here (%s)" % p.stdout.decode(errors="replace").strip()[:200]
        return ""

    # ---- the sandbox's command line
    def _bwrap_base(self) -> List[str]:
        a = [self._bwrap, "--die-with-parent", "--new-session", "--unshare-ipc", "--unshare-pid",
             "--unshare-net", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "kitbox",
             "--clearenv", "--setenv", "PATH", _CLEAN_ENV["PATH"]]
        if os.geteuid() != 0:
            a.append("--unshare-user")
        elif self.as_root:
            a += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        for d in _SYSTEM:
            if os.path.islink(d):
                a += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                a += ["--ro-bind", d, d]
        a += ["--perms", "0755", "--dir", "/etc"]
        for f in _ETC:
            a += ["--ro-bind-try", f, f]
        return a

    def _bwrap_argv(self, box, cwd: str, tmp_mb: Optional[int], passwd_fd: int,
                    group_fd: int) -> List[str]:
        # BOX: a sandbox.Box (not imported here: sandbox imports this module)
        a = self._bwrap_base()
        a += ["--perms", "0644", "--ro-bind-data", str(passwd_fd), "/etc/passwd",
              "--perms", "0644", "--ro-bind-data", str(group_fd), "/etc/group",
              "--proc", "/proc", "--dev", "/dev"]
        size = ["--size", str(tmp_mb * MB)] if tmp_mb and self._bwrap_size else []
        a += ["--perms", "1777"] + size + ["--tmpfs", "/dev/shm"]
        a += ["--perms", "1777"] + size + ["--tmpfs", "/tmp"]
        if self.gpu:
            for n in self._gpu_nodes:
                a += ["--dev-bind", n, n]
            a += ["--ro-bind", "/sys", "/sys"]
        elif os.path.isdir("/sys/devices/system/cpu"):  # CPU count and topology (OpenMP)
            a += ["--perms", "0755", "--dir", "/sys", "--perms", "0755", "--dir", "/sys/devices",
                  "--perms", "0755", "--dir", "/sys/devices/system",
                  "--ro-bind", "/sys/devices/system/cpu", "/sys/devices/system/cpu"]
        binds = [(p, "--ro-bind") for p in self.ro_paths + (self._gpu_dirs if self.gpu else [])]
        if self.gpu and self._mps_dir:
            binds.append((self._mps_dir, "--ro-bind"))
        binds.append((str(box.root), "--bind"))
        done = ["/usr", "/etc", "/proc", "/dev", "/sys"]  # whatever is below these exists already
        made: Set[str] = {"/tmp"}
        for p, how in sorted(binds, key=lambda b: (b[0].count("/"), b[0])):
            # the folders leading to it, readable by the box user (bubblewrap may make them 0700)
            for up in reversed(Path(p).parents[:-1] if sys.version_info >= (3, 10) else list(Path(p).parents)[:-1]):
                u = str(up)
                if u not in made and not _under(u, done):
                    a += ["--perms", "0755", "--dir", u]
                    made.add(u)
            a += [how, p, p]
            done.append(p)
        return a + ["--chdir", cwd, "--"]
