/* timeline.c - the GPU activity of each run of lab 05, recorded in-process
 * with common/cupti_trace.c (harness05.h): for every run, how long each
 * engine was busy (copy in, kernels, copy out) inside its launch window;
 * for every variant the medians of those, printed, and with --timeline DIR
 * its last run's records (the file format of DESIGN.md, "GPU activity
 * records") and a row of DIR/engines.tsv, which `make timeline` draws.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness05.h"
#include "timing.h"

struct lab_trace {
    int on, quiet;
    const char *part;
    const char *dir;               /* --timeline DIR, or NULL */
    int pending, pending_v;        /* a run whose records wait to be collected */
    unsigned long long t0;         /* when its launch began */
    int v;                         /* the variant whose runs are kept (-1: none) */
    kit_trace_busy *runs;
    int nruns, cap;
    kit_trace_rec *last;           /* the last run's records */
    size_t nlast;
};

lab_trace *lab_trace_open(const kit_ctx *ctx)
{
    lab_trace *t = kit_calloc(1, sizeof *t);
    t->v = -1;
    t->quiet = ctx->opt.quiet;
    t->part = ctx->part->name;
    const char *dir = kit_arg_str(&ctx->args, "--timeline");
    t->dir = dir[0] ? dir : NULL;
    if (ctx->opt.dump_dir || kit_arg_given(&ctx->args, "--no-trace"))
        return t; /* graded runs: the grader records them itself */
    char err[256];
    if (kit_trace_start(err, sizeof err) == 0)
        t->on = 1;
    else if (!t->quiet)
        printf("(no engine busy times: %s)\n", err);
    return t;
}

int lab_trace_on(const lab_trace *t)
{
    return t->on;
}

void lab_trace_launch(lab_trace *t, int v, int begin)
{
    if (begin) {
        t->t0 = kit_trace_now();
        t->pending_v = v;
    } else {
        t->pending = 1;
    }
}

void lab_trace_collect(lab_trace *t)
{
    if (!t->on)
        return;
    kit_trace_rec *r = NULL;
    size_t n = 0, dropped = 0;
    if (kit_trace_collect(&r, &n, &dropped) != 0 || !t->pending) {
        free(r);
        return;
    }
    t->pending = 0;
    if (t->pending_v != t->v) {
        t->v = t->pending_v;
        t->nruns = 0;
    }
    /* Every record collected now is the run's: the collection before it came
     * after the previous run, and between the two the harness records
     * nothing (its L2 flush is a memset, its marks are events). None is
     * dropped for starting a little before t0, which the conversion of GPU
     * time to host time could make happen; the span counts from t0. */
    if (t->nruns == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->runs = realloc(t->runs, (size_t)t->cap * sizeof *t->runs);
        if (!t->runs)
            kit_die(KIT_EXIT_RUNTIME, "out of memory");
    }
    kit_trace_busy *b = &t->runs[t->nruns++];
    kit_trace_busy_of(r, n, 0, 0, b);
    unsigned long long last = t->t0;
    for (size_t i = 0; i < n; i++)
        if (r[i].end > last)
            last = r[i].end;
    b->span_ms = (double)(last - t->t0) / 1e6;
    b->overlap = b->busiest_ms > 0 ? b->span_ms / b->busiest_ms : 0.0;
    free(t->last);
    t->last = r;
    t->nlast = n;
}

/* The median of one field over the kept runs. */
static double median_of(const lab_trace *t, size_t offset)
{
    double *x = kit_malloc((size_t)t->nruns * sizeof *x);
    for (int i = 0; i < t->nruns; i++)
        x[i] = *(const double *)((const char *)&t->runs[i] + offset);
    kit_stats st;
    kit_stats_compute(x, t->nruns, &st);
    free(x);
    return st.median;
}

#define MEDIAN(field) median_of(t, offsetof(kit_trace_busy, field))

static void write_records(lab_trace *t, int v)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-v%d.tsv", t->dir, t->part, v);
    FILE *fp = fopen(path, "w");
    if (!fp || kit_trace_write(fp, t->last, t->nlast, kit_trace_cupti_now(), kit_trace_now(), 0)) {
        kit_error("cannot write %s: %s", path, strerror(errno));
        if (fp)
            fclose(fp);
        return;
    }
    fclose(fp);
    if (!t->quiet)
        printf("      records of the last run: %s\n", path);
}

static void write_engines_row(const lab_trace *t, const kit_ctx *ctx, int v, const char *label,
                              double span, double in, double k, double out, double ratio,
                              double peak_mib, double decode_ms)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/engines.tsv", t->dir);
    struct stat st;
    int fresh = stat(path, &st) != 0 || st.st_size == 0;
    FILE *fp = fopen(path, "a");
    if (!fp) {
        kit_error("cannot write %s: %s", path, strerror(errno));
        return;
    }
    const kit_trace_busy *b = &t->runs[t->nruns - 1];
    if (fresh)
        fprintf(fp, "part\tvariant\tname\tlabel\twidth\theight\tparam\tspan_ms\thtod_ms\t"
                    "kernel_ms\tdtoh_ms\toverlap\thtod_gb\tdtoh_gb\tkernels\tcopies\tstreams\t"
                    "peak_mib\tdecode_ms\n");
    fprintf(fp, "%s\t%d\t%s\t%s\t%ld\t%ld\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%zu\t%zu\t%d\t%.1f\t%.3f\n",
            t->part, v, kit_spec_variant(ctx->part, v)->name, label, ctx->prob.width,
            ctx->prob.height, ctx->prob.param, span, in, k, out, ratio, b->htod_bytes / 1e9,
            b->dtoh_bytes / 1e9, b->kernels, b->copies, b->streams, peak_mib, decode_ms);
    fclose(fp);
}

void lab_trace_done(lab_trace *t, const kit_ctx *ctx, int v, const char *label, double peak_mib,
                    double decode_ms)
{
    if (!t->on || t->v != v || t->nruns == 0 || !label) {
        t->nruns = 0;
        t->v = -1;
        return;
    }
    if (t->nruns > 1) { /* the warm-up (lazy loading, first touches) is not one of the timed runs */
        memmove(t->runs, t->runs + 1, (size_t)(t->nruns - 1) * sizeof *t->runs);
        t->nruns--;
    }
    const double span = MEDIAN(span_ms), in = MEDIAN(htod_ms), k = MEDIAN(kernel_ms),
                 out = MEDIAN(dtoh_ms), ratio = MEDIAN(overlap);
    const kit_trace_busy *b = &t->runs[t->nruns - 1];
    if (!t->quiet)
        printf("      engines  span %.3f ms | copy in %.3f ms, %.3f GB | kernels %.3f ms (%zu) | "
               "copy out %.3f ms, %.3f GB | span/busiest %.2f | %d stream%s\n",
               span, in, b->htod_bytes / 1e9, k, b->kernels, out, b->dtoh_bytes / 1e9, ratio,
               b->streams, b->streams == 1 ? "" : "s");
    if (t->dir) {
        write_records(t, v);
        write_engines_row(t, ctx, v, label, span, in, k, out, ratio, peak_mib, decode_ms);
    }
    t->nruns = 0;
    t->v = -1;
}

void lab_trace_close(lab_trace *t)
{
    if (!t)
        return;
    if (t->on)
        kit_trace_stop();
    free(t->runs);
    free(t->last);
    free(t);
}
