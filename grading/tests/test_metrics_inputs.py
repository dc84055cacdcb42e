# Unit tests of kitmetrics.inputs: what the tool accepts as an input file and how it reads lines.
import io
import os
import unittest

import metrics_support
from kitmetrics.failure import Failure
from kitmetrics.inputs import lines_of, read_text


class ReadText(metrics_support.TempDir, unittest.TestCase):
    def refused(self, path, words, **kw):
        with self.assertRaises(Failure) as c:
            read_text(path, **kw)
        self.assertEqual(c.exception.code, 2)
        self.assertIn(words, c.exception.line)
        self.assertNotIn("\n", c.exception.line)

    def test_a_file_is_read_and_named_by_its_path(self):
        path = self.write("a.csv", b'"ID"\n')
        self.assertEqual(read_text(path), ('"ID"\n', path))

    def test_stdin_is_named_stdin(self):
        self.assertEqual(read_text("-", stdin=io.BytesIO(b"x\n")), ("x\n", "stdin"))
        self.refused("-", "stdin: empty input", stdin=io.BytesIO(b""))

    def test_a_pipe_is_read_whole(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        pid = os.fork()
        if pid == 0:  # the writer
            with open(fifo, "wb") as f:
                f.write(b"through a pipe\n")
            os._exit(0)
        try:
            self.assertEqual(read_text(fifo), ("through a pipe\n", fifo))
        finally:
            os.waitpid(pid, 0)

    def test_bad_inputs_get_one_line_each(self):
        self.refused(self.path("nope"), "no such file")
        self.refused(self.tmp, "not a regular file")
        self.refused(self.write("empty", b""), "empty input, not an ncu CSV")
        self.refused(self.write("bin", b'"ID"\0\1'), "binary file")

    def test_unreadable_file(self):
        path = self.write("secret", b"x")
        os.chmod(path, 0)
        try:
            if os.access(path, os.R_OK):
                self.skipTest("running as root: every file is readable")
            self.refused(path, "cannot read it")
        finally:
            os.chmod(path, 0o600)

    def test_without_streams_stdin_is_just_a_file_name(self):
        self.refused("-", "-: no such file", streams=False)

    def test_bytes_that_are_not_utf8_survive(self):
        path = self.write("latin1.csv", b"caf\xe9\n")
        text, _ = read_text(path)
        self.assertEqual(text.encode("utf-8", "surrogateescape"), b"caf\xe9\n")


class LinesOf(unittest.TestCase):
    def test_split_at_newline_only_one_cr_dropped(self):
        self.assertEqual(lines_of("a\r\nb\n"), ["a", "b"])
        self.assertEqual(lines_of("a\r\r\nb"), ["a\r", "b"])
        self.assertEqual(lines_of("a\x0bb\x1cc\n\n"), ["a\x0bb\x1cc", ""])
        self.assertEqual(lines_of(""), [])


if __name__ == "__main__":
    unittest.main()
