/* ref.c - lab 07's CPU reference (common/spec.h) for the current content of
 * each part: the sum regenerated piece by piece, the picture rescaled or
 * with a plane deleted in the variant's layout, the transpose. Linked into
 * local builds and the grader's checker, never into a graded build. */
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "lab07.h"
#include "ref.h"
#include "spec.h"

#define SUM_PIECE ((size_t)1 << 20) /* elements regenerated at a time */

static int sum_reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                         size_t errlen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(atol);
    KIT_UNUSED(err);
    KIT_UNUSED(errlen);
    const size_t n = (size_t)((const lab07_sum_case *)p->data)->n;
    float *a = kit_malloc(SUM_PIECE * sizeof *a), *b = kit_malloc(SUM_PIECE * sizeof *b);
    float *c = ref->data;
    for (size_t first = 0; first < n; first += SUM_PIECE) {
        const size_t count = KIT_MIN(SUM_PIECE, n - first);
        lab07_sum_content(p, a, b, first, count);
        kit_ref_sum_arrays_f32(a, b, c + first, count);
    }
    free(a);
    free(b);
    return 0;
}

static int soa_reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                         size_t errlen)
{
    KIT_UNUSED(atol);
    const lab07_soa_case *c = p->data;
    const int aos = (v == 1 || v == 3);
    float *img = ref->data;
    memcpy(img, aos ? c->aos : c->soa, 3 * (size_t)c->n * sizeof(float));
    switch (v) {
    case 1:
    case 2:
        kit_ref_rescale_img(img, (float)c->max, (size_t)c->n, aos);
        return 0;
    case 3:
    case 4:
        kit_ref_delete_plane(img, c->plane, (size_t)c->n, aos);
        return 0;
    }
    kit_set_err(err, errlen, "part soa has no variant %d", v);
    return -1;
}

static int tr_reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                        size_t errlen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(atol);
    KIT_UNUSED(err);
    KIT_UNUSED(errlen);
    const lab07_tr_case *c = p->data;
    kit_ref_transpose_f32(c->in, ref->data, c->h, c->w);
    return 0;
}

static const kit_part_ref parts[] = {
    {"sum", sum_reference}, {"soa", soa_reference}, {"transpose", tr_reference}};
const kit_lab_refs kit_lab_ref = {3, parts};
