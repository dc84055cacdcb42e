/* check.c - the grader's own checker. grading/grade runs it in its own
 * process, outside the sandbox; it never trusts what a submission says about
 * itself. It re-creates a case's input from its seed, size and filter with
 * the kit's library, computes the CPU reference, and compares the output the
 * submission's run left in a file.
 *
 *   check cases RUBRIC SEED [--quick]
 *       the hidden cases of a rubric, drawn from the grading seed, one line
 *       each: kind<TAB>name<TAB>variants<TAB>harness arguments
 *   check compare --lab NN --variant V --args "ARGS" --out FILE.bin
 *                 [--meta FILE.txt] [--atol A] [--rtol R] [--diff PNG] [--cache DIR]
 *       first line: "pass", "fail MISMATCHES COUNT MAX_ABS MAX_REL" or
 *       "bad REASON"; then the first mismatches. Exit 0 pass, 1 fail or bad,
 *       2 usage or internal error.
 *   check kernels CUPTI_FILE DUMP_DIR V[,V...]
 *       attributes the kernel records of a CUPTI file (common/cupti_count.c)
 *       to the variants by the time spans in DUMP_DIR/vN.txt; first line
 *       "complete|incomplete TOTAL", then "V<TAB>KERNELS<TAB>SUM_NS<TAB>NAME"
 *       per variant. Exit 0, 2 usage, 3 no such file.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "filters.h"
#include "image.h"
#include "kit.h"
#include "ref.h"

#define MAX_TOK 64
#define MAX_VARIANTS 16

static int usage(const char *msg)
{
    fprintf(stderr, "check: %s\n"
                    "usage: check cases RUBRIC SEED [--quick]\n"
                    "       check compare --lab NN --variant V --args ARGS --out FILE.bin [--meta FILE.txt]\n"
                    "                     [--atol A] [--rtol R] [--diff PNG] [--cache DIR]\n"
                    "       check kernels CUPTI_FILE DUMP_DIR V[,V...]\n",
            msg);
    return 2;
}

static unsigned long long fnv1a(const char *s)
{
    unsigned long long h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Split s (modified) at whitespace into at most max tokens. */
static int split(char *s, char **tok, int max)
{
    int n = 0;
    for (char *p = strtok(s, " \t\r\n"); p && n < max; p = strtok(NULL, " \t\r\n"))
        tok[n++] = p;
    return n;
}

/* ------------------------------------------------------------------ cases */

/* "A" or "A..B" to lo, hi. */
static int parse_range(const char *s, long *lo, long *hi)
{
    char *end;
    errno = 0;
    *lo = strtol(s, &end, 10);
    if (errno || end == s || *lo < 1)
        return -1;
    if (*end == 0) {
        *hi = *lo;
        return 0;
    }
    if (strncmp(end, "..", 2) != 0)
        return -1;
    const char *s2 = end + 2;
    *hi = strtol(s2, &end, 10);
    if (errno || end == s2 || *end || *hi < *lo)
        return -1;
    return 0;
}

static long draw(kit_rng *r, long lo, long hi)
{
    return lo + (long)(kit_rng_next(r) % (unsigned long long)(hi - lo + 1));
}

/* Draw "WxH" from "A..BxC..D" into out. */
static int draw_size(kit_rng *r, const char *spec, int *w, int *h)
{
    char buf[64];
    if (strlen(spec) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", spec);
    char *x = strchr(buf, 'x');
    if (!x)
        return -1;
    *x = 0;
    long wl, wh, hl, hh;
    if (parse_range(buf, &wl, &wh) || parse_range(x + 1, &hl, &hh) || wh > 65535 || hh > 65535)
        return -1;
    *w = (int)draw(r, wl, wh);
    *h = (int)draw(r, hl, hh);
    return 0;
}

/* One of "a,b:3,c" into name and radius (0: the filter's default). */
static int draw_filter(kit_rng *r, const char *spec, char *name, size_t len, int *radius)
{
    char buf[256];
    char *opt[32];
    int n = 0;
    if (strlen(spec) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *p = strtok(buf, ","); p && n < 32; p = strtok(NULL, ","))
        opt[n++] = p;
    if (n == 0)
        return -1;
    char *pick = opt[draw(r, 0, n - 1)];
    char *colon = strchr(pick, ':');
    *radius = 0;
    if (colon) {
        *colon = 0;
        *radius = atoi(colon + 1);
        if (*radius < 1 || *radius > KIT_FILTER_MAX_RADIUS)
            return -1;
    }
    snprintf(name, len, "%s", pick);
    kit_filter f;
    char err[256];
    if (kit_filter_make(name, *radius, &f, err, sizeof err))
        return -1;
    kit_filter_free(&f);
    return 0;
}

/* check cases RUBRIC SEED [--quick]. Rubric lines used here:
 *   variants V V V
 *   case NAME VARIANTS SIZE FILTERS [quick=SIZE|quick=skip]
 *   perf VARIANTS SIZE FILTER [quick=SIZE]
 * VARIANTS is "all" or a comma list; SIZE is WxH where W and H may be A..B
 * ranges; FILTERS a comma list of names, NAME:RADIUS for box and gaussian. */
static int cmd_cases(int argc, char **argv)
{
    if (argc < 2)
        return usage("cases needs RUBRIC and SEED");
    const char *path = argv[0];
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(argv[1], &end, 10);
    if (errno || end == argv[1] || *end)
        return usage("the grading seed must be a non-negative integer");
    int quick = argc > 2 && !strcmp(argv[2], "--quick");
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "check: cannot read %s: %s\n", path, strerror(errno));
        return 2;
    }
    char all[256] = "";
    char line[1024];
    int lineno = 0, nperf = 0, ncases = 0, matrix = 0;
    /* first pass: the variant list and the shape of the inputs */
    while (fgets(line, sizeof line, fp)) {
        char *tok[MAX_TOK];
        int n = split(line, tok, MAX_TOK);
        if (n >= 2 && !strcmp(tok[0], "shape"))
            matrix = !strcmp(tok[1], "matrix");
        if (n >= 2 && !strcmp(tok[0], "variants")) {
            all[0] = 0;
            for (int i = 1; i < n && tok[i][0] != '#'; i++) {
                if (all[0])
                    strncat(all, ",", sizeof all - strlen(all) - 1);
                strncat(all, tok[i], sizeof all - strlen(all) - 1);
            }
        }
    }
    if (!all[0]) {
        fprintf(stderr, "check: %s has no 'variants' line\n", path);
        fclose(fp);
        return 2;
    }
    rewind(fp);
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *tok[MAX_TOK];
        int n = split(line, tok, MAX_TOK);
        if (n == 0 || (strcmp(tok[0], "case") && strcmp(tok[0], "perf")))
            continue;
        int is_perf = !strcmp(tok[0], "perf");
        int base = is_perf ? 1 : 2; /* index of VARIANTS */
        if (n < base + 3) {
            fprintf(stderr, "check: %s:%d: a %s line needs %s\n", path, lineno, tok[0],
                    is_perf ? "VARIANTS SIZE FILTER" : "NAME VARIANTS SIZE FILTERS");
            fclose(fp);
            return 2;
        }
        char name[64];
        if (is_perf)
            snprintf(name, sizeof name, "perf%d", ++nperf);
        else
            snprintf(name, sizeof name, "%s", tok[1]);
        const char *variants = strcmp(tok[base], "all") ? tok[base] : all;
        const char *size = tok[base + 1], *filters = tok[base + 2], *extra = NULL;
        for (int i = base + 3; i < n; i++) {
            if (!strncmp(tok[i], "quick=", 6)) {
                if (quick)
                    size = tok[i] + 6;
            } else if (!strncmp(tok[i], "extra=", 6)) {
                extra = tok[i] + 6;
            } else {
                fprintf(stderr, "check: %s:%d: unknown field '%s'\n", path, lineno, tok[i]);
                fclose(fp);
                return 2;
            }
        }
        if (!strcmp(size, "skip"))
            continue;
        kit_rng r;
        kit_rng_seed(&r, seed ^ fnv1a(name));
        int w, h, radius;
        char fname[32];
        if (draw_size(&r, size, &w, &h)) {
            fprintf(stderr, "check: %s:%d: bad size '%s' (WxH, each side N or A..B)\n", path,
                    lineno, size);
            fclose(fp);
            return 2;
        }
        if (!matrix && draw_filter(&r, filters, fname, sizeof fname, &radius)) {
            fprintf(stderr, "check: %s:%d: bad filter list '%s'\n", path, lineno, filters);
            fclose(fp);
            return 2;
        }
        unsigned long long img_seed = kit_rng_next(&r) % 1000000007ULL;
        printf("%s\t%s\t%s\t", is_perf ? "perf" : "case", name, variants);
        if (matrix) /* SIZE is ROWSxCOLS */
            printf("--rows %d --cols %d", w, h);
        else
            printf("--size %dx%d --filter %s", w, h, fname);
        if (!matrix && radius)
            printf(" --radius %d", radius);
        printf(" --seed %llu%s", img_seed, extra ? " " : "");
        for (const char *e = extra; e && *e; e++)
            putchar(*e == ',' ? ' ' : *e);
        putchar('\n');
        ncases++;
    }
    fclose(fp);
    if (ncases == 0) {
        fprintf(stderr, "check: %s has no case lines\n", path);
        return 2;
    }
    return 0;
}

/* --------------------------------------------------------------- compare */

typedef struct {
    int w, h, radius;  /* pictures */
    int rows, cols;    /* matrices */
    char filter[32];
    unsigned long long seed;
} case_args;

static int parse_case_args(const char *s, case_args *a)
{
    char buf[512];
    char *tok[MAX_TOK];
    if (strlen(s) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", s);
    int n = split(buf, tok, MAX_TOK);
    memset(a, 0, sizeof *a);
    a->w = a->h = -1;
    for (int i = 0; i < n; i += 2) {
        const char *k = tok[i];
        if (!strncmp(k, "--", 2) && strchr(k, '=')) {
            i--; /* --threads=3 and the like: no effect on the output */
            continue;
        }
        if (i + 1 >= n)
            return -1;
        const char *v = tok[i + 1];
        if (!strcmp(k, "--size")) {
            if (sscanf(v, "%dx%d", &a->w, &a->h) != 2)
                return -1;
        } else if (!strcmp(k, "--filter")) {
            snprintf(a->filter, sizeof a->filter, "%s", v);
        } else if (!strcmp(k, "--radius")) {
            a->radius = atoi(v);
        } else if (!strcmp(k, "--rows")) {
            a->rows = atoi(v);
        } else if (!strcmp(k, "--cols")) {
            a->cols = atoi(v);
        } else if (!strcmp(k, "--seed")) {
            a->seed = strtoull(v, NULL, 10);
        } else {
            return -1;
        }
    }
    if (a->rows > 0 && a->cols > 0) { /* a matrix: the output is a vector of rows */
        a->w = a->rows;
        a->h = 1;
        return 0;
    }
    if (a->w < 1 || a->h < 1 || !a->filter[0])
        return -1;
    return 0;
}

/* The output a variant must produce: its shape, and a key naming how its
 * reference is computed (the cache file name). */
typedef struct {
    kit_type type;
    int c, planar;
    const char *kind;
    double atol, rtol; /* the lab's own tolerance (the rubric may override) */
} out_spec;

static int lab_spec(const char *lab, int v, out_spec *s, char *err, size_t len)
{
    if (!strcmp(lab, "01") || !strcmp(lab, "02")) {
        /* RGBA float, interleaved, zero-padded, clamped to 0..255 */
        *s = (out_spec){KIT_F32, 4, 0, "rgba-f32", 1e-2, 1e-5};
        return 0;
    }
    if (!strcmp(lab, "03")) {
        if (v == 1 || v == 2)
            *s = (out_spec){KIT_U8, 3, 0, "rgb-u8", 0, 0};
        else if (v == 3 || v == 5)
            *s = (out_spec){KIT_U8, 3, 1, "rgb-u8-planar", 0, 0};
        else if (v == 4)
            *s = (out_spec){KIT_F64, 3, 1, "rgb-f64-sep", 1e-9, 1e-12};
        else {
            snprintf(err, len, "lab 03 has no variant %d", v);
            return -1;
        }
        return 0;
    }
    if (!strcmp(lab, "06")) {
        /* y = A x in double; the tolerance comes from the summation bound */
        if (v < 0 || v > 4) {
            snprintf(err, len, "lab 06 has no variant %d", v);
            return -1;
        }
        *s = (out_spec){KIT_F64, 1, 0, "matvec-f64", NAN, 0};
        return 0;
    }
    snprintf(err, len, "the checker has no reference for lab %s yet", lab);
    return -1;
}

/* Lab 06's input, as its main.c makes it: A (m x n, row-major) and x uniform in [-1, 1) from
 * the splitmix64 stream of the seed, row i starting at state s_A + i*n*step. y = A x with the
 * kit's compensated sums; atol = 1.01 gamma(n+2) max_i sum_j |a_ij x_j|, u = 2^-53. */

static double *matvec_ref(const case_args *a, double *atol)
{
    const size_t m = (size_t)a->rows, n = (size_t)a->cols;
    kit_rng g;
    kit_rng_seed(&g, a->seed);
    const unsigned long long s_A = kit_rng_next(&g), s_x = kit_rng_next(&g);
    double *x = kit_malloc(n * sizeof *x), *row = kit_malloc(n * sizeof *row);
    double *y = kit_malloc(m * sizeof *y), S = 0.0;
    kit_fill_uniform(x, n, s_x, 0);
    for (size_t i = 0; i < m; i++) {
        kit_fill_uniform(row, n, s_A, i * n);
        kit_ref_matvec_f64(row, x, y + i, 1, (int)n);
        double t = 0.0;
        for (size_t j = 0; j < n; j++)
            t += fabs(row[j] * x[j]);
        if (t > S)
            S = t;
    }
    const double u = 1.1102230246251565e-16, k = (double)n + 2.0;
    *atol = 1.01 * (k * u / (1.0 - k * u)) * S;
    free(x);
    free(row);
    return y;
}

/* Compute the reference of a case into ref (data allocated here). */
static int compute_ref(const out_spec *s, const case_args *a, kit_buf *ref, double *atol,
                       char *err, size_t len)
{
    *atol = NAN;
    if (!strcmp(s->kind, "matvec-f64")) {
        if (a->rows < 1 || a->cols < 1) {
            snprintf(err, len, "lab 06 cases need --rows and --cols");
            return -1;
        }
        *ref = (kit_buf){KIT_F64, a->rows, 1, 1, 0, matvec_ref(a, atol)};
        return 0;
    }
    kit_filter f;
    if (kit_filter_make(a->filter, a->radius, &f, err, len))
        return -1;
    kit_image img;
    size_t plane = (size_t)a->w * (size_t)a->h, n = plane * (size_t)s->c;
    kit_image_generate(&img, a->w, a->h, s->c, a->seed, KIT_PATTERN_SCENE);
    *ref = (kit_buf){s->type, a->w, a->h, s->c, s->planar, NULL};
    if (!strcmp(s->kind, "rgba-f32")) {
        float *src = kit_malloc(n * sizeof *src), *dst = kit_malloc(n * sizeof *dst);
        kit_u8_to_f32(img.px, src, n);
        kit_ref_corr2d_f32(src, dst, a->w, a->h, s->c, 0, f.w64, f.size);
        kit_clamp_f32(dst, n, 0.0f, 255.0f);
        free(src);
        ref->data = dst;
    } else if (!strcmp(s->kind, "rgb-u8") || !strcmp(s->kind, "rgb-u8-planar")) {
        unsigned char *dst = kit_malloc(n);
        kit_ref_corr2d_u8(img.px, dst, a->w, a->h, s->c, 0, f.w64, f.size);
        if (s->planar) {
            unsigned char *p = kit_malloc(n);
            kit_interleaved_to_planar_u8(dst, p, a->w, a->h, s->c);
            free(dst);
            dst = p;
        }
        ref->data = dst;
    } else { /* rgb-f64-sep: row then column pass in double, per plane */
        if (!f.separable) {
            snprintf(err, len, "filter %s is not separable", f.name);
            kit_filter_free(&f);
            kit_image_free(&img);
            return -1;
        }
        unsigned char *p = kit_malloc(n);
        kit_interleaved_to_planar_u8(img.px, p, a->w, a->h, s->c);
        double *in = kit_malloc(n * sizeof *in), *tmp = kit_malloc(plane * sizeof *tmp);
        double *dst = kit_malloc(n * sizeof *dst);
        kit_u8_to_f64(p, in, n);
        for (int c = 0; c < s->c; c++) {
            kit_ref_row_pass_f64(in + c * plane, tmp, a->w, a->h, f.row, f.radius);
            kit_ref_col_pass_f64(tmp, dst + c * plane, a->w, a->h, f.col, f.radius);
        }
        free(p);
        free(in);
        free(tmp);
        ref->data = dst;
    }
    kit_image_free(&img);
    kit_filter_free(&f);
    return 0;
}

/* Read a whole file; NULL on error. */
static void *read_file(const char *path, size_t *bytes)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    if (fseek(fp, 0, SEEK_END)) {
        fclose(fp);
        return NULL;
    }
    long n = ftell(fp);
    rewind(fp);
    if (n < 0) {
        fclose(fp);
        return NULL;
    }
    void *p = kit_malloc((size_t)n + 1);
    size_t got = fread(p, 1, (size_t)n, fp);
    fclose(fp);
    if (got != (size_t)n) {
        free(p);
        return NULL;
    }
    ((char *)p)[n] = 0;
    *bytes = (size_t)n;
    return p;
}

/* The reference, from the cache folder when it is there (every submission
 * of a class shares the hidden cases). */
static int get_ref(const char *cache, const char *lab, const out_spec *s, const case_args *a,
                   kit_buf *ref, double *atol, char *err, size_t len)
{
    char key[256], path[4096];
    snprintf(key, sizeof key, "%s|%s|%dx%d|%s|%d|%dx%d|%llu", lab, s->kind, a->w, a->h, a->filter,
             a->radius, a->rows, a->cols, a->seed);
    kit_buf b = {s->type, a->w, a->h, s->c, s->planar, NULL};
    const size_t nb = kit_buf_bytes(&b);
    if (cache) {
        /* the reference's bytes, then its computed tolerance (NaN when none) */
        snprintf(path, sizeof path, "%s/ref-%016llx.bin", cache, fnv1a(key));
        size_t bytes;
        char *data = read_file(path, &bytes);
        if (data && bytes == nb + sizeof(double)) {
            memcpy(atol, data + nb, sizeof(double));
            b.data = data;
            *ref = b;
            return 0;
        }
        free(data);
    }
    if (compute_ref(s, a, ref, atol, err, len))
        return -1;
    if (cache) {
        char *blob = kit_malloc(nb + sizeof(double));
        memcpy(blob, ref->data, nb);
        memcpy(blob + nb, atol, sizeof(double));
        (void)kit_write_file_atomic(path, blob, nb + sizeof(double));
        free(blob);
    }
    return 0;
}

static int cmd_compare(int argc, char **argv)
{
    const char *lab = NULL, *args = NULL, *out = NULL, *meta = NULL, *diff = NULL, *cache = NULL;
    int v = -1;
    double atol = NAN, rtol = NAN;
    for (int i = 0; i < argc; i++) {
        if (i + 1 >= argc)
            return usage("an option lacks its value");
        const char *k = argv[i], *val = argv[++i];
        if (!strcmp(k, "--lab"))
            lab = val;
        else if (!strcmp(k, "--variant"))
            v = atoi(val);
        else if (!strcmp(k, "--args"))
            args = val;
        else if (!strcmp(k, "--out"))
            out = val;
        else if (!strcmp(k, "--meta"))
            meta = val;
        else if (!strcmp(k, "--diff"))
            diff = val;
        else if (!strcmp(k, "--cache"))
            cache = val;
        else if (!strcmp(k, "--atol"))
            atol = strtod(val, NULL);
        else if (!strcmp(k, "--rtol"))
            rtol = strtod(val, NULL);
        else
            return usage("unknown compare option");
    }
    if (!lab || v < 0 || !args || !out)
        return usage("compare needs --lab, --variant, --args and --out");
    case_args a;
    if (parse_case_args(args, &a))
        return usage("--args must be --size WxH --filter NAME [--radius R] --seed S, or --rows M --cols N --seed S");
    out_spec s;
    char err[512];
    if (lab_spec(lab, v, &s, err, sizeof err)) {
        fprintf(stderr, "check: %s\n", err);
        return 2;
    }

    static const char *tname[] = {"u8", "f32", "f64"};
    kit_buf want = {s.type, a.w, a.h, s.c, s.planar, NULL};

    /* the shape the run claims must be the shape the variant has */
    if (meta) {
        size_t mb;
        char *m = read_file(meta, &mb);
        char st[32], ty[8];
        int w, h, c, planar;
        if (!m || sscanf(m, "%31s %7s %d %d %d %d", st, ty, &w, &h, &c, &planar) != 6) {
            printf("bad the run's output description is missing or unreadable\n");
            free(m);
            return 1;
        }
        free(m);
        if (strcmp(ty, tname[s.type]) || w != a.w || h != a.h || c != s.c || planar != s.planar) {
            printf("bad the output is %s %dx%dx%d%s, expected %s %dx%dx%d%s\n", ty, w, h, c,
                   planar ? " planar" : "", tname[s.type], a.w, a.h, s.c,
                   s.planar ? " planar" : "");
            return 1;
        }
    }
    size_t bytes = 0;
    void *got = read_file(out, &bytes);
    if (!got) {
        printf("bad no output file\n");
        return 1;
    }
    if (bytes != kit_buf_bytes(&want)) {
        printf("bad the output has %zu bytes, expected %zu\n", bytes, kit_buf_bytes(&want));
        free(got);
        return 1;
    }
    kit_buf ref;
    double ref_atol;
    if (get_ref(cache, lab, &s, &a, &ref, &ref_atol, err, sizeof err)) {
        fprintf(stderr, "check: %s\n", err);
        free(got);
        return 2;
    }
    /* the tolerance: the rubric's, else the lab's, else the one computed with the reference */
    if (isnan(atol))
        atol = isnan(s.atol) ? ref_atol : s.atol;
    if (isnan(rtol))
        rtol = s.rtol;
    if (isnan(atol))
        atol = 0.0;
    want.data = got;
    kit_cmp cmp;
    size_t bad = kit_compare(&ref, &want, atol, rtol, &cmp);
    if (bad == 0) {
        printf("pass\n");
    } else {
        printf("fail %zu %zu %.6g %.6g\n", cmp.mismatches, cmp.count, cmp.max_abs_err,
               cmp.max_rel_err);
        kit_cmp_print(stdout, &cmp, "  ");
        if (diff && a.h > 1) {
            if (kit_diff_picture(diff, &ref, &want, atol, rtol, err, sizeof err))
                fprintf(stderr, "check: diff picture not written: %s\n", err);
        }
    }
    free(ref.data);
    free(got);
    return bad ? 1 : 0;
}

/* --------------------------------------------------------------- kernels */

typedef struct {
    unsigned long long start, end; /* CUPTI timestamps, ns */
    char name[128];
} krec;

static int cmd_kernels(int argc, char **argv)
{
    if (argc < 3)
        return usage("kernels needs CUPTI_FILE DUMP_DIR VARIANTS");
    FILE *fp = fopen(argv[0], "r");
    if (!fp) {
        printf("missing 0\n");
        return 3;
    }
    size_t cap = 256, n = 0;
    krec *k = kit_malloc(cap * sizeof *k);
    long double cal[2][2]; /* (cupti, monotonic) at start and at end */
    int ncal = 0, complete = 0;
    char line[4096];
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#') {
            unsigned long long c, m;
            if (sscanf(line, "# calib %llu %llu", &c, &m) == 2) {
                int slot = ncal < 2 ? ncal++ : 1;
                cal[slot][0] = (long double)c;
                cal[slot][1] = (long double)m;
            } else if (!strncmp(line, "# end", 5)) {
                complete = 1;
            }
            continue;
        }
        /* name<TAB>start<TAB>end<TAB>duration */
        char *t1 = strchr(line, '\t');
        if (!t1)
            continue;
        *t1 = 0;
        unsigned long long s, e, d;
        if (sscanf(t1 + 1, "%llu %llu %llu", &s, &e, &d) != 3 || e < s)
            continue;
        if (n == cap) {
            cap *= 2;
            krec *nk = realloc(k, cap * sizeof *k);
            if (!nk) {
                free(k);
                fclose(fp);
                fprintf(stderr, "check: out of memory\n");
                return 2;
            }
            k = nk;
        }
        k[n].start = s;
        k[n].end = e;
        size_t nl = strlen(line);
        if (nl >= sizeof k[n].name)
            nl = sizeof k[n].name - 1;
        memcpy(k[n].name, line, nl);
        k[n].name[nl] = 0;
        n++;
    }
    fclose(fp);
    /* CUPTI time -> CLOCK_MONOTONIC: through the two calibration points (an
     * offset with one, the identity with none) */
    long double scale = 1.0L, off = 0.0L;
    if (ncal == 2 && cal[1][0] > cal[0][0])
        scale = (cal[1][1] - cal[0][1]) / (cal[1][0] - cal[0][0]);
    if (ncal >= 1)
        off = cal[0][1] - scale * cal[0][0];
    printf("%s %zu\n", complete ? "complete" : "incomplete", n);
    char list[256];
    snprintf(list, sizeof list, "%s", argv[2]);
    for (char *p = strtok(list, ","); p; p = strtok(NULL, ",")) {
        int v = atoi(p);
        char path[4096];
        snprintf(path, sizeof path, "%s/v%d.txt", argv[1], v);
        size_t mb;
        char *m = read_file(path, &mb);
        long long t0 = 0, t1 = -1;
        if (m)
            (void)sscanf(m, "%*s %*s %*d %*d %*d %*d %lld %lld", &t0, &t1);
        free(m);
        long count = 0;
        unsigned long long sum = 0;
        const char *first = "-";
        for (size_t i = 0; i < n; i++) {
            long double s = off + scale * (long double)k[i].start;
            if (s >= (long double)t0 && s <= (long double)t1) {
                if (!count)
                    first = k[i].name;
                count++;
                sum += k[i].end - k[i].start;
            }
        }
        printf("%d\t%ld\t%llu\t%s\n", v, count, sum, first);
    }
    free(k);
    return 0;
}

int main(int argc, char **argv)
{
    kit_prog = "check";
    if (argc < 2)
        return usage("no subcommand");
    if (!strcmp(argv[1], "cases"))
        return cmd_cases(argc - 2, argv + 2);
    if (!strcmp(argv[1], "compare"))
        return cmd_compare(argc - 2, argv + 2);
    if (!strcmp(argv[1], "kernels"))
        return cmd_kernels(argc - 2, argv + 2);
    return usage("unknown subcommand");
}
