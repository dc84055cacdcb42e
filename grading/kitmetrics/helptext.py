# helptext - the --help texts of grading/metrics and of each subcommand: usage lines and prose.
#
# cli's argparse parsers print them (each subcommand's options are listed from their own help
# between a text's description and its epilog).

MAIN = dict(usage="grading/metrics SUBCOMMAND [OPTIONS]", description="""\
Profiler metrics under the legacy nvprof names (gld_efficiency, ...), read from Nsight Compute.

Subcommands:
  parse FILE.csv            ncu --csv --page raw output (FILE or - for stdin) -> TSV on stdout
  run [OPTIONS] -- COMMAND  profile COMMAND with ncu, print the same TSV
  list [--set NAME]         the legacy -> ncu mapping, or the members of one set
  table FILE.tsv            a parse/run TSV as a readable table
  plot FILE.tsv OUTBASE     grouped bar charts OUTBASE.png and OUTBASE.pdf (needs gnuplot)
Run `grading/metrics SUBCOMMAND --help` for the options of each.""", epilog="""\
Mapping: grading/metrics.tsv; sets: grading/metric_sets.tsv.
TSV columns: [label] kernel launch block grid legacy metric value unit
Exit codes: 0 done, 2 bad usage or bad input, 3 the command produced no metrics,
4 none because the kit's program said its variant is not written yet (its exit 4),
5 ncu/gnuplot not found, 6 no permission for the GPU performance counters.
Environment: NCU (the ncu to run), GNUPLOT (the gnuplot to run). Needs Python 3.8 or newer.""")

PARSE = dict(usage="grading/metrics parse [--label TEXT] [--set NAME | --metrics a,b] [--all] "
             "FILE.csv", description="""\
Reads ncu CSV (--page raw, from a live run with ==PROF== and program lines mixed in, or from
`ncu -i report.ncu-rep --csv --page raw --print-units base`) and writes one TSV row per
profiled launch per known metric:
  [label] kernel launch block grid legacy metric value unit""", epilog="""\
A sum (l2_read_transactions, ...) gets a row only when all its member columns are present.
A value ncu did not give as a number (n/a) is printed as NA. FILE may be - for stdin.""")

RUN = dict(usage="""grading/metrics run [--set NAME | --metrics a,b] [--kernel REGEX] \
[--launch-count N]
                           [--label TEXT] [--keep FILE.csv] [--all] -- COMMAND [ARGS...]""",
           description="""\
Runs  ncu --csv --page raw --print-units base --clock-control none --metrics LIST
      [-k regex:REGEX] [-c N] COMMAND ARGS...
with the ncu metrics of the set (default: all) and prints the TSV of `parse`.""", epilog="""\
ncu is taken from $NCU, else PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute/*/.
Exit 3: the command produced no metrics (4: the kit's program said not implemented);
5: ncu not found; 6: no counter permission.""")

LIST = dict(usage="grading/metrics list [--set NAME | --sets]", description="""\
Prints the legacy nvprof -> ncu mapping as a table (legacy, ncu expression, unit, note), only the
members of set NAME with --set, or the set names and their members with --sets.""")

TABLE = dict(usage="grading/metrics table FILE.tsv", description="""\
Prints a TSV made by `parse` or `run` (FILE or - for stdin) as an aligned table under the legacy
names: label, kernel (at most 40 characters), launch, metric, value, unit. Percentages get one
decimal, throughputs GB/s, durations us or ms, sizes bytes (and KiB).""")

PLOT = dict(usage="grading/metrics plot FILE.tsv OUTBASE", description="""\
Draws grouped bars (one group per legacy metric, one bar per label, mean over launches) from a TSV
made by `run --label` or `parse --label`, in panels: percentages, counts (transactions, bank
conflicts), throughputs in GB/s, shared memory per block in bytes, and the rest (duration in us,
ratios). Writes OUTBASE.png and OUTBASE.pdf with gnuplot and grading/plot_metrics.gp. Exit 5 when
gnuplot is missing.""")

PIVOT = dict(usage="grading/metrics pivot FILE.tsv DIR", description="""\
Internal: the pre-step of `plot` (plot_metrics.gp runs it when called on its own): one gnuplot
data file per panel in DIR.""")
