"""python3 -m kitgrade ARGS: the grader (grading/grade runs this)."""
import sys

from .cmdline.entry import main

sys.exit(main(sys.argv[1:]))
