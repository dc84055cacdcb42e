/* ref.c - lab 04's CPU reference (common/spec.h). Linked into local builds
 * and the grader's checker, never into a graded build.
 *
 * The kit's plain references (common/ref.c), spread over the host's cores:
 * rgb: kit_ref_corr2d_u8 on bands of rows, each band with the R rows above
 *      and below it that its window reaches (zero past the picture's edges,
 *      as in the whole picture), so every byte is the one the whole-picture
 *      reference gives;
 * sep: kit_ref_row_pass_f64 on bands of rows; the column pass as a row pass
 *      of the transposed plane, which adds the same products in the same
 *      order as kit_ref_col_pass_f64.
 */
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "kit.h"
#include "lab04.h"
#include "ref.h"
#include "spec.h"

#define BAND 64 /* output rows per task */

/* dst = the correlation of src (w x h, c interleaved channels), by bands. */
static void corr_u8_bands(const unsigned char *src, unsigned char *dst, int w, int h, int c,
                          const double *f, int size)
{
    const int r = size / 2;
    const size_t row = (size_t)w * (size_t)c;
#pragma omp parallel for schedule(dynamic)
    for (int y0 = 0; y0 < h; y0 += BAND) {
        const int y1 = KIT_MIN(h, y0 + BAND);
        const int a = KIT_MAX(0, y0 - r), b = KIT_MIN(h, y1 + r); /* rows the band reads */
        unsigned char *tmp = kit_malloc((size_t)(b - a) * row);
        kit_ref_corr2d_u8(src + (size_t)a * row, tmp, w, b - a, c, 0, f, size);
        memcpy(dst + (size_t)y0 * row, tmp + (size_t)(y0 - a) * row, (size_t)(y1 - y0) * row);
        free(tmp);
    }
}

static int rgb_reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                         size_t errlen)
{
    KIT_UNUSED(atol);
    const lab04_rgb *c = p->data;
    if (lab04_rgb_refusal(c, err, errlen)[0])
        return -1;
    unsigned char *dst = ref->data;
    if (v == 6) { /* planar: each plane on its own */
        const size_t plane = (size_t)c->w * (size_t)c->h;
        for (int ch = 0; ch < CONV_CHANNELS; ch++)
            corr_u8_bands(c->px_p + ch * plane, dst + ch * plane, c->w, c->h, 1, c->f.w64,
                          c->f.size);
    } else {
        corr_u8_bands(c->px, dst, c->w, c->h, CONV_CHANNELS, c->f.w64, c->f.size);
    }
    return 0;
}

/* dst (h x w) = the transpose of src (w x h, rows of w), in tiles. */
static void transpose_f64(const double *src, double *dst, int w, int h)
{
    enum { T = 32 };
#pragma omp parallel for schedule(static)
    for (int y0 = 0; y0 < h; y0 += T)
        for (int x0 = 0; x0 < w; x0 += T)
            for (int y = y0; y < KIT_MIN(h, y0 + T); y++)
                for (int x = x0; x < KIT_MIN(w, x0 + T); x++)
                    dst[(size_t)x * (size_t)h + (size_t)y] = src[(size_t)y * (size_t)w + (size_t)x];
}

/* The row pass of every row, by bands. */
static void rows_bands(const double *src, double *dst, int w, int h, const double *taps,
                       int radius)
{
#pragma omp parallel for schedule(dynamic)
    for (int y0 = 0; y0 < h; y0 += BAND) {
        const size_t at = (size_t)y0 * (size_t)w;
        kit_ref_row_pass_f64(src + at, dst + at, w, KIT_MIN(BAND, h - y0), taps, radius);
    }
}

static int sep_reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                         size_t errlen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(atol);
    const lab04_sep *c = p->data;
    if (!c->f.separable) {
        kit_set_err(err, errlen, "filter %s is not separable", c->f.name);
        return -1;
    }
    double *tmp = kit_malloc(c->n * sizeof(double)), *tr = kit_malloc(c->n * sizeof(double));
    rows_bands(c->cur, tmp, c->w, c->h, c->f.row, c->f.radius);
    transpose_f64(tmp, tr, c->w, c->h);               /* tr: w rows of h */
    rows_bands(tr, tmp, c->h, c->w, c->f.col, c->f.radius); /* the column pass, transposed */
    transpose_f64(tmp, ref->data, c->h, c->w);
    free(tmp);
    free(tr);
    return 0;
}

static const kit_part_ref parts[] = {{"rgb", rgb_reference}, {"sep", sep_reference}};
const kit_lab_refs kit_lab_ref = {2, parts};
