/* stripcheck.c - `make stripcheck` (and the CLI tests, no GPU needed): the
 * strip geometry of strip.h, run on the CPU. For many pictures, radii and
 * strip heights it copies each strip's rows a0..a1-1 into a buffer of
 * strip_buffer_doubles(), runs a row pass and the column pass over it the
 * way the given kernels do (the result over the strip's own input rows),
 * and copies rows y0..y1-1 back; the picture must equal the lab's CPU
 * reference (ref.c), which must equal the kit's plain row and column passes.
 * Prints "N cases" and exits 0, or names the first case that differs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filters.h"
#include "kit.h"
#include "lab05.h"
#include "ref.h"
#include "spec.h"
#include "strip.h"

/* What one thread of each given kernel computes, for every thread. */
static void rows_pass(const double *in, double *tmp, int W, int n, const double *row, int R)
{
    for (int y = 0; y < n; y++)
        for (int x = 0; x < W; x++) {
            double s = 0.0;
            for (int k = -R; k <= R; k++)
                if (x + k >= 0 && x + k < W)
                    s += row[k + R] * in[(size_t)y * W + x + k];
            tmp[(size_t)y * W + x] = s;
        }
}

static int cols_pass(const double *tmp, double *out, int W, int H, strip_span sp,
                     const double *col, int R)
{
    for (int i = 0; i < sp.y1 - sp.y0; i++)
        for (int x = 0; x < W; x++) {
            const int y = sp.y0 + i;
            double s = 0.0;
            for (int k = -R; k <= R; k++) {
                const int yy = y + k;
                if (yy < 0 || yy >= H)
                    continue;
                if (yy < sp.a0 || yy >= sp.a1)
                    return -1; /* a row the strip did not bring */
                s += col[k + R] * tmp[(size_t)(yy - sp.a0) * W + x];
            }
            out[(size_t)i * W + x] = s;
        }
    return 0;
}

int main(void)
{
    kit_prog = "stripcheck";
    const int sizes[][2] = {{1, 1}, {7, 3}, {1, 9}, {5, 1}, {333, 77}, {100, 61}, {64, 200}, {40, 97}};
    const int radii[] = {1, 2, 5, 40, 80};
    const int rows[] = {1, 2, 3, 7, 10, 64, 100000};
    int cases = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t ri = 0; ri < sizeof radii / sizeof radii[0]; ri++) {
            const int W = sizes[si][0], H = sizes[si][1], R = radii[ri];
            const size_t n = (size_t)W * H;
            strip_data d = {0};
            char err[256];
            if (kit_filter_make(ri % 2 ? "box" : "gaussian", R, &d.f, err, sizeof err))
                kit_die(KIT_EXIT_RUNTIME, "%s", err);
            d.w = W;
            d.h = H;
            d.in = malloc(n * sizeof(double));
            double *ref = malloc(n * sizeof(double)), *plain = malloc(n * sizeof(double));
            double *tmp = malloc(n * sizeof(double)), *out = malloc(n * sizeof(double));
            strip_fill(d.in, n, 5, 0);
            kit_problem p = {0};
            p.data = &d;
            p.seed = 5;
            kit_buf rb = {KIT_F64, W, H, 1, 0, ref};
            double atol;
            if (kit_part_reference(&kit_lab_ref, "strip")->reference(&p, 3, &rb, &atol, err, sizeof err))
                kit_die(KIT_EXIT_RUNTIME, "%s", err);
            kit_ref_row_pass_f64(d.in, tmp, W, H, d.f.row, R);
            kit_ref_col_pass_f64(tmp, plain, W, H, d.f.col, R);
            if (memcmp(ref, plain, n * sizeof(double)) != 0) {
                printf("%dx%d radius %d: ref.c differs from the kit's row and column passes\n", W, H, R);
                return 1;
            }
            for (size_t qi = 0; qi < sizeof rows / sizeof rows[0]; qi++) {
                strip_job j = {d.in, out, W, H, R, KIT_MIN(rows[qi], H), 3, 0, 0};
                const size_t cap = strip_buffer_doubles(&j);
                double *b_pic = malloc(cap * sizeof(double)), *b_tmp = malloc(cap * sizeof(double));
                for (size_t i = 0; i < n; i++)
                    out[i] = NAN;
                for (int k = 0; k < strip_count(&j); k++) {
                    const strip_span sp = strip_at(&j, k);
                    if (!(0 <= sp.a0 && sp.a0 <= sp.y0 && sp.y0 < sp.y1 && sp.y1 <= sp.a1 &&
                          sp.a1 <= H) || (size_t)(sp.a1 - sp.a0) * W > cap) {
                        printf("%dx%d radius %d rows %d: strip %d does not fit\n", W, H, R, j.rows, k);
                        return 1;
                    }
                    memcpy(b_pic, d.in + (size_t)sp.a0 * W, (size_t)(sp.a1 - sp.a0) * W * sizeof(double));
                    rows_pass(b_pic, b_tmp, W, sp.a1 - sp.a0, d.f.row, R);
                    if (cols_pass(b_tmp, b_pic, W, H, sp, d.f.col, R)) {
                        printf("%dx%d radius %d rows %d: strip %d lacks halo rows\n", W, H, R, j.rows, k);
                        return 1;
                    }
                    memcpy(out + (size_t)sp.y0 * W, b_pic, (size_t)(sp.y1 - sp.y0) * W * sizeof(double));
                }
                for (size_t i = 0; i < n; i++)
                    if (!(fabs(out[i] - ref[i]) <= 1e-9 + 1e-12 * fabs(ref[i]))) {
                        printf("%dx%d radius %d rows %d: element %zu is %g, not %g\n", W, H, R,
                               j.rows, i, out[i], ref[i]);
                        return 1;
                    }
                free(b_pic);
                free(b_tmp);
                cases++;
            }
            kit_filter_free(&d.f);
            free(d.in);
            free(ref);
            free(plain);
            free(tmp);
            free(out);
        }
    printf("%d cases\n", cases);
    return 0;
}
