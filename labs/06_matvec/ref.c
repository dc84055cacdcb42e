/* ref.c - lab 06's CPU reference (common/spec.h): y = A x with compensated
 * sums, and the tolerance every correct summation order meets. Linked into
 * local builds and the grader's checker, never into a graded build. */
#include <math.h>

#include "matvec.h"
#include "ref.h"
#include "spec.h"

/* u = 2^-53: the unit roundoff of double */
#define U64 1.1102230246251565e-16

/* Any order of the n additions of one row - the reference's, cuBLAS's, a
 * tree of shuffles, atomics in whatever order the blocks arrive - errs by at
 * most gamma(n) * sum_j |a_ij x_j|, gamma(k) = k u / (1 - k u); the
 * reference itself is within u |y_i| of the exact value. So every correct
 * variant is within gamma(n + 2) * S of it, S being the largest
 * sum_j |a_ij x_j| over the rows; 1% margin for S's own rounding. */
static int reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                     size_t errlen)
{
    const matvec_problem *q = p->data;
    (void)v;
    (void)err;
    (void)errlen;
    double *y = ref->data, S = 0.0;
#pragma omp parallel for schedule(dynamic, 64) reduction(max : S)
    for (int i = 0; i < q->m; i++) {
        const double *a = q->h_A + (size_t)i * (size_t)q->n;
        kit_ref_matvec_f64(a, q->h_x, y + i, 1, q->n);
        double s = 0.0;
        for (int j = 0; j < q->n; j++)
            s += fabs(a[j] * q->h_x[j]);
        if (s > S)
            S = s;
    }
    const double k = (double)q->n + 2.0;
    *atol = 1.01 * (k * U64 / (1.0 - k * U64)) * S;
    return 0;
}

static const kit_part_ref parts[] = {{"", reference}};
const kit_lab_refs kit_lab_ref = {1, parts};
