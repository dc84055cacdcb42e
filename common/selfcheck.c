/* selfcheck.c - the check of a student's run (handler.h): the outputs of
 * the warm-up, the last timed run and the run for --out against the CPU
 * reference (ref.c, linked into local builds only), with the diff picture of
 * a wrong one. The grader's runs (--dump) are judged by its own checker. */
#define _POSIX_C_SOURCE 200809L
#include "handler.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reference: in ref.c, linked into local builds only. */
extern const kit_lab_refs kit_lab_ref __attribute__((weak));
/* The threads the reference may use (common/ref.c, with the reference). */
extern int kit_ref_threads __attribute__((weak));

static const char *vname(const kit_ctx *ctx, int v)
{
    return kit_spec_variant(ctx->part, v)->name;
}

/* The references of the warm-up's content (the same for every variant) and of
 * the last content made, each kept while its content key and the variant's
 * reference class stay the same: a process that runs several variants makes
 * the warm-up's reference once, not once per variant. */
typedef struct {
    kit_buf buf;
    size_t cap;
    int valid, v, ref_class;
    unsigned long long key;
    double atol;
} ref_slot;

typedef struct {
    ref_slot slot[2]; /* [0] key 0 (the warm-up's), [1] any other */
    ref_slot *cur;    /* the one the last check used */
} ref_cache;

static int slot_holds(const kit_ctx *ctx, const ref_slot *s, int v)
{
    return s->valid && s->key == ctx->prob.key &&
           (s->v == v || (ctx->od.ref_class && s->ref_class == ctx->od.ref_class));
}

static int reference(kit_ctx *ctx, int v, ref_cache *rc)
{
    ref_slot *s = &rc->slot[ctx->prob.key == 0 ? 0 : 1];
    rc->cur = s;
    if (slot_holds(ctx, s, v))
        return 0;
    const kit_part_ref *pr = kit_part_reference(&kit_lab_ref, ctx->part->name);
    if (!pr) {
        kit_error("the reference of part '%s' is missing from this build", ctx->part->name);
        return -1;
    }
    kit_buf b = {ctx->od.type, ctx->od.w, ctx->od.h, ctx->od.c, ctx->od.planar, NULL};
    size_t need = kit_buf_bytes(&b);
    if (need > s->cap) {
        free(s->buf.data);
        s->buf.data = kit_malloc(need);
        s->cap = need;
    }
    b.data = s->buf.data;
    s->buf = b;
    s->valid = 0;
    char err[512];
    double atol = NAN;
    if (pr->reference(&ctx->prob, v, &s->buf, &atol, err, sizeof err)) {
        kit_error("the reference failed: %s", err);
        return -1;
    }
    s->valid = 1;
    s->key = ctx->prob.key;
    s->v = v;
    s->ref_class = ctx->od.ref_class;
    s->atol = atol;
    return 0;
}

/* Compare ctx->out with the reference; 0 pass, 1 fail (cmp filled). */
static int check_out(kit_ctx *ctx, int v, ref_cache *rc, kit_cmp *cmp)
{
    if (reference(ctx, v, rc))
        return -1;
    ref_slot *s = rc->cur;
    double atol = isnan(s->atol) ? ctx->od.atol : s->atol;
    if (isnan(atol))
        atol = 0.0;
    return kit_compare(&s->buf, &ctx->out, atol, ctx->od.rtol, cmp) ? 1 : 0;
}

static void print_failure(kit_ctx *ctx, int v, const kit_cmp *cmp, ref_cache *rc, const char *what)
{
    printf("%3d %-18s %-16s\n", v, vname(ctx, v), what);
    kit_cmp_print(stdout, cmp, "      ");
    if (kit_out_is_picture(ctx->out.h, ctx->out.c)) {
        char path[4096], err[512];
        snprintf(path, sizeof path, "%s/lab%s%s%s-v%d-%ldx%ld-diff.png", ctx->opt.diff_dir,
                 ctx->lab->lab, ctx->part->name[0] ? "-" : "", ctx->part->name, v,
                 ctx->prob.width, ctx->prob.height);
        const ref_slot *s = rc->cur;
        double atol = isnan(s->atol) ? ctx->od.atol : s->atol;
        if (kit_diff_picture(path, &s->buf, &ctx->out, isnan(atol) ? 0.0 : atol, ctx->od.rtol,
                             err, sizeof err) == 0)
            printf("      diff picture: %s\n", path);
        else
            kit_error("diff picture not written: %s", err);
    }
}

/* The check: the runs whose results are compared (the warm-up, the last timed
 * run, the run for --out) get their reference made before they run, so that
 * a run that writes into its input cannot change what it is held to. */
static int checked_run(const kit_ctx *ctx, int k)
{
    return k == 0 || k == ctx->opt.reps || k == KIT_RUN_FOR_OUT;
}

static int check_before(kit_ctx *ctx, int v, int k, void *st)
{
    return checked_run(ctx, k) ? reference(ctx, v, st) : 0;
}

static int check_result(kit_ctx *ctx, int v, int k, kit_cmp *cmp, void *st)
{
    return checked_run(ctx, k) ? check_out(ctx, v, st, cmp) : 0;
}

static void check_wrong(kit_ctx *ctx, int v, const kit_cmp *cmp, const char *what, void *st)
{
    print_failure(ctx, v, cmp, st, what);
}

static void *check_start(void)
{
    if (&kit_ref_threads)
        kit_ref_threads = 0; /* the references on every core: nothing is timed meanwhile */
    return kit_calloc(1, sizeof(ref_cache));
}

static void check_finish(void *st)
{
    ref_cache *rc = st;
    if (rc)
        for (int i = 0; i < 2; i++)
            free(rc->slot[i].buf.data);
    free(rc);
}

const kit_result_handler kit_check_handler = {"pass", "PASS", 1, check_start, check_finish,
                                              check_before, check_result, check_wrong, NULL};
