# cli - the command line of grading/metrics: reads the options of each subcommand (parse, run,
# list, table, plot, and the internal pivot), calls the parts that do the work, prints, and turns
# a Failure into "metrics: LINE" on stderr and its exit code.
#
# Options are read one by one, left to right, like the bash tool this replaces: the first problem
# found is the one reported, before ncu or gnuplot is looked for.
import os
import sys

from . import helptext, ncurun, tsvrows
from .failure import Failure, NO_METRICS, USAGE, usage
from .inputs import read_text
from .mapping import Mapping
from .ncucsv import Scan
from .pivot import pivot
from .plot import plot
from .table import render

PREFIX = "metrics: "


class _Io(object):
    def __init__(self, stdin, stdout, stderr, environ):
        self.stdin = stdin
        self.out = stdout
        self.err = stderr
        self.environ = environ

    def lines(self, lines):
        for line in lines:
            self.out.write(line + "\n")

    def warn(self, line):
        self.err.write(PREFIX + "warning: " + line + "\n")


def _options(args, command, takes_value, flags):
    """Read leading options: (values by option, set flags, index of the first other argument).
    `takes_value` maps an option to what its value is ("a name"...); --help ends with None."""
    values, seen = {}, set()
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help"):
            return None, None, i
        if a in takes_value:
            if i + 1 >= len(args):
                raise usage("%s: %s needs %s" % (command, a, takes_value[a]))
            values[a] = args[i + 1]
            i += 2
        elif a in flags:
            seen.add(a)
            i += 1
        else:
            break
    return values, seen, i


def cmd_parse(args, io):
    takes = {"--label": "a value", "--set": "a name", "--metrics": "a list"}
    path = ""
    rest = args
    values, seen = {}, set()
    while rest:
        v, f, i = _options(rest, "parse", takes, ("--all",))
        if v is None:
            io.out.write(helptext.PARSE)
            return 0
        values.update(v)
        seen |= f
        rest = rest[i:]
        if not rest:
            break
        a = rest[0]
        if a.startswith("-") and a != "-":
            raise usage("parse: unknown option '%s'" % a)
        if path:
            raise usage("parse: one input file only")
        path = a
        rest = rest[1:]
    if not path:
        raise usage("parse: no input file")
    set_name, names = values.get("--set", ""), values.get("--metrics", "")
    if set_name and names:
        raise usage("parse: --set and --metrics exclude each other")
    mapping = Mapping()
    want = mapping.resolve(set_name, names) if set_name or names else None
    text, source = read_text(path, stdin=io.stdin)
    result = tsvrows.build(Scan(text), mapping, want, "--all" in seen, values.get("--label"),
                           source)
    if result.status == tsvrows.NOT_CSV:
        raise Failure(USAGE, '%s: not an ncu CSV (no header row with "ID" and "Kernel Name"; '
                      "expected ncu --csv --page raw)" % source)
    if result.status == tsvrows.DETAILS:
        raise Failure(USAGE, "%s: this is ncu --page details output; rerun ncu with --page raw"
                      % source)
    io.lines(result.lines)
    for w in result.warnings:
        io.warn(w)
    if result.status == tsvrows.NO_LAUNCH:
        io.warn("%s: the CSV holds no profiled launch" % source)
    return 0


def cmd_run(args, io):
    takes = {"--set": "a name", "--metrics": "a list", "--kernel": "a regex",
             "--launch-count": "a number", "--label": "a value", "--keep": "a file name"}
    values, seen, i = _options(args, "run", takes, ("--all",))
    if values is None:
        io.out.write(helptext.RUN)
        return 0
    if i < len(args) and args[i] == "--":
        i += 1
    elif i < len(args) and args[i].startswith("-"):
        raise usage("run: unknown option '%s'" % args[i])
    command = args[i:]
    if not command:
        raise usage("run: no command to profile (grading/metrics run [OPTIONS] -- COMMAND)")
    set_name, names = values.get("--set", ""), values.get("--metrics", "")
    if set_name and names:
        raise usage("run: --set and --metrics exclude each other")
    count = values.get("--launch-count", "")
    if count and (not count.isdigit() or not count.isascii() or count == "0"):
        raise usage("run: --launch-count needs a positive whole number, not '%s'" % count)
    kernel = values.get("--kernel", "")
    mapping = Mapping()
    want = mapping.resolve(set_name or ("" if names else "all"), names)
    ncu = ncurun.find_ncu(io.environ)
    status, text = ncurun.profile(ncu, mapping.ncu_metrics(want), command, kernel, count,
                                  values.get("--keep"))
    result = tsvrows.build(Scan(text), mapping, want, "--all" in seen, values.get("--label"),
                           "ncu output")
    if result.status in (tsvrows.NOT_CSV, tsvrows.DETAILS):
        code = 3 if result.status == tsvrows.NOT_CSV else 4
        raise Failure(NO_METRICS, "ncu output could not be read as CSV (status %d); rerun with "
                      "--keep FILE.csv to see it" % code)
    if result.status == tsvrows.NO_LAUNCH:
        for w in result.warnings:
            io.warn(w)
        raise Failure(NO_METRICS, "ncu output holds no profiled launch (no kernel matched?)")
    io.lines(result.lines)
    for w in result.warnings:
        io.warn(w)
    if status != 0:
        io.warn("the profiled command exited with status %d; the metrics above are from the "
                "launches ncu profiled" % status)
    return 0


def cmd_list(args, io):
    values, seen, i = _options(args, "list", {"--set": "a name"}, ("--sets",))
    if values is None:
        io.out.write(helptext.LIST)
        return 0
    if i < len(args):
        raise usage("list: unexpected argument '%s'" % args[i])
    set_name = values.get("--set", "")
    mapping = Mapping()
    if "--sets" in seen:
        for name in mapping.set_order:
            io.out.write("%-8s %s\n" % (name, " ".join(mapping.resolve(name))))
        return 0
    rows = mapping.listing
    if set_name:
        chosen = mapping.resolve(set_name)
        by_name = dict((row[0], row) for row in rows)
        rows = rows[:1] + [by_name[name] for name in chosen]
    width = [max(len(row[c]) for row in rows) for c in range(3)]
    for row in rows:
        io.out.write("%-*s  %-*s  %-*s  %s\n"
                     % (width[0], row[0], width[1], row[1], width[2], row[2], row[3]))
    return 0


def cmd_table(args, io):
    path = ""
    for a in args:
        if a in ("-h", "--help"):
            io.out.write(helptext.TABLE)
            return 0
        if a.startswith("-") and a != "-":
            raise usage("table: unknown option '%s'" % a)
        if path:
            raise usage("table: one input file only")
        path = a
    if not path:
        raise usage("table: no input file")
    text, source = read_text(path, stdin=io.stdin)
    io.lines(render(text, source))
    return 0


def cmd_pivot(args, io):
    """Internal: the pre-step of `plot`, also run by plot_metrics.gp when called on its own."""
    if len(args) != 2:
        raise usage("pivot: needs FILE.tsv DIR")
    text, source = read_text(args[0], streams=False)
    pivot(text, source, args[1])
    return 0


def cmd_plot(args, io):
    if args and args[0] in ("-h", "--help"):
        io.out.write(helptext.PLOT)
        return 0
    if len(args) != 2:
        raise usage("plot: needs FILE.tsv OUTBASE")
    io.lines(plot(args[0], args[1], io.environ))
    return 0


COMMANDS = {"parse": cmd_parse, "run": cmd_run, "list": cmd_list, "table": cmd_table,
            "plot": cmd_plot, "pivot": cmd_pivot}


def main(argv, stdin=None, stdout=None, stderr=None, environ=None):
    """Run the tool on argv (without the program name); returns the exit status."""
    io = _Io(stdin, stdout or sys.stdout, stderr or sys.stderr,
             os.environ if environ is None else environ)
    try:
        if not argv:
            raise usage("no subcommand")
        if argv[0] in ("-h", "--help", "help"):
            io.out.write(helptext.MAIN)
            return 0
        command = COMMANDS.get(argv[0])
        if command is None:
            raise usage("unknown subcommand '%s'" % argv[0])
        return command(argv[1:], io)
    except Failure as f:
        io.out.flush()
        io.err.write(PREFIX + f.line + "\n")
        return f.code
