/* filters.h - the named convolution filters of the course.
 *
 * laplace5  5x5, every coefficient -1, centre 24 (the course guide): edges; not separable
 * edge3     3x3, -1 around, 8 in the centre: edges; not separable
 * sharpen3  3x3, 0 -1 0 / -1 5 -1 / 0 -1 0; not separable
 * gauss5    5x5, outer product of 1 4 6 4 1, divided by 256; separable
 * box       (2R+1)^2 ones divided by (2R+1)^2; separable
 * gaussian  binomial weights C(2R,k)/4^R on each axis (a Gaussian of
 *           variance R/2); separable
 *
 * Every filter is stored as integer coefficients over one divisor, so the
 * weights of laplace5, edge3, sharpen3 and gauss5 are exact in float and
 * 8-bit results can be compared exactly. gaussian: row/col taps are
 * C(2R,k)/4^R correctly rounded to double for every R up to 80 (exact up to
 * R = 28); the 2D weights are exact in float (w32) up to R = 7 and in double
 * (w64) up to R = 14; coef/divisor (divisor 16^R) are exact up to R = 15.
 * Beyond R = 15, 16^R does not fit a long: divisor is 0 and coef is all
 * zero, so use w32/w64/row/col. box: coef 1, divisor (2R+1)^2, taps
 * 1/(2R+1) (not exact in binary).
 * For separable filters w64[i*size+j] is exactly col[i]*row[j] (for box this
 * may differ from 1/(2R+1)^2 in the last bit); otherwise w64 = coef/divisor.
 * w32 is always (float)w64.
 */
#ifndef KIT_FILTERS_H
#define KIT_FILTERS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KIT_FILTER_MAX_RADIUS 80 /* the course report on separable filters: constant memory of 2*80+1 taps */

typedef struct {
    char name[32];
    int radius;      /* the filter is (2R+1) x (2R+1) */
    int size;        /* 2R+1 */
    int separable;   /* row/col below are valid */
    long divisor;    /* weight = coef / divisor */
    long *coef;      /* size*size integer coefficients, row-major */
    float *w32;      /* size*size weights as float */
    double *w64;     /* size*size weights as double */
    double *row;     /* size taps, for separable filters (else NULL) */
    double *col;     /* size taps; w64[i][j] == col[i]*row[j] */
} kit_filter;

/* Build a filter by name. radius is used by box and gaussian only (0 means
 * their default, 2). Returns 0, or -1 with a one-line reason in err. */
int kit_filter_make(const char *name, int radius, kit_filter *f, char *err, size_t errlen);
void kit_filter_free(kit_filter *f);
/* 1 when 8-bit pixels filtered with w32 in float arithmetic give exactly
 * the double result, in any summation order: the divisor is a power of two
 * (so every weight and partial sum is a multiple of 1/divisor) and
 * 255 * sum|coef| fits float's 24-bit mantissa. True for laplace5, edge3,
 * sharpen3, gauss5 and gaussian up to radius 4; false for box. */
int kit_filter_exact_f32(const kit_filter *f);
/* 1 when every weight is coef / 2^shift with coef in -128..127 and shift
 * <= 24 (integer sums of 8-bit pixels times these taps are then exact):
 * fills taps[size*size] and *shift. True for laplace5, edge3, sharpen3,
 * gauss5 and gaussian up to radius 2; false for box. 0 (nothing written)
 * otherwise. */
int kit_filter_taps_i8(const kit_filter *f, signed char *taps, int *shift);

/* Comma-separated list of the names, for --help. */
const char *kit_filter_names(void);

#ifdef __cplusplus
}
#endif
#endif
