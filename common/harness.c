/* harness.c - the driver every lab binary shares (harness.h): the run of the
 * selected variants (warm-up, timed repetitions on fresh content, checks
 * against the reference), the table, --out, --results and the exit code. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "handler.h"
#include "options.h"
#include "protocol.h"
#include "results.h"
#include "timing.h"

/* The reference: in ref.c, linked into local builds only. */
extern const kit_lab_refs kit_lab_ref __attribute__((weak));

void kit_poison(kit_buf *b, unsigned char pattern)
{
    memset(b->data, b->type == KIT_U8 ? pattern : 0xFF, kit_buf_bytes(b));
}

unsigned char kit_poison_byte(const kit_ctx *ctx)
{
    return ctx->out.type == KIT_U8 ? ctx->poison : 0xFF;
}

/* ----------------------------------------------------------- the run */

typedef struct {
    const kit_lab_desc *lab;
    const kit_glue *glue;
} kit_prog_desc;

static const char *vname(const kit_ctx *ctx, int v)
{
    return kit_spec_variant(ctx->part, v)->name;
}

static void row_init(kit_row *r, const kit_ctx *ctx, int v)
{
    memset(r, 0, sizeof *r);
    snprintf(r->lab, sizeof r->lab, "%s", ctx->lab->lab);
    snprintf(r->part, sizeof r->part, "%s", ctx->part->name);
    r->variant = v;
    snprintf(r->name, sizeof r->name, "%s", vname(ctx, v));
    snprintf(r->span, sizeof r->span, "%s", kit_span_name(kit_spec_variant(ctx->part, v)->span));
    r->width = ctx->prob.width;
    r->height = ctx->prob.height;
    snprintf(r->param, sizeof r->param, "%s", ctx->prob.param);
    r->kernel_ms = r->kernel_ms_std = r->kernel_ms_median = NAN;
    r->total_ms = r->total_ms_std = r->total_ms_median = r->gbps = NAN;
    r->max_abs_err = r->max_rel_err = NAN;
    r->mismatches = -1;
    if (ctx->glue->config) /* it may set ctx->threads for this variant's row */
        ctx->glue->config((kit_ctx *)ctx, v, r->config, sizeof r->config);
    r->threads = ctx->threads > 0 ? ctx->threads : 1;
}

/* Where variant v's output goes: ctx->out of od's shape (reallocated when
 * the size changes). */
static void out_alloc(kit_ctx *ctx, void **mem, size_t *cap)
{
    kit_buf b = {ctx->od.type, ctx->od.w, ctx->od.h, ctx->od.c, ctx->od.planar, NULL};
    size_t need = kit_buf_bytes(&b);
    if (need > *cap) {
        if (*mem)
            ctx->glue->host_free ? ctx->glue->host_free(ctx, *mem) : free(*mem);
        *mem = ctx->glue->host_alloc ? ctx->glue->host_alloc(ctx, need) : kit_malloc(need);
        *cap = need;
    }
    b.data = *mem;
    ctx->out = b;
}


typedef struct {
    int any_wrong, any_err, any_notimpl;
} outcome;

static void note_status(kit_row *row, outcome *oc, int r)
{
    if (r == KIT_NOT_IMPLEMENTED) {
        oc->any_notimpl = 1;
        snprintf(row->status, sizeof row->status, "not-implemented");
    } else {
        oc->any_err = 1;
        snprintf(row->status, sizeof row->status, "error");
    }
}

/* Run k of variant v on the content of key, handed to h: KIT_OK and *judged
 * (0 right or kept, 1 wrong, -1 error), or what the run returned. */
static int run_handed(kit_ctx *ctx, int v, int k, unsigned long long key, unsigned char poison,
                      const kit_result_handler *h, void *st, kit_run_times *t, kit_cmp *cmp,
                      int *judged)
{
    ctx->part->fresh(&ctx->prob, v, key);
    ctx->prob.key = key;
    ctx->poison = poison;
    kit_poison(&ctx->out, ctx->poison);
    *judged = 0;
    if (h->before && h->before(ctx, v, k, st))
        return KIT_RUNTIME_ERROR;
    if (k > 0 && kit_ctl_note(ctx, "go", v, k))
        return KIT_RUNTIME_ERROR;
    int r = kit_run_once(ctx, v, t);
    if (r == KIT_OK && k > 0 && kit_ctl_note(ctx, "done", v, k))
        return KIT_RUNTIME_ERROR;
    if (r == KIT_OK)
        *judged = h->result(ctx, v, k, cmp, st);
    return r;
}

/* What a judged result that is not right does to the row: the word the
 * table shows. */
static const char *judged_fail(kit_row *row, outcome *oc, int judged, int k)
{
    if (judged < 0) {
        oc->any_err = 1;
        snprintf(row->status, sizeof row->status, "error");
        return "ERROR";
    }
    oc->any_wrong = 1;
    snprintf(row->status, sizeof row->status, "FAIL");
    return k == 0 ? "FAIL" : "FAIL (timed run)";
}

static void fill_times(kit_ctx *ctx, int v, kit_row *row, double *ks, double *ts,
                       int reps, kit_stats *sk, kit_stats *st)
{
    kit_stats_compute(ks, reps, sk);
    kit_stats_compute(ts, reps, st);
    row->kernel_ms = sk->mean;
    row->kernel_ms_std = sk->std;
    row->kernel_ms_median = sk->median;
    row->total_ms = st->mean;
    row->total_ms_std = st->std;
    row->total_ms_median = st->median;
    double bytes = ctx->part->bytes ? ctx->part->bytes(&ctx->prob, v) : 0.0;
    row->gbps = (bytes > 0 && sk->median > 0) ? bytes / (sk->median * 1e6) : NAN;
}

/* --out: the case's own result, run again and judged like the warm-up; kept
 * in *keep when it is right (else an earlier variant's picture stays). */
static void keep_for_out(kit_ctx *ctx, int v, const kit_result_handler *h, void *st,
                         kit_buf *keep, int *keep_v)
{
    kit_run_times t;
    kit_cmp again;
    int judged;
    int r = run_handed(ctx, v, KIT_RUN_FOR_OUT, 0, ctx->poison, h, st, &t, &again, &judged);
    if (r != KIT_OK || judged != 0)
        return;
    free(keep->data);
    *keep = ctx->out;
    keep->data = kit_malloc(kit_buf_bytes(&ctx->out));
    memcpy(keep->data, ctx->out.data, kit_buf_bytes(&ctx->out));
    *keep_v = v;
}

/* One variant: warm-up, timed repetitions, each result handed to h (st:
 * its state), the row. */
static void run_variant(kit_ctx *ctx, int v, kit_row *row, outcome *oc,
                        const kit_result_handler *h, void *st, void **outmem, size_t *outcap,
                        kit_buf *keep, int *keep_v)
{
    const int reps = ctx->opt.reps;
    char why[256];
    row_init(row, ctx, v);
    row->reps = reps;
    if (!ctx->part->output(&ctx->prob, v, &ctx->od, why, sizeof why) ||
        (ctx->glue->supports && !ctx->glue->supports(ctx, v, why, sizeof why))) {
        snprintf(row->status, sizeof row->status, "unsupported");
        ctx->out.data = NULL;
        if (h->end && h->end(ctx, v, "unsupported", 0, 0, NULL, 0))
            oc->any_err = 1;
        if (!ctx->opt.quiet)
            printf("%3d %-18s %-16s (%s)\n", v, vname(ctx, v), "skipped", why);
        return;
    }
    out_alloc(ctx, outmem, outcap);
    double *ks = kit_malloc((size_t)reps * sizeof *ks), *ts = kit_malloc((size_t)reps * sizeof *ts);
    kit_rep_rec *recs = kit_calloc((size_t)reps, sizeof *recs);
    kit_cmp cmp = {0};
    kit_run_times t;
    long long t0 = kit_mono_ns();
    const char *fail = NULL;
    int n = 0, r, judged;

    /* the warm-up on the case's own input, then the timed repetitions: fresh
     * content each, the other poison pattern on the last */
    r = run_handed(ctx, v, 0, 0, 0xA5, h, st, &t, &cmp, &judged);
    if (r != KIT_OK) {
        note_status(row, oc, r);
        fail = r == KIT_NOT_IMPLEMENTED ? "not implemented" : "ERROR";
    } else if (judged) {
        fail = judged_fail(row, oc, judged, 0);
    }
    for (n = 0; !fail && n < reps; n++) {
        unsigned long long key;
        if (kit_rep_key_for(ctx, v, n + 1, &key)) {
            oc->any_err = 1;
            snprintf(row->status, sizeof row->status, "error");
            fail = "ERROR";
            break;
        }
        r = run_handed(ctx, v, n + 1, key, n == reps - 1 ? 0x5A : 0xA5, h, st, &t, &cmp, &judged);
        if (r != KIT_OK) {
            note_status(row, oc, r);
            fail = r == KIT_NOT_IMPLEMENTED ? "not implemented" : "ERROR";
            break;
        }
        ks[n] = t.kernel_ms;
        ts[n] = t.total_ms;
        recs[n] = (kit_rep_rec){n + 1, key, t.l0, t.l1, t.kernel_ms, t.total_ms};
        if (judged) {
            fail = judged_fail(row, oc, judged, n + 1);
            n++; /* it ran: its rep line stays */
            break;
        }
    }
    if (h->end && h->end(ctx, v, !fail ? "ok" : row->status, t0, kit_mono_ns(), recs, n) &&
        !fail) {
        oc->any_err = 1;
        snprintf(row->status, sizeof row->status, "error");
        fail = "ERROR";
    }
    if (!fail || !strncmp(fail, "FAIL", 4)) {
        row->max_abs_err = cmp.max_abs_err;
        row->max_rel_err = cmp.max_rel_err;
        row->mismatches = h->judged ? (long)cmp.mismatches : -1;
    }
    if (fail) {
        if (!strncmp(fail, "FAIL", 4) && h->wrong)
            h->wrong(ctx, v, &cmp, fail, st);
        else if (!ctx->opt.quiet)
            printf("%3d %-18s %-16s\n", v, vname(ctx, v), fail);
    } else {
        kit_stats sk, stt;
        fill_times(ctx, v, row, ks, ts, reps, &sk, &stt);
        snprintf(row->status, sizeof row->status, "%s", h->pass_status);
        if (!ctx->opt.quiet) {
            if (ctx->gpu)
                printf("%3d %-18s %-16s %12.4f %10.4f %12.4f %10.4f %9.1f\n", v, vname(ctx, v),
                       h->pass_word, sk.median, sk.std, stt.median, stt.std, row->gbps);
            else
                printf("%3d %-18s %-16s %12.3f %10.3f %9.2f\n", v, vname(ctx, v), h->pass_word,
                       sk.median, sk.std, row->gbps);
        }
        if (ctx->opt.out && kit_out_is_picture(ctx->out.h, ctx->out.c))
            keep_for_out(ctx, v, h, st, keep, keep_v);
    }
    fflush(stdout);
    free(ks);
    free(ts);
    free(recs);
}

static void print_header(const kit_ctx *ctx)
{
    if (ctx->opt.quiet)
        return;
    printf("lab %s%s%s: %s\n", ctx->lab->lab, ctx->part->name[0] ? ", part " : "",
           ctx->part->name, ctx->part->title);
    printf("input %ldx%ld%s%s, %d timed runs after a warm-up, each on fresh content\n",
           ctx->prob.width, ctx->prob.height, ctx->prob.param[0] ? " " : "", ctx->prob.param,
           ctx->opt.reps);
    if (ctx->gpu)
        printf("%3s %-18s %-16s %12s %10s %12s %10s %9s\n", "v", "name", "result", "kernel ms",
               "std", "total ms", "std", "GB/s");
    else
        printf("%3s %-18s %-16s %12s %10s %9s\n", "v", "name", "result", "ms (median)", "std",
               "GB/s");
    fflush(stdout);
}

/* Refuse, before anything runs, what cannot work: a variant chosen alone
 * (--variant N) that cannot take this input, --out for outputs that are not
 * pictures. Of all the variants or a list, one that cannot run is skipped
 * (its row says unsupported), as the grader's timed runs expect. */
int kit_variant_chosen(const kit_ctx *ctx, int v)
{
    if (ctx->opt.variant >= 0)
        return v == ctx->opt.variant;
    return !ctx->opt.vlist || ((ctx->opt.vlist >> (v - ctx->part->first_variant)) & 1ULL);
}

static int precheck(kit_ctx *ctx, int first, int last)
{
    char why[256];
    int pictures = 0;
    for (int v = first; v <= last; v++) {
        if (!kit_variant_chosen(ctx, v))
            continue;
        kit_outdesc od;
        int ok = ctx->part->output(&ctx->prob, v, &od, why, sizeof why);
        if (ok && ctx->glue->supports) {
            ctx->od = od;
            ok = ctx->glue->supports(ctx, v, why, sizeof why);
        }
        if (!ok && first == last) {
            kit_error("variant %d cannot run here: %s", v, why);
            if (ctx->opt.dump_dir) /* the grader reads "n/a" */
                kit_dump_meta(ctx, v, "unsupported", 0, 0, NULL, 0);
            return KIT_EXIT_USAGE;
        }
        pictures |= ok && kit_out_is_picture(od.h, od.c);
    }
    if (ctx->opt.out && !pictures) {
        kit_error("--out: the result of %s is not a picture", first == last ? "this variant" : "these variants");
        return KIT_EXIT_USAGE;
    }
    return 0;
}

static void teardown(kit_ctx *ctx, int gpu_started)
{
    if (ctx->glue && ctx->glue->teardown)
        ctx->glue->teardown(ctx);
    if (ctx->part && ctx->part->release)
        ctx->part->release(&ctx->prob);
    if (gpu_started && ctx->gpu->shutdown)
        ctx->gpu->shutdown();
}

static int main_once(void *arg, int argc, char **argv)
{
    const kit_prog_desc *pd = arg;
    kit_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.lab = pd->lab;
    ctx.gpu = pd->glue->gpu;
    int rc = kit_parse_command(pd->lab, pd->lab->gpu, argc, argv, &ctx.opt, &ctx.part, &ctx.args);
    if (rc == 1)
        return KIT_EXIT_OK;
    if (rc)
        return rc;
    for (int i = 0; i < pd->glue->nparts; i++)
        if (!strcmp(pd->glue->parts[i].part, ctx.part->name))
            ctx.glue = &pd->glue->parts[i];
    if (!ctx.glue) {
        kit_error("internal error: part '%s' has no glue in main.c", ctx.part->name);
        return KIT_EXIT_RUNTIME;
    }
    if (!ctx.opt.dump_dir && !&kit_lab_ref) {
        kit_error("this build has no CPU reference (a graded build): run it under the grader");
        return KIT_EXIT_USAGE;
    }
    if (kit_check_paths(&ctx.opt))
        return KIT_EXIT_USAGE;
    char err[1024];
    if (ctx.opt.results && kit_results_check(ctx.opt.results, err, sizeof err)) {
        kit_error("%s", err);
        return KIT_EXIT_USAGE;
    }

    /* A timed run of the grader's (--ctl): the GPU's context first, then the gate, before
     * anything that may call into the student's files (the lab's checks of a variant do) */
    int gpu_up = 0;
    if (ctx.opt.ctl_in >= 0) {
        if (ctx.gpu && (rc = ctx.gpu->init(ctx.opt.device)))
            return rc;
        gpu_up = ctx.gpu != NULL;
        if (kit_ctl_gate(&ctx))
            return KIT_EXIT_RUNTIME; /* refused at the gate: nothing more, not even a teardown */
    }

    /* the case's input: bad input is a usage error, before any GPU work */
    ctx.prob.part = ctx.part;
    ctx.prob.args = &ctx.args;
    ctx.prob.seed = ctx.opt.seed;
    if (ctx.part->make(&ctx.prob, err, sizeof err)) {
        kit_error("%s", err);
        teardown(&ctx, gpu_up);
        return KIT_EXIT_USAGE;
    }
    int explicit_variant = ctx.opt.variant >= 0;
    int first = explicit_variant ? ctx.opt.variant : ctx.part->first_variant;
    int last = explicit_variant ? ctx.opt.variant : ctx.part->first_variant + ctx.part->nvariants - 1;
    while (ctx.opt.vlist && !kit_variant_chosen(&ctx, first)) /* a list: from its first to its last */
        first++;
    while (ctx.opt.vlist && !kit_variant_chosen(&ctx, last))
        last--;
    if ((rc = precheck(&ctx, first, last))) {
        teardown(&ctx, gpu_up);
        return rc;
    }
    if (ctx.opt.save_input && !ctx.prob.input.data) {
        kit_error("--save-input: the input of lab %s%s%s is not a picture", ctx.lab->lab,
                  ctx.part->name[0] ? ", part " : "", ctx.part->name);
        teardown(&ctx, gpu_up);
        return KIT_EXIT_USAGE;
    }
    if (ctx.opt.save_input &&
        kit_buf_save_picture(ctx.opt.save_input, &ctx.prob.input, err, sizeof err)) {
        kit_error("%s", err);
        teardown(&ctx, gpu_up);
        return KIT_EXIT_USAGE;
    }
    if (ctx.gpu && !gpu_up && (rc = ctx.gpu->init(ctx.opt.device))) {
        teardown(&ctx, gpu_up);
        return rc;
    }
    if ((rc = ctx.glue->setup ? ctx.glue->setup(&ctx) : 0)) {
        teardown(&ctx, ctx.gpu != NULL);
        return rc;
    }

    print_header(&ctx);
    kit_row *rows = kit_calloc((size_t)(last - first + 1), sizeof *rows);
    outcome oc = {0, 0, 0};
    void *outmem = NULL;
    size_t outcap = 0;
    kit_buf keep = {0};
    int keep_v = -1;
    int nrows = 0;
    /* each result to the check (a student's run) or the dump (the grader's) */
    const kit_result_handler *handler = ctx.opt.dump_dir ? &kit_dump_handler : &kit_check_handler;
    void *hstate = handler->start ? handler->start() : NULL;
    for (int v = first; v <= last; v++) {
        if (!kit_variant_chosen(&ctx, v))
            continue;
        if (nrows && ctx.gpu && ctx.gpu->healthy && !ctx.gpu->healthy()) {
            /* a sticky error spoilt the context: what comes after is not run (the
             * grader times those variants in processes of their own) */
            kit_error("the GPU is in an error state after variant %d; the variants after it "
                      "are not run", rows[nrows - 1].variant);
            oc.any_err = 1;
            break;
        }
        run_variant(&ctx, v, &rows[nrows++], &oc, handler, hstate, &outmem, &outcap, &keep,
                    &keep_v);
    }

    if (ctx.opt.out && keep.data) {
        /* an output of several pictures one under the other (a batch) too
         * high for one picture is shown as a sheet of its first ones */
        int frame_h = ctx.prob.height > 0 && ctx.prob.height < keep.h ? (int)ctx.prob.height : 0;
        int shown, total;
        if (kit_buf_save_frames(ctx.opt.out, &keep, frame_h, &shown, &total, err, sizeof err)) {
            kit_error("%s", err);
            oc.any_err = 1;
        } else if (shown < total) {
            printf("wrote %s (variant %d): the first %d of its %d pictures, side by side\n",
                   ctx.opt.out, keep_v, shown, total);
        } else if (!ctx.opt.quiet) {
            printf("wrote %s (variant %d)\n", ctx.opt.out, keep_v);
        }
    }
    if (ctx.opt.results &&
        kit_results_append(ctx.opt.results, rows, nrows, ctx.lab->lab, argc, argv,
                           ctx.threads > 0 ? ctx.threads : 1, ctx.gpu ? ctx.gpu->lines : NULL,
                           err, sizeof err)) {
        kit_error("%s", err);
        oc.any_err = 1;
    }
    free(keep.data);
    free(rows);
    if (handler->finish)
        handler->finish(hstate);
    if (outmem)
        ctx.glue->host_free ? ctx.glue->host_free(&ctx, outmem) : free(outmem);
    teardown(&ctx, ctx.gpu != NULL);
    if (oc.any_err)
        return KIT_EXIT_RUNTIME;
    if (oc.any_wrong)
        return KIT_EXIT_WRONG;
    if (oc.any_notimpl)
        return KIT_EXIT_NOTIMPL;
    return KIT_EXIT_OK;
}

/* Whether the GPU side is spoilt (a sticky error): --cases stops there. */
static int gpu_broken(void *arg)
{
    const kit_prog_desc *pd = arg;
    const kit_gpu_ops *g = pd->glue->gpu;
    return g && g->healthy && !g->healthy();
}

int kit_main(const kit_lab_desc *lab, const kit_glue *glue, int argc, char **argv)
{
    const char *slash = strrchr(argv[0], '/');
    kit_prog = slash ? slash + 1 : argv[0];
    kit_prog_desc pd = {lab, glue};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases")) {
            if (i + 1 >= argc)
                return kit_usage_error("option --cases needs a value");
            return kit_main_cases(argc, argv, i, 2, argv[i + 1], main_once, gpu_broken, &pd);
        }
        if (!strncmp(argv[i], "--cases=", 8))
            return kit_main_cases(argc, argv, i, 1, argv[i] + 8, main_once, gpu_broken, &pd);
    }
    return main_once(&pd, argc, argv);
}
