/* convin.h - the inputs of the picture labs, shared by their spec.c files:
 * the case's picture (--image or generated from --size and the seed), fresh
 * content for timed repetitions, and the float convolution input of the CPU
 * labs (01, 02): the filter, the picture as floats and its zero-padded copy. */
#ifndef KIT_CONVIN_H
#define KIT_CONVIN_H

#include <stddef.h>
#include "filters.h"
#include "image.h"
#include "spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The case's picture with `channels` channels: --image when the part has it
 * and it is given, else the procedural scene of --size and the seed. 0, or
 * -1 with a one-line reason naming the file and what is wrong. */
int kit_input_picture(const kit_args *a, unsigned long long seed, int channels, kit_image *img,
                      char *err, size_t errlen);

/* The content of key for a picture's bytes: dst = base XOR a 64-byte
 * pattern drawn from key (key 0: a plain copy). Cheap, never the base's
 * bytes again for key != 0, and the checker repeats it exactly. */
void kit_bytes_fresh(unsigned char *dst, const unsigned char *base, size_t n,
                     unsigned long long key);

/* The filter of --filter and --radius. 0, or -1 with the reason. */
int kit_filter_from_args(const kit_args *a, kit_filter *f, char *err, size_t errlen);

/* Labs 01 and 02: the float picture, its padded copy with rows of `stride`
 * floats ((W+2R)*c rounded up to stride_align floats; 64-byte aligned). */
typedef struct {
    kit_filter filter;
    int w, h, c;
    size_t stride;            /* floats per row of h_ext */
    unsigned char *h_base;    /* the case's picture, W x H x c bytes */
    unsigned char *h_px;      /* the current content's bytes */
    float *h_src;             /* W x H x c floats of the current content */
    float *h_ext;             /* (W+2R) x (H+2R) pixels, zero border, rows of stride floats */
} kit_conv_input;

/* Build it from p's arguments and seed; fills p's width, height, param and
 * input view. 0, or -1 with the reason. */
int kit_conv_input_make(kit_problem *p, int channels, int stride_align, kit_conv_input *in,
                        char *err, size_t errlen);
/* The content of key into h_px, h_src and h_ext. */
void kit_conv_input_fresh(kit_conv_input *in, unsigned long long key);
/* Bytes a variant must move: the extended picture read once, the output written once. */
double kit_conv_input_bytes(const kit_conv_input *in);
void kit_conv_input_free(kit_conv_input *in);
/* The output's description: W x H x c floats, interleaved, the labs' tolerance. */
kit_outdesc kit_conv_input_output(const kit_conv_input *in, double atol, double rtol);

/* The same as a part's callbacks (spec.h) over p->data, for the labs whose
 * problem is this input alone (01, 02): make allocates it into p->data. */
int kit_conv_make(kit_problem *p, int channels, int stride_align, char *err, size_t errlen);
void kit_conv_fresh(kit_problem *p, int v, unsigned long long key);
double kit_conv_bytes(const kit_problem *p, int v);
void kit_conv_release(kit_problem *p);

#ifdef __cplusplus
}
#endif
#endif
