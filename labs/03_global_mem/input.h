/* input.h - lab 03's case as spec.c makes it (kit_problem's data), read by
 * ref.c (the CPU reference) and main.c (the glue). Kit-owned: students edit
 * conv.cu only.
 *
 * One RGB picture in three layouts: interleaved bytes (v1 to v4, v8), planar
 * bytes (v5, v6) and planar doubles (v7, separable filters only). h_in always
 * holds the current content (the case's picture XOR the key's pattern); the
 * planar copies are brought up to date by fresh() for the variants that read
 * them.
 */
#ifndef LAB03_INPUT_H
#define LAB03_INPUT_H

#include <stddef.h>
#include "conv.h"
#include "filters.h"

typedef struct {
    kit_filter filter;
    int w, h;
    size_t n8;               /* bytes of one RGB picture: W*H*3 */
    unsigned char *h_base;   /* the case's own picture, interleaved */
    unsigned char *h_in;     /* the current content, interleaved (v1 to v4, v8) */
    unsigned char *h_in_p;   /* the current content, planar (v5, v6, v7) */
    double *h_in64;          /* the current content, planar doubles (v7; NULL unless separable) */
    int taps8_ok;            /* the filter has v6's 8-bit integer weights */
    int shift8;              /* weight = tap / 2^shift8 */
    signed char taps8[(2 * CONV_DP4A_MAX_RADIUS + 1) * (2 * CONV_DP4A_MAX_RADIUS + 1)];
} lab03_input;

/* The variants by output layout. */
#define LAB03_PLANAR(v) ((v) == 5 || (v) == 6)
#define LAB03_F64(v) ((v) == 7)

#endif
