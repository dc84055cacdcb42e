# plot - the grouped bar charts OUT.png and OUT.pdf of a labelled metrics TSV: pivots it into a
# temporary folder and runs gnuplot on grading/plot_metrics.gp with in, out and pivot set.
import os
import shutil
import subprocess
import tempfile

from .failure import Failure, NOT_FOUND, USAGE
from .inputs import read_text
from .pivot import pivot

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "plot_metrics.gp")


def _quoted(path):
    """A gnuplot string literal of any path: single quotes, a quote inside written twice."""
    return "'%s'" % path.replace("'", "''")


def find_gnuplot(environ):
    """$GNUPLOT (a path or a name on PATH), else gnuplot on PATH; Failure(5) when missing."""
    wanted = environ.get("GNUPLOT", "") or "gnuplot"
    found = shutil.which(wanted, path=environ.get("PATH", os.defpath))
    if not found:
        raise Failure(NOT_FOUND, "gnuplot not found (install it: apt-get install gnuplot-nox); "
                      "the TSV can be plotted on another machine")
    return found


def plot(tsv_path, outbase, environ, script=SCRIPT):
    """Draw OUTBASE.png and OUTBASE.pdf; returns their paths."""
    gnuplot = find_gnuplot(environ)
    text, source = read_text(tsv_path, streams=False)
    folder = tempfile.mkdtemp(prefix="metrics.", dir=environ.get("TMPDIR") or None)
    try:
        pivot(text, source, folder)
        setting = "in=%s; out=%s; pivot=%s" % (_quoted(tsv_path), _quoted(outbase), _quoted(folder))
        if subprocess.call([gnuplot, "-e", setting, script], stdin=subprocess.DEVNULL) != 0:
            raise Failure(USAGE, "plot: gnuplot failed on %s" % tsv_path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    outputs = [outbase + ".png", outbase + ".pdf"]
    for path in outputs:
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            raise Failure(USAGE, "plot: gnuplot wrote no %s.png / %s.pdf" % (outbase, outbase))
    return outputs
