/* main.c - lab 05's glue (owned by the kit; students edit device.cu,
 * strip.cu and batch.cu): the table of its four parts (device and copies
 * are in basics.c); hands strip_v1..v5 and batch_v1..v5 their jobs, and around
 * each run keeps what the lesson is about:
 *  - the device memory budget (--gpu-mem): every allocation of the run is
 *    counted (devmem.c), one past the budget fails, the peak is printed;
 *  - page-locked host memory: the input and output buffers are page-locked
 *    (cudaHostRegister, outside the timed span) for the variants that need
 *    it, and pageable for the others;
 *  - the engines: each run's kernels and copies are recorded (timeline.c),
 *    and for each variant the busy time of copy in, kernels and copy out is
 *    printed beside the whole span;
 *  - batch v5: before each run (outside the timed span) the content of that
 *    run's key encoded as PNG in memory (loader.c), the pictures v5 decodes;
 *    its two page-locked group buffers, and the time of decoding alone (not
 *    measured in the grader's runs, which do not print it).
 * Every variant's timed span is the whole variant (span total): its
 * allocations, copies and kernels, and its wait for the last copy.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <omp.h>

#include "batch.h"
#include "harness.h"
#include "harness05.h"
#include "lab05.h"
#include "strip.h"
#include "timing.h"

#define LOCK_MAX 4
#define BUDGET_MARGIN ((size_t)512 << 20) /* left free for the kit's own buffers */

typedef struct {
    lab_trace *trace;
    int cur_v;                /* the variant whose runs are under way (-1: none yet) */
    int runs_ok;              /* its runs that returned KIT_OK */
    size_t peak;              /* the largest device memory peak of its runs */
    int leak_said;
    size_t budget;            /* strip: bytes a variant may hold */
    strip_job sj;
    batch_job bj;
    batch_source src;
    int src_ready;
    unsigned char *stage[2];  /* batch v5's page-locked group buffers */
    double decode_ms;         /* decoding alone (batch v5); < 0: not measured */
    double *v5_ms;            /* host time of each v5 run */
    int n_v5, cap_v5;
    struct {
        void *p;
        size_t n;
    } locked[LOCK_MAX];       /* buffers page-locked with cudaHostRegister */
    int nlocked;
} lab05;

static int is_strip(const kit_ctx *ctx)
{
    return !strcmp(ctx->part->name, "strip");
}

/* ------------------------------------------------------- page-locking */

static int lock_index(const lab05 *L, const void *p)
{
    for (int i = 0; i < L->nlocked; i++)
        if (L->locked[i].p == p)
            return i;
    return -1;
}

static int host_lock(lab05 *L, void *p, size_t n)
{
    if (!p || lock_index(L, p) >= 0)
        return KIT_OK;
    if (L->nlocked == LOCK_MAX) {
        kit_error("internal error: too many page-locked buffers");
        return KIT_RUNTIME_ERROR;
    }
    CUDA_CHECK(cudaHostRegister(p, n, cudaHostRegisterDefault));
    L->locked[L->nlocked].p = p;
    L->locked[L->nlocked].n = n;
    L->nlocked++;
    return KIT_OK;
}

static void host_unlock(lab05 *L, const void *p)
{
    int i = lock_index(L, p);
    if (i < 0)
        return;
    cudaHostUnregister(L->locked[i].p);
    L->locked[i] = L->locked[--L->nlocked];
}

/* Page-lock exactly the buffers listed (a and b, either may be NULL). */
static int host_lock_only(lab05 *L, void *a, size_t na, void *b, size_t nb)
{
    for (int i = L->nlocked; i-- > 0;)
        if (L->locked[i].p != a && L->locked[i].p != b)
            host_unlock(L, L->locked[i].p);
    int r = host_lock(L, a, na);
    return r != KIT_OK ? r : host_lock(L, b, nb);
}

static void *host_alloc(kit_ctx *ctx, size_t bytes)
{
    KIT_UNUSED(ctx);
    void *p = alloc_pages(bytes);
    if (!p)
        kit_die(KIT_EXIT_RUNTIME, "cannot allocate %.1f MiB of host memory", bytes / 1048576.0);
    return p;
}

static void host_free(kit_ctx *ctx, void *p)
{
    if (ctx->user)
        host_unlock(ctx->user, p);
    free(p);
}

/* --------------------------------------------------------- the budget */

/* The device memory budget of part strip: --gpu-mem, else what the GPU has
 * free less a margin. 0, or -1 when the GPU cannot say (no device yet). */
static int strip_budget(const kit_ctx *ctx, size_t *budget)
{
    if (kit_arg_given(&ctx->args, "--gpu-mem")) {
        *budget = (size_t)kit_arg_int(&ctx->args, "--gpu-mem") << 20;
        return 0;
    }
    const lab05 *L = ctx->user;
    if (L && L->budget) {
        *budget = L->budget;
        return 0;
    }
    size_t freeb = 0, total = 0;
    if (cudaSetDevice(ctx->opt.device) != cudaSuccess ||
        cudaMemGetInfo(&freeb, &total) != cudaSuccess) {
        cudaGetLastError(); /* not sticky: the harness reports the device itself */
        return -1;
    }
    *budget = freeb > 2 * BUDGET_MARGIN ? freeb - BUDGET_MARGIN : freeb / 2;
    return 0;
}

static double mib(size_t b)
{
    return (double)b / 1048576.0;
}

/* Buffer sets variant v holds at once. */
static int strip_sets(int v, const strip_job *j)
{
    return v <= 3 ? 1 : v == 4 ? 2 : j->streams;
}

/* Variant v's job for this input and budget: 1, or 0 with the reason it
 * cannot run within the budget. */
static int strip_plan(const kit_ctx *ctx, int v, size_t budget, strip_job *j, char *why,
                      size_t whylen)
{
    const strip_data *d = ctx->prob.data;
    const size_t W = (size_t)d->w, H = (size_t)d->h;
    const int R = d->f.radius;
    memset(j, 0, sizeof *j);
    j->h_in = d->in;
    j->width = d->w;
    j->height = d->h;
    j->radius = R;
    j->budget = budget;
    j->pinned = v >= 3 || kit_arg_given(&ctx->args, "--pinned");
    j->streams = (int)kit_arg_int(&ctx->args, "--streams");
    if (v == 1) {
        j->rows = d->h;
        j->streams = 1;
        const size_t need = 2 * W * H * sizeof(double);
        if (need > budget) {
            kit_set_err(why, whylen,
                        "v1 holds the whole picture, %.1f MiB with its tmp, past the --gpu-mem "
                        "budget of %.1f MiB",
                        mib(need), mib(budget));
            return 0;
        }
        return 1;
    }
    const int sets = v <= 3 ? 1 : v == 4 ? 2 : j->streams;
    long rows;
    if (kit_arg_given(&ctx->args, "--tile")) {
        rows = (long)(kit_arg_int(&ctx->args, "--tile") / (long)W);
    } else {
        const double per_row = 2.0 * sets * (double)W * sizeof(double);
        const long cap = (long)((H + 7) / 8);
        if ((double)budget >= per_row * (double)H)
            rows = cap; /* buffers of the whole picture's height would fit */
        else
            rows = KIT_MIN((long)((double)budget / per_row) - 2L * R, cap);
    }
    j->rows = (int)KIT_MAX(1L, KIT_MIN(rows, (long)H));
    /* a ring never needs more sets than there are strips */
    j->streams = KIT_MIN(j->streams, strip_count(j));
    const size_t need = (size_t)strip_sets(v, j) * strip_set_bytes(j);
    if (need > budget) {
        if (kit_arg_given(&ctx->args, "--tile"))
            kit_set_err(why, whylen,
                        "--tile %ld: %d buffer set%s of %d-row strips need %.1f MiB, past the "
                        "--gpu-mem budget of %.1f MiB",
                        kit_arg_int(&ctx->args, "--tile"), sets, sets == 1 ? "" : "s", j->rows,
                        mib(need), mib(budget));
        else
            kit_set_err(why, whylen,
                        "even one-row strips need %.1f MiB for v%d's %d buffer set%s, past the "
                        "--gpu-mem budget of %.1f MiB",
                        mib(need), v, sets, sets == 1 ? "" : "s", mib(budget));
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------- glue */

static int batch_loaders(const kit_ctx *ctx)
{
    if (kit_arg_given(&ctx->args, "--loaders"))
        return (int)kit_arg_int(&ctx->args, "--loaders");
    int n = omp_get_num_procs();
    return n < 1 ? 1 : n > 16 ? 16 : n;
}

static int setup(kit_ctx *ctx)
{
    lab05 *L = kit_calloc(1, sizeof *L);
    ctx->user = L;
    L->cur_v = -1;
    L->decode_ms = -1.0;
    const char *dir = kit_arg_str(&ctx->args, "--timeline");
    if (dir[0]) {
        struct stat st;
        if (stat(dir, &st) != 0 && mkdir(dir, 0777) != 0) {
            kit_error("--timeline %s: cannot make the folder: %s", dir, strerror(errno));
            return KIT_EXIT_USAGE;
        }
    }
    L->trace = lab_trace_open(ctx);
    if (dir[0] && !lab_trace_on(L->trace)) {
        kit_error("--timeline needs the GPU activity records, which this run does not take%s",
                  kit_arg_given(&ctx->args, "--no-trace") ? " (--no-trace)" : "");
        return KIT_EXIT_USAGE;
    }
    if (is_strip(ctx)) {
        const strip_data *d = ctx->prob.data;
        if (strip_budget(ctx, &L->budget)) {
            kit_error("cannot ask the GPU how much memory it has free");
            return KIT_EXIT_RUNTIME;
        }
        if (strip_upload_taps(d->f.row, d->f.col, d->f.radius) != KIT_OK)
            return KIT_EXIT_RUNTIME;
        return 0;
    }
    const batch_data *d = ctx->prob.data;
    if (batch_upload_filter(d->f.w32, d->f.radius) != KIT_OK)
        return KIT_EXIT_RUNTIME;
    batch_job *j = &L->bj;
    j->width = d->w;
    j->height = d->h;
    j->count = d->count;
    j->radius = d->f.radius;
    j->group = (int)kit_arg_int(&ctx->args, "--group");
    j->streams = (int)kit_arg_int(&ctx->args, "--streams");
    j->loaders = batch_loaders(ctx);
    ctx->threads = j->loaders;
    return 0;
}

static int supports(kit_ctx *ctx, int v, char *why, size_t whylen)
{
    if (!is_strip(ctx))
        return 1;
    size_t budget;
    if (strip_budget(ctx, &budget))
        return 1; /* no device to ask yet: the harness reports that first */
    strip_job j;
    return strip_plan(ctx, v, budget, &j, why, whylen);
}

/* The median of a few values (sorted in place). */
static double median(double *x, int n)
{
    kit_stats st;
    kit_stats_compute(x, n, &st);
    return st.median;
}

/* Variant v's runs are over: what it did, beside the harness's line. */
static void variant_done(kit_ctx *ctx, int v)
{
    lab05 *L = ctx->user;
    const int quiet = ctx->opt.quiet || ctx->opt.dump_dir;
    char label[64];
    if (is_strip(ctx))
        snprintf(label, sizeof label, "%s, budget %.0f MiB", L->sj.pinned ? "pinned" : "pageable",
                 mib(L->budget));
    else
        snprintf(label, sizeof label, "%s", L->bj.pinned ? "pinned" : "pageable");
    lab_trace_done(L->trace, ctx, v, L->runs_ok > 0 ? label : NULL, mib(L->peak),
                   v == 5 && !is_strip(ctx) ? L->decode_ms : -1.0);
    if (quiet || L->runs_ok == 0)
        return;
    if (is_strip(ctx)) {
        char what[128];
        if (v == 1)
            snprintf(what, sizeof what, "the whole picture");
        else
            snprintf(what, sizeof what, "%d strip%s of %d rows, %d buffer set%s",
                     strip_count(&L->sj), strip_count(&L->sj) == 1 ? "" : "s", L->sj.rows,
                     strip_sets(v, &L->sj), strip_sets(v, &L->sj) == 1 ? "" : "s");
        printf("      device memory  peak %.1f MiB of a %.1f MiB budget: %s\n", mib(L->peak),
               mib(L->budget), what);
    } else if (v == 5 && L->decode_ms > 0 && L->n_v5 > 0) {
        double run = median(L->v5_ms, L->n_v5);
        printf("      decoding alone  %.3f ms on %d thread%s (groups of %d); v5's runs take %.2fx "
               "that\n",
               L->decode_ms, L->bj.loaders, L->bj.loaders == 1 ? "" : "s", L->bj.group,
               run / L->decode_ms);
    }
    fflush(stdout);
}

/* Batch v5's pictures for this run: the content of the run's key (the one
 * the harness's fresh step set; every run has a key of its own, so nothing
 * is kept from one run to the next) encoded as PNG; once, the group buffers
 * and the time of decoding alone. Outside the timed span: the harness calls
 * prepare() before it starts the clock. */
static int batch_v5_ready(kit_ctx *ctx)
{
    lab05 *L = ctx->user;
    batch_job *j = &L->bj;
    if (!L->src_ready) {
        batch_source_make(&L->src, ctx->prob.data);
        L->src_ready = 1;
        j->src = &L->src;
    }
    if (batch_source_encode(&L->src, ctx->prob.data, ctx->prob.key))
        return KIT_RUNTIME_ERROR;
    if (!L->stage[0]) {
        const size_t bytes = (size_t)KIT_MIN(j->group, j->count) * batch_picture_bytes(j);
        for (int b = 0; b < 2; b++) {
            CUDA_CHECK(cudaHostAlloc((void **)&L->stage[b], bytes, cudaHostAllocDefault));
            j->h_stage[b] = L->stage[b];
        }
    }
    if (L->decode_ms < 0 && !ctx->opt.dump_dir) { /* the grader's runs: not asked */
        L->decode_ms = batch_decode_alone(&L->src, j->group, L->stage, j->loaders, 3);
        if (L->decode_ms < 0)
            return KIT_RUNTIME_ERROR;
    }
    return KIT_OK;
}

static int prepare(kit_ctx *ctx, int v)
{
    lab05 *L = ctx->user;
    lab_trace_collect(L->trace);
    if (v != L->cur_v) {
        if (L->cur_v >= 0)
            variant_done(ctx, L->cur_v);
        L->cur_v = v;
        L->runs_ok = 0;
        L->peak = 0;
        L->n_v5 = 0;
    }
    const size_t out_bytes = kit_buf_bytes(&ctx->out);
    if (is_strip(ctx)) {
        char why[256];
        if (!strip_plan(ctx, v, L->budget, &L->sj, why, sizeof why)) {
            kit_error("%s", why); /* supports() said so before: not reached */
            return KIT_UNSUPPORTED;
        }
        L->sj.h_out = ctx->out.data;
        const strip_data *d = ctx->prob.data;
        if (L->sj.pinned)
            return host_lock_only(L, d->in, (size_t)d->w * d->h * sizeof(double), ctx->out.data,
                                  out_bytes);
        return host_lock_only(L, NULL, 0, NULL, 0);
    }
    batch_data *d = ctx->prob.data;
    batch_job *j = &L->bj;
    j->h_in = d->px;
    j->h_out = ctx->out.data;
    j->pinned = (v == 4 && kit_arg_given(&ctx->args, "--pinned")) || v == 5;
    if (v == 5) {
        int r = batch_v5_ready(ctx);
        if (r != KIT_OK)
            return r;
        j->h_in = NULL;
        return host_lock_only(L, ctx->out.data, out_bytes, NULL, 0);
    }
    if (j->pinned)
        return host_lock_only(L, d->px, batch_data_picture(d) * d->count, ctx->out.data, out_bytes);
    return host_lock_only(L, NULL, 0, NULL, 0);
}

static int call_variant(kit_ctx *ctx, int v)
{
    lab05 *L = ctx->user;
    if (is_strip(ctx)) {
        switch (v) {
        case 1: return strip_v1(&L->sj);
        case 2: return strip_v2(&L->sj);
        case 3: return strip_v3(&L->sj);
        case 4: return strip_v4(&L->sj);
        case 5: return strip_v5(&L->sj);
        }
    } else {
        switch (v) {
        case 1: return batch_v1(&L->bj);
        case 2: return batch_v2(&L->bj);
        case 3: return batch_v3(&L->bj);
        case 4: return batch_v4(&L->bj);
        case 5: return batch_v5(&L->bj);
        }
    }
    return KIT_UNSUPPORTED;
}

static int launch(kit_ctx *ctx, int v)
{
    lab05 *L = ctx->user;
    char who[32];
    snprintf(who, sizeof who, "%s v%d", ctx->part->name, v);
    lab_trace_launch(L->trace, v, 1);
    const double t0 = kit_now_ms();
    devmem_begin(is_strip(ctx) ? L->budget : 0, who);
    int r = call_variant(ctx, v);
    size_t peak, left;
    devmem_end(&peak, &left);
    const double ms = kit_now_ms() - t0;
    lab_trace_launch(L->trace, v, 0);
    if (peak > L->peak)
        L->peak = peak;
    if (r == KIT_OK)
        L->runs_ok++;
    if (left && !L->leak_said) {
        kit_error("%s still holds %.1f MiB of device memory after it returned: cudaFree what it "
                  "allocates", who, mib(left));
        L->leak_said = 1;
    }
    if (v == 5 && !is_strip(ctx) && r == KIT_OK) {
        if (L->n_v5 == L->cap_v5) {
            L->cap_v5 = L->cap_v5 ? 2 * L->cap_v5 : 16;
            L->v5_ms = realloc(L->v5_ms, (size_t)L->cap_v5 * sizeof *L->v5_ms);
            if (!L->v5_ms)
                kit_die(KIT_EXIT_RUNTIME, "out of memory");
        }
        L->v5_ms[L->n_v5++] = ms;
    }
    return r;
}

static void config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    lab05 *L = ctx->user;
    if (is_strip(ctx)) {
        strip_job j;
        char why[256];
        if (!strip_plan(ctx, v, L->budget, &j, why, sizeof why))
            snprintf(buf, len, "budget_mib=%.0f", mib(L->budget));
        else
            snprintf(buf, len, "rows=%d strips=%d sets=%d budget_mib=%.0f pinned=%d", j.rows,
                     strip_count(&j), strip_sets(v, &j), mib(L->budget), j.pinned);
        return;
    }
    const batch_job *j = &L->bj;
    snprintf(buf, len, "group=%d streams=%d pinned=%d loaders=%d", v >= 3 ? j->group : 1,
             v == 4 ? j->streams : v == 5 ? 2 : 1,
             (v == 4 && kit_arg_given(&ctx->args, "--pinned")) || v == 5, v == 5 ? j->loaders : 0);
}

static void teardown(kit_ctx *ctx)
{
    lab05 *L = ctx->user;
    if (!L)
        return;
    if (L->trace) {
        lab_trace_collect(L->trace);
        if (L->cur_v >= 0)
            variant_done(ctx, L->cur_v);
        lab_trace_close(L->trace);
    }
    while (L->nlocked)
        host_unlock(L, L->locked[0].p);
    for (int b = 0; b < 2; b++)
        if (L->stage[b])
            cudaFreeHost(L->stage[b]);
    if (L->src_ready)
        batch_source_free(&L->src);
    free(L->v5_ms);
    free(L);
    ctx->user = NULL;
}

static const kit_part_glue parts[] = {
    {.part = "device", .setup = lab05_device_setup, .prepare = lab05_device_prepare,
     .launch = lab05_device_launch, .download = lab05_device_download,
     .config = lab05_device_config, .teardown = lab05_device_teardown},
    {.part = "copies", .setup = lab05_copies_setup, .prepare = lab05_copies_prepare,
     .upload = lab05_copies_upload, .launch = lab05_copies_launch,
     .download = lab05_copies_download, .config = lab05_copies_config,
     .teardown = lab05_copies_teardown},
    {.part = "strip", .setup = setup, .supports = supports, .prepare = prepare, .launch = launch,
     .config = config, .host_alloc = host_alloc, .host_free = host_free, .teardown = teardown},
    {.part = "batch", .setup = setup, .supports = supports, .prepare = prepare, .launch = launch,
     .config = config, .host_alloc = host_alloc, .host_free = host_free, .teardown = teardown},
};
static const kit_glue glue = {KIT_NELEMS(parts), parts, &kit_gpu_protocol};

int main(int argc, char **argv)
{
    return kit_main(&kit_lab_spec, &glue, argc, argv);
}
