/* twopart.c - the test lab's functions (tests/labs/99_twopart/twopart.h).
 *   scale v1  plain loop (given)
 *   scale v2  four elements a step
 *   invert v1 byte by byte
 *   invert v2 row by row
 */
#include "twopart.h"

int scale_v1(const double *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = SCALE_A * x[i];
    return KIT_OK;
}

int scale_v2(const double *x, double *y, size_t n)
{
    /* >>> SOLUTION */
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        y[i] = SCALE_A * x[i];
        y[i + 1] = SCALE_A * x[i + 1];
        y[i + 2] = SCALE_A * x[i + 2];
        y[i + 3] = SCALE_A * x[i + 3];
    }
    for (; i < n; i++)
        y[i] = SCALE_A * x[i];
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    (void)x; (void)y; (void)n;
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int invert_v1(const unsigned char *in, unsigned char *out, int w, int h)
{
    /* >>> SOLUTION */
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        out[i] = (unsigned char)(255 - in[i]);
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    (void)in; (void)out; (void)w; (void)h;
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int invert_v2(const unsigned char *in, unsigned char *out, int w, int h)
{
    /* >>> SOLUTION */
    for (int y = 0; y < h; y++) {
        const unsigned char *r = in + (size_t)y * (size_t)w;
        unsigned char *o = out + (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++)
            o[x] = (unsigned char)~r[x];
    }
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    (void)in; (void)out; (void)w; (void)h;
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}
