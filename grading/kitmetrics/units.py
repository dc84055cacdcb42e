# units - numbers as ncu prints them, and conversion of a value from ncu's unit into the mapping's.
#
# ncu quotes its numbers and groups digits ("6,159,777,967.55"); a value it could not measure is
# "n/a". With --print-units base the units are base units ("byte/s", "ns", "sector"); without it
# they carry prefixes ("Gbyte/second", "usecond", "Ksector"), which are scaled back here. A sector
# is 32 bytes, so a sector rate converts to a byte rate (l2_l1_read_throughput). Values are kept as
# the strings ncu printed whenever no conversion is needed, so decimals survive unchanged.
import re

NA = "NA"
SECTOR_BYTES = 32

_NUMBER = re.compile(r"[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?\Z")
_PREFIX = {"K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_TO_NS = {"us": 1e3, "ms": 1e6, "s": 1e9}


def is_number(text):
    """True when text is a plain decimal number (sign, digits, point, exponent; no grouping)."""
    return _NUMBER.match(text) is not None


def clean_number(text):
    """ncu's printed value without its digit grouping, or NA when it is not a number."""
    text = text.replace(",", "").replace(" ", "")
    return text if is_number(text) else NA


def plain(x):
    """A computed value as a plain decimal string: 15 significant digits, never an exponent."""
    s = "%.15g" % x
    if "e" not in s:  # also inf and nan, which have no plain form
        return s
    s = "%.6f" % x
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def decimals(value):
    """How many decimals a value string shows (6 for one written with an exponent)."""
    if "e" in value or "E" in value:
        return 6
    point = value.find(".")
    return len(value) - point - 1 if point >= 0 else 0


def normalize(unit):
    """ncu writes "second" in full without --print-units base: "byte/second" is "byte/s"."""
    return unit.replace("second", "s")


def _base_factor(given, want):
    """Factor from unit `given` (no prefix) to `want`: 1 when equal, 32 from sectors to bytes."""
    if given == want:
        return 1.0
    if "sector" in given and given.replace("sector", "byte") == want:
        return float(SECTOR_BYTES)
    return 0.0


def factor(given, want):
    """The factor that turns a value in unit `given` into unit `want` (both normalized); 0 when
    the two are not the same quantity or the prefix is unknown."""
    if want == "ns":
        return _TO_NS.get(given, 0.0)
    f = _base_factor(given, want)
    if f:
        return f
    if len(given) > 1 and given[0] in _PREFIX:
        f = _base_factor(given[1:], want)
        if f:
            return _PREFIX[given[0]] * f
    return 0.0


def convert(value, given, want):
    """value (a clean number string or NA) in ncu's unit `given` -> (value, unit) in `want`.

    No unit from ncu, or the same unit: the value is returned as printed. A unit that cannot be
    converted: the value is kept in ncu's unit and that unit returned, so the caller can warn."""
    g, w = normalize(given), normalize(want)
    if value == NA or g == "" or g == w:
        return value, want
    f = factor(g, w)
    if f == 0.0:
        return value, given
    return plain(float(value) * f), want
