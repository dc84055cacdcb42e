# inputs - reading one input (a file, "-" for stdin, or a pipe such as <(...)) as text, refusing
# what cannot be ncu output or a metrics TSV with one clear line (exit 2).
#
# Text is decoded as UTF-8 with surrogateescape, so bytes that are not UTF-8 (a kernel name in
# another encoding) pass through to the output unchanged instead of stopping the tool.
import os
import sys

from .failure import Failure, USAGE

ENCODING = "utf-8"
ERRORS = "surrogateescape"


def decode(data):
    return data.decode(ENCODING, ERRORS)


def encode(text):
    return text.encode(ENCODING, ERRORS)


def _is_stream(path):
    """A readable path that is neither a regular file nor a folder: a FIFO, /dev/fd/N, a device."""
    return (os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path)
            and os.access(path, os.R_OK))


def _read_path(path, name):
    if not os.path.exists(path):
        raise Failure(USAGE, "%s: no such file" % name)
    if not os.path.isfile(path):
        raise Failure(USAGE, "%s: not a regular file" % name)
    if not os.access(path, os.R_OK):
        raise Failure(USAGE, "%s: cannot read it" % name)
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        raise Failure(USAGE, "%s: cannot read it" % name)


def _check(data, name):
    if not data:
        raise Failure(USAGE, "%s: empty input, not an ncu CSV" % name)
    if b"\0" in data:
        raise Failure(USAGE, "%s: binary file, not an ncu CSV" % name)
    return decode(data)


def read_text(path, streams=True, stdin=None):
    """(text, name) of the input `path`. With `streams`, "-" reads stdin (named "stdin") and a
    pipe is read whole; without, only a regular file will do (`pivot`, `plot`)."""
    if streams and path == "-":
        source = stdin if stdin is not None else sys.stdin.buffer
        return _check(source.read(), "stdin"), "stdin"
    if streams and _is_stream(path):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            raise Failure(USAGE, "%s: cannot read it" % path)
        return _check(data, path), path
    return _check(_read_path(path, path), path), path


def lines_of(text):
    """The lines of a text as awk sees records: split at "\\n" only, one trailing "\\r" dropped,
    no empty last line for a final newline."""
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]
