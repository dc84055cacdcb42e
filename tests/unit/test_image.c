/* test_image.c - unit tests of common/image.c (I/O, generation, layouts). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "image.h"
#include "kit.h"

/* ---------------------------------------------------------------- helpers */


static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    assert_int_equal(fclose(fp), 0);
}

static unsigned char *read_bytes(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    assert_true(len > 0);
    fseek(fp, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    *n = (size_t)len;
    return b;
}

static unsigned long long fnv1a(const unsigned char *p, size_t n)
{
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Run fn in a child; return its exit status (or -1 if it did not exit). */
static int exit_code_of(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(100);
        fn();
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---------------------------------------------------------------- kit_to_u8 */

static void test_to_u8_hand_values(void **state)
{
    (void)state;
    assert_int_equal(kit_to_u8(-1.0), 0);
    assert_int_equal(kit_to_u8(-0.0), 0);
    assert_int_equal(kit_to_u8(0.0), 0);
    assert_int_equal(kit_to_u8(0.49999), 0);
    assert_int_equal(kit_to_u8(0.5), 1); /* half up */
    assert_int_equal(kit_to_u8(1.5), 2);
    assert_int_equal(kit_to_u8(2.5), 3); /* half up, not to even */
    assert_int_equal(kit_to_u8(127.49), 127);
    assert_int_equal(kit_to_u8(254.49), 254);
    assert_int_equal(kit_to_u8(254.5), 255);
    assert_int_equal(kit_to_u8(255.0), 255);
    assert_int_equal(kit_to_u8(255.7), 255);
    assert_int_equal(kit_to_u8(1e300), 255);
    assert_int_equal(kit_to_u8(NAN), 0);
    assert_int_equal(kit_to_u8(INFINITY), 255);
    assert_int_equal(kit_to_u8(-INFINITY), 0);
}

static void test_f32_f64_to_u8(void **state)
{
    (void)state;
    const float f[7] = {-3.0f, 0.4f, 0.5f, 99.5f, 254.6f, 1000.0f, NAN};
    const double d[7] = {-3.0, 0.4, 0.5, 99.5, 254.6, 1000.0, NAN};
    const unsigned char want[7] = {0, 0, 1, 100, 255, 255, 0};
    unsigned char got[8];
    memset(got, 77, sizeof got);
    kit_f32_to_u8(f, got, 7);
    assert_memory_equal(got, want, 7);
    assert_int_equal(got[7], 77); /* nothing past n written */
    memset(got, 77, sizeof got);
    kit_f64_to_u8(d, got, 7);
    assert_memory_equal(got, want, 7);
    assert_int_equal(got[7], 77);
}

static void test_u8_to_float(void **state)
{
    (void)state;
    const unsigned char src[4] = {0, 1, 128, 255};
    float f[5] = {-1, -1, -1, -1, -1};
    double d[5] = {-1, -1, -1, -1, -1};
    kit_u8_to_f32(src, f, 4);
    kit_u8_to_f64(src, d, 4);
    const float wf[4] = {0.0f, 1.0f, 128.0f, 255.0f};
    const double wd[4] = {0.0, 1.0, 128.0, 255.0};
    for (int i = 0; i < 4; i++) {
        assert_true(f[i] == wf[i]);
        assert_true(d[i] == wd[i]);
    }
    assert_true(f[4] == -1.0f);
    assert_true(d[4] == -1.0);
}

static void test_clamp(void **state)
{
    (void)state;
    float f[6] = {-5.0f, 0.0f, 3.5f, 255.0f, 300.0f, NAN};
    double d[6] = {-5.0, 0.0, 3.5, 255.0, 300.0, NAN};
    kit_clamp_f32(f, 6, 0.0f, 255.0f);
    kit_clamp_f64(d, 6, 0.0, 255.0);
    const double want[6] = {0.0, 0.0, 3.5, 255.0, 255.0, 0.0}; /* NaN -> lo */
    for (int i = 0; i < 6; i++) {
        assert_true((double)f[i] == want[i]);
        assert_true(d[i] == want[i]);
    }
    double e[3] = {-1.0, 0.5, 2.0};
    kit_clamp_f64(e, 3, -0.25, 1.0);
    assert_true(e[0] == -0.25 && e[1] == 0.5 && e[2] == 1.0);
}

/* ---------------------------------------------------------------- layouts */

/* A 2x3 RGB image (w=2, h=3): pixel i has channels 10*i, 10*i+1, 10*i+2. */
static const unsigned char il_2x3[18] = {0,  1,  2,  10, 11, 12, 20, 21, 22,
                                         30, 31, 32, 40, 41, 42, 50, 51, 52};
static const unsigned char pl_2x3[18] = {0, 10, 20, 30, 40, 50, 1, 11, 21,
                                         31, 41, 51, 2, 12, 22, 32, 42, 52};

static void test_layout_u8_2x3(void **state)
{
    (void)state;
    unsigned char pl[18], il[18];
    kit_interleaved_to_planar_u8(il_2x3, pl, 2, 3, 3);
    assert_memory_equal(pl, pl_2x3, 18);
    kit_planar_to_interleaved_u8(pl, il, 2, 3, 3);
    assert_memory_equal(il, il_2x3, 18);

    /* one channel: both layouts are the same bytes */
    const unsigned char g[6] = {9, 8, 7, 6, 5, 4};
    unsigned char o[6];
    kit_interleaved_to_planar_u8(g, o, 3, 2, 1);
    assert_memory_equal(o, g, 6);

    /* two channels, 3x1: {a0 b0 a1 b1 a2 b2} -> {a0 a1 a2 b0 b1 b2} */
    const unsigned char ga[6] = {1, 2, 3, 4, 5, 6};
    const unsigned char gp[6] = {1, 3, 5, 2, 4, 6};
    kit_interleaved_to_planar_u8(ga, o, 3, 1, 2);
    assert_memory_equal(o, gp, 6);
}

static void test_layout_f32_2x3(void **state)
{
    (void)state;
    float il[18], pl[18], back[18];
    for (int i = 0; i < 18; i++)
        il[i] = (float)il_2x3[i] + 0.25f;
    kit_interleaved_to_planar_f32(il, pl, 2, 3, 3);
    for (int i = 0; i < 18; i++)
        assert_true(pl[i] == (float)pl_2x3[i] + 0.25f);
    kit_planar_to_interleaved_f32(pl, back, 2, 3, 3);
    assert_memory_equal(back, il, sizeof il);
}

static void test_layout_round_trip_random(void **state)
{
    (void)state;
    kit_image img;
    kit_image_generate(&img, 37, 11, 4, 99, KIT_PATTERN_NOISE);
    size_t n = (size_t)37 * 11 * 4;
    unsigned char *pl = malloc(n), *il = malloc(n);
    kit_interleaved_to_planar_u8(img.px, pl, 37, 11, 4);
    /* spot check: pixel (5, 7), channel 3 */
    assert_int_equal(pl[3 * 37 * 11 + 7 * 37 + 5], img.px[(7 * 37 + 5) * 4 + 3]);
    kit_planar_to_interleaved_u8(pl, il, 37, 11, 4);
    assert_memory_equal(il, img.px, n);
    free(pl);
    free(il);
    kit_image_free(&img);
}

/* ---------------------------------------------------------------- padding */

static void test_pad_2x1_by_2(void **state)
{
    (void)state;
    const float src[2] = {7.0f, 9.0f}; /* w=2, h=1, c=1 */
    float *p = kit_pad_zero_f32(src, 2, 1, 1, 2);
    /* 6 x 5; src lands at (2,2) and (3,2): indices 2*6+2 = 14 and 15 */
    for (int i = 0; i < 30; i++) {
        float want = i == 14 ? 7.0f : i == 15 ? 9.0f : 0.0f;
        assert_true(p[i] == want);
    }
    free(p);

    const float src2[4] = {1.0f, 2.0f, 3.0f, 4.0f}; /* w=2, h=1, c=2 */
    p = kit_pad_zero_f32(src2, 2, 1, 2, 2);
    /* 6 x 5 x 2: pixel (2,2) starts at (2*6+2)*2 = 28, pixel (3,2) at 30 */
    for (int i = 0; i < 60; i++) {
        float want = (i >= 28 && i < 32) ? (float)(i - 27) : 0.0f;
        assert_true(p[i] == want);
    }
    free(p);
}

static void test_pad_zero_is_copy_and_3x2(void **state)
{
    (void)state;
    const float src[6] = {1, 2, 3, 4, 5, 6}; /* w=3, h=2 */
    float *p = kit_pad_zero_f32(src, 3, 2, 1, 0);
    assert_memory_equal(p, src, sizeof src);
    free(p);
    p = kit_pad_zero_f32(src, 3, 2, 1, 1); /* 5 x 4 */
    const float want[20] = {0, 0, 0, 0, 0,
                            0, 1, 2, 3, 0,
                            0, 4, 5, 6, 0,
                            0, 0, 0, 0, 0};
    assert_memory_equal(p, want, sizeof want);
    free(p);
}

/* The in-place copy rewrites every float of a reused buffer: after poison in
 * the borders, the slack and the middle, it equals a fresh allocation, for
 * strides with and without slack and pads 0..3. */
static void test_pad_into_rewrites_everything(void **state)
{
    (void)state;
    kit_rng r;
    kit_rng_seed(&r, 77);
    for (int pad = 0; pad <= 3; pad++)
        for (int slack = 0; slack <= 5; slack += 5) {
            const int w = 7, h = 3, c = 3;
            float src[7 * 3 * 3];
            for (int i = 0; i < w * h * c; i++)
                src[i] = (float)(kit_rng_next(&r) % 1000) - 500.0f;
            const size_t stride = (size_t)(w + 2 * pad) * c + (size_t)slack;
            float *want = kit_pad_zero_f32_stride(src, w, h, c, pad, stride);
            const size_t n = stride * (size_t)(h + 2 * pad);
            float *got = kit_malloc(n * sizeof *got);
            memset(got, 0xFF, n * sizeof *got); /* NaN everywhere */
            kit_pad_zero_f32_into(got, src, w, h, c, pad, stride);
            assert_memory_equal(got, want, n * sizeof *got);
            free(got);
            free(want);
        }
}

/* ---------------------------------------------------------------- alloc/free */

static void test_alloc_free(void **state)
{
    (void)state;
    kit_image img;
    kit_image_alloc(&img, 5, 3, 4);
    assert_int_equal(img.w, 5);
    assert_int_equal(img.h, 3);
    assert_int_equal(img.c, 4);
    assert_non_null(img.px);
    for (int i = 0; i < 60; i++)
        assert_int_equal(img.px[i], 0);
    img.px[59] = 1; /* the last byte is ours (valgrind checks) */
    kit_image_free(&img);
    assert_null(img.px);
    assert_int_equal(img.w, 0);
    kit_image_free(&img); /* twice is harmless */
    kit_image_free(NULL);
}

/* ---------------------------------------------------------------- generation */

static void test_generate_deterministic(void **state)
{
    (void)state;
    for (int pat = 0; pat < 3; pat++) {
        kit_image a, b;
        kit_image_generate(&a, 97, 61, 3, 12345, pat);
        kit_image_generate(&b, 97, 61, 3, 12345, pat);
        assert_int_equal(a.w, 97);
        assert_int_equal(a.h, 61);
        assert_int_equal(a.c, 3);
        assert_memory_equal(a.px, b.px, (size_t)97 * 61 * 3);
        kit_image_free(&a);
        kit_image_free(&b);
    }
}

static void test_generate_seed_matters(void **state)
{
    (void)state;
    for (int pat = 0; pat < 2; pat++) { /* scene and noise depend on the seed */
        kit_image a, b;
        kit_image_generate(&a, 64, 48, 3, 1, pat);
        kit_image_generate(&b, 64, 48, 3, 2, pat);
        size_t differ = 0;
        for (size_t i = 0; i < (size_t)64 * 48 * 3; i++)
            differ += a.px[i] != b.px[i];
        assert_true(differ > 64 * 48 * 3 / 4);
        kit_image_free(&a);
        kit_image_free(&b);
    }
    kit_image a, b; /* the plain gradient does not */
    kit_image_generate(&a, 20, 10, 3, 1, KIT_PATTERN_GRADIENT);
    kit_image_generate(&b, 20, 10, 3, 2, KIT_PATTERN_GRADIENT);
    assert_memory_equal(a.px, b.px, 600);
    kit_image_free(&a);
    kit_image_free(&b);
}

/* Pins the bytes: if this changes, every machine's pictures changed. */
static void test_generate_golden(void **state)
{
    (void)state;
    kit_image img;
    kit_image_generate(&img, 64, 48, 3, 1, KIT_PATTERN_SCENE);
    unsigned long long h_scene = fnv1a(img.px, (size_t)64 * 48 * 3);
    kit_image_free(&img);
    kit_image_generate(&img, 33, 7, 4, 7, KIT_PATTERN_SCENE);
    unsigned long long h_scene4 = fnv1a(img.px, (size_t)33 * 7 * 4);
    kit_image_free(&img);
    if (h_scene != 0x877dd1079fe6225dULL || h_scene4 != 0x867d5d8806030867ULL)
        print_message("# scene hashes now %016llx %016llx\n", h_scene, h_scene4);
    assert_true(h_scene == 0x877dd1079fe6225dULL);
    assert_true(h_scene4 == 0x867d5d8806030867ULL);
}

static void test_generate_noise_bytes(void **state)
{
    (void)state;
    /* splitmix64 seeded with 0 first gives 0xE220A8397B1DCDAF; the noise
     * pattern takes its bytes lowest first. */
    kit_image img;
    kit_image_generate(&img, 3, 3, 1, 0, KIT_PATTERN_NOISE);
    const unsigned char want[8] = {0xAF, 0xCD, 0x1D, 0x7B, 0x39, 0xA8, 0x20, 0xE2};
    assert_memory_equal(img.px, want, 8);
    kit_image_free(&img);

    kit_image_generate(&img, 256, 256, 1, 42, KIT_PATTERN_NOISE);
    unsigned long sum = 0;
    int lo = 255, hi = 0;
    for (int i = 0; i < 65536; i++) {
        sum += img.px[i];
        lo = KIT_MIN(lo, img.px[i]);
        hi = KIT_MAX(hi, img.px[i]);
    }
    double mean = (double)sum / 65536.0;
    assert_true(mean > 126.0 && mean < 129.0);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 255);
    kit_image_free(&img);
}

static void test_generate_gradient_3x2(void **state)
{
    (void)state;
    kit_image img;
    /* R = x ramp, G = y ramp, B = diagonal ramp (hand-computed, rounded) */
    kit_image_generate(&img, 3, 2, 3, 5, KIT_PATTERN_GRADIENT);
    const unsigned char want3[18] = {0,   0,   0,   128, 0,   85,  255, 0,   170,
                                     0,   255, 85,  128, 255, 170, 255, 255, 255};
    assert_memory_equal(img.px, want3, 18);
    kit_image_free(&img);

    kit_image_generate(&img, 3, 2, 1, 5, KIT_PATTERN_GRADIENT);
    const unsigned char want1[6] = {0, 85, 170, 85, 170, 255};
    assert_memory_equal(img.px, want1, 6);
    kit_image_free(&img);

    kit_image_generate(&img, 3, 2, 4, 5, KIT_PATTERN_GRADIENT);
    for (int i = 0; i < 6; i++) {
        assert_memory_equal(img.px + 4 * i, want3 + 3 * i, 3);
        assert_int_equal(img.px[4 * i + 3], 255);
    }
    kit_image_free(&img);
}

static void test_generate_tiny_sizes(void **state)
{
    (void)state;
    const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {3, 3}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int c = 1; c <= 4; c++)
            for (int pat = 0; pat < 3; pat++) {
                kit_image img;
                kit_image_generate(&img, sizes[s][0], sizes[s][1], c, 3, pat);
                assert_int_equal(img.w, sizes[s][0]);
                assert_int_equal(img.h, sizes[s][1]);
                assert_int_equal(img.c, c);
                assert_non_null(img.px);
                kit_image_free(&img);
            }
}

static void test_generate_alpha_not_zero(void **state)
{
    (void)state;
    for (int c = 2; c <= 4; c += 2) {
        kit_image img;
        kit_image_generate(&img, 50, 40, c, 11, KIT_PATTERN_SCENE);
        int amin = 255;
        for (int i = 0; i < 50 * 40; i++)
            amin = KIT_MIN(amin, img.px[i * c + c - 1]);
        assert_true(amin >= 128);
        kit_image_free(&img);
    }
}

/* 3x3 edge response (8 centre, -1 around) of channel ch at (x, y). */
static int edge_at(const kit_image *img, int x, int y, int ch)
{
    int s = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int v = img->px[((size_t)(y + dy) * (size_t)img->w + (size_t)(x + dx)) * (size_t)img->c +
                            (size_t)ch];
            s += (dx == 0 && dy == 0) ? 8 * v : -v;
        }
    return s;
}

static void test_generate_large_scene(void **state)
{
    (void)state;
    const int w = 4992, h = 3744;
    kit_image img;
    kit_image_generate(&img, w, h, 3, 2017, KIT_PATTERN_SCENE);
    int lo = 255, hi = 0;
    for (size_t i = 0; i < (size_t)w * h * 3; i++) {
        lo = KIT_MIN(lo, img.px[i]);
        hi = KIT_MAX(hi, img.px[i]);
    }
    assert_true(lo < 64);
    assert_true(hi > 192);
    /* Edges exist, but most of the picture is smooth: not just noise. */
    size_t strong = 0, total = 0;
    for (int y = 1; y < h - 1; y += 3)
        for (int x = 1; x < w - 1; x += 3) {
            int e = edge_at(&img, x, y, 0);
            strong += (e > 100 || e < -100);
            total++;
        }
    assert_true(strong > 100);
    assert_true(strong < total / 10);
    kit_image_free(&img);
}

/* Shapes scale with the size: a small picture has edges too. */
static void test_generate_small_scene_has_edges(void **state)
{
    (void)state;
    kit_image img;
    kit_image_generate(&img, 24, 16, 1, 2017, KIT_PATTERN_SCENE);
    int strong = 0;
    for (int y = 1; y < 15; y++)
        for (int x = 1; x < 23; x++) {
            int e = edge_at(&img, x, y, 0);
            strong += (e > 100 || e < -100);
        }
    assert_true(strong > 0);
    kit_image_free(&img);
}

static void generate_bad_channels(void)
{
    kit_image img;
    kit_image_generate(&img, 4, 4, 5, 1, KIT_PATTERN_SCENE);
}

static void generate_bad_pattern(void)
{
    kit_image img;
    kit_image_generate(&img, 4, 4, 3, 1, 9);
}

static void test_generate_bad_arguments_exit(void **state)
{
    (void)state;
    assert_int_equal(exit_code_of(generate_bad_channels), KIT_EXIT_RUNTIME);
    assert_int_equal(exit_code_of(generate_bad_pattern), KIT_EXIT_RUNTIME);
}

/* ---------------------------------------------------------------- file I/O */

static void test_png_round_trip(void **state)
{
    (void)state;
    char path[512], err[256];
    for (int c = 1; c <= 4; c++) {
        kit_image a, b;
        kit_image_generate(&a, 41, 23, c, (unsigned long long)c, KIT_PATTERN_SCENE);
        snprintf(err, sizeof err, "round%d.png", c);
        tmp_path(path, sizeof path, err);
        err[0] = 0;
        assert_int_equal(kit_image_save_png(path, &a, err, sizeof err), 0);
        assert_int_equal(kit_image_load(path, 0, &b, err, sizeof err), 0);
        assert_int_equal(b.w, 41);
        assert_int_equal(b.h, 23);
        assert_int_equal(b.c, c);
        assert_memory_equal(a.px, b.px, (size_t)41 * 23 * (size_t)c);
        kit_image_free(&a);
        kit_image_free(&b);
    }
    /* a PNG file starts with the PNG signature */
    size_t n;
    tmp_path(path, sizeof path, "round3.png");
    unsigned char *bytes = read_bytes(path, &n);
    const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    assert_memory_equal(bytes, sig, 8);
    free(bytes);
}

static void test_png_write_and_convert_on_load(void **state)
{
    (void)state;
    char path[512], err[256];
    tmp_path(path, sizeof path, "rgb.png");
    const unsigned char px[6] = {255, 0, 0, 10, 20, 30}; /* 2x1 RGB */
    assert_int_equal(kit_png_write(path, px, 2, 1, 3, err, sizeof err), 0);
    kit_image img;
    assert_int_equal(kit_image_load(path, 4, &img, err, sizeof err), 0);
    assert_int_equal(img.c, 4);
    const unsigned char want4[8] = {255, 0, 0, 255, 10, 20, 30, 255};
    assert_memory_equal(img.px, want4, 8);
    kit_image_free(&img);
    assert_int_equal(kit_image_load(path, 1, &img, err, sizeof err), 0);
    assert_int_equal(img.c, 1);
    assert_int_equal(img.w, 2);
    assert_true(img.px[0] > 50 && img.px[0] < 110); /* luminance of pure red */
    assert_true(img.px[1] > 12 && img.px[1] < 25);
    kit_image_free(&img);
}

static void test_save_leaves_no_temporary(void **state)
{
    (void)state;
    char path[512], err[256];
    tmp_path(path, sizeof path, "atomic.png");
    kit_image a;
    kit_image_generate(&a, 10, 10, 3, 1, KIT_PATTERN_NOISE);
    assert_int_equal(kit_image_save_png(path, &a, err, sizeof err), 0);
    assert_int_equal(kit_image_save_png(path, &a, err, sizeof err), 0); /* overwrite */
    kit_image_free(&a);
    DIR *d = opendir(tmpdir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        assert_null(strstr(e->d_name, ".tmp"));
    closedir(d);
}

static void test_save_errors(void **state)
{
    (void)state;
    char path[512], err[256];
    kit_image a;
    kit_image_generate(&a, 4, 4, 3, 1, KIT_PATTERN_NOISE);
    tmp_path(path, sizeof path, "no_such_dir/out.png");
    assert_int_equal(kit_image_save_png(path, &a, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot write"));
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "No such file or directory"));
    kit_image_free(&a);

    tmp_path(path, sizeof path, "bad.png");
    const unsigned char px[4] = {0};
    assert_int_equal(kit_png_write(path, px, 0, 1, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "invalid image"));
    assert_int_equal(kit_png_write(path, px, 1, 1, 5, err, sizeof err), -1);
    assert_int_equal(kit_png_write(path, NULL, 1, 1, 1, err, sizeof err), -1);
    assert_int_equal(kit_png_write(path, px, 70000, 1, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "larger"));
    assert_int_equal(access(path, F_OK), -1); /* nothing written */
}

static void test_load_missing(void **state)
{
    (void)state;
    char path[512], err[256];
    tmp_path(path, sizeof path, "does_not_exist.png");
    kit_image img = {7, 7, 7, (unsigned char *)err};
    assert_int_equal(kit_image_load(path, 0, &img, err, sizeof err), -1);
    char want[600];
    snprintf(want, sizeof want, "cannot open %s: No such file or directory", path);
    assert_string_equal(err, want);
    assert_null(img.px); /* left empty, safe to free */
    assert_int_equal(img.w, 0);
    kit_image_free(&img);
}

static void test_load_directory(void **state)
{
    (void)state;
    char err[256];
    kit_image img;
    assert_int_equal(kit_image_load(tmpdir, 0, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot open"));
    assert_non_null(strstr(err, "Is a directory"));
}

static void test_load_text_file(void **state)
{
    (void)state;
    char path[512], err[256];
    tmp_path(path, sizeof path, "notes.png");
    const char *text = "this is a text file, not a picture\n";
    write_bytes(path, text, strlen(text));
    kit_image img;
    assert_int_equal(kit_image_load(path, 0, &img, err, sizeof err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s: not a readable image (stb: ", path);
    assert_memory_equal(err, want, strlen(want));
    assert_null(img.px);

    tmp_path(path, sizeof path, "empty.png");
    write_bytes(path, "", 0);
    assert_int_equal(kit_image_load(path, 0, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a readable image"));
}

static void test_load_truncated_png(void **state)
{
    (void)state;
    char path[512], cut[512], err[256];
    tmp_path(path, sizeof path, "whole.png");
    tmp_path(cut, sizeof cut, "cut.png");
    kit_image a;
    kit_image_generate(&a, 64, 64, 3, 5, KIT_PATTERN_NOISE); /* noise: large file */
    assert_int_equal(kit_image_save_png(path, &a, err, sizeof err), 0);
    kit_image_free(&a);
    size_t n;
    unsigned char *bytes = read_bytes(path, &n);
    assert_true(n > 1000);
    write_bytes(cut, bytes, n / 2);
    free(bytes);
    kit_image img;
    assert_int_equal(kit_image_load(cut, 0, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, cut));
    assert_non_null(strstr(err, "not a readable image (stb: "));
    assert_non_null(strstr(err, "corrupt or truncated"));
    assert_null(img.px);
}

static void test_load_ppm_pgm_by_hand(void **state)
{
    (void)state;
    char path[512], err[256];
    unsigned char file[64];
    const char *hdr = "P6\n# made by hand\n2 2\n255\n";
    const unsigned char px[12] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 1, 2, 3};
    size_t hl = strlen(hdr);
    memcpy(file, hdr, hl);
    memcpy(file + hl, px, 12);
    tmp_path(path, sizeof path, "hand.ppm");
    write_bytes(path, file, hl + 12);
    kit_image img;
    assert_int_equal(kit_image_load(path, 0, &img, err, sizeof err), 0);
    assert_int_equal(img.w, 2);
    assert_int_equal(img.h, 2);
    assert_int_equal(img.c, 3);
    assert_memory_equal(img.px, px, 12);
    kit_image_free(&img);

    const char *ghdr = "P5\n3 1\n255\n";
    const unsigned char gpx[3] = {0, 128, 255};
    hl = strlen(ghdr);
    memcpy(file, ghdr, hl);
    memcpy(file + hl, gpx, 3);
    tmp_path(path, sizeof path, "hand.pgm");
    write_bytes(path, file, hl + 3);
    assert_int_equal(kit_image_load(path, 0, &img, err, sizeof err), 0);
    assert_int_equal(img.w, 3);
    assert_int_equal(img.h, 1);
    assert_int_equal(img.c, 1);
    assert_memory_equal(img.px, gpx, 3);
    kit_image_free(&img);
}

static void put_le(unsigned char *p, unsigned long v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)((v >> (8 * i)) & 0xFF);
}

static void test_load_bmp_by_hand(void **state)
{
    (void)state;
    /* 24-bit BMP, 2x2: rows of 6 bytes padded to 8, bottom row first, BGR. */
    unsigned char f[70];
    memset(f, 0, sizeof f);
    f[0] = 'B';
    f[1] = 'M';
    put_le(f + 2, 70, 4);  /* file size */
    put_le(f + 10, 54, 4); /* pixel data offset */
    put_le(f + 14, 40, 4); /* BITMAPINFOHEADER */
    put_le(f + 18, 2, 4);  /* width */
    put_le(f + 22, 2, 4);  /* height (positive: bottom-up) */
    put_le(f + 26, 1, 2);  /* planes */
    put_le(f + 28, 24, 2); /* bits per pixel */
    put_le(f + 34, 16, 4); /* image size */
    /* bottom row (y=1): (0,1) = RGB 1,2,3; (1,1) = RGB 4,5,6 */
    const unsigned char bottom[8] = {3, 2, 1, 6, 5, 4, 0, 0};
    /* top row (y=0): (0,0) = RGB 200,100,50; (1,0) = RGB 7,8,9 */
    const unsigned char top[8] = {50, 100, 200, 9, 8, 7, 0, 0};
    memcpy(f + 54, bottom, 8);
    memcpy(f + 62, top, 8);
    char path[512], err[256];
    tmp_path(path, sizeof path, "hand.bmp");
    write_bytes(path, f, sizeof f);
    kit_image img;
    assert_int_equal(kit_image_load(path, 0, &img, err, sizeof err), 0);
    assert_int_equal(img.w, 2);
    assert_int_equal(img.h, 2);
    assert_int_equal(img.c, 3);
    const unsigned char want[12] = {200, 100, 50, 7, 8, 9, 1, 2, 3, 4, 5, 6};
    assert_memory_equal(img.px, want, 12);
    kit_image_free(&img);
}

static void test_load_too_large(void **state)
{
    (void)state;
    char path[512], err[256];
    const char *hdr = "P5\n70000 1\n255\n"; /* header only: refused before decoding */
    tmp_path(path, sizeof path, "wide.pgm");
    write_bytes(path, hdr, strlen(hdr));
    kit_image img;
    assert_int_equal(kit_image_load(path, 0, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "70000x1"));
    assert_non_null(strstr(err, "larger than the kit accepts"));
    assert_null(img.px);
}

static void test_load_bad_channels_and_small_err(void **state)
{
    (void)state;
    char path[512], err[256];
    tmp_path(path, sizeof path, "round1.png"); /* may not exist: checked first anyway */
    kit_image img;
    assert_int_equal(kit_image_load(path, 5, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, "5 channels"));
    assert_int_equal(kit_image_load(path, -1, &img, err, sizeof err), -1);
    char small[8];
    assert_int_equal(kit_image_load("/no/such/file.png", 0, &img, small, sizeof small), -1);
    assert_int_equal(strlen(small), 7); /* truncated, terminated */
    assert_int_equal(kit_image_load("/no/such/file.png", 0, &img, NULL, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_to_u8_hand_values),
        cmocka_unit_test(test_f32_f64_to_u8),
        cmocka_unit_test(test_u8_to_float),
        cmocka_unit_test(test_clamp),
        cmocka_unit_test(test_layout_u8_2x3),
        cmocka_unit_test(test_layout_f32_2x3),
        cmocka_unit_test(test_layout_round_trip_random),
        cmocka_unit_test(test_pad_2x1_by_2),
        cmocka_unit_test(test_pad_zero_is_copy_and_3x2),
        cmocka_unit_test(test_pad_into_rewrites_everything),
        cmocka_unit_test(test_alloc_free),
        cmocka_unit_test(test_generate_deterministic),
        cmocka_unit_test(test_generate_seed_matters),
        cmocka_unit_test(test_generate_golden),
        cmocka_unit_test(test_generate_noise_bytes),
        cmocka_unit_test(test_generate_gradient_3x2),
        cmocka_unit_test(test_generate_tiny_sizes),
        cmocka_unit_test(test_generate_alpha_not_zero),
        cmocka_unit_test(test_generate_large_scene),
        cmocka_unit_test(test_generate_small_scene_has_edges),
        cmocka_unit_test(test_generate_bad_arguments_exit),
        cmocka_unit_test(test_png_round_trip),
        cmocka_unit_test(test_png_write_and_convert_on_load),
        cmocka_unit_test(test_save_leaves_no_temporary),
        cmocka_unit_test(test_save_errors),
        cmocka_unit_test(test_load_missing),
        cmocka_unit_test(test_load_directory),
        cmocka_unit_test(test_load_text_file),
        cmocka_unit_test(test_load_truncated_png),
        cmocka_unit_test(test_load_ppm_pgm_by_hand),
        cmocka_unit_test(test_load_bmp_by_hand),
        cmocka_unit_test(test_load_too_large),
        cmocka_unit_test(test_load_bad_channels_and_small_err),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
