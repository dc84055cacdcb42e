/* lab05.h - what lab 05's own files share (spec.c, ref.c, main.c and its
 * helpers); not the student's. Plain C, no CUDA: the grader's checker is
 * built from spec.c and ref.c.
 */
#ifndef LAB05_H
#define LAB05_H

#include <stddef.h>
#include "convin.h"
#include "filters.h"
#include "kit.h"
#include "spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Page-aligned memory, whole pages (so that the harness can page-lock it
 * with cudaHostRegister); free() releases it. NULL when there is none. */
void *alloc_pages(size_t bytes);

/* ---- part device: the output is the student's reading minus the harness's,
 * one double per field in this order (the peak as a relative difference);
 * all zero when right (spec.c, ref.c, main.c) */
enum {
    DEVICE_MAJOR, DEVICE_MINOR, DEVICE_SMS, DEVICE_WARP, DEVICE_THREADS, DEVICE_SMEM,
    DEVICE_REGS, DEVICE_MEM_CLOCK, DEVICE_BUS, DEVICE_ENGINES, DEVICE_PEAK, DEVICE_FIELDS
};
/* The field names, for the harness's table. */
extern const char *const device_field_names[DEVICE_FIELDS];

/* ---- part copies: the case's data (spec.c) */
typedef struct {
    size_t bytes;
    unsigned char *base;       /* the case's bytes (content 0) */
    unsigned char *px;         /* the bytes of content px_key */
    unsigned long long px_key;
} copies_data;

/* ---- part strip: the case's data (spec.c) */
typedef struct {
    int w, h;
    kit_filter f;             /* gaussian or box: f.row, f.col, f.radius */
    double *in;               /* W x H doubles of content `key`, page-aligned */
    unsigned long long key;   /* the content in `in` */
} strip_data;

/* Content of key for a strip picture: values in [0, 255), a pure function of
 * (seed, key, element index), filled on every core. */
void strip_fill(double *v, size_t n, unsigned long long seed, unsigned long long key);

/* ---- part batch: the case's data (spec.c) */
typedef struct {
    int w, h, count;
    kit_filter f;             /* edge3, sharpen3, laplace5 or gauss5 */
    unsigned char *base;      /* the case's pictures (content 0), one after the other */
    unsigned char *px;        /* the pictures of content px_key */
    unsigned long long px_key;
    int from_files;           /* --images: the paths below */
    char **paths;             /* count paths, sorted by name */
} batch_data;

/* Bytes of one picture. */
static inline size_t batch_data_picture(const batch_data *d)
{
    return (size_t)d->w * (size_t)d->h * 3;
}

/* Generated picture i of the batch of seed: a scene of W x H RGB bytes. */
void batch_generate(unsigned char *dst, int w, int h, unsigned long long seed, int i);

/* ---- the description in two files: spec.c (the parts table, device, copies,
 * strip) and spec_batch.c (part batch) */
/* 0 when `need` bytes of host memory are there to take; else the reason. */
int host_room(double need, const char *what, char *err, size_t errlen);
int batch_make(kit_problem *p, char *err, size_t errlen);
void batch_fresh(kit_problem *p, int v, unsigned long long key);
int batch_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen);
double batch_bytes(const kit_problem *p, int v);
void batch_release(kit_problem *p);

/* The content of key for picture i: its base bytes XOR a pattern of
 * (key, i) (kit_bytes_fresh); key 0 leaves them as they are. dst may be base.
 * Static: each of the kit's files that includes this header (spec.c's fresh
 * content, ref.c's reference, loader.c's encoding for v5) has its own copy,
 * and the program exports no symbol of that name that a student's file could
 * link to; batch.h, the student's header, does not include this one. */
static inline void batch_content(unsigned char *dst, const unsigned char *base, size_t bytes,
                                 unsigned long long key, int i)
{
    unsigned long long k = 0;
    if (key) {
        kit_rng r;
        kit_rng_seed(&r, key ^ (0xB5AD4ECEDA1CE2A9ULL * (unsigned long long)(i + 1)));
        k = kit_rng_next(&r);
        k = k ? k : 1;
    }
    kit_bytes_fresh(dst, base, bytes, k);
}

#ifdef __cplusplus
}
#endif
#endif
