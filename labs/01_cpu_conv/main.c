/* main.c - lab 01 harness (owned by the kit; students edit conv.c).
 *
 * The RGBA float picture (generated, or --image), its zero-padded extended
 * copy and the CPU reference come from kit_conv_input (common/harness.h);
 * the common harness runs, checks and times conv_v1..conv_v3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "harness.h"
#include "timing.h"

static const kit_variant variants[] = {
    {"naive", "window loops inside the pixel loop, full index arithmetic (baseline)"},
    {"loop-order", "pixel loop innermost over contiguous memory, pointer steps: streams, vectorizes"},
    {"separable", "row pass then column pass in double: 2(2R+1) taps instead of (2R+1)^2"},
};

/* The picture, its extended copy (rows of (W+2R)*4 floats), the reference. */
static int setup(kit_ctx *ctx)
{
    kit_conv_input *in = kit_calloc(1, sizeof *in);
    ctx->user = in;
    ctx->threads = 1;
    return kit_conv_input_setup(ctx, CONV_CHANNELS, 1, in);
}

static int supports(kit_ctx *ctx, int v, char *why, size_t len)
{
    kit_conv_input *in = ctx->user;
    if (v == 3 && !in->filter.separable) {
        snprintf(why, len, "filter %s is not separable; v3 needs gauss5, box or gaussian",
                 in->filter.name);
        return 0;
    }
    return 1;
}

static int run(kit_ctx *ctx, int v, double *kernel_ms, double *total_ms)
{
    kit_conv_input *in = ctx->user;
    const kit_filter *f = &in->filter;
    const int ext_w = (int)(in->stride / CONV_CHANNELS);
    int r = KIT_UNSUPPORTED;
    double t0 = kit_now_ms();
    switch (v) {
    case 1: r = conv_v1(in->h_ext, ext_w, in->h_out, in->w, in->h, f->w32, f->radius); break;
    case 2: r = conv_v2(in->h_ext, ext_w, in->h_out, in->w, in->h, f->w32, f->radius); break;
    case 3: r = conv_v3(in->h_ext, ext_w, in->h_out, in->w, in->h, f->row, f->col, f->radius); break;
    }
    *kernel_ms = *total_ms = kit_now_ms() - t0;
    return r;
}

/* Each input float read once, each output float written once. */
static double bytes(kit_ctx *ctx, int v)
{
    KIT_UNUSED(v);
    return kit_conv_input_bytes(ctx->user);
}

static void teardown(kit_ctx *ctx)
{
    if (!ctx->user)
        return;
    kit_conv_input_free(ctx->user);
    free(ctx->user);
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
