/* main.c - lab 01 harness (owned by the kit; students edit conv.c).
 *
 * Builds the RGBA float picture (generated, or --image), its zero-padded
 * extended copy and the CPU reference, then lets the common harness run,
 * check and time conv_v1..conv_v3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "filters.h"
#include "harness.h"
#include "image.h"
#include "ref.h"
#include "timing.h"

typedef struct {
    kit_filter filter;
    float *h_src;    /* W x H x 4, the picture */
    float *h_ext;    /* (W+2R) x (H+2R) x 4, zero-padded */
    float *h_ref;    /* reference result */
    float *h_out;    /* variants write here */
    int w, h, ext_w;
} lab01;

static const kit_variant variants[] = {
    {"naive", "window loops inside the pixel loop, full index arithmetic (baseline)"},
    {"loop-order", "pixel loop innermost over contiguous memory, pointer steps: streams, vectorizes"},
    {"separable", "row pass then column pass in double: 2(2R+1) taps instead of (2R+1)^2"},
};

static int setup(kit_ctx *ctx)
{
    lab01 *L = kit_calloc(1, sizeof *L);
    ctx->user = L;
    char err[512];
    if (kit_filter_make(ctx->opt.filter, ctx->opt.radius, &L->filter, err, sizeof err)) {
        kit_error("%s", err);
        return KIT_EXIT_USAGE;
    }
    kit_image img = {0};
    if (kit_input_picture(&ctx->opt, CONV_CHANNELS, &img))
        return KIT_EXIT_USAGE;
    int w = img.w, h = img.h, R = L->filter.radius;
    size_t n = (size_t)w * (size_t)h * CONV_CHANNELS;
    L->w = w;
    L->h = h;
    L->ext_w = w + 2 * R;
    L->h_src = kit_malloc(n * sizeof(float));
    kit_u8_to_f32(img.px, L->h_src, n);
    kit_image_free(&img);
    L->h_ext = kit_pad_zero_f32(L->h_src, w, h, CONV_CHANNELS, R);
    L->h_ref = kit_malloc(n * sizeof(float));
    kit_ref_corr2d_f32(L->h_src, L->h_ref, w, h, CONV_CHANNELS, 0, L->filter.w64, L->filter.size);
    kit_clamp_f32(L->h_ref, n, 0.0f, 255.0f);
    L->h_out = kit_malloc(n * sizeof(float));

    ctx->ref = (kit_buf){KIT_F32, w, h, CONV_CHANNELS, 0, L->h_ref};
    ctx->out = (kit_buf){KIT_F32, w, h, CONV_CHANNELS, 0, L->h_out};
    ctx->input = (kit_buf){KIT_F32, w, h, CONV_CHANNELS, 0, L->h_src};
    ctx->width = w;
    ctx->height = h;
    ctx->threads = 1;
    snprintf(ctx->param, sizeof ctx->param, "%s", L->filter.name);
    return 0;
}

static int supports(kit_ctx *ctx, int v, char *why, size_t len)
{
    lab01 *L = ctx->user;
    if (v == 3 && !L->filter.separable) {
        snprintf(why, len, "filter %s is not separable; v3 needs gauss5, box or gaussian",
                 L->filter.name);
        return 0;
    }
    return 1;
}

static int run(kit_ctx *ctx, int v, double *kernel_ms, double *total_ms)
{
    lab01 *L = ctx->user;
    const kit_filter *f = &L->filter;
    int r = KIT_UNSUPPORTED;
    double t0 = kit_now_ms();
    switch (v) {
    case 1: r = conv_v1(L->h_ext, L->ext_w, L->h_out, L->w, L->h, f->w32, f->radius); break;
    case 2: r = conv_v2(L->h_ext, L->ext_w, L->h_out, L->w, L->h, f->w32, f->radius); break;
    case 3: r = conv_v3(L->h_ext, L->ext_w, L->h_out, L->w, L->h, f->row, f->col, f->radius); break;
    }
    *kernel_ms = *total_ms = kit_now_ms() - t0;
    return r;
}

/* Each input float read once, each output float written once. */
static double bytes(kit_ctx *ctx, int v)
{
    lab01 *L = ctx->user;
    KIT_UNUSED(v);
    double ext = (double)L->ext_w * (L->h + 2 * L->filter.radius);
    return (ext + (double)L->w * L->h) * CONV_CHANNELS * sizeof(float);
}

static void teardown(kit_ctx *ctx)
{
    lab01 *L = ctx->user;
    if (!L)
        return;
    kit_filter_free(&L->filter);
    free(L->h_src);
    free(L->h_ext);
    free(L->h_ref);
    free(L->h_out);
    free(L);
}

static const kit_lab lab = {
    .lab = "01",
    .title = "2D convolution on the CPU: RGBA float picture, zero-padded, clamped to 0..255",
    .gpu = 0,
    .options = KIT_OPT_SIZE | KIT_OPT_IMAGE | KIT_OPT_FILTER | KIT_OPT_OUT,
    .default_w = 1024,
    .default_h = 768,
    .default_filter = "laplace5",
    .atol = 1e-2,
    .rtol = 1e-5,
    .nvariants = 3,
    .variants = variants,
    .first_variant = 1,
    .help_extra = "tolerance: |got - ref| <= 0.01 + 1e-5 |ref| per channel (laplace5, edge3,\n"
                  "sharpen3 and gauss5 are exact on 8-bit pictures)",
    .setup = setup,
    .supports = supports,
    .run = run,
    .bytes = bytes,
    .teardown = teardown,
};

int main(int argc, char **argv)
{
    return kit_main(&lab, argc, argv);
}
