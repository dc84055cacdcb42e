/* ref.c - CPU references: plain loops, double accumulation, nothing clever
 * (beyond clipping a filter window to the image once per pixel).
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

/* Where (x, y, ch) is in either layout: base + y*row + x*px + ch*chan. */
typedef struct {
    size_t row, px, chan;
} strides;

static strides layout(int w, int h, int c, int planar)
{
    if (planar)
        return (strides){(size_t)w, 1, (size_t)w * (size_t)h};
    return (strides){(size_t)w * (size_t)c, (size_t)c, 1};
}

/* One correlation per element type: out(x, y, ch) = sum over the taps that
 * fall inside the image of f[i][j] * in(x+j-r, y+i-r, ch), in double, taps in
 * row-major order (zero outside the image). The window is clipped to the
 * image once per pixel, so the loop over taps has no tests. */
#define KIT_CORR_AT(NAME, T)                                                                  \
    static double NAME(const T *src, strides st, int x, int y, int ch, int w, int h,          \
                       const double *f, int size)                                            \
    {                                                                                         \
        const int r = size / 2;                                                               \
        const int i0 = y - r < 0 ? r - y : 0, i1 = y + r >= h ? h - y + r : size;            \
        const int j0 = x - r < 0 ? r - x : 0, j1 = x + r >= w ? w - x + r : size;            \
        double sum = 0.0;                                                                     \
        for (int i = i0; i < i1; i++) {                                                       \
            const T *in = src + (size_t)(y + i - r) * st.row + (size_t)ch * st.chan;           \
            for (int j = j0; j < j1; j++)                                                     \
                sum += f[i * size + j] * (double)in[(size_t)(x + j - r) * st.px];             \
        }                                                                                     \
        return sum;                                                                           \
    }
KIT_CORR_AT(corr_at_f32, float)
KIT_CORR_AT(corr_at_f64, double)
KIT_CORR_AT(corr_at_u8, unsigned char)

static size_t index_of(strides st, int x, int y, int ch)
{
    return (size_t)y * st.row + (size_t)x * st.px + (size_t)ch * st.chan;
}

void kit_ref_corr2d_f32(const float *src, float *dst, int w, int h, int c, int planar,
                        const double *f, int size)
{
    check_filter_size("kit_ref_corr2d_f32", size);
    const strides st = layout(w, h, c, planar);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++)
                dst[index_of(st, x, y, ch)] = (float)corr_at_f32(src, st, x, y, ch, w, h, f, size);
}

void kit_ref_corr2d_f64(const double *src, double *dst, int w, int h, int c, int planar,
                        const double *f, int size)
{
    check_filter_size("kit_ref_corr2d_f64", size);
    const strides st = layout(w, h, c, planar);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++)
                dst[index_of(st, x, y, ch)] = corr_at_f64(src, st, x, y, ch, w, h, f, size);
}

void kit_ref_corr2d_u8(const unsigned char *src, unsigned char *dst, int w, int h, int c,
                       int planar, const double *f, int size)
{
    check_filter_size("kit_ref_corr2d_u8", size);
    const strides st = layout(w, h, c, planar);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++)
                dst[index_of(st, x, y, ch)] =
                    kit_to_u8(corr_at_u8(src, st, x, y, ch, w, h, f, size));
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

void kit_ref_conv_input(const kit_conv_input *in, float *dst)
{
    kit_ref_corr2d_f32(in->h_src, dst, in->w, in->h, in->c, 0, in->filter.w64, in->filter.size);
    kit_clamp_f32(dst, (size_t)in->w * (size_t)in->h * (size_t)in->c, 0.0f, 255.0f);
}
