/* main.c - the test lab's glue: each part hands its functions their buffers. */
#include "harness.h"
#include "twopart.h"

static int scale_launch(kit_ctx *ctx, int v)
{
    const scale_problem *q = ctx->prob.data;
    return v == 1 ? scale_v1(q->h_x, ctx->out.data, q->n) : scale_v2(q->h_x, ctx->out.data, q->n);
}

static int invert_launch(kit_ctx *ctx, int v)
{
    const invert_problem *q = ctx->prob.data;
    return v == 1 ? invert_v1(q->h_px, ctx->out.data, q->w, q->h)
                  : invert_v2(q->h_px, ctx->out.data, q->w, q->h);
}

static const kit_part_glue parts[] = {{.part = "scale", .launch = scale_launch},
                                      {.part = "invert", .launch = invert_launch}};
static const kit_glue glue = {2, parts, NULL};

int main(int argc, char **argv)
{
    return kit_main(&kit_lab_spec, &glue, argc, argv);
}
