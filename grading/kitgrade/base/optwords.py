"""The one reader of the option groups' words (`--name V`, `--name=V`, lists); UsageError.

The reader of the grader's option groups (slurmopts, wfopts): one walk over the command
line's words, so that every group takes `--name VALUE`, `--name=VALUE` and lists the same
way, and says the same when a value is missing."""


class UsageError(Exception):
    """Bad usage: one line, exit 2."""


def usage(msg):
    """The grader's usage error (exit 2, one line) with MSG."""
    return UsageError(msg)


def scan(argv, valued=(), flags=(), listed=()):
    """Walk ARGV and yield (name, value) for each option of the group: for VALUED names the
    value of `=V` or of the next word (missing or empty: a usage error), True for FLAGS
    (given without `=`), for LISTED names the words of `=a,b` or those up to the next
    option (none: a usage error naming the option). Every other word: (None, word)."""
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        if name in valued:
            if not eq:
                if i + 1 >= len(argv):
                    raise usage("option %s needs a value (try --help)" % name)
                val = argv[i + 1]
                i += 1
            if not val:
                raise usage("option %s needs a value (try --help)" % name)
            yield name, val
        elif name in flags and not eq:
            yield name, True
        elif name in listed:
            words = [w for w in val.split(",") if w] if eq else []
            while not eq and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                words.append(argv[i + 1])
                i += 1
            yield name, words
        else:
            yield None, a
        i += 1
