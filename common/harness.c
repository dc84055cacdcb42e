/* harness.c - the driver every lab binary shares: command line, poisoning,
 * checking, timing, the table, --out, --results and the exit code. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "filters.h"
#include "image.h"
#include "ref.h"
#include "results.h"
#include "timing.h"

#define KIT_MAX_SIDE 65535
#define KIT_MAX_REPS 1000


void kit_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kit_vmessage(fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ usage */

static void opt_line(FILE *fp, const char *opt, const char *what)
{
    fprintf(fp, "  %-22s %s\n", opt, what);
}

void kit_usage(const kit_lab *lab, FILE *fp)
{
    unsigned o = lab->options;
    fprintf(fp, "usage: %s [options]\n%s\n\noptions:\n", kit_prog, lab->title);
    char buf[96];
    snprintf(buf, sizeof buf, "variant to run, %d..%d, or all (default all)", lab->first_variant,
             lab->first_variant + lab->nvariants - 1);
    opt_line(fp, "--variant N|all", buf);
    if (o & KIT_OPT_SIZE) {
        snprintf(buf, sizeof buf, "generated input of W x H pixels (default %dx%d)",
                 lab->default_w, lab->default_h);
        opt_line(fp, "--size WxH", buf);
    }
    if (o & KIT_OPT_IMAGE)
        opt_line(fp, "--image PATH", "input picture (PNG, JPG, BMP, PPM) instead of a generated one");
    if (o & KIT_OPT_FILTER) {
        snprintf(buf, sizeof buf, "filter: %s (default %s)", kit_filter_names(),
                 lab->default_filter);
        opt_line(fp, "--filter NAME", buf);
        opt_line(fp, "--radius R", "radius of box and gaussian filters (default 2)");
    }
    if (o & KIT_OPT_MATRIX) {
        snprintf(buf, sizeof buf, "matrix size (default %d x %d)", lab->default_rows,
                 lab->default_cols);
        opt_line(fp, "--rows M --cols N", buf);
    }
    if (o & KIT_OPT_OUT) {
        opt_line(fp, "--out PATH", "write the result of the last passing variant as PNG");
        opt_line(fp, "--save-input PATH", "write the input picture as PNG");
    }
    if (o & KIT_OPT_BLOCK)
        opt_line(fp, "--block WxH", "thread-block shape where the variant allows it");
    if (o & KIT_OPT_TILE)
        opt_line(fp, "--tile WxH", "tile shape of the tiled variants");
    if (o & KIT_OPT_PINNED)
        opt_line(fp, "--pinned", "pinned (page-locked) host buffers instead of pageable");
    if (o & KIT_OPT_THREADS)
        opt_line(fp, "--threads N", "CPU threads (default OMP_NUM_THREADS or all cores)");
    if (o & KIT_OPT_ISA)
        opt_line(fp, "--isa sse|avx2|avx512", "force the SIMD width (default: best the CPU has)");
    if (o & KIT_OPT_DEVICE)
        opt_line(fp, "--device N", "CUDA device index (default 0)");
    opt_line(fp, "--reps N", "timed runs after one warm-up (default 12; fastest and slowest dropped)");
    opt_line(fp, "--seed S", "seed of the generated input (default 1)");
    opt_line(fp, "--results PATH", "append one TSV row per variant (with provenance) to PATH");
    opt_line(fp, "--diff-dir DIR", "where diff pictures of failures go (default .)");
    opt_line(fp, "--quiet", "print errors only");
    opt_line(fp, "--help", "this text");
    if (lab->help_extra)
        fprintf(fp, "\n%s\n", lab->help_extra);
    fprintf(fp, "\nvariants:\n");
    for (int i = 0; i < lab->nvariants; i++)
        fprintf(fp, "  %d %-16s %s\n", lab->first_variant + i, lab->variants[i].name,
                lab->variants[i].what);
    fprintf(fp, "\nexit codes: 0 all correct, 1 wrong result, 2 bad usage or input, "
                "3 CUDA/runtime error,\n            4 variant not implemented, 77 no CUDA device\n");
}

/* ---------------------------------------------------------------- parsing */

static int bad_usage(const kit_lab *lab, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", kit_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (try --help)\n");
    KIT_UNUSED(lab);
    return KIT_EXIT_USAGE;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_wxh(const char *s, int *w, int *h)
{
    char tmp[64];
    if (strlen(s) >= sizeof tmp)
        return -1;
    snprintf(tmp, sizeof tmp, "%s", s);
    char *x = strchr(tmp, 'x');
    if (!x)
        x = strchr(tmp, 'X');
    if (!x)
        return -1;
    *x = 0;
    long a, b;
    if (parse_long(tmp, 1, KIT_MAX_SIDE, &a) || parse_long(x + 1, 1, KIT_MAX_SIDE, &b))
        return -1;
    *w = (int)a;
    *h = (int)b;
    return 0;
}

int kit_parse_args(const kit_lab *lab, int argc, char **argv, kit_opts *o)
{
    memset(o, 0, sizeof *o);
    o->w = lab->default_w;
    o->h = lab->default_h;
    o->rows = lab->default_rows;
    o->cols = lab->default_cols;
    snprintf(o->filter, sizeof o->filter, "%s", lab->default_filter ? lab->default_filter : "");
    o->variant = -1; /* all */
    o->reps = 12;
    o->seed = 1;
    o->diff_dir = ".";
    unsigned acc = lab->options;
    int size_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        char name[32];
        if (strncmp(a, "--", 2) != 0)
            return bad_usage(lab, "unexpected argument '%s'", a);
        const char *eq = strchr(a, '=');
        if (eq) {
            size_t n = (size_t)(eq - a);
            if (n >= sizeof name)
                return bad_usage(lab, "unknown option '%s'", a);
            memcpy(name, a, n);
            name[n] = 0;
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
        }
        /* flags */
        if (!strcmp(name, "--help")) {
            kit_usage(lab, stdout);
            return 1;
        }
        if (!strcmp(name, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        if (!strcmp(name, "--pinned") && (acc & KIT_OPT_PINNED)) {
            o->pinned = 1;
            continue;
        }
        /* options with a value */
        static const struct { const char *name; unsigned need; } known[] = {
            {"--variant", 0},         {"--reps", 0},          {"--seed", 0},
            {"--results", 0},         {"--diff-dir", 0},      {"--size", KIT_OPT_SIZE},
            {"--image", KIT_OPT_IMAGE}, {"--filter", KIT_OPT_FILTER}, {"--radius", KIT_OPT_FILTER},
            {"--out", KIT_OPT_OUT},   {"--save-input", KIT_OPT_OUT},   {"--block", KIT_OPT_BLOCK}, {"--tile", KIT_OPT_TILE},
            {"--threads", KIT_OPT_THREADS}, {"--isa", KIT_OPT_ISA}, {"--rows", KIT_OPT_MATRIX},
            {"--cols", KIT_OPT_MATRIX}, {"--device", KIT_OPT_DEVICE}, {"--dump", 0},
        };
        int k = -1;
        for (size_t j = 0; j < sizeof known / sizeof known[0]; j++)
            if (!strcmp(name, known[j].name) && (known[j].need == 0 || (acc & known[j].need)))
                k = (int)j;
        if (k < 0)
            return bad_usage(lab, "unknown option '%s' for lab %s", name, lab->lab);
        if (!val) {
            if (i + 1 >= argc)
                return bad_usage(lab, "option %s needs a value", name);
            val = argv[++i];
        }
        long v;
        if (!strcmp(name, "--variant")) {
            if (!strcmp(val, "all"))
                o->variant = -1;
            else if (parse_long(val, lab->first_variant,
                                lab->first_variant + lab->nvariants - 1, &v))
                return bad_usage(lab, "--variant must be all or %d..%d, not '%s'",
                                 lab->first_variant, lab->first_variant + lab->nvariants - 1, val);
            else
                o->variant = (int)v;
        } else if (!strcmp(name, "--reps")) {
            if (parse_long(val, 1, KIT_MAX_REPS, &v))
                return bad_usage(lab, "--reps must be 1..%d, not '%s'", KIT_MAX_REPS, val);
            o->reps = (int)v;
        } else if (!strcmp(name, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 10);
            if (errno || end == val || *end || val[0] < '0' || val[0] > '9')
                return bad_usage(lab, "--seed must be a non-negative integer, not '%s'", val);
            o->seed = s;
        } else if (!strcmp(name, "--results")) {
            o->results = val;
        } else if (!strcmp(name, "--diff-dir")) {
            o->diff_dir = val;
        } else if (!strcmp(name, "--dump")) {
            o->dump_dir = val;
        } else if (!strcmp(name, "--size")) {
            size_given = 1;
            if (parse_wxh(val, &o->w, &o->h))
                return bad_usage(lab, "--size must be WxH with 1..%d on each side, not '%s'",
                                 KIT_MAX_SIDE, val);
        } else if (!strcmp(name, "--image")) {
            o->image = val;
        } else if (!strcmp(name, "--filter")) {
            if (strlen(val) >= sizeof o->filter)
                return bad_usage(lab, "unknown filter '%s'", val);
            snprintf(o->filter, sizeof o->filter, "%s", val);
        } else if (!strcmp(name, "--radius")) {
            if (parse_long(val, 1, KIT_FILTER_MAX_RADIUS, &v))
                return bad_usage(lab, "--radius must be 1..%d, not '%s'", KIT_FILTER_MAX_RADIUS,
                                 val);
            o->radius = (int)v;
        } else if (!strcmp(name, "--out")) {
            o->out = val;
        } else if (!strcmp(name, "--save-input")) {
            o->save_input = val;
        } else if (!strcmp(name, "--block")) {
            if (parse_wxh(val, &o->block_w, &o->block_h) || (long)o->block_w * o->block_h > 1024)
                return bad_usage(lab, "--block must be WxH with W*H <= 1024, not '%s'", val);
        } else if (!strcmp(name, "--tile")) {
            if (parse_wxh(val, &o->tile_w, &o->tile_h))
                return bad_usage(lab, "--tile must be WxH, not '%s'", val);
        } else if (!strcmp(name, "--threads")) {
            if (parse_long(val, 1, 4096, &v))
                return bad_usage(lab, "--threads must be 1..4096, not '%s'", val);
            o->threads = (int)v;
        } else if (!strcmp(name, "--isa")) {
            if (strcmp(val, "sse") && strcmp(val, "avx2") && strcmp(val, "avx512"))
                return bad_usage(lab, "--isa must be sse, avx2 or avx512, not '%s'", val);
            snprintf(o->isa, sizeof o->isa, "%s", val);
        } else if (!strcmp(name, "--rows")) {
            if (parse_long(val, 1, INT_MAX / 2, &v))
                return bad_usage(lab, "--rows must be a positive integer, not '%s'", val);
            o->rows = (int)v;
        } else if (!strcmp(name, "--cols")) {
            if (parse_long(val, 1, INT_MAX / 2, &v))
                return bad_usage(lab, "--cols must be a positive integer, not '%s'", val);
            o->cols = (int)v;
        } else if (!strcmp(name, "--device")) {
            if (parse_long(val, 0, 63, &v))
                return bad_usage(lab, "--device must be 0..63, not '%s'", val);
            o->device = (int)v;
        }
    }
    if (o->image && size_given)
        return bad_usage(lab, "--image and --size exclude each other");
    return 0;
}

/* ---------------------------------------------------------------- helpers */

void kit_poison(kit_buf *b, unsigned char pattern)
{
    memset(b->data, b->type == KIT_U8 ? pattern : 0xFF, kit_buf_bytes(b));
}

int kit_input_picture(const kit_opts *o, int channels, kit_image *img)
{
    char err[512];
    if (o->image) {
        if (kit_image_load(o->image, channels, img, err, sizeof err)) {
            kit_error("%s", err);
            return KIT_EXIT_USAGE;
        }
        return 0;
    }
    kit_image_generate(img, o->w, o->h, channels, o->seed, KIT_PATTERN_SCENE);
    return 0;
}

int kit_conv_input_setup(kit_ctx *ctx, int channels, int stride_align, kit_conv_input *in)
{
    memset(in, 0, sizeof *in);
    char err[512];
    if (kit_filter_make(ctx->opt.filter, ctx->opt.radius, &in->filter, err, sizeof err)) {
        kit_error("%s", err);
        return KIT_EXIT_USAGE;
    }
    kit_image img = {0};
    if (kit_input_picture(&ctx->opt, channels, &img))
        return KIT_EXIT_USAGE;
    int R = in->filter.radius;
    size_t n = (size_t)img.w * (size_t)img.h * (size_t)channels;
    in->w = img.w;
    in->h = img.h;
    in->c = channels;
    in->h_src = kit_malloc(n * sizeof(float));
    kit_u8_to_f32(img.px, in->h_src, n);
    kit_image_free(&img);
    size_t align = stride_align > 0 ? (size_t)stride_align : 1;
    in->stride = ((size_t)(in->w + 2 * R) * (size_t)channels + align - 1) / align * align;
    in->h_ext = kit_pad_zero_f32_stride(in->h_src, in->w, in->h, channels, R, in->stride);
    in->h_ref = kit_calloc(n, sizeof(float));
    if (kit_want_reference(ctx)) {
        kit_ref_corr2d_f32(in->h_src, in->h_ref, in->w, in->h, channels, 0, in->filter.w64,
                           in->filter.size);
        kit_clamp_f32(in->h_ref, n, 0.0f, 255.0f);
    }
    in->h_out = kit_malloc(n * sizeof(float)); /* malloc's 16 bytes suit SSE stores */

    ctx->ref = (kit_buf){KIT_F32, in->w, in->h, channels, 0, in->h_ref};
    ctx->out = (kit_buf){KIT_F32, in->w, in->h, channels, 0, in->h_out};
    ctx->input = (kit_buf){KIT_F32, in->w, in->h, channels, 0, in->h_src};
    ctx->width = in->w;
    ctx->height = in->h;
    snprintf(ctx->param, sizeof ctx->param, "%s", in->filter.name);
    return 0;
}

double kit_conv_input_bytes(const kit_conv_input *in)
{
    int R = in->filter.radius;
    double ext = (double)(in->w + 2 * R) * (in->h + 2 * R);
    return (ext + (double)in->w * in->h) * in->c * sizeof(float);
}

void kit_conv_input_free(kit_conv_input *in)
{
    kit_filter_free(&in->filter);
    free(in->h_src);
    free(in->h_ext);
    free(in->h_ref);
    free(in->h_out);
    memset(in, 0, sizeof *in);
}

int kit_want_reference(const kit_ctx *ctx)
{
    return ctx->opt.dump_dir == NULL;
}

unsigned char kit_poison_byte(const kit_ctx *ctx)
{
    return ctx->out.type == KIT_U8 ? ctx->poison : 0xFF;
}

int kit_buf_save_png(const char *path, const kit_buf *b, char *err, size_t errlen)
{
    size_t npix = (size_t)b->w * (size_t)b->h;
    int c = b->c > 4 ? 4 : b->c;
    unsigned char *px = kit_malloc(npix * (size_t)c);
    for (int y = 0; y < b->h; y++)
        for (int x = 0; x < b->w; x++)
            for (int ch = 0; ch < c; ch++) {
                size_t p = (size_t)y * (size_t)b->w + (size_t)x;
                size_t i = b->planar ? (size_t)ch * npix + p : p * (size_t)b->c + (size_t)ch;
                px[p * (size_t)c + (size_t)ch] = kit_to_u8(kit_buf_get(b, i));
            }
    /* an edge picture's alpha is an edge response too: show it opaque */
    if (c == 4)
        for (size_t p = 0; p < npix; p++)
            px[p * 4 + 3] = 255;
    int rc = kit_png_write(path, px, b->w, b->h, c, err, errlen);
    free(px);
    return rc;
}

static const char *vname(const kit_lab *lab, int v)
{
    return lab->variants[v - lab->first_variant].name;
}

static void row_init(kit_row *r, const kit_ctx *ctx, int v)
{
    memset(r, 0, sizeof *r);
    snprintf(r->lab, sizeof r->lab, "%s", ctx->lab->lab);
    r->variant = v;
    snprintf(r->name, sizeof r->name, "%s", vname(ctx->lab, v));
    r->width = ctx->width;
    r->height = ctx->height;
    snprintf(r->param, sizeof r->param, "%s", ctx->param);
    r->threads = ctx->threads > 0 ? ctx->threads : 1;
    r->kernel_ms = r->kernel_ms_std = r->kernel_ms_median = NAN;
    r->total_ms = r->total_ms_std = r->total_ms_median = r->gbps = NAN;
    r->max_abs_err = r->max_rel_err = NAN;
    r->mismatches = -1;
    if (ctx->lab->config)
        ctx->lab->config((kit_ctx *)ctx, v, r->config, sizeof r->config);
}

/* 0 when a file can be written at path (its folder exists and is writable). */
static int writable(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    if (access(path, F_OK) == 0)
        return access(path, W_OK);
    return access(dir, W_OK);
}

/* --dump DIR, for the grader (not in --help): DIR/vN.bin holds variant N's
 * output after its checked warm-up run, DIR/vN.2.bin after its last timed run
 * (the other poison pattern), and DIR/vN.txt one line
 *   status type w h c planar t0_ns t1_ns
 * with status ok, not-implemented, error or unsupported, type u8, f32 or f64,
 * and the CLOCK_MONOTONIC span of the variant's runs (to attribute GPU
 * activity records to the variant). Written atomically; failures warn.
 * Under --dump the harness neither computes nor compares with its own
 * reference (kit_want_reference): the grader's checker does. */
static long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void dump_out(const kit_ctx *ctx, int v, const char *suffix)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/v%d%s.bin", ctx->opt.dump_dir, v, suffix);
    if (kit_write_file_atomic(path, ctx->out.data, kit_buf_bytes(&ctx->out)))
        kit_error("cannot write %s: %s", path, strerror(errno));
}

static void dump_meta(const kit_ctx *ctx, int v, const char *status, long long t0, long long t1)
{
    static const char *types[] = {"u8", "f32", "f64"};
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/v%d.txt", ctx->opt.dump_dir, v);
    int n = snprintf(line, sizeof line, "%s %s %d %d %d %d %lld %lld\n", status,
                     types[ctx->out.type], ctx->out.w, ctx->out.h, ctx->out.c, ctx->out.planar,
                     t0, t1);
    if (kit_write_file_atomic(path, line, (size_t)n))
        kit_error("cannot write %s: %s", path, strerror(errno));
}

/* ------------------------------------------------------------------- main */

static int main_once(const kit_lab *lab, int argc, char **argv);

/* --cases FILE, for the grader (not in --help): one run per line of FILE,
 * in one process, so a GPU lab starts CUDA once instead of once per case.
 * Each line holds the run's own arguments, separated by tabs (so paths may
 * hold spaces), and comes after the command line's other arguments; each
 * line usually names its own --dump folder. Runs every line, whatever the
 * exit status of the ones before (except a missing GPU: 77 at once), and
 * returns the most serious status: runtime error, usage, wrong, not
 * implemented, then 0. */
#define KIT_CASE_MAX_ARGS 64
static int severity(int rc)
{
    switch (rc) {
    case KIT_EXIT_OK: return 0;
    case KIT_EXIT_NOTIMPL: return 1;
    case KIT_EXIT_WRONG: return 2;
    case KIT_EXIT_USAGE: return 3;
    default: return 4;
    }
}

/* at: where --cases stands in argv, taking `taken` arguments (1 or 2) */
static int main_cases(const kit_lab *lab, int argc, char **argv, int at, int taken,
                      const char *file)
{
    FILE *fp = fopen(file, "r");
    if (!fp) {
        kit_error("cannot read --cases %s: %s", file, strerror(errno));
        return KIT_EXIT_USAGE;
    }
    char **av = kit_calloc((size_t)argc + KIT_CASE_MAX_ARGS + 1, sizeof *av);
    int base = 0;
    for (int i = 0; i < argc; i++)
        if (i < at || i >= at + taken)
            av[base++] = argv[i];
    int worst = KIT_EXIT_OK;
    char line[8192];
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0])
            continue;
        int n = base;
        for (char *tok = strtok(line, "\t"); tok; tok = strtok(NULL, "\t")) {
            if (n - base >= KIT_CASE_MAX_ARGS) {
                kit_error("--cases %s: a line has more than %d arguments", file, KIT_CASE_MAX_ARGS);
                fclose(fp);
                free(av);
                return KIT_EXIT_USAGE;
            }
            av[n++] = tok;
        }
        av[n] = NULL;
        int rc = main_once(lab, n, av);
        fflush(stdout);
        if (rc == KIT_EXIT_NODEVICE) {
            worst = rc;
            break;
        }
        if (severity(rc) > severity(worst))
            worst = severity(rc) == 4 ? KIT_EXIT_RUNTIME : rc;
    }
    fclose(fp);
    free(av);
    return worst;
}

int kit_main(const kit_lab *lab, int argc, char **argv)
{
    const char *slash = strrchr(argv[0], '/');
    kit_prog = slash ? slash + 1 : argv[0];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases")) {
            if (i + 1 >= argc)
                return bad_usage(lab, "option --cases needs a value");
            return main_cases(lab, argc, argv, i, 2, argv[i + 1]);
        }
        if (!strncmp(argv[i], "--cases=", 8))
            return main_cases(lab, argc, argv, i, 1, argv[i] + 8);
    }
    return main_once(lab, argc, argv);
}

static int main_once(const kit_lab *lab, int argc, char **argv)
{
    kit_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.lab = lab;
    int rc = kit_parse_args(lab, argc, argv, &ctx.opt);
    if (rc == 1)
        return KIT_EXIT_OK;
    if (rc)
        return rc;
    const char *outs[] = {ctx.opt.out, ctx.opt.results, ctx.opt.save_input};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
        if (outs[i] && writable(outs[i])) {
            kit_error("cannot write %s: %s", outs[i], strerror(errno));
            return KIT_EXIT_USAGE;
        }
    char rerr[512];
    if (ctx.opt.results && kit_results_check(ctx.opt.results, rerr, sizeof rerr)) {
        kit_error("%s", rerr);
        return KIT_EXIT_USAGE;
    }

    rc = lab->setup(&ctx);
    if (rc) {
        if (lab->teardown)
            lab->teardown(&ctx);
        return rc;
    }

    if (ctx.opt.save_input && ctx.input.data) {
        char e[512];
        if (kit_buf_save_png(ctx.opt.save_input, &ctx.input, e, sizeof e)) {
            kit_error("%s", e);
            if (lab->teardown)
                lab->teardown(&ctx);
            return KIT_EXIT_USAGE;
        }
    }

    int explicit_variant = ctx.opt.variant >= 0;
    int first = explicit_variant ? ctx.opt.variant : lab->first_variant;
    int last = explicit_variant ? ctx.opt.variant : lab->first_variant + lab->nvariants - 1;

    /* Refuse an explicitly chosen variant that cannot take this input before
     * anything runs or is written. */
    char why[256];
    if (explicit_variant && lab->select)
        lab->select(&ctx, first);
    if (explicit_variant && lab->supports && !lab->supports(&ctx, first, why, sizeof why)) {
        kit_error("variant %d cannot run here: %s", first, why);
        if (ctx.opt.dump_dir) /* the grader reads "n/a" */
            dump_meta(&ctx, first, "unsupported", 0, 0);
        if (lab->teardown)
            lab->teardown(&ctx);
        return KIT_EXIT_USAGE;
    }

    int nrows = 0;
    kit_row *rows = kit_calloc((size_t)(last - first + 1), sizeof *rows);
    int any_wrong = 0, any_err = 0, any_notimpl = 0;
    int reps = ctx.opt.reps;
    double *ks = kit_malloc((size_t)reps * sizeof *ks);
    double *ts = kit_malloc((size_t)reps * sizeof *ts);
    kit_buf keep = {0}; /* copy of the last passing output, for --out */
    int keep_v = -1;

    if (!ctx.opt.quiet) {
        printf("lab %s: %s\n", lab->lab, lab->title);
        printf("input %ldx%ld%s%s, %d timed runs after a warm-up\n", ctx.width, ctx.height,
               ctx.param[0] ? " " : "", ctx.param, reps);
        if (lab->gpu)
            printf("%3s %-18s %-16s %12s %10s %12s %10s %9s\n", "v", "name", "result",
                   "kernel ms", "std", "total ms", "std", "GB/s");
        else
            printf("%3s %-18s %-16s %12s %10s %9s\n", "v", "name", "result", "ms (median)",
                   "std", "GB/s");
        fflush(stdout);
    }

    for (int v = first; v <= last; v++) {
        ctx.atol = lab->atol;
        ctx.rtol = lab->rtol;
        if (lab->select)
            lab->select(&ctx, v);
        kit_row *row = &rows[nrows++];
        row_init(row, &ctx, v);
        row->reps = reps;
        if (lab->supports && !lab->supports(&ctx, v, why, sizeof why)) {
            snprintf(row->status, sizeof row->status, "unsupported");
            if (ctx.opt.dump_dir)
                dump_meta(&ctx, v, "unsupported", 0, 0);
            if (!ctx.opt.quiet)
                printf("%3d %-18s %-16s (%s)\n", v, vname(lab, v), "skipped", why);
            continue;
        }
        double k = 0, t = 0;
        ctx.poison = 0xA5;
        long long t0 = mono_ns();
        kit_poison(&ctx.out, ctx.poison);
        int r = lab->run(&ctx, v, &k, &t); /* warm-up, checked */
        if (ctx.opt.dump_dir && r == KIT_OK)
            dump_out(&ctx, v, "");
        const char *result = NULL;
        if (r == KIT_NOT_IMPLEMENTED) {
            any_notimpl = 1;
            snprintf(row->status, sizeof row->status, "not-implemented");
            result = "not implemented";
        } else if (r != KIT_OK) {
            any_err = 1;
            snprintf(row->status, sizeof row->status, "error");
            result = "ERROR";
        }
        kit_cmp cmp = {0};
        const int check = kit_want_reference(&ctx);
        if (!result && check && kit_compare(&ctx.ref, &ctx.out, ctx.atol, ctx.rtol, &cmp)) {
            any_wrong = 1;
            snprintf(row->status, sizeof row->status, "FAIL");
            result = "FAIL";
        }
        /* timed runs; the last one is poisoned with another pattern and
         * checked again, so stale or unwritten output cannot pass */
        int n = 0;
        if (!result) {
            for (n = 0; n < reps; n++) {
                ctx.poison = (n == reps - 1) ? 0x5A : 0xA5;
                kit_poison(&ctx.out, ctx.poison);
                r = lab->run(&ctx, v, &ks[n], &ts[n]);
                if (r != KIT_OK) {
                    any_err = 1;
                    snprintf(row->status, sizeof row->status, "error");
                    result = "ERROR";
                    break;
                }
            }
            if (ctx.opt.dump_dir && n == reps)
                dump_out(&ctx, v, ".2");
            if (!result && check && kit_compare(&ctx.ref, &ctx.out, ctx.atol, ctx.rtol, &cmp)) {
                any_wrong = 1;
                snprintf(row->status, sizeof row->status, "FAIL");
                result = "FAIL (timed run)";
            }
        }
        if (!result || !strncmp(result, "FAIL", 4)) {
            row->max_abs_err = cmp.max_abs_err;
            row->max_rel_err = cmp.max_rel_err;
            row->mismatches = (long)cmp.mismatches;
        }
        if (ctx.opt.dump_dir)
            dump_meta(&ctx, v,
                      r == KIT_NOT_IMPLEMENTED ? "not-implemented"
                      : !strcmp(row->status, "error") ? "error" : "ok",
                      t0, mono_ns());
        if (result) {
            if (!ctx.opt.quiet || !strncmp(result, "FAIL", 4))
                printf("%3d %-18s %-16s\n", v, vname(lab, v), result);
            if (!strncmp(result, "FAIL", 4)) {
                kit_cmp_print(stdout, &cmp, "      ");
                if (ctx.ref.h > 1) {
                    char path[4096], err[512];
                    snprintf(path, sizeof path, "%s/lab%s-v%d-diff.png", ctx.opt.diff_dir,
                             lab->lab, v);
                    if (kit_diff_picture(path, &ctx.ref, &ctx.out, ctx.atol, ctx.rtol, err,
                                         sizeof err) == 0)
                        printf("      diff picture: %s\n", path);
                    else
                        kit_error("diff picture not written: %s", err);
                }
            }
            fflush(stdout);
            continue;
        }
        kit_stats sk, st;
        kit_stats_compute(ks, reps, &sk);
        kit_stats_compute(ts, reps, &st);
        row->kernel_ms = sk.mean;
        row->kernel_ms_std = sk.std;
        row->kernel_ms_median = sk.median;
        row->total_ms = st.mean;
        row->total_ms_std = st.std;
        row->total_ms_median = st.median;
        double bytes = lab->bytes ? lab->bytes(&ctx, v) : 0.0;
        row->gbps = (bytes > 0 && sk.median > 0) ? bytes / (sk.median * 1e6) : NAN;
        snprintf(row->status, sizeof row->status, "pass");
        if (!ctx.opt.quiet) {
            if (lab->gpu)
                printf("%3d %-18s %-16s %12.4f %10.4f %12.4f %10.4f %9.1f\n", v, vname(lab, v),
                       "PASS", sk.median, sk.std, st.median, st.std, row->gbps);
            else
                printf("%3d %-18s %-16s %12.3f %10.3f %9.2f\n", v, vname(lab, v), "PASS",
                       sk.median, sk.std, row->gbps);
            fflush(stdout);
        }
        if (ctx.opt.out) {
            free(keep.data);
            keep = ctx.out;
            keep.data = kit_malloc(kit_buf_bytes(&ctx.out));
            memcpy(keep.data, ctx.out.data, kit_buf_bytes(&ctx.out));
            keep_v = v;
        }
    }

    char err[1024];
    if (ctx.opt.out && keep.data) {
        if (kit_buf_save_png(ctx.opt.out, &keep, err, sizeof err)) {
            kit_error("%s", err);
            any_err = 1;
        } else if (!ctx.opt.quiet) {
            printf("wrote %s (variant %d)\n", ctx.opt.out, keep_v);
        }
    }
    if (ctx.opt.results) {
        if (kit_results_append(ctx.opt.results, rows, nrows, lab->lab, argc, argv,
                               ctx.threads > 0 ? ctx.threads : 1, lab->gpu_lines, err,
                               sizeof err)) {
            kit_error("%s", err);
            any_err = 1;
        }
    }
    free(keep.data);
    free(ks);
    free(ts);
    free(rows);
    if (lab->teardown)
        lab->teardown(&ctx);
    if (any_err)
        return KIT_EXIT_RUNTIME;
    if (any_wrong)
        return KIT_EXIT_WRONG;
    if (any_notimpl)
        return KIT_EXIT_NOTIMPL;
    return KIT_EXIT_OK;
}
