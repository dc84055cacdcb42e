/* main.c - lab 01's glue (owned by the kit; students edit conv.c): hands
 * conv_v1..conv_v3 the padded picture of the spec (spec.c) and the output
 * buffer; the common harness runs, checks and times them. */
#include "conv.h"
#include "harness.h"

static int setup(kit_ctx *ctx)
{
    ctx->threads = 1;
    return 0;
}

static int launch(kit_ctx *ctx, int v)
{
    const kit_conv_input *in = ctx->prob.data;
    const kit_filter *f = &in->filter;
    const int ext_w = (int)(in->stride / CONV_CHANNELS);
    float *out = ctx->out.data;
    switch (v) {
    case 1: return conv_v1(in->h_ext, ext_w, out, in->w, in->h, f->w32, f->radius);
    case 2: return conv_v2(in->h_ext, ext_w, out, in->w, in->h, f->w32, f->radius);
    case 3: return conv_v3(in->h_ext, ext_w, out, in->w, in->h, f->row, f->col, f->radius);
    }
    return KIT_UNSUPPORTED;
}

static const kit_part_glue parts[] = {{.part = "", .setup = setup, .launch = launch}};
static const kit_glue glue = {1, parts, NULL};

int main(int argc, char **argv)
{
    return kit_main(&kit_lab_spec, &glue, argc, argv);
}
