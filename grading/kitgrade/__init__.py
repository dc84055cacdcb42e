"""kitgrade - the CUDA lab kit's grader (grading/README.md is the instructor's guide).

One module per job: cli (the command line), rubric (the hidden cases), labinfo (what the
lab is, from its checker), sandbox and uidpool (running untrusted code), build (the pristine
kit and the student's build), run (the harness on the hidden cases), check (the checker's
verdicts), cupti and timing (verified speed), score (points), report and summary (what comes
out), names (student folders), fsutil (file operations that follow no link), schedule (the
driver). Python 3.8+, standard library only.
"""
