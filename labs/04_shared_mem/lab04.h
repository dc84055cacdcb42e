/* lab04.h - the inputs of a lab 04 case, made by spec.c and read by ref.c
 * (the CPU reference) and main.c (the glue). Not the student's business:
 * conv.h is. */
#ifndef LAB04_H
#define LAB04_H

#include <stddef.h>
#include "conv.h"
#include "filters.h"
#include "spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Part rgb: an RGB picture and a filter with 8-bit integer taps. */
typedef struct {
    kit_filter f;
    int taps_ok;                          /* 8-bit integer taps and radius <= 2 */
    signed char taps8[CONV_RGB_MAX_TAPS]; /* weight = tap / 2^shift8 */
    int shift8;
    int w, h;
    size_t n;                             /* bytes of a picture: w * h * 3 */
    unsigned char *base;                  /* the case's own picture (key 0), interleaved */
    unsigned char *px;                    /* the current content, interleaved (v1-v5 read it) */
    unsigned char *px_p;                  /* the same, planar (v6 reads it) */
} lab04_rgb;

/* Part sep: a grey picture as one float64 plane, a separable filter. */
typedef struct {
    kit_filter f;
    int w, h;
    size_t n;                             /* cells of the plane: w * h */
    unsigned char *base;                  /* the case's own picture (key 0) */
    unsigned char *px;                    /* the current content's bytes */
    double *cur;                          /* the current content as doubles (the kernels' input) */
} lab04_sep;

/* Why the rgb part cannot take a filter ("" when it can). */
const char *lab04_rgb_refusal(const lab04_rgb *c, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
