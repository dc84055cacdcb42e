/* gpu.cu - CUDA helpers shared by every GPU lab (see gpu.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gpu.h"
#include "ctx.h"
#include "timing.h"

extern "C" {

int kit_gpu_sync_launches = 0;

void kit_cuda_report(cudaError_t e, const char *what, const char *file, int line)
{
    fprintf(stderr, "%s: %s:%d: %s failed: %s (%s)\n", kit_prog, file, line, what,
            cudaGetErrorString(e), cudaGetErrorName(e));
}

/* One plain line for a machine that cannot run CUDA code: no NVIDIA driver
 * (the usual case on a laptop or a CI machine: the runtime then says the
 * driver is "insufficient", which reads as advice to upgrade it), no GPU,
 * or a driver older than this program's CUDA. */
static int no_device(cudaError_t e)
{
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    if (drv == 0)
        fprintf(stderr, "%s: no CUDA device: this machine has no NVIDIA driver (skipped)\n",
                kit_prog);
    else if (e == cudaErrorInsufficientDriver && drv < rt)
        fprintf(stderr,
                "%s: no usable CUDA device: the NVIDIA driver here runs CUDA %d.%d programs, "
                "this one is built with CUDA %d.%d (skipped)\n",
                kit_prog, drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
    else if (e == cudaSuccess || e == cudaErrorNoDevice)
        fprintf(stderr, "%s: no CUDA device: the NVIDIA driver finds no GPU here (skipped)\n",
                kit_prog);
    else
        fprintf(stderr, "%s: no usable CUDA device: %s (skipped)\n", kit_prog,
                cudaGetErrorString(e));
    return KIT_EXIT_NODEVICE;
}

int kit_gpu_init(int device)
{
    const char *sync = getenv("KIT_SYNC_CHECK");
    kit_gpu_sync_launches = sync && sync[0] == '1';
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0)
        return no_device(e);
    if (device < 0 || device >= n) {
        fprintf(stderr, "%s: --device %d: this machine has %d CUDA device%s (0..%d)\n", kit_prog,
                device, n, n == 1 ? "" : "s", n - 1);
        return KIT_EXIT_USAGE;
    }
    e = cudaSetDevice(device);
    /* KIT_GPU_WAIT=block: a wait for the GPU sleeps instead of spinning (the grader's
     * correctness runs, several processes on one GPU: spinning ones took the cores
     * that builds and checks needed while the GPU served the others) */
    const char *wait = getenv("KIT_GPU_WAIT");
    if (e == cudaSuccess && wait && !strcmp(wait, "block"))
        e = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    if (e == cudaSuccess)
        e = cudaFree(0); /* create the context now, outside any timing */
    if (e != cudaSuccess) {
        if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
            return no_device(e);
        kit_cuda_report(e, "cudaSetDevice", __FILE__, __LINE__);
        return KIT_EXIT_RUNTIME;
    }
    return 0;
}

void kit_gpu_lines(FILE *fp)
{
    int dev = 0, drv = 0, rt = 0;
    cudaDeviceProp p;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
        fprintf(fp, "# gpu: unknown\n");
        return;
    }
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    fprintf(fp, "# gpu: %s, compute capability %d.%d, %d SMs, %.1f GiB, L2 %d KiB\n", p.name,
            p.major, p.minor, p.multiProcessorCount, (double)p.totalGlobalMem / (1 << 30),
            p.l2CacheSize / 1024);
    fprintf(fp, "# cuda: driver API %d.%d, runtime %d.%d, device %d\n", drv / 1000,
            (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10, dev);
    /* the ceiling every GB/s figure of this file is compared with (the
     * grader, which needs none, sets KIT_COPY_CEILING=0 to save the time) */
    const char *want = getenv("KIT_COPY_CEILING");
    if (want && want[0] == '0')
        return;
    size_t freeb = 0, total = 0;
    size_t bytes = (size_t)256 << 20;
    if (cudaMemGetInfo(&freeb, &total) == cudaSuccess && freeb > 4 * bytes) {
        double gbps = kit_gpu_copy_ceiling(bytes, 15);
        if (gbps > 0)
            fprintf(fp, "# copy ceiling: %.1f GB/s (device-to-device copy of 256 MiB, read + "
                        "written, median of 15)\n", gbps);
    }
}

int kit_gpu_require_bytes(size_t bytes)
{
    size_t freeb = 0, total = 0;
    cudaError_t e = cudaMemGetInfo(&freeb, &total);
    if (e != cudaSuccess) {
        kit_cuda_report(e, "cudaMemGetInfo", __FILE__, __LINE__);
        return KIT_EXIT_RUNTIME;
    }
    if (bytes > freeb) {
        fprintf(stderr, "%s: this input needs %.1f MiB of GPU memory but only %.1f MiB are free\n",
                kit_prog, (double)bytes / (1 << 20), (double)freeb / (1 << 20));
        return KIT_EXIT_USAGE;
    }
    return 0;
}

int kit_gpu_timer_create(kit_gpu_timer *t)
{
    CUDA_CHECK(cudaEventCreate(&t->start));
    CUDA_CHECK(cudaEventCreate(&t->stop));
    return KIT_OK;
}

int kit_gpu_timer_start(kit_gpu_timer *t)
{
    CUDA_CHECK(cudaEventRecord(t->start, 0));
    return KIT_OK;
}

int kit_gpu_timer_stop(kit_gpu_timer *t, double *ms)
{
    float f = 0.0f;
    CUDA_CHECK(cudaEventRecord(t->stop, 0));
    CUDA_CHECK(cudaEventSynchronize(t->stop));
    CUDA_CHECK(cudaEventElapsedTime(&f, t->start, t->stop));
    *ms = f;
    return KIT_OK;
}

void kit_gpu_timer_destroy(kit_gpu_timer *t)
{
    cudaEventDestroy(t->start);
    cudaEventDestroy(t->stop);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double kit_gpu_copy_ceiling(size_t bytes, int reps)
{
    void *d_a = NULL, *d_b = NULL;
    kit_gpu_timer t;
    double *ms = (double *)kit_malloc((size_t)reps * sizeof(double));
    double gbps = -1.0;
    if (cudaMalloc(&d_a, bytes) != cudaSuccess || cudaMalloc(&d_b, bytes) != cudaSuccess ||
        cudaMemset(d_a, 1, bytes) != cudaSuccess || kit_gpu_timer_create(&t) != KIT_OK)
        goto out;
    if (cudaMemcpy(d_b, d_a, bytes, cudaMemcpyDeviceToDevice) != cudaSuccess) /* warm-up */
        goto out_t;
    for (int i = 0; i < reps; i++) {
        if (kit_gpu_timer_start(&t) != KIT_OK ||
            cudaMemcpy(d_b, d_a, bytes, cudaMemcpyDeviceToDevice) != cudaSuccess ||
            kit_gpu_timer_stop(&t, &ms[i]) != KIT_OK)
            goto out_t;
    }
    qsort(ms, (size_t)reps, sizeof(double), cmp_d);
    gbps = 2.0 * (double)bytes / (ms[reps / 2] * 1e6);
out_t:
    kit_gpu_timer_destroy(&t);
out:
    cudaFree(d_a);
    cudaFree(d_b);
    free(ms);
    return gbps;
}

void *kit_host_alloc(size_t bytes, int pinned)
{
    void *p = NULL;
    if (pinned) {
        if (cudaMallocHost(&p, bytes ? bytes : 1) != cudaSuccess)
            kit_die(KIT_EXIT_RUNTIME, "cannot allocate %zu bytes of pinned host memory", bytes);
        return p;
    }
    return kit_malloc(bytes);
}

void kit_host_free(void *p, int pinned)
{
    if (!p)
        return;
    if (pinned)
        cudaFreeHost(p);
    else
        free(p);
}

void *kit_pinned_host_alloc(kit_ctx *ctx, size_t bytes)
{
    return kit_host_alloc(bytes, kit_arg_given(&ctx->args, "--pinned"));
}

void kit_pinned_host_free(kit_ctx *ctx, void *p)
{
    kit_host_free(p, kit_arg_given(&ctx->args, "--pinned"));
}


/* ------------------------------------------------- the timing protocol */
/* The GPU side of protocol.c: eight events on the legacy default stream and
 * an L2 flush (a buffer of twice the L2's size written once), so that a
 * timed kernel does not find its input warm in the cache. */

#define KIT_NEVENTS 8
static cudaEvent_t proto_ev[KIT_NEVENTS];
static int proto_ready = 0;
static void *proto_flush = NULL;
static size_t proto_flush_bytes = 0;

/* The events and the flush buffer live as long as the process: the cases of
 * --cases (one per variant in a grader's timed run) share them. */
static void proto_release(void)
{
    if (proto_ready)
        for (int i = 0; i < KIT_NEVENTS; i++)
            cudaEventDestroy(proto_ev[i]);
    proto_ready = 0;
    cudaFree(proto_flush);
    proto_flush = NULL;
}

static int proto_init(int device)
{
    static int proto_device = -1, at_exit = 0;
    int rc = kit_gpu_init(device);
    if (rc)
        return rc;
    if (proto_ready && device == proto_device)
        return 0;
    proto_release(); /* another --device in this --cases file: its own events and buffer */
    proto_device = device;
    if (!at_exit) {
        atexit(proto_release);
        at_exit = 1;
    }
    for (int i = 0; i < KIT_NEVENTS; i++)
        if (cudaEventCreate(&proto_ev[i]) != cudaSuccess) {
            fprintf(stderr, "%s: cannot create CUDA events\n", kit_prog);
            return KIT_EXIT_RUNTIME;
        }
    proto_ready = 1;
    return 0;
}

static int proto_mark(int slot)
{
    CUDA_CHECK(cudaEventRecord(proto_ev[slot], 0));
    return KIT_OK;
}

/* The event, then every stream: a variant's work on a non-blocking stream does
 * not join the legacy stream the events are on, and a launch window must hold
 * all of it (the grader gives the GPU records in [l0, l1] to the repetition,
 * and anything after l1 to the kit's download). */
static int proto_wait(int slot)
{
    CUDA_CHECK(cudaEventSynchronize(proto_ev[slot]));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaGetLastError());
    return KIT_OK;
}

static int proto_elapsed(int a, int b, double *ms)
{
    float f = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&f, proto_ev[a], proto_ev[b]));
    *ms = f;
    return KIT_OK;
}

static int proto_flush_l2(void)
{
    if (!proto_flush) {
        int dev = 0, l2 = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        proto_flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : (4 << 20));
        CUDA_CHECK(cudaMalloc(&proto_flush, proto_flush_bytes));
    }
    /* lines a launcher marked as persisting would survive the memset: reset them */
    CUDA_CHECK(cudaCtxResetPersistingL2Cache());
    CUDA_CHECK(cudaMemsetAsync(proto_flush, 0x3C, proto_flush_bytes, 0));
    return KIT_OK;
}

/* After a kernel fault the context is lost for good: every later CUDA call
 * fails. --cases stops there, so the grader runs the rest in new processes
 * instead of charging that fault to the variants that come after it. */
static int proto_healthy(void)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaGetLastError();
    return e == cudaSuccess;
}

/* no shutdown: the next case of the process uses what a case made (proto_release) */
const kit_gpu_ops kit_gpu_protocol = {proto_init,    proto_mark,     proto_wait,
                                      proto_elapsed, proto_flush_l2, kit_gpu_lines,
                                      NULL,          proto_healthy};

} /* extern "C" */
