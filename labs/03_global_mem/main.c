/* main.c - lab 03's glue (owned by the kit; students edit conv.cu): device
 * buffers for the spec's input (spec.c, input.h), the copies in and out, and
 * the call of the student's launchers; the common harness runs, checks and
 * times them (a variant's timed span is its launcher alone).
 *
 * --pinned: the output's host buffer comes from cudaHostAlloc (kit_pinned_host_alloc)
 * and the input's host buffers are page-locked where they are
 * (cudaHostRegister), so both copies run at the bus's speed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#include "conv.h"
#include "gpu.h"
#include "harness.h"
#include "input.h"

typedef struct {
    int pinned;
    unsigned char *d_in8, *d_out8;
    double *d_in64, *d_tmp64, *d_out64, *d_row, *d_col;
    float *d_filter;
    int registered;                 /* bits: h_in, h_in_p, h_in64 page-locked (--pinned) */
} lab03_dev;

static const lab03_input *input(const kit_ctx *ctx)
{
    return ctx->prob.data;
}

/* --block, else 16x16 (the course's start) and 32x8 for v6 (a warp covers
 * 256 consecutive bytes of one plane row) */
static void block_shape(const kit_ctx *ctx, int v, int *bw, int *bh)
{
    kit_arg_wxh(&ctx->args, "--block", bw, bh);
    if (*bw == 0) {
        *bw = v == 6 ? 32 : 16;
        *bh = v == 6 ? 8 : 16;
    }
}

/* v1's grid is 1D: W*H pixels numbered in 32 bits, in blocks of bw*bh
 * threads, at most 2^31-1 blocks */
static int supports(kit_ctx *ctx, int v, char *why, size_t whylen)
{
    const lab03_input *in = input(ctx);
    int bw, bh;
    block_shape(ctx, v, &bw, &bh);
    if (v == 1 && (double)in->w * in->h > 4294967295.0) {
        kit_set_err(why, whylen, "%dx%d pixels do not fit the 32-bit pixel numbers of the 1D grid",
                    in->w, in->h);
        return 0;
    }
    if (v == 1 && ((double)in->w * in->h) / (bw * bh) > 2147483647.0) {
        kit_set_err(why, whylen, "%dx%d pixels need more than 2^31-1 blocks of %d threads",
                    in->w, in->h, bw * bh);
        return 0;
    }
    return 1;
}

/* 0, KIT_EXIT_USAGE (too little GPU memory, after one line) or KIT_RUNTIME_ERROR */
static int alloc_device(lab03_dev *D, const lab03_input *in)
{
    const kit_filter *f = &in->filter;
    const size_t taps = (size_t)f->size * f->size;
    size_t need = 2 * in->n8 + (size_t)CONV_MAX_TAPS * sizeof(float);
    if (f->separable)
        need += 3 * in->n8 * sizeof(double) + 2 * (size_t)f->size * sizeof(double);
    int rc = kit_gpu_require_bytes(need + (64u << 20));
    if (rc)
        return rc;
    CUDA_CHECK(cudaMalloc((void **)&D->d_in8, in->n8));
    CUDA_CHECK(cudaMalloc((void **)&D->d_out8, in->n8));
    CUDA_CHECK(cudaMalloc((void **)&D->d_filter, CONV_MAX_TAPS * sizeof(float)));
    if (taps <= CONV_MAX_TAPS)
        CUDA_CHECK(cudaMemcpy(D->d_filter, f->w32, taps * sizeof(float),
                                   cudaMemcpyHostToDevice));
    if (f->separable) {
        const size_t b64 = in->n8 * sizeof(double), t64 = (size_t)f->size * sizeof(double);
        CUDA_CHECK(cudaMalloc((void **)&D->d_in64, b64));
        CUDA_CHECK(cudaMalloc((void **)&D->d_tmp64, b64));
        CUDA_CHECK(cudaMalloc((void **)&D->d_out64, b64));
        CUDA_CHECK(cudaMalloc((void **)&D->d_row, t64));
        CUDA_CHECK(cudaMalloc((void **)&D->d_col, t64));
        CUDA_CHECK(cudaMemcpy(D->d_row, f->row, t64, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(D->d_col, f->col, t64, cudaMemcpyHostToDevice));
    }
    return 0;
}

/* Page-lock the input's host buffers where they are (they live as long as
 * the case, and fresh() rewrites them in place). */
static int register_inputs(lab03_dev *D, const lab03_input *in)
{
    CUDA_CHECK(cudaHostRegister(in->h_in, in->n8, cudaHostRegisterDefault));
    D->registered |= 1;
    CUDA_CHECK(cudaHostRegister(in->h_in_p, in->n8, cudaHostRegisterDefault));
    D->registered |= 2;
    if (in->h_in64) {
        CUDA_CHECK(cudaHostRegister(in->h_in64, in->n8 * sizeof(double), cudaHostRegisterDefault));
        D->registered |= 4;
    }
    return KIT_OK;
}

static int setup(kit_ctx *ctx)
{
    const lab03_input *in = input(ctx);
    lab03_dev *D = kit_calloc(1, sizeof *D);
    ctx->user = D;
    D->pinned = kit_arg_set(&ctx->args, "--pinned");
    int rc = alloc_device(D, in);
    if (rc)
        return rc == KIT_RUNTIME_ERROR ? KIT_EXIT_RUNTIME : rc;
    if (D->pinned && register_inputs(D, in) != KIT_OK)
        return KIT_EXIT_RUNTIME;
    /* the filter in constant memory for v3 to v5, and as 8-bit words for v6 */
    if (in->filter.radius <= CONV_MAX_RADIUS &&
        conv_upload_filter(in->filter.w32, in->filter.radius) != KIT_OK)
        return KIT_EXIT_RUNTIME;
    if (in->taps8_ok && conv_upload_filter8(in->taps8, in->filter.radius, in->shift8) != KIT_OK)
        return KIT_EXIT_RUNTIME;
    return 0;
}

/* Unwritten device output must not pass: poison it (and v7's temporary). */
static int prepare(kit_ctx *ctx, int v)
{
    lab03_dev *D = ctx->user;
    const size_t bytes = kit_buf_bytes(&ctx->out);
    CUDA_CHECK(cudaMemset(LAB03_F64(v) ? (void *)D->d_out64 : (void *)D->d_out8,
                          kit_poison_byte(ctx), bytes));
    if (LAB03_F64(v))
        CUDA_CHECK(cudaMemset(D->d_tmp64, 0xFF, bytes));
    return KIT_OK;
}

static int upload(kit_ctx *ctx, int v)
{
    lab03_dev *D = ctx->user;
    const lab03_input *in = input(ctx);
    if (LAB03_F64(v))
        CUDA_CHECK(cudaMemcpy(D->d_in64, in->h_in64, in->n8 * sizeof(double),
                              cudaMemcpyHostToDevice));
    else
        CUDA_CHECK(cudaMemcpy(D->d_in8, LAB03_PLANAR(v) ? in->h_in_p : in->h_in, in->n8,
                              cudaMemcpyHostToDevice));
    return KIT_OK;
}

static int launch(kit_ctx *ctx, int v)
{
    lab03_dev *D = ctx->user;
    const lab03_input *in = input(ctx);
    const int w = in->w, h = in->h, R = in->filter.radius;
    int bw, bh;
    block_shape(ctx, v, &bw, &bh);
    switch (v) {
    case 1: return conv_v1(D->d_in8, D->d_out8, w, h, D->d_filter, R, bw, bh);
    case 2: return conv_v2(D->d_in8, D->d_out8, w, h, D->d_filter, R, bw, bh);
    case 3: return conv_v3(D->d_in8, D->d_out8, w, h, R, bw, bh);
    case 4: return conv_v4(D->d_in8, D->d_out8, w, h, R, bw, bh);
    case 5: return conv_v5(D->d_in8, D->d_out8, w, h, R, bw, bh);
    case 6: return conv_v6(D->d_in8, D->d_out8, w, h, R, bw, bh);
    case 7: {
        const size_t plane = (size_t)w * h;
        for (int c = 0; c < CONV_CHANNELS; c++) {
            int r = conv_v7(D->d_in64 + c * plane, D->d_tmp64 + c * plane, D->d_out64 + c * plane,
                            w, h, D->d_row, D->d_col, R, bw, bh);
            if (r != KIT_OK)
                return r;
        }
        return KIT_OK;
    }
    case 8: return conv_v8(D->d_in8, D->d_out8, w, h, D->d_filter, R, bw, bh);
    }
    return KIT_UNSUPPORTED;
}

static int download(kit_ctx *ctx, int v)
{
    lab03_dev *D = ctx->user;
    CUDA_CHECK(cudaMemcpy(ctx->out.data, LAB03_F64(v) ? (void *)D->d_out64 : (void *)D->d_out8,
                          kit_buf_bytes(&ctx->out), cudaMemcpyDeviceToHost));
    return KIT_OK;
}

static void config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    int bw, bh;
    block_shape(ctx, v, &bw, &bh);
    if (v == 1) /* one row of bw*bh threads */
        snprintf(buf, len, "block=%dx1 pinned=%d", bw * bh, kit_arg_set(&ctx->args, "--pinned"));
    else
        snprintf(buf, len, "block=%dx%d pinned=%d", bw, bh, kit_arg_set(&ctx->args, "--pinned"));
}

static void teardown(kit_ctx *ctx)
{
    lab03_dev *D = ctx->user;
    const lab03_input *in = input(ctx);
    if (!D)
        return;
    if (D->registered & 1)
        cudaHostUnregister(in->h_in);
    if (D->registered & 2)
        cudaHostUnregister(in->h_in_p);
    if (D->registered & 4)
        cudaHostUnregister(in->h_in64);
    void *dev[] = {D->d_in8, D->d_out8, D->d_filter, D->d_in64,
                   D->d_tmp64, D->d_out64, D->d_row, D->d_col};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i])
            cudaFree(dev[i]);
    free(D);
    ctx->user = NULL;
}

static const kit_part_glue parts[] = {{
    .part = "",
    .setup = setup,
    .supports = supports,
    .prepare = prepare,
    .upload = upload,
    .launch = launch,
    .download = download,
    .config = config,
    .host_alloc = kit_pinned_host_alloc,
    .host_free = kit_pinned_host_free,
    .teardown = teardown,
}};
static const kit_glue glue = {1, parts, &kit_gpu_protocol};

int main(int argc, char **argv)
{
    return kit_main(&kit_lab_spec, &glue, argc, argv);
}
