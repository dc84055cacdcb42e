#!/usr/bin/env python3
"""cupy_peer.py - the peer of lab 04's bench: what a user would reach for
instead, CuPy's cupyx.scipy.ndimage, timed on the GPU on pictures of the same
size and type, the way the kit times its kernels (CUDA events around the call
alone, the L2 cache flushed before each one, the median of the runs).

  part rgb: correlate() of a planar 8-bit RGB picture (3 x H x W) with the
            (2R+1)^2 filter, zero outside, 8-bit output;
  part sep: correlate1d() along the rows, then along the columns, of one
            float64 plane (H x W), zero outside.

  python3 cupy_peer.py [--size WxH] [--filter NAME] [--radius R]
                       [--sep-size WxH] [--sep-radius R] [--reps N] [--out PEERS.tsv]

Appends rows to PEERS.tsv: peer, part, width, height, param, reps, median_ms,
min_ms. Without CuPy (or without a GPU) it says so in one line and exits 0,
so that `make bench` carries on.
"""
import argparse
import math
import os
import sys


def taps(name, radius):
    """The kit's filters (common/filters.h) as a 2D list of weights."""
    if name == "laplace5":
        return [[24.0 if (i, j) == (2, 2) else -1.0 for j in range(5)] for i in range(5)]
    if name == "edge3":
        return [[8.0 if (i, j) == (1, 1) else -1.0 for j in range(3)] for i in range(3)]
    if name == "sharpen3":
        return [[0.0, -1.0, 0.0], [-1.0, 5.0, -1.0], [0.0, -1.0, 0.0]]
    if name in ("gauss5", "gaussian", "box"):
        r = 2 if name == "gauss5" else radius
        one = binomial(r) if name != "box" else [1.0 / (2 * r + 1)] * (2 * r + 1)
        return [[a * b for b in one] for a in one]
    raise SystemExit("cupy_peer: unknown filter " + name)


def binomial(r):
    return [math.comb(2 * r, k) / 4.0 ** r for k in range(2 * r + 1)]


def wxh(text):
    w, h = text.lower().split("x")
    return int(w), int(h)


def timed(cp, fn, reps, flush):
    """Median and minimum ms of fn() over reps runs, after one warm-up."""
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    fn()
    times = []
    for _ in range(reps):
        flush()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    times.sort()
    return times[len(times) // 2], times[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="4992x3744")
    ap.add_argument("--filter", default="laplace5")
    ap.add_argument("--radius", type=int, default=2)
    ap.add_argument("--sep-size", default="8192x8192")
    ap.add_argument("--sep-radius", type=int, default=32)
    ap.add_argument("--reps", type=int, default=12)
    ap.add_argument("--out", default="peers.tsv")
    a = ap.parse_args()
    try:
        import cupy as cp
        from cupyx.scipy import ndimage
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # no CuPy, no driver, no device
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        print("bench: the CuPy peer is skipped (%s)" % why)
        return 0

    dev = cp.cuda.Device()
    l2 = dev.attributes.get("L2CacheSize", 50 << 20)
    scratch = cp.empty(2 * l2, dtype=cp.uint8)

    def flush():
        scratch.fill(0x3C)

    rows = []
    w, h = wxh(a.size)
    cp.random.seed(1)
    pic = cp.random.randint(0, 256, size=(3, h, w)).astype(cp.uint8)
    f = cp.asarray(taps(a.filter, a.radius), dtype=cp.float32)[None, :, :]
    out = cp.empty_like(pic)
    med, low = timed(cp, lambda: ndimage.correlate(pic, f, output=out, mode="constant", cval=0.0),
                     a.reps, flush)
    param = a.filter if a.filter in ("laplace5", "edge3", "sharpen3", "gauss5") else \
        "%s r%d" % (a.filter, a.radius)
    rows.append(("cupyx.ndimage.correlate", "rgb", w, h, param, a.reps, med, low))
    del pic, out

    w, h = wxh(a.sep_size)
    plane = cp.random.random((h, w)) * 255.0
    t = cp.asarray(binomial(a.sep_radius), dtype=cp.float64)
    tmp, res = cp.empty_like(plane), cp.empty_like(plane)

    def sep():
        ndimage.correlate1d(plane, t, axis=1, output=tmp, mode="constant", cval=0.0)
        ndimage.correlate1d(tmp, t, axis=0, output=res, mode="constant", cval=0.0)
    med, low = timed(cp, sep, a.reps, flush)
    rows.append(("cupyx.ndimage.correlate1d x2", "sep", w, h, "gaussian r%d" % a.sep_radius,
                 a.reps, med, low))

    new = not os.path.exists(a.out)
    with open(a.out, "a") as fp:
        if new:
            fp.write("peer\tpart\twidth\theight\tparam\treps\tmedian_ms\tmin_ms\n")
        for r in rows:
            fp.write("%s\t%s\t%d\t%d\t%s\t%d\t%.4f\t%.4f\n" % r)
    for r in rows:
        print("peer %-30s %-4s %dx%d %-12s median %.4f ms" % (r[0], r[1], r[2], r[3], r[4], r[6]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
