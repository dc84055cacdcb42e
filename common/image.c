/* image.c - image files through the system's stb and procedural test pictures
 * (the layout conversions of image.h are in layout.c).
 *
 * stb is used as a library (Debian's libstb): only its headers are included
 * here, never its implementation. Link with -lstb -lm.
 */
#define _POSIX_C_SOURCE 200809L
#include "image.h"
#include "kit.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

/* Largest picture the kit reads: 65535 pixels a side and 2^31 bytes. */
#define KIT_IMAGE_MAX_SIDE 65535
#define KIT_IMAGE_MAX_BYTES (1ULL << 31)
/* stb's PNG writer counts bytes in int; stay well inside that. */
#define KIT_PNG_MAX_BYTES (1ULL << 30)

static const char *stb_reason(void)
{
    const char *r = stbi_failure_reason();
    return r ? r : "unknown reason";
}

/* The size a PNG file's header states (its IHDR chunk), read without stb:
 * stb refuses to read the header of a picture it finds too large and then
 * says "unknown image type". 1 when fp holds a PNG header, else 0. */
static int png_header_size(FILE *fp, unsigned long *w, unsigned long *h)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char b[24];
    long at = ftell(fp);
    size_t got = fseek(fp, 0, SEEK_SET) == 0 ? fread(b, 1, sizeof b, fp) : 0;
    if (at >= 0)
        fseek(fp, at, SEEK_SET);
    if (got < sizeof b || memcmp(b, sig, 8) != 0 || memcmp(b + 12, "IHDR", 4) != 0)
        return 0;
    *w = (unsigned long)b[16] << 24 | (unsigned long)b[17] << 16 | (unsigned long)b[18] << 8 | b[19];
    *h = (unsigned long)b[20] << 24 | (unsigned long)b[21] << 16 | (unsigned long)b[22] << 8 | b[23];
    return 1;
}

static void too_large(char *err, size_t errlen, const char *path, unsigned long w, unsigned long h,
                      int c)
{
    kit_set_err(err, errlen,
                "%s: image is %lux%lu with %d channels, larger than the kit accepts "
                "(%d pixels a side, %llu bytes)",
                path, w, h, c, KIT_IMAGE_MAX_SIDE, KIT_IMAGE_MAX_BYTES);
}

/* ------------------------------------------------------------------ load */

int kit_image_load(const char *path, int channels, kit_image *img, char *err, size_t errlen)
{
    img->w = img->h = img->c = 0;
    img->px = NULL;
    if (channels < 0 || channels > 4) {
        kit_set_err(err, errlen, "%s: cannot convert to %d channels (choose 1 to 4, or 0 to keep)",
                path, channels);
        return -1;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        kit_set_err(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        kit_set_err(err, errlen, "cannot open %s: %s", path, strerror(EISDIR));
        return -1;
    }

    /* The header first: an unknown format is told apart from corrupt data,
     * and a huge picture is refused before any pixel memory is taken. */
    int w = 0, h = 0, n = 0;
    if (!stbi_info_from_file(fp, &w, &h, &n)) {
        const char *why = stb_reason();
        unsigned long pw = 0, ph = 0;
        int png = png_header_size(fp, &pw, &ph);
        fclose(fp);
        if (png && (pw > KIT_IMAGE_MAX_SIDE || ph > KIT_IMAGE_MAX_SIDE ||
                    (unsigned long long)pw * ph * (channels ? channels : 4) > KIT_IMAGE_MAX_BYTES))
            too_large(err, errlen, path, pw, ph, channels ? channels : 4);
        else if (png && (pw == 0 || ph == 0))
            kit_set_err(err, errlen, "%s: the PNG header says %lux%lu pixels: no picture", path, pw,
                        ph);
        else if (png)
            kit_set_err(err, errlen, "%s: a PNG of %lux%lu pixels that cannot be read (stb: %s)",
                        path, pw, ph, why);
        else
            kit_set_err(err, errlen, "%s: not a readable image (stb: %s)", path, why);
        return -1;
    }
    int outc = channels ? channels : n;
    if (w < 1 || h < 1 || w > KIT_IMAGE_MAX_SIDE || h > KIT_IMAGE_MAX_SIDE ||
        (unsigned long long)w * (unsigned long long)h * (unsigned long long)outc >
            KIT_IMAGE_MAX_BYTES) {
        fclose(fp);
        too_large(err, errlen, path, (unsigned long)w, (unsigned long)h, outc);
        return -1;
    }

    int lw = 0, lh = 0, ln = 0;
    unsigned char *data = stbi_load_from_file(fp, &lw, &lh, &ln, channels);
    fclose(fp);
    if (!data) {
        kit_set_err(err, errlen,
                "%s: not a readable image (stb: %s); the header reads but the data is "
                "corrupt or truncated",
                path, stb_reason());
        return -1;
    }
    if (lw != w || lh != h) { /* cannot happen with a sane stb; be safe */
        stbi_image_free(data);
        kit_set_err(err, errlen, "%s: not a readable image (stb: size changed while reading)", path);
        return -1;
    }

    /* Hand the caller a buffer from our own allocator, so kit_image_free
     * (plain free) is right whatever allocator stb was built with. */
    size_t bytes = (size_t)w * (size_t)h * (size_t)outc;
    img->px = kit_malloc(bytes);
    memcpy(img->px, data, bytes);
    stbi_image_free(data);
    img->w = w;
    img->h = h;
    img->c = outc;
    return 0;
}

/* ------------------------------------------------------------------ save */

typedef struct {
    unsigned char *buf;
    size_t len, cap;
    int failed;
} membuf;

static void membuf_put(void *context, void *data, int size)
{
    membuf *m = context;
    if (m->failed || size <= 0)
        return;
    size_t need = m->len + (size_t)size;
    if (need > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < need)
            cap *= 2;
        unsigned char *nb = realloc(m->buf, cap);
        if (!nb) {
            m->failed = 1;
            return;
        }
        m->buf = nb;
        m->cap = cap;
    }
    memcpy(m->buf + m->len, data, (size_t)size);
    m->len = need;
}

int kit_picture_format(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return KIT_PIC_NONE;
    if (!strcasecmp(dot, ".png"))
        return KIT_PIC_PNG;
    if (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg"))
        return KIT_PIC_JPG;
    if (!strcasecmp(dot, ".bmp"))
        return KIT_PIC_BMP;
    return KIT_PIC_NONE;
}

int kit_png_write(const char *path, const unsigned char *px, int w, int h, int c,
                  char *err, size_t errlen)
{
    if (!px || w < 1 || h < 1 || c < 1 || c > 4) {
        kit_set_err(err, errlen, "cannot write %s: invalid image (%dx%d, %d channels)", path, w, h, c);
        return -1;
    }
    if (w > KIT_IMAGE_MAX_SIDE || h > KIT_IMAGE_MAX_SIDE ||
        ((unsigned long long)w * (unsigned long long)c + 1ULL) * (unsigned long long)h >
            KIT_PNG_MAX_BYTES) {
        kit_set_err(err, errlen,
                "cannot write %s: %dx%d with %d channels is larger than the PNG writer takes "
                "(%d pixels a side, %llu bytes)",
                path, w, h, c, KIT_IMAGE_MAX_SIDE, KIT_PNG_MAX_BYTES);
        return -1;
    }
    membuf m = {NULL, 0, 0, 0};
    int fmt = kit_picture_format(path);
    int ok = fmt == KIT_PIC_JPG   ? stbi_write_jpg_to_func(membuf_put, &m, w, h, c, px, 95)
             : fmt == KIT_PIC_BMP ? stbi_write_bmp_to_func(membuf_put, &m, w, h, c, px)
                                  : stbi_write_png_to_func(membuf_put, &m, w, h, c, px, w * c);
    if (!ok || m.failed || m.len == 0) {
        free(m.buf);
        kit_set_err(err, errlen, "cannot write %s: %s encoding failed%s", path,
                fmt == KIT_PIC_JPG ? "JPG" : fmt == KIT_PIC_BMP ? "BMP" : "PNG",
                m.failed ? " (out of memory)" : "");
        return -1;
    }
    if (kit_write_file_atomic(path, m.buf, m.len) != 0) {
        int e = errno;
        free(m.buf);
        kit_set_err(err, errlen, "cannot write %s: %s", path, strerror(e));
        return -1;
    }
    free(m.buf);
    return 0;
}

int kit_image_save_png(const char *path, const kit_image *img, char *err, size_t errlen)
{
    if (!img) {
        kit_set_err(err, errlen, "cannot write %s: no image", path);
        return -1;
    }
    return kit_png_write(path, img->px, img->w, img->h, img->c, err, errlen);
}

/* ------------------------------------------------------------ allocation */

void kit_image_alloc(kit_image *img, int w, int h, int c)
{
    if (w < 0 || h < 0 || c < 1 || c > 4)
        kit_die(KIT_EXIT_RUNTIME, "kit_image_alloc: invalid image %dx%d with %d channels", w, h,
                c);
    img->w = w;
    img->h = h;
    img->c = c;
    img->px = kit_calloc((size_t)w * (size_t)h * (size_t)c, 1);
}

void kit_image_free(kit_image *img)
{
    if (!img)
        return;
    free(img->px);
    img->px = NULL;
    img->w = img->h = img->c = 0;
}

/* ------------------------------------------------------------ generation */

/* Everything below is integer arithmetic on values from kit_rng, so the
 * same arguments give the same bytes on every machine. */

static long long rng_range(kit_rng *r, long long lo, long long hi) /* [lo, hi] */
{
    unsigned long long span = (unsigned long long)(hi - lo) + 1ULL;
    return lo + (long long)(kit_rng_next(r) % span);
}

static unsigned char clamp_byte(long long v)
{
    return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
}

typedef struct {
    unsigned char *px;
    int w, h, c;
    int ncolor; /* 1 (grey) or 3 (RGB) */
    int alpha;  /* index of the alpha channel, or -1 */
} canvas;

static void put_pixel(const canvas *cv, long long x, long long y, const unsigned char *col)
{
    if (x < 0 || y < 0 || x >= cv->w || y >= cv->h)
        return;
    unsigned char *p = cv->px + ((size_t)y * (size_t)cv->w + (size_t)x) * (size_t)cv->c;
    for (int ch = 0; ch < cv->ncolor; ch++)
        p[ch] = col[ch];
    if (cv->alpha >= 0)
        p[cv->alpha] = 255;
}

/* A colour for a shape: tone 0 forces dark, 1 bright, 2 anything. */
static void pick_colour(kit_rng *r, int tone, int ncolor, unsigned char *col)
{
    long long base;
    if (tone == 0)
        base = rng_range(r, 0, 40);
    else if (tone == 1)
        base = rng_range(r, 215, 255);
    else
        base = rng_range(r, 0, 255);
    long long spread = tone == 2 ? 60 : 10;
    for (int ch = 0; ch < 3; ch++) {
        long long v = base + rng_range(r, -spread, spread);
        if (ch < ncolor)
            col[ch] = clamp_byte(v);
    }
}

static void fill_rect(const canvas *cv, long long x0, long long y0, long long x1, long long y1,
                      const unsigned char *col)
{
    if (x0 < 0)
        x0 = 0;
    if (y0 < 0)
        y0 = 0;
    if (x1 >= cv->w)
        x1 = cv->w - 1;
    if (y1 >= cv->h)
        y1 = cv->h - 1;
    for (long long y = y0; y <= y1; y++)
        for (long long x = x0; x <= x1; x++)
            put_pixel(cv, x, y, col);
}

static void fill_disc(const canvas *cv, long long cx, long long cy, long long rad,
                      const unsigned char *col)
{
    long long r2 = rad * rad;
    long long y0 = KIT_MAX(cy - rad, 0), y1 = KIT_MIN(cy + rad, (long long)cv->h - 1);
    long long x0 = KIT_MAX(cx - rad, 0), x1 = KIT_MIN(cx + rad, (long long)cv->w - 1);
    for (long long y = y0; y <= y1; y++)
        for (long long x = x0; x <= x1; x++) {
            long long dx = x - cx, dy = y - cy;
            if (dx * dx + dy * dy <= r2)
                put_pixel(cv, x, y, col);
        }
}

/* Bresenham segment drawn with a square brush of side `thick`. */
static void draw_line(const canvas *cv, long long xa, long long ya, long long xb, long long yb,
                      long long thick, const unsigned char *col)
{
    long long dx = xb > xa ? xb - xa : xa - xb, sx = xa < xb ? 1 : -1;
    long long dy = yb > ya ? ya - yb : yb - ya, sy = ya < yb ? 1 : -1; /* dy <= 0 */
    long long e = dx + dy;
    long long half = thick / 2;
    for (;;) {
        for (long long j = 0; j < thick; j++)
            for (long long i = 0; i < thick; i++)
                put_pixel(cv, xa - half + i, ya - half + j, col);
        if (xa == xb && ya == yb)
            break;
        long long e2 = 2 * e;
        if (e2 >= dy) {
            e += dy;
            xa += sx;
        }
        if (e2 <= dx) {
            e += dx;
            ya += sy;
        }
    }
}

static void gen_scene(const canvas *cv, unsigned long long seed)
{
    kit_rng r;
    kit_rng_seed(&r, seed ^ 0x5CE7E5CE7E5CE7EULL);
    long long w = cv->w, h = cv->h;
    long long W = w > 1 ? w - 1 : 1, H = h > 1 ? h - 1 : 1;
    long long m = KIT_MIN(w, h);

    /* Background: bilinear blend of four corner colours. */
    long long corner[4][3];
    for (int k = 0; k < 4; k++)
        for (int ch = 0; ch < 3; ch++)
            corner[k][ch] = rng_range(&r, 60, 200);
    for (long long y = 0; y < h; y++) {
        for (long long x = 0; x < w; x++) {
            unsigned char *p = cv->px + ((size_t)y * (size_t)w + (size_t)x) * (size_t)cv->c;
            /* x <= W and y <= H always (W, H are 1 for a one-pixel side) */
            long long a = (W - x) * (H - y), b = x * (H - y), c = (W - x) * y, d = x * y;
            for (int ch = 0; ch < cv->ncolor; ch++) {
                long long num = corner[0][ch] * a + corner[1][ch] * b + corner[2][ch] * c +
                                corner[3][ch] * d;
                p[ch] = (unsigned char)((num + W * H / 2) / (W * H));
            }
            /* alpha: a vertical ramp from 160 at the top to 255 at the bottom */
            if (cv->alpha >= 0)
                p[cv->alpha] = (unsigned char)(160 + (95 * y + H / 2) / H);
        }
    }

    unsigned char col[3];
    /* Rectangles: sides 10%..40% of the image. */
    for (int k = 0; k < 3; k++) {
        long long rw = w * rng_range(&r, 10, 40) / 100, rh = h * rng_range(&r, 10, 40) / 100;
        long long x0 = rng_range(&r, 0, w - 1), y0 = rng_range(&r, 0, h - 1);
        pick_colour(&r, 2, cv->ncolor, col);
        fill_rect(cv, x0 - rw / 2, y0 - rh / 2, x0 + rw / 2, y0 + rh / 2, col);
    }
    /* Discs: radius 5%..20% of the shorter side; the last two are always one
     * dark and one bright, so every picture spans the byte range. */
    for (int k = 0; k < 4; k++) {
        long long rad = m * rng_range(&r, 5, 20) / 100;
        long long cx = rng_range(&r, 0, w - 1), cy = rng_range(&r, 0, h - 1);
        pick_colour(&r, k == 2 ? 0 : k == 3 ? 1 : 2, cv->ncolor, col);
        fill_disc(cv, cx, cy, rad, col);
    }
    /* Thin lines, about one pixel per 1000 of the shorter side. */
    long long thick = 1 + m / 1000;
    for (int k = 0; k < 5; k++) {
        long long xa = rng_range(&r, 0, w - 1), ya = rng_range(&r, 0, h - 1);
        long long xb = rng_range(&r, 0, w - 1), yb = rng_range(&r, 0, h - 1);
        pick_colour(&r, k % 3, cv->ncolor, col);
        draw_line(cv, xa, ya, xb, yb, thick, col);
    }
    /* Noise of +-4 on the colour channels, eight draws from one number. */
    unsigned long long bits = 0;
    int left = 0;
    size_t npx = (size_t)w * (size_t)h;
    for (size_t i = 0; i < npx; i++) {
        unsigned char *p = cv->px + i * (size_t)cv->c;
        for (int ch = 0; ch < cv->ncolor; ch++) {
            if (left == 0) {
                bits = kit_rng_next(&r);
                left = 8;
            }
            long long delta = (long long)((bits & 0xFF) % 9) - 4;
            bits >>= 8;
            left--;
            p[ch] = clamp_byte((long long)p[ch] + delta);
        }
    }
}

static void gen_noise(const canvas *cv, unsigned long long seed)
{
    kit_rng r;
    kit_rng_seed(&r, seed);
    size_t n = (size_t)cv->w * (size_t)cv->h * (size_t)cv->c;
    size_t i = 0;
    while (i < n) {
        unsigned long long v = kit_rng_next(&r);
        for (int k = 0; k < 8 && i < n; k++, i++) {
            cv->px[i] = (unsigned char)(v & 0xFF);
            v >>= 8;
        }
    }
}

static void gen_gradient(const canvas *cv)
{
    long long w = cv->w, h = cv->h;
    long long W = w > 1 ? w - 1 : 1, H = h > 1 ? h - 1 : 1;
    for (long long y = 0; y < h; y++)
        for (long long x = 0; x < w; x++) {
            unsigned char *p = cv->px + ((size_t)y * (size_t)w + (size_t)x) * (size_t)cv->c;
            long long gx = (255 * x + W / 2) / W, gy = (255 * y + H / 2) / H;
            long long gd = (255 * (x + y) + (W + H) / 2) / (W + H);
            if (cv->ncolor == 1) {
                p[0] = (unsigned char)gd;
            } else {
                p[0] = (unsigned char)gx;
                p[1] = (unsigned char)gy;
                p[2] = (unsigned char)gd;
            }
            if (cv->alpha >= 0)
                p[cv->alpha] = 255;
        }
}

void kit_image_generate(kit_image *img, int w, int h, int c, unsigned long long seed, int pattern)
{
    if (w < 1 || h < 1 || c < 1 || c > 4)
        kit_die(KIT_EXIT_RUNTIME, "kit_image_generate: invalid image %dx%d with %d channels", w,
                h, c);
    if (pattern != KIT_PATTERN_SCENE && pattern != KIT_PATTERN_NOISE &&
        pattern != KIT_PATTERN_GRADIENT)
        kit_die(KIT_EXIT_RUNTIME, "kit_image_generate: unknown pattern %d", pattern);
    kit_image_alloc(img, w, h, c);
    canvas cv = {img->px, w, h, c, c >= 3 ? 3 : 1, (c == 2 || c == 4) ? c - 1 : -1};
    if (pattern == KIT_PATTERN_NOISE)
        gen_noise(&cv, seed);
    else if (pattern == KIT_PATTERN_GRADIENT)
        gen_gradient(&cv);
    else
        gen_scene(&cv, seed);
}
