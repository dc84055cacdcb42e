"""One grading driven: setup, shared context, cores and GPUs, the schedule, the hooks.

setup makes the context every task reads; schedule runs each student's tasks on the
pools; workflow and classlist are the instructors' hooks in it; outputs ends a grading.
"""
