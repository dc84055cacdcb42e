/* timing.h - host monotonic clock and the statistics of repeated runs
 * (the course report's method: drop the fastest and the slowest, report mean and
 * standard deviation; the median is reported too).
 */
#ifndef KIT_TIMING_H
#define KIT_TIMING_H

#ifdef __cplusplus
extern "C" {
#endif

/* Milliseconds from CLOCK_MONOTONIC. */
double kit_now_ms(void);
/* Nanoseconds from CLOCK_MONOTONIC (the clock the grader's records use). */
long long kit_mono_ns(void);

typedef struct {
    int n;          /* samples given */
    int used;       /* samples kept after dropping the extremes */
    double mean, std, median, min, max; /* over the kept samples (min/max over all) */
} kit_stats;

/* With n >= 3 the fastest and the slowest are dropped before mean and std
 * (sample standard deviation, n-1). The median is over the kept samples.
 * The array is sorted in place. n == 0 gives all zeros. */
void kit_stats_compute(double *samples, int n, kit_stats *s);

#ifdef __cplusplus
}
#endif
#endif
