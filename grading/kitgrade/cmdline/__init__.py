"""The command line: the options, --help and grading/grade's entry (the top layer).

cli parses the whole command line (the option groups of cluster.slurmopts and
course.wfopts included); entry runs the layers below. No layer below imports this one.
"""
