/* spec_batch.c - lab 05's description, part batch (spec.c has the others and
 * the parts table): the pictures of a case, generated scenes or the files of
 * --images decoded, each timed repetition's fresh content, the output's shape
 * and bytes. Read by the harness and by the grader's checker, as spec.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "convin.h"
#include "image.h"
#include "kit.h"
#include "lab05.h"
#include "spec.h"

/* -------------------------------------------------------------- part batch */

static int has_picture_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcasecmp(dot, ".png") || !strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg"));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file names of --images, sorted, at most `limit` (0: all). */
static int list_pictures(batch_data *d, const char *dir, int limit, char *err, size_t errlen)
{
    DIR *dp = opendir(dir);
    if (!dp) {
        kit_set_err(err, errlen, "--images %s: cannot open the folder", dir);
        return -1;
    }
    size_t cap = 64, n = 0;
    char **names = kit_malloc(cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.' || !has_picture_name(e->d_name))
            continue;
        if (n == cap)
            names = realloc(names, (cap *= 2) * sizeof *names);
        if (!names)
            kit_die(KIT_EXIT_RUNTIME, "out of memory");
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = kit_malloc(len);
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(dp);
    if (n == 0) {
        free(names);
        kit_set_err(err, errlen, "--images %s: no .png or .jpg pictures there", dir);
        return -1;
    }
    qsort(names, n, sizeof *names, cmp_str);
    if (limit > 0 && (size_t)limit < n) {
        for (size_t i = (size_t)limit; i < n; i++)
            free(names[i]);
        n = (size_t)limit;
    }
    d->paths = names;
    d->count = (int)n;
    d->from_files = 1;
    return 0;
}

/* Decode every file of d->paths into d->base; all must be one size. */
static int load_pictures(batch_data *d, const kit_args *a, char *err, size_t errlen)
{
    kit_image first = {0};
    if (kit_image_load(d->paths[0], 3, &first, err, errlen))
        return -1;
    d->w = first.w;
    d->h = first.h;
    int gw, gh;
    kit_arg_wxh(a, "--size", &gw, &gh);
    if (kit_arg_given(a, "--size") && (gw != d->w || gh != d->h)) {
        kit_set_err(err, errlen, "--images: %s is %dx%d, not the --size %dx%d", d->paths[0], d->w,
                    d->h, gw, gh);
        kit_image_free(&first);
        return -1;
    }
    const size_t pic = batch_data_picture(d);
    if (host_room(4.0 * (double)pic * d->count, "the pictures, their results and references", err,
                  errlen)) {
        kit_image_free(&first);
        return -1;
    }
    d->base = alloc_pages(pic * (size_t)d->count);
    if (!d->base) {
        kit_set_err(err, errlen, "cannot allocate the pictures");
        kit_image_free(&first);
        return -1;
    }
    memcpy(d->base, first.px, pic);
    kit_image_free(&first);
    int bad = -1;
    char why[512] = "";
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 1; i < d->count; i++) {
        kit_image img = {0};
        char e2[512];
        int fail = kit_image_load(d->paths[i], 3, &img, e2, sizeof e2) != 0;
        if (!fail && (img.w != d->w || img.h != d->h)) {
            snprintf(e2, sizeof e2, "--images: %s is %dx%d, the others %dx%d", d->paths[i], img.w,
                     img.h, d->w, d->h);
            fail = 1;
        }
        if (!fail)
            memcpy(d->base + (size_t)i * pic, img.px, pic);
        kit_image_free(&img);
        if (fail) {
#pragma omp critical(lab05_load)
            if (bad < 0 || i < bad) { /* the first bad file by name, whatever the threads did */
                bad = i;
                snprintf(why, sizeof why, "%s", e2);
            }
        }
    }
    if (bad >= 0) {
        kit_set_err(err, errlen, "%s", why);
        return -1;
    }
    return 0;
}

void batch_generate(unsigned char *dst, int w, int h, unsigned long long seed, int i)
{
    kit_image img = {0};
    kit_rng r;
    kit_rng_seed(&r, seed ^ (0x632BE59BD9B4E019ULL * (unsigned long long)(i + 1)));
    kit_image_generate(&img, w, h, 3, kit_rng_next(&r), KIT_PATTERN_SCENE);
    memcpy(dst, img.px, (size_t)w * (size_t)h * 3);
    kit_image_free(&img);
}

/* The generated batch: scene i from (seed, i). */
static int generate_pictures(batch_data *d, const kit_args *a, unsigned long long seed, char *err,
                             size_t errlen)
{
    kit_arg_wxh(a, "--size", &d->w, &d->h);
    d->count = (int)kit_arg_int(a, "--count");
    const size_t pic = batch_data_picture(d);
    if (host_room(4.0 * (double)pic * d->count, "the pictures, their results and references", err,
                  errlen))
        return -1;
    d->base = alloc_pages(pic * (size_t)d->count);
    if (!d->base) {
        kit_set_err(err, errlen, "cannot allocate the pictures");
        return -1;
    }
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < d->count; i++)
        batch_generate(d->base + (size_t)i * pic, d->w, d->h, seed, i);
    return 0;
}

int batch_make(kit_problem *p, char *err, size_t errlen)
{
    batch_data *d = kit_calloc(1, sizeof *d);
    p->data = d;
    const char *fname = kit_arg_str(p->args, "--filter");
    if (strcmp(fname, "edge3") && strcmp(fname, "sharpen3") && strcmp(fname, "laplace5") &&
        strcmp(fname, "gauss5")) {
        kit_set_err(err, errlen, "--filter %s: part batch takes edge3, sharpen3, laplace5 or gauss5",
                    fname);
        return KIT_EXIT_USAGE;
    }
    if (kit_filter_make(fname, 0, &d->f, err, errlen))
        return KIT_EXIT_USAGE;
    const char *dir = kit_arg_str(p->args, "--images");
    if (dir[0]) {
        int limit = kit_arg_given(p->args, "--count") ? (int)kit_arg_int(p->args, "--count") : 0;
        if (list_pictures(d, dir, limit, err, errlen) || load_pictures(d, p->args, err, errlen))
            return KIT_EXIT_USAGE;
    } else if (generate_pictures(d, p->args, p->seed, err, errlen)) {
        return KIT_EXIT_USAGE;
    }
    const size_t all = batch_data_picture(d) * (size_t)d->count;
    d->px = alloc_pages(all); /* page-aligned: the harness page-locks it for v4 --pinned */
    if (!d->px) {
        kit_set_err(err, errlen, "cannot allocate the pictures");
        return KIT_EXIT_USAGE;
    }
    memcpy(d->px, d->base, all);
    d->px_key = 0;
    p->width = d->w;
    p->height = d->h;
    snprintf(p->param, sizeof p->param, "%s x%d", d->f.name, d->count);
    p->input = (kit_buf){KIT_U8, d->w, d->h * d->count, 3, 0, d->px};
    return 0;
}

/* v5 reads no px: before each of its runs the harness (main.c, loader.c)
 * encodes this key's content of base, the same bytes, as PNG for it to
 * decode. So its runs leave px alone. */
void batch_fresh(kit_problem *p, int v, unsigned long long key)
{
    batch_data *d = p->data;
    p->key = key;
    if (v == 5 || d->px_key == key)
        return;
    const size_t pic = batch_data_picture(d);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < d->count; i++)
        batch_content(d->px + (size_t)i * pic, d->base + (size_t)i * pic, pic, key, i);
    d->px_key = key;
}

int batch_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(why);
    KIT_UNUSED(whylen);
    const batch_data *d = p->data;
    *o = (kit_outdesc){KIT_U8, d->w, d->h * d->count, 3, 0, 0.0, 0.0, 1};
    return 1;
}

double batch_bytes(const kit_problem *p, int v)
{
    KIT_UNUSED(v);
    const batch_data *d = p->data;
    return 2.0 * (double)batch_data_picture(d) * d->count;
}

void batch_release(kit_problem *p)
{
    batch_data *d = p->data;
    if (d) {
        kit_filter_free(&d->f);
        free(d->base);
        free(d->px);
        for (int i = 0; d->paths && i < d->count; i++)
            free(d->paths[i]);
        free(d->paths);
        free(d);
    }
    p->data = NULL;
}
