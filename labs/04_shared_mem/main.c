/* main.c - lab 04's glue (owned by the kit; students edit conv.cu, tile.cu
 * and sep.cu): device buffers, the filter in constant memory, the copies, and
 * the call of each variant's launcher; the common harness runs, checks and
 * times them (spec.c describes the inputs, ref.c the reference).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "gpu.h"
#include "harness.h"
#include "lab04.h"

/* Shared memory a block may ask for on the chosen device (with the opt-in
 * attribute); where no device answers, the largest any GPU gives, so that
 * the missing device is what gets reported. */
static size_t smem_limit(const kit_ctx *ctx)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, ctx->opt.device) !=
            cudaSuccess ||
        v <= 0) {
        cudaGetLastError(); /* clear it: the harness reports the device itself */
        return 227 * 1024;
    }
    return (size_t)v;
}

/* --block, or the variant's default shape. */
static void block_of(const kit_ctx *ctx, int dw, int dh, int *w, int *h)
{
    kit_arg_wxh(&ctx->args, "--block", w, h);
    if (!*w) {
        *w = dw;
        *h = dh;
    }
}

/* The block of rgb v5 and v6 (--block, else the default): v5 32x8, the
 * course's 32-wide block; v6 32x4, with 16x2 patches (--tile) the fastest
 * setting `make tune` finds on an H100 at 4992x3744 laplace5. */
static void rgb_block(const kit_ctx *ctx, int v, int *bw, int *bh)
{
    block_of(ctx, 32, v == 6 ? 4 : 8, bw, bh);
}

static int too_much_smem(const kit_ctx *ctx, size_t need, int bw, int bh, char *why, size_t len)
{
    const size_t have = smem_limit(ctx);
    if (need <= have)
        return 0;
    kit_set_err(why, len, "a %dx%d block needs %zu bytes of shared memory here; this GPU gives "
                "a block at most %zu: choose a smaller --block", bw, bh, need, have);
    return 1;
}

/* ---------------------------------------------------------------- part rgb */

typedef struct {
    unsigned char *d_in, *d_out;
} rgb_dev;

static int rgb_alloc(lab04_rgb *c, rgb_dev *D)
{
    CUDA_CHECK(cudaMalloc((void **)&D->d_in, c->n));
    CUDA_CHECK(cudaMalloc((void **)&D->d_out, c->n));
    if (!c->taps_ok)
        return KIT_OK; /* every variant refuses the filter */
    const int r = conv_rgb_upload_filter(c->f.w32, c->taps8, c->shift8, c->f.radius);
    return r != KIT_OK ? r : conv_rgb_v6_upload_taps(c->taps8, c->shift8, c->f.radius);
}

static int rgb_setup(kit_ctx *ctx)
{
    lab04_rgb *c = ctx->prob.data;
    rgb_dev *D = kit_calloc(1, sizeof *D);
    ctx->user = D;
    int rc = kit_gpu_require_bytes(2 * c->n + ((size_t)64 << 20));
    if (rc)
        return rc;
    return rgb_alloc(c, D) == KIT_OK ? 0 : KIT_EXIT_RUNTIME;
}

static int rgb_supports(kit_ctx *ctx, int v, char *why, size_t len)
{
    const lab04_rgb *c = ctx->prob.data;
    const int r = c->f.radius;
    int bw, bh;
    if (v <= 4) {
        kit_arg_wxh(&ctx->args, "--block", &bw, &bh);
        if (bw && (bw != CONV_GUIDE_BLOCK || bh != CONV_GUIDE_BLOCK)) {
            kit_set_err(why, len, "v%d keeps the guide's 16x16 blocks; --block is for v5 and v6", v);
            return 0;
        }
        return 1;
    }
    rgb_block(ctx, v, &bw, &bh);
    if (v == 5) {
        if (bw * bh > 1024) {
            kit_set_err(why, len, "a block holds 1024 threads at most, not %dx%d", bw, bh);
            return 0;
        }
        return !too_much_smem(ctx, conv_rgb_v5_smem(r, bw, bh), bw, bh, why, len);
    }
    int tw, th;
    kit_arg_wxh(&ctx->args, "--tile", &tw, &th);
    if (!conv_rgb_v6_has(r, tw, th)) {
        kit_set_err(why, len, "v6 has no kernel for a %dx%d tile (it has 4x4 4x8 8x2 8x4 8x8 16x2 "
                    "16x4, radius 1 and 2)", tw, th);
        return 0;
    }
    if (bw * bh > CONV_V6_MAX_THREADS) {
        kit_set_err(why, len, "v6's kernels take blocks of %d threads at most, not %dx%d",
                    CONV_V6_MAX_THREADS, bw, bh);
        return 0;
    }
    return !too_much_smem(ctx, conv_rgb_v6_smem(r, bw, bh, tw, th), bw, bh, why, len);
}

static int rgb_prepare(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    const lab04_rgb *c = ctx->prob.data;
    const rgb_dev *D = ctx->user;
    CUDA_CHECK(cudaMemset(D->d_out, kit_poison_byte(ctx), c->n));
    return KIT_OK;
}

static int rgb_upload(kit_ctx *ctx, int v)
{
    const lab04_rgb *c = ctx->prob.data;
    const rgb_dev *D = ctx->user;
    CUDA_CHECK(cudaMemcpy(D->d_in, v == 6 ? c->px_p : c->px, c->n, cudaMemcpyHostToDevice));
    return KIT_OK;
}

static int rgb_launch(kit_ctx *ctx, int v)
{
    const lab04_rgb *c = ctx->prob.data;
    const rgb_dev *D = ctx->user;
    const int r = c->f.radius;
    int bw, bh, tw, th;
    rgb_block(ctx, v, &bw, &bh);
    kit_arg_wxh(&ctx->args, "--tile", &tw, &th);
    switch (v) {
    case 1: return conv_rgb_v1(D->d_in, D->d_out, c->w, c->h, r);
    case 2: return conv_rgb_v2(D->d_in, D->d_out, c->w, c->h, r);
    case 3: return conv_rgb_v3(D->d_in, D->d_out, c->w, c->h, r);
    case 4:
        return conv_rgb_v4(D->d_in, D->d_out, c->w, c->h, r,
                           kit_arg_set(&ctx->args, "--pad") ? (int)kit_arg_int(&ctx->args, "--pad")
                                                            : -1);
    case 5: return conv_rgb_v5(D->d_in, D->d_out, c->w, c->h, r, bw, bh);
    case 6: return conv_rgb_v6(D->d_in, D->d_out, c->w, c->h, r, bw, bh, tw, th);
    }
    return KIT_UNSUPPORTED;
}

static int rgb_download(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    const lab04_rgb *c = ctx->prob.data;
    const rgb_dev *D = ctx->user;
    CUDA_CHECK(cudaMemcpy(ctx->out.data, D->d_out, c->n, cudaMemcpyDeviceToHost));
    return KIT_OK;
}

static void rgb_config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    int bw, bh, tw, th;
    rgb_block(ctx, v, &bw, &bh);
    kit_arg_wxh(&ctx->args, "--tile", &tw, &th);
    if (v <= 3)
        snprintf(buf, len, "block=16x16");
    else if (v == 4 && kit_arg_set(&ctx->args, "--pad"))
        snprintf(buf, len, "block=16x16 pad=%ld", kit_arg_int(&ctx->args, "--pad"));
    else if (v == 4)
        snprintf(buf, len, "block=16x16 pad=auto");
    else if (v == 5)
        snprintf(buf, len, "block=%dx%d", bw, bh);
    else
        snprintf(buf, len, "block=%dx%d tile=%dx%d", bw, bh, tw, th);
}

static void rgb_teardown(kit_ctx *ctx)
{
    rgb_dev *D = ctx->user;
    if (!D)
        return;
    cudaFree(D->d_in);
    cudaFree(D->d_out);
    free(D);
    ctx->user = NULL;
}

/* ---------------------------------------------------------------- part sep */

typedef struct {
    double *d_in, *d_tmp, *d_out, *d_row, *d_col;
    int pinned, registered;
} sep_dev;

static int sep_alloc(lab04_sep *c, sep_dev *D)
{
    const size_t bytes = c->n * sizeof(double), taps = (size_t)c->f.size * sizeof(double);
    CUDA_CHECK(cudaMalloc((void **)&D->d_in, bytes));
    CUDA_CHECK(cudaMalloc((void **)&D->d_tmp, bytes));
    CUDA_CHECK(cudaMalloc((void **)&D->d_out, bytes));
    if (!c->f.separable)
        return KIT_OK; /* every variant refuses it */
    CUDA_CHECK(cudaMalloc((void **)&D->d_row, taps));
    CUDA_CHECK(cudaMalloc((void **)&D->d_col, taps));
    CUDA_CHECK(cudaMemcpy(D->d_row, c->f.row, taps, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(D->d_col, c->f.col, taps, cudaMemcpyHostToDevice));
    if (D->pinned) { /* the input as it is: page-locked in place */
        CUDA_CHECK(cudaHostRegister(c->cur, bytes, cudaHostRegisterDefault));
        D->registered = 1;
    }
    return conv_sep_upload_taps(c->f.row, c->f.col, c->f.radius);
}

static int sep_setup(kit_ctx *ctx)
{
    lab04_sep *c = ctx->prob.data;
    sep_dev *D = kit_calloc(1, sizeof *D);
    ctx->user = D;
    D->pinned = kit_arg_set(&ctx->args, "--pinned");
    int rc = kit_gpu_require_bytes(3 * c->n * sizeof(double) + ((size_t)64 << 20));
    if (rc)
        return rc;
    return sep_alloc(c, D) == KIT_OK ? 0 : KIT_EXIT_RUNTIME;
}

/* The block of part sep (--block, else the default): 32x32 as in the
 * course's report, v4 32x4, with 16 outputs a thread (--per-thread) the
 * fastest of make tune on the H100 (0.884 ms at 8192x8192, R = 32; 32x8
 * with 8 outputs 1.012 ms). */
static void sep_block(const kit_ctx *ctx, int v, int *bw, int *bh)
{
    block_of(ctx, 32, v == 4 ? 4 : 32, bw, bh);
}

static int sep_supports(kit_ctx *ctx, int v, char *why, size_t len)
{
    const lab04_sep *c = ctx->prob.data;
    const int r = c->f.radius;
    int bw, bh;
    sep_block(ctx, v, &bw, &bh);
    if (bw * bh > 1024) {
        kit_set_err(why, len, "a block holds 1024 threads at most, not %dx%d", bw, bh);
        return 0;
    }
    if (v == 2 || v == 3)
        return !too_much_smem(ctx, conv_sep_v2_smem(r, bw, bh), bw, bh, why, len);
    if (v == 4) {
        const int n = (int)kit_arg_int(&ctx->args, "--per-thread");
        if (n != 4 && n != 8 && n != 16) {
            kit_set_err(why, len, "v4 has kernels for --per-thread 4, 8 and 16, not %d", n);
            return 0;
        }
        if (bw * bh > CONV_SEP_V4_MAX_THREADS(n)) {
            kit_set_err(why, len, "v4 with %d outputs a thread takes blocks of at most %d threads "
                        "(its registers), not %dx%d", n, CONV_SEP_V4_MAX_THREADS(n), bw, bh);
            return 0;
        }
        const size_t a = conv_sep_v4_row_smem(r, bw, bh, n), b = conv_sep_v4_col_smem(r, bw, bh, n);
        return !too_much_smem(ctx, a > b ? a : b, bw, bh, why, len);
    }
    return 1;
}

static int sep_prepare(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    const lab04_sep *c = ctx->prob.data;
    const sep_dev *D = ctx->user;
    CUDA_CHECK(cudaMemset(D->d_out, kit_poison_byte(ctx), c->n * sizeof(double)));
    CUDA_CHECK(cudaMemset(D->d_tmp, 0xFF, c->n * sizeof(double))); /* NaN */
    return KIT_OK;
}

static int sep_upload(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    const lab04_sep *c = ctx->prob.data;
    const sep_dev *D = ctx->user;
    CUDA_CHECK(cudaMemcpy(D->d_in, c->cur, c->n * sizeof(double), cudaMemcpyHostToDevice));
    return KIT_OK;
}

static int sep_launch(kit_ctx *ctx, int v)
{
    const lab04_sep *c = ctx->prob.data;
    const sep_dev *D = ctx->user;
    const int r = c->f.radius;
    int bw, bh;
    sep_block(ctx, v, &bw, &bh);
    switch (v) {
    case 1:
        return conv_sep_v1(D->d_in, D->d_tmp, D->d_out, c->w, c->h, D->d_row, D->d_col, r, bw, bh);
    case 2:
        return conv_sep_v2(D->d_in, D->d_tmp, D->d_out, c->w, c->h, D->d_row, D->d_col, r, bw, bh);
    case 3: return conv_sep_v3(D->d_in, D->d_tmp, D->d_out, c->w, c->h, r, bw, bh);
    case 4:
        return conv_sep_v4(D->d_in, D->d_tmp, D->d_out, c->w, c->h, r, bw, bh,
                           (int)kit_arg_int(&ctx->args, "--per-thread"));
    }
    return KIT_UNSUPPORTED;
}

static int sep_download(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    const lab04_sep *c = ctx->prob.data;
    const sep_dev *D = ctx->user;
    CUDA_CHECK(cudaMemcpy(ctx->out.data, D->d_out, c->n * sizeof(double),
                          cudaMemcpyDeviceToHost));
    return KIT_OK;
}

static void sep_config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    int bw, bh;
    sep_block(ctx, v, &bw, &bh);
    const int pinned = kit_arg_set(&ctx->args, "--pinned");
    if (v == 4)
        snprintf(buf, len, "block=%dx%d per-thread=%ld pinned=%d", bw, bh,
                 kit_arg_int(&ctx->args, "--per-thread"), pinned);
    else
        snprintf(buf, len, "block=%dx%d pinned=%d", bw, bh, pinned);
}

static void sep_teardown(kit_ctx *ctx)
{
    sep_dev *D = ctx->user;
    if (!D)
        return;
    if (D->registered)
        cudaHostUnregister(((lab04_sep *)ctx->prob.data)->cur);
    void *dev[] = {D->d_in, D->d_tmp, D->d_out, D->d_row, D->d_col};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        cudaFree(dev[i]);
    free(D);
    ctx->user = NULL;
}

/* ---------------------------------------------------------------- the lab */

static const kit_part_glue parts[] = {
    {.part = "rgb",
     .setup = rgb_setup,
     .supports = rgb_supports,
     .prepare = rgb_prepare,
     .upload = rgb_upload,
     .launch = rgb_launch,
     .download = rgb_download,
     .config = rgb_config,
     .teardown = rgb_teardown},
    {.part = "sep",
     .setup = sep_setup,
     .supports = sep_supports,
     .prepare = sep_prepare,
     .upload = sep_upload,
     .launch = sep_launch,
     .download = sep_download,
     .config = sep_config,
     .host_alloc = kit_pinned_host_alloc,
     .host_free = kit_pinned_host_free,
     .teardown = sep_teardown},
};
static const kit_glue glue = {2, parts, &kit_gpu_protocol};

int main(int argc, char **argv)
{
    return kit_main(&kit_lab_spec, &glue, argc, argv);
}
