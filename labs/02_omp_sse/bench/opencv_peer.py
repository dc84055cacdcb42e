#!/usr/bin/env python3
"""The lab's outside yardstick: OpenCV's cv2.filter2D on the same problem.

Times cv2.filter2D on a float32 RGBA picture with the 5x5 Laplace filter
(every weight -1, centre 24) and a zero border, the way the lab's harness
times its variants: one warm-up, then --reps runs timed with
time.perf_counter; the fastest and the slowest are dropped, and the mean,
the sample standard deviation and the median of the rest are reported.

Appends one row in the kit's TSV columns to --results (the file gets '#'
provenance lines and the header when it is new), and prints it. Where
OpenCV (or numpy) cannot be imported it prints and writes
"# skipped: no OpenCV" and exits 0, so `make bench` goes on without it.

filter2D computes a correlation (the kernel is not flipped), which is what
the kit computes; the script checks that on a small picture with a
lopsided kernel before timing, and says so in a comment line.

Differences from the lab's variants, on OpenCV's side: its output is not
clamped to 0..255, and the picture is random 8-bit values rather than the
kit's generated scene (the time of a convolution does not depend on the
values).
"""
import argparse
import os
import platform
import statistics
import sys
import time

HEADER = ("lab\tvariant\tname\twidth\theight\tparam\treps\tkernel_ms\tkernel_ms_std\t"
          "kernel_ms_median\ttotal_ms\ttotal_ms_std\ttotal_ms_median\tgbps\tmax_abs_err\t"
          "max_rel_err\tmismatches\tstatus\tthreads\tconfig")


def say(results, line):
    """Print a line and add it to the results file."""
    print(line)
    if results:
        new = not os.path.exists(results) or os.path.getsize(results) == 0
        with open(results, "a") as fp:
            if new:
                fp.write("# kit: CUDA teaching lab kit, lab 02, OpenCV peer\n")
            fp.write(line + "\n")


def parse_size(text):
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("size must be WxH, not %r" % text)
    if w < 1 or h < 1:
        raise argparse.ArgumentTypeError("size must be WxH with positive sides")
    return w, h


def positive(text):
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return v


def host_cpu():
    try:
        with open("/proc/cpuinfo") as fp:
            for line in fp:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def stats(samples):
    """Mean, sample std and median after dropping the fastest and slowest."""
    s = sorted(samples)
    if len(s) >= 3:
        s = s[1:-1]
    mean = statistics.fmean(s)
    std = statistics.stdev(s) if len(s) > 1 else 0.0
    return mean, std, statistics.median(s)


def correlation_check(cv2, np):
    """True when filter2D with BORDER_CONSTANT equals the direct sum
    dst(x,y) = sum_ij k[i][j] * src(x+j-R, y+i-R), zero outside."""
    rng = np.random.default_rng(7)
    src = rng.integers(0, 256, size=(5, 7, 4)).astype(np.float32)
    k = np.array([[1, 2, 0], [0, 0, 0], [0, 0, -3]], dtype=np.float32)  # lopsided
    got = cv2.filter2D(src, -1, k, borderType=cv2.BORDER_CONSTANT)
    pad = np.zeros((7, 9, 4), dtype=np.float64)
    pad[1:6, 1:8] = src
    want = np.zeros((5, 7, 4))
    for i in range(3):
        for j in range(3):
            want += k[i, j] * pad[i:i + 5, j:j + 7]
    return bool(np.array_equal(got.astype(np.float64), want))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=parse_size, default=(4992, 3744), help="WxH (default 4992x3744)")
    ap.add_argument("--reps", type=positive, default=12, help="timed runs (default 12)")
    ap.add_argument("--threads", type=positive, default=os.cpu_count() or 1,
                    help="cv2.setNumThreads (default: every core)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--results", help="append the row to this TSV file")
    args = ap.parse_args()

    try:
        import numpy as np
        import cv2
    except ImportError as e:
        say(args.results, "# skipped: no OpenCV (%s)" % e)
        return 0

    w, h = args.size
    cv2.setNumThreads(args.threads)
    corr = correlation_check(cv2, np)
    rng = np.random.default_rng(args.seed)
    src = rng.integers(0, 256, size=(h, w, 4)).astype(np.float32)
    kernel = -np.ones((5, 5), dtype=np.float32)
    kernel[2, 2] = 24.0

    dst = cv2.filter2D(src, -1, kernel, borderType=cv2.BORDER_CONSTANT)  # warm-up
    times = []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        dst = cv2.filter2D(src, -1, kernel, borderType=cv2.BORDER_CONSTANT)
        times.append((time.perf_counter() - t0) * 1e3)
    del dst
    mean, std, median = stats(times)
    # the same byte count as the lab: padded input read once, output written once
    moved = ((w + 4) * (h + 4) + w * h) * 4 * 4
    gbps = moved / (median * 1e6)

    if args.results and (not os.path.exists(args.results) or os.path.getsize(args.results) == 0):
        say(args.results, "# date: %s" % time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        say(args.results, "# host: %s, %s, %d cores" % (platform.node(), host_cpu(), os.cpu_count() or 0))
        say(args.results, HEADER)
    say(args.results, "# opencv %s, numpy %s, python %s; filter2D is a correlation with zero border: %s"
        % (cv2.__version__, np.__version__, platform.python_version(),
           "checked" if corr else "NO (results differ from the direct sum)"))
    cfg = "cv2=%s threads=%d used=%d" % (cv2.__version__, args.threads, cv2.getNumThreads())
    row = ["02", "peer", "opencv-filter2D", str(w), str(h), "laplace5", str(args.reps),
           "%.6g" % mean, "%.6g" % std, "%.6g" % median, "%.6g" % mean, "%.6g" % std,
           "%.6g" % median, "%.6g" % gbps, "nan", "nan", "-1", "peer", str(args.threads), cfg]
    say(args.results, "\t".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
