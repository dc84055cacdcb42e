/* compare.h - checking a result against the CPU reference, by DESIGN.md's
 * tolerance policy: 8-bit outputs exact; float and double pass when
 * |got - ref| <= atol + rtol * |ref|. NaN never passes (poison is NaN).
 */
#ifndef KIT_COMPARE_H
#define KIT_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { KIT_U8 = 0, KIT_F32 = 1, KIT_F64 = 2 } kit_type;

/* A buffer and its shape: w x h elements of c channels (a vector is w x 1 x 1). */
typedef struct {
    kit_type type;
    int w, h, c;
    int planar; /* 1: planar channels; 0: interleaved */
    void *data;
} kit_buf;

size_t kit_buf_count(const kit_buf *b);
size_t kit_buf_bytes(const kit_buf *b);
size_t kit_type_size(kit_type t);
double kit_buf_get(const kit_buf *b, size_t i);        /* element i in memory order */
void kit_buf_coords(const kit_buf *b, size_t i, int *x, int *y, int *ch);

#define KIT_CMP_MAX_LIST 10

typedef struct {
    int x, y, ch;
    double expected, got;
} kit_mismatch;

typedef struct {
    size_t count;       /* elements compared */
    size_t mismatches;  /* elements outside the tolerance */
    double max_abs_err, max_rel_err;
    double rel_l2;      /* ||got - ref||_2 / ||ref||_2 (0 when ref is all zero and got equals it) */
    int nlisted;
    kit_mismatch first[KIT_CMP_MAX_LIST];
} kit_cmp;

/* Compare got against ref (same shape and type). atol/rtol are ignored for
 * KIT_U8. Returns the number of mismatches. */
size_t kit_compare(const kit_buf *ref, const kit_buf *got, double atol, double rtol, kit_cmp *r);

/* Print the count, the first mismatches with coordinates, max abs/rel error. */
void kit_cmp_print(FILE *fp, const kit_cmp *r, const char *indent);

/* Diff picture: a faded grey copy of the expected image with |error| drawn
 * as a heat map (yellow to red) and failing pixels in pure red, so they are
 * plain to see. Written as RGB PNG, width w and height h of the buffer.
 * scale: the |error| that saturates the heat map (<= 0: the max error). */
int kit_diff_picture(const char *path, const kit_buf *ref, const kit_buf *got, double atol,
                     double rtol, char *err, size_t errlen);

/* Save a w x h x c buffer (any type, clamped and rounded to 8 bits) as a
 * picture; the format follows the extension (.png, .jpg, .bmp; image.h). */
int kit_buf_save_picture(const char *path, const kit_buf *b, char *err, size_t errlen);

/* The largest side of a sheet kit_buf_save_frames writes. */
#define KIT_SHEET_SIDE 8192

/* Save a stack of pictures (frames of frame_h rows each, one under the other,
 * interleaved channels) as kit_buf_save_picture does; when the stack is more
 * than KIT_SHEET_SIDE rows high, its first frames are laid out side by side
 * in a sheet of at most KIT_SHEET_SIDE pixels a side instead. *shown gets the
 * frames written, *total the frames in the stack (equal: the whole stack). */
int kit_buf_save_frames(const char *path, const kit_buf *b, int frame_h, int *shown, int *total,
                        char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
