# kitmetrics - the parts of grading/metrics, the profiler-metrics tool (this file only marks the package).
#
# One job per module:
#   failure   the tool's error (exit code + one line) and its message formats
#   inputs    reading an input file, a pipe or stdin as text, refusing what is not text
#   units     numbers as ncu prints them and conversions between units
#   mapping   grading/metrics.tsv and grading/metric_sets.tsv: legacy names, sets, ncu metrics
#   ncucsv    splitting `ncu --csv --page raw` output into header, units and launch rows
#   tsvrows   turning those launches into the TSV rows under the legacy names
#   ncurun    finding ncu and running a command under it
#   metricstsv  reading a TSV written by parse/run back (for table and pivot)
#   table     the TSV as an aligned table for students
#   pivot     the TSV reshaped into gnuplot data files
#   plot      drawing the bar charts with gnuplot
#   helptext  the --help texts: usage lines and prose
#   cli       the command line: an argparse parser per subcommand, the subcommands, exit codes
