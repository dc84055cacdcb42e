# metrics_support - what the unit tests of grading/metrics share: the import path of the package
# grading/kitmetrics, the fixtures (real and hand-made ncu output in tests/cli/fixtures/ncu/), a
# way to run the command line in-process, and fake ncu / gnuplot programs.
import io
import os
import shlex
import stat
import sys
import tempfile

GRADING = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.dirname(GRADING)
ENTRY = os.path.join(GRADING, "metrics")
FIXTURES = os.path.join(KIT, "tests", "cli", "fixtures", "ncu")

sys.dont_write_bytecode = True
if GRADING not in sys.path:
    sys.path.insert(0, GRADING)

from kitmetrics.cli import main  # noqa: E402  (needs the path above)


def fixture(name):
    return os.path.join(FIXTURES, name)


def fixture_text(name):
    with open(fixture(name), "rb") as f:
        return f.read().decode("utf-8", "surrogateescape")


def run_cli(args, stdin=b"", environ=None):
    """(exit status, stdout, stderr) of grading/metrics ARGS, run in this process."""
    out, err = io.StringIO(), io.StringIO()
    status = main(list(args), stdin=io.BytesIO(stdin), stdout=out, stderr=err,
                  environ=dict(os.environ) if environ is None else environ)
    return status, out.getvalue(), err.getvalue()


def write_program(folder, name, body):
    """An executable shell script FOLDER/NAME with BODY; returns its path."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


FAKE_NCU = """\
# a fake ncu: records its arguments one a line, prints a file, exits with a chosen status
for a in "$@"; do printf '%%s\\n' "$a"; done >%(args)s
cat %(out)s
exit %(status)d
"""


class TempDir(object):
    """A temporary folder for one test case: self.tmp, removed in tearDown."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="metrics-test.")
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def write(self, name, data):
        path = self.path(name)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return path

    def fake_ncu(self, output_file, status=0):
        """A fake ncu that records its arguments (ncu_args()), prints output_file and exits with
        status; returns the environment that points NCU at it."""
        body = FAKE_NCU % {"args": shlex.quote(self.path("ncu.args")),
                           "out": shlex.quote(output_file), "status": status}
        env = dict(os.environ)
        env["NCU"] = write_program(self.tmp, "ncu", body)
        return env

    def ncu_args(self):
        with open(self.path("ncu.args")) as f:
            return f.read().split("\n")[:-1]
