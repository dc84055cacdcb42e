/* main.c - lab 07's glue (owned by the kit; students edit sum.cu, soa.cu and
 * transpose.cu): for each part, the memory its variants work in, the
 * content of each run written there, the calls of the student's launchers
 * and the result brought back. The common harness times, checks and
 * reports (spec.c says what each variant's timed span holds).
 *
 *   sum        v1: device buffers, copied in (upload) and out (download);
 *              v2: a and b in mapped page-locked host memory, c on the GPU;
 *              v3, v4: managed memory, written by the host before each run.
 *              Inputs are written before the timed span (prepare), as a
 *              program would produce them; the span holds the transfers.
 *   soa        one device buffer of 3n floats, changed in place.
 *   transpose  an input and an output matrix on the GPU (--managed: in
 *              managed memory, the input written by the host each run).
 */
#define _GNU_SOURCE /* sysconf(_SC_PHYS_PAGES) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu.h"
#include "harness.h"
#include "lab07.h"
#include "soa.h"
#include "sum.h"
#include "transpose.h"

#define MiB(b) ((double)(b) / (1 << 20))
#define DEVICE_SLACK ((size_t)256 << 20) /* the L2 flush buffer, the context, events */

/* ------------------------------------------------------------- helpers */

/* Refuse (one line, exit 2) a case whose host buffers would not fit in
 * three quarters of this machine's memory. */
static int require_host_bytes(double bytes)
{
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const double have = (pages > 0 && page > 0) ? (double)pages * (double)page : 0.0;
    if (have > 0.0 && bytes > 0.75 * have) {
        kit_error("this input needs %.1f MiB of host memory; this machine has %.1f MiB", MiB(bytes),
                  MiB(have));
        return KIT_EXIT_USAGE;
    }
    return 0;
}

/* Can this GPU use managed memory (and prefetch it, for concurrent = 1)? */
static int managed_support(int concurrent)
{
    int dev = 0, yes = 0;
    if (cudaGetDevice(&dev) != cudaSuccess)
        return 0;
    if (cudaDeviceGetAttribute(&yes, concurrent ? cudaDevAttrConcurrentManagedAccess
                                                : cudaDevAttrManagedMemory, dev) != cudaSuccess)
        return 0;
    return yes;
}

/* A KIT_* status of an allocation step as setup()'s exit code. */
static int setup_code(int r)
{
    return r == KIT_OK ? 0 : KIT_EXIT_RUNTIME;
}

/* ----------------------------------------------------------------- sum */

typedef struct {
    long n;
    size_t bytes;                  /* of one vector */
    int pinned, managed, prefetch; /* --pinned; what the GPU allows */
    float *h_a, *h_b;              /* v1: host copies (page-locked with --pinned) */
    float *h_ma, *h_mb;            /* v2: mapped page-locked host memory */
    float *d_a, *d_b, *d_c;        /* v1 (all three), v2 (d_c) */
    float *m_a, *m_b, *m_c;        /* v3, v4: managed */
} sum_state;

static int sum_alloc(sum_state *S, int v1, int v2, int man)
{
    if (v1) {
        S->h_a = kit_host_alloc(S->bytes, S->pinned);
        S->h_b = kit_host_alloc(S->bytes, S->pinned);
        CUDA_CHECK(cudaMalloc((void **)&S->d_a, S->bytes));
        CUDA_CHECK(cudaMalloc((void **)&S->d_b, S->bytes));
    }
    if (v1 || v2)
        CUDA_CHECK(cudaMalloc((void **)&S->d_c, S->bytes));
    if (v2) {
        CUDA_CHECK(cudaHostAlloc((void **)&S->h_ma, S->bytes, cudaHostAllocMapped));
        CUDA_CHECK(cudaHostAlloc((void **)&S->h_mb, S->bytes, cudaHostAllocMapped));
    }
    if (man) {
        CUDA_CHECK(cudaMallocManaged((void **)&S->m_a, S->bytes, cudaMemAttachGlobal));
        CUDA_CHECK(cudaMallocManaged((void **)&S->m_b, S->bytes, cudaMemAttachGlobal));
        CUDA_CHECK(cudaMallocManaged((void **)&S->m_c, S->bytes, cudaMemAttachGlobal));
    }
    return KIT_OK;
}

/* Only the selected variants' buffers; managed memory is never asked for
 * beyond what the GPU has free (oversubscribed, it can stall the GPU). */
static int sum_setup(kit_ctx *ctx)
{
    const lab07_sum_case *c = ctx->prob.data;
    sum_state *S = kit_calloc(1, sizeof *S);
    ctx->user = S;
    S->n = c->n;
    S->bytes = (size_t)c->n * sizeof(float);
    S->pinned = kit_arg_given(&ctx->args, "--pinned");
    S->managed = managed_support(0);
    S->prefetch = managed_support(1);
    const int v1 = kit_variant_chosen(ctx, 1), v2 = kit_variant_chosen(ctx, 2);
    const int man = S->managed && (kit_variant_chosen(ctx, 3) || kit_variant_chosen(ctx, 4));
    const size_t dev = (size_t)(v1 ? 3 : v2 ? 1 : 0) * S->bytes + (man ? 3 * S->bytes : 0);
    const double host = (double)S->bytes * (1 + (v1 ? 2 : 0) + (v2 ? 2 : 0));
    int rc = kit_gpu_require_bytes(dev + DEVICE_SLACK);
    if (!rc)
        rc = require_host_bytes(host);
    return rc ? rc : setup_code(sum_alloc(S, v1, v2, man));
}

static int sum_supports(kit_ctx *ctx, int v, char *why, size_t len)
{
    const sum_state *S = ctx->user; /* NULL before setup: nothing to check yet */
    if (S && v >= 3 && !S->managed) {
        kit_set_err(why, len, "this GPU has no managed memory");
        return 0;
    }
    if (S && v == 4 && !S->prefetch) {
        kit_set_err(why, len, "prefetching managed memory needs concurrent managed access, "
                              "which this GPU or system lacks");
        return 0;
    }
    return 1;
}

/* Outside the timed span: this run's a and b written where v reads them
 * (for v3 and v4 that puts their pages in host memory), c poisoned. */
static int sum_prepare(kit_ctx *ctx, int v)
{
    sum_state *S = ctx->user;
    const size_t n = (size_t)S->n;
    switch (v) {
    case 1: lab07_sum_content(&ctx->prob, S->h_a, S->h_b, 0, n); break;
    case 2: lab07_sum_content(&ctx->prob, S->h_ma, S->h_mb, 0, n); break;
    default: lab07_sum_content(&ctx->prob, S->m_a, S->m_b, 0, n); break;
    }
    CUDA_CHECK(cudaMemset(v <= 2 ? S->d_c : S->m_c, kit_poison_byte(ctx), S->bytes));
    return KIT_OK;
}

static int sum_upload(kit_ctx *ctx, int v)
{
    sum_state *S = ctx->user;
    if (v == 1) { /* the only variant with copies in: the others move data in their launch */
        CUDA_CHECK(cudaMemcpy(S->d_a, S->h_a, S->bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(S->d_b, S->h_b, S->bytes, cudaMemcpyHostToDevice));
    }
    return KIT_OK;
}

static int sum_launch(kit_ctx *ctx, int v)
{
    sum_state *S = ctx->user;
    switch (v) {
    case 1: return sum_v1(S->d_a, S->d_b, S->d_c, S->n);
    case 2: return sum_v2(S->h_ma, S->h_mb, S->d_c, S->n);
    case 3: return sum_v3(S->m_a, S->m_b, S->m_c, S->n);
    case 4: return sum_v4(S->m_a, S->m_b, S->m_c, S->n);
    }
    return KIT_UNSUPPORTED;
}

static int sum_download(kit_ctx *ctx, int v)
{
    sum_state *S = ctx->user;
    CUDA_CHECK(cudaMemcpy(ctx->out.data, v <= 2 ? S->d_c : S->m_c, S->bytes, cudaMemcpyDefault));
    return KIT_OK;
}

static void sum_config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    KIT_UNUSED(v);
    snprintf(buf, len, "block=%d pinned=%d", SUM_BLOCK, kit_arg_given(&ctx->args, "--pinned"));
}

static void sum_teardown(kit_ctx *ctx)
{
    sum_state *S = ctx->user;
    if (!S)
        return;
    kit_host_free(S->h_a, S->pinned);
    kit_host_free(S->h_b, S->pinned);
    kit_host_free(S->h_ma, 1);
    kit_host_free(S->h_mb, 1);
    void *dev[] = {S->d_a, S->d_b, S->d_c, S->m_a, S->m_b, S->m_c};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i])
            cudaFree(dev[i]);
    free(S);
    ctx->user = NULL;
}

/* ----------------------------------------------------------------- soa */

typedef struct {
    float *d_img;  /* 3n floats, in the layout of the variant that runs */
    size_t bytes;
} soa_state;

static int soa_setup(kit_ctx *ctx)
{
    const lab07_soa_case *c = ctx->prob.data;
    soa_state *S = kit_calloc(1, sizeof *S);
    ctx->user = S;
    S->bytes = 3 * (size_t)c->n * sizeof(float);
    int rc = kit_gpu_require_bytes(S->bytes + DEVICE_SLACK);
    if (rc)
        return rc;
    CUDA_CHECK_EXIT(cudaMalloc((void **)&S->d_img, S->bytes));
    return 0;
}

/* In place: the upload is also what the kernel overwrites, so the output
 * needs no poison of its own on the GPU (the harness poisons ctx->out). */
static int soa_upload(kit_ctx *ctx, int v)
{
    const lab07_soa_case *c = ctx->prob.data;
    soa_state *S = ctx->user;
    const float *src = (v == 1 || v == 3) ? c->aos : c->soa;
    CUDA_CHECK(cudaMemcpy(S->d_img, src, S->bytes, cudaMemcpyHostToDevice));
    return KIT_OK;
}

static int soa_launch(kit_ctx *ctx, int v)
{
    const lab07_soa_case *c = ctx->prob.data;
    soa_state *S = ctx->user;
    const size_t n = (size_t)c->n;
    rgb_planes planes = {S->d_img, S->d_img + n, S->d_img + 2 * n};
    switch (v) {
    case 1: return soa_v1((rgb_pixel *)S->d_img, c->max, c->n);
    case 2: return soa_v2(planes, c->max, c->n);
    case 3: return soa_v3((rgb_pixel *)S->d_img, c->plane, c->n);
    case 4: return soa_v4(planes, c->plane, c->n);
    }
    return KIT_UNSUPPORTED;
}

static int soa_download(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    soa_state *S = ctx->user;
    CUDA_CHECK(cudaMemcpy(ctx->out.data, S->d_img, S->bytes, cudaMemcpyDeviceToHost));
    return KIT_OK;
}

static void soa_config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    KIT_UNUSED(ctx);
    snprintf(buf, len, "block=%d layout=%s", SOA_BLOCK, (v == 1 || v == 3) ? "aos" : "soa");
}

static void soa_teardown(kit_ctx *ctx)
{
    soa_state *S = ctx->user;
    if (!S)
        return;
    if (S->d_img)
        cudaFree(S->d_img);
    free(S);
    ctx->user = NULL;
}

/* ----------------------------------------------------------- transpose */

typedef struct {
    float *d_in, *d_out; /* device, or managed with --managed */
    size_t bytes;        /* of one matrix */
    int managed;
} tr_state;

/* The tile of variant v: --tile, else 32x32 (v1-v4) or V5_TILE_W x V5_TILE_H. */
static void tr_tile(const kit_ctx *ctx, int v, int *tw, int *th)
{
    if (kit_arg_given(&ctx->args, "--tile")) {
        kit_arg_wxh(&ctx->args, "--tile", tw, th);
    } else {
        *tw = v == 5 ? V5_TILE_W : TR_TILE;
        *th = v == 5 ? V5_TILE_H : TR_TILE;
    }
}

static int tr_supports(kit_ctx *ctx, int v, char *why, size_t len)
{
    int tw, th;
    tr_tile(ctx, v, &tw, &th);
    if (kit_arg_given(&ctx->args, "--managed") && v != 1 && v != 3) {
        kit_set_err(why, len, "--managed runs v1 and v3 only (the course guide's unified-memory pair)");
        return 0;
    }
    if (v <= 2 && tw * th > 1024) {
        kit_set_err(why, len, "--tile %dx%d: a block of more than 1024 threads", tw, th);
        return 0;
    }
    if ((v == 3 || v == 4) && (tw != th || tw > TR_MAX_SQUARE)) {
        kit_set_err(why, len, "--tile %dx%d: v3 and v4 take a square tile of at most %dx%d", tw,
                    th, TR_MAX_SQUARE, TR_MAX_SQUARE);
        return 0;
    }
    if (v == 5 && !transpose_v5_has_tile(tw, th)) {
        kit_set_err(why, len, "--tile %dx%d: v5 is built for the tiles %s", tw, th, V5_TILES);
        return 0;
    }
    return 1;
}

static int tr_setup(kit_ctx *ctx)
{
    const lab07_tr_case *c = ctx->prob.data;
    tr_state *S = kit_calloc(1, sizeof *S);
    ctx->user = S;
    S->bytes = (size_t)c->w * c->h * sizeof(float);
    S->managed = kit_arg_given(&ctx->args, "--managed");
    if (S->managed && !managed_support(0)) {
        kit_error("--managed: this GPU has no managed memory");
        return KIT_EXIT_USAGE;
    }
    int rc = kit_gpu_require_bytes(2 * S->bytes + DEVICE_SLACK);
    if (rc)
        return rc;
    if (S->managed) {
        CUDA_CHECK_EXIT(cudaMallocManaged((void **)&S->d_in, S->bytes, cudaMemAttachGlobal));
        CUDA_CHECK_EXIT(cudaMallocManaged((void **)&S->d_out, S->bytes, cudaMemAttachGlobal));
    } else {
        CUDA_CHECK_EXIT(cudaMalloc((void **)&S->d_in, S->bytes));
        CUDA_CHECK_EXIT(cudaMalloc((void **)&S->d_out, S->bytes));
    }
    return 0;
}

static int tr_prepare(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    tr_state *S = ctx->user;
    CUDA_CHECK(cudaMemset(S->d_out, kit_poison_byte(ctx), S->bytes));
    return KIT_OK;
}

/* With --managed the host writes the input itself, so its pages start in
 * host memory and the kernel pulls them over on first touch (the course
 * guide's unified-memory run). */
static int tr_upload(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    const lab07_tr_case *c = ctx->prob.data;
    tr_state *S = ctx->user;
    if (S->managed)
        memcpy(S->d_in, c->in, S->bytes);
    else
        CUDA_CHECK(cudaMemcpy(S->d_in, c->in, S->bytes, cudaMemcpyHostToDevice));
    return KIT_OK;
}

static int tr_launch(kit_ctx *ctx, int v)
{
    const lab07_tr_case *c = ctx->prob.data;
    tr_state *S = ctx->user;
    int tw, th;
    tr_tile(ctx, v, &tw, &th);
    switch (v) {
    case 1: return transpose_v1(S->d_in, S->d_out, c->w, c->h, tw, th);
    case 2: return transpose_v2(S->d_in, S->d_out, c->w, c->h, tw, th);
    case 3: return transpose_v3(S->d_in, S->d_out, c->w, c->h, tw, th);
    case 4: return transpose_v4(S->d_in, S->d_out, c->w, c->h, tw, th);
    case 5: return transpose_v5(S->d_in, S->d_out, c->w, c->h, tw, th);
    }
    return KIT_UNSUPPORTED;
}

static int tr_download(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    tr_state *S = ctx->user;
    CUDA_CHECK(cudaMemcpy(ctx->out.data, S->d_out, S->bytes, cudaMemcpyDefault));
    return KIT_OK;
}

static void tr_config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    int tw, th;
    tr_tile(ctx, v, &tw, &th);
    snprintf(buf, len, "tile=%dx%d threads=%dx%d managed=%d", tw, th, v == 5 ? V5_THREADS_X : tw,
             v == 5 ? V5_THREADS_Y : th, kit_arg_given(&ctx->args, "--managed"));
}

static void tr_teardown(kit_ctx *ctx)
{
    tr_state *S = ctx->user;
    if (!S)
        return;
    if (S->d_in)
        cudaFree(S->d_in);
    if (S->d_out)
        cudaFree(S->d_out);
    free(S);
    ctx->user = NULL;
}

/* ---------------------------------------------------------------- main */

static const kit_part_glue parts[] = {
    {.part = "sum", .setup = sum_setup, .supports = sum_supports, .prepare = sum_prepare,
     .upload = sum_upload, .launch = sum_launch, .download = sum_download, .config = sum_config,
     .host_alloc = kit_pinned_host_alloc, .host_free = kit_pinned_host_free, .teardown = sum_teardown},
    {.part = "soa", .setup = soa_setup, .upload = soa_upload, .launch = soa_launch,
     .download = soa_download, .config = soa_config, .teardown = soa_teardown},
    {.part = "transpose", .setup = tr_setup, .supports = tr_supports, .prepare = tr_prepare,
     .upload = tr_upload, .launch = tr_launch, .download = tr_download, .config = tr_config,
     .teardown = tr_teardown},
};
static const kit_glue glue = {3, parts, &kit_gpu_protocol};

int main(int argc, char **argv)
{
    return kit_main(&kit_lab_spec, &glue, argc, argv);
}
