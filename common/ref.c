/* ref.c - CPU references: plain loops, double accumulation, nothing clever.
 * Every lab's result is checked against these.
 */
#include "ref.h"
#include "image.h"
#include "kit.h"

#include <math.h>
#include <stddef.h>

static void check_filter_size(const char *who, int size)
{
    if (size < 1 || size % 2 == 0)
        kit_die(KIT_EXIT_RUNTIME, "%s: filter size %d is not a positive odd number", who, size);
}

/* Index of (x, y, ch) in either layout. */
static size_t at(int x, int y, int ch, int w, int h, int c, int planar)
{
    if (planar)
        return (size_t)ch * (size_t)w * (size_t)h + (size_t)y * (size_t)w + (size_t)x;
    return ((size_t)y * (size_t)w + (size_t)x) * (size_t)c + (size_t)ch;
}

/* One output value of the correlation; zero outside the image. The three
 * element types share this through a small reader. */
typedef double (*reader)(const void *src, size_t i);
static double read_f32(const void *src, size_t i) { return (double)((const float *)src)[i]; }
static double read_f64(const void *src, size_t i) { return ((const double *)src)[i]; }
static double read_u8(const void *src, size_t i) { return (double)((const unsigned char *)src)[i]; }

static double corr_at(const void *src, reader rd, int x, int y, int ch, int w, int h, int c,
                      int planar, const double *f, int size)
{
    int r = size / 2;
    double sum = 0.0;
    for (int i = 0; i < size; i++) {
        int sy = y + i - r;
        if (sy < 0 || sy >= h)
            continue;
        for (int j = 0; j < size; j++) {
            int sx = x + j - r;
            if (sx < 0 || sx >= w)
                continue;
            sum += f[i * size + j] * rd(src, at(sx, sy, ch, w, h, c, planar));
        }
    }
    return sum;
}

void kit_ref_corr2d_f32(const float *src, float *dst, int w, int h, int c, int planar,
                        const double *f, int size)
{
    check_filter_size("kit_ref_corr2d_f32", size);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++)
                dst[at(x, y, ch, w, h, c, planar)] =
                    (float)corr_at(src, read_f32, x, y, ch, w, h, c, planar, f, size);
}

void kit_ref_corr2d_f64(const double *src, double *dst, int w, int h, int c, int planar,
                        const double *f, int size)
{
    check_filter_size("kit_ref_corr2d_f64", size);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++)
                dst[at(x, y, ch, w, h, c, planar)] =
                    corr_at(src, read_f64, x, y, ch, w, h, c, planar, f, size);
}

void kit_ref_corr2d_u8(const unsigned char *src, unsigned char *dst, int w, int h, int c,
                       int planar, const double *f, int size)
{
    check_filter_size("kit_ref_corr2d_u8", size);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++)
                dst[at(x, y, ch, w, h, c, planar)] =
                    kit_to_u8(corr_at(src, read_u8, x, y, ch, w, h, c, planar, f, size));
}

void kit_ref_row_pass_f64(const double *src, double *dst, int w, int h, const double *taps, int radius)
{
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
