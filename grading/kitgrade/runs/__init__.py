"""The harness run: correctness runs, the checker's verdicts, verified timing, speed lost.

run drives the harness in a box (desc reads its account of each variant); check hands outputs to the checker; timing pairs the
reference with the student, with keys, GPU records and the checks of each timed run.
"""
