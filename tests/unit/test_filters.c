/* test_filters.c - unit tests of common/filters.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filters.h"
#include "kit.h"

static const char *all_names = "laplace5, edge3, sharpen3, gauss5, box, gaussian";

/* coef, w64 and w32 agree with the integer form. */
static void check_weights_from_coef(const kit_filter *f)
{
    int n = f->size * f->size;
    for (int i = 0; i < n; i++) {
        assert_true(f->w64[i] == (double)f->coef[i] / (double)f->divisor);
        assert_true(f->w32[i] == (float)f->w64[i]);
    }
}

static void check_separable_products(const kit_filter *f)
{
    assert_true(f->separable);
    assert_non_null(f->row);
    assert_non_null(f->col);
    int s = f->size;
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++) {
            assert_true(f->w64[i * s + j] == f->col[i] * f->row[j]);
            assert_true(f->w32[i * s + j] == (float)f->w64[i * s + j]);
        }
}

static long coef_sum(const kit_filter *f)
{
    long s = 0;
    for (int i = 0; i < f->size * f->size; i++)
        s += f->coef[i];
    return s;
}

/* exactness in float: power-of-two divisor and 255 * sum|coef| <= 2^24 */
static void test_exact_f32(void **state)
{
    (void)state;
    const struct { const char *name; int radius; int exact; } cases[] = {
        {"laplace5", 0, 1}, {"edge3", 0, 1},    {"sharpen3", 0, 1}, {"gauss5", 0, 1},
        {"gaussian", 4, 1}, {"gaussian", 5, 0}, {"box", 1, 0},      {"box", 8, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kit_filter f;
        char err[256];
        assert_int_equal(kit_filter_make(cases[i].name, cases[i].radius, &f, err, sizeof err), 0);
        assert_int_equal(kit_filter_exact_f32(&f), cases[i].exact);
        kit_filter_free(&f);
    }
}

/* 8-bit integer taps over a power of two: the shift, the taps as given */
static void test_taps_i8(void **state)
{
    (void)state;
    const struct { const char *name; int radius; int ok; int shift; } cases[] = {
        {"laplace5", 0, 1, 0}, {"edge3", 0, 1, 0},    {"sharpen3", 0, 1, 0}, {"gauss5", 0, 1, 8},
        {"gaussian", 1, 1, 4}, {"gaussian", 2, 1, 8}, {"gaussian", 3, 0, 0}, {"box", 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kit_filter f;
        char err[256];
        signed char taps[81];
        int shift = -1;
        assert_int_equal(kit_filter_make(cases[i].name, cases[i].radius, &f, err, sizeof err), 0);
        assert_int_equal(kit_filter_taps_i8(&f, taps, &shift), cases[i].ok);
        if (cases[i].ok) {
            assert_int_equal(shift, cases[i].shift);
            for (int k = 0; k < f.size * f.size; k++)
                assert_int_equal(taps[k], f.coef[k]);
        } else {
            assert_int_equal(shift, -1);
        }
        kit_filter_free(&f);
    }
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(kit_filter_names(), all_names);
}

static void test_laplace5(void **state)
{
    (void)state;
    kit_filter f;
    char err[200];
    assert_int_equal(kit_filter_make("laplace5", 0, &f, err, sizeof err), 0);
    assert_string_equal(f.name, "laplace5");
    assert_int_equal(f.radius, 2);
    assert_int_equal(f.size, 5);
    assert_false(f.separable);
    assert_null(f.row);
    assert_null(f.col);
    assert_int_equal(f.divisor, 1);
    for (int i = 0; i < 25; i++)
        assert_int_equal(f.coef[i], i == 12 ? 24 : -1);
    assert_int_equal(coef_sum(&f), 0);
    check_weights_from_coef(&f);
    assert_true(f.w32[12] == 24.0f);
    assert_true(f.w64[0] == -1.0);
    kit_filter_free(&f);
    /* its own radius is accepted too */
    assert_int_equal(kit_filter_make("laplace5", 2, &f, err, sizeof err), 0);
    assert_int_equal(f.size, 5);
    kit_filter_free(&f);
}

static void test_edge3(void **state)
{
    (void)state;
    kit_filter f;
    char err[200];
    assert_int_equal(kit_filter_make("edge3", 1, &f, err, sizeof err), 0);
    const long want[9] = {-1, -1, -1, -1, 8, -1, -1, -1, -1};
    assert_int_equal(f.radius, 1);
    assert_int_equal(f.size, 3);
    assert_false(f.separable);
    assert_int_equal(f.divisor, 1);
    assert_memory_equal(f.coef, want, sizeof want);
    assert_int_equal(coef_sum(&f), 0);
    check_weights_from_coef(&f);
    kit_filter_free(&f);
}

static void test_sharpen3(void **state)
{
    (void)state;
    kit_filter f;
    char err[200];
    assert_int_equal(kit_filter_make("sharpen3", 0, &f, err, sizeof err), 0);
    const long want[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
    assert_int_equal(f.size, 3);
    assert_false(f.separable);
    assert_int_equal(f.divisor, 1);
    assert_memory_equal(f.coef, want, sizeof want);
    assert_int_equal(coef_sum(&f), 1); /* keeps flat areas unchanged */
    check_weights_from_coef(&f);
    kit_filter_free(&f);
}

static void test_gauss5(void **state)
{
    (void)state;
    kit_filter f;
    char err[200];
    assert_int_equal(kit_filter_make("gauss5", 0, &f, err, sizeof err), 0);
    assert_string_equal(f.name, "gauss5");
    assert_int_equal(f.radius, 2);
    assert_int_equal(f.size, 5);
    assert_int_equal(f.divisor, 256);
    const long want[25] = {1, 4,  6,  4,  1,
                           4, 16, 24, 16, 4,
                           6, 24, 36, 24, 6,
                           4, 16, 24, 16, 4,
                           1, 4,  6,  4,  1};
    assert_memory_equal(f.coef, want, sizeof want);
    assert_int_equal(coef_sum(&f), 256);
    const double taps[5] = {1.0 / 16, 4.0 / 16, 6.0 / 16, 4.0 / 16, 1.0 / 16};
    for (int k = 0; k < 5; k++) {
        assert_true(f.row[k] == taps[k]);
        assert_true(f.col[k] == taps[k]);
    }
    check_separable_products(&f);
    check_weights_from_coef(&f); /* exact: both forms agree bit for bit */
    assert_true(f.w64[12] == 36.0 / 256.0);
    kit_filter_free(&f);
}

static void test_gaussian_small_radii(void **state)
{
    (void)state;
    kit_filter f;
    char err[200];
    /* R = 1: 1 2 1 / 4 on each axis, 2D over 16 */
    assert_int_equal(kit_filter_make("gaussian", 1, &f, err, sizeof err), 0);
    assert_string_equal(f.name, "gaussian");
    assert_int_equal(f.size, 3);
    assert_int_equal(f.divisor, 16);
    const long w1[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    assert_memory_equal(f.coef, w1, sizeof w1);
    assert_true(f.row[0] == 0.25 && f.row[1] == 0.5 && f.row[2] == 0.25);
    check_separable_products(&f);
    check_weights_from_coef(&f);
    kit_filter_free(&f);

    /* R = 3: C(6,k) = 1 6 15 20 15 6 1 over 64 */
    assert_int_equal(kit_filter_make("gaussian", 3, &f, err, sizeof err), 0);
    assert_int_equal(f.size, 7);
    assert_int_equal(f.divisor, 4096);
    const double c6[7] = {1, 6, 15, 20, 15, 6, 1};
    for (int k = 0; k < 7; k++)
        assert_true(f.row[k] == c6[k] / 64.0);
    assert_int_equal(f.coef[3 * 7 + 3], 400);
    assert_int_equal(f.coef[0 * 7 + 3], 20);
    assert_int_equal(coef_sum(&f), 4096);
    check_separable_products(&f);
    check_weights_from_coef(&f);
    kit_filter_free(&f);

    /* default radius 2 is gauss5 */
    kit_filter g;
    assert_int_equal(kit_filter_make("gaussian", 0, &f, err, sizeof err), 0);
    assert_int_equal(kit_filter_make("gauss5", 0, &g, err, sizeof err), 0);
    assert_int_equal(f.radius, 2);
    assert_int_equal(f.divisor, g.divisor);
    assert_memory_equal(f.coef, g.coef, 25 * sizeof(long));
    assert_memory_equal(f.w64, g.w64, 25 * sizeof(double));
    kit_filter_free(&f);
    kit_filter_free(&g);
}

static void test_gaussian_integer_limit(void **state)
{
    (void)state;
    kit_filter f;
    char err[200];
    /* R = 15: the last radius whose 16^R fits a long */
    assert_int_equal(kit_filter_make("gaussian", 15, &f, err, sizeof err), 0);
    assert_int_equal(f.divisor, 1L << 60);
    assert_int_equal(f.coef[15 * 31 + 15], 24061445010950400L); /* C(30,15)^2 */
    assert_int_equal(f.coef[0], 1);
    assert_int_equal(coef_sum(&f), 1L << 60);
    check_weights_from_coef(&f);
    check_separable_products(&f);
    kit_filter_free(&f);

    /* R = 16: no integer form; divisor 0, coef all zero (see filters.h) */
    assert_int_equal(kit_filter_make("gaussian", 16, &f, err, sizeof err), 0);
    assert_int_equal(f.divisor, 0);
    for (int i = 0; i < 33 * 33; i++)
        assert_int_equal(f.coef[i], 0);
    assert_true(f.row[16] == 601080390.0 / 4294967296.0); /* C(32,16) / 4^16 */
    assert_true(f.row[0] == ldexp(1.0, -32));
    check_separable_products(&f);
    kit_filter_free(&f);
}

static void test_gaussian_radius_80(void **state)
{
    (void)state;
    kit_filter f;
    char err[200];
    assert_int_equal(kit_filter_make("gaussian", 80, &f, err, sizeof err), 0);
    assert_int_equal(f.size, 161);
    assert_true(f.row[0] == ldexp(1.0, -160));
    /* C(160,80)/4^80 and C(160,40)/4^80, correctly rounded (worked out with
     * exact rational arithmetic) */
    assert_true(f.row[80] == 0x1.01f7239897421p-4);
    assert_true(f.row[40] == 0x1.03f15d13f0624p-34);
    assert_true(f.row[120] == f.row[40]);
    check_separable_products(&f);
    kit_filter_free(&f);
}

static void test_gaussian_all_radii_properties(void **state)
{
    (void)state;
    char err[200];
    for (int r = 1; r <= KIT_FILTER_MAX_RADIUS; r++) {
        kit_filter f;
        assert_int_equal(kit_filter_make("gaussian", r, &f, err, sizeof err), 0);
        assert_int_equal(f.size, 2 * r + 1);
        double sum = 0.0;
        for (int k = 0; k <= 2 * r; k++) {
            assert_true(f.row[k] > 0.0);
            assert_true(f.row[k] == f.row[2 * r - k]); /* symmetric */
            assert_true(f.col[k] == f.row[k]);
            if (k < r)
                assert_true(f.row[k] < f.row[k + 1]); /* rises to the centre */
            sum += f.row[k];
        }
        assert_true(fabs(sum - 1.0) < 1e-14);
        /* variance R/2 */
        double var = 0.0;
        for (int k = 0; k <= 2 * r; k++)
            var += f.row[k] * (double)(k - r) * (double)(k - r);
        assert_true(fabs(var - r / 2.0) < 1e-11 * r);
        kit_filter_free(&f);
    }
}

static void test_box(void **state)
{
    (void)state;
    kit_filter f;
    char err[200];
    assert_int_equal(kit_filter_make("box", 1, &f, err, sizeof err), 0);
    assert_string_equal(f.name, "box");
    assert_int_equal(f.size, 3);
    assert_int_equal(f.divisor, 9);
    for (int i = 0; i < 9; i++) {
        assert_int_equal(f.coef[i], 1);
        assert_true(fabs(f.w64[i] - 1.0 / 9.0) < 1e-16);
    }
    for (int k = 0; k < 3; k++)
        assert_true(f.row[k] == 1.0 / 3.0);
    check_separable_products(&f);
    kit_filter_free(&f);

    assert_int_equal(kit_filter_make("box", 0, &f, err, sizeof err), 0); /* default 2 */
    assert_int_equal(f.radius, 2);
    assert_int_equal(f.divisor, 25);
    kit_filter_free(&f);

    assert_int_equal(kit_filter_make("box", KIT_FILTER_MAX_RADIUS, &f, err, sizeof err), 0);
    assert_int_equal(f.size, 161);
    assert_int_equal(f.divisor, 161L * 161L);
    assert_int_equal(coef_sum(&f), 161L * 161L);
    check_separable_products(&f);
    kit_filter_free(&f);
}

static void test_radius_errors(void **state)
{
    (void)state;
    kit_filter f;
    char err[200];
    assert_int_equal(kit_filter_make("laplace5", 3, &f, err, sizeof err), -1);
    assert_string_equal(err, "filter laplace5 has radius 2; --radius 3 does not apply");
    assert_null(f.coef); /* left empty: free is safe */
    kit_filter_free(&f);
    assert_int_equal(kit_filter_make("edge3", 2, &f, err, sizeof err), -1);
    assert_string_equal(err, "filter edge3 has radius 1; --radius 2 does not apply");
    assert_int_equal(kit_filter_make("sharpen3", 5, &f, err, sizeof err), -1);
    assert_string_equal(err, "filter sharpen3 has radius 1; --radius 5 does not apply");
    assert_int_equal(kit_filter_make("gauss5", 1, &f, err, sizeof err), -1);
    assert_string_equal(err, "filter gauss5 has radius 2; --radius 1 does not apply");

    assert_int_equal(kit_filter_make("box", 81, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "box"));
    assert_non_null(strstr(err, "81"));
    assert_int_equal(kit_filter_make("gaussian", 81, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "1 to 80"));
    assert_int_equal(kit_filter_make("gaussian", -1, &f, err, sizeof err), -1);
    assert_int_equal(kit_filter_make("box", -3, &f, err, sizeof err), -1);
    assert_null(f.w64);
}

static void test_unknown_name(void **state)
{
    (void)state;
    kit_filter f;
    char err[200];
    assert_int_equal(kit_filter_make("sobel", 0, &f, err, sizeof err), -1);
    assert_string_equal(err, "unknown filter sobel (choose from laplace5, edge3, sharpen3, "
                             "gauss5, box, gaussian)");
    assert_int_equal(kit_filter_make("Laplace5", 0, &f, err, sizeof err), -1); /* case matters */
    assert_int_equal(kit_filter_make("", 0, &f, err, sizeof err), -1);
    assert_int_equal(kit_filter_make(NULL, 0, &f, err, sizeof err), -1);
    assert_int_equal(kit_filter_make("box", 2, &f, NULL, 0), 0); /* err may be NULL */
    kit_filter_free(&f);
    char small[10];
    assert_int_equal(kit_filter_make("sobel", 0, &f, small, sizeof small), -1);
    assert_int_equal(strlen(small), 9);
}

static void test_free_twice(void **state)
{
    (void)state;
    kit_filter f;
    char err[200];
    assert_int_equal(kit_filter_make("gaussian", 5, &f, err, sizeof err), 0);
    kit_filter_free(&f);
    assert_null(f.coef);
    assert_null(f.row);
    assert_int_equal(f.size, 0);
    kit_filter_free(&f);
    kit_filter_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_taps_i8),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_laplace5),
        cmocka_unit_test(test_edge3),
        cmocka_unit_test(test_sharpen3),
        cmocka_unit_test(test_gauss5),
        cmocka_unit_test(test_gaussian_small_radii),
        cmocka_unit_test(test_gaussian_integer_limit),
        cmocka_unit_test(test_gaussian_radius_80),
        cmocka_unit_test(test_gaussian_all_radii_properties),
        cmocka_unit_test(test_box),
        cmocka_unit_test(test_radius_errors),
        cmocka_unit_test(test_unknown_name),
        cmocka_unit_test(test_free_twice),
        cmocka_unit_test(test_exact_f32),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
