/* convin.c - the inputs of the picture labs (convin.h). */
#define _POSIX_C_SOURCE 200809L
#include "convin.h"

#include <stdlib.h>
#include <string.h>

#include "kit.h"

int kit_input_picture(const kit_args *a, unsigned long long seed, int channels, kit_image *img,
                      char *err, size_t errlen)
{
    int has_image = 0;
    for (int i = 0; i < a->n; i++)
        has_image |= !strcmp(a->v[i].d->name, "--image") && a->v[i].set;
    if (has_image)
        return kit_image_load(kit_arg_str(a, "--image"), channels, img, err, errlen);
    int w, h;
    kit_arg_wxh(a, "--size", &w, &h);
    kit_image_generate(img, w, h, channels, seed, KIT_PATTERN_SCENE);
    return 0;
}

void kit_bytes_fresh(unsigned char *dst, const unsigned char *base, size_t n,
                     unsigned long long key)
{
    if (key == 0) {
        if (dst != base)
            memcpy(dst, base, n);
        return;
    }
    unsigned char pat[64];
    kit_rng r;
    kit_rng_seed(&r, key);
    for (int i = 0; i < 64; i += 8) {
        unsigned long long x = kit_rng_next(&r);
        for (int j = 0; j < 8; j++) {
            unsigned char b = (unsigned char)(x >> (8 * j));
            pat[i + j] = b ? b : 0x5B; /* never 0: every byte changes */
        }
    }
    /* eight bytes at a time (a timed repetition's host work is mostly this) */
    unsigned long long pw[8];
    memcpy(pw, pat, sizeof pw);
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (int j = 0; j < 8; j++) {
            unsigned long long x;
            memcpy(&x, base + i + 8 * j, 8);
            x ^= pw[j];
            memcpy(dst + i + 8 * j, &x, 8);
        }
    for (; i < n; i++)
        dst[i] = base[i] ^ pat[i & 63];
}

int kit_filter_from_args(const kit_args *a, kit_filter *f, char *err, size_t errlen)
{
    return kit_filter_make(kit_arg_str(a, "--filter"), (int)kit_arg_int(a, "--radius"), f, err,
                           errlen);
}

static void conv_rebuild(kit_conv_input *in)
{
    size_t n = (size_t)in->w * (size_t)in->h * (size_t)in->c;
    kit_u8_to_f32(in->h_px, in->h_src, n);
    if (in->h_ext) /* the same buffer again, all of it rewritten */
        kit_pad_zero_f32_into(in->h_ext, in->h_src, in->w, in->h, in->c, in->filter.radius,
                              in->stride);
    else
        in->h_ext = kit_pad_zero_f32_stride(in->h_src, in->w, in->h, in->c, in->filter.radius,
                                            in->stride);
}

int kit_conv_input_make(kit_problem *p, int channels, int stride_align, kit_conv_input *in,
                        char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    if (kit_filter_from_args(p->args, &in->filter, err, errlen))
        return -1;
    kit_image img = {0};
    if (kit_input_picture(p->args, p->seed, channels, &img, err, errlen)) {
        kit_filter_free(&in->filter);
        return -1;
    }
    size_t n = (size_t)img.w * (size_t)img.h * (size_t)channels;
    in->w = img.w;
    in->h = img.h;
    in->c = channels;
    in->h_base = img.px; /* owned from here */
    in->h_px = kit_malloc(n);
    memcpy(in->h_px, in->h_base, n);
    in->h_src = kit_malloc(n * sizeof(float));
    size_t align = stride_align > 0 ? (size_t)stride_align : 1;
    in->stride = ((size_t)(in->w + 2 * in->filter.radius) * (size_t)channels + align - 1) / align * align;
    conv_rebuild(in);
    p->width = in->w;
    p->height = in->h;
    snprintf(p->param, sizeof p->param, "%s", in->filter.name);
    p->input = (kit_buf){KIT_F32, in->w, in->h, channels, 0, in->h_src};
    return 0;
}

void kit_conv_input_fresh(kit_conv_input *in, unsigned long long key)
{
    kit_bytes_fresh(in->h_px, in->h_base, (size_t)in->w * (size_t)in->h * (size_t)in->c, key);
    conv_rebuild(in);
}

double kit_conv_input_bytes(const kit_conv_input *in)
{
    int R = in->filter.radius;
    double ext = (double)(in->w + 2 * R) * (in->h + 2 * R);
    return (ext + (double)in->w * in->h) * in->c * sizeof(float);
}

kit_outdesc kit_conv_input_output(const kit_conv_input *in, double atol, double rtol)
{
    kit_outdesc o = {KIT_F32, in->w, in->h, in->c, 0, atol, rtol, 1};
    return o;
}

void kit_conv_input_free(kit_conv_input *in)
{
    kit_filter_free(&in->filter);
    free(in->h_base);
    free(in->h_px);
    free(in->h_src);
    free(in->h_ext);
    memset(in, 0, sizeof *in);
}

int kit_conv_make(kit_problem *p, int channels, int stride_align, char *err, size_t errlen)
{
    kit_conv_input *in = kit_calloc(1, sizeof *in);
    p->data = in;
    return kit_conv_input_make(p, channels, stride_align, in, err, errlen) ? KIT_EXIT_USAGE : 0;
}

void kit_conv_fresh(kit_problem *p, int v, unsigned long long key)
{
    (void)v;
    kit_conv_input_fresh(p->data, key);
}

/* Each input float read once, each output float written once. */
double kit_conv_bytes(const kit_problem *p, int v)
{
    (void)v;
    return kit_conv_input_bytes(p->data);
}

void kit_conv_release(kit_problem *p)
{
    if (p->data)
        kit_conv_input_free(p->data);
    free(p->data);
    p->data = NULL;
}
