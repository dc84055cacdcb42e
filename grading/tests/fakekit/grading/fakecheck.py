#!/usr/bin/env -S python3 -S
"""The fake labs' checker (check-99, check-98, check-97): describe and compare as DESIGN.md's
checker, with the outputs the fake harness makes (common/fakeharness.py). Lab 97 is lab 98 in
two parts, a and b, whose variant numbers repeat (1..3 each)."""
import hashlib
import json
import os
import sys

ME = os.path.basename(sys.argv[0])
GPU = ME in ("check-98", "check-97")
PARTS = ["a", "b"] if ME == "check-97" else [""]


def expected(w, h, seed, v, key):
    n = w * h
    out, i = b"", 0
    while len(out) < n:
        out += hashlib.sha256(("%d|%d|%d|%d|%d" % (w, h, seed, v, key + i)).encode()).digest()
        i += 1 << 32
    return out[:n]


def case(args):
    w, h, seed = 4, 4, 1
    i = 0
    while i < len(args):
        if args[i] == "--size":
            w, h = (int(x) for x in args[i + 1].split("x"))
        elif args[i] == "--seed":
            seed = int(args[i + 1])
        elif args[i] not in ("--threads",):
            sys.stderr.write("check: unknown option %s\n" % args[i])
            sys.exit(2)
        i += 2
    if w < 1 or h < 1:
        sys.stderr.write("check: bad size\n")
        sys.exit(2)
    return w, h, seed


def variants():
    return [{"v": v, "name": "fake%d" % v, "span": "kernel" if GPU else "host",
             "ceiling": "device-copy" if GPU else "host-mem", "min_launches": 1 if GPU else 0,
             "given": False} for v in (1, 2, 3)]


def main(argv):
    if argv[:1] == ["describe"]:
        d = {"lab": ME[-2:], "title": "fake", "gpu": GPU,
             "parts": [{"name": p, "first_variant": 1, "variants": variants()} for p in PARTS]}
        if len(argv) > 1:
            if len(argv) < 4 or argv[1] != "--part" or argv[2] not in PARTS or argv[3] != "--":
                sys.stderr.write("usage: describe [--part P] [-- ARGS...]\n")
                return 2
            w, h, seed = case(argv[4:])
            vs = []
            for v in (1, 2, 3):
                if v == 3 and w < 2:
                    vs.append({"v": v, "supported": False, "why": "too narrow for v3"})
                else:
                    vs.append({"v": v, "supported": True, "type": "u8", "w": w, "h": h,
                               "c": 1, "planar": 0, "atol": 0, "rtol": 0, "bytes": 2 * w * h})
            d["case"] = {"part": argv[2], "variants": vs}
        print(json.dumps(d))
        return 0
    if argv[:1] == ["compare"]:
        o, i = {}, 1
        while argv[i] != "--":
            o[argv[i]] = argv[i + 1]
            i += 2
        w, h, seed = case(argv[i + 1:])
        got = sys.stdin.buffer.read()
        want = expected(w, h, seed, int(o["--variant"]), int(o.get("--key", "0"), 16))
        if len(got) != len(want):
            print("bad the output has %d bytes, expected %d" % (len(got), len(want)))
            return 1
        bad = [j for j in range(len(want)) if got[j] != want[j]]
        if not bad:
            print("pass")
            return 0
        print("fail %d %d 1 1" % (len(bad), len(want)))
        print("  %d of %d elements wrong" % (len(bad), len(want)))
        print("   first 1:       x      y   ch       expected            got")
        j = bad[0]
        print("  %15d %6d %4d %14d %14d" % (j % w, j // w, 0, want[j], got[j]))
        if "--diff" in o:
            open(o["--diff"], "wb").write(b"\x89PNG\r\n\x1a\nfake")
        return 1
    sys.stderr.write("usage: check describe|compare\n")
    return 2


sys.exit(main(sys.argv[1:]))
