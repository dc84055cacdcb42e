/* layout.c - the layout conversions of image.h: interleaved and planar
 * channels, 8-bit and floating-point pixels, clamping and zero padding. */
#include "image.h"
#include "kit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void kit_interleaved_to_planar_u8(const unsigned char *src, unsigned char *dst, int w, int h, int c)
{
    size_t n = (size_t)w * (size_t)h;
    for (size_t i = 0; i < n; i++)
        for (int ch = 0; ch < c; ch++)
            dst[(size_t)ch * n + i] = src[i * (size_t)c + (size_t)ch];
}

void kit_planar_to_interleaved_u8(const unsigned char *src, unsigned char *dst, int w, int h, int c)
{
    size_t n = (size_t)w * (size_t)h;
    for (size_t i = 0; i < n; i++)
        for (int ch = 0; ch < c; ch++)
            dst[i * (size_t)c + (size_t)ch] = src[(size_t)ch * n + i];
}

void kit_interleaved_to_planar_f32(const float *src, float *dst, int w, int h, int c)
{
    size_t n = (size_t)w * (size_t)h;
    for (size_t i = 0; i < n; i++)
        for (int ch = 0; ch < c; ch++)
            dst[(size_t)ch * n + i] = src[i * (size_t)c + (size_t)ch];
}

void kit_planar_to_interleaved_f32(const float *src, float *dst, int w, int h, int c)
{
    size_t n = (size_t)w * (size_t)h;
    for (size_t i = 0; i < n; i++)
        for (int ch = 0; ch < c; ch++)
            dst[i * (size_t)c + (size_t)ch] = src[(size_t)ch * n + i];
}

void kit_u8_to_f32(const unsigned char *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (float)src[i];
}

void kit_u8_to_f64(const unsigned char *src, double *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (double)src[i];
}

unsigned char kit_to_u8(double v)
{
    if (isnan(v) || v <= 0.0)
        return 0;
    if (v >= 255.0)
        return 255;
    return (unsigned char)floor(v + 0.5);
}

void kit_f32_to_u8(const float *src, unsigned char *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = kit_to_u8((double)src[i]);
}

void kit_f64_to_u8(const double *src, unsigned char *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = kit_to_u8(src[i]);
}

void kit_clamp_f32(float *buf, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++) {
        float v = buf[i];
        if (!(v >= lo)) /* also catches NaN */
            v = lo;
        else if (v > hi)
            v = hi;
        buf[i] = v;
    }
}

void kit_clamp_f64(double *buf, size_t n, double lo, double hi)
{
    for (size_t i = 0; i < n; i++) {
        double v = buf[i];
        if (!(v >= lo)) /* also catches NaN */
            v = lo;
        else if (v > hi)
            v = hi;
        buf[i] = v;
    }
}

/* Dies with one line unless the picture and the padded rows of `stride` floats fit. */
static void pad_args(const char *who, int w, int h, int c, int pad, size_t stride)
{
    if (w < 0 || h < 0 || c < 1 || pad < 0 ||
        stride < ((size_t)w + 2 * (size_t)pad) * (size_t)c)
        kit_die(KIT_EXIT_RUNTIME, "%s: invalid arguments (%dx%d, %d channels, pad %d, stride %zu)",
                who, w, h, c, pad, stride);
}

float *kit_pad_zero_f32_stride(const float *src, int w, int h, int c, int pad, size_t stride)
{
    pad_args("kit_pad_zero_f32", w, h, c, pad, stride);
    float *dst = kit_calloc_aligned64(stride * ((size_t)h + 2 * (size_t)pad) * sizeof(float));
    kit_pad_zero_f32_into(dst, src, w, h, c, pad, stride);
    return dst;
}

void kit_pad_zero_f32_into(float *dst, const float *src, int w, int h, int c, int pad,
                           size_t stride)
{
    pad_args("kit_pad_zero_f32_into", w, h, c, pad, stride);
    const size_t P = (size_t)pad, C = (size_t)c, rowlen = (size_t)w * C;
    const size_t tail = stride - (P * C + rowlen); /* right border and the stride's slack */
    memset(dst, 0, P * stride * sizeof(float)); /* the top border */
    for (size_t y = 0; y < (size_t)h; y++) {
        float *d = dst + (y + P) * stride;
        memset(d, 0, P * C * sizeof(float));
        memcpy(d + P * C, src + y * rowlen, rowlen * sizeof(float));
        memset(d + P * C + rowlen, 0, tail * sizeof(float));
    }
    memset(dst + ((size_t)h + P) * stride, 0, P * stride * sizeof(float)); /* the bottom */
}

float *kit_pad_zero_f32(const float *src, int w, int h, int c, int pad)
{
    size_t stride = ((size_t)(w < 0 ? 0 : w) + 2 * (size_t)(pad < 0 ? 0 : pad)) * (size_t)(c < 1 ? 1 : c);
    return kit_pad_zero_f32_stride(src, w, h, c, pad, stride);
}
