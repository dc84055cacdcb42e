/* twopart.h - the kit's test lab of two parts (not a course lab): the harness,
 * the checker and the grader are tested on it. Part "scale": y = a x on
 * doubles. Part "invert": the negative of an 8-bit grey picture. */
#ifndef TWOPART_H
#define TWOPART_H

#include <stddef.h>
#include "kit.h"

#define SCALE_A 2.5

/* y[i] = SCALE_A * x[i], i < n */
int scale_v1(const double *x, double *y, size_t n);
int scale_v2(const double *x, double *y, size_t n);
/* out[i] = 255 - in[i] over a w x h picture */
int invert_v1(const unsigned char *in, unsigned char *out, int w, int h);
int invert_v2(const unsigned char *in, unsigned char *out, int w, int h);

/* the case's inputs (spec.c) */
typedef struct {
    size_t n;
    double *h_x;
    unsigned long long s_x;
} scale_problem;
typedef struct {
    int w, h;
    unsigned char *h_base, *h_px;
} invert_problem;

#endif
