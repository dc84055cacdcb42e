/* main.c - lab 03 harness (owned by the kit; students edit conv.cu).
 *
 * Builds the RGB picture, its planar and float64 copies and the CPU
 * references, allocates the device buffers once, and runs each variant as
 * copy in -> kernel(s) -> copy out, timing the kernel alone and the whole
 * with CUDA events. --pinned switches the host buffers to page-locked memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "filters.h"
#include "gpu.h"
#include "harness.h"
#include "image.h"
#include "ref.h"

typedef struct {
    kit_filter f;
    int w, h, pinned;
    size_t n8;                      /* bytes of one RGB picture */
    unsigned char *h_in, *h_in_p;   /* interleaved and planar input */
    unsigned char *h_out8;          /* output of v1 to v6 */
    double *h_in64, *h_out64;       /* planar float64 input and v7 output */
    unsigned char *h_ref, *h_ref_p; /* references, interleaved and planar */
    double *h_ref64;                /* v7 reference (separable filters only) */
    unsigned char *d_in8, *d_out8;
    double *d_in64, *d_tmp64, *d_out64, *d_row, *d_col;
    float *d_filter;
    kit_gpu_timer tk, tt;
    int timers;
    int taps8_ok;                   /* the filter has v6's 8-bit integer taps */
    int shift8;                     /* weight = tap / 2^shift8 */
    signed char taps8[(2 * CONV_DP4A_MAX_RADIUS + 1) * (2 * CONV_DP4A_MAX_RADIUS + 1)];
} lab03;

static const kit_variant variants[] = {
    {"linear-grid", "a 1D grid, thread i takes pixel i; interleaved RGB, filter in global memory (baseline)"},
    {"2d-grid", "a 2D grid of 2D blocks: x and y from the indices, a block covers a square"},
    {"const-filter", "filter in constant memory: one broadcast read per tap for the whole warp"},
    {"unrolled", "one kernel per radius, window loops unrolled: no loop counters, constant tap indices"},
    {"planar-bytes", "the unrolled kernel on planar channels: the layout alone"},
    {"planar-words", "planar, 8x4 pixels a thread: 4 bytes a load, 4 taps a dp4a (8-bit weights)"},
    {"separable-f64", "row then column pass in double, 2(2R+1) taps instead of (2R+1)^2"},
};

/* --block, else 16x16 (the course's start), 32x8 for v6 (a warp covers
 * 256 consecutive bytes of one row) */
static int block_w(const kit_ctx *ctx, int v)
{
    return ctx->opt.block_w ? ctx->opt.block_w : (v == 6 ? 32 : 16);
}

static int block_h(const kit_ctx *ctx, int v)
{
    return ctx->opt.block_h ? ctx->opt.block_h : (v == 6 ? 8 : 16);
}

static int alloc_device(lab03 *L)
{
    size_t plane = (size_t)L->w * L->h;
    size_t need = 2 * L->n8 + (size_t)CONV_MAX_TAPS * sizeof(float);
    if (L->f.separable)
        need += 3 * CONV_CHANNELS * plane * sizeof(double) + 2 * (size_t)L->f.size * sizeof(double);
    int rc = kit_gpu_require_bytes(need + (64u << 20));
    if (rc)
        return rc;
    CUDA_CHECK(cudaMalloc((void **)&L->d_in8, L->n8));
    CUDA_CHECK(cudaMalloc((void **)&L->d_out8, L->n8));
    CUDA_CHECK(cudaMalloc((void **)&L->d_filter, CONV_MAX_TAPS * sizeof(float)));
    if (L->f.size * L->f.size <= CONV_MAX_TAPS)
        CUDA_CHECK(cudaMemcpy(L->d_filter, L->f.w32, (size_t)L->f.size * L->f.size * sizeof(float),
                              cudaMemcpyHostToDevice));
    if (L->f.separable) {
        size_t b64 = CONV_CHANNELS * plane * sizeof(double);
        CUDA_CHECK(cudaMalloc((void **)&L->d_in64, b64));
        CUDA_CHECK(cudaMalloc((void **)&L->d_tmp64, b64));
        CUDA_CHECK(cudaMalloc((void **)&L->d_out64, b64));
        CUDA_CHECK(cudaMalloc((void **)&L->d_row, (size_t)L->f.size * sizeof(double)));
        CUDA_CHECK(cudaMalloc((void **)&L->d_col, (size_t)L->f.size * sizeof(double)));
        CUDA_CHECK(cudaMemcpy(L->d_row, L->f.row, (size_t)L->f.size * sizeof(double),
                              cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(L->d_col, L->f.col, (size_t)L->f.size * sizeof(double),
                              cudaMemcpyHostToDevice));
    }
    if (kit_gpu_timer_create(&L->tk) != KIT_OK || kit_gpu_timer_create(&L->tt) != KIT_OK)
        return KIT_EXIT_RUNTIME;
    L->timers = 1;
    return 0;
}

static int setup(kit_ctx *ctx)
{
    lab03 *L = kit_calloc(1, sizeof *L);
    ctx->user = L;
    char err[512];
    if (kit_filter_make(ctx->opt.filter, ctx->opt.radius, &L->f, err, sizeof err)) {
        kit_error("%s", err);
        return KIT_EXIT_USAGE;
    }
    kit_image img = {0};
    if (kit_input_picture(&ctx->opt, CONV_CHANNELS, &img))
        return KIT_EXIT_USAGE;
    int rc = kit_gpu_init(ctx->opt.device);
    if (rc) {
        kit_image_free(&img);
        return rc;
    }
    L->w = img.w;
    L->h = img.h;
    L->pinned = ctx->opt.pinned;
    L->n8 = (size_t)img.w * img.h * CONV_CHANNELS;
    size_t plane = (size_t)img.w * img.h, n = L->n8;

    /* host side: inputs, references, outputs */
    L->h_in = kit_host_alloc(n, L->pinned);
    memcpy(L->h_in, img.px, n);
    kit_image_free(&img);
    L->h_in_p = kit_host_alloc(n, L->pinned);
    kit_interleaved_to_planar_u8(L->h_in, L->h_in_p, L->w, L->h, CONV_CHANNELS);
    L->h_out8 = kit_host_alloc(n, L->pinned);
    L->h_ref = kit_calloc(n, 1);
    L->h_ref_p = kit_calloc(n, 1);
    const int want_ref = kit_want_reference(ctx);
    if (want_ref) {
        kit_ref_corr2d_u8(L->h_in, L->h_ref, L->w, L->h, CONV_CHANNELS, 0, L->f.w64, L->f.size);
        kit_interleaved_to_planar_u8(L->h_ref, L->h_ref_p, L->w, L->h, CONV_CHANNELS);
    }
    if (L->f.separable) {
        L->h_in64 = kit_host_alloc(n * sizeof(double), L->pinned);
        L->h_out64 = kit_host_alloc(n * sizeof(double), L->pinned);
        L->h_ref64 = kit_calloc(n, sizeof(double));
        kit_u8_to_f64(L->h_in_p, L->h_in64, n);
        if (want_ref) {
            double *tmp = kit_malloc(plane * sizeof(double));
            for (int c = 0; c < CONV_CHANNELS; c++) {
                kit_ref_row_pass_f64(L->h_in64 + c * plane, tmp, L->w, L->h, L->f.row, L->f.radius);
                kit_ref_col_pass_f64(tmp, L->h_ref64 + c * plane, L->w, L->h, L->f.col, L->f.radius);
            }
            free(tmp);
        }
    }
    rc = alloc_device(L);
    if (rc)
        return rc;
    if (L->f.radius <= CONV_MAX_RADIUS && conv_upload_filter(L->f.w32, L->f.radius) != KIT_OK)
        return KIT_EXIT_RUNTIME;
    L->taps8_ok = L->f.radius <= CONV_DP4A_MAX_RADIUS && kit_filter_taps_i8(&L->f, L->taps8, &L->shift8);
    if (L->taps8_ok && conv_upload_filter8(L->taps8, L->f.radius, L->shift8) != KIT_OK)
        return KIT_EXIT_RUNTIME;

    ctx->input = (kit_buf){KIT_U8, L->w, L->h, CONV_CHANNELS, 0, L->h_in};
    ctx->ref = (kit_buf){KIT_U8, L->w, L->h, CONV_CHANNELS, 0, L->h_ref};
    ctx->out = (kit_buf){KIT_U8, L->w, L->h, CONV_CHANNELS, 0, L->h_out8};
    ctx->width = L->w;
    ctx->height = L->h;
    snprintf(ctx->param, sizeof ctx->param, "%s", L->f.name);
    return 0;
}

/* Each variant's output layout: interleaved bytes, planar bytes, planar doubles. */
static void select_variant(kit_ctx *ctx, int v)
{
    lab03 *L = ctx->user;
    if (v == 5 || v == 6) {
        ctx->ref = (kit_buf){KIT_U8, L->w, L->h, CONV_CHANNELS, 1, L->h_ref_p};
        ctx->out = (kit_buf){KIT_U8, L->w, L->h, CONV_CHANNELS, 1, L->h_out8};
    } else if (v == 7 && L->f.separable) {
        ctx->ref = (kit_buf){KIT_F64, L->w, L->h, CONV_CHANNELS, 1, L->h_ref64};
        ctx->out = (kit_buf){KIT_F64, L->w, L->h, CONV_CHANNELS, 1, L->h_out64};
        ctx->atol = 1e-9; /* double sums in another order: rounding only */
        ctx->rtol = 1e-12;
    } else {
        ctx->ref = (kit_buf){KIT_U8, L->w, L->h, CONV_CHANNELS, 0, L->h_ref};
        ctx->out = (kit_buf){KIT_U8, L->w, L->h, CONV_CHANNELS, 0, L->h_out8};
    }
}

static int supports(kit_ctx *ctx, int v, char *why, size_t len)
{
    lab03 *L = ctx->user;
    if (v == 7 && !L->f.separable) {
        snprintf(why, len, "filter %s is not separable; v7 needs gauss5, box or gaussian",
                 L->f.name);
        return 0;
    }
    if (v != 7 && L->f.radius > CONV_MAX_RADIUS) {
        snprintf(why, len, "radius %d is beyond the %d this variant's constant filter holds",
                 L->f.radius, CONV_MAX_RADIUS);
        return 0;
    }
    if (v != 7 && !kit_filter_exact_f32(&L->f)) {
        snprintf(why, len, "%s radius %d: float sums of its weights are not exact, so 8-bit "
                 "results could differ by one; use v7 (double) or an exact filter",
                 L->f.name, L->f.radius);
        return 0;
    }
    if ((v == 4 || v == 5) && L->f.radius > CONV_UNROLL_MAX_RADIUS) {
        snprintf(why, len, "radius %d: the unrolled kernels exist for radius 0 to %d",
                 L->f.radius, CONV_UNROLL_MAX_RADIUS);
        return 0;
    }
    if (v == 6 && !L->taps8_ok) {
        snprintf(why, len, "%s radius %d: v6 multiplies bytes by 8-bit integer weights, and this "
                 "filter's are not integers in -128..127 over a power of two (radius up to %d); "
                 "use v3 or v5", L->f.name, L->f.radius, CONV_DP4A_MAX_RADIUS);
        return 0;
    }
    return 1;
}

static int launch(lab03 *L, int v, int bw, int bh)
{
    size_t plane = (size_t)L->w * L->h;
    switch (v) {
    case 1: return conv_v1(L->d_in8, L->d_out8, L->w, L->h, L->d_filter, L->f.radius, bw, bh);
    case 2: return conv_v2(L->d_in8, L->d_out8, L->w, L->h, L->d_filter, L->f.radius, bw, bh);
    case 3: return conv_v3(L->d_in8, L->d_out8, L->w, L->h, L->f.radius, bw, bh);
    case 4: return conv_v4(L->d_in8, L->d_out8, L->w, L->h, L->f.radius, bw, bh);
    case 5: return conv_v5(L->d_in8, L->d_out8, L->w, L->h, L->f.radius, bw, bh);
    case 6: return conv_v6(L->d_in8, L->d_out8, L->w, L->h, L->f.radius, bw, bh);
    case 7:
        for (int c = 0; c < CONV_CHANNELS; c++) {
            int r = conv_v7(L->d_in64 + c * plane, L->d_tmp64 + c * plane,
                            L->d_out64 + c * plane, L->w, L->h, L->d_row, L->d_col,
                            L->f.radius, bw, bh);
            if (r != KIT_OK)
                return r;
        }
        return KIT_OK;
    }
    return KIT_UNSUPPORTED;
}

/* Total time: copy in, kernel(s), copy out, on freshly poisoned output.
 * Kernel time: the same launch again right after, on the data already on the
 * device, so it does not pay for writing back what the copy left in L2. */
static int run(kit_ctx *ctx, int v, double *kernel_ms, double *total_ms)
{
    lab03 *L = ctx->user;
    int f64 = (v == 7);
    const void *h_src = f64 ? (const void *)L->h_in64 : (v == 5 || v == 6) ? L->h_in_p : L->h_in;
    void *d_src = f64 ? (void *)L->d_in64 : (void *)L->d_in8;
    void *d_dst = f64 ? (void *)L->d_out64 : (void *)L->d_out8;
    size_t bytes = f64 ? L->n8 * sizeof(double) : L->n8;
    const int bw = block_w(ctx, v), bh = block_h(ctx, v);
    /* unwritten device output must not pass: poison it (and v7's temporary) */
    CUDA_CHECK(cudaMemset(d_dst, kit_poison_byte(ctx), bytes));
    if (f64)
        CUDA_CHECK(cudaMemset(L->d_tmp64, 0xFF, bytes));
    if (kit_gpu_timer_start(&L->tt) != KIT_OK)
        return KIT_RUNTIME_ERROR;
    CUDA_CHECK(cudaMemcpy(d_src, h_src, bytes, cudaMemcpyHostToDevice));
    int r = launch(L, v, bw, bh);
    if (r != KIT_OK)
        return r;
    CUDA_CHECK(cudaMemcpy(ctx->out.data, d_dst, bytes, cudaMemcpyDeviceToHost));
    if (kit_gpu_timer_stop(&L->tt, total_ms) != KIT_OK)
        return KIT_RUNTIME_ERROR;
    /* a kernel that faulted shows here at the latest */
    CUDA_CHECK(cudaGetLastError());
    if (kit_gpu_timer_start(&L->tk) != KIT_OK)
        return KIT_RUNTIME_ERROR;
    r = launch(L, v, bw, bh);
    if (r != KIT_OK)
        return r;
    if (kit_gpu_timer_stop(&L->tk, kernel_ms) != KIT_OK)
        return KIT_RUNTIME_ERROR;
    CUDA_CHECK(cudaGetLastError());
    return KIT_OK;
}

/* Input read once and output written once. */
static double bytes(kit_ctx *ctx, int v)
{
    lab03 *L = ctx->user;
    return 2.0 * (double)L->n8 * (v == 7 ? sizeof(double) : 1);
}

static void config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    snprintf(buf, len, "block=%dx%d pinned=%d", block_w(ctx, v), block_h(ctx, v),
             ctx->opt.pinned);
}

static void teardown(kit_ctx *ctx)
{
    lab03 *L = ctx->user;
    if (!L)
        return;
    if (L->timers) {
        kit_gpu_timer_destroy(&L->tk);
        kit_gpu_timer_destroy(&L->tt);
    }
    void *dev[] = {L->d_in8, L->d_out8, L->d_filter, L->d_in64,
                   L->d_tmp64, L->d_out64, L->d_row, L->d_col};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i])
            cudaFree(dev[i]);
    kit_host_free(L->h_in, L->pinned);
    kit_host_free(L->h_in_p, L->pinned);
    kit_host_free(L->h_out8, L->pinned);
    kit_host_free(L->h_in64, L->pinned);
    kit_host_free(L->h_out64, L->pinned);
    free(L->h_ref);
    free(L->h_ref_p);
    free(L->h_ref64);
    kit_filter_free(&L->f);
    free(L);
}

static const kit_lab lab = {
    .lab = "03",
    .title = "2D convolution on the GPU from global memory: RGB bytes, zero border by guards",
    .gpu = 1,
    .options = KIT_OPT_SIZE | KIT_OPT_IMAGE | KIT_OPT_FILTER | KIT_OPT_OUT | KIT_OPT_BLOCK |
               KIT_OPT_PINNED | KIT_OPT_DEVICE,
    .default_w = 4992,
    .default_h = 3744,
    .default_filter = "laplace5",
    .atol = 0.0,
    .rtol = 0.0,
    .nvariants = 7,
    .variants = variants,
    .first_variant = 1,
    .help_extra = "8-bit outputs must equal the CPU reference exactly; v7 (float64) within\n"
                  "1e-9 + 1e-12 |ref|. total ms: copy in, kernel, copy out; kernel ms: the same\n"
                  "launch again on the data already on the GPU. v1 to v5: filters exact in float\n"
                  "(not box; gaussian up to radius 4); v6: 8-bit integer weights (laplace5,\n"
                  "edge3, sharpen3, gauss5, gaussian up to radius 2); v7: separable filters,\n"
                  "radius up to 80. --block WxH: v1 takes W*H threads in a row.",
    .setup = setup,
    .select = select_variant,
    .supports = supports,
    .run = run,
    .bytes = bytes,
    .config = config,
    .teardown = teardown,
    .gpu_lines = kit_gpu_lines,
};

int main(int argc, char **argv)
{
    return kit_main(&lab, argc, argv);
}
