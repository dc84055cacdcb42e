/* ref.c - lab 02's CPU reference (lab 01's problem) (common/spec.h): the float correlation of
 * the current content, zero outside, clamped. Linked into local builds and
 * the grader's checker, never into a graded build. */
#include "convin.h"
#include "ref.h"
#include "spec.h"

static int reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                     size_t errlen)
{
    (void)v;
    (void)atol;
    (void)err;
    (void)errlen;
    kit_ref_conv_input(p->data, ref->data);
    return 0;
}

static const kit_part_ref parts[] = {{"", reference}};
const kit_lab_refs kit_lab_ref = {1, parts};
