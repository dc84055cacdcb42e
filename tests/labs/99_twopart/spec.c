/* spec.c - the test lab's description: two parts with their own options,
 * inputs, outputs and tolerances (common/spec.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convin.h"
#include "spec.h"
#include "twopart.h"

/* ----------------------------------------------------------- part scale */

static const kit_optdesc scale_opts[] = {
    {"--n", KIT_ARG_INT, KIT_ARG_INPUT, "N", "elements of x", "1000", 1, 1 << 26},
    KIT_OPTD_END};
static const kit_variant_desc scale_variants[] = {
    {"loop", "one element a step (given)", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 1},
    {"unrolled", "four elements a step", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
};

static int scale_make(kit_problem *p, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    scale_problem *q = kit_calloc(1, sizeof *q);
    p->data = q;
    q->n = (size_t)kit_arg_int(p->args, "--n");
    q->s_x = p->seed * 0x9E3779B97F4A7C15ULL + 1;
    q->h_x = kit_malloc(q->n * sizeof(double));
    kit_fill_uniform(q->h_x, q->n, q->s_x, 0);
    p->width = (long)q->n;
    p->height = 1;
    snprintf(p->param, sizeof p->param, "a=%g", SCALE_A);
    return 0;
}

static void scale_fresh(kit_problem *p, int v, unsigned long long key)
{
    scale_problem *q = p->data;
    (void)v;
    kit_fill_uniform(q->h_x, q->n, key ? q->s_x ^ key : q->s_x, 0);
}

static int scale_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    const scale_problem *q = p->data;
    (void)v;
    (void)why;
    (void)whylen;
    *o = (kit_outdesc){KIT_F64, (int)q->n, 1, 1, 0, 1e-12, 1e-12, 1};
    return 1;
}

static double scale_bytes(const kit_problem *p, int v)
{
    (void)v;
    return 16.0 * (double)((const scale_problem *)p->data)->n;
}

static void scale_release(kit_problem *p)
{
    scale_problem *q = p->data;
    if (q)
        free(q->h_x);
    free(q);
    p->data = NULL;
}

/* ---------------------------------------------------------- part invert */

static const kit_optdesc invert_opts[] = {KIT_OPTD_SIZE("64x48"), KIT_OPTD_END};
static const kit_variant_desc invert_variants[] = {
    {"bytes", "one byte at a time", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
    {"rows", "a row at a time", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
};

static int invert_make(kit_problem *p, char *err, size_t errlen)
{
    invert_problem *q = kit_calloc(1, sizeof *q);
    p->data = q;
    kit_image img = {0};
    if (kit_input_picture(p->args, p->seed, 1, &img, err, errlen))
        return KIT_EXIT_USAGE;
    q->w = img.w;
    q->h = img.h;
    q->h_base = img.px;
    q->h_px = kit_malloc((size_t)q->w * (size_t)q->h);
    memcpy(q->h_px, q->h_base, (size_t)q->w * (size_t)q->h);
    p->width = q->w;
    p->height = q->h;
    snprintf(p->param, sizeof p->param, "grey");
    p->input = (kit_buf){KIT_U8, q->w, q->h, 1, 0, q->h_px};
    return 0;
}

static void invert_fresh(kit_problem *p, int v, unsigned long long key)
{
    invert_problem *q = p->data;
    (void)v;
    kit_bytes_fresh(q->h_px, q->h_base, (size_t)q->w * (size_t)q->h, key);
}

static int invert_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    const invert_problem *q = p->data;
    if (v == 2 && q->w == 7) { /* a refusal to test n/a with */
        kit_set_err(why, whylen, "v2 does not take pictures 7 pixels wide");
        return 0;
    }
    *o = (kit_outdesc){KIT_U8, q->w, q->h, 1, 0, 0.0, 0.0, 1};
    return 1;
}

static double invert_bytes(const kit_problem *p, int v)
{
    const invert_problem *q = p->data;
    (void)v;
    return 2.0 * (double)q->w * (double)q->h;
}

static void invert_release(kit_problem *p)
{
    invert_problem *q = p->data;
    if (q) {
        free(q->h_base);
        free(q->h_px);
    }
    free(q);
    p->data = NULL;
}

static const kit_part_spec parts[] = {
    {.name = "scale", .title = "y = 2.5 x on doubles", .opts = scale_opts, .first_variant = 1,
     .nvariants = KIT_NELEMS(scale_variants), .variants = scale_variants, .make = scale_make,
     .fresh = scale_fresh, .output = scale_output, .bytes = scale_bytes, .release = scale_release},
    {.name = "invert", .title = "the negative of a grey picture", .opts = invert_opts,
     .first_variant = 1, .nvariants = KIT_NELEMS(invert_variants), .variants = invert_variants,
     .make = invert_make, .fresh = invert_fresh, .output = invert_output, .bytes = invert_bytes,
     .release = invert_release},
};

const kit_lab_desc kit_lab_spec = {"99", "the kit's test lab of two parts", 0, 2, parts};
