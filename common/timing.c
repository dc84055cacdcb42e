/* timing.c - monotonic clock and statistics of repeated runs. */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

double kit_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

long long kit_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void kit_stats_compute(double *v, int n, kit_stats *s)
{
    s->n = n;
    s->used = 0;
    s->mean = s->std = s->median = s->min = s->max = 0.0;
    if (n <= 0)
        return;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    s->min = v[0];
    s->max = v[n - 1];
    int lo = 0, hi = n; /* kept: [lo, hi) */
    if (n >= 3) {
        lo = 1;
        hi = n - 1;
    }
    int m = hi - lo;
    s->used = m;
    double sum = 0.0;
    for (int i = lo; i < hi; i++)
        sum += v[i];
    s->mean = sum / m;
    if (m > 1) {
        double ss = 0.0;
        for (int i = lo; i < hi; i++)
            ss += (v[i] - s->mean) * (v[i] - s->mean);
        s->std = sqrt(ss / (m - 1));
    }
    s->median = (m % 2) ? v[lo + m / 2] : 0.5 * (v[lo + m / 2 - 1] + v[lo + m / 2]);
}
