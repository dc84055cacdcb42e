/* image.h - image I/O (stb from the system package), procedural test images,
 * and the layouts the labs need (interleaved/planar, u8/float, zero padding).
 *
 * Interleaved ("array of structs"): px[(y*w + x)*c + ch].
 * Planar ("struct of arrays"):      px[ch*w*h + y*w + x].
 */
#ifndef KIT_IMAGE_H
#define KIT_IMAGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int w, h, c;       /* width, height, channels (1..4) */
    unsigned char *px; /* interleaved, w*h*c bytes, owned */
} kit_image;

/* Load PNG/JPG/BMP/PPM/PGM/TGA; convert to `channels` (1..4, 0 keeps the file's).
 * Returns 0, or -1 with a one-line reason in err (missing file, not an image,
 * corrupt data, unsupported format). */
int kit_image_load(const char *path, int channels, kit_image *img, char *err, size_t errlen);

/* Write a PNG atomically (temporary file + rename). 0, or -1 with reason. */
int kit_image_save_png(const char *path, const kit_image *img, char *err, size_t errlen);
/* Write interleaved bytes as a picture, the format by the path's extension
 * (kit_picture_format; PNG when it has none). 0, or -1 with a reason. */
int kit_png_write(const char *path, const unsigned char *px, int w, int h, int c,
                  char *err, size_t errlen);
/* The picture format a path names by its extension (case ignored). */
enum { KIT_PIC_NONE = 0, KIT_PIC_PNG = 1, KIT_PIC_JPG = 2, KIT_PIC_BMP = 3 };
int kit_picture_format(const char *path);

/* Allocate w*h*c bytes (zeroed). */
void kit_image_alloc(kit_image *img, int w, int h, int c);
void kit_image_free(kit_image *img);

/* Deterministic procedural picture: gradients, discs, rectangles, thin lines
 * (edges for the filters to find) and seeded noise. Same (w,h,c,seed) gives
 * the same bytes on every machine. Any size from 1x1 up. Channels: 1 grey,
 * 2 grey+alpha, 3 RGB, 4 RGBA. SCENE: alpha is a vertical ramp 160..255,
 * 255 inside shapes; one dark and one bright disc always. NOISE: uniform
 * random bytes, alpha included. GRADIENT: R = x ramp, G = y ramp, B (or
 * grey) = diagonal ramp, alpha 255; the seed is not used. img is filled in
 * fresh (an image it held before is not freed). */
enum { KIT_PATTERN_SCENE = 0, KIT_PATTERN_NOISE = 1, KIT_PATTERN_GRADIENT = 2 };
void kit_image_generate(kit_image *img, int w, int h, int c, unsigned long long seed, int pattern);

/* ---- layouts ---- */
void kit_interleaved_to_planar_u8(const unsigned char *src, unsigned char *dst, int w, int h, int c);
void kit_planar_to_interleaved_u8(const unsigned char *src, unsigned char *dst, int w, int h, int c);
void kit_interleaved_to_planar_f32(const float *src, float *dst, int w, int h, int c);
void kit_planar_to_interleaved_f32(const float *src, float *dst, int w, int h, int c);
void kit_u8_to_f32(const unsigned char *src, float *dst, size_t n);
void kit_u8_to_f64(const unsigned char *src, double *dst, size_t n);
/* Clamp to 0..255 and round half up: the kit's one float -> byte rule. */
unsigned char kit_to_u8(double v);
void kit_f32_to_u8(const float *src, unsigned char *dst, size_t n);
void kit_f64_to_u8(const double *src, unsigned char *dst, size_t n);
/* Clamp in place to [lo, hi]; NaN becomes lo. */
void kit_clamp_f32(float *buf, size_t n, float lo, float hi);
void kit_clamp_f64(double *buf, size_t n, double lo, double hi);

/* Zero-padded extended image (the course guide, section 1.1): src is w x h x c
 * interleaved; dst is (w+2*pad) x (h+2*pad) x c with src at (pad, pad) and
 * zeros around. Returns the new buffer; its width is w+2*pad. */
float *kit_pad_zero_f32(const float *src, int w, int h, int c, int pad);
/* The same with rows of `stride` floats (>= (w+2*pad)*c; the rest of each
 * row is zero), in 64-byte aligned memory (free() releases it), so that
 * aligned vector loads of whole rows are legal when stride is a multiple
 * of 16 floats. */
float *kit_pad_zero_f32_stride(const float *src, int w, int h, int c, int pad, size_t stride);
/* The same into dst (stride * (h + 2*pad) floats, from an earlier call), every
 * float of it written: the copy of a timed repetition's fresh content. */
void kit_pad_zero_f32_into(float *dst, const float *src, int w, int h, int c, int pad,
                           size_t stride);

#ifdef __cplusplus
}
#endif
#endif
