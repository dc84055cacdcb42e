"""kitgrade - the CUDA lab kit's grader (grading/README.md is the instructor's guide).

One module per job:
  cli       the command line          rubric    the rubric and the hidden cases
  labinfo   the lab, from its checker setup     what a grading needs before its students
  names     the student folders       build     the pristine kit, builds, forbidden symbols
  run       the harness on the cases  check     the checker's verdicts
  keys      a timed run's key channel cupti     GPU activity records
  timing    verified speed            score     points, status and reason
  report    a student's report        summary   grades.csv, summary.md, the class plots
  pools     cores and GPUs            schedule  the driver: tasks, resume, progress
  extras    --sanitize and --profile  context   what every part of a grading shares
  fsutil    file operations that follow no link
  safetext  what a student controls, safe on a terminal, in a spreadsheet, in Markdown
  sandbox, uidpool (the sandbox); roster, gitsub, gitstore, gitdates, late, export, history,
  similarity (the instructors' tools), wired in by wfopts (their options), classlist (the
  class), workflow (the driver's hooks) and wfreport (their lines in the outputs).
Python 3.8+, standard library only.
"""
