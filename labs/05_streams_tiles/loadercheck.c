/* loadercheck.c - `make loadercheck` (and the CLI tests, no GPU needed):
 * batch v5's pictures (loader.c). For a few batches and keys the harness's
 * encoding of a key's content, decoded with batch_load() in one request and
 * in groups, must give exactly spec.c's batch_content of the base pictures,
 * the bytes the other variants get; and after the next key's encoding, every
 * picture decoded before (kept by a v5 that decodes once) must differ from
 * the new content. Prints "N cases" and exits 0, or names the first case
 * that fails.
 *   build/loadercheck --time [WxH COUNT [THREADS]]: the milliseconds of one
 *   encoding of a batch (default the harness's 640x480, 500 pictures) and of
 *   decoding it alone, the median of three of each.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "harness05.h"
#include "kit.h"
#include "lab05.h"
#include "timing.h"

#define FAIL(...)                                                                           \
    do {                                                                                    \
        printf("loadercheck: ");                                                            \
        printf(__VA_ARGS__);                                                                \
        printf("\n");                                                                       \
        return 1;                                                                           \
    } while (0)

/* A generated batch of count pictures of w x h (the harness's scenes). */
static void make_batch(batch_data *d, int w, int h, int count)
{
    memset(d, 0, sizeof *d);
    d->w = w;
    d->h = h;
    d->count = count;
    d->base = kit_malloc(batch_data_picture(d) * (size_t)count);
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < count; i++)
        batch_generate(d->base + (size_t)i * batch_data_picture(d), w, h, 7, i);
}

/* The content of key of every picture, as the other variants get it. */
static void expected(const batch_data *d, unsigned long long key, unsigned char *dst)
{
    const size_t pic = batch_data_picture(d);
    for (int i = 0; i < d->count; i++)
        batch_content(dst + (size_t)i * pic, d->base + (size_t)i * pic, pic, key, i);
}

static int check(int *cases)
{
    const int sizes[][3] = {{1, 1, 3}, {33, 17, 9}, {97, 61, 5}, {8, 300, 4}};
    const unsigned long long keys[] = {0, 0x1f, 0xDEADBEEFCAFEF00DULL, 0x1f, 0};
    const int nkeys = (int)KIT_NELEMS(keys);
    for (int s = 0; s < (int)KIT_NELEMS(sizes); s++) {
        batch_data d;
        make_batch(&d, sizes[s][0], sizes[s][1], sizes[s][2]);
        const size_t pic = batch_data_picture(&d), all = pic * (size_t)d.count;
        unsigned char *want = kit_malloc(all), *got = kit_malloc(all), *kept = kit_malloc(all);
        batch_source src;
        batch_source_make(&src, &d);
        for (int k = 0; k < nkeys; k++) {
            const char *what = "";
            if (batch_source_encode(&src, &d, keys[k]))
                FAIL("%dx%d x%d, key %llx: the encoding failed", d.w, d.h, d.count, keys[k]);
            expected(&d, keys[k], want);
            /* one request on three threads */
            memset(got, 0xA5, all);
            if (batch_load(&src, 0, d.count, got, 3) != KIT_OK || memcmp(got, want, all))
                what = "all pictures at once";
            /* groups of two on one thread, the last one short */
            memset(got, 0x5A, all);
            for (int first = 0; !what[0] && first < d.count; first += 2)
                if (batch_load(&src, first, KIT_MIN(2, d.count - first), got + (size_t)first * pic,
                               1) != KIT_OK)
                    what = "groups of two";
            if (!what[0] && memcmp(got, want, all))
                what = "groups of two";
            if (what[0])
                FAIL("%dx%d x%d, key %llx: %s do not decode to the key's content", d.w, d.h,
                     d.count, keys[k], what);
            /* what a v5 that decoded the run before kept is not this run's content */
            for (int i = 0; k > 0 && i < d.count; i++)
                if (!memcmp(kept + (size_t)i * pic, want + (size_t)i * pic, pic))
                    FAIL("%dx%d x%d: picture %d decoded for key %llx is still right for key %llx",
                         d.w, d.h, d.count, i, keys[k - 1], keys[k]);
            memcpy(kept, got, all);
            (*cases)++;
        }
        /* requests outside the batch are refused (one line each on stderr) */
        if (batch_load(&src, d.count - 1, 2, got, 1) != KIT_RUNTIME_ERROR ||
            batch_load(&src, 0, 0, got, 1) != KIT_RUNTIME_ERROR ||
            batch_load(&src, -1, 1, got, 1) != KIT_RUNTIME_ERROR)
            FAIL("%dx%d x%d: a request outside the batch was not refused", d.w, d.h, d.count);
        (*cases)++;
        batch_source_free(&src);
        free(want);
        free(got);
        free(kept);
        free(d.base);
    }
    return 0;
}

/* --time: one encoding and decoding alone of a batch, milliseconds. */
static int timing(int argc, char **argv)
{
    int w = 640, h = 480, count = 500, threads = omp_get_max_threads(), group = 64;
    if ((argc > 2 && sscanf(argv[2], "%dx%d", &w, &h) != 2) ||
        (argc > 3 && sscanf(argv[3], "%d", &count) != 1) ||
        (argc > 4 && sscanf(argv[4], "%d", &threads) != 1) || argc > 5 || w < 1 || h < 1 ||
        count < 1 || threads < 1) {
        fprintf(stderr, "usage: loadercheck [--time [WxH COUNT [THREADS]]]\n");
        return KIT_EXIT_USAGE;
    }
    batch_data d;
    make_batch(&d, w, h, count);
    batch_source src;
    batch_source_make(&src, &d);
    double enc[3];
    for (int r = 0; r < 3; r++) {
        double t0 = kit_now_ms();
        if (batch_source_encode(&src, &d, 0x1234567ULL + (unsigned long long)r))
            return KIT_EXIT_RUNTIME;
        enc[r] = kit_now_ms() - t0;
    }
    size_t bytes = 0;
    for (int i = 0; i < count; i++)
        bytes += src.enc_len[i];
    unsigned char *stage[2];
    for (int b = 0; b < 2; b++)
        stage[b] = kit_malloc((size_t)KIT_MIN(group, count) * batch_data_picture(&d));
    double dec = batch_decode_alone(&src, group, stage, threads, 3);
    kit_stats st;
    kit_stats_compute(enc, 3, &st);
    printf("%dx%d x%d: encoding %.1f ms on %d cores (%.1f MiB of PNG, %.0f%% of the pixels), "
           "decoding alone %.1f ms on %d threads\n",
           w, h, count, st.median, omp_get_max_threads(), bytes / 1048576.0,
           100.0 * (double)bytes / ((double)batch_data_picture(&d) * count), dec, threads);
    batch_source_free(&src);
    free(stage[0]);
    free(stage[1]);
    free(d.base);
    return 0;
}

int main(int argc, char **argv)
{
    kit_prog = "loadercheck";
    if (argc > 1 && !strcmp(argv[1], "--time"))
        return timing(argc, argv);
    if (argc > 1) {
        fprintf(stderr, "usage: loadercheck [--time [WxH COUNT [THREADS]]]\n");
        return KIT_EXIT_USAGE;
    }
    int cases = 0;
    if (check(&cases))
        return 1;
    printf("%d cases\n", cases);
    return 0;
}
