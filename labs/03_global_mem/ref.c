/* ref.c - lab 03's CPU reference (common/spec.h): the correlation of the
 * current content (h_in, interleaved) with the filter, zero outside, in the
 * layout of each variant's output: interleaved bytes (v1 to v4, v8), planar bytes
 * (v5, v6), planar doubles of a row pass then a column pass (v7). Linked
 * into local builds and the grader's checker, never into a graded build. */
#include <stdlib.h>

#include "image.h"
#include "input.h"
#include "ref.h"
#include "spec.h"

static int reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                     size_t errlen)
{
    (void)atol; /* the spec's tolerance holds */
    const lab03_input *in = p->data;
    const kit_filter *f = &in->filter;
    const size_t plane = (size_t)in->w * (size_t)in->h;
    if (LAB03_F64(v)) {
        if (!f->separable) {
            kit_set_err(err, errlen, "filter %s is not separable", f->name);
            return -1;
        }
        double *src = kit_malloc(plane * sizeof *src), *tmp = kit_malloc(plane * sizeof *tmp);
        for (int c = 0; c < CONV_CHANNELS; c++) {
            for (size_t i = 0; i < plane; i++)
                src[i] = in->h_in[i * CONV_CHANNELS + (size_t)c];
            kit_ref_row_pass_f64(src, tmp, in->w, in->h, f->row, f->radius);
            kit_ref_col_pass_f64(tmp, (double *)ref->data + (size_t)c * plane, in->w, in->h,
                                 f->col, f->radius);
        }
        free(src);
        free(tmp);
        return 0;
    }
    if (!LAB03_PLANAR(v)) {
        kit_ref_corr2d_u8(in->h_in, ref->data, in->w, in->h, CONV_CHANNELS, 0, f->w64, f->size);
        return 0;
    }
    unsigned char *src = kit_malloc(in->n8);
    kit_interleaved_to_planar_u8(in->h_in, src, in->w, in->h, CONV_CHANNELS);
    kit_ref_corr2d_u8(src, ref->data, in->w, in->h, CONV_CHANNELS, 1, f->w64, f->size);
    free(src);
    return 0;
}

static const kit_part_ref parts[] = {{"", reference}};
const kit_lab_refs kit_lab_ref = {1, parts};
