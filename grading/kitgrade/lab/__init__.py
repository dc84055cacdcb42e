"""The lab: its rubric and hidden cases, its checker's facts, the student folders, builds.

Nothing here names a lab: what the grader knows of one comes from its checker and its
rubric.
"""
