"""What the lab is, as its checker describes it (`check-NN describe`).

The checker gives its parts, variants, spans, ceilings and, per hidden case, each variant's
output shape and the bytes it must move (`grading/build/check-NN describe [--part P ARGS...]`,
DESIGN.md "The checker"). The grader names no lab: everything it knows of one comes from here
and from the rubric.

The JSON read (grading/check.c; fields by name, unknown ones ignored):
    {"lab": "03", "title": "...", "gpu": true,
     "parts": [{"name": "", "first_variant": 1, "variants": [{"v": 1, "name": "naive",
                "what": "...", "span": "kernel", "ceiling": "device-copy", "min_launches": 1,
                "given": false}, ...], "options": [...]}, ...],
and with a case's arguments (`describe --part P -- ARGS...`) also
     "case": {"part": "", "variants": [{"v": 1, "supported": true, "type": "u8", "w": 640,
              "h": 480, "c": 3, "planar": 0, "atol": 0, "rtol": 0, "bytes": 1843200},
              {"v": 4, "supported": false, "why": "..."}, ...]}   or {"error": "..."}}
"""
import json
import subprocess
from dataclasses import dataclass, field
from typing import Dict

from .rubric import parse_vname

TYPE_SIZE = {"u8": 1, "f32": 4, "f64": 8}


class LabError(Exception):
    pass


@dataclass
class VariantInfo:
    part: str
    num: int
    name: str = ""
    what: str = ""
    span: str = "host"
    ceiling: str = "none"
    min_launches: int = 0
    given: bool = False


@dataclass
class Output:
    """One variant's output on one case."""
    na: str = ""               # why the variant cannot take the case ("" when it can)
    type: str = ""
    w: int = 0
    h: int = 0
    c: int = 0
    bytes: float = 0.0         # bytes the variant must move at least

    @property
    def size(self):
        """The output's size in bytes (0 when unknown)."""
        return self.w * self.h * self.c * TYPE_SIZE.get(self.type, 0)


@dataclass
class LabInfo:
    lab: str
    gpu: bool = False
    parts: Dict[str, Dict[int, VariantInfo]] = field(default_factory=dict)

    def variant(self, part, num):
        return self.parts.get(part, {}).get(num)

    def part_variants(self, part):
        return sorted(self.parts.get(part, {}))


def _num(d, *keys, default=0):
    for k in keys:
        if k in d and d[k] is not None:
            return d[k]
    return default


def _variants(part_json):
    vs = part_json.get("variants", [])
    if isinstance(vs, dict):    # {"1": {...}} is read too
        vs = [dict(v, id=int(k)) for k, v in vs.items()]
    return vs


def from_json(data, lab=""):
    """LabInfo from describe's JSON (a dict)."""
    info = LabInfo(lab=str(data.get("lab", lab)), gpu=bool(data.get("gpu", False)))
    parts = data.get("parts")
    if parts is None:
        parts = [dict(data, name=data.get("part", ""))]
    for p in parts:
        pname = str(p.get("name", p.get("part", "")) or "")
        table = {}
        for v in _variants(p):
            num = int(_num(v, "v", "id", "variant", "number"))
            table[num] = VariantInfo(
                part=pname, num=num, name=str(v.get("name", "")), what=str(v.get("what", "")),
                span=str(v.get("span", "kernel" if info.gpu else "host")),
                ceiling=str(v.get("ceiling", "none")),
                min_launches=int(_num(v, "min_launches", default=1 if info.gpu else 0)),
                given=bool(v.get("given", False)))
        info.parts[pname] = table
    return info


def outputs_from_json(data, part=""):
    """{variant: Output} from describe's JSON for one case."""
    if "case" in data:
        data = data["case"]
        if "error" in data:
            raise LabError(str(data["error"]))
    elif "parts" in data:
        for p in data["parts"]:
            if str(p.get("name", "")) == part:
                data = p
                break
    res = {}
    for v in _variants(data):
        num = int(_num(v, "v", "id", "variant", "number"))
        o = v.get("output") or v
        na = v.get("na", v.get("n/a"))
        if v.get("supported") is False:
            na = v.get("why") or True
        if na is True:
            na = "the variant cannot take this input"
        res[num] = Output(
            na=str(na) if na else "",
            type=str(o.get("type", "")),
            w=int(_num(o, "w", "width")), h=int(_num(o, "h", "height")),
            c=int(_num(o, "c", "channels", default=1)),
            bytes=float(_num(v, "bytes", default=0) or 0))
    return res


def _run(argv, what):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise LabError("%s: %s" % (what, e))
    if p.returncode == 1 and p.stdout.strip().startswith(b"{"):
        try:
            err = json.loads(p.stdout.decode("utf-8")).get("case", {}).get("error")
        except ValueError:
            err = None
        if err:
            raise LabError(str(err))
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise LabError("%s failed (exit %d): %s" % (what, p.returncode,
                                                    msg[-1] if msg else "no message"))
    try:
        return json.loads(p.stdout.decode("utf-8"))
    except ValueError as e:
        raise LabError("%s: its JSON cannot be read (%s)" % (what, e))


def describe(checker, lab=""):
    """The lab, from `CHECKER describe`."""
    return from_json(_run([checker, "describe"], "the checker's describe"), lab)


def describe_case(checker, part, args):
    """{variant: Output} of one case, from `CHECKER describe --part P ARGS...`."""
    data = _run([checker, "describe", "--part", part, "--"] + list(args),
                "the checker's describe of '%s'" % " ".join(args))
    return outputs_from_json(data, part)


def check_rubric(info, rub):
    """Every graded variant of the rubric must be one of the lab's (a list of problems)."""
    bad = []
    for n in rub.points:
        part, v = parse_vname(n)
        if part not in info.parts:
            bad.append("the rubric grades part '%s', which lab %s does not have" % (part, info.lab))
        elif v not in info.parts[part]:
            bad.append("the rubric grades variant %s, which lab %s does not have" % (n, info.lab))
    return bad

