"""The command line: the options, --help and grading/grade's entry (the top layer).

cli reads the whole command line with one argparse parser (the instructors' and the Slurm
options in groups of their own, which course.wfopts and cluster.slurmopts check); entry runs
the layers below. No layer below imports this one.
"""
