/* ref.c - CPU references: plain loops, double accumulation, nothing clever
 * (beyond taking a 2D filter's taps a row of outputs at a time).
 * Every lab's result is checked against these.
 */
#include "ref.h"
#include "image.h"
#include "kit.h"

#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdlib.h>

static void check_filter_size(const char *who, int size)
{
    if (size < 1 || size % 2 == 0)
        kit_die(KIT_EXIT_RUNTIME, "%s: filter size %d is not a positive odd number", who, size);
}

/* The threads a reference may use: 1 by default (the grader's checker and
 * the other tools that link the references); a lab binary's own check sets
 * 0: as many as OMP_NUM_THREADS says (its first value), else every core,
 * whatever the lab set for the student's code. Inside a parallel region (a
 * lab's own reference may call these per plane or per picture) always 1.
 * The rows are independent and each is summed in the same order on any
 * number of threads, so the result does not change. */
int kit_ref_threads = 1;

static int ref_threads(void)
{
    if (omp_get_active_level() > 0)
        return 1;
    if (kit_ref_threads > 0)
        return kit_ref_threads;
    const char *env = getenv("OMP_NUM_THREADS");
    if (env) {
        char *end;
        long n = strtol(env, &end, 10);
        if (end != env && n > 0 && n < 4096)
            return (int)n;
    }
    return omp_get_num_procs();
}

/* One correlation per element type: out(x, y, ch) = sum over the taps that
 * fall inside the image of f[i][j] * in(x+j-r, y+i-r, ch), in double, taps in
 * row-major order (zero outside the image). Computed a row at a time: a row
 * of sums (all channels of an interleaved row, or one plane's row) takes each
 * tap in turn over the outputs it reaches, so every sum sees its taps in the
 * same order as a loop over one pixel's window would, and the loop over a
 * row vectorizes. */
#define KIT_CORR_ROWS(NAME, T, OUT_T, STORE)                                                  \
    static void NAME(const T *src, OUT_T *dst, int w, int h, int c, int planar,               \
                     const double *f, int size)                                              \
    {                                                                                         \
        const int r = size / 2, planes = planar ? c : 1, nt = ref_threads();                 \
        const size_t cc = planar ? 1 : (size_t)c, n = (size_t)w * cc;                        \
        _Pragma("omp parallel num_threads(nt) if (nt > 1)")                                   \
        {                                                                                     \
            double *acc = kit_malloc((n ? n : 1) * sizeof *acc);                              \
            for (int p = 0; p < planes; p++) {                                                \
                const T *in = src + (size_t)p * n * (size_t)h;                                \
                OUT_T *out = dst + (size_t)p * n * (size_t)h;                                 \
                _Pragma("omp for schedule(static)")                                           \
                for (int y = 0; y < h; y++) {                                                 \
                    for (size_t k = 0; k < n; k++)                                            \
                        acc[k] = 0.0;                                                         \
                    for (int i = 0; i < size; i++) {                                          \
                        const int yy = y + i - r;                                             \
                        if (yy < 0 || yy >= h)                                                \
                            continue;                                                         \
                        const T *row = in + (size_t)yy * n;                                   \
                        for (int j = 0; j < size; j++) {                                      \
                            const long s = (long)(j - r) * (long)cc;                          \
                            const size_t k0 = s < 0 ? (size_t)-s : 0;                         \
                            const size_t k1 = s > 0 ? (n > (size_t)s ? n - (size_t)s : 0) : n; \
                            const double fv = f[i * size + j];                                \
                            for (size_t k = k0; k < k1; k++)                                  \
                                acc[k] += fv * (double)row[(long)k + s];                      \
                        }                                                                     \
                    }                                                                         \
                    for (size_t k = 0; k < n; k++)                                            \
                        out[(size_t)y * n + k] = STORE(acc[k]);                               \
                }                                                                             \
            }                                                                                 \
            free(acc);                                                                        \
        }                                                                                     \
    }
#define KIT_STORE_F32(x) ((float)(x))
#define KIT_STORE_F64(x) (x)
#define KIT_STORE_U8(x) kit_to_u8(x)
KIT_CORR_ROWS(corr_rows_f32, float, float, KIT_STORE_F32)
KIT_CORR_ROWS(corr_rows_f64, double, double, KIT_STORE_F64)
KIT_CORR_ROWS(corr_rows_u8, unsigned char, unsigned char, KIT_STORE_U8)

void kit_ref_corr2d_f32(const float *src, float *dst, int w, int h, int c, int planar,
                        const double *f, int size)
{
    check_filter_size("kit_ref_corr2d_f32", size);
    corr_rows_f32(src, dst, w, h, c, planar, f, size);
}

void kit_ref_corr2d_f64(const double *src, double *dst, int w, int h, int c, int planar,
                        const double *f, int size)
{
    check_filter_size("kit_ref_corr2d_f64", size);
    corr_rows_f64(src, dst, w, h, c, planar, f, size);
}

void kit_ref_corr2d_u8(const unsigned char *src, unsigned char *dst, int w, int h, int c,
                       int planar, const double *f, int size)
{
    check_filter_size("kit_ref_corr2d_u8", size);
    corr_rows_u8(src, dst, w, h, c, planar, f, size);
}

void kit_ref_row_pass_f64(const double *src, double *dst, int w, int h, const double *taps, int radius)
{
    const int nt = ref_threads();
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double sum = 0.0;
            for (int k = 0; k <= 2 * radius; k++) {
                int sx = x + k - radius;
                if (sx >= 0 && sx < w)
                    sum += taps[k] * src[(size_t)y * (size_t)w + (size_t)sx];
            }
            dst[(size_t)y * (size_t)w + (size_t)x] = sum;
        }
}

void kit_ref_col_pass_f64(const double *src, double *dst, int w, int h, const double *taps, int radius)
{
    const int nt = ref_threads();
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double sum = 0.0;
            for (int k = 0; k <= 2 * radius; k++) {
                int sy = y + k - radius;
                if (sy >= 0 && sy < h)
                    sum += taps[k] * src[(size_t)sy * (size_t)w + (size_t)x];
            }
            dst[(size_t)y * (size_t)w + (size_t)x] = sum;
        }
}

void kit_ref_matvec_f64(const double *A, const double *x, double *y, int m, int n)
{
    for (int i = 0; i < m; i++) {
        const double *a = A + (size_t)i * (size_t)n;
        double sum = 0.0, comp = 0.0; /* comp gathers what each addition lost */
        for (int j = 0; j < n; j++) {
            double term = a[j] * x[j];
            double t = sum + term;
            if (fabs(sum) >= fabs(term))
                comp += (sum - t) + term;
            else
                comp += (term - t) + sum;
            sum = t;
        }
        y[i] = sum + comp;
    }
}

void kit_ref_transpose_f32(const float *in, float *out, int rows, int cols)
{
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            out[(size_t)c * (size_t)rows + (size_t)r] = in[(size_t)r * (size_t)cols + (size_t)c];
}

void kit_ref_sum_arrays_f32(const float *a, const float *b, float *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

void kit_ref_rescale_img(float *img, float max, size_t n, int aos)
{
    KIT_UNUSED(aos); /* every component is scaled: the layout does not matter */
    for (size_t i = 0; i < 3 * n; i++)
        img[i] = (float)((double)img[i] * (double)max / 255.0);
}

void kit_ref_delete_plane(float *img, char plane, size_t n, int aos)
{
    int p;
    switch (plane) {
    case 'r': case 'R': p = 0; break;
    case 'g': case 'G': p = 1; break;
    case 'b': case 'B': p = 2; break;
    default:
        kit_die(KIT_EXIT_RUNTIME, "kit_ref_delete_plane: plane '%c' is not r, g or b", plane);
    }
    for (size_t i = 0; i < n; i++) {
        if (aos)
            img[3 * i + (size_t)p] = 0.0f;
        else
            img[(size_t)p * n + i] = 0.0f;
    }
}

void kit_ref_conv_input(const kit_conv_input *in, float *dst)
{
    kit_ref_corr2d_f32(in->h_src, dst, in->w, in->h, in->c, 0, in->filter.w64, in->filter.size);
    kit_clamp_f32(dst, (size_t)in->w * (size_t)in->h * (size_t)in->c, 0.0f, 255.0f);
}

int kit_ref_conv_part(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                      size_t errlen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(atol);
    KIT_UNUSED(err);
    KIT_UNUSED(errlen);
    kit_ref_conv_input(p->data, ref->data);
    return 0;
}
