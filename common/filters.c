/* filters.c - the course's named filters as integer coefficients over one
 * divisor, plus float/double weights and, for the separable ones, the row
 * and column taps.
 */
#include "filters.h"
#include "kit.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char filter_names[] = "laplace5, edge3, sharpen3, gauss5, box, gaussian";

/* k when the divisor is 2^k, else -1 */
static int divisor_log2(const kit_filter *f)
{
    if (f->divisor <= 0 || (f->divisor & (f->divisor - 1)) != 0)
        return -1;
    int k = 0;
    while ((1L << k) < f->divisor)
        k++;
    return k;
}

int kit_filter_exact_f32(const kit_filter *f)
{
    if (divisor_log2(f) < 0)
        return 0;
    double sum = 0.0;
    for (int i = 0; i < f->size * f->size; i++)
        sum += f->coef[i] < 0 ? -(double)f->coef[i] : (double)f->coef[i];
    return 255.0 * sum <= 16777216.0;
}

int kit_filter_taps_i8(const kit_filter *f, signed char *taps, int *shift)
{
    const int k = divisor_log2(f);
    if (k < 0 || k > 24)
        return 0;
    for (int i = 0; i < f->size * f->size; i++)
        if (f->coef[i] < -128 || f->coef[i] > 127)
            return 0;
    for (int i = 0; i < f->size * f->size; i++)
        taps[i] = (signed char)f->coef[i];
    *shift = k;
    return 1;
}

const char *kit_filter_names(void)
{
    return filter_names;
}


/* ---- exact binomials C(n, k) for n <= 160, as 192-bit integers ---- */

#define BIG_LIMBS 3 /* C(160, 80) < 2^157 */
typedef struct { unsigned long long l[BIG_LIMBS]; } big;

static void big_add(big *dst, const big *a, const big *b)
{
    unsigned long long carry = 0;
    for (int i = 0; i < BIG_LIMBS; i++) {
        unsigned long long s = a->l[i] + carry;
        unsigned long long c1 = s < carry;
        unsigned long long t = s + b->l[i];
        unsigned long long c2 = t < s;
        dst->l[i] = t;
        carry = c1 + c2;
    }
}

/* The nearest double to the integer (round half to even), independent of
 * the machine: keep the top 64 bits with a sticky bit for the rest, let the
 * (correctly rounding) integer conversion drop the last 11, then scale. */
static double big_to_double(const big *a)
{
    int top = BIG_LIMBS - 1;
    while (top > 0 && a->l[top] == 0)
        top--;
    if (top == 0)
        return (double)a->l[0];
    int bits = 0; /* bit length of the top limb */
    for (unsigned long long v = a->l[top]; v; v >>= 1)
        bits++;
    int shift = 64 * (top - 1) + bits; /* bits below the kept 64 */
    /* kept = bits [shift, shift+64) */
    unsigned long long kept, sticky = 0;
    int limb = shift / 64, off = shift % 64;
    if (off == 0) {
        kept = a->l[limb];
    } else {
        kept = a->l[limb] >> off;
        if (limb + 1 < BIG_LIMBS)
            kept |= a->l[limb + 1] << (64 - off);
        if (a->l[limb] << (64 - off))
            sticky = 1;
    }
    for (int i = 0; i < limb; i++)
        if (a->l[i])
            sticky = 1;
    return ldexp((double)(kept | sticky), shift);
}

/* row[k] = C(2R, k) / 4^R, correctly rounded; also the exact integers
 * (coefs) when 2R <= 62 so they fit a long. */
static void binomial_taps(int radius, double *row, long *ints)
{
    int n = 2 * radius;
    big *line = kit_calloc((size_t)n + 1, sizeof(big));
    line[0].l[0] = 1;
    for (int r = 1; r <= n; r++) /* Pascal's triangle, in place from the right */
        for (int k = r; k >= 1; k--)
            big_add(&line[k], &line[k], &line[k - 1]);
    for (int k = 0; k <= n; k++) {
        row[k] = ldexp(big_to_double(&line[k]), -2 * radius);
        if (ints)
            ints[k] = (long)line[k].l[0];
    }
    free(line);
}

/* ---- construction ---- */

static void alloc_weights(kit_filter *f, int radius, int separable)
{
    f->radius = radius;
    f->size = 2 * radius + 1;
    f->separable = separable;
    size_t nn = (size_t)f->size * (size_t)f->size;
    f->coef = kit_calloc(nn, sizeof(long));
    f->w32 = kit_calloc(nn, sizeof(float));
    f->w64 = kit_calloc(nn, sizeof(double));
    if (separable) {
        f->row = kit_calloc((size_t)f->size, sizeof(double));
        f->col = kit_calloc((size_t)f->size, sizeof(double));
    }
}

/* w64 = coef / divisor, w32 = its float. */
static void weights_from_coef(kit_filter *f)
{
    size_t nn = (size_t)f->size * (size_t)f->size;
    for (size_t i = 0; i < nn; i++) {
        f->w64[i] = (double)f->coef[i] / (double)f->divisor;
        f->w32[i] = (float)f->w64[i];
    }
}

/* w64[i][j] = col[i] * row[j], w32 = its float. */
static void weights_from_taps(kit_filter *f)
{
    int s = f->size;
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++) {
            f->w64[i * s + j] = f->col[i] * f->row[j];
            f->w32[i * s + j] = (float)f->w64[i * s + j];
        }
}

static void make_gaussian(kit_filter *f, int radius)
{
    alloc_weights(f, radius, 1);
    int s = f->size;
    long *ints = NULL;
    /* Exact integer form while 16^R fits a long: R <= 15 with a 64-bit long. */
    int exact = 4 * radius <= (int)(sizeof(long) * CHAR_BIT) - 2;
    if (exact)
        ints = kit_calloc((size_t)s, sizeof(long));
    binomial_taps(radius, f->row, ints);
    memcpy(f->col, f->row, (size_t)s * sizeof(double));
    if (exact) {
        f->divisor = 1L << (4 * radius);
        for (int i = 0; i < s; i++)
            for (int j = 0; j < s; j++)
                f->coef[i * s + j] = ints[i] * ints[j];
        free(ints);
    } else {
        f->divisor = 0; /* no integer form; coef stays all zero */
    }
    weights_from_taps(f);
}

static void make_box(kit_filter *f, int radius)
{
    alloc_weights(f, radius, 1);
    int s = f->size;
    for (int i = 0; i < s * s; i++)
        f->coef[i] = 1;
    f->divisor = (long)s * s;
    for (int k = 0; k < s; k++)
        f->row[k] = f->col[k] = 1.0 / (double)s;
    weights_from_taps(f);
}

static void make_fixed(kit_filter *f, int radius, const long *coef, long divisor)
{
    alloc_weights(f, radius, 0);
    memcpy(f->coef, coef, (size_t)f->size * (size_t)f->size * sizeof(long));
    f->divisor = divisor;
    weights_from_coef(f);
}

static const long laplace5_coef[25] = {
    -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1,
    -1, -1, 24, -1, -1,
    -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1,
};
static const long edge3_coef[9] = {
    -1, -1, -1,
    -1,  8, -1,
    -1, -1, -1,
};
static const long sharpen3_coef[9] = {
     0, -1,  0,
    -1,  5, -1,
     0, -1,  0,
};

int kit_filter_make(const char *name, int radius, kit_filter *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (!name)
        name = "";

    /* Fixed-size filters: radius 0 (default) or their own. */
    static const struct {
        const char *name;
        int radius;
        const long *coef;
        long divisor;
    } fixed[] = {
        {"laplace5", 2, laplace5_coef, 1},
        {"edge3", 1, edge3_coef, 1},
        {"sharpen3", 1, sharpen3_coef, 1},
        {"gauss5", 2, NULL, 256},
    };
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
        if (strcmp(name, fixed[k].name) != 0)
            continue;
        if (radius != 0 && radius != fixed[k].radius) {
            kit_set_err(err, errlen, "filter %s has radius %d; --radius %d does not apply", name,
                    fixed[k].radius, radius);
            return -1;
        }
        if (fixed[k].coef)
            make_fixed(f, fixed[k].radius, fixed[k].coef, fixed[k].divisor);
        else
            make_gaussian(f, fixed[k].radius); /* 1 4 6 4 1 outer product / 256 */
        snprintf(f->name, sizeof f->name, "%s", name);
        return 0;
    }

    int is_box = strcmp(name, "box") == 0, is_gauss = strcmp(name, "gaussian") == 0;
    if (!is_box && !is_gauss) {
        kit_set_err(err, errlen, "unknown filter %s (choose from %s)", name, filter_names);
        return -1;
    }
    if (radius == 0)
        radius = 2;
    if (radius < 1 || radius > KIT_FILTER_MAX_RADIUS) {
        kit_set_err(err, errlen, "filter %s takes a radius from 1 to %d; --radius %d does not apply",
                name, KIT_FILTER_MAX_RADIUS, radius);
        return -1;
    }
    if (is_box)
        make_box(f, radius);
    else
        make_gaussian(f, radius);
    snprintf(f->name, sizeof f->name, "%s", name);
    return 0;
}

void kit_filter_free(kit_filter *f)
{
    if (!f)
        return;
    free(f->coef);
    free(f->w32);
    free(f->w64);
    free(f->row);
    free(f->col);
    memset(f, 0, sizeof *f);
}
