/* compare.c - result checking and the diff picture. */
#define _POSIX_C_SOURCE 200809L
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "kit.h"

size_t kit_type_size(kit_type t)
{
    return t == KIT_U8 ? 1 : t == KIT_F32 ? sizeof(float) : sizeof(double);
}

size_t kit_buf_count(const kit_buf *b)
{
    return (size_t)b->w * (size_t)b->h * (size_t)b->c;
}

size_t kit_buf_bytes(const kit_buf *b)
{
    return kit_buf_count(b) * kit_type_size(b->type);
}

double kit_buf_get(const kit_buf *b, size_t i)
{
    switch (b->type) {
    case KIT_U8: return ((const unsigned char *)b->data)[i];
    case KIT_F32: return ((const float *)b->data)[i];
    default: return ((const double *)b->data)[i];
    }
}

void kit_buf_coords(const kit_buf *b, size_t i, int *x, int *y, int *ch)
{
    size_t plane = (size_t)b->w * (size_t)b->h;
    size_t pix;
    if (b->planar) {
        *ch = (int)(i / plane);
        pix = i % plane;
    } else {
        *ch = (int)(i % (size_t)b->c);
        pix = i / (size_t)b->c;
    }
    *y = (int)(pix / (size_t)b->w);
    *x = (int)(pix % (size_t)b->w);
}

/* Memory index of (x, y, ch). */
static size_t buf_index(const kit_buf *b, int x, int y, int ch)
{
    size_t pix = (size_t)y * (size_t)b->w + (size_t)x;
    if (b->planar)
        return (size_t)ch * (size_t)b->w * (size_t)b->h + pix;
    return pix * (size_t)b->c + (size_t)ch;
}

/* Absolute error, infinite when got is NaN or infinite and ref is not. */
static double abs_err(double ref, double got)
{
    if (isnan(got) || isnan(ref))
        return (isnan(got) && isnan(ref)) ? 0.0 : INFINITY;
    if (isinf(got) || isinf(ref))
        return got == ref ? 0.0 : INFINITY;
    return fabs(got - ref);
}

static int fails(kit_type t, double ref, double err, double atol, double rtol)
{
    if (t == KIT_U8)
        return err != 0.0;
    if (isnan(ref) || isinf(err))
        return 1; /* NaN never passes; an infinite error is never within tolerance */
    if (err == 0.0)
        return 0;
    return !(err <= atol + rtol * fabs(ref));
}

size_t kit_compare(const kit_buf *ref, const kit_buf *got, double atol, double rtol, kit_cmp *r)
{
    memset(r, 0, sizeof *r);
    size_t n = kit_buf_count(ref);
    r->count = n;
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = kit_buf_get(ref, i), g = kit_buf_get(got, i);
        if (g == e) { /* the common case, short: no error, no mismatch */
            den += e * e;
            continue;
        }
        double a = abs_err(e, g);
        double rel = (e != 0.0) ? a / fabs(e) : (a > 0.0 ? INFINITY : 0.0);
        if (a > r->max_abs_err)
            r->max_abs_err = a;
        if (rel > r->max_rel_err)
            r->max_rel_err = rel;
        num += a * a;
        den += e * e;
        if (fails(ref->type, e, a, atol, rtol)) {
            if (r->nlisted < KIT_CMP_MAX_LIST) {
                kit_mismatch *m = &r->first[r->nlisted++];
                kit_buf_coords(ref, i, &m->x, &m->y, &m->ch);
                m->expected = e;
                m->got = g;
            }
            r->mismatches++;
        }
    }
    if (den > 0.0)
        r->rel_l2 = sqrt(num) / sqrt(den);
    else
        r->rel_l2 = num > 0.0 ? INFINITY : 0.0;
    return r->mismatches;
}

void kit_cmp_print(FILE *fp, const kit_cmp *r, const char *indent)
{
    if (!indent)
        indent = "";
    fprintf(fp, "%s%zu of %zu elements wrong; max abs error %.6g, max rel error %.6g, rel L2 %.3g\n",
            indent, r->mismatches, r->count, r->max_abs_err, r->max_rel_err, r->rel_l2);
    if (r->nlisted)
        fprintf(fp, "%s%s first %d:%8s %6s %4s %14s %14s\n", indent, "", r->nlisted, "x", "y",
                "ch", "expected", "got");
    for (int i = 0; i < r->nlisted; i++) {
        const kit_mismatch *m = &r->first[i];
        if (isnan(m->got))
            fprintf(fp, "%s%17d %6d %4d %14.6g %14s\n", indent, m->x, m->y, m->ch, m->expected,
                    "unwritten");
        else
            fprintf(fp, "%s%17d %6d %4d %14.6g %14.6g\n", indent, m->x, m->y, m->ch,
                    m->expected, m->got);
    }
}

int kit_diff_picture(const char *path, const kit_buf *ref, const kit_buf *got, double atol,
                     double rtol, char *err, size_t errlen)
{
    int w = ref->w, h = ref->h, c = ref->c;
    size_t npix = (size_t)w * (size_t)h;
    double *perr = kit_malloc(npix * sizeof *perr);
    unsigned char *bad = kit_calloc(npix, 1);
    unsigned char *rgb = kit_malloc(npix * 3);
    double emax = 0.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t p = (size_t)y * (size_t)w + (size_t)x;
            double lum = 0.0, worst = 0.0;
            int nlum = c < 3 ? c : 3;
            for (int ch = 0; ch < c; ch++) {
                size_t i = buf_index(ref, x, y, ch);
                double e = kit_buf_get(ref, i), g = kit_buf_get(got, i);
                double a = abs_err(e, g);
                if (ch < nlum)
                    lum += kit_to_u8(e);
                if (a > worst)
                    worst = a;
                if (fails(ref->type, e, a, atol, rtol))
                    bad[p] = 1;
            }
            perr[p] = worst;
            if (isfinite(worst) && worst > emax)
                emax = worst;
            /* faded grey copy of the expected picture */
            unsigned char grey = (unsigned char)(150.0 + 0.35 * lum / nlum);
            rgb[3 * p] = rgb[3 * p + 1] = rgb[3 * p + 2] = grey;
        }
    /* heat map: within tolerance yellow blended in, failing orange to red */
    for (size_t p = 0; p < npix; p++) {
        if (perr[p] == 0.0 && !bad[p])
            continue;
        double t = (!isfinite(perr[p]) || emax == 0.0) ? 1.0 : perr[p] / emax;
        unsigned char *o = &rgb[3 * p];
        if (bad[p]) {
            o[0] = 255;
            o[1] = (unsigned char)(160.0 * (1.0 - t));
            o[2] = 0;
        } else {
            o[0] = (unsigned char)(0.5 * o[0] + 0.5 * 255);
            o[1] = (unsigned char)(0.5 * o[1] + 0.5 * 220);
            o[2] = (unsigned char)(0.5 * o[2] * (1.0 - t));
        }
    }
    /* in a large picture one pixel is invisible: ring failing pixels */
    int rad = (w > h ? w : h) / 600;
    if (rad > 0) {
        unsigned char *copy = kit_malloc(npix * 3);
        memcpy(copy, rgb, npix * 3);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                if (!bad[(size_t)y * w + x])
                    continue;
                for (int dy = -rad; dy <= rad; dy++)
                    for (int dx = -rad; dx <= rad; dx++) {
                        int xx = x + dx, yy = y + dy;
                        if (xx < 0 || yy < 0 || xx >= w || yy >= h)
                            continue;
                        size_t q = (size_t)yy * w + xx;
                        if (!bad[q]) {
                            copy[3 * q] = 255;
                            copy[3 * q + 1] = 0;
                            copy[3 * q + 2] = 0;
                        }
                    }
            }
        free(rgb);
        rgb = copy;
    }
    int rc = kit_png_write(path, rgb, w, h, 3, err, errlen);
    free(perr);
    free(bad);
    free(rgb);
    return rc;
}

int kit_buf_save_picture(const char *path, const kit_buf *b, char *err, size_t errlen)
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

int kit_buf_save_frames(const char *path, const kit_buf *b, int frame_h, int *shown, int *total,
                        char *err, size_t errlen)
{
    int frames = (frame_h > 0 && b->h % frame_h == 0) ? b->h / frame_h : 1;
    *shown = *total = frames;
    if (frames == 1 || b->planar || b->h <= KIT_SHEET_SIDE)
        return kit_buf_save_picture(path, b, err, errlen);
    int cols = KIT_SHEET_SIDE / b->w, rows = KIT_SHEET_SIDE / frame_h;
    cols = cols < 1 ? 1 : cols;
    rows = rows < 1 ? 1 : rows;
    if (cols > frames)
        cols = frames;
    if (rows > (frames + cols - 1) / cols)
        rows = (frames + cols - 1) / cols;
    int n = cols * rows < frames ? cols * rows : frames;
    size_t px = kit_type_size(b->type) * (size_t)b->c; /* bytes a pixel */
    size_t frow = px * (size_t)b->w;                   /* bytes a row of one frame */
    kit_buf sheet = {b->type, b->w * cols, frame_h * rows, b->c, 0, NULL};
    sheet.data = kit_malloc(kit_buf_bytes(&sheet));
    memset(sheet.data, 0, kit_buf_bytes(&sheet));
    for (int f = 0; f < n; f++)
        for (int y = 0; y < frame_h; y++) {
            const unsigned char *from = (const unsigned char *)b->data + ((size_t)f * frame_h + y) * frow;
            unsigned char *to = (unsigned char *)sheet.data +
                                ((size_t)(f / cols) * frame_h + y) * frow * cols + (size_t)(f % cols) * frow;
            memcpy(to, from, frow);
        }
    int rc = kit_buf_save_picture(path, &sheet, err, errlen);
    free(sheet.data);
    *shown = n;
    return rc;
}
