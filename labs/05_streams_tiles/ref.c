/* ref.c - lab 05's CPU references (common/spec.h), on every core: linked into
 * local builds and the grader's checker, never into a graded build.
 *
 * strip: the separable filter of the current content, zero outside, the
 *        taps of each output summed in the kernels' order (k = -R..R). Done
 *        in blocks of rows, each with its own halo, so that a 65536 x 65536
 *        picture needs no second picture-sized buffer.
 * batch: each picture's content of the key (spec.c), then the common 8-bit
 *        correlation (kit_ref_corr2d_u8), interleaved RGB.
 * device: zeros (the output is the student's reading minus the harness's).
 * copies: the bytes of the key's content: what was sent comes back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "convin.h"
#include "kit.h"
#include "lab05.h"
#include "ref.h"
#include "spec.h"

/* Output rows y0 .. y1-1 of the separable filter into out (the whole
 * picture's rows), through tmp ((y1-y0+2R) rows of W doubles). The column
 * pass goes in slices of XS columns, so that the 2R+1 rows it reads stay in
 * the cache. */
#define XS 1024
static void strip_ref_rows(const double *restrict in, double *restrict out, int W, int H,
                           const double *row, const double *col, int R, int y0, int y1,
                           double *restrict tmp)
{
    const int a0 = y0 - R > 0 ? y0 - R : 0, a1 = y1 + R < H ? y1 + R : H;
    for (int y = a0; y < a1; y++) { /* row pass of input rows a0 .. a1-1 */
        const double *restrict s = in + (size_t)y * W;
        double *restrict t = tmp + (size_t)(y - a0) * W;
        memset(t, 0, (size_t)W * sizeof *t);
        for (int k = -R; k <= R; k++) {
            const double w = row[k + R];
            const int xs = k < 0 ? -k : 0, xe = k > 0 ? W - k : W;
#pragma omp simd
            for (int x = xs; x < xe; x++)
                t[x] += w * s[x + k];
        }
    }
    for (int x0 = 0; x0 < W; x0 += XS) { /* column pass of rows y0 .. y1-1 */
        const int x1 = x0 + XS < W ? x0 + XS : W;
        for (int y = y0; y < y1; y++) {
            double *restrict o = out + (size_t)y * W;
            memset(o + x0, 0, (size_t)(x1 - x0) * sizeof *o);
            for (int k = -R; k <= R; k++) {
                const int yy = y + k;
                if (yy < 0 || yy >= H)
                    continue;
                const double w = col[k + R];
                const double *restrict t = tmp + (size_t)(yy - a0) * W;
#pragma omp simd
                for (int x = x0; x < x1; x++)
                    o[x] += w * t[x];
            }
        }
    }
}

static int strip_reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                           size_t errlen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(atol);
    strip_data *d = p->data;
    if (d->key != p->key) { /* the spec keeps the content of the key in force */
        strip_fill(d->in, (size_t)d->w * (size_t)d->h, p->seed, p->key);
        d->key = p->key;
    }
    const int W = d->w, H = d->h, R = d->f.radius;
    /* blocks of rows: tall enough that the halo's extra row passes cost
     * little, small enough that each thread's tmp stays near 128 MiB */
    long block = (long)((128L << 20) / ((long)W * (long)sizeof(double))) - 2L * R;
    if (block < 16)
        block = 16;
    if (block > H)
        block = H;
    const int nblocks = (int)((H + block - 1) / block);
    int failed = 0;
#pragma omp parallel
    {
        double *tmp = malloc((size_t)(block + 2 * R) * (size_t)W * sizeof *tmp);
        if (!tmp) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (int b = 0; b < nblocks; b++) {
            if (!tmp)
                continue;
            const int y0 = (int)(b * block), y1 = (int)KIT_MIN((long)H, (b + 1) * block);
            strip_ref_rows(d->in, ref->data, W, H, d->f.row, d->f.col, R, y0, y1, tmp);
        }
        free(tmp);
    }
    if (failed) {
        kit_set_err(err, errlen, "out of memory for the reference's row blocks");
        return -1;
    }
    return 0;
}

static int batch_reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                           size_t errlen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(atol);
    KIT_UNUSED(err);
    KIT_UNUSED(errlen);
    const batch_data *d = p->data;
    const size_t pic = batch_data_picture(d);
    unsigned char *out = ref->data;
#pragma omp parallel
    {
        unsigned char *px = kit_malloc(pic);
#pragma omp for schedule(dynamic, 4)
        for (int i = 0; i < d->count; i++) {
            batch_content(px, d->base + (size_t)i * pic, pic, p->key, i);
            kit_ref_corr2d_u8(px, out + (size_t)i * pic, d->w, d->h, 3, 0, d->f.w64, d->f.size);
        }
        free(px);
    }
    return 0;
}

static int device_reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                            size_t errlen)
{
    KIT_UNUSED(p);
    KIT_UNUSED(v);
    KIT_UNUSED(atol);
    KIT_UNUSED(err);
    KIT_UNUSED(errlen);
    double *out = ref->data;
    for (int i = 0; i < DEVICE_FIELDS; i++)
        out[i] = 0.0;
    return 0;
}

static int copies_reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                            size_t errlen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(atol);
    KIT_UNUSED(err);
    KIT_UNUSED(errlen);
    const copies_data *d = p->data;
    kit_bytes_fresh(ref->data, d->base, d->bytes, p->key);
    return 0;
}

static const kit_part_ref parts[] = {{"device", device_reference},
                                     {"copies", copies_reference},
                                     {"strip", strip_reference},
                                     {"batch", batch_reference}};
const kit_lab_refs kit_lab_ref = {KIT_NELEMS(parts), parts};
