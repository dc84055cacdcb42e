/* ref.c - the test lab's CPU reference, one per part. */
#include "spec.h"
#include "twopart.h"

static int scale_ref(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                     size_t errlen)
{
    const scale_problem *q = p->data;
    double *y = ref->data;
    (void)v, (void)atol, (void)err, (void)errlen;
    for (size_t i = 0; i < q->n; i++)
        y[i] = SCALE_A * q->h_x[i];
    return 0;
}

static int invert_ref(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                      size_t errlen)
{
    const invert_problem *q = p->data;
    unsigned char *o = ref->data;
    (void)v, (void)atol, (void)err, (void)errlen;
    for (size_t i = 0; i < (size_t)q->w * (size_t)q->h; i++)
        o[i] = (unsigned char)(255 - q->h_px[i]);
    return 0;
}

static const kit_part_ref parts[] = {{"scale", scale_ref}, {"invert", invert_ref}};
const kit_lab_refs kit_lab_ref = {2, parts};
