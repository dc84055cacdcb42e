# ncurun - finding Nsight Compute's ncu and running a command under it; telling apart the ways a
# run can give no metrics (no counter permission: exit 6; nothing profiled: exit 3).
#
#   ncu --csv --page raw --print-units base --clock-control none --metrics LIST
#       [-k regex:REGEX] [-c N] COMMAND ARGS...
# stdout and stderr of ncu (which carry the program's own output too) are kept together, as a
# user would see them, so the parser can skip what is not CSV and the tail can be shown on failure.
import glob
import os
import re
import shutil
import subprocess

from .failure import Failure, NO_METRICS, NO_PERMISSION, NOT_FOUND, NOT_WRITTEN, USAGE
from .inputs import decode, lines_of

CUDA_NCU = "/usr/local/cuda/bin/ncu"
NSIGHT_ROOT = "/opt/nvidia/nsight-compute"
PERMISSION_ERROR = "ERR_NVGPUCTRPERM"
TAIL_LINES = 12

NO_PERMISSION_LINE = (
    "no permission for the GPU performance counters (ERR_NVGPUCTRPERM): run as root, or give "
    "ncu CAP_SYS_ADMIN, or set the driver option with 'echo options nvidia "
    "NVreg_RestrictProfilingToAdminUsers=0 | sudo tee /etc/modprobe.d/nvidia-profiling.conf' and "
    "reboot (or reload the nvidia module)")
NOT_FOUND_LINE = (
    "ncu (Nsight Compute) not found on PATH, in /usr/local/cuda/bin or /opt/nvidia/nsight-compute/*/;"
    " install the CUDA toolkit (apt-get install cuda-nsight-compute-<version> from NVIDIA's "
    "repository) or set NCU=/path/to/ncu")


def _executable_file(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _version_key(path):
    """Sort key that compares the numbers in a path as numbers, as `sort -V` does (2025.10 comes
    after 2025.9)."""
    return [int(t) if i % 2 else t for i, t in enumerate(re.split(r"(\d+)", path))]


def find_ncu(environ, cuda_ncu=CUDA_NCU, nsight_root=NSIGHT_ROOT):
    """The ncu to run: $NCU (a path, or a name on PATH), else ncu on PATH, else the CUDA
    toolkit's, else the newest standalone Nsight Compute. Failure(5) when there is none."""
    path = environ.get("PATH", os.defpath)
    wanted = environ.get("NCU", "")
    if wanted:
        if _executable_file(wanted):
            return wanted
        found = shutil.which(wanted, path=path)
        if found:
            return found
        raise Failure(NOT_FOUND, "ncu not found: NCU=%s is not an executable; unset NCU or point "
                      "it at Nsight Compute's ncu" % wanted)
    found = shutil.which("ncu", path=path)
    if found:
        return found
    if os.access(cuda_ncu, os.X_OK):
        return cuda_ncu
    versions = [p for p in glob.glob(os.path.join(glob.escape(nsight_root), "*", "ncu"))
                if _executable_file(p)]
    if versions:
        return sorted(versions, key=_version_key)[-1]
    raise Failure(NOT_FOUND, NOT_FOUND_LINE)


def ncu_arguments(metrics, kernel="", count=""):
    """ncu's options for a list of ncu metrics, an optional kernel regex and launch count."""
    args = ["--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
            "--metrics", ",".join(metrics)]
    if kernel:
        args += ["-k", "regex:" + kernel]
    if count:
        args += ["-c", count]
    return args


def run_ncu(ncu, args, command):
    """Run ncu ARGS COMMAND with stdin closed: (exit status, raw output bytes, stdout and stderr
    together). A program that cannot be started gives status 126 or 127 and a line saying why,
    as a shell would."""
    try:
        done = subprocess.run([ncu] + args + command, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError as e:
        status = 127 if isinstance(e, FileNotFoundError) else 126
        return status, ("%s: %s\n" % (ncu, e.strerror or e)).encode()
    status = done.returncode
    return (128 - status if status < 0 else status), done.stdout  # killed by signal N: 128+N


def has_csv_header(text):
    return any(line.startswith('"ID",') for line in lines_of(text))


def check_output(status, text, kernel=""):
    """Raise the Failure that explains an ncu output without metrics: 6 without permission for the
    counters, 4 when the program ended with the kit's "not implemented" status (4: a student's
    variant not written yet; ncu passes the program's status on, and says it), 3 (with the
    output's last lines) for any other output without a CSV header."""
    if PERMISSION_ERROR in text:
        raise Failure(NO_PERMISSION, NO_PERMISSION_LINE)
    if has_csv_header(text):
        return
    if status == 4 or "The application returned an error code (4)" in text:
        raise Failure(NOT_WRITTEN, "the profiled program says its variant is not written yet "
                      "(exit 4, not implemented): nothing to profile")
    if status != 0:
        line = ("the profiled command failed (ncu exit status %d) and produced no metrics; "
                "last lines of its output:" % status)
    else:
        line = ("ncu produced no metrics (no kernel launched%s?); last lines of its output:"
                % (" or none matched --kernel " + kernel if kernel else ""))
    tail = lines_of(text)[-TAIL_LINES:]
    raise Failure(NO_METRICS, "\n".join([line] + ["  | " + t for t in tail]))


def profile(ncu, metrics, command, kernel="", count="", keep=None):
    """Run COMMAND under ncu for the metrics: (exit status, output text). `keep`: a path that
    gets ncu's raw output, whatever happens next."""
    status, raw = run_ncu(ncu, ncu_arguments(metrics, kernel, count), command)
    if keep:
        try:
            with open(keep, "wb") as f:
                f.write(raw)
        except OSError:
            raise Failure(USAGE, "run: cannot write %s" % keep)
    text = decode(raw)
    check_output(status, text, kernel)
    return status, text
