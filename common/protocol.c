/* protocol.c - the timing protocol: one run of a variant, composed from its
 * glue (prepare, upload, launch, download) by the span its spec declares.
 * The only place where the kit decides what a timed span holds.
 *
 *   host span (CPU variants):  host clock around launch()
 *   kernel span (GPU):         upload (waited for); L2 flushed; events around launch();
 *                              download. total = upload + launch + download
 *   total span (GPU):          L2 flushed; events around upload, launch and
 *                              download. kernel = launch() alone
 * The launch window [l0, l1] (CLOCK_MONOTONIC) runs from the call of launch()
 * to the end of its work on the GPU, on every stream (the GPU side's wait): the
 * grader attributes GPU activity records to a repetition by it. */
#include "protocol.h"

#include <stdio.h>

#include "timing.h"

static int gpu_fail(const char *what)
{
    kit_error("the timing protocol failed at %s (a CUDA error above says why)", what);
    return KIT_RUNTIME_ERROR;
}

#define STEP(call, what)                                                                   \
    do {                                                                                   \
        if ((call) != 0)                                                                   \
            return gpu_fail(what);                                                         \
    } while (0)

static int host_run(kit_ctx *ctx, int v, kit_run_times *t)
{
    t->l0 = kit_mono_ns();
    double a = kit_now_ms();
    int r = ctx->glue->launch(ctx, v);
    double b = kit_now_ms();
    t->l1 = kit_mono_ns();
    t->kernel_ms = t->total_ms = b - a;
    return r;
}

/* An optional glue step. */
static int step(int (*fn)(kit_ctx *, int), kit_ctx *ctx, int v)
{
    return fn ? fn(ctx, v) : KIT_OK;
}

static int gpu_total(kit_ctx *ctx, int v, kit_run_times *t)
{
    const kit_gpu_ops *g = ctx->gpu;
    const kit_part_glue *gl = ctx->glue;
    int r;
    STEP(g->flush_l2(), "the L2 flush");
    STEP(g->mark(0), "an event");
    if ((r = step(gl->upload, ctx, v)) != KIT_OK)
        return r;
    STEP(g->mark(1), "an event");
    t->l0 = kit_mono_ns();
    if ((r = gl->launch(ctx, v)) != KIT_OK)
        return r;
    STEP(g->mark(2), "an event");
    STEP(g->wait(2), "the end of the launch");
    t->l1 = kit_mono_ns();
    if ((r = step(gl->download, ctx, v)) != KIT_OK)
        return r;
    STEP(g->mark(3), "an event");
    STEP(g->wait(3), "the end of the download");
    STEP(g->elapsed(0, 3, &t->total_ms), "reading the events");
    STEP(g->elapsed(1, 2, &t->kernel_ms), "reading the events");
    return KIT_OK;
}

static int gpu_kernel(kit_ctx *ctx, int v, kit_run_times *t)
{
    const kit_gpu_ops *g = ctx->gpu;
    const kit_part_glue *gl = ctx->glue;
    int r;
    double up, rest;
    STEP(g->mark(0), "an event");
    if ((r = step(gl->upload, ctx, v)) != KIT_OK)
        return r;
    STEP(g->mark(1), "an event");
    /* cudaMemcpy from pageable memory returns before its last DMA ends: wait
     * for it, so that no copy of the upload falls in the launch window */
    STEP(g->wait(1), "the end of the upload");
    STEP(g->flush_l2(), "the L2 flush");
    STEP(g->mark(2), "an event");
    t->l0 = kit_mono_ns();
    if ((r = gl->launch(ctx, v)) != KIT_OK)
        return r;
    STEP(g->mark(3), "an event");
    STEP(g->wait(3), "the end of the launch");
    t->l1 = kit_mono_ns();
    if ((r = step(gl->download, ctx, v)) != KIT_OK)
        return r;
    STEP(g->mark(4), "an event");
    STEP(g->wait(4), "the end of the download");
    STEP(g->elapsed(2, 3, &t->kernel_ms), "reading the events");
    STEP(g->elapsed(0, 1, &up), "reading the events");
    STEP(g->elapsed(2, 4, &rest), "reading the events");
    t->total_ms = up + rest;
    return KIT_OK;
}

int kit_run_once(kit_ctx *ctx, int v, kit_run_times *t)
{
    const kit_variant_desc *vd = kit_spec_variant(ctx->part, v);
    t->kernel_ms = t->total_ms = 0.0;
    t->l0 = t->l1 = 0;
    int r = step(ctx->glue->prepare, ctx, v);
    if (r != KIT_OK)
        return r;
    if (!ctx->gpu || vd->span == KIT_SPAN_HOST)
        return host_run(ctx, v, t);
    if (vd->span == KIT_SPAN_TOTAL)
        return gpu_total(ctx, v, t);
    return gpu_kernel(ctx, v, t);
}
