#!/usr/bin/env python3
"""The fake lab's "binary": the grading mode of the harness (DESIGN.md) in a few lines, with
behaviours taken from comment lines of the student's fake.c:

    // vN correct | wrong | notimpl | crash | hang | replay | unsupported | error
    // vN crowded           (waits, off the core, in the run of every case (--cases):
                             a run slowed by others; right alone)
    // vN slow F            (F times the work)     // vN fork        (a process left behind)
    // vN token | nokernel | copies | liar        (GPU records: a token kernel, no kernel,
                                                   a copy in the launcher, a lying time)
    // exit0                (print PASS and leave at once)
    // vN swap              (its first run puts another program in the place of its own)
    // vN swapback          (its first timed run does the same, its next puts its own back)
The build puts the student's fake.c in the script as FAKE_C (common/lab.mk).
The output of variant v for content `key` is the one fakecheck.py expects. GPU activity
records (KIT_CUPTI_FD) are written as the injection library would.
"""
import hashlib
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(sys.argv[0]))
ME = os.path.basename(sys.argv[0])
GPU = ME in ("lab98", "lab97")
PARTS = ["a", "b"] if ME == "lab97" else [""]   # lab 97: lab 98 in two parts, a and b


def behaviours():
    b, flags, comment = {}, set(), False
    for ln in FAKE_C.splitlines():
        if ln.strip() in ("/* >>> STUDENT", "<<< STUDENT */"):
            comment = ln.strip() == "/* >>> STUDENT"
            continue
        t = ln.replace("//", " ").split()
        if comment:
            continue
        if len(t) >= 2 and t[0].startswith("v") and t[0][1:].isdigit():
            b.setdefault(int(t[0][1:]), []).append(t[1:])
        elif t == ["exit0"]:
            flags.add("exit0")
    return b, flags


def expected(w, h, seed, v, key):
    n = w * h
    out, i = b"", 0
    while len(out) < n:
        out += hashlib.sha256(("%d|%d|%d|%d|%d" % (w, h, seed, v, key + i)).encode()).digest()
        i += 1 << 32
    return out[:n]


def fnv1a(text):
    h = 1469598103934665603
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 1099511628211) & ((1 << 64) - 1)
    return h


def rep_key(seed, part, v, k):
    """kit_rep_key of common/spec.c."""
    m = (1 << 64) - 1
    s = (seed ^ fnv1a(part) ^ (v << 40) ^ k) & m
    s = (s + 0x9E3779B97F4A7C15) & m
    z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return (z ^ (z >> 31)) or 1


def burn(ms):
    t = time.process_time() + ms / 1000.0
    x = 0
    while time.process_time() < t:
        x += 1
    return x


def parse(args):
    o = {"variant": "all", "reps": 12, "seed": 1, "size": (4, 4), "dump": None, "ctl": None,
         "cases": None, "part": ""}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--quiet":
            i += 1
            continue
        if i + 1 >= len(args):
            raise SystemExit("fake: %s needs a value" % a)
        v = args[i + 1]
        if a == "--size":
            w, h = v.split("x")
            o["size"] = (int(w), int(h))
        elif a in ("--seed", "--reps"):
            o[a[2:]] = int(v)
        elif a in ("--variant", "--dump", "--ctl", "--cases", "--part"):
            o[a[2:]] = v
        elif a == "--threads":
            pass
        else:
            sys.stderr.write("fake: unknown option %s\n" % a)
            sys.exit(2)
        i += 2
    return o


def open_ctl(arg):
    a, b = arg.split(",")
    return os.fdopen(int(a), "r"), int(b)


def word(o, v):
    """Variant V on the key channel: PART:V where the grader asks (KIT_CTL_PARTS=1), as the
    harness's kit_ctl_line."""
    if o["part"] and os.environ.get("KIT_CTL_PARTS") == "1":
        return "%s:%d" % (o["part"], v)
    return str(v)


def one(o, beh, cup, ctl=None):
    w, h = o["size"]
    if o["part"] not in PARTS:
        if o["part"] == "" and PARTS[0]:
            o["part"] = PARTS[0]
        else:
            sys.stderr.write("fake: no part '%s'\n" % o["part"])
            return 2
    listed = o["variant"].split(",")
    if o["variant"] != "all" and (any(x not in ("1", "2", "3") for x in listed) or
                                  len(set(listed)) != len(listed)):
        sys.stderr.write("fake: --variant must be all, 1..3 or a list of them, not '%s'\n" %
                         o["variant"])
        return 2
    vs = [1, 2, 3] if o["variant"] == "all" else sorted(int(x) for x in listed)
    d = o["dump"]
    if o["ctl"] and ctl is None:
        ctl = open_ctl(o["ctl"])
    if ctl:                             # the gate, before any variant runs
        os.write(ctl[1], b"gate 0 0\n")
        if ctl[0].readline() != "open\n":
            sys.stderr.write("fake: not let start\n")
            return 3
    rc = 0
    for v in vs:
        acts = {x[0]: x[1:] for x in beh.get(v, [["correct"]])}
        txt = []
        if "crash" in acts:
            os.kill(os.getpid(), signal.SIGSEGV)
        me = os.path.join(HERE, ME)
        if "swap" in acts or ("swapback" in acts and ctl):
            acts.pop("swap", None)
            acts.pop("swapback", None)      # once a process
            if os.path.exists(me + ".orig"):
                if ctl:                     # a timed run after the one that swapped it
                    os.rename(me + ".orig", me)
            else:
                with open(me, "rb") as f:
                    text = f.read()
                os.link(me, me + ".orig")
                with open(me + ".new", "wb") as f:
                    f.write(text + b"\n# another program\n")
                os.chmod(me + ".new", 0o755)
                os.rename(me + ".new", me)
        if "crowded" in acts and o.get("together"):
            while True:
                time.sleep(1)
        if "hang" in acts:
            while True:
                burn(100)
        if "notimpl" in acts:
            open("%s/v%d.txt" % (d, v), "w").write("status not-implemented\n")
            rc = max(rc, 4)
            continue
        if "unsupported" in acts or (v == 3 and w < 2):
            open("%s/v%d.txt" % (d, v), "w").write("status unsupported\n")
            continue
        if "error" in acts:
            sys.stderr.write("fake: v%d failed: an error\n" % v)
            open("%s/v%d.txt" % (d, v), "w").write("status error\n")
            rc = max(rc, 3)
            continue
        work = 2.0 / v * (float(acts["slow"][0]) if "slow" in acts else 1.0)

        def compute(key):
            out = expected(w, h, o["seed"], v, 0 if "replay" in acts and first[0] is not None
                           else key)
            if "wrong" in acts and out:
                out = bytes([out[0] ^ 1]) + out[1:]
            return out
        first = [None]
        t0 = time.monotonic_ns()
        burn(work)
        open("%s/v%d.bin" % (d, v), "wb").write(compute(0))
        first[0] = 0
        txt += ["status ok", "type u8", "shape %d %d 1 0" % (w, h)]
        for k in range(1, o["reps"] + 1):
            if ctl:
                os.write(ctl[1], ("rep %s %d\n" % (word(o, v), k)).encode())
                line = ctl[0].readline().split()
                if len(line) != 2:
                    sys.stderr.write("fake: no key\n")
                    sys.exit(3)
                key = int(line[1], 16)
            else:
                key = rep_key(o["seed"], o["part"], v, k)
            if ctl:
                os.write(ctl[1], ("go %s %d\n" % (word(o, v), k)).encode())
            l0 = time.monotonic_ns()
            burn(work)
            if "fork" in acts and os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            l1 = time.monotonic_ns()
            if cup is not None:
                kern = [] if "nokernel" in acts else [(l0 + 1000, l0 + (3000 if "token" in acts
                                                                        else 50000))]
                for s, e in kern:
                    cup.write("K\t%d\t%d\t7\t0\t-\tfake_v%d\n" % (s, e, v))
                if "copies" in acts:
                    cup.write("C\t%d\t%d\t7\t%d\tHtoD\t-\n" % (l0 + 60000, l0 + 70000, w * h))
                l1 = max(l1, l0 + 80000)
            while time.monotonic_ns() < l1:     # the window's end has come when done is said
                pass
            if ctl:
                os.write(ctl[1], ("done %s %d\n" % (word(o, v), k)).encode())
            open("%s/v%d.r%d.bin" % (d, v, k), "wb").write(compute(key))
            kms = 0.0001 if "liar" in acts else (l1 - l0) / 1e6
            txt.append("rep %d %016x %d %d %.6f %.6f" % (k, key, l0, l1, kms, kms))
        txt.append("span %d %d" % (t0, time.monotonic_ns()))
        open("%s/v%d.txt" % (d, v), "w").write("\n".join(txt) + "\n")
    return rc


def main():
    beh, flags = behaviours()
    if "exit0" in flags:
        print("  1 naive   PASS")
        sys.exit(0)
    o = parse(sys.argv[1:])
    cup = None
    if GPU and os.environ.get("CUDA_INJECTION64_PATH") and os.environ.get("KIT_CUPTI_FD"):
        cup = os.fdopen(int(os.environ["KIT_CUPTI_FD"]), "w")
        cup.write("# kitcupti 2\n# calib 0 0\n")
    if o["cases"]:
        # each line's arguments after the command line's others, as the harness does
        args, i, rest = sys.argv[1:], 0, []
        while i < len(args):
            if args[i] == "--cases":
                i += 2
                continue
            rest.append(args[i])
            i += 1
        rc = 0
        ctl = None
        for ln in open(o["cases"]).read().splitlines():
            if ln.strip():
                sub = parse(rest + ln.split("\t"))
                sub["together"] = True
                if sub["ctl"] and ctl is None:
                    ctl = open_ctl(sub["ctl"])
                rc = max(rc, one(sub, beh, cup, ctl))
    else:
        rc = one(o, beh, cup)
    if cup is not None:
        cup.write("# calib 1000000000 1000000000\n# end\n")
        cup.close()
    sys.exit(rc)


main()
