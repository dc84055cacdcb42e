"""kitgrade - the CUDA lab kit's grader (grading/README.md is the instructor's guide; its
package map is made from the docstrings of the subpackages and modules).

One subpackage per concern, in LAYERS below, top to bottom. A module imports modules of its
own subpackage and of the layers below it, never one above, never round a loop, never inside
a function (grading/tests/test_layers.py checks this with ast). Python 3.8+, standard library
only.
"""

# The layer order, the command line first and the mechanisms last: a subpackage may import
# only from itself and from those after it.
LAYERS = (
    "cmdline",      # the command line: options, --help, grading/grade's entry
    "cluster",      # grading on a Slurm cluster
    "driver",       # one grading: setup, context, pools, the schedule, the workflow's hooks
    "scoring",      # points, records, reports and the class's files
    "runs",         # the harness run: correctness, verdicts, verified timing
    "lab",          # the lab: rubric, checker facts, student folders, builds
    "course",       # the class: roster, git, deadlines, history, export, similarity
    "box",          # the sandbox
    "base",         # file operations, safe text, say and bad usage
)
