/* test_timing.c - unit tests of common/timing.c (the monotonic clock and the
 * statistics of repeated runs). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>
#include <time.h>

#include "timing.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/* ------------------------------------------------------------ kit_now_ms */

static void test_now_monotonic(void **state)
{
    (void)state;
    double prev = kit_now_ms();
    assert_true(prev > 0.0);
    for (int i = 0; i < 100000; i++) {
        double t = kit_now_ms();
        assert_true(t >= prev);
        prev = t;
    }
}

static void test_now_advances_across_sleep(void **state)
{
    (void)state;
    struct timespec ts = {0, 20 * 1000 * 1000}, rem;
    double t0 = kit_now_ms();
    while (nanosleep(&ts, &rem) != 0)
        ts = rem;
    double t1 = kit_now_ms();
    assert_true(t1 - t0 >= 19.0);
    assert_true(t1 - t0 < 5000.0); /* milliseconds, not microseconds */
    /* the same clock as CLOCK_MONOTONIC, in ms */
    struct timespec m;
    clock_gettime(CLOCK_MONOTONIC, &m);
    double mono = (double)m.tv_sec * 1e3 + (double)m.tv_nsec * 1e-6;
    double now = kit_now_ms();
    assert_true(now >= mono && now - mono < 1000.0);
}

/* ----------------------------------------------------- kit_stats_compute */

static void test_stats_n0(void **state)
{
    (void)state;
    kit_stats s;
    memset(&s, 0x7F, sizeof s); /* garbage must be cleared */
    kit_stats_compute(NULL, 0, &s);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.used, 0);
    assert_true(s.mean == 0.0 && s.std == 0.0 && s.median == 0.0);
    assert_true(s.min == 0.0 && s.max == 0.0);
}

static void test_stats_n1(void **state)
{
    (void)state;
    double v[1] = {2.5};
    kit_stats s;
    memset(&s, 0x7F, sizeof s);
    kit_stats_compute(v, 1, &s);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.used, 1);
    assert_true(s.mean == 2.5);
    assert_true(s.std == 0.0);
    assert_true(s.median == 2.5);
    assert_true(s.min == 2.5 && s.max == 2.5);
}

/* n = 2: nothing dropped; mean 2, sample std sqrt(((1-2)^2 + (3-2)^2)/1) = sqrt 2 */
static void test_stats_n2_nothing_dropped(void **state)
{
    (void)state;
    double v[2] = {3.0, 1.0};
    kit_stats s;
    kit_stats_compute(v, 2, &s);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.used, 2);
    assert_true(s.mean == 2.0);
    assert_near(s.std, sqrt(2.0), 1e-15);
    assert_true(s.median == 2.0);
    assert_true(s.min == 1.0 && s.max == 3.0);
    assert_true(v[0] == 1.0 && v[1] == 3.0); /* sorted in place */
}

/* n = 3: only the middle one is kept */
static void test_stats_n3_keeps_middle(void **state)
{
    (void)state;
    double v[3] = {10.0, 1.0, 5.0};
    kit_stats s;
    kit_stats_compute(v, 3, &s);
    assert_int_equal(s.used, 1);
    assert_true(s.mean == 5.0);
    assert_true(s.std == 0.0);
    assert_true(s.median == 5.0);
    assert_true(s.min == 1.0 && s.max == 10.0);
}

/* {5,1,4,2,3}: drop 1 and 5, keep 2 3 4: mean 3, std sqrt((1+0+1)/2) = 1, median 3 */
static void test_stats_n5_by_hand(void **state)
{
    (void)state;
    double v[5] = {5, 1, 4, 2, 3};
    kit_stats s;
    kit_stats_compute(v, 5, &s);
    assert_int_equal(s.n, 5);
    assert_int_equal(s.used, 3);
    assert_true(s.mean == 3.0);
    assert_true(s.std == 1.0);
    assert_true(s.median == 3.0);
    assert_true(s.min == 1.0);
    assert_true(s.max == 5.0);
    for (int i = 0; i < 5; i++)
        assert_true(v[i] == (double)(i + 1));
}

/* An outlier is dropped: {100, 2, 2, 2, 0} keeps 2 2 2: mean 2, std 0 */
static void test_stats_outliers_dropped(void **state)
{
    (void)state;
    double v[5] = {100, 2, 2, 2, 0};
    kit_stats s;
    kit_stats_compute(v, 5, &s);
    assert_true(s.mean == 2.0);
    assert_true(s.std == 0.0);
    assert_true(s.median == 2.0);
    assert_true(s.min == 0.0 && s.max == 100.0);
}

/* n = 6, {6,2,5,1,4,3}: keep 2 3 4 5 (even): median (3+4)/2 = 3.5, mean 3.5,
 * std sqrt((2.25+0.25+0.25+2.25)/3) = sqrt(5/3); min/max over all: 1, 6 */
static void test_stats_even_kept_median(void **state)
{
    (void)state;
    double v[6] = {6, 2, 5, 1, 4, 3};
    kit_stats s;
    kit_stats_compute(v, 6, &s);
    assert_int_equal(s.n, 6);
    assert_int_equal(s.used, 4);
    assert_true(s.median == 3.5);
    assert_true(s.mean == 3.5);
    assert_near(s.std, sqrt(5.0 / 3.0), 1e-15);
    assert_true(s.min == 1.0);
    assert_true(s.max == 6.0);
}

/* n = 4, {10, 0.5, 0.25, 1}: keep 0.5 1 -> median 0.75, mean 0.75 */
static void test_stats_n4(void **state)
{
    (void)state;
    double v[4] = {10, 0.5, 0.25, 1};
    kit_stats s;
    kit_stats_compute(v, 4, &s);
    assert_int_equal(s.used, 2);
    assert_true(s.median == 0.75);
    assert_true(s.mean == 0.75);
    assert_near(s.std, sqrt(0.125), 1e-15); /* (0.0625 + 0.0625) / 1 */
    assert_true(s.min == 0.25 && s.max == 10.0);
}

/* The harness's default: 12 runs, 1..12 shuffled: keep 2..11 */
static void test_stats_twelve(void **state)
{
    (void)state;
    double v[12] = {7, 12, 1, 9, 3, 11, 5, 2, 10, 4, 8, 6};
    kit_stats s;
    kit_stats_compute(v, 12, &s);
    assert_int_equal(s.used, 10);
    assert_true(s.mean == 6.5);
    assert_true(s.median == 6.5);
    assert_near(s.std, sqrt(82.5 / 9.0), 1e-12); /* sum (k-6.5)^2, k=2..11 = 82.5 */
    assert_true(s.min == 1.0 && s.max == 12.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_now_monotonic),
        cmocka_unit_test(test_now_advances_across_sleep),
        cmocka_unit_test(test_stats_n0),
        cmocka_unit_test(test_stats_n1),
        cmocka_unit_test(test_stats_n2_nothing_dropped),
        cmocka_unit_test(test_stats_n3_keeps_middle),
        cmocka_unit_test(test_stats_n5_by_hand),
        cmocka_unit_test(test_stats_outliers_dropped),
        cmocka_unit_test(test_stats_even_kept_median),
        cmocka_unit_test(test_stats_n4),
        cmocka_unit_test(test_stats_twelve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
