/* loader.c - the pictures batch v5 decodes (harness05.h, batch.h): files of
 * --images read and decoded with stb, or the generated pictures encoded as
 * PNG in memory once (so that v5 has real decoding work either way), and
 * batch_load(), the decoder on several threads that the student's v5 calls.
 * Every decoded picture gets the content of the key in force (spec.c's
 * batch_content), as the other variants' pictures do.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include "harness05.h"
#include "timing.h"

/* ------------------------------------------------------------ encoding */

typedef struct {
    unsigned char *p;
    size_t n, cap;
    int failed;
} membuf;

static void membuf_put(void *ctx, void *data, int size)
{
    membuf *m = ctx;
    if (m->failed || size <= 0)
        return;
    if (m->n + (size_t)size > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 65536;
        while (cap < m->n + (size_t)size)
            cap *= 2;
        unsigned char *p = realloc(m->p, cap);
        if (!p) {
            m->failed = 1;
            return;
        }
        m->p = p;
        m->cap = cap;
    }
    memcpy(m->p + m->n, data, (size_t)size);
    m->n += (size_t)size;
}

int batch_source_make(batch_source *s, const batch_data *d, int threads)
{
    memset(s, 0, sizeof *s);
    s->w = d->w;
    s->h = d->h;
    s->count = d->count;
    if (d->from_files) {
        s->paths = d->paths;
        return 0;
    }
    s->enc = kit_calloc((size_t)d->count, sizeof *s->enc);
    s->enc_len = kit_calloc((size_t)d->count, sizeof *s->enc_len);
    const size_t pic = batch_data_picture(d);
    int failed = 0;
    /* a light compression level: the encoding is set-up work, the decoding
     * (the same cost at any level) is what v5 measures */
    stbi_write_png_compression_level = 1;
    stbi_write_force_png_filter = 1; /* one filter for every row, no search */
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4)
    for (int i = 0; i < d->count; i++) {
        membuf m = {NULL, 0, 0, 0};
        int ok = stbi_write_png_to_func(membuf_put, &m, d->w, d->h, 3, d->base + (size_t)i * pic,
                                        d->w * 3);
        if (!ok || m.failed) {
            free(m.p);
#pragma omp atomic write
            failed = 1;
            continue;
        }
        s->enc[i] = m.p;
        s->enc_len[i] = m.n;
    }
    if (failed) {
        kit_error("could not encode the generated pictures as PNG for v5 (out of memory?)");
        batch_source_free(s);
        return -1;
    }
    return 0;
}

void batch_source_free(batch_source *s)
{
    for (int i = 0; s->enc && i < s->count; i++)
        free(s->enc[i]);
    free(s->enc);
    free(s->enc_len);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ decoding */

/* Picture i into dst; 0, or -1 with the reason. */
static int decode_one(const batch_source *s, int i, unsigned char *dst, char *err, size_t errlen)
{
    int w = 0, h = 0, n = 0;
    unsigned char *px;
    if (s->paths)
        px = stbi_load(s->paths[i], &w, &h, &n, 3);
    else
        px = stbi_load_from_memory(s->enc[i], (int)s->enc_len[i], &w, &h, &n, 3);
    if (!px) {
        const char *why = stbi_failure_reason();
        snprintf(err, errlen, "cannot decode picture %d%s%s: %s", i, s->paths ? " " : "",
                 s->paths ? s->paths[i] : "", why ? why : "unknown reason");
        return -1;
    }
    if (w != s->w || h != s->h) {
        snprintf(err, errlen, "picture %d is now %dx%d, not %dx%d", i, w, h, s->w, s->h);
        stbi_image_free(px);
        return -1;
    }
    const size_t pic = (size_t)w * (size_t)h * 3;
    memcpy(dst, px, pic);
    stbi_image_free(px);
    batch_content(dst, dst, pic, s->key, i);
    return 0;
}

int batch_load(const batch_source *src, int first, int n, unsigned char *dst, int threads)
{
    if (!src || !dst || first < 0 || n < 1 || first > src->count - n || threads < 1) {
        kit_error("batch_load: pictures %d..%d of %d on %d threads: not a valid request", first,
                  first + n - 1, src ? src->count : 0, threads);
        return KIT_RUNTIME_ERROR;
    }
    const size_t pic = (size_t)src->w * (size_t)src->h * 3;
    int bad = -1;
    char why[512] = "";
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int k = 0; k < n; k++) {
        char e[512];
        if (decode_one(src, first + k, dst + (size_t)k * pic, e, sizeof e)) {
#pragma omp critical(lab05_decode)
            if (bad < 0 || k < bad) {
                bad = k;
                snprintf(why, sizeof why, "%s", e);
            }
        }
    }
    if (bad >= 0) {
        kit_error("batch_load: %s", why);
        return KIT_RUNTIME_ERROR;
    }
    return KIT_OK;
}

double batch_decode_alone(const batch_source *s, int group, unsigned char *stage[2], int threads,
                          int reps)
{
    double *t = kit_malloc((size_t)reps * sizeof *t);
    int ok = 1;
    for (int r = 0; r < reps && ok; r++) {
        double t0 = kit_now_ms();
        for (int g = 0, first = 0; first < s->count && ok; g++, first += group)
            ok = batch_load(s, first, KIT_MIN(group, s->count - first), stage[g & 1], threads) ==
                 KIT_OK;
        t[r] = kit_now_ms() - t0;
    }
    double med = -1.0;
    if (ok) {
        kit_stats st;
        kit_stats_compute(t, reps, &st);
        med = st.median;
    }
    free(t);
    return med;
}
