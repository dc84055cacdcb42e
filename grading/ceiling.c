/* grading/ceiling.c - the copy ceilings the grader bounds timed runs with, measured once per
 * grading on the machine that grades (build/ceiling-host and build/ceiling-gpu).
 *
 *   build/ceiling-host          host memory: memcpy over every core, bytes read + written
 *   CUDA_VISIBLE_DEVICES=N build/ceiling-gpu
 *                               device-to-device copy (bytes read + written), pinned
 *                               host<->device copies one way and both ways at once
 *
 * One line per ceiling, "NAME GB/s" (the best of several rounds: a ceiling is what the
 * machine can do, and a time below bytes / ceiling is not possible). A variant's bytes
 * (spec.h, bytes()) count each input read once and each output written once, as here.
 * Exit 0; 1 when there is nothing to measure (no device).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE         /* madvise */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef KIT_CEILING_GPU
#include <cuda.h>

#define MB ((size_t)1 << 20)

static int ok(CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS)
        return 1;
    const char *s = NULL;
    if (cuGetErrorString(r, &s) != CUDA_SUCCESS || s == NULL)
        s = "unknown CUDA error";
    fprintf(stderr, "ceiling-gpu: %s: %s\n", what, s);
    return 0;
}

/* The best GB/s of ROUNDS rounds of one copy (or two at once), timed with events. */
static double rate(CUstream s1, CUstream s2, CUevent e0, CUevent e1, int kind, CUdeviceptr d1,
                   CUdeviceptr d2, void *h1, void *h2, size_t bytes, double factor)
{
    double best = 0.0;
    for (int round = 0; round < 6; round++) {
        CUresult r = cuEventRecord(e0, s1);
        if (kind == 0)
            r = r ? r : cuMemcpyDtoDAsync(d2, d1, bytes, s1);
        else if (kind == 1)
            r = r ? r : cuMemcpyHtoDAsync(d1, h1, bytes, s1);
        else if (kind == 2)
            r = r ? r : cuMemcpyDtoHAsync(h1, d1, bytes, s1);
        else { /* both ways at once, on two streams; s1 waits for s2 before the end event */
            CUevent mid;
            r = r ? r : cuEventCreate(&mid, CU_EVENT_DEFAULT);
            r = r ? r : cuStreamWaitEvent(s2, e0, 0);
            r = r ? r : cuMemcpyHtoDAsync(d1, h1, bytes, s1);
            r = r ? r : cuMemcpyDtoHAsync(h2, d2, bytes, s2);
            r = r ? r : cuEventRecord(mid, s2);
            r = r ? r : cuStreamWaitEvent(s1, mid, 0);
            if (r == CUDA_SUCCESS)
                (void)cuEventSynchronize(mid);
            (void)cuEventDestroy(mid);
        }
        r = r ? r : cuEventRecord(e1, s1);
        r = r ? r : cuEventSynchronize(e1);
        float ms = 0.0f;
        r = r ? r : cuEventElapsedTime(&ms, e0, e1);
        if (!ok(r, "a timed copy"))
            return 0.0;
        if (round > 0 && ms > 0.0f) { /* the first round warms up */
            double g = factor * (double)bytes / (ms * 1e6);
            if (g > best)
                best = g;
        }
    }
    return best;
}

int main(void)
{
    const size_t bytes = 256 * MB;
    CUdevice dev;
    CUcontext ctx;
    if (!ok(cuInit(0), "cuInit") || !ok(cuDeviceGet(&dev, 0), "no device") ||
        !ok(cuDevicePrimaryCtxRetain(&ctx, dev), "context") || !ok(cuCtxSetCurrent(ctx), "context"))
        return 1;
    CUdeviceptr d1, d2;
    void *h1, *h2;
    CUstream s1, s2;
    CUevent e0, e1;
    if (!ok(cuMemAlloc(&d1, bytes), "device memory") || !ok(cuMemAlloc(&d2, bytes), "device memory") ||
        !ok(cuMemHostAlloc(&h1, bytes, 0), "pinned memory") ||
        !ok(cuMemHostAlloc(&h2, bytes, 0), "pinned memory") ||
        !ok(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING), "stream") ||
        !ok(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING), "stream") ||
        !ok(cuEventCreate(&e0, CU_EVENT_DEFAULT), "event") ||
        !ok(cuEventCreate(&e1, CU_EVENT_DEFAULT), "event"))
        return 1;
    memset(h1, 1, bytes);
    memset(h2, 2, bytes);
    const double dd = rate(s1, s2, e0, e1, 0, d1, d2, h1, h2, bytes, 2.0);
    const double htod = rate(s1, s2, e0, e1, 1, d1, d2, h1, h2, bytes, 1.0);
    const double dtoh = rate(s1, s2, e0, e1, 2, d1, d2, h1, h2, bytes, 1.0);
    const double both = rate(s1, s2, e0, e1, 3, d1, d2, h1, h2, bytes, 2.0);
    const double one = htod > dtoh ? htod : dtoh;
    printf("device-copy %.1f\n", dd);
    printf("pcie-one-way %.1f\n", one);
    printf("pcie %.1f\n", both > one ? both : one);
    cuMemFreeHost(h1);
    cuMemFreeHost(h2);
    cuMemFree(d1);
    cuMemFree(d2);
    cuDevicePrimaryCtxRelease(dev);
    return dd > 0.0 ? 0 : 1;
}

#else /* the host's memory */
#include <sys/mman.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 2 x 128 MiB: past any one socket's last-level cache, on huge pages where the kernel
 * gives them (touching 512 MiB of small pages cost more CPU than the copies: the grader
 * measures this once per grading) */
int main(void)
{
    const size_t bytes = (size_t)128 << 20;
    char *a = aligned_alloc((size_t)2 << 20, bytes), *b = aligned_alloc((size_t)2 << 20, bytes);
    if (!a || !b) {
        fprintf(stderr, "ceiling-host: out of memory\n");
        return 1;
    }
    madvise(a, bytes, MADV_HUGEPAGE);       /* advice only: small pages where refused */
    madvise(b, bytes, MADV_HUGEPAGE);
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    double best = 0.0;
    for (int round = 0; round < 4; round++) {
        const double t0 = now_s();
#pragma omp parallel
        {
#ifdef _OPENMP
            extern int omp_get_thread_num(void);
            extern int omp_get_num_threads(void);
            const size_t n = (size_t)omp_get_num_threads(), i = (size_t)omp_get_thread_num();
#else
            const size_t n = 1, i = 0;
#endif
            const size_t chunk = (bytes / n + 63) & ~(size_t)63;
            const size_t lo = i * chunk, hi = lo + chunk < bytes ? lo + chunk : bytes;
            if (lo < hi)
                memcpy(b + lo, a + lo, hi - lo);
        }
        const double t = now_s() - t0;
        if (round > 0 && t > 0.0 && 2.0 * (double)bytes / t / 1e9 > best)
            best = 2.0 * (double)bytes / t / 1e9;
    }
    printf("host-mem %.1f\n", best);
    printf("check %d\n", b[bytes / 2] + b[bytes - 1]);
    free(a);
    free(b);
    return 0;
}
#endif
