# cli - the command line of grading/metrics: one argparse parser per subcommand (parse, run,
# list, table, plot, and the internal pivot), the parts that do the work called, the output
# printed, and a Failure turned into "metrics: LINE" on stderr and its exit code.
#
# Options are read much as the bash tool this replaces read them: a value is the next word
# whatever it looks like (but `--`), one problem is reported (a missing value first, then the
# first of the other words), before ncu or gnuplot is looked for, and --help is read in order
# (a problem before it is reported instead of the help).
import argparse
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
HELP = ("-h", "--help")


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


class _HelpRead(Exception):
    """--help was read (what came before it is read again without it, for its problems)."""


class _Help(argparse.Action):
    def __init__(self, option_strings, dest, **kw):
        kw.update(nargs=0, help="this text")
        argparse.Action.__init__(self, option_strings, dest, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        raise _HelpRead()


class _Layout(argparse.RawDescriptionHelpFormatter):
    """--help as the tool printed it: "Usage: " first, the prose as written, one width."""

    def __init__(self, prog):
        argparse.RawDescriptionHelpFormatter.__init__(self, prog, max_help_position=20,
                                                      width=100)

    def add_usage(self, usage, actions, groups, prefix=None):
        argparse.RawDescriptionHelpFormatter.add_usage(self, usage, actions, groups, "Usage: ")


class _Options(argparse.ArgumentParser):
    """One subcommand's options; its problems said as "COMMAND: ..." (exit 2)."""

    def __init__(self, command, text):
        argparse.ArgumentParser.__init__(self, prog="grading/metrics " + command, add_help=False,
                                         allow_abbrev=False, formatter_class=_Layout, **text)
        self.command = command
        self.needs = {}             # an option of one value -> what it needs ("a name")
        self.add_argument(*HELP, action=_Help)

    def option(self, name, needs=None, **kw):
        """An option: of one value when NEEDS says what it is, else a flag."""
        if needs is None:
            self.add_argument(name, action="store_true", **kw)
        else:
            self.needs[name] = needs
            self.add_argument(name, **kw)

    def glued(self, args, command=False):
        """(ARGS with each option of one value glued to the next word (`--label=WORD`), so
        that a value is never read as an option - `--` is no value -; the words left): with
        COMMAND (run's), the words from the first one that is not an option (or after `--`)
        are left, as they are."""
        out, i = [], 0
        while i < len(args):
            a = args[i]
            if command and (a == "--" or not a.startswith("-")):
                return out, args[i + (a == "--"):]
            if a in self.needs and i + 1 < len(args) and args[i + 1] != "--":
                a = a + "=" + args[i + 1]
                i += 1
            out.append(a)
            i += 1
        return out, []

    def read(self, args, others, command=False, whole=True):
        """(the options, what OTHERS(command, the other words, WHOLE) makes of the other
        words); options.command: the words of COMMAND (run's). --help: _HelpRead, once the
        words before it are read (not WHOLE: what is missing is no problem there)."""
        words, left = self.glued(args, command)
        try:
            options, rest = self.parse_known_args(words)
        except _HelpRead:
            self.read(words[:min(words.index(h) for h in HELP if h in words)], others,
                      whole=False)
            raise
        options.command = left
        return options, others(self.command, rest, whole)

    def error(self, message):
        """argparse's complaint (`argument NAME: WHAT`) in the tool's words."""
        name, _, what = message.partition(": ")
        name = name.replace("argument ", "")
        if what == "expected one argument":
            message = "%s needs %s" % (name, self.needs[name])
        elif what.startswith("ignored explicit argument"):
            message = "%s takes no value" % name
        raise usage("%s: %s" % (self.command, message))


def _one_file(command, words, whole):
    """The one input file of WORDS (- is stdin); any other word is a problem."""
    path = ""
    for a in words:
        if a.startswith("-") and a != "-":
            raise usage("%s: unknown option '%s'" % (command, a))
        if path:
            raise usage("%s: one input file only" % command)
        path = a
    if whole and not path:
        raise usage("%s: no input file" % command)
    return path


def _no_option(command, words, whole):
    if words:
        raise usage("%s: unknown option '%s'" % (command, words[0]))


def _no_argument(command, words, whole):
    if words:
        raise usage("%s: unexpected argument '%s'" % (command, words[0]))


def _two(needs):
    """The two words a subcommand NEEDS."""
    def two(command, words, whole):
        if len(words) > 2 or whole and len(words) < 2:
            raise usage("%s: needs %s" % (command, needs))
        return words
    return two


def _parsers():
    main = _Options("", helptext.MAIN)
    main.prog = "grading/metrics"
    p = {"": main}
    for command, text in (("parse", helptext.PARSE), ("run", helptext.RUN),
                          ("list", helptext.LIST), ("table", helptext.TABLE),
                          ("plot", helptext.PLOT), ("pivot", helptext.PIVOT)):
        p[command] = _Options(command, text)
    parse, run, listing = p["parse"], p["run"], p["list"]
    parse.option("--label", "a value", metavar="TEXT",
                 help="add a first column `label` holding TEXT (the variant)")
    parse.option("--set", "a name", metavar="NAME",
                 help="keep only the legacy metrics of set NAME (see `list --sets`)")
    parse.option("--metrics", "a list", metavar="a,b", help="keep only these legacy metrics")
    parse.option("--all", help="also print columns the mapping does not know (legacy is `-`)")
    run.option("--set", "a name", metavar="NAME",
               help="a set from grading/metric_sets.tsv (global, shared, matvec, all, labNN)")
    run.option("--metrics", "a list", metavar="a,b", help="legacy names instead of a set")
    run.option("--kernel", "a regex", metavar="REGEX",
               help="profile only kernels whose name matches REGEX")
    run.option("--launch-count", "a number", metavar="N", help="profile at most N launches")
    run.option("--label", "a value", metavar="TEXT",
               help="add a first column `label` (the variant) to every row")
    run.option("--keep", "a file name", metavar="FILE.csv",
               help="keep ncu's raw output in FILE.csv")
    run.option("--all", help="also print columns the mapping does not know (legacy is `-`)")
    listing.option("--set", "a name", metavar="NAME", help="only the members of set NAME")
    listing.option("--sets", help="the set names and their members")
    return p


PARSERS = _parsers()


def cmd_parse(args, io):
    o, path = PARSERS["parse"].read(args, _one_file)
    set_name, names = o.set or "", o.metrics or ""
    if set_name and names:
        raise usage("parse: --set and --metrics exclude each other")
    mapping = Mapping()
    want = mapping.resolve(set_name, names) if set_name or names else None
    text, source = read_text(path, stdin=io.stdin)
    result = tsvrows.build(Scan(text), mapping, want, o.all, o.label, source)
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
    o, _ = PARSERS["run"].read(args, _no_option, command=True)
    command = o.command
    if not command:
        raise usage("run: no command to profile (grading/metrics run [OPTIONS] -- COMMAND)")
    set_name, names = o.set or "", o.metrics or ""
    if set_name and names:
        raise usage("run: --set and --metrics exclude each other")
    count = o.launch_count or ""
    if count and (not count.isdigit() or not count.isascii() or count == "0"):
        raise usage("run: --launch-count needs a positive whole number, not '%s'" % count)
    kernel = o.kernel or ""
    mapping = Mapping()
    want = mapping.resolve(set_name or ("" if names else "all"), names)
    ncu = ncurun.find_ncu(io.environ)
    status, text = ncurun.profile(ncu, mapping.ncu_metrics(want), command, kernel, count,
                                  o.keep)
    result = tsvrows.build(Scan(text), mapping, want, o.all, o.label, "ncu output")
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
    o, _ = PARSERS["list"].read(args, _no_argument)
    set_name = o.set or ""
    mapping = Mapping()
    if o.sets:
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
    _, path = PARSERS["table"].read(args, _one_file)
    text, source = read_text(path, stdin=io.stdin)
    io.lines(render(text, source))
    return 0


def cmd_pivot(args, io):
    """Internal: the pre-step of `plot`, also run by plot_metrics.gp when called on its own."""
    _, (tsv, folder) = PARSERS["pivot"].read(args, _two("FILE.tsv DIR"))
    text, source = read_text(tsv, streams=False)
    pivot(text, source, folder)
    return 0


def cmd_plot(args, io):
    _, (tsv, outbase) = PARSERS["plot"].read(args, _two("FILE.tsv OUTBASE"))
    io.lines(plot(tsv, outbase, io.environ))
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
        if argv[0] in HELP + ("help",):
            io.out.write(PARSERS[""].format_help())
            return 0
        command = COMMANDS.get(argv[0])
        if command is None:
            raise usage("unknown subcommand '%s'" % argv[0])
        try:
            return command(argv[1:], io)
        except _HelpRead:
            io.out.write(PARSERS[argv[0]].format_help())
            return 0
    except Failure as f:
        io.out.flush()
        io.err.write(PREFIX + f.line + "\n")
        return f.code
