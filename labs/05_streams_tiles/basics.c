/* basics.c - lab 05's glue for its first two parts (main.c has the others;
 * the kit's, not the student's):
 *  - device: the harness reads the GPU's attributes itself, hands the
 *    student's device_v1() a poisoned device_info, and writes as the output
 *    the student's reading minus its own (the peak as a relative
 *    difference), so that the checker, which has no GPU, expects zeros.
 *    After the runs it prints both readings side by side, and the measured
 *    device-to-device copy ceiling against the peak; --facts writes those
 *    memory figures as a table for the handout.
 *  - copies: the device buffer is the harness's; the host buffers are the
 *    variant's own (copies_vN_alloc before its first run, outside any timing,
 *    and copies_vN_free after its last), checked to be pageable for v1 and
 *    page-locked for v2. Each run times one copy: with --dir h2d the launch
 *    is the student's host-to-device copy and the harness copies the bytes
 *    back; with --dir d2h the harness sends them first and the launch is the
 *    student's device-to-host copy. h_dst and d_buf are poisoned before every
 *    run, h_src gets the run's content.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "harness.h"
#include "harness05.h"
#include "lab05.h"

/* ------------------------------------------------------------- part device */

typedef struct {
    device_info mine;  /* the harness's reading */
    device_info got;   /* the student's last reading */
    int runs_ok;
} device_state;

/* The harness's own reading of GPU dev. */
static int device_read(int dev, device_info *d)
{
    memset(d, 0, sizeof *d);
    d->device = dev;
    static const struct {
        enum cudaDeviceAttr a;
        size_t off;
    } attrs[] = {
        {cudaDevAttrComputeCapabilityMajor, offsetof(device_info, major)},
        {cudaDevAttrComputeCapabilityMinor, offsetof(device_info, minor)},
        {cudaDevAttrMultiProcessorCount, offsetof(device_info, sms)},
        {cudaDevAttrWarpSize, offsetof(device_info, warp_size)},
        {cudaDevAttrMaxThreadsPerBlock, offsetof(device_info, max_threads_per_block)},
        {cudaDevAttrMaxSharedMemoryPerBlock, offsetof(device_info, smem_per_block)},
        {cudaDevAttrMaxRegistersPerBlock, offsetof(device_info, regs_per_block)},
        {cudaDevAttrMemoryClockRate, offsetof(device_info, mem_clock_khz)},
        {cudaDevAttrGlobalMemoryBusWidth, offsetof(device_info, bus_width_bits)},
        {cudaDevAttrAsyncEngineCount, offsetof(device_info, copy_engines)},
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        CUDA_CHECK(cudaDeviceGetAttribute((int *)((char *)d + attrs[i].off), attrs[i].a, dev));
    d->peak_gbps = 2.0 * (double)d->mem_clock_khz * 1e3 * ((double)d->bus_width_bits / 8.0) / 1e9;
    return KIT_OK;
}

/* The fields of d as doubles, in the output's order. */
static void device_fields(const device_info *d, double *f)
{
    const int ints[] = {d->major, d->minor, d->sms, d->warp_size, d->max_threads_per_block,
                        d->smem_per_block, d->regs_per_block, d->mem_clock_khz,
                        d->bus_width_bits, d->copy_engines};
    for (int i = 0; i < DEVICE_PEAK; i++)
        f[i] = ints[i];
    f[DEVICE_PEAK] = d->peak_gbps;
}

int lab05_device_setup(kit_ctx *ctx)
{
    device_state *S = kit_calloc(1, sizeof *S);
    ctx->user = S;
    return device_read(ctx->opt.device, &S->mine) == KIT_OK ? 0 : KIT_EXIT_RUNTIME;
}

int lab05_device_prepare(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    device_state *S = ctx->user;
    memset(&S->got, 0xFF, sizeof S->got); /* every int -1, the peak NaN */
    S->got.device = ctx->opt.device;
    return KIT_OK;
}

int lab05_device_launch(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    device_state *S = ctx->user;
    int r = device_v1(&S->got);
    if (r == KIT_OK)
        S->runs_ok++;
    return r;
}

int lab05_device_download(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    device_state *S = ctx->user;
    double got[DEVICE_FIELDS], mine[DEVICE_FIELDS];
    double *out = ctx->out.data;
    device_fields(&S->got, got);
    device_fields(&S->mine, mine);
    for (int i = 0; i < DEVICE_PEAK; i++)
        out[i] = got[i] - mine[i];
    out[DEVICE_PEAK] = mine[DEVICE_PEAK] > 0 ? (got[DEVICE_PEAK] - mine[DEVICE_PEAK]) / mine[DEVICE_PEAK]
                                             : got[DEVICE_PEAK] - mine[DEVICE_PEAK];
    return KIT_OK;
}

void lab05_device_config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    KIT_UNUSED(v);
    snprintf(buf, len, "device=%d", ctx->opt.device);
}

/* The device-to-device copy ceiling (GB/s, read + written), or -1. */
static double device_ceiling(void)
{
    size_t freeb = 0, total = 0, bytes = (size_t)256 << 20;
    if (cudaMemGetInfo(&freeb, &total) != cudaSuccess || freeb <= 4 * bytes) {
        cudaGetLastError();
        return -1.0;
    }
    return kit_gpu_copy_ceiling(bytes, 15);
}

/* --facts PATH: the GPU's figures, one quantity a line: the compute side the
 * course guide's device query lists, then the memory's. */
static int device_facts(const char *path, const device_info *d, double ceiling)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        kit_error("--facts %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(fp, "quantity\tvalue\n");
    fprintf(fp, "compute capability\t%d.%d (sm_%d%d)\n", d->major, d->minor, d->major, d->minor);
    fprintf(fp, "multiprocessors\t%d\n", d->sms);
    fprintf(fp, "warp size (threads)\t%d\n", d->warp_size);
    fprintf(fp, "threads per block, at most\t%d\n", d->max_threads_per_block);
    fprintf(fp, "shared memory per block (KiB)\t%d\n", d->smem_per_block / 1024);
    fprintf(fp, "registers per block\t%d\n", d->regs_per_block);
    fprintf(fp, "copy engines\t%d\n", d->copy_engines);
    fprintf(fp, "memory clock (MHz)\t%.0f\n", d->mem_clock_khz / 1e3);
    fprintf(fp, "memory bus (bits)\t%d\n", d->bus_width_bits);
    fprintf(fp, "peak memory bandwidth, 2 x clock x bus (GB/s)\t%.1f\n", d->peak_gbps);
    if (ceiling > 0) {
        fprintf(fp, "device-to-device copy, read + written (GB/s)\t%.1f\n", ceiling);
        fprintf(fp, "copy / peak (%%)\t%.1f\n", 100.0 * ceiling / d->peak_gbps);
    }
    if (fclose(fp)) {
        kit_error("--facts %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

void lab05_device_teardown(kit_ctx *ctx)
{
    device_state *S = ctx->user;
    if (!S)
        return;
    const char *facts = kit_arg_str(&ctx->args, "--facts");
    const int show = S->runs_ok > 0 && !ctx->opt.quiet && !ctx->opt.dump_dir;
    const double ceiling = show || facts[0] ? device_ceiling() : -1.0;
    if (show) {
        double got[DEVICE_FIELDS], mine[DEVICE_FIELDS];
        device_fields(&S->got, got);
        device_fields(&S->mine, mine);
        printf("      %-32s %14s %14s\n", "attribute", "yours", "the GPU's");
        for (int i = 0; i < DEVICE_FIELDS; i++) {
            const int ok = i == DEVICE_PEAK ? fabs(got[i] - mine[i]) <= 1e-6 * mine[i]
                                            : got[i] == mine[i];
            printf("      %-32s %14.*f %14.*f%s\n", device_field_names[i], i == DEVICE_PEAK ? 1 : 0,
                   got[i], i == DEVICE_PEAK ? 1 : 0, mine[i], ok ? "" : "   <- differs");
        }
        if (ceiling > 0)
            printf("      device-to-device copy %.1f GB/s (read + written): %.1f%% of the peak\n",
                   ceiling, 100.0 * ceiling / S->mine.peak_gbps);
        fflush(stdout);
    }
    if (facts[0])
        device_facts(facts, &S->mine, ceiling);
    free(S);
    ctx->user = NULL;
}


/* ------------------------------------------------------------- part copies */

typedef struct {
    copies_job job;
    int cur_v;   /* the variant whose host buffers job holds; 0: none */
    int dir;     /* COPY_H2D or COPY_D2H */
} copies_state;

static int copies_alloc(int v, copies_job *j)
{
    return v == 1 ? copies_v1_alloc(j) : copies_v2_alloc(j);
}

/* The current variant's host buffers back to it. */
static int copies_release_buffers(copies_state *S)
{
    int r = KIT_OK;
    if (S->cur_v)
        r = S->cur_v == 1 ? copies_v1_free(&S->job) : copies_v2_free(&S->job);
    S->cur_v = 0;
    S->job.h_src = S->job.h_dst = NULL;
    return r;
}

/* 1 when p is page-locked host memory, 0 when pageable, -1 on an error. */
static int page_locked(const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return a.type == cudaMemoryTypeHost;
}

/* The device buffer could not be had: one line, exit 3. */
static int gpu_none(size_t bytes)
{
    kit_error("cannot allocate %zu bytes of device memory for the copies: %s", bytes,
              cudaGetErrorString(cudaGetLastError()));
    return KIT_EXIT_RUNTIME;
}

int lab05_copies_setup(kit_ctx *ctx)
{
    copies_state *S = kit_calloc(1, sizeof *S);
    ctx->user = S;
    const copies_data *d = ctx->prob.data;
    S->job.bytes = d->bytes;
    S->dir = strcmp(kit_arg_str(&ctx->args, "--dir"), "d2h") ? COPY_H2D : COPY_D2H;
    return cudaMalloc((void **)&S->job.d_buf, d->bytes) == cudaSuccess ? 0 : gpu_none(d->bytes);
}

int lab05_copies_prepare(kit_ctx *ctx, int v)
{
    copies_state *S = ctx->user;
    const copies_data *d = ctx->prob.data;
    if (v != S->cur_v) {
        int r = copies_release_buffers(S);
        if (r != KIT_OK)
            return r;
        if ((r = copies_alloc(v, &S->job)) != KIT_OK)
            return r;
        S->cur_v = v;
        if (!S->job.h_src || !S->job.h_dst) {
            kit_error("copies v%d's alloc returned without h_src and h_dst", v);
            return KIT_RUNTIME_ERROR;
        }
        const int a = page_locked(S->job.h_src), b = page_locked(S->job.h_dst);
        if (a < 0 || b < 0) {
            kit_error("copies v%d: cannot tell what memory h_src and h_dst are", v);
            return KIT_RUNTIME_ERROR;
        }
        if (v == 1 && (a || b)) {
            kit_error("copies v1 is the pageable baseline: allocate its host buffers with malloc, "
                      "not page-locked");
            return KIT_RUNTIME_ERROR;
        }
        if (v == 2 && !(a && b)) {
            kit_error("copies v2's host buffers are pageable: allocate them page-locked "
                      "(cudaMallocHost or cudaHostAlloc)");
            return KIT_RUNTIME_ERROR;
        }
    }
    const unsigned char poison = kit_poison_byte(ctx);
    memcpy(S->job.h_src, d->px, d->bytes);
    memset(S->job.h_dst, poison, d->bytes);
    CUDA_CHECK(cudaMemset(S->job.d_buf, poison, d->bytes));
    return KIT_OK;
}

int lab05_copies_upload(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    copies_state *S = ctx->user;
    if (S->dir == COPY_D2H)
        CUDA_CHECK(cudaMemcpy(S->job.d_buf, S->job.h_src, S->job.bytes, cudaMemcpyHostToDevice));
    return KIT_OK;
}

int lab05_copies_launch(kit_ctx *ctx, int v)
{
    copies_state *S = ctx->user;
    return v == 1 ? copies_v1(&S->job, S->dir) : copies_v2(&S->job, S->dir);
}

int lab05_copies_download(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    copies_state *S = ctx->user;
    if (S->dir == COPY_H2D)
        CUDA_CHECK(cudaMemcpy(ctx->out.data, S->job.d_buf, S->job.bytes, cudaMemcpyDeviceToHost));
    else
        memcpy(ctx->out.data, S->job.h_dst, S->job.bytes);
    return KIT_OK;
}

void lab05_copies_config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    copies_state *S = ctx->user;
    snprintf(buf, len, "dir=%s pinned=%d", S->dir == COPY_H2D ? "h2d" : "d2h", v == 2);
}

void lab05_copies_teardown(kit_ctx *ctx)
{
    copies_state *S = ctx->user;
    if (!S)
        return;
    copies_release_buffers(S);
    cudaFree(S->job.d_buf);
    free(S);
    ctx->user = NULL;
}
